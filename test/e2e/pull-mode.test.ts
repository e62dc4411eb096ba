// End to end, pull mode: two `ripple apiserver` processes stand in for the management cluster and a managed cluster
// the management side must NOT be able to reach. `ripple manager` gets only the management kubeconfig; the edge
// cluster's SveltosCluster has spec.pullMode and no kubeconfig Secret at all. `ripple agent --pull`, holding the
// edge credentials plus a management credential (outbound), pulls the ConfigurationGroups the manager publishes,
// applies them, withdraws what is removed and reports status back. The test enforces the network rule: nothing in
// the management cluster (no Secret) and nothing given to the manager (its kubeconfig) carries the edge cluster's
// address or token. Through kubectl: status and Events as Sveltos writes them, a broken policy isolated.
import { strict as assert } from 'node:assert';
import { readFileSync, readdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import { runCli } from '../support/run-cli.js';
import { kubectlFor, startRipple, tempDataDir, until, type K8sObject, type RippleUp } from './ripple-up.js';

const PUSHED = `apiVersion: lib.projectsveltos.io/v1beta1
kind: SveltosCluster
metadata:
  name: pushed
  namespace: fleet
`;

const policy = (value: string, withSecond: boolean) => `apiVersion: v1
kind: ConfigMap
metadata:
  name: pulled-policy
  namespace: default
data:
  app.yaml: |
    apiVersion: v1
    kind: ConfigMap
    metadata:
      name: pulled
      namespace: apps
    data:
      value: "${value}"
${
  withSecond
    ? `  second.yaml: |
    apiVersion: v1
    kind: ConfigMap
    metadata:
      name: second
    data:
      x: "1"
`
    : ''
}`;

const PROFILE = `apiVersion: config.projectsveltos.io/v1beta1
kind: ClusterProfile
metadata:
  name: pulled
spec:
  clusterSelector:
    matchLabels:
      env: pulled
  policyRefs:
  - kind: ConfigMap
    name: pulled-policy
    namespace: default
`;

const BROKEN = `apiVersion: v1
kind: ConfigMap
metadata:
  name: broken-policy
  namespace: default
data:
  widget.yaml: |
    apiVersion: example.com/v1
    kind: Widget
    metadata:
      name: w
      namespace: default
---
apiVersion: config.projectsveltos.io/v1beta1
kind: ClusterProfile
metadata:
  name: broken
spec:
  clusterSelector:
    matchLabels:
      env: pulled
  policyRefs:
  - kind: ConfigMap
    name: broken-policy
    namespace: default
`;

let mgmtData: ReturnType<typeof tempDataDir>;
let edgeData: ReturnType<typeof tempDataDir>;
const procs: RippleUp[] = [];
before(() => {
  mgmtData = tempDataDir();
  edgeData = tempDataDir();
});
after(async () => {
  for (const p of procs.reverse()) await p.stop('SIGTERM');
  mgmtData.remove();
  edgeData.remove();
});

type Group = K8sObject & { status?: { status?: string; failureMessage?: string; observedGeneration?: number }; spec?: { action?: string; configurationItem?: unknown[] } };
type Summary = K8sObject & { status?: { featureSummaries?: { featureID: string; status?: string; failureMessage?: string }[] } };

const feature = (s: Summary | undefined) => s?.status?.featureSummaries?.find((f) => f.featureID === 'Resources');

test('pull mode: the agent pulls, applies, withdraws and reports; the manager holds no credential for the cluster', { timeout: 180_000 }, async () => {
  const mgmtServer = startRipple(mgmtData.dir, ['apiserver', '--data-dir', mgmtData.dir, '--cluster', 'mgmt']);
  const edgeServer = startRipple(edgeData.dir, ['apiserver', '--data-dir', edgeData.dir, '--cluster', 'edge']);
  procs.push(mgmtServer, edgeServer);
  await mgmtServer.waitFor(/kubectl --context mgmt get namespaces/);
  await edgeServer.waitFor(/kubectl --context edge get namespaces/);
  const mgmt = kubectlFor(mgmtServer.kubeconfig, mgmtData.dir);
  const edge = kubectlFor(edgeServer.kubeconfig, edgeData.dir);

  // The manager's only credential: the management cluster.
  const managerKubeconfig = join(mgmtData.dir, 'manager.kubeconfig');
  writeFileSync(managerKubeconfig, await mgmt.ok(['config', 'view', '--minify', '--flatten', '--context', 'mgmt']));
  const edgeKubeconfig = await edge.ok(['config', 'view', '--minify', '--flatten', '--context', 'edge']);
  const edgeServerUrl = /server: (\S+)/.exec(edgeKubeconfig)![1]!;
  const edgeToken = /token: (\S+)/.exec(edgeKubeconfig)![1]!;
  assert.ok(!readFileSync(managerKubeconfig, 'utf8').includes(edgeServerUrl), 'the manager kubeconfig does not name the edge cluster');

  const manager = startRipple(mgmtData.dir, ['manager', '--kubeconfig', managerKubeconfig, '--install-crds']);
  procs.push(manager);
  await manager.waitFor(/ripple manager running/, { timeoutMs: 60_000 });
  // Registration for pull mode: a SveltosCluster with spec.pullMode and no kubeconfig Secret.
  const reg = await runCli(['register', 'cluster', '--namespace', 'fleet', '--name', 'edge', '--pull-mode', '--labels', 'env=pulled', '--mgmt-kubeconfig', managerKubeconfig]);
  assert.equal(reg.code, 0, reg.stderr);
  assert.match(reg.stdout, /sveltoscluster\.lib\.projectsveltos\.io\/edge created\n[\s\S]*ripple agent --pull --cluster-namespace fleet --cluster-name edge/);
  await mgmt.applyYaml('mgmt', PUSHED);
  const immutable = await runCli(['register', 'cluster', '--namespace', 'fleet', '--name', 'pushed', '--pull-mode', '--mgmt-kubeconfig', managerKubeconfig]);
  assert.equal(immutable.code, 3);
  assert.match(immutable.stderr, /already registered without pull mode, and spec\.pullMode is immutable/);
  await mgmt.applyYaml('mgmt', policy('one', true));
  await mgmt.applyYaml('mgmt', PROFILE);

  // The agent: edge credentials (its own cluster) + a management credential scoped by RBAC to namespace fleet
  // (ripple agent rbac --pull: ConfigurationGroups/Bundles and its SveltosCluster's status), outbound only.
  const rbac = await runCli(['agent', 'rbac', '--pull', '--cluster-namespace', 'fleet', '--cluster-name', 'edge']);
  assert.equal(rbac.code, 0, rbac.stderr);
  await mgmt.applyYaml('mgmt', rbac.stdout);
  const agentToken = (await mgmt.ok(['--context', 'mgmt', '-n', 'fleet', 'create', 'token', 'ripple-agent-edge', '--duration', '1h'])).trim();
  const agentMgmt = join(edgeData.dir, 'agent-mgmt.kubeconfig');
  writeFileSync(agentMgmt, readFileSync(managerKubeconfig, 'utf8').replace(/token: \S+/, `token: ${agentToken}`));
  const denied = await mgmt.run(['--kubeconfig', agentMgmt, '-n', 'default', 'get', 'configmaps']);
  assert.notEqual(denied.code, 0, 'the agent credential reaches nothing outside its namespace');
  const agentEdge = join(edgeData.dir, 'agent-edge.kubeconfig');
  writeFileSync(agentEdge, edgeKubeconfig);
  const agent = startRipple(edgeData.dir, ['agent', '--pull', '--kubeconfig', agentEdge, '--mgmt-kubeconfig', agentMgmt, '--cluster-namespace', 'fleet', '--cluster-name', 'edge']);
  procs.push(agent);
  await agent.waitFor(/running in pull mode for SveltosCluster fleet\/edge/, { timeoutMs: 30_000 });

  // The agent's heartbeat makes the cluster ready (the management side never probes it).
  const sc = await until('edge ready through the agent', () => mgmt.json<K8sObject>(['--context', 'mgmt', '-n', 'fleet', 'get', 'sveltoscluster', 'edge']), (o) => o.status?.ready === true, 30_000);
  assert.ok(sc.status!.agentLastReportTime, 'agentLastReportTime');
  assert.equal(sc.status!.connectionStatus, 'Healthy');

  // What the manager published: a ConfigurationGroup (labels as libsveltos lib/pullmode) and its bundle.
  const groups = () => mgmt.items<Group>('mgmt', ['-n', 'fleet', 'configurationgroups', '-l', 'pullmode.projectsveltos.io/clustername=edge']);
  const [group] = await until('a ConfigurationGroup for edge', groups, (l) => l.length === 1, 30_000);
  assert.equal(group!.metadata.labels!['pullmode.projectsveltos.io/requestorkind'], 'ClusterSummary');
  assert.equal(group!.metadata.annotations!['pullmode.projectsveltos.io/requestorname'], 'pulled-sveltos-edge');
  assert.equal(group!.spec!.action, 'Deploy');
  const bundles = await mgmt.items<K8sObject & { spec: { resources: string[] } }>('mgmt', ['-n', 'fleet', 'configurationbundles', '-l', 'pullmode.projectsveltos.io/clustername=edge']);
  assert.equal(bundles.length, 1);
  assert.equal(bundles[0]!.spec.resources.length, 2);

  // Applied in edge (namespace created), reported back, ClusterSummary Provisioned.
  const pulled = () => edge.json<K8sObject & { data: Record<string, string> }>(['--context', 'edge', '-n', 'apps', 'get', 'configmap', 'pulled']).catch(() => undefined);
  const cm = await until('apps/pulled in edge', pulled, (o) => o?.data.value === 'one', 30_000);
  assert.equal(cm!.metadata.annotations!['projectsveltos.io/owner-name'], 'pulled', 'Sveltos stamps travel with the object');
  await until('second in edge', () => edge.run(['--context', 'edge', '-n', 'default', 'get', 'configmap', 'second']), (r) => r.code === 0);
  await until('group Provisioned', groups, (l) => l[0]?.status?.status === 'Provisioned', 30_000);
  const summary = () => mgmt.json<Summary>(['--context', 'mgmt', '-n', 'fleet', 'get', 'clustersummary', 'pulled-sveltos-edge']).catch(() => undefined);
  await until('ClusterSummary Provisioned', summary, (s) => feature(s)?.status === 'Provisioned', 30_000);

  // An update: one object changes, one is no longer in the policy (the agent deletes it).
  await mgmt.applyYaml('mgmt', policy('two', false));
  await until('apps/pulled updated', pulled, (o) => o?.data.value === 'two', 30_000);
  await until('second withdrawn', () => edge.run(['--context', 'edge', '-n', 'default', 'get', 'configmap', 'second']), (r) => r.code === 1 && /NotFound/.test(r.stderr));
  await until('ClusterSummary Provisioned again', summary, (s) => feature(s)?.status === 'Provisioned', 30_000);

  // A broken policy (a kind the edge cluster does not serve): its own group fails, visibly; the other is untouched.
  await mgmt.applyYaml('mgmt', BROKEN);
  const brokenSummary = () => mgmt.json<Summary>(['--context', 'mgmt', '-n', 'fleet', 'get', 'clustersummary', 'broken-sveltos-edge']).catch(() => undefined);
  const failed = await until('broken Failed', brokenSummary, (s) => feature(s)?.status === 'Failed', 30_000);
  assert.match(feature(failed)!.failureMessage ?? '', /Widget default\/w/);
  await until(
    'a Warning Event on the ClusterSummary',
    () => mgmt.items<K8sObject & { reason: string; message: string; involvedObject: { name: string } }>('mgmt', ['-n', 'fleet', 'events']),
    (evs) => evs.some((e) => e.involvedObject.name === 'broken-sveltos-edge' && e.reason === 'DeploymentFailed' && /Widget/.test(e.message)),
  );
  assert.equal(feature(await summary())?.status, 'Provisioned', 'the healthy profile is unaffected');
  assert.equal((await pulled())?.data.value, 'two');

  // Withdrawal: the profile goes, the agent removes its objects, the group and the ClusterSummary go.
  await mgmt.ok(['--context', 'mgmt', 'delete', 'clusterprofile', 'pulled', '--wait=false']);
  await until('apps/pulled withdrawn from edge', pulled, (o) => o === undefined, 30_000);
  await until('ClusterSummary gone', summary, (s) => s === undefined, 30_000);
  await until('only the broken group is left', groups, (l) => l.length === 1 && l[0]!.metadata.annotations!['pullmode.projectsveltos.io/requestorname'] === 'broken-sveltos-edge', 30_000);

  // The network rule, enforced: no Secret in the management cluster carries the edge cluster's address or token,
  // the SveltosCluster names no kubeconfig, and the manager was never handed one.
  const secrets = await mgmt.items<K8sObject & { data?: Record<string, string> }>('mgmt', ['secrets', '-A']);
  for (const s of secrets) {
    for (const v of Object.values(s.data ?? {})) {
      const text = Buffer.from(v, 'base64').toString('utf8');
      assert.ok(!text.includes(edgeServerUrl) && !text.includes(edgeToken), `Secret ${s.metadata.namespace}/${s.metadata.name} must not hold edge credentials`);
    }
  }
  assert.equal((await mgmt.json<K8sObject>(['--context', 'mgmt', '-n', 'fleet', 'get', 'sveltoscluster', 'edge'])).spec?.kubeconfigName, undefined);
  for (const f of readdirSync(mgmtData.dir)) {
    if (f.endsWith('kubeconfig')) assert.ok(!readFileSync(join(mgmtData.dir, f), 'utf8').includes(edgeToken), `${f} must not hold the edge token`);
  }
  assert.doesNotMatch(manager.stderr(), new RegExp(edgeServerUrl.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&')), 'the manager never addressed the edge cluster');
});
