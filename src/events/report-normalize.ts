// report-normalize.ts: an EventReport version normalised (normalizeAs) with work in proportion to what changed since
// the last version of it the event manager read. Pure: the caller keeps the entries between versions.
import { normalizeAs, type EventReport } from '../api/index.js';
import type { KubeObject } from '../kube/index.js';

/** ReportEntries are a report version's spec.matchingResources as read and as normalised, entry by entry. */
export interface ReportEntries {
  raw: readonly unknown[];
  normalized: readonly unknown[];
}

/**
 * normalizeReport is normalizeAs('EventReport') doing work in proportion to what changed since the last version:
 * - the check of `spec.resources` (base64, hundreds of KB) is left to where the blob is decoded anyway
 *   (report-resources.ts decodeBlob): one scan of it instead of two;
 * - `spec.matchingResources` is an atomic list whose entries are checked, pruned and defaulted each on its own (no
 *   list-level rule): an entry equal to the one at the same place in the last version keeps its normalised form,
 *   only new or changed entries go through the schema.
 * Returns undefined when the report is invalid (as normalizeAs would).
 */
export function normalizeReport(raw: KubeObject, last: ReportEntries | undefined): { report: EventReport; entries?: ReportEntries } | undefined {
  const spec = raw.spec as Record<string, unknown> | undefined;
  const blob = typeof spec?.resources === 'string' && spec.resources !== '' ? spec.resources : undefined;
  const list = Array.isArray(spec?.matchingResources) ? (spec.matchingResources as unknown[]) : undefined;
  if (!spec || (blob === undefined && list === undefined)) {
    const n = normalizeAs('EventReport', raw);
    return n.ok ? { report: n.object as EventReport } : undefined;
  }
  const reused: unknown[] = [];
  const changed: number[] = [];
  if (list) {
    for (let i = 0; i < list.length; i++) {
      if (last && i < last.raw.length && sameEntry(list[i], last.raw[i])) reused[i] = last.normalized[i];
      else changed.push(i);
    }
  }
  const slim: Record<string, unknown> = { ...spec };
  if (blob !== undefined) slim.resources = '';
  if (list) slim.matchingResources = changed.map((i) => list[i]);
  const n = normalizeAs('EventReport', { ...raw, spec: slim });
  if (!n.ok) return undefined;
  // normalize returns a copy of its own: the blob and the entries go back in.
  const r = n.object as EventReport;
  if (blob !== undefined) r.spec.resources = blob;
  if (!list) return { report: r };
  const fresh = (r.spec.matchingResources ?? []) as unknown[];
  if (fresh.length !== changed.length) {
    // Not one normalised entry per entry (cannot happen for an atomic list of objects): take the slow way.
    const full = normalizeAs('EventReport', blob === undefined ? raw : { ...raw, spec: { ...spec, resources: '' } });
    if (!full.ok) return undefined;
    const f = full.object as EventReport;
    if (blob !== undefined) f.spec.resources = blob;
    return { report: f };
  }
  changed.forEach((i, k) => (reused[i] = fresh[k]));
  r.spec.matchingResources = reused as EventReport['spec']['matchingResources'];
  return { report: r, entries: { raw: list, normalized: reused } };
}

/** sameEntry: two list entries that are objects with the same keys and identical primitive values. */
function sameEntry(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (a === null || b === null || typeof a !== 'object' || typeof b !== 'object' || Array.isArray(a) || Array.isArray(b)) return false;
  const x = a as Record<string, unknown>;
  const y = b as Record<string, unknown>;
  let n = 0;
  for (const k in x) {
    const v = x[k];
    if ((v !== null && typeof v === 'object') || v !== y[k] || !(k in y)) return false;
    n++;
  }
  for (const _k in y) n--;
  return n === 0;
}
