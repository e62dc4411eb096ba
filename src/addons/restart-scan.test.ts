// A deployer started afresh (no memory of earlier passes) still finds what a ClusterSummary deployed before: the kinds
// recorded in status.deployedGVKs are listed in the cluster, and an object that left the policy while the deployer
// was down is deleted. A brand-new ClusterSummary has no recorded kinds and lists nothing; this pins that skipping
// that scan loses nothing once it has deployed.
import { strict as assert } from 'node:assert';
import { after, before, describe, test } from 'node:test';
import { eventually } from '../../test/support/eventually.js';
import type { KubeObject } from '../kube/index.js';
import { startAddonTestEnv, type AddonTestEnv } from '../../test/support/addon-env.js';
import { startAddonDeployer, type AddonDeployer } from './index.js';

const CP = { apiVersion: 'config.projectsveltos.io/v1beta1', kind: 'ClusterProfile' } as const;
const CS = { apiVersion: 'config.projectsveltos.io/v1beta1', kind: 'ClusterSummary' } as const;
const CM = { apiVersion: 'v1', kind: 'ConfigMap' } as const;
const SA = { apiVersion: 'v1', kind: 'ServiceAccount' } as const;

type Obj = KubeObject & { status?: { featureSummaries?: { status?: string }[] } };

describe('deployer restart: stale objects found through deployedGVKs', () => {
  let env: AddonTestEnv;
  let second: AddonDeployer | undefined;
  before(async () => {
    env = await startAddonTestEnv({ clusters: [{ name: 'edge1', labels: { env: 'prod' } }] });
  });
  after(async () => {
    await second?.stop();
    await env?.stop();
  });

  test('an object removed from the policy while the deployer was stopped is deleted by the next deployer', async () => {
    await env.mgmt.create({
      ...CM,
      metadata: { name: 'apps', namespace: 'default' },
      data: {
        'cm.yaml': 'apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: app-config\n  namespace: apps\ndata:\n  k: v\n',
        'sa.yaml': 'apiVersion: v1\nkind: ServiceAccount\nmetadata:\n  name: app\n  namespace: apps\n',
      },
    } as KubeObject);
    await env.mgmt.create({ ...CP, metadata: { name: 'apps' }, spec: { clusterSelector: { matchLabels: { env: 'prod' } }, policyRefs: [{ kind: 'ConfigMap', name: 'apps', namespace: 'default' }] } } as KubeObject);
    await eventually(() => env.mgmt.getIfExists<Obj>({ ...CS, namespace: 'edge1', name: 'apps-sveltos-edge1' }), (o) => o?.status?.featureSummaries?.[0]?.status === 'Provisioned', {
      message: 'ClusterSummary Provisioned',
    });
    assert.ok(await env.clusters.edge1.getIfExists({ ...SA, namespace: 'apps', name: 'app' }));

    await env.deployer.stop();
    await env.mgmt.patch({ ...CM, namespace: 'default', name: 'apps' }, 'merge', { data: { 'sa.yaml': null, 'cm.yaml': 'apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: app-config\n  namespace: apps\ndata:\n  k: v2\n' } });
    second = await startAddonDeployer({ informers: env.informers, registry: env.registry, recorder: env.recorder, metrics: env.metrics, coalesceMs: 5 });

    await eventually(() => env.clusters.edge1.getIfExists<KubeObject & { data?: Record<string, string> }>({ ...CM, namespace: 'apps', name: 'app-config' }), (o) => o?.data?.k === 'v2', {
      message: 'updated by the new deployer',
    });
    await eventually(() => env.clusters.edge1.getIfExists({ ...SA, namespace: 'apps', name: 'app' }), (o) => o === undefined, { message: 'stale ServiceAccount deleted after the restart' });
  });
});
