// sprig: the `sprig` Lua module (require("sprig")) — 68 Sprig functions with lua-utils' calling conventions.
// Go: projectsveltos/lua-utils glua-sprig/sprig.go. The functions themselves come from an injected provider (Sprig
// in TypeScript lives in src/funcs); this file owns only the Lua side: which arguments each function checks, how Lua
// values become JS values, and whether a failure is raised ("one") or returned as `nil, message` ("pair").
// The handful of functions lua-utils implements on Lua values directly (all, any, cat, coalesce, compact, empty,
// ternary, uniq) are implemented here and need no provider.
import { LuaType } from '../constants.js';
import type { Converter, JsonValue } from '../convert.js';
import { badArgument, checkString, type HelperTable } from '../helpers.js';
import { goNumberString } from '../numfmt.js';
import { LuaRaise, type LuaVM } from '../vm.js';

/**
 * LuaSprigFunction is one Sprig function as the provider exposes it: JS arguments in, a JS value out (a Uint8Array
 * becomes a Lua byte string). Throwing an Error is the function's failure (`nil, message` or a raised
 * `name: message`); throwing a LuaRaise raises that exact Lua error (lua-utils' argument errors).
 */
export type LuaSprigFunction = (...args: unknown[]) => unknown;

/** LuaSprigProvider supplies the Sprig function implementations by name (Sprig's own names). */
export interface LuaSprigProvider {
  /** sprigFunction returns the implementation of name, or undefined when the provider does not have it. */
  sprigFunction(name: string): LuaSprigFunction | undefined;
}

/** LuaSprigParam is how one argument is read from Lua: gopher-lua's Check* kind. */
export type LuaSprigParam = 'string' | 'number' | 'int' | 'bool' | 'table' | 'any';

/** LuaSprigSpec describes the Lua calling convention of one provider-backed function. */
export interface LuaSprigSpec {
  params: readonly LuaSprigParam[];
  /** spread: the last (table) argument is spread into the provider call (Sprig's variadic functions). */
  spread?: boolean;
  /** "pair": returns value, nil — or nil, message on failure; "one": returns value, raises on failure. */
  result: 'one' | 'pair';
  /** arity is lua-utils' text when too few arguments are given (default "NAME requires N arguments"). */
  arity?: string;
}

const one = (...params: LuaSprigParam[]): LuaSprigSpec => ({ params, result: 'one' });
// lua-utils says "requires 1 argument" (singular) for these instead of its usual "requires 1 arguments".
const oneArg = (name: string, param: LuaSprigParam): LuaSprigSpec => ({ params: [param], result: 'one', arity: `${name} requires 1 argument` });
const pair = (...params: LuaSprigParam[]): LuaSprigSpec => ({ params, result: 'pair' });

/** SPRIG_LUA_FUNCTIONS lists the provider-backed functions of the module with their Lua signatures. */
export const SPRIG_LUA_FUNCTIONS: Readonly<Record<string, LuaSprigSpec>> = {
  abbrev: one('int', 'string'),
  abbrevboth: one('int', 'int', 'string'),
  adler32sum: one('string'),
  ago: oneArg('ago', 'any'),
  b32dec: pair('string'),
  b32enc: one('string'),
  b64dec: pair('string'),
  b64enc: one('string'),
  base: one('string'),
  bcrypt: one('string'),
  camelcase: one('string'),
  clean: one('string'),
  decryptAES: pair('string', 'string'),
  derivePassword: one('int', 'string', 'string', 'string', 'string'),
  dir: one('string'),
  duration: oneArg('duration', 'any'),
  durationRound: oneArg('durationRound', 'any'),
  encryptAES: pair('string', 'string'),
  ext: one('string'),
  genPrivateKey: one('string'),
  htpasswd: one('string', 'string'),
  indent: one('int', 'string'),
  initials: one('string'),
  isAbs: one('string'),
  kebabcase: one('string'),
  nindent: one('int', 'string'),
  nospace: one('string'),
  osBase: one('string'),
  osClean: one('string'),
  osDir: one('string'),
  osExt: one('string'),
  osIsAbs: one('string'),
  plural: { params: ['string', 'string', 'int'], result: 'one', arity: 'plural requires 3 arguments: singular, plural, count' },
  quote: { params: ['table'], spread: true, result: 'one' },
  randInt: one('int', 'int'),
  regexFind: pair('string', 'string'),
  regexFindAll: pair('string', 'string', 'int'),
  regexMatch: pair('string', 'string'),
  regexReplaceAll: pair('string', 'string', 'string'),
  regexReplaceAllLiteral: pair('string', 'string', 'string'),
  regexSplit: { params: ['string', 'string', 'int'], result: 'pair', arity: 'mustRegexSplit requires 3 arguments' },
  round: { params: ['any', 'int', 'number'], result: 'one', arity: 'round requires at least 2 arguments: value and precision' },
  semverCompare: pair('string', 'string'),
  seq: { params: ['table'], spread: true, result: 'one' },
  sha1sum: one('string'),
  sha256sum: one('string'),
  sha512sum: one('string'),
  shuffle: one('string'),
  snakecase: one('string'),
  sortAlpha: oneArg('sortAlpha', 'any'),
  squote: { params: ['table'], spread: true, result: 'one' },
  substr: one('int', 'int', 'string'),
  swapcase: one('string'),
  toDecimal: oneArg('toDecimal', 'any'),
  trunc: one('int', 'string'),
  untitle: one('string'),
  urlJoin: one('table'),
  urlParse: one('string'),
  wrap: one('int', 'string'),
  wrapWith: one('int', 'string', 'string'),
};

/** SPRIG_LUA_NATIVE lists the functions implemented here on Lua values (no provider needed). */
export const SPRIG_LUA_NATIVE = ['all', 'any', 'cat', 'coalesce', 'compact', 'empty', 'ternary', 'uniq'] as const;

function readParam(vm: LuaVM, conv: Converter, i: number, kind: LuaSprigParam, fname: string): unknown {
  const t = vm.type(i);
  switch (kind) {
    case 'string':
      return checkString(vm, i, fname);
    case 'number':
    case 'int': {
      if (t === LuaType.None || t === LuaType.Nil) {
        if (kind === 'number') return undefined; // optional trailing float (round's roundOn)
      }
      if (t !== LuaType.Number && !(t === LuaType.String && Number.isFinite(Number(vm.readString(i))))) {
        throw badArgument(vm, i, fname, 'number');
      }
      const n = t === LuaType.Number ? vm.x.lua_tonumberx(vm.L, i, 0) : Number(vm.readString(i));
      return kind === 'int' ? Math.trunc(n) : n;
    }
    case 'bool':
      return vm.x.lua_toboolean(vm.L, i) !== 0;
    case 'table':
      if (t !== LuaType.Table) throw badArgument(vm, i, fname, 'table');
      return conv.toJson(i);
    case 'any':
      return t === LuaType.None ? null : conv.toJson(i);
  }
}

/** isEmptyLuaValue is lua-utils' isEmptyLuaValue: nil, false, 0, "" and {} are empty. */
function isEmptyLuaValue(vm: LuaVM, conv: Converter, i: number): boolean {
  switch (vm.type(i)) {
    case LuaType.None:
    case LuaType.Nil:
      return true;
    case LuaType.Boolean:
      return vm.x.lua_toboolean(vm.L, i) === 0;
    case LuaType.Number:
      return vm.x.lua_tonumberx(vm.L, i, 0) === 0;
    case LuaType.String:
      return vm.readString(i) === '';
    case LuaType.Table: {
      const abs = vm.x.lua_absindex(vm.L, i);
      conv.materialize(abs);
      vm.x.lua_pushnil(vm.L);
      if (vm.x.lua_next(vm.L, abs) !== 0) {
        vm.pop(2);
        return false;
      }
      return true;
    }
    default:
      return false;
  }
}

function luaValueString(vm: LuaVM, i: number): string {
  const t = vm.type(i);
  if (t === LuaType.Number) return vm.x.lua_isinteger(vm.L, i) ? vm.numberToLuaString(i) : goNumberString(vm.x.lua_tonumberx(vm.L, i, 0));
  if (t === LuaType.String) return vm.readString(i);
  if (t === LuaType.Boolean) return vm.x.lua_toboolean(vm.L, i) ? 'true' : 'false';
  return `${t === LuaType.Table ? 'table' : 'function'}: 0x${vm.x.lua_topointer(vm.L, i).toString(16).padStart(8, '0')}`;
}

// forEachValue visits the values of the table at index t (array part first, in order).
function forEachValue(vm: LuaVM, conv: Converter, t: number, f: (idx: number) => void): void {
  conv.materialize(t);
  const abs = vm.x.lua_absindex(vm.L, t);
  vm.x.lua_pushnil(vm.L);
  while (vm.x.lua_next(vm.L, abs) !== 0) {
    f(vm.x.lua_gettop(vm.L));
    vm.pop();
  }
}

function nativeFunctions(conv: Converter): HelperTable {
  const needTable = (vm: LuaVM, nargs: number, fname: string, what: string) => {
    if (nargs < 1) throw new LuaRaise(`bad argument #1 to '${fname}' (${what})`);
    if (vm.type(1) !== LuaType.Table) throw badArgument(vm, 1, fname, 'table');
  };
  return {
    all(vm, nargs) {
      needTable(vm, nargs, 'all', 'all requires 1 arguments');
      let all = true;
      forEachValue(vm, conv, 1, (i) => (all &&= !isEmptyLuaValue(vm, conv, i)));
      vm.x.lua_pushboolean(vm.L, all ? 1 : 0);
      return 1;
    },
    any(vm, nargs) {
      needTable(vm, nargs, 'any', 'any requires 1 arguments');
      let any = false;
      forEachValue(vm, conv, 1, (i) => (any ||= !isEmptyLuaValue(vm, conv, i)));
      vm.x.lua_pushboolean(vm.L, any ? 1 : 0);
      return 1;
    },
    cat(vm, nargs) {
      const parts: string[] = [];
      for (let i = 1; i <= nargs; i++) if (vm.type(i) !== LuaType.Nil) parts.push(luaValueString(vm, i));
      vm.pushString(parts.join(' '));
      return 1;
    },
    coalesce(vm, nargs) {
      if (nargs < 1) throw new LuaRaise("bad argument #1 to 'coalesce' (coalesce requires at least 1 argument)");
      for (let i = 1; i <= nargs; i++) {
        if (!isEmptyLuaValue(vm, conv, i)) {
          vm.x.lua_pushvalue(vm.L, i);
          return 1;
        }
      }
      vm.x.lua_pushnil(vm.L);
      return 1;
    },
    compact(vm, nargs) {
      needTable(vm, nargs, 'compact', 'compact requires 1 argument');
      vm.x.lua_createtable(vm.L, 0, 0);
      const out = vm.x.lua_gettop(vm.L);
      let n = 0;
      forEachValue(vm, conv, 1, (i) => {
        if (isEmptyLuaValue(vm, conv, i)) return;
        vm.x.lua_pushvalue(vm.L, i);
        vm.x.lua_rawseti(vm.L, out, BigInt(++n));
      });
      return 1;
    },
    empty(vm, nargs) {
      if (nargs < 1) throw new LuaRaise("bad argument #1 to 'empty' (empty requires 1 argument)");
      vm.x.lua_pushboolean(vm.L, isEmptyLuaValue(vm, conv, 1) ? 1 : 0);
      return 1;
    },
    ternary(vm, nargs) {
      if (nargs < 3) throw new LuaRaise("bad argument #1 to 'ternary' (ternary requires 3 arguments)");
      if (vm.type(3) !== LuaType.Boolean) throw badArgument(vm, 3, 'ternary', 'boolean');
      vm.x.lua_pushvalue(vm.L, vm.x.lua_toboolean(vm.L, 3) ? 1 : 2);
      return 1;
    },
    uniq(vm, nargs) {
      needTable(vm, nargs, 'uniq', 'uniq requires 1 argument');
      vm.x.lua_createtable(vm.L, 0, 0);
      const out = vm.x.lua_gettop(vm.L);
      const seen = new Set<string>();
      let n = 0;
      forEachValue(vm, conv, 1, (i) => {
        const t = vm.type(i);
        const key = t === LuaType.Table ? `table:${vm.x.lua_topointer(vm.L, i)}` : `${t}:${luaValueString(vm, i)}`;
        if (seen.has(key)) return;
        seen.add(key);
        vm.x.lua_pushvalue(vm.L, i);
        vm.x.lua_rawseti(vm.L, out, BigInt(++n));
      });
      return 1;
    },
  };
}

/** sprigModule returns the functions of the `sprig` module, backed by provider for everything not native. */
export function sprigModule(conv: Converter, provider: LuaSprigProvider): HelperTable {
  const fns: HelperTable = nativeFunctions(conv);
  for (const [name, spec] of Object.entries(SPRIG_LUA_FUNCTIONS)) {
    const impl = provider.sprigFunction(name);
    if (!impl) continue;
    fns[name] = (vm, nargs) => {
      if (nargs < spec.params.filter((p) => p !== 'number').length) {
        throw new LuaRaise(`bad argument #1 to '${name}' (${spec.arity ?? `${name} requires ${spec.params.length} arguments`})`);
      }
      let args = spec.params.map((p, i) => readParam(vm, conv, i + 1, p, name));
      if (spec.spread) args = tableValues(args[0]);
      while (args.length > 0 && args[args.length - 1] === undefined) args.pop();
      let result: unknown;
      try {
        result = impl(...args);
      } catch (err) {
        if (err instanceof LuaRaise) throw err;
        const message = err instanceof Error ? err.message : String(err);
        if (spec.result === 'pair') {
          vm.x.lua_pushnil(vm.L);
          vm.pushString(message);
          return 2;
        }
        throw new LuaRaise(`${name}: ${message}`);
      }
      if (result instanceof Uint8Array) vm.pushBytes(result);
      else conv.push(toLuaJson(result));
      if (spec.result === 'pair') {
        vm.x.lua_pushnil(vm.L);
        return 2;
      }
      return 1;
    };
  }
  return fns;
}

// tableValues is the values of a table read as JSON, as lua-utils' ForEach visits them (array part, then the rest).
function tableValues(t: unknown): unknown[] {
  if (Array.isArray(t)) return t;
  return t !== null && typeof t === 'object' ? Object.values(t) : [];
}

// toLuaJson keeps what a Lua value can hold; Maps (Go maps from a provider) become objects.
function toLuaJson(v: unknown): JsonValue {
  if (v === undefined || v === null) return null;
  if (v instanceof Map) return Object.fromEntries([...v].map(([k, e]) => [String(k), toLuaJson(e)]));
  if (Array.isArray(v)) return v.map(toLuaJson);
  if (typeof v === 'object') return Object.fromEntries(Object.entries(v as object).map(([k, e]) => [k, toLuaJson(e)]));
  // A bigint is an int64 beyond 2^53 (Lua 5.4 integers hold it exactly; gopher-lua would round it to a float).
  return v as JsonValue;
}
