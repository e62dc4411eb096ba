// Informers: list+watch one (GVK, namespace, selectors) into an indexed cache and call handlers with add/update/
// delete (old and new). Watches resume from the last resourceVersion (bookmarks keep it fresh); a 410 Gone relists
// and delivers the DIFF against the cache (adds, updates for changed resourceVersions, deletes for vanished objects);
// connection errors reconnect with capped exponential backoff and jitter; a kind that is not installed yet waits
// for it (CRD watch + discovery polling) and starts as soon as it is served.
// The factory shares one informer per key among all users and stops it when the last one unsubscribes.
// Go: client-go tools/cache (reflector.go, shared_informer.go, delta_fifo.go Replace)
import { silentLogger, type Logger } from '../obs/index.js';
import { Backoff, sleep, type BackoffOptions } from './backoff.js';
import { ObjectCache, objectKey, type CacheObject, type CacheReader, type IndexFunc } from './cache.js';
import { labelSelectorString, type KubeClient, type KubeObject, type Selector, type Watch } from './client.js';
import { errorMessage, isGone, isKindNotInstalled, isNotFound } from './errors.js';

/** InformerKey identifies what an informer watches. */
export interface InformerKey {
  apiVersion: string;
  kind: string;
  /** Watch one namespace only (default: all namespaces). */
  namespace?: string;
  labelSelector?: Selector;
  fieldSelector?: string;
  /** Cache metadata only (PartialObjectMetadata lists and watches, like client-go's metadata informers): objects in
   * the cache and handed to handlers have apiVersion meta.k8s.io/v1, kind PartialObjectMetadata and the metadata. */
  metadataOnly?: boolean;
}

/** EventHandlers receive cache changes. They run synchronously on the informer's event path: keep them quick. */
export interface EventHandlers<T> {
  /** A new object; `initial` is true for objects delivered by the first list (or replayed to a late handler). */
  onAdd?(obj: T, initial: boolean): void;
  /** A changed object (different resourceVersion). */
  onUpdate?(oldObj: T, newObj: T): void;
  /** A deleted object, in its last known state. */
  onDelete?(obj: T): void;
}

/** InformerState is what an informer is doing. */
export type InformerState = 'idle' | 'waiting-for-kind' | 'listing' | 'watching' | 'backoff' | 'stopped';

/** InformerStats counts what an informer did. */
export interface InformerStats {
  lists: number;
  watches: number;
  /** Relists caused by 410 Gone (resourceVersion too old). */
  goneRelists: number;
  /** Failed list/watch attempts (each followed by a backoff delay). */
  failures: number;
}

/** InformerOptions tunes informers (shared by a factory). */
export interface InformerOptions {
  logger?: Logger;
  /** Reconnect backoff (defaults: 200 ms doubling to 30 s, jitter 0.5). */
  backoff?: BackoffOptions;
  /** Server-side watch timeout range: each watch asks for a random value in [min, 2*min] seconds (default 300). */
  minWatchTimeoutSeconds?: number;
  /** Longest wait between discovery checks while a kind is not installed (default 30 s; CRD events wake it sooner). */
  kindPollMaxMs?: number;
  /** List page size (default 500). */
  pageSize?: number;
  /**
   * Drop `fieldsV1` from the cached objects' managedFields entries (who wrote, how and when stay). Field ownership is
   * the API server's business; on a management cluster with tens of thousands of server-side-applied objects it is a
   * large share of each cached object. For factories whose readers never look at field sets.
   */
  compactManagedFields?: boolean;
}

/** compactManagedFields returns the object with fieldsV1 dropped from its managedFields entries (shallow copies). */
export function compactManagedFields<T extends KubeObject>(o: T): T {
  const mf = (o.metadata as { managedFields?: unknown }).managedFields;
  if (!Array.isArray(mf) || !mf.some((e) => e && typeof e === 'object' && 'fieldsV1' in e)) return o;
  const managedFields = mf.map((e) => {
    if (!e || typeof e !== 'object' || !('fieldsV1' in e)) return e;
    const { fieldsV1: _drop, ...rest } = e as Record<string, unknown>;
    return rest;
  });
  return { ...o, metadata: { ...o.metadata, managedFields } };
}

/** InformerView is what a subscriber sees of a shared informer. */
export interface InformerView<T> {
  readonly key: InformerKey;
  readonly cache: CacheReader<T>;
  readonly state: InformerState;
  /** The resourceVersion the cache reflects (last list, event or bookmark). */
  readonly resourceVersion: string;
  /** Counters for diagnostics: lists done, watches opened, 410 relists, failed attempts. */
  readonly stats: InformerStats;
  /** When the cluster last answered this informer (Date.now(): a list, or anything on its watch, bookmarks too); 0 never. */
  readonly lastDataAt: number;
  hasSynced(): boolean;
  /** waitForSync resolves after the first complete list (rejects on timeout or when the informer stops first). */
  waitForSync(opts?: { timeoutMs?: number; signal?: AbortSignal }): Promise<void>;
  /** addIndexer adds a custom index to the shared cache (same name twice must be the same function). */
  addIndexer(name: string, fn: IndexFunc<T>): void;
  /** addHandler attaches more handlers (objects already cached are replayed as initial adds); returns a remover. */
  addHandler(h: EventHandlers<T>): () => void;
}

/** KindWaiter lets an informer wait for a kind to become served; the factory implements it with a CRD watch. */
export interface KindWaiter {
  /** waitForChange resolves when CRDs changed, after maxMs, or when signal aborts. */
  waitForChange(maxMs: number, signal: AbortSignal): Promise<void>;
}

type Obj = KubeObject & CacheObject;

/** informerKeyString renders a key for maps and logs. */
export function informerKeyString(k: InformerKey): string {
  return [k.apiVersion, k.kind, k.namespace ?? '', labelSelectorString(k.labelSelector) ?? '', k.fieldSelector ?? '', k.metadataOnly ? 'metadata' : ''].join('|');
}

/** Informer keeps one cache in sync with the API server. Build them through InformerFactory. */
export class Informer<T extends Obj = Obj> implements InformerView<T> {
  private readonly store = new ObjectCache<T>();
  private readonly handlers = new Set<EventHandlers<T>>();
  private readonly syncWaiters = new Set<{ resolve(): void; reject(e: unknown): void }>();
  private synced = false;
  private rv = '';
  private stateValue: InformerState = 'idle';
  readonly stats: InformerStats = { lists: 0, watches: 0, goneRelists: 0, failures: 0 };
  lastDataAt = 0;
  private abort = new AbortController();
  private current: Watch | undefined;
  private loop: Promise<void> | undefined;
  private readonly log: Logger;
  private readonly backoff: Backoff;
  private readonly kindBackoff: Backoff;

  constructor(
    private readonly client: KubeClient,
    readonly key: InformerKey,
    private readonly options: InformerOptions = {},
    private readonly kindWaiter?: KindWaiter,
  ) {
    this.log = (options.logger ?? silentLogger()).child({ informer: `${key.kind}.${key.apiVersion}`, namespace: key.namespace, cluster: client.name });
    this.backoff = new Backoff(options.backoff);
    this.kindBackoff = new Backoff({ initialMs: 500, maxMs: options.kindPollMaxMs ?? 30_000, jitter: 0.2 });
  }

  get cache(): CacheReader<T> {
    return this.store;
  }

  get state(): InformerState {
    return this.stateValue;
  }

  get resourceVersion(): string {
    return this.rv;
  }

  hasSynced(): boolean {
    return this.synced;
  }

  waitForSync(opts: { timeoutMs?: number; signal?: AbortSignal } = {}): Promise<void> {
    if (this.synced) return Promise.resolve();
    if (this.stateValue === 'stopped') return Promise.reject(new Error(`informer ${this.key.kind} stopped before it synced`));
    return new Promise<void>((resolve, reject) => {
      let timer: NodeJS.Timeout | undefined;
      const onAbort = () => finish(new Error(`waiting for ${this.key.kind} informer to sync was aborted`));
      const w = {
        resolve: () => finish(),
        reject: (e: unknown) => finish(e),
      };
      const finish = (err?: unknown) => {
        if (timer) clearTimeout(timer);
        opts.signal?.removeEventListener('abort', onAbort);
        this.syncWaiters.delete(w);
        if (err === undefined) resolve();
        else reject(err);
      };
      this.syncWaiters.add(w);
      if (opts.timeoutMs !== undefined) {
        timer = setTimeout(() => finish(new Error(`${this.key.kind} (${this.key.apiVersion}) informer did not sync within ${opts.timeoutMs} ms (state: ${this.stateValue})`)), opts.timeoutMs);
      }
      if (opts.signal) {
        if (opts.signal.aborted) onAbort();
        else opts.signal.addEventListener('abort', onAbort, { once: true });
      }
    });
  }

  addIndexer(name: string, fn: IndexFunc<T>): void {
    this.store.addIndexer(name, fn);
  }

  /** addHandler registers handlers; when the cache already holds objects they are replayed as initial adds. */
  addHandler(h: EventHandlers<T>): () => void {
    this.handlers.add(h);
    if (this.synced && h.onAdd) for (const o of this.store.list()) this.call(() => h.onAdd!(o, true));
    return () => {
      this.handlers.delete(h);
    };
  }

  private call(fn: () => void): void {
    try {
      fn();
    } catch (err) {
      // One faulty handler must not break the informer or starve the other handlers.
      this.log.error({ err: errorMessage(err) }, 'informer event handler threw');
    }
  }

  private emitAdd(o: T, initial: boolean): void {
    for (const h of [...this.handlers]) if (h.onAdd) this.call(() => h.onAdd!(o, initial));
  }
  private emitUpdate(old: T, o: T): void {
    for (const h of [...this.handlers]) if (h.onUpdate) this.call(() => h.onUpdate!(old, o));
  }
  private emitDelete(o: T): void {
    for (const h of [...this.handlers]) if (h.onDelete) this.call(() => h.onDelete!(o));
  }

  /** start begins list+watch (idempotent). */
  start(): void {
    if (this.loop || this.stateValue === 'stopped') return;
    this.loop = this.run().catch((err) => {
      this.log.error({ err: errorMessage(err) }, 'informer loop crashed');
    });
  }

  /** stop ends the watch, cancels timers and resolves once the loop has exited. */
  async stop(): Promise<void> {
    if (this.stateValue === 'stopped' && !this.loop) return;
    this.stateValue = 'stopped';
    this.abort.abort();
    this.current?.stop();
    for (const w of [...this.syncWaiters]) w.reject(new Error(`informer ${this.key.kind} stopped before it synced`));
    await this.loop;
    this.loop = undefined;
  }

  private get stopped(): boolean {
    return this.abort.signal.aborted;
  }

  private async run(): Promise<void> {
    let needList = true;
    const gvk = { apiVersion: this.key.apiVersion, kind: this.key.kind };
    while (!this.stopped) {
      try {
        if (needList) {
          this.stateValue = 'listing';
          const list = await this.client.list<T>(gvk, {
            namespace: this.key.namespace,
            labelSelector: this.key.labelSelector,
            fieldSelector: this.key.fieldSelector,
            pageSize: this.options.pageSize,
            metadataOnly: this.key.metadataOnly,
            signal: this.abort.signal,
          });
          if (this.stopped) break;
          this.stats.lists++;
          this.lastDataAt = Date.now();
          this.replace(list.items, list.resourceVersion);
          needList = false;
          this.kindBackoff.reset();
        }
        this.stateValue = 'watching';
        const min = this.options.minWatchTimeoutSeconds ?? 300;
        let received = 0;
        const w = await this.client.watch<T>(
          gvk,
          {
            namespace: this.key.namespace,
            labelSelector: this.key.labelSelector,
            fieldSelector: this.key.fieldSelector,
            resourceVersion: this.rv,
            allowWatchBookmarks: true,
            timeoutSeconds: Math.floor(min * (1 + Math.random())),
            metadataOnly: this.key.metadataOnly,
            signal: this.abort.signal,
          },
          (ev) => {
            received++;
            this.lastDataAt = Date.now();
            this.onWatchEvent(ev.type, ev.object);
          },
        );
        if (this.stopped) {
          w.stop();
          break;
        }
        this.current = w;
        this.stats.watches++;
        const openedAt = Date.now();
        // A watch that lived a while or delivered something proves the connection healthy again; one the server
        // drops at once does not, so the backoff keeps growing (client-go: "very short watch").
        const healthy = () => received > 0 || Date.now() - openedAt >= 1000;
        try {
          await w.done;
        } catch (err) {
          if (healthy()) this.backoff.reset();
          throw err;
        } finally {
          this.current = undefined;
        }
        if (healthy()) this.backoff.reset();
        else if (!this.stopped) {
          this.stateValue = 'backoff';
          await sleep(this.backoff.next(), this.abort.signal);
        }
      } catch (err) {
        if (this.stopped) break;
        if (isGone(err)) {
          // Our resourceVersion fell out of the server's window: relist and deliver the difference.
          this.log.debug({ rv: this.rv }, 'resourceVersion too old; relisting');
          this.stats.goneRelists++;
          needList = true;
          continue;
        }
        if (isKindNotInstalled(err)) {
          this.stateValue = 'waiting-for-kind';
          this.log.debug('kind not served yet; waiting for it');
          needList = true;
          const max = this.kindBackoff.next();
          if (this.kindWaiter) await this.kindWaiter.waitForChange(max, this.abort.signal);
          else await sleep(max, this.abort.signal);
          continue;
        }
        if (isNotFound(err)) {
          // The resource went away under us (CRD deleted): rediscover it before listing again.
          this.client.discovery.invalidate(this.key.apiVersion);
          needList = true;
        }
        this.stateValue = 'backoff';
        this.stats.failures++;
        const delay = this.backoff.next();
        this.log.debug({ err: errorMessage(err), delayMs: delay }, 'list/watch failed; retrying');
        await sleep(delay, this.abort.signal);
      }
    }
    this.stateValue = 'stopped';
  }

  private onWatchEvent(type: string, obj: T): void {
    const rv = obj?.metadata?.resourceVersion;
    switch (type) {
      case 'BOOKMARK':
        if (rv) this.rv = rv;
        return;
      case 'ADDED':
      case 'MODIFIED': {
        const old = this.store.getByKey(objectKey(obj));
        if (old && old.metadata.resourceVersion === rv) break;
        if (this.options.compactManagedFields) obj = compactManagedFields(obj);
        this.store.upsert(obj);
        if (old) this.emitUpdate(old, obj);
        else this.emitAdd(obj, false);
        break;
      }
      case 'DELETED': {
        const old = this.store.remove(objectKey(obj));
        if (old) this.emitDelete(obj);
        break;
      }
    }
    if (rv) this.rv = rv;
  }

  /** replace installs a fresh list and delivers the difference to handlers. Go: DeltaFIFO.Replace */
  private replace(items: T[], rv: string): void {
    const initial = !this.synced;
    const seen = new Set<string>();
    for (let o of items) {
      if (this.options.compactManagedFields) o = compactManagedFields(o);
      const key = objectKey(o);
      seen.add(key);
      const old = this.store.getByKey(key);
      if (old && old.metadata.resourceVersion === o.metadata.resourceVersion) continue;
      this.store.upsert(o);
      if (old) this.emitUpdate(old, o);
      else this.emitAdd(o, initial);
    }
    for (const key of this.store.keys()) {
      if (seen.has(key)) continue;
      const old = this.store.remove(key);
      if (old) this.emitDelete(old);
    }
    this.rv = rv;
    if (!this.synced) {
      this.synced = true;
      for (const w of [...this.syncWaiters]) w.resolve();
    }
  }
}

/** Subscription is one user's handle on a shared informer. */
export interface Subscription<T> {
  readonly informer: InformerView<T>;
  /** unsubscribe removes this user's handlers; the informer stops when its last user leaves. */
  unsubscribe(): Promise<void>;
}

interface Shared {
  informer: Informer<Obj>;
  users: number;
}

/** InformerFactoryOptions configures a factory. */
export interface InformerFactoryOptions extends InformerOptions {}

/** InformerFactory shares informers for one cluster: one list+watch per key, however many subscribers. */
export class InformerFactory {
  private readonly shared = new Map<string, Shared>();
  private readonly log: Logger;
  private readonly crds: CrdWatcher;
  private stopped = false;

  constructor(
    readonly client: KubeClient,
    private readonly options: InformerFactoryOptions = {},
  ) {
    this.log = options.logger ?? silentLogger();
    this.crds = new CrdWatcher(client, this.log);
  }

  /** subscribe returns the shared informer for key (starting it if new) with the given handlers attached. */
  subscribe<T extends Obj = Obj>(key: InformerKey, handlers?: EventHandlers<T>): Subscription<T> {
    if (this.stopped) throw new Error('informer factory is stopped');
    const k = informerKeyString(key);
    let s = this.shared.get(k);
    if (!s) {
      s = { informer: new Informer<Obj>(this.client, { ...key }, this.options, this.crds), users: 0 };
      this.shared.set(k, s);
      s.informer.start();
    }
    s.users++;
    const informer = s.informer as unknown as Informer<T>;
    const remove = handlers ? informer.addHandler(handlers) : () => {};
    let done = false;
    return {
      informer,
      unsubscribe: async () => {
        if (done) return;
        done = true;
        remove();
        const cur = this.shared.get(k);
        if (!cur || cur.informer !== (informer as unknown as Informer<Obj>)) return;
        cur.users--;
        if (cur.users === 0) {
          this.shared.delete(k);
          await cur.informer.stop();
        }
      },
    };
  }

  /** informers lists the running informers (for diagnostics). */
  informers(): InformerView<Obj>[] {
    return [...this.shared.values()].map((s) => s.informer);
  }

  /**
   * liveness is what this factory's watches tell of the cluster without asking it anything: when data last arrived
   * on a watch that is open now (0: none open), and whether an informer is failing (in backoff after an error). A
   * watch open with data (an event, or the server's periodic bookmark) as recent as a probe would be is the same
   * evidence a probe gives: the API server answers through this kubeconfig.
   */
  liveness(): { lastDataAt: number; failing: boolean } {
    let lastDataAt = 0;
    let failing = false;
    for (const { informer: i } of this.shared.values()) {
      if (i.state === 'backoff' && i.stats.failures > 0) failing = true;
      else if (i.state === 'watching' && i.lastDataAt > lastDataAt) lastDataAt = i.lastDataAt;
    }
    return { lastDataAt, failing };
  }

  /** stop stops every informer and the CRD watch. */
  async stop(): Promise<void> {
    this.stopped = true;
    const all = [...this.shared.values()];
    this.shared.clear();
    await Promise.all(all.map((s) => s.informer.stop()));
    await this.crds.stop();
  }
}

/** While the CRD watch is open, an informer waiting for a kind rechecks discovery at least this often. */
const WATCHED_KIND_WAIT_MS = 300_000;

/**
 * CrdWatcher wakes informers waiting for a kind whenever a CustomResourceDefinition changes. Its watch runs while
 * someone waits and lingers a while after the last waiter left (an informer whose kind is still missing comes back
 * at once after its retry, and must find the watch still open rather than open a new one). When the watch is
 * established it wakes the waiters that registered before — they may have missed a CRD created meanwhile — and
 * only those: a waiter that finds the watch open sleeps until a CRD changes or its own backoff expires.
 */
class CrdWatcher implements KindWaiter {
  private readonly waiters = new Map<() => void, { beforeWatch: boolean }>();
  private watch: Watch | undefined;
  private starting: Promise<void> | undefined;
  private abort = new AbortController();
  private linger: NodeJS.Timeout | undefined;
  private restart: NodeJS.Timeout | undefined;
  /** Spaces out watch attempts after failures or watches that end early; reset by a watch that lived a while. */
  private readonly retry = new Backoff({ initialMs: 1000, maxMs: 30_000, jitter: 0.2 });
  private retryAt = 0;
  /** Watch attempts made (for tests and diagnostics). */
  watchesStarted = 0;

  constructor(
    private readonly client: KubeClient,
    private readonly log: Logger,
    private readonly lingerMs = 30_000,
  ) {}

  waitForChange(maxMs: number, signal: AbortSignal): Promise<void> {
    return new Promise<void>((resolve) => {
      const wake = () => {
        clearTimeout(timer);
        signal.removeEventListener('abort', wake);
        this.waiters.delete(wake);
        if (this.waiters.size === 0) this.scheduleStop();
        resolve();
      };
      // With the CRD watch open, a new CRD wakes the waiter at once: the timer only covers kinds served some other
      // way (aggregated APIs), so it is as long as a watch renewal — no discovery request every few seconds.
      const timer = setTimeout(wake, this.watch ? Math.max(maxMs, WATCHED_KIND_WAIT_MS) : maxMs);
      signal.addEventListener('abort', wake, { once: true });
      if (this.linger) {
        clearTimeout(this.linger);
        this.linger = undefined;
      }
      this.waiters.set(wake, { beforeWatch: this.watch === undefined });
      this.ensureWatch();
    });
  }

  private wakeAll(): void {
    for (const w of [...this.waiters.keys()]) w();
  }

  private wakeEarlyWaiters(): void {
    for (const [w, info] of [...this.waiters]) if (info.beforeWatch) w();
  }

  private scheduleStop(): void {
    if (this.linger) clearTimeout(this.linger);
    this.linger = setTimeout(() => {
      this.linger = undefined;
      if (this.waiters.size === 0) this.stopWatch();
    }, this.lingerMs);
    this.linger.unref?.();
  }

  private ensureWatch(): void {
    if (this.watch || this.starting || this.restart || Date.now() < this.retryAt) return;
    this.abort = new AbortController();
    const signal = this.abort.signal;
    this.watchesStarted++;
    this.starting = (async () => {
      try {
        const page = await this.client.request<{ metadata?: { resourceVersion?: string } }>({
          method: 'GET',
          path: '/apis/apiextensions.k8s.io/v1/customresourcedefinitions',
          query: { limit: 1 },
          signal,
        });
        if (signal.aborted) return;
        const w = await this.client.watch(
          { apiVersion: 'apiextensions.k8s.io/v1', kind: 'CustomResourceDefinition' },
          { resourceVersion: page.metadata?.resourceVersion, allowWatchBookmarks: false, signal },
          (ev) => {
            const spec = (ev.object as { spec?: { group?: string; versions?: { name: string }[] } }).spec;
            for (const v of spec?.versions ?? []) this.client.discovery.invalidate(`${spec?.group}/${v.name}`);
            this.wakeAll();
          },
        );
        if (signal.aborted) {
          w.stop();
          return;
        }
        this.watch = w;
        this.wakeEarlyWaiters();
        const openedAt = Date.now();
        w.done
          .catch((err) => this.log.debug({ err: errorMessage(err) }, 'CRD watch ended'))
          .finally(() => {
            if (this.watch !== w) return;
            this.watch = undefined;
            // Waiters of an ended watch could miss a change until it is back: treat them as early waiters, and
            // reopen it after a delay that grows while watches keep ending early.
            for (const info of this.waiters.values()) info.beforeWatch = true;
            if (Date.now() - openedAt >= 10_000) this.retry.reset();
            if (this.waiters.size > 0 && !signal.aborted) this.scheduleRestart(this.retry.next());
          });
      } catch (err) {
        // No CRD API or no access: waiters fall back to their own backoff timers (discovery on each retry); the
        // watch is tried again after a growing delay, not on every waiter's retry.
        if (!signal.aborted) this.retryAt = Date.now() + this.retry.next();
        this.log.debug({ err: errorMessage(err) }, 'cannot watch CRDs; polling discovery instead');
      } finally {
        this.starting = undefined;
      }
    })();
  }

  private scheduleRestart(ms: number): void {
    if (this.restart) return;
    this.restart = setTimeout(() => {
      this.restart = undefined;
      if (this.waiters.size > 0) this.ensureWatch();
    }, ms);
    this.restart.unref?.();
  }

  private stopWatch(): void {
    if (this.restart) clearTimeout(this.restart);
    this.restart = undefined;
    this.abort.abort();
    this.watch?.stop();
    this.watch = undefined;
  }

  async stop(): Promise<void> {
    if (this.linger) clearTimeout(this.linger);
    this.linger = undefined;
    this.stopWatch();
    await this.starting;
  }
}
