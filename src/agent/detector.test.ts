// detector.test.ts: one cluster on the embedded API server, the ClusterDetector driven directly — shared informers
// per GVK, CRD late arrival, coalescing, aggregatedSelection, deletions and informers released when unused.
import { strict as assert } from 'node:assert';
import { after, before, describe, test } from 'node:test';
import type { EventSource } from '../api/index.js';
import { InformerFactory, KubeClient, type KubeObject } from '../kube/index.js';
import { createLuaRuntime, type LuaRuntime } from '../lua/index.js';
import { startTestApiServer, type TestApiServer } from '../../test/support/apiserver.js';
import { eventually } from '../../test/support/eventually.js';
import { ClusterDetector, type ReportUpdate } from './detector.js';
import { decodeEventReportResources } from './report.js';
import { ensureNamespace } from './fleet.testkit.js';

const es = (name: string, spec: Record<string, unknown>): EventSource =>
  ({ apiVersion: 'lib.projectsveltos.io/v1beta1', kind: 'EventSource', metadata: { name }, spec }) as unknown as EventSource;
const svcSel = (extra: Record<string, unknown> = {}) => ({ group: '', version: 'v1', kind: 'Service', ...extra });
const svc = (ns: string, name: string, labels: Record<string, string> = {}, port = 80): KubeObject =>
  ({ apiVersion: 'v1', kind: 'Service', metadata: { name, namespace: ns, labels }, spec: { ports: [{ port }] } }) as KubeObject;

describe('ClusterDetector', () => {
  let api: TestApiServer;
  let client: KubeClient;
  let runtime: LuaRuntime;

  before(async () => {
    api = await startTestApiServer({ clusters: ['edge'] });
    client = new KubeClient(await api.kubeConfig('edge'));
    runtime = await createLuaRuntime();
    await ensureNamespace(client, 'apps');
  });
  after(async () => {
    runtime.close();
    client.close();
    await api.stop();
  });

  function start(coalesceMs = 5) {
    const informers = new InformerFactory(client);
    const updates: ReportUpdate[] = [];
    const latest = new Map<string, ReportUpdate>();
    const d = new ClusterDetector({
      cluster: 'edge',
      informers,
      runtime,
      coalesceMs,
      onReport: (u) => {
        updates.push(u);
        latest.set(u.content.eventSourceName, u);
      },
    });
    const names = (es: string) => latest.get(es)?.content.matchingResources.map((r) => `${r.namespace}/${r.name}`);
    return { d, informers, updates, latest, names, stop: async () => (await d.stop(), await informers.stop()) };
  }

  test('three EventSources on one GVK share one informer, and it stops when none needs it', async () => {
    const t = start();
    try {
      await client.create(svc('apps', 's1', { tier: 'web' }, 443));
      await client.create(svc('apps', 's2', { tier: 'db' }, 5432));
      t.d.setEventSources(
        new Map([
          ['by-label', es('by-label', { resourceSelectors: [svcSel({ labelFilters: [{ key: 'tier', operation: 'Equal', value: 'web' }] })] })],
          ['by-lua', es('by-lua', { resourceSelectors: [svcSel({ evaluate: 'function evaluate() return {matching = obj.spec.ports[1].port == 5432} end' })] })],
          ['by-ns', es('by-ns', { resourceSelectors: [svcSel({ namespace: 'apps' })] })],
        ]),
      );
      await eventually(() => [t.names('by-label'), t.names('by-lua'), t.names('by-ns')], (v) => JSON.stringify(v) === JSON.stringify([['apps/s1'], ['apps/s2'], ['apps/s1', 'apps/s2']]));
      const serviceInformers = t.informers.informers().filter((i) => i.key.kind === 'Service');
      assert.equal(serviceInformers.length, 1, 'one Service informer for three EventSources');
      assert.equal(serviceInformers[0].stats.lists, 1, 'listed once');
      // Dropping two keeps the informer; dropping the last stops it.
      t.d.setEventSources(new Map([['by-ns', es('by-ns', { resourceSelectors: [svcSel({ namespace: 'apps' })] })]]));
      assert.equal(t.informers.informers().filter((i) => i.key.kind === 'Service').length, 1);
      t.d.setEventSources(new Map());
      await eventually(() => t.informers.informers().filter((i) => i.key.kind === 'Service').length, (n) => n === 0, { message: 'informer stopped when unused' });
    } finally {
      await t.stop();
      await client.delete({ apiVersion: 'v1', kind: 'Service', namespace: 'apps', name: 's1' });
      await client.delete({ apiVersion: 'v1', kind: 'Service', namespace: 'apps', name: 's2' });
    }
  });

  test('a kind that is not installed yields an empty report, then works as soon as its CRD appears', async () => {
    const t = start();
    try {
      t.d.setEventSources(new Map([['widgets', es('widgets', { collectResources: true, resourceSelectors: [{ group: 'late.example.com', version: 'v1', kind: 'Widget' }] })]]));
      await eventually(() => t.latest.get('widgets'), (u) => u !== undefined, { message: 'an empty report for an absent kind' });
      assert.deepEqual(t.latest.get('widgets')!.content.matchingResources, []);
      assert.equal(t.latest.get('widgets')!.content.failureMessage, undefined);
      await client.create({
        apiVersion: 'apiextensions.k8s.io/v1',
        kind: 'CustomResourceDefinition',
        metadata: { name: 'widgets.late.example.com' },
        spec: {
          group: 'late.example.com',
          scope: 'Namespaced',
          names: { kind: 'Widget', plural: 'widgets', singular: 'widget', listKind: 'WidgetList' },
          versions: [{ name: 'v1', served: true, storage: true, schema: { openAPIV3Schema: { type: 'object', 'x-kubernetes-preserve-unknown-fields': true } } }],
        },
      } as KubeObject);
      await eventually(
        async () => {
          try {
            return await client.create({ apiVersion: 'late.example.com/v1', kind: 'Widget', metadata: { name: 'w1', namespace: 'apps' }, size: 3 } as KubeObject);
          } catch {
            return undefined;
          }
        },
        (o) => o !== undefined,
        { message: 'the CRD serves' },
      );
      await eventually(() => t.names('widgets'), (n) => JSON.stringify(n) === '["apps/w1"]', { message: 'the new kind is watched' });
      const objs = decodeEventReportResources(t.latest.get('widgets')!.content.resources);
      assert.equal((objs[0] as { size: number }).size, 3);
    } finally {
      await t.stop();
    }
  });

  test('a burst of changes inside the window costs at most two reports; deletion leaves it promptly', async () => {
    const t = start(400);
    try {
      t.d.setEventSources(new Map([['burst', es('burst', { resourceSelectors: [svcSel({ namespace: 'burst' })] })]]));
      await ensureNamespace(client, 'burst');
      await eventually(() => t.latest.get('burst'), (u) => u !== undefined);
      const before = t.updates.length;
      await Promise.all(Array.from({ length: 10 }, (_, i) => client.create(svc('burst', `b${i}`))));
      await eventually(() => t.names('burst')?.length, (n) => n === 10);
      // The window (400 ms) is far longer than creating ten objects: the leading flush takes what arrived first and
      // the rest waits for the window, so the burst costs at most two reports.
      assert.ok(t.updates.length - before <= 2, `${t.updates.length - before} reports for one burst`);
      assert.equal(t.updates[t.updates.length - 1].content.matchingResources.length, 10);
      await client.delete({ apiVersion: 'v1', kind: 'Service', namespace: 'burst', name: 'b3' });
      await eventually(() => t.names('burst')?.includes('burst/b3'), (has) => has === false, { message: 'deleted object leaves the report' });
    } finally {
      await t.stop();
    }
  });

  test('aggregatedSelection replaces the selection and is re-run when a selected object changes', async () => {
    const t = start();
    try {
      await ensureNamespace(client, 'agg');
      await client.create(svc('agg', 'x', { pick: 'yes' }));
      await client.create(svc('agg', 'y', { pick: 'no' }));
      const script = `function evaluate()
        local hs = {}
        local out = {}
        for _, r in ipairs(resources) do
          if r.metadata.labels ~= nil and r.metadata.labels.pick == "yes" then table.insert(out, r) end
        end
        if #out > 0 then hs.resources = out end
        return hs
      end`;
      t.d.setEventSources(new Map([['agg', es('agg', { collectResources: true, aggregatedSelection: script, resourceSelectors: [svcSel({ namespace: 'agg' })] })]]));
      await eventually(() => t.names('agg'), (n) => JSON.stringify(n) === '["agg/x"]');
      await client.patch({ apiVersion: 'v1', kind: 'Service', namespace: 'agg', name: 'y' }, 'merge', { metadata: { labels: { pick: 'yes' } } });
      await eventually(() => t.names('agg'), (n) => JSON.stringify(n) === '["agg/x","agg/y"]');
      await client.patch({ apiVersion: 'v1', kind: 'Service', namespace: 'agg', name: 'x' }, 'merge', { metadata: { labels: { pick: 'no' } } });
      await client.patch({ apiVersion: 'v1', kind: 'Service', namespace: 'agg', name: 'y' }, 'merge', { metadata: { labels: { pick: 'no' } } });
      await eventually(() => t.names('agg'), (n) => JSON.stringify(n) === '[]');
      assert.equal(t.latest.get('agg')!.content.resources, undefined, 'no blob without matches');
    } finally {
      await t.stop();
    }
  });

  test('an object whose evaluation fails keeps its last known outcome until it evaluates again', async () => {
    const t = start();
    try {
      await ensureNamespace(client, 'keep');
      await client.create(svc('keep', 'k', { mode: 'ok' }));
      // Matches when mode == "ok"; raises when the label is "explode".
      const script = 'function evaluate() if obj.metadata.labels.mode == "explode" then error("cannot decide") end return {matching = obj.metadata.labels.mode == "ok"} end';
      t.d.setEventSources(new Map([['keep', es('keep', { resourceSelectors: [svcSel({ namespace: 'keep', evaluate: script })] })]]));
      await eventually(() => t.names('keep'), (n) => JSON.stringify(n) === '["keep/k"]');
      await client.patch({ apiVersion: 'v1', kind: 'Service', namespace: 'keep', name: 'k' }, 'merge', { metadata: { labels: { mode: 'explode' } } });
      const failed = await eventually(() => t.latest.get('keep'), (u) => u?.content.failureMessage !== undefined);
      assert.deepEqual(t.names('keep'), ['keep/k'], 'the last known match is kept');
      assert.match(failed!.content.failureMessage!, /EventSource keep: evaluation failed: spec\.resourceSelectors\[0\]\.evaluate on Service keep\/k: .*cannot decide/);
      await client.patch({ apiVersion: 'v1', kind: 'Service', namespace: 'keep', name: 'k' }, 'merge', { metadata: { labels: { mode: 'off' } } });
      await eventually(() => t.latest.get('keep'), (u) => u?.content.failureMessage === undefined && u!.content.matchingResources.length === 0);
    } finally {
      await t.stop();
    }
  });
});
