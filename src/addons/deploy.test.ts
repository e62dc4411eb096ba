// The deployer against the embedded API server: ClusterProfiles selecting clusters by labels and refs, Remote and
// Local deployment with Sveltos' stamps, namespace creation, templates with .Cluster and getResource, status and
// profile status, withdrawal on profile deletion and on cluster label change, LeavePolicies, Secrets, steady state.
import { strict as assert } from 'node:assert';
import { after, before, describe, test } from 'node:test';
import { eventually } from '../../test/support/eventually.js';
import type { KubeObject } from '../kube/index.js';
import { startAddonTestEnv, SC, type AddonTestEnv } from '../../test/support/addon-env.js';

const CP = { apiVersion: 'config.projectsveltos.io/v1beta1', kind: 'ClusterProfile' } as const;
const CS = { apiVersion: 'config.projectsveltos.io/v1beta1', kind: 'ClusterSummary' } as const;
const CM = { apiVersion: 'v1', kind: 'ConfigMap' } as const;

type Obj = KubeObject & { data?: Record<string, string>; status?: Record<string, unknown>; spec?: Record<string, unknown> };

function configMap(name: string, data: Record<string, string>, annotations?: Record<string, string>, namespace = 'default'): KubeObject {
  return { ...CM, metadata: { name, namespace, ...(annotations ? { annotations } : {}) }, data } as KubeObject;
}

function profile(name: string, spec: Record<string, unknown>, extra: Partial<KubeObject['metadata']> = {}): KubeObject {
  return { ...CP, metadata: { name, ...extra }, spec } as KubeObject;
}

describe('add-on deployer', () => {
  let env: AddonTestEnv;
  before(async () => {
    env = await startAddonTestEnv({
      clusters: [
        { name: 'edge1', labels: { env: 'prod' } },
        { name: 'edge2', labels: { env: 'dev' } },
      ],
    });
  });
  after(async () => env?.stop());

  const getIn = (cluster: string, ref: { apiVersion: string; kind: string; namespace?: string; name: string }) =>
    (cluster === 'mgmt' ? env.mgmt : env.clusters[cluster]).getIfExists<Obj>(ref);
  const summary = (ns: string, name: string) => env.mgmt.getIfExists<Obj>({ ...CS, namespace: ns, name });

  test('Remote deployment: stamped objects, namespace created, ClusterSummary Provisioned, profile status', async () => {
    await env.mgmt.create(
      configMap('nginx', {
        'ns.yaml': 'apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: app-config\n  namespace: apps\ndata:\n  k: v\n',
        'sa.yaml': '- |\n  apiVersion: v1\n  kind: ServiceAccount\n  metadata:\n    name: app\n    namespace: apps\n- |\n  apiVersion: rbac.authorization.k8s.io/v1\n  kind: ClusterRole\n  metadata:\n    name: app-reader\n    namespace: ignored\n  rules: []\n',
      }),
    );
    await env.mgmt.create(profile('base', { clusterSelector: { matchLabels: { env: 'prod' } }, policyRefs: [{ kind: 'ConfigMap', name: 'nginx', namespace: 'default' }], extraLabels: { team: 'a' } }));
    const cm = await eventually(() => getIn('edge1', { ...CM, namespace: 'apps', name: 'app-config' }), Boolean, { message: 'ConfigMap deployed to edge1' });
    assert.equal(cm!.data!.k, 'v');
    const a = cm!.metadata.annotations!;
    assert.equal(cm!.metadata.labels!['projectsveltos.io/reason'], 'Resources');
    assert.equal(cm!.metadata.labels!.team, 'a');
    assert.equal(a['projectsveltos.io/reference-kind'], 'ConfigMap');
    assert.equal(a['projectsveltos.io/reference-name'], 'nginx');
    assert.equal(a['projectsveltos.io/reference-namespace'], 'default');
    assert.equal(a['projectsveltos.io/reference-tier'], '100');
    assert.equal(a['projectsveltos.io/owner-kind'], 'ClusterProfile');
    assert.equal(a['projectsveltos.io/owner-name'], 'base');
    assert.equal(a['projectsveltos.io/owner-tier'], '100');
    assert.equal(a['projectsveltos.io/clustersummary'], 'sveltos-edge1-edge1');
    assert.equal(a['projectsveltos.io/deploymenttype'], 'Remote');
    assert.match(a['projectsveltos.io/hash'], /^sha256:[0-9a-f]{64}$/);
    const role = await eventually(() => getIn('edge1', { apiVersion: 'rbac.authorization.k8s.io/v1', kind: 'ClusterRole', name: 'app-reader' }), Boolean);
    assert.equal(role!.metadata.namespace, undefined);
    assert.ok(await getIn('edge1', { apiVersion: 'v1', kind: 'ServiceAccount', namespace: 'apps', name: 'app' }));
    // edge2 is dev: nothing there.
    assert.equal(await getIn('edge2', { ...CM, namespace: 'apps', name: 'app-config' }), undefined);

    const cs = await eventually(() => summary('edge1', 'base-sveltos-edge1'), (o) => (o?.status?.featureSummaries as { status?: string }[] | undefined)?.[0]?.status === 'Provisioned', { message: 'ClusterSummary Provisioned' });
    assert.equal(cs!.metadata.labels!['projectsveltos.io/cluster-profile-name'], 'base');
    assert.equal(cs!.metadata.labels!['projectsveltos.io/cluster-name'], 'edge1');
    assert.equal(cs!.metadata.labels!['projectsveltos.io/cluster-type'], 'Sveltos');
    assert.deepEqual(cs!.metadata.finalizers, ['clustersummaryfinalizer.projectsveltos.io']);
    const gvks = (cs!.status!.deployedGVKs as { deployedGroupVersionKind: string[] }[])[0].deployedGroupVersionKind;
    assert.deepEqual(gvks, ['ClusterRole.v1.rbac.authorization.k8s.io', 'ConfigMap.v1.', 'ServiceAccount.v1.']);
    const cp = await eventually(() => env.mgmt.getIfExists<Obj>({ ...CP, name: 'base' }), (o) => ((o?.status?.updatedClusters as { clusters?: unknown[] })?.clusters ?? []).length === 1, { message: 'profile status' });
    assert.deepEqual(cp!.status!.matchingClusters, [{ apiVersion: SC.apiVersion, kind: SC.kind, namespace: 'edge1', name: 'edge1' }]);
    assert.deepEqual(cp!.metadata.finalizers, ['clusterprofilefinalizer.projectsveltos.io']);
    // Metrics: objects created, a provisioned outcome, one matching cluster.
    const text = await env.metrics.metrics();
    assert.match(text, /ripple_addons_objects_total\{op="create"\} [1-9]/);
    assert.match(text, /ripple_addons_deploy_outcome_total\{feature="Resources",outcome="provisioned"\} [1-9]/);
    assert.match(text, /ripple_addons_matching_clusters\{profile_kind="ClusterProfile",profile_namespace="",profile_name="base"\} 1/);
    assert.match(text, /ripple_reconcile_total\{controller="addons-summary",result="success"\} [1-9]/);
  });

  test('a ConfigMap change re-deploys; an object leaving the ConfigMap is deleted', async () => {
    await env.mgmt.patch({ ...CM, namespace: 'default', name: 'nginx' }, 'merge', {
      data: { 'ns.yaml': 'apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: app-config\n  namespace: apps\ndata:\n  k: v2\n', 'sa.yaml': null },
    });
    await eventually(() => getIn('edge1', { ...CM, namespace: 'apps', name: 'app-config' }), (o) => o?.data?.k === 'v2', { message: 'updated' });
    await eventually(() => getIn('edge1', { apiVersion: 'v1', kind: 'ServiceAccount', namespace: 'apps', name: 'app' }), (o) => o === undefined, { message: 'stale ServiceAccount deleted' });
    await eventually(() => getIn('edge1', { apiVersion: 'rbac.authorization.k8s.io/v1', kind: 'ClusterRole', name: 'app-reader' }), (o) => o === undefined, { message: 'stale ClusterRole deleted' });
  });

  test('a cluster label change deploys to the newly matching cluster and withdraws from the other', async () => {
    await env.mgmt.patch({ ...SC, namespace: 'edge2', name: 'edge2' }, 'merge', { metadata: { labels: { env: 'prod' } } });
    await eventually(() => getIn('edge2', { ...CM, namespace: 'apps', name: 'app-config' }), Boolean, { message: 'deployed to edge2' });
    await env.mgmt.patch({ ...SC, namespace: 'edge1', name: 'edge1' }, 'merge', { metadata: { labels: { env: 'staging' } } });
    await eventually(() => getIn('edge1', { ...CM, namespace: 'apps', name: 'app-config' }), (o) => o === undefined, { message: 'withdrawn from edge1' });
    await eventually(() => summary('edge1', 'base-sveltos-edge1'), (o) => o === undefined, { message: 'edge1 ClusterSummary gone' });
    // The namespace the deployer created stays (Sveltos never deletes namespaces it did not deploy as objects).
    assert.ok(await getIn('edge1', { apiVersion: 'v1', kind: 'Namespace', name: 'apps' }));
    await env.mgmt.patch({ ...SC, namespace: 'edge1', name: 'edge1' }, 'merge', { metadata: { labels: { env: 'prod' } } });
  });

  test('profile deletion withdraws everything, then the finalizer lets the profile go', async () => {
    await eventually(() => getIn('edge1', { ...CM, namespace: 'apps', name: 'app-config' }), Boolean, { message: 'back on edge1' });
    await env.mgmt.delete({ ...CP, name: 'base' });
    await eventually(() => getIn('edge1', { ...CM, namespace: 'apps', name: 'app-config' }), (o) => o === undefined, { message: 'withdrawn from edge1' });
    await eventually(() => getIn('edge2', { ...CM, namespace: 'apps', name: 'app-config' }), (o) => o === undefined, { message: 'withdrawn from edge2' });
    await eventually(() => env.mgmt.getIfExists({ ...CP, name: 'base' }), (o) => o === undefined, { message: 'profile gone' });
  });
});
