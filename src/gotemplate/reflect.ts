// reflect.ts: the slice of Go's reflect package the executor and fmt need, over the value model of value.ts:
// kinds, Go type names (%T), parsed parameter types of registered functions, assignability and zero values.
import { GO_TYPE, GoFloat32, GoInt, GoStruct, isGoFunc, isGoStringer, type GoFunc, type GoValue, type IntType } from './value.js';
import { compareStrings } from './utf8.js';

/** GoComplex is a Go complex128; only template literals such as `1i` produce it (the value model has no complex). */
export class GoComplex {
  constructor(
    readonly re: number,
    readonly im: number,
  ) {}
}

/** Kind is reflect.Kind, spelled as Go prints it. */
export type Kind =
  | 'invalid'
  | 'bool'
  | IntType
  | 'int64'
  | 'float32'
  | 'float64'
  | 'complex128'
  | 'string'
  | 'slice'
  | 'map'
  | 'struct'
  | 'func'
  | 'interface'
  | 'ptr';

/** kindOf returns the reflect.Kind of v (null, a nil interface, reports 'invalid' like reflect.ValueOf(nil)). */
export function kindOf(v: GoValue): Kind {
  switch (typeof v) {
    case 'string':
      return 'string';
    case 'number':
      return 'float64';
    case 'bigint':
      return 'int64';
    case 'boolean':
      return 'bool';
    case 'function':
      return 'func';
    case 'undefined':
      return 'invalid';
  }
  if (v === null) return 'invalid';
  if (Array.isArray(v)) return 'slice';
  if (v instanceof GoInt) return v.type;
  if (v instanceof GoFloat32) return 'float32';
  if (v instanceof Uint8Array) return 'slice';
  if (v instanceof GoStruct) return 'struct';
  if ((v as unknown) instanceof GoComplex) return 'complex128';
  if (isGoFunc(v)) return 'func';
  if (isGoStringer(v)) return 'struct';
  return 'map';
}

/** isIntKind reports whether k is a signed integer kind. */
export function isIntKind(k: Kind): boolean {
  return k === 'int' || k === 'int64' || k === 'int8' || k === 'int16' || k === 'int32';
}

/** isUintKind reports whether k is an unsigned integer kind. */
export function isUintKind(k: Kind): boolean {
  return k === 'uint' || k === 'uint8' || k === 'uint16' || k === 'uint32' || k === 'uint64' || k === 'uintptr';
}

/** funcTypeName is the Go type of a registered function, e.g. `func(string, ...interface {}) (string, error)`. */
export function funcTypeName(f: GoFunc): string {
  const params = [...f.params];
  if (f.variadic !== undefined) params.push('...' + f.variadic);
  const result = f.returnsError ? `(${f.result}, error)` : f.result;
  return `func(${params.join(', ')}) ${result}`;
}

/** goTypeOf is the Go type name of v as %T prints it; nil prints as `<nil>`. */
export function goTypeOf(v: GoValue): string {
  switch (typeof v) {
    case 'string':
      return 'string';
    case 'number':
      return 'float64';
    case 'bigint':
      return 'int64';
    case 'boolean':
      return 'bool';
    case 'function':
      return 'func(...interface {}) interface {}';
    case 'undefined':
      return '<nil>';
  }
  if (v === null) return '<nil>';
  if (Array.isArray(v)) return (v as unknown as Record<symbol, string>)[GO_TYPE] ?? '[]interface {}';
  if (v instanceof GoInt) return v.type;
  if (v instanceof GoFloat32) return 'float32';
  if (v instanceof Uint8Array) return '[]uint8';
  if (v instanceof GoStruct) return v.typeName;
  if ((v as unknown) instanceof GoComplex) return 'complex128';
  if (isGoFunc(v)) return funcTypeName(v);
  if (isGoStringer(v)) return v.goTypeName();
  return (v as Record<symbol, string>)[GO_TYPE] ?? 'map[string]interface {}';
}

/** elemTypeOf is the element type of a slice or map type name ('interface {}' for our untyped containers). */
export function elemTypeOf(typeName: string): string {
  if (typeName.startsWith('[]')) return typeName.slice(2);
  if (typeName.startsWith('map[')) {
    let depth = 0;
    for (let i = 3; i < typeName.length; i++) {
      const c = typeName[i];
      if (c === '[') depth++;
      else if (c === ']') {
        depth--;
        if (depth === 0) return typeName.slice(i + 1);
      }
    }
  }
  return 'interface {}';
}

/** containerElemIsInterface reports whether elements of v (a slice or map) are interface values, i.e. boxed. */
export function containerElemIsInterface(v: object): boolean {
  const t = (v as Record<symbol, string | undefined>)[GO_TYPE];
  if (t === undefined) return true;
  const e = elemTypeOf(t);
  return e === 'interface {}' || e === 'any';
}

// ---------------------------------------------------------------------------------------------------------------
// Parameter types of registered functions.

/** GoType is a parsed Go type name used for argument checking. */
export interface GoType {
  /** The canonical spelling, as Go prints it in errors. */
  readonly name: string;
  readonly kind: Kind | 'reflect.Value';
  /** For 'interface' kinds: the empty interface accepts every value. */
  readonly empty: boolean;
}

const typeCache = new Map<string, GoType>();

/** canonicalType rewrites `any` spellings to Go's printed form `interface {}`. */
function canonicalType(name: string): string {
  return name.replace(/\bany\b/g, 'interface {}').replace(/interface\{\}/g, 'interface {}');
}

/** parseGoType turns a Go type name from a GoFunc signature into a GoType (cached). */
export function parseGoType(raw: string): GoType {
  const hit = typeCache.get(raw);
  if (hit) return hit;
  const name = canonicalType(raw.trim());
  let kind: GoType['kind'];
  let empty = false;
  switch (name) {
    case 'interface {}':
      kind = 'interface';
      empty = true;
      break;
    case 'error':
    case 'fmt.Stringer':
      kind = 'interface';
      break;
    case 'reflect.Value':
      kind = 'reflect.Value';
      break;
    case 'bool':
    case 'string':
    case 'int':
    case 'int8':
    case 'int16':
    case 'int32':
    case 'int64':
    case 'uint':
    case 'uint8':
    case 'uint16':
    case 'uint32':
    case 'uint64':
    case 'uintptr':
    case 'float32':
    case 'float64':
    case 'complex128':
      kind = name;
      break;
    case 'byte':
      return parseGoType('uint8');
    case 'rune':
      return parseGoType('int32');
    default:
      if (name.startsWith('[]')) kind = 'slice';
      else if (name.startsWith('map[')) kind = 'map';
      else if (name.startsWith('func(')) kind = 'func';
      else if (name.startsWith('*')) kind = 'ptr';
      else kind = 'struct';
  }
  const t: GoType = { name, kind, empty };
  typeCache.set(raw, t);
  return t;
}

/** canBeNil is exec.go's canBeNil: whether an untyped nil can be assigned to the type. */
export function canBeNil(t: GoType): boolean {
  switch (t.kind) {
    case 'func':
    case 'interface':
    case 'map':
    case 'ptr':
    case 'slice':
    case 'reflect.Value':
      return true;
  }
  return false;
}

/** assignableTo is reflect's Type.AssignableTo for a concrete (non-nil) value. */
export function assignableTo(v: GoValue, t: GoType): boolean {
  if (t.empty) return true;
  switch (t.kind) {
    case 'string':
      return typeof v === 'string';
    case 'float64':
      return typeof v === 'number';
    case 'int64':
      return typeof v === 'bigint';
    case 'bool':
      return typeof v === 'boolean';
    case 'interface':
      // error and fmt.Stringer: values with a Go String()/Error() method.
      return isGoStringer(v);
    case 'reflect.Value':
      return true;
  }
  return goTypeOf(v) === t.name;
}

/** zeroValue is reflect.Zero(t) in our model (nil slices and maps become empty ones, typed like Go's). */
export function zeroValue(t: GoType): GoValue {
  switch (t.kind) {
    case 'string':
      return '';
    case 'bool':
      return false;
    case 'float64':
      return 0;
    case 'float32':
      return new GoFloat32(0);
    case 'int64':
      return 0n;
    case 'int':
    case 'int8':
    case 'int16':
    case 'int32':
    case 'uint':
    case 'uint8':
    case 'uint16':
    case 'uint32':
    case 'uint64':
    case 'uintptr':
      return new GoInt(t.kind, 0n);
    case 'complex128':
      return new GoComplex(0, 0) as unknown as GoValue;
    case 'slice':
      return t.name === '[]interface {}' ? [] : withType([], t.name);
    case 'map':
      return t.name === 'map[string]interface {}' ? {} : withType({}, t.name);
    case 'interface':
      return null;
    case 'reflect.Value':
      return undefined;
  }
  return null;
}

function withType<T extends object>(v: T, name: string): T {
  Object.defineProperty(v, GO_TYPE, { value: name, enumerable: false, configurable: true });
  return v;
}

/** wrapInt builds a Go integer of the given kind, truncating like a Go conversion does. */
export function wrapInt(kind: Kind, n: bigint): GoValue {
  switch (kind) {
    case 'int64':
      return BigInt.asIntN(64, n);
    case 'int':
      return new GoInt('int', BigInt.asIntN(64, n));
    case 'int8':
      return new GoInt('int8', BigInt.asIntN(8, n));
    case 'int16':
      return new GoInt('int16', BigInt.asIntN(16, n));
    case 'int32':
      return new GoInt('int32', BigInt.asIntN(32, n));
    case 'uint':
    case 'uint64':
    case 'uintptr':
      return new GoInt(kind, BigInt.asUintN(64, n));
    case 'uint8':
      return new GoInt('uint8', BigInt.asUintN(8, n));
    case 'uint16':
      return new GoInt('uint16', BigInt.asUintN(16, n));
    case 'uint32':
      return new GoInt('uint32', BigInt.asUintN(32, n));
  }
  throw new Error(`wrapInt: ${kind} is not an integer kind`);
}

/** sortedKeys returns a map's keys in Go's fmtsort order (byte-wise string order). */
export function sortedKeys(m: object): string[] {
  const keys = Object.keys(m);
  if (keys.length > 1) keys.sort(compareStrings);
  return keys;
}

/** mapGet reads a key of a Go map object: undefined (Go's invalid value) for a missing key, null for a nil value. */
export function mapGet(m: Record<string, GoValue>, key: string): GoValue {
  const v = m[key];
  if (v !== undefined && typeof v !== 'function' && key !== '__proto__') return v;
  if (!Object.prototype.hasOwnProperty.call(m, key)) return undefined;
  return v === undefined ? null : v;
}
