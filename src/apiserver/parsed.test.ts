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

test('a replaced version released from the budget leaves room for current objects; the hand skips its entry', () => {
  // Room for about three of these objects' parsed forms.
  const cache = new ParsedCache(3 * serialize(cm('c0', { k: 'v'.repeat(40) })).length + 10);
  const a = storedObject('/configmaps', cm('a', { k: 'v'.repeat(40) }), 1, serialize(cm('a', { k: 'v'.repeat(40) })), cache);
  const b = storedObject('/configmaps', cm('b', { k: 'v'.repeat(40) }), 2, serialize(cm('b', { k: 'v'.repeat(40) })), cache);
  const bObj = b.obj;
  // Object a is written over and over; each replaced version is retired once its successor is stored (cluster.ts
  // does it after the watch event is published). Without that, a's dead versions would push b out.
  let cur = a;
  for (let i = 0; i < 20; i++) {
    const obj = cm('a', { k: `${'v'.repeat(39)}${i % 10}` });
    const next = storedObject('/configmaps', obj, 10 + i, serialize(obj), cache);
    cur.retire();
    assert.equal(cur.parsed, undefined, 'the replaced version holds no parsed object');
    cur = next;
  }
  assert.equal(b.parsed, bObj, 'the other current object kept its parsed form');
  assert.equal(cache.size, 2);
  assert.equal(cache.released, 20);
  assert.ok(cache.bytes <= cache.budget);
  // A retired version read again is parsed from its text and admitted again; accounting stays exact when the hand
  // later passes both of its ring entries.
  assert.deepEqual(a.obj, cm('a', { k: 'v'.repeat(40) }));
  assert.equal(cache.size, 3);
  const all = [a, b, cur];
  for (let i = 0; i < 12; i++) {
    const obj = cm(`f${i}`, { k: 'v'.repeat(40) });
    all.push(storedObject('/configmaps', obj, 100 + i, serialize(obj), cache));
  }
  assert.ok(cache.bytes <= cache.budget, `bytes ${cache.bytes}`);
  const held = all.filter((s) => s.parsed !== undefined);
  assert.equal(cache.size, held.length);
  assert.equal(cache.bytes, held.reduce((n, s) => n + s.size, 0), 'bytes count exactly the objects held');
  // Retiring a dropped version, or one twice, changes nothing.
  const released = cache.released;
  const aHeld = a.parsed !== undefined ? 1 : 0;
  a.retire();
  a.retire();
  assert.equal(cache.released, released + aHeld);
  assert.equal(a.parsed, undefined);
});

test('a busy object in a cache that never fills keeps the ring bounded: released entries are compacted away', () => {
  const cache = new ParsedCache(16 * 1024 * 1024);
  const others = Array.from({ length: 10 }, (_, i) => storedObject('/configmaps', cm(`o${i}`, { k: 'v' }), i + 1, serialize(cm(`o${i}`, { k: 'v' })), cache));
  let cur = storedObject('/configmaps', cm('busy', { n: '0' }), 100, serialize(cm('busy', { n: '0' })), cache);
  let rereads = 0;
  for (let i = 1; i <= 20_000; i++) {
    const obj = cm('busy', { n: String(i) });
    const next = storedObject('/configmaps', obj, 100 + i, serialize(obj), cache);
    cur.retire();
    // Now and then a replaced version is read again (a watch replay's selector): parsed and admitted again, a second
    // ring entry for the same object.
    if (i % 997 === 0) {
      assert.deepEqual(cur.obj.data, { n: String(i - 1) });
      rereads++;
    }
    cur = next;
  }
  assert.equal(cache.size, 11 + rereads);
  assert.ok(cache.entries <= cache.size + 1025, `ring of ${cache.entries} entries for ${cache.size} objects held`);
  assert.ok(others.every((o) => o.parsed !== undefined), 'the other objects stay parsed');

  // Large replaced versions are dropped from the ring by their size too, many objects held or not: the ring's
  // released entries never keep more than a quarter of the budget's worth of old versions alive.
  const big = new ParsedCache(1024 * 1024);
  const held = Array.from({ length: 3000 }, (_, i) => storedObject('/configmaps', cm(`h${i}`, { k: 'v' }), i + 1, serialize(cm(`h${i}`, { k: 'v' })), big));
  const report = (n: number) => cm('report', { blob: 'x'.repeat(100_000), n: String(n) });
  let r = storedObject('/configmaps', report(0), 10_000, serialize(report(0)), big);
  for (let i = 1; i <= 200; i++) {
    const next = storedObject('/configmaps', report(i), 10_000 + i, serialize(report(i)), big);
    r.retire();
    r = next;
  }
  assert.ok(big.entries - big.size <= Math.ceil(big.budget / 4 / 100_000) + 1, `${big.entries - big.size} released entries of 100 KB kept in the ring`);
  assert.equal(held.filter((h) => h.parsed !== undefined).length, big.size - 1);
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

test('RBAC objects are lean: no JSON text kept, rules shared between clusters and frozen, text the same on every read', () => {
  const role = (cluster: string) => ({
    apiVersion: 'rbac.authorization.k8s.io/v1',
    kind: 'ClusterRole',
    metadata: { name: 'view', uid: `uid-${cluster}`, resourceVersion: '7', labels: { 'kubernetes.io/bootstrapping': 'rbac-defaults' } },
    rules: [{ apiGroups: [''], resources: ['pods', 'services'], verbs: ['get', 'list', 'watch'] }],
  });
  const cache = new ParsedCache();
  const a = role('a');
  const textA = serialize(a);
  const sa = storedObject('rbac.authorization.k8s.io/clusterroles', a, 7, textA, cache);
  const sb = storedObject('rbac.authorization.k8s.io/clusterroles', role('b'), 7, serialize(role('b')), cache);
  assert.ok(pinnedStorage('rbac.authorization.k8s.io/clusterroles'));
  // Equal parts are one value, frozen; the per-object metadata is not shared.
  assert.equal(sa.obj.rules, sb.obj.rules);
  assert.equal(sa.obj.metadata.labels, sb.obj.metadata.labels);
  assert.notEqual(sa.obj.metadata, sb.obj.metadata);
  assert.ok(Object.isFrozen(sa.obj.rules) && Object.isFrozen((sa.obj.rules as object[])[0]));
  assert.throws(() => (sa.obj.rules as unknown[]).push({}), TypeError);
  // The text is not kept but is what was stored, on every read, and its length is known without serializing.
  assert.equal(sa.json, textA);
  assert.equal(sa.json, textA);
  assert.equal(sa.size, textA.length);
  assert.equal(cache.size, 0, 'pinned objects are outside the parsed-object budget');
  // Different rules stay different values.
  const c = { ...role('c'), rules: [{ apiGroups: [''], resources: ['secrets'], verbs: ['get'] }] };
  const sc = storedObject('rbac.authorization.k8s.io/clusterroles', c, 8, serialize(c), cache);
  assert.notEqual(sc.obj.rules, sa.obj.rules);
  assert.deepEqual(sc.obj.rules, [{ apiGroups: [''], resources: ['secrets'], verbs: ['get'] }]);
});

test('a role changed in one cluster leaves the shared default in the others; RBAC reads and lists answer the stored text', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'ripple-lean-'));
  const server = await startApiServer({ dataDir: dir, port: 0, clusters: ['a', 'b'] });
  const a = createKubeClient({ yaml: server.kubeconfigYaml('a') }, { name: 'a' });
  const b = createKubeClient({ yaml: server.kubeconfigYaml('b') }, { name: 'b' });
  try {
    const ref = { apiVersion: 'rbac.authorization.k8s.io/v1', kind: 'ClusterRole', name: 'system:basic-user' };
    const before = await b.get<KubeObject>(ref);
    const got = await a.get<KubeObject>(ref);
    assert.deepEqual(got.rules, before.rules);
    await a.update({ ...got, rules: [{ apiGroups: [''], resources: ['configmaps'], verbs: ['get'] }] });
    await a.patch(ref, 'json', [{ op: 'add', path: '/rules/0/verbs/-', value: 'list' }]);
    assert.deepEqual((await a.get<KubeObject>(ref)).rules, [{ apiGroups: [''], resources: ['configmaps'], verbs: ['get', 'list'] }]);
    // The other cluster's copy of the default is untouched.
    assert.deepEqual(await b.get<KubeObject>(ref), before);
    // A list and a watch carry the same objects as a GET (the text is serialized again from the parsed object).
    const list = await b.list<KubeObject>({ apiVersion: 'rbac.authorization.k8s.io/v1', kind: 'ClusterRole' });
    assert.deepEqual(list.items.find((r) => r.metadata?.name === 'system:basic-user'), before);
    const events: WatchEvent<KubeObject>[] = [];
    const w = await b.watch<KubeObject>({ apiVersion: 'rbac.authorization.k8s.io/v1', kind: 'ClusterRole' }, { resourceVersion: '0' }, (ev) => void events.push(ev));
    for (let i = 0; i < 200 && !events.some((e) => e.object.metadata?.name === 'system:basic-user'); i++) await new Promise((r) => setTimeout(r, 10));
    w.stop();
    assert.deepEqual(events.find((e) => e.object.metadata?.name === 'system:basic-user')?.object, before);
  } finally {
    await server.stop();
    rmSync(dir, { recursive: true, force: true });
  }
});

test('a new version of a large object reuses the JSON of the members it shares with the stored one, byte for byte', async () => {
  const { serializeVersion, SPLICE_STATS } = await import('./parsed.js');
  const big = 'QUJD'.repeat(30_000);
  // A budget of one character: a version not being written keeps only its JSON, as cold objects do.
  const cache = new ParsedCache(1);
  const store = (obj: Record<string, unknown>, prev: ReturnType<typeof storedObject> | undefined, rv: number) => {
    const { json, spans } = serializeVersion(obj as never, prev);
    assert.equal(typeof json === 'string' ? json : json.join(''), serialize(obj as never), 'the same text as serialize');
    const s = storedObject('lib.projectsveltos.io/eventreports', obj as never, rv, json, cache);
    s.spans = spans;
    return s;
  };
  const v1 = {
    apiVersion: 'lib.projectsveltos.io/v1beta1',
    kind: 'EventReport',
    metadata: { name: 'r', namespace: 'ns', resourceVersion: '5' },
    spec: { resources: big, matchingResources: [{ kind: 'Service', name: 'a\u2028"b' }] },
    status: { phase: 'WaitingForDelivery' },
  };
  // A first version: nothing to reuse, and small previous versions take the plain path.
  const s1 = store(v1, undefined, 5);
  assert.equal(s1.spans, undefined);
  // A new version of an object already large (the agent's apply of a changed report): member by member.
  const v2 = { ...v1, metadata: { ...v1.metadata, resourceVersion: '6' }, spec: { ...v1.spec, resources: `${big}AAAA` } };
  const s2 = store(v2, s1, 6);
  assert.ok(s2.spans?.has('spec'));
  // Kept in pieces, the spec's text one of them; the whole text is never one string unless asked for.
  const pieces = s2.jsonText;
  assert.ok(Array.isArray(pieces));
  assert.equal(pieces[s2.spans!.get('spec')!], JSON.stringify(v2.spec));
  assert.equal(s2.size, serialize(v2 as never).length);
  assert.equal(s2.json, serialize(v2 as never));
  // A status write: a new object sharing spec with the stored version's parsed object, which was dropped and parsed
  // again from its text in between (a busy server's cache): the spec's text is taken from the stored JSON.
  const before = SPLICE_STATS.reused;
  storedObject('/configmaps', cm('filler', { a: '1' }) as never, 99, serialize(cm('filler', { a: '1' }) as never), cache);
  assert.equal(s2.parsed, undefined, 'dropped');
  const cur = s2.obj;
  assert.ok(cur !== v2 && cur.spec !== v2.spec, 'parsed again');
  const v3 = { ...cur, metadata: { ...cur.metadata, resourceVersion: '7' }, status: { phase: 'Processed' } };
  const s3 = store(v3, s2, 7);
  assert.equal(SPLICE_STATS.reused, before + 1);
  // Members in any order, undefined ones left out; a spec that is not the stored value is serialized anew.
  const cur3 = s3.obj;
  const v4 = { status: { phase: 'WaitingForDelivery' }, metadata: { ...cur3.metadata, resourceVersion: '8' }, spec: cur3.spec, kind: cur3.kind, apiVersion: cur3.apiVersion, gone: undefined };
  const s4 = store(v4, s3, 8);
  assert.equal(SPLICE_STATS.reused, before + 2);
  store({ ...v4, spec: { ...(v4.spec as object) } }, s4, 9);
  assert.equal(SPLICE_STATS.reused, before + 2, 'an equal but different value is serialized anew');
  // Integer-like top-level keys take the plain path.
  store({ ...v4, 7: 'seven' }, s4, 10);
});

test('the garbage collector checks a cold owner for deletion without parsing it again, and still deletes in foreground', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'ripple-owner-'));
  // A 200 KB owner over a 64 KiB budget: its parsed form is dropped as soon as anything else is stored.
  const server = await startApiServer({ dataDir: dir, port: 0, clusters: ['c'], parsedCacheBytes: 64 * 1024 });
  const client = createKubeClient({ yaml: server.kubeconfigYaml('c') }, { name: 'c' });
  try {
    const gvk = { apiVersion: 'v1', kind: 'ConfigMap' };
    const owner = await client.create<KubeObject>({ ...gvk, metadata: { name: 'owner', namespace: 'default' }, data: { big: 'x'.repeat(200_000) } });
    const ownerReferences = [{ apiVersion: 'v1', kind: 'ConfigMap', name: 'owner', uid: owner.metadata!.uid! }];
    for (let i = 0; i < 5; i++) await client.create({ ...gvk, metadata: { name: `dep-${i}`, namespace: 'default', ownerReferences }, data: { i: String(i) } });
    const before = PARSE_STATS.reparsedChars;
    // Every change of a dependent has the garbage collector look at its owners (is one of them being deleted?).
    for (let i = 0; i < 20; i++) await client.patch({ ...gvk, namespace: 'default', name: `dep-${i % 5}` }, 'merge', { data: { n: String(i) } });
    await new Promise((r) => setImmediate(r));
    assert.ok(PARSE_STATS.reparsedChars - before < 200_000, `reparsed ${PARSE_STATS.reparsedChars - before} characters: the owner was parsed again`);
    // Deleting the owner in foreground: its deletion waits for the dependents, which the collector deletes.
    await client.delete({ ...gvk, namespace: 'default', name: 'owner' }, { propagationPolicy: 'Foreground' });
    for (let i = 0; i < 200; i++) {
      const left = (await client.list<KubeObject>(gvk, { namespace: 'default' })).items.filter((o) => /^(owner|dep-)/.test(o.metadata!.name!));
      if (left.length === 0) break;
      await new Promise((r) => setTimeout(r, 10));
    }
    const left = (await client.list<KubeObject>(gvk, { namespace: 'default' })).items.filter((o) => /^(owner|dep-)/.test(o.metadata!.name!));
    assert.deepEqual(left.map((o) => o.metadata!.name), []);
  } finally {
    client.close();
    await server.stop();
    rmSync(dir, { recursive: true, force: true });
  }
});
