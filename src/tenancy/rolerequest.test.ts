// RoleRequests against the embedded API server: the tenant's ServiceAccount, roles and bindings appear in exactly the
// matching clusters, follow the selector as cluster labels change, refuse what is not a role (status + Event), and
// are removed with the RoleRequest.
import { strict as assert } from 'node:assert';
import { after, before, describe, test } from 'node:test';
import { generateCrds } from '../api/index.js';
import { ClusterReadinessController, ClusterRegistry, registerCluster } from '../clusters/index.js';
import { EventRecorder, InformerFactory, KubeClient, type KubeObject } from '../kube/index.js';
import { eventually } from '../../test/support/eventually.js';
import { startTestApiServer, type TestApiServer } from '../../test/support/apiserver.js';
import { createLogger } from '../obs/index.js';
import { ROLE_REQUEST_FINALIZER, ROLE_REQUEST_LABEL, RoleRequestController } from './index.js';

const RR = { apiVersion: 'lib.projectsveltos.io/v1beta1', kind: 'RoleRequest' };
const SC = { apiVersion: 'lib.projectsveltos.io/v1beta1', kind: 'SveltosCluster' };
type RRObj = KubeObject & { status?: { matchingClusters?: { name: string }[]; clusterInfo?: { cluster: { name: string }; status?: string; hash: string; failureMessage?: string }[]; failureMessage?: string } };

const ROLES = `apiVersion: rbac.authorization.k8s.io/v1
kind: ClusterRole
metadata:
  name: tenant-a-reader
rules:
- apiGroups: [""]
  resources: ["configmaps"]
  verbs: ["get", "list", "watch"]
---
apiVersion: rbac.authorization.k8s.io/v1
kind: Role
metadata:
  name: tenant-a-edit
  namespace: team-a
rules:
- apiGroups: [""]
  resources: ["configmaps", "services"]
  verbs: ["*"]
`;

describe('RoleRequest controller', () => {
  let api: TestApiServer;
  let mgmt: KubeClient;
  const edge: Record<string, KubeClient> = {};
  let informers: InformerFactory;
  let registry: ClusterRegistry;
  let readiness: ClusterReadinessController;
  let recorder: EventRecorder;
  let controller: RoleRequestController;

  const rr = (name: string) => mgmt.getIfExists<RRObj>({ ...RR, name });
  const sa = (c: string) => edge[c]!.getIfExists({ apiVersion: 'v1', kind: 'ServiceAccount', namespace: 'projectsveltos', name: 'tenants--tenant-a' });
  const crb = (c: string) => edge[c]!.getIfExists<KubeObject & { subjects?: unknown[]; roleRef?: { name: string } }>({ apiVersion: 'rbac.authorization.k8s.io/v1', kind: 'ClusterRoleBinding', name: 'tenant-a-reader--tenants--tenant-a' });

  before(async () => {
    api = await startTestApiServer({ clusters: ['mgmt', 'edge1', 'edge2'] });
    mgmt = new KubeClient(await api.kubeConfig('mgmt'));
    for (const c of ['edge1', 'edge2']) edge[c] = new KubeClient(await api.kubeConfig(c));
    for (const crd of generateCrds()) await mgmt.create(crd as unknown as KubeObject);
    informers = new InformerFactory(mgmt);
    registry = new ClusterRegistry({ informers });
    registry.start();
    await registry.waitForSync({ timeoutMs: 10_000 });
    recorder = new EventRecorder(mgmt);
    readiness = new ClusterReadinessController({ registry, informers, recorder, probeIntervalMs: 60_000 });
    readiness.start();
    await registerCluster(mgmt, { namespace: 'fleet', name: 'edge1', kubeconfig: api.server.kubeconfigYaml('edge1'), labels: { env: 'prod' } });
    await registerCluster(mgmt, { namespace: 'fleet', name: 'edge2', kubeconfig: api.server.kubeconfigYaml('edge2'), labels: { env: 'dev' } });
    await eventually(() => registry.list().map((e) => e.key).join(), (k) => k === 'Sveltos:fleet/edge1,Sveltos:fleet/edge2', { message: 'clusters ready' });
    await mgmt.create({ apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'tenants' } });
    await mgmt.create({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'tenant-a-roles', namespace: 'tenants' }, data: { roles: ROLES } });
    controller = new RoleRequestController({ informers, registry, recorder, logger: process.env.TEST_LOG ? createLogger({ level: 'debug' }) : undefined });
    controller.start();
  });
  after(async () => {
    await controller.stop();
    await readiness.stop();
    await recorder.close();
    await registry.stop();
    await informers.stop();
    mgmt.close();
    for (const c of Object.values(edge)) c.close();
    await api.stop();
  });

  test('creates the ServiceAccount, roles and bindings in matching clusters only, with status', async () => {
    await mgmt.create({
      ...RR,
      metadata: { name: 'tenant-a' },
      spec: { clusterSelector: { matchLabels: { env: 'prod' } }, expirationSeconds: 3600, roleRefs: [{ kind: 'ConfigMap', name: 'tenant-a-roles', namespace: 'tenants' }], serviceAccountName: 'tenant-a', serviceAccountNamespace: 'tenants' },
    });
    const o = await eventually(() => rr('tenant-a'), (x) => x?.status?.clusterInfo?.[0]?.status === 'Provisioned', { message: 'provisioned' });
    assert.deepEqual(o!.status!.matchingClusters!.map((c) => c.name), ['edge1']);
    assert.ok(o!.metadata.finalizers?.includes(ROLE_REQUEST_FINALIZER));
    assert.equal(o!.status!.failureMessage, undefined);
    assert.ok(await sa('edge1'), 'ServiceAccount in edge1');
    const b = await crb('edge1');
    assert.deepEqual(b?.subjects, [{ kind: 'ServiceAccount', name: 'tenants--tenant-a', namespace: 'projectsveltos' }]);
    assert.equal(b?.roleRef?.name, 'tenant-a-reader');
    const rb = await edge.edge1!.getIfExists<KubeObject>({ apiVersion: 'rbac.authorization.k8s.io/v1', kind: 'RoleBinding', namespace: 'team-a', name: 'tenant-a-edit--tenants--tenant-a' });
    assert.equal(rb?.metadata.labels?.[ROLE_REQUEST_LABEL], 'tenant-a');
    assert.equal(await sa('edge2'), undefined, 'nothing in a cluster that does not match');
    assert.equal(await crb('edge2'), undefined);
    // A field accepted but not acted on is said aloud.
    await recorder.flush();
    const evs = (await mgmt.list<KubeObject & { reason: string; message: string; involvedObject: { name: string } }>({ apiVersion: 'v1', kind: 'Event' }, { namespace: 'default' })).items;
    assert.ok(evs.some((e) => e.involvedObject.name === 'tenant-a' && e.reason === 'NotSupported' && /expirationSeconds has no effect/.test(e.message)));
  });

  test('follows the selector: a newly matching cluster gets the grant, one that stops matching loses it', async () => {
    await mgmt.patch({ ...SC, namespace: 'fleet', name: 'edge2' }, 'merge', { metadata: { labels: { env: 'prod' } } });
    await eventually(() => crb('edge2'), (x) => x !== undefined, { message: 'edge2 granted' });
    await mgmt.patch({ ...SC, namespace: 'fleet', name: 'edge1' }, 'merge', { metadata: { labels: { env: 'dev' } } });
    await eventually(() => crb('edge1'), (x) => x === undefined, { message: 'edge1 grant removed' });
    await eventually(() => sa('edge1'), (x) => x === undefined, { message: 'edge1 ServiceAccount removed' });
    const o = await eventually(() => rr('tenant-a'), (x) => x?.status?.matchingClusters?.map((c) => c.name).join() === 'edge2', { message: 'status follows' });
    assert.equal(o!.status!.clusterInfo!.length, 1);
    // The Role's namespace was created; it stays (only what the RoleRequest created is removed).
    assert.ok(await edge.edge1!.getIfExists({ apiVersion: 'v1', kind: 'Namespace', name: 'team-a' }));
  });

  test('a roleRef holding anything but roles is refused in status and by an Event; a missing one too', async () => {
    await mgmt.create({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'sneaky', namespace: 'tenants' }, data: { d: 'apiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: miner\n  namespace: default\n' } });
    await mgmt.create({
      ...RR,
      metadata: { name: 'bad' },
      spec: { clusterSelector: { matchLabels: { env: 'prod' } }, roleRefs: [{ kind: 'ConfigMap', name: 'sneaky', namespace: 'tenants' }], serviceAccountName: 'tenant-b', serviceAccountNamespace: 'tenants' },
    });
    const o = await eventually(() => rr('bad'), (x) => x?.status?.failureMessage !== undefined, { message: 'refused' });
    assert.match(o!.status!.failureMessage!, /cluster fleet\/edge2: ConfigMap tenants\/sneaky key d: Deployment miner is not a rbac.authorization.k8s.io\/v1 Role or ClusterRole/);
    assert.equal(o!.status!.clusterInfo![0]!.status, 'FailedNonRetriable');
    assert.equal(await edge.edge2!.getIfExists({ apiVersion: 'apps/v1', kind: 'Deployment', namespace: 'default', name: 'miner' }), undefined);
    await mgmt.patch({ ...RR, name: 'bad' }, 'merge', { spec: { roleRefs: [{ kind: 'Secret', name: 'absent', namespace: 'tenants' }] } });
    const m = await eventually(() => rr('bad'), (x) => /not found/.test(x?.status?.failureMessage ?? ''), { message: 'missing ref' });
    assert.match(m!.status!.failureMessage!, /roleRefs: Secret tenants\/absent not found/);
    await recorder.flush();
    const evs = (await mgmt.list<KubeObject & { reason: string; message: string; involvedObject: { name: string; kind: string } }>({ apiVersion: 'v1', kind: 'Event' }, { namespace: 'default' })).items;
    assert.ok(evs.some((e) => e.involvedObject.kind === 'RoleRequest' && e.involvedObject.name === 'bad' && e.reason === 'RoleRequestFailed' && /Deployment miner/.test(e.message)), JSON.stringify(evs.map((e) => e.message)));
    await mgmt.delete({ ...RR, name: 'bad' });
    await eventually(() => rr('bad'), (x) => x === undefined, { message: 'bad deleted' });
  });

  test('a role that exists already and is not ours is a conflict, never overwritten', async () => {
    await edge.edge2!.create({ apiVersion: 'rbac.authorization.k8s.io/v1', kind: 'ClusterRole', metadata: { name: 'platform-secret-reader' }, rules: [] });
    await mgmt.create({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'clash', namespace: 'tenants' }, data: { r: 'apiVersion: rbac.authorization.k8s.io/v1\nkind: ClusterRole\nmetadata:\n  name: platform-secret-reader\nrules:\n- apiGroups: [""]\n  resources: ["secrets"]\n  verbs: ["get"]\n' } });
    await mgmt.create({ ...RR, metadata: { name: 'clash' }, spec: { clusterSelector: { matchLabels: { env: 'prod' } }, roleRefs: [{ kind: 'ConfigMap', name: 'clash', namespace: 'tenants' }], serviceAccountName: 'tenant-c', serviceAccountNamespace: 'tenants' } });
    const o = await eventually(() => rr('clash'), (x) => x?.status?.failureMessage !== undefined, { message: 'conflict' });
    assert.match(o!.status!.failureMessage!, /ClusterRole platform-secret-reader already exists and was not created by a RoleRequest/);
    const cr = await edge.edge2!.getIfExists<KubeObject & { rules?: unknown[] }>({ apiVersion: 'rbac.authorization.k8s.io/v1', kind: 'ClusterRole', name: 'platform-secret-reader' });
    assert.deepEqual(cr?.rules, []);
    await mgmt.delete({ ...RR, name: 'clash' });
  });

  test('deleting the RoleRequest removes everything it created, then the finalizer', async () => {
    await mgmt.delete({ ...RR, name: 'tenant-a' });
    await eventually(() => rr('tenant-a'), (x) => x === undefined, { message: 'RoleRequest gone' });
    assert.equal(await crb('edge2'), undefined);
    assert.equal(await sa('edge2'), undefined);
    const left = await edge.edge2!.list<KubeObject>({ apiVersion: 'rbac.authorization.k8s.io/v1', kind: 'RoleBinding' }, { labelSelector: ROLE_REQUEST_LABEL });
    assert.equal(left.items.length, 0);
  });
});
