// validateHealths gating and dependsOn against the embedded API server: a feature stays Provisioning (with the
// check's message) until its Lua/CEL checks pass in the managed cluster, re-evaluated when the watched objects
// change; a dependent profile waits, naming the dependency that is not healthy; bad Lua fails only its own profile
// (status + Event); with the workload simulator a Deployment gated on availableReplicas becomes Provisioned.
import { strict as assert } from 'node:assert';
import { after, before, describe, test } from 'node:test';
import { eventually } from '../../test/support/eventually.js';
import type { KubeObject } from '../kube/index.js';
import { startAddonTestEnv, type AddonTestEnv } from '../../test/support/addon-env.js';
import { serveChartRepo } from '../charts/index.js';
import { DEMOS, demoCharts } from '../demos/index.js';

const CP = { apiVersion: 'config.projectsveltos.io/v1beta1', kind: 'ClusterProfile' } as const;
const CS = { apiVersion: 'config.projectsveltos.io/v1beta1', kind: 'ClusterSummary' } as const;
const CM = { apiVersion: 'v1', kind: 'ConfigMap' } as const;

type Obj = KubeObject & { data?: Record<string, string>; status?: Record<string, unknown>; reason?: string; message?: string };
type Feature = { featureID: string; status?: string; failureMessage?: string; failureReason?: string };
const feature = (o: Obj | undefined, id = 'Resources') => ((o?.status?.featureSummaries ?? []) as Feature[]).find((f) => f.featureID === id);

const PHASE_LUA = `function evaluate()
  local hs = {healthy = false, message = "phase is " .. tostring(obj.data.phase)}
  if obj.data.phase == "Ready" then hs.healthy = true end
  return hs
end`;

describe('validateHealths and dependsOn', () => {
  let env: AddonTestEnv;
  before(async () => {
    env = await startAddonTestEnv({ clusters: [{ name: 'h1', labels: { env: 'health' } }], simulators: ['workloads'] });
  });
  after(async () => env?.stop());

  const put = (o: object) => env.mgmt.apply(o as KubeObject, { fieldManager: 'test', force: true });
  const cs = (name: string) => env.mgmt.getIfExists<Obj>({ ...CS, namespace: 'h1', name });
  const events = async (name: string) => {
    await env.recorder.flush();
    return (await env.mgmt.list<Obj & { involvedObject: { name: string } }>({ apiVersion: 'v1', kind: 'Event' }, { namespace: 'h1' })).items.filter((e) => e.involvedObject.name === name);
  };

  test('a feature is Provisioning until its Lua check passes; the dependent waits, then deploys', async () => {
    await put({ ...CM, metadata: { name: 'db', namespace: 'default' }, data: { 'db.yaml': 'apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: db-state\n  namespace: hg\n  labels: {app: db}\ndata:\n  phase: Starting\n' } });
    await put({ ...CM, metadata: { name: 'app', namespace: 'default' }, data: { 'app.yaml': 'apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: app\n  namespace: hg\ndata:\n  x: "1"\n' } });
    await put({
      ...CP,
      metadata: { name: 'db' },
      spec: {
        clusterSelector: { matchLabels: { env: 'health' } },
        policyRefs: [{ kind: 'ConfigMap', name: 'db', namespace: 'default' }],
        validateHealths: [{ name: 'db-ready', featureID: 'Resources', group: '', version: 'v1', kind: 'ConfigMap', namespace: 'hg', labelFilters: [{ key: 'app', operation: 'Equal', value: 'db' }], script: PHASE_LUA }],
      },
    });
    await put({ ...CP, metadata: { name: 'app' }, spec: { clusterSelector: { matchLabels: { env: 'health' } }, dependsOn: ['db'], policyRefs: [{ kind: 'ConfigMap', name: 'app', namespace: 'default' }] } });

    const waiting = await eventually(() => cs('db-sveltos-h1'), (o) => feature(o)?.failureReason === 'HealthCheckPending', { message: 'db waits for its health check' });
    assert.equal(feature(waiting)!.status, 'Provisioning');
    assert.equal(feature(waiting)!.failureMessage, 'validateHealths db-ready: ConfigMap hg/db-state is not healthy: phase is Starting');
    assert.ok(await env.clusters.h1.getIfExists({ ...CM, namespace: 'hg', name: 'db-state' }), 'deployed before the gate');
    const dep = await eventually(() => cs('app-sveltos-h1'), (o) => typeof o?.status?.dependencies === 'string' && (o.status.dependencies as string).includes('not healthy yet'), { message: 'app names the unhealthy dependency' });
    assert.equal(dep!.status!.dependencies, 'ClusterProfile db is a dependency and it is not healthy yet: validateHealths db-ready: ConfigMap hg/db-state is not healthy: phase is Starting');
    assert.equal(await env.clusters.h1.getIfExists({ ...CM, namespace: 'hg', name: 'app' }), undefined, 'the dependent has deployed nothing');
    assert.ok((await events('db-sveltos-h1')).some((e) => e.reason === 'WaitingForHealth'));

    // The object becomes healthy in the managed cluster: the watch re-evaluates, db is Provisioned, app proceeds.
    await env.clusters.h1.patch({ ...CM, namespace: 'hg', name: 'db-state' }, 'merge', { data: { phase: 'Ready' } });
    const ok = await eventually(() => cs('db-sveltos-h1'), (o) => feature(o)?.status === 'Provisioned', { message: 'db Provisioned once healthy' });
    assert.equal(feature(ok)!.failureMessage, undefined);
    await eventually(() => env.clusters.h1.getIfExists({ ...CM, namespace: 'hg', name: 'app' }), Boolean, { message: 'the dependent deploys' });
    const app = await eventually(() => cs('app-sveltos-h1'), (o) => feature(o)?.status === 'Provisioned', { message: 'app Provisioned' });
    assert.equal(app!.status!.dependencies, 'All dependencies deployed');
    assert.ok((await events('db-sveltos-h1')).some((e) => e.reason === 'HealthCheckPassed'));
  });

  test('preDeployChecks hold the deployment back until they pass (watch-driven), then it deploys', async () => {
    await env.clusters.h1.apply({ ...CM, metadata: { name: 'gate', namespace: 'default', labels: { gate: 'deploy' } }, data: { open: 'no' } } as KubeObject, { fieldManager: 'test', force: true });
    await put({ ...CM, metadata: { name: 'after-gate', namespace: 'default' }, data: { 'a.yaml': 'apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: after-gate\n  namespace: hp\ndata:\n  x: "1"\n' } });
    const open = 'function evaluate() return {healthy = obj.data.open == "yes", message = "gate is " .. obj.data.open} end';
    await put({
      ...CP,
      metadata: { name: 'pre' },
      spec: {
        clusterSelector: { matchLabels: { env: 'health' } },
        policyRefs: [{ kind: 'ConfigMap', name: 'after-gate', namespace: 'default' }],
        preDeployChecks: [{ name: 'gate-open', featureID: 'Resources', group: '', version: 'v1', kind: 'ConfigMap', namespace: 'default', labelFilters: [{ key: 'gate', operation: 'Equal', value: 'deploy' }], script: open }],
      },
    });
    const w = await eventually(() => cs('pre-sveltos-h1'), (o) => feature(o)?.failureReason === 'PreDeployCheckPending', { message: 'pre-deploy check blocks' });
    assert.equal(feature(w)!.status, 'Provisioning');
    assert.equal(feature(w)!.failureMessage, 'preDeployChecks gate-open: ConfigMap default/gate is not healthy: gate is no');
    assert.equal(await env.clusters.h1.getIfExists({ ...CM, namespace: 'hp', name: 'after-gate' }), undefined, 'nothing deployed before the check passes');
    assert.ok((await events('pre-sveltos-h1')).some((e) => e.reason === 'WaitingForPreDeployChecks'));
    await env.clusters.h1.patch({ ...CM, namespace: 'default', name: 'gate' }, 'merge', { data: { open: 'yes' } });
    await eventually(() => env.clusters.h1.getIfExists({ ...CM, namespace: 'hp', name: 'after-gate' }), Boolean, { message: 'deployed once the gate opens' });
    await eventually(() => cs('pre-sveltos-h1'), (o) => feature(o)?.status === 'Provisioned', { message: 'Provisioned' });
  });

  test('preDeleteChecks hold the removal back; postDeleteChecks keep the ClusterSummary until the cluster is clean', async () => {
    const h1 = env.clusters.h1;
    await h1.apply({ ...CM, metadata: { name: 'del-gate', namespace: 'default', labels: { gate: 'delete' } }, data: { allow: 'no' } } as KubeObject, { fieldManager: 'test', force: true });
    await put({ ...CM, metadata: { name: 'del', namespace: 'default' }, data: { 'a.yaml': 'apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: deployed\n  namespace: hd\ndata:\n  x: "1"\n' } });
    const allow = 'function evaluate() return {healthy = obj.data.allow == "yes", message = "deletion not allowed yet"} end';
    const clean = 'function evaluate() return {healthy = false, message = "leftover still present"} end';
    await put({
      ...CP,
      metadata: { name: 'del' },
      spec: {
        clusterSelector: { matchLabels: { env: 'health' } },
        policyRefs: [{ kind: 'ConfigMap', name: 'del', namespace: 'default' }],
        preDeleteChecks: [{ name: 'allowed', featureID: 'Resources', group: '', version: 'v1', kind: 'ConfigMap', namespace: 'default', labelFilters: [{ key: 'gate', operation: 'Equal', value: 'delete' }], script: allow }],
        postDeleteChecks: [{ name: 'no-leftovers', featureID: 'Resources', group: '', version: 'v1', kind: 'ConfigMap', namespace: 'hd', labelFilters: [{ key: 'leftover', operation: 'Has' }], script: clean }],
      },
    });
    await eventually(() => cs('del-sveltos-h1'), (o) => feature(o)?.status === 'Provisioned', { message: 'deployed' });
    await h1.apply({ ...CM, metadata: { name: 'leftover', namespace: 'hd', labels: { leftover: 'true' } }, data: {} } as KubeObject, { fieldManager: 'test', force: true });
    await env.mgmt.delete({ ...CP, name: 'del' });
    const blocked = await eventually(() => cs('del-sveltos-h1'), (o) => typeof o?.status?.failureMessage === 'string' && (o.status.failureMessage as string).startsWith('preDeleteChecks'), { message: 'pre-delete check blocks' });
    assert.equal(blocked!.status!.failureMessage, 'preDeleteChecks allowed: ConfigMap default/del-gate is not healthy: deletion not allowed yet; nothing is removed until it passes');
    assert.ok(await h1.getIfExists({ ...CM, namespace: 'hd', name: 'deployed' }), 'nothing removed yet');
    await h1.patch({ ...CM, namespace: 'default', name: 'del-gate' }, 'merge', { data: { allow: 'yes' } });
    await eventually(() => h1.getIfExists({ ...CM, namespace: 'hd', name: 'deployed' }), (o) => o === undefined, { message: 'removed once allowed' });
    const post = await eventually(() => cs('del-sveltos-h1'), (o) => typeof o?.status?.failureMessage === 'string' && (o.status.failureMessage as string).startsWith('postDeleteChecks'), { message: 'post-delete check keeps it' });
    assert.match(post!.status!.failureMessage as string, /no-leftovers: ConfigMap hd\/leftover is not healthy: leftover still present; the ClusterSummary is kept until it passes/);
    await h1.delete({ ...CM, namespace: 'hd', name: 'leftover' });
    await eventually(() => cs('del-sveltos-h1'), (o) => o === undefined, { message: 'ClusterSummary gone once clean' });
    assert.ok((await events('del-sveltos-h1')).some((e) => e.reason === 'WaitingForPreDeleteChecks'));
  });

  test('bad Lua and a bad CEL rule fail their own profile in status and Events; others are unaffected', async () => {
    await put({ ...CM, metadata: { name: 'plain', namespace: 'default' }, data: { 'a.yaml': 'apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: plain\n  namespace: hb\ndata:\n  x: "1"\n' } });
    const check = (extra: object) => [{ name: 'broken', featureID: 'Resources', group: '', version: 'v1', kind: 'ConfigMap', namespace: 'hb', ...extra }];
    await put({ ...CP, metadata: { name: 'badlua' }, spec: { clusterSelector: { matchLabels: { env: 'health' } }, policyRefs: [{ kind: 'ConfigMap', name: 'plain', namespace: 'default' }], validateHealths: check({ script: 'function evaluate( return {} end' }) } });
    await put({ ...CP, metadata: { name: 'badcel' }, spec: { clusterSelector: { matchLabels: { env: 'health' } }, policyRefs: [], validateHealths: check({ evaluateCEL: [{ name: 'r', rule: 'resource.(' }] }) } });
    await put({ ...CP, metadata: { name: 'fine' }, spec: { clusterSelector: { matchLabels: { env: 'health' } }, policyRefs: [], validateHealths: check({ evaluateCEL: [{ name: 'r', rule: 'true' }] }) } });
    const bad = await eventually(() => cs('badlua-sveltos-h1'), (o) => feature(o)?.failureReason === 'HealthCheckFailed', { message: 'bad Lua reported' });
    assert.equal(feature(bad)!.status, 'FailedNonRetriable');
    assert.match(feature(bad)!.failureMessage!, /^validateHealths broken: invalid Lua script: .*/);
    const cel = await eventually(() => cs('badcel-sveltos-h1'), (o) => feature(o)?.failureReason === 'HealthCheckFailed', { message: 'bad CEL reported' });
    assert.match(feature(cel)!.failureMessage!, /evaluateCEL rule r/);
    await eventually(() => cs('fine-sveltos-h1'), (o) => feature(o)?.status === 'Provisioned', { message: 'a valid profile on the same cluster is Provisioned' });
    const ev = await events('badlua-sveltos-h1');
    assert.ok(ev.some((e) => e.reason === 'HealthCheckFailed' && e.message!.includes('invalid Lua script')));
    // The profile's roll-up lists the failure.
    const p = await eventually(() => env.mgmt.getIfExists<Obj>({ ...CP, name: 'badlua' }), (o) => ((o?.status?.failedClusters as unknown[]) ?? []).length > 0, { message: 'failedClusters' });
    assert.match(JSON.stringify(p!.status!.failedClusters), /invalid Lua script/);
    // Fixing the script (a spec change) makes it pass.
    await put({ ...CP, metadata: { name: 'badlua' }, spec: { clusterSelector: { matchLabels: { env: 'health' } }, policyRefs: [{ kind: 'ConfigMap', name: 'plain', namespace: 'default' }], validateHealths: check({ script: 'function evaluate() return {healthy = true} end' }) } });
    await eventually(() => cs('badlua-sveltos-h1'), (o) => feature(o)?.status === 'Provisioned', { message: 'fixed script passes' });
  });

  test('featureID Helm: the Helm feature waits for its check over the release\'s objects', async () => {
    const repo = await serveChartRepo({ list: () => demoCharts(DEMOS.helm!) });
    try {
      await put({
        ...CP,
        metadata: { name: 'chart' },
        spec: {
          clusterSelector: { matchLabels: { env: 'health' } },
          helmCharts: [{ repositoryURL: repo.url, repositoryName: 'demo', chartName: 'demo/webapp', chartVersion: '0.1.0', releaseName: 'web', releaseNamespace: 'hh', helmChartAction: 'Install' }],
          validateHealths: [{ name: 'config-approved', featureID: 'Helm', group: '', version: 'v1', kind: 'ConfigMap', namespace: 'hh', labelFilters: [{ key: 'app.kubernetes.io/instance', operation: 'Equal', value: 'web' }], evaluateCEL: [{ name: 'approved', rule: 'has(resource.metadata.annotations) && "approved" in resource.metadata.annotations' }] }],
        },
      });
      const w = await eventually(() => cs('chart-sveltos-h1'), (o) => feature(o, 'Helm')?.failureReason === 'HealthCheckPending', { message: 'Helm feature waits' });
      assert.equal(feature(w, 'Helm')!.status, 'Provisioning');
      assert.match(feature(w, 'Helm')!.failureMessage!, /config-approved: ConfigMap hh\/web-config is not healthy: no evaluateCEL rule is true/);
      await env.clusters.h1.patch({ ...CM, namespace: 'hh', name: 'web-config' }, 'merge', { metadata: { annotations: { approved: 'yes' } } });
      await eventually(() => cs('chart-sveltos-h1'), (o) => feature(o, 'Helm')?.status === 'Provisioned', { message: 'Helm Provisioned once approved' });
    } finally {
      await repo.stop();
    }
  });

  test('a Deployment gated on availableReplicas (CEL) is Provisioned once the simulator makes it available', async () => {
    await put({
      ...CM,
      metadata: { name: 'web', namespace: 'default' },
      data: { 'web.yaml': 'apiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: web\n  namespace: hw\nspec:\n  replicas: 2\n  selector:\n    matchLabels: {app: web}\n  template:\n    metadata:\n      labels: {app: web}\n    spec:\n      containers:\n      - name: web\n        image: nginx:1.27\n' },
    });
    await put({
      ...CP,
      metadata: { name: 'web' },
      spec: {
        clusterSelector: { matchLabels: { env: 'health' } },
        policyRefs: [{ kind: 'ConfigMap', name: 'web', namespace: 'default' }],
        validateHealths: [{ name: 'available', featureID: 'Resources', group: 'apps', version: 'v1', kind: 'Deployment', namespace: 'hw', evaluateCEL: [{ name: 'all-available', rule: 'has(resource.status.availableReplicas) && resource.status.availableReplicas == resource.spec.replicas' }] }],
      },
    });
    await eventually(() => cs('web-sveltos-h1'), (o) => feature(o)?.status === 'Provisioned', { message: 'Provisioned once available' });
    const d = await env.clusters.h1.getIfExists<Obj>({ apiVersion: 'apps/v1', kind: 'Deployment', namespace: 'hw', name: 'web' });
    assert.equal((d!.status as { availableReplicas?: number }).availableReplicas, 2, 'the gate passed because the Deployment is available');
  });
});
