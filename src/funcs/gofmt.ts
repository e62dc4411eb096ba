// gofmt.ts: the slice of Go's fmt and strconv the function library needs (%v, %q, %T, float formatting).
// Sprig builds many results with fmt.Sprintf("%v"), so these must print exactly what Go prints.
import {
  GO_TYPE,
  GoFloat32,
  GoInt,
  GoStruct,
  isGoFunc,
  isGoMap,
  isGoStringer,
  type GoValue,
} from '../gotemplate/index.js';

/** typeOf is Go's `%T` of a value held in an interface{}: `<nil>`, `string`, `[]interface {}`, `map[string]interface {}` … */
export function typeOf(v: GoValue): string {
  if (v === null || v === undefined) return '<nil>';
  switch (typeof v) {
    case 'string':
      return 'string';
    case 'boolean':
      return 'bool';
    case 'bigint':
      return 'int64';
    case 'number':
      return 'float64';
    case 'function':
      return 'func(...interface {}) interface {}';
  }
  if (v instanceof GoInt) return v.type;
  if (v instanceof GoFloat32) return 'float32';
  if (v instanceof Uint8Array) return '[]uint8';
  if (v instanceof GoStruct) return v.typeName;
  if (Array.isArray(v)) return (v as unknown as Record<symbol, string>)[GO_TYPE] ?? '[]interface {}';
  if (isGoFunc(v)) return `func(${v.params.join(', ')}${v.variadic ? `${v.params.length ? ', ' : ''}...${v.variadic}` : ''}) ${v.result}`;
  if (isGoStringer(v)) return v.goTypeName();
  if (isGoMap(v)) return (v as unknown as Record<symbol, string>)[GO_TYPE] ?? 'map[string]interface {}';
  return 'interface {}';
}

/** compareGoStrings orders strings by their UTF-8 bytes, as Go's `<` on strings does (map keys print sorted). */
export function compareGoStrings(a: string, b: string): number {
  // UTF-16 order equals UTF-8 byte order except between surrogate pairs and U+E000–U+FFFF; fix that case only.
  const n = Math.min(a.length, b.length);
  for (let i = 0; i < n; i++) {
    const x = a.charCodeAt(i);
    const y = b.charCodeAt(i);
    if (x !== y) {
      const xs = x >= 0xd800 && x <= 0xdfff;
      const ys = y >= 0xd800 && y <= 0xdfff;
      if (xs !== ys && (x >= 0xe000 || y >= 0xe000)) return xs ? 1 : -1;
      return x - y;
    }
  }
  return a.length - b.length;
}

/** sortedKeys returns a map's keys in Go's printing order. */
export function sortedKeys(m: object): string[] {
  return Object.keys(m).sort(compareGoStrings);
}

/** formatFloat is strconv.FormatFloat(f, fmt, prec, 64) for fmt 'g', 'e' or 'f'; prec -1 means shortest. */
export function formatFloat(f: number, fmt: 'g' | 'e' | 'f', prec = -1): string {
  if (Number.isNaN(f)) return 'NaN';
  if (f === Infinity) return '+Inf';
  if (f === -Infinity) return '-Inf';
  const neg = f < 0 || Object.is(f, -0);
  const a = Math.abs(f);
  if (fmt === 'f' && prec >= 0) return (neg ? '-' : '') + toFixedExact(a, prec);
  // Go: ftoa.go genericFtoa — decimal digits d (no trailing zeros) with the decimal point after dp digits.
  let d: string;
  let dp: number;
  const shortest = prec < 0;
  if (a === 0) {
    d = '';
    dp = 0;
  } else {
    const n = shortest ? undefined : fmt === 'e' ? prec : Math.max(prec, 1) - 1;
    const [mant, ex] = (n === undefined ? a.toExponential() : a.toExponential(Math.min(n, 100))).split('e');
    d = mant.replace('.', '').replace(/0+$/, '');
    dp = Number(ex) + 1;
  }
  if (shortest) {
    if (fmt === 'e') prec = Math.max(d.length - 1, 0);
    else if (fmt === 'f') prec = Math.max(d.length - dp, 0);
    else prec = d.length;
  } else if (fmt === 'g' && prec === 0) prec = 1;
  let out: string;
  if (fmt === 'e') out = fmtE(d, dp, prec);
  else if (fmt === 'f') out = fmtF(d, dp, prec);
  else {
    // Go: ftoa.go formatDigits, case 'g'.
    let eprec = prec;
    if (eprec > d.length && d.length >= dp) eprec = d.length;
    if (shortest) eprec = 6;
    const exp = dp - 1;
    if (a !== 0 && (exp < -4 || exp >= eprec)) {
      if (prec > d.length) prec = d.length;
      out = fmtE(d, dp, prec - 1);
    } else {
      if (prec > dp) prec = d.length;
      out = fmtF(d, dp, Math.max(prec - dp, 0));
    }
  }
  return (neg ? '-' : '') + out;
}

function fmtE(d: string, dp: number, prec: number): string {
  let out = d.length > 0 ? d[0] : '0';
  if (prec > 0) out += '.' + d.slice(1, 1 + prec).padEnd(prec, '0');
  const exp = d.length === 0 ? 0 : dp - 1;
  const e = Math.abs(exp);
  return `${out}e${exp < 0 ? '-' : '+'}${e < 10 ? '0' : ''}${e}`;
}

function fmtF(d: string, dp: number, prec: number): string {
  let out = dp > 0 ? d.slice(0, dp).padEnd(dp, '0') : '0';
  if (prec > 0) {
    let frac = '';
    for (let i = 1; i <= prec; i++) {
      const j = dp + i - 1;
      frac += j >= 0 && j < d.length ? d[j] : '0';
    }
    out += '.' + frac;
  }
  return out;
}

/** toFixedExact prints a non-negative float with prec decimals, beyond toFixed's 100-digit and 1e21 limits. */
function toFixedExact(a: number, prec: number): string {
  // Exact decimal expansion of the binary value, then round half-even on it (Go: decimal.go shouldRoundUp);
  // Number.prototype.toFixed rounds ties away from zero instead.
  const [int, frac] = exactDecimal(a);
  const padded = frac.padEnd(prec + 1, '0');
  let keep = int + padded.slice(0, prec);
  const rest = padded.slice(prec);
  const roundUp = rest[0] > '5' || (rest[0] === '5' && (/[1-9]/.test(rest.slice(1)) || Number(keep[keep.length - 1]) % 2 === 1));
  if (roundUp) keep = (BigInt(keep) + 1n).toString().padStart(keep.length, '0');
  const ip = keep.slice(0, keep.length - prec) || '0';
  return prec > 0 ? `${ip}.${keep.slice(keep.length - prec)}` : ip;
}

/** exactDecimal returns the exact decimal digits (integer part, fraction part) of a finite non-negative double. */
export function exactDecimal(a: number): [string, string] {
  const buf = new DataView(new ArrayBuffer(8));
  buf.setFloat64(0, a);
  const hi = buf.getUint32(0);
  const lo = buf.getUint32(4);
  const e = (hi >>> 20) & 0x7ff;
  let mant = (BigInt(hi & 0xfffff) << 32n) | BigInt(lo);
  let exp2: number;
  if (e === 0) exp2 = -1074;
  else {
    mant |= 1n << 52n;
    exp2 = e - 1075;
  }
  if (exp2 >= 0) return [(mant << BigInt(exp2)).toString(), ''];
  const scale = 5n ** BigInt(-exp2); // mant / 2^k = mant * 5^k / 10^k
  const s = (mant * scale).toString().padStart(-exp2 + 1, '0');
  const int = s.slice(0, s.length + exp2);
  const frac = s.slice(s.length + exp2).replace(/0+$/, '');
  return [int || '0', frac];
}

/** formatFloat32 prints a float32 with the shortest digits that round-trip through float32. */
function formatFloat32(f: number): string {
  if (!Number.isFinite(f) || f === 0) return formatFloat(f, 'g');
  for (let p = 1; p <= 9; p++) {
    const s = f.toPrecision(p);
    if (Math.fround(Number(s)) === f) return formatFloat(Number(s), 'g');
  }
  return formatFloat(f, 'g');
}

/** sprintValue is fmt's `%v` of one operand (what fmt.Sprint and fmt.Sprintf("%v") print). */
export function sprintValue(v: GoValue, depth = 0): string {
  if (v === null || v === undefined) return '<nil>';
  switch (typeof v) {
    case 'string':
      return v;
    case 'boolean':
      return v ? 'true' : 'false';
    case 'bigint':
      return v.toString();
    case 'number':
      return formatFloat(v, 'g');
    case 'function':
      return '0x0';
  }
  if (v instanceof GoInt) return v.value.toString();
  if (v instanceof GoFloat32) return formatFloat32(v.value);
  if (v instanceof Uint8Array) return `[${Array.from(v).join(' ')}]`;
  if (isGoStringer(v)) return v.goString();
  if (v instanceof GoStruct) {
    return `{${Object.values(v.fields)
      .map((f) => sprintValue(f, depth + 1))
      .join(' ')}}`;
  }
  if (Array.isArray(v)) return `[${v.map((e) => sprintValue(e, depth + 1)).join(' ')}]`;
  if (isGoFunc(v)) return '0x0';
  if (isGoMap(v)) {
    return `map[${sortedKeys(v)
      .map((k) => `${k}:${sprintValue(v[k], depth + 1)}`)
      .join(' ')}]`;
  }
  return String(v);
}

/** sprint is fmt.Sprint: operands are separated by a space when neither side is a string. */
export function sprint(...args: GoValue[]): string {
  let out = '';
  for (let i = 0; i < args.length; i++) {
    const isString = typeof args[i] === 'string';
    if (i > 0 && !isString && typeof args[i - 1] !== 'string') out += ' ';
    out += sprintValue(args[i]);
  }
  return out;
}

const PRINTABLE = /^[\p{L}\p{M}\p{N}\p{P}\p{S} ]$/u;

/** quoteGo is strconv.Quote: a double-quoted Go string literal with Go's escapes (what `%q` prints for strings). */
export function quoteGo(s: string): string {
  let out = '"';
  for (const ch of s) {
    const c = ch.codePointAt(0)!;
    switch (ch) {
      case '"':
        out += '\\"';
        continue;
      case '\\':
        out += '\\\\';
        continue;
      case '\x07':
        out += '\\a';
        continue;
      case '\b':
        out += '\\b';
        continue;
      case '\f':
        out += '\\f';
        continue;
      case '\n':
        out += '\\n';
        continue;
      case '\r':
        out += '\\r';
        continue;
      case '\t':
        out += '\\t';
        continue;
      case '\v':
        out += '\\v';
        continue;
    }
    if (c >= 0xd800 && c <= 0xdfff) {
      out += '\\ufffd'; // a lone surrogate stands for invalid UTF-8, which Go prints as \x.. bytes; keep it visible
    } else if (PRINTABLE.test(ch)) {
      out += ch;
    } else if (c < 0x80) {
      out += `\\x${c.toString(16).padStart(2, '0')}`;
    } else if (c < 0x10000) {
      out += `\\u${c.toString(16).padStart(4, '0')}`;
    } else {
      out += `\\U${c.toString(16).padStart(8, '0')}`;
    }
  }
  return out + '"';
}
