// value.ts: how Go values are represented in JavaScript. Shared by the template executor (gotemplate) and the
// function library (funcs); both must agree on it, so it is fixed here first and extended only compatibly.
//
// Go                         JavaScript
// -------------------------  ------------------------------------------------------------------------------
// nil (untyped / interface)  null (undefined is accepted on input and treated as nil)
// string                     string
// bool                       boolean
// int64                      bigint                      (the common integer: Kubernetes' int64 decoding, sprig int64)
// int, int32, uint8, …       GoInt { type: 'int' | …, value: bigint }   (Go's `int` is what integer literals become)
// float64                    number
// float32                    GoFloat32 { value: number }
// []byte                     Uint8Array
// []T                        Array (element type via goTypeOf; defaults to []interface {})
// map[string]T               plain object (prototype Object.prototype or null); map type via goTypeOf
// struct                     GoStruct { typeName, fields }   (ordered fields, e.g. corev1.ObjectReference)
// func                       GoFunc (registered functions) or a JS function value for `call`
// anything with String()     an object implementing GoStringer (time.Time, errors, …)
//
// A slice or map may carry its exact Go type in the GO_TYPE symbol property (e.g. '[]string' from splitList) so
// `%T`, typeOf and assignability checks see what Go would see.

/** GO_TYPE tags an array or object with its exact Go type name, e.g. '[]string' or 'map[string]string'. */
export const GO_TYPE: unique symbol = Symbol.for('ripple.goType');

/**
 * GO_METHODS gives a map or slice value (a Go named type such as Helm's `files` or `VersionSet`) a method set:
 * the function returns the method's value (as GoStringer.goMethod does) or undefined when there is no such method.
 * Go looks methods up before map keys, and so does the executor.
 */
export const GO_METHODS: unique symbol = Symbol.for('ripple.goMethods');

/** withGoMethods attaches a method set to a map or slice value and returns it. */
export function withGoMethods<T extends object>(v: T, methods: (name: string) => GoValue | undefined): T {
  Object.defineProperty(v, GO_METHODS, { value: methods, enumerable: false, configurable: true });
  return v;
}

/** IntType names Go's sized integer types other than int64 (which is a bare bigint). */
export type IntType = 'int' | 'int8' | 'int16' | 'int32' | 'uint' | 'uint8' | 'uint16' | 'uint32' | 'uint64' | 'uintptr';

/** GoInt is a Go integer whose type is not int64: `int` (literals, len, atoi), `uint8`, …. */
export class GoInt {
  constructor(
    readonly type: IntType,
    readonly value: bigint,
  ) {}
}

/** GoFloat32 is a Go float32. */
export class GoFloat32 {
  constructor(readonly value: number) {}
}

/** GoStruct is a Go struct value: field order is the declaration order (it decides `%v` output). */
export class GoStruct {
  constructor(
    readonly typeName: string,
    readonly fields: Readonly<Record<string, GoValue>>,
  ) {}
}

/** GoStringer is implemented by values with a Go String() (or Error()) method; fmt's %v and %s call it. */
export interface GoStringer {
  goString(): string;
  /** The Go type name printed by %T, e.g. 'time.Time'. */
  goTypeName(): string;
  /**
   * goMethod is the Go method `name` of the value, for `.Name` in templates: the result of a niladic method, or a
   * GoFunc for a method with parameters (the executor checks and converts its arguments as for any function);
   * undefined when the type has no such method (Go: exec.go evalField, ptr.MethodByName).
   */
  goMethod?(name: string): GoValue | undefined;
  /** goFieldNames lists the struct's fields (unexported ones) so `.field` fails with Go's "unexported field" text. */
  goFieldNames?(): readonly string[];
  /**
   * goTemplateString is what a template action prints when it differs from goString: a struct field reached through
   * a pointer is addressable, so text/template finds String() on *T (Go: exec.go printableValue, v.Addr()).
   */
  goTemplateString?(): string;
  /** goUnderlying is the value of a named basic type (time.Month is an int) for the fmt verbs String() does not serve. */
  goUnderlying?(): GoValue;
}

/** GoValue is any Go value the engine can hold. */
export type GoValue =
  | null
  | undefined
  | string
  | boolean
  | bigint
  | number
  | GoInt
  | GoFloat32
  | Uint8Array
  | GoValue[]
  | GoMap
  | GoStruct
  | GoFunc
  | GoStringer
  | ((...args: GoValue[]) => GoValue);

/** GoMap is a Go map with string keys. */
export interface GoMap {
  [key: string]: GoValue;
}

/** GoFunc is a function registered in a template's FuncMap, with the Go signature the executor checks against. */
export interface GoFunc {
  readonly name: string;
  /** Go types of the fixed parameters, Go spelling: 'string', 'interface {}', '[]interface {}', 'int', 'time.Time'. */
  readonly params: readonly string[];
  /** Go type of the `...T` parameter's elements, if the function is variadic. */
  readonly variadic?: string;
  /** Go type of the first result. */
  readonly result: string;
  /** True when the function returns (T, error): a thrown GoFuncError then becomes Go's "error calling NAME: …". */
  readonly returnsError?: boolean;
  /**
   * The implementation. It receives arguments already checked and converted to the declared parameter types.
   * Throwing GoFuncError is how it reports the error result (or a Go panic, which text/template also recovers).
   */
  readonly impl: (...args: GoValue[]) => GoValue;
}

/** GoFuncError is thrown by a function implementation to return a Go error (or to panic). */
export class GoFuncError extends Error {
  override readonly name = 'GoFuncError';
}

/** FuncMap maps template function names to their implementations. */
export type FuncMap = Readonly<Record<string, GoFunc>>;

/** isGoFunc tells registered functions apart from plain values. */
export function isGoFunc(v: unknown): v is GoFunc {
  return typeof v === 'object' && v !== null && 'impl' in v && 'params' in v && typeof (v as GoFunc).impl === 'function';
}

/** isGoStringer tells values with a Go String()/Error() method apart. */
export function isGoStringer(v: unknown): v is GoStringer {
  return typeof v === 'object' && v !== null && typeof (v as GoStringer).goString === 'function';
}

/** isGoMap is true for plain objects that stand for Go maps. */
export function isGoMap(v: unknown): v is GoMap {
  if (typeof v !== 'object' || v === null || Array.isArray(v)) return false;
  const proto = Object.getPrototypeOf(v);
  return proto === Object.prototype || proto === null;
}

/** withGoType tags a slice or map with its exact Go type and returns it. */
export function withGoType<T extends object>(v: T, goType: string): T {
  Object.defineProperty(v, GO_TYPE, { value: goType, enumerable: false, configurable: true });
  return v;
}
