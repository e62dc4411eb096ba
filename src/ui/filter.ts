// filter.ts: server-side filtering and search of the dashboard's lists. A query is space-separated terms, all of
// which must match: `key=value` (a label), `cluster:NAME`, `kind:KIND`, `name:TEXT`, or bare text (a substring of
// any name, kind or cluster). Case-insensitive. Pure.
import type { Page } from './api-types.js';

/** Filter is a parsed query plus paging. */
export interface Filter {
  q?: string;
  offset?: number;
  limit?: number;
}

/** Searchable is what a row exposes to the filter. */
export interface Searchable {
  names: readonly string[];
  kinds: readonly string[];
  clusters: readonly string[];
  labels: Readonly<Record<string, string>>;
}

type Term = { field: 'label'; key: string; value: string } | { field: 'cluster' | 'kind' | 'name' | 'any'; text: string };

/** parseQuery splits a query into terms. */
export function parseQuery(q: string | undefined): Term[] {
  const out: Term[] = [];
  for (const raw of (q ?? '').trim().split(/\s+/)) {
    if (!raw) continue;
    const t = raw.toLowerCase();
    const m = /^(cluster|kind|name):(.*)$/.exec(t);
    if (m) out.push({ field: m[1] as 'cluster' | 'kind' | 'name', text: m[2] });
    else if (t.includes('=')) out.push({ field: 'label', key: t.slice(0, t.indexOf('=')), value: t.slice(t.indexOf('=') + 1) });
    else out.push({ field: 'any', text: t });
  }
  return out;
}

function matches(terms: readonly Term[], s: Searchable): boolean {
  const has = (list: readonly string[], text: string) => list.some((x) => x.toLowerCase().includes(text));
  for (const t of terms) {
    switch (t.field) {
      case 'label':
        if (!Object.entries(s.labels).some(([k, v]) => k.toLowerCase() === t.key && v.toLowerCase() === t.value)) return false;
        break;
      case 'cluster':
        if (!has(s.clusters, t.text)) return false;
        break;
      case 'kind':
        if (!has(s.kinds, t.text)) return false;
        break;
      case 'name':
        if (!has(s.names, t.text)) return false;
        break;
      case 'any':
        if (!has(s.names, t.text) && !has(s.kinds, t.text) && !has(s.clusters, t.text) && !has(Object.entries(s.labels).map(([k, v]) => `${k}=${v}`), t.text)) return false;
        break;
      default:
        return assertNever(t);
    }
  }
  return true;
}

function assertNever(x: never): never {
  throw new Error(`unexpected term ${JSON.stringify(x)}`);
}

/** MAX_LIMIT caps one page (the browser virtualises what it renders; this caps what it receives). */
export const MAX_LIMIT = 5000;

/** filterRows applies a filter and paging to rows (already in display order). */
export function filterRows<T>(rows: readonly T[], f: Filter, search: (row: T) => Searchable): Page<T> {
  const terms = parseQuery(f.q);
  const hits = terms.length === 0 ? rows : rows.filter((r) => matches(terms, search(r)));
  const offset = Math.max(0, f.offset ?? 0);
  const limit = Math.min(MAX_LIMIT, Math.max(0, f.limit ?? MAX_LIMIT));
  return { total: rows.length, matched: hits.length, rows: hits.slice(offset, offset + limit) };
}
