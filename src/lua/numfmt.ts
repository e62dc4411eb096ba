// numfmt: number-to-text the way gopher-lua prints numbers, so tostring() output matches what Sveltos users see.
// Go: gopher-lua value.go LNumber.String — integral values that fit int64 print as integers, everything else with
// fmt.Sprint(float64), i.e. strconv.FormatFloat(v, 'g', -1, 64): shortest round-trip digits, %e form when the
// decimal exponent is < -4 or >= 6 (strconv ftoa.go: "if precision was the shortest possible, use precision 6").

const TWO63 = 2 ** 63;

/** goNumberString formats a Lua number the way gopher-lua's tostring and `..` do. */
export function goNumberString(v: number): string {
  if (Number.isInteger(v) && v >= -TWO63 && v < TWO63) return BigInt(v).toString();
  return goFloatString(v);
}

/** goFloatString is Go's fmt.Sprint(float64): shortest round-trip digits, %e form when exp < -4 or exp >= 6. */
export function goFloatString(v: number): string {
  if (Number.isNaN(v)) return 'NaN';
  if (v === Number.POSITIVE_INFINITY) return '+Inf';
  if (v === Number.NEGATIVE_INFINITY) return '-Inf';
  if (v === 0) return Object.is(v, -0) ? '-0' : '0';
  // toExponential() without an argument yields the shortest digits that round-trip, as Go's shortest mode does.
  const [mant, expText] = v.toExponential().split('e');
  const exp = Number(expText);
  const neg = mant.startsWith('-');
  const digits = mant.replace('-', '').replace('.', '');
  if (exp < -4 || exp >= 6) {
    const m = digits.length > 1 ? `${digits[0]}.${digits.slice(1)}` : digits;
    const e = Math.abs(exp);
    return `${neg ? '-' : ''}${m}e${exp < 0 ? '-' : '+'}${e < 10 ? '0' : ''}${e}`;
  }
  let s: string;
  if (exp < 0) s = `0.${'0'.repeat(-exp - 1)}${digits}`;
  else if (digits.length <= exp + 1) s = digits + '0'.repeat(exp + 1 - digits.length);
  else s = `${digits.slice(0, exp + 1)}.${digits.slice(exp + 1)}`;
  return neg ? `-${s}` : s;
}
