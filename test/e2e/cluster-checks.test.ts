// End to end on `ripple up`, through kubectl: a SveltosCluster with readinessChecks stays not ready (status and a
// ReadinessCheckFailed Event) until the Lua check over its resources passes, and only then gets its add-on; a
// cluster outside its activeWindow is paused (spec.paused, status.nextUnpause, ClusterPaused Event) and gets no
// add-on until the window is moved around it; a broken check is reported on its own cluster only.
import { strict as assert } from 'node:assert';
import { after, before, test } from 'node:test';
import { kubectlFor, startRippleUp, tempDataDir, until, type K8sObject, type Kubectl, type RippleUp } from './ripple-up.js';

let data: ReturnType<typeof tempDataDir>;
let up: RippleUp;
let k: Kubectl;

before(async () => {
  data = tempDataDir();
  up = startRippleUp(data.dir, ['--cluster', 'e1', '--cluster', 'e2']);
  await up.waitFor(/Ripple is running/, { timeoutMs: 90_000 });
  k = kubectlFor(up.kubeconfig, data.dir);
});
after(async () => {
  await up?.stop('SIGTERM');
  data.remove();
});

const sc = (ns: string, name: string) => k.json<K8sObject>(['--context', 'mgmt', '-n', ns, 'get', 'sveltoscluster', name]);
const events = (ns: string) => k.items<K8sObject & { reason: string; message: string; involvedObject: { name: string } }>('mgmt', ['-n', ns, 'events']);
const configMap = (ctx: string, name: string) => k.run(['--context', ctx, '-n', 'default', 'get', 'configmap', name]);

const addon = (name: string, env: string) => `apiVersion: v1
kind: ConfigMap
metadata:
  name: ${name}-policy
  namespace: default
data:
  cm.yaml: |
    apiVersion: v1
    kind: ConfigMap
    metadata:
      name: ${name}
      namespace: default
    data:
      from: ripple
---
apiVersion: config.projectsveltos.io/v1beta1
kind: ClusterProfile
metadata:
  name: ${name}
spec:
  clusterSelector:
    matchLabels:
      env: ${env}
  policyRefs:
  - kind: ConfigMap
    name: ${name}-policy
    namespace: default
`;

test('readinessChecks gate readiness and deployment; a broken check is isolated', { timeout: 120_000 }, async () => {
  // A second SveltosCluster for cluster e2 (its kubeconfig Secret reused), gated on a CNI ConfigMap.
  await k.applyYaml(
    'mgmt',
    `apiVersion: lib.projectsveltos.io/v1beta1
kind: SveltosCluster
metadata:
  name: gated
  namespace: e2
  labels:
    env: checks
spec:
  kubeconfigName: e2-sveltos-kubeconfig
  readinessChecks:
  - name: cni-running
    resourceSelectors:
    - group: ""
      version: v1
      kind: ConfigMap
      namespace: kube-system
      name: cni
    condition: |
      function evaluate()
        local ok = #resources == 1 and resources[1].data.phase == "Running"
        return {pass = ok, message = ok and "" or "CNI not running yet"}
      end
---
apiVersion: lib.projectsveltos.io/v1beta1
kind: SveltosCluster
metadata:
  name: broken
  namespace: e2
spec:
  kubeconfigName: e2-sveltos-kubeconfig
  readinessChecks:
  - name: typo
    resourceSelectors: []
    condition: "function evaluate() return {pass = } end"
`,
  );
  await k.applyYaml('mgmt', addon('gated-addon', 'checks'));
  const waiting = await until('gated reports its readiness check', () => sc('e2', 'gated'), (o) => /readiness check cni-running did not pass: CNI not running yet/.test(String(o.status?.failureMessage ?? '')), 30_000);
  assert.notEqual(waiting.status?.ready, true);
  await until('ReadinessCheckFailed Event', () => events('e2'), (evs) => evs.some((e) => e.involvedObject.name === 'gated' && e.reason === 'ReadinessCheckFailed'));
  await until('broken reports its Lua error', () => sc('e2', 'broken'), (o) => /readiness check typo failed: condition: /.test(String(o.status?.failureMessage ?? '')), 30_000);
  assert.equal((await configMap('e2', 'gated-addon')).code, 1, 'no add-on for a cluster that is not ready');

  await k.ok(['--context', 'e2', '-n', 'kube-system', 'create', 'configmap', 'cni', '--from-literal=phase=Running']);
  await until('gated ready', () => sc('e2', 'gated'), (o) => o.status?.ready === true, 60_000);
  await until('the add-on lands once ready', () => configMap('e2', 'gated-addon'), (r) => r.code === 0, 60_000);
  assert.notEqual((await sc('e2', 'broken')).status?.ready, true, 'the broken one stays not ready');
  assert.equal((await sc('e2', 'e2')).status?.ready, true, 'e2 itself is unaffected');
});

test('activeWindow pauses a cluster outside its window and resumes it inside', { timeout: 120_000 }, async () => {
  await k.ok(['--context', 'mgmt', '-n', 'e1', 'label', 'sveltoscluster', 'e1', 'env=window']);
  // Outside: the next `from` (Dec 31 23:59) comes before the next `to` (Jan 1 00:00 of the following year).
  await k.ok(['--context', 'mgmt', '-n', 'e1', 'patch', 'sveltoscluster', 'e1', '--type', 'merge', '-p', JSON.stringify({ spec: { activeWindow: { from: '59 23 31 12 *', to: '0 0 1 1 *' } } })]);
  const paused = await until('e1 paused', () => sc('e1', 'e1'), (o) => o.spec?.paused === true && !!o.status?.nextUnpause, 30_000);
  assert.match(String(paused.status!.nextUnpause), /-12-31T23:59:00Z$/);
  await until('ClusterPaused Event', () => events('e1'), (evs) => evs.some((e) => e.involvedObject.name === 'e1' && e.reason === 'ClusterPaused'));
  await k.applyYaml('mgmt', addon('windowed', 'window'));
  await until('the ClusterSummary exists (pausing is not unselecting)', () => k.run(['--context', 'mgmt', '-n', 'e1', 'get', 'clustersummary', 'windowed-sveltos-e1']), (r) => r.code === 0);
  assert.equal((await configMap('e1', 'windowed')).code, 1, 'nothing is deployed to a paused cluster');

  // Inside: the next `to` (Dec 31 23:59) comes before the next `from` (Jan 1).
  await k.ok(['--context', 'mgmt', '-n', 'e1', 'patch', 'sveltoscluster', 'e1', '--type', 'merge', '-p', JSON.stringify({ spec: { activeWindow: { from: '0 0 1 1 *', to: '59 23 31 12 *' } } })]);
  const resumed = await until('e1 un-paused', () => sc('e1', 'e1'), (o) => o.spec?.paused === false, 30_000);
  assert.match(String(resumed.status!.nextPause), /-12-31T23:59:00Z$/);
  await until('the add-on lands once un-paused', () => configMap('e1', 'windowed'), (r) => r.code === 0, 60_000);

  // A schedule that does not parse is refused visibly; spec.paused is left alone.
  await k.ok(['--context', 'mgmt', '-n', 'e1', 'patch', 'sveltoscluster', 'e1', '--type', 'merge', '-p', JSON.stringify({ spec: { activeWindow: { from: 'at nine', to: '0 17 * * *' } } })]);
  const bad = await until('bad cron reported', () => sc('e1', 'e1'), (o) => /spec\.activeWindow\.from "at nine"/.test(String(o.status?.failureMessage ?? '')), 30_000);
  assert.equal(bad.spec?.paused, false);
  await until('InvalidActiveWindow Event', () => events('e1'), (evs) => evs.some((e) => e.involvedObject.name === 'e1' && e.reason === 'InvalidActiveWindow'));
});
