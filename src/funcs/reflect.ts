// reflect.ts: the parts of Go's reflect package Sprig leans on — Kind, IsNil/Len/zero checks (`empty`),
// DeepEqual, and walking any slice — expressed over the value model of ../gotemplate/value.ts.
import {
  GO_TYPE,
  GoFloat32,
  GoInt,
  GoStruct,
  goTypeOf,
  isGoFunc,
  isGoMap,
  isGoStringer,
  withGoType,
  type GoMap,
  type GoValue,
} from '../gotemplate/index.js';

/** GoKindOf is implemented by Stringer-like values whose reflect.Kind is not `struct` (e.g. `ptr` for *semver.Version). */
export interface GoKinded {
  goKind(): string;
}

/** kindOf is reflect.ValueOf(v).Kind().String(). */
export function kindOf(v: GoValue): string {
  if (v === null || v === undefined) return 'invalid';
  switch (typeof v) {
    case 'string':
      return 'string';
    case 'boolean':
      return 'bool';
    case 'bigint':
      return 'int64';
    case 'number':
      return 'float64';
    case 'function':
      return 'func';
  }
  if (v instanceof GoInt) return v.type;
  if (v instanceof GoFloat32) return 'float32';
  if (v instanceof Uint8Array || Array.isArray(v)) return 'slice';
  if (v instanceof GoStruct) return 'struct';
  if (isGoFunc(v)) return 'func';
  if (typeof (v as Partial<GoKinded>).goKind === 'function') return (v as unknown as GoKinded).goKind();
  if (isGoStringer(v)) return 'struct';
  if (isGoMap(v)) return 'map';
  return 'invalid';
}

/** isList is true for the values reflect reports as Slice or Array. */
export function isList(v: GoValue): v is GoValue[] | Uint8Array {
  return Array.isArray(v) || v instanceof Uint8Array;
}

/** listItems returns the elements of a slice as interface values ([]byte elements become uint8). */
export function listItems(v: GoValue[] | Uint8Array): GoValue[] {
  if (v instanceof Uint8Array) return Array.from(v, (b) => new GoInt('uint8', BigInt(b)));
  return v;
}

/** empty is Sprig's `empty`: nil, zero numbers, false, and zero-length strings, slices and maps. Go: defaults.go */
export function empty(v: GoValue): boolean {
  if (v === null || v === undefined) return true;
  switch (typeof v) {
    case 'string':
      return v.length === 0;
    case 'boolean':
      return !v;
    case 'bigint':
      return v === 0n;
    case 'number':
      return v === 0;
    case 'function':
      return false;
  }
  if (v instanceof GoInt) return v.value === 0n;
  if (v instanceof GoFloat32) return v.value === 0;
  if (v instanceof Uint8Array || Array.isArray(v)) return v.length === 0;
  if (v instanceof GoStruct) return false;
  if (isGoFunc(v) || isGoStringer(v)) return false;
  if (isGoMap(v)) return Object.keys(v).length === 0;
  return false;
}

/** deepEqual is reflect.DeepEqual for interface values: identical dynamic types and deeply equal contents. */
export function deepEqual(a: GoValue, b: GoValue): boolean {
  if (a === undefined) a = null;
  if (b === undefined) b = null;
  if (a === null || b === null) return a === b;
  if (goTypeOf(a) !== goTypeOf(b)) return false;
  switch (typeof a) {
    case 'string':
    case 'boolean':
    case 'bigint':
      return a === b;
    case 'number':
      return a === (b as number); // NaN is not DeepEqual to itself, as in Go
    case 'function':
      return false;
  }
  if (a instanceof GoInt) return a.value === (b as GoInt).value;
  if (a instanceof GoFloat32) return a.value === (b as GoFloat32).value;
  if (a instanceof Uint8Array) {
    const bb = b as Uint8Array;
    return a.length === bb.length && a.every((x, i) => x === bb[i]);
  }
  if (Array.isArray(a)) {
    const bb = b as GoValue[];
    return a.length === bb.length && a.every((x, i) => deepEqual(x, bb[i]));
  }
  if (a instanceof GoStruct) {
    const bf = (b as GoStruct).fields;
    return Object.keys(a.fields).every((k) => deepEqual(a.fields[k], bf[k]));
  }
  if (isGoFunc(a)) return false;
  if (isGoStringer(a)) {
    const eq = (a as { goEqual?: (o: unknown) => boolean }).goEqual;
    return eq ? eq.call(a, b) : a === b;
  }
  if (isGoMap(a)) {
    const bm = b as GoMap;
    const ka = Object.keys(a);
    if (ka.length !== Object.keys(bm).length) return false;
    return ka.every((k) => Object.hasOwn(bm, k) && deepEqual(a[k], bm[k]));
  }
  return a === b;
}

/** goInt wraps a JS integer as a Go `int`. */
export function goInt(n: number | bigint): GoInt {
  return new GoInt('int', typeof n === 'bigint' ? n : BigInt(n));
}

/** intValue reads an `int`-typed argument (GoInt, or a bigint/number a caller passed directly) as a JS number. */
export function intValue(v: GoValue): number {
  if (v instanceof GoInt) return Number(v.value);
  if (typeof v === 'bigint') return Number(v);
  if (typeof v === 'number') return Math.trunc(v);
  return 0;
}

/** stringSlice tags an array as Go's []string. */
export function stringSlice(items: string[]): string[] {
  return withGoType(items, '[]string');
}

/** intSlice builds a Go []int. */
export function intSlice(items: number[]): GoValue[] {
  return withGoType(items.map(goInt), '[]int');
}

/** typedMap tags an object with a Go map type such as map[string]string. */
export function typedMap<T extends object>(m: T, goType: string): T {
  return withGoType(m, goType);
}

/** goTypeTag reads the exact Go type tag of a slice or map, if any. */
export function goTypeTag(v: object): string | undefined {
  return (v as Record<symbol, string | undefined>)[GO_TYPE];
}

/** newMap returns an empty map[string]interface{}. */
export function newMap(): GoMap {
  return {};
}
