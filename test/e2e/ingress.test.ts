// End to end, seeds 003/004 (oneForEvent: false): `ripple up --demo ingress --seed 003` runs the newer revision of
// the page (recovered from flattened text) up to two https Services; kubectl checks the ONE Ingress has a path for
// each, then deletes them one by one: paths go, and the Ingress goes with the last Service.
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

type Ingress = K8sObject & { spec?: { rules?: { http?: { paths?: { path: string; backend: { service: { name: string; port: { number: number } } } }[] } }[] } };
const paths = (i: Ingress | undefined) => (i?.spec?.rules ?? []).flatMap((r) => r.http?.paths ?? []).map((p) => `${p.path}→${p.backend.service.name}:${p.backend.service.port.number}`);

test('ripple up --demo ingress --seed 003: one Ingress over every https Service', { timeout: 90_000 }, async () => {
  up = startRippleUp(data.dir, ['--demo', 'ingress', '--seed', '003']);
  await up.waitFor(/Ripple is running/);
  assert.match(up.stdout(), /the one Ingress routes both Services, as the seed shows/);
  const k = kubectlFor(up.kubeconfig, data.dir);
  const ingress = () => k.run(['--context', 'workload', '-n', 'default', 'get', 'ingress', 'ingress', '-o', 'json']).then((r) => (r.code === 0 ? (JSON.parse(r.stdout) as Ingress) : undefined));

  const both = await ingress();
  assert.deepEqual(paths(both), ['/my-service→my-service:443', '/my-service-2→my-service-2:8443']);
  assert.equal(both?.spec && (both.spec as Record<string, unknown>).ingressClassName, 'http-ingress');
  // oneForEvent false: one generated ClusterProfile for the cluster, not one per Service.
  assert.equal((await k.items('mgmt', ['clusterprofiles', '-l', 'eventtrigger.lib.projectsveltos.io/eventtriggername=ingress-configuration'])).length, 1);

  await k.ok(['--context', 'workload', '-n', 'eng', 'delete', 'service', 'my-service']);
  await until('one path left', ingress, (i) => JSON.stringify(paths(i)) === JSON.stringify(['/my-service-2→my-service-2:8443']));
  // A Service on another port does not count.
  await k.ok(['--context', 'workload', '-n', 'eng', 'create', 'service', 'clusterip', 'plain', '--tcp=80:8080']);
  await k.ok(['--context', 'workload', '-n', 'eng', 'delete', 'service', 'my-service-2']);
  await until('Ingress removed with the last https Service', ingress, (i) => i === undefined);
  assert.equal((await k.items('mgmt', ['clusterprofiles'])).length, 0);
  assert.deepEqual(await up.stop('SIGTERM'), { code: 0, signal: null });
});
