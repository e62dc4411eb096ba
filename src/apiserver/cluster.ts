// Cluster: the in-memory state of one virtual cluster (tables of objects, indexes, allocators, resource registry,
// watch hub) and the only place that writes it. Every write is queued into the store's group commit; watch events
// are published after the commit, and a failed commit undoes the memory change.
import { newNodePortAllocator, newServiceIPAllocator, type RangeAllocator } from './allocator.js';
import type { Allocator, ResourceDescriptor } from './resource.js';
import { gvString } from './resource.js';
import { leanStorage, ParsedCache, serialize, serializeVersion, StoredObject, storedObject, textByteLength, textLength } from './parsed.js';

export { serialize };
import { forbidden, requestEntityTooLarge } from './status.js';
import type { Store } from './store.js';
import type { KubeObject, ObjectMeta, Stored } from './types.js';
import { WatchHub, type ChangeEvent, type WindowBudget } from './watch.js';

/** MAX_OBJECT_BYTES is etcd's default request limit (1.5 MiB); larger objects are refused with 413. */
export const MAX_OBJECT_BYTES = 1.5 * 1024 * 1024;

/** ClusterLimits bound what one virtual cluster may hold and send, so that one cluster's credential cannot exhaust
 * the process every cluster shares. */
export interface ClusterLimits {
  /** Objects stored in the cluster, all resources together (kube: a ResourceQuota on count/*). Beyond: 403. */
  maxObjects: number;
  /** Characters of stored JSON in the cluster, all objects together (the memory and disk it costs). Beyond: 403. */
  maxBytes: number;
  /** Characters of one stored object's JSON (etcd's --max-request-bytes). Beyond: 413. */
  maxObjectBytes: number;
  /** Bytes of one request body (kube-apiserver's 3 MiB). Beyond: 413. */
  maxRequestBodyBytes: number;
  /** Nesting of objects and arrays in one request body. Beyond: 400. */
  maxNestingDepth: number;
}

/** DEFAULT_CLUSTER_LIMITS are the per-virtual-cluster limits unless configured: 200,000 objects and 512 MiB of JSON
 * per cluster (the management cluster of a 1,000-cluster fleet holds tens of thousands of objects), 1.5 MiB per
 * object, 3 MiB per request body, nesting 1,000 deep. */
export const DEFAULT_CLUSTER_LIMITS: ClusterLimits = {
  maxObjects: 200_000,
  maxBytes: 512 * 1024 * 1024,
  maxObjectBytes: MAX_OBJECT_BYTES,
  maxRequestBodyBytes: 3 * 1024 * 1024,
  maxNestingDepth: 1000,
};

/** Logger is the logging port the server uses (pino-compatible subset). */
export interface Logger {
  info(obj: object, msg?: string): void;
  warn(obj: object, msg?: string): void;
  error(obj: object, msg?: string): void;
  debug(obj: object, msg?: string): void;
}

/** ServerContext is what every cluster shares: the store, the resourceVersion counter and the clock. */
export interface ServerContext {
  readonly store: Store;
  nextRv(): number;
  currentRv(): number;
  now(): Date;
  readonly logger: Logger;
  readonly watchWindow: number;
  /** Bytes of JSON the watch window may hold (default DEFAULT_WATCH_WINDOW_BYTES). */
  readonly watchWindowBytes?: number;
  /** Per-cluster limits (default DEFAULT_CLUSTER_LIMITS). */
  readonly limits?: ClusterLimits;
  /** The budget of parsed objects every cluster of the server shares (parsed.ts); default: one of the cluster's own. */
  readonly parsedCache?: ParsedCache;
  /** The bound every cluster's watch window shares (watch.ts; default: none beyond each window's own). */
  readonly watchWindows?: WindowBudget;
}

/** Table holds the objects of one storage key, by "namespace/name". */
export class Table {
  readonly objects = new Map<string, Stored>();
  private sorted: string[] | undefined;

  /** sortedKeys returns the keys in etcd key order (cached until the key set changes). */
  sortedKeys(): string[] {
    if (!this.sorted) this.sorted = [...this.objects.keys()].sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
    return this.sorted;
  }

  /** set stores an entry, invalidating the key order when the key is new. */
  set(key: string, s: Stored): void {
    if (!this.objects.has(key)) this.sorted = undefined;
    this.objects.set(key, s);
  }

  /** delete removes an entry. */
  delete(key: string): void {
    if (this.objects.delete(key)) this.sorted = undefined;
  }
}

/** objectKey is the key of an object in its table. */
export function objectKey(namespace: string | undefined, name: string): string {
  return `${namespace ?? ''}/${name}`;
}

/** sizeOf is the length of a stored version's JSON (0 for none). */
export function sizeOf(s: Stored | undefined): number {
  return s === undefined ? 0 : (s.size ?? s.json?.length ?? 0);
}

interface RegistryIndex {
  readonly list: ResourceDescriptor[];
  readonly byGVR: Map<string, ResourceDescriptor>;
  readonly byGR: Map<string, ResourceDescriptor>;
  readonly byStorage: Map<string, ResourceDescriptor>;
  generation: number;
}

// The index of a list of built-in descriptors, built once and shared by every cluster serving exactly that list until
// the cluster registers a CRD (a thousand virtual clusters held a thousand equal copies, ~17 KiB each).
const sharedIndexes = new WeakMap<readonly ResourceDescriptor[], RegistryIndex>();

function indexAdd(ix: RegistryIndex, d: ResourceDescriptor): void {
  indexRemove(ix, d.group, d.plural);
  ix.list.push(d);
  for (const v of d.versions) ix.byGVR.set(`${d.group}/${v}/${d.plural}`, d);
  ix.byGR.set(`${d.group}/${d.plural}`, d);
  if (!ix.byStorage.has(d.storage) || d.storage === `${d.group}/${d.plural}`) ix.byStorage.set(d.storage, d);
  ix.generation++;
}

function indexRemove(ix: RegistryIndex, group: string, plural: string): ResourceDescriptor | undefined {
  const d = ix.byGR.get(`${group}/${plural}`);
  if (!d) return undefined;
  ix.list.splice(ix.list.indexOf(d), 1);
  for (const v of d.versions) ix.byGVR.delete(`${d.group}/${v}/${d.plural}`);
  ix.byGR.delete(`${group}/${plural}`);
  if (ix.byStorage.get(d.storage) === d) ix.byStorage.delete(d.storage);
  ix.generation++;
  return d;
}

/** ResourceRegistry indexes the descriptors a cluster serves (built-ins plus its CRDs). */
export class ResourceRegistry {
  private ix: RegistryIndex;
  /** Whether ix is the shared index of the built-ins (copied before the first change). */
  private shared: boolean;

  constructor(builtins: readonly ResourceDescriptor[]) {
    let base = sharedIndexes.get(builtins);
    if (!base) {
      base = { list: [], byGVR: new Map(), byGR: new Map(), byStorage: new Map(), generation: 0 };
      for (const d of builtins) indexAdd(base, d);
      sharedIndexes.set(builtins, base);
    }
    this.ix = base;
    this.shared = true;
  }

  /** generation increments on every change (discovery caches key on it). */
  get generation(): number {
    return this.ix.generation;
  }

  private own(): RegistryIndex {
    if (this.shared) {
      const b = this.ix;
      this.ix = { list: [...b.list], byGVR: new Map(b.byGVR), byGR: new Map(b.byGR), byStorage: new Map(b.byStorage), generation: b.generation };
      this.shared = false;
    }
    return this.ix;
  }

  /** add registers a descriptor (replacing one with the same group and plural). */
  add(d: ResourceDescriptor): void {
    indexAdd(this.own(), d);
  }

  /** remove unregisters the descriptor of group/plural. */
  remove(group: string, plural: string): ResourceDescriptor | undefined {
    if (!this.ix.byGR.has(`${group}/${plural}`)) return undefined;
    return indexRemove(this.own(), group, plural);
  }

  /** lookup finds the descriptor serving group/version/plural. */
  lookup(group: string, version: string, plural: string): ResourceDescriptor | undefined {
    return this.ix.byGVR.get(`${group}/${version}/${plural}`);
  }

  /** forGroupResource finds the descriptor of group/plural (any version). */
  forGroupResource(group: string, plural: string): ResourceDescriptor | undefined {
    return this.ix.byGR.get(`${group}/${plural}`);
  }

  /** forStorage finds the primary descriptor of a storage table. */
  forStorage(storage: string): ResourceDescriptor | undefined {
    return this.ix.byStorage.get(storage);
  }

  /** forKind finds the descriptor serving apiVersion + kind. */
  forKind(apiVersion: string, kind: string): ResourceDescriptor | undefined {
    return this.ix.list.find((d) => d.kind === kind && d.versions.some((v) => gvString(d.group, v) === apiVersion));
  }

  /** all lists the descriptors in registration order. */
  all(): readonly ResourceDescriptor[] {
    return this.ix.list;
  }
}

/** Cluster is one virtual cluster's state. */
export class Cluster {
  readonly hub: WatchHub;
  readonly tables = new Map<string, Table>();
  readonly registry: ResourceRegistry;
  private readonly uidIndex = new Map<string, { storage: string; key: string }>();
  private readonly ownerIndex = new Map<string, Set<string>>();
  private readonly allocators = new Map<string, RangeAllocator>();
  /** Changes made in memory whose commit is still pending, in resourceVersion order. */
  private readonly uncommitted = new Set<ChangeEvent>();
  private readonly writeListeners: ((storage: string, cur: Stored | undefined, prev: Stored | undefined) => void)[] = [];
  /** Objects and characters of JSON stored, for the limits. */
  private objectCount = 0;
  private jsonBytes = 0;
  readonly limits: ClusterLimits;
  private readonly parsed: ParsedCache;

  constructor(
    readonly name: string,
    public token: string,
    readonly ctx: ServerContext,
    builtins: ResourceDescriptor[],
  ) {
    this.hub = new WatchHub(ctx.currentRv(), ctx.watchWindow, ctx.watchWindowBytes, ctx.watchWindows);
    this.limits = ctx.limits ?? DEFAULT_CLUSTER_LIMITS;
    this.parsed = ctx.parsedCache ?? new ParsedCache();
    this.registry = new ResourceRegistry(builtins);
    this.allocators.set('serviceIPs', newServiceIPAllocator());
    this.allocators.set('nodePorts', newNodePortAllocator());
  }

  /** allocator returns a named allocator ('serviceIPs', 'nodePorts', 'loadBalancer'). */
  allocator(name: string): Allocator {
    const a = this.allocators.get(name);
    if (!a) throw new Error(`no allocator ${name}`);
    return a;
  }

  /** setAllocator installs (or replaces) a named allocator, e.g. the load-balancer pool. */
  setAllocator(name: string, a: RangeAllocator): void {
    this.allocators.set(name, a);
  }

  /** onWrite registers a listener run synchronously on every change in memory (and on its undo after a failed
   * commit), before the change is committed; the CRD registry uses it so a new resource is served at once. */
  onWrite(fn: (storage: string, cur: Stored | undefined, prev: Stored | undefined) => void): void {
    this.writeListeners.push(fn);
  }

  private notify(storage: string, cur: Stored | undefined, prev: Stored | undefined): void {
    for (const fn of this.writeListeners) fn(storage, cur, prev);
  }

  /** table returns (creating) the table of a storage key. */
  table(storage: string): Table {
    let t = this.tables.get(storage);
    if (!t) this.tables.set(storage, (t = new Table()));
    return t;
  }

  /** get reads one object. */
  get(storage: string, namespace: string | undefined, name: string): Stored | undefined {
    return this.tables.get(storage)?.objects.get(objectKey(namespace, name));
  }

  /** changesSince lists the changes of one table after rv — committed ones from the watch window, then pending ones —
   * or undefined when rv is older than the window. */
  changesSince(storage: string, rv: number): ChangeEvent[] | undefined {
    const committed = this.hub.since(storage, rv);
    if (!committed) return undefined;
    for (const ev of this.uncommitted) if (ev.storage === storage && ev.rv > rv) committed.push(ev);
    return committed;
  }

  /** byUid finds an object by metadata.uid. */
  byUid(uid: string): Stored | undefined {
    const at = this.uidIndex.get(uid);
    return at ? this.tables.get(at.storage)?.objects.get(at.key) : undefined;
  }

  /** dependentsOf lists [storage, key] of the objects whose ownerReferences name uid. */
  dependentsOf(uid: string): { storage: string; key: string }[] {
    const set = this.ownerIndex.get(uid);
    if (!set) return [];
    return [...set].map((s) => {
      const i = s.indexOf('\u0000');
      return { storage: s.slice(0, i), key: s.slice(i + 1) };
    });
  }

  private index(storage: string, key: string, meta: ObjectMeta | undefined, add: boolean): void {
    if (!meta) return;
    if (meta.uid) {
      if (add) this.uidIndex.set(meta.uid, { storage, key });
      else if (this.uidIndex.get(meta.uid)?.key === key) this.uidIndex.delete(meta.uid);
    }
    for (const ref of meta.ownerReferences ?? []) {
      if (!ref?.uid) continue;
      const id = `${storage}\u0000${key}`;
      let set = this.ownerIndex.get(ref.uid);
      if (add) {
        if (!set) this.ownerIndex.set(ref.uid, (set = new Set()));
        set.add(id);
      } else if (set) {
        set.delete(id);
        if (set.size === 0) this.ownerIndex.delete(ref.uid);
      }
    }
  }

  /** usage is what the cluster stores now: objects and characters of JSON. */
  usage(): { objects: number; bytes: number } {
    return { objects: this.objectCount, bytes: this.jsonBytes };
  }

  private setEntry(storage: string, key: string, prev: Stored | undefined, next: Stored | undefined): void {
    const t = this.table(storage);
    this.objectCount += (next ? 1 : 0) - (prev ? 1 : 0);
    this.jsonBytes += sizeOf(next) - sizeOf(prev);
    if (prev) this.index(storage, key, prev.obj.metadata, false);
    if (next) {
      t.set(key, next);
      this.index(storage, key, next.obj.metadata, true);
    } else t.delete(key);
  }

  /** load puts an object read from the store at startup (no write, no event). */
  load(storage: string, obj: KubeObject & { metadata: ObjectMeta }, rv: number, json: string): void {
    const key = objectKey(obj.metadata.namespace, obj.metadata.name!);
    this.setEntry(storage, key, undefined, storedObject(storage, obj, rv, json, this.parsed));
  }

  /** put writes obj (resourceVersion assigned here) and queues it for commit. Throws 413 when the object is too
   * large and 403 when the cluster would exceed its object or byte limit (writes that shrink it always pass). */
  put(storage: string, obj: KubeObject & { metadata: ObjectMeta }, opts: { onFail?: () => void } = {}): Stored {
    const key = objectKey(obj.metadata.namespace, obj.metadata.name!);
    const t = this.table(storage);
    const prev = t.objects.get(key);
    const prevRv = obj.metadata.resourceVersion;
    obj.metadata.resourceVersion = String(this.ctx.currentRv() + 1);
    const { json, spans } = serializeVersion(obj, prev);
    const { maxObjectBytes, maxObjects, maxBytes } = this.limits;
    try {
      const length = textLength(json);
      if (length > maxObjectBytes && textByteLength(json) > maxObjectBytes) {
        throw requestEntityTooLarge('etcdserver: request is too large');
      }
      const resource = storage.slice(storage.indexOf('/') + 1);
      const group = storage.slice(0, storage.indexOf('/'));
      if (!prev && this.objectCount + 1 > maxObjects) {
        throw forbidden({ group, resource }, obj.metadata.name!, `exceeded quota: cluster-objects, requested: count=1, used: count=${this.objectCount}, limited: count=${maxObjects}`);
      }
      const grow = length - sizeOf(prev);
      if (grow > 0 && this.jsonBytes + grow > maxBytes) {
        throw forbidden({ group, resource }, obj.metadata.name!, `exceeded quota: cluster-bytes, requested: bytes=${grow}, used: bytes=${this.jsonBytes}, limited: bytes=${maxBytes}`);
      }
    } catch (e) {
      obj.metadata.resourceVersion = prevRv;
      throw e;
    }
    const rv = this.ctx.nextRv();
    const next = storedObject(storage, obj, rv, json, this.parsed);
    if (spans && !leanStorage(storage)) next.spans = spans;
    this.setEntry(storage, key, prev, next);
    this.notify(storage, next, prev);
    const ev: ChangeEvent = { type: prev ? 'MODIFIED' : 'ADDED', rv, storage, cur: next, prev };
    this.uncommitted.add(ev);
    this.ctx.store.write(
      { op: 'put', cluster: this.name, resource: storage, namespace: obj.metadata.namespace ?? '', name: obj.metadata.name!, rv, data: json },
      {
        committed: () => {
          this.uncommitted.delete(ev);
          this.hub.publish(ev);
          // The replaced version is history now (its watch event is out): its parsed form leaves the budget.
          if (prev instanceof StoredObject && t.objects.get(key) !== prev) prev.retire();
        },
        failed: () => {
          this.uncommitted.delete(ev);
          if (t.objects.get(key) === next) {
            this.setEntry(storage, key, next, prev);
            this.notify(storage, prev, next);
          }
          opts.onFail?.();
        },
      },
    );
    return next;
  }

  /** remove deletes an object and queues the deletion; returns the deletion's resourceVersion. */
  remove(storage: string, namespace: string | undefined, name: string, opts: { onCommit?: () => void } = {}): number {
    const key = objectKey(namespace, name);
    const t = this.table(storage);
    const prev = t.objects.get(key);
    if (!prev) throw new Error(`remove of missing ${storage} ${key}`);
    const rv = this.ctx.nextRv();
    this.setEntry(storage, key, prev, undefined);
    this.notify(storage, undefined, prev);
    const ev: ChangeEvent = { type: 'DELETED', rv, storage, prev };
    this.uncommitted.add(ev);
    this.ctx.store.write(
      { op: 'delete', cluster: this.name, resource: storage, namespace: namespace ?? '', name, rv },
      {
        committed: () => {
          this.uncommitted.delete(ev);
          this.hub.publish(ev);
          opts.onCommit?.();
          if (prev instanceof StoredObject && t.objects.get(key) !== prev) prev.retire();
        },
        failed: () => {
          this.uncommitted.delete(ev);
          if (!t.objects.has(key)) {
            this.setEntry(storage, key, undefined, prev);
            this.notify(storage, prev, undefined);
          }
        },
      },
    );
    return rv;
  }
}
