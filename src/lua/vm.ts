// vm: one Lua 5.4 state driven through the raw WebAssembly exports — strings, JS functions callable from Lua, a
// counting allocator with a cap, and an instruction budget enforced by our own count hook.
//
// Everything that crosses into Lua goes through here, so the rules that keep the shared WebAssembly module alive live
// here too: only protected calls (lua_pcallk) ever run Lua code — an unprotected error aborts the whole module — and a
// JS callback that catches exceptions always rethrows emscripten's longjmp (a thrown number), which is how Lua
// errors travel through JS frames in this build.
import { LUA_MASKCOUNT, LUA_REGISTRYINDEX, LuaStatus, LuaType, upvalueIndex } from './constants.js';
import type { LuaExports, LuaWasmModule } from './wasm.js';

/** LuaRaise is thrown by a JS function called from Lua to raise a Lua error with that message. */
export class LuaRaise extends Error {
  override readonly name = 'LuaRaise';
  /** withWhere prefixes the message with the calling Lua position (`<string>:LINE: `), like luaL_error. */
  constructor(
    message: string,
    readonly withWhere = true,
  ) {
    super(message);
  }
}

/** JsFunction is a function callable from Lua: it reads its arguments from the stack and returns how many results it pushed. */
export type JsFunction = (vm: LuaVM, nargs: number) => number;

/** AbortKind says why the VM stopped a script on its own: the instruction budget or the memory cap. */
export type AbortKind = 'instructions' | 'memory';

const SCRATCH_BYTES = 1 << 16;
const HOOK_INTERVAL = 1000;
const encoder = new TextEncoder();
const decoder = new TextDecoder('utf-8');

/** LuaVM owns one lua_State and the JS glue around it. */
export class LuaVM {
  readonly x: LuaExports;
  readonly L: number;
  private heap: Uint8Array;
  private readonly scratch: number;
  private readonly fns: JsFunction[] = [];
  private readonly pointers: number[] = [];
  private memUsed = 0;
  private memLimit = Number.POSITIVE_INFINITY;
  private ticksLeft = Number.POSITIVE_INFINITY;
  /** aborted is set when the budget or the memory cap stopped the current run; cleared by beginRun. */
  aborted: AbortKind | undefined;
  private closed = false;

  private constructor(
    private readonly wasm: LuaWasmModule,
    memoryLimitBytes: number,
  ) {
    this.x = wasm.x;
    this.heap = new Uint8Array(this.x.memory.buffer);
    this.memLimit = memoryLimitBytes;
    const x = this.x;
    // Go: n/a — the allocator mirrors lauxlib's l_alloc plus a byte count, refusing growth past the cap.
    const alloc = wasm.addFunction(((_ud: number, ptr: number, osize: number, nsize: number): number => {
      if (nsize === 0) {
        if (ptr !== 0) {
          this.memUsed -= osize;
          x.free(ptr);
        }
        return 0;
      }
      const delta = ptr !== 0 ? nsize - osize : nsize;
      if (delta > 0 && this.memUsed + delta > this.memLimit) {
        this.aborted ??= 'memory';
        return 0;
      }
      const p = x.realloc(ptr, nsize);
      if (p !== 0) this.memUsed += delta;
      return p;
    }) as (...a: never[]) => unknown, 'iiiii');
    this.pointers.push(alloc);
    const L = x.lua_newstate(alloc, 0);
    if (L === 0) throw new Error('lua: lua_newstate failed (out of memory)');
    this.L = L;
    this.scratch = x.malloc(SCRATCH_BYTES);
    const dispatch = wasm.addFunction(((L: number): number => this.dispatch(L)) as (...a: never[]) => unknown, 'ii');
    this.pointers.push(dispatch);
    this.dispatchPtr = dispatch;
    const hook = wasm.addFunction(((L: number): void => this.hook(L)) as (...a: never[]) => unknown, 'vii');
    this.pointers.push(hook);
    this.hookPtr = hook;
    x.lua_sethook(L, hook, LUA_MASKCOUNT, HOOK_INTERVAL);
  }
  private readonly dispatchPtr: number;
  private readonly hookPtr: number;
  private fastHook = false;

  /** create makes a fresh state with no libraries opened. */
  static create(wasm: LuaWasmModule, memoryLimitBytes: number): LuaVM {
    return new LuaVM(wasm, memoryLimitBytes);
  }

  /** memoryUsed is the number of bytes the Lua heap currently holds. */
  get memoryUsed(): number {
    return this.memUsed;
  }

  /** setMemoryLimit changes the cap on the Lua heap (bytes). */
  setMemoryLimit(bytes: number): void {
    this.memLimit = bytes;
  }

  /** beginRun arms the instruction budget for one run and clears the abort flag. */
  beginRun(instructionLimit: number): void {
    if (this.fastHook) {
      this.x.lua_sethook(this.L, this.hookPtr, LUA_MASKCOUNT, HOOK_INTERVAL);
      this.fastHook = false;
    }
    this.aborted = undefined;
    this.ticksLeft = Math.max(1, Math.ceil(instructionLimit / HOOK_INTERVAL));
  }

  /** endRun disarms the budget so that host-side work between runs is never interrupted. */
  endRun(): void {
    this.ticksLeft = Number.POSITIVE_INFINITY;
  }

  private hook(L: number): void {
    if (--this.ticksLeft > 0) return;
    // From now on fail at every instruction of this thread: a script that catches the error with pcall meets it again
    // at the first instruction after the pcall, so the error unwinds level by level until it leaves the script.
    this.ticksLeft = 1;
    this.x.lua_sethook(L, this.hookPtr, LUA_MASKCOUNT, 1);
    this.fastHook = true;
    this.aborted ??= 'instructions';
    this.x.luaL_where(L, 0);
    this.pushString('instruction budget exceeded');
    this.x.lua_concat(L, 2);
    this.x.lua_error(L);
  }

  private dispatch(L: number): number {
    const id = Number(this.x.lua_tointegerx(L, upvalueIndex(1), 0));
    const fn = this.fns[id];
    let message: string;
    let withWhere = true;
    try {
      return fn(this, this.x.lua_gettop(L));
    } catch (err) {
      if (typeof err === 'number') throw err; // a Lua error (longjmp) travelling through this frame
      if (err instanceof LuaRaise) {
        message = err.message;
        withWhere = err.withWhere;
      } else {
        message = err instanceof Error ? err.message : String(err);
      }
    }
    if (withWhere) {
      this.x.luaL_where(L, 1);
      this.pushString(message);
      this.x.lua_concat(L, 2);
    } else {
      this.pushString(message);
    }
    return this.x.lua_error(L);
  }

  /** registerFunction keeps fn callable from Lua and returns its id for pushFunction. */
  registerFunction(fn: JsFunction): number {
    this.fns.push(fn);
    return this.fns.length - 1;
  }

  /** pushFunction pushes a Lua C closure that calls the JS function registered under id. */
  pushFunction(id: number): void {
    this.x.lua_pushinteger(this.L, BigInt(id));
    this.x.lua_pushcclosure(this.L, this.dispatchPtr, 1);
  }

  /** pushNewFunction registers fn and pushes it. */
  pushNewFunction(fn: JsFunction): void {
    this.pushFunction(this.registerFunction(fn));
  }

  /** bytes returns a view of the WebAssembly memory, refreshed after memory growth detached the old one. */
  bytes(): Uint8Array {
    // Growing WebAssembly memory detaches the old ArrayBuffer, which makes old views zero-length; checking that is
    // much cheaper than reading memory.buffer on every call.
    if (this.heap.byteLength === 0) this.heap = new Uint8Array(this.x.memory.buffer);
    return this.heap;
  }

  /** pushString pushes a JS string as a UTF-8 Lua string. */
  pushString(s: string): void {
    const n = s.length;
    const heap = this.bytes();
    const base = this.scratch;
    if (n <= 256) {
      // ASCII fast path: most keys and values are short ASCII, and a byte loop beats encodeInto's call overhead.
      let i = 0;
      for (; i < n; i++) {
        const c = s.charCodeAt(i);
        if (c >= 0x80) break;
        heap[base + i] = c;
      }
      if (i === n) {
        this.x.lua_pushlstring(this.L, base, n);
        return;
      }
    }
    if (n * 3 <= SCRATCH_BYTES) {
      const { written } = encoder.encodeInto(s, heap.subarray(base, base + SCRATCH_BYTES));
      this.x.lua_pushlstring(this.L, base, written);
      return;
    }
    const data = encoder.encode(s);
    const p = this.x.malloc(data.length + 1);
    if (p === 0) throw new LuaRaise('not enough memory');
    this.bytes().set(data, p);
    this.x.lua_pushlstring(this.L, p, data.length);
    this.x.free(p);
  }

  /** pushBytes pushes raw bytes as a Lua string (Lua strings are byte strings). */
  pushBytes(data: Uint8Array): void {
    const p = this.x.malloc(data.length + 1);
    if (p === 0) throw new LuaRaise('not enough memory');
    this.bytes().set(data, p);
    this.x.lua_pushlstring(this.L, p, data.length);
    this.x.free(p);
  }

  /** toBytes returns the bytes of the string (or number) at idx, or undefined for other types. */
  toBytes(idx: number): Uint8Array | undefined {
    const t = this.x.lua_type(this.L, idx);
    if (t !== LuaType.String && t !== LuaType.Number) return undefined;
    if (t === LuaType.Number) return encoder.encode(this.numberToLuaString(idx));
    const p = this.x.lua_tolstring(this.L, idx, this.scratch);
    const heap = this.bytes();
    const len = new Uint32Array(heap.buffer, this.scratch, 1)[0];
    return heap.slice(p, p + len);
  }

  /** readString decodes the Lua string at idx (which must be a string) as UTF-8. */
  readString(idx: number): string {
    const p = this.x.lua_tolstring(this.L, idx, this.scratch);
    const heap = this.bytes();
    const len = heap[this.scratch] | (heap[this.scratch + 1] << 8) | (heap[this.scratch + 2] << 16) | (heap[this.scratch + 3] << 24);
    if (len <= 64) {
      let s = '';
      for (let i = 0; i < len; i++) {
        const c = heap[p + i];
        if (c >= 0x80) return decoder.decode(heap.subarray(p, p + len));
        s += String.fromCharCode(c);
      }
      return s;
    }
    return decoder.decode(heap.subarray(p, p + len));
  }

  /** toStringValue returns the string at idx, converting numbers the way Lua's tostring does; undefined otherwise. */
  toStringValue(idx: number): string | undefined {
    const t = this.x.lua_type(this.L, idx);
    if (t === LuaType.String) return this.readString(idx);
    if (t === LuaType.Number) return this.numberToLuaString(idx);
    return undefined;
  }

  /** numberToLuaString formats the number at idx as Lua 5.4 would (integers plainly, floats with %.14g). */
  numberToLuaString(idx: number): string {
    if (this.x.lua_isinteger(this.L, idx)) return this.x.lua_tointegerx(this.L, idx, 0).toString();
    const v = this.x.lua_tonumberx(this.L, idx, 0);
    return formatLuaFloat(v);
  }

  /** type is lua_type. */
  type(idx: number): number {
    return this.x.lua_type(this.L, idx);
  }

  /** top is lua_gettop. */
  top(): number {
    return this.x.lua_gettop(this.L);
  }

  /** setTop is lua_settop. */
  setTop(n: number): void {
    this.x.lua_settop(this.L, n);
  }

  /** pop removes n values. */
  pop(n = 1): void {
    this.x.lua_settop(this.L, -n - 1);
  }

  /** ref pops the top value into the registry and returns its reference. */
  ref(): number {
    return this.x.luaL_ref(this.L, LUA_REGISTRYINDEX);
  }

  /** pushRef pushes the registry value under ref. */
  pushRef(ref: number): void {
    this.x.lua_rawgeti(this.L, LUA_REGISTRYINDEX, BigInt(ref));
  }

  /** unref releases a registry reference. */
  unref(ref: number): void {
    this.x.luaL_unref(this.L, LUA_REGISTRYINDEX, ref);
  }

  /** setField pops the top value into table[key] (raw) for the table at idx (a negative idx counts before the value). */
  rawSetField(idx: number, key: string): void {
    const abs = this.x.lua_absindex(this.L, idx);
    this.pushString(key);
    this.x.lua_rotate(this.L, -2, 1);
    this.x.lua_rawset(this.L, abs);
  }

  /** rawGetField pushes table[key] (raw) for the table at idx and returns its type. */
  rawGetField(idx: number, key: string): number {
    const abs = this.x.lua_absindex(this.L, idx);
    this.pushString(key);
    return this.x.lua_rawget(this.L, abs);
  }

  /** load compiles source under chunkname; on success the function is on the stack, else the error message. */
  load(source: string, chunkname: string): number {
    const data = encoder.encode(source);
    const nameBytes = encoder.encode(chunkname + '\0');
    const p = this.x.malloc(data.length + nameBytes.length + 3);
    if (p === 0) throw new Error('lua: out of WebAssembly memory');
    const heap = this.bytes();
    heap.set(data, p);
    const nameP = p + data.length;
    heap.set(nameBytes, nameP);
    const modeP = nameP + nameBytes.length;
    heap[modeP] = 0x74; // "t": text chunks only, never precompiled bytecode
    heap[modeP + 1] = 0;
    try {
      return this.x.luaL_loadbufferx(this.L, p, data.length, nameP, modeP);
    } finally {
      this.x.free(p);
    }
  }

  /** pcall runs lua_pcallk with a message handler-free protected call and returns the status. */
  pcall(nargs: number, nresults: number): number {
    return this.x.lua_pcallk(this.L, nargs, nresults, 0, 0, 0);
  }

  /** errorMessage reads the error value on top of the stack as text (strings as-is, other values described). */
  errorMessage(idx = -1): string {
    const t = this.type(idx);
    if (t === LuaType.String || t === LuaType.Number) return this.toStringValue(idx) ?? '';
    if (t === LuaType.Nil) return 'nil';
    if (t === LuaType.Boolean) return this.x.lua_toboolean(this.L, idx) ? 'true' : 'false';
    return `(error object is a ${typeName(t)} value)`;
  }

  /** status names a lua status code. */
  static isOk(status: number): boolean {
    return status === LuaStatus.Ok;
  }

  /** close frees the state and the function-table slots; the VM cannot be used afterwards. */
  close(): void {
    if (this.closed) return;
    this.closed = true;
    this.x.lua_close(this.L);
    this.x.free(this.scratch);
    for (const p of this.pointers) this.wasm.removeFunction(p);
  }
}

/** typeName is lua_typename for the closed set of types. */
export function typeName(t: number): string {
  switch (t) {
    case LuaType.None:
      return 'no value';
    case LuaType.Nil:
      return 'nil';
    case LuaType.Boolean:
      return 'boolean';
    case LuaType.LightUserdata:
    case LuaType.Userdata:
      return 'userdata';
    case LuaType.Number:
      return 'number';
    case LuaType.String:
      return 'string';
    case LuaType.Table:
      return 'table';
    case LuaType.Function:
      return 'function';
    case LuaType.Thread:
      return 'thread';
    default:
      return 'unknown';
  }
}

/** formatLuaFloat formats a float like Lua 5.4's lua_Number2str ("%.14g", plus ".0" when it looks like an integer). */
export function formatLuaFloat(v: number): string {
  if (Number.isNaN(v)) return v > 0 ? 'nan' : '-nan';
  if (v === Number.POSITIVE_INFINITY) return 'inf';
  if (v === Number.NEGATIVE_INFINITY) return '-inf';
  let s = formatG(v, 14);
  if (/^-?\d+$/.test(s)) s += '.0';
  return s;
}

/** formatG is C's printf("%.{prec}g"). */
export function formatG(v: number, prec: number): string {
  if (v === 0) return Object.is(v, -0) ? '-0' : '0';
  const p = prec === 0 ? 1 : prec;
  // The exponent after rounding to p digits decides the style, as in C.
  const e = Number(v.toExponential(p - 1).split('e')[1]);
  if (e < -4 || e >= p) {
    let [mant, ex] = v.toExponential(p - 1).split('e');
    if (mant.includes('.')) mant = mant.replace(/0+$/, '').replace(/\.$/, '');
    const n = Number(ex);
    return `${mant}e${n < 0 ? '-' : '+'}${String(Math.abs(n)).padStart(2, '0')}`;
  }
  let s = v.toFixed(Math.max(0, p - 1 - e));
  if (s.includes('.')) s = s.replace(/0+$/, '').replace(/\.$/, '');
  return s;
}
