import { strict as assert } from 'node:assert';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import { createKubeClient, type KubeClient, type KubeObject, type WatchEvent } from '../kube/index.js';
import { serialize } from './cluster.js';
import { startApiServer } from './index.js';
import { PARSE_STATS, ParsedCache, pinnedStorage, storedObject } from './parsed.js';

const cm = (name: string, data: Record<string, string>, labels: Record<string, string> = {}) => ({
  apiVersion: 'v1',
  kind: 'ConfigMap',
  metadata: { name, namespace: 'default', resourceVersion: '1', labels },
  data,
});

test('the parsed-object cache drops cold objects within its budget and parses them back identical', () => {
  const cache = new ParsedCache(600);
  const made = Array.from({ length: 10 }, (_, i) => {
    const obj = cm(`c${i}`, { k: 'v'.repeat(20 + i) });
    return { obj: structuredClone(obj), s: storedObject('/configmaps', obj, i + 1, serialize(obj), cache) };
  });
  // Over the budget the oldest, unread objects went first; the budget holds (JSON characters of what is kept).
  assert.ok(cache.bytes <= 600, `bytes ${cache.bytes}`);
  assert.equal(made[0].s.parsed, undefined);
  assert.notEqual(made[9].s.parsed, undefined);
  assert.equal(cache.reparses, 0);
  // A dropped object reads back equal to what was stored, from its unchanged JSON.
  const json = made[0].s.json;
  assert.deepEqual(made[0].s.obj, made[0].obj);
  assert.equal(made[0].s.json, json);
  assert.equal(serialize(made[0].s.obj), json);
  assert.equal(cache.reparses, 1);
  // Read again while kept: the same object, no parse.
  assert.equal(made[0].s.obj, made[0].s.obj);
  assert.equal(cache.reparses, 1);

  // An object read since the hand last passed it gets a second chance: a hot object survives a stream of new ones.
  const hot = made[9].s;
  const first = hot.obj;
  for (let i = 10; i < 40; i++) {
    const obj = cm(`c${i}`, { k: 'v'.repeat(25) });
    storedObject('/configmaps', obj, i + 1, serialize(obj), cache);
    assert.equal(hot.obj, first, `hot object dropped after ${i}`);
  }
  assert.ok(cache.bytes <= 600, `bytes ${cache.bytes}`);

  // Pinned tables (RBAC, admission configuration, CRDs, namespaces) stay parsed and outside the budget.
  assert.equal(pinnedStorage('rbac.authorization.k8s.io/clusterroles'), true);
  assert.equal(pinnedStorage('apiextensions.k8s.io/customresourcedefinitions'), true);
  assert.equal(pinnedStorage('/namespaces'), true);
  assert.equal(pinnedStorage('/configmaps'), false);
  assert.equal(pinnedStorage('config.projectsveltos.io/clusterprofiles'), false);
  const role = { apiVersion: 'rbac.authorization.k8s.io/v1', kind: 'ClusterRole', metadata: { name: 'r', resourceVersion: '1' }, rules: [] };
  const before = cache.bytes;
  const pinned = storedObject('rbac.authorization.k8s.io/clusterroles', role, 99, serialize(role), cache);
  for (let i = 40; i < 60; i++) {
    const obj = cm(`c${i}`, { k: 'v'.repeat(25) });
    storedObject('/configmaps', obj, i + 1, serialize(obj), cache);
  }
  assert.equal(pinned.obj, role);
  assert.ok(cache.bytes <= Math.max(before, 600));
});

async function events(client: KubeClient, opts: { resourceVersion: string; labelSelector?: string }, until: number, into: WatchEvent[]): Promise<void> {
  let done!: () => void;
  const enough = new Promise<void>((r) => (done = r));
  const w = await client.watch({ apiVersion: 'v1', kind: 'ConfigMap' }, { namespace: 'default', allowWatchBookmarks: false, ...opts }, (ev) => {
    into.push(ev);
    if (into.length >= until) done();
  });
  if (into.length < until) await enough;
  w.stop();
}

test('with every cold object dropped at once, reads, writes, selectors, resumed watches and a restart answer as before', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'ripple-parsed-'));
  // A budget of one character: every object not being written right now keeps only its JSON.
  let server = await startApiServer({ dataDir: dir, port: 0, clusters: ['c'], parsedCacheBytes: 1 });
  let client = createKubeClient({ yaml: server.kubeconfigYaml('c') }, { name: 'c' });
  try {
    const gvk = { apiVersion: 'v1', kind: 'ConfigMap' };
    const ref = (name: string) => ({ ...gvk, namespace: 'default', name });
    const start = (await client.list(gvk, { namespace: 'default' })).resourceVersion;

    const a = await client.create<KubeObject>({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'a', namespace: 'default', labels: { tier: 'x' } }, data: { one: '1' } });
    await client.create({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'b', namespace: 'default', labels: { tier: 'y' } }, data: { two: '2' } });
    for (let i = 0; i < 20; i++) await client.create({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: `filler-${i}`, namespace: 'default' }, data: { i: String(i) } });
    // Writes on top of dropped objects: merge patch, update, server-side apply (managedFields merged with the stored ones).
    await client.patch(ref('a'), 'merge', { data: { two: '2' } });
    const got = await client.get<KubeObject>(ref('a'));
    await client.update({ ...got, data: { ...(got.data as object), three: '3' } });
    await client.apply({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'a', namespace: 'default' }, data: { applied: 'yes' } }, { fieldManager: 'tester', force: true });
    // A label change moving b out of tier=y (a watch on tier=y must see it DELETED: the old version is compared).
    await client.patch(ref('b'), 'merge', { metadata: { labels: { tier: 'z' } } });
    await client.delete(ref('filler-3'));

    const final = await client.get<KubeObject>(ref('a'));
    assert.deepEqual(final.data, { one: '1', two: '2', three: '3', applied: 'yes' });
    assert.equal((final.metadata as { uid: string }).uid, (a.metadata as { uid: string }).uid);
    const managers = ((final.metadata as { managedFields: { manager: string }[] }).managedFields ?? []).map((m) => m.manager).sort();
    assert.ok(managers.includes('tester'), JSON.stringify(managers));
    // A no-op update of a dropped object does not write (the stored version compares equal).
    const same = await client.update<KubeObject>(final);
    assert.equal(same.metadata!.resourceVersion, final.metadata!.resourceVersion);

    // Selectors over dropped objects.
    const x = await client.list(gvk, { namespace: 'default', labelSelector: 'tier=x' });
    assert.deepEqual(x.items.map((o) => o.metadata!.name), ['a']);
    const y = await client.list(gvk, { namespace: 'default', labelSelector: 'tier=y' });
    assert.deepEqual(y.items, []);
    const byField = await client.list(gvk, { namespace: 'default', fieldSelector: 'metadata.name=filler-7' });
    assert.deepEqual(byField.items.map((o) => o.data), [{ i: '7' }]);
    const all = await client.list(gvk, { namespace: 'default' });
    assert.equal(all.items.length, 2 + 20 - 1);
    assert.deepEqual(all.items.find((o) => o.metadata!.name === 'a'), final);
    // A list without selectors sends the stored text of dropped objects as it is: nothing is parsed again.
    const parsedBefore = PARSE_STATS.reparses;
    const plain = await client.list(gvk, { namespace: 'default' });
    assert.equal(PARSE_STATS.reparses, parsedBefore);
    assert.deepEqual(plain.items, all.items);
    // Label selectors read the labels kept beside the text: still nothing parsed, and the same answers.
    const selected = await client.list(gvk, { namespace: 'default', labelSelector: '!nothing' });
    assert.deepEqual(selected.items, all.items);
    const tierX = await client.list(gvk, { namespace: 'default', labelSelector: 'tier in (x),tier!=y' });
    assert.deepEqual(tierX.items.map((o) => o.metadata!.name), ['a']);
    assert.equal(PARSE_STATS.reparses, parsedBefore);
    // A field selector beyond the name needs the object: parsed again, same answer.
    const byNs = await client.list(gvk, { namespace: 'default', fieldSelector: 'metadata.namespace=default' });
    assert.ok(PARSE_STATS.reparses > parsedBefore);
    assert.deepEqual(byNs.items, all.items);

    // Resumed watches from inside the window replay exactly the committed events, old versions parsed back.
    const writes = 2 + 20 + 4 + 1;
    const replay: WatchEvent[] = [];
    await events(client, { resourceVersion: start }, writes, replay);
    assert.equal(replay.length, writes);
    assert.deepEqual(replay.slice(0, 2).map((e) => [e.type, e.object.metadata!.name]), [['ADDED', 'a'], ['ADDED', 'b']]);
    assert.deepEqual(replay.at(-1)!.type, 'DELETED');
    assert.deepEqual(replay.at(-2)!.object.metadata!.labels, { tier: 'z' });
    // The same replay twice is byte-for-byte the same (each old version re-read from its JSON).
    const again: WatchEvent[] = [];
    await events(client, { resourceVersion: start }, writes, again);
    assert.deepEqual(again, replay);
    // Filtered by the old label: b's ADDED, then its move out of the selector as DELETED carrying the last version that
    // matched (kube's cacher), which is parsed back from the window.
    const tierY: WatchEvent[] = [];
    await events(client, { resourceVersion: start, labelSelector: 'tier=y' }, 2, tierY);
    assert.deepEqual(tierY.map((e) => [e.type, e.object.metadata!.name, e.object.metadata!.labels]), [
      ['ADDED', 'b', { tier: 'y' }],
      ['DELETED', 'b', { tier: 'y' }],
    ]);

    // After a restart every object is loaded, dropped and read back the same.
    client.close();
    await server.stop();
    server = await startApiServer({ dataDir: dir, port: 0, parsedCacheBytes: 1 });
    client = createKubeClient({ yaml: server.kubeconfigYaml('c') }, { name: 'c' });
    assert.deepEqual(await client.get(ref('a')), final);
    const after = await client.list(gvk, { namespace: 'default' });
    assert.deepEqual(after.items, all.items);
  } finally {
    client.close();
    await server.stop();
    rmSync(dir, { recursive: true, force: true });
  }
});
