// text: argument helpers shared by the strings, runes and sprig modules (gopher-lua's Check* conventions) and Go's
// Unicode predicates.
import { LuaStatus, LuaType } from '../constants.js';
import { badArgument, checkString } from '../helpers.js';
import { LuaRaise, type LuaVM } from '../vm.js';

export { checkString };

/** checkInt is gopher-lua's CheckInt: a number, truncated toward zero. */
export function checkInt(vm: LuaVM, arg: number, fname: string): number {
  if (vm.type(arg) !== LuaType.Number) throw badArgument(vm, arg, fname, 'number');
  const n = vm.x.lua_isinteger(vm.L, arg) ? Number(vm.x.lua_tointegerx(vm.L, arg, 0)) : vm.x.lua_tonumberx(vm.L, arg, 0);
  return Math.trunc(n);
}

/** optInt is gopher-lua's OptInt. */
export function optInt(vm: LuaVM, arg: number, fname: string, d: number): number {
  const t = vm.type(arg);
  if (t === LuaType.None || t === LuaType.Nil) return d;
  return checkInt(vm, arg, fname);
}

/** checkFunction is gopher-lua's CheckFunction. */
export function checkFunction(vm: LuaVM, arg: number, fname: string): void {
  if (vm.type(arg) !== LuaType.Function) throw badArgument(vm, arg, fname, 'function');
}

/** pushBool pushes a boolean result and returns 1. */
export function pushBool(vm: LuaVM, b: boolean): number {
  vm.x.lua_pushboolean(vm.L, b ? 1 : 0);
  return 1;
}

/** pushInt pushes an integer result and returns 1. */
export function pushInt(vm: LuaVM, n: number): number {
  vm.x.lua_pushinteger(vm.L, BigInt(n));
  return 1;
}

/** pushStr pushes a string result and returns 1. */
export function pushStr(vm: LuaVM, s: string): number {
  vm.pushString(s);
  return 1;
}

/** pushStringList pushes a Lua array of strings and returns 1. */
export function pushStringList(vm: LuaVM, list: readonly string[]): number {
  vm.x.lua_createtable(vm.L, list.length, 0);
  list.forEach((s, i) => {
    vm.pushString(s);
    vm.x.lua_rawseti(vm.L, -2, BigInt(i + 1));
  });
  return 1;
}

/** callWithRune calls the Lua function at fnIdx with one integer and passes its result (top of the stack) to read;
 * a Lua error in the callback is re-raised. */
export function callWithRune<T>(vm: LuaVM, fnIdx: number, r: number, read: () => T): T {
  vm.x.lua_pushvalue(vm.L, fnIdx);
  vm.x.lua_pushinteger(vm.L, BigInt(r));
  if (vm.pcall(1, 1) !== LuaStatus.Ok) {
    const msg = vm.errorMessage();
    vm.pop();
    throw new LuaRaise(msg, false);
  }
  try {
    return read();
  } finally {
    vm.pop();
  }
}

/** resultBool is gopher-lua's CheckBool on a callback result at the top of the stack. */
export function resultBool(vm: LuaVM, fname: string): boolean {
  if (vm.type(-1) !== LuaType.Boolean) throw new LuaRaise(`${fname}: callback must return a boolean`);
  return vm.x.lua_toboolean(vm.L, -1) !== 0;
}

/** resultInt is gopher-lua's CheckInt on a callback result at the top of the stack. */
export function resultInt(vm: LuaVM, fname: string): number {
  if (vm.type(-1) !== LuaType.Number) throw new LuaRaise(`${fname}: callback must return a number`);
  return Math.trunc(vm.x.lua_tonumberx(vm.L, -1, 0));
}

/** runes splits a string into code points (Go's []rune(s)); invalid UTF-8 already became U+FFFD when decoded. */
export function runesOf(s: string): number[] {
  const out: number[] = [];
  for (const ch of s) out.push(ch.codePointAt(0)!);
  return out;
}

/** fromRunes is Go's string([]rune): invalid code points become U+FFFD. */
export function fromRunes(rs: readonly number[]): string {
  let s = '';
  for (const r of rs) s += String.fromCodePoint(validRune(r) ? r : 0xfffd);
  return s;
}

/** validRune is utf8.ValidRune. */
export function validRune(r: number): boolean {
  return Number.isInteger(r) && r >= 0 && r <= 0x10ffff && !(r >= 0xd800 && r <= 0xdfff);
}

const re = (p: string) => new RegExp(`^${p}$`, 'u');
const IS = {
  letter: re('\\p{L}'),
  lower: re('\\p{Ll}'),
  upper: re('\\p{Lu}'),
  title: re('\\p{Lt}'),
  mark: re('\\p{M}'),
  digit: re('\\p{Nd}'),
  number: re('\\p{N}'),
  punct: re('\\p{P}'),
  symbol: re('\\p{S}'),
  control: re('\\p{Cc}'),
  graphic: re('[\\p{L}\\p{M}\\p{N}\\p{P}\\p{S}\\p{Zs}]'),
  print: re('[\\p{L}\\p{M}\\p{N}\\p{P}\\p{S} ]'),
  space: re('\\p{White_Space}'),
};

/** unicodeIs is Go's unicode.IsX for the named class. */
export function unicodeIs(cls: keyof typeof IS, r: number): boolean {
  if (!validRune(r)) return false;
  if (cls === 'space' && r <= 0xff) return r === 0x20 || (r >= 0x09 && r <= 0x0d) || r === 0x85 || r === 0xa0;
  return IS[cls].test(String.fromCodePoint(r));
}

/** mapRune applies a JS case mapping to one code point, keeping it when the mapping is not one code point. */
export function mapRune(r: number, f: (s: string) => string): number {
  if (!validRune(r)) return r;
  const m = f(String.fromCodePoint(r));
  const cps = [...m];
  return cps.length === 1 ? cps[0].codePointAt(0)! : r;
}

/** utf8Len is the UTF-8 byte length of a JS string. */
export function utf8Len(s: string): number {
  return Buffer.byteLength(s, 'utf8');
}
