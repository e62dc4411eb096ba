// runtime: the sandboxed Lua runtime EventSource scripts run in — compile once, evaluate many times, each
// evaluation in a fresh global environment, with an instruction budget and a memory allowance, and every failure
// returned as a value (never thrown).
//
// Sequence per evaluation (Go: sveltos-agent pkg/evaluation/eventsource_evaluation.go isMatchForEventSource):
// run the chunk (top-level code runs before `obj` exists), set global `obj`, call `evaluate(obj)` with one result,
// require a table, then decode it as JSON into {matching bool, message string}.
import { LUA_REGISTRYINDEX, LuaStatus, LuaType } from './constants.js';
import { Converter, LuaConversionError, type JsonValue } from './convert.js';
import { sveltosHelpers, type HelperTable } from './helpers.js';
import { createSprigProvider, moduleLoaders, type LuaSprigProvider } from './modules/index.js';
import { mapRune } from './modules/text.js';
import { goNumberString } from './numfmt.js';
import { CHUNKNAME, PRELUDE } from './prelude.js';
import { LuaRaise, LuaVM } from './vm.js';
import { loadLuaWasm, type LuaWasmModule } from './wasm.js';

/** LuaClock is the time source for os.time(); injected so the core never reads the wall clock itself. */
export interface LuaClock {
  /** now returns milliseconds since the Unix epoch. */
  now(): number;
}

/** LuaRuntimeOptions configures limits and injected providers of a runtime. */
export interface LuaRuntimeOptions {
  /** instructionLimit caps the Lua VM instructions of one evaluation (chunk + evaluate). Default 10,000,000. */
  instructionLimit?: number;
  /** aggregateInstructionLimit caps one aggregatedSelection run. Default 100,000,000. */
  aggregateInstructionLimit?: number;
  /** memoryLimitBytes caps what one evaluation may allocate on the Lua heap. Default 64 MiB. */
  memoryLimitBytes?: number;
  /**
   * sprig provides the functions of the `sprig` module (require("sprig")). Default: Sprig from src/funcs with
   * lua-utils' calling conventions (createSprigProvider, using `clock` for `ago`); false → the module is not found.
   */
  sprig?: LuaSprigProvider | false;
  /** clock backs os.time() without arguments and sprig.ago; absent → os.time() uses the WebAssembly runtime's clock, ago fails. */
  clock?: LuaClock;
}

// EngineOptions are the runtime options with the sprig provider resolved.
type EngineOptions = Omit<LuaRuntimeOptions, 'sprig'> & { sprig: LuaSprigProvider | undefined };

/** LuaStage says where an evaluation failed, with the oracle's stage names plus "memory". */
export type LuaStage = 'load' | 'call' | 'result' | 'timeout' | 'memory';

/** LuaFailure is a structured evaluation failure: the stage, the message and, when known, the script line. */
export interface LuaFailure {
  stage: LuaStage;
  message: string;
  line?: number;
}

/** LuaRunOptions tunes one run. */
export interface LuaRunOptions {
  /** helpers exposes the libsveltos globals and the json/strings/runes/sprig modules. Default true. */
  helpers?: boolean;
  instructionLimit?: number;
}

/** LuaMatchResult is the outcome of one `evaluate` call: the decoded {matching, message} or a failure. */
export type LuaMatchResult =
  | { ok: true; matching: boolean; message: string; output: string[] }
  | { ok: false; failure: LuaFailure; output: string[] };

/** LuaAggregateResult is the outcome of an aggregatedSelection run: the objects it returned, or a failure. */
export type LuaAggregateResult =
  | { ok: true; resources: Record<string, unknown>[]; message: string; output: string[] }
  | { ok: false; failure: LuaFailure; output: string[] };

/** LuaCheckResult is the outcome of a cluster check `evaluate(resources)`: {pass, message} or a failure. */
export type LuaCheckResult =
  | { ok: true; pass: boolean; message: string; output: string[] }
  | { ok: false; failure: LuaFailure; output: string[] };

/** LuaScript is a compiled script handle; valid for the runtime that compiled it. */
export interface LuaScript {
  readonly source: string;
}

/** LuaCompileResult is a compiled script or its syntax error. */
export type LuaCompileResult = { ok: true; script: LuaScript } | { ok: false; failure: LuaFailure };

/** LuaRuntimeStats are counters for monitoring and benchmarks. */
export interface LuaRuntimeStats {
  evaluations: number;
  failures: number;
  recycles: number;
  memoryUsed: number;
  compiledScripts: number;
}

const DEFAULTS = {
  instructionLimit: 10_000_000,
  aggregateInstructionLimit: 100_000_000,
  memoryLimitBytes: 64 * 1024 * 1024,
};
const MAX_OUTPUT_LINES = 100;
const MAX_OUTPUT_CHARS = 16_384;
const MAX_COMPILED = 4096;

/** createLuaRuntime loads the Lua WebAssembly module (once per process) and builds a sandboxed runtime. */
export async function createLuaRuntime(options: LuaRuntimeOptions = {}): Promise<LuaRuntime> {
  const wasm = await loadLuaWasm();
  return new LuaRuntime(wasm, options);
}

interface Compiled extends LuaScript {
  ref: number;
  generation: number;
}

// Engine is one VM with its sandbox; the runtime replaces it if it ever ends up in an unknown state.
class Engine {
  readonly vm: LuaVM;
  readonly conv: Converter;
  readonly envMetaPlain: number;
  readonly envMetaHelpers: number;
  readonly currentEnvRef: number;
  private readonly cleanupRef: number;
  private readonly guardRef: number;
  private readonly moduleRefs = new Map<string, number>();
  dirty = false;
  output: string[] = [];
  private outputChars = 0;

  constructor(
    wasm: LuaWasmModule,
    private readonly options: EngineOptions,
  ) {
    const vm = LuaVM.create(wasm, Number.POSITIVE_INFINITY);
    this.vm = vm;
    const x = vm.x;
    const L = vm.L;
    try {
      for (const [name, open] of [
        ['_G', x.luaopen_base],
        ['table', x.luaopen_table],
        ['string', x.luaopen_string],
        ['math', x.luaopen_math],
        ['utf8', x.luaopen_utf8],
        ['coroutine', x.luaopen_coroutine],
        ['os', x.luaopen_os],
      ] as const) {
        open(L);
        if (name !== '_G') this.setHostGlobal(name);
        else vm.pop();
      }
      this.conv = new Converter(vm);
      x.lua_createtable(L, 0, 0);
      this.currentEnvRef = vm.ref();
      const status = vm.load(PRELUDE, '=prelude');
      if (status !== LuaStatus.Ok) throw new Error(`lua: prelude does not compile: ${vm.errorMessage()}`);
      this.conv.pushSentinel();
      vm.pushNewFunction((v) => {
        this.conv.materialize(1);
        return 0;
      });
      vm.pushNewFunction((v) => {
        v.pushString(goNumberString(v.x.lua_tonumberx(v.L, 1, 0)));
        return 1;
      });
      vm.pushNewFunction((v, n) => this.print(v, n));
      vm.pushNewFunction((v) => this.require(v));
      vm.pushNewFunction((v) => {
        const name = v.toStringValue(1) ?? '?';
        throw new LuaRaise(`module '${name}' not found`);
      });
      vm.pushNewFunction((v) => {
        v.pushRef(this.currentEnvRef);
        return 1;
      });
      vm.pushNewFunction(() => {
        this.dirty = true;
        return 0;
      });
      vm.pushNewFunction((v) => {
        if (!this.options.clock) v.x.lua_pushnil(v.L);
        else v.x.lua_pushinteger(v.L, BigInt(Math.floor(this.options.clock.now() / 1000)));
        return 1;
      });
      this.pushFunctionTable(sveltosHelpers(this.conv));
      vm.pushNewFunction((v) => caseMap(v, 'upper'));
      vm.pushNewFunction((v) => caseMap(v, 'lower'));
      const st = vm.pcall(12, 4);
      if (st !== LuaStatus.Ok) throw new Error(`lua: prelude failed: ${vm.errorMessage()}`);
      // Stack: G, GH, cleanup, guard.
      this.guardRef = vm.ref();
      this.cleanupRef = vm.ref();
      this.envMetaHelpers = this.makeEnvMeta();
      this.envMetaPlain = this.makeEnvMeta();
      x.lua_settop(L, 0);
    } catch (err) {
      vm.close();
      throw err;
    }
  }

  private setHostGlobal(name: string): void {
    this.vm.x.lua_rawgeti(this.vm.L, LUA_REGISTRYINDEX, 2n);
    this.vm.x.lua_rotate(this.vm.L, -2, 1);
    this.vm.rawSetField(-2, name);
    this.vm.pop();
  }

  // makeEnvMeta pops a globals table and returns a registry ref to {__index = it, __metatable = false}.
  private makeEnvMeta(): number {
    const vm = this.vm;
    vm.x.lua_createtable(vm.L, 0, 2);
    vm.x.lua_rotate(vm.L, -2, 1);
    vm.rawSetField(-2, '__index');
    vm.x.lua_pushboolean(vm.L, 0);
    vm.rawSetField(-2, '__metatable');
    return vm.ref();
  }

  private pushFunctionTable(fns: HelperTable): void {
    const vm = this.vm;
    vm.x.lua_createtable(vm.L, 0, Object.keys(fns).length);
    for (const [name, fn] of Object.entries(fns)) {
      vm.pushNewFunction(fn);
      vm.rawSetField(-2, name);
    }
  }

  private print(vm: LuaVM, n: number): number {
    const parts: string[] = [];
    for (let i = 1; i <= n; i++) {
      const t = vm.type(i);
      if (t === LuaType.Number) parts.push(vm.x.lua_isinteger(vm.L, i) ? vm.numberToLuaString(i) : goNumberString(vm.x.lua_tonumberx(vm.L, i, 0)));
      else if (t === LuaType.String) parts.push(vm.readString(i));
      else if (t === LuaType.Nil) parts.push('nil');
      else if (t === LuaType.Boolean) parts.push(vm.x.lua_toboolean(vm.L, i) ? 'true' : 'false');
      else parts.push(`${luaTypeName(t)}: 0x${vm.x.lua_topointer(vm.L, i).toString(16).padStart(8, '0')}`);
    }
    const line = parts.join('\t');
    if (this.output.length < MAX_OUTPUT_LINES && this.outputChars < MAX_OUTPUT_CHARS) {
      const room = MAX_OUTPUT_CHARS - this.outputChars;
      const kept = line.length > room ? line.slice(0, room) + '…' : line;
      this.output.push(kept);
      this.outputChars += kept.length;
    }
    return 0;
  }

  private require(vm: LuaVM): number {
    const name = vm.toStringValue(1);
    if (name === undefined) throw new LuaRaise(`bad argument #1 to 'require' (string expected, got ${luaTypeName(vm.type(1))})`);
    const cached = this.moduleRefs.get(name);
    if (cached !== undefined) {
      vm.pushRef(cached);
      return 1;
    }
    const loader = moduleLoaders(this.options.sprig)[name];
    if (!loader) throw new LuaRaise(`module '${name}' not found`);
    vm.pushRef(this.guardRef);
    this.pushFunctionTable(loader(this.conv));
    // guard is a plain Lua function that cannot fail except on memory exhaustion.
    const st = vm.pcall(1, 1);
    if (st !== LuaStatus.Ok) throw new LuaRaise(vm.errorMessage());
    vm.x.lua_pushvalue(vm.L, -1);
    this.moduleRefs.set(name, vm.ref());
    return 1;
  }

  /** resetOutput starts a new print() capture. */
  resetOutput(): void {
    this.output = [];
    this.outputChars = 0;
  }

  /** cleanup wipes writes scripts made to library tables (only when any happened). */
  cleanup(): void {
    if (!this.dirty) return;
    this.dirty = false;
    this.vm.pushRef(this.cleanupRef);
    if (this.vm.pcall(0, 0) !== LuaStatus.Ok) this.vm.pop();
  }

  close(): void {
    this.vm.close();
  }
}

/** LuaRuntime runs EventSource scripts; not safe for concurrent use (JS is single-threaded, runs never overlap). */
export class LuaRuntime {
  private engine: Engine;
  private generation = 0;
  private readonly compiled = new Map<string, Compiled>();
  private readonly limits: typeof DEFAULTS;
  private readonly options: EngineOptions;
  private counters = { evaluations: 0, failures: 0, recycles: 0 };
  private broken: string | undefined;

  /** constructor is internal: use createLuaRuntime. */
  constructor(
    private readonly wasm: LuaWasmModule,
    options: LuaRuntimeOptions,
  ) {
    const sprig = options.sprig === false ? undefined : (options.sprig ?? createSprigProvider(options.clock ? { clock: options.clock } : {}));
    this.options = { ...options, sprig };
    this.limits = {
      instructionLimit: positive(options.instructionLimit, DEFAULTS.instructionLimit),
      aggregateInstructionLimit: positive(options.aggregateInstructionLimit, DEFAULTS.aggregateInstructionLimit),
      memoryLimitBytes: positive(options.memoryLimitBytes, DEFAULTS.memoryLimitBytes),
    };
    this.engine = new Engine(wasm, this.options);
  }

  /** stats returns counters and the current Lua heap size. */
  stats(): LuaRuntimeStats {
    return { ...this.counters, memoryUsed: this.broken === undefined ? this.engine.vm.memoryUsed : 0, compiledScripts: this.compiled.size };
  }

  /** compile parses a script once (cached by source text); a syntax error is returned as a "load" failure. */
  compile(source: string): LuaCompileResult {
    if (this.broken !== undefined) return { ok: false, failure: failure('load', `the Lua runtime is unusable: ${this.broken}`) };
    const hit = this.compiled.get(source);
    if (hit && hit.generation === this.generation) return { ok: true, script: hit };
    const vm = this.engine.vm;
    let status: number;
    try {
      status = vm.load(source, CHUNKNAME);
    } catch (err) {
      if (typeof err === 'number') err = new Error('uncaught Lua error while compiling');
      this.recycle();
      return { ok: false, failure: failure('load', `internal error in the Lua runtime (engine replaced): ${(err as Error).message}`) };
    }
    if (status !== LuaStatus.Ok) {
      const message = vm.errorMessage();
      vm.pop();
      return { ok: false, failure: failure('load', message) };
    }
    if (this.compiled.size >= MAX_COMPILED) this.evictCompiled();
    const c: Compiled = { source, ref: vm.ref(), generation: this.generation };
    this.compiled.set(source, c);
    return { ok: true, script: c };
  }

  /** evaluate runs an EventSource `evaluate` script against one object. */
  evaluate(script: LuaScript | string, obj: Record<string, unknown>, opts: LuaRunOptions = {}): LuaMatchResult {
    this.counters.evaluations++;
    const r = this.run(script, opts, opts.instructionLimit ?? this.limits.instructionLimit, (e) => {
      e.conv.pushRoot(obj);
      return 'obj';
    });
    if (!r.ok) {
      this.counters.failures++;
      return r;
    }
    const decoded = decodeMatchStatus(r.value);
    if ('failure' in decoded) {
      this.counters.failures++;
      return { ok: false, failure: decoded.failure, output: r.output };
    }
    return { ok: true, matching: decoded.matching, message: decoded.message, output: r.output };
  }

  // Scripts over a selection (aggregatedSelection, cluster checks): global `resources` = the objects, as a Lua array.
  private runOverResources(script: LuaScript | string, objects: Record<string, unknown>[], opts: LuaRunOptions) {
    this.counters.evaluations++;
    const r = this.run(script, opts, opts.instructionLimit ?? this.limits.aggregateInstructionLimit, (e) => {
      const x = e.vm.x;
      x.lua_createtable(e.vm.L, objects.length, 0);
      for (let i = 0; i < objects.length; i++) {
        e.conv.pushLazyRoot(objects[i]);
        x.lua_rawseti(e.vm.L, -2, BigInt(i + 1));
      }
      e.conv.pin(-1);
      return 'resources';
    });
    if (!r.ok) this.counters.failures++;
    return r;
  }

  /** aggregate runs an aggregatedSelection script with global `resources` = the selected objects. */
  aggregate(script: LuaScript | string, objects: Record<string, unknown>[], opts: LuaRunOptions = {}): LuaAggregateResult {
    const r = this.runOverResources(script, objects, opts);
    if (!r.ok) return r;
    const decoded = decodeAggregated(r.value);
    if ('failure' in decoded) {
      this.counters.failures++;
      return { ok: false, failure: decoded.failure, output: r.output };
    }
    return { ok: true, resources: decoded.resources, message: decoded.message, output: r.output };
  }

  /**
   * call runs a script's `evaluate` with the global `name` bound to `value` (a Kubernetes object, or a table of them
   * keyed by name) and returns its table result as JSON, for contracts other than EventSource matching: health checks
   * (`obj` → {healthy, message}) and Lua policies (`resources` → {resources = "YAML"}).
   */
  call(script: LuaScript | string, name: string, value: Record<string, unknown>, opts: LuaRunOptions = {}): { ok: true; value: JsonValue; output: string[] } | { ok: false; failure: LuaFailure; output: string[] } {
    this.counters.evaluations++;
    const r = this.run(script, opts, opts.instructionLimit ?? this.limits.instructionLimit, (e) => {
      e.conv.pushRoot(value);
      return name;
    });
    if (!r.ok) this.counters.failures++;
    return r;
  }

  /**
   * check runs a SveltosCluster readiness/liveness `condition`: global `resources` = the selected objects, then
   * evaluate(resources), decoded as sveltoscluster-manager's checkStatus {pass bool; message string}. The API docs
   * name the field "result": a table with `result` and no `pass` is read through it, instead of silently failing.
   */
  check(script: LuaScript | string, objects: Record<string, unknown>[], opts: LuaRunOptions = {}): LuaCheckResult {
    const r = this.runOverResources(script, objects, opts);
    if (!r.ok) return r;
    const decoded = decodeCheckStatus(r.value);
    if ('failure' in decoded) {
      this.counters.failures++;
      return { ok: false, failure: decoded.failure, output: r.output };
    }
    return { ok: true, pass: decoded.pass, message: decoded.message, output: r.output };
  }

  /** close releases the Lua state; the runtime cannot be used afterwards. */
  close(): void {
    this.engine.close();
  }

  // run executes the chunk in a fresh environment, sets the global named by pushArg (which pushes the argument),
  // calls evaluate(arg) and returns the JSON form of its single result.
  private run(
    script: LuaScript | string,
    opts: LuaRunOptions,
    instructionLimit: number,
    pushArg: (e: Engine) => string,
  ): { ok: true; value: JsonValue; output: string[] } | { ok: false; failure: LuaFailure; output: string[] } {
    if (this.broken !== undefined) return { ok: false, failure: failure('call', `the Lua runtime is unusable: ${this.broken}`), output: [] };
    let compiled: Compiled;
    if (typeof script === 'string' || (script as Compiled).generation !== this.generation) {
      const c = this.compile(typeof script === 'string' ? script : script.source);
      if (!c.ok) return { ok: false, failure: c.failure, output: [] };
      compiled = c.script as Compiled;
    } else {
      compiled = script as Compiled;
    }
    const e = this.engine;
    const vm = e.vm;
    const x = vm.x;
    const L = vm.L;
    const base = x.lua_gettop(L);
    e.resetOutput();
    let result: { ok: true; value: JsonValue } | { ok: false; failure: LuaFailure };
    try {
      vm.setMemoryLimit(vm.memoryUsed + this.limits.memoryLimitBytes);
      vm.beginRun(instructionLimit);
      result = this.runSteps(e, compiled, opts.helpers !== false, pushArg);
    } catch (err) {
      // Anything thrown here is a bug or a broken engine, not a script error: replace the engine, report it.
      if (typeof err === 'number') err = new Error('uncaught Lua error outside a protected call');
      this.recycle();
      return {
        ok: false,
        failure: failure('call', `internal error in the Lua runtime (engine replaced): ${(err as Error).message ?? err}`),
        output: [],
      };
    } finally {
      if (this.engine === e) {
        vm.endRun();
        vm.setMemoryLimit(Number.POSITIVE_INFINITY);
        x.lua_settop(L, base);
        e.conv.reset();
        e.cleanup();
      }
    }
    return { ...result, output: e.output };
  }

  private runSteps(
    e: Engine,
    compiled: Compiled,
    helpers: boolean,
    pushArg: (e: Engine) => string,
  ): { ok: true; value: JsonValue } | { ok: false; failure: LuaFailure } {
    const vm = e.vm;
    const x = vm.x;
    const L = vm.L;
    // env = setmetatable({}, {__index = sandbox globals, __metatable = false}); env._G = env
    x.lua_createtable(L, 0, 4);
    const env = x.lua_gettop(L);
    vm.pushRef(helpers ? e.envMetaHelpers : e.envMetaPlain);
    x.lua_setmetatable(L, env);
    x.lua_pushvalue(L, env);
    vm.rawSetField(env, '_G');
    x.lua_pushvalue(L, env);
    x.lua_rawseti(L, LUA_REGISTRYINDEX, BigInt(e.currentEnvRef));
    // Run the chunk with env as its _ENV upvalue: it defines evaluate (and runs any top-level code).
    vm.pushRef(compiled.ref);
    x.lua_pushvalue(L, env);
    x.lua_setupvalue(L, -2, 1);
    let st = vm.pcall(0, 0);
    if (st !== LuaStatus.Ok) return { ok: false, failure: this.runFailure(vm, 'load', st) };
    const name = pushArg(e);
    x.lua_pushvalue(L, -1);
    vm.rawSetField(env, name);
    vm.pushString('evaluate');
    x.lua_rawget(L, env);
    if (x.lua_type(L, -1) === LuaType.Nil) {
      // A global function defined through _G or rawset lands in env too; anything else is not there.
      x.lua_settop(L, -2);
      return { ok: false, failure: failure('call', 'attempt to call a nil value (global \'evaluate\')') };
    }
    x.lua_rotate(L, -2, 1);
    st = vm.pcall(1, 1);
    if (st !== LuaStatus.Ok) return { ok: false, failure: this.runFailure(vm, 'call', st) };
    if (x.lua_type(L, -1) !== LuaType.Table) return { ok: false, failure: failure('result', 'lua script output is not a lua table') };
    try {
      return { ok: true, value: e.conv.toJson(-1) };
    } catch (err) {
      if (err instanceof LuaConversionError) return { ok: false, failure: failure('result', err.message) };
      throw err;
    }
  }

  private runFailure(vm: LuaVM, stage: 'load' | 'call', status: number): LuaFailure {
    const message = vm.errorMessage();
    vm.pop();
    if (vm.aborted === 'instructions') return failure('timeout', message);
    if (vm.aborted === 'memory' || status === LuaStatus.ErrMem) return failure('memory', message);
    return failure(stage, message);
  }

  private recycle(): void {
    this.counters.recycles++;
    try {
      this.engine.close();
    } catch {
      // The old engine is being discarded because it is broken; a failing close changes nothing.
    }
    this.generation++;
    this.compiled.clear();
    try {
      this.engine = new Engine(this.wasm, this.options);
    } catch (err) {
      // The WebAssembly module itself is gone (e.g. aborted); every later call reports this instead of throwing.
      this.broken = err instanceof Error ? err.message : String(err);
    }
  }

  private evictCompiled(): void {
    // Scripts come from EventSources, so the set is small; when it is not, drop the oldest half.
    let n = Math.floor(this.compiled.size / 2);
    for (const [source, c] of this.compiled) {
      if (n-- <= 0) break;
      this.engine.vm.unref(c.ref);
      this.compiled.delete(source);
    }
  }
}

// caseMap is Go's strings.ToUpper/ToLower on a Lua string (ASCII stays a fast byte loop in JS's own mapping).
function caseMap(vm: LuaVM, which: 'upper' | 'lower'): number {
  const s = vm.toStringValue(1);
  if (s === undefined) throw new LuaRaise(`bad argument #1 to '${which}' (string expected, got ${luaTypeName(vm.type(1))})`);
  const f = which === 'upper' ? (c: string) => c.toUpperCase() : (c: string) => c.toLowerCase();
  if (/^[\x00-\x7f]*$/.test(s)) vm.pushString(f(s));
  else vm.pushString(Array.from(s, (ch) => String.fromCodePoint(mapRune(ch.codePointAt(0)!, f))).join(''));
  return 1;
}

function positive(v: number | undefined, d: number): number {
  return v !== undefined && Number.isFinite(v) && v > 0 ? v : d;
}

/** failure builds a LuaFailure, taking the line number from a `<string>:N:` prefix when there is one. */
export function failure(stage: LuaStage, message: string): LuaFailure {
  const m = /^<string>:(\d+):/.exec(message);
  return m ? { stage, message, line: Number(m[1]) } : { stage, message };
}

function luaTypeName(t: number): string {
  switch (t) {
    case LuaType.Table:
      return 'table';
    case LuaType.Function:
      return 'function';
    case LuaType.Thread:
      return 'thread';
    case LuaType.Nil:
      return 'nil';
    case LuaType.None:
      return 'no value';
    case LuaType.Boolean:
      return 'boolean';
    case LuaType.Number:
      return 'number';
    case LuaType.String:
      return 'string';
    default:
      return 'userdata';
  }
}

function jsonKind(v: JsonValue): string {
  if (v === null) return 'null';
  if (Array.isArray(v)) return 'array';
  if (typeof v === 'object') return 'object';
  return typeof v === 'boolean' ? 'bool' : typeof v;
}

// pickFields applies encoding/json's field matching: an exact key wins, else a case-insensitive one; with several
// candidates the last in (sorted, as json.Marshal writes maps) key order wins.
function pickField(obj: Record<string, JsonValue>, field: string): { present: boolean; value?: JsonValue } {
  if (Object.hasOwn(obj, field)) return { present: true, value: obj[field] };
  let found: { present: boolean; value?: JsonValue } = { present: false };
  for (const k of Object.keys(obj).sort()) if (k.toLowerCase() === field) found = { present: true, value: obj[k] };
  return found;
}

/** decodeMatchStatus is json.Unmarshal into sveltos-agent's eventMatchStatus {matching bool; message string}. */
export function decodeMatchStatus(v: JsonValue): { matching: boolean; message: string } | { failure: LuaFailure } {
  const typeName = 'evaluation.eventMatchStatus';
  const fieldType = 'eventMatchStatus';
  if (v === null || typeof v !== 'object' || Array.isArray(v)) {
    return { failure: failure('result', `json: cannot unmarshal ${jsonKind(v)} into Go value of type ${typeName}`) };
  }
  let matching = false;
  let message = '';
  const m = pickField(v, 'matching');
  if (m.present && m.value !== null) {
    if (typeof m.value !== 'boolean') {
      return { failure: failure('result', `json: cannot unmarshal ${jsonKind(m.value!)} into Go struct field ${fieldType}.matching of type bool`) };
    }
    matching = m.value;
  }
  const s = pickField(v, 'message');
  if (s.present && s.value !== null) {
    if (typeof s.value !== 'string') {
      return { failure: failure('result', `json: cannot unmarshal ${jsonKind(s.value!)} into Go struct field ${fieldType}.message of type string`) };
    }
    message = s.value;
  }
  return { matching, message };
}

/** decodeAggregated is json.Unmarshal into {resources []object; message string} (aggregatedSelection's result). */
export function decodeAggregated(v: JsonValue): { resources: Record<string, unknown>[]; message: string } | { failure: LuaFailure } {
  const typeName = 'evaluation.aggregatedStatus';
  const fieldType = 'aggregatedStatus';
  if (v === null || typeof v !== 'object' || Array.isArray(v)) {
    return { failure: failure('result', `json: cannot unmarshal ${jsonKind(v)} into Go value of type ${typeName}`) };
  }
  const resources: Record<string, unknown>[] = [];
  const r = pickField(v, 'resources');
  if (r.present && r.value !== null) {
    if (!Array.isArray(r.value)) {
      return {
        failure: failure(
          'result',
          `json: cannot unmarshal ${jsonKind(r.value!)} into Go struct field ${fieldType}.resources of type []*unstructured.Unstructured` +
            (jsonKind(r.value!) === 'object' ? ' (an empty Lua table {} is an object: omit the field for no resources)' : ''),
        ),
      };
    }
    for (const [i, item] of r.value.entries()) {
      if (item === null || typeof item !== 'object' || Array.isArray(item)) {
        return { failure: failure('result', `resources[${i + 1}] is a ${jsonKind(item)}, not a Kubernetes object`) };
      }
      resources.push(item);
    }
  }
  let message = '';
  const s = pickField(v, 'message');
  if (s.present && s.value !== null) {
    if (typeof s.value !== 'string') {
      return { failure: failure('result', `json: cannot unmarshal ${jsonKind(s.value!)} into Go struct field ${fieldType}.message of type string`) };
    }
    message = s.value;
  }
  return { resources, message };
}

/** decodeCheckStatus is json.Unmarshal into sveltoscluster-manager's checkStatus {pass bool; message string}. */
export function decodeCheckStatus(v: JsonValue): { pass: boolean; message: string } | { failure: LuaFailure } {
  if (v === null || typeof v !== 'object' || Array.isArray(v)) {
    return { failure: failure('result', `json: cannot unmarshal ${jsonKind(v)} into Go value of type controllers.checkStatus`) };
  }
  let p = pickField(v, 'pass');
  if (!p.present) p = pickField(v, 'result');
  let pass = false;
  if (p.present && p.value !== null) {
    if (typeof p.value !== 'boolean') {
      return { failure: failure('result', `json: cannot unmarshal ${jsonKind(p.value!)} into Go struct field checkStatus.pass of type bool`) };
    }
    pass = p.value;
  }
  let message = '';
  const s = pickField(v, 'message');
  if (s.present && s.value !== null) {
    if (typeof s.value !== 'string') {
      return { failure: failure('result', `json: cannot unmarshal ${jsonKind(s.value!)} into Go struct field checkStatus.message of type string`) };
    }
    message = s.value;
  }
  return { pass, message };
}
