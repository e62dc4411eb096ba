// dependencies.ts: enabling subcharts (condition, tags, alias) and importing their values. Go:
// pkg/chartutil/dependencies.go (ProcessDependenciesWithMerge) and action.CheckDependencies. These mutate the chart
// tree they are given, as Helm's do: render a copy (Chart.copyTree).
import { isGoMap, type GoMap, type GoValue } from '../gotemplate/index.js';
import { isCompatibleRange as checkRange } from '../funcs/index.js';
import type { Chart, Dependency } from './chart.js';
import { HelmError } from './errors.js';
import { coalesceTables, coalesceValues, copyValues, isTable, mergeTables, mergeValues, newMap, pathValue, tryTable, type Printf } from './values.js';

// Constraint checks repeat on every render of a chart: memoised (bounded).
const rangeCache = new Map<string, boolean>();
function isCompatibleRange(constraint: string, version: string): boolean {
  const k = constraint + '\u0000' + version;
  let r = rangeCache.get(k);
  if (r === undefined) {
    if (rangeCache.size > 4096) rangeCache.clear();
    rangeCache.set(k, (r = checkRange(constraint, version)));
  }
  return r;
}

/** checkDependencies is action.CheckDependencies: every declared dependency must be present under charts/. */
export function checkDependencies(ch: Chart): void {
  const reqs = ch.metadata?.dependencies;
  if (!reqs) return;
  const missing: string[] = [];
  for (const r of reqs) {
    if (r === null) continue;
    if (!ch.dependencies.some((d) => d.name() === r.name)) missing.push(r.name);
  }
  if (missing.length > 0) {
    throw new HelmError(
      'dependencies',
      `An error occurred while checking for chart dependencies. You may need to run \`helm dependency build\` to fetch missing dependencies: found in Chart.yaml, but missing in charts/ directory: ${missing.join(', ')}`,
    );
  }
}

/** processDependenciesWithMerge is chartutil.ProcessDependenciesWithMerge (what install and template use). */
export function processDependencies(c: Chart, v: GoMap, printf: Printf = () => {}, merge = true): void {
  processDependencyEnabled(c, v, '', printf);
  processDependencyImportValues(c, merge, printf);
}

function processDependencyConditions(reqs: (Dependency | null)[] | null, cvals: GoMap, cpath: string, printf: Printf): void {
  if (reqs === null) return;
  for (const r of reqs) {
    if (r === null) continue;
    for (const c of r.condition.trim().split(',')) {
      if (c.length === 0) continue;
      const vv = pathValue(cvals, cpath + c);
      if (vv !== undefined) {
        if (typeof vv.value === 'boolean') {
          r.enabled = vv.value;
          break;
        }
        printf(`Warning: Condition path '${c}' for chart ${r.name} returned non-bool value`);
      }
    }
  }
}

function processDependencyTags(reqs: (Dependency | null)[] | null, cvals: GoMap, printf: Printf): void {
  if (reqs === null) return;
  const vt = tryTable(cvals, 'tags');
  if (vt === undefined) return;
  for (const r of reqs) {
    if (r === null) continue;
    let hasTrue = false;
    let hasFalse = false;
    for (const k of r.tags ?? []) {
      if (!Object.prototype.hasOwnProperty.call(vt, k)) continue;
      const b = vt[k];
      if (typeof b === 'boolean') {
        if (b) hasTrue = true;
        else hasFalse = true;
      } else printf(`Warning: Tag '${k}' for chart ${r.name} returned non-bool value`);
    }
    if (!hasTrue && hasFalse) r.enabled = false;
    else if (hasTrue || (!hasTrue && !hasFalse)) r.enabled = true;
  }
}

function getAliasDependency(charts: Chart[], dep: Dependency): Chart | null {
  for (const c of charts) {
    if (c.name() !== dep.name) continue;
    if (!isCompatibleRange(dep.version, c.metadata!.version)) continue;
    const out = c.shallowCopy();
    if (dep.alias !== '') out.metadata!.name = dep.alias;
    return out;
  }
  return null;
}

function processDependencyEnabled(c: Chart, v: GoMap, path: string, printf: Printf): void {
  const md = c.metadata!;
  if (md.dependencies === null) return;
  const chartDependencies: Chart[] = [];
  loop: for (const existing of c.dependencies) {
    for (const req of md.dependencies) {
      if (req !== null && existing.name() === req.name && isCompatibleRange(req.version, existing.metadata!.version)) continue loop;
    }
    chartDependencies.push(existing);
  }
  for (const req of md.dependencies) {
    if (req === null) continue;
    const cd = getAliasDependency(c.dependencies, req);
    if (cd !== null) chartDependencies.push(cd);
    if (req.alias !== '') req.name = req.alias;
  }
  c.setDependencies(chartDependencies);
  for (const lr of md.dependencies) if (lr !== null) lr.enabled = true;
  const cvals = coalesceValues(c, v, printf);
  processDependencyTags(md.dependencies, cvals, printf);
  processDependencyConditions(md.dependencies, cvals, path, printf);
  const rm = new Set<string>();
  for (const r of md.dependencies) if (r !== null && !r.enabled) rm.add(r.name);
  const cd = c.dependencies.filter((n) => !rm.has(n.metadata!.name));
  const cdMetadata = md.dependencies.filter((n) => n === null || !rm.has(n.name));
  for (const t of cd) processDependencyEnabled(t, cvals, path + t.metadata!.name + '.', printf);
  md.dependencies = cdMetadata;
  c.setDependencies(cd);
}

function pathToMap(path: string, data: GoMap): GoMap {
  if (path === '.') return data;
  const parts = path.split('.');
  let cur: GoMap = data;
  for (let i = parts.length - 1; i >= 0; i--) {
    const m = newMap();
    m[parts[i]] = cur;
    cur = m;
  }
  return cur;
}

function trimNilValues(vals: GoMap): GoMap {
  const c = copyValues(vals);
  const walk = (m: GoMap): GoMap => {
    for (const k of Object.keys(m)) {
      if (m[k] === null) delete m[k];
      else if (isTable(m[k])) m[k] = walk(m[k] as GoMap);
    }
    return m;
  };
  return walk(c);
}

function processImportValues(c: Chart, merge: boolean, printf: Printf): void {
  const md = c.metadata!;
  if (md.dependencies === null) return;
  const cvals = merge ? mergeValues(c, null, printf) : coalesceValues(c, null, printf);
  let b: GoMap = newMap();
  for (const r of md.dependencies) {
    if (r === null) continue;
    const outiv: GoValue[] = [];
    for (const riv of r.importValues ?? []) {
      if (isGoMap(riv)) {
        const child = riv.child;
        const parent = riv.parent;
        if (typeof child !== 'string' || typeof parent !== 'string') {
          throw new HelmError('dependencies', `interface conversion: interface {} is ${child === undefined || parent === undefined ? 'nil' : typeof child}, not string`);
        }
        const iv = newMap();
        iv.child = child;
        iv.parent = parent;
        outiv.push(iv);
        const vv = tryTable(cvals, r.name + '.' + child);
        if (vv === undefined) {
          printf(`Warning: ImportValues missing table from chart ${r.name}`);
          continue;
        }
        b = (merge ? mergeTables(b, pathToMap(parent, vv)) : coalesceTables(b, pathToMap(parent, vv))) as GoMap;
      } else if (typeof riv === 'string') {
        const child = 'exports.' + riv;
        const iv = newMap();
        iv.child = child;
        iv.parent = '.';
        outiv.push(iv);
        const vm = tryTable(cvals, r.name + '.' + child);
        if (vm === undefined) {
          printf('Warning: ImportValues missing table');
          continue;
        }
        b = (merge ? mergeTables(b, vm) : coalesceTables(b, vm)) as GoMap;
      }
    }
    r.importValues = outiv;
  }
  c.values = merge ? (mergeTables(copyValues(cvals), b) as GoMap) : (coalesceTables(trimNilValues(cvals), b) as GoMap);
}

function processDependencyImportValues(c: Chart, merge: boolean, printf: Printf): void {
  for (const d of c.dependencies) processDependencyImportValues(d, merge, printf);
  processImportValues(c, merge, printf);
}
