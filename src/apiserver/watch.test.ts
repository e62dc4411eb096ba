import { strict as assert } from 'node:assert';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import { createKubeClient, errorMessage, type KubeClient, type WatchEvent } from '../kube/index.js';
import { startApiServer } from './index.js';
import type { Stored } from './types.js';
import { WatchHub, WindowBudget, type ChangeEvent } from './watch.js';

const event = (rv: number, size: number): ChangeEvent => {
  const cur: Stored = { obj: { metadata: { name: `o${rv}` } }, rv, json: 'x'.repeat(size) };
  return { type: 'ADDED', rv, storage: '/configmaps', cur };
};

test('the watch windows of all clusters share one budget: the oldest history goes first, whichever cluster it is in', () => {
  const budget = new WindowBudget(1000);
  const a = new WatchHub(0, 10_000, 10_000, budget);
  const b = new WatchHub(0, 10_000, 10_000, budget);
  // a gets rv 1..3, then b gets 4..12 (each event 100 characters of JSON).
  for (let rv = 1; rv <= 3; rv++) a.publish(event(rv, 100));
  for (let rv = 4; rv <= 12; rv++) b.publish(event(rv, 100));
  // 12 events of 100 over a budget of 1000: the two oldest (both a's) went, the rest is kept.
  assert.equal(budget.bytes, 1000);
  assert.equal(a.floor, 2);
  assert.deepEqual(a.since('/configmaps', 2)?.map((e) => e.rv), [3]);
  assert.equal(a.since('/configmaps', 1), undefined, 'resuming from before the floor is refused (410 Gone)');
  assert.equal(b.floor, 0);
  assert.deepEqual(b.since('/configmaps', 0)?.map((e) => e.rv), [4, 5, 6, 7, 8, 9, 10, 11, 12]);
  // More of b: a keeps its newest event (every window does), b's own oldest go next.
  for (let rv = 13; rv <= 15; rv++) b.publish(event(rv, 100));
  assert.equal(a.floor, 2);
  assert.deepEqual(a.since('/configmaps', 2)?.map((e) => e.rv), [3]);
  assert.equal(b.floor, 6);
  assert.deepEqual(b.since('/configmaps', 6)?.map((e) => e.rv), [7, 8, 9, 10, 11, 12, 13, 14, 15]);
  assert.equal(budget.bytes, 1000);
  // A window's own bound still applies, and what it drops is returned to the shared budget.
  const small = new WatchHub(15, 2, 10_000, budget);
  for (let rv = 16; rv <= 18; rv++) small.publish(event(rv, 10));
  assert.deepEqual(small.since('/configmaps', 16)?.map((e) => e.rv), [17, 18]);
  // 1000 + 20 over the budget: b's oldest (rv 7) went to make room.
  assert.equal(budget.bytes, 920);
  assert.equal(b.floor, 7);
});

async function collect(client: KubeClient, resourceVersion: string, until: number): Promise<{ events: WatchEvent[]; error?: string }> {
  const events: WatchEvent[] = [];
  let done!: () => void;
  const enough = new Promise<void>((r) => (done = r));
  try {
    const w = await client.watch({ apiVersion: 'v1', kind: 'ConfigMap' }, { namespace: 'default', resourceVersion, allowWatchBookmarks: false }, (ev) => {
      events.push(ev);
      if (events.length >= until) done();
    });
    await Promise.race([enough, w.done]);
    w.stop();
    await w.done;
  } catch (err) {
    return { events, error: errorMessage(err) };
  }
  return { events };
}

test('a cluster whose history the shared budget dropped answers 410 to an old resourceVersion; newer ones resume exactly', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'ripple-windows-'));
  // Room for about ten ConfigMaps of history across both clusters.
  const server = await startApiServer({ dataDir: dir, port: 0, clusters: ['quiet', 'busy'], watchWindowsTotalBytes: 10 * 300 });
  const quiet = createKubeClient({ yaml: server.kubeconfigYaml('quiet') }, { name: 'quiet' });
  const busy = createKubeClient({ yaml: server.kubeconfigYaml('busy') }, { name: 'busy' });
  const cm = (name: string) => ({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name, namespace: 'default' }, data: { k: 'v'.repeat(100) } });
  try {
    const gvk = { apiVersion: 'v1', kind: 'ConfigMap' };
    const before = (await quiet.list(gvk, { namespace: 'default' })).resourceVersion;
    await quiet.create(cm('q1'));
    const afterQ1 = (await quiet.list(gvk, { namespace: 'default' })).resourceVersion;
    await quiet.create(cm('q2'));
    // Inside the window: both events, exactly.
    const early = await collect(quiet, before, 2);
    assert.deepEqual(early.events.map((e) => [e.type, e.object.metadata!.name]), [['ADDED', 'q1'], ['ADDED', 'q2']]);
    // The busy cluster's writes push the quiet cluster's older history out of the shared budget.
    const rvs: string[] = [];
    for (let i = 0; i < 20; i++) rvs.push((await busy.create(cm(`b${i}`))).metadata!.resourceVersion!);
    const gone = await collect(quiet, before, 1);
    assert.match(gone.error ?? '', /too old resource version|Expired|410/i, JSON.stringify(gone));
    // The quiet cluster's newest event is always kept: resuming after q1 still gets q2.
    const kept = await collect(quiet, afterQ1, 1);
    assert.equal(kept.error, undefined);
    assert.deepEqual(kept.events.map((e) => [e.type, e.object.metadata!.name]), [['ADDED', 'q2']]);
    // The busy cluster's recent history is whole.
    const recent = await collect(busy, rvs[14], 5);
    assert.equal(recent.error, undefined);
    assert.deepEqual(recent.events.map((e) => e.object.metadata!.name), ['b15', 'b16', 'b17', 'b18', 'b19']);
  } finally {
    quiet.close();
    busy.close();
    await server.stop();
    rmSync(dir, { recursive: true, force: true });
  }
});

test('large objects reach watches whole: live events, replayed ones and status-only changes sharing the spec text', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'ripple-large-watch-'));
  const server = await startApiServer({ dataDir: dir, port: 0, clusters: ['c'] });
  const client = createKubeClient({ yaml: server.kubeconfigYaml('c') }, { name: 'c' });
  const gvk = { apiVersion: 'v1', kind: 'ConfigMap' };
  // 150 KB of data: above the server's piecewise size and V8's 128 KiB regular string size; multi-byte characters.
  const big = (n: number) => ({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: `big${n}`, namespace: 'default' }, data: { blob: `é${n}`.repeat(50_000), small: 'ü' } });
  try {
    const before = (await client.list(gvk, { namespace: 'default' })).resourceVersion;
    await client.create(big(1));
    await client.create({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'small', namespace: 'default' }, data: { a: 'b' } });
    await client.create(big(2));
    // Replayed from the window (queued until the watch starts), then live.
    const events: WatchEvent[] = [];
    let done!: () => void;
    const enough = new Promise<void>((r) => (done = r));
    const w = await client.watch(gvk, { namespace: 'default', resourceVersion: before, allowWatchBookmarks: false }, (ev) => {
      events.push(ev);
      if (events.length >= 5) done();
    });
    await client.patch({ ...gvk, namespace: 'default', name: 'big1' }, 'merge', { metadata: { labels: { x: 'y' } } });
    await client.patch({ ...gvk, namespace: 'default', name: 'big1' }, 'merge', { data: { small: 'changed' } });
    await Promise.race([enough, w.done]);
    w.stop();
    const got = await Promise.all(['big1', 'small', 'big2'].map((name) => client.get({ ...gvk, namespace: 'default', name })));
    assert.deepEqual(
      events.map((e) => [e.type, e.object.metadata!.name]),
      [['ADDED', 'big1'], ['ADDED', 'small'], ['ADDED', 'big2'], ['MODIFIED', 'big1'], ['MODIFIED', 'big1']],
    );
    assert.deepEqual(events[4]!.object, got[0]);
    assert.deepEqual(events[1]!.object, got[1]);
    assert.deepEqual(events[2]!.object, got[2]);
    assert.deepEqual((events[3]!.object as unknown as { data: object }).data, big(1).data);
    // Written in pieces (parsed.ts), stored whole: the same object after a restart.
    client.close();
    await server.stop();
    const again = await startApiServer({ dataDir: dir, port: 0, clusters: ['c'] });
    const c2 = createKubeClient({ yaml: again.kubeconfigYaml('c') }, { name: 'c' });
    try {
      assert.deepEqual(await c2.get({ ...gvk, namespace: 'default', name: 'big1' }), got[0]);
    } finally {
      c2.close();
      await again.stop();
    }
  } finally {
    client.close();
    await server.stop();
    rmSync(dir, { recursive: true, force: true });
  }
});
