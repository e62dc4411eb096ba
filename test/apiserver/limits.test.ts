// Hostile request bodies and per-cluster limits: answered with kube-apiserver's codes and messages, one cluster's
// limit never touches another cluster, and nothing refused is half-stored.
import { strict as assert } from 'node:assert';
import { after, before, test } from 'node:test';
import { startTestApiServer, type TestApiServer } from '../support/apiserver.js';
import { RawClient } from './raw.js';

let srv: TestApiServer;
let api: RawClient;
let other: RawClient;
const CMS = '/api/v1/namespaces/default/configmaps';
const cm = (name: string, data: Record<string, string> = {}) => ({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name }, data });

before(async () => {
  srv = await startTestApiServer({ clusters: ['small', 'other'], limits: { maxObjects: 40, maxBytes: 64 * 1024, maxNestingDepth: 100 } });
  api = new RawClient(await srv.cluster('small'));
  other = new RawClient(await srv.cluster('other'));
});
after(() => srv.stop());

test('a body nested deeper than the limit is 400 with Go JSON decoder\'s message, in JSON and YAML', async () => {
  const deep = (d: number) => `{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"deep${d}"},"x":${'{"a":'.repeat(d)}1${'}'.repeat(d)}}`;
  const r = await api.post(CMS, deep(10_001), 'application/json');
  assert.equal(r.status, 400);
  assert.equal(r.json.reason, 'BadRequest');
  assert.equal(r.json.message, "couldn't get version/kind; json parse error: invalid character '{' exceeded max depth");
  // Brackets inside strings do not count.
  const quoted = await api.post(CMS, cm('quoted', { a: '['.repeat(500) }));
  assert.equal(quoted.status, 201);
  const flow = await api.post(CMS, `apiVersion: v1\nkind: ConfigMap\nmetadata: {name: y}\nx: ${'['.repeat(150)}${']'.repeat(150)}\n`, 'application/yaml');
  assert.equal(flow.status, 400);
  assert.match(flow.json.message, /exceeded max depth$/);
  const block = await api.post(CMS, `apiVersion: v1\nkind: ConfigMap\nmetadata: {name: y}\nx:\n${Array.from({ length: 150 }, (_, i) => `${'  '.repeat(i + 1)}k:`).join('\n')} 1\n`, 'application/yaml');
  assert.equal(block.status, 400);
  assert.match(block.json.message, /exceeded max depth$/);
  const patch = await api.patch(`${CMS}/quoted`, `{"data":${'{"a":'.repeat(200)}1${'}'.repeat(200)}}`, 'application/merge-patch+json');
  assert.equal(patch.status, 400);
});

test('unknown fields of built-in kinds are dropped with a Warning; fieldValidation=Strict refuses them', async () => {
  const r = await api.post(CMS, { ...cm('unknown', { a: 'b' }), foo: 1, metadata: { name: 'unknown', bogus: 2 } });
  assert.equal(r.status, 201);
  assert.equal(r.json.foo, undefined);
  assert.equal(r.json.metadata.bogus, undefined);
  assert.deepEqual(r.headers.get('warning'), '299 - "unknown field \\"metadata.bogus\\"", 299 - "unknown field \\"foo\\""', 'in document order');
  assert.equal((await api.get(`${CMS}/unknown`)).json.foo, undefined, 'not stored either');
  const svc = await api.post('/api/v1/namespaces/default/services', { apiVersion: 'v1', kind: 'Service', metadata: { name: 's' }, spec: { foo: 1, ports: [{ port: 80, bar: 2 }] } });
  assert.equal(svc.status, 201);
  assert.equal(svc.json.spec.foo, undefined);
  assert.equal(svc.json.spec.ports[0].bar, undefined);
  assert.match(svc.headers.get('warning') ?? '', /unknown field \\"spec\.foo\\".*unknown field \\"spec\.ports\[0\]\.bar\\"/);
  const strict = await api.post(`${CMS}?fieldValidation=Strict`, { ...cm('strict'), foo: 1 });
  assert.equal(strict.status, 400);
  assert.equal(strict.json.message, 'ConfigMap in version "v1" cannot be handled as a ConfigMap: strict decoding error: unknown field "foo"');
  const ignore = await api.post(`${CMS}?fieldValidation=Ignore`, { ...cm('ignore'), foo: 1 });
  assert.equal(ignore.status, 201);
  assert.equal(ignore.headers.get('warning'), null);
  assert.equal(ignore.json.foo, undefined);
});

test('one cluster beyond its object or byte limit gets 403; others and shrinking writes are unaffected', async () => {
  let refused: { status: number; json: { reason: string; message: string } } | undefined;
  let created = 0;
  for (let i = 0; i < 60 && !refused; i++) {
    const r = await api.post(CMS, cm(`n${i}`));
    if (r.status === 201) created++;
    else refused = r;
  }
  assert.ok(refused, 'the object limit was reached');
  assert.equal(refused.status, 403);
  assert.equal(refused.json.reason, 'Forbidden');
  assert.match(refused.json.message, /^configmaps "n\d+" is forbidden: exceeded quota: cluster-objects, requested: count=1, used: count=40, limited: count=40$/);
  assert.ok(created > 0);
  // The other cluster is not limited by this one's usage.
  assert.equal((await other.post(CMS, cm('fine'))).status, 201);
  // Deleting makes room again.
  assert.equal((await api.req('DELETE', `${CMS}/n0`)).status, 200);
  assert.equal((await api.post(CMS, cm('again'))).status, 201);
  // Bytes: growing an object past the cluster's byte budget is refused; shrinking it is not.
  const grow = await api.put(`${CMS}/again`, cm('again', { a: 'x'.repeat(70 * 1024) }));
  assert.equal(grow.status, 403);
  assert.match(grow.json.message, /exceeded quota: cluster-bytes, requested: bytes=\d+, used: bytes=\d+, limited: bytes=65536$/);
  assert.deepEqual((await api.get(`${CMS}/again`)).json.data ?? {}, {}, 'nothing of the refused write was stored');
  assert.equal((await api.put(`${CMS}/again`, cm('again'))).status, 200);
});

test('a CRD pattern is matched by RE2: a catastrophic pattern answers at once with 422, lookaround is refused', async () => {
  const crd = (name: string, pattern: string) => ({
    apiVersion: 'apiextensions.k8s.io/v1',
    kind: 'CustomResourceDefinition',
    metadata: { name: `${name}s.re.example.com` },
    spec: {
      group: 're.example.com',
      names: { plural: `${name}s`, singular: name, kind: name[0].toUpperCase() + name.slice(1), listKind: `${name[0].toUpperCase() + name.slice(1)}List` },
      scope: 'Namespaced',
      versions: [{ name: 'v1', served: true, storage: true, schema: { openAPIV3Schema: { type: 'object', properties: { spec: { type: 'object', properties: { v: { type: 'string', pattern } } } } } } }],
    },
  });
  const CRDS = '/apis/apiextensions.k8s.io/v1/customresourcedefinitions';
  assert.equal((await other.post(CRDS, crd('evil', '^(a+)+$'))).status, 201);
  const look = await other.post(CRDS, crd('look', '^(?!x)'));
  assert.equal(look.status, 422);
  assert.match(look.json.message, /must be a valid regular expression, but isn't: error parsing regexp: invalid or unsupported Perl syntax: `\(\?!`/);
  const path = '/apis/re.example.com/v1/namespaces/default/evils';
  let created = 0;
  for (let i = 0; i < 50 && created === 0; i++) {
    const r = await other.post(path, { apiVersion: 're.example.com/v1', kind: 'Evil', metadata: { name: 'e' }, spec: { v: `${'a'.repeat(40_000)}!` } });
    if (r.status === 404) {
      await new Promise((res) => setTimeout(res, 20)); // the new resource is being registered
      continue;
    }
    assert.equal(r.status, 422);
    assert.match(r.json.message, /spec\.v: Invalid value: "a+!": spec\.v in body should match '\^\(a\+\)\+\$'/);
    created = 1;
  }
  assert.equal(created, 1);
  assert.equal((await other.post(path, { apiVersion: 're.example.com/v1', kind: 'Evil', metadata: { name: 'ok' }, spec: { v: 'aaa' } })).status, 201);
});
