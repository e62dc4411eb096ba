// cloudevents.test.ts: the event manager's side of CloudEvents on the embedded API server (no broker: the CloudEvent
// is appended to the report as the agent does) — acted on once and then cleared from spec.cloudEvents, the
// ClusterProfile kept after clearing, a Delete CloudEvent withdrawing it, and a trigger with oneForEvent: false
// warned that its CloudEvent output would not last.
import { strict as assert } from 'node:assert';
import { after, before, describe, test } from 'node:test';
import { EventTriggerLabels, eventReportName } from '../api/index.js';
import type { KubeObject } from '../kube/index.js';
import { eventually } from '../../test/support/eventually.js';
import { startHarness, type Harness } from './harness.js';

const CP = { apiVersion: 'config.projectsveltos.io/v1beta1', kind: 'ClusterProfile' } as const;
const ET = { apiVersion: 'lib.projectsveltos.io/v1beta1', kind: 'EventTrigger' } as const;
const ER = { apiVersion: 'lib.projectsveltos.io/v1beta1', kind: 'EventReport' } as const;
const C = { namespace: 'ce', name: 'c1' };
type Report = KubeObject & { spec: { cloudEvents?: string[] }; status?: { phase?: string } };

const ce = (type: string, subject: string) =>
  Buffer.from(JSON.stringify({ specversion: '1.0', id: `${type}-${subject}`, source: 'shop/eu', type, subject, datacontenttype: 'application/json', data: {} })).toString('base64');

describe('event manager: CloudEvents in EventReports', () => {
  let h: Harness;
  const profiles = async (t: string) => (await h.mgmt.list<KubeObject>(CP, { labelSelector: `${EventTriggerLabels.eventTriggerName}=${t}` })).items;
  const report = (es: string) => h.mgmt.get<Report>({ ...ER, namespace: C.namespace, name: eventReportName('Sveltos', es, C.name) });
  const append = async (es: string, entry: string) => {
    const r = await report(es);
    const ops = r.spec.cloudEvents?.length ? [{ op: 'add', path: '/spec/cloudEvents/-', value: entry }] : [{ op: 'add', path: '/spec/cloudEvents', value: [entry] }];
    await h.mgmt.patch({ ...ER, namespace: C.namespace, name: r.metadata.name }, 'json', ops, { fieldManager: 'ripple-agent-cloudevents' });
  };

  before(async () => {
    h = await startHarness({ clusters: [{ ...C, labels: { env: 'ce' } }] });
    await h.startManager();
  });
  after(async () => h.stop());

  test('oneForEvent: acted on once, cleared, kept after clearing; Delete withdraws', async () => {
    await h.apply({
      ...ET,
      metadata: { name: 'per-event' },
      spec: { sourceClusterSelector: { matchLabels: { env: 'ce' } }, eventSourceName: 'orders', oneForEvent: true, cloudEventAction: '{{ if eq .CloudEvent.type "deleted" }}Delete{{ else }}Create{{ end }}' },
    } as KubeObject);
    await h.putReport(C, 'orders', []);
    await append('orders', ce('created', 'o-1'));
    await eventually(() => profiles('per-event'), (l) => l.length === 1 && l[0].metadata.labels?.[EventTriggerLabels.ceSubject] === 'o-1', { message: 'profile for o-1' });
    const r = await eventually(() => report('orders'), (x) => (x.spec.cloudEvents ?? []).length === 0 && x.status?.phase === 'Processed', { message: 'cleared and Processed' });
    assert.equal(r.spec.cloudEvents, undefined, 'the field is removed, as Sveltos sets it to nil');
    // The empty report after clearing is not a withdrawal: the profile stays until a Delete CloudEvent.
    await eventually(() => report('orders'), (x) => x.status?.phase === 'Processed' && x.metadata.generation === r.metadata.generation, { message: 'steady' });
    assert.equal((await profiles('per-event')).length, 1);
    await append('orders', ce('deleted', 'o-1'));
    await eventually(() => profiles('per-event'), (l) => l.length === 0, { message: 'withdrawn by Delete' });
    await eventually(() => report('orders'), (x) => (x.spec.cloudEvents ?? []).length === 0, { message: 'Delete cleared too' });
  });

  test('an unrelated failure does not hold CloudEvents back; a failing CloudEvent is kept', async () => {
    await h.apply({
      ...ET,
      metadata: { name: 'strict' },
      spec: { sourceClusterSelector: { matchLabels: { env: 'ce' } }, eventSourceName: 'flaky', oneForEvent: true, profileNameFormat: '{{ .CloudEvent.data.name }}' },
    } as KubeObject);
    // The agent reports an evaluation failure for this EventSource (say NATS' JetStream section is misconfigured).
    await h.putReport(C, 'flaky', [], { failure: 'CloudEvents: JetStream nats://x: stream MISSING' });
    const good = Buffer.from(JSON.stringify({ specversion: '1.0', id: 'g', source: 's', type: 't', subject: 'good', datacontenttype: 'application/json', data: { name: 'good-profile' } })).toString('base64');
    await append('flaky', good);
    await eventually(() => profiles('strict'), (l) => l.some((p) => p.metadata.name === 'good-profile'), { message: 'generated despite the evaluation failure' });
    await eventually(() => report('flaky'), (x) => (x.spec.cloudEvents ?? []).length === 0 && /stream MISSING/.test((x.status as { failureMessage?: string } | undefined)?.failureMessage ?? ''), {
      message: 'cleared although the report carries a failure',
    });
    // A CloudEvent without data.name fails to render: kept, with the reason in the report status.
    await append('flaky', ce('created', 'no-name'));
    const r = await eventually(() => report('flaky'), (x) => /map has no entry for key "name"/.test((x.status as { failureMessage?: string } | undefined)?.failureMessage ?? ''), { message: 'render failure' });
    assert.equal(r.spec.cloudEvents?.length, 1, 'kept for the next attempt');
  });

  test('oneForEvent: false: a Warning says the CloudEvent output would not last', async () => {
    await h.apply({ ...ET, metadata: { name: 'all-in-one' }, spec: { sourceClusterSelector: { matchLabels: { env: 'ce' } }, eventSourceName: 'bulk' } } as KubeObject);
    await h.putReport(C, 'bulk', []);
    await append('bulk', ce('created', 'o-2'));
    const evs = await eventually(
      async () => (await h.mgmt.list<KubeObject & { reason?: string; message?: string; involvedObject?: { name?: string } }>({ apiVersion: 'v1', kind: 'Event' })).items.filter((e) => e.involvedObject?.name === 'all-in-one'),
      (l) => l.some((e) => e.reason === 'CloudEventsNeedOneForEvent'),
      { message: 'Warning Event' },
    );
    assert.match(evs.find((e) => e.reason === 'CloudEventsNeedOneForEvent')!.message ?? '', /set oneForEvent: true/);
  });
});
