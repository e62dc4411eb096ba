// helpers: the global functions libsveltos registers for Lua scripts, with the same argument checks and messages.
// Go: libsveltos lib/lua/methods.go LoadModulesAndRegisterMethods (base64Encode, base64Decode, getLabel,
// getAnnotation, getResource).
import { LuaType } from './constants.js';
import type { Converter } from './convert.js';
import { LuaRaise, typeName, type JsFunction, type LuaVM } from './vm.js';

/** HelperTable maps a global name to its implementation. */
export type HelperTable = Record<string, JsFunction>;

/** checkString is luaL_checkstring: a string or a number (converted), else a "bad argument" error. */
export function checkString(vm: LuaVM, arg: number, fname: string): string {
  const s = vm.toStringValue(arg);
  if (s === undefined) throw badArgument(vm, arg, fname, 'string');
  return s;
}

/** checkBytes is luaL_checkstring returning the raw bytes (Lua strings are byte strings). */
export function checkBytes(vm: LuaVM, arg: number, fname: string): Uint8Array {
  const b = vm.toBytes(arg);
  if (b === undefined) throw badArgument(vm, arg, fname, 'string');
  return b;
}

/** checkTable is luaL_checktype(arg, LUA_TTABLE). */
export function checkTable(vm: LuaVM, arg: number, fname: string): void {
  if (vm.type(arg) !== LuaType.Table) throw badArgument(vm, arg, fname, 'table');
}

/** badArgument builds Lua's "bad argument #N to 'f' (T expected, got U)" error. */
export function badArgument(vm: LuaVM, arg: number, fname: string, expected: string): LuaRaise {
  const got = vm.type(arg) === LuaType.None ? 'no value' : typeName(vm.type(arg));
  return new LuaRaise(`bad argument #${arg} to '${fname}' (${expected} expected, got ${got})`);
}

function pushNilAndMessage(vm: LuaVM, message: string): number {
  vm.x.lua_pushnil(vm.L);
  vm.pushString(message);
  return 2;
}

/** sveltosHelpers returns the libsveltos globals; obj tables may be lazy, so lookups materialize them first. */
export function sveltosHelpers(conv: Converter): HelperTable {
  const metadataGetter =
    (section: string, fname: string): JsFunction =>
    (vm, nargs) => {
      if (nargs !== 2) return pushNilAndMessage(vm, 'expected 2 arguments (table, key)');
      checkTable(vm, 1, fname);
      const key = checkString(vm, 2, fname);
      // Go: methods.go getLabel — raw lookups obj.metadata[section][key], a string or nil.
      conv.materialize(1);
      if (vm.rawGetField(1, 'metadata') !== LuaType.Table) return pushNil(vm);
      conv.materialize(-1);
      if (vm.rawGetField(-1, section) !== LuaType.Table) return pushNil(vm);
      conv.materialize(-1);
      if (vm.rawGetField(-1, key) !== LuaType.String) return pushNil(vm);
      return 1;
    };
  return {
    base64Encode(vm) {
      const data = checkBytes(vm, 1, 'base64Encode');
      if (data.length === 0) return pushNilAndMessage(vm, 'provided string is empty');
      vm.pushString(Buffer.from(data).toString('base64'));
      return 1;
    },
    base64Decode(vm) {
      const text = checkString(vm, 1, 'base64Decode');
      if (text === '') return pushNilAndMessage(vm, 'provided string is empty');
      const decoded = decodeStdBase64(text);
      if (decoded === undefined) return pushNilAndMessage(vm, 'deconding failed'); // sic, as in libsveltos
      vm.pushBytes(decoded);
      return 1;
    },
    getLabel: metadataGetter('labels', 'getLabel'),
    getAnnotation: metadataGetter('annotations', 'getAnnotation'),
    getResource(vm, nargs) {
      if (nargs !== 2) return pushNilAndMessage(vm, 'expected 2 arguments (table, key)');
      checkTable(vm, 1, 'getResource');
      const key = checkString(vm, 2, 'getResource');
      conv.materialize(1);
      vm.rawGetField(1, key);
      return 1;
    },
  };
}

function pushNil(vm: LuaVM): number {
  vm.x.lua_pushnil(vm.L);
  return 1;
}

/** decodeStdBase64 is Go's base64.StdEncoding.DecodeString: padded standard alphabet, strict; undefined when invalid. */
export function decodeStdBase64(text: string): Uint8Array | undefined {
  // Go ignores \r and \n; any other character outside the alphabet, or bad padding, is an error.
  const s = text.replace(/[\r\n]/g, '');
  if (s.length % 4 !== 0) return undefined;
  if (!/^[A-Za-z0-9+/]*={0,2}$/.test(s)) return undefined;
  const buf = Buffer.from(s, 'base64');
  return new Uint8Array(buf.buffer, buf.byteOffset, buf.length);
}
