// Profile features and failure reporting against the embedded API server: templates with .Cluster and exact error
// locations, missing references that appear later, Secrets, Local + Remote in one profile, CRDs with their custom
// resources, apply errors from the API server, continueOnError, Helm/Kustomize failures reported visibly, namespaced
// Profiles, dependsOn, the pause annotation and OneTime.
import { strict as assert } from 'node:assert';
import { after, before, describe, test } from 'node:test';
import { eventually } from '../../test/support/eventually.js';
import type { KubeObject } from '../kube/index.js';
import { startAddonTestEnv, type AddonTestEnv } from '../../test/support/addon-env.js';

const CP = { apiVersion: 'config.projectsveltos.io/v1beta1', kind: 'ClusterProfile' } as const;
const PROFILE = { apiVersion: 'config.projectsveltos.io/v1beta1', kind: 'Profile' } as const;
const CS = { apiVersion: 'config.projectsveltos.io/v1beta1', kind: 'ClusterSummary' } as const;
const CM = { apiVersion: 'v1', kind: 'ConfigMap' } as const;

type Obj = KubeObject & { data?: Record<string, string>; status?: Record<string, unknown>; spec?: Record<string, unknown>; reason?: string; message?: string };
type Feature = { featureID: string; status?: string; failureMessage?: string; failureReason?: string };
const feature = (o: Obj | undefined, id = 'Resources') => ((o?.status?.featureSummaries ?? []) as Feature[]).find((f) => f.featureID === id);

const cmText = (name: string, ns: string, extra = '') => `apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: ${name}\n  namespace: ${ns}\ndata:\n  x: "1"\n${extra}`;

describe('profile features and failures', () => {
  let env: AddonTestEnv;
  before(async () => {
    env = await startAddonTestEnv({ clusters: [{ name: 'f1', labels: { env: 'feat', region: 'eu' } }, { name: 'f2', namespace: 'tenant', labels: { env: 'feat' } }] });
  });
  after(async () => env?.stop());

  const put = (o: object) => env.mgmt.apply(o as KubeObject, { fieldManager: 'test', force: true });
  const cs = (ns: string, name: string) => env.mgmt.getIfExists<Obj>({ ...CS, namespace: ns, name });
  const events = async (ns: string, name: string) => {
    await env.recorder.flush();
    return (await env.mgmt.list<Obj & { involvedObject: { name: string } }>({ apiVersion: 'v1', kind: 'Event' }, { namespace: ns })).items.filter((e) => e.involvedObject.name === name);
  };

  test('a template error is reported with its location; fixing the ConfigMap deploys', async () => {
    await put({ ...CM, metadata: { name: 'tpl', namespace: 'default', annotations: { 'projectsveltos.io/template': 'ok' } }, data: { 'a.yaml': 'apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: region\n  namespace: cfg\ndata:\n  region: {{ .Cluster.metadata.labels.nope }}\n' } });
    await put({ ...CP, metadata: { name: 'tpl' }, spec: { clusterSelector: { matchLabels: { env: 'feat' } }, policyRefs: [{ kind: 'ConfigMap', name: 'tpl', namespace: 'default' }] } });
    const bad = await eventually(() => cs('f1', 'tpl-sveltos-f1'), (o) => feature(o)?.status === 'FailedNonRetriable', { message: 'template error reported' });
    assert.equal(feature(bad)!.failureReason, 'TemplateError');
    assert.match(feature(bad)!.failureMessage!, /^rendering ConfigMap default\/tpl key a\.yaml: template: f1-f1-tpl\/a\.yaml:7:21: executing "f1-f1-tpl\/a\.yaml" at <\.Cluster\.metadata\.labels\.nope>: map has no entry for key "nope"$/);
    assert.ok((await events('f1', 'tpl-sveltos-f1')).some((e) => e.reason === 'TemplateError' && e.message!.includes(":7:21:")));
    await put({ ...CM, metadata: { name: 'tpl', namespace: 'default', annotations: { 'projectsveltos.io/template': 'ok' } }, data: { 'a.yaml': 'apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: region\n  namespace: cfg\ndata:\n  region: {{ .Cluster.metadata.labels.region }}\n  cluster: {{ .Cluster.metadata.name }}\n' } });
    const o = await eventually(() => env.clusters.f1.getIfExists<Obj>({ ...CM, namespace: 'cfg', name: 'region' }), Boolean, { message: 'deployed after the fix' });
    assert.deepEqual(o!.data, { region: 'eu', cluster: 'f1' });
    await eventually(() => cs('f1', 'tpl-sveltos-f1'), (x) => feature(x)?.status === 'Provisioned');
  });

  test('a missing referenced ConfigMap is reported and deployed as soon as it appears', async () => {
    await put({ ...CP, metadata: { name: 'late' }, spec: { clusterSelector: { matchLabels: { env: 'feat' } }, policyRefs: [{ kind: 'ConfigMap', name: 'late', namespace: 'default' }] } });
    const f = await eventually(() => cs('f1', 'late-sveltos-f1'), (o) => feature(o)?.failureReason === 'ReferenceNotFound', { message: 'missing reference reported' });
    assert.match(feature(f)!.failureMessage!, /referenced ConfigMap default\/late does not exist/);
    await put({ ...CM, metadata: { name: 'late', namespace: 'default' }, data: { 'a.yaml': cmText('late', 'cfg') } });
    await eventually(() => env.clusters.f1.getIfExists({ ...CM, namespace: 'cfg', name: 'late' }), Boolean, { message: 'deployed once the ConfigMap exists' });
  });

  test('Secrets: only the cluster-profile type is deployed', async () => {
    const data = { 'a.yaml': Buffer.from(cmText('from-secret', 'cfg')).toString('base64') };
    await put({ apiVersion: 'v1', kind: 'Secret', metadata: { name: 'plain', namespace: 'default' }, type: 'Opaque', data });
    await put({ apiVersion: 'v1', kind: 'Secret', metadata: { name: 'good', namespace: 'default' }, type: 'addons.projectsveltos.io/cluster-profile', data });
    await put({ ...CP, metadata: { name: 'secret' }, spec: { clusterSelector: { matchLabels: { env: 'feat' } }, policyRefs: [{ kind: 'Secret', name: 'plain', namespace: 'default' }] } });
    const f = await eventually(() => cs('f1', 'secret-sveltos-f1'), (o) => feature(o)?.status === 'FailedNonRetriable', { message: 'wrong Secret type reported' });
    assert.match(feature(f)!.failureMessage!, /type "Opaque"; profiles deploy only Secrets of type addons\.projectsveltos\.io\/cluster-profile/);
    await put({ ...CP, metadata: { name: 'secret' }, spec: { clusterSelector: { matchLabels: { env: 'feat' } }, policyRefs: [{ kind: 'Secret', name: 'good', namespace: 'default' }] } });
    const o = await eventually(() => env.clusters.f1.getIfExists<Obj>({ ...CM, namespace: 'cfg', name: 'from-secret' }), Boolean, { message: 'deployed from the Secret' });
    assert.equal(o!.metadata.annotations!['projectsveltos.io/reference-kind'], 'Secret');
  });

  test('Local and Remote in one profile; a CRD and its custom resource in one ConfigMap', async () => {
    const crd = `apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
metadata:
  name: widgets.example.com
spec:
  group: example.com
  names: {kind: Widget, plural: widgets, singular: widget, listKind: WidgetList}
  scope: Namespaced
  versions:
  - name: v1
    served: true
    storage: true
    schema:
      openAPIV3Schema: {type: object, x-kubernetes-preserve-unknown-fields: true}
`;
    await put({ ...CM, metadata: { name: 'crd', namespace: 'default' }, data: { 'a.yaml': `apiVersion: example.com/v1\nkind: Widget\nmetadata:\n  name: w1\n  namespace: widgets\nspec:\n  size: 3\n`, 'b.yaml': crd } });
    await put({ ...CM, metadata: { name: 'local', namespace: 'default' }, data: { 'a.yaml': cmText('for-f1', 'f1') } });
    await put({
      ...CP,
      metadata: { name: 'mixed' },
      spec: {
        clusterRefs: [{ apiVersion: 'lib.projectsveltos.io/v1beta1', kind: 'SveltosCluster', namespace: 'f1', name: 'f1' }],
        policyRefs: [
          { kind: 'ConfigMap', name: 'crd', namespace: 'default' },
          { kind: 'ConfigMap', name: 'local', namespace: 'default', deploymentType: 'Local' },
        ],
      },
    });
    const w = await eventually(() => env.clusters.f1.getIfExists<Obj>({ apiVersion: 'example.com/v1', kind: 'Widget', namespace: 'widgets', name: 'w1' }), Boolean, { message: 'custom resource deployed after its CRD' }).catch(async (e) => {
      throw new Error(`${e.message}; ClusterSummary: ${JSON.stringify((await cs('f1', 'mixed-sveltos-f1'))?.status)}`);
    });
    assert.equal((w!.spec as { size: number }).size, 3);
    const local = await eventually(() => env.mgmt.getIfExists<Obj>({ ...CM, namespace: 'f1', name: 'for-f1' }), Boolean, { message: 'Local object in the management cluster' });
    assert.equal(local!.metadata.annotations!['projectsveltos.io/deploymenttype'], 'Local');
    assert.equal(await env.clusters.f1.getIfExists({ ...CM, namespace: 'f1', name: 'for-f1' }), undefined);
    // f2 is not referenced.
    assert.equal(await env.clusters.f2.getIfExists({ apiVersion: 'apiextensions.k8s.io/v1', kind: 'CustomResourceDefinition', name: 'widgets.example.com' }), undefined);
  });

  test('profile patches (templated) change what is deployed', async () => {
    await put({ ...CM, metadata: { name: 'patched', namespace: 'default' }, data: { 'a.yaml': cmText('patched', 'cfg') } });
    await put({
      ...CP,
      metadata: { name: 'patched' },
      spec: {
        clusterSelector: { matchLabels: { env: 'feat' } },
        policyRefs: [{ kind: 'ConfigMap', name: 'patched', namespace: 'default' }],
        patches: [
          { target: { kind: 'ConfigMap', name: 'patched' }, patch: '- op: add\n  path: /data/region\n  value: {{ .Cluster.metadata.labels.region }}\n' },
          { patch: 'apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: patched\n  labels:\n    by: patch\n' },
        ],
      },
    });
    const o = await eventually(() => env.clusters.f1.getIfExists<Obj>({ ...CM, namespace: 'cfg', name: 'patched' }), (x) => x?.data?.region === 'eu', { message: 'patched object deployed' });
    assert.equal(o!.metadata.labels!.by, 'patch');
    assert.equal(o!.data!.x, '1');
    await env.mgmt.delete({ ...CP, name: 'patched' });
  });

  test('projectsveltos.io/subresources: the status is applied after the object', async () => {
    const svc = 'apiVersion: v1\nkind: Service\nmetadata:\n  name: with-status\n  namespace: cfg\nspec:\n  type: LoadBalancer\n  ports: [{port: 80}]\nstatus:\n  loadBalancer:\n    ingress:\n    - ip: 10.9.8.7\n';
    await put({ ...CM, metadata: { name: 'sub', namespace: 'default', annotations: { 'projectsveltos.io/subresources': 'status' } }, data: { 'a.yaml': svc } });
    await put({ ...CP, metadata: { name: 'sub' }, spec: { clusterSelector: { matchLabels: { env: 'feat' } }, policyRefs: [{ kind: 'ConfigMap', name: 'sub', namespace: 'default' }] } });
    const o = await eventually(() => env.clusters.f1.getIfExists<Obj>({ apiVersion: 'v1', kind: 'Service', namespace: 'cfg', name: 'with-status' }), (x) => JSON.stringify(x?.status ?? {}).includes('10.9.8.7'), { message: 'status applied' });
    assert.equal((o!.spec as { type: string }).type, 'LoadBalancer');
    assert.ok(!(await events('f1', 'sub-sveltos-f1')).some((e) => e.reason === 'MisspelledAnnotation'));
    await env.mgmt.delete({ ...CP, name: 'sub' });
    await eventually(() => env.clusters.f1.getIfExists({ apiVersion: 'v1', kind: 'Service', namespace: 'cfg', name: 'with-status' }), (x) => x === undefined, { message: 'deleted (not adopted: we created it)' });
  });

  test('an object the API server refuses: its message in status; continueOnError deploys the rest', async () => {
    const badSvc = 'apiVersion: v1\nkind: Service\nmetadata:\n  name: bad\n  namespace: cfg\nspec:\n  type: NotAType\n  ports: [{port: 80}]\n';
    await put({ ...CM, metadata: { name: 'partly', namespace: 'default' }, data: { 'a.yaml': badSvc, 'b.yaml': cmText('good-one', 'cfg') } });
    await put({ ...CP, metadata: { name: 'partly' }, spec: { clusterSelector: { matchLabels: { env: 'feat' } }, policyRefs: [{ kind: 'ConfigMap', name: 'partly', namespace: 'default' }] } });
    const f = await eventually(() => cs('f1', 'partly-sveltos-f1'), (o) => feature(o)?.status === 'Failed', { message: 'apply error reported' });
    assert.match(feature(f)!.failureMessage!, /deploying Service cfg\/bad failed: Service "bad" is invalid: spec\.type: Unsupported value: "NotAType"/);
    assert.equal(await env.clusters.f1.getIfExists({ ...CM, namespace: 'cfg', name: 'good-one' }), undefined, 'stopped at the first error');
    await put({ ...CP, metadata: { name: 'partly' }, spec: { clusterSelector: { matchLabels: { env: 'feat' } }, continueOnError: true, policyRefs: [{ kind: 'ConfigMap', name: 'partly', namespace: 'default' }] } });
    await eventually(() => env.clusters.f1.getIfExists({ ...CM, namespace: 'cfg', name: 'good-one' }), Boolean, { message: 'continueOnError deploys the rest' });
    await eventually(() => cs('f1', 'partly-sveltos-f1'), (o) => feature(o)?.status === 'Failed' && /NotAType/.test(feature(o)!.failureMessage!));
    await env.mgmt.delete({ ...CP, name: 'partly' });
  });

  test('an unreachable chart repository fails the Helm feature visibly; a kustomizationRef to a missing ConfigMap fails the Kustomize feature alone; policyRefs still deploy', async () => {
    await put({ ...CM, metadata: { name: 'helm-side', namespace: 'default' }, data: { 'a.yaml': cmText('beside-helm', 'cfg') } });
    await put({
      ...CP,
      metadata: { name: 'helm' },
      spec: {
        clusterSelector: { matchLabels: { env: 'feat' } },
        policyRefs: [{ kind: 'ConfigMap', name: 'helm-side', namespace: 'default' }],
        // Port 1 on loopback: nothing listens there, the connection is refused at once.
        helmCharts: [{ repositoryURL: 'http://127.0.0.1:1/charts', repositoryName: 'ex', chartName: 'ex/app', chartVersion: '1.0.0', releaseName: 'app', releaseNamespace: 'app' }],
        kustomizationRefs: [{ kind: 'ConfigMap', name: 'k', namespace: 'default' }],
      },
    });
    const o = await eventually(() => cs('f1', 'helm-sveltos-f1'), (x) => feature(x, 'Helm')?.status === 'Failed' && feature(x, 'Kustomize') !== undefined && feature(x)?.status === 'Provisioned', { message: 'features reported' });
    assert.equal(feature(o, 'Helm')!.failureReason, 'HelmChartFailed');
    assert.match(feature(o, 'Helm')!.failureMessage!, /chart ex\/app@1\.0\.0 \(release app\/app\): .*127\.0\.0\.1:1/);
    assert.ok((await events('f1', 'helm-sveltos-f1')).some((e) => e.reason === 'HelmChartFailed'));
    assert.equal(feature(o, 'Kustomize')!.failureReason, 'ReferenceNotFound');
    assert.match(feature(o, 'Kustomize')!.failureMessage!, /kustomizationRefs\[0\]: referenced ConfigMap default\/k does not exist/);
    assert.ok(await env.clusters.f1.getIfExists({ ...CM, namespace: 'cfg', name: 'beside-helm' }));
    assert.ok((await events('f1', 'helm-sveltos-f1')).some((e) => e.reason === 'ReferenceNotFound' && e.message!.includes('kustomizationRefs')));
    await env.mgmt.delete({ ...CP, name: 'helm' });
  });

  test('a Profile selects only clusters of its namespace and deploys Local only there', async () => {
    await put({ ...CM, metadata: { name: 'tenant-cm', namespace: 'tenant' }, data: { 'a.yaml': cmText('tenant-remote', 'cfg') } });
    await put({ ...CM, metadata: { name: 'tenant-local', namespace: 'tenant' }, data: { 'a.yaml': cmText('elsewhere', 'default') } });
    await put({ ...PROFILE, metadata: { name: 'mine', namespace: 'tenant' }, spec: { clusterSelector: { matchLabels: { env: 'feat' } }, policyRefs: [{ kind: 'ConfigMap', name: 'tenant-cm', namespace: 'tenant' }] } });
    await eventually(() => env.clusters.f2.getIfExists({ ...CM, namespace: 'cfg', name: 'tenant-remote' }), Boolean, { message: 'Profile deploys to its namespace cluster' });
    const s = await cs('tenant', 'p--mine-sveltos-f2');
    assert.equal(s!.metadata.labels!['projectsveltos.io/profile-name'], 'mine');
    assert.equal(await cs('f1', 'p--mine-sveltos-f1'), undefined);
    assert.equal(await env.clusters.f1.getIfExists({ ...CM, namespace: 'cfg', name: 'tenant-remote' }), undefined);
    await put({ ...PROFILE, metadata: { name: 'mine', namespace: 'tenant' }, spec: { clusterSelector: { matchLabels: { env: 'feat' } }, policyRefs: [{ kind: 'ConfigMap', name: 'tenant-local', namespace: 'tenant', deploymentType: 'Local' }] } });
    const f = await eventually(() => cs('tenant', 'p--mine-sveltos-f2'), (o) => feature(o)?.status === 'FailedNonRetriable', { message: 'Local outside the namespace refused' });
    assert.match(feature(f)!.failureMessage!, /a Profile can only deploy resources in its own namespace tenant/);
    assert.equal(await env.mgmt.getIfExists({ ...CM, namespace: 'default', name: 'elsewhere' }), undefined);
    await env.mgmt.delete({ ...PROFILE, namespace: 'tenant', name: 'mine' });
  });

  test('dependsOn: the dependent waits for its prerequisite, which follows it to its clusters', async () => {
    await put({ ...CM, metadata: { name: 'pre', namespace: 'default' }, data: { 'a.yaml': cmText('pre', 'dep') } });
    await put({ ...CM, metadata: { name: 'post', namespace: 'default' }, data: { 'a.yaml': cmText('post', 'dep') } });
    // The prerequisite selects no cluster by itself and references a ConfigMap that does not exist yet.
    await put({ ...CP, metadata: { name: 'pre' }, spec: { policyRefs: [{ kind: 'ConfigMap', name: 'pre-missing', namespace: 'default' }] } });
    await put({ ...CP, metadata: { name: 'post' }, spec: { clusterRefs: [{ kind: 'SveltosCluster', apiVersion: 'lib.projectsveltos.io/v1beta1', namespace: 'f1', name: 'f1' }], dependsOn: ['pre'], policyRefs: [{ kind: 'ConfigMap', name: 'post', namespace: 'default' }] } });
    const waiting = await eventually(() => cs('f1', 'post-sveltos-f1'), (o) => /is a dependency and it is not fully deployed yet/.test(String(o?.status?.dependencies)), { message: 'dependent waits' });
    assert.equal(feature(waiting)?.status, 'Provisioning');
    assert.ok(await cs('f1', 'pre-sveltos-f1'), 'the prerequisite follows its dependent to f1');
    assert.equal(await env.clusters.f1.getIfExists({ ...CM, namespace: 'dep', name: 'post' }), undefined);
    await put({ ...CP, metadata: { name: 'pre' }, spec: { policyRefs: [{ kind: 'ConfigMap', name: 'pre', namespace: 'default' }] } });
    await eventually(() => env.clusters.f1.getIfExists({ ...CM, namespace: 'dep', name: 'post' }), Boolean, { message: 'dependent deployed after its prerequisite' });
    assert.equal((await cs('f1', 'post-sveltos-f1'))!.status!.dependencies, 'All dependencies deployed');
  });

  test('the pause annotation stops updates until it is removed; OneTime never updates', async () => {
    await put({ ...CM, metadata: { name: 'pz', namespace: 'default' }, data: { 'a.yaml': cmText('paused', 'cfg', '  v: one\n') } });
    await put({ ...CP, metadata: { name: 'pz' }, spec: { clusterSelector: { matchLabels: { env: 'feat' } }, policyRefs: [{ kind: 'ConfigMap', name: 'pz', namespace: 'default' }] } });
    await eventually(() => env.clusters.f1.getIfExists<Obj>({ ...CM, namespace: 'cfg', name: 'paused' }), (o) => o?.data?.v === 'one');
    await env.mgmt.patch({ ...CP, name: 'pz' }, 'merge', { metadata: { annotations: { 'profile.projectsveltos.io/paused': 'true' } } });
    await eventually(() => env.mgmt.getIfExists<Obj>({ ...CP, name: 'pz' }), (o) => o?.status?.reconciliationSuspended === true, { message: 'profile reports suspension' });
    await put({ ...CM, metadata: { name: 'pz', namespace: 'default' }, data: { 'a.yaml': cmText('paused', 'cfg', '  v: two\n') } });
    await new Promise((r) => setTimeout(r, 300));
    assert.equal((await env.clusters.f1.get<Obj>({ ...CM, namespace: 'cfg', name: 'paused' })).data!.v, 'one');
    await env.mgmt.patch({ ...CP, name: 'pz' }, 'json', [{ op: 'remove', path: '/metadata/annotations/profile.projectsveltos.io~1paused' }]);
    await eventually(() => env.clusters.f1.getIfExists<Obj>({ ...CM, namespace: 'cfg', name: 'paused' }), (o) => o?.data?.v === 'two', { message: 'resumed' });

    await put({ ...CM, metadata: { name: 'once', namespace: 'default' }, data: { 'a.yaml': cmText('once', 'cfg', '  v: one\n') } });
    await put({ ...CP, metadata: { name: 'once' }, spec: { clusterSelector: { matchLabels: { env: 'feat' } }, syncMode: 'OneTime', policyRefs: [{ kind: 'ConfigMap', name: 'once', namespace: 'default' }] } });
    await eventually(() => env.clusters.f1.getIfExists<Obj>({ ...CM, namespace: 'cfg', name: 'once' }), (o) => o?.data?.v === 'one');
    await eventually(() => cs('f1', 'once-sveltos-f1'), (o) => feature(o)?.status === 'Provisioned');
    await put({ ...CM, metadata: { name: 'once', namespace: 'default' }, data: { 'a.yaml': cmText('once', 'cfg', '  v: two\n') } });
    await new Promise((r) => setTimeout(r, 300));
    assert.equal((await env.clusters.f1.get<Obj>({ ...CM, namespace: 'cfg', name: 'once' })).data!.v, 'one');
  });
});
