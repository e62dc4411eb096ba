import { strict as assert } from 'node:assert';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import Database from 'better-sqlite3';
import { PAGE_SIZE, Store, type Durability } from './store.js';

function withStore(durability: Durability, fn: (path: string) => Promise<void>) {
  return async () => {
    const dir = mkdtempSync(join(tmpdir(), 'ripple-store-'));
    try {
      await fn(join(dir, 'state.db'));
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  };
}

const put = (name: string, rv: number) => ({ op: 'put' as const, cluster: 'c', resource: '/configmaps', namespace: 'ns', name, rv, data: `{"n":"${name}"}` });

test('writes of one turn share a commit; committed() waits for it; state and resourceVersion survive reopening', withStore('process', async (path) => {
  const s = new Store(path);
  const order: number[] = [];
  for (let i = 1; i <= 100; i++) s.write(put(`o${i}`, i), { committed: () => order.push(i), failed: () => assert.fail('no failure') });
  s.write({ op: 'delete', cluster: 'c', resource: '/configmaps', namespace: 'ns', name: 'o1', rv: 101 });
  assert.equal(s.pending, true);
  assert.equal(order.length, 0, 'nothing is committed before the turn ends');
  await s.committed();
  assert.equal(s.pending, false);
  assert.deepEqual(order, Array.from({ length: 100 }, (_, i) => i + 1), 'hooks run in write order');
  s.close();
  const again = new Store(path);
  assert.equal(again.lastResourceVersion, 101, 'a deletion\'s resourceVersion is remembered too');
  const names = again.objects('c').map((r) => r.name).sort();
  assert.equal(names.length, 99);
  assert.ok(!names.includes('o1'));
  again.close();
}));

test('a failed commit runs the failure hooks in reverse and rejects the waiters', withStore('process', async (path) => {
  const s = new Store(path);
  const undone: string[] = [];
  s.write(put('good', 1), { committed: () => assert.fail('not committed'), failed: () => undone.push('good') });
  // A NULL data column violates the schema, so the whole transaction rolls back.
  s.write({ ...put('bad', 2), data: null as unknown as string }, { committed: () => assert.fail('not committed'), failed: () => undone.push('bad') });
  await assert.rejects(s.committed(), /NOT NULL/);
  assert.deepEqual(undone, ['bad', 'good']);
  assert.deepEqual(s.objects('c'), []);
  s.close();
}));

test('power durability answers after the WAL is synced, many commits per sync', withStore('power', async (path) => {
  const s = new Store(path, 'power');
  let committed = 0;
  const waits: Promise<void>[] = [];
  for (let round = 0; round < 5; round++) {
    s.write(put(`r${round}`, round + 1), { committed: () => committed++, failed: () => assert.fail('no failure') });
    waits.push(s.committed());
    s.flush();
  }
  assert.equal(s.pending, true, 'synced writes are still pending until the fsync returns');
  await Promise.all(waits);
  assert.equal(committed, 5);
  assert.equal(s.pending, false);
  s.close();
  const again = new Store(path);
  assert.equal(again.objects('c').length, 5);
  again.close();
}));

test('a database written with the earlier WITHOUT ROWID objects table is converted once and keeps every object', withStore('process', async (path) => {
  const old = new Database(path);
  old.pragma('journal_mode = WAL');
  old.exec(`CREATE TABLE meta (key TEXT PRIMARY KEY, value TEXT NOT NULL) WITHOUT ROWID;
    CREATE TABLE objects (cluster TEXT NOT NULL, resource TEXT NOT NULL, namespace TEXT NOT NULL, name TEXT NOT NULL,
      rv INTEGER NOT NULL, data TEXT NOT NULL, PRIMARY KEY (cluster, resource, namespace, name)) WITHOUT ROWID;`);
  const ins = old.prepare('INSERT INTO objects VALUES (?, ?, ?, ?, ?, ?)');
  const big = JSON.stringify({ blob: 'x'.repeat(200_000) });
  ins.run('c', '/configmaps', 'ns', 'small', 7, '{"n":"small"}');
  ins.run('c', '/configmaps', 'ns', 'big', 8, big);
  ins.run('d', '/secrets', '', 'other', 9, '{"n":"other"}');
  old.prepare("INSERT INTO meta VALUES ('rv', '9')").run();
  old.close();

  const s = new Store(path);
  assert.equal(s.lastResourceVersion, 9);
  const rows = s.objects('c').sort((a, b) => a.name.localeCompare(b.name));
  assert.deepEqual(rows.map((r) => [r.name, r.rv]), [['big', 8], ['small', 7]]);
  assert.equal(rows[0]!.data, big, 'a row larger than a page survives the conversion byte for byte');
  assert.deepEqual(s.objects('d').map((r) => r.name), ['other']);
  // Upserts still replace by key (the primary key is now a unique index).
  s.write({ ...put('small', 10), data: '{"n":"small2"}' });
  await s.committed();
  s.close();

  const check = new Database(path, { readonly: true });
  const sql = (check.prepare("SELECT sql FROM sqlite_master WHERE type = 'table' AND name = 'objects'").get() as { sql: string }).sql;
  check.close();
  assert.doesNotMatch(sql, /WITHOUT ROWID/i, 'the table was converted');
  const again = new Store(path);
  const small = again.objects('c').filter((r) => r.name === 'small');
  assert.deepEqual(small.map((r) => [r.rv, r.data]), [[10, '{"n":"small2"}']], 'one row per key after the upsert');
  assert.equal(again.objects('c').length, 2);
  again.close();
}));

test('a new database uses 8 KiB pages; one created with 4 KiB pages keeps them and still takes large objects', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'ripple-store-'));
  const pageSize = (path: string) => {
    const db = new Database(path, { readonly: true });
    try {
      return db.pragma('page_size', { simple: true }) as number;
    } finally {
      db.close();
    }
  };
  try {
    const fresh = join(dir, 'new.db');
    const s = new Store(fresh);
    const big = JSON.stringify({ blob: 'y'.repeat(300_000) });
    s.write({ ...put('big', 1), data: big });
    await s.committed();
    s.close();
    assert.equal(pageSize(fresh), PAGE_SIZE);
    assert.equal(PAGE_SIZE, 8192);
    const reopened = new Store(fresh);
    assert.equal(reopened.objects('c')[0]!.data, big);
    reopened.close();

    const older = join(dir, 'old.db');
    const old = new Database(older);
    old.pragma('journal_mode = WAL');
    old.exec('CREATE TABLE meta (key TEXT PRIMARY KEY, value TEXT NOT NULL) WITHOUT ROWID');
    old.close();
    assert.equal(pageSize(older), 4096);
    const o = new Store(older);
    o.write({ ...put('big', 2), data: big });
    await o.committed();
    o.close();
    assert.equal(pageSize(older), 4096, 'an existing database keeps its page size');
    const o2 = new Store(older);
    assert.deepEqual(o2.objects('c').map((r) => [r.name, r.rv, r.data.length]), [['big', 2, big.length]]);
    o2.close();
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test('a JSON text in pieces or in one long string is stored as that text, and a later whole text replaces it', withStore('process', async (path) => {
  const s = new Store(path);
  const big = 'é"\\'.repeat(50_000);
  const pieces = ['{"spec":', JSON.stringify(big), ',"status":{"phase":"P"}}'];
  s.write({ op: 'put', cluster: 'c', resource: '/r', namespace: 'ns', name: 'a', rv: 1, data: pieces });
  s.write({ op: 'put', cluster: 'c', resource: '/r', namespace: 'ns', name: 'b', rv: 2, data: ['{"x":', '1', '}'] });
  // A long text in one string is written from its bytes too; the row reads back as the same text.
  const long = JSON.stringify({ blob: '€\u2028x'.repeat(40_000) });
  s.write({ op: 'put', cluster: 'c', resource: '/r', namespace: 'ns', name: 'c', rv: 2, data: long });
  await s.committed();
  s.write({ op: 'put', cluster: 'c', resource: '/r', namespace: 'ns', name: 'b', rv: 3, data: '{"x":2}' });
  await s.committed();
  s.close();
  const again = new Store(path);
  const rows = new Map(again.objects('c').map((r) => [r.name, r]));
  assert.equal(rows.get('a')?.data, pieces.join(''));
  assert.deepEqual(JSON.parse(rows.get('a')!.data), { spec: big, status: { phase: 'P' } });
  assert.equal(rows.get('b')?.data, '{"x":2}');
  assert.equal(rows.get('c')?.data, long);
  const raw = new Database(path, { readonly: true });
  assert.deepEqual(raw.prepare('SELECT DISTINCT typeof(data) AS t FROM objects').all(), [{ t: 'text' }], 'stored as TEXT, as a string bound directly is');
  raw.close();
  assert.equal(rows.get('b')?.rv, 3);
  again.close();
}));
