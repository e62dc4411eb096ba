// End to end, agent mode "collect" with --deploy-agent: `ripple manager` installs `ripple agent` into the managed
// cluster it copies EventSources to (ServiceAccount, ClusterRole, ClusterRoleBinding, Deployment in projectsveltos),
// as Sveltos installs sveltos-agent. No kubelet runs images here, so the test then does what the kubelet would: it
// starts `ripple agent` with exactly the Deployment's arguments against the edge cluster — a labelled Service there
// then produces the EventReport the manager collects and the add-on it deploys.
import { strict as assert } from 'node:assert';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import { runCli } from '../support/run-cli.js';
import { SERVICE_INFO_EVENTS, kubectlFor, startRipple, tempDataDir, until, type RippleUp } from './ripple-up.js';

const IMAGE = 'registry.example/ripple:e2e';

let data: ReturnType<typeof tempDataDir>;
let server: RippleUp;
let manager: RippleUp;
let agent: RippleUp;
before(() => {
  data = tempDataDir();
});
after(async () => {
  await agent?.stop('SIGKILL');
  await manager?.stop('SIGKILL');
  await server?.stop('SIGKILL');
  data.remove();
});

interface AgentDeployment {
  spec: { template: { spec: { serviceAccountName: string; containers: { image: string; args: string[]; securityContext: { readOnlyRootFilesystem: boolean } }[] } } };
}

test('ripple manager --agent-mode collect --deploy-agent installs a working agent into the managed cluster', { timeout: 120_000 }, async () => {
  const bad = await runCli(['manager', '--deploy-agent', '--agent-image', IMAGE]);
  assert.equal(bad.code, 2);
  assert.match(bad.stderr, /--deploy-agent needs --agent-mode collect/);

  server = startRipple(data.dir, ['apiserver', '--data-dir', data.dir, '--cluster', 'mgmt', '--cluster', 'edge']);
  await server.waitFor(/kubectl --context mgmt get namespaces/);
  const k = kubectlFor(server.kubeconfig, data.dir);
  const edgeKubeconfig = join(data.dir, 'edge.kubeconfig');
  writeFileSync(edgeKubeconfig, await k.ok(['config', 'view', '--minify', '--flatten', '--context', 'edge']));

  manager = startRipple(data.dir, ['manager', '--kubeconfig', server.kubeconfig, '--context', 'mgmt', '--install-crds', '--agent-mode', 'collect', '--deploy-agent', '--agent-image', IMAGE]);
  await manager.waitFor(/ripple manager running \(agent mode collect/);
  const reg = await runCli(['register', 'cluster', '--namespace', 'edge', '--name', 'edge', '--kubeconfig', edgeKubeconfig, '--labels', 'env=fv', '--mgmt-kubeconfig', server.kubeconfig, '--mgmt-context', 'mgmt']);
  assert.equal(reg.code, 0, reg.stderr);
  await k.applyYaml('mgmt', SERVICE_INFO_EVENTS);

  // The agent's objects in edge.
  const dep = await until('the agent Deployment in edge', () => k.run(['--context', 'edge', '-n', 'projectsveltos', 'get', 'deployment', 'ripple-agent', '-o', 'json']), (r) => r.code === 0);
  const pod = (JSON.parse(dep.stdout) as AgentDeployment).spec.template.spec;
  assert.equal(pod.serviceAccountName, 'ripple-agent');
  assert.equal(pod.containers[0].image, IMAGE);
  assert.equal(pod.containers[0].securityContext.readOnlyRootFilesystem, true);
  assert.deepEqual(pod.containers[0].args, ['agent', '--cluster-namespace', 'edge', '--cluster-name', 'edge', '--cluster-type', 'Sveltos', '--run-mode', 'do-not-send-reports']);
  for (const what of [['-n', 'projectsveltos', 'get', 'serviceaccount', 'ripple-agent'], ['get', 'clusterrole', 'ripple-agent'], ['get', 'clusterrolebinding', 'ripple-agent']]) {
    await k.ok(['--context', 'edge', ...what]);
  }
  const role = await k.json<{ rules: { apiGroups: string[]; resources: string[]; verbs: string[] }[] }>(['--context', 'edge', 'get', 'clusterrole', 'ripple-agent']);
  assert.ok(role.rules.some((r) => r.resources.includes('eventreports') && r.verbs.includes('create')));
  assert.ok(role.rules.filter((r) => r.resources.includes('*')).every((r) => r.verbs.every((v) => ['get', 'list', 'watch'].includes(v))), 'read-only on everything else');
  await until('the EventSource copied into edge', () => k.run(['--context', 'edge', 'get', 'eventsource', 'labelled-services']), (r) => r.code === 0);

  // What the kubelet would run: the Deployment's container, its in-cluster credential being edge's kubeconfig.
  agent = startRipple(data.dir, [...pod.containers[0].args, '--kubeconfig', edgeKubeconfig]);
  await k.ok(['--context', 'edge', 'create', 'service', 'clusterip', 'web', '--tcp=8080:80']);
  await k.ok(['--context', 'edge', 'label', 'service', 'web', 'sveltos=fv']);
  await until('the agent report in edge', () => k.run(['--context', 'edge', '-n', 'projectsveltos', 'get', 'eventreport', 'labelled-services']), (r) => r.code === 0);
  const info = await until('the add-on in edge, from the collected report', () => k.run(['--context', 'edge', '-n', 'default', 'get', 'configmap', 'web-info', '-o', 'json']), (r) => r.code === 0);
  assert.deepEqual(JSON.parse(info.stdout).data, { port: '8080', cluster: 'edge' });

  assert.deepEqual(await agent.stop('SIGTERM'), { code: 0, signal: null });
  assert.deepEqual(await manager.stop('SIGTERM'), { code: 0, signal: null });
  assert.deepEqual(await server.stop('SIGTERM'), { code: 0, signal: null });
});
