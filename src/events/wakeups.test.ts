// wakeups.test.ts: reconciles that could only find nothing to do are not started. The agent's report writer is not
// woken by its own writes coming back through the watch nor by the event manager's Processed status; the event
// manager's report key is not woken by a report version it has nothing to write to. Changes that do need work still
// wake them: a cleared phase is written again, an edited spec is restored.
import { strict as assert } from 'node:assert';
import { test } from 'node:test';
import type { KubeObject } from '../kube/index.js';
import { eventually } from '../../test/support/eventually.js';
import { startHarness } from './harness.js';

type Report = KubeObject & { spec?: { eventSourceName?: string; resources?: string }; status?: { phase?: string; failureMessage?: string } };
const ER = { apiVersion: 'lib.projectsveltos.io/v1beta1', kind: 'EventReport' } as const;

test('no wake-ups for writes that change nothing a reconcile reads; the ones that do still wake', async () => {
  const { ReportWriter, buildManagementReport, encodeEventReportResources, objectReferenceOf } = await import('../agent/index.js');
  const h = await startHarness({ clusters: [{ namespace: 'ns1', name: 'c1', labels: { env: 'x' } }] });
  const writer = new ReportWriter({ role: 'management', client: h.mgmt, informers: h.informers, registry: h.metrics });
  const adds = async (controller: string) =>
    (await h.metrics.getSingleMetric('ripple_workqueue_adds_total')!.get()).values.find((v) => v.labels.controller === controller)?.value ?? 0;
  const ref = { ...ER, namespace: 'ns1', name: 'sveltos--es--c1' };
  const get = () => h.mgmt.get<Report>(ref);
  // The informers the writer and the manager share: once it holds a version, their handlers have run for it.
  const sub = h.informers.subscribe<Report>(ER);
  const cached = (rv: string) => eventually(() => sub.informer.cache.get('ns1', 'sveltos--es--c1')?.metadata.resourceVersion, (v) => v === rv, { message: `cache at ${rv}` });
  try {
    await h.apply({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { namespace: 'default', name: 'wk', annotations: { 'projectsveltos.io/instantiate': 'true' } }, data: { k: 'n: {{ .Resource.metadata.name }}' } } as KubeObject);
    await h.apply({
      apiVersion: 'lib.projectsveltos.io/v1beta1',
      kind: 'EventTrigger',
      metadata: { name: 'wk' },
      spec: { sourceClusterSelector: { matchLabels: { env: 'x' } }, eventSourceName: 'es', oneForEvent: true, policyRefs: [{ kind: 'ConfigMap', namespace: 'default', name: 'wk' }] },
    } as KubeObject);
    await h.startManager();
    await writer.waitForSync();
    writer.start();
    const svc = (port: number) => ({ apiVersion: 'v1', kind: 'Service', metadata: { namespace: 'a', name: 's' }, spec: { ports: [{ port }] } });
    const put = (port: number) =>
      writer.set(buildManagementReport({ clusterNamespace: 'ns1', clusterName: 'c1', clusterType: 'Sveltos' }, { eventSourceName: 'es', matchingResources: [objectReferenceOf(svc(port))], resources: encodeEventReportResources([svc(port)]) }));
    put(80);
    const processed = (r: Report | undefined) => r?.status?.phase === 'Processed' && writer.idle();
    const first = await eventually(get, processed, { message: 'report processed' });
    await cached(first.metadata.resourceVersion!);
    // Let every queued wake-up of the cold start run out.
    await eventually(async () => [await adds('agent-reports-management'), await adds('event-manager')].join(), (() => { let prev = ''; return (v: string) => { const same = v === prev; prev = v; return same; }; })(), { message: 'quiet', intervalMs: 300 });

    // A status-only write that leaves a phase (here the event manager's Processed, written again by someone else): no
    // writer reconcile, and no report reconcile of the manager, whose status is already what it would write.
    const aW = await adds('agent-reports-management');
    const aM = await adds('event-manager');
    const touched = await h.mgmt.apply<Report>({ ...ER, metadata: { namespace: 'ns1', name: 'sveltos--es--c1' }, status: { phase: 'Processed' } } as KubeObject, { fieldManager: 'someone', force: true, subresource: 'status' });
    await cached(touched.metadata.resourceVersion!);
    await new Promise((r) => setTimeout(r, 100));
    assert.equal(await adds('agent-reports-management'), aW, 'the writer was woken by a status it does not act on');
    assert.equal(await adds('event-manager'), aM, 'the event manager was woken by a report it has nothing to write to');

    // A content change: the writer writes (spec, then WaitingForDelivery), the manager processes it, and the writer is
    // not woken again by any of it (its own echoes, the Processed status).
    const w0 = await adds('agent-reports-management');
    put(81);
    const second = await eventually(get, (r) => processed(r) && r.metadata.resourceVersion !== touched.metadata.resourceVersion && r.metadata.generation !== first.metadata.generation, { message: 'change processed' });
    await cached(second.metadata.resourceVersion!);
    await new Promise((r) => setTimeout(r, 100));
    assert.ok((await adds('agent-reports-management')) - w0 <= 2, `writer wake-ups for one change: ${(await adds('agent-reports-management')) - w0} (set, and at most one echo racing the write's response)`);

    // Someone clears the phase: written again (the writer's WaitingForDelivery, then the manager's Processed).
    const cleared = await h.mgmt.patch<Report>(ref, 'merge', { status: { phase: null } }, { subresource: 'status' });
    assert.equal(cleared.status?.phase, undefined);
    await eventually(get, (r) => r.status?.phase === 'Processed' && r.metadata.resourceVersion !== cleared.metadata.resourceVersion, { message: 'phase written again' });
    // Someone edits the spec: the agent restores it.
    await h.mgmt.patch(ref, 'merge', { spec: { resources: encodeEventReportResources([svc(99)]) } });
    await eventually(get, (r) => r.spec?.resources === encodeEventReportResources([svc(81)]), { message: 'spec restored' });
  } finally {
    await sub.unsubscribe();
    await writer.stop();
    await h.stop();
  }
});
