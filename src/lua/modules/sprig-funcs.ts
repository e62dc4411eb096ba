// sprig-funcs: the default provider of the `sprig` Lua module, backed by src/funcs' Sprig function map.
// Go: projectsveltos/lua-utils glua-sprig/sprig.go. The Lua module (sprig.ts) has already read the arguments the
// way lua-utils does (CheckString, int(CheckNumber), tables as JSON); this file turns them into the Go values each
// GoFunc declares (`int` → GoInt, `interface {}` → Go's value of a gopher-lua number, …), calls the Sprig
// implementation and hands its result back as plain data (toPlainJSON; raw bytes stay bytes).
//
// lua-utils does not call Sprig verbatim for every name; the adapters below reproduce what it does instead:
// the regex functions are Sprig's must* variants (a bad pattern is `nil, err`), b64dec/b32dec report decoding errors
// (Sprig returns the error text as the value), randInt and substr guard the ranges Sprig would panic on, wrapWith
// takes (width, text, separator), and several functions first coerce their argument to a string the way gopher-lua
// prints values (duration, durationRound, toDecimal, round, sortAlpha, urlJoin).
import {
  base32Decode,
  base64Decode,
  sprigFuncMap,
  type FuncOptions,
} from '../../funcs/index.js';
import {
  formatValue,
  GO_TYPE,
  GoFuncError,
  GoInt,
  isGoMap,
  toPlainJSON,
  utf8Len,
  withGoType,
  type FuncMap,
  type GoMap,
  type GoValue,
} from '../../gotemplate/index.js';
import { goNumberString } from '../numfmt.js';
import { LuaRaise } from '../vm.js';
import type { LuaSprigFunction, LuaSprigProvider } from './sprig.js';

/** SprigProviderOptions configures the Sprig functions behind the Lua module (clock for `ago`, randomness). */
export type SprigProviderOptions = Pick<FuncOptions, 'clock' | 'random'>;

/** createSprigProvider returns the Sprig functions of src/funcs with lua-utils' calling conventions. */
export function createSprigProvider(options: SprigProviderOptions = {}): LuaSprigProvider {
  // One options object per provider: sprigFuncMap caches its map per options object.
  const funcOptions: FuncOptions = { ...(options.clock ? { clock: options.clock } : {}), ...(options.random ? { random: options.random } : {}) };
  let map: FuncMap | undefined;
  const call = (name: string, args: readonly unknown[]): GoValue => {
    map ??= sprigFuncMap(funcOptions);
    const fn = map[name];
    if (fn === undefined) throw new Error(`sprig: ${name} is not a Sprig function`);
    const goArgs: GoValue[] = fn.params.map((t, i) => toGo(args[i], t));
    if (fn.variadic !== undefined) for (let i = fn.params.length; i < args.length; i++) goArgs.push(toGo(args[i], fn.variadic));
    try {
      return fn.impl(...goArgs);
    } catch (err) {
      // A GoFuncError is Go's error result (or a recovered panic); lua-utils passes err.Error() on as the text.
      if (err instanceof GoFuncError) throw new Error(err.message, { cause: err });
      throw err;
    }
  };
  const cache = new Map<string, LuaSprigFunction>();
  const adapters: Readonly<Record<string, Adapter>> = options.clock
    ? ADAPTERS
    : {
        ...ADAPTERS,
        // The core cannot read the wall clock: without an injected one, ago says which option supplies it.
        ago: (args, call) => {
          if (typeof args[0] !== 'number') return ADAPTERS.ago(args, call);
          throw new Error('no clock configured: pass LuaRuntimeOptions.clock (or SprigProviderOptions.clock) to use sprig.ago');
        },
      };
  return {
    sprigFunction(name) {
      let f = cache.get(name);
      if (f === undefined) {
        const adapter = adapters[name];
        f = adapter ? (...args) => fromGo(adapter(args, call)) : (...args) => fromGo(call(name, args));
        cache.set(name, f);
      }
      return f;
    },
  };
}

type Call = (name: string, args: readonly unknown[]) => GoValue;
type Adapter = (args: unknown[], call: Call) => GoValue;

const TWO63 = 2n ** 63n;

// goIntOf is Go's int(float64) on amd64: truncation, and the "integer indefinite" value when out of range.
function goIntOf(v: unknown): bigint {
  const n = typeof v === 'number' ? v : Number(v);
  if (!Number.isFinite(n)) return -TWO63;
  const b = BigInt(Math.trunc(n));
  return b >= TWO63 || b < -TWO63 ? -TWO63 : b;
}

// luaString is gopher-lua's LValue.String() of a value the module read as JSON (nil prints as "nil").
function luaString(v: unknown): string {
  if (v === null || v === undefined) return 'nil';
  if (typeof v === 'string') return v;
  if (typeof v === 'number') return goNumberString(v);
  if (typeof v === 'boolean') return v ? 'true' : 'false';
  // gopher-lua prints a table as "table: 0x…" (its address); no script can depend on that, so the converted value
  // is printed as Go would print it instead.
  return formatValue(toGo(v, 'interface {}'));
}

// goNumber is how lua-utils hands a Lua number to Sprig: an int when it is integral, else a float64.
function goNumber(n: number): GoValue {
  return Number.isInteger(n) ? new GoInt('int', goIntOf(n)) : n;
}

/** toGo converts a value read from Lua into the Go type a Sprig function declares. */
function toGo(v: unknown, goType: string): GoValue {
  switch (goType) {
    case 'string':
      return typeof v === 'string' ? v : luaString(v);
    case 'bool':
      return v === true;
    case 'int':
      return new GoInt('int', goIntOf(v));
    case 'uint32':
      return new GoInt('uint32', BigInt.asUintN(32, goIntOf(v)));
    case 'int64':
      return goIntOf(v);
    case 'float64':
      return typeof v === 'number' ? v : Number(v);
    case 'interface {}':
      // gopher-lua numbers are float64; tables become []interface {} / map[string]interface {}. Values an adapter
      // already built (GoInt, a typed slice) pass unchanged.
      if (v === undefined || v === null) return null;
      if (Array.isArray(v)) return (v as { [GO_TYPE]?: string })[GO_TYPE] !== undefined ? (v as GoValue) : v.map((e) => toGo(e, 'interface {}'));
      if (isGoMap(v)) return toGoMap(v);
      return v as GoValue;
    case 'map[string]interface {}':
      return isGoMap(v) ? toGoMap(v) : {};
  }
  throw new Error(`sprig: no conversion from Lua to Go type ${goType}`);
}

function toGoMap(o: object): GoMap {
  const m: GoMap = {};
  for (const [k, e] of Object.entries(o)) m[k] = toGo(e, 'interface {}');
  return m;
}

/** fromGo turns a Sprig result into data the Lua module can push: raw bytes stay bytes, the rest plain JSON data. */
function fromGo(v: GoValue): unknown {
  return v instanceof Uint8Array ? v : (toPlainJSON(v) ?? null);
}

// mustRegex: lua-utils' regex functions compile the pattern and return its error (Sprig's must* variants).
const mustRegex =
  (name: string): Adapter =>
  (args, call) =>
    call(`must${name[0].toUpperCase()}${name.slice(1)}`, args);

// decoded: lua-utils returns `nil, "b64dec: <Go error>"` where Sprig would return the error text as the value.
const decoded =
  (name: string, decode: (s: string) => { bytes: Uint8Array; error?: string }): Adapter =>
  ([s]) => {
    const r = decode(String(s));
    if (r.error !== undefined) throw new Error(`${name}: ${r.error}`);
    return r.bytes;
  };

// present: quote/squote/seq/sortAlpha receive the values of one table; nils are skipped as lua-utils' ForEach does.
const present = (args: unknown[]) => args.filter((a) => a !== null && a !== undefined);

/** ADAPTERS are the functions lua-utils does not hand to Sprig unchanged. */
const ADAPTERS: Readonly<Record<string, Adapter>> = {
  regexFind: mustRegex('regexFind'),
  regexFindAll: mustRegex('regexFindAll'),
  regexMatch: mustRegex('regexMatch'),
  regexReplaceAll: mustRegex('regexReplaceAll'),
  regexReplaceAllLiteral: mustRegex('regexReplaceAllLiteral'),
  regexSplit: mustRegex('regexSplit'),
  b64dec: decoded('b64dec', base64Decode),
  b32dec: decoded('b32dec', base32Decode),
  ago([t], call) {
    if (typeof t !== 'number') throw new LuaRaise("bad argument #1 to 'ago' (ago requires a number (Unix timestamp))");
    return call('ago', [goIntOf(t)]);
  },
  // Go: DurationFunc — seconds from a number or a base-10 string; anything else is 0.
  duration: ([v], call) => call('duration', [typeof v === 'number' ? goIntOf(v) : typeof v === 'string' ? v : 0]),
  // Go: DurationRoundFunc — a number means seconds, a string is parsed by time.ParseDuration.
  durationRound: ([v], call) =>
    call('durationRound', [typeof v === 'number' ? `${goIntOf(v)}s` : typeof v === 'string' ? v : v === null ? '0s' : `${luaString(v)}s`]),
  // Go: ToDecimalFunc — the octal text of the value as gopher-lua prints it; booleans are 1 and 0, nil is 0.
  toDecimal: ([v], call) => call('toDecimal', [typeof v === 'boolean' ? (v ? '1' : '0') : v === null ? '0' : luaString(v)]),
  // Go: RoundFunc — numbers as float64, strings as they are, anything else as its printed form.
  round: ([v, p, on], call) =>
    call('round', [typeof v === 'number' || typeof v === 'string' ? v : luaString(v), p, ...(on === undefined ? [] : [on])]),
  // Go: RandIntFunc — an empty range yields min instead of Sprig's panic.
  randInt([lo, hi], call) {
    const min = goIntOf(lo);
    const max = goIntOf(hi);
    return max <= min ? new GoInt('int', min) : call('randInt', [lo, hi]);
  },
  // Go: SubstrFunc — indexes clamped to the string's bytes, an empty range yields "".
  substr([a, b, s], call) {
    const str = String(s);
    const len = BigInt(utf8Len(str));
    let start = goIntOf(a);
    let end = goIntOf(b);
    if (start < 0n) start = 0n;
    if (end > len) end = len;
    if (start >= len || start >= end) return '';
    return call('substr', [Number(start), Number(end), str]);
  },
  // Go: WrapWithFunc — Lua passes (width, text, separator); Sprig takes (width, separator, text).
  wrapWith: ([n, text, sep], call) => call('wrapWith', [n, sep, text]),
  // Go: QuoteFunc / SquoteFunc — integral numbers as int, others as float64; strings and booleans as they are.
  quote: (args, call) => call('quote', present(args).map((a) => (typeof a === 'number' ? goNumber(a) : a))),
  squote: (args, call) => call('squote', present(args).map((a) => (typeof a === 'number' ? goNumber(a) : a))),
  // Go: SeqFunc — only the numbers of the table count.
  seq: (args, call) => call('seq', args.filter((a) => typeof a === 'number')),
  // Go: SortAlphaFunc — a table's values as strings; any other value is one string.
  sortAlpha([v], call) {
    const items = Array.isArray(v) ? present(v) : v !== null && typeof v === 'object' ? Object.values(v) : [v];
    return call('sortAlpha', [withGoType(items.map(luaString), '[]string')]);
  },
  // Go: URLJoinFunc — the string keys of the table, every value as a string.
  urlJoin([t], call) {
    const d: GoMap = {};
    if (t !== null && typeof t === 'object' && !Array.isArray(t)) for (const [k, e] of Object.entries(t)) d[k] = luaString(e);
    return call('urlJoin', [d]);
  },
  // Go: URLParseFunc — every field printed with %v (nil as "").
  urlParse([s], call) {
    const m = call('urlParse', [s]);
    const out: GoMap = {};
    for (const [k, e] of Object.entries(m as GoMap)) out[k] = e === null || e === undefined ? '' : formatValue(e);
    return out;
  },
};
