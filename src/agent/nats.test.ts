// nats.test.ts: CloudEvents end to end against a REAL nats-server (Debian package, loopback, JetStream enabled):
// published with the npm NATS client → the agentless agent (Secret projectsveltos/sveltos-nats in the managed cluster)
// → EventReport spec.cloudEvents → the event manager (cloudEventAction Create/Delete, .CloudEvent in templates) →
// ClusterProfiles; the report's cloudEvents cleared after processing; bad credentials / unreachable server visible
// in the report, the EventTrigger's status and Events, with other EventSources unaffected.
import { strict as assert } from 'node:assert';
import { after, before, describe, test } from 'node:test';
import { EventTriggerLabels } from '../api/index.js';
import { startEventManager, type EventManager } from '../events/index.js';
import type { KubeObject } from '../kube/index.js';
import { eventually } from '../../test/support/eventually.js';
import { natsMissing, natsSecret, startNats, type NatsServer } from '../../test/support/nats.js';
import { CLUSTER_NAMESPACE, ensureNamespace, startFleet, type Fleet } from './fleet.testkit.js';

const skip = natsMissing();
const ES = { apiVersion: 'lib.projectsveltos.io/v1beta1', kind: 'EventSource' } as const;
const ET = { apiVersion: 'lib.projectsveltos.io/v1beta1', kind: 'EventTrigger' } as const;
const ER = { apiVersion: 'lib.projectsveltos.io/v1beta1', kind: 'EventReport' } as const;
const CP = { apiVersion: 'config.projectsveltos.io/v1beta1', kind: 'ClusterProfile' } as const;

const order = (kind: 'created' | 'deleted', id: string, subject: string, data: Record<string, unknown> = {}) => ({
  specversion: '1.0',
  id,
  source: 'shop/eu',
  type: `com.example.order.${kind}`,
  subject,
  datacontenttype: 'application/json',
  data,
});

describe('CloudEvents from NATS/JetStream (real nats-server)', { skip }, () => {
  let f: Fleet;
  let em: EventManager;
  let nats: NatsServer;
  let locked: NatsServer;

  const profiles = async () => (await f.mgmt.list<KubeObject>(CP)).items.filter((p) => p.metadata.labels?.[EventTriggerLabels.eventTriggerName] === 'order-addon');
  const subjects = async () => (await profiles()).map((p) => p.metadata.labels?.[EventTriggerLabels.ceSubject]).sort();
  const report = (es: string) => f.mgmt.getIfExists<KubeObject & { spec: { cloudEvents?: string[] }; status?: { phase?: string } }>({ ...ER, namespace: CLUSTER_NAMESPACE, name: `sveltos--${es}--c1` });
  const failure = async (es: string) => (await report(es))?.metadata.annotations?.['agent.ripple.dev/evaluation-failure'];
  // Core NATS delivers only to current subscribers, and the agent subscribes shortly after the Secret changes: publish
  // (idempotent Create/Delete of one source+subject) until the outcome shows.
  const publishUntil = async <T>(server: NatsServer, subject: string, ev: Record<string, unknown>, read: () => Promise<T>, ok: (v: T) => boolean, message: string, mode?: 'structured' | 'binary') =>
    eventually(
      async () => {
        const v = await read();
        if (!ok(v)) await server.publish(subject, ev, mode);
        return v;
      },
      ok,
      { message, intervalMs: 250, timeoutMs: 20_000 },
    );
  const putSecret = async (s: Record<string, unknown>) => {
    const c1 = await f.client('c1');
    await ensureNamespace(c1, 'projectsveltos');
    await c1.apply(s as unknown as KubeObject, { fieldManager: 'test', force: true });
  };

  before(async () => {
    nats = await startNats();
    locked = await startNats({ auth: { user: 'sveltos', password: 'right' } });
    f = await startFleet({ mode: 'agentless', clusters: { c1: { env: 'ce' } } });
    em = startEventManager({ client: f.mgmt, informers: f.informers, registry: f.registry, recorder: f.recorder, coalesceMs: 2, statusDelayMs: 50 });
    await em.ready;
    await ensureNamespace(f.mgmt, 'projectsveltos');
    await f.mgmt.apply(
      {
        apiVersion: 'v1',
        kind: 'ConfigMap',
        metadata: { name: 'order-template', namespace: 'default', annotations: { 'projectsveltos.io/instantiate': 'ok' } },
        data: { 'ns.yaml': 'apiVersion: v1\nkind: Namespace\nmetadata:\n  name: {{ .CloudEvent.subject }}\n  labels:\n    replicas: "{{ .CloudEvent.data.replicas }}"\n' },
      } as KubeObject,
      { fieldManager: 'test', force: true },
    );
    await f.mgmt.apply({ ...ES, metadata: { name: 'orders' }, spec: { messagingMatchCriteria: [{ subject: '^j?orders\\.', cloudEventType: '^com\\.example\\.order\\.' }] } } as KubeObject, { fieldManager: 'test', force: true });
    await f.mgmt.apply({ ...ES, metadata: { name: 'services' }, spec: { resourceSelectors: [{ group: '', version: 'v1', kind: 'Service' }] } } as KubeObject, { fieldManager: 'test', force: true });
    for (const [name, es, extra] of [
      ['order-addon', 'orders', { oneForEvent: true, cloudEventAction: '{{ if eq .CloudEvent.type "com.example.order.deleted" }}Delete{{ else }}Create{{ end }}', policyRefs: [{ kind: 'ConfigMap', name: 'order-template', namespace: 'default' }] }],
      ['service-watch', 'services', { policyRefs: [] }],
    ] as const) {
      await f.mgmt.apply({ ...ET, metadata: { name }, spec: { sourceClusterSelector: { matchLabels: { env: 'ce' } }, eventSourceName: es, ...extra } } as KubeObject, { fieldManager: 'test', force: true });
    }
  });

  after(async () => {
    await em?.stop();
    await f?.stop();
    await nats?.stop();
    await locked?.stop();
  });

  test('no Secret: the EventSource with messagingMatchCriteria says so; the other EventSource is unaffected', async () => {
    await eventually(() => failure('orders'), (m) => /Secret projectsveltos\/sveltos-nats does not exist/.test(m ?? ''), { message: 'missing-Secret failure' });
    await eventually(() => report('services'), (r) => r !== undefined, { message: 'the other report exists' });
    assert.equal(await failure('services'), undefined);
  });

  test('structured and binary CloudEvents create add-ons (.CloudEvent rendered); a Delete CloudEvent withdraws one; cloudEvents cleared', async () => {
    await putSecret(natsSecret({ url: nats.url, subjects: ['orders.>'] }));
    await eventually(() => failure('orders'), (m) => m === undefined, { message: 'connected: failure cleared' });
    await publishUntil(nats, 'orders.eu', order('created', '1', 'order-7', { replicas: 2 }), subjects, (s) => s.includes('order-7'), 'structured CloudEvent');
    await publishUntil(nats, 'orders.eu', order('created', '2', 'order-8', { replicas: 3 }), subjects, (s) => s.includes('order-8'), 'binary CloudEvent', 'binary');
    await nats.publish('orders.eu', { ...order('created', '3', 'ignored'), type: 'com.example.billing' });
    await nats.publish('billing.eu', order('created', '4', 'ignored-too'));
    await eventually(subjects, (s) => JSON.stringify(s) === JSON.stringify(['order-7', 'order-8']), { message: 'two per-CloudEvent ClusterProfiles' });
    const cms = (await f.mgmt.list<KubeObject & { data?: Record<string, string> }>({ apiVersion: 'v1', kind: 'ConfigMap' }, { namespace: 'projectsveltos' })).items.filter(
      (c) => c.metadata.labels?.[EventTriggerLabels.eventTriggerName] === 'order-addon',
    );
    const texts = cms.map((c) => c.data?.['ns.yaml'] ?? '').sort();
    assert.match(texts[0], /name: order-7\n {2}labels:\n {4}replicas: "2"/);
    assert.match(texts[1], /name: order-8\n {2}labels:\n {4}replicas: "3"/);
    await eventually(() => report('orders'), (r) => (r?.spec.cloudEvents ?? []).length === 0 && r?.status?.phase === 'Processed', { message: 'cloudEvents cleared, Processed' });

    await publishUntil(nats, 'orders.us', order('deleted', '5', 'order-7'), subjects, (s) => JSON.stringify(s) === JSON.stringify(['order-8']), 'order-7 withdrawn by its Delete CloudEvent');
    await eventually(() => report('orders'), (r) => (r?.spec.cloudEvents ?? []).length === 0, { message: 'cleared again' });
    // Clearing the report is not "nothing matches any more": CloudEvent outputs stay.
    assert.deepEqual(await subjects(), ['order-8']);
    const metrics = await f.metrics.metrics();
    assert.match(metrics, /ripple_agent_cloudevents_total\{result="stored"\} [3-9]/);
    // billing.eu is outside the subscription (orders.>): the server never delivers it.
    assert.match(metrics, /ripple_agent_cloudevents_total\{result="unmatched"\} 1\n/);
    assert.match(metrics, /ripple_agent_nats_down\{cluster="Sveltos:fleet\/c1",section="nats"\} 0/);
  });

  test('bad credentials: visible on the report, the EventTrigger status and as Events; fixed credentials reconnect', async () => {
    await putSecret(natsSecret({ url: locked.url, subjects: ['orders.>'], auth: { user: 'sveltos', password: 'wrong' } }));
    const msg = await eventually(() => failure('orders'), (m) => /CloudEvents: NATS nats:\/\/127\.0\.0\.1:\d+: .*not accepted/i.test(m ?? ''), { message: 'credential failure' });
    assert.match(msg!, /credentials in Secret projectsveltos\/sveltos-nats/);
    assert.equal(await failure('services'), undefined, 'other EventSources unaffected');
    await eventually(
      async () => (await f.mgmt.get<KubeObject & { status?: { clusterInfo?: { status?: string; failureMessage?: string }[] } }>({ ...ET, name: 'order-addon' })).status?.clusterInfo?.[0],
      (ci) => ci?.status === 'Failed' && /not accepted/.test(ci.failureMessage ?? ''),
      { message: 'EventTrigger status Failed with the cause' },
    );
    await eventually(
      async () => (await f.mgmt.list<KubeObject & { reason?: string; involvedObject?: { kind?: string; name?: string } }>({ apiVersion: 'v1', kind: 'Event' })).items,
      (evs) => evs.some((e) => e.reason === 'EvaluationFailed' && e.involvedObject?.kind === 'EventSource' && e.involvedObject.name === 'orders'),
      { message: 'Warning Event on the EventSource' },
    );
    await putSecret(natsSecret({ url: locked.url, subjects: ['orders.>'], auth: { user: 'sveltos', password: 'right' } }));
    await eventually(() => failure('orders'), (m) => m === undefined, { message: 'reconnected' });
    // The locked server is a different broker: publish there.
    await publishUntil(locked, 'orders.eu', order('created', '6', 'order-9', { replicas: 1 }), subjects, (s) => s.includes('order-9'), 'event through the authenticated connection');
  });

  test('unreachable server: visible, and retried with backoff until it answers', async () => {
    const gone = await startNats();
    const url = gone.url;
    await gone.stop();
    await putSecret(natsSecret({ url, subjects: ['orders.>'] }));
    await eventually(() => failure('orders'), (m) => /unreachable/.test(m ?? ''), { message: 'unreachable failure' });
    assert.equal(await failure('services'), undefined);
    // A CloudEvent whose template fails is not cleared: it stays in the report, the failure in its status.
    await putSecret(natsSecret({ url: nats.url, subjects: ['orders.>'] }));
    await eventually(() => failure('orders'), (m) => m === undefined, { message: 'connected again' });
    const r = await publishUntil(
      nats,
      'orders.eu',
      order('created', '8', 'order-11'),
      () => report('orders'),
      (x) => /map has no entry for key \"replicas\"/.test((x?.status as { failureMessage?: string } | undefined)?.failureMessage ?? ''),
      'render failure in the report status',
    );
    assert.ok((r?.spec.cloudEvents?.length ?? 0) >= 1, 'kept for the next attempt');
    assert.ok(!(await subjects()).includes('order-11'));
  });

  test('JetStream: the durable consumer sveltos-agent of a stream delivers CloudEvents (acked once stored)', async () => {
    await nats.addStream('ORDERS', ['jorders.>']);
    await putSecret(natsSecret({ url: nats.url, streams: ['ORDERS'] }));
    await eventually(() => failure('orders'), (m) => m === undefined, { message: 'JetStream connected' });
    await nats.publishJetStream('jorders.eu', order('created', '7', 'order-10', { replicas: 1 }));
    await eventually(subjects, (s) => s.includes('order-10'), { message: 'JetStream CloudEvent became an add-on' });
  });

  test('a stream without the sveltos-agent consumer is named in the failure', async () => {
    await putSecret(natsSecret({ url: nats.url, streams: ['MISSING'] }));
    await eventually(() => failure('orders'), (m) => /stream MISSING, durable consumer sveltos-agent/.test(m ?? ''), { message: 'missing stream failure' });
  });
});

describe('CloudEvents in push mode: the in-cluster agent subscribes and appends to the management-cluster report', { skip }, () => {
  test('a CloudEvent creates the add-on through ripple agent (push)', { timeout: 90_000 }, async () => {
    const nats = await startNats();
    const f = await startFleet({ mode: 'push', clusters: { p1: { env: 'push' } } });
    const em = startEventManager({ client: f.mgmt, informers: f.informers, registry: f.registry, recorder: f.recorder, coalesceMs: 2, statusDelayMs: 50 });
    try {
      await em.ready;
      const p1 = await f.client('p1');
      await ensureNamespace(p1, 'projectsveltos');
      await p1.apply(natsSecret({ url: nats.url, subjects: ['orders.>'] }) as unknown as KubeObject, { fieldManager: 'test', force: true });
      await f.mgmt.apply({ ...ES, metadata: { name: 'orders' }, spec: { messagingMatchCriteria: [{ cloudEventType: 'order' }] } } as KubeObject, { fieldManager: 'test', force: true });
      await f.mgmt.apply(
        { ...ET, metadata: { name: 'push-addon' }, spec: { sourceClusterSelector: { matchLabels: { env: 'push' } }, eventSourceName: 'orders', oneForEvent: true, policyRefs: [] } } as KubeObject,
        { fieldManager: 'test', force: true },
      );
      const report = () => f.mgmt.getIfExists<KubeObject>({ ...ER, namespace: CLUSTER_NAMESPACE, name: 'sveltos--orders--p1' });
      await eventually(report, (r) => r !== undefined && !r.metadata.annotations?.['agent.ripple.dev/evaluation-failure'], { message: 'pushed report, subscribed', timeoutMs: 30_000 });
      const profiles = async () => (await f.mgmt.list<KubeObject>(CP)).items.filter((p) => p.metadata.labels?.[EventTriggerLabels.eventTriggerName] === 'push-addon');
      const ok = (l: KubeObject[]) => l.length === 1 && l[0].metadata.labels?.[EventTriggerLabels.ceSubject] === 'order-p1';
      await eventually(
        async () => {
          const l = await profiles();
          if (!ok(l)) await nats.publish('orders.eu', order('created', 'p1', 'order-p1'));
          return l;
        },
        ok,
        { message: 'per-CloudEvent ClusterProfile', intervalMs: 250, timeoutMs: 30_000 },
      );
    } finally {
      await em.stop();
      await f.stop();
      await nats.stop();
    }
  });
});
