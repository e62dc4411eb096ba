// strconv.test.ts: Go's number parsing (ParseInt, ParseUint, Atoi, ParseFloat), shared by the template parser and
// src/funcs' Sprig conversions. Expected values and NumError texts follow Go's strconv (atoi.go, atof.go and their
// tests); the template-level behaviour is also pinned by the oracle goldens.
import { strict as assert } from 'node:assert';
import { test } from 'node:test';
import { atoi, parseFloat64, parseInt64, parseUint64, type NumResult } from './index.js';

const show = <T>(r: NumResult<T>) => (r.ok ? r.value : r.error);

test('parseInt64: bases, base-0 prefixes and underscores, ranges, Go error texts', () => {
  assert.equal(show(parseInt64('-42', 10)), -42n);
  assert.equal(show(parseInt64('+7', 10)), 7n);
  assert.equal(show(parseInt64('0x_1F', 0)), 31n);
  assert.equal(show(parseInt64('0o17', 0)), 15n);
  assert.equal(show(parseInt64('017', 0)), 15n);
  assert.equal(show(parseInt64('0b101', 0)), 5n);
  assert.equal(show(parseInt64('1_000', 0)), 1000n);
  assert.equal(show(parseInt64('0', 0)), 0n);
  assert.equal(show(parseInt64('zz', 36)), 1295n);
  assert.equal(show(parseInt64('777', 8)), 511n);
  assert.equal(show(parseInt64('1_000', 10)), 'strconv.ParseInt: parsing "1_000": invalid syntax', 'underscores only with base 0');
  assert.equal(show(parseInt64('1__0', 0)), 'strconv.ParseInt: parsing "1__0": invalid syntax');
  assert.equal(show(parseInt64('_1', 0)), 'strconv.ParseInt: parsing "_1": invalid syntax');
  assert.equal(show(parseInt64('0x', 0)), 'strconv.ParseInt: parsing "0x": invalid syntax');
  assert.equal(show(parseInt64('', 10)), 'strconv.ParseInt: parsing "": invalid syntax');
  assert.equal(show(parseInt64('12', 1)), 'strconv.ParseInt: parsing "12": invalid base 1');
  const over = parseInt64('9223372036854775808', 10);
  assert.deepEqual(over, { ok: false, error: 'strconv.ParseInt: parsing "9223372036854775808": value out of range', rangeValue: 9223372036854775807n });
  assert.equal(show(parseInt64('-9223372036854775808', 10)), -9223372036854775808n);
  assert.equal(show(parseInt64('128', 10, 'ParseInt', 8)), 'strconv.ParseInt: parsing "128": value out of range');
});

test('parseUint64 and atoi', () => {
  assert.equal(show(parseUint64('18446744073709551615', 0)), 18446744073709551615n);
  assert.equal(show(parseUint64('18446744073709551616', 0)), 'strconv.ParseUint: parsing "18446744073709551616": value out of range');
  assert.equal(show(parseUint64('-1', 0)), 'strconv.ParseUint: parsing "-1": invalid syntax');
  assert.equal(show(atoi('-12')), -12n);
  assert.equal(show(atoi('0x10')), 'strconv.Atoi: parsing "0x10": invalid syntax');
  assert.equal(show(atoi('99999999999999999999')), 'strconv.Atoi: parsing "99999999999999999999": value out of range');
});

test('parseFloat64: decimal, hex mantissas, underscores, inf/nan, range', () => {
  assert.equal(show(parseFloat64('1.5e3')), 1500);
  assert.equal(show(parseFloat64('.5')), 0.5);
  assert.equal(show(parseFloat64('1_000.5')), 1000.5);
  assert.equal(show(parseFloat64('0x1p-2')), 0.25);
  assert.equal(show(parseFloat64('0x1.8p1')), 3);
  assert.equal(show(parseFloat64('-Inf')), -Infinity);
  assert.equal(show(parseFloat64('+infinity')), Infinity);
  assert.ok(Number.isNaN(show(parseFloat64('NaN')) as number));
  assert.equal(show(parseFloat64('-nan')), 'strconv.ParseFloat: parsing "-nan": invalid syntax', 'a sign only precedes inf');
  assert.equal(show(parseFloat64('0x1.8')), 'strconv.ParseFloat: parsing "0x1.8": invalid syntax', 'hex needs a p exponent');
  assert.equal(show(parseFloat64('1e')), 'strconv.ParseFloat: parsing "1e": invalid syntax');
  assert.deepEqual(parseFloat64('-1e400'), { ok: false, error: 'strconv.ParseFloat: parsing "-1e400": value out of range', rangeValue: -Infinity });
});
