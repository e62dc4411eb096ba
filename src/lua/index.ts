// lua: the sandboxed Lua runtime for EventSource scripts (wasmoon's Lua 5.4 driven through its raw exports, with a
// lazy object converter, per-evaluation environments, an instruction budget, a memory cap, Lua 5.1 shims, the
// libsveltos helpers and the json/strings/runes/sprig modules) and the oracle's JSON Lines case format.
export {
  createLuaRuntime,
  LuaRuntime,
  decodeMatchStatus,
  decodeAggregated,
  decodeCheckStatus,
  type LuaCheckResult,
  type LuaRuntimeOptions,
  type LuaRunOptions,
  type LuaClock,
  type LuaStage,
  type LuaFailure,
  type LuaMatchResult,
  type LuaAggregateResult,
  type LuaScript,
  type LuaCompileResult,
  type LuaRuntimeStats,
} from './runtime.js';
export {
  SPRIG_LUA_FUNCTIONS,
  createSprigProvider,
  type LuaSprigProvider,
  type LuaSprigFunction,
  type SprigProviderOptions,
} from './modules/index.js';
export { goNumberString, goFloatString } from './numfmt.js';
export type { JsonValue } from './convert.js';
export { runLuaCase, runLuaCases, formatLuaCaseOutput, type LuaCaseOutput } from './cases.js';
