// builtinDecodeError: what kube-apiserver's typed JSON decoder says when a built-in object has a value of the wrong
// JSON type (`json: cannot unmarshal string into Go struct field DeploymentSpec.spec.replicas of type int32`), an
// invalid quantity or int-or-string, or undecodable base64 in a []byte field. The server answers these with 400
// `<Kind> in version "<v>" cannot be handled as a <Kind>: <message>`. Unknown fields are not this decoder's business
// (see compileSchema(...).unknownFields for strict field validation).
// Go: encoding/json decode.go (UnmarshalTypeError, first error wins, decoding continues), encoding/base64
// decodeQuantum, k8s.io/apimachinery resource.Quantity and intstr.IntOrString UnmarshalJSON.
import { goTypeName } from './builtin.js';
import { isObject, jsonTypeName } from './json.js';
import type { JSONSchemaProps } from './types.js';

const QUANTITY_RE = /^([+-]?[0-9.]+)([eEinumkKMGTP]*[-+]?[0-9]*)$/;
const INT_RANGE: Record<string, [number, number]> = { int32: [-2147483648, 2147483647], int64: [-9223372036854775808, 9223372036854775807] };

/** builtinDecodeError returns the first decoder error for obj against a built-in kind's schema, or undefined. */
export function builtinDecodeError(schema: JSONSchemaProps, obj: unknown): string | undefined {
  return walk(obj, schema, [], goTypeName(schema)?.replace(/^v1\./, '') ?? '');
}

// goType renders the Go type a schema node decodes into (string, int32, []v1.Container, map[string]string, ...).
function goType(s: JSONSchemaProps): string {
  if (s['x-ripple-quantity']) return 'resource.Quantity';
  if (s['x-kubernetes-int-or-string']) return 'intstr.IntOrString';
  const named = goTypeName(s);
  if (named) return named;
  switch (s.type) {
    case 'string':
      return s.format === 'byte' ? '[]uint8' : s.format === 'date-time' ? 'v1.Time' : 'string';
    case 'integer':
      return s.format === 'int32' ? 'int32' : 'int64';
    case 'number':
      return 'float64';
    case 'boolean':
      return 'bool';
    case 'array':
      return `[]${s.items ? goType(s.items) : 'interface {}'}`;
    case 'object':
      return isObject(s.additionalProperties) ? `map[string]${goType(s.additionalProperties as JSONSchemaProps)}` : 'map[string]interface {}';
    default:
      return 'interface {}';
  }
}

function typeError(v: unknown, s: JSONSchemaProps, path: string[], struct: string, literal?: string): string {
  const what = literal ?? jsonTypeName(v);
  if (path.length === 0 || struct === '') return `json: cannot unmarshal ${what} into Go value of type ${goType(s)}`;
  return `json: cannot unmarshal ${what} into Go struct field ${struct}.${path.join('.')} of type ${goType(s)}`;
}

function walk(v: unknown, s: JSONSchemaProps, path: string[], struct: string): string | undefined {
  if (v === null || v === undefined) return undefined;
  if (s['x-kubernetes-preserve-unknown-fields'] && !s.type) return undefined;
  if (s['x-ripple-quantity']) {
    if (typeof v === 'number') return undefined;
    if (typeof v === 'string' && QUANTITY_RE.test(v.trim())) return undefined;
    return "quantities must match the regular expression '^([+-]?[0-9.]+)([eEinumkKMGTP]*[-+]?[0-9]*)$'";
  }
  if (s['x-kubernetes-int-or-string']) {
    if (typeof v === 'string') return undefined;
    if (typeof v === 'number' && Number.isInteger(v) && v >= INT_RANGE.int32[0] && v <= INT_RANGE.int32[1]) return undefined;
    const what = typeof v === 'number' ? `number ${String(v)}` : jsonTypeName(v);
    return `json: cannot unmarshal ${what} into Go value of type int32`;
  }
  switch (s.type) {
    case 'string':
      if (typeof v !== 'string') {
        // metav1.Time decodes through its own UnmarshalJSON, which reports without the field context.
        if (s.format === 'date-time') return `json: cannot unmarshal ${jsonTypeName(v)} into Go value of type string`;
        return typeError(v, s, path, struct);
      }
      if (s.format === 'byte') return base64Error(v);
      return undefined;
    case 'integer': {
      if (typeof v !== 'number') return typeError(v, s, path, struct);
      const [lo, hi] = INT_RANGE[s.format === 'int32' ? 'int32' : 'int64'];
      if (!Number.isInteger(v) || v < lo || v > hi) return typeError(v, s, path, struct, `number ${String(v)}`);
      return undefined;
    }
    case 'number':
      return typeof v === 'number' ? undefined : typeError(v, s, path, struct);
    case 'boolean':
      return typeof v === 'boolean' ? undefined : typeError(v, s, path, struct);
    case 'array': {
      if (!Array.isArray(v)) return typeError(v, s, path, struct);
      if (!s.items) return undefined;
      for (const item of v) {
        const e = walk(item, s.items, path, struct);
        if (e) return e;
      }
      return undefined;
    }
    case 'object': {
      if (!isObject(v)) return typeError(v, s, path, struct);
      const inner = goTypeName(s)?.replace(/^v1\./, '') ?? struct;
      for (const k of Object.keys(v)) {
        const prop = s.properties?.[k];
        if (prop) {
          const e = walk(v[k], prop, [...path, k], inner);
          if (e) return e;
        } else if (isObject(s.additionalProperties)) {
          const e = walk(v[k], s.additionalProperties as JSONSchemaProps, path, struct);
          if (e) return e;
        }
      }
      return undefined;
    }
    default:
      return undefined;
  }
}

const B64 = new Set([...'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/'].map((c) => c.charCodeAt(0)));
const NL = 10;
const CR = 13;
const PAD = 61;
const utf8 = new TextEncoder();

// base64Error ports encoding/base64 (StdEncoding) decodeQuantum's error positions over the UTF-8 bytes:
// "illegal base64 data at input byte N". Newlines are skipped, like Go.
function base64Error(text: string): string | undefined {
  const src = utf8.encode(text);
  const err = (n: number) => `illegal base64 data at input byte ${n}`;
  const skipNewlines = (i: number) => {
    while (i < src.length && (src[i] === NL || src[i] === CR)) i++;
    return i;
  };
  let si = 0;
  for (;;) {
    let j = 0;
    for (; j < 4; j++) {
      if (src.length === si) {
        if (j === 0) return undefined;
        return err(si - j);
      }
      const ch = src[si];
      si++;
      if (B64.has(ch)) continue;
      if (ch === NL || ch === CR) {
        j--;
        continue;
      }
      if (ch !== PAD) return err(si - 1);
      // Padding: only in the last two positions of a quantum; after a first "=" at j == 2 another must follow.
      if (j === 0 || j === 1) return err(si - 1);
      if (j === 2) {
        si = skipNewlines(si);
        if (si === src.length) return err(src.length);
        if (src[si] !== PAD) return err(si - 1);
        si++;
      }
      si = skipNewlines(si);
      return si < src.length ? err(si) : undefined;
    }
  }
}
