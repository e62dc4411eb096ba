// deletion-safety.test.ts: includeDeletingResources through the agent on the embedded API server — an object held by
// a finalizer (deletionTimestamp set, still stored) stays in the report of an EventSource that includes deleting
// resources and leaves the report of one that does not (Sveltos' behaviour); it leaves both once it is really gone.
// Also: in collect mode an EventSource with messagingMatchCriteria is refused with a Warning Event, not silently inert.
import { strict as assert } from 'node:assert';
import { test } from 'node:test';
import type { KubeObject } from '../kube/index.js';
import { eventually } from '../../test/support/eventually.js';
import { ensureNamespace, reportView, startFleet, waitReport } from './fleet.testkit.js';

const ES = { apiVersion: 'lib.projectsveltos.io/v1beta1', kind: 'EventSource' } as const;
const ET = { apiVersion: 'lib.projectsveltos.io/v1beta1', kind: 'EventTrigger' } as const;
const SVC = { apiVersion: 'v1', kind: 'Service' } as const;

test('includeDeletingResources: a Service held by a finalizer matches only where it is set', { timeout: 60_000 }, async () => {
  const f = await startFleet({ mode: 'agentless', clusters: { c1: { env: 'del' } } });
  try {
    for (const [name, include] of [
      ['plain', undefined],
      ['keep-deleting', true],
    ] as const) {
      await f.mgmt.apply({ ...ES, metadata: { name }, spec: { resourceSelectors: [{ group: '', version: 'v1', kind: 'Service', namespace: 'apps' }], ...(include ? { includeDeletingResources: true } : {}) } } as KubeObject, { fieldManager: 'test', force: true });
      await f.mgmt.apply({ ...ET, metadata: { name }, spec: { sourceClusterSelector: { matchLabels: { env: 'del' } }, eventSourceName: name } } as KubeObject, { fieldManager: 'test', force: true });
    }
    const c1 = await f.client('c1');
    await ensureNamespace(c1, 'apps');
    await c1.create({ ...SVC, metadata: { name: 'db', namespace: 'apps', finalizers: ['example.com/backup'] }, spec: { ports: [{ port: 5432 }] } } as KubeObject);
    await waitReport(f, 'c1', 'plain', (v) => v?.matching.join() === 'Service:apps/db');
    await waitReport(f, 'c1', 'keep-deleting', (v) => v?.matching.join() === 'Service:apps/db');

    await c1.delete({ ...SVC, namespace: 'apps', name: 'db' });
    const held = await c1.get<KubeObject>({ ...SVC, namespace: 'apps', name: 'db' });
    assert.ok(held.metadata.deletionTimestamp, 'the finalizer holds the Service');
    await waitReport(f, 'c1', 'plain', (v) => v?.matching.length === 0, 'deleting Service dropped by default');
    assert.deepEqual(reportView(await f.report('c1', 'keep-deleting'))?.matching, ['Service:apps/db'], 'kept with includeDeletingResources');

    await c1.patch({ ...SVC, namespace: 'apps', name: 'db' }, 'merge', { metadata: { finalizers: null } });
    await waitReport(f, 'c1', 'keep-deleting', (v) => v?.matching.length === 0, 'gone once really deleted');
  } finally {
    await f.stop();
  }
});

test('collect mode: messagingMatchCriteria is refused with a Warning Event on the EventSource', { timeout: 60_000 }, async () => {
  const f = await startFleet({ mode: 'collect', clusters: { p1: { env: 'push' } } });
  try {
    await f.mgmt.apply({ ...ES, metadata: { name: 'orders' }, spec: { messagingMatchCriteria: [{ subject: 'orders' }] } } as KubeObject, { fieldManager: 'test', force: true });
    await f.mgmt.apply({ ...ET, metadata: { name: 'orders' }, spec: { sourceClusterSelector: { matchLabels: { env: 'push' } }, eventSourceName: 'orders' } } as KubeObject, { fieldManager: 'test', force: true });
    const events = await eventually(
      async () => (await f.mgmt.list<KubeObject & { reason?: string; message?: string; involvedObject?: { kind?: string; name?: string } }>({ apiVersion: 'v1', kind: 'Event' })).items,
      (l) => l.some((e) => e.reason === 'MessagingNotSupported' && e.involvedObject?.kind === 'EventSource'),
      { message: 'MessagingNotSupported Event', timeoutMs: 20_000 },
    );
    const e = events.find((x) => x.reason === 'MessagingNotSupported')!;
    assert.match(e.message ?? '', /in collect mode no CloudEvent reaches its EventReports/);
  } finally {
    await f.stop();
  }
});
