import { strict as assert } from 'node:assert';
import { execFile } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import { promisify } from 'node:util';
import { builtinSchema } from './builtin.js';
import { openAPIV2, openAPIV3GroupVersion, openAPIV3Root } from './openapi.js';
import type { JSONSchemaProps, ServedResource } from './types.js';

const verbs = ['create', 'delete', 'deletecollection', 'get', 'list', 'patch', 'update', 'watch'];
const widgetSchema: JSONSchemaProps = {
  type: 'object',
  properties: {
    spec: { type: 'object', description: 'Spec of the widget.', properties: { size: { type: 'integer', description: 'How big.' }, port: { 'x-kubernetes-int-or-string': true } } },
  },
};
const resources: ServedResource[] = [
  { group: '', version: 'v1', kind: 'ConfigMap', plural: 'configmaps', namespaced: true, verbs, subresources: [], schema: builtinSchema('', 'v1', 'ConfigMap')! },
  { group: '', version: 'v1', kind: 'Namespace', plural: 'namespaces', namespaced: false, verbs, subresources: ['status'], schema: builtinSchema('', 'v1', 'Namespace')! },
  { group: 'apps', version: 'v1', kind: 'Deployment', plural: 'deployments', namespaced: true, verbs, subresources: ['status', 'scale'], schema: builtinSchema('apps', 'v1', 'Deployment')! },
  { group: 'example.com', version: 'v1', kind: 'Widget', plural: 'widgets', namespaced: true, verbs, subresources: ['status'], schema: widgetSchema },
];

type Doc = { paths: Record<string, Record<string, any>>; components: { schemas: Record<string, any> } };
const v3 = (gv: string) => openAPIV3GroupVersion(resources, gv) as Doc;

test('v3 root lists each group-version with the server prefix and hash', () => {
  assert.deepEqual(openAPIV3Root(resources, (gv) => `h-${gv.length}`, '/clusters/dev'), {
    paths: {
      'api/v1': { serverRelativeURL: '/clusters/dev/openapi/v3/api/v1?hash=h-6' },
      'apis/apps/v1': { serverRelativeURL: '/clusters/dev/openapi/v3/apis/apps/v1?hash=h-12' },
      'apis/example.com/v1': { serverRelativeURL: '/clusters/dev/openapi/v3/apis/example.com/v1?hash=h-19' },
    },
  });
});

test('v3 group-version: PATCH operations carry the GVK, fieldValidation and (built-ins only) strategic merge patch', () => {
  const apps = v3('apis/apps/v1');
  const patch = apps.paths['/apis/apps/v1/namespaces/{namespace}/deployments/{name}'].patch;
  assert.deepEqual(patch['x-kubernetes-group-version-kind'], { group: 'apps', version: 'v1', kind: 'Deployment' });
  assert.ok(patch.parameters.some((p: { name: string; in: string }) => p.name === 'fieldValidation' && p.in === 'query'));
  assert.ok('application/strategic-merge-patch+json' in patch.requestBody.content);
  assert.equal(apps.paths['/apis/apps/v1/namespaces/{namespace}/deployments/{name}/scale'].get['x-kubernetes-group-version-kind'].kind, 'Scale');
  const widget = v3('example.com/v1');
  const wpatch = widget.paths['/apis/example.com/v1/namespaces/{namespace}/widgets/{name}'].patch;
  assert.ok(!('application/strategic-merge-patch+json' in wpatch.requestBody.content));
  const def = widget.components.schemas['com.example.v1.Widget'];
  assert.deepEqual(def['x-kubernetes-group-version-kind'], [{ group: 'example.com', version: 'v1', kind: 'Widget' }]);
  assert.equal(def.properties.metadata.allOf[0].$ref, '#/components/schemas/io.k8s.apimachinery.pkg.apis.meta.v1.ObjectMeta');
  assert.ok(widget.components.schemas['io.k8s.apimachinery.pkg.apis.meta.v1.ObjectMeta']);
  assert.ok(widget.components.schemas['com.example.v1.WidgetList']);
  assert.ok(v3('api/v1').paths['/api/v1/namespaces/{name}/status']);
});

test('every $ref of every document resolves', () => {
  const docs: [string, Record<string, unknown>][] = [
    ...['api/v1', 'apis/apps/v1', 'apis/example.com/v1'].map((gv) => ['#/components/schemas/', v3(gv).components.schemas] as [string, Record<string, unknown>]),
    ['#/definitions/', (openAPIV2(resources) as { definitions: Record<string, unknown> }).definitions],
  ];
  for (const [prefix, defs] of docs) {
    const refs: string[] = [];
    JSON.stringify(defs, (k, v) => (k === '$ref' ? (refs.push(v as string), v) : v));
    for (const r of refs) assert.ok(r.startsWith(prefix) && defs[r.slice(prefix.length)], `dangling ${r}`);
  }
});

// ---- kubectl 1.32 against a minimal discovery + OpenAPI server ----

const KUBECTL = '/usr/bin/kubectl';
const run = promisify(execFile);
let server: Server | undefined;
let dir = '';
const requests: { method: string; url: string; type: string; body: string }[] = [];
const stored = new Map<string, object>();

function discovery(path: string): object | undefined {
  const list = (groupVersion: string, rs: ServedResource[]) => ({
    kind: 'APIResourceList',
    apiVersion: 'v1',
    groupVersion,
    resources: rs.map((r) => ({ name: r.plural, singularName: r.kind.toLowerCase(), namespaced: r.namespaced, kind: r.kind, verbs })),
  });
  if (path === '/version') return { major: '1', minor: '32', gitVersion: 'v1.32.0' };
  if (path === '/api') return { kind: 'APIVersions', versions: ['v1'], serverAddressByClientCIDRs: [{ clientCIDR: '0.0.0.0/0', serverAddress: '127.0.0.1' }] };
  if (path === '/apis') {
    const groups = ['apps', 'example.com'].map((name) => ({ name, versions: [{ groupVersion: `${name}/v1`, version: 'v1' }], preferredVersion: { groupVersion: `${name}/v1`, version: 'v1' } }));
    return { kind: 'APIGroupList', apiVersion: 'v1', groups };
  }
  if (path === '/api/v1') return list('v1', resources.filter((r) => r.group === ''));
  const m = /^\/apis\/([^/]+)\/v1$/.exec(path);
  if (m) return list(`${m[1]}/v1`, resources.filter((r) => r.group === m[1]));
  return undefined;
}

before(async () => {
  if (!existsSync(KUBECTL)) return;
  dir = mkdtempSync(join(tmpdir(), 'ripple-openapi-'));
  server = createServer((req, res) => {
    let body = '';
    req.on('data', (c) => (body += c));
    req.on('end', () => {
      const url = new URL(req.url ?? '/', 'http://x');
      requests.push({ method: req.method ?? '', url: req.url ?? '', type: req.headers['content-type'] ?? '', body });
      const json = (o: unknown, code = 200) => {
        res.writeHead(code, { 'content-type': 'application/json' });
        res.end(JSON.stringify(o));
      };
      const d = discovery(url.pathname);
      if (d) return json(d);
      if (url.pathname === '/openapi/v3') return json(openAPIV3Root(resources, (gv) => gv.replace(/\W/g, '')));
      if (url.pathname.startsWith('/openapi/v3/')) return json(openAPIV3GroupVersion(resources, url.pathname.slice('/openapi/v3/'.length)));
      if (url.pathname === '/openapi/v2') {
        res.writeHead(406);
        return res.end();
      }
      const obj = stored.get(url.pathname);
      if (req.method === 'GET' && obj) return json(obj);
      if (req.method === 'PATCH' && obj) return json(obj);
      json({ kind: 'Status', apiVersion: 'v1', status: 'Failure', reason: 'NotFound', code: 404, message: 'not found' }, 404);
    });
  });
  await new Promise<void>((resolve) => server!.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as { port: number }).port;
  writeFileSync(
    join(dir, 'kubeconfig'),
    `apiVersion: v1\nkind: Config\nclusters: [{name: c, cluster: {server: "http://127.0.0.1:${port}"}}]\nusers: [{name: u, user: {token: t}}]\ncontexts: [{name: c, context: {cluster: c, user: u, namespace: default}}]\ncurrent-context: c\n`,
  );
});

after(() => {
  server?.close();
  if (dir) rmSync(dir, { recursive: true, force: true });
});

const kubectl = (...args: string[]) => run(KUBECTL, args, { env: { KUBECONFIG: join(dir, 'kubeconfig'), HOME: dir, PATH: process.env.PATH ?? '' } });
const noKubectl = existsSync(KUBECTL) ? false : 'kubectl is not installed';

test('kubectl explain reads built-in and custom kinds, nested fields and union types', { skip: noKubectl }, async () => {
  const ports = await kubectl('explain', 'deployment.spec.template.spec.containers.ports');
  assert.match(ports.stdout, /FIELD: ports <\[\]ContainerPort>/);
  assert.match(ports.stdout, /containerPort\t<integer> -required-/);
  assert.match(ports.stdout, /enum: SCTP, TCP, UDP/);
  const surge = await kubectl('explain', 'deployment.spec.strategy.rollingUpdate.maxSurge');
  assert.match(surge.stdout, /FIELD: maxSurge <IntOrString>/);
  const widget = await kubectl('explain', 'widgets.spec');
  assert.match(widget.stdout, /KIND: {7}Widget/);
  assert.match(widget.stdout, /size\t<integer>\n {4}How big\./);
});

test('kubectl apply computes a strategic merge patch from the v3 document and asks for server-side validation', { skip: noKubectl }, async () => {
  const lastApplied = {
    apiVersion: 'apps/v1',
    kind: 'Deployment',
    metadata: { name: 'web', namespace: 'default' },
    spec: { selector: { matchLabels: { app: 'web' } }, template: { metadata: { labels: { app: 'web' } }, spec: { containers: [{ name: 'a', image: 'a:1' }, { name: 'b', image: 'b:1' }] } } },
  };
  stored.set('/apis/apps/v1/namespaces/default/deployments/web', {
    ...lastApplied,
    metadata: { ...lastApplied.metadata, uid: 'u', resourceVersion: '1', annotations: { 'kubectl.kubernetes.io/last-applied-configuration': JSON.stringify(lastApplied) } },
  });
  const manifest = join(dir, 'web.yaml');
  writeFileSync(
    manifest,
    'apiVersion: apps/v1\nkind: Deployment\nmetadata: {name: web, namespace: default}\nspec:\n  selector: {matchLabels: {app: web}}\n  template:\n    metadata: {labels: {app: web}}\n    spec:\n      containers:\n      - {name: c, image: "c:1"}\n      - {name: a, image: "a:2"}\n',
  );
  await kubectl('apply', '-f', manifest);
  const patch = requests.find((r) => r.method === 'PATCH' && r.url.includes('/deployments/web'));
  assert.ok(patch, 'kubectl sent a PATCH');
  assert.equal(patch.type, 'application/strategic-merge-patch+json');
  assert.match(patch.url, /fieldValidation=Strict/);
  const body = JSON.parse(patch.body) as { spec: unknown };
  assert.deepEqual(body.spec, {
    template: {
      spec: {
        '$setElementOrder/containers': [{ name: 'c' }, { name: 'a' }],
        containers: [{ image: 'c:1', name: 'c' }, { image: 'a:2', name: 'a' }, { $patch: 'delete', name: 'b' }],
      },
    },
  });
  assert.ok(!requests.some((r) => r.url.startsWith('/openapi/v2')), 'no OpenAPI v2 needed');
});
