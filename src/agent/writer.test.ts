// writer.test.ts: the agent asks for metadata-only answers to its EventReport writes; what it then believes the
// server stores must be exactly what the server stores (it stands in for the informer's copy until that catches up).
import { strict as assert } from 'node:assert';
import { after, before, test } from 'node:test';
import { generateCrds } from '../api/index.js';
import { KubeClient, type KubeObject } from '../kube/index.js';
import { startTestApiServer, type TestApiServer } from '../../test/support/apiserver.js';
import { buildManagedReport, buildManagementReport, encodeEventReportResources, type ReportObject } from './report.js';
import { FIELD_MANAGER, afterSpecApply, afterStatusApply } from './writer.js';

let api: TestApiServer;
let c: KubeClient;
before(async () => {
  api = await startTestApiServer({ clusters: ['mgmt'] });
  c = new KubeClient(await api.kubeConfig('mgmt'));
  await Promise.all(generateCrds().map((crd) => c.create(crd as unknown as KubeObject)));
  for (const name of ['fleet', 'projectsveltos']) await c.create({ apiVersion: 'v1', kind: 'Namespace', metadata: { name } } as KubeObject);
});
after(async () => api?.stop());

const id = { clusterNamespace: 'fleet', clusterName: 'c1', clusterType: 'Sveltos' as const };
const svc = (name: string, port: number) => ({ apiVersion: 'v1', kind: 'Service', metadata: { namespace: 'a', name }, spec: { ports: [{ port }] } });
const content = (port: number, failureMessage?: string) => ({
  eventSourceName: 'es',
  matchingResources: [{ apiVersion: 'v1', kind: 'Service', namespace: 'a', name: 's1' }],
  resources: encodeEventReportResources([svc('s1', port)]),
  ...(failureMessage ? { failureMessage } : {}),
});
const get = async (r: ReportObject) => (await c.get<ReportObject & KubeObject>({ apiVersion: r.apiVersion, kind: r.kind, namespace: r.metadata.namespace, name: r.metadata.name }))!;
const statusOf = (r: ReportObject, status: ReportObject['status']) => ({ apiVersion: r.apiVersion, kind: r.kind, metadata: { name: r.metadata.name, namespace: r.metadata.namespace }, status });
const specApply = (r: ReportObject) => {
  const { status: _s, ...body } = r;
  return c.apply<KubeObject>(body as unknown as KubeObject, { fieldManager: FIELD_MANAGER, force: true, metadataOnly: true });
};
const statusApply = (s: ReturnType<typeof statusOf>) => c.apply<KubeObject>(s as unknown as KubeObject, { fieldManager: FIELD_MANAGER, force: true, subresource: 'status', metadataOnly: true });

test('management copy: spec and status writes answered with metadata only are rebuilt exactly as stored', async () => {
  const want = buildManagementReport(id, content(80));
  const answer = await specApply(want);
  assert.equal(answer.kind, 'PartialObjectMetadata', 'the answer carries no spec');
  let believed = afterSpecApply(want, answer, undefined);
  assert.deepEqual(believed, await get(want), 'created');

  const waiting = statusOf(want, { phase: 'WaitingForDelivery' });
  believed = afterStatusApply(waiting, await statusApply(waiting), believed, false);
  assert.deepEqual(believed, await get(want), 'phase set');

  // The event manager processes it and records a failure of its own (its field, not the agent's).
  await c.apply(statusOf(want, { phase: 'Processed', failureMessage: 'template broke' }) as unknown as KubeObject, { fieldManager: 'ripple-event-manager', force: true, subresource: 'status' });
  const seen = await get(want);
  const changed = buildManagementReport(id, content(81));
  believed = afterSpecApply(changed, await specApply(changed), seen);
  assert.deepEqual(believed, await get(changed), 'new content keeps the status as last seen');
  believed = afterStatusApply(waiting, await statusApply(waiting), believed, false);
  const stored = await get(changed);
  assert.deepEqual(believed, stored, "the event manager's failureMessage stays");
  assert.equal(stored.status?.failureMessage, 'template broke');
});

test('managed copy: the agent owns failureMessage, and leaving it out removes it', async () => {
  const want = buildManagedReport(content(80, 'lua: attempt to index a nil value'));
  let believed = afterSpecApply(want, await specApply(want), undefined);
  const failing = statusOf(want, { phase: 'WaitingForDelivery', failureMessage: 'lua: attempt to index a nil value' });
  believed = afterStatusApply(failing, await statusApply(failing), believed, true);
  assert.deepEqual(believed, await get(want));
  const fixed = statusOf(want, { phase: 'WaitingForDelivery' });
  believed = afterStatusApply(fixed, await statusApply(fixed), believed, true);
  const stored = await get(want);
  assert.equal(stored.status?.failureMessage, undefined);
  assert.deepEqual(believed, stored);
});
