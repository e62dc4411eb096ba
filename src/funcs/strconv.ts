// strconv.ts: Go's strconv.ParseInt/ParseFloat/Atoi with Go's accepted syntax (base prefixes, underscores, hex
// floats, inf/nan) and Go's error texts, since Sprig's conversions and several error messages depend on them.

/** NumResult is a parsed number or Go's *strconv.NumError text. */
export type NumResult<T> = { ok: true; value: T } | { ok: false; error: string; rangeValue?: T };

const INT64_MIN = -(1n << 63n);

/** underscoreOK is strconv's check that underscores only separate digits (Go: atoi.go underscoreOK). */
function underscoreOK(s: string): boolean {
  let saw = '^';
  let i = 0;
  if (s.length >= 1 && (s[0] === '-' || s[0] === '+')) s = s.slice(1);
  let hex = false;
  if (s.length >= 2 && s[0] === '0' && 'bBoOxX'.includes(s[1])) {
    i = 2;
    saw = '0';
    hex = s[1] === 'x' || s[1] === 'X';
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

/** parseUint is strconv.ParseUint's digit loop for base 0 or 2..36, without the sign (Go: atoi.go ParseUint). */
function parseUintBody(s0: string, base: number, fn: string, orig: string): NumResult<bigint> {
  let s = s0;
  const syntax = { ok: false as const, error: `strconv.${fn}: parsing ${quoteNum(orig)}: invalid syntax` };
  if (s === '') return syntax;
  const base0 = base === 0;
  if (base === 0) {
    base = 10;
    if (s[0] === '0') {
      if (s.length >= 3 && (s[1] === 'b' || s[1] === 'B')) {
        base = 2;
        s = s.slice(2);
      } else if (s.length >= 3 && (s[1] === 'o' || s[1] === 'O')) {
        base = 8;
        s = s.slice(2);
      } else if (s.length >= 3 && (s[1] === 'x' || s[1] === 'X')) {
        base = 16;
        s = s.slice(2);
      } else {
        base = 8;
        s = s.slice(1);
      }
    }
  } else if (base < 2 || base > 36) {
    return { ok: false, error: `strconv.${fn}: parsing ${quoteNum(orig)}: invalid base ${base}` };
  }
  let n = 0n;
  let underscores = false;
  const b = BigInt(base);
  for (const c of s) {
    if (c === '_' && base0) {
      underscores = true;
      continue;
    }
    let d: number;
    if (c >= '0' && c <= '9') d = c.charCodeAt(0) - 48;
    else if (/[a-zA-Z]/.test(c)) d = c.toLowerCase().charCodeAt(0) - 87;
    else return syntax;
    if (d >= base) return syntax;
    n = n * b + BigInt(d);
  }
  if (underscores && !underscoreOK(s0)) return syntax;
  return { ok: true, value: n };
}

function quoteNum(s: string): string {
  return JSON.stringify(s);
}

/** parseInt is strconv.ParseInt(s, base, 64). */
export function parseInt64(s: string, base: number, fn = 'ParseInt', bitSize = 64): NumResult<bigint> {
  if (s === '') return { ok: false, error: `strconv.${fn}: parsing "": invalid syntax` };
  let body = s;
  let neg = false;
  if (s[0] === '+') body = s.slice(1);
  else if (s[0] === '-') {
    neg = true;
    body = s.slice(1);
  }
  const r = parseUintBody(body, base, fn, s);
  if (!r.ok) return r;
  const v = neg ? -r.value : r.value;
  const max = (1n << BigInt(bitSize - 1)) - 1n;
  const min = -(1n << BigInt(bitSize - 1));
  if (v > max) return { ok: false, error: `strconv.${fn}: parsing ${quoteNum(s)}: value out of range`, rangeValue: max };
  if (v < min) return { ok: false, error: `strconv.${fn}: parsing ${quoteNum(s)}: value out of range`, rangeValue: min };
  return { ok: true, value: v };
}

/** atoi is strconv.Atoi: base 10 only, no prefixes or underscores. */
export function atoi(s: string): NumResult<bigint> {
  if (!/^[+-]?[0-9]+$/.test(s)) {
    return { ok: false, error: `strconv.Atoi: parsing ${quoteNum(s)}: invalid syntax` };
  }
  const r = parseInt64(s, 10, 'Atoi');
  return r;
}

/** parseFloat is strconv.ParseFloat(s, 64): decimal and hex mantissas, exponents, underscores, inf and nan. */
export function parseFloat64(s: string): NumResult<number> {
  const syntax = { ok: false as const, error: `strconv.ParseFloat: parsing ${quoteNum(s)}: invalid syntax` };
  const special = /^([+-]?)(inf|infinity|nan)$/i.exec(s);
  if (special) {
    if (special[2].toLowerCase() === 'nan') return special[1] ? syntax : { ok: true, value: NaN };
    return { ok: true, value: special[1] === '-' ? -Infinity : Infinity };
  }
  if (/_/.test(s) && !underscoreOK(s)) return syntax;
  const t = s.replace(/_/g, '');
  let v: number;
  const hex = /^([+-]?)0[xX]([0-9a-fA-F]*)(?:\.([0-9a-fA-F]*))?[pP]([+-]?[0-9]+)$/.exec(t);
  if (hex) {
    const intDigits = hex[2];
    const fracDigits = hex[3] ?? '';
    if (intDigits === '' && fracDigits === '') return syntax;
    const mant = BigInt('0x' + (intDigits + fracDigits || '0'));
    const exp = Number(hex[4]) - 4 * fracDigits.length;
    v = Number(mant) * 2 ** exp;
    if (hex[1] === '-') v = -v;
  } else if (/^[+-]?(?:[0-9]+\.?[0-9]*|\.[0-9]+)(?:[eE][+-]?[0-9]+)?$/.test(t)) {
    v = Number(t);
  } else {
    return syntax;
  }
  if (!Number.isFinite(v)) {
    return { ok: false, error: `strconv.ParseFloat: parsing ${quoteNum(s)}: value out of range`, rangeValue: v };
  }
  return { ok: true, value: v };
}

/** truncToInt64 is Go's int64(f) conversion on amd64: out-of-range and NaN give the minimum int64. */
export function truncToInt64(f: number): bigint {
  if (!Number.isFinite(f) || f >= 9223372036854775808 || f < -9223372036854775808) return INT64_MIN;
  return BigInt(Math.trunc(f));
}

/** wrapInt64 reduces a bigint to int64 with two's-complement wrap-around, as Go's integer arithmetic does. */
export function wrapInt64(n: bigint): bigint {
  return BigInt.asIntN(64, n);
}

