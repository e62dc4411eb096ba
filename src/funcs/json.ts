// json.ts: Go's encoding/json as templates see it — Marshal (sorted keys, HTML escaping, Go's float format),
// MarshalIndent, Encoder without HTML escaping, and Unmarshal into interface{}, map[string]interface{} or
// []interface{} with Go's syntax and type error texts. Go: encoding/json encode.go, scanner.go, decode.go.
import {
  compareStrings,
  formatFloat,
  GoFloat32,
  GoInt,
  GoStruct,
  goTypeOf,
  isGoFunc,
  isGoMap,
  isGoStringer,
  quote,
  type GoFunc,
  type GoMap,
  type GoValue,
} from '../gotemplate/index.js';
import { defineFunc, goError } from './define.js';
import { newGoMap } from './collections.js';

/** JSONMarshaler is implemented by values with a Go MarshalJSON method (time.Time, *semver.Version). */
export interface GoJSONMarshaler {
  goMarshalJSON(): string;
}

function isMarshaler(v: unknown): v is GoJSONMarshaler {
  return typeof v === 'object' && v !== null && typeof (v as GoJSONMarshaler).goMarshalJSON === 'function';
}

/** JSONError is a Go json.Marshal/Unmarshal error; its message is Go's text. */
export class JSONError extends Error {
  override readonly name = 'JSONError';
}

const HEX = '0123456789abcdef';

/** jsonString encodes a string like Go's appendString (HTML escaping optional, U+2028/9 always escaped). */
export function jsonString(s: string, escapeHTML: boolean): string {
  let out = '"';
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    if (c < 0x80) {
      if (c >= 0x20 && c !== 0x22 && c !== 0x5c && (!escapeHTML || (c !== 0x3c && c !== 0x3e && c !== 0x26))) {
        out += s[i];
        continue;
      }
      switch (c) {
        case 0x5c:
        case 0x22:
          out += '\\' + s[i];
          break;
        case 0x08:
          out += '\\b';
          break;
        case 0x0c:
          out += '\\f';
          break;
        case 0x0a:
          out += '\\n';
          break;
        case 0x0d:
          out += '\\r';
          break;
        case 0x09:
          out += '\\t';
          break;
        default:
          out += '\\u00' + HEX[c >> 4] + HEX[c & 0xf];
      }
      continue;
    }
    if (c === 0x2028 || c === 0x2029) {
      out += '\\u202' + HEX[c & 0xf];
      continue;
    }
    if (c >= 0xd800 && c <= 0xdbff && i + 1 < s.length) {
      const d = s.charCodeAt(i + 1);
      if (d >= 0xdc00 && d <= 0xdfff) {
        out += s[i] + s[i + 1];
        i++;
        continue;
      }
    }
    if (c >= 0xd800 && c <= 0xdfff) {
      out += '\\ufffd'; // a lone surrogate is invalid UTF-8 in Go
      continue;
    }
    out += s[i];
  }
  return out + '"';
}

/** jsonFloat formats a float64 as Go's floatEncoder does (ES6-like cut-offs, Go exponent spelling). */
export function jsonFloat(f: number, bits: 32 | 64 = 64): string {
  if (!Number.isFinite(f)) throw new JSONError(`json: unsupported value: ${formatFloat(f, 'g', -1, 64)}`);
  if (Object.is(f, -0)) return '-0';
  const abs = Math.abs(f);
  if (bits === 32) {
    let s = f.toString();
    for (let p = 1; p <= 9; p++) {
      const t = f.toPrecision(p);
      if (Math.fround(Number(t)) === f) {
        s = Number(t).toString();
        break;
      }
    }
    return abs !== 0 && (abs < 1e-6 || abs >= 1e21) ? s.replace(/e([+-])(\d)$/, 'e$1$2') : s;
  }
  // Number#toString switches to exponent form at the same thresholds and prints e-7, e+21 like Go's cleanup.
  return String(f);
}

interface MarshalOptions {
  escapeHTML: boolean;
  indent?: string;
}

/** marshalJSON is json.Marshal (indent: MarshalIndent with prefix ""). Throws JSONError with Go's text. */
export function marshalJSON(v: GoValue, opts: MarshalOptions): string {
  return encode(v, opts, '');
}

function encode(v: GoValue, opts: MarshalOptions, cur: string): string {
  if (v === null || v === undefined) return 'null';
  switch (typeof v) {
    case 'string':
      return jsonString(v, opts.escapeHTML);
    case 'boolean':
      return v ? 'true' : 'false';
    case 'bigint':
      return v.toString();
    case 'number':
      return jsonFloat(v);
    case 'function':
      throw new JSONError(`json: unsupported type: ${goTypeOf(v)}`);
  }
  if (v instanceof GoInt) return v.value.toString();
  if (v instanceof GoFloat32) return jsonFloat(v.value, 32);
  if (v instanceof Uint8Array) return jsonString(Buffer.from(v).toString('base64'), false);
  if (isMarshaler(v)) return v.goMarshalJSON();
  if (isGoFunc(v)) throw new JSONError(`json: unsupported type: ${goTypeOf(v)}`);
  const ind = opts.indent;
  const next = ind !== undefined ? cur + ind : cur;
  if (Array.isArray(v)) {
    if (v.length === 0) return '[]';
    const items = v.map((e) => encode(e, opts, next));
    return ind !== undefined ? `[\n${next}${items.join(`,\n${next}`)}\n${cur}]` : `[${items.join(',')}]`;
  }
  let entries: [string, GoValue][];
  if (v instanceof GoStruct) {
    entries = Object.entries(v.fields).filter(([k]) => /^\p{Lu}/u.test(k));
  } else if (isGoMap(v)) {
    entries = Object.keys(v)
      .sort(compareStrings)
      .map((k) => [k, (v as GoMap)[k]]);
  } else if (isGoStringer(v)) {
    return '{}'; // a struct without exported fields
  } else {
    throw new JSONError(`json: unsupported type: ${goTypeOf(v)}`);
  }
  if (entries.length === 0) return '{}';
  const sep = ind !== undefined ? ': ' : ':';
  const parts = entries.map(([k, e]) => jsonString(k, opts.escapeHTML) + sep + encode(e, opts, next));
  return ind !== undefined ? `{\n${next}${parts.join(`,\n${next}`)}\n${cur}}` : `{${parts.join(',')}}`;
}

// ---------------------------------------------------------------------------------------------------------------
// Decoding.

/** quoteChar formats a byte for a syntax error the way Go's scanner does. Go: scanner.go quoteChar */
function quoteChar(ch: string): string {
  if (ch === "'") return "'\\''";
  if (ch === '"') return '\'"\'';
  const q = quote(ch);
  return "'" + q.slice(1, -1) + "'";
}

const END = 'unexpected end of JSON input';

/** JSONTarget is the Go type json.Unmarshal decodes into. */
export type JSONTarget = 'interface {}' | 'map[string]interface {}' | '[]interface {}';

/** unmarshalJSON is json.Unmarshal into the target type; syntax errors win over type errors, as in Go. */
export function unmarshalJSON(text: string, target: JSONTarget): { value: GoValue; error?: string } {
  const p = new JSONParser(text);
  let value: GoValue;
  try {
    value = p.parseTop();
  } catch (e) {
    if (e instanceof JSONError) return { value: target === 'interface {}' ? null : empty(target), error: e.message };
    throw e;
  }
  if (p.typeError) return { value: null, error: p.typeError };
  if (target === 'interface {}') return { value };
  const kind = value === null ? 'null' : Array.isArray(value) ? 'array' : isGoMap(value) ? 'object' : jsonKind(value);
  if (kind === 'null') return { value: empty(target) };
  if ((target === 'map[string]interface {}' && kind === 'object') || (target === '[]interface {}' && kind === 'array')) {
    return { value };
  }
  return { value: empty(target), error: `json: cannot unmarshal ${kind} into Go value of type ${target}` };
}

function empty(target: JSONTarget): GoValue {
  return target === '[]interface {}' ? [] : newGoMap();
}

function jsonKind(v: GoValue): string {
  return typeof v === 'string' ? 'string' : typeof v === 'boolean' ? 'bool' : 'number';
}

class JSONParser {
  i = 0;
  typeError: string | undefined;
  constructor(readonly s: string) {}

  /** fail reports Go's scanner error; at the end of input Go feeds a space, which only some states reject. */
  private fail(context: string, spaceInvalid = false): never {
    if (this.i >= this.s.length) throw new JSONError(spaceInvalid ? `invalid character ' ' ${context}` : END);
    let ch = this.s[this.i];
    const code = ch.charCodeAt(0);
    if (code >= 0x80) ch = String.fromCharCode(Buffer.from(this.s.slice(this.i, this.i + 2))[0]); // Go reports the first byte
    throw new JSONError(`invalid character ${quoteChar(ch)} ${context}`);
  }

  private ws(): void {
    while (this.i < this.s.length) {
      const c = this.s[this.i];
      if (c === ' ' || c === '\t' || c === '\n' || c === '\r') this.i++;
      else break;
    }
  }

  parseTop(): GoValue {
    this.ws();
    const v = this.value();
    this.ws();
    if (this.i < this.s.length) this.fail('after top-level value');
    return v;
  }

  private value(): GoValue {
    this.ws();
    const c = this.s[this.i];
    switch (c) {
      case '{':
        return this.object();
      case '[':
        return this.array();
      case '"':
        return this.string();
      case 't':
        return this.literal('true', true);
      case 'f':
        return this.literal('false', false);
      case 'n':
        return this.literal('null', null);
    }
    if (c === '-' || (c >= '0' && c <= '9')) return this.number();
    return this.fail('looking for beginning of value');
  }

  private literal(word: string, v: GoValue): GoValue {
    for (let k = 0; k < word.length; k++, this.i++) {
      if (this.s[this.i] !== word[k]) this.fail(`in literal ${word} (expecting '${word[k]}')`, true);
    }
    return v;
  }

  private number(): GoValue {
    const start = this.i;
    const s = this.s;
    if (s[this.i] === '-') {
      this.i++;
      if (!(s[this.i] >= '0' && s[this.i] <= '9')) this.fail('in numeric literal', true);
    }
    if (s[this.i] === '0') this.i++;
    else while (s[this.i] >= '0' && s[this.i] <= '9') this.i++;
    if (s[this.i] === '.') {
      this.i++;
      if (!(s[this.i] >= '0' && s[this.i] <= '9')) this.fail('after decimal point in numeric literal', true);
      while (s[this.i] >= '0' && s[this.i] <= '9') this.i++;
    }
    if (s[this.i] === 'e' || s[this.i] === 'E') {
      this.i++;
      if (s[this.i] === '+' || s[this.i] === '-') this.i++;
      if (!(s[this.i] >= '0' && s[this.i] <= '9')) this.fail('in exponent of numeric literal', true);
      while (s[this.i] >= '0' && s[this.i] <= '9') this.i++;
    }
    const lit = s.slice(start, this.i);
    const f = Number(lit);
    if (!Number.isFinite(f)) {
      this.typeError ??= `json: cannot unmarshal number ${lit} into Go value of type float64`;
      return null;
    }
    return f;
  }

  private string(): string {
    this.i++; // opening quote
    let out = '';
    const s = this.s;
    for (;;) {
      if (this.i >= s.length) this.fail('');
      const c = s[this.i];
      if (c === '"') {
        this.i++;
        return out;
      }
      if (c < ' ') this.fail('in string literal');
      if (c === '\\') {
        this.i++;
        const e = s[this.i];
        const simple: Record<string, string> = { '"': '"', '\\': '\\', '/': '/', b: '\b', f: '\f', n: '\n', r: '\r', t: '\t' };
        if (e !== undefined && e in simple) {
          out += simple[e];
          this.i++;
        } else if (e === 'u') {
          this.i++;
          let cp = this.hex4();
          if (cp >= 0xd800 && cp <= 0xdbff && s[this.i] === '\\' && s[this.i + 1] === 'u') {
            const save = this.i;
            this.i += 2;
            const lo = this.hex4();
            if (lo >= 0xdc00 && lo <= 0xdfff) cp = 0x10000 + ((cp - 0xd800) << 10) + (lo - 0xdc00);
            else {
              this.i = save;
              cp = 0xfffd;
            }
          } else if (cp >= 0xd800 && cp <= 0xdfff) cp = 0xfffd;
          out += String.fromCodePoint(cp);
        } else this.fail('in string escape code', true);
        continue;
      }
      out += c;
      this.i++;
    }
  }

  private hex4(): number {
    let v = 0;
    for (let k = 0; k < 4; k++) {
      const c = this.s[this.i];
      if (c === undefined || !/[0-9a-fA-F]/.test(c)) this.fail('in \\u hexadecimal character escape', true);
      v = v * 16 + parseInt(c, 16);
      this.i++;
    }
    return v;
  }

  private object(): GoMap {
    this.i++;
    const m = newGoMap();
    this.ws();
    if (this.s[this.i] === '}') {
      this.i++;
      return m;
    }
    for (;;) {
      this.ws();
      if (this.s[this.i] !== '"') this.fail('looking for beginning of object key string');
      const k = this.string();
      this.ws();
      if (this.s[this.i] !== ':') this.fail('after object key');
      this.i++;
      m[k] = this.value();
      this.ws();
      const c = this.s[this.i];
      if (c === ',') {
        this.i++;
        continue;
      }
      if (c === '}') {
        this.i++;
        return m;
      }
      this.fail('after object key:value pair');
    }
  }

  private array(): GoValue[] {
    this.i++;
    const a: GoValue[] = [];
    this.ws();
    if (this.s[this.i] === ']') {
      this.i++;
      return a;
    }
    for (;;) {
      a.push(this.value());
      this.ws();
      const c = this.s[this.i];
      if (c === ',') {
        this.i++;
        continue;
      }
      if (c === ']') {
        this.i++;
        return a;
      }
      this.fail('after array element');
    }
  }
}

// ---------------------------------------------------------------------------------------------------------------
// Sprig's JSON functions. Go: defaults.go

function marshalOrThrow(v: GoValue, opts: MarshalOptions): string {
  try {
    return marshalJSON(v, opts);
  } catch (e) {
    if (e instanceof JSONError) throw goError(e.message);
    throw e;
  }
}

function marshalOrEmpty(v: GoValue, opts: MarshalOptions): string {
  try {
    return marshalJSON(v, opts);
  } catch (e) {
    if (e instanceof JSONError) return '';
    throw e;
  }
}

/** jsonFuncs returns Sprig's JSON functions (Sveltos overrides toJson and fromJson in sveltos.ts). */
export function jsonFuncs(): GoFunc[] {
  const html = { escapeHTML: true };
  const pretty = { escapeHTML: true, indent: '  ' };
  const raw = { escapeHTML: false };
  return [
    defineFunc('fromJson', '(string) interface {}', (s: string) => unmarshalJSON(s, 'interface {}').value),
    defineFunc('mustFromJson', '(string) (interface {}, error)', (s: string) => {
      const r = unmarshalJSON(s, 'interface {}');
      if (r.error) throw goError(r.error);
      return r.value;
    }),
    defineFunc('toJson', '(interface {}) string', (v: GoValue) => marshalOrEmpty(v, html)),
    defineFunc('mustToJson', '(interface {}) (string, error)', (v: GoValue) => marshalOrThrow(v, html)),
    defineFunc('toPrettyJson', '(interface {}) string', (v: GoValue) => marshalOrEmpty(v, pretty)),
    defineFunc('mustToPrettyJson', '(interface {}) (string, error)', (v: GoValue) => marshalOrThrow(v, pretty)),
    // toRawJson panics on error (Go: defaults.go toRawJson), which text/template reports like an error result.
    defineFunc('toRawJson', '(interface {}) string', (v: GoValue) => marshalOrThrow(v, raw)),
    defineFunc('mustToRawJson', '(interface {}) (string, error)', (v: GoValue) => marshalOrThrow(v, raw)),
  ];
}


