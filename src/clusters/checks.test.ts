// SveltosCluster readinessChecks / livenessChecks / consecutiveFailureThreshold / activeWindow against the embedded
// API server: clusters registered through kubectl, the readiness controller running the checks' Lua over the managed
// cluster's resources, the active-window controller pausing and un-pausing on cron schedules; status and Events as
// sveltoscluster-manager writes them; bad Lua and bad cron isolated to their cluster.
import { strict as assert } from 'node:assert';
import { spawn } from 'node:child_process';
import { after, before, describe, test } from 'node:test';
import { generateCrds } from '../api/index.js';
import { EventRecorder, InformerFactory, KubeClient, type KubeObject } from '../kube/index.js';
import { createLuaRuntime, decodeCheckStatus } from '../lua/index.js';
import { eventually } from '../../test/support/eventually.js';
import { startTestApiServer, type TestApiServer } from '../../test/support/apiserver.js';
import { ActiveWindowController, ClusterReadinessController, ClusterRegistry, parseCron, planActiveWindow, registerCluster } from './index.js';

type SC = KubeObject & {
  spec?: { paused?: boolean };
  status?: {
    ready?: boolean;
    version?: string;
    connectionStatus?: string;
    connectionFailures?: number;
    failureMessage?: string;
    nextPause?: string;
    nextUnpause?: string;
    activeWindowHash?: string;
  };
};
const SCK = { apiVersion: 'lib.projectsveltos.io/v1beta1', kind: 'SveltosCluster' };
const CM = { apiVersion: 'v1', kind: 'ConfigMap' };

test('cron: robfig standard syntax, next occurrence in UTC, refusals with a reason', () => {
  const next = (expr: string, at: string) => {
    const p = parseCron(expr);
    assert.ok(p.ok, expr);
    return p.schedule.next(new Date(at))?.toISOString();
  };
  assert.equal(next('0 9 * * *', '2026-01-01T08:59:59Z'), '2026-01-01T09:00:00.000Z');
  assert.equal(next('0 9 * * *', '2026-01-01T09:00:00Z'), '2026-01-02T09:00:00.000Z', 'strictly after');
  assert.equal(next('*/15 * * * *', '2026-01-01T10:07:00Z'), '2026-01-01T10:15:00.000Z');
  assert.equal(next('30 8 * * MON-FRI', '2026-01-02T09:00:00Z'), '2026-01-05T08:30:00.000Z', 'Friday after 8:30 → Monday');
  assert.equal(next('0 0 1 JAN *', '2026-03-01T00:00:00Z'), '2027-01-01T00:00:00.000Z');
  assert.equal(next('@daily', '2026-01-01T10:00:00Z'), '2026-01-02T00:00:00.000Z');
  assert.equal(next('0 0 13 * 5', '2026-02-01T00:00:00Z'), '2026-02-06T00:00:00.000Z', 'both day fields restricted: either matches');
  assert.equal(next('5/20 * * * *', '2026-01-01T10:06:00Z'), '2026-01-01T10:25:00.000Z');
  assert.equal(next('CRON_TZ=UTC 0 12 * * *', '2026-01-01T00:00:00Z'), '2026-01-01T12:00:00.000Z');
  for (const [bad, why] of [
    ['0 9 * *', /exactly 5 fields/],
    ['61 * * * *', /above maximum/],
    ['0 9 * * FUNDAY', /not a number or a name/],
    ['CRON_TZ=Europe/Rome 0 9 * * *', /time zone Europe\/Rome is not supported/],
    ['@every 1h', /@every is not supported/],
    ['*/0 * * * *', /bad step/],
  ] as const) {
    const p = parseCron(bad);
    assert.ok(!p.ok && why.test(p.message), `${bad}: ${JSON.stringify(p)}`);
  }
});

test('activeWindow plan: inside → not paused, next pause at `to`; outside → paused, next unpause at `from`', () => {
  const w = { from: '0 9 * * *', to: '0 17 * * *' };
  const inside = planActiveWindow(w, new Date('2026-01-01T12:00:30Z'));
  assert.ok(inside.ok);
  assert.deepEqual([inside.paused, inside.nextPause, inside.nextUnpause], [false, '2026-01-01T17:00:00Z', '2026-01-02T09:00:00Z']);
  assert.equal(inside.wakeAt, Date.parse('2026-01-01T17:00:00Z'));
  const outside = planActiveWindow(w, new Date('2026-01-01T17:00:01Z'));
  assert.ok(outside.ok);
  assert.deepEqual([outside.paused, outside.nextUnpause], [true, '2026-01-02T09:00:00Z']);
  const bad = planActiveWindow({ from: 'nine', to: '0 17 * * *' }, new Date());
  assert.ok(!bad.ok && /spec\.activeWindow\.from "nine": expected exactly 5 fields/.test(bad.message));
});

test('check status decodes as checkStatus {pass, message} ("result" read too); wrong types fail', () => {
  assert.deepEqual(decodeCheckStatus({ pass: true, message: 'm' }), { pass: true, message: 'm' });
  assert.deepEqual(decodeCheckStatus({ result: true }), { pass: true, message: '' });
  assert.deepEqual(decodeCheckStatus({}), { pass: false, message: '' });
  const bad = decodeCheckStatus({ pass: 'yes' });
  assert.ok('failure' in bad && /checkStatus.pass of type bool/.test(bad.failure.message));
});

test('the Lua runtime runs a check condition over the selected resources', async () => {
  const rt = await createLuaRuntime();
  try {
    const r = rt.check('function evaluate() return {pass = #resources == 2, message = resources[1].metadata.name} end', [
      { metadata: { name: 'a' } },
      { metadata: { name: 'b' } },
    ]);
    assert.deepEqual(r.ok && [r.pass, r.message], [true, 'a']);
  } finally {
    rt.close();
  }
});

describe('cluster checks and activeWindow through the API server', () => {
  let api: TestApiServer;
  let mgmt: KubeClient;
  let informers: InformerFactory;
  let registry: ClusterRegistry;
  let readiness: ClusterReadinessController;
  let windows: ActiveWindowController;
  let recorder: EventRecorder;
  let now = new Date('2026-01-01T12:00:30Z');

  const sc = (name: string) => mgmt.getIfExists<SC>({ ...SCK, namespace: 'fleet', name });
  // Asynchronous: the API server runs in this process.
  const kubectl = (args: string[], input?: string) =>
    new Promise<string>((resolve, reject) => {
      const p = spawn('kubectl', ['--kubeconfig', api.kubeconfigPath, '--context', 'mgmt', ...args]);
      let out = '';
      let err = '';
      p.stdout.on('data', (d: Buffer) => (out += d.toString()));
      p.stderr.on('data', (d: Buffer) => (err += d.toString()));
      p.on('error', reject);
      p.on('close', (code) => (code === 0 ? resolve(out) : reject(new Error(`kubectl ${args.join(' ')}: exit ${code}: ${err}`))));
      p.stdin.end(input ?? '');
    });
  const events = async (name: string) => {
    await recorder.flush();
    const evs = (await mgmt.list<KubeObject & { reason: string; type: string; message: string; involvedObject: { name: string } }>({ apiVersion: 'v1', kind: 'Event' }, { namespace: 'fleet' })).items;
    return evs.filter((e) => e.involvedObject.name === name);
  };
  const register = async (name: string, cluster: string, spec: Record<string, unknown>) => {
    // The SveltosCluster first (with its checks), then its kubeconfig Secret: no probe runs without the checks.
    await kubectl(['apply', '-f', '-'], JSON.stringify({ ...SCK, metadata: { name, namespace: 'fleet' }, spec }));
    await registerCluster(mgmt, { namespace: 'fleet', name, kubeconfig: api.server.kubeconfigYaml(cluster) });
  };

  before(async () => {
    api = await startTestApiServer({ clusters: ['mgmt', 'c1', 'c2', 'c3'] });
    mgmt = new KubeClient(await api.kubeConfig('mgmt'));
    for (const crd of generateCrds()) await mgmt.create(crd as unknown as KubeObject);
    await mgmt.create({ apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'fleet' } });
    informers = new InformerFactory(mgmt);
    registry = new ClusterRegistry({ informers, kubeconfigTtlMs: 100 });
    registry.start();
    await registry.waitForSync({ timeoutMs: 10_000 });
    recorder = new EventRecorder(mgmt);
    readiness = new ClusterReadinessController({ registry, informers, recorder, probeIntervalMs: 200, probeTimeoutMs: 5000, failureBackoff: { initialMs: 30, maxMs: 150, jitter: 0 } });
    readiness.start();
    windows = new ActiveWindowController({ registry, informers, recorder, now: () => now });
    windows.start();
  });
  after(async () => {
    await windows.stop();
    await readiness.stop();
    await recorder.close();
    await registry.stop();
    await informers.stop();
    mgmt.close();
    await api.stop();
  });

  test('readinessChecks keep a reachable cluster not ready until their Lua passes; then it is ready', async () => {
    const c1 = new KubeClient(await api.kubeConfig('c1'));
    await register('gated', 'c1', {
      readinessChecks: [
        {
          name: 'cni-up',
          resourceSelectors: [{ group: '', version: 'v1', kind: 'ConfigMap', namespace: 'kube-system', labelFilters: [{ key: 'app', operation: 'Equal', value: 'cni' }] }],
          condition: `function evaluate()
  for _, cm in ipairs(resources) do
    if cm.data and cm.data.phase == "Running" then return {pass = true} end
  end
  return {pass = false, message = "waiting for the CNI (" .. #resources .. " candidates)"}
end`,
        },
      ],
    });
    const waiting = await eventually(() => sc('gated'), (o) => /readiness check cni-up did not pass: waiting for the CNI \(0 candidates\)/.test(o?.status?.failureMessage ?? ''), { message: 'readiness check reported' });
    assert.notEqual(waiting!.status!.ready, true);
    assert.equal(waiting!.status!.connectionStatus, 'Healthy', 'the connection itself is fine');
    assert.equal(waiting!.status!.version, 'v1.32.0-ripple');
    assert.equal(registry.list().some((e) => e.ref.name === 'gated'), false, 'an unready cluster is not selectable');
    await eventually(() => events('gated'), (evs) => evs.some((e) => e.reason === 'ReadinessCheckFailed' && e.type === 'Warning'), { message: 'Event' });

    await c1.create({ ...CM, metadata: { name: 'cni', namespace: 'kube-system', labels: { app: 'cni' } }, data: { phase: 'Running' } });
    const ready = await eventually(() => sc('gated'), (o) => o?.status?.ready === true, { message: 'ready once the check passes' });
    assert.equal(ready!.status!.failureMessage, undefined);
    await eventually(() => events('gated'), (evs) => evs.some((e) => e.reason === 'ClusterReady'), { message: 'Event' });
    // kubectl sees what Sveltos users look at.
    assert.equal(await kubectl(['get', 'sveltoscluster', '-n', 'fleet', 'gated', '-o', 'jsonpath={.status.ready}']), 'true');
    c1.close();
  });

  test('livenessChecks: a failing check counts as a connection failure (Down at consecutiveFailureThreshold), and recovers', async () => {
    const c2 = new KubeClient(await api.kubeConfig('c2'));
    await c2.create({ ...CM, metadata: { name: 'beat', namespace: 'default' }, data: { ok: 'true' } });
    await register('alive', 'c2', {
      consecutiveFailureThreshold: 2,
      livenessChecks: [
        {
          name: 'heartbeat',
          resourceSelectors: [{ group: '', version: 'v1', kind: 'ConfigMap', namespace: 'default', name: 'beat' }],
          condition: 'function evaluate() local ok = #resources == 1 and resources[1].data.ok == "true"; return {pass = ok, message = ok and "" or "heartbeat missing"} end',
        },
      ],
    });
    await eventually(() => sc('alive'), (o) => o?.status?.ready === true && o.status.connectionStatus === 'Healthy', { message: 'alive ready' });
    await c2.patch({ ...CM, namespace: 'default', name: 'beat' }, 'merge', { data: { ok: 'false' } });
    const down = await eventually(() => sc('alive'), (o) => o?.status?.connectionStatus === 'Down', { message: 'Down after 2 liveness failures' });
    assert.ok((down!.status!.connectionFailures ?? 0) >= 2);
    assert.match(down!.status!.failureMessage ?? '', /liveness check heartbeat did not pass: heartbeat missing/);
    assert.equal(down!.status!.ready, true, 'ready stays true (Sveltos: was reachable)');
    await eventually(() => events('alive'), (evs) => evs.some((e) => e.reason === 'LivenessCheckFailed') && evs.some((e) => e.reason === 'ConnectionDown'), { message: 'Events' });
    await c2.patch({ ...CM, namespace: 'default', name: 'beat' }, 'merge', { data: { ok: 'true' } });
    const back = await eventually(() => sc('alive'), (o) => o?.status?.connectionStatus === 'Healthy' && o.status.connectionFailures === 0, { message: 'Healthy again' });
    assert.equal(back!.status!.failureMessage, undefined);
    await eventually(() => events('alive'), (evs) => evs.some((e) => e.reason === 'ConnectionRestored'), { message: 'Event' });
    c2.close();
  });

  test('bad Lua and an unknown kind in a check are reported on that cluster only', async () => {
    await register('badlua', 'c3', { readinessChecks: [{ name: 'syntax', resourceSelectors: [], condition: 'function evaluate( return end' }] });
    await register('badkind', 'c3', { readinessChecks: [{ name: 'nokind', resourceSelectors: [{ group: 'example.com', version: 'v1', kind: 'Widget' }], condition: 'function evaluate() return {pass=true} end' }] });
    await register('plain', 'c3', {});
    const bad = await eventually(() => sc('badlua'), (o) => /readiness check syntax failed: condition: .*/.test(o?.status?.failureMessage ?? ''), { message: 'bad Lua reported' });
    assert.notEqual(bad!.status!.ready, true);
    const kind = await eventually(() => sc('badkind'), (o) => /readiness check nokind failed: listing Widget \(example.com\/v1\)/.test(o?.status?.failureMessage ?? ''), { message: 'unknown kind reported' });
    assert.notEqual(kind!.status!.ready, true);
    await eventually(() => sc('plain'), (o) => o?.status?.ready === true, { message: 'a cluster without checks is unaffected' });
    await eventually(() => events('badlua'), (evs) => evs.some((e) => e.reason === 'ReadinessCheckFailed' && /condition:/.test(e.message)), { message: 'Event' });
  });

  test('activeWindow pauses outside the window and un-pauses inside it, with nextPause/nextUnpause; bad cron is refused visibly', async () => {
    now = new Date('2026-01-01T12:00:30Z');
    await register('office', 'c3', { activeWindow: { from: '0 9 * * *', to: '0 17 * * *' } });
    await register('night', 'c3', { activeWindow: { from: '0 22 * * *', to: '0 6 * * *' } });
    await register('typo', 'c3', { activeWindow: { from: '0 25 * * *', to: '0 6 * * *' } });
    const office = await eventually(() => sc('office'), (o) => o?.status?.nextPause !== undefined, { message: 'office scheduled' });
    assert.notEqual(office!.spec!.paused, true);
    assert.equal(office!.status!.nextPause, '2026-01-01T17:00:00Z');
    assert.equal(office!.status!.nextUnpause, '2026-01-02T09:00:00Z');
    assert.ok(office!.status!.activeWindowHash);
    const night = await eventually(() => sc('night'), (o) => o?.spec?.paused === true, { message: 'night paused at noon' });
    assert.equal(night!.status!.nextUnpause, '2026-01-01T22:00:00Z');
    await eventually(() => events('night'), (evs) => evs.some((e) => e.reason === 'ClusterPaused' && /outside activeWindow: no updates until 2026-01-01T22:00:00Z/.test(e.message)), { message: 'Event' });
    const typo = await eventually(() => sc('typo'), (o) => /spec\.activeWindow\.from "0 25 \* \* \*": hour: end of range \(25\) above maximum \(23\)/.test(o?.status?.failureMessage ?? ''), { message: 'bad cron in status' });
    assert.notEqual(typo!.spec!.paused, true, 'spec.paused left alone');
    await eventually(() => events('typo'), (evs) => evs.some((e) => e.reason === 'InvalidActiveWindow'), { message: 'Event' });
    // The registry (what every add-on controller selects through) sees the pause.
    await eventually(async () => registry.get('Sveltos:fleet/night'), (e) => e?.paused === true, { message: 'registry sees the pause' });

    // Time moves into the night window: an edit re-evaluates it (in production the one-shot timer does).
    now = new Date('2026-01-01T22:00:30Z');
    await kubectl(['annotate', 'sveltoscluster', '-n', 'fleet', 'night', 'touch=1']);
    await eventually(() => sc('night'), (o) => o?.spec?.paused === false && o.status?.nextPause === '2026-01-02T06:00:00Z', { message: 'night un-paused' });
    await eventually(() => events('night'), (evs) => evs.some((e) => e.reason === 'ClusterUnpaused'), { message: 'Event' });
    await eventually(async () => registry.get('Sveltos:fleet/night'), (e) => e?.paused === false, { message: 'registry sees the un-pause' });
  });
});
