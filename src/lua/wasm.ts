// wasm: loads wasmoon's Lua 5.4 WebAssembly module once per process and hands out its raw exports.
//
// Why raw exports: wasmoon wraps every exported C function in an emscripten assertion shim (`J(name)`) that costs
// about 30 ns per call; the WebAssembly exports themselves cost about 7 ns. A conversion of a Kubernetes object makes
// hundreds of such calls, so we call the exports directly. Emscripten does not expose them on the Module object in
// this build, so we capture them while the module instantiates (see captureExports). Nothing here reads files or the
// network on its own: wasmoon loads the .wasm asset packaged next to its JavaScript.
import { LuaWasm } from 'wasmoon';

/** LuaExports is the subset of the raw Lua C API (WebAssembly exports of wasmoon's glue.wasm) that we call. */
export interface LuaExports {
  readonly memory: { readonly buffer: ArrayBuffer };
  malloc(size: number): number;
  free(ptr: number): void;
  realloc(ptr: number, size: number): number;
  lua_newstate(alloc: number, ud: number): number;
  lua_close(L: number): void;
  lua_atpanic(L: number, fn: number): number;
  lua_absindex(L: number, idx: number): number;
  lua_gettop(L: number): number;
  lua_settop(L: number, idx: number): void;
  lua_pushvalue(L: number, idx: number): void;
  lua_rotate(L: number, idx: number, n: number): void;
  lua_copy(L: number, from: number, to: number): void;
  lua_checkstack(L: number, n: number): number;
  lua_type(L: number, idx: number): number;
  lua_isinteger(L: number, idx: number): number;
  lua_tonumberx(L: number, idx: number, isnum: number): number;
  lua_tointegerx(L: number, idx: number, isnum: number): bigint;
  lua_toboolean(L: number, idx: number): number;
  lua_tolstring(L: number, idx: number, len: number): number;
  lua_rawlen(L: number, idx: number): number;
  lua_topointer(L: number, idx: number): number;
  lua_rawequal(L: number, a: number, b: number): number;
  lua_pushnil(L: number): void;
  lua_pushnumber(L: number, n: number): void;
  lua_pushinteger(L: number, n: bigint): void;
  lua_pushlstring(L: number, s: number, len: number): number;
  lua_pushcclosure(L: number, fn: number, n: number): void;
  lua_pushboolean(L: number, b: number): void;
  lua_pushlightuserdata(L: number, p: number): void;
  lua_getglobal(L: number, name: number): number;
  lua_getfield(L: number, idx: number, k: number): number;
  lua_rawget(L: number, idx: number): number;
  lua_rawgeti(L: number, idx: number, n: bigint): number;
  lua_rawgetp(L: number, idx: number, p: number): number;
  lua_createtable(L: number, narr: number, nrec: number): void;
  lua_getmetatable(L: number, idx: number): number;
  lua_setglobal(L: number, name: number): void;
  lua_setfield(L: number, idx: number, k: number): void;
  lua_rawset(L: number, idx: number): void;
  lua_rawseti(L: number, idx: number, n: bigint): void;
  lua_rawsetp(L: number, idx: number, p: number): void;
  lua_setmetatable(L: number, idx: number): number;
  lua_pcallk(L: number, nargs: number, nresults: number, errfunc: number, ctx: number, k: number): number;
  lua_error(L: number): number;
  lua_next(L: number, idx: number): number;
  lua_concat(L: number, n: number): void;
  lua_setupvalue(L: number, fn: number, n: number): number;
  lua_sethook(L: number, fn: number, mask: number, count: number): void;
  luaL_loadbufferx(L: number, buf: number, size: number, name: number, mode: number): number;
  luaL_ref(L: number, t: number): number;
  luaL_unref(L: number, t: number, ref: number): void;
  luaL_where(L: number, level: number): void;
  luaL_traceback(L: number, L1: number, msg: number, level: number): void;
  luaL_requiref(L: number, name: number, openf: number, glb: number): void;
  luaopen_base(L: number): number;
  luaopen_table(L: number): number;
  luaopen_string(L: number): number;
  luaopen_math(L: number): number;
  luaopen_utf8(L: number): number;
  luaopen_coroutine(L: number): number;
  luaopen_os(L: number): number;
}

/** LuaWasmModule is the loaded WebAssembly module: raw exports plus emscripten's function-table helpers. */
export interface LuaWasmModule {
  readonly x: LuaExports;
  /** addFunction registers a JS function in the WebAssembly function table and returns its pointer. */
  addFunction(fn: (...args: never[]) => unknown, signature: string): number;
  removeFunction(ptr: number): void;
}

let loading: Promise<LuaWasmModule> | undefined;

/** loadLuaWasm instantiates wasmoon's WebAssembly module once and returns the shared handle. */
export function loadLuaWasm(): Promise<LuaWasmModule> {
  loading ??= instantiate().catch((err: unknown) => {
    loading = undefined; // let a later call try again
    throw err;
  });
  return loading;
}

async function instantiate(): Promise<LuaWasmModule> {
  const { module, exports } = await captureExports(() => LuaWasm.initialize());
  const em = module.module as unknown as {
    addFunction(fn: (...args: never[]) => unknown, sig: string): number;
    removeFunction(ptr: number): void;
  };
  return {
    x: exports,
    addFunction: (fn, sig) => em.addFunction(fn, sig),
    removeFunction: (ptr) => em.removeFunction(ptr),
  };
}

// captureExports runs wasmoon's initialisation while WebAssembly.instantiate is wrapped, keeping the exports of the
// instance that carries the Lua API. The wrapper is removed before this function returns, whatever happens.
async function captureExports(init: () => Promise<LuaWasm>): Promise<{ module: LuaWasm; exports: LuaExports }> {
  // The lib settings of this project do not declare WebAssembly's types; this is the little we touch.
  type Exports = Record<string, unknown>;
  type Instantiate = (...args: unknown[]) => Promise<{ instance?: { exports: Exports }; exports?: Exports }>;
  const wa = (globalThis as unknown as { WebAssembly: { instantiate: Instantiate } }).WebAssembly;
  const original = wa.instantiate;
  let captured: Exports | undefined;
  const wrapped: Instantiate = async function (this: unknown, ...args: unknown[]) {
    const result = await original.apply(this, args);
    const exports = result.instance ? result.instance.exports : result.exports;
    if (exports && typeof exports.lua_pcallk === 'function') captured = exports;
    return result;
  };
  wa.instantiate = wrapped;
  let module: LuaWasm;
  try {
    module = await init();
  } finally {
    wa.instantiate = original;
  }
  if (!captured) throw new Error('lua: could not capture the WebAssembly exports of wasmoon (unexpected build)');
  return { module, exports: captured as unknown as LuaExports };
}
