// EventRecorder against the embedded API server: core/v1 Events with the right shape, repeats aggregated into
// count/lastTimestamp, many distinct messages combined, floods dropped, failures never reach the caller.
import { strict as assert } from 'node:assert';
import { after, before, describe, test } from 'node:test';
import { startTestApiServer, type TestApiServer } from '../../test/support/apiserver.js';
import { EventRecorder, KubeClient, createKubeClient, singleContextKubeConfig, type KubeObject } from './index.js';

type Ev = KubeObject & { count: number; reason: string; message: string; type: string; involvedObject: Record<string, string>; firstTimestamp: string; lastTimestamp: string; source: { component: string }; reportingComponent: string };

describe('EventRecorder', () => {
  let api: TestApiServer;
  let client: KubeClient;
  let target: KubeObject;
  before(async () => {
    api = await startTestApiServer();
    client = new KubeClient(await api.kubeConfig());
    await client.create({ apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'ev' } });
    target = await client.create({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'subject', namespace: 'ev' } });
  });
  after(async () => {
    client.close();
    await api.stop();
  });

  const eventsFor = async (name: string) =>
    (await client.list<Ev>({ apiVersion: 'v1', kind: 'Event' }, { namespace: 'ev', fieldSelector: `involvedObject.name=${name}` })).items;

  test('writes a core/v1 Event about the object, then aggregates repeats into count and lastTimestamp', async () => {
    let now = new Date('2026-01-01T10:00:00Z');
    const rec = new EventRecorder(client, { now: () => now, instance: 'test-host' });
    rec.event(target, 'Warning', 'ApplyFailed', 'conflict on Deployment x');
    await rec.flush();
    let evs = await eventsFor('subject');
    assert.equal(evs.length, 1);
    const e = evs[0];
    assert.deepEqual(
      { type: e.type, reason: e.reason, message: e.message, count: e.count, ns: e.metadata.namespace, component: e.source.component, reporting: e.reportingComponent },
      { type: 'Warning', reason: 'ApplyFailed', message: 'conflict on Deployment x', count: 1, ns: 'ev', component: 'ripple', reporting: 'ripple' },
    );
    assert.deepEqual(
      { kind: e.involvedObject.kind, name: e.involvedObject.name, ns: e.involvedObject.namespace, uid: e.involvedObject.uid },
      { kind: 'ConfigMap', name: 'subject', ns: 'ev', uid: target.metadata.uid },
    );
    now = new Date('2026-01-01T10:05:00Z');
    rec.event(target, 'Warning', 'ApplyFailed', 'conflict on Deployment x');
    rec.event(target, 'Warning', 'ApplyFailed', 'conflict on Deployment x');
    rec.event(target, 'Normal', 'Applied', 'all good');
    await rec.flush();
    evs = await eventsFor('subject');
    const byReason = Object.fromEntries(evs.map((x) => [x.reason, x]));
    assert.equal(evs.length, 2);
    assert.equal(byReason.ApplyFailed.count, 3);
    assert.equal(byReason.ApplyFailed.firstTimestamp, '2026-01-01T10:00:00Z');
    assert.equal(byReason.ApplyFailed.lastTimestamp, '2026-01-01T10:05:00Z');
    assert.equal(byReason.Applied.count, 1);
    assert.equal(rec.dropped, 0);
  });

  test('more than 10 distinct messages for one reason are combined into one event', async () => {
    const obj = await client.create({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'noisy', namespace: 'ev' } });
    const rec = new EventRecorder(client);
    for (let i = 0; i < 15; i++) rec.event(obj, 'Warning', 'ProbeFailed', `attempt ${i} failed`);
    await rec.flush();
    const evs = await eventsFor('noisy');
    // 9 distinct events, then one combined event counting the other 6.
    assert.equal(evs.length, 10);
    const combined = evs.find((e) => e.message.startsWith('(combined from similar events): '));
    assert.ok(combined);
    assert.equal(combined.count, 6);
    assert.equal(combined.message, '(combined from similar events): attempt 14 failed');
  });

  test('a flood for one object is cut by the spam filter; other objects are unaffected', async () => {
    const a = await client.create({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'flood', namespace: 'ev' } });
    const b = await client.create({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'calm', namespace: 'ev' } });
    const rec = new EventRecorder(client, { burst: 5 });
    for (let i = 0; i < 50; i++) rec.event(a, 'Normal', 'Same', 'same');
    rec.event(b, 'Normal', 'Same', 'same');
    await rec.flush();
    assert.equal(rec.dropped, 45);
    assert.equal((await eventsFor('flood'))[0].count, 5);
    assert.equal((await eventsFor('calm')).length, 1);
  });

  test('cluster-scoped objects get their events in the default namespace', async () => {
    const ns = await client.get({ apiVersion: 'v1', kind: 'Namespace', name: 'ev' });
    const rec = new EventRecorder(client);
    rec.event(ns, 'Normal', 'Seen', 'namespace event');
    await rec.flush();
    const evs = (await client.list<Ev>({ apiVersion: 'v1', kind: 'Event' }, { namespace: 'default', fieldSelector: 'involvedObject.kind=Namespace' })).items;
    assert.equal(evs.length, 1);
    assert.equal(evs[0].involvedObject.name, 'ev');
  });

  test('recording never throws or blocks, even when the cluster is unreachable or the object is malformed', async () => {
    const info = await api.cluster();
    const dead = createKubeClient({ object: singleContextKubeConfig({ server: 'http://127.0.0.1:1', token: info.token }) });
    const rec = new EventRecorder(dead);
    rec.event(target, 'Warning', 'X', 'y');
    rec.event({ apiVersion: 'v1', kind: 'ConfigMap' } as unknown as KubeObject, 'Warning', 'X', 'no metadata');
    await rec.close();
    assert.equal(rec.dropped, 2);
    rec.event(target, 'Warning', 'X', 'after close is ignored');
    dead.close();
  });
});
