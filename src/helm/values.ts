// values.ts: Helm's values — coalescing chart defaults, parent values and globals, tables and paths.
// Go: pkg/chartutil/coalesce.go, values.go. Maps are null-prototype objects (Go map[string]interface{}); a key
// whose value is null is a Go nil value, which is what `--set a=null` or `a: null` delete.
import { isGoMap, type GoMap, type GoValue } from '../gotemplate/index.js';
import type { Chart } from './chart.js';

/** Printf receives Helm's coalescing warnings (log.Printf); they never change the result. */
export type Printf = (message: string) => void;

/** GLOBAL_KEY is the values key shared with every subchart. */
export const GLOBAL_KEY = 'global';

/** newMap returns an empty Go map. */
export function newMap(): GoMap {
  return Object.create(null) as GoMap;
}

const has = (m: GoMap, k: string) => Object.prototype.hasOwnProperty.call(m, k);

/** isTable is Helm's istable: a map[string]interface{}. */
export function isTable(v: GoValue): v is GoMap {
  return isGoMap(v);
}

/** copyValues is copystructure.Copy of a values tree (maps and slices copied, scalars shared). */
export function copyValues<T extends GoValue>(v: T): T {
  if (Array.isArray(v)) return v.map((e) => copyValues(e)) as T;
  if (isGoMap(v)) {
    const m = newMap();
    for (const k of Object.keys(v)) m[k] = copyValues(v[k]);
    return m as T;
  }
  return v;
}

const concatPrefix = (a: string, b: string) => (a === '' ? b : `${a}.${b}`);

/** coalesceValues is chartutil.CoalesceValues: user values (copied) with the chart's defaults and its subcharts'. */
export function coalesceValues(chart: Chart, vals: GoMap | null, printf: Printf = () => {}): GoMap {
  return coalesce(printf, chart, copyValues(vals ?? newMap()), '', false);
}

/** mergeValues is chartutil.MergeValues: like coalesceValues but null values are kept, not deleting keys. */
export function mergeValues(chart: Chart, vals: GoMap | null, printf: Printf = () => {}): GoMap {
  return coalesce(printf, chart, copyValues(vals ?? newMap()), '', true);
}

function coalesce(printf: Printf, ch: Chart, dest: GoMap, prefix: string, merge: boolean): GoMap {
  coalesceChartValues(printf, ch, dest, prefix, merge);
  return coalesceDeps(printf, ch, dest, prefix, merge);
}

/** ValuesError is a coalescing failure (Go returns an error). */
export class ValuesError extends Error {}

function goBoolVerb(v: GoValue): string {
  // fmt's %t of a non-bool prints %!t(TYPE=VALUE); only the shape matters for this rare error.
  return typeof v === 'boolean' ? String(v) : `%!t(${typeof v === 'string' ? 'string' : typeof v === 'number' ? 'float64' : typeof v === 'bigint' ? 'int64' : Array.isArray(v) ? '[]interface {}' : 'bool'}=${String(v)})`;
}

function coalesceDeps(printf: Printf, chrt: Chart, dest: GoMap, prefix: string, merge: boolean): GoMap {
  for (const sub of chrt.dependencies) {
    const name = sub.name();
    if (!has(dest, name)) dest[name] = newMap();
    else if (!isTable(dest[name])) throw new ValuesError(`type mismatch on ${name}: ${goBoolVerb(dest[name])}`);
    const dvmap = dest[name] as GoMap;
    const subPrefix = concatPrefix(prefix, chrt.metadata!.name);
    coalesceGlobals(printf, dvmap, dest, subPrefix);
    dest[name] = coalesce(printf, sub, dvmap, subPrefix, merge);
  }
  return dest;
}

function coalesceGlobals(printf: Printf, dest: GoMap, src: GoMap, prefix: string): void {
  let dg: GoMap;
  let sg: GoMap;
  if (!has(dest, GLOBAL_KEY)) dg = newMap();
  else if (isTable(dest[GLOBAL_KEY])) dg = dest[GLOBAL_KEY] as GoMap;
  else {
    printf(`warning: skipping globals because destination ${GLOBAL_KEY} is not a table.`);
    return;
  }
  if (!has(src, GLOBAL_KEY)) sg = newMap();
  else if (isTable(src[GLOBAL_KEY])) sg = src[GLOBAL_KEY] as GoMap;
  else {
    printf(`warning: skipping globals because source ${GLOBAL_KEY} is not a table.`);
    return;
  }
  for (const key of Object.keys(sg)) {
    const val = sg[key];
    if (isTable(val)) {
      const vv = Object.assign(newMap(), val);
      if (!has(dg, key)) dg[key] = vv;
      else {
        const destv = dg[key];
        if (!isTable(destv)) printf(`Conflict: cannot merge map onto non-map for "${key}". Skipping.`);
        else {
          coalesceTablesFullKey(printf, vv, destv, concatPrefix(prefix, key), true);
          dg[key] = vv;
        }
      }
    } else if (has(dg, key) && isTable(dg[key])) {
      printf(`key ${key} is table. Skipping`);
    } else {
      dg[key] = val;
    }
  }
  dest[GLOBAL_KEY] = dg;
}

function coalesceChartValues(printf: Printf, c: Chart, v: GoMap, prefix: string, merge: boolean): void {
  const subPrefix = concatPrefix(prefix, c.metadata!.name);
  const vc = copyValues(c.values ?? newMap());
  for (const key of Object.keys(vc)) {
    const val = vc[key];
    if (has(v, key)) {
      const value = v[key];
      if (value === null && !merge) delete v[key];
      else if (isTable(value)) {
        if (!isTable(val)) {
          if (val !== null) printf(`warning: skipped value for ${subPrefix}.${key}: Not a table.`);
        } else {
          const m = c.dependencies.some((s) => s.name() === key) ? true : merge;
          coalesceTablesFullKey(printf, value, val, concatPrefix(subPrefix, key), m);
        }
      }
    } else {
      v[key] = val;
    }
  }
}

/** coalesceTables is chartutil.CoalesceTables: src fills in what dst lacks; nulls in dst delete keys. */
export function coalesceTables(dst: GoMap | null, src: GoMap | null, printf: Printf = () => {}): GoMap | null {
  return coalesceTablesFullKey(printf, dst, src, '', false);
}

/** mergeTables is chartutil.MergeTables: like coalesceTables, keeping nulls. */
export function mergeTables(dst: GoMap | null, src: GoMap | null, printf: Printf = () => {}): GoMap | null {
  return coalesceTablesFullKey(printf, dst, src, '', true);
}

function coalesceTablesFullKey(printf: Printf, dst: GoMap | null, src: GoMap | null, prefix: string, merge: boolean): GoMap | null {
  if (src === null) return dst;
  if (dst === null) return src;
  for (const key of Object.keys(src)) {
    const val = src[key];
    const fullkey = concatPrefix(prefix, key);
    const ok = has(dst, key);
    const dv = dst[key];
    if (ok && !merge && dv === null) delete dst[key];
    else if (!ok) dst[key] = val;
    else if (isTable(val)) {
      if (isTable(dv)) coalesceTablesFullKey(printf, dv, val, fullkey, merge);
      else printf(`warning: cannot overwrite table with non table for ${fullkey} (${String(val)})`);
    } else if (isTable(dv) && val !== null) {
      printf(`warning: destination for ${fullkey} is a table. Ignoring non-table value (${String(val)})`);
    }
  }
  return dst;
}

/** NoTableError is chartutil.ErrNoTable. */
export class NoTableError extends Error {
  constructor(readonly key: string) {
    super(`"${key}" is not a table`);
  }
}

/** table is Values.Table: the map at a dotted path, or NoTableError (with the partial table Go returns). */
export function table(v: GoMap, name: string): GoMap {
  let t = v;
  for (const n of name.split('.')) {
    if (!has(t, n)) throw new NoTableError(n);
    const v2 = t[n];
    if (!isTable(v2)) throw new NoTableError(n);
    t = v2;
  }
  return t;
}

/** tryTable is table() returning undefined instead of throwing (renders call it for every subchart). */
export function tryTable(v: GoMap, name: string): GoMap | undefined {
  let t = v;
  for (const n of name.split('.')) {
    if (!has(t, n)) return undefined;
    const v2 = t[n];
    if (!isTable(v2)) return undefined;
    t = v2;
  }
  return t;
}

/** pathValue is Values.PathValue: the non-table value at a dotted path, or undefined (ErrNoValue). */
export function pathValue(v: GoMap, path: string): { value: GoValue } | undefined {
  const parts = path.split('.');
  if (parts.length === 1) {
    if (has(v, parts[0]) && !isTable(v[parts[0]])) return { value: v[parts[0]] };
    return undefined;
  }
  const key = parts.pop()!;
  const t = tryTable(v, parts.join('.'));
  if (t === undefined) return undefined;
  if (has(t, key) && !isTable(t[key])) return { value: t[key] };
  return undefined;
}

/** mergeMaps is cli/values mergeMaps: b over a, recursing into maps present in both. */
export function mergeMaps(a: GoMap, b: GoMap): GoMap {
  const out = Object.assign(newMap(), a);
  for (const k of Object.keys(b)) {
    const v = b[k];
    if (isTable(v) && has(out, k) && isTable(out[k])) {
      out[k] = mergeMaps(out[k] as GoMap, v);
      continue;
    }
    out[k] = v;
  }
  return out;
}
