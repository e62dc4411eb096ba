// go-json: JSON text exactly as Go's encoding/json Encoder writes a map[string]interface{} — what
// unstructured.MarshalJSON produces for a Kubernetes object, and therefore the bytes Sveltos puts into
// EventReport.spec.resources. Keys sorted by byte order, HTML-sensitive characters escaped, U+2028/U+2029 escaped,
// floats in Go's shortest form, a trailing newline after the top-level value.
// Go: encoding/json encode.go (mapEncoder sorts keys, appendString with escapeHTML, floatEncoder), stream.go
// (Encoder.Encode appends '\n'); k8s.io/apimachinery unstructured.go MarshalJSON → UnstructuredJSONScheme.Encode.
import { compareStrings } from '../gotemplate/index.js';

const HEX = '0123456789abcdef';

/** goJSONString quotes s like Go's encoding/json with HTML escaping (the Encoder default). */
export function goJSONString(s: string): string {
  let out = '"';
  let start = 0;
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    let esc: string | undefined;
    if (c < 0x20 || c === 0x22 || c === 0x5c || c === 0x3c || c === 0x3e || c === 0x26 || c === 0x2028 || c === 0x2029) {
      switch (c) {
        case 0x22:
          esc = '\\"';
          break;
        case 0x5c:
          esc = '\\\\';
          break;
        case 0x0a:
          esc = '\\n';
          break;
        case 0x0d:
          esc = '\\r';
          break;
        case 0x09:
          esc = '\\t';
          break;
        // Go 1.22+ writes \b and \f in their short forms.
        case 0x08:
          esc = '\\b';
          break;
        case 0x0c:
          esc = '\\f';
          break;
        default:
          esc = '\\u' + HEX[(c >> 12) & 15] + HEX[(c >> 8) & 15] + HEX[(c >> 4) & 15] + HEX[c & 15];
      }
    } else if (c >= 0xd800 && c <= 0xdfff) {
      // A lone surrogate is invalid UTF-8 on the Go side, which encoding/json replaces with U+FFFD.
      const paired = c <= 0xdbff && i + 1 < s.length && (s.charCodeAt(i + 1) & 0xfc00) === 0xdc00;
      if (paired) {
        i++;
        continue;
      }
      esc = '\\ufffd';
    }
    if (esc !== undefined) {
      out += s.slice(start, i) + esc;
      start = i + 1;
    }
  }
  return out + s.slice(start) + '"';
}

/** goJSONNumber formats a number like Go's float64 encoder (integers print without a fraction, as int64 does). */
export function goJSONNumber(n: number): string {
  if (!Number.isFinite(n)) throw new TypeError(`json: unsupported value: ${n}`);
  if (Object.is(n, -0)) return '-0';
  // JavaScript's shortest round-trip form uses the same exponent thresholds as Go (1e-6, 1e21) and the same
  // mantissa; only the exponent spelling differs in theory ("e-7" in both after Go's cleanup of "e-07").
  return String(n);
}

/** goJSONMarshal encodes a JSON value like json.Marshal of the equivalent map[string]interface{} (no trailing newline). */
export function goJSONMarshal(v: unknown): string {
  switch (typeof v) {
    case 'string':
      return goJSONString(v);
    case 'number':
      return goJSONNumber(v);
    case 'boolean':
      return v ? 'true' : 'false';
    case 'bigint':
      return v.toString();
    case 'undefined':
      return 'null';
    case 'object': {
      if (v === null) return 'null';
      if (Array.isArray(v)) return '[' + v.map((e) => goJSONMarshal(e)).join(',') + ']';
      const keys = Object.keys(v).filter((k) => (v as Record<string, unknown>)[k] !== undefined);
      keys.sort(compareStrings);
      return '{' + keys.map((k) => goJSONString(k) + ':' + goJSONMarshal((v as Record<string, unknown>)[k])).join(',') + '}';
    }
    default:
      throw new TypeError(`json: unsupported type: ${typeof v}`);
  }
}
