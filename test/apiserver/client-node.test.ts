// The embedded API server driven by @kubernetes/client-node, the client Ripple's controllers use: typed CRUD,
// informers (ListWatch) including relisting after a restart, Watch with resourceVersion and 410, paging, conflicts
// and server-side apply through KubernetesObjectApi.
import * as k8s from '@kubernetes/client-node';
import { strict as assert } from 'node:assert';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { startApiServer } from '../../src/apiserver/index.js';
import { startTestApiServer, type TestApiServer } from '../support/apiserver.js';
import { eventually } from '../support/eventually.js';

let srv: TestApiServer;
let kc: k8s.KubeConfig;
let core: k8s.CoreV1Api;
let n = 0;
async function ns(): Promise<string> {
  const name = `cn${++n}`;
  await core.createNamespace({ body: { metadata: { name } } });
  return name;
}
const cm = (name: string, data: Record<string, string> = { k: 'v' }): k8s.V1ConfigMap => ({ metadata: { name }, data });
function statusCode(e: unknown): number | undefined {
  return e instanceof k8s.ApiException ? e.code : undefined;
}

before(async () => {
  srv = await startTestApiServer({ clusters: ['cn'], watchWindow: 20 });
  kc = await srv.kubeConfig('cn');
  core = kc.makeApiClient(k8s.CoreV1Api);
});
after(() => srv.stop());

describe('typed clients', () => {
  test('create, read, list, replace, delete', async () => {
    const s = await ns();
    const created = await core.createNamespacedConfigMap({ namespace: s, body: cm('a') });
    assert.equal(created.metadata?.namespace, s);
    assert.deepEqual((await core.readNamespacedConfigMap({ name: 'a', namespace: s })).data, { k: 'v' });
    created.data = { k: 'w' };
    const replaced = await core.replaceNamespacedConfigMap({ name: 'a', namespace: s, body: created });
    assert.ok(Number(replaced.metadata?.resourceVersion) > Number(created.metadata?.resourceVersion));
    const l = await core.listNamespacedConfigMap({ namespace: s });
    assert.deepEqual(l.items.map((i) => i.metadata?.name), ['a']);
    const status = await core.deleteNamespacedConfigMap({ name: 'a', namespace: s });
    assert.equal(status.status, 'Success');
    await assert.rejects(core.readNamespacedConfigMap({ name: 'a', namespace: s }), (e) => statusCode(e) === 404);
  });

  test('a stale resourceVersion is 409 Conflict', async () => {
    const s = await ns();
    const c = await core.createNamespacedConfigMap({ namespace: s, body: cm('a') });
    await core.replaceNamespacedConfigMap({ name: 'a', namespace: s, body: { ...c, data: { k: '1' } } });
    await assert.rejects(core.replaceNamespacedConfigMap({ name: 'a', namespace: s, body: { ...c, data: { k: '2' } } }), (e) => {
      assert.equal(statusCode(e), 409);
      assert.equal(JSON.parse((e as k8s.ApiException<string>).body).reason, 'Conflict');
      return true;
    });
  });

  test('list paging with limit and continue', async () => {
    const s = await ns();
    for (let i = 0; i < 7; i++) await core.createNamespacedConfigMap({ namespace: s, body: cm(`p${i}`) });
    const seen: string[] = [];
    let cont: string | undefined;
    let pages = 0;
    do {
      const page = await core.listNamespacedConfigMap({ namespace: s, limit: 3, _continue: cont });
      seen.push(...page.items.map((i) => i.metadata!.name!));
      cont = page.metadata?._continue;
      pages++;
    } while (cont);
    assert.equal(pages, 3);
    assert.deepEqual(seen, ['p0', 'p1', 'p2', 'p3', 'p4', 'p5', 'p6']);
  });
});

describe('watch', () => {
  test('from a resourceVersion, then 410 Gone once it left the window', async () => {
    const s = await ns();
    const list = await core.listNamespacedConfigMap({ namespace: s });
    const rv = list.metadata!.resourceVersion!;
    const events: string[] = [];
    const w = new k8s.Watch(kc);
    const req = await w.watch(`/api/v1/namespaces/${s}/configmaps`, { resourceVersion: rv }, (type, obj) => events.push(`${type} ${obj.metadata.name}`), () => {});
    await core.createNamespacedConfigMap({ namespace: s, body: cm('w1') });
    await core.deleteNamespacedConfigMap({ name: 'w1', namespace: s });
    await eventually(() => events, (e) => e.length === 2);
    assert.deepEqual(events, ['ADDED w1', 'DELETED w1']);
    req.abort();
    // Push the window (20 events) past rv.
    for (let i = 0; i < 25; i++) await core.createNamespacedConfigMap({ namespace: s, body: cm(`f${i}`) });
    const errors: unknown[] = [];
    let done = false;
    await w.watch(`/api/v1/namespaces/${s}/configmaps`, { resourceVersion: rv }, (type, obj) => {
      if (type === 'ERROR') errors.push(obj);
    }, () => (done = true));
    await eventually(() => done, Boolean, { message: 'watch ended' });
    assert.equal(errors.length, 1);
    const st = errors[0] as { code: number; reason: string; message: string };
    assert.equal(st.code, 410);
    assert.equal(st.reason, 'Expired');
    assert.match(st.message, /^too old resource version: \d+ \(\d+\)$/);
  });

  test('an informer tracks adds, updates and deletes', async () => {
    const s = await ns();
    await core.createNamespacedConfigMap({ namespace: s, body: cm('pre') });
    const path = `/api/v1/namespaces/${s}/configmaps`;
    const informer = k8s.makeInformer(kc, path, () => core.listNamespacedConfigMap({ namespace: s }));
    const log: string[] = [];
    informer.on('add', (o) => log.push(`add ${o.metadata?.name}`));
    informer.on('update', (o) => log.push(`update ${o.metadata?.name} ${o.data?.k}`));
    informer.on('delete', (o) => log.push(`delete ${o.metadata?.name}`));
    await informer.start();
    try {
      await core.createNamespacedConfigMap({ namespace: s, body: cm('a') });
      await core.patchNamespacedConfigMap({ name: 'a', namespace: s, body: { data: { k: 'x' } } }, k8s.setHeaderOptions('Content-Type', k8s.PatchStrategy.MergePatch));
      await core.deleteNamespacedConfigMap({ name: 'pre', namespace: s });
      await eventually(() => log, (l) => l.length >= 4, { message: 'informer events' });
      assert.deepEqual(log, ['add pre', 'add a', 'update a x', 'delete pre']);
      assert.deepEqual(informer.list(s).map((o) => o.metadata?.name), ['a']);
    } finally {
      await informer.stop();
    }
  });
});

describe('server-side apply', () => {
  test('KubernetesObjectApi.patch with ServerSideApply: managers, conflicts, force', async () => {
    const s = await ns();
    const client = k8s.KubernetesObjectApi.makeApiClient(kc);
    const spec: k8s.V1ConfigMap = { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'ssa', namespace: s }, data: { a: '1' } };
    const first = await client.patch(spec, undefined, undefined, 'alice', false, k8s.PatchStrategy.ServerSideApply);
    assert.deepEqual((first as k8s.V1ConfigMap).data, { a: '1' });
    const mf = first.metadata?.managedFields ?? [];
    assert.deepEqual(mf.map((e) => [e.manager, e.operation]), [['alice', 'Apply']]);
    await assert.rejects(client.patch({ ...spec, data: { a: '2' } }, undefined, undefined, 'bob', false, k8s.PatchStrategy.ServerSideApply), (e) => {
      assert.equal(statusCode(e), 409);
      const st = JSON.parse((e as k8s.ApiException<string>).body);
      assert.equal(st.reason, 'Conflict');
      assert.equal(st.details.causes[0].field, '.data.a');
      return true;
    });
    const forced = await client.patch({ ...spec, data: { a: '2' } }, undefined, undefined, 'bob', true, k8s.PatchStrategy.ServerSideApply);
    assert.deepEqual((forced as k8s.V1ConfigMap).data, { a: '2' });
  });
});

describe('restart', () => {
  test('an informer resumes after a restart and relists on 410', { timeout: 60_000 }, async () => {
    const dir = mkdtempSync(join(tmpdir(), 'ripple-restart-'));
    let server = await startApiServer({ dataDir: dir, clusters: ['r'], durability: 'process' });
    let informer: k8s.Informer<k8s.V1ConfigMap> & k8s.ObjectCache<k8s.V1ConfigMap> | undefined;
    let stopped = false;
    try {
      const rkc = new k8s.KubeConfig();
      rkc.loadFromString(server.kubeconfigYaml('r'));
      const rcore = rkc.makeApiClient(k8s.CoreV1Api);
      await rcore.createNamespacedConfigMap({ namespace: 'default', body: cm('before') });
      const inf = k8s.makeInformer(rkc, '/api/v1/namespaces/default/configmaps', () => rcore.listNamespacedConfigMap({ namespace: 'default' }));
      informer = inf;
      // The documented client-node pattern: restart the informer when its connection fails.
      inf.on('error', () => setTimeout(() => void (stopped || inf.start().catch(() => undefined)), 50));
      await inf.start();
      await eventually(() => inf.list('default').map((o) => o.metadata?.name), (l) => l.includes('before'));
      // A write elsewhere moves the server past the informer's resourceVersion before the restart.
      await rcore.createNamespacedConfigMap({ namespace: 'kube-system', body: cm('elsewhere') });
      const port = server.port;
      await server.stop();
      server = await startApiServer({ dataDir: dir, durability: 'process' });
      assert.equal(server.port, port, 'the port is reused so kubeconfigs stay valid');
      const rcore2 = rkc.makeApiClient(k8s.CoreV1Api);
      await rcore2.createNamespacedConfigMap({ namespace: 'default', body: cm('after') });
      await rcore2.deleteNamespacedConfigMap({ name: 'before', namespace: 'default' });
      await eventually(() => inf.list('default').map((o) => o.metadata?.name).sort(), (l) => l.join() === 'after', { message: 'informer relisted' });
    } finally {
      stopped = true;
      await informer?.stop();
      await server.stop();
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
