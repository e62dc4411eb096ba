// The fleet against the embedded API server: virtual clusters registered as SveltosClusters, the readiness controller
// probing them (a closed port makes one unreachable), selection by labels / refs / ClusterSets, change notifications,
// paused and deleting clusters, per-cluster clients, the management cluster as a target, and Cluster API clusters
// appearing when their CRD is installed (v1beta1, then v1beta2).
import { strict as assert } from 'node:assert';
import { createServer } from 'node:net';
import { after, before, describe, test } from 'node:test';
import { Registry } from 'prom-client';
import { generateCrds } from '../api/index.js';
import { EventRecorder, InformerFactory, KubeClient, type KubeObject } from '../kube/index.js';
import { eventually } from '../../test/support/eventually.js';
import { startTestApiServer, type TestApiServer } from '../../test/support/apiserver.js';
import {
  ClusterError,
  ClusterReadinessController,
  ClusterRegistry,
  ClusterSetController,
  MANAGEMENT_CLUSTER,
  registerCluster,
  type ClusterEvent,
} from './index.js';

type SC = KubeObject & { status?: { ready?: boolean; version?: string; connectionStatus?: string; connectionFailures?: number; failureMessage?: string } };
const SCK = { apiVersion: 'lib.projectsveltos.io/v1beta1', kind: 'SveltosCluster' };

async function closedPort(): Promise<number> {
  const srv = createServer();
  await new Promise<void>((r) => srv.listen(0, '127.0.0.1', r));
  const port = (srv.address() as { port: number }).port;
  await new Promise<void>((r) => srv.close(() => r()));
  return port;
}

function capiCrd(versions: string[]): KubeObject {
  return {
    apiVersion: 'apiextensions.k8s.io/v1',
    kind: 'CustomResourceDefinition',
    metadata: { name: 'clusters.cluster.x-k8s.io' },
    spec: {
      group: 'cluster.x-k8s.io',
      names: { kind: 'Cluster', plural: 'clusters', singular: 'cluster', listKind: 'ClusterList' },
      scope: 'Namespaced',
      versions: versions.map((name, i) => ({
        name,
        served: true,
        storage: i === versions.length - 1,
        subresources: { status: {} },
        schema: { openAPIV3Schema: { type: 'object', 'x-kubernetes-preserve-unknown-fields': true } },
      })),
    },
  };
}

describe('fleet registry', () => {
  let api: TestApiServer;
  let mgmt: KubeClient;
  let informers: InformerFactory;
  let registry: ClusterRegistry;
  let readiness: ClusterReadinessController;
  let recorder: EventRecorder;
  let deadKubeconfig: string;
  const events: ClusterEvent[] = [];

  const sc = (ns: string, name: string) => mgmt.getIfExists<SC>({ ...SCK, namespace: ns, name });
  const keys = (l: { key: string }[]) => l.map((e) => e.key);

  before(async () => {
    api = await startTestApiServer({ clusters: ['mgmt', 'edge1', 'edge2'] });
    mgmt = new KubeClient(await api.kubeConfig('mgmt'));
    for (const crd of generateCrds()) await mgmt.create(crd as unknown as KubeObject);
    informers = new InformerFactory(mgmt);
    registry = new ClusterRegistry({ informers, kubeconfigTtlMs: 100 });
    registry.onChange((e) => events.push(e));
    registry.start();
    await registry.waitForSync({ timeoutMs: 10_000 });
    recorder = new EventRecorder(mgmt);
    readiness = new ClusterReadinessController({
      registry,
      informers,
      recorder,
      probeIntervalMs: 300,
      probeTimeoutMs: 2000,
      failureBackoff: { initialMs: 30, maxMs: 120, jitter: 0 },
    });
    readiness.start();
    const port = await closedPort();
    deadKubeconfig = api.server.kubeconfigYaml('edge1').replace(/https:\/\/127\.0\.0\.1:\d+/g, `https://127.0.0.1:${port}`);
    await registerCluster(mgmt, { namespace: 'fleet', name: 'edge1', kubeconfig: api.server.kubeconfigYaml('edge1'), labels: { env: 'prod' } });
    await registerCluster(mgmt, { namespace: 'fleet', name: 'edge2', kubeconfig: api.server.kubeconfigYaml('edge2'), labels: { env: 'dev' } });
    await registerCluster(mgmt, { namespace: 'fleet', name: 'gone', kubeconfig: deadKubeconfig, labels: { env: 'prod' } });
    await registerCluster(mgmt, { ...MANAGEMENT_CLUSTER, kubeconfig: api.server.kubeconfigYaml('mgmt') });
  });
  after(async () => {
    await readiness.stop();
    await recorder.close();
    await registry.stop();
    await informers.stop();
    mgmt.close();
    await api.stop();
  });

  test('the readiness controller marks reachable clusters ready and an unreachable one Down', async () => {
    const edge1 = await eventually(() => sc('fleet', 'edge1'), (o) => o?.status?.ready === true && o.metadata.labels?.['projectsveltos.io/k8s-version'] !== undefined, { message: 'edge1 ready' });
    assert.equal(edge1!.status!.connectionStatus, 'Healthy');
    assert.equal(edge1!.status!.version, 'v1.32.0-ripple');
    assert.equal(edge1!.metadata.labels!['projectsveltos.io/k8s-version'], 'v1.32.0');
    assert.equal(edge1!.metadata.labels!.env, 'prod');
    const gone = await eventually(() => sc('fleet', 'gone'), (o) => o?.status?.connectionStatus === 'Down', { message: 'gone is Down' });
    assert.ok((gone!.status!.connectionFailures ?? 0) >= 3);
    assert.match(gone!.status!.failureMessage ?? '', /ECONNREFUSED|cannot reach/);
    assert.notEqual(gone!.status!.ready, true);
    await eventually(() => sc(MANAGEMENT_CLUSTER.namespace, MANAGEMENT_CLUSTER.name), (o) => o?.status?.ready === true, { message: 'mgmt ready' });
    await recorder.flush();
    const evs = (await mgmt.list<KubeObject & { reason: string; involvedObject: { name: string } }>({ apiVersion: 'v1', kind: 'Event' }, { namespace: 'fleet' })).items;
    const reasons = new Set(evs.map((e) => `${e.involvedObject.name}:${e.reason}`));
    assert.ok(reasons.has('edge1:ClusterReady'), [...reasons].join());
    assert.ok(reasons.has('gone:ConnectionDown'), [...reasons].join());
  });

  test('list and matching: only ready clusters; empty selector matches nothing; refs and label selectors union', async () => {
    await eventually(() => keys(registry.list()), (k) => k.join() === 'Sveltos:fleet/edge1,Sveltos:fleet/edge2,Sveltos:mgmt/mgmt', { message: 'ready clusters listed' });
    assert.deepEqual(keys(registry.matching({ clusterSelector: { matchLabels: { env: 'prod' } } })), ['Sveltos:fleet/edge1']);
    assert.deepEqual(keys(registry.matching({ clusterSelector: 'env in (prod,dev)' })), ['Sveltos:fleet/edge1', 'Sveltos:fleet/edge2']);
    assert.deepEqual(registry.matching({ clusterSelector: {} }), [], 'an empty selector selects no cluster');
    assert.deepEqual(registry.matching({}), []);
    assert.deepEqual(
      keys(registry.matching({ clusterSelector: { matchLabels: { env: 'dev' } }, clusterRefs: [{ apiVersion: 'lib.projectsveltos.io/v1beta1', kind: 'SveltosCluster', namespace: 'mgmt', name: 'mgmt' }, { kind: 'SveltosCluster', namespace: 'fleet', name: 'gone' }] })),
      ['Sveltos:fleet/edge2', 'Sveltos:mgmt/mgmt'],
      'a referenced cluster that never became ready is not selected',
    );
    assert.deepEqual(keys(registry.matching({ clusterSelector: 'env', namespace: 'mgmt' })), [], 'namespace scoping');
    const entry = registry.get({ kind: 'SveltosCluster', namespace: 'fleet', name: 'edge1' })!;
    assert.deepEqual({ type: entry.type, ref: entry.ref }, { type: 'Sveltos', ref: { ...SCK, namespace: 'fleet', name: 'edge1' } });
  });

  test('client(ref) reaches the cluster its kubeconfig Secret names; errors are typed', async () => {
    const c1 = await registry.client({ kind: 'SveltosCluster', namespace: 'fleet', name: 'edge1' });
    assert.match(c1.server, /\/clusters\/edge1$/);
    assert.equal(await registry.client('Sveltos:fleet/edge1'), c1, 'cached');
    await c1.create({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'from-mgmt', namespace: 'default' } });
    const direct = new KubeClient(await api.kubeConfig('edge1'));
    assert.ok(await direct.getIfExists({ apiVersion: 'v1', kind: 'ConfigMap', namespace: 'default', name: 'from-mgmt' }));
    direct.close();
    const m = await registry.client({ kind: 'SveltosCluster', ...MANAGEMENT_CLUSTER });
    assert.match(m.server, /\/clusters\/mgmt$/, 'the management cluster is a target like any other');
    await assert.rejects(registry.client('Sveltos:fleet/nope'), (e) => e instanceof ClusterError && e.code === 'NotFound');
    await mgmt.create({ ...SCK, metadata: { name: 'nosecret', namespace: 'fleet' } });
    await eventually(() => registry.get('Sveltos:fleet/nosecret'), Boolean, { message: 'nosecret known' });
    await assert.rejects(registry.client('Sveltos:fleet/nosecret'), (e) => e instanceof ClusterError && e.code === 'NoKubeconfig' && /Failed to get secret fleet\/nosecret-sveltos-kubeconfig/.test(e.message));
  });

  test('label changes, pausing and deletion are notified and change selection', async () => {
    events.length = 0;
    await mgmt.patch({ ...SCK, namespace: 'fleet', name: 'edge2' }, 'merge', { metadata: { labels: { env: 'prod' } } });
    await eventually(() => keys(registry.matching({ clusterSelector: { matchLabels: { env: 'prod' } } })), (k) => k.join() === 'Sveltos:fleet/edge1,Sveltos:fleet/edge2', { message: 'edge2 now prod' });
    assert.ok(events.some((e) => e.kind === 'cluster' && e.type === 'updated' && e.entry.key === 'Sveltos:fleet/edge2' && e.changed.includes('labels')));

    await mgmt.patch({ ...SCK, namespace: 'fleet', name: 'edge2' }, 'merge', { spec: { paused: true } });
    await eventually(() => registry.get('Sveltos:fleet/edge2')?.paused, Boolean, { message: 'edge2 paused' });
    assert.deepEqual(keys(registry.matching({ clusterSelector: 'env=prod' })), ['Sveltos:fleet/edge1']);
    assert.deepEqual(keys(registry.matching({ clusterSelector: 'env=prod' }, { includePaused: true })), ['Sveltos:fleet/edge1', 'Sveltos:fleet/edge2']);
    assert.ok(events.some((e) => e.kind === 'cluster' && e.type === 'updated' && e.changed.includes('paused')));
    await mgmt.patch({ ...SCK, namespace: 'fleet', name: 'edge2' }, 'merge', { spec: { paused: false } });

    await mgmt.patch({ ...SCK, namespace: 'fleet', name: 'edge2' }, 'merge', { metadata: { finalizers: ['example.com/hold'] } });
    await mgmt.delete({ ...SCK, namespace: 'fleet', name: 'edge2' });
    await eventually(() => registry.get('Sveltos:fleet/edge2')?.deleting, Boolean, { message: 'edge2 deleting' });
    assert.deepEqual(keys(registry.matching({ clusterSelector: 'env=prod' }, { includePaused: true })), ['Sveltos:fleet/edge1'], 'a cluster being deleted never matches');
    await mgmt.patch({ ...SCK, namespace: 'fleet', name: 'edge2' }, 'merge', { metadata: { finalizers: null } });
    await eventually(() => registry.get('Sveltos:fleet/edge2'), (e) => e === undefined, { message: 'edge2 removed' });
    assert.ok(events.some((e) => e.kind === 'cluster' && e.type === 'removed' && e.entry.key === 'Sveltos:fleet/edge2'));
    // Register it again for the following tests.
    await registerCluster(mgmt, { namespace: 'fleet', name: 'edge2', kubeconfig: api.server.kubeconfigYaml('edge2'), labels: { env: 'prod' } });
    await eventually(() => registry.get('Sveltos:fleet/edge2')?.ready, Boolean, { message: 'edge2 ready again' });
  });

  test('a reachable cluster whose kubeconfig breaks goes Down (staying selected), then recovers', async () => {
    const ref = { apiVersion: 'v1', kind: 'Secret', namespace: 'fleet', name: 'edge1-sveltos-kubeconfig' };
    const factory = await registry.informers('Sveltos:fleet/edge1');
    assert.equal(await registry.informers({ kind: 'SveltosCluster', namespace: 'fleet', name: 'edge1' }), factory, 'one shared factory per cluster');
    const watched = factory.subscribe({ apiVersion: 'v1', kind: 'Namespace' });
    await watched.informer.waitForSync({ timeoutMs: 5000 });
    assert.ok(watched.informer.cache.get(undefined, 'default'), 'the factory watches edge1');
    events.length = 0;
    await mgmt.patch(ref, 'merge', { data: { kubeconfig: Buffer.from(deadKubeconfig).toString('base64') } });
    await eventually(() => registry.get('Sveltos:fleet/edge1')?.connectionStatus, (s) => s === 'Down', { message: 'edge1 Down' });
    assert.ok(events.some((e) => e.kind === 'cluster' && e.type === 'updated' && e.entry.key === 'Sveltos:fleet/edge1' && e.changed.includes('connection')));
    assert.ok(events.some((e) => e.kind === 'cluster' && e.type === 'updated' && e.entry.key === 'Sveltos:fleet/edge1' && e.changed.includes('kubeconfig')), 'kubeconfig change notified');
    await eventually(() => watched.informer.state, (st) => st === 'stopped', { message: 'old factory stopped' });
    assert.notEqual(await registry.informers('Sveltos:fleet/edge1'), factory, 'a new factory for the new kubeconfig');
    const down = await sc('fleet', 'edge1');
    assert.equal(down!.status!.ready, true, 'ready stays true: a blip never unselects a cluster');
    assert.ok(registry.matching({ clusterSelector: 'env=prod' }).some((e) => e.key === 'Sveltos:fleet/edge1'));
    await mgmt.patch(ref, 'merge', { data: { kubeconfig: Buffer.from(api.server.kubeconfigYaml('edge1')).toString('base64') } });
    const back = await eventually(() => sc('fleet', 'edge1'), (o) => o?.status?.connectionStatus === 'Healthy', { message: 'edge1 Healthy again' });
    assert.equal(back!.status!.connectionFailures, 0);
    assert.equal(back!.status!.failureMessage, undefined);
    await recorder.flush();
    const evs = (await mgmt.list<KubeObject & { reason: string }>({ apiVersion: 'v1', kind: 'Event' }, { namespace: 'fleet', fieldSelector: 'involvedObject.name=edge1' })).items;
    assert.ok(evs.some((e) => e.reason === 'ConnectionRestored'));
  });

  test('ClusterSets select up to maxReplicas healthy clusters, stick to them, and move off a Down one', async () => {
    const sets = new ClusterSetController({ registry, informers });
    sets.start();
    try {
      await mgmt.create({ apiVersion: 'lib.projectsveltos.io/v1beta1', kind: 'ClusterSet', metadata: { name: 'prod-one' }, spec: { clusterSelector: { matchLabels: { env: 'prod' } }, maxReplicas: 1 } });
      type CS = KubeObject & { status?: { matchingClusterRefs?: { name: string }[]; selectedClusterRefs?: { name: string; kind: string; namespace: string; apiVersion: string }[] } };
      const get = () => mgmt.get<CS>({ apiVersion: 'lib.projectsveltos.io/v1beta1', kind: 'ClusterSet', name: 'prod-one' });
      const first = await eventually(get, (o) => (o.status?.selectedClusterRefs?.length ?? 0) === 1 && (o.status?.matchingClusterRefs?.length ?? 0) === 2, { message: 'set selected' });
      const chosen = first.status!.selectedClusterRefs![0];
      assert.deepEqual(chosen, { apiVersion: 'lib.projectsveltos.io/v1beta1', kind: 'SveltosCluster', namespace: 'fleet', name: 'edge1' });
      await eventually(() => keys(registry.matching({ clusterSetRefs: ['prod-one'] })), (k) => k.join() === 'Sveltos:fleet/edge1', { message: 'clusterSetRefs resolve' });
      // edge1 goes Down: the set moves to edge2.
      await mgmt.patch({ apiVersion: 'v1', kind: 'Secret', namespace: 'fleet', name: 'edge1-sveltos-kubeconfig' }, 'merge', { data: { kubeconfig: Buffer.from(deadKubeconfig).toString('base64') } });
      await eventually(get, (o) => o.status?.selectedClusterRefs?.[0]?.name === 'edge2', { message: 'selection moved to edge2' });
      // edge1 recovers: the set sticks with edge2.
      await mgmt.patch({ apiVersion: 'v1', kind: 'Secret', namespace: 'fleet', name: 'edge1-sveltos-kubeconfig' }, 'merge', { data: { kubeconfig: Buffer.from(api.server.kubeconfigYaml('edge1')).toString('base64') } });
      await eventually(() => registry.get('Sveltos:fleet/edge1')?.connectionStatus, (s) => s === 'Healthy', { message: 'edge1 healthy' });
      await new Promise((r) => setTimeout(r, 100));
      assert.equal((await get()).status?.selectedClusterRefs?.[0]?.name, 'edge2');
      // A namespaced Set only sees clusters of its namespace.
      await mgmt.create({ apiVersion: 'lib.projectsveltos.io/v1beta1', kind: 'Set', metadata: { name: 'local', namespace: 'mgmt' }, spec: { clusterSelector: { matchExpressions: [{ key: 'env', operator: 'DoesNotExist' }] }, maxReplicas: 5 } });
      await eventually(
        () => mgmt.get<CS>({ apiVersion: 'lib.projectsveltos.io/v1beta1', kind: 'Set', namespace: 'mgmt', name: 'local' }),
        (o) => JSON.stringify(o.status?.selectedClusterRefs?.map((r) => r.name)) === '["mgmt"]',
        { message: 'Set selects mgmt only' },
      );
      assert.deepEqual(keys(registry.matching({ clusterSetRefs: ['local'], namespace: 'mgmt' })), ['Sveltos:mgmt/mgmt']);
    } finally {
      await sets.stop();
    }
  });

  test('Cluster API clusters appear once the CRD is installed, with CAPI readiness, and survive a v1beta1→v1beta2 upgrade', async () => {
    assert.equal(registry.capiApiVersion, undefined);
    await mgmt.create(capiCrd(['v1beta1']));
    await eventually(() => registry.capiApiVersion, (v) => v === 'cluster.x-k8s.io/v1beta1', { message: 'following CAPI v1beta1' });
    await mgmt.create({ apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'capi' } });
    await mgmt.create({ apiVersion: 'v1', kind: 'Secret', metadata: { name: 'c1-kubeconfig', namespace: 'capi' }, data: { value: Buffer.from(api.server.kubeconfigYaml('edge2')).toString('base64') } });
    const c1 = await mgmt.create({ apiVersion: 'cluster.x-k8s.io/v1beta1', kind: 'Cluster', metadata: { name: 'c1', namespace: 'capi', labels: { env: 'capi' } }, spec: {} });
    await mgmt.create({ apiVersion: 'cluster.x-k8s.io/v1beta1', kind: 'Cluster', metadata: { name: 'c2', namespace: 'capi', labels: { env: 'capi' } }, spec: { paused: true } });
    await eventually(() => registry.get('Capi:capi/c1'), Boolean, { message: 'c1 known' });
    assert.deepEqual(registry.matching({ clusterSelector: 'env=capi' }), [], 'not ready before the control plane is initialized');
    await mgmt.updateStatus({ ...c1, status: { conditions: [{ type: 'ControlPlaneInitialized', status: 'True', lastTransitionTime: '2026-01-01T00:00:00Z' }] } });
    const c2 = await mgmt.get({ apiVersion: 'cluster.x-k8s.io/v1beta1', kind: 'Cluster', namespace: 'capi', name: 'c2' });
    await mgmt.updateStatus({ ...c2, status: { controlPlaneReady: true } });
    await eventually(() => keys(registry.matching({ clusterSelector: 'env=capi' })), (k) => k.join() === 'Capi:capi/c1', { message: 'c1 ready' });
    assert.deepEqual(keys(registry.matching({ clusterSelector: 'env=capi' }, { includePaused: true })), ['Capi:capi/c1', 'Capi:capi/c2']);
    const e = registry.get({ apiVersion: 'cluster.x-k8s.io/v1beta2', kind: 'Cluster', namespace: 'capi', name: 'c1' })!;
    assert.equal(e.type, 'Capi');
    const client = await registry.client(e.key);
    assert.match(client.server, /\/clusters\/edge2$/, 'CAPI kubeconfig from <name>-kubeconfig, key value');
    events.length = 0;
    const crd = await mgmt.get({ apiVersion: 'apiextensions.k8s.io/v1', kind: 'CustomResourceDefinition', name: 'clusters.cluster.x-k8s.io' });
    await mgmt.update({ ...crd, spec: capiCrd(['v1beta1', 'v1beta2']).spec });
    await eventually(() => registry.capiApiVersion, (v) => v === 'cluster.x-k8s.io/v1beta2', { message: 'following CAPI v1beta2' });
    await eventually(() => registry.get('Capi:capi/c1')?.ref.apiVersion, (v) => v === 'cluster.x-k8s.io/v1beta2', { message: 'c1 re-read as v1beta2' });
    assert.ok(!events.some((x) => x.kind === 'cluster' && x.type === 'removed'), 'the upgrade removes no cluster');
    assert.deepEqual(keys(registry.matching({ clusterSelector: 'env=capi' })), ['Capi:capi/c1']);
  });
});

describe('readiness probes of a watched cluster', () => {
  test('a healthy cluster whose watches have recent data is not asked again; without such data it is probed', async () => {
    const api = await startTestApiServer({ clusters: ['mgmt', 'edge'] });
    const mgmt = new KubeClient(await api.kubeConfig('mgmt'));
    const edge = new KubeClient(await api.kubeConfig('edge'));
    const informers = new InformerFactory(mgmt);
    const registry = new ClusterRegistry({ informers });
    const metrics = new Registry();
    const readiness = new ClusterReadinessController({ registry, informers, metrics, probeIntervalMs: 300, quietProbeMaxMs: 60_000, watchEvidenceMaxAgeMs: 300 });
    const probes = async (via: string) => ((await metrics.getSingleMetricAsString('ripple_cluster_probes_total')).match(new RegExp(`via="${via}"} (\\d+)`))?.[1] ?? '0') as unknown as number;
    let ticker: NodeJS.Timeout | undefined;
    try {
      for (const crd of generateCrds()) await mgmt.create(crd as unknown as KubeObject);
      registry.start();
      await registry.waitForSync({ timeoutMs: 10_000 });
      readiness.start();
      await registerCluster(mgmt, { namespace: 'fleet', name: 'edge', kubeconfig: api.server.kubeconfigYaml('edge') });
      await eventually(() => mgmt.getIfExists<SC>({ ...SCK, namespace: 'fleet', name: 'edge' }), (o) => o?.status?.ready === true && o.status.connectionStatus === 'Healthy', { message: 'edge ready' });
      // Nothing watches edge through the registry yet: every due probe is a request.
      await eventually(() => probes('request'), (n) => Number(n) >= 3, { message: 'probed by request' });
      assert.equal(Number(await probes('watch')), 0);

      // A controller watches edge (the registry's shared informers) and data keeps arriving on that watch.
      const factory = await registry.informers('Sveltos:fleet/edge');
      const sub = factory.subscribe({ apiVersion: 'v1', kind: 'ConfigMap', namespace: 'default' });
      await sub.informer.waitForSync({ timeoutMs: 5000 });
      const cm = await edge.create<KubeObject>({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'tick', namespace: 'default' }, data: { n: '0' } });
      let n = 0;
      ticker = setInterval(() => void edge.patch({ apiVersion: 'v1', kind: 'ConfigMap', namespace: 'default', name: cm.metadata!.name! }, 'merge', { data: { n: String(++n) } }).catch(() => undefined), 40);
      await eventually(() => probes('watch'), (v) => Number(v) >= 1, { message: 'a probe answered by the watch' });
      const requests = Number(await probes('request'));
      const watched = Number(await probes('watch'));
      await new Promise((r) => setTimeout(r, 1500));
      assert.ok(Number(await probes('watch')) >= watched + 3, 'due probes keep being answered by the watch');
      // (A stall of the whole process longer than the probe interval would let one through: not counted as a failure.)
      assert.ok(Number(await probes('request')) <= requests + 2, `no requests while the watch shows the cluster answering (${requests} → ${await probes('request')})`);
      const sc = await mgmt.get<SC>({ ...SCK, namespace: 'fleet', name: 'edge' });
      assert.equal(sc.status?.connectionStatus, 'Healthy');
      assert.equal(sc.status?.ready, true);

      // The watch goes quiet (no event, and the next bookmark is 30 s away): due probes are requests again.
      clearInterval(ticker);
      ticker = undefined;
      const before = Number(await probes('request'));
      await eventually(() => probes('request'), (v) => Number(v) >= before + 2, { message: 'probed by request once the watch is quiet' });
      await sub.unsubscribe();
    } finally {
      if (ticker) clearInterval(ticker);
      await readiness.stop();
      await registry.stop();
      await informers.stop();
      mgmt.close();
      edge.close();
      await api.stop();
    }
  });
});
