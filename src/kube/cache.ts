// The informer's in-memory store: objects by key (`namespace/name`, or `name` for cluster-scoped kinds), a namespace
// index, label-selector listing and custom indexers (e.g. by label value). Informers own the writes; everyone else
// reads through CacheReader. Go: client-go tools/cache (thread_safe_store.go, index.go)
import { matchesLabelSelector, parseLabelSelector, type LabelSelector } from '../api/index.js';

/** IndexFunc computes the index values of an object (none: the object is not in that index). */
export type IndexFunc<T> = (obj: T) => readonly string[];

/** CacheObject is what a cache holds: anything with metadata.name (namespace optional). */
export interface CacheObject {
  metadata: { name: string; namespace?: string; labels?: Record<string, string>; resourceVersion?: string };
}

/** objectKey is the cache key of an object: `namespace/name`, or `name` when it has no namespace. */
export function objectKey(obj: CacheObject): string {
  const ns = obj.metadata.namespace;
  return ns ? `${ns}/${obj.metadata.name}` : obj.metadata.name;
}

/** StatusAware is an object whose metadata tells a status-only write apart (generation counts spec changes). */
type StatusAware = { metadata: { generation?: number; deletionTimestamp?: string; labels?: unknown; annotations?: unknown; finalizers?: unknown; ownerReferences?: unknown } };

/**
 * onlyStatusChanged reports whether b differs from a only in status (and resourceVersion/managedFields): same
 * generation — kinds with a status subresource bump it on spec changes only — and the same labels, annotations,
 * finalizers, owners and deletion state. Kinds without a generation never qualify. Controllers skip such updates
 * when their reconcile does not read the status, so their own status writes do not wake them again.
 */
export function onlyStatusChanged(a: StatusAware, b: StatusAware): boolean {
  const m = a.metadata;
  const n = b.metadata;
  return (
    m.generation !== undefined &&
    m.generation === n.generation &&
    m.deletionTimestamp === n.deletionTimestamp &&
    JSON.stringify([m.labels, m.annotations, m.finalizers, m.ownerReferences]) === JSON.stringify([n.labels, n.annotations, n.finalizers, n.ownerReferences])
  );
}

/**
 * onlyFinalizersChanged is onlyStatusChanged that also lets the finalizers differ — with `added`, only by that one
 * finalizer being added. A controller that adds its finalizer and carries on in the same reconcile, or one that never
 * reads others' finalizers, need not wake for it.
 */
export function onlyFinalizersChanged(a: StatusAware, b: StatusAware, added?: string): boolean {
  const m = a.metadata;
  const n = b.metadata;
  if (m.generation === undefined || m.generation !== n.generation || m.deletionTimestamp !== n.deletionTimestamp) return false;
  if (JSON.stringify([m.labels, m.annotations, m.ownerReferences]) !== JSON.stringify([n.labels, n.annotations, n.ownerReferences])) return false;
  if (added === undefined) return true;
  const before = (m.finalizers ?? []) as string[];
  const after = (n.finalizers ?? []) as string[];
  return !before.includes(added) && after.length === before.length + 1 && after.includes(added) && before.every((f) => after.includes(f));
}

/** splitKey splits a cache key into namespace ('' for cluster-scoped) and name. */
export function splitKey(key: string): { namespace: string; name: string } {
  const i = key.indexOf('/');
  return i < 0 ? { namespace: '', name: key } : { namespace: key.slice(0, i), name: key.slice(i + 1) };
}

/** CacheListOptions filters a cache listing. */
export interface CacheListOptions {
  namespace?: string;
  /** A LabelSelector or its string form (`app=x,tier in (a,b)`). */
  labelSelector?: LabelSelector | string;
}

/** CacheReader is the read side of an informer cache. Objects are shared: treat them as immutable. */
export interface CacheReader<T> {
  get(namespace: string | undefined, name: string): T | undefined;
  getByKey(key: string): T | undefined;
  list(opts?: CacheListOptions): T[];
  /** byIndex lists the objects whose index `indexName` contains value. */
  byIndex(indexName: string, value: string): T[];
  /** indexValues lists the values present in an index. */
  indexValues(indexName: string): string[];
  keys(): string[];
  readonly size: number;
}

/** CacheError reports a misuse of the cache (unknown index, conflicting indexer, bad selector). */
export class CacheError extends Error {
  override readonly name = 'CacheError';
  constructor(
    readonly code: 'UnknownIndex' | 'IndexerConflict' | 'BadSelector',
    message: string,
  ) {
    super(message);
  }
}

const NAMESPACE_INDEX = '\u0000namespace';

/** ObjectCache is an indexed map of objects; informers mutate it, consumers read it through CacheReader. */
export class ObjectCache<T extends CacheObject> implements CacheReader<T> {
  private readonly objects = new Map<string, T>();
  private readonly indexers = new Map<string, IndexFunc<T>>();
  /** index name → value → keys. */
  private readonly indices = new Map<string, Map<string, Set<string>>>();

  constructor() {
    this.indexers.set(NAMESPACE_INDEX, (o) => [o.metadata.namespace ?? '']);
    this.indices.set(NAMESPACE_INDEX, new Map());
  }

  get size(): number {
    return this.objects.size;
  }

  get(namespace: string | undefined, name: string): T | undefined {
    return this.objects.get(namespace ? `${namespace}/${name}` : name);
  }

  getByKey(key: string): T | undefined {
    return this.objects.get(key);
  }

  keys(): string[] {
    return [...this.objects.keys()];
  }

  list(opts: CacheListOptions = {}): T[] {
    let sel: LabelSelector | undefined;
    if (typeof opts.labelSelector === 'string') {
      if (opts.labelSelector.trim() !== '') {
        const r = parseLabelSelector(opts.labelSelector);
        if (!r.ok) throw new CacheError('BadSelector', `invalid label selector ${JSON.stringify(opts.labelSelector)}: ${r.error}`);
        sel = r.selector;
      }
    } else sel = opts.labelSelector;
    const candidates = opts.namespace !== undefined ? this.byIndex(NAMESPACE_INDEX, opts.namespace) : [...this.objects.values()];
    if (!sel) return candidates;
    return candidates.filter((o) => matchesLabelSelector(sel, o.metadata.labels));
  }

  byIndex(indexName: string, value: string): T[] {
    const idx = this.indices.get(indexName);
    if (!idx) throw new CacheError('UnknownIndex', `no index named ${JSON.stringify(indexName)}`);
    const keys = idx.get(value);
    if (!keys) return [];
    const out: T[] = [];
    for (const k of keys) {
      const o = this.objects.get(k);
      if (o) out.push(o);
    }
    return out;
  }

  indexValues(indexName: string): string[] {
    const idx = this.indices.get(indexName);
    if (!idx) throw new CacheError('UnknownIndex', `no index named ${JSON.stringify(indexName)}`);
    return [...idx.keys()];
  }

  /** addIndexer registers an index and builds it over the current objects; the same function twice is a no-op. */
  addIndexer(name: string, fn: IndexFunc<T>): void {
    const existing = this.indexers.get(name);
    if (existing === fn) return;
    if (existing) throw new CacheError('IndexerConflict', `index ${JSON.stringify(name)} already exists with a different function`);
    this.indexers.set(name, fn);
    const idx = new Map<string, Set<string>>();
    this.indices.set(name, idx);
    for (const [key, obj] of this.objects) this.indexInto(idx, fn, key, obj);
  }

  private indexInto(idx: Map<string, Set<string>>, fn: IndexFunc<T>, key: string, obj: T): void {
    for (const v of fn(obj)) {
      let keys = idx.get(v);
      if (!keys) idx.set(v, (keys = new Set()));
      keys.add(key);
    }
  }

  private unindex(key: string, obj: T): void {
    for (const [name, fn] of this.indexers) {
      const idx = this.indices.get(name)!;
      for (const v of fn(obj)) {
        const keys = idx.get(v);
        if (!keys) continue;
        keys.delete(key);
        if (keys.size === 0) idx.delete(v);
      }
    }
  }

  /** upsert stores an object and returns the previous version under its key. */
  upsert(obj: T): T | undefined {
    const key = objectKey(obj);
    const old = this.objects.get(key);
    if (old) this.unindex(key, old);
    this.objects.set(key, obj);
    for (const [name, fn] of this.indexers) this.indexInto(this.indices.get(name)!, fn, key, obj);
    return old;
  }

  /** remove drops an object by key and returns it. */
  remove(key: string): T | undefined {
    const old = this.objects.get(key);
    if (!old) return undefined;
    this.unindex(key, old);
    this.objects.delete(key);
    return old;
  }

  /** clear drops every object (indexers stay). */
  clear(): void {
    this.objects.clear();
    for (const idx of this.indices.values()) idx.clear();
  }
}
