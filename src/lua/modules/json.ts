// json: the `json` Lua module (require("json")): decode, encode, fromYAML, toYAML.
// Go: projectsveltos/lua-utils glua-json/json.go — an empty table encodes as [], a table keyed 1..n is an array,
// a table keyed by strings an object, anything else an error; failures return nil plus the error text.
import { parse as parseYaml, stringify as stringifyYaml } from 'yaml';
import { LuaType } from '../constants.js';
import type { Converter, JsonValue } from '../convert.js';
import { checkString, type HelperTable } from '../helpers.js';
import { LuaRaise, type LuaVM } from '../vm.js';

const MARSHAL_PREFIX = 'json: error calling MarshalJSON for type json.jsonValue: ';

/** JsonModuleError is an encode failure with the nesting depth Go's error wrapping depends on. */
class EncodeError extends Error {
  constructor(
    message: string,
    readonly depth: number,
  ) {
    super(message);
  }
}

/** jsonModule returns the functions of the `json` module. */
export function jsonModule(conv: Converter): HelperTable {
  return {
    decode(vm) {
      const text = checkString(vm, 1, 'decode');
      let value: unknown;
      try {
        value = JSON.parse(text);
      } catch (err) {
        return pushNilErr(vm, goJsonSyntaxMessage(text, err));
      }
      conv.push(value);
      return 1;
    },
    encode(vm, nargs) {
      if (nargs < 1) throw new LuaRaise("bad argument #1 to 'encode' (value expected)");
      const r = encodeArg(vm, conv);
      if ('error' in r) return pushNilErr(vm, r.error);
      vm.pushString(r.text);
      return 1;
    },
    fromYAML(vm) {
      const text = checkString(vm, 1, 'fromYAML');
      let value: unknown;
      try {
        value = yamlToJson(text);
      } catch (err) {
        return pushNilErr(vm, `error converting YAML to JSON: ${(err as Error).message}`);
      }
      conv.push(value);
      return 1;
    },
    toYAML(vm, nargs) {
      if (nargs < 1) throw new LuaRaise("bad argument #1 to 'toYAML' (value expected)");
      const r = encodeArg(vm, conv);
      if ('error' in r) return pushNilErr(vm, r.error);
      vm.pushString(jsonToYaml(JSON.parse(r.text) as JsonValue));
      return 1;
    },
  };
}

function pushNilErr(vm: LuaVM, message: string): number {
  vm.x.lua_pushnil(vm.L);
  vm.pushString(message);
  return 2;
}

function encodeArg(vm: LuaVM, conv: Converter): { text: string } | { error: string } {
  try {
    return { text: goJsonEncode(readForEncode(vm, conv, 1, 0, new Set())) };
  } catch (err) {
    if (err instanceof EncodeError) return { error: MARSHAL_PREFIX.repeat(err.depth + 1) + err.message };
    throw err;
  }
}

/** EMPTY marks an empty Lua table, which lua-utils encodes as []. */
const EMPTY: unique symbol = Symbol('empty table');
type Encodable = JsonValue | typeof EMPTY | Encodable[] | { [k: string]: Encodable };

function readForEncode(vm: LuaVM, conv: Converter, idx: number, depth: number, visiting: Set<number>): Encodable {
  const x = vm.x;
  const L = vm.L;
  switch (x.lua_type(L, idx)) {
    case LuaType.Nil:
    case LuaType.None:
      return null;
    case LuaType.Boolean:
      return x.lua_toboolean(L, idx) !== 0;
    case LuaType.Number: {
      const n = x.lua_isinteger(L, idx) ? Number(x.lua_tointegerx(L, idx, 0)) : x.lua_tonumberx(L, idx, 0);
      if (!Number.isFinite(n)) throw new EncodeError(`json: unsupported value: ${Number.isNaN(n) ? 'NaN' : n > 0 ? '+Inf' : '-Inf'}`, depth);
      return n;
    }
    case LuaType.String:
      return vm.readString(idx);
    case LuaType.Table:
      break;
    default:
      throw new EncodeError(`cannot encode ${luaTypeWord(x.lua_type(L, idx))} to JSON`, depth);
  }
  const t = x.lua_absindex(L, idx);
  // Each level holds a key and a value on the Lua stack; the C API does not grow the stack on its own.
  if (depth > 200 || x.lua_checkstack(L, 4) === 0) throw new EncodeError('cannot encode recursively nested tables to JSON', depth);
  const view = conv.lazyView(t);
  if (view !== undefined) return view;
  const ptr = x.lua_topointer(L, t);
  if (visiting.has(ptr)) throw new EncodeError('cannot encode recursively nested tables to JSON', depth);
  visiting.add(ptr);
  const keys: (string | number)[] = [];
  const values: Encodable[] = [];
  let kind: 'number' | 'string' | undefined;
  x.lua_pushnil(L);
  try {
    while (x.lua_next(L, t) !== 0) {
      const kt = x.lua_type(L, -2);
      let k: string | number;
      if (kt === LuaType.Number) k = x.lua_isinteger(L, -2) ? Number(x.lua_tointegerx(L, -2, 0)) : x.lua_tonumberx(L, -2, 0);
      else if (kt === LuaType.String) k = vm.readString(-2);
      else throw new EncodeError('cannot encode mixed or invalid key types', depth);
      const thisKind = typeof k === 'number' ? 'number' : 'string';
      if (kind && kind !== thisKind) throw new EncodeError('cannot encode mixed or invalid key types', depth);
      kind = thisKind;
      keys.push(k);
      values.push(readForEncode(vm, conv, -1, depth + 1, visiting));
      x.lua_settop(L, -2);
    }
  } catch (err) {
    x.lua_settop(L, t);
    visiting.delete(ptr);
    throw err;
  }
  visiting.delete(ptr);
  if (kind === undefined) return EMPTY;
  if (kind === 'number') {
    // lua-utils walks the table with Next and wants keys 1, 2, 3... — any gap is a sparse array.
    const order = keys.map((k, i) => [k as number, i] as const).sort((a, b) => a[0] - b[0]);
    const out: Encodable[] = [];
    for (let i = 0; i < order.length; i++) {
      if (order[i][0] !== i + 1) throw new EncodeError('cannot encode sparse array', depth);
      out.push(values[order[i][1]]);
    }
    return out;
  }
  const obj: { [k: string]: Encodable } = {};
  keys.forEach((k, i) => (obj[k as string] = values[i]));
  return obj;
}

/** goJsonEncode is encoding/json.Marshal: sorted object keys, HTML-safe escapes, Go's float formatting. */
export function goJsonEncode(v: Encodable): string {
  if (v === EMPTY) return '[]';
  if (v === null) return 'null';
  switch (typeof v) {
    case 'boolean':
      return v ? 'true' : 'false';
    case 'number':
      return goJsonNumber(v);
    case 'string':
      return goJsonString(v);
    default:
      break;
  }
  if (Array.isArray(v)) return `[${v.map(goJsonEncode).join(',')}]`;
  const o = v as { [k: string]: Encodable };
  const keys = Object.keys(o).sort();
  if (keys.length === 0) return '[]';
  return `{${keys.map((k) => `${goJsonString(k)}:${goJsonEncode(o[k])}`).join(',')}}`;
}

/** goJsonNumber formats a float64 as encoding/json does (shortest digits, exponent below 1e-6 and from 1e21). */
export function goJsonNumber(n: number): string {
  if (Object.is(n, -0)) return '-0';
  // JavaScript's Number#toString switches to exponent form at the same thresholds and writes e-7 / e+21 like Go.
  return String(n);
}

/** goJsonString quotes s as encoding/json does, escaping <, >, & and U+2028/U+2029. */
export function goJsonString(s: string): string {
  return JSON.stringify(s).replace(/[<>&\u2028\u2029]/g, (c) => '\\u' + c.charCodeAt(0).toString(16).padStart(4, '0'));
}

function goJsonSyntaxMessage(text: string, err: unknown): string {
  if (text.trim() === '') return 'unexpected end of JSON input';
  const m = /position (\d+)/.exec((err as Error).message);
  if (m) {
    const pos = Number(m[1]);
    if (pos >= text.length) return 'unexpected end of JSON input';
    return `invalid character '${text[pos]}' (offset ${pos + 1})`;
  }
  return `invalid JSON: ${(err as Error).message}`;
}

/** yamlToJson is sigs.k8s.io/yaml YAMLToJSON (YAML 1.1 booleans, first document, keys as strings). */
export function yamlToJson(text: string): JsonValue {
  const v = parseYaml(text, { version: '1.1', schema: 'yaml-1.1', merge: true, uniqueKeys: false, maxAliasCount: 100 }) as unknown;
  return normalizeYaml(v);
}

function normalizeYaml(v: unknown): JsonValue {
  if (v === undefined || v === null) return null;
  if (v instanceof Date) return v.toISOString();
  if (Array.isArray(v)) return v.map(normalizeYaml);
  if (v instanceof Map) {
    const out: Record<string, JsonValue> = {};
    for (const [k, e] of v) out[String(k)] = normalizeYaml(e);
    return out;
  }
  if (typeof v === 'object') {
    const out: Record<string, JsonValue> = {};
    for (const [k, e] of Object.entries(v as Record<string, unknown>)) out[k] = normalizeYaml(e);
    return out;
  }
  if (typeof v === 'bigint') return Number(v);
  return v as JsonValue;
}

/** jsonToYaml is sigs.k8s.io/yaml JSONToYAML: yaml.v2 output (sorted keys, 2-space indent, unindented sequences). */
export function jsonToYaml(v: JsonValue): string {
  return stringifyYaml(v, { sortMapEntries: true, indentSeq: false, lineWidth: 0, version: '1.1' });
}

function luaTypeWord(t: number): string {
  switch (t) {
    case LuaType.Function:
      return 'function';
    case LuaType.Thread:
      return 'thread';
    default:
      return 'userdata';
  }
}
