// Stored objects keep their JSON text always and their parsed form only while it is in use. The text is what every
// GET, LIST and watch event sends and what SQLite holds; the parsed object is what selectors, admission, updates and
// the in-process controllers read. Keeping both for every object (and for every old version in the watch windows)
// doubled the API server's memory: at 30 clusters × 100 Services the parsed copies were ~92 MiB of a ~236 MiB live
// heap, and they grow with the fleet. So a parsed object is dropped once it has gone cold and parsed again from the
// text on its next use: a CLOCK (second-chance) cache bounds the parsed objects by the size of their JSON.
//
// The parsed object of a stored version never changes (stored objects are never mutated), so a re-parse is equal to
// what was dropped (JSON.parse of its own serialization: undefined members are absent, as they are in every answer).
// Only identity differs: code comparing a stored object by === with an earlier read of it sees a new object after a
// re-parse; every such use in the server is a fast path (reuse the cached JSON, skip a no-op) that falls back to the
// slow path. Configuration kinds the server reads on every request and keeps derived state for (RBAC, admission
// configuration, CRDs, namespaces) stay parsed: they are few and small.
import type { JsonText, KubeObject, ObjectMeta, Stored } from './types.js';

export type { JsonText };

/** DEFAULT_PARSED_CACHE_BYTES bounds, by the length of their JSON, the parsed objects kept of cold objects (16 MiB of
 * JSON is ~22 MiB parsed: a busy fleet's hot objects — EventReports, summaries, profiles being written — fit). */
export const DEFAULT_PARSED_CACHE_BYTES = 16 * 1024 * 1024;

type Obj = KubeObject & { metadata: ObjectMeta };

/** PARSE_STATS counts the re-parses of dropped objects in this thread, all caches together (diagnostics: the fleet
 * bench reports them with the API server thread's memory). */
export const PARSE_STATS = { reparses: 0, reparsedChars: 0, parseMs: 0 };

/** Storage tables whose objects are always kept parsed (see the file comment). */
const PINNED_GROUPS = new Set(['rbac.authorization.k8s.io', 'admissionregistration.k8s.io', 'apiextensions.k8s.io']);
const PINNED_STORAGES = new Set(['/namespaces']);

/** pinnedStorage tells whether a storage table's objects stay parsed. */
export function pinnedStorage(storage: string): boolean {
  return PINNED_STORAGES.has(storage) || PINNED_GROUPS.has(storage.slice(0, storage.indexOf('/')));
}

/** StoredObject is a Stored whose parsed object may be dropped and parsed again from its JSON — or, for a lean
 * object, whose JSON is dropped and serialized again from its parsed object. */
export class StoredObject implements Stored {
  /** The parsed object while it is kept (always, when pinned). */
  parsed: Obj | undefined;
  /** CLOCK reference bit: read since the cache last passed it. */
  used = false;
  /** metadata.labels, kept while the object is dropped (small; label selectors over cold objects need nothing else). */
  readonly labels: Readonly<Record<string, string>> | undefined;
  /** Whether metadata.deletionTimestamp is set, kept too: the garbage collector checks the owners of every changed
   * dependent, and parsing a cold owner (a ClusterProfile of thousands) just to read that was most of its cost. */
  readonly deleting: boolean;
  /** The length of the JSON text (quotas and watch windows count it without serializing a lean object again). */
  readonly size: number;
  /** The JSON text — one string, or the pieces of a large object (see serializeVersion) — unless this object is lean. */
  private readonly text: JsonText | undefined;
  /** Which pieces of the JSON are large members' texts (serializeVersion), when it was serialized member by member. */
  spans: MemberSpans | undefined;

  constructor(
    obj: Obj,
    readonly rv: number,
    json: JsonText,
    /** The cache bounding this object's parsed form; undefined when it is pinned. */
    private readonly cache: ParsedCache | undefined,
    /** Lean: pinned, and its JSON is serialized again on each use instead of kept (see leanStorage). */
    lean = false,
  ) {
    this.parsed = obj;
    this.text = lean ? undefined : json;
    this.size = textLength(json);
    this.labels = obj.metadata.labels as Record<string, string> | undefined;
    this.deleting = obj.metadata.deletionTimestamp !== undefined && obj.metadata.deletionTimestamp !== null;
    cache?.admit(this);
  }

  /**
   * retire releases the parsed form of a version that is no longer the stored one (replaced or deleted, its watch
   * event published), so the budget holds current objects instead of history. Before, a superseded version kept its
   * parsed object and its share of the budget until the hand came round: an EventReport written three times per
   * event filled the budget with two dead copies for each live one, and at 100 clusters every event parsed its
   * cluster's 128 KB report again. A retired version read again (a watch replay's selector) is parsed and admitted
   * again like any dropped object.
   */
  retire(): void {
    if (this.cache !== undefined && this.parsed !== undefined) this.cache.release(this);
  }

  /** json is the object's JSON text, as stored: kept, or (lean) serialized again from the parsed object, which a
   * stored version never changes, so the text is the same every time. A large object kept in pieces is joined on
   * each call: what is written often (watch events, the database row) takes jsonText instead. */
  get json(): string {
    const t = this.text;
    if (t === undefined) return serialize(this.parsed!);
    return typeof t === 'string' ? t : t.join('');
  }

  /** jsonText is the JSON text as kept: one string, or the pieces that make it. */
  get jsonText(): JsonText {
    return this.text ?? serialize(this.parsed!);
  }

  get obj(): Obj {
    const o = this.parsed;
    if (o !== undefined) {
      this.used = true;
      return o;
    }
    const t0 = performance.now();
    const parsed = JSON.parse(this.json) as Obj;
    PARSE_STATS.parseMs += performance.now() - t0;
    PARSE_STATS.reparses++;
    PARSE_STATS.reparsedChars += this.json.length;
    this.parsed = parsed;
    this.cache!.admit(this);
    this.cache!.reparses++;
    return parsed;
  }
}

/** ParsedCache bounds the parsed objects of StoredObjects by the length of their JSON (CLOCK eviction: an object read
 * since the hand last passed gets a second chance). One per server: every cluster shares the budget. */
export class ParsedCache {
  /** JSON characters of the parsed objects held. */
  bytes = 0;
  /** Parses of dropped objects (diagnostics and tests). */
  reparses = 0;
  private ring: StoredObject[] = [];
  private head = 0;

  constructor(readonly budget = DEFAULT_PARSED_CACHE_BYTES) {}

  /** Parsed objects held (ring entries of released objects wait for the hand to pass them). */
  private held = 0;
  /** Versions released before the hand reached them (retired: replaced or deleted). */
  released = 0;
  /** Ring entries whose object was released after they were pushed, and the JSON length of those objects. A released
   * object no longer counts against the budget, so nothing else bounds them, and an entry keeps its version (and its
   * text) alive: a fleet that never fills the budget would keep every replaced version, and a busy one thousands of
   * replaced 128 KB reports. They are compacted away once they outnumber the held objects or their JSON passes a
   * quarter of the budget. */
  private stale = 0;
  private staleBytes = 0;

  /** entries is the ring's length, stale entries included (tests). */
  get entries(): number {
    return this.ring.length - this.head;
  }

  /** size is the number of parsed objects held. */
  get size(): number {
    return this.held;
  }

  /** admit takes a newly parsed object into the budget, dropping cold ones while over it. */
  admit(s: StoredObject): void {
    s.used = false;
    this.ring.push(s);
    this.bytes += s.size;
    this.held++;
    // Each pass over an entry either drops it or clears its bit, so this ends within two rounds of the ring.
    while (this.bytes > this.budget && this.ring.length - this.head > 1) {
      const c = this.ring[this.head];
      this.ring[this.head++] = undefined as unknown as StoredObject;
      // Released since it was admitted (its budget is already returned), or admitted again further on.
      if (c.parsed === undefined) {
        if (this.stale > 0) this.stale--;
        this.staleBytes = Math.max(0, this.staleBytes - c.size);
        continue;
      }
      if (c.used) {
        c.used = false;
        this.ring.push(c);
        continue;
      }
      this.drop(c);
    }
    if (this.head > 4096 && this.head * 2 > this.ring.length) {
      this.ring = this.ring.slice(this.head);
      this.head = 0;
    }
  }

  /** release drops a held parsed object now (StoredObject.retire); its ring entry is skipped when the hand gets there. */
  release(s: StoredObject): void {
    this.drop(s);
    this.released++;
    this.staleBytes += s.size;
    if ((++this.stale > 1024 && this.stale > this.held) || this.staleBytes > this.budget / 4) this.compact();
  }

  // compact rebuilds the ring from the objects still held, in ring order, each once (an object released and parsed
  // again has two entries).
  private compact(): void {
    const seen = new Set<StoredObject>();
    const ring: StoredObject[] = [];
    for (let i = this.head; i < this.ring.length; i++) {
      const c = this.ring[i];
      if (c.parsed === undefined || seen.has(c)) continue;
      seen.add(c);
      ring.push(c);
    }
    this.ring = ring;
    this.head = 0;
    this.stale = 0;
    this.staleBytes = 0;
  }

  private drop(s: StoredObject): void {
    s.parsed = undefined;
    this.bytes -= s.size;
    this.held--;
  }
}

/** storedObject makes the Stored of a new version: pinned tables keep it parsed, others share the cache's budget;
 * RBAC objects are lean and share their rules, bindings and labels with equal ones of other clusters (interned). */
export function storedObject(storage: string, obj: Obj, rv: number, json: JsonText, cache: ParsedCache): StoredObject {
  if (leanStorage(storage)) {
    internRBAC(obj);
    return new StoredObject(obj, rv, json, undefined, true);
  }
  return new StoredObject(obj, rv, json, pinnedStorage(storage) ? undefined : cache);
}

// Lean storage: RBAC. Every virtual cluster holds the ~30 default roles and bindings kube-apiserver bootstraps
// (auth/bootstrap.ts), the same in every cluster but for name-independent metadata (uid, timestamps). Kept as JSON
// text and parsed object in each cluster they were ~70 KiB of a virtual cluster's ~125 KiB of heap. They are read
// parsed (the authorizer, the aggregation controller) on every request and as text only by the rare GET, LIST or
// watch of RBAC objects, so their text is serialized again on those reads instead of kept, and their rules,
// aggregation rules, role references, subjects, labels, annotations and managed fields sets are shared between
// clusters. Shared values are frozen: stored objects are never changed in place, and a change would now throw
// rather than reach another cluster.
const LEAN_GROUP = 'rbac.authorization.k8s.io/';

/** leanStorage tells whether a storage table's objects keep no JSON text (RBAC; see above). */
export function leanStorage(storage: string): boolean {
  return storage.startsWith(LEAN_GROUP);
}

const INTERNED_MEMBERS = ['rules', 'aggregationRule', 'roleRef', 'subjects'] as const;

// internRBAC replaces an RBAC object's shareable parts with equal, frozen values shared by every object that holds
// them. Only the object being stored is changed, and only by replacing members with equal ones.
function internRBAC(obj: Obj): void {
  const o = obj as Record<string, unknown>;
  for (const k of INTERNED_MEMBERS) if (o[k] !== undefined && o[k] !== null && typeof o[k] === 'object') o[k] = intern(o[k]);
  const m = obj.metadata;
  if (m.labels) m.labels = intern(m.labels);
  if (m.annotations) m.annotations = intern(m.annotations);
  if (Array.isArray(m.managedFields)) {
    m.managedFields = m.managedFields.map((e) => {
      const f = (e as { fieldsV1?: unknown } | null)?.fieldsV1;
      return f !== null && typeof f === 'object' ? { ...(e as object), fieldsV1: intern(f) } : e;
    });
  }
}

// The interned values, by their JSON; a value no object holds any more is collected and its entry removed.
const interned = new Map<string, WeakRef<object>>();
const internedGone = new FinalizationRegistry<string>((key) => {
  if (interned.get(key)?.deref() === undefined) interned.delete(key);
});

/** intern returns the shared, frozen value equal to v (JSON-equal, same member order), making v that value if none
 * is held. Exported for tests. */
export function intern<T>(v: T): T {
  const key = JSON.stringify(v);
  const held = interned.get(key)?.deref();
  if (held !== undefined) return held as T;
  deepFreeze(v);
  interned.set(key, new WeakRef(v as object));
  internedGone.register(v as object, key);
  return v;
}

function deepFreeze(v: unknown): void {
  if (v === null || typeof v !== 'object' || Object.isFrozen(v)) return;
  Object.freeze(v);
  for (const x of Object.values(v as Record<string, unknown>)) deepFreeze(x);
}

/** serialize renders an object as JSON with apiVersion, kind and metadata first. */
export function serialize(obj: KubeObject): string {
  let i = 0;
  for (const k in obj) {
    if (k !== (i === 0 ? 'apiVersion' : i === 1 ? 'kind' : 'metadata')) break;
    if (++i === 3) return JSON.stringify(obj);
  }
  const { apiVersion, kind, metadata, ...rest } = obj;
  return JSON.stringify({ apiVersion, kind, metadata, ...rest });
}

// Serializing a new version of a large object again from scratch is most of what a status write of an EventReport
// costs the server: the status is a few bytes, the spec it shares with the stored version (registry.ts keeps it the
// same value) is 100+ KB of JSON to escape again. So large objects are serialized member by member, and a new version
// whose member is the very value of the stored version's parsed object (===; the registry never changes a stored
// version's values, and a parsed object dropped and parsed again is equal to its text) takes that member's text back
// instead of serializing it again. Metadata is always serialized anew (put() sets its resourceVersion in place).
//
// Such a version keeps its JSON in pieces — the large members' texts apart from the small text around them — and is
// never joined for what is written on every change: the database row (store.ts writes the pieces into one reused
// UTF-8 buffer), watch events (written piece by piece). Joining would make a string over V8's regular object size (128 KiB) for an EventReport
// carrying 100 resources: a large-object allocation, with an mmap and page faults, on every status write, and one
// more long-lived string to collect. The pieces together are the text JSON.stringify gives.

/** textLength is the length in characters of a JSON text. */
export function textLength(t: JsonText): number {
  if (typeof t === 'string') return t.length;
  let n = 0;
  for (const p of t) n += p.length;
  return n;
}

/** textByteLength is the UTF-8 length in bytes of a JSON text. */
export function textByteLength(t: JsonText): number {
  if (typeof t === 'string') return Buffer.byteLength(t);
  let n = 0;
  for (const p of t) n += Buffer.byteLength(p);
  return n;
}

/** Objects whose previous version's JSON was at least this long are serialized member by member. */
export const SPLICE_MIN_OBJECT = 32 * 1024;
/** Members whose text is at least this long are kept as pieces of their own. */
export const SPLICE_MIN_MEMBER = 8 * 1024;

/** MemberSpans says which piece of an object's JSON is each large member's text: piece index by member name. */
export type MemberSpans = ReadonlyMap<string, number>;

/** SPLICE_STATS counts member texts taken from the stored version (diagnostics and tests). */
export const SPLICE_STATS = { reused: 0, reusedChars: 0 };

const ORDER = ['apiVersion', 'kind', 'metadata'];

/**
 * serializeVersion is serialize for a new stored version of an object (prev: the version it replaces): large objects
 * are serialized member by member into pieces, reusing the text of members they share with prev, and which piece
 * is each large member is returned for the new version to keep.
 */
export function serializeVersion(obj: KubeObject, prev: Stored | undefined): { json: JsonText; spans?: MemberSpans } {
  const o = obj as Record<string, unknown>;
  if (prev === undefined || (prev.size ?? 0) < SPLICE_MIN_OBJECT) return { json: serialize(obj) };
  // Member order as serialize writes it; an integer-like key (V8 would order it first) takes the plain path.
  const keys: string[] = [];
  for (const k of ORDER) if (k in o) keys.push(k);
  for (const k in o) {
    if (ORDER.includes(k)) continue;
    if (/^(?:0|[1-9][0-9]*)$/.test(k)) return { json: serialize(obj) };
    keys.push(k);
  }
  const old = prev instanceof StoredObject && prev.spans !== undefined && prev.parsed !== undefined ? prev : undefined;
  const before = old?.parsed as Record<string, unknown> | undefined;
  const oldPieces = old !== undefined && before !== undefined ? old.jsonText : undefined;
  const pieces: string[] = [];
  let spans: Map<string, number> | undefined;
  let small = '';
  let first = true;
  for (const k of keys) {
    const v = o[k];
    let t: string | undefined;
    const splice = k !== 'metadata' && v !== null && typeof v === 'object';
    const at = splice && before !== undefined && before[k] === v && typeof oldPieces === 'object' ? old!.spans!.get(k) : undefined;
    if (at !== undefined) {
      t = (oldPieces as readonly string[])[at];
      SPLICE_STATS.reused++;
      SPLICE_STATS.reusedChars += t.length;
    } else {
      t = JSON.stringify(v);
      if (t === undefined) continue;
    }
    const head = `${first ? '{' : ','}${JSON.stringify(k)}:`;
    first = false;
    if (splice && t.length >= SPLICE_MIN_MEMBER) {
      pieces.push(small + head);
      small = '';
      (spans ??= new Map()).set(k, pieces.length);
      pieces.push(t);
    } else small += head + t;
  }
  small += first ? '{}' : '}';
  if (spans === undefined) return { json: small };
  pieces.push(small);
  return { json: pieces, spans };
}
