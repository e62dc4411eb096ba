// End to end, production wiring: `ripple apiserver` stands in for real clusters (mgmt and edge), `ripple manager`
// runs the control plane against mgmt's kubeconfig (installing the CRDs and registering mgmt/mgmt itself), `ripple
// register cluster` adds edge; everything else is kubectl — an EventSource, EventTrigger and template ConfigMap in
// mgmt, a labelled Service in edge → its add-on appears in edge and goes away with it.
import { strict as assert } from 'node:assert';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import { runCli } from '../support/run-cli.js';
import { SERVICE_INFO_EVENTS, kubectlFor, startRipple, tempDataDir, until, type RippleUp } from './ripple-up.js';


let data: ReturnType<typeof tempDataDir>;
let server: RippleUp;
let manager: RippleUp;
before(() => {
  data = tempDataDir();
});
after(async () => {
  await manager?.stop('SIGKILL');
  await server?.stop('SIGKILL');
  data.remove();
});

test('ripple manager against API servers it does not own: CRDs, mgmt/mgmt, a registered cluster, event → add-on', { timeout: 90_000 }, async () => {
  server = startRipple(data.dir, ['apiserver', '--data-dir', data.dir, '--cluster', 'mgmt', '--cluster', 'edge']);
  await server.waitFor(/kubectl --context mgmt get namespaces/);
  const k = kubectlFor(server.kubeconfig, data.dir);
  const edgeKubeconfig = join(data.dir, 'edge.kubeconfig');
  writeFileSync(edgeKubeconfig, await k.ok(['config', 'view', '--minify', '--flatten', '--context', 'edge']));

  manager = startRipple(data.dir, ['manager', '--kubeconfig', server.kubeconfig, '--context', 'mgmt', '--install-crds', '--register-management-cluster']);
  await manager.waitFor(/ripple manager: management cluster https:\/\/127\.0\.0\.1:\d+\/clusters\/mgmt/);
  await until('CRDs installed', () => k.run(['--context', 'mgmt', 'get', 'crd', 'eventtriggers.lib.projectsveltos.io']), (r) => r.code === 0);
  const mgmt = await until('mgmt/mgmt registered and ready', () => k.json<{ status?: { ready?: boolean } }>(['--context', 'mgmt', '-n', 'mgmt', 'get', 'sveltoscluster', 'mgmt']), (c) => c.status?.ready === true);
  assert.ok(mgmt);

  const reg = await runCli(['register', 'cluster', '--namespace', 'edge', '--name', 'edge', '--kubeconfig', edgeKubeconfig, '--labels', 'env=fv', '--mgmt-kubeconfig', server.kubeconfig, '--mgmt-context', 'mgmt']);
  assert.equal(reg.code, 0, reg.stderr);
  await k.applyYaml('mgmt', SERVICE_INFO_EVENTS);

  await k.ok(['--context', 'edge', 'create', 'service', 'clusterip', 'web', '--tcp=8080:80']);
  await k.ok(['--context', 'edge', 'label', 'service', 'web', 'sveltos=fv']);
  const info = await until('the add-on in edge', () => k.run(['--context', 'edge', '-n', 'default', 'get', 'configmap', 'web-info', '-o', 'json']), (r) => r.code === 0);
  assert.deepEqual(JSON.parse(info.stdout).data, { port: '8080', cluster: 'edge' });
  const report = await k.json<{ spec: { matchingResources?: { name: string }[] } }>(['--context', 'mgmt', '-n', 'edge', 'get', 'eventreport', 'sveltos--labelled-services--edge']);
  assert.deepEqual(report.spec.matchingResources?.map((r) => r.name), ['web']);

  await k.ok(['--context', 'edge', 'delete', 'service', 'web']);
  await until('the add-on withdrawn', () => k.run(['--context', 'edge', '-n', 'default', 'get', 'configmap', 'web-info']), (r) => r.code === 1);

  assert.deepEqual(await manager.stop('SIGTERM'), { code: 0, signal: null });
  assert.deepEqual(await server.stop('SIGTERM'), { code: 0, signal: null });
});
