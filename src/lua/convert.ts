// convert: JSON values into Lua tables (lazily, one level at a time) and Lua values back into JSON.
//
// Why lazy: a script reads a handful of fields of a 3 KB object. A nested object or array becomes an empty Lua table
// carrying a hidden id and a shared metatable; the first read, write, length, pairs or next on it fills in that one
// level (nested values become lazy tables in turn) and drops the metatable, so later access is plain table access.
// Every evaluation gets its own tables, so a script that mutates `obj` can never be seen by another evaluation, and
// only the levels a script touches are ever converted.
//
// Conversion rules (Go: libsveltos lib/lua/methods.go MapToTable), with our deliberate differences:
//  - null / undefined object fields are dropped (absent), as in Sveltos;
//  - null array elements are dropped and the array is compacted, as in Sveltos;
//  - integers stay in arrays and nested arrays are kept (Sveltos silently drops both — see testdata/lua/DIFFERENCES.md);
//  - integral numbers within ±2^53 become Lua integers (443 == 443 and prints "443"), others Lua floats;
//  - metadata.managedFields of the root object is never converted (absent to scripts).
import { LUA_REGISTRYINDEX, LuaType } from './constants.js';
import { LuaRaise, type LuaVM } from './vm.js';

/** LAZY_KEY is the light-userdata key under which an unconverted table keeps its id (scripts cannot forge it). */
const LAZY_KEY = 1;

/** JsonValue is any value JSON.parse can produce. */
export type JsonValue = null | boolean | number | string | JsonValue[] | { [k: string]: JsonValue };

/** LuaConversionError reports a Lua value that has no JSON form (a function, a cycle, NaN...). */
export class LuaConversionError extends Error {
  override readonly name = 'LuaConversionError';
}

const MAX_DEPTH = 200;

/** Converter pushes JS values as lazy Lua tables and reads Lua values back; one per LuaVM. */
export class Converter {
  private values: unknown[] = [];
  private flags: number[] = [];
  /** done[id] lists the keys of object node id already converted one by one (or written by the script). */
  private done: (Set<string> | undefined)[] = [];
  /** roots maps the table address of each object passed with pushLazyRoot to the object, for handing it back whole. */
  private roots = new Map<number, Record<string, unknown>>();
  private pinned = false;
  private pinRef = 0n;
  private readonly metaRef: number;
  private metaRefBig = 0n;
  private readonly sentinelRef: number;

  constructor(private readonly vm: LuaVM) {
    const x = vm.x;
    const L = vm.L;
    // The sentinel is what getmetatable() reports for a lazy table; the Lua shims compare against it.
    x.lua_createtable(L, 0, 0);
    this.sentinelRef = vm.ref();
    x.lua_createtable(L, 0, 6);
    vm.pushNewFunction((v) => {
      v.x.lua_settop(v.L, 2);
      if (!this.fetchKey()) {
        this.materialize(1);
        v.x.lua_rawget(v.L, 1);
      }
      return 1;
    });
    vm.rawSetField(-2, '__index');
    vm.pushNewFunction((v) => {
      v.x.lua_settop(v.L, 3);
      if (!this.claimKey()) this.materialize(1);
      v.x.lua_rawset(v.L, 1);
      return 0;
    });
    vm.rawSetField(-2, '__newindex');
    vm.pushNewFunction((v) => {
      this.materialize(1);
      v.x.lua_pushinteger(v.L, BigInt(v.x.lua_rawlen(v.L, 1)));
      return 1;
    });
    vm.rawSetField(-2, '__len');
    vm.pushNewFunction((v) => {
      this.materialize(1);
      // Returns next, t, nil — with the host state's own `next` (the table is ordinary now).
      v.x.lua_settop(v.L, 1);
      v.x.lua_rawgeti(v.L, LUA_REGISTRYINDEX, 2n);
      v.rawGetField(-1, 'next');
      v.x.lua_copy(v.L, -1, 2);
      v.x.lua_settop(v.L, 2);
      v.x.lua_pushvalue(v.L, 1);
      v.x.lua_pushnil(v.L);
      return 3;
    });
    vm.rawSetField(-2, '__pairs');
    vm.pushRef(this.sentinelRef);
    vm.rawSetField(-2, '__metatable');
    this.metaRef = vm.ref();
    this.metaRefBig = BigInt(this.metaRef);
    x.lua_pushboolean(L, 0); // a placeholder: luaL_ref does not store nil
    this.pinRef = BigInt(vm.ref());
  }

  /** pin keeps the value at idx alive until reset (so that the addresses of the roots it holds stay unique). */
  pin(idx: number): void {
    const x = this.vm.x;
    x.lua_pushvalue(this.vm.L, idx);
    x.lua_rawseti(this.vm.L, LUA_REGISTRYINDEX, this.pinRef);
    this.pinned = true;
  }

  /** pushSentinel pushes the value getmetatable() returns for a lazy table. */
  pushSentinel(): void {
    this.vm.pushRef(this.sentinelRef);
  }

  /** reset forgets every lazy table handed out since the last reset (call after each run). */
  reset(): void {
    if (this.values.length > 0) {
      this.values = [];
      this.flags = [];
      this.done = [];
    }
    if (this.roots.size > 0) this.roots = new Map();
    if (this.pinned) {
      this.pinned = false;
      this.vm.x.lua_pushboolean(this.vm.L, 0);
      this.vm.x.lua_rawseti(this.vm.L, LUA_REGISTRYINDEX, this.pinRef);
    }
  }

  /** pushRoot pushes a Kubernetes object: its first level converted now, everything below lazily. */
  pushRoot(obj: Record<string, unknown>): void {
    this.fillObject(obj, FLAG_ROOT, true);
  }

  /** pushLazyRoot pushes a Kubernetes object without converting anything until a script touches it. */
  pushLazyRoot(obj: Record<string, unknown>): void {
    this.pushLazy(obj, FLAG_ROOT);
    this.roots.set(this.vm.x.lua_topointer(this.vm.L, -1), obj);
  }

  /** push pushes any JSON value (objects and arrays lazily). */
  push(v: unknown): void {
    const x = this.vm.x;
    const L = this.vm.L;
    switch (typeof v) {
      case 'string':
        this.vm.pushString(v);
        return;
      case 'number':
        if (Number.isInteger(v) && v <= Number.MAX_SAFE_INTEGER && v >= -Number.MAX_SAFE_INTEGER) x.lua_pushinteger(L, BigInt(v));
        else x.lua_pushnumber(L, v);
        return;
      case 'boolean':
        x.lua_pushboolean(L, v ? 1 : 0);
        return;
      case 'bigint':
        x.lua_pushinteger(L, BigInt.asIntN(64, v));
        return;
      case 'object':
        if (v === null) break;
        this.pushLazy(v, 0);
        return;
      default:
        break;
    }
    x.lua_pushnil(L);
  }

  private pushLazy(v: object, flags: number): void {
    const x = this.vm.x;
    const L = this.vm.L;
    // Count fields (to size the table once) and see whether this is a small flat value — a port, a label map, a
    // condition — which is cheaper to convert at once than to set up lazily and convert on first touch.
    let n = 0;
    let flat = flags === 0;
    if (Array.isArray(v)) {
      n = v.length;
      if (flat && n <= EAGER_MAX_FIELDS) for (let i = 0; i < n && flat; i++) flat = isSmallScalar(v[i]);
    } else {
      for (const k in v as Record<string, unknown>) {
        n++;
        if (flat) flat = n <= EAGER_MAX_FIELDS && isSmallScalar((v as Record<string, unknown>)[k]);
      }
    }
    const isArray = Array.isArray(v);
    if (n === 0 || flat) {
      x.lua_createtable(L, isArray ? n : 0, isArray ? 0 : n);
      if (n === 0) return;
      if (isArray) this.fillArray(v as unknown[]);
      else this.fillObject(v as Record<string, unknown>, 0, false);
      return;
    }
    x.lua_createtable(L, isArray ? n : 0, isArray ? 1 : n + 1);
    const id = this.values.length;
    this.values.push(v);
    this.flags.push(flags);
    this.done.push(undefined);
    x.lua_pushinteger(L, BigInt(id));
    x.lua_rawsetp(L, -2, LAZY_KEY);
    x.lua_rawgeti(L, LUA_REGISTRYINDEX, this.metaRefBig);
    x.lua_setmetatable(L, -2);
  }

  /** luaView returns what the (possibly lazy) table at idx holds as plain JSON, without converting it; undefined for
   * an ordinary table. The view drops what scripts never see (nulls, the root's metadata.managedFields). */
  lazyView(idx: number): JsonValue | undefined {
    const x = this.vm.x;
    const L = this.vm.L;
    if (x.lua_rawgetp(L, idx, LAZY_KEY) !== LuaType.Number) {
      x.lua_settop(L, -2);
      return undefined;
    }
    const id = Number(x.lua_tointegerx(L, -1, 0));
    x.lua_settop(L, -2);
    if (this.done[id] !== undefined) {
      // Partly converted: the script may have changed converted keys, so the table itself is the truth.
      this.materialize(idx);
      return undefined;
    }
    return luaView(this.values[id], this.flags[id]);
  }

  /** lazyValue returns the original JS value behind a still-unconverted table at idx, or undefined. */
  lazyValue(idx: number): unknown {
    const x = this.vm.x;
    const L = this.vm.L;
    if (x.lua_rawgetp(L, idx, LAZY_KEY) !== LuaType.Number) {
      x.lua_settop(L, -2);
      return undefined;
    }
    const id = Number(x.lua_tointegerx(L, -1, 0));
    x.lua_settop(L, -2);
    if (this.done[id] !== undefined) {
      this.materialize(idx);
      return undefined;
    }
    return this.values[id];
  }

  /** materialize converts one level of the lazy table at idx in place (a no-op for ordinary tables). */
  materialize(idx: number): void {
    const x = this.vm.x;
    const L = this.vm.L;
    const t = x.lua_absindex(L, idx);
    if (x.lua_rawgetp(L, t, LAZY_KEY) !== LuaType.Number) {
      x.lua_settop(L, -2);
      return;
    }
    const id = Number(x.lua_tointegerx(L, -1, 0));
    x.lua_settop(L, -2);
    const v = this.values[id];
    if (v === undefined) throw new LuaRaise('internal error: a converted object outlived its evaluation');
    x.lua_pushnil(L);
    x.lua_setmetatable(L, t);
    x.lua_pushnil(L);
    x.lua_rawsetp(L, t, LAZY_KEY);
    x.lua_pushvalue(L, t);
    if (Array.isArray(v)) this.fillArray(v);
    else this.fillObject(v as Record<string, unknown>, this.flags[id], false, this.done[id]);
    x.lua_settop(L, -2);
  }

  // nodeId returns the id of the lazy object node at stack index 1 (the metamethod's table), or -1.
  private objectNodeId(): number {
    const x = this.vm.x;
    const L = this.vm.L;
    if (x.lua_rawgetp(L, 1, LAZY_KEY) !== LuaType.Number) {
      x.lua_settop(L, -2);
      return -1;
    }
    const id = Number(x.lua_tointegerx(L, -1, 0));
    x.lua_settop(L, -2);
    return Array.isArray(this.values[id]) ? -1 : id;
  }

  // fetchKey serves t[k] (t at 1, k at 2) for a lazy object by converting only that field; it pushes the value and
  // returns true, or returns false (nothing pushed) when the whole level must be converted (arrays, odd keys).
  private fetchKey(): boolean {
    const x = this.vm.x;
    const L = this.vm.L;
    if (x.lua_type(L, 2) !== LuaType.String) return false;
    const id = this.objectNodeId();
    if (id < 0) return false;
    const key = this.vm.readString(2);
    const obj = this.values[id] as Record<string, unknown>;
    const done = this.done[id] ?? (this.done[id] = new Set());
    const e = Object.hasOwn(obj, key) && !done.has(key) ? obj[key] : undefined;
    if (e === null || e === undefined || (this.flags[id] & FLAG_METADATA && key === 'managedFields')) {
      x.lua_pushnil(L);
      return true;
    }
    done.add(key);
    if (typeof e === 'object') this.pushLazy(e, this.flags[id] & FLAG_ROOT && key === 'metadata' ? FLAG_METADATA : 0);
    else this.push(e);
    x.lua_pushvalue(L, 2);
    x.lua_pushvalue(L, -2);
    x.lua_rawset(L, 1);
    return true;
  }

  // claimKey records that the script writes t[k] (t at 1, k at 2) on a lazy object, so that converting the level
  // later never overwrites the script's value; false when the whole level must be converted first.
  private claimKey(): boolean {
    const x = this.vm.x;
    const L = this.vm.L;
    if (x.lua_type(L, 2) !== LuaType.String) return false;
    const id = this.objectNodeId();
    if (id < 0) return false;
    (this.done[id] ??= new Set()).add(this.vm.readString(2));
    return true;
  }

  private fillArray(arr: unknown[]): void {
    const x = this.vm.x;
    const L = this.vm.L;
    let j = 0;
    for (let i = 0; i < arr.length; i++) {
      const e = arr[i];
      if (e === null || e === undefined) continue;
      this.push(e);
      x.lua_rawseti(L, -2, BigInt(++j));
    }
  }

  // fillObject sets every field of obj into the table on top of the stack, or into a new table when create is set.
  private fillObject(obj: Record<string, unknown>, flags: number, create: boolean, skip?: ReadonlySet<string>): void {
    const x = this.vm.x;
    const L = this.vm.L;
    if (create) x.lua_createtable(L, 0, 8);
    for (const k in obj) {
      const e = obj[k];
      if (e === null || e === undefined) continue;
      if (skip !== undefined && skip.has(k)) continue;
      if (flags & FLAG_METADATA && k === 'managedFields') continue;
      this.vm.pushString(k);
      if (typeof e === 'object') this.pushLazy(e, flags & FLAG_ROOT && k === 'metadata' ? FLAG_METADATA : 0);
      else this.push(e);
      x.lua_rawset(L, -3);
    }
  }

  /** toJson reads the Lua value at idx as JSON (Go: gopher-lua ToGoValue + json.Marshal). */
  toJson(idx: number, depth = 0): JsonValue {
    const vm = this.vm;
    const x = vm.x;
    const L = vm.L;
    switch (x.lua_type(L, idx)) {
      case LuaType.None:
      case LuaType.Nil:
        return null;
      case LuaType.Boolean:
        return x.lua_toboolean(L, idx) !== 0;
      case LuaType.Number: {
        const n = x.lua_isinteger(L, idx) ? Number(x.lua_tointegerx(L, idx, 0)) : x.lua_tonumberx(L, idx, 0);
        if (!Number.isFinite(n)) throw new LuaConversionError(`json: unsupported value: ${formatNonFinite(n)}`);
        return n;
      }
      case LuaType.String:
        return vm.readString(idx);
      case LuaType.Table:
        return this.tableToJson(x.lua_absindex(L, idx), depth);
      default:
        throw new LuaConversionError(`json: unsupported type: a Lua ${luaTypeWord(x.lua_type(L, idx))} has no JSON form`);
    }
  }

  private tableToJson(t: number, depth: number): JsonValue {
    const vm = this.vm;
    const x = vm.x;
    const L = vm.L;
    // Each level holds a key and a value on the Lua stack; the C API does not grow the stack on its own.
    if (depth > MAX_DEPTH || x.lua_checkstack(L, 4) === 0) throw new LuaConversionError('json: nesting too deep (a table that contains itself?)');
    // An object handed in with pushLazyRoot comes back as itself, whole (fields scripts never see included).
    if (this.roots.size > 0) {
      const root = this.roots.get(x.lua_topointer(L, t));
      if (root !== undefined) return root as JsonValue;
    }
    const lazy = this.lazyValue(t);
    if (lazy !== undefined) return stripNulls(lazy) as JsonValue;
    // Go: gopher-lua ToGoValue — a table whose array border is 0 is an object, else an array 1..n (holes are null).
    const n = x.lua_rawlen(L, t);
    if (n > 0) {
      const out: JsonValue[] = new Array(n);
      for (let i = 1; i <= n; i++) {
        x.lua_rawgeti(L, t, BigInt(i));
        out[i - 1] = this.toJson(-1, depth + 1);
        x.lua_settop(L, -2);
      }
      return out;
    }
    const out: Record<string, JsonValue> = {};
    const top = x.lua_gettop(L);
    x.lua_pushnil(L);
    try {
      while (x.lua_next(L, t) !== 0) {
        let key: string;
        switch (x.lua_type(L, -2)) {
          case LuaType.String:
            key = vm.readString(-2);
            break;
          case LuaType.Number:
            key = x.lua_isinteger(L, -2) ? x.lua_tointegerx(L, -2, 0).toString() : String(x.lua_tonumberx(L, -2, 0));
            break;
          case LuaType.Boolean:
            key = x.lua_toboolean(L, -2) ? 'true' : 'false';
            break;
          default:
            throw new LuaConversionError(`json: unsupported map key type: a Lua ${luaTypeWord(x.lua_type(L, -2))}`);
        }
        out[key] = this.toJson(-1, depth + 1);
        x.lua_settop(L, -2);
      }
    } catch (err) {
      // Restore this level's stack (key and value of the interrupted traversal) before the error travels up.
      x.lua_settop(L, top);
      throw err;
    }
    return out;
  }
}

const FLAG_ROOT = 1;
const FLAG_METADATA = 2;
/** EAGER_MAX_FIELDS and EAGER_MAX_STRING bound the "small flat value" converted eagerly instead of lazily. */
const EAGER_MAX_FIELDS = 8;
const EAGER_MAX_STRING = 64;

function isSmallScalar(e: unknown): boolean {
  switch (typeof e) {
    case 'number':
    case 'boolean':
    case 'undefined':
      return true;
    case 'string':
      return e.length <= EAGER_MAX_STRING;
    default:
      return e === null;
  }
}

// stripNulls returns the JSON a lazy (never touched) table stands for: the original value minus the nulls the Lua
// view never had. managedFields stay: an object handed back whole (aggregatedSelection) keeps every field it had.
function stripNulls(v: unknown): unknown {
  if (v === null || typeof v !== 'object') return v;
  if (Array.isArray(v)) return v.filter((e) => e !== null && e !== undefined).map(stripNulls);
  const out: Record<string, unknown> = {};
  for (const k in v as Record<string, unknown>) {
    const e = (v as Record<string, unknown>)[k];
    if (e === null || e === undefined) continue;
    out[k] = stripNulls(e);
  }
  return out;
}

function formatNonFinite(n: number): string {
  if (Number.isNaN(n)) return 'NaN';
  return n > 0 ? '+Inf' : '-Inf';
}

function luaTypeWord(t: number): string {
  switch (t) {
    case LuaType.Function:
      return 'function';
    case LuaType.Userdata:
    case LuaType.LightUserdata:
      return 'userdata';
    case LuaType.Thread:
      return 'thread';
    case LuaType.Table:
      return 'table';
    default:
      return 'value';
  }
}

/** luaView is the JSON a script sees for a value converted with the given flags (nulls and managedFields dropped). */
export function luaView(v: unknown, flags = 0): JsonValue {
  if (v === null || v === undefined) return null;
  if (typeof v !== 'object') return v as JsonValue;
  if (Array.isArray(v)) {
    const out: JsonValue[] = [];
    for (const e of v) if (e !== null && e !== undefined) out.push(luaView(e));
    return out;
  }
  const out: Record<string, JsonValue> = {};
  for (const k in v as Record<string, unknown>) {
    const e = (v as Record<string, unknown>)[k];
    if (e === null || e === undefined) continue;
    if (flags & FLAG_METADATA && k === 'managedFields') continue;
    out[k] = luaView(e, flags & FLAG_ROOT && k === 'metadata' ? FLAG_METADATA : 0);
  }
  return out;
}
