// strconv.ts: Go's numeric conversions that are not strconv parsing (which lives in ../gotemplate, shared with the
// engine): float64 → int64 truncation and int64 wrap-around.

const INT64_MIN = -(1n << 63n);

/** truncToInt64 is Go's int64(f) conversion on amd64: out-of-range and NaN give the minimum int64. */
export function truncToInt64(f: number): bigint {
  if (!Number.isFinite(f) || f >= 9223372036854775808 || f < -9223372036854775808) return INT64_MIN;
  return BigInt(Math.trunc(f));
}

/** wrapInt64 reduces a bigint to int64 with two's-complement wrap-around, as Go's integer arithmetic does. */
export function wrapInt64(n: bigint): bigint {
  return BigInt.asIntN(64, n);
}

