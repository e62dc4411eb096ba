// Sharded managers against the embedded API server: one Lease per shard (different shards both lead, replicas of one
// shard elect one), a standby takes over when its leader stops, and a re-shard moves a cluster between managers
// without withdrawing or redeploying anything — a ClusterProfile's add-on and an event's add-on keep their uids and
// resourceVersions, the ClusterSummary and generated ClusterProfile are adopted — the new shard owning it afterwards.
import { strict as assert } from 'node:assert';
import { after, before, describe, test } from 'node:test';
import { generateCrds } from '../api/index.js';
import { registerCluster } from '../clusters/index.js';
import { KubeClient, type KubeObject } from '../kube/index.js';
import { eventually } from '../../test/support/eventually.js';
import { startTestApiServer, type TestApiServer } from '../../test/support/apiserver.js';
import { SVELTOS_NAMESPACE, ensureNamespace, leaseNameForShard, startManager, type Manager } from './index.js';

const SC = { apiVersion: 'lib.projectsveltos.io/v1beta1', kind: 'SveltosCluster' } as const;
const CS = { apiVersion: 'config.projectsveltos.io/v1beta1', kind: 'ClusterSummary' } as const;
const LEASE = { apiVersion: 'coordination.k8s.io/v1', kind: 'Lease', namespace: SVELTOS_NAMESPACE } as const;
const SHARD = 'sharding.projectsveltos.io/key';

test('leaseNameForShard: one readable, DNS-safe, collision-free name per shard', () => {
  assert.equal(leaseNameForShard(undefined), 'ripple-manager');
  assert.equal(leaseNameForShard(''), 'ripple-manager-unsharded');
  assert.equal(leaseNameForShard('blue'), 'ripple-manager-shard-blue');
  assert.equal(leaseNameForShard('eu-west-1'), 'ripple-manager-shard-eu-west-1');
  const odd = ['Blue', 'team/a', 'x'.repeat(41), '!!!', 'ünïcode'].map(leaseNameForShard);
  for (const n of odd) assert.match(n, /^ripple-manager-shard-([a-z0-9-]*[a-z0-9]-)?[0-9a-f]{10}$/, n);
  assert.ok(odd.every((n) => n.length <= 63));
  assert.notEqual(leaseNameForShard('Blue'), leaseNameForShard('blue'));
  assert.equal(new Set(odd).size, odd.length);
  assert.equal(leaseNameForShard('team/a'), leaseNameForShard('team/a'), 'deterministic');
});

describe('sharded managers', () => {
  let api: TestApiServer;
  let mgmt: KubeClient;
  const edges: Record<string, KubeClient> = {};
  const managers: Manager[] = [];
  before(async () => {
    api = await startTestApiServer({ clusters: ['mgmt', 'c1', 'c2'] });
    mgmt = new KubeClient(await api.kubeConfig('mgmt'));
    for (const crd of generateCrds()) await mgmt.create(crd as unknown as KubeObject);
    await ensureNamespace(mgmt, SVELTOS_NAMESPACE);
    for (const [name, shard] of [['c1', 'a'], ['c2', 'b']] as const) {
      edges[name] = new KubeClient(await api.kubeConfig(name));
      await registerCluster(mgmt, { namespace: name, name, kubeconfig: api.server.kubeconfigYaml(name), labels: { env: 'fv' } });
      await mgmt.patch({ ...SC, namespace: name, name }, 'merge', { metadata: { annotations: { [SHARD]: shard } } });
    }
    await mgmt.create({
      apiVersion: 'v1',
      kind: 'ConfigMap',
      metadata: { name: 'policy', namespace: 'default', annotations: { 'projectsveltos.io/template': 'ok' } },
      data: { 'cm.yaml': 'apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: addon\n  namespace: default\ndata:\n  cluster: "{{ .Cluster.metadata.name }}"\n  version: "1"\n' },
    });
    // The event path too: a labelled Service in c1 → an instantiated add-on in c1 (generated ClusterProfile).
    await mgmt.create({
      apiVersion: 'lib.projectsveltos.io/v1beta1',
      kind: 'EventSource',
      metadata: { name: 'services' },
      spec: { collectResources: true, resourceSelectors: [{ group: '', version: 'v1', kind: 'Service', labelFilters: [{ key: 'sveltos', operation: 'Equal', value: 'fv' }] }] },
    });
    await mgmt.create({
      apiVersion: 'lib.projectsveltos.io/v1beta1',
      kind: 'EventTrigger',
      metadata: { name: 'per-service' },
      spec: { sourceClusterSelector: { matchLabels: { env: 'fv' } }, eventSourceName: 'services', oneForEvent: true, policyRefs: [{ name: 'per-service', namespace: 'default', kind: 'ConfigMap' }] },
    });
    await mgmt.create({
      apiVersion: 'v1',
      kind: 'ConfigMap',
      metadata: { name: 'per-service', namespace: 'default', annotations: { 'projectsveltos.io/template': 'ok' } },
      data: { 'info.yaml': 'apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: {{ .Resource.metadata.name }}-info\n  namespace: {{ .Resource.metadata.namespace }}\ndata:\n  port: "{{ (index .Resource.spec.ports 0).port }}"\n' },
    });
    await edges.c1!.create({ apiVersion: 'v1', kind: 'Service', metadata: { name: 'web', namespace: 'default', labels: { sveltos: 'fv' } }, spec: { ports: [{ port: 8080 }] } });
    await mgmt.create({
      apiVersion: 'config.projectsveltos.io/v1beta1',
      kind: 'ClusterProfile',
      metadata: { name: 'fleet' },
      spec: { clusterSelector: { matchLabels: { env: 'fv' } }, policyRefs: [{ kind: 'ConfigMap', name: 'policy', namespace: 'default' }] },
    });
  });
  after(async () => {
    for (const m of managers) await m.stop();
    mgmt?.close();
    for (const c of Object.values(edges)) c.close();
    await api?.stop();
  });

  const start = async (shardKey: string, identity: string) => {
    const m = await startManager({
      client: mgmt,
      shardKey,
      coalesceMs: 5,
      probeIntervalMs: 1_000,
      leaderElection: { identity, leaseDurationMs: 2_000, renewDeadlineMs: 1_500, retryPeriodMs: 100 },
    });
    managers.push(m);
    return m;
  };
  const holder = async (shard: string) => (await mgmt.getIfExists<KubeObject & { spec?: { holderIdentity?: string } }>({ ...LEASE, name: leaseNameForShard(shard) }))?.spec?.holderIdentity;
  const addon = (cluster: string) => edges[cluster]!.getIfExists<KubeObject & { data?: Record<string, string> }>({ apiVersion: 'v1', kind: 'ConfigMap', namespace: 'default', name: 'addon' });
  const info = () => edges.c1!.getIfExists<KubeObject & { data?: Record<string, string> }>({ apiVersion: 'v1', kind: 'ConfigMap', namespace: 'default', name: 'web-info' });
  const generated = async () =>
    (await mgmt.list<KubeObject>({ apiVersion: 'config.projectsveltos.io/v1beta1', kind: 'ClusterProfile' })).items.filter((p) => p.metadata.name !== 'fleet').map((p) => `${p.metadata.name}@${p.metadata.uid}`);
  const summary = (cluster: string) => mgmt.getIfExists<KubeObject>({ ...CS, namespace: cluster, name: `fleet-sveltos-${cluster}` });

  test('different shards both lead, one shard elects one of its replicas, and a re-shard moves a cluster without withdrawing it', { timeout: 60_000 }, async () => {
    const a1 = await start('a', 'a1');
    await a1.running;
    const a2 = await start('a', 'a2');
    const b = await start('b', 'b1');
    await b.running;
    assert.deepEqual([await holder('a'), await holder('b')], ['a1', 'b1']);
    assert.equal(a2.isLeader(), false, 'a2 is a standby of shard a');
    assert.equal(a1.registry.all().map((e) => e.key).join(), 'Sveltos:c1/c1');
    assert.equal(b.registry.all().map((e) => e.key).join(), 'Sveltos:c2/c2');

    // Each shard deploys to its own cluster.
    for (const c of ['c1', 'c2']) await eventually(() => addon(c), (o) => o?.data?.cluster === c, { message: `add-on in ${c}` });
    // Fleet-wide status: every shard writes the same matching list, both clusters.
    await eventually(
      () => mgmt.getIfExists<KubeObject & { status?: { matchingClusters?: { name: string }[] } }>({ apiVersion: 'config.projectsveltos.io/v1beta1', kind: 'ClusterProfile', name: 'fleet' }),
      (p) => (p?.status?.matchingClusters ?? []).map((r) => r.name).join() === 'c1,c2',
      { message: 'ClusterProfile status lists both shards’ clusters' },
    );

    const info1 = await eventually(info, (o) => o?.data?.port === '8080', { message: 'the event add-on in c1' });
    const generated1 = await generated();
    assert.equal(generated1.length, 1);

    // Hand-over inside shard a: its leader stops (releasing the Lease), the standby takes over and keeps c1 as it is.
    const before1 = await addon('c1');
    await a1.stop();
    await a2.running;
    // (give a2's controllers a moment: the hand-over must not touch c1's objects either)
    await new Promise((r) => setTimeout(r, 500));
    assert.equal((await info())?.metadata.uid, info1?.metadata.uid, 'the hand-over withdrew nothing');
    assert.equal(await holder('a'), 'a2');
    assert.equal(a2.isLeader(), true);

    // Re-shard c1 from a to b.
    const csBefore = await summary('c1');
    await mgmt.patch({ ...SC, namespace: 'c1', name: 'c1' }, 'merge', { metadata: { annotations: { [SHARD]: 'b' } } });
    await eventually(() => b.registry.get('Sveltos:c1/c1'), Boolean, { message: 'b adopts c1' });
    await eventually(() => a2.registry.get('Sveltos:c1/c1'), (e) => e === undefined, { message: 'a lets c1 go' });
    // Give both controllers time to act on the move (a withdrawal or redeploy would show in uid/resourceVersion;
    // the agent side's report sweep in particular runs after a coalescing delay).
    await new Promise((r) => setTimeout(r, 1_500));
    const after1 = await addon('c1');
    assert.equal(after1?.metadata.uid, before1?.metadata.uid, 'the add-on in c1 was not withdrawn');
    assert.equal(after1?.metadata.resourceVersion, before1?.metadata.resourceVersion, 'nor rewritten');
    const csAfter = await summary('c1');
    assert.equal(csAfter?.metadata.uid, csBefore?.metadata.uid, 'the ClusterSummary was adopted, not recreated');
    assert.equal(csAfter?.metadata.deletionTimestamp, undefined);
    const info2 = await info();
    assert.equal(info2?.metadata.uid, info1?.metadata.uid, 'the event add-on was not withdrawn');
    assert.equal(info2?.metadata.resourceVersion, info1?.metadata.resourceVersion, 'nor rewritten');
    assert.deepEqual(await generated(), generated1, 'the generated ClusterProfile was adopted, not recreated');

    // b owns c1 now: with shard a's manager gone, a policy change still reaches both clusters.
    await a2.stop();
    await mgmt.patch({ apiVersion: 'v1', kind: 'ConfigMap', namespace: 'default', name: 'policy' }, 'merge', {
      data: { 'cm.yaml': 'apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: addon\n  namespace: default\ndata:\n  cluster: "{{ .Cluster.metadata.name }}"\n  version: "2"\n' },
    });
    for (const c of ['c1', 'c2']) await eventually(() => addon(c), (o) => o?.data?.version === '2', { message: `version 2 in ${c} through shard b` });
    assert.equal((await addon('c1'))?.metadata.uid, before1?.metadata.uid);
    // And events of c1 are shard b's now: a changed Service port reaches its add-on.
    await edges.c1!.patch({ apiVersion: 'v1', kind: 'Service', namespace: 'default', name: 'web' }, 'merge', { spec: { ports: [{ port: 9090 }] } });
    await eventually(info, (o) => o?.data?.port === '9090', { message: 'the event add-on follows the Service through shard b' });
    assert.equal((await info())?.metadata.uid, info1?.metadata.uid);
    assert.deepEqual(await generated(), generated1);
  });
});
