// robustness.test.ts: the agent against failures — the embedded API server restarted mid-test (watches resume, a
// change made while they were down is not lost), an unreachable cluster (reported as an Event and a metric, its
// reports kept, resumed on recovery, other clusters unaffected), a quiet steady state that writes nothing, and the
// EventSource copy ownership scheme against the embedded garbage collector.
import { strict as assert } from 'node:assert';
import { createServer } from 'node:net';
import { test } from 'node:test';
import { startApiServer } from '../apiserver/index.js';
import { registerCluster } from '../clusters/index.js';
import type { KubeClient, KubeObject } from '../kube/index.js';
import { startTestApiServer } from '../../test/support/apiserver.js';
import { eventually } from '../../test/support/eventually.js';
import { CLUSTER_NAMESPACE, ensureNamespace, managedClient, startFleet, waitReport, type Fleet } from './fleet.testkit.js';
import { OWNER_TRIGGERS_ANNOTATION } from './distribution.js';

const ES = { apiVersion: 'lib.projectsveltos.io/v1beta1', kind: 'EventSource' };
const svc = (ns: string, name: string, labels: Record<string, string> = {}): KubeObject =>
  ({ apiVersion: 'v1', kind: 'Service', metadata: { name, namespace: ns, labels }, spec: { ports: [{ port: 80 }] } }) as KubeObject;

async function setup(f: Fleet, es = 'watched', ns = 'w'): Promise<void> {
  await f.mgmt.create({ ...ES, metadata: { name: es }, spec: { resourceSelectors: [{ group: '', version: 'v1', kind: 'Service', namespace: ns, labelFilters: [{ key: 'watch', operation: 'Equal', value: 'me' }] }] } } as KubeObject);
  await f.mgmt.create({ apiVersion: 'lib.projectsveltos.io/v1beta1', kind: 'EventTrigger', metadata: { name: es }, spec: { sourceClusterSelector: { matchLabels: { env: 'fv' } }, eventSourceName: es } } as KubeObject);
}

async function closedPort(): Promise<number> {
  const srv = createServer();
  await new Promise<void>((r) => srv.listen(0, '127.0.0.1', r));
  const port = (srv.address() as { port: number }).port;
  await new Promise<void>((r) => srv.close(() => r()));
  return port;
}

test('the embedded API server restarts mid-test: watches resume, changes made meanwhile are not lost', async () => {
  const api = await startTestApiServer({ clusters: ['mgmt', 'c1'] });
  let f: Fleet | undefined;
  try {
    f = await startFleet({ mode: 'agentless', clusters: { c1: { env: 'fv' } }, api });
    const c1 = await f.client('c1');
    await ensureNamespace(c1, 'w');
    await setup(f);
    await c1.create(svc('w', 'a', { watch: 'me' }));
    await waitReport(f, 'c1', 'watched', (v) => JSON.stringify(v?.matching) === '["Service:w/a"]');
    const port = api.server.port;
    await api.server.stop();
    // Restart on the same data directory and port; clients keep their URL and token.
    api.server = await startApiServer({ dataDir: api.dir, port });
    assert.equal(api.server.port, port);
    const again = await managedClient(api, 'c1');
    // Changes right after the restart race the informers' reconnect: resume or relist must deliver both.
    await again.delete({ apiVersion: 'v1', kind: 'Service', namespace: 'w', name: 'a' });
    await again.create(svc('w', 'b', { watch: 'me' }));
    await waitReport(f, 'c1', 'watched', (v) => JSON.stringify(v?.matching) === '["Service:w/b"]', 'report after restart');
    await again.create(svc('w', 'c', { watch: 'me' }));
    await waitReport(f, 'c1', 'watched', (v) => JSON.stringify(v?.matching) === '["Service:w/b","Service:w/c"]');
  } finally {
    await f?.stop();
    // api.stop() stops the server it started; the restarted one is stopped here.
    await api.server.stop();
    await api.stop();
  }
});

test('an unreachable cluster is reported, keeps its reports, does not stall the others, and resumes', async () => {
  const f = await startFleet({ mode: 'agentless', clusters: { c1: { env: 'fv' }, c2: { env: 'fv' } }, kubeconfigTtlMs: 100, healthIntervalMs: 100 });
  try {
    const [c1, c2] = [await f.client('c1'), await f.client('c2')];
    for (const c of [c1, c2]) await ensureNamespace(c, 'w');
    await setup(f);
    await c1.create(svc('w', 'one', { watch: 'me' }));
    await c2.create(svc('w', 'two', { watch: 'me' }));
    await waitReport(f, 'c1', 'watched', (v) => v?.matching.length === 1);
    const kept = await f.report('c1', 'watched');
    // Point c1's kubeconfig at a closed port: its watches fail from now on.
    const good = f.api.server.kubeconfigYaml('c1');
    const dead = good.replace(/https:\/\/127\.0\.0\.1:\d+/, `https://127.0.0.1:${await closedPort()}`);
    assert.notEqual(dead, good);
    await registerCluster(f.mgmt, { namespace: CLUSTER_NAMESPACE, name: 'c1', kubeconfig: dead });
    await eventually(() => f.manager.unreachable(), (u) => u.includes('Sveltos:fleet/c1'), { message: 'c1 reported unreachable' });
    const event = await eventually(
      async () => (await f.mgmt.list<KubeObject & { reason?: string; message?: string }>({ apiVersion: 'v1', kind: 'Event' }, { namespace: CLUSTER_NAMESPACE })).items.find((e) => e.reason === 'AgentWatchFailing'),
      (e) => e !== undefined,
      { message: 'a Warning Event on the SveltosCluster' },
    );
    assert.match(event!.message!, /agent cannot watch cluster Sveltos:fleet\/c1: .*(refused|ECONNREFUSED|connect)/i);
    const gauge = (await f.metrics.getSingleMetric('ripple_agent_cluster_unreachable')!.get()).values.find((v) => v.labels.cluster === 'Sveltos:fleet/c1');
    assert.equal(gauge?.value, 1);
    // c2 keeps working meanwhile.
    await c2.create(svc('w', 'three', { watch: 'me' }));
    await waitReport(f, 'c2', 'watched', (v) => v?.matching.length === 2, 'c2 unaffected');
    // c1's report is untouched: no withdrawal, no empty report.
    await c1.delete({ apiVersion: 'v1', kind: 'Service', namespace: 'w', name: 'one' });
    await new Promise((r) => setTimeout(r, 300));
    const still = await f.report('c1', 'watched');
    assert.equal(still?.metadata.resourceVersion, kept?.metadata.resourceVersion, 'the last report is kept while unreachable');
    // Recovery: the deletion made meanwhile shows up.
    await registerCluster(f.mgmt, { namespace: CLUSTER_NAMESPACE, name: 'c1', kubeconfig: good });
    await waitReport(f, 'c1', 'watched', (v) => v?.matching.length === 0, 'c1 resumed');
    await eventually(() => f.manager.unreachable(), (u) => u.length === 0);
  } finally {
    await f.stop();
  }
});

test('a quiet steady state writes nothing', async () => {
  const f = await startFleet({ mode: 'agentless', clusters: { c1: { env: 'fv' } } });
  try {
    const c1 = await f.client('c1');
    await ensureNamespace(c1, 'w');
    await setup(f);
    for (let i = 0; i < 5; i++) await c1.create(svc('w', `s${i}`, { watch: 'me' }));
    await waitReport(f, 'c1', 'watched', (v) => v?.matching.length === 5);
    // Unrelated churn: objects the EventSource does not select, and a status-only change of the report by the
    // event manager's field manager.
    const rv = (await f.report('c1', 'watched'))!.metadata.resourceVersion;
    await f.mgmt.apply({ apiVersion: 'lib.projectsveltos.io/v1beta1', kind: 'EventReport', metadata: { name: 'sveltos--watched--c1', namespace: CLUSTER_NAMESPACE }, status: { phase: 'Processed' } } as KubeObject, { fieldManager: 'ripple-event-manager', force: true, subresource: 'status' });
    const processedRv = (await f.report('c1', 'watched'))!.metadata.resourceVersion;
    assert.notEqual(processedRv, rv);
    for (let i = 0; i < 5; i++) await c1.create(svc('w', `other${i}`, { watch: 'no' }));
    const writes = async () => (await f.metrics.getSingleMetric('ripple_agent_report_writes_total')!.get()).values.reduce((a, v) => a + v.value, 0);
    const before = await writes();
    await new Promise((r) => setTimeout(r, 500));
    assert.equal((await f.report('c1', 'watched'))!.metadata.resourceVersion, processedRv, 'no write in a quiet period');
    assert.equal((await f.report('c1', 'watched'))!.status?.phase, 'Processed', 'the event manager’s phase is left alone');
    assert.equal(await writes(), before);
    // Restarting the agent on unchanged state writes nothing either.
    await f.manager.stop();
    const { startAgentManager } = await import('./manager.js');
    const m2 = await startAgentManager({ informers: f.informers, registry: f.registry, runtime: f.runtime, coalesceMs: 5 });
    await new Promise((r) => setTimeout(r, 500));
    assert.equal((await f.report('c1', 'watched'))!.metadata.resourceVersion, processedRv, 'no write after a restart');
    await m2.stop();
  } finally {
    await f.stop();
  }
});

test('EventSource copies: Sveltos annotation, owner triggers listed, no ownerReferences, removed when unneeded', async () => {
  const f = await startFleet({ mode: 'collect', clusters: { c1: { env: 'fv' } } });
  try {
    await setup(f, 'copied');
    await f.mgmt.create({ apiVersion: 'lib.projectsveltos.io/v1beta1', kind: 'EventTrigger', metadata: { name: 'second' }, spec: { sourceClusterSelector: { matchLabels: { env: 'fv' } }, eventSourceName: 'copied' } } as KubeObject);
    const c1 = await f.client('c1');
    const copy = await eventually(
      () => c1.getIfExists<KubeObject>({ ...ES, name: 'copied' }),
      (o) => o?.metadata.annotations?.[OWNER_TRIGGERS_ANNOTATION] === 'copied,second',
      { message: 'the copy lists both triggers' },
    );
    assert.equal(copy!.metadata.annotations!['projectsveltos.io/deployed-by-sveltos'], 'true');
    assert.equal(copy!.metadata.ownerReferences, undefined);
    // A copy someone else placed (no Ripple annotation) is left alone.
    await c1.create({ ...ES, metadata: { name: 'foreign', annotations: { 'projectsveltos.io/deployed-by-sveltos': 'true' } }, spec: { resourceSelectors: [] } } as KubeObject);
    await f.mgmt.delete({ apiVersion: 'lib.projectsveltos.io/v1beta1', kind: 'EventTrigger', name: 'second' });
    await eventually(() => c1.getIfExists<KubeObject>({ ...ES, name: 'copied' }), (o) => o?.metadata.annotations?.[OWNER_TRIGGERS_ANNOTATION] === 'copied');
    await f.mgmt.delete({ apiVersion: 'lib.projectsveltos.io/v1beta1', kind: 'EventTrigger', name: 'copied' });
    await eventually(() => c1.getIfExists({ ...ES, name: 'copied' }), (o) => o === undefined, { message: 'the copy is removed' });
    assert.ok(await c1.getIfExists({ ...ES, name: 'foreign' }), 'the foreign copy stays');
  } finally {
    await f.stop();
  }
});

test('why copies carry no ownerReference: the garbage collector deletes a copy owned by an EventTrigger uid it cannot find', async () => {
  const api = await startTestApiServer({ clusters: ['managed'] });
  let c: KubeClient | undefined;
  try {
    c = await managedClient(api, 'managed');
    const { generateCrds } = await import('../api/index.js');
    for (const crd of generateCrds()) await c.create(crd as unknown as KubeObject);
    // What Sveltos writes: an ownerReference to the management cluster's EventTrigger (its uid does not exist here).
    await c.create({
      ...ES,
      metadata: { name: 'sveltos-style', ownerReferences: [{ apiVersion: 'lib.projectsveltos.io/v1beta1', kind: 'EventTrigger', name: 't', uid: '6f1b1e8e-0000-4000-8000-000000000001' }] },
      spec: { resourceSelectors: [] },
    } as KubeObject);
    await eventually(() => c!.getIfExists({ ...ES, name: 'sveltos-style' }), (o) => o === undefined, { message: 'collected by the GC' });
  } finally {
    c?.close();
    await api.stop();
  }
});


test('cluster changes: a label change re-selects (templated eventSourceName follows it), deletion withdraws', async () => {
  const f = await startFleet({ mode: 'agentless', clusters: { c1: { env: 'fv', tier: 'gold' }, c2: { env: 'fv', tier: 'silver' } } });
  try {
    for (const c of ['c1', 'c2']) await ensureNamespace(await f.client(c), 'w');
    for (const tier of ['gold', 'silver']) {
      await f.mgmt.create({ ...ES, metadata: { name: `${tier}-svc` }, spec: { resourceSelectors: [{ group: '', version: 'v1', kind: 'Service', namespace: 'w' }] } } as KubeObject);
    }
    const trigger = { apiVersion: 'lib.projectsveltos.io/v1beta1', kind: 'EventTrigger' };
    await f.mgmt.create({ ...trigger, metadata: { name: 'tiered' }, spec: { sourceClusterSelector: { matchLabels: { env: 'fv' } }, eventSourceName: '{{ index .Cluster.metadata.labels "tier" }}-svc' } } as KubeObject);
    await f.mgmt.create({ ...trigger, metadata: { name: 'dangling' }, spec: { sourceClusterSelector: { matchLabels: { env: 'fv' } }, eventSourceName: 'no-such-source' } } as KubeObject);
    await waitReport(f, 'c1', 'gold-svc', (v) => v !== undefined);
    await waitReport(f, 'c2', 'silver-svc', (v) => v !== undefined);
    assert.equal(await f.report('c1', 'silver-svc'), undefined);
    const warned = await eventually(
      async () => (await f.mgmt.list<KubeObject & { reason?: string; message?: string; involvedObject?: { name?: string } }>({ apiVersion: 'v1', kind: 'Event' })).items.find((e) => e.reason === 'EventSourceNotFound'),
      (e) => e !== undefined,
      { message: 'a Warning Event on the trigger naming a missing EventSource' },
    );
    assert.equal(warned!.involvedObject?.name, 'dangling');
    assert.match(warned!.message!, /EventSource no-such-source does not exist/);
    // c1 moves to silver: the gold report is withdrawn, a silver one appears.
    await f.mgmt.patch({ apiVersion: 'lib.projectsveltos.io/v1beta1', kind: 'SveltosCluster', namespace: CLUSTER_NAMESPACE, name: 'c1' }, 'merge', { metadata: { labels: { tier: 'silver' } } });
    await waitReport(f, 'c1', 'silver-svc', (v) => v !== undefined);
    await waitReport(f, 'c1', 'gold-svc', (v) => v === undefined, 'gold report withdrawn');
    // c2 stops matching the selector: its report goes.
    await f.mgmt.patch({ apiVersion: 'lib.projectsveltos.io/v1beta1', kind: 'SveltosCluster', namespace: CLUSTER_NAMESPACE, name: 'c2' }, 'merge', { metadata: { labels: { env: 'staging' } } });
    await waitReport(f, 'c2', 'silver-svc', (v) => v === undefined, 'c2 unselected');
    // c1 is deleted: its reports go with it.
    await f.mgmt.delete({ apiVersion: 'lib.projectsveltos.io/v1beta1', kind: 'SveltosCluster', namespace: CLUSTER_NAMESPACE, name: 'c1' });
    await waitReport(f, 'c1', 'silver-svc', (v) => v === undefined, 'c1 deleted');
  } finally {
    await f.stop();
  }
});
