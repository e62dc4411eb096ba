import { strict as assert } from 'node:assert';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, test } from 'node:test';
import { Cluster, type ServerContext } from './cluster.js';
import { BUILTIN_DESCRIPTORS } from './kinds/builtins.js';
import { create, internalWrite, list, mutate, remove, scopeFor } from './registry.js';
import { Store } from './store.js';

const dir = mkdtempSync(join(tmpdir(), 'ripple-registry-'));
const store = new Store(join(dir, 'state.db'));
after(() => {
  store.close();
  rmSync(dir, { recursive: true, force: true });
});
let rv = store.lastResourceVersion;
const ctx: ServerContext = { store, nextRv: () => ++rv, currentRv: () => rv, now: () => new Date(), logger: { info() {}, warn() {}, error() {}, debug() {} }, watchWindow: 100 };
const cluster = new Cluster('unit', 'token', ctx, BUILTIN_DESCRIPTORS);
const w = internalWrite('unit-test');
const ns = scopeFor(cluster, cluster.registry.lookup('', 'v1', 'namespaces')!, '');
const cms = scopeFor(cluster, cluster.registry.lookup('', 'v1', 'configmaps')!, 'default');
const names = (items: { obj: { metadata: { name?: string } } }[]) => items.map((s) => s.obj.metadata.name);

test('a paged list stays at its resourceVersion even across writes not yet committed', async () => {
  create(ns, { apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'default' } }, w);
  for (const n of ['a', 'b', 'c', 'd']) create(cms, { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: n }, data: { v: '1' } }, w);
  await store.committed();
  const page1 = list(cms, { limit: 2 });
  assert.deepEqual(names(page1.items), ['a', 'b']);
  // In the same turn (nothing committed yet): change c, delete d, add bb.
  mutate(cms, 'c', (o) => void (o.data = { v: '2' }), w);
  remove(cms, 'd', {});
  create(cms, { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'bb' } }, w);
  assert.equal(store.pending, true);
  const page2 = list(cms, { limit: 5, continue: page1.continue });
  assert.deepEqual(names(page2.items), ['c', 'd']);
  assert.deepEqual(page2.items[0].obj.data, { v: '1' }, 'c as it was at the first page');
  await store.committed();
  assert.deepEqual(names(list(cms, {}).items), ['a', 'b', 'bb', 'c']);
});

test('an update that changes nothing keeps the resourceVersion', async () => {
  const before = list(cms, { fieldSelector: 'metadata.name=a' }).items[0];
  const r = mutate(cms, 'a', () => undefined, w)!;
  assert.equal(r.obj.metadata?.resourceVersion, before.obj.metadata.resourceVersion);
  assert.equal(store.pending, false);
});
