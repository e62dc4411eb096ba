// yaml.ts: the two YAML encoders Sveltos templates use and the YAML decoder behind fromYaml/fromYamlArray.
//   toYamlSigs — sigs.k8s.io/yaml Marshal: encoding/json first, then JSON → yaml.v2 → YAML (toYaml, addon copy).
//   toYamlV3   — gopkg.in/yaml.v3 Marshal of the Go value itself (event-manager copy/setField/removeField).
//   parseYamlSigs — sigs.k8s.io/yaml Unmarshal into interface{} (YAML 1.1 → JSON → encoding/json values).
// Go: sigs.k8s.io/yaml yaml.go (Marshal, JSONToYAML, yamlToJSON), gopkg.in/yaml.v3 encode.go.
import { parseAllDocuments, isMap, isSeq, isScalar, isAlias, type Node as YNode, type Document } from 'yaml';
import {
  formatFloat,
  GoFloat32,
  GoInt,
  GoStruct,
  goTypeOf,
  isGoFunc,
  isGoMap,
  isGoStringer,
  type GoMap,
  type GoValue,
} from '../gotemplate/index.js';
import { newGoMap } from './collections.js';
import { JSONError, marshalJSON } from './json.js';
import { GoTime, formatTime } from './date.js';
import { compareYamlKeys, emitYaml, plainNode, resolvePlain, stringNode, type YamlNode } from './yaml-emit.js';

/** YAMLError carries the text go-yaml or sigs.k8s.io/yaml would return. */
export class YAMLError extends Error {}

// ---------------------------------------------------------------------------------------------------------------
// sigs.k8s.io/yaml Marshal: JSON text, re-read by yaml.v2 (numbers become int, uint or float64), written by yaml.v2.

type RawJSON = null | boolean | string | { num: string } | RawJSON[] | { obj: [string, RawJSON][] };

/** parseRawJSON reads encoding/json output keeping each number's literal text. */
function parseRawJSON(text: string): RawJSON {
  let i = 0;
  const ws = () => {
    while (i < text.length && ' \t\n\r'.includes(text[i])) i++;
  };
  const value = (): RawJSON => {
    ws();
    const c = text[i];
    if (c === '{') {
      i++;
      const obj: [string, RawJSON][] = [];
      ws();
      if (text[i] === '}') {
        i++;
        return { obj };
      }
      for (;;) {
        ws();
        const k = value() as string;
        ws();
        i++; // ':'
        obj.push([k, value()]);
        ws();
        if (text[i++] === '}') return { obj };
      }
    }
    if (c === '[') {
      i++;
      const arr: RawJSON[] = [];
      ws();
      if (text[i] === ']') {
        i++;
        return arr;
      }
      for (;;) {
        arr.push(value());
        ws();
        if (text[i++] === ']') return arr;
      }
    }
    if (c === '"') {
      const start = i;
      i++;
      while (text[i] !== '"') i += text[i] === '\\' ? 2 : 1;
      i++;
      return JSON.parse(text.slice(start, i)) as string;
    }
    const m = /^(true|false|null|-?[0-9][0-9.eE+-]*)/.exec(text.slice(i))!;
    i += m[0].length;
    if (m[0] === 'true') return true;
    if (m[0] === 'false') return false;
    if (m[0] === 'null') return null;
    return { num: m[0] };
  };
  return value();
}

function rawToV2Node(v: RawJSON): YamlNode {
  if (v === null) return plainNode('null');
  if (typeof v === 'boolean') return plainNode(v ? 'true' : 'false');
  if (typeof v === 'string') return stringNode(v, 'v2');
  if (Array.isArray(v)) return { kind: 'seq', items: v.map(rawToV2Node) };
  if ('num' in v) {
    // yaml.v2 decodes the JSON number as int, uint64 or float64 and prints that value back.
    const r = resolvePlain(v.num, 'v2');
    if (r.tag === 'int') return plainNode(r.value.toString());
    if (r.tag === 'float') return plainNode(yamlFloat(r.value));
    return plainNode(v.num);
  }
  const pairs = [...v.obj].sort((a, b) => compareYamlKeys(a[0], b[0], 'v2'));
  return { kind: 'map', pairs: pairs.map(([k, e]) => [stringNode(k, 'v2'), rawToV2Node(e)]) };
}

function yamlFloat(f: number, bits: 32 | 64 = 64): string {
  const s = bits === 32 ? float32String(f) : formatFloat(f, 'g', -1, 64);
  return s === '+Inf' ? '.inf' : s === '-Inf' ? '-.inf' : s === 'NaN' ? '.nan' : s;
}

function float32String(f: number): string {
  if (!Number.isFinite(f) || f === 0) return formatFloat(f, 'g', -1, 64);
  for (let p = 1; p <= 9; p++) {
    const s = f.toPrecision(p);
    if (Math.fround(Number(s)) === f) return formatFloat(Number(s), 'g', -1, 64);
  }
  return formatFloat(f, 'g', -1, 64);
}

/** toYamlSigs is sigs.k8s.io/yaml Marshal; it throws YAMLError with sigs' wrapping of the JSON error. */
export function toYamlSigs(v: GoValue): string {
  let json: string;
  try {
    json = marshalJSON(v, { escapeHTML: false });
  } catch (e) {
    if (e instanceof JSONError || e instanceof Error) throw new YAMLError(`error marshaling into JSON: ${e.message}`);
    throw e;
  }
  return emitYaml(rawToV2Node(parseRawJSON(json)), 'v2');
}

// ---------------------------------------------------------------------------------------------------------------
// yaml.v3 Marshal of Go values.

function toV3Node(v: GoValue, seen: Set<object>): YamlNode {
  if (v === null || v === undefined) return plainNode('null');
  switch (typeof v) {
    case 'string':
      return stringNode(v, 'v3');
    case 'boolean':
      return plainNode(v ? 'true' : 'false');
    case 'bigint':
      return plainNode(v.toString());
    case 'number':
      return plainNode(yamlFloat(v));
    case 'function':
      throw new YAMLError(`cannot marshal type: ${goTypeOf(v)}`);
  }
  if (v instanceof GoInt) return plainNode(v.value.toString());
  if (v instanceof GoFloat32) return plainNode(yamlFloat(v.value, 32));
  if (v instanceof GoTime) return plainNode(formatTime(v, '2006-01-02T15:04:05.999999999Z07:00'));
  if (v instanceof Uint8Array) return { kind: 'seq', items: Array.from(v, (b) => plainNode(String(b))) };
  if (seen.has(v as object)) throw new YAMLError('yaml: cycle in value');
  if (Array.isArray(v)) {
    seen.add(v);
    const n: YamlNode = { kind: 'seq', items: v.map((e) => toV3Node(e, seen)) };
    seen.delete(v);
    return n;
  }
  if (v instanceof GoStruct) {
    return {
      kind: 'map',
      pairs: Object.entries(v.fields)
        .filter(([k]) => /^\p{Lu}/u.test(k))
        .map(([k, e]) => [stringNode(k.toLowerCase(), 'v3'), toV3Node(e, seen)]),
    };
  }
  if (isGoFunc(v)) throw new YAMLError(`cannot marshal type: ${goTypeOf(v)}`);
  if (isGoStringer(v)) return stringNode(v.goString(), 'v3'); // encoding.TextMarshaler (e.g. *semver.Version)
  if (isGoMap(v)) {
    seen.add(v);
    const keys = Object.keys(v).sort((a, b) => compareYamlKeys(a, b, 'v3'));
    const n: YamlNode = { kind: 'map', pairs: keys.map((k) => [stringNode(k, 'v3'), toV3Node((v as GoMap)[k], seen)]) };
    seen.delete(v);
    return n;
  }
  throw new YAMLError(`cannot marshal type: ${goTypeOf(v)}`);
}

/**
 * toYamlV3 is gopkg.in/yaml.v3 Marshal (4-space indent, or an Encoder's SetIndent); it throws YAMLError where
 * go-yaml fails.
 */
export function toYamlV3(v: GoValue, indent?: number): string {
  return emitYaml(toV3Node(v, new Set()), 'v3', indent);
}

// ---------------------------------------------------------------------------------------------------------------
// sigs.k8s.io/yaml Unmarshal: YAML 1.1 (yaml.v2 semantics) converted to JSON values.

/** SIGS_YAML_OPTIONS are the `yaml` package's options parseYamlSigs parses with: YAML 1.1, repeated keys, merge keys. */
export const SIGS_YAML_OPTIONS = { version: '1.1', uniqueKeys: false, merge: true, prettyErrors: false } as const;

/**
 * sigsDocumentValue is parseYamlSigs' value of a document parsed with SIGS_YAML_OPTIONS that has no errors (for
 * callers that parsed a stream already and need each document's value); throws YAMLError.
 */
export function sigsDocumentValue(doc: Document.Parsed): GoValue {
  return convertNode(doc.contents as YNode | null, doc);
}

/** parseYamlSigs decodes the first YAML document the way sigs.k8s.io/yaml.Unmarshal does into interface{}. */
export function parseYamlSigs(text: string): GoValue {
  // yaml.v2 decodes only the first document of a stream.
  let doc: Document.Parsed | undefined;
  try {
    const docs = parseAllDocuments(text, SIGS_YAML_OPTIONS);
    doc = Array.isArray(docs) ? docs[0] : undefined;
  } catch (e) {
    throw new YAMLError(`error converting YAML to JSON: yaml: ${(e as Error).message}`);
  }
  if (doc === undefined) return null;
  if (doc.errors.length > 0) {
    const err = doc.errors[0];
    const v2 = yamlV2Error(text, err.message, err.pos[0]);
    const line = v2?.line ?? err.linePos?.[0]?.line ?? text.slice(0, err.pos[0]).split('\n').length;
    const msg = v2?.msg ?? err.message.split('\n')[0].replace(/ at line \d+, column \d+:?$/, '');
    throw new YAMLError(`error converting YAML to JSON: yaml: ${line !== undefined ? `line ${line}: ` : ''}${msg}`);
  }
  return sigsDocumentValue(doc);
}

const lineAt = (text: string, pos: number) => text.slice(0, pos).split('\n').length;

/**
 * yamlV2Error restates the commonest syntax errors the way yaml.v2 reports them (message and line), where the
 * `yaml` package words them differently: an unterminated flow collection is reported at its opening bracket, a
 * mapping nested in a compact mapping at the offending colon.
 */
function yamlV2Error(text: string, message: string, pos: number): { line: number; msg: string } | undefined {
  const flow = /^Flow (sequence|mapping) in block collection must be sufficiently indented and end with a ([\]}])/.exec(message);
  if (flow) {
    const open = flow[1] === 'sequence' ? '[' : '{';
    let depth = 0;
    for (let i = Math.min(pos, text.length) - 1; i >= 0; i--) {
      const c = text[i];
      if (c === ']' || c === '}') depth++;
      else if (c === '[' || c === '{') {
        if (depth === 0) {
          // Nothing after the bracket: libyaml still wants the first node; otherwise a separator or the end.
          const rest = text.slice(i + 1).trim();
          return { line: lineAt(text, i), msg: rest === '' ? 'did not find expected node content' : `did not find expected ',' or '${flow[2]}'` };
        }
        depth--;
      }
      if (c === open && depth < 0) break;
    }
    return undefined;
  }
  if (message.startsWith('Nested mappings are not allowed in compact mappings')) {
    const nl = text.indexOf('\n', pos);
    const m = nl < 0 ? null : /:(?=[ \t\n]|$)/m.exec(text.slice(nl + 1));
    if (m && nl >= 0) return { line: lineAt(text, nl + 1 + m.index), msg: 'mapping values are not allowed in this context' };
  }
  return undefined;
}

function convertNode(n: YNode | null | undefined, doc: Document.Parsed): GoValue {
  if (n === null || n === undefined) return null;
  if (isAlias(n)) return convertNode(n.resolve(doc) as YNode, doc);
  if (isMap(n)) {
    const m = newGoMap();
    for (const pair of n.items) {
      const key = pair.key as YNode | null;
      if (isMergeKey(key)) {
        // `<<: *anchor` (or a list of them) copies the referenced mappings' entries here, as yaml.v2 does.
        const merged = convertNode(pair.value as YNode | null, doc);
        for (const src of Array.isArray(merged) ? merged : [merged]) {
          if (src !== null && typeof src === 'object' && !Array.isArray(src)) Object.assign(m, src);
        }
        continue;
      }
      // Other keys become their JSON string forms.
      m[scalarKey(key, doc)] = convertNode(pair.value as YNode | null, doc);
    }
    return m;
  }
  if (isSeq(n)) return n.items.map((i) => convertNode(i as YNode, doc));
  if (isScalar(n)) {
    const v = n.value;
    if (v === null || v === undefined) return null;
    if (typeof v === 'boolean' || typeof v === 'string') {
      // Timestamps stay as their source text, as sigs.k8s.io/yaml keeps them.
      return typeof v === 'string' ? v : v;
    }
    if (typeof v === 'number') {
      // The yaml package's YAML 1.1 float rule lets both mantissa parts be empty, so `e1` or `E5` come out as NaN;
      // yaml.v2 (go-yaml resolve) reads such plain scalars as strings. Its rule decides. Go: resolve.go
      if (n.type === 'PLAIN' && typeof n.source === 'string' && resolvePlain(n.source, 'v2').tag === 'str') return n.source;
      if (!Number.isFinite(v)) throw new YAMLError(`error converting YAML to JSON: json: unsupported value: ${formatFloat(v, 'g', -1, 64)}`);
      return v;
    }
    if (typeof v === 'bigint') return Number(v);
    if (v instanceof Date) return n.source ?? v.toISOString();
    return String(v);
  }
  return null;
}

function isMergeKey(key: YNode | null): boolean {
  return key !== null && isScalar(key) && (typeof key.value === 'symbol' || (key.source === '<<' && key.type === 'PLAIN'));
}

function scalarKey(key: YNode | null, doc: Document.Parsed): string {
  if (key === null || key === undefined) return 'null';
  if (isScalar(key)) {
    const v = key.value;
    if (v === null) return 'null';
    if (typeof v === 'number') return Number.isInteger(v) ? String(v) : formatFloat(v, 'g', -1, 64);
    if (typeof v === 'bigint') return v.toString();
    if (v instanceof Date) return key.source ?? v.toISOString();
    return String(v);
  }
  return JSON.stringify(convertNode(key, doc));
}
