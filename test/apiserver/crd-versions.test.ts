// A custom resource is validated against the schema of the version it is written in (kube-apiserver's
// customResourceStrategy), so an old served version with a looser schema keeps accepting its old shapes.
import { strict as assert } from 'node:assert';
import { after, before, test } from 'node:test';
import { startTestApiServer, type TestApiServer } from '../support/apiserver.js';
import { eventually } from '../support/eventually.js';

let api: TestApiServer;
let base: string;
let headers: Record<string, string>;
before(async () => {
  api = await startTestApiServer({ clusters: ['crdv'] });
  const c = await api.cluster('crdv');
  base = c.httpServer;
  headers = { authorization: `Bearer ${c.token}`, 'content-type': 'application/json' };
});
after(() => api.stop());

const req = (method: string, path: string, body?: unknown) =>
  fetch(base + path, { method, headers, body: body === undefined ? undefined : JSON.stringify(body) });

test('each served version validates writes with its own schema (conversion None)', async () => {
  const selector = (type: object) => ({
    type: 'object',
    properties: { spec: { type: 'object', properties: { selector: type } } },
  });
  const crd = {
    apiVersion: 'apiextensions.k8s.io/v1',
    kind: 'CustomResourceDefinition',
    metadata: { name: 'widgets.example.com' },
    spec: {
      group: 'example.com',
      scope: 'Cluster',
      names: { plural: 'widgets', singular: 'widget', kind: 'Widget', listKind: 'WidgetList' },
      versions: [
        { name: 'v1alpha1', served: true, storage: false, schema: { openAPIV3Schema: selector({ 'x-kubernetes-int-or-string': true }) } },
        { name: 'v1beta1', served: true, storage: true, schema: { openAPIV3Schema: selector({ type: 'object', properties: { matchLabels: { type: 'object', additionalProperties: { type: 'string' } } } }) } },
      ],
    },
  };
  assert.equal((await req('POST', '/apis/apiextensions.k8s.io/v1/customresourcedefinitions', crd)).status, 201);
  await eventually(async () => (await req('GET', '/apis/example.com/v1alpha1/widgets')).status, (s) => s === 200);

  const old = await req('POST', '/apis/example.com/v1alpha1/widgets', {
    apiVersion: 'example.com/v1alpha1', kind: 'Widget', metadata: { name: 'old' }, spec: { selector: 42 },
  });
  assert.equal(old.status, 201, await old.text());

  const bad = await req('POST', '/apis/example.com/v1beta1/widgets', {
    apiVersion: 'example.com/v1beta1', kind: 'Widget', metadata: { name: 'new' }, spec: { selector: 42 },
  });
  assert.equal(bad.status, 422);
  const status = (await bad.json()) as { reason: string; message: string };
  assert.equal(status.reason, 'Invalid');
  assert.match(status.message, /spec\.selector: Invalid value: "integer": spec\.selector in body must be of type object/);

  // Updating the old object through its own version keeps validating against that version.
  const got = (await (await req('GET', '/apis/example.com/v1alpha1/widgets/old')).json()) as { metadata: Record<string, unknown> };
  const upd = await req('PUT', '/apis/example.com/v1alpha1/widgets/old', {
    apiVersion: 'example.com/v1alpha1', kind: 'Widget', metadata: got.metadata, spec: { selector: 43 },
  });
  assert.equal(upd.status, 200, await upd.text());
});

test('apply bodies sent as JSON take the JSON path and YAML still works', async () => {
  const apply = (body: string) =>
    fetch(base + '/api/v1/namespaces/default/configmaps/applied?fieldManager=t', {
      method: 'PATCH',
      headers: { ...headers, 'content-type': 'application/apply-patch+yaml' },
      body,
    });
  const json = await apply(JSON.stringify({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'applied' }, data: { a: '1' } }));
  assert.equal(json.status, 201, await json.text());
  const yaml = await apply('apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: applied\ndata:\n  a: "2"\n');
  const text = await yaml.text();
  assert.equal(yaml.status, 200, text);
  assert.deepEqual((JSON.parse(text) as { data: unknown }).data, { a: '2' });
});
