// funcs.ts: the builtin template functions, a port of Go's text/template/funcs.go (and, or, not, len, index,
// slice, call, print, printf, println, html, js, urlquery, eq, ne, lt, le, gt, ge). Builtins declared with
// reflect.Value parameters receive raw values: undefined for an invalid value, null for a nil interface.
import { GoFloat32, GoFuncError, GoInt, GoStruct, isGoFunc, isGoStringer, type GoFunc, type GoValue } from './value.js';
import {
  assignableTo,
  canBeNil,
  elemTypeOf,
  GoComplex,
  goTypeOf,
  isIntKind,
  isUintKind,
  kindOf,
  mapGet,
  parseGoType,
  wrapInt,
  zeroValue,
  type GoType,
  type Kind,
} from './reflect.js';
import { formatValue, sprintArgs, sprintf, sprintfArgs, sprintlnArgs } from './fmt.js';
import { decodeUTF8, encodeUTF8, isPrint, runeAt, utf8Len, compareStrings } from './utf8.js';

// ---------------------------------------------------------------------------------------------------------------
// Truth. Go: exec.go isTrue, funcs.go truth

/**
 * isTrue reports whether the value is 'true', in the sense of not the zero of its type, and whether the value has
 * a meaningful truth value. This is the definition of truth used by if and other such actions.
 */
export function isTrue(val: GoValue): [truth: boolean, ok: boolean] {
  switch (typeof val) {
    case 'undefined':
      // Something like var x interface{}, never set. It's a form of nil.
      return [false, true];
    case 'string':
      return [val.length > 0, true];
    case 'boolean':
      return [val, true];
    case 'number':
      return [val !== 0, true];
    case 'bigint':
      return [val !== 0n, true];
    case 'function':
      return [true, true];
  }
  if (val === null) return [false, true];
  if (Array.isArray(val) || val instanceof Uint8Array) return [val.length > 0, true];
  if (val instanceof GoInt) return [val.value !== 0n, true];
  if (val instanceof GoFloat32) return [val.value !== 0, true];
  if ((val as unknown) instanceof GoComplex) {
    const c = val as unknown as GoComplex;
    return [c.re !== 0 || c.im !== 0, true];
  }
  if (val instanceof GoStruct || isGoStringer(val) || isGoFunc(val)) return [true, true]; // Struct values are always true.
  return [Object.keys(val).length > 0, true];
}

/** truth is the truth of a raw value as and/or/not see it (a nil interface is false). */
export function truth(arg: GoValue): boolean {
  return isTrue(arg === null ? undefined : arg)[0];
}

// ---------------------------------------------------------------------------------------------------------------
// Indexing. Go: funcs.go index, slice, len

/** indirectInterface returns the concrete value in an interface value, or else the invalid value. */
function indirectInterface(v: GoValue): GoValue {
  return v === null ? undefined : v;
}

/** indexArg checks if a reflect.Value can be used as an index, and converts it to int if possible. */
function indexArg(index: GoValue, cap: number): number {
  let x: bigint;
  const k = kindOf(index);
  if (isIntKind(k)) x = typeof index === 'bigint' ? index : (index as GoInt).value;
  else if (isUintKind(k)) x = BigInt.asIntN(64, (index as GoInt).value);
  else if (k === 'invalid') throw new GoFuncError('cannot index slice/array with nil');
  else throw new GoFuncError(`cannot index slice/array with type ${goTypeOf(index)}`);
  if (x < 0n || x > BigInt(cap)) throw new GoFuncError(`index out of range: ${x}`);
  return Number(x);
}

/** prepareArg checks if value can be used as an argument of type argType, and converts an invalid value to the zero. */
function prepareArg(value: GoValue, argType: GoType): GoValue {
  if (value === undefined || value === null) {
    if (!canBeNil(argType)) throw new GoFuncError(`value is nil; should be of type ${argType.name}`);
    return zeroValue(argType);
  }
  if (assignableTo(value, argType)) return value;
  const k = kindOf(value);
  if ((isIntKind(k) || isUintKind(k)) && (isIntKind(argType.kind as Kind) || isUintKind(argType.kind as Kind))) {
    return wrapInt(argType.kind as Kind, typeof value === 'bigint' ? value : (value as GoInt).value);
  }
  throw new GoFuncError(`value has type ${goTypeOf(value)}; should be ${argType.name}`);
}

/**
 * index returns the result of indexing its first argument by the following arguments. Thus "index x 1 2 3" is, in
 * Go syntax, x[1][2][3]. Each indexed item must be a map, slice, or array.
 */
function index(itemIn: GoValue, ...indexes: GoValue[]): GoValue {
  let item = indirectInterface(itemIn);
  if (item === undefined) throw new GoFuncError('index of untyped nil');
  for (const indexIn of indexes) {
    const idx = indirectInterface(indexIn);
    if (item === null) throw new GoFuncError('index of nil pointer');
    if (typeof item === 'string') {
      const bytes = encodeUTF8(item);
      const x = indexArg(idx, bytes.length);
      if (x === bytes.length) throw new GoFuncError('reflect: string index out of range');
      item = new GoInt('uint8', BigInt(bytes[x]));
      continue;
    }
    if (item instanceof Uint8Array) {
      const x = indexArg(idx, item.length);
      if (x === item.length) throw new GoFuncError('reflect: slice index out of range');
      item = new GoInt('uint8', BigInt(item[x]));
      continue;
    }
    if (Array.isArray(item)) {
      const x = indexArg(idx, item.length);
      if (x === item.length) throw new GoFuncError('reflect: slice index out of range');
      const v: GoValue = item[x];
      item = v === undefined ? null : v;
      continue;
    }
    const k = kindOf(item);
    if (k === 'map') {
      const m = item as Record<string, GoValue>;
      const key = prepareArg(idx, parseGoType('string'));
      const x = mapGet(m, key as string);
      item = x !== undefined ? x : zeroValue(parseGoType(elemTypeOf(goTypeOf(m))));
      continue;
    }
    throw new GoFuncError(`can't index item of type ${goTypeOf(item)}`);
  }
  return item;
}

/**
 * slice returns the result of slicing its first argument by the remaining arguments. Thus "slice x 1 2" is, in Go
 * syntax, x[1:2], while "slice x" is x[:], "slice x 1" is x[1:], and "slice x 1 2 3" is x[1:2:3]. The first
 * argument must be a string, slice, or array.
 */
function slice(itemIn: GoValue, ...indexes: GoValue[]): GoValue {
  const item = indirectInterface(itemIn);
  if (item === undefined) throw new GoFuncError('slice of untyped nil');
  if (indexes.length > 3) throw new GoFuncError(`too many slice indexes: ${indexes.length}`);
  let cap: number;
  let len: number;
  let bytes: Uint8Array | null = null;
  if (typeof item === 'string') {
    if (indexes.length === 3) throw new GoFuncError('cannot 3-index slice a string');
    bytes = encodeUTF8(item);
    cap = len = bytes.length;
  } else if (Array.isArray(item) || item instanceof Uint8Array) {
    cap = len = item.length;
  } else {
    throw new GoFuncError(`can't slice item of type ${goTypeOf(item)}`);
  }
  const idx = [0, len, 0];
  for (let i = 0; i < indexes.length; i++) idx[i] = indexArg(indexes[i], cap);
  // Given item[i:j], make sure i <= j.
  if (idx[0] > idx[1]) throw new GoFuncError(`invalid slice index: ${idx[0]} > ${idx[1]}`);
  if (indexes.length === 3 && idx[1] > idx[2]) throw new GoFuncError(`invalid slice index: ${idx[1]} > ${idx[2]}`);
  if (bytes !== null) {
    const s = item as string;
    if (utf8Len(s) === s.length) return s.slice(idx[0], idx[1]); // ASCII: bytes are characters
    return decodeUTF8(bytes.subarray(idx[0], idx[1]));
  }
  if (item instanceof Uint8Array) return item.slice(idx[0], idx[1]);
  const out = (item as GoValue[]).slice(idx[0], idx[1]);
  const t = goTypeOf(item);
  if (t !== '[]interface {}') Object.defineProperty(out, Symbol.for('ripple.goType'), { value: t, enumerable: false, configurable: true });
  return out;
}

/** length returns the length of the item, with an error if it has no defined length. */
function length(itemIn: GoValue): GoValue {
  const item = itemIn;
  if (item === null) throw new GoFuncError('len of nil pointer');
  if (item === undefined) throw new GoFuncError('reflect: call of reflect.Value.Type on zero Value');
  if (typeof item === 'string') return new GoInt('int', BigInt(utf8Len(item)));
  if (Array.isArray(item) || item instanceof Uint8Array) return new GoInt('int', BigInt(item.length));
  if (kindOf(item) === 'map') return new GoInt('int', BigInt(Object.keys(item as object).length));
  throw new GoFuncError(`len of type ${goTypeOf(item)}`);
}

// ---------------------------------------------------------------------------------------------------------------
// Function invocation. Go: funcs.go call

/**
 * callFunction returns the result of evaluating the first argument as a function. The function must return 1
 * result, or 2 results, the second of which is an error. Go: funcs.go call.
 */
export function callFunction(name: string, fnIn: GoValue, args: GoValue[]): GoValue {
  const fn = indirectInterface(fnIn);
  if (fn === undefined) throw new GoFuncError('call of nil');
  if (typeof fn === 'function') {
    // A plain JavaScript function stands for func(...interface {}) interface {}.
    return (fn as (...a: GoValue[]) => GoValue)(...args.map((a) => (a === undefined ? null : a)));
  }
  if (!isGoFunc(fn)) throw new GoFuncError(`non-function ${name} of type ${goTypeOf(fn)}`);
  const params = fn.params.map(parseGoType);
  const numIn = params.length + (fn.variadic !== undefined ? 1 : 0);
  let dddType: GoType | null = null;
  if (fn.variadic !== undefined) {
    if (args.length < numIn - 1) throw new GoFuncError(`wrong number of args for ${name}: got ${args.length} want at least ${numIn - 1}`);
    dddType = parseGoType(fn.variadic);
  } else if (args.length !== numIn) {
    throw new GoFuncError(`wrong number of args for ${name}: got ${args.length} want ${numIn}`);
  }
  const argv = new Array<GoValue>(args.length);
  for (let i = 0; i < args.length; i++) {
    const arg = indirectInterface(args[i]);
    const argType = dddType === null || i < numIn - 1 ? params[i] : dddType;
    try {
      argv[i] = prepareArg(arg, argType);
    } catch (e) {
      if (e instanceof GoFuncError) throw new GoFuncError(`arg ${i}: ${e.message}`);
      throw e;
    }
  }
  return fn.impl(...argv);
}

// ---------------------------------------------------------------------------------------------------------------
// Comparison. Go: funcs.go eq, ne, lt, le, gt, ge

const errBadComparisonType = 'invalid type for comparison';
const errBadComparison = 'incompatible types for comparison';
const errNoComparison = 'missing argument for comparison';

const enum BasicKind {
  Invalid,
  Bool,
  Complex,
  Int,
  Float,
  String,
  Uint,
}

function basicKind(v: GoValue): BasicKind {
  switch (typeof v) {
    case 'boolean':
      return BasicKind.Bool;
    case 'bigint':
      return BasicKind.Int;
    case 'number':
      return BasicKind.Float;
    case 'string':
      return BasicKind.String;
  }
  if (v instanceof GoInt) return v.type[0] === 'u' ? BasicKind.Uint : BasicKind.Int;
  if (v instanceof GoFloat32) return BasicKind.Float;
  if ((v as unknown) instanceof GoComplex) return BasicKind.Complex;
  return BasicKind.Invalid;
}

function intOf(v: GoValue): bigint {
  return typeof v === 'bigint' ? v : (v as GoInt).value;
}

function floatOf(v: GoValue): number {
  return typeof v === 'number' ? v : (v as GoFloat32).value;
}

function isNilValue(v: GoValue): boolean {
  return v === undefined || v === null;
}

/** comparable reports whether values of v's type can be compared with == in Go. */
function comparable(v: GoValue): boolean {
  const k = kindOf(v);
  if (k === 'slice' || k === 'map' || k === 'func') return false;
  if (v instanceof GoStruct) return Object.values(v.fields).every((f) => f === null || f === undefined || comparable(f));
  return true;
}

/** goEqual is Go's == on two comparable values of the same type. */
function goEqual(a: GoValue, b: GoValue): boolean {
  if (a instanceof GoStruct && b instanceof GoStruct) {
    if (a.typeName !== b.typeName) return false;
    for (const k of Object.keys(a.fields)) {
      const x = a.fields[k];
      const y = b.fields[k];
      if (isNilValue(x) || isNilValue(y)) {
        if (isNilValue(x) !== isNilValue(y)) return false;
        continue;
      }
      if (goTypeOf(x) !== goTypeOf(y)) return false;
      if (basicKind(x) !== BasicKind.Invalid) {
        if (!eq(x, y)) return false;
      } else if (!goEqual(x, y)) return false;
    }
    return true;
  }
  if (isGoStringer(a) && isGoStringer(b)) return a.goTypeName() === b.goTypeName() && a.goString() === b.goString();
  return a === b;
}

/** eq evaluates the comparison a == b || a == c || ... */
function eq(arg1In: GoValue, ...arg2: GoValue[]): boolean {
  const arg1 = indirectInterface(arg1In);
  if (arg2.length === 0) throw new GoFuncError(errNoComparison);
  const k1 = basicKind(arg1);
  for (const argIn of arg2) {
    const arg = indirectInterface(argIn);
    const k2 = basicKind(arg);
    let t = false;
    if (k1 !== k2) {
      // Special case: Can compare integer values regardless of type's sign.
      if (k1 === BasicKind.Int && k2 === BasicKind.Uint) {
        t = intOf(arg1) >= 0n && intOf(arg1) === intOf(arg);
      } else if (k1 === BasicKind.Uint && k2 === BasicKind.Int) {
        t = intOf(arg) >= 0n && intOf(arg1) === intOf(arg);
      } else if (arg1 !== undefined && arg !== undefined) {
        throw new GoFuncError(errBadComparison);
      }
    } else {
      switch (k1) {
        case BasicKind.Bool:
          t = arg1 === arg;
          break;
        case BasicKind.Complex: {
          const a = arg1 as unknown as GoComplex;
          const b = arg as unknown as GoComplex;
          t = a.re === b.re && a.im === b.im;
          break;
        }
        case BasicKind.Float:
          t = floatOf(arg1) === floatOf(arg);
          break;
        case BasicKind.Int:
        case BasicKind.Uint:
          t = intOf(arg1) === intOf(arg);
          break;
        case BasicKind.String:
          t = arg1 === arg;
          break;
        default: {
          const ka = kindOf(arg1);
          const kb = kindOf(arg);
          if (ka !== kb && ka !== 'invalid' && kb !== 'invalid') {
            throw new GoFuncError(`non-comparable types ${sprintf('%s', arg1)}: ${goTypeOf(arg1)}, ${goTypeOf(arg)}: ${formatValue(arg)}`);
          }
          if (isNilValue(arg1) || isNilValue(arg)) {
            t = isNilValue(arg) === isNilValue(arg1);
          } else {
            if (!comparable(arg)) throw new GoFuncError(`non-comparable type ${sprintf('%s', arg)}: ${goTypeOf(arg)}`);
            t = goTypeOf(arg1) === goTypeOf(arg) && goEqual(arg1, arg);
          }
        }
      }
    }
    if (t) return true;
  }
  return false;
}

/** ne evaluates the comparison a != b. */
function ne(arg1: GoValue, arg2: GoValue): boolean {
  return !eq(arg1, arg2);
}

/** lt evaluates the comparison a < b. */
function lt(arg1In: GoValue, arg2In: GoValue): boolean {
  const arg1 = indirectInterface(arg1In);
  const k1 = basicKind(arg1);
  if (k1 === BasicKind.Invalid) throw new GoFuncError(errBadComparisonType);
  const arg2 = indirectInterface(arg2In);
  const k2 = basicKind(arg2);
  if (k2 === BasicKind.Invalid) throw new GoFuncError(errBadComparisonType);
  if (k1 !== k2) {
    // Special case: Can compare integer values regardless of type's sign.
    if (k1 === BasicKind.Int && k2 === BasicKind.Uint) return intOf(arg1) < 0n || intOf(arg1) < intOf(arg2);
    if (k1 === BasicKind.Uint && k2 === BasicKind.Int) return intOf(arg2) >= 0n && intOf(arg1) < intOf(arg2);
    throw new GoFuncError(errBadComparison);
  }
  switch (k1) {
    case BasicKind.Bool:
    case BasicKind.Complex:
      throw new GoFuncError(errBadComparisonType);
    case BasicKind.Float:
      return floatOf(arg1) < floatOf(arg2);
    case BasicKind.Int:
    case BasicKind.Uint:
      return intOf(arg1) < intOf(arg2);
    default:
      return compareStrings(arg1 as string, arg2 as string) < 0;
  }
}

/** le evaluates the comparison <= b. */
function le(arg1: GoValue, arg2: GoValue): boolean {
  return lt(arg1, arg2) || eq(arg1, arg2);
}

/** gt evaluates the comparison a > b. */
function gt(arg1: GoValue, arg2: GoValue): boolean {
  return !le(arg1, arg2);
}

/** ge evaluates the comparison a >= b. */
function ge(arg1: GoValue, arg2: GoValue): boolean {
  return !lt(arg1, arg2);
}

// ---------------------------------------------------------------------------------------------------------------
// Escaping. Go: funcs.go HTMLEscape, JSEscape, URLQueryEscaper

/** htmlEscapeString returns the escaped HTML equivalent of the plain text data s. */
export function htmlEscapeString(s: string): string {
  if (!/['"&<>\0]/.test(s)) return s;
  let out = '';
  for (let i = 0; i < s.length; i++) {
    const c = s[i];
    switch (c) {
      case '\0':
        out += '\ufffd';
        break;
      case '"':
        out += '&#34;';
        break;
      case "'":
        out += '&#39;';
        break;
      case '&':
        out += '&amp;';
        break;
      case '<':
        out += '&lt;';
        break;
      case '>':
        out += '&gt;';
        break;
      default:
        out += c;
    }
  }
  return out;
}

function jsIsSpecial(r: number): boolean {
  switch (r) {
    case 0x5c:
    case 0x27:
    case 0x22:
    case 0x3c:
    case 0x3e:
    case 0x26:
    case 0x3d:
      return true;
  }
  return r < 0x20 || r >= 0x80;
}

/** jsEscapeString returns the escaped JavaScript equivalent of the plain text data s. */
export function jsEscapeString(s: string): string {
  let special = false;
  for (let i = 0; i < s.length && !special; i++) special = jsIsSpecial(s.charCodeAt(i));
  if (!special) return s;
  const hex = '0123456789ABCDEF';
  let out = '';
  for (let i = 0; i < s.length; ) {
    const [r, w] = runeAt(s, i);
    i += w;
    if (!jsIsSpecial(r)) {
      out += String.fromCharCode(r);
      continue;
    }
    if (r < 0x80) {
      switch (r) {
        case 0x5c:
          out += '\\\\';
          break;
        case 0x27:
          out += "\\'";
          break;
        case 0x22:
          out += '\\"';
          break;
        case 0x3c:
          out += '\\u003C';
          break;
        case 0x3e:
          out += '\\u003E';
          break;
        case 0x26:
          out += '\\u0026';
          break;
        case 0x3d:
          out += '\\u003D';
          break;
        default:
          out += '\\u00' + hex[r >> 4] + hex[r & 0xf];
      }
    } else if (isPrint(r)) {
      out += String.fromCodePoint(r);
    } else {
      let h = r.toString(16).toUpperCase();
      if (h.length < 4) h = '0'.repeat(4 - h.length) + h;
      out += '\\u' + h;
    }
  }
  return out;
}

/** urlQueryEscape is Go's url.QueryEscape: everything but unreserved bytes is %XX-escaped, spaces become '+'. */
export function urlQueryEscape(s: string): string {
  const bytes = encodeUTF8(s);
  let out = '';
  for (const b of bytes) {
    if ((b >= 0x30 && b <= 0x39) || (b >= 0x41 && b <= 0x5a) || (b >= 0x61 && b <= 0x7a) || b === 0x2d || b === 0x2e || b === 0x5f || b === 0x7e) {
      out += String.fromCharCode(b);
    } else if (b === 0x20) {
      out += '+';
    } else {
      out += '%' + (b < 16 ? '0' : '') + b.toString(16).toUpperCase();
    }
  }
  return out;
}

/** evalArgs formats the list of arguments into a string. It is therefore equivalent to fmt.Sprint(args...) except that each argument is indirected (if a pointer), as required, using the same rules as the default string evaluation during template execution. */
function evalArgs(args: GoValue[]): string {
  if (args.length === 1 && typeof args[0] === 'string') return args[0];
  // printableValue: a nil interface prints as "<no value>".
  return sprintArgs(args.map((a) => (a === null || a === undefined ? '<no value>' : a)));
}

// ---------------------------------------------------------------------------------------------------------------
// The builtin function map. Go: funcs.go builtins

function builtin(name: string, params: string[], variadic: string | undefined, result: string, returnsError: boolean, impl: (...a: GoValue[]) => GoValue): GoFunc {
  return { name, params, variadic, result, returnsError, impl };
}

// and, or and call are implemented as special cases in evalCall; their table entries only carry the signature.
const specialCased = (): GoValue => {
  throw new Error('unreachable');
};

/** builtinFuncs returns the builtin function map, each with the Go signature the executor checks against. */
export function builtinFuncs(): ReadonlyMap<string, GoFunc> {
  const V = 'reflect.Value';
  const A = 'interface {}';
  return new Map<string, GoFunc>([
    ['and', builtin('and', [V], V, V, false, specialCased)],
    ['call', builtin('call', [V], V, V, true, specialCased)],
    ['html', builtin('html', [], A, 'string', false, (...a) => htmlEscapeString(evalArgs(a)))],
    ['index', builtin('index', [V], V, V, true, index)],
    ['slice', builtin('slice', [V], V, V, true, slice)],
    ['js', builtin('js', [], A, 'string', false, (...a) => jsEscapeString(evalArgs(a)))],
    ['len', builtin('len', [V], undefined, 'int', true, length)],
    ['not', builtin('not', [V], undefined, 'bool', false, (a) => !truth(a))],
    ['or', builtin('or', [V], V, V, false, specialCased)],
    ['print', builtin('print', [], A, 'string', false, (...a) => sprintArgs(a))],
    ['printf', builtin('printf', ['string'], A, 'string', false, (f, ...a) => sprintfArgs(f as string, a))],
    ['println', builtin('println', [], A, 'string', false, (...a) => sprintlnArgs(a))],
    ['urlquery', builtin('urlquery', [], A, 'string', false, (...a) => urlQueryEscape(evalArgs(a)))],
    ['eq', builtin('eq', [V], V, 'bool', true, (a, ...b) => eq(a, ...b))],
    ['ge', builtin('ge', [V, V], undefined, 'bool', true, ge)],
    ['gt', builtin('gt', [V, V], undefined, 'bool', true, gt)],
    ['le', builtin('le', [V, V], undefined, 'bool', true, le)],
    ['lt', builtin('lt', [V, V], undefined, 'bool', true, lt)],
    ['ne', builtin('ne', [V, V], undefined, 'bool', true, ne)],
  ]);
}

/** BUILTIN_NAMES lists the builtin function names (for the parser's function check). */
export const BUILTIN_NAMES: ReadonlySet<string> = new Set(builtinFuncs().keys());

/** compare exposes the comparison builtins (Go's eq, ne, lt, le, gt, ge) to other components; they throw GoFuncError where Go returns an error. */
export const compare = { eq, ne, lt, le, gt, ge };

