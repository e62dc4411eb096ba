// yaml.ts: reading resource files the way kyaml does (yaml.v3, YAML 1.2 core schema: `yes` is a string, integers
// stay integers) and writing a resource the way `kubectl kustomize` prints it: Resource.AsYAML is JSON first, then
// sigs.k8s.io/yaml JSONToYAML (yaml.v2: keys sorted, 2-space indent, sequences not indented, long lines folded).
// Go: kustomize api/resource/resource.go AsYAML, kyaml/yaml/rnode.go MarshalJSON.
import { isAlias, isMap, isScalar, isSeq, LineCounter, parseAllDocuments, type Document, type Node as YNode } from 'yaml';
import { parseYamlSigs, toYamlSigs, YAMLError } from '../funcs/index.js';
import { KustomizeError } from './errors.js';

/** JSONValue is a decoded YAML value: integers are bigint, floats number. */
export type JSONValue = null | boolean | number | bigint | string | JSONValue[] | JSONObject;
/** JSONObject is a decoded YAML mapping. */
export interface JSONObject {
  [k: string]: JSONValue;
}

/** isObject tells a mapping from every other value. */
export const isObject = (v: unknown): v is JSONObject => typeof v === 'object' && v !== null && !Array.isArray(v) && !(v instanceof Uint8Array);

/** parseDocuments decodes every non-empty document of a YAML stream as yaml.v3 would (YAML 1.2, ints as bigint). */
export function parseDocuments(text: string, file: string): JSONValue[] {
  const lineCounter = new LineCounter();
  const docs = parseAllDocuments(text, { version: '1.2', schema: 'core', intAsBigInt: true, uniqueKeys: false, prettyErrors: false, lineCounter });
  const out: JSONValue[] = [];
  for (const d of Array.isArray(docs) ? docs : [docs]) {
    if (d.errors.length > 0) {
      const err = d.errors[0];
      const line = err.linePos?.[0]?.line ?? text.slice(0, err.pos[0]).split('\n').length;
      const msg = err.message.split('\n')[0].replace(/ at line \d+, column \d+:?$/, '');
      throw new KustomizeError('Invalid', `MalformedYAMLError: yaml: line ${line}: ${msg} in File: ${file}`);
    }
    const dups: string[] = [];
    const startLine = d.contents?.range ? lineCounter.linePos(d.contents.range[0]).line : 1;
    const v = convert(d.contents as YNode | null, d, (n) => (n.range ? lineCounter.linePos(n.range[0]).line - startLine + 1 : 0), dups);
    if (v === null) continue;
    if (dups.length > 0 && isObject(v)) DUPLICATE_KEYS.set(v, dups);
    out.push(v);
  }
  return out;
}

/**
 * DUPLICATE_KEYS holds, for a decoded document, yaml.v3's complaints about repeated mapping keys. kyaml reads such a
 * document without error; decoding it into a map fails later, when the object is printed.
 */
export const DUPLICATE_KEYS = new WeakMap<JSONObject, string[]>();

function convert(n: YNode | null | undefined, doc: Document.Parsed, lineOf: (n: YNode) => number, dups: string[]): JSONValue {
  if (n === null || n === undefined) return null;
  if (isAlias(n)) return convert(n.resolve(doc) as YNode, doc, lineOf, dups);
  if (isMap(n)) {
    const o: JSONObject = {};
    const firstLine = new Map<string, number>();
    for (const pair of n.items) {
      const k = pair.key as YNode | null;
      const v = convert(pair.value as YNode | null, doc, lineOf, dups);
      if (isScalar(k) && k.value === '<<' && k.type === 'PLAIN') {
        for (const src of Array.isArray(v) ? v : [v]) if (isObject(src)) for (const [mk, mv] of Object.entries(src)) if (!(mk in o)) o[mk] = mv;
        continue;
      }
      const key = convert(k, doc, lineOf, dups);
      const ks = typeof key === 'string' ? key : key === null ? 'null' : String(key);
      if (k && firstLine.has(ks)) dups.push(`line ${lineOf(k)}: mapping key ${JSON.stringify(ks)} already defined at line ${firstLine.get(ks)}`);
      else if (k) firstLine.set(ks, lineOf(k));
      o[ks] = v;
    }
    return o;
  }
  if (isSeq(n)) return n.items.map((e) => convert(e as YNode, doc, lineOf, dups));
  if (isScalar(n)) {
    if (n.type === 'PLAIN' && !n.tag && typeof n.source === 'string') return resolvePlainV3(n.source);
    const v = n.value;
    if (typeof v === 'number' && Number.isInteger(v) && n.tag === undefined) return BigInt(v);
    if (v instanceof Date) return goTime(v);
    if (v instanceof Uint8Array) return Buffer.from(v).toString('base64');
    return (v === undefined ? null : v) as JSONValue;
  }
  return null;
}

const YAML_FLOAT = /^[-+]?(\.[0-9]+|[0-9]+(\.[0-9]*)?)([eE][-+]?[0-9]+)?$/;
const TIMESTAMP = /^(\d{4})-(\d{1,2})-(\d{1,2})(?:(?:[Tt]|[ \t]+)(\d{1,2}):(\d{1,2}):(\d{1,2})(\.\d*)?(?:[ \t]*(Z|[-+]\d{1,2}(?::?\d{2})?))?)?$/;

// goTime is encoding/json's text for a time.Time in UTC (RFC 3339 with trailing zero fractions dropped).
function goTime(d: Date): string {
  const iso = d.toISOString();
  return iso.replace(/\.000Z$/, 'Z').replace(/(\.\d*?)0+Z$/, '$1Z');
}

/** resolvePlainV3 is yaml.v3's resolve for an untagged plain scalar decoded into interface{}. */
export function resolvePlainV3(s: string): JSONValue {
  if (s === '' || s === '~' || s === 'null' || s === 'Null' || s === 'NULL') return null;
  if (s === 'true' || s === 'True' || s === 'TRUE') return true;
  if (s === 'false' || s === 'False' || s === 'FALSE') return false;
  if (/^[-+]?\.(inf|Inf|INF)$/.test(s)) return s.startsWith('-') ? -Infinity : Infinity;
  if (/^\.(nan|NaN|NAN)$/.test(s)) return NaN;
  const c = s[0];
  if ((c >= '0' && c <= '9') || c === '-' || c === '+' || c === '.') {
    const plain = s.replace(/_/g, '');
    const i = goParseInt(plain);
    if (i !== undefined) return i;
    if (YAML_FLOAT.test(plain)) return Number(plain);
    const m = TIMESTAMP.exec(s);
    if (m) {
      const [, y, mo, d, h, mi, sec, frac, tz] = m;
      const ms = frac ? Number((frac + '000').slice(1, 4)) : 0;
      let t = Date.UTC(Number(y), Number(mo) - 1, Number(d), Number(h ?? 0), Number(mi ?? 0), Number(sec ?? 0), ms);
      if (tz && tz !== 'Z') {
        const tm = /^([-+])(\d{1,2})(?::?(\d{2}))?$/.exec(tz)!;
        const off = (Number(tm[2]) * 60 + Number(tm[3] ?? 0)) * 60000;
        t -= tm[1] === '-' ? -off : off;
      }
      return goTime(new Date(t));
    }
  }
  return s;
}

// goParseInt is strconv.ParseInt(s, 0, 64) (then ParseUint): 0x, 0o, 0b and a leading 0 (octal) prefixes.
function goParseInt(s: string): bigint | undefined {
  const m = /^([-+]?)(0[xX][0-9a-fA-F]+|0[oO][0-7]+|0[bB][01]+|0[0-7]*|[1-9][0-9]*)$/.exec(s);
  if (!m) return undefined;
  let body = m[2];
  if (/^0[0-7]+$/.test(body)) body = '0o' + body.slice(1);
  else if (/^0[oO]/.test(body)) body = '0o' + body.slice(2);
  let v = BigInt(body);
  if (m[1] === '-') v = -v;
  if (v > 18446744073709551615n || v < -9223372036854775808n) return undefined;
  if (v > 9223372036854775807n && m[1] === '-') return undefined;
  return v;
}

/** parseKustomizationYaml decodes a kustomization file as sigs.k8s.io/yaml YAMLToJSON does (YAML 1.1). */
export function parseKustomizationYaml(text: string): unknown {
  try {
    return parseYamlSigs(text);
  } catch (e) {
    if (e instanceof YAMLError) throw new KustomizeError('Invalid', `invalid Kustomization: ${e.message}`, { cause: e });
    throw e;
  }
}

/** resourceYaml prints one resource as Resource.AsYAML does. */
export function resourceYaml(obj: JSONObject): string {
  return toYamlSigs(obj as never);
}

/** cloneValue deep-copies a JSONValue. */
export function cloneValue<T extends JSONValue>(v: T): T {
  if (Array.isArray(v)) return v.map(cloneValue) as T;
  if (isObject(v)) {
    const o: JSONObject = {};
    for (const [k, e] of Object.entries(v)) o[k] = cloneValue(e);
    return o as T;
  }
  return v;
}

/** scalarString is a scalar's text as kyaml's node Value holds it. */
export function scalarString(v: JSONValue): string {
  if (v === null) return 'null';
  if (typeof v === 'string') return v;
  if (typeof v === 'bigint' || typeof v === 'boolean') return String(v);
  if (typeof v === 'number') return Number.isInteger(v) ? String(v) : String(v);
  return JSON.stringify(v);
}
