// syncMode and ownership against the embedded API server: drift detection reverting an edit and a deletion
// (driftExclusions and driftDetectionIgnore honoured), DryRun's ClusterReport, conflicts between profiles resolved
// by tier, LeavePolicies, and a quiet steady state (no writes at all while nothing changes).
import { strict as assert } from 'node:assert';
import { after, before, describe, test } from 'node:test';
import { eventually } from '../../test/support/eventually.js';
import { isKindNotInstalled, type KubeClient, type KubeObject } from '../kube/index.js';
import { startAddonTestEnv, SC, type AddonTestEnv } from '../../test/support/addon-env.js';

const CP = { apiVersion: 'config.projectsveltos.io/v1beta1', kind: 'ClusterProfile' } as const;
const CS = { apiVersion: 'config.projectsveltos.io/v1beta1', kind: 'ClusterSummary' } as const;
const CR = { apiVersion: 'config.projectsveltos.io/v1beta1', kind: 'ClusterReport' } as const;
const CM = { apiVersion: 'v1', kind: 'ConfigMap' } as const;
const DEP = { apiVersion: 'apps/v1', kind: 'Deployment' } as const;

type Obj = KubeObject & { data?: Record<string, string>; status?: Record<string, unknown>; spec?: Record<string, unknown> };
type Feature = { featureID: string; status?: string; failureMessage?: string; failureReason?: string };

const deployment = (name: string, replicas: number, image = 'nginx:1.25', extra = '') => `apiVersion: apps/v1
kind: Deployment
metadata:
  name: ${name}
  namespace: web
${extra}spec:
  replicas: ${replicas}
  selector:
    matchLabels: {app: ${name}}
  template:
    metadata:
      labels: {app: ${name}}
    spec:
      containers:
      - name: main
        image: ${image}
`;

async function put(c: KubeClient, o: KubeObject): Promise<void> {
  await c.apply(o, { fieldManager: 'test', force: true });
}

const features = (o: Obj | undefined) => ((o?.status?.featureSummaries ?? []) as Feature[]);
const resources = (o: Obj | undefined) => features(o).find((f) => f.featureID === 'Resources');

describe('syncMode, conflicts and withdrawal policies', () => {
  let env: AddonTestEnv;
  before(async () => {
    env = await startAddonTestEnv({ clusters: [{ name: 'c1', labels: { env: 'drift' } }, { name: 'c2', labels: { env: 'dry' } }, { name: 'c3', labels: { env: 'tiers' } }] });
  });
  after(async () => env?.stop());

  test('ContinuousWithDriftDetection reverts a manual edit and a deletion', async () => {
    await put(env.mgmt, {
      ...CM,
      metadata: { name: 'web', namespace: 'default' },
      data: {
        'a.yaml': deployment('web', 2),
        'b.yaml': deployment('ignored', 1, 'nginx:1.25', '  annotations:\n    projectsveltos.io/driftDetectionIgnore: ok\n'),
      },
    } as KubeObject);
    await put(env.mgmt, {
      ...CP,
      metadata: { name: 'drift' },
      spec: {
        clusterSelector: { matchLabels: { env: 'drift' } },
        syncMode: 'ContinuousWithDriftDetection',
        policyRefs: [{ kind: 'ConfigMap', name: 'web', namespace: 'default' }],
        driftExclusions: [{ paths: ['/spec/replicas'], target: { kind: 'Deployment', name: 'web' } }],
      },
    } as KubeObject);
    const c1 = env.clusters.c1;
    const ref = { ...DEP, namespace: 'web', name: 'web' };
    await eventually(() => c1.getIfExists<Obj>(ref), Boolean, { message: 'deployed' });
    await eventually(() => env.mgmt.getIfExists<Obj>({ ...CS, namespace: 'c1', name: 'drift-sveltos-c1' }), (o) => resources(o)?.status === 'Provisioned');

    // A manual edit of a field we own is reverted…
    await c1.patch(ref, 'json', [{ op: 'replace', path: '/spec/template/spec/containers/0/image', value: 'evil:latest' }]);
    // (How fast is measured by the addons bench, `driftRevert`; tests assert no timings.)
    await eventually(() => c1.get<Obj>(ref), (o) => (o.spec as { template: { spec: { containers: { image: string }[] } } }).template.spec.containers[0].image === 'nginx:1.25', { message: 'edit reverted' });
    // …a drift-excluded field is not (an autoscaler may own it)…
    await c1.patch(ref, 'merge', { spec: { replicas: 5 } });
    await new Promise((r) => setTimeout(r, 300));
    assert.equal((await c1.get<Obj>(ref)).spec!.replicas, 5);
    // …and a deletion is undone.
    await c1.delete(ref);
    await eventually(() => c1.getIfExists<Obj>(ref), (o) => o !== undefined && !o.metadata.deletionTimestamp, { message: 'deletion reverted' });
    // An object annotated driftDetectionIgnore is left alone after a manual edit.
    const ignored = { ...DEP, namespace: 'web', name: 'ignored' };
    await c1.patch(ignored, 'json', [{ op: 'replace', path: '/spec/template/spec/containers/0/image', value: 'mine:1' }]);
    await new Promise((r) => setTimeout(r, 300));
    assert.equal((await c1.get<Obj>(ignored)).spec!.template && ((await c1.get<Obj>(ignored)).spec as { template: { spec: { containers: { image: string }[] } } }).template.spec.containers[0].image, 'mine:1');
  });

  test('DryRun writes nothing and reports Create / Update (with a diff) / No Action / Delete in a ClusterReport', async () => {
    const c2 = env.clusters.c2;
    // Objects already there: one identical to what the profile would deploy, one different.
    await put(env.mgmt, { ...CM, metadata: { name: 'dry', namespace: 'default' }, data: { 'a.yaml': deployment('one', 1) + '---\n' + deployment('two', 1, 'nginx:1.26') } } as KubeObject);
    await put(env.mgmt, {
      ...CP,
      metadata: { name: 'dry' },
      spec: { clusterSelector: { matchLabels: { env: 'dry' } }, syncMode: 'Continuous', policyRefs: [{ kind: 'ConfigMap', name: 'dry', namespace: 'default' }] },
    } as KubeObject);
    await eventually(() => c2.getIfExists<Obj>({ ...DEP, namespace: 'web', name: 'two' }), Boolean, { message: 'deployed continuously first' });
    // Switch to DryRun with a changed ConfigMap: `one` changes image, `two` goes away, `three` is new.
    await put(env.mgmt, { ...CP, metadata: { name: 'dry' }, spec: { clusterSelector: { matchLabels: { env: 'dry' } }, syncMode: 'DryRun', policyRefs: [{ kind: 'ConfigMap', name: 'dry', namespace: 'default' }] } } as KubeObject);
    await eventually(() => env.mgmt.getIfExists<Obj>({ ...CS, namespace: 'c2', name: 'dry-sveltos-c2' }), (o) => (o?.spec?.clusterProfileSpec as { syncMode?: string })?.syncMode === 'DryRun', { message: 'DryRun reached the ClusterSummary' });
    await put(env.mgmt, { ...CM, metadata: { name: 'dry', namespace: 'default' }, data: { 'a.yaml': deployment('one', 1, 'nginx:1.27') + '---\n' + deployment('three', 1) } } as KubeObject);
    const report = await eventually(
      () => env.mgmt.getIfExists<Obj>({ ...CR, namespace: 'c2', name: 'dry--sveltos--c2' }),
      (o) => ((o?.status?.resourceReports as unknown[]) ?? []).length === 3,
      { message: 'ClusterReport with three entries' },
    );
    const rr = report!.status!.resourceReports as { action: string; message?: string; resource: { kind: string; name: string; namespace?: string; group: string; version: string } }[];
    const byName = Object.fromEntries(rr.map((r) => [r.resource.name, r]));
    assert.equal(byName.one.action, 'Update');
    assert.match(byName.one.message!, /\n-\s+- image: nginx:1.25\n\+\s+- image: nginx:1.27\n/);
    assert.equal(byName.three.action, 'Create');
    assert.equal(byName.two.action, 'Delete');
    assert.deepEqual({ ...byName.one.resource, ignoreForConfigurationDrift: undefined }, { group: 'apps', version: 'v1', kind: 'Deployment', name: 'one', namespace: 'web', ignoreForConfigurationDrift: undefined });
    assert.equal(report!.metadata.labels!['projectsveltos.io/cluster-profile-name'], 'dry');
    // Nothing changed in the cluster.
    assert.equal(await c2.getIfExists({ ...DEP, namespace: 'web', name: 'three' }), undefined);
    assert.ok(await c2.getIfExists({ ...DEP, namespace: 'web', name: 'two' }));
    const one = await c2.get<Obj>({ ...DEP, namespace: 'web', name: 'one' });
    assert.equal((one.spec as { template: { spec: { containers: { image: string }[] } } }).template.spec.containers[0].image, 'nginx:1.25');
    // Back to Continuous: applied for real and the report goes away.
    await put(env.mgmt, { ...CP, metadata: { name: 'dry' }, spec: { clusterSelector: { matchLabels: { env: 'dry' } }, syncMode: 'Continuous', policyRefs: [{ kind: 'ConfigMap', name: 'dry', namespace: 'default' }] } } as KubeObject);
    await eventually(() => c2.getIfExists({ ...DEP, namespace: 'web', name: 'three' }), Boolean, { message: 'applied after DryRun' });
    await eventually(() => c2.getIfExists({ ...DEP, namespace: 'web', name: 'two' }), (o) => o === undefined, { message: 'stale removed after DryRun' });
    await eventually(() => env.mgmt.getIfExists({ ...CR, namespace: 'c2', name: 'dry--sveltos--c2' }), (o) => o === undefined, { message: 'report removed' });
  });

  test('conflicts between profiles: the current owner keeps a tie, a lower tier takes over, the loser reports it', async () => {
    const c3 = env.clusters.c3;
    const obj = (v: string) => `apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: shared\n  namespace: cfg\ndata:\n  owner: ${v}\n`;
    await put(env.mgmt, { ...CM, metadata: { name: 'first', namespace: 'default' }, data: { 'x.yaml': obj('first') } } as KubeObject);
    await put(env.mgmt, { ...CM, metadata: { name: 'second', namespace: 'default' }, data: { 'x.yaml': obj('second') } } as KubeObject);
    const sel = { matchLabels: { env: 'tiers' } };
    await put(env.mgmt, { ...CP, metadata: { name: 'first' }, spec: { clusterSelector: sel, policyRefs: [{ kind: 'ConfigMap', name: 'first', namespace: 'default' }] } } as KubeObject);
    const shared = { ...CM, namespace: 'cfg', name: 'shared' };
    await eventually(() => c3.getIfExists<Obj>(shared), (o) => o?.data?.owner === 'first', { message: 'first deployed' });
    // Same tier: the owner keeps it; the newcomer's ClusterSummary reports the conflict naming the owner.
    await put(env.mgmt, { ...CP, metadata: { name: 'second' }, spec: { clusterSelector: sel, policyRefs: [{ kind: 'ConfigMap', name: 'second', namespace: 'default' }] } } as KubeObject);
    const loser = await eventually(() => env.mgmt.getIfExists<Obj>({ ...CS, namespace: 'c3', name: 'second-sveltos-c3' }), (o) => resources(o)?.status === 'Failed', { message: 'second reports a conflict' });
    assert.equal(resources(loser)!.failureReason, 'ConflictError');
    assert.match(resources(loser)!.failureMessage!, /ConfigMap:cfg\/shared.*ClusterProfile first/s);
    assert.equal((await c3.get<Obj>(shared)).data!.owner, 'first');
    const cp = await eventually(() => env.mgmt.getIfExists<Obj>({ ...CP, name: 'second' }), (o) => ((o?.status?.failedClusters as unknown[]) ?? []).length === 1, { message: 'profile failedClusters' });
    assert.match(JSON.stringify(cp!.status!.failedClusters), /conflict/i);
    // A lower tier wins: second takes over, first now reports the conflict.
    await put(env.mgmt, { ...CP, metadata: { name: 'second' }, spec: { clusterSelector: sel, tier: 50, policyRefs: [{ kind: 'ConfigMap', name: 'second', namespace: 'default' }] } } as KubeObject);
    await eventually(() => c3.getIfExists<Obj>(shared), (o) => o?.data?.owner === 'second' && o.metadata.annotations?.['projectsveltos.io/owner-tier'] === '50', { message: 'second took over' });
    await eventually(() => env.mgmt.getIfExists<Obj>({ ...CS, namespace: 'c3', name: 'first-sveltos-c3' }), (o) => resources(o)?.failureReason === 'ConflictError', { message: 'first reports the conflict' });
    await eventually(() => env.mgmt.getIfExists<Obj>({ ...CS, namespace: 'c3', name: 'second-sveltos-c3' }), (o) => resources(o)?.status === 'Provisioned');
    // When the winner goes away, its object goes with it and the loser deploys again.
    await env.mgmt.delete({ ...CP, name: 'second' });
    await eventually(() => c3.getIfExists<Obj>(shared), (o) => o?.data?.owner === 'first', { message: 'first deploys again' });
    await env.mgmt.delete({ ...CP, name: 'first' });
    await eventually(() => c3.getIfExists<Obj>(shared), (o) => o === undefined, { message: 'withdrawn' });
  });

  test('LeavePolicies keeps the objects and removes the Sveltos stamps when the cluster stops matching', async () => {
    const c3 = env.clusters.c3;
    await put(env.mgmt, { ...CM, metadata: { name: 'keep', namespace: 'default' }, data: { 'x.yaml': 'apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: kept\n  namespace: cfg\ndata:\n  a: b\n' } } as KubeObject);
    await put(env.mgmt, { ...CP, metadata: { name: 'keep' }, spec: { clusterSelector: { matchLabels: { env: 'tiers' } }, stopMatchingBehavior: 'LeavePolicies', policyRefs: [{ kind: 'ConfigMap', name: 'keep', namespace: 'default' }] } } as KubeObject);
    const kept = { ...CM, namespace: 'cfg', name: 'kept' };
    await eventually(() => c3.getIfExists<Obj>(kept), (o) => o?.metadata.annotations?.['projectsveltos.io/owner-name'] === 'keep', { message: 'deployed' });
    await env.mgmt.patch({ ...SC, namespace: 'c3', name: 'c3' }, 'merge', { metadata: { labels: { env: 'elsewhere' } } });
    await eventually(() => env.mgmt.getIfExists({ ...CS, namespace: 'c3', name: 'keep-sveltos-c3' }), (o) => o === undefined, { message: 'ClusterSummary gone' });
    const o = await c3.get<Obj>(kept);
    assert.equal(o.data!.a, 'b');
    assert.deepEqual(Object.keys(o.metadata.annotations ?? {}).filter((k) => k.startsWith('projectsveltos.io/')), []);
    assert.equal(o.metadata.labels?.['projectsveltos.io/reason'], undefined);
    await env.mgmt.patch({ ...SC, namespace: 'c3', name: 'c3' }, 'merge', { metadata: { labels: { env: 'tiers' } } });
  });

  test('steady state: nothing is written while nothing changes', async () => {
    const rv = async () => {
      const out: string[] = [];
      for (const c of [env.mgmt, env.clusters.c1, env.clusters.c2, env.clusters.c3]) {
        for (const k of [CS, CP, CR, CM, DEP, { apiVersion: 'v1', kind: 'Namespace' }]) {
          let items: KubeObject[] = [];
          try {
            items = (await c.list(k)).items;
          } catch (err) {
            if (!isKindNotInstalled(err)) throw err;
          }
          for (const o of items) out.push(`${c.name}|${k.kind}|${o.metadata.namespace}/${o.metadata.name}@${o.metadata.resourceVersion}`);
        }
      }
      return out;
    };
    // Let everything settle (the previous test re-matched c3): two identical snapshots 300 ms apart.
    let before = await rv();
    await eventually(
      async () => {
        await new Promise((r) => setTimeout(r, 300));
        const now = await rv();
        const same = JSON.stringify(now) === JSON.stringify(before);
        before = now;
        return same;
      },
      Boolean,
      { message: 'a settled state', timeoutMs: 20_000 },
    );
    // Wake every controller path without changing anything: re-queue every ClusterSummary and profile.
    for (const cs of (await env.mgmt.list<Obj>(CS)).items) env.deployer.summaries.enqueue(`${cs.metadata.namespace}/${cs.metadata.name}`);
    for (const p of (await env.mgmt.list<Obj>(CP)).items) env.deployer.profiles.enqueue(`ClusterProfile:/${p.metadata.name}`);
    await new Promise((r) => setTimeout(r, 700));
    assert.deepEqual(await rv(), before);
  });
});
