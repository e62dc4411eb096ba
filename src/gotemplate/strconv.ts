// strconv.ts: the parts of Go's strconv package the template engine and fmt rely on: quoting (Quote, QuoteRune,
// CanBackquote, Unquote), Go-syntax number parsing (ParseInt/ParseUint/ParseFloat/Atoi with Go's accepted syntax and
// NumError texts — the one implementation the engine and the function library share), and
// float formatting (FormatFloat with 'b', 'e', 'E', 'f', 'g', 'G', 'x', 'X'; shortest and fixed precision).
import { decodeUTF8, encodeUTF8, isGraphic, isPrint, MAX_RUNE, RUNE_ERROR, runeAt, runeString } from './utf8.js';

const lowerhex = '0123456789abcdef';
const upperhex = '0123456789ABCDEF';

// ---------------------------------------------------------------------------------------------------------------
// Quoting. Go: strconv/quote.go

function appendEscapedRune(out: string[], r: number, quote: number, asciiOnly: boolean, graphicOnly: boolean): void {
  if (r === quote || r === 0x5c) {
    out.push('\\', String.fromCodePoint(r));
    return;
  }
  if (asciiOnly) {
    if (r < 0x80 && isPrint(r)) {
      out.push(String.fromCharCode(r));
      return;
    }
  } else if (isPrint(r) || (graphicOnly && isGraphic(r))) {
    out.push(String.fromCodePoint(r));
    return;
  }
  switch (r) {
    case 0x07:
      out.push('\\a');
      return;
    case 0x08:
      out.push('\\b');
      return;
    case 0x0c:
      out.push('\\f');
      return;
    case 0x0a:
      out.push('\\n');
      return;
    case 0x0d:
      out.push('\\r');
      return;
    case 0x09:
      out.push('\\t');
      return;
    case 0x0b:
      out.push('\\v');
      return;
  }
  if (r < 0x20 || r === 0x7f) {
    out.push('\\x', lowerhex[r >> 4], lowerhex[r & 0xf]);
  } else if (r > MAX_RUNE) {
    out.push('\\ufffd');
  } else if (r < 0x10000) {
    out.push('\\u');
    for (let s = 12; s >= 0; s -= 4) out.push(lowerhex[(r >> s) & 0xf]);
  } else {
    out.push('\\U');
    for (let s = 28; s >= 0; s -= 4) out.push(lowerhex[(r >> s) & 0xf]);
  }
}

function quoteWith(s: string, quote: number, asciiOnly: boolean, graphicOnly: boolean): string {
  const out: string[] = [String.fromCharCode(quote)];
  for (let i = 0; i < s.length; ) {
    const [r, w] = runeAt(s, i);
    i += w;
    if (r === RUNE_ERROR && w === 1 && s.charCodeAt(i - 1) !== 0xfffd) {
      // A lone surrogate stands for an invalid UTF-8 byte sequence; Go prints such bytes as \x escapes.
      out.push('\\ufffd');
      continue;
    }
    appendEscapedRune(out, r, quote, asciiOnly, graphicOnly);
  }
  out.push(String.fromCharCode(quote));
  return out.join('');
}

/** quote is strconv.Quote: a double-quoted Go string literal with Go escapes for non-printable runes. */
export function quote(s: string): string {
  // Fast path: printable ASCII without quotes or backslashes needs no escaping.
  let plain = true;
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    if (c < 0x20 || c >= 0x7f || c === 0x22 || c === 0x5c) {
      plain = false;
      break;
    }
  }
  if (plain) return '"' + s + '"';
  return quoteWith(s, 0x22, false, false);
}

/** quoteToASCII is strconv.QuoteToASCII: like quote, but every non-ASCII rune is escaped. */
export function quoteToASCII(s: string): string {
  return quoteWith(s, 0x22, true, false);
}

/** quoteToGraphic is strconv.QuoteToGraphic. */
export function quoteToGraphic(s: string): string {
  return quoteWith(s, 0x22, false, true);
}

/** quoteRune is strconv.QuoteRune: a single-quoted Go character literal. */
export function quoteRune(r: number, asciiOnly = false): string {
  if (r < 0 || r > MAX_RUNE || (r >= 0xd800 && r <= 0xdfff)) r = RUNE_ERROR;
  const out: string[] = ["'"];
  appendEscapedRune(out, r, 0x27, asciiOnly, false);
  out.push("'");
  return out.join('');
}

/** canBackquote is strconv.CanBackquote: s can be written as a raw string literal without change. */
export function canBackquote(s: string): boolean {
  for (let i = 0; i < s.length; ) {
    const [r, w] = runeAt(s, i);
    i += w;
    if (w > 1) {
      if (r === 0xfeff) return false;
      continue;
    }
    if (r === RUNE_ERROR) return false;
    if ((r < 0x20 && r !== 0x09) || r === 0x60 || r === 0x7f || r === 0xfeff) return false;
  }
  return true;
}

/** UnquoteError reports invalid Go literal syntax; its message is strconv.ErrSyntax's text. */
export class UnquoteError extends Error {
  constructor() {
    super('invalid syntax');
  }
}

function unhex(c: number): number {
  if (c >= 0x30 && c <= 0x39) return c - 0x30;
  if (c >= 0x61 && c <= 0x66) return c - 0x61 + 10;
  if (c >= 0x41 && c <= 0x46) return c - 0x41 + 10;
  return -1;
}

/**
 * unquoteChar is strconv.UnquoteChar on s starting at i: it returns the decoded value, whether it is a single byte
 * (\x and octal escapes denote bytes, not runes) and the index after it. It throws UnquoteError on bad syntax.
 */
export function unquoteChar(s: string, i: number, quoteChar: number): { value: number; isByte: boolean; next: number } {
  const c = s.charCodeAt(i);
  if (c === quoteChar && (quoteChar === 0x27 || quoteChar === 0x22)) throw new UnquoteError();
  if (c !== 0x5c) {
    const [r, w] = runeAt(s, i);
    return { value: r, isByte: false, next: i + w };
  }
  if (i + 1 >= s.length) throw new UnquoteError();
  const e = s.charCodeAt(i + 1);
  i += 2;
  switch (e) {
    case 0x61:
      return { value: 0x07, isByte: false, next: i };
    case 0x62:
      return { value: 0x08, isByte: false, next: i };
    case 0x66:
      return { value: 0x0c, isByte: false, next: i };
    case 0x6e:
      return { value: 0x0a, isByte: false, next: i };
    case 0x72:
      return { value: 0x0d, isByte: false, next: i };
    case 0x74:
      return { value: 0x09, isByte: false, next: i };
    case 0x76:
      return { value: 0x0b, isByte: false, next: i };
    case 0x78: // \xHH
    case 0x75: // \uHHHH
    case 0x55: {
      // \UHHHHHHHH
      const n = e === 0x78 ? 2 : e === 0x75 ? 4 : 8;
      if (i + n > s.length) throw new UnquoteError();
      let v = 0;
      for (let j = 0; j < n; j++) {
        const x = unhex(s.charCodeAt(i + j));
        if (x < 0) throw new UnquoteError();
        v = v * 16 + x;
      }
      i += n;
      if (e === 0x78) return { value: v, isByte: true, next: i };
      if (v > MAX_RUNE || (v >= 0xd800 && v <= 0xdfff)) throw new UnquoteError();
      return { value: v, isByte: false, next: i };
    }
    case 0x30:
    case 0x31:
    case 0x32:
    case 0x33:
    case 0x34:
    case 0x35:
    case 0x36:
    case 0x37: {
      let v = e - 0x30;
      if (i + 2 > s.length) throw new UnquoteError();
      for (let j = 0; j < 2; j++) {
        const x = s.charCodeAt(i + j) - 0x30;
        if (x < 0 || x > 7) throw new UnquoteError();
        v = (v << 3) | x;
      }
      i += 2;
      if (v > 255) throw new UnquoteError();
      return { value: v, isByte: true, next: i };
    }
    case 0x5c:
      return { value: 0x5c, isByte: false, next: i };
    case 0x27:
    case 0x22:
      if (e !== quoteChar) throw new UnquoteError();
      return { value: e, isByte: false, next: i };
    default:
      throw new UnquoteError();
  }
}

/**
 * unquote is strconv.Unquote for the three Go literal forms ("…", `…`, '…'). Byte escapes (\x, octal) are gathered
 * as UTF-8 bytes and decoded, so "\xc3\xa9" is "é"; a byte sequence that is not UTF-8 decodes to U+FFFD (our strings
 * are UTF-16 and cannot hold raw bytes).
 */
export function unquote(s: string): string {
  const n = s.length;
  if (n < 2) throw new UnquoteError();
  const q = s.charCodeAt(0);
  if (q !== s.charCodeAt(n - 1)) throw new UnquoteError();
  const body = s.slice(1, n - 1);
  if (q === 0x60) {
    if (body.includes('`')) throw new UnquoteError();
    return body.includes('\r') ? body.replaceAll('\r', '') : body;
  }
  if (q !== 0x22 && q !== 0x27) throw new UnquoteError();
  if (body.includes('\n')) throw new UnquoteError();
  if (!body.includes('\\') && !body.includes(String.fromCharCode(q))) {
    if (q === 0x22) return body;
    // A character literal holds exactly one rune.
    if (body.length > 0) {
      const [, w] = runeAt(body, 0);
      if (w === body.length) return body;
    }
    throw new UnquoteError();
  }
  const bytes: number[] = [];
  let hasBytes = false;
  let out = '';
  const flush = (): void => {
    if (bytes.length > 0) {
      out += decodeUTF8(Uint8Array.from(bytes));
      bytes.length = 0;
    }
  };
  let i = 0;
  let count = 0;
  while (i < body.length) {
    const r = unquoteChar(body, i, q);
    i = r.next;
    count++;
    if (r.isByte) {
      hasBytes = true;
      bytes.push(r.value);
    } else if (hasBytes) {
      for (const b of encodeUTF8(runeString(r.value))) bytes.push(b);
    } else {
      out += runeString(r.value);
    }
    if (q === 0x27 && count > 1) throw new UnquoteError();
  }
  flush();
  if (q === 0x27 && count !== 1) throw new UnquoteError();
  return out;
}

// ---------------------------------------------------------------------------------------------------------------
// Number parsing in Go syntax. Go: strconv/atoi.go, strconv/atof.go

/** underscoreOK is strconv.underscoreOK: underscores only between digits (or after a base prefix). */
function underscoreOK(s: string): boolean {
  let saw = '^';
  let i = 0;
  if (s.length >= 1 && (s[0] === '-' || s[0] === '+')) s = s.slice(1);
  let hex = false;
  if (s.length >= 2 && s[0] === '0') {
    const c = s[1].toLowerCase();
    if (c === 'b' || c === 'o' || c === 'x') {
      i = 2;
      saw = '0';
      hex = c === 'x';
    }
  }
  for (; i < s.length; i++) {
    const c = s[i];
    if ((c >= '0' && c <= '9') || (hex && /[a-fA-F]/.test(c))) {
      saw = '0';
      continue;
    }
    if (c === '_') {
      if (saw !== '0') return false;
      saw = '_';
      continue;
    }
    if (saw === '_') return false;
    saw = '!';
  }
  return saw !== '_';
}

/** NumResult is a parsed number, or Go's *strconv.NumError text (with the clamped value Go returns on ErrRange). */
export type NumResult<T> = { ok: true; value: T } | { ok: false; error: string; rangeValue?: T };

const DIGITS_RE: Readonly<Record<number, RegExp>> = { 2: /^[01]+$/, 8: /^[0-7]+$/, 10: /^[0-9]+$/, 16: /^[0-9a-fA-F]+$/ };
const BIGINT_PREFIX: Readonly<Record<number, string>> = { 2: '0b', 8: '0o', 10: '', 16: '0x' };

// parseUintBody is ParseUint's digit loop (no sign), for base 0 or 2..36. Go: atoi.go ParseUint
function parseUintBody(s0: string, base: number, fn: string, orig: string): NumResult<bigint> {
  const syntax = { ok: false as const, error: `strconv.${fn}: parsing ${quote(orig)}: invalid syntax` };
  if (s0 === '') return syntax;
  let s = s0;
  const base0 = base === 0;
  if (base0) {
    // Look for an octal, hex, or binary prefix.
    base = 10;
    if (s[0] === '0') {
      const c = s.length >= 3 ? s[1].toLowerCase() : '';
      if (c === 'b' || c === 'o' || c === 'x') {
        base = c === 'b' ? 2 : c === 'o' ? 8 : 16;
        s = s.slice(2);
      } else {
        base = 8;
        s = s.slice(1);
      }
    }
  } else if (base < 2 || base > 36) {
    return { ok: false, error: `strconv.${fn}: parsing ${quote(orig)}: invalid base ${base}` };
  }
  let underscores = false;
  if (base0 && s.includes('_')) {
    underscores = true;
    s = s.replaceAll('_', '');
  }
  let n: bigint;
  const digits = DIGITS_RE[base];
  if (digits !== undefined) {
    // The common bases: validate, then let BigInt convert ("0" alone after an octal prefix strip is "").
    if (s === '') n = 0n;
    else if (!digits.test(s)) return syntax;
    else n = BigInt(BIGINT_PREFIX[base] + s);
  } else {
    n = 0n;
    const b = BigInt(base);
    for (let i = 0; i < s.length; i++) {
      const c = s.charCodeAt(i) | 0x20; // lower case for letters
      const d = c >= 0x30 && c <= 0x39 ? c - 0x30 : c >= 0x61 && c <= 0x7a ? c - 0x61 + 10 : 99;
      if (d >= base) return syntax;
      n = n * b + BigInt(d);
    }
  }
  if (underscores && !underscoreOK(s0)) return syntax;
  return { ok: true, value: n };
}

/** parseUint64 is strconv.ParseUint(s, base, 64): base 0 reads Go's prefixes and underscores. */
export function parseUint64(s: string, base: number): NumResult<bigint> {
  const r = parseUintBody(s, base, 'ParseUint', s);
  if (r.ok && r.value > 0xffffffffffffffffn) {
    return { ok: false, error: `strconv.ParseUint: parsing ${quote(s)}: value out of range`, rangeValue: 0xffffffffffffffffn };
  }
  return r;
}

const INT64_MAX = 0x7fffffffffffffffn;
const INT64_MIN = -0x8000000000000000n;

/** parseInt64 is strconv.ParseInt(s, base, bitSize); fn names the function in errors (Atoi reports as Atoi). */
export function parseInt64(s: string, base: number, fn = 'ParseInt', bitSize = 64): NumResult<bigint> {
  if (s === '') return { ok: false, error: `strconv.${fn}: parsing "": invalid syntax` };
  let v: bigint;
  if (base === 10 && /^[+-]?[0-9]+$/.test(s)) {
    v = BigInt(s); // the common case, without the digit loop
  } else {
    const neg = s[0] === '-';
    const r = parseUintBody(s[0] === '+' || s[0] === '-' ? s.slice(1) : s, base, fn, s);
    if (!r.ok) return r;
    v = neg ? -r.value : r.value;
  }
  const max = bitSize === 64 ? INT64_MAX : (1n << BigInt(bitSize - 1)) - 1n;
  const min = bitSize === 64 ? INT64_MIN : -(1n << BigInt(bitSize - 1));
  if (v > max) return { ok: false, error: `strconv.${fn}: parsing ${quote(s)}: value out of range`, rangeValue: max };
  if (v < min) return { ok: false, error: `strconv.${fn}: parsing ${quote(s)}: value out of range`, rangeValue: min };
  return { ok: true, value: v };
}

/** atoi is strconv.Atoi: base 10 only, no prefixes or underscores. */
export function atoi(s: string): NumResult<bigint> {
  if (!/^[+-]?[0-9]+$/.test(s)) return { ok: false, error: `strconv.Atoi: parsing ${quote(s)}: invalid syntax` };
  return parseInt64(s, 10, 'Atoi');
}

/**
 * parseFloat64 is strconv.ParseFloat(s, 64) for Go number syntax: decimal, hex mantissas with a p exponent,
 * underscores between digits, inf/infinity (signed) and nan (unsigned). Out of range gives ±Inf with an error.
 */
export function parseFloat64(s: string): NumResult<number> {
  const syntax = { ok: false as const, error: `strconv.ParseFloat: parsing ${quote(s)}: invalid syntax` };
  if (s.length === 0) return syntax;
  let body = s;
  let sign = 1;
  if (body[0] === '+' || body[0] === '-') {
    sign = body[0] === '-' ? -1 : 1;
    body = body.slice(1);
  }
  const lower = body.toLowerCase();
  if (lower === 'inf' || lower === 'infinity') return { ok: true, value: sign * Infinity };
  // Go: atof.go special — a sign only precedes "inf"/"infinity".
  if (lower === 'nan') return s === body ? { ok: true, value: NaN } : syntax;
  if (body.includes('_')) {
    if (!underscoreOK(s)) return syntax;
    body = body.replaceAll('_', '');
  }
  let v: number;
  if (/^0[xX]/.test(body)) {
    const m = /^0[xX]([0-9a-fA-F]*)(?:\.([0-9a-fA-F]*))?[pP]([+-]?[0-9]+)$/.exec(body);
    if (!m || (m[1] === '' && (m[2] === undefined || m[2] === ''))) return syntax;
    const digits = m[1] + (m[2] ?? '');
    const exp = Number(m[3]) - 4 * (m[2] ?? '').length;
    // Exact: the digits form an integer; scale by a power of two (correctly rounded for realistic inputs).
    v = scaleByPow2(digits === '' ? 0n : BigInt('0x' + digits), exp);
  } else {
    if (!/^(?:[0-9]+\.?[0-9]*|\.[0-9]+)(?:[eE][+-]?[0-9]+)?$/.test(body)) return syntax;
    v = Number(body);
  }
  if (!Number.isFinite(v)) return { ok: false, error: `strconv.ParseFloat: parsing ${quote(s)}: value out of range`, rangeValue: sign * v };
  return { ok: true, value: sign * v };
}

function scaleByPow2(mant: bigint, exp: number): number {
  if (mant === 0n) return 0;
  // Normalise the mantissa to at most 64 significant bits, keeping a sticky bit, then let the FPU round once.
  let e = exp;
  let m = mant;
  const bits = m.toString(2).length;
  if (bits > 64) {
    const shift = bits - 64;
    const sticky = (m & ((1n << BigInt(shift)) - 1n)) !== 0n ? 1n : 0n;
    m = (m >> BigInt(shift)) | sticky;
    e += shift;
  }
  const hi = Number(m >> 11n) * 2048;
  const lo = Number(m & 2047n);
  return (hi + lo) * Math.pow(2, e);
}

// ---------------------------------------------------------------------------------------------------------------
// Float formatting. Go: strconv/ftoa.go, strconv/decimal.go

/** Digits is Go's decimalSlice: value = 0.d × 10^dp, with no leading zeros. */
interface Digits {
  d: string;
  dp: number;
}

const f64view = new DataView(new ArrayBuffer(8));

function float64Bits(v: number): { neg: boolean; exp: number; mant: bigint } {
  f64view.setFloat64(0, v);
  const hi = f64view.getUint32(0);
  const lo = f64view.getUint32(4);
  return { neg: hi >>> 31 === 1, exp: (hi >>> 20) & 0x7ff, mant: (BigInt(hi & 0xfffff) << 32n) | BigInt(lo) };
}

function float32Bits(v: number): { neg: boolean; exp: number; mant: bigint } {
  f64view.setFloat32(0, v);
  const b = f64view.getUint32(0);
  return { neg: b >>> 31 === 1, exp: (b >>> 23) & 0xff, mant: BigInt(b & 0x7fffff) };
}

/** exactDigits is the exact decimal expansion of a finite, non-negative float64. */
function exactDigits(v: number): Digits {
  if (v === 0) return { d: '', dp: 0 };
  const { exp, mant } = float64Bits(v);
  let m = mant;
  let e = exp;
  if (e === 0) e = 1;
  else m |= 1n << 52n;
  e -= 1075;
  let s: string;
  let dp: number;
  if (e >= 0) {
    s = (m << BigInt(e)).toString();
    dp = s.length;
  } else {
    s = (m * 5n ** BigInt(-e)).toString();
    dp = s.length + e;
  }
  let end = s.length;
  while (end > 0 && s.charCodeAt(end - 1) === 0x30) end--;
  return { d: s.slice(0, end), dp };
}

/** roundDigits is decimal.Round(nd): round half to even at nd digits. */
function roundDigits(x: Digits, nd: number): Digits {
  if (nd < 0 || nd >= x.d.length) return x;
  let up: boolean;
  const c = x.d.charCodeAt(nd);
  if (c === 0x35 && nd + 1 === x.d.length) {
    up = nd > 0 && (x.d.charCodeAt(nd - 1) - 0x30) % 2 === 1;
  } else {
    up = c >= 0x35;
  }
  if (!up) {
    let end = nd;
    while (end > 0 && x.d.charCodeAt(end - 1) === 0x30) end--;
    return { d: x.d.slice(0, end), dp: end === 0 ? 0 : x.dp };
  }
  let i = nd - 1;
  while (i >= 0 && x.d[i] === '9') i--;
  if (i < 0) return { d: '1', dp: x.dp + 1 };
  return { d: x.d.slice(0, i) + String.fromCharCode(x.d.charCodeAt(i) + 1), dp: x.dp };
}

/** shortestDigits is the shortest decimal that reads back as v (ryuFtoaShortest), for float64 or float32. */
function shortestDigits(v: number, bitSize: 32 | 64): Digits {
  if (v === 0) return { d: '', dp: 0 };
  let s: string;
  if (bitSize === 64) {
    s = v.toExponential();
  } else {
    s = v.toExponential(8);
    for (let p = 1; p <= 9; p++) {
      const t = v.toPrecision(p);
      if (Math.fround(Number(t)) === v) {
        s = Number(t).toExponential();
        break;
      }
    }
  }
  const eIdx = s.indexOf('e');
  const mant = s.slice(0, eIdx).replace('.', '');
  let end = mant.length;
  while (end > 1 && mant.charCodeAt(end - 1) === 0x30) end--;
  return { d: mant.slice(0, end), dp: Number(s.slice(eIdx + 1)) + 1 };
}

function fmtE(neg: boolean, d: Digits, prec: number, fmt: string): string {
  let out = neg ? '-' : '';
  out += d.d.length !== 0 ? d.d[0] : '0';
  if (prec > 0) {
    out += '.';
    const m = Math.min(d.d.length, prec + 1);
    let i = 1;
    if (i < m) {
      out += d.d.slice(1, m);
      i = m;
    }
    for (; i <= prec; i++) out += '0';
  }
  out += fmt;
  let exp = d.d.length === 0 ? 0 : d.dp - 1;
  if (exp < 0) {
    out += '-';
    exp = -exp;
  } else out += '+';
  out += exp < 10 ? '0' + exp : String(exp);
  return out;
}

function fmtF(neg: boolean, d: Digits, prec: number): string {
  let out = neg ? '-' : '';
  if (d.dp > 0) {
    const m = Math.min(d.d.length, d.dp);
    out += d.d.slice(0, m);
    for (let i = m; i < d.dp; i++) out += '0';
  } else out += '0';
  if (prec > 0) {
    out += '.';
    for (let i = 0; i < prec; i++) {
      const j = d.dp + i;
      out += j >= 0 && j < d.d.length ? d.d[j] : '0';
    }
  }
  return out;
}

function fmtB(neg: boolean, mant: bigint, exp: number): string {
  return (neg ? '-' : '') + mant.toString() + 'p' + (exp >= 0 ? '+' : '') + String(exp);
}

function fmtX(prec: number, fmt: string, neg: boolean, mantIn: bigint, expIn: number, mantbits: number): string {
  let mant = mantIn;
  let exp = expIn;
  if (mant === 0n) exp = 0;
  mant <<= BigInt(60 - mantbits);
  while (mant !== 0n && (mant & (1n << 60n)) === 0n) {
    mant <<= 1n;
    exp--;
  }
  if (prec >= 0 && prec < 15) {
    const shift = BigInt(prec * 4);
    const extra = (mant << shift) & ((1n << 60n) - 1n);
    mant >>= 60n - shift;
    if ((extra | (mant & 1n)) > 1n << 59n) mant++;
    mant <<= 60n - shift;
    if ((mant & (1n << 61n)) !== 0n) {
      mant >>= 1n;
      exp++;
    }
  }
  const hex = fmt === 'X' ? upperhex : lowerhex;
  let out = (neg ? '-' : '') + '0' + fmt + String(Number((mant >> 60n) & 1n));
  mant = (mant << 4n) & ((1n << 64n) - 1n);
  if (prec < 0 && mant !== 0n) {
    out += '.';
    while (mant !== 0n) {
      out += hex[Number((mant >> 60n) & 15n)];
      mant = (mant << 4n) & ((1n << 64n) - 1n);
    }
  } else if (prec > 0) {
    out += '.';
    for (let i = 0; i < prec; i++) {
      out += hex[Number((mant >> 60n) & 15n)];
      mant = (mant << 4n) & ((1n << 64n) - 1n);
    }
  }
  out += fmt === 'X' ? 'P' : 'p';
  if (exp < 0) {
    out += '-';
    exp = -exp;
  } else out += '+';
  out += exp < 10 ? '0' + exp : String(exp);
  return out;
}

/** FloatFormat is a strconv.FormatFloat format byte. */
export type FloatFormat = 'b' | 'e' | 'E' | 'f' | 'g' | 'G' | 'x' | 'X';

/**
 * formatFloat is strconv.FormatFloat(v, fmt, prec, bitSize): prec -1 means the shortest representation that reads
 * back exactly; fixed precisions round the exact binary value half to even, as Go does.
 */
export function formatFloat(v: number, fmt: FloatFormat, prec: number, bitSize: 32 | 64): string {
  if (bitSize === 32) v = Math.fround(v);
  if (Number.isNaN(v)) return 'NaN';
  if (v === Infinity) return '+Inf';
  if (v === -Infinity) return '-Inf';
  const bits = bitSize === 64 ? float64Bits(v) : float32Bits(v);
  const neg = bits.neg;
  if (fmt === 'b' || fmt === 'x' || fmt === 'X') {
    const mantbits = bitSize === 64 ? 52 : 23;
    const bias = bitSize === 64 ? -1023 : -127;
    let exp = bits.exp;
    let mant = bits.mant;
    if (exp === 0) exp++;
    else mant |= 1n << BigInt(mantbits);
    exp += bias;
    if (fmt === 'b') return fmtB(neg, mant, exp - mantbits);
    return fmtX(prec, fmt, neg, mant, exp, mantbits);
  }
  const abs = Math.abs(v);
  const shortest = prec < 0;
  let digs: Digits;
  if (shortest) {
    digs = shortestDigits(abs, bitSize);
    switch (fmt) {
      case 'e':
      case 'E':
        prec = Math.max(digs.d.length - 1, 0);
        break;
      case 'f':
        prec = Math.max(digs.d.length - digs.dp, 0);
        break;
      default:
        prec = digs.d.length;
    }
  } else {
    const exact = exactDigits(abs);
    switch (fmt) {
      case 'e':
      case 'E':
        digs = roundDigits(exact, prec + 1);
        break;
      case 'f':
        digs = roundDigits(exact, exact.dp + prec);
        break;
      default:
        if (prec === 0) prec = 1;
        digs = roundDigits(exact, prec);
    }
  }
  switch (fmt) {
    case 'e':
    case 'E':
      return fmtE(neg, digs, prec, fmt);
    case 'f':
      return fmtF(neg, digs, prec);
    default: {
      let eprec = prec;
      if (eprec > digs.d.length && digs.d.length >= digs.dp) eprec = digs.d.length;
      // %e is used if the exponent from the conversion is less than -4 or greater than or equal to the precision.
      // If precision was the shortest possible, use precision 6 for this decision.
      if (shortest) eprec = 6;
      const exp = digs.dp - 1;
      if (exp < -4 || exp >= eprec) {
        if (prec > digs.d.length) prec = digs.d.length;
        return fmtE(neg, digs, prec - 1, fmt === 'g' ? 'e' : 'E');
      }
      if (prec > digs.dp) prec = digs.d.length;
      return fmtF(neg, digs, Math.max(prec - digs.dp, 0));
    }
  }
}

/** formatFloatV is fmt's %v of a float64 (strconv 'g', shortest), with a fast path for small integers. */
export function formatFloatV(v: number): string {
  if (Number.isInteger(v) && v < 1e6 && v > -1e6 && !Object.is(v, -0)) return String(v);
  return formatFloat(v, 'g', -1, 64);
}
