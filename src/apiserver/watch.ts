// Watch machinery of one virtual cluster: the committed-event window (to resume a watch from a resourceVersion),
// fan-out to subscribers per storage table, and kube's cacher filtering semantics (an object moving out of a
// selector is a DELETED event, moving in is ADDED).
import type { KubeObject, Stored } from './types.js';

/** WatchEventType is the type of a watch event on the wire. */
export type WatchEventType = 'ADDED' | 'MODIFIED' | 'DELETED';

/** ChangeEvent is one committed change of one object. */
export interface ChangeEvent {
  type: WatchEventType;
  rv: number;
  storage: string;
  /** The object after the change (absent for DELETED). */
  cur?: Stored;
  /** The object before the change (absent for ADDED). */
  prev?: Stored;
  /** Renderings cached per output key (e.g. "json:v1"), shared by all subscribers (see EventLine). */
  cache?: Map<string, EventLine>;
}

/**
 * EventLine is one watch event's line: a string, or the pieces of a large one. Joining the object's JSON with the
 * line's head and tail would copy it into a new string, and a string above V8's 128 KiB regular-object size is a
 * large-object allocation (an mmap and page faults each time); pieces are written to the socket one after the other.
 */
export type EventLine = string | readonly string[];

/** deletedObject is the object a DELETED event carries: the last state with the deletion's resourceVersion. */
export function deletedObject(ev: ChangeEvent): KubeObject {
  const last = ev.prev!.obj;
  return { ...last, metadata: { ...last.metadata, resourceVersion: String(ev.rv) } };
}

/** Subscriber receives the committed events of one storage table. */
export interface Subscriber {
  readonly storage: string;
  onEvent(ev: ChangeEvent): void;
  /** close ends the subscription from the server side (its resource went away, the server stops). */
  close(): void;
}

/** filterEvent applies a subscriber's predicate like kube's cacheWatcher.convertToWatchEvent. */
export function filterEvent(ev: ChangeEvent, matches: (obj: KubeObject) => boolean): { type: WatchEventType; obj: KubeObject } | undefined {
  const curPasses = ev.type !== 'DELETED' && ev.cur !== undefined && matches(ev.cur.obj);
  const prevPasses = ev.prev !== undefined && matches(ev.prev.obj);
  if (curPasses && !prevPasses) return { type: 'ADDED', obj: ev.cur!.obj };
  if (curPasses && prevPasses) return { type: 'MODIFIED', obj: ev.cur!.obj };
  if (!curPasses && prevPasses) return { type: 'DELETED', obj: deletedObject(ev) };
  return undefined;
}

/** DEFAULT_WATCH_WINDOW_BYTES bounds the JSON text a cluster's watch window holds (32 MiB). */
export const DEFAULT_WATCH_WINDOW_BYTES = 32 * 1024 * 1024;

/** DEFAULT_WATCH_WINDOWS_TOTAL_BYTES bounds the JSON text all clusters' watch windows of one server hold together
 * (64 MiB): with a thousand clusters, a per-cluster bound alone lets the windows grow to gigabytes under churn. */
export const DEFAULT_WATCH_WINDOWS_TOTAL_BYTES = 64 * 1024 * 1024;

/**
 * WindowBudget bounds the events all watch windows of a server hold together, by the JSON text they keep. Events are
 * published in resourceVersion order across clusters (one counter per server), so evicting the oldest event of the
 * server drops the oldest history first, whichever cluster it belongs to; that cluster's watches resuming from
 * before it get 410 Gone and relist, as with kube's bounded watch cache.
 */
export class WindowBudget {
  /** JSON characters the windows hold. */
  bytes = 0;
  // Published events in order: the hub and the event's resourceVersion (an entry is stale once its hub evicted it).
  private hubs: WatchHub[] = [];
  private rvs: number[] = [];
  private head = 0;

  constructor(readonly limit = DEFAULT_WATCH_WINDOWS_TOTAL_BYTES) {}

  /** added records an event a hub published (its bytes are already in the hub's count). */
  added(hub: WatchHub, rv: number, bytes: number): void {
    this.hubs.push(hub);
    this.rvs.push(rv);
    this.bytes += bytes;
    // Always keep the newest event.
    while (this.bytes > this.limit && this.hubs.length - this.head > 1) {
      const h = this.hubs[this.head];
      const r = this.rvs[this.head];
      this.hubs[this.head] = undefined as unknown as WatchHub;
      this.head++;
      h.evictThrough(r);
    }
    if (this.head > 4096 && this.head * 2 > this.hubs.length) {
      this.hubs = this.hubs.slice(this.head);
      this.rvs = this.rvs.slice(this.head);
      this.head = 0;
    }
  }

  /** released returns the bytes of events a hub evicted. */
  released(bytes: number): void {
    this.bytes -= bytes;
  }
}

// eventBytes is what an event adds to the window: its new version's JSON, or for a deletion the last version's.
function eventBytes(ev: ChangeEvent): number {
  const s = ev.cur ?? ev.prev;
  return s === undefined ? 1024 : (s.size ?? s.json?.length ?? 1024);
}

/** WatchHub keeps the event window of one cluster and fans committed events out to subscribers. */
export class WatchHub {
  private readonly subscribers = new Map<string, Set<Subscriber>>();
  private readonly listeners: ((ev: ChangeEvent) => void)[] = [];
  private window: ChangeEvent[] = [];
  private start = 0;
  /** bytes: JSON text held by the window's events (what eventBytes counts). */
  private bytes = 0;
  /** floor: every event with rv > floor is in the window. */
  private floorRv: number;

  /**
   * The window keeps at most `capacity` events and `byteBudget` bytes of their JSON (old versions of big objects —
   * EventReports with collected resources run to hundreds of KB — would otherwise pin gigabytes). A watch resuming
   * from before the window gets 410 Gone and relists, as with kube's bounded watch cache.
   */
  constructor(
    floor: number,
    private readonly capacity = 10_000,
    private readonly byteBudget = DEFAULT_WATCH_WINDOW_BYTES,
    /** The bound all clusters' windows share (none: this window is bounded by its own limits only). */
    private readonly shared?: WindowBudget,
  ) {
    this.floorRv = floor;
  }

  /** floor is the oldest resourceVersion a watch may resume from. */
  get floor(): number {
    return this.floorRv;
  }

  /** subscribe registers a subscriber; the returned function unregisters it. */
  subscribe(sub: Subscriber): () => void {
    let set = this.subscribers.get(sub.storage);
    if (!set) this.subscribers.set(sub.storage, (set = new Set()));
    set.add(sub);
    return () => {
      set!.delete(sub);
    };
  }

  /** listen registers an in-process listener for every committed event (controllers). */
  listen(fn: (ev: ChangeEvent) => void): void {
    this.listeners.push(fn);
  }

  /** publish records a committed event and delivers it. Called in commit order. */
  publish(ev: ChangeEvent): void {
    this.window.push(ev);
    const size = eventBytes(ev);
    this.bytes += size;
    // Evict from the front while over either bound, always keeping the newest event.
    while (this.window.length - this.start > 1 && (this.window.length - this.start > this.capacity || this.bytes > this.byteBudget)) {
      this.evictOldest();
    }
    this.shared?.added(this, ev.rv, size);
    const set = this.subscribers.get(ev.storage);
    if (set) for (const s of set) s.onEvent(ev);
    // Renderings are shared by this fan-out only; a later replay renders again rather than the window keeping them.
    ev.cache = undefined;
    for (const l of this.listeners) l(ev);
  }

  /** evictThrough drops the window's events with rv <= rv (the server-wide budget evicting the oldest history), always
   * keeping the newest event. */
  evictThrough(rv: number): void {
    while (this.window.length - this.start > 1 && this.window[this.start].rv <= rv) this.evictOldest();
  }

  private evictOldest(): void {
    const old = this.window[this.start];
    const size = eventBytes(old);
    this.bytes -= size;
    this.shared?.released(size);
    this.floorRv = old.rv;
    this.window[this.start] = undefined as unknown as ChangeEvent;
    this.start++;
    if (this.start > 4096 && this.start * 2 > this.window.length) {
      this.window = this.window.slice(this.start);
      this.start = 0;
    }
  }

  /** since returns the window's events of one table with rv > from, or undefined when from is older than the floor. */
  since(storage: string, from: number): ChangeEvent[] | undefined {
    if (from < this.floorRv) return undefined;
    const out: ChangeEvent[] = [];
    // Binary search the first event with rv > from.
    let lo = this.start;
    let hi = this.window.length;
    while (lo < hi) {
      const mid = (lo + hi) >> 1;
      if (this.window[mid].rv <= from) lo = mid + 1;
      else hi = mid;
    }
    for (let i = lo; i < this.window.length; i++) if (this.window[i].storage === storage) out.push(this.window[i]);
    return out;
  }

  /** subscribersOf lists the subscribers of a table (to close them when its resource goes away). */
  subscribersOf(storage: string): Subscriber[] {
    return [...(this.subscribers.get(storage) ?? [])];
  }
}
