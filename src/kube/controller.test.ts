// Controller against the embedded API server: level-based reconcile from informer events, never two workers on one
// key, error backoff with retries, requeueAfter, metrics.
import { strict as assert } from 'node:assert';
import { after, before, describe, test } from 'node:test';
import { createMetricsRegistry } from '../obs/index.js';
import { eventually } from '../../test/support/eventually.js';
import { startTestApiServer, type TestApiServer } from '../../test/support/apiserver.js';
import { Controller, enableWriteAccounting, ExponentialRateLimiter, InformerFactory, KubeClient, splitKey, type KubeObject } from './index.js';

const CM = { apiVersion: 'v1', kind: 'ConfigMap' };
const delay = (ms: number) => new Promise((r) => setTimeout(r, ms));

describe('Controller', () => {
  let api: TestApiServer;
  let client: KubeClient;
  before(async () => {
    api = await startTestApiServer();
    client = new KubeClient(await api.kubeConfig());
    for (const ns of ['src', 'dst', 'conc']) await client.create({ apiVersion: 'v1', kind: 'Namespace', metadata: { name: ns } });
  });
  after(async () => {
    client.close();
    await api.stop();
  });

  test('mirrors ConfigMaps level-based: creates, updates and deletes converge', async () => {
    const factory = new InformerFactory(client);
    const source = factory.subscribe({ ...CM, namespace: 'src' });
    const ctrl = new Controller({
      name: 'mirror',
      workers: 2,
      async reconcile(key) {
        const { name } = splitKey(key);
        const obj = source.informer.cache.get('src', name);
        const ref = { ...CM, namespace: 'dst', name };
        if (!obj) {
          await client.delete(ref).catch(() => undefined);
          return;
        }
        await client.apply({ ...CM, metadata: { name, namespace: 'dst' }, data: obj.data as Record<string, string> }, { fieldManager: 'mirror', force: true });
      },
    });
    ctrl.watch(source.informer);
    ctrl.start();
    await client.create({ ...CM, metadata: { name: 'm1', namespace: 'src' }, data: { v: '1' } });
    await client.create({ ...CM, metadata: { name: 'm2', namespace: 'src' }, data: { v: '1' } });
    await eventually(() => client.getIfExists<KubeObject>({ ...CM, namespace: 'dst', name: 'm1' }), (o) => (o?.data as Record<string, string> | undefined)?.v === '1', { message: 'm1 mirrored' });
    await client.patch({ ...CM, namespace: 'src', name: 'm1' }, 'merge', { data: { v: '2' } });
    await client.delete({ ...CM, namespace: 'src', name: 'm2' });
    await eventually(() => client.getIfExists<KubeObject>({ ...CM, namespace: 'dst', name: 'm1' }), (o) => (o?.data as Record<string, string> | undefined)?.v === '2', { message: 'm1 updated' });
    await eventually(() => client.getIfExists({ ...CM, namespace: 'dst', name: 'm2' }), (o) => o === undefined, { message: 'm2 withdrawn' });
    await ctrl.stop();
    await factory.stop();
  });

  test('never two workers on the same key, while different keys run in parallel', async () => {
    const inFlight = new Set<string>();
    let overlapSameKey = 0;
    let maxParallel = 0;
    const passes = new Map<string, number>();
    const ctrl = new Controller({
      name: 'concurrency',
      workers: 4,
      async reconcile(key) {
        if (inFlight.has(key)) overlapSameKey++;
        inFlight.add(key);
        maxParallel = Math.max(maxParallel, inFlight.size);
        await delay(5);
        passes.set(key, (passes.get(key) ?? 0) + 1);
        inFlight.delete(key);
      },
    });
    ctrl.start();
    for (let round = 0; round < 20; round++) {
      for (const k of ['a', 'b', 'c', 'd']) ctrl.enqueue(k);
      await delay(2);
    }
    await eventually(() => ctrl.queue.length + ctrl.queue.processingCount, (n) => n === 0, { message: 'queue drained' });
    await ctrl.stop();
    assert.equal(overlapSameKey, 0);
    assert.ok(maxParallel > 1, 'different keys were reconciled concurrently');
    for (const k of ['a', 'b', 'c', 'd']) {
      const n = passes.get(k) ?? 0;
      assert.ok(n >= 2 && n < 20, `${k} reconciled ${n} times: adds while processing collapse into one more pass`);
    }
  });

  test('failures back off per key and retry until success; requeueAfter schedules another pass; metrics record it', async () => {
    const registry = createMetricsRegistry();
    const seenRetries: number[] = [];
    let periodic = 0;
    const ctrl = new Controller({
      name: 'flaky',
      metrics: registry,
      rateLimiter: new ExponentialRateLimiter(2, 50),
      async reconcile(key, ctx) {
        if (key === 'flaky') {
          seenRetries.push(ctx.retries);
          if (ctx.retries < 3) throw new Error(`attempt ${ctx.retries} failed`);
          return;
        }
        periodic++;
        return periodic < 3 ? { requeueAfter: 10 } : undefined;
      },
    });
    ctrl.start();
    ctrl.enqueue('flaky');
    ctrl.enqueue('periodic');
    await eventually(() => seenRetries.length >= 4 && periodic >= 3, Boolean, { message: 'retries and requeues' });
    await delay(50);
    assert.deepEqual(seenRetries, [0, 1, 2, 3], 'the reconcile sees how often its key failed before');
    assert.equal(periodic, 3);
    assert.equal(ctrl.queue.numRequeues('flaky'), 0, 'success forgets the failures');
    const text = await registry.metrics();
    assert.match(text, /ripple_reconcile_total\{controller="flaky",result="error"\} 3/);
    assert.match(text, /ripple_reconcile_total\{controller="flaky",result="success"\} 2/);
    assert.match(text, /ripple_reconcile_total\{controller="flaky",result="requeue_after"\} 2/);
    assert.match(text, /ripple_reconcile_duration_seconds_count\{controller="flaky"\} 7/);
    assert.match(text, /ripple_workqueue_depth\{controller="flaky"\} 0/);
    await ctrl.stop();
  });

  test('a second controller on the same registry shares the metric families', async () => {
    const registry = createMetricsRegistry();
    const a = new Controller({ name: 'one', metrics: registry, reconcile: async () => undefined });
    const b = new Controller({ name: 'two', metrics: registry, reconcile: async () => undefined });
    a.start();
    b.start();
    a.enqueue('x');
    b.enqueue('y');
    await eventually(async () => registry.metrics(), (t) => /controller="one",result="success"/.test(t) && /controller="two",result="success"/.test(t), { message: 'both counted' });
    await a.stop();
    await b.stop();
  });

  // Last: the accounting stays on for the rest of the process.
  test('with write accounting on, reconciles that sent no write are counted as no-ops, per controller', async () => {
    enableWriteAccounting();
    const registry = createMetricsRegistry();
    const noops = async () => (await registry.getSingleMetric('ripple_reconcile_noop_total')!.get()).values.find((v) => v.labels.controller === 'acct')?.value ?? 0;
    const done: string[] = [];
    const ctrl = new Controller({
      name: 'acct',
      metrics: registry,
      async reconcile(key) {
        // Reads are no writes; a write issued after an await is still this reconcile's.
        await client.list(CM, { namespace: 'conc' });
        await delay(1);
        if (key.startsWith('write')) await client.apply({ ...CM, metadata: { name: key, namespace: 'conc' }, data: { k: 'v' } }, { fieldManager: 'acct', force: true });
        done.push(key);
      },
    });
    ctrl.start();
    for (const k of ['write-1', 'read-1', 'write-2', 'read-2', 'read-3']) ctrl.enqueue(k);
    await eventually(() => done.length, (n) => n === 5, { message: 'all reconciled' });
    await eventually(noops, (n) => n === 3, { message: 'three no-ops' });
    await ctrl.stop();
  });
});
