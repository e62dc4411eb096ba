// End to end, `ripple up --demo health`: with --once the verdict is the exit code and the report lists each outcome;
// exploring, kubectl sees the gate as Sveltos writes it — database Provisioning with the health message and Events,
// storefront's ClusterSummary naming the unhealthy dependency — then the user scales the database with kubectl, the
// workload simulator makes it available and storefront deploys; a profile with bad Lua fails alone (status + Event).
import { strict as assert } from 'node:assert';
import { after, before, test } from 'node:test';
import { kubectlFor, startRippleUp, tempDataDir, until, type K8sObject } from './ripple-up.js';

type Feature = { featureID: string; status?: string; failureMessage?: string; failureReason?: string };
const resources = (o: K8sObject) => ((o.status?.featureSummaries ?? []) as Feature[]).find((f) => f.featureID === 'Resources');

let once: ReturnType<typeof tempDataDir>;
let explore: ReturnType<typeof tempDataDir>;
before(() => {
  once = tempDataDir();
  explore = tempDataDir();
});
after(() => {
  once.remove();
  explore.remove();
});

test('ripple up --demo health --once: the gate holds storefront back until database is healthy', { timeout: 180_000 }, async () => {
  const run = startRippleUp(once.dir, ['--demo', 'health', '--once', '--no-ui']);
  assert.deepEqual(await run.exited, { code: 0, signal: null }, run.stdout() + run.stderr());
  const out = run.stdout();
  assert.match(out, /demo health: PASSED — 2 step\(s\), 8 outcome\(s\) checked in /);
  assert.match(out, /✓\s+\d+(\.\d+)? m?s\s+storefront waits for database, naming the unhealthy dependency/);
  assert.match(out, /✓\s+\d+(\.\d+)? m?s\s+database Provisioned: deployment-health passed/);
  assert.match(out, /✓\s+\d+(\.\d+)? m?s\s+storefront proceeds: Deployment shop\/storefront deployed in cluster-a/);
});

test('exploring with kubectl: status and Events of the gate, scaling up with kubectl, bad Lua isolated', { timeout: 180_000 }, async () => {
  const up = startRippleUp(explore.dir, ['--demo', 'health', '--no-ui']);
  try {
    await up.waitFor(/Ripple is running/, { timeoutMs: 90_000 });
    const k = kubectlFor(up.kubeconfig, explore.dir);
    const cs = (name: string) => k.json<K8sObject>(['--context', 'mgmt', '-n', 'cluster-a', 'get', 'clustersummary', `${name}-sveltos-cluster-a`]);

    const db = await until('database gated', () => cs('database'), (o) => resources(o)?.failureReason === 'HealthCheckPending');
    assert.equal(resources(db)!.status, 'Provisioning');
    assert.equal(resources(db)!.failureMessage, 'validateHealths deployment-health: Deployment shop/db is not healthy: available replicas not matching requested replicas');
    const sf = await cs('storefront');
    assert.match(String(sf.status?.dependencies), /^ClusterProfile database is a dependency and it is not healthy yet: validateHealths deployment-health/);
    assert.equal((await k.run(['--context', 'cluster-a', '-n', 'shop', 'get', 'deployment', 'storefront'])).code, 1, 'storefront not deployed');
    const events = () => k.items('mgmt', ['events', '-n', 'cluster-a', '--field-selector', 'involvedObject.name=database-sveltos-cluster-a']);
    await until('WaitingForHealth Event', events, (es) => es.some((e) => e.reason === 'WaitingForHealth'));

    // The user scales the database through kubectl: the policy ConfigMap in the management cluster.
    const cm = await k.json<K8sObject & { data: Record<string, string> }>(['--context', 'mgmt', '-n', 'default', 'get', 'configmap', 'database']);
    const scaled = { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'database', namespace: 'default' }, data: { 'database.yaml': cm.data['database.yaml'].replace('replicas: 0', 'replicas: 2') } };
    await k.applyYaml('mgmt', JSON.stringify(scaled));
    await until('storefront deployed', () => k.run(['--context', 'cluster-a', '-n', 'shop', 'get', 'deployment', 'storefront']), (r) => r.code === 0, 30_000);
    const ready = await cs('database');
    assert.equal(resources(ready)!.status, 'Provisioned');
    const dbDeploy = await k.json<K8sObject>(['--context', 'cluster-a', '-n', 'shop', 'get', 'deployment', 'db']);
    assert.equal(dbDeploy.status?.availableReplicas, 2);
    await until('storefront Provisioned', () => cs('storefront'), (o) => resources(o)?.status === 'Provisioned' && o.status?.dependencies === 'All dependencies deployed');
    await until('HealthCheckPassed Event', events, (es) => es.some((e) => e.reason === 'HealthCheckPassed'));

    // A profile whose health check is bad Lua fails alone, in status and an Event.
    await k.applyYaml(
      'mgmt',
      `apiVersion: config.projectsveltos.io/v1beta1
kind: ClusterProfile
metadata:
  name: broken-check
spec:
  clusterSelector:
    matchLabels: {env: prod}
  validateHealths:
  - name: broken
    featureID: Resources
    group: apps
    version: v1
    kind: Deployment
    namespace: shop
    script: "function evaluate( return end"
`,
    );
    const broken = await until('bad Lua reported', () => cs('broken-check'), (o) => resources(o)?.failureReason === 'HealthCheckFailed');
    assert.equal(resources(broken)!.status, 'FailedNonRetriable');
    assert.match(resources(broken)!.failureMessage!, /^validateHealths broken: invalid Lua script: /);
    await until('HealthCheckFailed Event', () => k.items('mgmt', ['events', '-n', 'cluster-a', '--field-selector', 'involvedObject.name=broken-check-sveltos-cluster-a']), (es) => es.some((e) => e.reason === 'HealthCheckFailed'));
    assert.equal(resources(await cs('database'))!.status, 'Provisioned', 'the other profiles are unaffected');
  } finally {
    assert.deepEqual(await up.stop('SIGTERM'), { code: 0, signal: null });
  }
});
