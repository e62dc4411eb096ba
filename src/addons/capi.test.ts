// A Cluster API cluster as a target: a ClusterSummary named `<profile>-capi-<cluster>`, deployment through the
// `<name>-kubeconfig` Secret, and templates seeing `.Cluster` (the CAPI Cluster) and `.KubeadmControlPlane`.
import { strict as assert } from 'node:assert';
import { after, before, describe, test } from 'node:test';
import { eventually } from '../../test/support/eventually.js';
import { KubeClient, type KubeObject } from '../kube/index.js';
import { startAddonTestEnv, type AddonTestEnv } from '../../test/support/addon-env.js';

const crd = (group: string, kind: string, plural: string): KubeObject =>
  ({
    apiVersion: 'apiextensions.k8s.io/v1',
    kind: 'CustomResourceDefinition',
    metadata: { name: `${plural}.${group}` },
    spec: {
      group,
      names: { kind, plural, singular: kind.toLowerCase(), listKind: `${kind}List` },
      scope: 'Namespaced',
      versions: [{ name: 'v1beta1', served: true, storage: true, subresources: { status: {} }, schema: { openAPIV3Schema: { type: 'object', 'x-kubernetes-preserve-unknown-fields': true } } }],
    },
  }) as KubeObject;

describe('Cluster API clusters', () => {
  let env: AddonTestEnv;
  before(async () => {
    env = await startAddonTestEnv({ clusters: [{ name: 'unused', labels: {} }] });
  });
  after(async () => env?.stop());

  test('a CAPI Cluster gets a capi ClusterSummary and its templates see the KubeadmControlPlane', async () => {
    const m = env.mgmt;
    await m.create(crd('cluster.x-k8s.io', 'Cluster', 'clusters'));
    await m.create(crd('controlplane.cluster.x-k8s.io', 'KubeadmControlPlane', 'kubeadmcontrolplanes'));
    await m.create({ apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'capi' } });
    await env.api.cluster('work1');
    await m.create({ apiVersion: 'v1', kind: 'Secret', metadata: { name: 'work1-kubeconfig', namespace: 'capi' }, data: { value: Buffer.from(env.api.server.kubeconfigYaml('work1')).toString('base64') } } as KubeObject);
    await eventually(async () => {
      try {
        await m.create({ apiVersion: 'controlplane.cluster.x-k8s.io/v1beta1', kind: 'KubeadmControlPlane', metadata: { name: 'work1-cp', namespace: 'capi' }, spec: { version: 'v1.30.1', replicas: 3 } } as KubeObject);
        return true;
      } catch {
        return false;
      }
    }, Boolean, { message: 'KubeadmControlPlane kind served' });
    const cluster = await m.create<KubeObject>({
      apiVersion: 'cluster.x-k8s.io/v1beta1',
      kind: 'Cluster',
      metadata: { name: 'work1', namespace: 'capi', labels: { env: 'capi' } },
      spec: { controlPlaneRef: { apiVersion: 'controlplane.cluster.x-k8s.io/v1beta1', kind: 'KubeadmControlPlane', name: 'work1-cp' } },
    } as KubeObject);
    await m.updateStatus({ ...cluster, status: { conditions: [{ type: 'ControlPlaneInitialized', status: 'True', lastTransitionTime: '2026-01-01T00:00:00Z' }] } });
    await m.apply(
      {
        apiVersion: 'v1',
        kind: 'ConfigMap',
        metadata: { name: 'capi-info', namespace: 'default', annotations: { 'projectsveltos.io/template': '' } },
        data: { 'a.yaml': 'apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: info\n  namespace: kube-system\ndata:\n  cluster: {{ .Cluster.metadata.name }}\n  version: {{ .KubeadmControlPlane.spec.version }}\n  replicas: "{{ .KubeadmControlPlane.spec.replicas }}"\n' },
      } as KubeObject,
      { fieldManager: 'test' },
    );
    await m.apply({ apiVersion: 'config.projectsveltos.io/v1beta1', kind: 'ClusterProfile', metadata: { name: 'capi' }, spec: { clusterSelector: { matchLabels: { env: 'capi' } }, policyRefs: [{ kind: 'ConfigMap', name: 'capi-info', namespace: 'default' }] } } as KubeObject, { fieldManager: 'test' });
    const work1 = (env.clusters.work1 = new KubeClient(await env.api.kubeConfig('work1')));
    const o = await eventually(() => work1.getIfExists<KubeObject & { data?: Record<string, string> }>({ apiVersion: 'v1', kind: 'ConfigMap', namespace: 'kube-system', name: 'info' }), Boolean, { message: 'deployed to the CAPI cluster', timeoutMs: 15_000 });
    assert.deepEqual(o!.data, { cluster: 'work1', version: 'v1.30.1', replicas: '3' });
    assert.equal(o!.metadata.annotations!['projectsveltos.io/clustersummary'], 'capi-capi-work1');
    const cs = await m.get<KubeObject & { spec: { clusterType: string } }>({ apiVersion: 'config.projectsveltos.io/v1beta1', kind: 'ClusterSummary', namespace: 'capi', name: 'capi-capi-work1' });
    assert.equal(cs.spec.clusterType, 'Capi');
    assert.equal(cs.metadata.labels!['projectsveltos.io/cluster-type'], 'Capi');
  });
});
