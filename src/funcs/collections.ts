// collections.ts: Sprig's list, dict, default and reflection functions (list.go, dict.go, defaults.go,
// reflect.go). The non-must list functions panic with the must variant's error, which text/template reports as
// "error calling NAME: …"; both are thrown as GoFuncError here.
import {
  compareStrings,
  GoStruct,
  goTypeOf,
  isGoMap,
  withGoType,
  type GoFunc,
  type GoMap,
  type GoValue,
} from '../gotemplate/index.js';
import { strslice, strval, toInt } from './cast.js';
import { defineFunc, goError, NIL_DEREFERENCE } from './define.js';
import { deepEqual, empty, goTypeTag, intValue, isList, kindOf, listItems, stringSlice } from './reflect.js';

/** newGoMap returns an empty map[string]interface{} with no prototype, so any key (even `__proto__`) is data. */
export function newGoMap(): GoMap {
  return Object.create(null) as GoMap;
}

/** listKind is reflect.TypeOf(v).Kind() for the list functions, with Go's panic on a nil interface. */
function listKind(v: GoValue): string {
  if (v === null || v === undefined) throw goError(NIL_DEREFERENCE);
  return kindOf(v);
}

/** asList returns the elements of a slice, or throws `msg(kind)` like Sprig's must* functions. */
function asList(v: GoValue, msg: (kind: string) => string): GoValue[] {
  const kind = listKind(v);
  if (!isList(v)) throw goError(msg(kind));
  return listItems(v);
}

/** listFunc declares a list function and its must variant, which share one implementation. */
function listPair(
  name: string,
  mustName: string,
  params: string,
  result: string,
  impl: (...args: any[]) => GoValue,
): GoFunc[] {
  return [defineFunc(name, `${params} ${result}`, impl), defineFunc(mustName, `${params} (${result}, error)`, impl)];
}

/** deepCopy is copystructure.Copy over the value model: slices and maps are copied, scalars shared. */
export function deepCopy(v: GoValue): GoValue {
  // copystructure.Copy(nil) asks reflect for the type of a zero Value and panics.
  if (v === null || v === undefined) throw goError('reflect: call of reflect.Value.Type on zero Value');
  return copyValue(v);
}

function copyValue(v: GoValue): GoValue {
  if (Array.isArray(v)) {
    const c = v.map(copyValue);
    const tag = goTypeTag(v);
    return tag ? withGoType(c, tag) : c;
  }
  if (v instanceof Uint8Array) return v.slice();
  if (v instanceof GoStruct) {
    const fields: Record<string, GoValue> = {};
    for (const [k, f] of Object.entries(v.fields)) fields[k] = copyValue(f);
    return new GoStruct(v.typeName, fields);
  }
  if (isGoMap(v)) {
    const c = newGoMap();
    for (const k of Object.keys(v)) c[k] = copyValue(v[k]);
    const tag = goTypeTag(v);
    return tag ? withGoType(c, tag) : c;
  }
  return v;
}

/** mergeMaps is mergo.Merge / mergo.MergeWithOverwrite for map[string]interface{} trees. Go: mergo merge.go deepMerge */
export function mergeMaps(dst: GoMap, src: GoMap, overwrite: boolean): void {
  for (const key of Object.keys(src)) {
    const sv = src[key];
    const has = Object.hasOwn(dst, key);
    const dv = has ? dst[key] : undefined;
    if (sv === null || sv === undefined) {
      if (overwrite) dst[key] = null;
      continue;
    }
    if (isGoMap(sv) && has && isGoMap(dv)) mergeMaps(dv, sv, overwrite);
    if (has && !empty(dv)) {
      if (isList(sv) && !overwrite) continue;
      if (isGoMap(sv) && isGoMap(dv)) continue;
    }
    if (overwrite || !has || empty(dv)) dst[key] = sv;
  }
}

/** dig walks nested maps by string keys and returns the default when a key is missing. Go: dict.go dig */
function dig(ps: GoValue[]): GoValue {
  if (ps.length < 3) throw goError('dig needs at least three arguments');
  let dict = assertMap(ps[ps.length - 1]);
  const def = ps[ps.length - 2];
  const keys = ps.slice(0, -2).map((k) => {
    if (typeof k !== 'string') throw goError(`interface conversion: interface {} is ${goTypeOf(k)}, not string`);
    return k;
  });
  for (let i = 0; ; i++) {
    if (!Object.hasOwn(dict, keys[i])) return def;
    const step = dict[keys[i]];
    if (i === keys.length - 1) return step;
    dict = assertMap(step);
  }
}

function assertMap(v: GoValue): GoMap {
  const t = goTypeOf(v);
  if (t !== 'map[string]interface {}') {
    throw goError(`interface conversion: interface {} is ${t === '<nil>' ? 'nil' : t}, not map[string]interface {}`);
  }
  return v as GoMap;
}

/** chunk splits a list into lists of size elements. Go: list.go mustChunk */
function chunk(size: number, list: GoValue): GoValue[] {
  const items = asList(list, (k) => `Cannot chunk type ${k}`);
  const l = items.length;
  if (size <= 0) {
    if (l === 1 && size === 0) throw goError('runtime error: makeslice: len out of range');
    throw goError('runtime error: makeslice: len out of range');
  }
  const out: GoValue[] = [];
  for (let i = 0; i < l; i += size) out.push(items.slice(i, i + size));
  return withGoType(out, '[][]interface {}');
}

/** sliceList is reflect.Value.Slice on any list, keeping its Go type. Go: list.go mustSlice */
function sliceList(list: GoValue, indices: GoValue[]): GoValue {
  const kind = listKind(list);
  if (!isList(list)) throw goError(`list should be type of slice or array but ${kind}`);
  const l = list.length;
  if (l === 0) return null;
  const start = indices.length > 0 ? Number(toInt(indices[0]).value) : 0;
  const end = indices.length < 2 ? l : Number(toInt(indices[1]).value);
  if (start < 0 || end < start || end > l) throw goError('reflect.Value.Slice: slice index out of bounds');
  if (list instanceof Uint8Array) return list.slice(start, end);
  const out = list.slice(start, end);
  const tag = goTypeTag(list);
  return tag ? withGoType(out, tag) : out;
}

/** collectionFuncs returns Sprig's list, dict, defaults and reflection functions (JSON lives in json.ts). */
export function collectionFuncs(): GoFunc[] {
  const list = (...v: GoValue[]) => v;
  return [
    // Defaults. Go: defaults.go
    defineFunc('default', '(interface {}, ...interface {}) interface {}', (d: GoValue, ...given: GoValue[]) =>
      given.length === 0 || empty(given[0]) ? d : given[0],
    ),
    defineFunc('empty', '(interface {}) bool', empty),
    defineFunc('coalesce', '(...interface {}) interface {}', (...v: GoValue[]) => v.find((x) => !empty(x)) ?? null),
    defineFunc('all', '(...interface {}) bool', (...v: GoValue[]) => v.every((x) => !empty(x))),
    defineFunc('any', '(...interface {}) bool', (...v: GoValue[]) => v.some((x) => !empty(x))),
    defineFunc('ternary', '(interface {}, interface {}, bool) interface {}', (t: GoValue, f: GoValue, c: boolean) => (c ? t : f)),
    defineFunc('deepCopy', '(interface {}) interface {}', deepCopy),
    defineFunc('mustDeepCopy', '(interface {}) (interface {}, error)', deepCopy),
    ...listPair('compact', 'mustCompact', '(interface {})', '[]interface {}', (l: GoValue) =>
      asList(l, (k) => `Cannot compact on type ${k}`).filter((x) => !empty(x)),
    ),

    // Flow control. Go: functions.go "fail"
    defineFunc('fail', '(string) (string, error)', (msg: string) => {
      throw goError(msg);
    }),

    // Reflection. Go: reflect.go
    defineFunc('typeOf', '(interface {}) string', goTypeOf),
    defineFunc('typeIs', '(string, interface {}) bool', (t: string, v: GoValue) => t === goTypeOf(v)),
    defineFunc('typeIsLike', '(string, interface {}) bool', (t: string, v: GoValue) => {
      const vt = goTypeOf(v);
      return t === vt || '*' + t === vt;
    }),
    defineFunc('kindOf', '(interface {}) string', kindOf),
    defineFunc('kindIs', '(string, interface {}) bool', (k: string, v: GoValue) => k === kindOf(v)),
    defineFunc('deepEqual', '(interface {}, interface {}) bool', deepEqual),

    // Lists. Go: list.go
    defineFunc('list', '(...interface {}) []interface {}', list),
    defineFunc('tuple', '(...interface {}) []interface {}', list),
    ...['append', 'push'].flatMap((n) =>
      listPair(n, n === 'append' ? 'mustAppend' : 'mustPush', '(interface {}, interface {})', '[]interface {}', (l: GoValue, v: GoValue) => [
        ...asList(l, (k) => `Cannot push on type ${k}`),
        v,
      ]),
    ),
    ...listPair('prepend', 'mustPrepend', '(interface {}, interface {})', '[]interface {}', (l: GoValue, v: GoValue) => [
      v,
      ...asList(l, (k) => `Cannot prepend on type ${k}`),
    ]),
    ...listPair('first', 'mustFirst', '(interface {})', 'interface {}', (l: GoValue) => {
      const items = asList(l, (k) => `Cannot find first on type ${k}`);
      return items.length === 0 ? null : items[0];
    }),
    ...listPair('rest', 'mustRest', '(interface {})', '[]interface {}', (l: GoValue) =>
      asList(l, (k) => `Cannot find rest on type ${k}`).slice(1),
    ),
    ...listPair('last', 'mustLast', '(interface {})', 'interface {}', (l: GoValue) => {
      const items = asList(l, (k) => `Cannot find last on type ${k}`);
      return items.length === 0 ? null : items[items.length - 1];
    }),
    ...listPair('initial', 'mustInitial', '(interface {})', '[]interface {}', (l: GoValue) =>
      asList(l, (k) => `Cannot find initial on type ${k}`).slice(0, -1),
    ),
    ...listPair('reverse', 'mustReverse', '(interface {})', '[]interface {}', (l: GoValue) =>
      [...asList(l, (k) => `Cannot find reverse on type ${k}`)].reverse(),
    ),
    ...listPair('uniq', 'mustUniq', '(interface {})', '[]interface {}', (l: GoValue) => {
      const out: GoValue[] = [];
      for (const x of asList(l, (k) => `Cannot find uniq on type ${k}`)) if (!out.some((y) => deepEqual(x, y))) out.push(x);
      return out;
    }),
    ...listPair('without', 'mustWithout', '(interface {}, ...interface {})', '[]interface {}', (l: GoValue, ...omit: GoValue[]) =>
      asList(l, (k) => `Cannot find without on type ${k}`).filter((x) => !omit.some((y) => deepEqual(x, y))),
    ),
    ...listPair('has', 'mustHas', '(interface {}, interface {})', 'bool', (needle: GoValue, hay: GoValue) => {
      if (hay === null || hay === undefined) return false;
      return asList(hay, (k) => `Cannot find has on type ${k}`).some((x) => deepEqual(needle, x));
    }),
    ...listPair('slice', 'mustSlice', '(interface {}, ...interface {})', 'interface {}', (l: GoValue, ...idx: GoValue[]) =>
      sliceList(l, idx),
    ),
    defineFunc('concat', '(...interface {}) interface {}', (...lists: GoValue[]) => {
      const out: GoValue[] = [];
      for (const l of lists) {
        const kind = listKind(l);
        if (!isList(l)) throw goError(`Cannot concat type ${kind} as list`);
        out.push(...listItems(l));
      }
      return out;
    }),
    defineFunc('dig', '(...interface {}) (interface {}, error)', (...ps: GoValue[]) => dig(ps)),
    ...listPair('chunk', 'mustChunk', '(int, interface {})', '[][]interface {}', (n: GoValue, l: GoValue) => chunk(intValue(n), l)),
    defineFunc('sortAlpha', '(interface {}) []string', (l: GoValue) => {
      if (!isList(l)) return stringSlice([strval(l)]);
      return stringSlice([...strslice(l)].sort(compareStrings));
    }),

    // Dicts. Go: dict.go
    defineFunc('dict', '(...interface {}) map[string]interface {}', (...v: GoValue[]) => {
      const d = newGoMap();
      for (let i = 0; i < v.length; i += 2) d[strval(v[i])] = i + 1 < v.length ? v[i + 1] : '';
      return d;
    }),
    defineFunc('get', '(map[string]interface {}, string) interface {}', (d: GoMap, k: string) =>
      d !== null && Object.hasOwn(d, k) ? d[k] : '',
    ),
    defineFunc('set', '(map[string]interface {}, string, interface {}) map[string]interface {}', (d: GoMap, k: string, v: GoValue) => {
      if (d === null) throw goError('assignment to entry in nil map');
      d[k] = v;
      return d;
    }),
    defineFunc('unset', '(map[string]interface {}, string) map[string]interface {}', (d: GoMap, k: string) => {
      if (d !== null) delete d[k];
      return d;
    }),
    defineFunc('hasKey', '(map[string]interface {}, string) bool', (d: GoMap, k: string) => d !== null && Object.hasOwn(d, k)),
    defineFunc('pluck', '(string, ...map[string]interface {}) []interface {}', (k: string, ...ds: GoMap[]) =>
      ds.filter((d) => d !== null && Object.hasOwn(d, k)).map((d) => d[k]),
    ),
    // Go iterates maps in random order; Ripple returns keys (and values) in sorted key order.
    defineFunc('keys', '(...map[string]interface {}) []string', (...ds: GoMap[]) =>
      stringSlice(ds.flatMap((d) => (d === null ? [] : Object.keys(d).sort(compareStrings)))),
    ),
    defineFunc('values', '(map[string]interface {}) []interface {}', (d: GoMap) =>
      d === null ? [] : Object.keys(d).sort(compareStrings).map((k) => d[k]),
    ),
    defineFunc('pick', '(map[string]interface {}, ...string) map[string]interface {}', (d: GoMap, ...keys: string[]) => {
      const r = newGoMap();
      for (const k of keys) if (d !== null && Object.hasOwn(d, k)) r[k] = d[k];
      return r;
    }),
    defineFunc('omit', '(map[string]interface {}, ...string) map[string]interface {}', (d: GoMap, ...keys: string[]) => {
      const r = newGoMap();
      const skip = new Set(keys);
      if (d !== null) for (const k of Object.keys(d)) if (!skip.has(k)) r[k] = d[k];
      return r;
    }),
    ...(
      [
        ['merge', false, false],
        ['mustMerge', false, true],
        ['mergeOverwrite', true, false],
        ['mustMergeOverwrite', true, true],
      ] as const
    ).map(([name, overwrite, must]) =>
      defineFunc(
        name,
        `(map[string]interface {}, ...map[string]interface {}) ${must ? '(interface {}, error)' : 'interface {}'}`,
        (dst: GoMap, ...srcs: GoMap[]) => {
          let d = dst;
          for (const s of srcs) {
            if (s === null) continue;
            if (d === null) d = newGoMap();
            mergeMaps(d, s, overwrite);
          }
          return d;
        },
      ),
    ),
  ];
}
