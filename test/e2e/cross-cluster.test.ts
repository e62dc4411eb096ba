// End to end, seeds 001/002 (cross-cluster service discovery): `ripple up --demo cross-cluster` as a child process;
// kubectl checks that the selector-less Service and Endpoints reached cluster eng with gke's load-balancer address,
// then deletes and re-creates the source Service and checks the eng objects follow.
import { strict as assert } from 'node:assert';
import { after, before, test } from 'node:test';
import { kubectlFor, startRippleUp, tempDataDir, until, type K8sObject, type RippleUp } from './ripple-up.js';

let data: ReturnType<typeof tempDataDir>;
let up: RippleUp;
before(() => {
  data = tempDataDir();
});
after(async () => {
  await up?.stop('SIGKILL');
  data.remove();
});

type Endpoints = K8sObject & { subsets?: { addresses?: { ip: string }[]; ports?: { port: number; protocol?: string }[] }[] };

test('ripple up --demo cross-cluster: Service + Endpoints in eng follow the LoadBalancer Service in gke', { timeout: 90_000 }, async () => {
  up = startRippleUp(data.dir, ['--demo', 'cross-cluster']);
  await up.waitFor(/Ripple is running/);
  const k = kubectlFor(up.kubeconfig, data.dir);
  const get = (ctx: string, args: string[]) => k.run(['--context', ctx, 'get', ...args, '-o', 'json']).then((r) => (r.code === 0 ? (JSON.parse(r.stdout) as K8sObject) : undefined));

  const lb = await k.json<K8sObject>(['--context', 'gke', '-n', 'test', 'get', 'service', 'my-lb-service']);
  const ip = (lb.status?.loadBalancer as { ingress: { ip: string }[] }).ingress[0].ip;
  assert.equal(ip, '34.172.32.172', 'the simulator hands out the seed’s address');
  const ep = (await until('Endpoints in eng', () => get('eng', ['-n', 'external', 'endpoints', 'external-my-lb-service']), Boolean)) as Endpoints;
  assert.deepEqual(ep.subsets, [{ addresses: [{ ip }], ports: [{ port: 60000, protocol: 'TCP' }] }]);
  const svc = await k.json<K8sObject>(['--context', 'eng', '-n', 'external', 'get', 'service', 'external-my-lb-service']);
  assert.equal(svc.spec?.selector, undefined, 'selector-less');
  assert.deepEqual(svc.spec?.ports, [{ port: 60000, protocol: 'TCP', targetPort: 50001 }]);
  // Nothing was deployed to the source cluster itself (destinationClusterSelector: dep=eng).
  assert.equal((await k.run(['--context', 'gke', 'get', 'namespace', 'external'])).code, 1);

  // The event goes away: the eng objects go; it comes back: they come back.
  await k.ok(['--context', 'gke', '-n', 'test', 'delete', 'service', 'my-lb-service']);
  await until('eng objects withdrawn', async () => [await get('eng', ['-n', 'external', 'service', 'external-my-lb-service']), await get('eng', ['-n', 'external', 'endpoints', 'external-my-lb-service'])], (v) => v.every((x) => x === undefined));
  await k.ok(['--context', 'gke', '-n', 'test', 'apply', '--server-side', '-f', `${data.dir}/demos/cross-cluster/03-gke-seed-001-block-3.yaml`]);
  await until('eng Endpoints back', () => get('eng', ['-n', 'external', 'endpoints', 'external-my-lb-service']), (e) => (e as Endpoints | undefined)?.subsets?.[0]?.addresses?.[0]?.ip === ip);
  const profiles = await k.items('mgmt', ['clusterprofiles', '-l', 'eventtrigger.lib.projectsveltos.io/eventtriggername=service-policy']);
  assert.equal(profiles.length, 1);
  assert.deepEqual(await up.stop('SIGTERM'), { code: 0, signal: null });
});
