// cast.ts: spf13/cast v1.7 conversions as Sprig uses them (errors swallowed into zero values), plus Sprig's
// strval/strslice. Go: github.com/spf13/cast caste.go, sprig strings.go.
import {
  formatValue,
  GoFloat32,
  GoInt,
  isGoStringer,
  parseFloat64,
  parseInt64,
  withGoType,
  type GoValue,
} from '../gotemplate/index.js';
import { goTypeTag, isList, listItems } from './reflect.js';
import { truncToInt64 } from './strconv.js';

const utf8 = new TextDecoder('utf-8');

/** bytesToString is Go's string([]byte) (invalid UTF-8 shows as U+FFFD once it reaches JavaScript). */
export function bytesToString(b: Uint8Array): string {
  return utf8.decode(b);
}

/** trimZeroDecimal drops a trailing ".0…" so "10.00" parses as an integer. Go: caste.go trimZeroDecimal */
function trimZeroDecimal(s: string): string {
  let foundZero = false;
  for (let i = s.length; i > 0; i--) {
    const c = s[i - 1];
    if (c === '.') {
      if (foundZero) return s.slice(0, i - 1);
    } else if (c === '0') foundZero = true;
    else return s;
  }
  return s;
}

/** toInt64 is cast.ToInt64: numbers truncate, strings parse with base prefixes, bool is 0/1, anything else 0. */
export function toInt64(v: GoValue): bigint {
  if (v === null || v === undefined) return 0n;
  switch (typeof v) {
    case 'bigint':
      return v;
    case 'number':
      return truncToInt64(v);
    case 'boolean':
      return v ? 1n : 0n;
    case 'string': {
      const r = parseInt64(trimZeroDecimal(v), 0);
      return r.ok ? r.value : 0n;
    }
  }
  if (v instanceof GoInt) return BigInt.asIntN(64, v.value);
  if (v instanceof GoFloat32) return truncToInt64(v.value);
  return 0n;
}

/** toInt is cast.ToInt (Go `int` is 64 bits here, as on amd64). */
export function toInt(v: GoValue): GoInt {
  return new GoInt('int', toInt64(v));
}

/** toFloat64 is cast.ToFloat64: strings parse as floats, bool is 0/1, anything unconvertible is 0. */
export function toFloat64(v: GoValue): number {
  if (v === null || v === undefined) return 0;
  switch (typeof v) {
    case 'bigint':
      return Number(v);
    case 'number':
      return v;
    case 'boolean':
      return v ? 1 : 0;
    case 'string': {
      const r = parseFloat64(v);
      return r.ok ? r.value : 0;
    }
  }
  if (v instanceof GoInt) return Number(v.value);
  if (v instanceof GoFloat32) return v.value;
  return 0;
}

/** strval is Sprig's strval: strings as is, []byte decoded, Stringers and errors through String(), else `%v`. */
export function strval(v: GoValue): string {
  if (typeof v === 'string') return v;
  if (v instanceof Uint8Array) return bytesToString(v);
  if (isGoStringer(v)) return v.goString();
  return formatValue(v);
}

/** strslice is Sprig's strslice: any slice to []string (nil elements dropped), nil to [], a scalar to [strval]. */
export function strslice(v: GoValue): string[] {
  let out: string[];
  if (isList(v)) {
    if (Array.isArray(v) && goTypeTag(v) === '[]string') return v as string[];
    out = listItems(v)
      .filter((e) => e !== null && e !== undefined)
      .map(strval);
  } else if (v === null || v === undefined) out = [];
  else out = [strval(v)];
  return withGoType(out, '[]string');
}
