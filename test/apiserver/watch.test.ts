// Watch streams, discovery formats and resource conversion over raw HTTP.
import { strict as assert } from 'node:assert';
import { after, before, describe, test } from 'node:test';
import { startTestApiServer, type TestApiServer } from '../support/apiserver.js';
import { eventually } from '../support/eventually.js';
import { RawClient } from './raw.js';

let srv: TestApiServer;
let api: RawClient;
let n = 0;
async function ns(): Promise<string> {
  const name = `w${++n}`;
  assert.equal((await api.post('/api/v1/namespaces', { apiVersion: 'v1', kind: 'Namespace', metadata: { name } })).status, 201);
  return name;
}
const cm = (name: string, labels?: Record<string, string>) => ({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name, labels } });

interface Stream {
  status: number;
  events: { type: string; object: { kind?: string; metadata?: { name?: string; resourceVersion?: string; annotations?: Record<string, string> }; [k: string]: unknown } }[];
  ended: boolean;
  close(): void;
}

// watch opens a watch and collects its events as they arrive.
async function watch(path: string, accept?: string): Promise<Stream> {
  const ac = new AbortController();
  const headers: Record<string, string> = { authorization: `Bearer ${api.info.token}` };
  if (accept) headers.accept = accept;
  const res = await fetch(api.info.httpServer + path, { headers, signal: ac.signal });
  const s: Stream = { status: res.status, events: [], ended: false, close: () => ac.abort() };
  void (async () => {
    let buf = '';
    try {
      for await (const chunk of res.body as unknown as AsyncIterable<Uint8Array>) {
        buf += Buffer.from(chunk).toString('utf8');
        let i: number;
        while ((i = buf.indexOf('\n')) >= 0) {
          const line = buf.slice(0, i);
          buf = buf.slice(i + 1);
          if (line.trim()) s.events.push(JSON.parse(line));
        }
      }
    } catch {
      // aborted
    }
    s.ended = true;
  })();
  return s;
}

before(async () => {
  srv = await startTestApiServer({ clusters: ['watch'] });
  api = new RawClient(await srv.cluster('watch'));
});
after(() => srv.stop());

describe('watch', () => {
  test('without a resourceVersion it starts with the current objects', async () => {
    const s = await ns();
    await api.post(`/api/v1/namespaces/${s}/configmaps`, cm('old'));
    const w = await watch(`/api/v1/namespaces/${s}/configmaps?watch=true`);
    try {
      await api.post(`/api/v1/namespaces/${s}/configmaps`, cm('new'));
      await eventually(() => w.events.length, (x) => x >= 2);
      assert.deepEqual(w.events.map((e) => `${e.type} ${e.object.metadata?.name}`), ['ADDED old', 'ADDED new']);
      assert.equal(w.events[0].object.kind, 'ConfigMap');
    } finally {
      w.close();
    }
  });

  test('objects moving into and out of a label selector are ADDED and DELETED', async () => {
    const s = await ns();
    const created = (await api.post(`/api/v1/namespaces/${s}/configmaps`, cm('m', { tier: 'a' }))).json;
    const w = await watch(`/api/v1/namespaces/${s}/configmaps?watch=1&labelSelector=tier%3Db&resourceVersion=${created.metadata.resourceVersion}`);
    try {
      const moved = await api.patch(`/api/v1/namespaces/${s}/configmaps/m`, { metadata: { labels: { tier: 'b' } } }, 'application/merge-patch+json');
      await api.patch(`/api/v1/namespaces/${s}/configmaps/m`, { data: { x: '1' } }, 'application/merge-patch+json');
      const out = await api.patch(`/api/v1/namespaces/${s}/configmaps/m`, { metadata: { labels: { tier: 'c' } } }, 'application/merge-patch+json');
      await eventually(() => w.events.length, (x) => x >= 3);
      assert.deepEqual(w.events.map((e) => e.type), ['ADDED', 'MODIFIED', 'DELETED']);
      assert.equal(w.events[0].object.metadata?.resourceVersion, moved.json.metadata.resourceVersion);
      const last = w.events[2].object as { metadata: { labels: Record<string, string>; resourceVersion: string } };
      assert.deepEqual(last.metadata.labels, { tier: 'b' }, 'DELETED carries the last matching state');
      assert.equal(last.metadata.resourceVersion, out.json.metadata.resourceVersion, '…at the resourceVersion of the change');
    } finally {
      w.close();
    }
  });

  test('sendInitialEvents ends the initial state with an annotated BOOKMARK', async () => {
    const s = await ns();
    await api.post(`/api/v1/namespaces/${s}/configmaps`, cm('a'));
    await api.post(`/api/v1/namespaces/${s}/configmaps`, cm('b'));
    const w = await watch(`/api/v1/namespaces/${s}/configmaps?watch=1&sendInitialEvents=true&resourceVersionMatch=NotOlderThan&allowWatchBookmarks=true`);
    try {
      await eventually(() => w.events.length, (x) => x >= 3);
      assert.deepEqual(w.events.map((e) => e.type), ['ADDED', 'ADDED', 'BOOKMARK']);
      const bm = w.events[2].object;
      assert.equal(bm.kind, 'ConfigMap');
      assert.deepEqual(bm.metadata?.annotations, { 'k8s.io/initial-events-end': 'true' });
      assert.match(bm.metadata?.resourceVersion ?? '', /^\d+$/);
    } finally {
      w.close();
    }
    const bad = await api.get(`/api/v1/namespaces/${s}/configmaps?watch=1&sendInitialEvents=true`);
    assert.equal(bad.status, 422);
    assert.deepEqual(bad.json.details.causes.map((c: { field: string }) => c.field), ['resourceVersionMatch', 'allowWatchBookmarks']);
  });

  test('a single object, Table events for kubectl get -w, and timeoutSeconds', async () => {
    const s = await ns();
    const c = (await api.post(`/api/v1/namespaces/${s}/configmaps`, cm('one'))).json;
    await api.post(`/api/v1/namespaces/${s}/configmaps`, cm('two'));
    const one = await watch(`/api/v1/watch/namespaces/${s}/configmaps/one?resourceVersion=${c.metadata.resourceVersion}`);
    const table = await watch(`/api/v1/namespaces/${s}/configmaps?watch=1&resourceVersion=${c.metadata.resourceVersion}`, 'application/json;as=Table;v=v1;g=meta.k8s.io');
    const short = await watch(`/api/v1/namespaces/${s}/configmaps?watch=1&resourceVersion=${c.metadata.resourceVersion}&timeoutSeconds=1`);
    try {
      await api.patch(`/api/v1/namespaces/${s}/configmaps/one`, { data: { a: 'b' } }, 'application/merge-patch+json');
      await eventually(() => table.events.length, (x) => x >= 2);
      await eventually(() => one.events.length, (x) => x >= 1);
      assert.deepEqual(one.events.map((e) => `${e.type} ${e.object.metadata?.name}`), ['MODIFIED one']);
      const [t1, t2] = table.events.map((e) => e.object as { kind: string; columnDefinitions: { name: string }[]; rows: { cells: unknown[] }[] });
      assert.equal(t1.kind, 'Table');
      assert.deepEqual(t1.columnDefinitions.map((d) => d.name), ['Name', 'Data', 'Age']);
      assert.deepEqual(t2.columnDefinitions, [], 'only the first event carries the headers');
      assert.deepEqual(t2.rows[0].cells.slice(0, 2), ['one', 1]);
      await eventually(() => short.ended, Boolean, { message: 'timeoutSeconds ends the watch', timeoutMs: 5000 });
    } finally {
      one.close();
      table.close();
      short.close();
    }
  });
});

describe('discovery and conversion', () => {
  test('aggregated discovery when asked for, the legacy documents otherwise', async () => {
    const agg = await api.get('/apis', 'application/json;g=apidiscovery.k8s.io;v=v2;as=APIGroupDiscoveryList,application/json');
    assert.equal(agg.headers.get('content-type'), 'application/json;g=apidiscovery.k8s.io;v=v2;as=APIGroupDiscoveryList');
    assert.equal(agg.json.kind, 'APIGroupDiscoveryList');
    const apps = agg.json.items.find((g: { metadata: { name: string } }) => g.metadata.name === 'apps');
    const deploy = apps.versions[0].resources.find((r: { resource: string }) => r.resource === 'deployments');
    assert.deepEqual(deploy.responseKind, { group: 'apps', version: 'v1', kind: 'Deployment' });
    assert.deepEqual(deploy.subresources.map((x: { subresource: string }) => x.subresource), ['scale', 'status']);
    const legacy = await api.get('/apis');
    assert.equal(legacy.json.kind, 'APIGroupList');
    const core = (await api.get('/api/v1')).json;
    assert.ok(core.resources.some((r: { name: string; shortNames?: string[] }) => r.name === 'configmaps' && r.shortNames?.[0] === 'cm'));
    assert.equal((await api.get('/version')).json.gitVersion, 'v1.32.0-ripple');
  });

  test('events.k8s.io/v1 and core/v1 Events are one resource', async () => {
    const s = await ns();
    const e = await api.post(`/apis/events.k8s.io/v1/namespaces/${s}/events`, {
      apiVersion: 'events.k8s.io/v1',
      kind: 'Event',
      metadata: { name: 'ev1' },
      eventTime: '2025-01-01T00:00:00.000000Z',
      reportingController: 'ripple.dev/test',
      reportingInstance: 'i-1',
      action: 'Apply',
      reason: 'Applied',
      type: 'Normal',
      note: 'applied the thing',
      regarding: { kind: 'ConfigMap', name: 'target', namespace: s, apiVersion: 'v1' },
    });
    assert.equal(e.status, 201, e.text);
    assert.equal(e.json.note, 'applied the thing');
    const core = (await api.get(`/api/v1/namespaces/${s}/events/ev1`)).json;
    assert.equal(core.apiVersion, 'v1');
    assert.equal(core.message, 'applied the thing');
    assert.equal(core.reportingComponent, 'ripple.dev/test');
    assert.deepEqual(core.involvedObject, { kind: 'ConfigMap', name: 'target', namespace: s, apiVersion: 'v1' });
    const sel = (await api.get(`/api/v1/namespaces/${s}/events?fieldSelector=involvedObject.name%3Dtarget,involvedObject.kind%3DConfigMap`)).json;
    assert.deepEqual(sel.items.map((i: { metadata: { name: string } }) => i.metadata.name), ['ev1']);
    const invalid = await api.post(`/apis/events.k8s.io/v1/namespaces/${s}/events`, { apiVersion: 'events.k8s.io/v1', kind: 'Event', metadata: { name: 'ev2' } });
    assert.equal(invalid.status, 422);
  });

  test('a CRD with two versions, cluster scope and /scale', async () => {
    const crd = {
      apiVersion: 'apiextensions.k8s.io/v1',
      kind: 'CustomResourceDefinition',
      metadata: { name: 'pools.infra.ripple.dev' },
      spec: {
        group: 'infra.ripple.dev',
        scope: 'Cluster',
        names: { kind: 'Pool', plural: 'pools' },
        versions: ['v1beta1', 'v1'].map((name) => ({
          name,
          served: true,
          storage: name === 'v1',
          subresources: { status: {}, scale: { specReplicasPath: '.spec.size', statusReplicasPath: '.status.size' } },
          schema: { openAPIV3Schema: { type: 'object', properties: { spec: { type: 'object', properties: { size: { type: 'integer' } } }, status: { type: 'object', properties: { size: { type: 'integer' } } } } } },
        })),
      },
    };
    assert.equal((await api.post('/apis/apiextensions.k8s.io/v1/customresourcedefinitions', crd)).status, 201);
    const group = (await api.get('/apis/infra.ripple.dev')).json;
    assert.deepEqual(group.preferredVersion, { groupVersion: 'infra.ripple.dev/v1', version: 'v1' });
    const created = await api.post('/apis/infra.ripple.dev/v1beta1/pools', { apiVersion: 'infra.ripple.dev/v1beta1', kind: 'Pool', metadata: { name: 'p' }, spec: { size: 2 } });
    assert.equal(created.status, 201, created.text);
    assert.equal(created.json.apiVersion, 'infra.ripple.dev/v1beta1');
    assert.equal((await api.get('/apis/infra.ripple.dev/v1/pools/p')).json.apiVersion, 'infra.ripple.dev/v1');
    const scale = (await api.get('/apis/infra.ripple.dev/v1/pools/p/scale')).json;
    assert.deepEqual([scale.kind, scale.apiVersion, scale.spec], ['Scale', 'autoscaling/v1', { replicas: 2 }]);
    const scaled = await api.put('/apis/infra.ripple.dev/v1/pools/p/scale', { ...scale, spec: { replicas: 5 } });
    assert.equal(scaled.status, 200, scaled.text);
    assert.equal((await api.get('/apis/infra.ripple.dev/v1/pools/p')).json.spec.size, 5);
    const partial = await api.get('/apis/infra.ripple.dev/v1/pools', 'application/json;as=PartialObjectMetadataList;v=v1;g=meta.k8s.io');
    assert.equal(partial.json.kind, 'PartialObjectMetadataList');
    assert.deepEqual(Object.keys(partial.json.items[0]).sort(), ['apiVersion', 'kind', 'metadata']);
    assert.equal((await api.get('/apis/infra.ripple.dev/v1/namespaces/default/pools')).status, 404, 'cluster-scoped: no namespaced path');
  });
});
