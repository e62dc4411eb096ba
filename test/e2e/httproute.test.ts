// End to end, seeds 003/004 (HTTPRoute per Service in namespace eng): `ripple up --demo httproute` installs the
// HTTPRoute CRD into cluster workload and runs the first step; kubectl then creates and deletes Services in eng and
// elsewhere and checks the HTTPRoutes follow — only for eng, only for port 80.
import { strict as assert } from 'node:assert';
import { after, before, test } from 'node:test';
import { runCli } from '../support/run-cli.js';
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

test('ripple up --demo httproute: an HTTPRoute per port-80 Service in namespace eng', { timeout: 90_000 }, async () => {
  up = startRippleUp(data.dir, ['--demo', 'httproute']);
  await up.waitFor(/Ripple is running/);
  const k = kubectlFor(up.kubeconfig, data.dir);
  const routes = async () => (await k.items('workload', ['httproutes.v1beta1.gateway.networking.k8s.io', '-A'])).map((r) => `${r.metadata.namespace}/${r.metadata.name}`).sort();

  // The cluster serves Gateway API HTTPRoute (v1 stored, v1beta1 served) — kubectl discovers it.
  assert.match(await k.ok(['--context', 'workload', 'api-resources', '--api-group', 'gateway.networking.k8s.io']), /httproutes\s+gateway\.networking\.k8s\.io\/v1\s+true\s+HTTPRoute/);
  const route = await k.json<K8sObject>(['--context', 'workload', '-n', 'eng', 'get', 'httproutes.v1beta1.gateway.networking.k8s.io', 'my-service']);
  assert.equal(route.apiVersion, 'gateway.networking.k8s.io/v1beta1');
  assert.deepEqual(route.spec?.parentRefs, [{ group: 'gateway.networking.k8s.io', kind: 'Gateway', name: 'contour', namespace: 'projectcontour' }]);
  assert.deepEqual(route.metadata.labels?.['app.kubernetes.io/name'], 'MyApp');

  await k.ok(['--context', 'workload', '-n', 'eng', 'create', 'service', 'clusterip', 'api', '--tcp=80:8080']);
  await k.ok(['--context', 'workload', '-n', 'eng', 'create', 'service', 'clusterip', 'tls', '--tcp=443:8443']);
  await k.ok(['--context', 'workload', '-n', 'default', 'create', 'service', 'clusterip', 'web', '--tcp=80:8080']);
  await until('HTTPRoute for eng/api', routes, (r) => r.includes('eng/api'));
  assert.deepEqual(await routes(), ['eng/api', 'eng/my-service'], 'only port-80 Services of eng');

  // ripple get reads the same state from the management cluster, like sveltosctl show addons.
  const get = async (...args: string[]) => {
    const r = await runCli(['get', ...args, '--kubeconfig', up.kubeconfig, '--context', 'mgmt']);
    assert.equal(r.code, 0, r.stderr);
    return r.stdout;
  };
  const addons = JSON.parse(await get('addons', '-o', 'json')) as { cluster: string; kind: string; namespace?: string; name: string; profile: string; trigger?: string; status: string }[];
  const routeRows = addons.filter((a) => a.kind.startsWith('HTTPRoute')).map((a) => `${a.cluster} ${a.namespace}/${a.name} ${a.trigger} ${a.status}`);
  const trigger = routeRows[0]?.split(' ')[2];
  assert.match(trigger ?? '', /^EventTrigger\//);
  assert.deepEqual(routeRows.sort(), [`workload/workload eng/api ${trigger} Provisioned`, `workload/workload eng/my-service ${trigger} Provisioned`]);
  assert.match(await get('addons', '--cluster', 'workload/workload'), /HTTPRoute.*\s+eng\s+api\s+ClusterProfile\/sveltos-/);
  assert.match(await get('clusters'), /workload\s+workload\s+true\s/);
  assert.match(await get('eventreports'), /workload\/workload\s+\S+\s+2\s+Processed/);
  assert.match(await get('eventtriggers'), new RegExp(`${trigger!.split('/')[1]}\\s+\\S+\\s+1\\s+1\\s+0\\s+2\\s`));
  assert.equal((await get('profiles')).split('\n').filter((l) => l.includes(trigger!)).length, 2, 'one generated ClusterProfile per Service');

  await k.ok(['--context', 'workload', '-n', 'eng', 'delete', 'service', 'my-service', 'api']);
  await until('HTTPRoutes removed', routes, (r) => r.length === 0);
  assert.deepEqual(await up.stop('SIGTERM'), { code: 0, signal: null });
});
