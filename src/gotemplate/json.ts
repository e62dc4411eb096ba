// json.ts: JSON ⇄ Go values. decodeJSON decodes JSON text the way the Go programs Sveltos runs do: as
// encoding/json into interface{} (every number a float64) or as apimachinery's decoder (integral numbers int64,
// exact even beyond 2^53). toPlainJSON turns Go values back into plain JavaScript data.
import { GoFloat32, GoInt, GoStruct, isGoFunc, isGoStringer, type GoMap, type GoValue } from './value.js';
import { GoComplex } from './reflect.js';
import { TemplateError } from './errors.js';
import { parseInt64 } from './strconv.js';

/** NumberMode is how JSON numbers become Go values: all float64, or int64 when the literal is an integer. */
export type NumberMode = 'float64' | 'int64';

/** NumberModes is one mode for the whole document, or one per top-level key ('*' for the rest). */
export type NumberModes = NumberMode | Readonly<Record<string, NumberMode>>;

/** DecodeOptions configures decodeJSON. */
export interface DecodeOptions {
  numbers?: NumberModes;
}

/**
 * decodeJSON parses JSON text into Go values: objects become maps (plain objects), arrays []interface{} (arrays),
 * numbers float64 (number) or, in int64 mode, int64 (bigint) for integer literals that fit. Throws TemplateError
 * with code 'invalid_json'.
 */
export function decodeJSON(text: string, options: DecodeOptions = {}): GoValue {
  const modes = options.numbers ?? 'float64';
  if (modes === 'float64') {
    try {
      return JSON.parse(text) as GoValue;
    } catch (e) {
      throw new TemplateError('invalid_json', `invalid JSON: ${(e as Error).message}`, { cause: e });
    }
  }
  const p = new JSONParser(text);
  p.skipSpace();
  let v: GoValue;
  if (typeof modes === 'string') {
    v = p.value(modes);
  } else if (p.peek() === '{') {
    v = p.object(modes['*'] ?? 'float64', modes);
  } else {
    v = p.value(modes['*'] ?? 'float64');
  }
  p.skipSpace();
  if (p.i !== text.length) p.fail('unexpected data after the top-level value');
  return v;
}

class JSONParser {
  i = 0;
  constructor(readonly s: string) {}

  fail(msg: string): never {
    throw new TemplateError('invalid_json', `invalid JSON at offset ${this.i}: ${msg}`);
  }

  peek(): string {
    return this.s[this.i];
  }

  skipSpace(): void {
    const s = this.s;
    while (this.i < s.length) {
      const c = s.charCodeAt(this.i);
      if (c === 0x20 || c === 0x0a || c === 0x0d || c === 0x09) this.i++;
      else break;
    }
  }

  value(mode: NumberMode): GoValue {
    this.skipSpace();
    const c = this.s[this.i];
    switch (c) {
      case '{':
        return this.object(mode, null);
      case '[':
        return this.array(mode);
      case '"':
        return this.string();
      case 't':
        return this.literal('true', true);
      case 'f':
        return this.literal('false', false);
      case 'n':
        return this.literal('null', null);
    }
    if (c === '-' || (c >= '0' && c <= '9')) return this.number(mode);
    this.fail(c === undefined ? 'unexpected end of input' : `unexpected character ${JSON.stringify(c)}`);
  }

  literal(word: string, v: GoValue): GoValue {
    if (!this.s.startsWith(word, this.i)) this.fail(`expected ${word}`);
    this.i += word.length;
    return v;
  }

  number(mode: NumberMode): GoValue {
    const re = /-?(?:0|[1-9][0-9]*)(\.[0-9]+)?([eE][+-]?[0-9]+)?/y;
    re.lastIndex = this.i;
    const m = re.exec(this.s);
    if (m === null) this.fail('invalid number');
    this.i = re.lastIndex;
    const text = m[0];
    if (mode === 'int64' && m[1] === undefined && m[2] === undefined) {
      const n = parseInt64(text, 10);
      if (n.ok) return n.value;
    }
    return Number(text);
  }

  string(): string {
    const s = this.s;
    const start = this.i + 1;
    let j = start;
    let escaped = false;
    for (; j < s.length; j++) {
      const c = s.charCodeAt(j);
      if (c === 0x22) break;
      if (c === 0x5c) {
        escaped = true;
        j++;
      } else if (c < 0x20) {
        this.i = j;
        this.fail('control character in string');
      }
    }
    if (j >= s.length) this.fail('unterminated string');
    this.i = j + 1;
    const raw = s.slice(start, j);
    if (!escaped) return raw;
    try {
      return JSON.parse('"' + raw + '"') as string;
    } catch {
      this.i = start;
      this.fail('invalid escape in string');
    }
  }

  array(mode: NumberMode): GoValue[] {
    this.i++; // [
    const out: GoValue[] = [];
    this.skipSpace();
    if (this.s[this.i] === ']') {
      this.i++;
      return out;
    }
    for (;;) {
      out.push(this.value(mode));
      this.skipSpace();
      const c = this.s[this.i++];
      if (c === ']') return out;
      if (c !== ',') {
        this.i--;
        this.fail("expected ',' or ']'");
      }
    }
  }

  object(mode: NumberMode, perKey: Readonly<Record<string, NumberMode>> | null): GoMap {
    this.i++; // {
    const out: GoMap = {};
    this.skipSpace();
    if (this.s[this.i] === '}') {
      this.i++;
      return out;
    }
    for (;;) {
      this.skipSpace();
      if (this.s[this.i] !== '"') this.fail('expected a string key');
      const k = this.string();
      this.skipSpace();
      if (this.s[this.i++] !== ':') {
        this.i--;
        this.fail("expected ':'");
      }
      const m = perKey !== null && Object.prototype.hasOwnProperty.call(perKey, k) && k !== '*' ? perKey[k] : mode;
      const v = this.value(m);
      if (k === '__proto__') Object.defineProperty(out, k, { value: v, enumerable: true, writable: true, configurable: true });
      else out[k] = v;
      this.skipSpace();
      const c = this.s[this.i++];
      if (c === '}') return out;
      if (c !== ',') {
        this.i--;
        this.fail("expected ',' or '}'");
      }
    }
  }
}

/**
 * rawTopLevelField returns the exact JSON text of a top-level member of an object, so data numbers reach decodeJSON
 * as written (JSON.parse would already have rounded 9007199254740993 and turned 1.0 into 1).
 */
export function rawTopLevelField(text: string, key: string): string | undefined {
  let i = 0;
  let depth = 0;
  const skipString = () => {
    i++;
    while (i < text.length && text[i] !== '"') i += text[i] === '\\' ? 2 : 1;
    i++;
  };
  while (i < text.length) {
    const c = text[i];
    if (c === '"') {
      const start = i;
      skipString();
      let j = i;
      while (' \t\r\n'.includes(text[j] ?? '')) j++;
      if (depth === 1 && text[j] === ':' && JSON.parse(text.slice(start, i)) === key) {
        i = j + 1;
        while (' \t\r\n'.includes(text[i] ?? '')) i++;
        const vstart = i;
        let d = 0;
        while (i < text.length) {
          const ch = text[i];
          if (ch === '"') {
            skipString();
            continue;
          }
          if (ch === '{' || ch === '[') d++;
          else if (ch === '}' || ch === ']') {
            if (d === 0) break;
            d--;
          } else if (ch === ',' && d === 0) break;
          i++;
        }
        return text.slice(vstart, i).trim();
      }
      continue;
    }
    if (c === '{' || c === '[') depth++;
    else if (c === '}' || c === ']') depth--;
    i++;
  }
  return undefined;
}

/**
 * toPlainJSON converts a Go value into plain JavaScript data: int64/int values become numbers when they are safe
 * integers and stay bigint otherwise (no silent precision loss), []byte becomes base64 text as encoding/json writes
 * it, structs become objects, Stringers their String() text, and functions are dropped (undefined).
 */
export function toPlainJSON(v: GoValue): unknown {
  switch (typeof v) {
    case 'string':
    case 'boolean':
    case 'number':
      return v;
    case 'bigint':
      return bigToPlain(v);
    case 'undefined':
      return null;
    case 'function':
      return undefined;
  }
  if (v === null) return null;
  if (Array.isArray(v)) return v.map((x) => {
    const p = toPlainJSON(x);
    return p === undefined ? null : p;
  });
  if (v instanceof GoInt) return bigToPlain(v.value);
  if (v instanceof GoFloat32) return v.value;
  if (v instanceof Uint8Array) return base64(v);
  if (v instanceof GoStruct) return plainObject(v.fields);
  if ((v as unknown) instanceof GoComplex) return undefined;
  if (isGoFunc(v)) return undefined;
  if (isGoStringer(v)) return v.goString();
  return plainObject(v as GoMap);
}

function plainObject(m: Readonly<Record<string, GoValue>>): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const k of Object.keys(m)) {
    const p = toPlainJSON(m[k]);
    if (p === undefined) continue;
    if (k === '__proto__') Object.defineProperty(out, k, { value: p, enumerable: true, writable: true, configurable: true });
    else out[k] = p;
  }
  return out;
}

function bigToPlain(n: bigint): number | bigint {
  return n >= BigInt(Number.MIN_SAFE_INTEGER) && n <= BigInt(Number.MAX_SAFE_INTEGER) ? Number(n) : n;
}

const b64 = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/';
function base64(b: Uint8Array): string {
  let out = '';
  for (let i = 0; i < b.length; i += 3) {
    const n = (b[i] << 16) | ((b[i + 1] ?? 0) << 8) | (b[i + 2] ?? 0);
    out += b64[(n >> 18) & 63] + b64[(n >> 12) & 63] + (i + 1 < b.length ? b64[(n >> 6) & 63] : '=') + (i + 2 < b.length ? b64[n & 63] : '=');
  }
  return out;
}

