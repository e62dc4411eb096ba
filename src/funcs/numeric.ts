// numeric.ts: Sprig's integer and float math (numeric.go and the arithmetic entries of functions.go). Integer
// functions go through cast.ToInt64 and wrap around like Go's int64; the *f functions go through
// shopspring/decimal, so `addf 1.1 2.2` is 3.3 and not 3.3000000000000003.
import type { GoFunc, GoValue } from '../gotemplate/index.js';
import { atoi, parseInt64, sprint } from '../gotemplate/index.js';
import { toFloat64, toInt, toInt64 } from './cast.js';
import { defineFunc, goError } from './define.js';
import { checkListLength, randomInt, type ResolvedOptions } from './options.js';
import { goInt, intSlice, intValue } from './reflect.js';
import { wrapInt64 } from './strconv.js';

/** Decimal is an arbitrary-precision decimal coef × 10^exp (the subset of shopspring/decimal Sprig uses). */
export class Decimal {
  constructor(
    readonly coef: bigint,
    readonly exp: number,
  ) {}

  /** fromFloat is decimal.NewFromFloat: the shortest decimal that round-trips to f. */
  static fromFloat(f: number): Decimal {
    if (!Number.isFinite(f)) throw goError(`Cannot create a Decimal from ${sprint(f)}`);
    if (f === 0) return new Decimal(0n, 0);
    const [mant, e] = f.toExponential().split('e');
    const digits = mant.replace('.', '').replace('-', '');
    const coef = BigInt(digits) * (f < 0 ? -1n : 1n);
    return new Decimal(coef, Number(e) - (digits.length - 1));
  }

  private rescale(exp: number): bigint {
    return exp >= this.exp ? this.coef : this.coef * 10n ** BigInt(this.exp - exp);
  }

  add(d: Decimal): Decimal {
    const e = Math.min(this.exp, d.exp);
    return new Decimal(this.rescale(e) + d.rescale(e), e);
  }

  sub(d: Decimal): Decimal {
    const e = Math.min(this.exp, d.exp);
    return new Decimal(this.rescale(e) - d.rescale(e), e);
  }

  mul(d: Decimal): Decimal {
    return new Decimal(this.coef * d.coef, this.exp + d.exp);
  }

  /** div is Decimal.Div: DivRound to 16 fractional digits, halves rounded away from zero. */
  div(d: Decimal, precision = 16): Decimal {
    if (d.coef === 0n) throw goError('decimal division by 0');
    // q = this / d scaled by 10^precision: this.coef·10^(this.exp + precision) / (d.coef·10^d.exp).
    let num = this.coef;
    let den = d.coef;
    const shift = this.exp + precision - d.exp;
    if (shift >= 0) num *= 10n ** BigInt(shift);
    else den *= 10n ** BigInt(-shift);
    let q = num / den;
    const r = num % den;
    const abs = (x: bigint) => (x < 0n ? -x : x);
    if (2n * abs(r) >= abs(den)) q += (num < 0n) !== (den < 0n) ? -1n : 1n;
    return new Decimal(q, -precision);
  }

  /** toFloat64 is Decimal.Float64: the nearest double to the exact decimal. */
  toFloat64(): number {
    return Number(`${this.coef}e${this.exp}`);
  }
}

function decimalOp(a: GoValue, rest: GoValue[], op: (x: Decimal, y: Decimal) => Decimal): number {
  // Go: numeric.go execDecimalOp
  let acc = Decimal.fromFloat(toFloat64(a));
  for (const x of rest) acc = op(acc, Decimal.fromFloat(toFloat64(x)));
  return acc.toFloat64();
}

/** untilStep is Sprig's untilStep: start, start+step, … up to but excluding stop; empty when the step points away. */
export function untilStep(start: number, stop: number, step: number, budget?: { o: ResolvedOptions; fn: string }): number[] {
  const v: number[] = [];
  if (budget) {
    const n = stop < start ? (step < 0 ? Math.ceil((start - stop) / -step) : 0) : step > 0 ? Math.ceil((stop - start) / step) : 0;
    checkListLength(budget.o, budget.fn, n);
  }
  if (stop < start) {
    if (step >= 0) return v;
    for (let i = start; i > stop; i += step) v.push(i);
    return v;
  }
  if (step <= 0) return v;
  for (let i = start; i < stop; i += step) v.push(i);
  return v;
}

function seq(params: number[], o: ResolvedOptions): string {
  const budget = { o, fn: 'seq' };
  // Go: numeric.go seq
  let increment = 1;
  switch (params.length) {
    case 0:
      return '';
    case 1: {
      const start = 1;
      const end = params[0];
      if (end < start) increment = -1;
      return untilStep(start, end + increment, increment, budget).join(' ');
    }
    case 3: {
      const [start, step, end] = params;
      if (end < start) {
        increment = -1;
        if (step > 0) return '';
      }
      return untilStep(start, end + increment, step, budget).join(' ');
    }
    case 2: {
      const [start, end] = params;
      const step = end < start ? -1 : 1;
      return untilStep(start, end + step, step, budget).join(' ');
    }
    default:
      return '';
  }
}

function intDiv(a: bigint, b: bigint, op: 'div' | 'mod'): bigint {
  if (b === 0n) throw goError('runtime error: integer divide by zero');
  return wrapInt64(op === 'div' ? a / b : a % b);
}

/** round is Sprig's round: scale, compare the fraction with roundOn, ceil or floor, unscale. Go: numeric.go round */
function round(a: GoValue, p: number, roundOn = 0.5): number {
  const val = toFloat64(a);
  const pow = 10 ** p;
  const digit = pow * val;
  const frac = Number.isFinite(digit) ? digit - Math.trunc(digit) : NaN;
  const r = frac >= roundOn ? Math.ceil(digit) : Math.floor(digit);
  return r / pow;
}

/** numericFuncs returns Sprig's math and number-conversion functions. */
export function numericFuncs(o: ResolvedOptions): GoFunc[] {
  return [
    defineFunc('atoi', '(string) int', (s: string) => {
      const r = atoi(s);
      return goInt(r.ok ? r.value : 0n);
    }),
    defineFunc('int64', '(interface {}) int64', toInt64),
    defineFunc('int', '(interface {}) int', toInt),
    defineFunc('float64', '(interface {}) float64', toFloat64),
    defineFunc('toDecimal', '(interface {}) int64', (v: GoValue) => {
      const r = parseInt64(sprint(v), 8);
      return r.ok ? r.value : 0n;
    }),
    defineFunc('seq', '(...int) string', (...ps: GoValue[]) => seq(ps.map(intValue), o)),
    defineFunc('until', '(int) []int', (n: GoValue) => {
      const count = intValue(n);
      return intSlice(untilStep(0, count, count < 0 ? -1 : 1, { o, fn: 'until' }));
    }),
    defineFunc('untilStep', '(int, int, int) []int', (a: GoValue, b: GoValue, c: GoValue) =>
      intSlice(untilStep(intValue(a), intValue(b), intValue(c), { o, fn: 'untilStep' })),
    ),
    defineFunc('add1', '(interface {}) int64', (i: GoValue) => wrapInt64(toInt64(i) + 1n)),
    defineFunc('add', '(...interface {}) int64', (...xs: GoValue[]) => xs.reduce<bigint>((s, x) => wrapInt64(s + toInt64(x)), 0n)),
    defineFunc('sub', '(interface {}, interface {}) int64', (a: GoValue, b: GoValue) => wrapInt64(toInt64(a) - toInt64(b))),
    defineFunc('div', '(interface {}, interface {}) int64', (a: GoValue, b: GoValue) => intDiv(toInt64(a), toInt64(b), 'div')),
    defineFunc('mod', '(interface {}, interface {}) int64', (a: GoValue, b: GoValue) => intDiv(toInt64(a), toInt64(b), 'mod')),
    defineFunc('mul', '(interface {}, ...interface {}) int64', (a: GoValue, ...xs: GoValue[]) =>
      xs.reduce<bigint>((s, x) => wrapInt64(s * toInt64(x)), toInt64(a)),
    ),
    defineFunc('randInt', '(int, int) int', (a: GoValue, b: GoValue) => {
      const min = intValue(a);
      const n = intValue(b) - min;
      if (n <= 0) throw goError('invalid argument to Intn');
      return goInt(randomInt(o, n) + min);
    }),
    defineFunc('add1f', '(interface {}) float64', (i: GoValue) => decimalOp(i, [1n], (x, y) => x.add(y))),
    defineFunc('addf', '(...interface {}) float64', (...xs: GoValue[]) => decimalOp(0, xs, (x, y) => x.add(y))),
    defineFunc('subf', '(interface {}, ...interface {}) float64', (a: GoValue, ...xs: GoValue[]) =>
      decimalOp(a, xs, (x, y) => x.sub(y)),
    ),
    defineFunc('divf', '(interface {}, ...interface {}) float64', (a: GoValue, ...xs: GoValue[]) =>
      decimalOp(a, xs, (x, y) => x.div(y)),
    ),
    defineFunc('mulf', '(interface {}, ...interface {}) float64', (a: GoValue, ...xs: GoValue[]) =>
      decimalOp(a, xs, (x, y) => x.mul(y)),
    ),
    ...['biggest', 'max'].map((name) =>
      defineFunc(name, '(interface {}, ...interface {}) int64', (a: GoValue, ...xs: GoValue[]) =>
        xs.reduce<bigint>((m, x) => {
          const v = toInt64(x);
          return v > m ? v : m;
        }, toInt64(a)),
      ),
    ),
    defineFunc('min', '(interface {}, ...interface {}) int64', (a: GoValue, ...xs: GoValue[]) =>
      xs.reduce<bigint>((m, x) => {
        const v = toInt64(x);
        return v < m ? v : m;
      }, toInt64(a)),
    ),
    defineFunc('maxf', '(interface {}, ...interface {}) float64', (a: GoValue, ...xs: GoValue[]) =>
      xs.reduce<number>((m, x) => Math.max(m, toFloat64(x)), toFloat64(a)),
    ),
    defineFunc('minf', '(interface {}, ...interface {}) float64', (a: GoValue, ...xs: GoValue[]) =>
      xs.reduce<number>((m, x) => Math.min(m, toFloat64(x)), toFloat64(a)),
    ),
    defineFunc('ceil', '(interface {}) float64', (a: GoValue) => Math.ceil(toFloat64(a))),
    defineFunc('floor', '(interface {}) float64', (a: GoValue) => Math.floor(toFloat64(a))),
    defineFunc('round', '(interface {}, int, ...float64) float64', (a: GoValue, p: GoValue, ...opt: GoValue[]) =>
      round(a, intValue(p), opt.length > 0 ? (opt[0] as number) : 0.5),
    ),
  ];
}
