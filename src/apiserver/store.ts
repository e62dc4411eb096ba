// Store: durable state in one SQLite database (better-sqlite3, WAL) with group commit. Every write of one event-loop
// turn goes into one transaction, committed on setImmediate; callers await `committed()` before they answer, so many
// concurrent writes share one fsync and no answer ever precedes its commit.
import Database from 'better-sqlite3';
import { closeSync, fdatasync, fdatasyncSync, mkdirSync, openSync } from 'node:fs';
import { dirname } from 'node:path';
import { textLength } from './parsed.js';

/** ObjectRow is one stored object as read back at startup. */
export interface ObjectRow {
  resource: string;
  namespace: string;
  name: string;
  rv: number;
  data: string;
}

/** ClusterRow is one virtual cluster's persisted settings. */
export interface ClusterRow {
  name: string;
  token: string;
  created: string;
  /** JSON of per-cluster settings (load balancer pool, …). */
  config: string;
}

/** WriteOp is one queued write. */
export type WriteOp =
  | { op: 'put'; cluster: string; resource: string; namespace: string; name: string; rv: number; data: string | readonly string[] }
  | { op: 'delete'; cluster: string; resource: string; namespace: string; name: string; rv: number }
  | { op: 'deleteResource'; cluster: string; resource: string; rv: number }
  | { op: 'cluster'; row: ClusterRow };

/** BatchHooks run around one group commit: `committed` after the transaction, `failed` if it threw (to undo memory). */
export interface BatchHooks {
  committed(): void;
  failed(err: unknown): void;
}

/** Durability picks what an acknowledged write survives. 'process' (the default): the transaction is committed in
 * SQLite's WAL before the answer, so a killed process (kill -9) loses nothing. 'power': additionally the WAL is
 * fdatasync'ed before the answer, so power loss loses nothing either; the fsync runs off the event loop and all
 * commits made while one is in flight share the next one. ('normal' and 'full' are accepted as aliases.) */
export type Durability = 'process' | 'power' | 'normal' | 'full';

interface Waiter {
  resolve: () => void;
  reject: (e: unknown) => void;
}

/** PAGE_SIZE is the page size of databases this version creates (see the constructor). */
export const PAGE_SIZE = 8192;
const WAL_CHECKPOINT_BYTES = 16 * 2 ** 20;

// A group of writes and the callers waiting for them to be durable.
interface Unit {
  hooks: BatchHooks[];
  waiters: Waiter[];
}

const newUnit = (): Unit => ({ hooks: [], waiters: [] });

// Large rows are bound as UTF-8 bytes. better-sqlite3 binding a JavaScript string costs far more than its size once
// the string is large: an upsert of a 130 KB row took 200-270 µs of CPU bound as a string, 75-85 µs bound as the same
// text's bytes (CAST to TEXT, so the row is the same), with no difference up to ~30 KB. A large object's JSON also
// comes in pieces (parsed.ts), which are written into one reused buffer here, so the whole text is never one
// JavaScript string — over 128 KiB, a large-object allocation each time (joining it first cost 570 µs per upsert at
// 140 KB).
const BYTES_BIND_CHARS = 32 * 1024;

/** bindsAsBytes tells whether a row's JSON text is written from its UTF-8 bytes: pieces, or one long string. */
const bindsAsBytes = (data: string | readonly string[]): boolean =>
  typeof data === 'string' ? data.length >= BYTES_BIND_CHARS : Array.isArray(data);

/** Store is the SQLite-backed persistence layer with group commit. */
export class Store {
  private readonly db: Database.Database;
  private readonly walPath: string;
  private readonly syncToDisk: boolean;
  private batch: WriteOp[] = [];
  private current: Unit = newUnit();
  private syncQueue: Unit[] = [];
  private syncing: Unit[] | undefined;
  private walFd: number | undefined;
  private scheduled: NodeJS.Immediate | undefined;
  private closed = false;
  private maxRv = 0;
  private readonly stmts: {
    put: Database.Statement;
    putBytes: Database.Statement;
    del: Database.Statement;
    delResource: Database.Statement;
    setRv: Database.Statement;
    cluster: Database.Statement;
  };

  constructor(path: string, durability: Durability = 'process') {
    mkdirSync(dirname(path), { recursive: true });
    this.walPath = `${path}-wal`;
    this.syncToDisk = durability === 'power' || durability === 'full';
    this.db = new Database(path);
    // 8 KiB pages (SQLite's default is 4 KiB). Many rows are whole objects larger than a page, each spilling into a
    // chain of overflow pages that an update rewrites into the WAL page by page; larger pages make those cheaper and
    // updates of small rows dearer. Measured with better-sqlite3 (CPU per upsert, WAL, synchronous NORMAL):
    //   a 180 KB row (an EventReport carrying 100 Services, written 3 times per event): 4 KiB 0.65-0.74 ms,
    //     8 KiB 0.40-0.45, 16 KiB 0.35-0.40;
    //   random 0.8-5 KB rows in a 120,000-row table (what a cold converge writes): 4 KiB 36-37 µs, 8 KiB 42-45,
    //     16 KiB 55-59.
    // 8 KiB takes most of the gain for large objects at a third of the extra cost for small ones. The size only applies
    // when the database is created (before WAL mode); databases written by earlier versions keep theirs.
    this.db.pragma(`page_size = ${PAGE_SIZE}`);
    this.db.pragma('journal_mode = WAL');
    // NORMAL in WAL mode: a commit is atomic and survives a crash of this process; the fdatasync for 'power' is ours.
    this.db.pragma('synchronous = NORMAL');
    this.db.pragma('busy_timeout = 5000');
    // Checkpoint once the WAL holds ~16 MiB, whatever the page size.
    this.db.pragma(`wal_autocheckpoint = ${Math.max(1, Math.round(WAL_CHECKPOINT_BYTES / (this.db.pragma('page_size', { simple: true }) as number)))}`);
    this.db.exec(`
      CREATE TABLE IF NOT EXISTS meta (key TEXT PRIMARY KEY, value TEXT NOT NULL) WITHOUT ROWID;
      CREATE TABLE IF NOT EXISTS clusters (name TEXT PRIMARY KEY, token TEXT NOT NULL, created TEXT NOT NULL, config TEXT NOT NULL) WITHOUT ROWID;
    `);
    this.createObjectsTable();
    this.stmts = {
      put: this.db.prepare(
        'INSERT INTO objects (cluster, resource, namespace, name, rv, data) VALUES (?, ?, ?, ?, ?, ?) ' +
          'ON CONFLICT (cluster, resource, namespace, name) DO UPDATE SET rv = excluded.rv, data = excluded.data',
      ),
      // The same row from UTF-8 bytes (see BYTES_BIND_CHARS): SQLite stores them as the TEXT they encode.
      putBytes: this.db.prepare(
        'INSERT INTO objects (cluster, resource, namespace, name, rv, data) VALUES (?, ?, ?, ?, ?, CAST(? AS TEXT)) ' +
          'ON CONFLICT (cluster, resource, namespace, name) DO UPDATE SET rv = excluded.rv, data = excluded.data',
      ),
      del: this.db.prepare('DELETE FROM objects WHERE cluster = ? AND resource = ? AND namespace = ? AND name = ?'),
      delResource: this.db.prepare('DELETE FROM objects WHERE cluster = ? AND resource = ?'),
      setRv: this.db.prepare("INSERT INTO meta (key, value) VALUES ('rv', ?) ON CONFLICT (key) DO UPDATE SET value = excluded.value"),
      cluster: this.db.prepare(
        'INSERT INTO clusters (name, token, created, config) VALUES (?, ?, ?, ?) ' +
          'ON CONFLICT (name) DO UPDATE SET token = excluded.token, config = excluded.config',
      ),
    };
    const metaRv = this.db.prepare("SELECT value FROM meta WHERE key = 'rv'").get() as { value: string } | undefined;
    const objRv = this.db.prepare('SELECT max(rv) AS rv FROM objects').get() as { rv: number | null };
    this.maxRv = Math.max(Number(metaRv?.value ?? 0), objRv.rv ?? 0);
  }

  // The objects table is a rowid table keyed by a unique index, not WITHOUT ROWID: its rows are whole objects, often
  // far larger than a page (an EventReport carrying 100 Services is ~130 KB), and SQLite stores large rows of a
  // WITHOUT ROWID table inside the primary-key b-tree, rewriting more pages per update (measured: an upsert of a
  // 130 KB row costs ~0.65 ms of CPU there against ~0.38 ms in a rowid table; a 1.5 KB row 0.084 against 0.036 ms).
  // Databases written by earlier versions are converted once, in one transaction, when opened.
  private createObjectsTable(): void {
    const columns = `cluster TEXT NOT NULL, resource TEXT NOT NULL, namespace TEXT NOT NULL, name TEXT NOT NULL,
        rv INTEGER NOT NULL, data TEXT NOT NULL, PRIMARY KEY (cluster, resource, namespace, name)`;
    const existing = this.db.prepare("SELECT sql FROM sqlite_master WHERE type = 'table' AND name = 'objects'").get() as { sql: string } | undefined;
    if (!existing) {
      this.db.exec(`CREATE TABLE objects (${columns})`);
      return;
    }
    if (!/WITHOUT\s+ROWID/i.test(existing.sql)) return;
    this.db.transaction(() => {
      this.db.exec(`CREATE TABLE objects_rowid (${columns})`);
      this.db.exec('INSERT INTO objects_rowid (cluster, resource, namespace, name, rv, data) SELECT cluster, resource, namespace, name, rv, data FROM objects');
      this.db.exec('DROP TABLE objects');
      this.db.exec('ALTER TABLE objects_rowid RENAME TO objects');
    })();
  }

  // utf8 encodes a JSON text, one string or pieces, into the store's scratch buffer (grown to three bytes per
  // character, UTF-8's most for a UTF-16 code unit, so no length has to be measured first). The view it returns is
  // only valid until the next call: SQLite copies a bound blob (better-sqlite3 binds it SQLITE_TRANSIENT).
  private scratch = Buffer.allocUnsafe(0);

  private utf8(t: string | readonly string[]): Buffer {
    const pieces = typeof t === 'string' ? [t] : t;
    const chars = textLength(t);
    if (this.scratch.length < chars * 3) this.scratch = Buffer.allocUnsafe(Math.max(chars * 3, 2 * this.scratch.length));
    let at = 0;
    for (const p of pieces) at += this.scratch.write(p, at, 'utf8');
    return this.scratch.subarray(0, at);
  }

  /** lastResourceVersion is the highest resourceVersion ever committed (survives restarts). */
  get lastResourceVersion(): number {
    return this.maxRv;
  }

  /** getMeta reads a server setting (e.g. the last port). */
  getMeta(key: string): string | undefined {
    const row = this.db.prepare('SELECT value FROM meta WHERE key = ?').get(key) as { value: string } | undefined;
    return row?.value;
  }

  /** setMeta writes a server setting at once (outside the group commit). */
  setMeta(key: string, value: string): void {
    this.db.prepare('INSERT INTO meta (key, value) VALUES (?, ?) ON CONFLICT (key) DO UPDATE SET value = excluded.value').run(key, value);
  }

  /** clusters lists the persisted virtual clusters. */
  clusters(): ClusterRow[] {
    return this.db.prepare('SELECT name, token, created, config FROM clusters ORDER BY created, name').all() as ClusterRow[];
  }

  /** objects reads every stored object of one cluster (startup only). */
  objects(cluster: string): ObjectRow[] {
    return this.db
      .prepare('SELECT resource, namespace, name, rv, data FROM objects WHERE cluster = ?')
      .all(cluster) as ObjectRow[];
  }

  /** write queues one write into the current batch; hooks (optional) run when that batch commits or fails. */
  write(op: WriteOp, hooks?: BatchHooks): void {
    if (this.closed) throw new Error('store is closed');
    this.batch.push(op);
    if (hooks) this.current.hooks.push(hooks);
    if (!this.scheduled) this.scheduled = setImmediate(() => this.flush());
  }

  // The unit that completes last among those not yet durable (the one a new waiter must wait for).
  private latest(): Unit | undefined {
    if (this.batch.length > 0) return this.current;
    if (this.syncQueue.length > 0) return this.syncQueue[this.syncQueue.length - 1];
    return this.syncing?.[this.syncing.length - 1];
  }

  /** onCommit registers hooks for the latest pending writes (run at once when nothing is pending). */
  onCommit(hooks: BatchHooks): void {
    const u = this.latest();
    if (u) u.hooks.push(hooks);
    else hooks.committed();
  }

  /** pending is true while writes wait for their commit (or, with 'power' durability, their fsync). */
  get pending(): boolean {
    return this.latest() !== undefined;
  }

  /** committed resolves once every write queued so far is durable (immediately when nothing is pending). */
  committed(): Promise<void> {
    const u = this.latest();
    if (!u) return Promise.resolve();
    return new Promise((resolve, reject) => u.waiters.push({ resolve, reject }));
  }

  /** flush commits the current batch now (also called by the scheduled immediate). */
  flush(): void {
    if (this.scheduled) clearImmediate(this.scheduled);
    this.scheduled = undefined;
    const batch = this.batch;
    const unit = this.current;
    if (batch.length === 0) return;
    this.batch = [];
    this.current = newUnit();
    let maxRv = this.maxRv;
    try {
      this.db.transaction(() => {
        for (const w of batch) {
          switch (w.op) {
            case 'put':
              if (bindsAsBytes(w.data)) this.stmts.putBytes.run(w.cluster, w.resource, w.namespace, w.name, w.rv, this.utf8(w.data));
              else this.stmts.put.run(w.cluster, w.resource, w.namespace, w.name, w.rv, w.data);
              if (w.rv > maxRv) maxRv = w.rv;
              break;
            case 'delete':
              this.stmts.del.run(w.cluster, w.resource, w.namespace, w.name);
              if (w.rv > maxRv) maxRv = w.rv;
              break;
            case 'deleteResource':
              this.stmts.delResource.run(w.cluster, w.resource);
              if (w.rv > maxRv) maxRv = w.rv;
              break;
            case 'cluster':
              this.stmts.cluster.run(w.row.name, w.row.token, w.row.created, w.row.config);
              break;
          }
        }
        if (maxRv > this.maxRv) this.stmts.setRv.run(String(maxRv));
      })();
    } catch (err) {
      for (let i = unit.hooks.length - 1; i >= 0; i--) unit.hooks[i].failed(err);
      for (const w of unit.waiters) w.reject(err);
      return;
    }
    this.maxRv = maxRv;
    if (!this.syncToDisk) return this.complete(unit);
    this.syncQueue.push(unit);
    this.startSync();
  }

  private complete(unit: Unit, err?: unknown): void {
    // The transaction is committed either way: watchers see it. A failed fsync fails only the durability promise.
    for (const h of unit.hooks) h.committed();
    for (const w of unit.waiters) (err ? w.reject(err) : w.resolve());
  }

  // One fdatasync of the WAL at a time; the commits made meanwhile wait for the next one.
  private startSync(): void {
    if (this.syncing || this.syncQueue.length === 0) return;
    const group = this.syncQueue;
    this.syncQueue = [];
    this.syncing = group;
    try {
      this.walFd ??= openSync(this.walPath, 'r');
    } catch (e) {
      this.syncing = undefined;
      for (const u of group) this.complete(u, e);
      return;
    }
    fdatasync(this.walFd, (err) => {
      if (this.closed) return;
      this.syncing = undefined;
      for (const u of group) this.complete(u, err ?? undefined);
      this.startSync();
    });
  }

  /** close commits what is pending, syncs it and closes the database. */
  close(): void {
    if (this.closed) return;
    this.flush();
    this.closed = true;
    const waiting = [...(this.syncing ?? []), ...this.syncQueue];
    this.syncQueue = [];
    this.syncing = undefined;
    if (this.walFd !== undefined) {
      fdatasyncSync(this.walFd);
      closeSync(this.walFd);
    }
    for (const u of waiting) this.complete(u);
    this.db.close();
  }
}
