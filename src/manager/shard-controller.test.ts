// The shard controller: a pure plan (one Deployment per key in use, owned leftovers deleted), and the controller
// against the embedded API server — Deployments appear when a key is first used, follow a re-shard, and go away with
// the last cluster of their key; Deployments it does not own are never touched.
import { strict as assert } from 'node:assert';
import { after, before, describe, test } from 'node:test';
import { generateCrds } from '../api/index.js';
import { registerCluster } from '../clusters/index.js';
import { InformerFactory, KubeClient, type KubeObject } from '../kube/index.js';
import { eventually } from '../../test/support/eventually.js';
import { startTestApiServer, type TestApiServer } from '../../test/support/apiserver.js';
import { SVELTOS_NAMESPACE, ShardController, ShardLabels, ensureNamespace, planShards, shardDeployment, shardKeysInUse } from './index.js';

const SC = { apiVersion: 'lib.projectsveltos.io/v1beta1', kind: 'SveltosCluster' } as const;
const SHARD = 'sharding.projectsveltos.io/key';
const T = { namespace: SVELTOS_NAMESPACE, image: 'ghcr.io/example/ripple:v1', replicas: 3, args: ['--agent-mode', 'collect'] };

const cluster = (name: string, key?: string, deleting = false): KubeObject => ({
  ...SC,
  metadata: { name, namespace: 'ns', ...(key !== undefined ? { annotations: { [SHARD]: key } } : {}), ...(deleting ? { deletionTimestamp: '2026-01-01T00:00:00Z' } : {}) },
});

test('shardKeysInUse: distinct, sorted, non-empty keys of live clusters', () => {
  assert.deepEqual(shardKeysInUse([cluster('a', 'x'), cluster('b', 'x'), cluster('c'), cluster('d', ''), cluster('e', 'w'), cluster('f', 'v', true)]), ['w', 'x']);
});

test('shardDeployment: hardened like the chart\'s managers (non-root, read-only root filesystem, /tmp volume)', () => {
  const spec = (shardDeployment('blue', T) as KubeObject & { spec: { template: { spec: { securityContext: { runAsNonRoot: boolean }; containers: { securityContext: { readOnlyRootFilesystem: boolean }; volumeMounts: { mountPath: string }[] }[] } } } }).spec.template.spec;
  assert.equal(spec.securityContext.runAsNonRoot, true);
  assert.equal(spec.containers[0].securityContext.readOnlyRootFilesystem, true);
  assert.deepEqual(spec.containers[0].volumeMounts.map((m) => m.mountPath), ['/tmp']);
});

test('planShards: apply one Deployment per key, delete owned Deployments of unused keys', () => {
  const d = shardDeployment('blue', T) as KubeObject & { spec: { replicas: number; template: { spec: { containers: { image: string; args: string[] }[] } } } };
  assert.equal(d.metadata.name, 'ripple-manager-shard-blue');
  assert.equal(d.spec.replicas, 3);
  assert.equal(d.spec.template.spec.containers[0].image, T.image);
  assert.deepEqual(d.spec.template.spec.containers[0].args.slice(0, 6), ['manager', '--leader-elect', '--leader-elect-namespace', SVELTOS_NAMESPACE, '--shard-key', 'blue']);
  assert.deepEqual(d.spec.template.spec.containers[0].args.slice(-2), ['--agent-mode', 'collect']);
  const stale = shardDeployment('red', T);
  const plan = planShards(['blue'], [stale, d], T);
  assert.deepEqual(
    plan.map((a) => [a.op, a.key]),
    [
      ['apply', 'blue'],
      ['delete', 'red'],
    ],
  );
});

describe('ShardController', () => {
  let api: TestApiServer;
  let mgmt: KubeClient;
  let informers: InformerFactory;
  let sc: ShardController;
  before(async () => {
    api = await startTestApiServer({ clusters: ['mgmt'] });
    mgmt = new KubeClient(await api.kubeConfig('mgmt'));
    for (const crd of generateCrds()) await mgmt.create(crd as unknown as KubeObject);
    await ensureNamespace(mgmt, SVELTOS_NAMESPACE);
    informers = new InformerFactory(mgmt);
  });
  after(async () => {
    await sc?.stop();
    await informers?.stop();
    mgmt?.close();
    await api?.stop();
  });

  const deployments = async () =>
    (await mgmt.list<KubeObject>({ apiVersion: 'apps/v1', kind: 'Deployment' }, { namespace: SVELTOS_NAMESPACE })).items
      .map((d) => `${d.metadata.name}=${d.metadata.annotations?.[SHARD] ?? '-'}`)
      .sort()
      .join(' ');
  const shard = (name: string, key: string | null) => mgmt.patch({ ...SC, namespace: name, name }, 'merge', { metadata: { annotations: { [SHARD]: key } } });

  test('one manager Deployment per shard key in use, following annotation changes', { timeout: 30_000 }, async () => {
    for (const name of ['c1', 'c2', 'c3']) await registerCluster(mgmt, { namespace: name, name, kubeconfig: api.server.kubeconfigYaml('mgmt') });
    await shard('c1', 'a');
    await shard('c2', 'b');
    // A Deployment the controller does not own (no managed-by label) stays whatever happens.
    await mgmt.create({ apiVersion: 'apps/v1', kind: 'Deployment', metadata: { name: 'unrelated', namespace: SVELTOS_NAMESPACE }, spec: { selector: { matchLabels: { a: 'b' } }, template: { metadata: { labels: { a: 'b' } }, spec: { containers: [{ name: 'x', image: 'x' }] } } } } as KubeObject);

    sc = new ShardController({ informers, template: T });
    await sc.start();
    await eventually(deployments, (d) => d === 'ripple-manager-shard-a=a ripple-manager-shard-b=b unrelated=-', { message: 'a and b' });
    const a = await mgmt.get<KubeObject>({ apiVersion: 'apps/v1', kind: 'Deployment', namespace: SVELTOS_NAMESPACE, name: 'ripple-manager-shard-a' });
    assert.equal(a.metadata.labels?.[ShardLabels.managedBy], 'ripple-shard-controller');

    // A new key on an unannotated cluster; then b's only cluster re-shards to a: b's Deployment goes.
    await shard('c3', 'Team/C');
    await eventually(deployments, (d) => d.includes('=Team/C'), { message: 'a Deployment for Team/C' });
    await shard('c2', 'a');
    await eventually(deployments, (d) => !d.includes('shard-b'), { message: 'b removed once unused' });
    assert.match(await deployments(), /^ripple-manager-shard-a=a ripple-manager-shard-team-c-[0-9a-f]{10}=Team\/C unrelated=-$/);

    // A hand edit of an owned field is put back; the last cluster of a key deleted → its Deployment deleted.
    await mgmt.patch({ apiVersion: 'apps/v1', kind: 'Deployment', namespace: SVELTOS_NAMESPACE, name: 'ripple-manager-shard-a' }, 'merge', { spec: { replicas: 0 } });
    await eventually(() => mgmt.get<KubeObject & { spec: { replicas: number } }>({ apiVersion: 'apps/v1', kind: 'Deployment', namespace: SVELTOS_NAMESPACE, name: 'ripple-manager-shard-a' }), (d) => d.spec.replicas === 3, { message: 'replicas restored' });
    await mgmt.delete({ ...SC, namespace: 'c3', name: 'c3' });
    await eventually(deployments, (d) => d === 'ripple-manager-shard-a=a unrelated=-', { message: 'Team/C removed with its last cluster' });
  });
});
