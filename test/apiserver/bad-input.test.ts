// Bad input gets kube-apiserver's status codes, reasons and messages, and never corrupts storage.
import { strict as assert } from 'node:assert';
import { after, before, test } from 'node:test';
import { startTestApiServer, type TestApiServer } from '../support/apiserver.js';
import { RawClient } from './raw.js';

let srv: TestApiServer;
let api: RawClient;
const CMS = '/api/v1/namespaces/default/configmaps';

before(async () => {
  srv = await startTestApiServer({ clusters: ['bad'] });
  api = new RawClient(await srv.cluster('bad'));
});
after(() => srv.stop());

test('authentication: no or wrong token is 401 Unauthorized', async () => {
  const anon = new RawClient(await srv.cluster('bad'), '');
  const r = await anon.get(CMS);
  assert.equal(r.status, 401);
  assert.equal(r.text, '{"kind":"Status","apiVersion":"v1","metadata":{},"status":"Failure","message":"Unauthorized","reason":"Unauthorized","code":401}');
  const wrong = new RawClient(await srv.cluster('bad'), 'x'.repeat(48));
  assert.equal((await wrong.get(CMS)).status, 401);
  // Tokens are per cluster.
  const other = await srv.cluster('bad-2');
  assert.equal((await new RawClient(await srv.cluster('bad'), other.token).get(CMS)).status, 401);
});

test('malformed JSON and YAML bodies are 400 BadRequest', async () => {
  const j = await api.post(CMS, '{"metadata": {"name": "x"', 'application/json');
  assert.equal(j.status, 400);
  assert.equal(j.json.reason, 'BadRequest');
  assert.match(j.json.message, /^couldn't get version\/kind; json parse error: /);
  const y = await api.post(CMS, 'metadata:\n  name: [unclosed\n', 'application/yaml');
  assert.equal(y.status, 400);
  assert.match(y.json.message, /^error converting YAML to JSON: yaml: /);
  const arr = await api.post(CMS, '[1,2]');
  assert.equal(arr.status, 400);
  const typed = await api.post(CMS, { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'typed' }, data: { n: 1 } });
  assert.equal(typed.status, 400);
  assert.equal(typed.json.message, 'ConfigMap in version "v1" cannot be handled as a ConfigMap: json: cannot unmarshal number into Go struct field ConfigMap.data of type string');
});

test('unknown paths and kinds', async () => {
  const p = await api.get('/api/v1/widgets');
  assert.equal(p.status, 404);
  assert.equal(p.text, '{"kind":"Status","apiVersion":"v1","metadata":{},"status":"Failure","message":"the server could not find the requested resource","reason":"NotFound","details":{},"code":404}');
  assert.equal((await api.get('/apis/nope.io/v1')).status, 404);
  const wrongVersion = await api.post(CMS, { apiVersion: 'apps/v1', kind: 'ConfigMap', metadata: { name: 'x' } });
  assert.equal(wrongVersion.status, 400);
  assert.equal(wrongVersion.json.message, 'the API version in the data (apps/v1) does not match the expected API version (v1)');
  const wrongKind = await api.post(CMS, { apiVersion: 'v1', kind: 'Secret', metadata: { name: 'x' } });
  assert.equal(wrongKind.status, 400);
  const mismatch = await api.post(CMS, { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'x', namespace: 'kube-system' } });
  assert.equal(mismatch.status, 400);
  assert.equal(mismatch.json.message, 'the namespace of the provided object does not match the namespace sent on the request');
});

test('invalid names and labels are 422 Invalid with kube\'s messages', async () => {
  const name = await api.post(CMS, { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'Bad_Name' } });
  assert.equal(name.status, 422);
  assert.equal(
    name.text,
    '{"kind":"Status","apiVersion":"v1","metadata":{},"status":"Failure","message":"ConfigMap \\"Bad_Name\\" is invalid: metadata.name: Invalid value: \\"Bad_Name\\": a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, \'-\' or \'.\', and must start and end with an alphanumeric character (e.g. \'example.com\', regex used for validation is \'[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*\')","reason":"Invalid","details":{"name":"Bad_Name","kind":"ConfigMap","causes":[{"reason":"FieldValueInvalid","message":"Invalid value: \\"Bad_Name\\": a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, \'-\' or \'.\', and must start and end with an alphanumeric character (e.g. \'example.com\', regex used for validation is \'[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*\')","field":"metadata.name"}]},"code":422}',
  );
  const svc = await api.post('/api/v1/namespaces/default/services', { apiVersion: 'v1', kind: 'Service', metadata: { name: '1web' }, spec: { ports: [{ port: 80 }] } });
  assert.equal(svc.status, 422);
  assert.match(svc.json.message, /a DNS-1035 label must consist of lower case alphanumeric characters or '-', start with an alphabetic character/);
  const ns = await api.post('/api/v1/namespaces', { apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'a.b' } });
  assert.equal(ns.status, 422);
  assert.equal(ns.json.message, 'Namespace "a.b" is invalid: metadata.name: Invalid value: "a.b": must not contain dots');
  const label = await api.post(CMS, { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'l', labels: { 'bad key!': 'v', ok: 'bad value!' } } });
  assert.equal(label.status, 422);
  assert.deepEqual(label.json.details.causes.map((c: { field: string }) => c.field), ['metadata.labels', 'metadata.labels']);
  assert.match(label.json.details.causes[1].message, /^Invalid value: "bad value!": a valid label must be an empty string or consist of alphanumeric characters/);
  const noName = await api.post(CMS, { apiVersion: 'v1', kind: 'ConfigMap', metadata: {} });
  assert.equal(noName.status, 422);
  assert.equal(noName.json.message, 'ConfigMap "" is invalid: metadata.name: Required value: name or generateName is required');
});

test('oversized requests and objects', async () => {
  const big = 'x'.repeat(1024 * 1024 + 10);
  const data = await api.post(CMS, { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'big' }, data: { a: big } });
  assert.equal(data.status, 422);
  assert.equal(data.json.message, 'ConfigMap "big" is invalid: []: Too long: must have at most 1048576 bytes');
  const etcd = await api.post('/api/v1/namespaces/default/endpoints', { apiVersion: 'v1', kind: 'Endpoints', metadata: { name: 'huge', annotations: { a: 'x' } }, subsets: [{ addresses: Array.from({ length: 45000 }, (_, i) => ({ ip: `10.0.${i >> 8 & 255}.${i & 255}`, hostname: `host-${i}` })) }] });
  assert.equal(etcd.status, 413);
  assert.equal(etcd.json.reason, 'RequestEntityTooLarge');
  const body = await api.post(CMS, { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'body' }, data: { a: 'y'.repeat(3 * 1024 * 1024) } });
  assert.equal(body.status, 413);
  assert.equal(body.json.message, 'Request entity too large: limit is 3145728');
});

test('methods, media types and query parameters', async () => {
  assert.equal((await api.put(CMS, {})).status, 405);
  const media = await api.patch(`${CMS}/x`, '{}', 'text/plain');
  assert.equal(media.status, 415);
  assert.equal(media.json.reason, 'UnsupportedMediaType');
  await api.post(CMS, { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'target' } });
  const smpOnCrd = await api.post('/apis/apiextensions.k8s.io/v1/customresourcedefinitions', {
    apiVersion: 'apiextensions.k8s.io/v1',
    kind: 'CustomResourceDefinition',
    metadata: { name: 'things.bad.io' },
    spec: { group: 'bad.io', names: { kind: 'Thing', plural: 'things' }, scope: 'Cluster', versions: [{ name: 'v1', served: true, storage: true, schema: { openAPIV3Schema: { type: 'object', 'x-kubernetes-preserve-unknown-fields': true } } }] },
  });
  assert.equal(smpOnCrd.status, 201, smpOnCrd.text);
  await api.post('/apis/bad.io/v1/things', { apiVersion: 'bad.io/v1', kind: 'Thing', metadata: { name: 't' } });
  const smp = await api.patch('/apis/bad.io/v1/things/t', '{}', 'application/strategic-merge-patch+json');
  assert.equal(smp.status, 415);
  const apply = await api.patch(`${CMS}/target`, 'apiVersion: v1\nkind: ConfigMap\n', 'application/apply-patch+yaml');
  assert.equal(apply.status, 422);
  assert.equal(apply.json.message, 'PatchOptions.meta.k8s.io "" is invalid: fieldManager: Required value: is required for apply patch');
  const dry = await api.post(`${CMS}?dryRun=Maybe`, { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'd' } });
  assert.equal(dry.status, 422);
  const badRv = await api.get(`${CMS}?watch=1&resourceVersion=abc`);
  assert.equal(badRv.status, 400);
  const accept = await api.get(CMS, 'application/vnd.kubernetes.protobuf');
  assert.equal(accept.status, 406);
});

test('storage is intact after all of that', async () => {
  const names = (await api.get(CMS)).json.items.map((i: { metadata: { name: string } }) => i.metadata.name);
  assert.deepEqual(names, ['target']);
  await srv.server.stop();
  // Reopen the same data directory: everything written is readable again.
  const { startApiServer } = await import('../../src/apiserver/index.js');
  const again = await startApiServer({ dataDir: srv.dir, durability: 'process', plainHttp: true });
  try {
    const c = new RawClient(again.cluster('bad'));
    assert.deepEqual((await c.get(CMS)).json.items.map((i: { metadata: { name: string } }) => i.metadata.name), ['target']);
  } finally {
    await again.stop();
  }
});
