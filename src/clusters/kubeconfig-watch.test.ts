// The registry follows kubeconfig Secrets with a metadata-only watch: a cached kubeconfig is used without reading its
// Secret again for as long as the Secret is unchanged (no request per use once kubeconfigTtlMs has passed), and a
// changed or deleted Secret is read again on the next use, however long the TTL.
import { strict as assert } from 'node:assert';
import { after, before, describe, test } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import { generateCrds } from '../api/index.js';
import { InformerFactory, KubeClient, type KubeObject } from '../kube/index.js';
import { eventually } from '../../test/support/eventually.js';
import { startTestApiServer, type TestApiServer } from '../../test/support/apiserver.js';
import { ClusterError, ClusterRegistry, registerCluster } from './index.js';

const SECRET = { apiVersion: 'v1', kind: 'Secret', namespace: 'fleet', name: 'edge-sveltos-kubeconfig' } as const;

describe('kubeconfig Secrets followed by a watch', () => {
  let api: TestApiServer;
  let mgmt: KubeClient;
  let informers: InformerFactory;
  let shortTtl: ClusterRegistry;
  let longTtl: ClusterRegistry;
  const mgmtRequests = async () => (await api.server.requestCounts()).byCluster.mgmt ?? 0;

  before(async () => {
    api = await startTestApiServer({ clusters: ['mgmt', 'edge', 'other'] });
    mgmt = new KubeClient(await api.kubeConfig('mgmt'));
    for (const crd of generateCrds()) await mgmt.create(crd as unknown as KubeObject);
    informers = new InformerFactory(mgmt);
    // A TTL so short that every use would read the Secret again, and one so long that only the watch can tell.
    shortTtl = new ClusterRegistry({ informers, kubeconfigTtlMs: 1 });
    longTtl = new ClusterRegistry({ informers, kubeconfigTtlMs: 3_600_000 });
    for (const r of [shortTtl, longTtl]) {
      r.start();
      await r.waitForSync({ timeoutMs: 10_000 });
    }
    await registerCluster(mgmt, { namespace: 'fleet', name: 'edge', kubeconfig: api.server.kubeconfigYaml('edge'), labels: {} });
    await eventually(() => shortTtl.get('Sveltos:fleet/edge') && longTtl.get('Sveltos:fleet/edge'), Boolean, { message: 'edge registered' });
  });
  after(async () => {
    await shortTtl?.stop();
    await longTtl?.stop();
    await informers?.stop();
    mgmt?.close();
    await api?.stop();
  });

  test('an unchanged Secret is not read again, whatever the TTL', async () => {
    const c = await shortTtl.client('Sveltos:fleet/edge');
    await eventually(() => (shortTtl as unknown as { secretSub?: { informer: { hasSynced(): boolean } } }).secretSub?.informer.hasSynced(), Boolean, { message: 'Secret watch synced' });
    const before = await mgmtRequests();
    for (let i = 0; i < 20; i++) {
      await sleep(3);
      assert.equal(await shortTtl.client('Sveltos:fleet/edge'), c, 'the cached client');
    }
    // requestCounts itself is not a request to mgmt; nothing else in this test talks to it meanwhile.
    assert.equal((await mgmtRequests()) - before, 0, 'no GET of the kubeconfig Secret per use');
  });

  test('a changed Secret is read again on the next use, even with a TTL of an hour; a deleted one fails', async () => {
    const c = await longTtl.client('Sveltos:fleet/edge');
    assert.match(c.server, /\/clusters\/edge$/);
    await mgmt.patch(SECRET, 'merge', { data: { kubeconfig: Buffer.from(api.server.kubeconfigYaml('other')).toString('base64') } });
    const moved = await eventually(() => longTtl.client('Sveltos:fleet/edge'), (x) => /\/clusters\/other$/.test(x.server), { message: 'the new kubeconfig is used' });
    assert.notEqual(moved, c);
    assert.equal(await longTtl.client('Sveltos:fleet/edge'), moved, 'and cached again');
    await mgmt.delete(SECRET);
    await eventually(
      () => longTtl.client('Sveltos:fleet/edge').then(() => 'ok', (e: unknown) => (e instanceof ClusterError ? e.code : String(e))),
      (r) => r === 'NoKubeconfig',
      { message: 'a deleted Secret is noticed' },
    );
  });
});
