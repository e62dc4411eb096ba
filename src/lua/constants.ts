// constants: numbers from Lua 5.4's lua.h that the raw C API needs (wasmoon 1.16 builds Lua 5.4.6).

/** LUA_REGISTRYINDEX is the pseudo-index of the registry (-LUAI_MAXSTACK - 1000). */
export const LUA_REGISTRYINDEX = -1_001_000;
/** LUA_RIDX_GLOBALS is the registry slot holding the global table. */
export const LUA_RIDX_GLOBALS = 2n;
/** LUA_MULTRET asks lua_pcallk for every result. */
export const LUA_MULTRET = -1;

/** upvalueIndex is lua_upvalueindex(i): the pseudo-index of a C closure's i-th upvalue. */
export function upvalueIndex(i: number): number {
  return LUA_REGISTRYINDEX - i;
}

/** LuaType is the closed set of lua_type results. */
export const LuaType = {
  None: -1,
  Nil: 0,
  Boolean: 1,
  LightUserdata: 2,
  Number: 3,
  String: 4,
  Table: 5,
  Function: 6,
  Userdata: 7,
  Thread: 8,
} as const;

/** LuaStatus is the closed set of status codes returned by lua_pcallk and luaL_loadbufferx. */
export const LuaStatus = {
  Ok: 0,
  Yield: 1,
  ErrRun: 2,
  ErrSyntax: 3,
  ErrMem: 4,
  ErrErr: 5,
} as const;

/** LUA_MASKCOUNT is the hook mask for "every N instructions". */
export const LUA_MASKCOUNT = 1 << 3;
