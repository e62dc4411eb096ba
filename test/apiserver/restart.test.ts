// What a restart keeps: tokens, CRDs, load-balancer settings and every allocation (no address or port is handed out
// twice), and resourceVersions keep increasing.
import { strict as assert } from 'node:assert';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import { startApiServer } from '../../src/apiserver/index.js';
import { eventually } from '../support/eventually.js';
import { RawClient } from './raw.js';

test('a restart keeps tokens, CRDs, load balancers and allocations', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'ripple-restart-'));
  let server = await startApiServer({ dataDir: dir, clusters: ['edge'], loadBalancer: [{ cluster: 'edge', pool: ['198.51.100.7'] }], plainHttp: true });
  try {
    const before = server.cluster('edge');
    let api = new RawClient(before);
    const svc = (name: string, spec: Record<string, unknown>) => ({ apiVersion: 'v1', kind: 'Service', metadata: { name }, spec: { ports: [{ port: 80 }], ...spec } });
    const np = (await api.post('/api/v1/namespaces/default/services', svc('np', { type: 'NodePort' }))).json;
    await api.post('/api/v1/namespaces/default/services', svc('lb', { type: 'LoadBalancer' }));
    await eventually(() => api.get('/api/v1/namespaces/default/services/lb'), (r) => !!r.json.status.loadBalancer.ingress);
    await api.post('/apis/apiextensions.k8s.io/v1/customresourcedefinitions', {
      apiVersion: 'apiextensions.k8s.io/v1',
      kind: 'CustomResourceDefinition',
      metadata: { name: 'notes.keep.io' },
      spec: { group: 'keep.io', scope: 'Namespaced', names: { kind: 'Note', plural: 'notes' }, versions: [{ name: 'v1', served: true, storage: true, schema: { openAPIV3Schema: { type: 'object', 'x-kubernetes-preserve-unknown-fields': true } } }] },
    });
    const note = (await api.post('/apis/keep.io/v1/namespaces/default/notes', { apiVersion: 'keep.io/v1', kind: 'Note', metadata: { name: 'n' }, text: 'hi' })).json;
    await server.stop();

    server = await startApiServer({ dataDir: dir, plainHttp: true });
    const after = server.cluster('edge');
    assert.equal(after.token, before.token, 'the token is persisted');
    assert.match(readFileSync(server.kubeconfigPath, 'utf8'), new RegExp(before.token));
    api = new RawClient(after);
    assert.equal((await api.get('/apis/keep.io/v1/namespaces/default/notes/n')).json.text, 'hi', 'CRDs are served again');
    const ip = np.spec.clusterIP;
    const port = np.spec.ports[0].nodePort;
    const ipAgain = await api.post('/api/v1/namespaces/default/services', svc('ip', { clusterIP: ip }));
    assert.equal(ipAgain.status, 422);
    assert.match(ipAgain.json.message, /provided IP is already allocated/);
    const portAgain = await api.post('/api/v1/namespaces/default/services', svc('port', { type: 'NodePort', ports: [{ port: 80, nodePort: port }] }));
    assert.equal(portAgain.status, 422);
    assert.match(portAgain.json.message, /provided port is already allocated/);
    // The pool has one address, still held by "lb": a second LoadBalancer waits.
    await api.post('/api/v1/namespaces/default/services', svc('lb2', { type: 'LoadBalancer' }));
    await new Promise((r) => setTimeout(r, 100));
    assert.deepEqual((await api.get('/api/v1/namespaces/default/services/lb2')).json.status, { loadBalancer: {} });
    await api.delete('/api/v1/namespaces/default/services/lb');
    await eventually(() => api.get('/api/v1/namespaces/default/services/lb2'), (r) => r.json.status.loadBalancer.ingress?.[0]?.ip === '198.51.100.7', { message: 'the freed address moves on' });
    const later = (await api.post('/apis/keep.io/v1/namespaces/default/notes', { apiVersion: 'keep.io/v1', kind: 'Note', metadata: { name: 'm' } })).json;
    assert.ok(Number(later.metadata.resourceVersion) > Number(note.metadata.resourceVersion));
  } finally {
    await server.stop();
    rmSync(dir, { recursive: true, force: true });
  }
});
