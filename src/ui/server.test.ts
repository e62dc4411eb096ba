// The dashboard's API against `ripple up`'s embedded environment (embedded API server, real control plane, real
// HTTP): security headers and read-only surface, server-side filtering, live notifications over SSE, the lineage of a
// deployed add-on in both directions (complete, in causal order, with latencies), withdrawals, failures as they are
// raised, metrics, and no Secret data anywhere.
import { strict as assert } from 'node:assert';
import { mkdtempSync, rmSync } from 'node:fs';
import { request } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import type { KubeObject } from '../kube/index.js';
import { startEmbedded, type Embedded } from '../manager/index.js';
import { eventually } from '../../test/support/eventually.js';
import { MGMT_ID, startUi, type AddonRow, type ClusterRow, type EventRow, type FailureRow, type LineageGraph, type MetricsView, type Page, type StreamMessage, type TriggerRow, type UiServer } from './index.js';

const FM = { fieldManager: 'ui-test', force: true };
const TEMPLATE = `apiVersion: v1
kind: ConfigMap
metadata:
  name: {{ .Resource.metadata.name }}-addon
  namespace: {{ .Resource.metadata.namespace }}
data:
  service: {{ .Resource.metadata.name }}
`;

const scenario: KubeObject[] = [
  { apiVersion: 'v1', kind: 'ConfigMap', metadata: { namespace: 'default', name: 'svc-addon', annotations: { 'projectsveltos.io/instantiate': 'true' } }, data: { 'addon.yaml': TEMPLATE } } as KubeObject,
  {
    apiVersion: 'lib.projectsveltos.io/v1beta1',
    kind: 'EventSource',
    metadata: { name: 'labelled-services' },
    spec: { collectResources: true, resourceSelectors: [{ group: '', version: 'v1', kind: 'Service', labelFilters: [{ key: 'addon', operation: 'Equal', value: 'yes' }] }] },
  } as KubeObject,
  {
    apiVersion: 'lib.projectsveltos.io/v1beta1',
    kind: 'EventTrigger',
    metadata: { name: 'service-addons' },
    spec: { sourceClusterSelector: { matchLabels: { env: 'prod' } }, eventSourceName: 'labelled-services', oneForEvent: true, policyRefs: [{ kind: 'ConfigMap', namespace: 'default', name: 'svc-addon' }] },
  } as KubeObject,
];

const service = (name: string): KubeObject =>
  ({ apiVersion: 'v1', kind: 'Service', metadata: { namespace: 'default', name, labels: { addon: 'yes' } }, spec: { ports: [{ name: 'http', port: 80, protocol: 'TCP' }] } }) as KubeObject;

let dir: string;
let env: Embedded;
let ui: UiServer;

before(async () => {
  dir = mkdtempSync(join(tmpdir(), 'ripple-ui-'));
  env = await startEmbedded({ dataDir: dir, clusters: [{ name: 'edge-1', labels: { env: 'prod', region: 'eu' } }, { name: 'edge-2', labels: { env: 'dev' } }] });
  ui = await startUi({ informers: env.manager.informers, registry: env.manager.registry, metrics: env.manager.metrics, sampleIntervalMs: 200 });
  await ui.model.waitForSync();
});

after(async () => {
  await ui?.stop();
  await env?.stop();
  rmSync(dir, { recursive: true, force: true });
});

async function get<T>(path: string): Promise<T> {
  const r = await fetch(new URL(path, ui.url));
  assert.equal(r.status, 200, `${path}: ${r.status}`);
  return (await r.json()) as T;
}

function raw(method: string, path: string, host?: string): Promise<{ status: number; headers: Record<string, string | string[] | undefined> }> {
  return new Promise((resolve, reject) => {
    const req = request({ host: '127.0.0.1', port: ui.port, method, path, headers: host ? { host } : {} }, (res) => {
      res.resume();
      res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers }));
    });
    req.on('error', reject);
    req.end();
  });
}

test('serves the app and the API on loopback with security headers; read-only; Host checked', async () => {
  assert.match(ui.url, /^http:\/\/127\.0\.0\.1:\d+\/$/);
  for (const path of ['/', '/app.js', '/app.css', '/api/summary']) {
    const r = await raw('GET', path);
    assert.equal(r.status, 200, path);
    assert.match(String(r.headers['content-security-policy']), /default-src 'none'.*script-src 'self'.*frame-ancestors 'none'/);
    assert.equal(r.headers['x-content-type-options'], 'nosniff');
    assert.equal(r.headers['referrer-policy'], 'no-referrer');
  }
  const html = await (await fetch(ui.url)).text();
  assert.match(html, /<script type="module" src="\/app\.js">/);
  assert.doesNotMatch(html, /https?:\/\//, 'nothing is loaded from elsewhere');
  for (const m of ['POST', 'PUT', 'PATCH', 'DELETE']) assert.equal((await raw(m, '/api/clusters')).status, 405, m);
  assert.equal((await raw('GET', '/api/summary', 'evil.example:80')).status, 421, 'DNS rebinding: foreign Host refused');
  assert.equal((await raw('GET', '/api/nope')).status, 404);
});

test('fleet: clusters with labels and readiness, filtered on the server', async () => {
  const all = await eventually(() => get<Page<ClusterRow>>('/api/clusters'), (p) => p.total === 3 && p.rows.every((c) => c.ready), { timeoutMs: 20_000, message: 'three ready clusters' });
  assert.deepEqual(all.rows.map((c) => c.id).sort(), ['edge-1', 'edge-2', 'mgmt']);
  const prod = await get<Page<ClusterRow>>('/api/clusters?q=env%3Dprod');
  assert.deepEqual(prod.rows.map((c) => c.id), ['edge-1']);
  assert.equal(prod.matched, 1);
  assert.equal(prod.total, 3);
  assert.deepEqual(prod.rows[0].labels.region, 'eu');
  assert.deepEqual((await get<Page<ClusterRow>>('/api/clusters?q=cluster%3Aedge')).matched, 2);
  assert.deepEqual((await get<Page<ClusterRow>>('/api/clusters?q=nothing-like-this')).rows, []);
});

test('an event, its add-on and the lineage between them, live and in both directions', async () => {
  // A change notification arrives over SSE when the scenario is applied.
  const stream = await openStream();
  for (const o of scenario) await env.mgmt.apply(o, FM);
  await stream.next((m) => m.topics.includes('triggers'));
  await env.client('edge-1').apply(service('web'), FM);

  const addon = await eventually(
    () => get<Page<AddonRow>>('/api/addons?q=cluster%3Aedge-1'),
    (p) => p.rows.some((r) => r.objects.some((o) => o.name === 'web-addon')),
    { timeoutMs: 20_000, message: 'the add-on deployed to edge-1' },
  );
  const obj = addon.rows.flatMap((r) => r.objects).find((o) => o.name === 'web-addon')!;
  assert.equal(obj.cluster, 'edge-1');
  assert.equal(obj.deploymentType, 'Remote');
  assert.equal(obj.source?.namespace, 'projectsveltos', 'rendered from the instantiated ConfigMap');
  stream.close();

  const triggers = await get<Page<TriggerRow>>('/api/triggers');
  const t = triggers.rows.find((r) => r.name === 'service-addons')!;
  assert.deepEqual(t.generated.map((g) => g.kind).sort(), ['ClusterProfile', 'ConfigMap']);
  assert.ok(t.generated.every((g) => g.cluster === 'edge-1' && g.event === 'resource:/Service/default/web'));

  const events = await get<Page<EventRow>>('/api/events?q=web');
  assert.deepEqual(events.rows.map((e) => `${e.cluster} ${e.kind} ${e.namespace}/${e.name}`), ['edge-1 Service default/web']);

  // Upstream: the complete chain, in causal order, times observed by the dashboard's watches.
  const up = await get<LineageGraph>(`/api/lineage/upstream?cluster=edge-1&apiVersion=v1&kind=ConfigMap&namespace=default&name=web-addon`);
  assert.deepEqual(up.missing, []);
  const role = (r: string) => up.nodes.filter((n) => n.role === r);
  assert.deepEqual(
    ['event', 'report', 'source', 'trigger', 'instantiated', 'profile', 'summary', 'object'].map((r) => [r, role(r).length]),
    [['event', 1], ['report', 1], ['source', 1], ['trigger', 1], ['instantiated', 1], ['profile', 1], ['summary', 1], ['object', 1]],
  );
  assert.deepEqual(role('event')[0].ref, { cluster: 'edge-1', apiVersion: 'v1', kind: 'Service', namespace: 'default', name: 'web' });
  assert.equal(role('report')[0].ref.name, 'sveltos--labelled-services--edge-1');
  assert.equal(role('trigger')[0].ref.name, 'service-addons');
  assert.equal(role('instantiated')[0].ref.cluster, MGMT_ID);
  assert.equal(role('summary')[0].status, 'Provisioned');
  const byId = new Map(up.nodes.map((n) => [n.id, n]));
  const chain = ['event', 'report', 'trigger', 'instantiated', 'profile', 'summary', 'object'];
  for (let i = 0; i + 1 < chain.length; i++) {
    const e = up.edges.find((x) => byId.get(x.from)?.role === chain[i] && byId.get(x.to)?.role === chain[i + 1]);
    assert.ok(e, `edge ${chain[i]} → ${chain[i + 1]}`);
    if (chain[i] !== 'report') {
      assert.ok(e.latencyMs !== undefined && e.latencyMs >= 0 && !e.approx, `${chain[i]} → ${chain[i + 1]}: an observed latency (${JSON.stringify(e)})`);
    }
  }
  for (const r of ['event', 'instantiated', 'profile', 'object']) assert.equal(role(r)[0].timeSource, 'observed', r);

  // Downstream from the event: the same objects, the add-on reached through the profile and its summary.
  const down = await get<LineageGraph>('/api/lineage/downstream?cluster=edge-1&apiVersion=v1&kind=Service&namespace=default&name=web');
  assert.deepEqual(down.missing, []);
  assert.deepEqual(down.nodes.filter((n) => n.role === 'object').map((n) => `${n.ref.cluster} ${n.ref.kind} ${n.ref.name}`), ['edge-1 ConfigMap web-addon']);
  assert.ok(down.nodes.some((n) => n.role === 'profile') && down.nodes.some((n) => n.role === 'instantiated'));

  // The latency histogram fed by the same watches is in the registry Prometheus scrapes, and in the plots.
  const metrics = await eventually(() => get<MetricsView>('/api/metrics'), (m) => (m.histograms.find((h) => h.name === 'ripple_event_to_addon_seconds')?.count ?? 0) >= 1, { message: 'one event → add-on observation' });
  assert.ok(metrics.histograms.some((h) => h.name === 'ripple_agent_event_to_report_seconds'));
  assert.match(await env.manager.metrics.metrics(), /ripple_event_to_addon_seconds_count 1/);

  // The event goes away: everything is withdrawn, and the reverse lineage still shows what was removed.
  await env.client('edge-1').delete({ apiVersion: 'v1', kind: 'Service', namespace: 'default', name: 'web' });
  const gone = await eventually(
    () => get<LineageGraph>('/api/lineage/downstream?cluster=edge-1&apiVersion=v1&kind=Service&namespace=default&name=web'),
    (g) => ['profile', 'instantiated', 'object'].every((r) => g.nodes.some((n) => n.role === r && n.withdrawn)),
    { timeoutMs: 20_000, message: 'withdrawn profile, ConfigMap and add-on in the reverse lineage' },
  );
  assert.equal(gone.nodes.find((n) => n.role === 'event')?.status, 'gone');
});

test('a failure appears with its exact message and where it was raised', async () => {
  await env.mgmt.apply(
    {
      apiVersion: 'config.projectsveltos.io/v1beta1',
      kind: 'ClusterProfile',
      metadata: { name: 'broken' },
      spec: { clusterSelector: { matchLabels: { env: 'dev' } }, policyRefs: [{ kind: 'ConfigMap', namespace: 'default', name: 'does-not-exist' }] },
    } as KubeObject,
    FM,
  );
  const page = await eventually(
    () => get<Page<FailureRow>>('/api/failures?q=cluster%3Aedge-2'),
    (p) => p.rows.some((f) => f.source === 'status' && /does-not-exist/.test(f.message)),
    { timeoutMs: 20_000, message: 'the ClusterSummary failure' },
  );
  const f = page.rows.find((x) => x.source === 'status' && /does-not-exist/.test(x.message))!;
  assert.equal(f.where.kind, 'ClusterSummary');
  assert.equal(f.cluster, 'edge-2');
  assert.match(f.field, /^status\.featureSummaries\[Resources\]/);
  const addons = await get<Page<AddonRow>>('/api/addons');
  assert.equal(addons.rows[0].profile, 'broken', 'failed add-ons first');
  assert.equal(addons.rows[0].failed, true);
});

test('no Secret data in any answer', async () => {
  const secret = await env.mgmt.get<KubeObject & { data: Record<string, string> }>({ apiVersion: 'v1', kind: 'Secret', namespace: 'edge-1', name: 'edge-1-sveltos-kubeconfig' });
  const value = Object.values(secret.data)[0];
  assert.ok(value && value.length > 20);
  for (const p of ['/api/summary', '/api/clusters', '/api/sources', '/api/events', '/api/triggers', '/api/addons', '/api/failures', '/api/metrics']) {
    const text = await (await fetch(new URL(p, ui.url))).text();
    assert.ok(!text.includes(value) && !text.includes(Buffer.from(value, 'base64').toString().slice(0, 40)), `${p} leaks Secret data`);
  }
});

/** openStream reads /api/stream; next resolves with the first message satisfying ok. */
async function openStream() {
  const ac = new AbortController();
  const r = await fetch(new URL('/api/stream', ui.url), { signal: ac.signal });
  assert.equal(r.headers.get('content-type'), 'text/event-stream; charset=utf-8');
  const reader = r.body!.getReader();
  let buf = '';
  return {
    async next(ok: (m: StreamMessage) => boolean): Promise<StreamMessage> {
      for (;;) {
        const i = buf.indexOf('\n\n');
        if (i >= 0) {
          const chunk = buf.slice(0, i);
          buf = buf.slice(i + 2);
          const data = chunk.split('\n').find((l) => l.startsWith('data: '));
          if (data) {
            const m = JSON.parse(data.slice(6)) as StreamMessage;
            if (ok(m) && m.version > 0) return m;
          }
          continue;
        }
        const { value, done } = await reader.read();
        if (done) throw new Error('stream ended');
        buf += new TextDecoder().decode(value);
      }
    },
    close: () => ac.abort(),
  };
}
