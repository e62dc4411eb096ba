// KubeClient against the embedded API server over HTTPS: CRUD, subresources, the three patch types, server-side
// apply, delete options, paging, discovery refresh, typed errors and raw watches.
import { strict as assert } from 'node:assert';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { startTestApiServer, type TestApiServer } from '../../test/support/apiserver.js';
import {
  KubeClient,
  createKubeClient,
  singleContextKubeConfig,
  isAlreadyExists,
  isConflict,
  isGone,
  isInvalid,
  isKindNotInstalled,
  isNotFound,
  isUnavailable,
  isUnreachable,
  type KubeObject,
  type WatchEvent,
} from './index.js';

/** widgetCrd is a namespaced test CRD with a status subresource. */
function widgetCrd(group = 'example.com'): KubeObject {
  return {
    apiVersion: 'apiextensions.k8s.io/v1',
    kind: 'CustomResourceDefinition',
    metadata: { name: `widgets.${group}` },
    spec: {
      group,
      names: { kind: 'Widget', plural: 'widgets', singular: 'widget', listKind: 'WidgetList' },
      scope: 'Namespaced',
      versions: [
        {
          name: 'v1',
          served: true,
          storage: true,
          subresources: { status: {} },
          schema: { openAPIV3Schema: { type: 'object', 'x-kubernetes-preserve-unknown-fields': true } },
        },
      ],
    },
  };
}

async function closedPort(): Promise<number> {
  const srv = createServer();
  await new Promise<void>((r) => srv.listen(0, '127.0.0.1', r));
  const port = (srv.address() as { port: number }).port;
  await new Promise<void>((r) => srv.close(() => r()));
  return port;
}

const cm = (name: string, data: Record<string, string> = { k: 'v' }, labels?: Record<string, string>): KubeObject => ({
  apiVersion: 'v1',
  kind: 'ConfigMap',
  metadata: { name, namespace: 'default', ...(labels ? { labels } : {}) },
  data,
});

describe('KubeClient', () => {
  let api: TestApiServer;
  let client: KubeClient;
  before(async () => {
    api = await startTestApiServer();
    client = new KubeClient(await api.kubeConfig());
  });
  after(async () => {
    client.close();
    await api.stop();
  });

  test('create, get, update with optimistic concurrency, getIfExists, delete', async () => {
    const created = await client.create(cm('crud'));
    assert.equal(created.metadata.name, 'crud');
    assert.ok(created.metadata.uid);
    const got = await client.get({ apiVersion: 'v1', kind: 'ConfigMap', namespace: 'default', name: 'crud' });
    assert.deepEqual(got.data, { k: 'v' });
    const updated = await client.update({ ...got, data: { k: 'w' } });
    assert.deepEqual(updated.data, { k: 'w' });
    // A stale resourceVersion conflicts.
    await assert.rejects(client.update({ ...got, data: { k: 'x' } }), (e) => isConflict(e) && e.code === 409);
    await assert.rejects(client.create(cm('crud')), (e) => isAlreadyExists(e) && e.details?.name === 'crud');
    const ref = { apiVersion: 'v1', kind: 'ConfigMap', namespace: 'default', name: 'crud' };
    assert.equal(await client.delete(ref), undefined);
    assert.equal(await client.getIfExists(ref), undefined);
    await assert.rejects(client.get(ref), (e) => isNotFound(e) && e.reason === 'NotFound' && e.code === 404 && /not found/.test(e.message));
    await assert.rejects(client.delete(ref), isNotFound);
  });

  test('namespaced kinds need a namespace; cluster-scoped kinds ignore one', async () => {
    await assert.rejects(client.create({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'nons' } }), /namespace is required/);
    const ns = await client.create({ apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'scoped-test' } });
    assert.equal(ns.metadata.name, 'scoped-test');
    const again = await client.get({ apiVersion: 'v1', kind: 'Namespace', name: 'scoped-test', namespace: 'ignored' });
    assert.equal(again.metadata.uid, ns.metadata.uid);
  });

  test('patch: JSON patch, merge patch and strategic merge patch', async () => {
    await client.create({
      apiVersion: 'apps/v1',
      kind: 'Deployment',
      metadata: { name: 'web', namespace: 'default' },
      spec: {
        selector: { matchLabels: { app: 'web' } },
        template: { metadata: { labels: { app: 'web' } }, spec: { containers: [{ name: 'a', image: 'nginx:1' }, { name: 'b', image: 'busybox' }] } },
      },
    });
    const ref = { apiVersion: 'apps/v1', kind: 'Deployment', namespace: 'default', name: 'web' };
    // Strategic merge patch merges the containers list by name: b stays, a changes.
    const smp = await client.patch<KubeObject & { spec: { template: { spec: { containers: { name: string; image: string }[] } } } }>(ref, 'strategic', {
      spec: { template: { spec: { containers: [{ name: 'a', image: 'nginx:2' }] } } },
    });
    assert.deepEqual(smp.spec.template.spec.containers.map((c) => `${c.name}=${c.image}`), ['a=nginx:2', 'b=busybox']);
    // A merge patch replaces lists wholesale.
    const mp = await client.patch<typeof smp>(ref, 'merge', { spec: { template: { spec: { containers: [{ name: 'c', image: 'redis' }] } } } });
    assert.deepEqual(mp.spec.template.spec.containers.map((c) => c.name), ['c']);
    const jp = await client.patch<KubeObject>(ref, 'json', [{ op: 'add', path: '/metadata/labels', value: { tier: 'front' } }]);
    assert.deepEqual(jp.metadata.labels, { tier: 'front' });
    await assert.rejects(client.patch(ref, 'json', { not: 'an array' }), /must be an array/);
    await assert.rejects(client.patch(ref, 'json', [{ op: 'test', path: '/metadata/name', value: 'other' }]), (e) => (e as { code?: number }).code === 422 || (e as { code?: number }).code === 500);
  });

  test('server-side apply: create, field ownership, conflicts, force, dryRun, managedFields stripped', async () => {
    const obj = cm('applied', { a: '1' });
    const first = await client.apply(obj, { fieldManager: 'alpha' });
    assert.deepEqual(first.data, { a: '1' });
    const managers = (first.metadata.managedFields as { manager: string; operation: string }[]).map((m) => `${m.manager}:${m.operation}`);
    assert.deepEqual(managers, ['alpha:Apply']);
    // Another manager setting the same field conflicts, unless forced.
    await assert.rejects(client.apply(cm('applied', { a: '2' }), { fieldManager: 'beta' }), (e) => isConflict(e) && (e.details?.causes?.length ?? 0) > 0);
    const forced = await client.apply(cm('applied', { a: '2' }), { fieldManager: 'beta', force: true });
    assert.deepEqual(forced.data, { a: '2' });
    // An object read back from the server carries managedFields, which an apply body must not: they are stripped.
    assert.ok(forced.metadata.managedFields);
    const reapplied = await client.apply({ ...forced, data: { a: '2', b: '3' } }, { fieldManager: 'beta' });
    assert.deepEqual(reapplied.data, { a: '2', b: '3' });
    const dry = await client.apply(cm('applied', { z: '9' }), { fieldManager: 'gamma', dryRun: true });
    assert.equal((dry.data as Record<string, string>).z, '9');
    const stored = await client.get({ apiVersion: 'v1', kind: 'ConfigMap', namespace: 'default', name: 'applied' });
    assert.equal((stored.data as Record<string, string>).z, undefined, 'dry run persisted nothing');
    await assert.rejects(client.apply(cm('applied'), { fieldManager: '' }), /fieldManager is required/);
  });

  test('status subresource: update and apply only touch status', async () => {
    await client.create(widgetCrd());
    const w = await client.create({ apiVersion: 'example.com/v1', kind: 'Widget', metadata: { name: 'w1', namespace: 'default' }, spec: { size: 1 } });
    const withStatus = await client.updateStatus({ ...w, spec: { size: 99 }, status: { phase: 'Ready' } });
    assert.deepEqual(withStatus.status, { phase: 'Ready' });
    assert.deepEqual(withStatus.spec, { size: 1 }, 'status update ignores spec');
    const applied = await client.apply(
      { apiVersion: 'example.com/v1', kind: 'Widget', metadata: { name: 'w1', namespace: 'default' }, status: { phase: 'Done' } },
      { fieldManager: 'status-writer', subresource: 'status', force: true },
    );
    assert.equal((applied.status as { phase: string }).phase, 'Done');
    const merged = await client.patch({ apiVersion: 'example.com/v1', kind: 'Widget', namespace: 'default', name: 'w1' }, 'merge', { status: { extra: true } }, { subresource: 'status' });
    assert.deepEqual(merged.status, { phase: 'Done', extra: true });
  });

  test('delete: preconditions and finalizers', async () => {
    const a = await client.create({ ...cm('pre'), metadata: { name: 'pre', namespace: 'default', finalizers: ['example.com/hold'] } });
    const ref = { apiVersion: 'v1', kind: 'ConfigMap', namespace: 'default', name: 'pre' };
    await assert.rejects(client.delete(ref, { preconditions: { uid: 'not-the-uid' } }), isConflict);
    const pending = await client.delete(ref, { preconditions: { uid: a.metadata.uid }, propagationPolicy: 'Foreground' });
    assert.ok(pending?.metadata.deletionTimestamp, 'an object held by a finalizer is returned with its deletionTimestamp');
    await client.patch(ref, 'merge', { metadata: { finalizers: null } });
    assert.equal(await client.getIfExists(ref), undefined);
    await client.create(cm('dry'));
    await client.delete({ ...ref, name: 'dry' }, { dryRun: true });
    assert.ok(await client.getIfExists({ ...ref, name: 'dry' }), 'a dry-run delete keeps the object');
  });

  test('list: selectors, namespaces and transparent paging', async () => {
    await client.create({ apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'paging' } });
    for (let i = 0; i < 7; i++) {
      await client.create({ ...cm(`p${i}`, { i: String(i) }, { parity: i % 2 ? 'odd' : 'even' }), metadata: { name: `p${i}`, namespace: 'paging', labels: { parity: i % 2 ? 'odd' : 'even' } } });
    }
    const all = await client.list({ apiVersion: 'v1', kind: 'ConfigMap' }, { namespace: 'paging', pageSize: 2 });
    assert.equal(all.items.length, 7);
    assert.ok(all.resourceVersion);
    assert.ok(all.items.every((o) => o.kind === 'ConfigMap' && o.apiVersion === 'v1'), 'list items carry apiVersion and kind');
    const odd = await client.list({ apiVersion: 'v1', kind: 'ConfigMap' }, { namespace: 'paging', labelSelector: { matchLabels: { parity: 'odd' } } });
    assert.deepEqual(odd.items.map((o) => o.metadata.name).sort(), ['p1', 'p3', 'p5']);
    const exprs = await client.list({ apiVersion: 'v1', kind: 'ConfigMap' }, { namespace: 'paging', labelSelector: 'parity in (even),parity!=odd', fieldSelector: 'metadata.name!=p0' });
    assert.deepEqual(exprs.items.map((o) => o.metadata.name).sort(), ['p2', 'p4', 'p6']);
    const everywhere = await client.list({ apiVersion: 'v1', kind: 'ConfigMap' }, { labelSelector: 'parity' });
    assert.equal(everywhere.items.length, 7);
  });

  test('discovery: a CRD installed later becomes usable without a new client; missing kinds are typed', async () => {
    const gvk = { apiVersion: 'late.example.com/v1', kind: 'Widget' };
    await assert.rejects(client.list(gvk), (e) => isKindNotInstalled(e) && e.kind === 'Widget' && e.apiVersion === 'late.example.com/v1');
    await assert.rejects(client.get({ apiVersion: 'v1', kind: 'NoSuchKind', name: 'x' }), isKindNotInstalled);
    await client.create(widgetCrd('late.example.com'));
    const w = await client.create({ ...gvk, metadata: { name: 'now', namespace: 'default' } });
    assert.equal(w.metadata.name, 'now');
    const info = await client.resource(gvk);
    assert.deepEqual({ plural: info.plural, namespaced: info.namespaced, subs: info.subresources }, { plural: 'widgets', namespaced: true, subs: ['status'] });
  });

  test('errors: Invalid carries causes; an unreachable server is UnreachableError, not NotFound', async () => {
    await assert.rejects(
      client.create({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'Bad_Name', namespace: 'default' } }),
      (e) => isInvalid(e) && e.code === 422 && (e.details?.causes ?? []).some((c) => c.field === 'metadata.name'),
    );
    const port = await closedPort();
    const info = await api.cluster();
    const dead = createKubeClient({ object: singleContextKubeConfig({ server: `https://127.0.0.1:${port}/clusters/test`, caPem: api.server.caCertificate, token: info.token }) });
    await assert.rejects(dead.version(), (e) => isUnreachable(e) && e.reason === 'ConnectionRefused' && isUnavailable(e) && !isNotFound(e));
    await assert.rejects(dead.get({ apiVersion: 'v1', kind: 'ConfigMap', namespace: 'default', name: 'x' }), isUnreachable);
    dead.close();
    // A wrong token is a 401 answer, not an unreachable cluster.
    const kc = await api.kubeConfig();
    const badToken = createKubeClient({ kubeConfig: kc });
    (badToken.kubeConfig.users[0] as { token?: string }).token = 'wrong';
    await assert.rejects(badToken.list({ apiVersion: 'v1', kind: 'ConfigMap' }), (e) => (e as { code?: number }).code === 401);
    badToken.close();
  });

  test('TLS: the kubeconfig CA verifies the server (one TLS context per client, reused by every socket)', async () => {
    const info = await api.cluster();
    const other = await startTestApiServer();
    try {
      assert.notEqual(other.server.caCertificate, api.server.caCertificate);
      const good = createKubeClient({ object: singleContextKubeConfig({ server: info.server, caPem: api.server.caCertificate, token: info.token }) });
      const wrongCa = createKubeClient({ object: singleContextKubeConfig({ server: info.server, caPem: other.server.caCertificate, token: info.token }) });
      try {
        // Several requests at once: several sockets, all from one context.
        await Promise.all(Array.from({ length: 4 }, () => good.version()));
        await assert.rejects(wrongCa.version(), (e) => isUnreachable(e) && !isNotFound(e));
      } finally {
        good.close();
        wrongCa.close();
      }
    } finally {
      await other.stop();
    }
  });

  test('exec credential plugins supply the token (client-node runs them; the token is cached)', async () => {
    const info = await api.cluster();
    const dir = mkdtempSync(join(tmpdir(), 'ripple-exec-'));
    const script = join(dir, 'plugin.mjs');
    const counter = join(dir, 'calls');
    writeFileSync(
      script,
      `import { appendFileSync } from 'node:fs';\nappendFileSync(${JSON.stringify(counter)}, 'x');\n` +
        `process.stdout.write(JSON.stringify({ apiVersion: 'client.authentication.k8s.io/v1beta1', kind: 'ExecCredential', status: { token: ${JSON.stringify(info.token)}, expirationTimestamp: new Date(Date.now() + 3600e3).toISOString() } }));\n`,
    );
    const viaExec = createKubeClient({ object: singleContextKubeConfig({ server: info.server, caPem: api.server.caCertificate, exec: { apiVersion: 'client.authentication.k8s.io/v1beta1', command: process.execPath, args: [script], interactiveMode: 'Never' } }) });
    try {
      for (let i = 0; i < 3; i++) assert.ok((await viaExec.list({ apiVersion: 'v1', kind: 'Namespace' })).items.length > 0);
      assert.equal(readFileSync(counter, 'utf8'), 'x', 'the plugin ran once; its unexpired token was reused');
    } finally {
      viaExec.close();
      rmSync(dir, { recursive: true, force: true });
    }
  });

  test('plain HTTP servers work with a token (as with kubectl)', async () => {
    const info = await api.cluster();
    const plain = createKubeClient({ object: singleContextKubeConfig({ server: info.httpServer, token: info.token }) });
    const v = await plain.version();
    assert.equal(v.major, '1');
    plain.close();
  });

  test('watch: events in order, resume from a resourceVersion, 410 when too old, stop ends it', async () => {
    const start = await client.list({ apiVersion: 'v1', kind: 'ConfigMap' }, { namespace: 'default' });
    const events: WatchEvent[] = [];
    const w = await client.watch({ apiVersion: 'v1', kind: 'ConfigMap' }, { namespace: 'default', resourceVersion: start.resourceVersion, labelSelector: 'watch=yes' }, (e) => events.push(e));
    await client.create(cm('w1', { a: '1' }, { watch: 'yes' }));
    await client.patch({ apiVersion: 'v1', kind: 'ConfigMap', namespace: 'default', name: 'w1' }, 'merge', { data: { a: '2' } });
    await client.delete({ apiVersion: 'v1', kind: 'ConfigMap', namespace: 'default', name: 'w1' });
    const deadline = Date.now() + 5000;
    while (events.filter((e) => e.type !== 'BOOKMARK').length < 3 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 10));
    w.stop();
    await w.done;
    assert.deepEqual(events.filter((e) => e.type !== 'BOOKMARK').map((e) => `${e.type}:${e.object.metadata.name}`), ['ADDED:w1', 'MODIFIED:w1', 'DELETED:w1']);
    assert.equal(events[0].object.kind, 'ConfigMap');
  });

  test('watch: metadataOnly streams PartialObjectMetadata (labels kept, data left out)', async () => {
    const start = await client.list({ apiVersion: 'v1', kind: 'ConfigMap' }, { namespace: 'default' });
    const events: WatchEvent[] = [];
    const w = await client.watch({ apiVersion: 'v1', kind: 'ConfigMap' }, { namespace: 'default', resourceVersion: start.resourceVersion, labelSelector: 'watch=meta', metadataOnly: true }, (e) => events.push(e));
    await client.create(cm('m1', { a: 'x'.repeat(1000) }, { watch: 'meta' }));
    await client.delete({ apiVersion: 'v1', kind: 'ConfigMap', namespace: 'default', name: 'm1' });
    const deadline = Date.now() + 5000;
    while (events.filter((e) => e.type !== 'BOOKMARK').length < 2 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 10));
    w.stop();
    await w.done;
    const seen = events.filter((e) => e.type !== 'BOOKMARK');
    assert.deepEqual(seen.map((e) => `${e.type}:${e.object.kind}:${e.object.apiVersion}:${e.object.metadata.name}:${e.object.metadata.labels?.watch}`), [
      'ADDED:PartialObjectMetadata:meta.k8s.io/v1:m1:meta',
      'DELETED:PartialObjectMetadata:meta.k8s.io/v1:m1:meta',
    ]);
    assert.equal((seen[0].object as { data?: unknown }).data, undefined);
  });

  test('writes with metadataOnly answer PartialObjectMetadata (new resourceVersion and generation) and store the whole object', async () => {
    type Meta = KubeObject & { data?: unknown };
    const created = await client.create<Meta>(cm('wm1', { a: 'x'.repeat(5000) }), { metadataOnly: true });
    assert.equal(created.kind, 'PartialObjectMetadata');
    assert.equal(created.apiVersion, 'meta.k8s.io/v1');
    assert.equal(created.data, undefined);
    assert.ok(created.metadata.resourceVersion && created.metadata.uid);
    const applied = await client.apply<Meta>(cm('wm1', { a: 'y'.repeat(5000) }), { fieldManager: 'meta-test', force: true, metadataOnly: true });
    assert.equal(applied.kind, 'PartialObjectMetadata');
    assert.notEqual(applied.metadata.resourceVersion, created.metadata.resourceVersion);
    const patched = await client.patch<Meta>({ apiVersion: 'v1', kind: 'ConfigMap', namespace: 'default', name: 'wm1' }, 'merge', { data: { b: 'z' } }, { metadataOnly: true });
    assert.equal(patched.kind, 'PartialObjectMetadata');
    const stored = await client.get<Meta>({ apiVersion: 'v1', kind: 'ConfigMap', namespace: 'default', name: 'wm1' });
    assert.equal(stored?.metadata.resourceVersion, patched.metadata.resourceVersion);
    assert.deepEqual(stored?.data, { a: 'y'.repeat(5000), b: 'z' });
    // Without it, a write answers the whole object.
    const full = await client.update<Meta>({ ...stored!, data: { a: 'w' } });
    assert.equal(full.kind, 'ConfigMap');
    assert.deepEqual(full.data, { a: 'w' });
    await client.delete({ apiVersion: 'v1', kind: 'ConfigMap', namespace: 'default', name: 'wm1' });
  });

  test('watch: events larger than a network chunk arrive whole, and small ones after them too', async () => {
    const start = await client.list({ apiVersion: 'v1', kind: 'ConfigMap' }, { namespace: 'default' });
    const events: WatchEvent[] = [];
    const w = await client.watch({ apiVersion: 'v1', kind: 'ConfigMap' }, { namespace: 'default', resourceVersion: start.resourceVersion, labelSelector: 'watch=big' }, (e) => events.push(e));
    // ~600 KB with multi-byte characters: split over many chunks, some inside a character's bytes.
    const big = 'é€😀x'.repeat(60_000);
    await client.create(cm('big1', { a: big }, { watch: 'big' }));
    await client.create(cm('small1', { a: '1' }, { watch: 'big' }));
    await client.patch({ apiVersion: 'v1', kind: 'ConfigMap', namespace: 'default', name: 'big1' }, 'merge', { data: { a: big + 'y' } });
    const deadline = Date.now() + 10_000;
    while (events.filter((e) => e.type !== 'BOOKMARK').length < 3 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 10));
    w.stop();
    await w.done;
    const seen = events.filter((e) => e.type !== 'BOOKMARK');
    assert.deepEqual(seen.map((e) => `${e.type}:${e.object.metadata.name}`), ['ADDED:big1', 'ADDED:small1', 'MODIFIED:big1']);
    assert.equal((seen[0].object as { data?: { a?: string } }).data?.a, big);
    assert.equal((seen[2].object as { data?: { a?: string } }).data?.a, big + 'y');
    for (const n of ['big1', 'small1']) await client.delete({ apiVersion: 'v1', kind: 'ConfigMap', namespace: 'default', name: n });
  });

  test('the window is also bounded in bytes: big objects push old versions out (410 Gone), small ones stay', async () => {
    const small = await startTestApiServer({ watchWindowBytes: 64 * 1024 });
    try {
      const c = new KubeClient(await small.kubeConfig());
      const before = (await c.list({ apiVersion: 'v1', kind: 'ConfigMap' })).resourceVersion;
      // Four 20 KB objects: a 64 KiB window keeps three, so resuming from before the first one is 410 Gone…
      const rvs: string[] = [];
      for (let i = 0; i < 4; i++) rvs.push((await c.create(cm(`big${i}`, { blob: 'x'.repeat(20_000) }))).metadata.resourceVersion!);
      const gone = await c.watch({ apiVersion: 'v1', kind: 'ConfigMap' }, { resourceVersion: before }, () => {});
      await assert.rejects(gone.done, (e) => isGone(e) && e.code === 410);
      // …while resuming after big1 replays big2 and big3.
      const seen: string[] = [];
      const recent = await c.watch({ apiVersion: 'v1', kind: 'ConfigMap' }, { resourceVersion: rvs[1] }, (e) => {
        if (e.type !== 'BOOKMARK') seen.push(`${e.type}:${e.object.metadata.name}`);
      });
      const deadline = Date.now() + 5000;
      while (seen.length < 2 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 10));
      recent.stop();
      await recent.done;
      assert.deepEqual(seen, ['ADDED:big2', 'ADDED:big3']);
      c.close();
    } finally {
      await small.stop();
    }
  });

  test('watch from a resourceVersion older than the server window fails with 410 Gone', async () => {
    const small = await startTestApiServer({ watchWindow: 2 });
    try {
      const c = new KubeClient(await small.kubeConfig());
      const rv = (await c.list({ apiVersion: 'v1', kind: 'ConfigMap' })).resourceVersion;
      for (let i = 0; i < 5; i++) await c.create(cm(`g${i}`));
      const w = await c.watch({ apiVersion: 'v1', kind: 'ConfigMap' }, { resourceVersion: rv }, () => {});
      await assert.rejects(w.done, (e) => isGone(e) && e.code === 410);
      c.close();
    } finally {
      await small.stop();
    }
  });
});
