// Informers against the embedded API server: initial sync, add/update/delete with old+new, late handlers, indexers,
// shared informers per key, a kind installed after start, server restart with a 410 relist that delivers exactly the
// difference, label-filtered informers, and backoff against an unreachable server.
import { strict as assert } from 'node:assert';
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { startApiServer } from '../apiserver/index.js';
import { eventually } from '../../test/support/eventually.js';
import { startTestApiServer, type TestApiServer } from '../../test/support/apiserver.js';
import { InformerFactory, KubeClient, createKubeClient, singleContextKubeConfig, type EventHandlers, type KubeObject } from './index.js';

type Rec = { log: string[]; handlers: EventHandlers<KubeObject> };

/** recorder logs handler calls as `add:name`, `update:name:oldValue>newValue`, `delete:name`. */
function recorder(field = 'k'): Rec {
  const log: string[] = [];
  const val = (o: KubeObject) => String((o.data as Record<string, string> | undefined)?.[field] ?? '');
  return {
    log,
    handlers: {
      onAdd: (o, initial) => log.push(`add:${o.metadata.name}${initial ? ':initial' : ''}`),
      onUpdate: (old, o) => log.push(`update:${o.metadata.name}:${val(old)}>${val(o)}`),
      onDelete: (o) => log.push(`delete:${o.metadata.name}`),
    },
  };
}

const cm = (name: string, ns: string, data: Record<string, string>, labels?: Record<string, string>): KubeObject => ({
  apiVersion: 'v1',
  kind: 'ConfigMap',
  metadata: { name, namespace: ns, ...(labels ? { labels } : {}) },
  data,
});
const CM = { apiVersion: 'v1', kind: 'ConfigMap' };

describe('informers', () => {
  let api: TestApiServer;
  let client: KubeClient;
  before(async () => {
    api = await startTestApiServer();
    client = new KubeClient(await api.kubeConfig());
  });
  after(async () => {
    client.close();
    await api.stop();
  });

  test('initial sync, then updates (old and new), deletes, late handlers, cache queries and indexers', async () => {
    await client.create({ apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'inf1' } });
    await client.create(cm('a', 'inf1', { k: '1' }, { tier: 'front' }));
    await client.create(cm('b', 'inf1', { k: '1' }, { tier: 'back' }));
    const factory = new InformerFactory(client);
    const rec = recorder();
    const sub = factory.subscribe({ ...CM, namespace: 'inf1' }, rec.handlers);
    await sub.informer.waitForSync({ timeoutMs: 5000 });
    assert.ok(sub.informer.hasSynced());
    assert.deepEqual(rec.log.sort(), ['add:a:initial', 'add:b:initial']);
    rec.log.length = 0;

    await client.patch({ ...CM, namespace: 'inf1', name: 'a' }, 'merge', { data: { k: '2' } });
    await client.create(cm('c', 'inf1', { k: '1' }, { tier: 'front' }));
    await client.delete({ ...CM, namespace: 'inf1', name: 'b' });
    await eventually(() => rec.log.length, (n) => n >= 3, { message: 'three events' });
    assert.deepEqual(rec.log, ['update:a:1>2', 'add:c', 'delete:b']);

    const cache = sub.informer.cache;
    assert.equal((cache.get('inf1', 'a')?.data as Record<string, string>).k, '2');
    assert.equal(cache.getByKey('inf1/b'), undefined);
    assert.deepEqual(cache.list({ labelSelector: 'tier=front' }).map((o) => o.metadata.name).sort(), ['a', 'c']);
    assert.deepEqual(cache.list({ namespace: 'inf1', labelSelector: { matchExpressions: [{ key: 'tier', operator: 'NotIn', values: ['front'] }] } }), []);
    sub.informer.addIndexer('byTier', (o) => (o.metadata.labels?.tier ? [o.metadata.labels.tier] : []));
    assert.deepEqual(cache.byIndex('byTier', 'front').map((o) => o.metadata.name).sort(), ['a', 'c']);
    await client.patch({ ...CM, namespace: 'inf1', name: 'c' }, 'merge', { metadata: { labels: { tier: 'back' } } });
    await eventually(() => cache.byIndex('byTier', 'back').map((o) => o.metadata.name), (n) => n.join() === 'c', { message: 'index follows label change' });
    assert.deepEqual(cache.byIndex('byTier', 'front').map((o) => o.metadata.name), ['a']);
    assert.throws(() => cache.byIndex('nope', 'x'), /no index named/);

    // A handler added after sync gets the current objects replayed as initial adds.
    const late = recorder();
    sub.informer.addHandler(late.handlers);
    assert.deepEqual(late.log.sort(), ['add:a:initial', 'add:c:initial']);
    await sub.unsubscribe();
    await factory.stop();
  });

  test('one shared list+watch per key; the informer stops when its last user unsubscribes', async () => {
    const factory = new InformerFactory(client);
    const key = { ...CM, namespace: 'shared', labelSelector: { matchLabels: { x: 'y' } } };
    const one = factory.subscribe(key);
    const two = factory.subscribe({ ...CM, namespace: 'shared', labelSelector: 'x=y' });
    assert.equal(one.informer, two.informer, 'a LabelSelector and its string form are the same key');
    const other = factory.subscribe({ ...CM, namespace: 'other' });
    assert.notEqual(other.informer, one.informer);
    await one.informer.waitForSync({ timeoutMs: 5000 });
    assert.equal(one.informer.stats.lists, 1);
    await one.unsubscribe();
    assert.equal(factory.informers().length, 2);
    assert.notEqual(two.informer.state, 'stopped');
    await two.unsubscribe();
    assert.equal(two.informer.state, 'stopped');
    assert.equal(factory.informers().length, 1);
    await factory.stop();
    assert.equal(other.informer.state, 'stopped');
  });

  test('a label-filtered informer sees objects leave and enter its selection', async () => {
    await client.create({ apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'inf-sel' } });
    await client.create(cm('s1', 'inf-sel', { k: '1' }, { pick: 'yes' }));
    await client.create(cm('s2', 'inf-sel', { k: '1' }, { pick: 'no' }));
    const factory = new InformerFactory(client);
    const rec = recorder();
    const sub = factory.subscribe({ ...CM, namespace: 'inf-sel', labelSelector: 'pick=yes' }, rec.handlers);
    await sub.informer.waitForSync({ timeoutMs: 5000 });
    await client.patch({ ...CM, namespace: 'inf-sel', name: 's1' }, 'merge', { metadata: { labels: { pick: 'no' } } });
    await client.patch({ ...CM, namespace: 'inf-sel', name: 's2' }, 'merge', { metadata: { labels: { pick: 'yes' } } });
    await eventually(() => rec.log.length, (n) => n >= 3, { message: 'selection events' });
    assert.deepEqual(rec.log, ['add:s1:initial', 'delete:s1', 'add:s2']);
    assert.deepEqual(sub.informer.cache.keys(), ['inf-sel/s2']);
    await factory.stop();
  });

  test('a metadata-only informer caches PartialObjectMetadata (no data) and shares nothing with the full one', async () => {
    await client.create({ apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'inf-meta' } });
    await client.create(cm('m1', 'inf-meta', { secret: 'value' }, { a: 'b' }));
    const factory = new InformerFactory(client);
    const meta = factory.subscribe({ ...CM, namespace: 'inf-meta', metadataOnly: true });
    const full = factory.subscribe({ ...CM, namespace: 'inf-meta' });
    await meta.informer.waitForSync({ timeoutMs: 5000 });
    await full.informer.waitForSync({ timeoutMs: 5000 });
    assert.notEqual(meta.informer, full.informer, 'two keys');
    const listed = meta.informer.cache.get('inf-meta', 'm1') as KubeObject & { data?: unknown };
    assert.equal(listed.kind, 'PartialObjectMetadata');
    assert.equal(listed.data, undefined, 'no content from the list');
    assert.deepEqual(listed.metadata.labels, { a: 'b' });
    const updated = await client.patch<KubeObject>({ ...CM, namespace: 'inf-meta', name: 'm1' }, 'merge', { data: { secret: 'other' } });
    const seen = await eventually(() => meta.informer.cache.get('inf-meta', 'm1'), (o) => o?.metadata.resourceVersion === updated.metadata.resourceVersion, { message: 'the update arrives' });
    assert.equal((seen as { data?: unknown }).data, undefined, 'no content from the watch');
    assert.equal(((full.informer.cache.get('inf-meta', 'm1') ?? {}) as { data?: { secret?: string } }).data?.secret !== undefined, true);
    await factory.stop();
  });

  test('compactManagedFields: cached objects keep who wrote them and when, not the field sets', async () => {
    await client.create({ apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'inf-mf' } });
    await client.apply(cm('m1', 'inf-mf', { k: '1' }), { fieldManager: 'writer-a' });
    const compact = new InformerFactory(client, { compactManagedFields: true });
    const full = new InformerFactory(client);
    const c = compact.subscribe({ ...CM, namespace: 'inf-mf' });
    const f = full.subscribe({ ...CM, namespace: 'inf-mf' });
    await Promise.all([c.informer.waitForSync({ timeoutMs: 5000 }), f.informer.waitForSync({ timeoutMs: 5000 })]);
    type Entry = { manager?: string; operation?: string; time?: string; fieldsV1?: unknown };
    const entries = (o: KubeObject | undefined) => ((o?.metadata as { managedFields?: Entry[] } | undefined)?.managedFields ?? []);
    // From the list, then from the watch.
    for (const step of ['list', 'watch']) {
      const got = entries(c.informer.cache.get('inf-mf', 'm1'));
      const want = entries(f.informer.cache.get('inf-mf', 'm1'));
      assert.ok(want.length > 0 && want.every((e) => e.fieldsV1 !== undefined), `${step}: the plain informer keeps field sets`);
      assert.deepEqual(got, want.map(({ fieldsV1: _f, ...rest }) => rest), `${step}: only fieldsV1 is gone`);
      if (step === 'list') {
        await client.apply(cm('m1', 'inf-mf', { j: '1' }), { fieldManager: 'writer-b' });
        await eventually(() => [c, f].map((s) => entries(s.informer.cache.get('inf-mf', 'm1')).length), (n) => n.every((x) => x === 2), { message: 'second manager seen' });
      }
    }
    assert.deepEqual(entries(c.informer.cache.get('inf-mf', 'm1')).map((e) => e.manager).sort(), ['writer-a', 'writer-b']);
    await compact.stop();
    await full.stop();
  });

  test('a kind that is not installed waits, then starts as soon as its CRD appears', async () => {
    const factory = new InformerFactory(client);
    const gvk = { apiVersion: 'later.example.com/v1', kind: 'Gadget' };
    const rec = recorder();
    const sub = factory.subscribe({ ...gvk, namespace: 'default' }, rec.handlers);
    await eventually(() => sub.informer.state, (s) => s === 'waiting-for-kind', { message: 'waiting-for-kind' });
    assert.equal(sub.informer.hasSynced(), false);
    await client.create({
      apiVersion: 'apiextensions.k8s.io/v1',
      kind: 'CustomResourceDefinition',
      metadata: { name: 'gadgets.later.example.com' },
      spec: {
        group: 'later.example.com',
        names: { kind: 'Gadget', plural: 'gadgets', singular: 'gadget', listKind: 'GadgetList' },
        scope: 'Namespaced',
        versions: [{ name: 'v1', served: true, storage: true, schema: { openAPIV3Schema: { type: 'object', 'x-kubernetes-preserve-unknown-fields': true } } }],
      },
    });
    // The CRD watch wakes the informer: it syncs well before its discovery poll (500 ms doubling) would.
    await sub.informer.waitForSync({ timeoutMs: 5000 });
    await client.create({ ...gvk, metadata: { name: 'g1', namespace: 'default' } });
    await eventually(() => rec.log, (l) => l.includes('add:g1'), { message: 'gadget add' });
    await factory.stop();
  });

  test('kinds that never come: after a few requests the waiting informers send none (no reconnect loop)', { timeout: 30_000 }, async () => {
    const factory = new InformerFactory(client);
    const subs = ['Widget', 'Gizmo'].map((kind) => factory.subscribe({ apiVersion: 'never.example.com/v1', kind }));
    for (const sub of subs) await eventually(() => sub.informer.state, (s) => s === 'waiting-for-kind', { message: 'waiting-for-kind' });
    // Let the CRD watch open and the waiters woken by it recheck discovery once.
    await new Promise((r) => setTimeout(r, 500));
    const before = (await api.server.requestCounts()).total;
    await new Promise((r) => setTimeout(r, 2000));
    const sent = (await api.server.requestCounts()).total - before;
    // Until the fix, every waiter reopened the CRD watch as soon as it was woken: ~90 requests a second.
    assert.equal(sent, 0, `requests sent while waiting: ${sent}`);
    for (const sub of subs) assert.equal(sub.informer.state, 'waiting-for-kind');
    await factory.stop();
  });

  test('an unreachable server: the informer backs off (no busy loop) and stops promptly', async () => {
    const srv = createServer();
    await new Promise<void>((r) => srv.listen(0, '127.0.0.1', r));
    const port = (srv.address() as { port: number }).port;
    await new Promise<void>((r) => srv.close(() => r()));
    const info = await api.cluster();
    const dead = createKubeClient({ object: singleContextKubeConfig({ server: `http://127.0.0.1:${port}`, token: info.token }) });
    const factory = new InformerFactory(dead, { backoff: { initialMs: 100, maxMs: 400 } });
    const sub = factory.subscribe({ ...CM });
    await eventually(() => sub.informer.stats.failures, (n) => n >= 3, { message: 'three failed attempts' });
    // 100, 200, 400, 400 … ms apart: a busy loop would have failed hundreds of times by now.
    assert.ok(sub.informer.stats.failures < 20, `failures: ${sub.informer.stats.failures}`);
    assert.equal(sub.informer.hasSynced(), false);
    await assert.rejects(sub.informer.waitForSync({ timeoutMs: 50 }), /did not sync/);
    await factory.stop();
    assert.equal(sub.informer.state, 'stopped');
    dead.close();
  });
});

test('server restart: the watch resumes; a 410 relist delivers exactly the difference (no duplicates, no lost deletes)', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'ripple-informer-'));
  let server = await startApiServer({ dataDir: dir, port: 0, clusters: ['test'], durability: 'normal', watchWindow: 3 });
  const port = server.port;
  const kubeconfig = server.kubeconfigYaml('test');
  const client = createKubeClient({ yaml: kubeconfig });
  const factory = new InformerFactory(client, { backoff: { initialMs: 1500, maxMs: 1500, jitter: 0 } });
  try {
    for (const n of ['a', 'b', 'c']) await client.create(cm(n, 'default', { k: '1' }));
    const rec = recorder();
    const sub = factory.subscribe({ ...CM, namespace: 'default' }, rec.handlers);
    await sub.informer.waitForSync({ timeoutMs: 5000 });
    rec.log.length = 0;
    // Restart the server; the informer's watch breaks and it waits 1.5 s before reconnecting.
    await server.stop();
    await eventually(() => sub.informer.state, (s) => s === 'backoff', { message: 'informer in backoff' });
    server = await startApiServer({ dataDir: dir, port, clusters: ['test'], durability: 'normal', watchWindow: 3 });
    const writer = createKubeClient({ yaml: kubeconfig });
    await writer.delete({ ...CM, namespace: 'default', name: 'a' });
    await writer.patch({ ...CM, namespace: 'default', name: 'b' }, 'merge', { data: { k: '2' } });
    await writer.create(cm('d', 'default', { k: '1' }));
    for (let i = 2; i <= 5; i++) await writer.patch({ ...CM, namespace: 'default', name: 'd' }, 'merge', { data: { k: String(i) } });
    writer.close();
    // 7 changes with a window of 3: the informer's resourceVersion is too old when it reconnects.
    await eventually(() => sub.informer.cache.keys().sort().join(), (k) => k === 'default/b,default/c,default/d', { message: 'cache converged' });
    await eventually(() => (sub.informer.cache.get('default', 'd')?.data as Record<string, string> | undefined)?.k, (v) => v === '5', { message: 'd at its last version' });
    assert.ok(sub.informer.stats.goneRelists >= 1, 'the reconnect hit 410 and relisted');
    assert.deepEqual(rec.log.sort(), ['add:d', 'delete:a', 'update:b:1>2']);
    // After the relist the watch is live again.
    await client.patch({ ...CM, namespace: 'default', name: 'c' }, 'merge', { data: { k: '9' } });
    await eventually(() => rec.log, (l) => l.includes('update:c:1>9'), { message: 'live after relist' });
  } finally {
    await factory.stop();
    client.close();
    await server.stop();
    rmSync(dir, { recursive: true, force: true });
  }
});
