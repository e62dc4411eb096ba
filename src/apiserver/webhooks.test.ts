// Admission webhooks through kubectl 1.32: a real HTTPS webhook backend on loopback, registered by URL or through a
// Service, mutates and validates writes the way kube-apiserver calls it (AdmissionReview v1, failurePolicy,
// selectors, matchConditions, sideEffects on dry run, reinvocation), with kube-apiserver's messages.
import { strict as assert } from 'node:assert';
import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:https';
import { createServer as createNetServer, type AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import { generateServingCertificate } from './certificate.js';
import { startApiServer, type ApiServer } from './index.js';

let server: ApiServer;
let dir: string;
let hook: Server;
let hookPort: number;
let caBundle: string;
let n = 0;
/** Every AdmissionReview the backend received, by path. */
const received: Record<string, Record<string, unknown>[]> = {};

type Review = { request: Record<string, unknown> };
type Handler = (review: Review) => Record<string, unknown>;

const patchOf = (ops: unknown[]) => Buffer.from(JSON.stringify(ops)).toString('base64');

const handlers: Record<string, Handler> = {
  '/allow': () => ({ allowed: true }),
  '/deny': (r) => ({ allowed: false, status: { message: `configmap ${String(r.request.name)} is not welcome here`, code: 403, reason: 'Forbidden' } }),
  '/deny-plain': () => ({ allowed: false }),
  '/warn': () => ({ allowed: true, warnings: ['webhook says: be careful'] }),
  '/label': (r) => {
    const labels = ((r.request.object as Record<string, Record<string, unknown>>).metadata.labels ?? null) as Record<string, string> | null;
    const ops = labels ? [{ op: 'add', path: '/metadata/labels/mutated', value: 'yes' }] : [{ op: 'add', path: '/metadata/labels', value: { mutated: 'yes' } }];
    return { allowed: true, patchType: 'JSONPatch', patch: patchOf(ops) };
  },
  '/annotate-if-labelled': (r) => {
    const labels = ((r.request.object as Record<string, Record<string, unknown>>).metadata.labels ?? {}) as Record<string, string>;
    if (labels.mutated !== 'yes') return { allowed: true };
    const annotations = (r.request.object as Record<string, Record<string, unknown>>).metadata.annotations;
    const ops = annotations ? [{ op: 'add', path: '/metadata/annotations/seen-label', value: 'yes' }] : [{ op: 'add', path: '/metadata/annotations', value: { 'seen-label': 'yes' } }];
    return { allowed: true, patchType: 'JSONPatch', patch: patchOf(ops) };
  },
  '/wrong-uid': () => ({ allowed: true, uid: 'not-the-request' }),
  '/not-json': () => ({}),
};

function kubectl(args: string[], stdin?: string): Promise<{ code: number; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    const child = execFile('/usr/bin/kubectl', ['--cache-dir', join(dir, 'cache'), ...args], { env: { ...process.env, KUBECONFIG: server.kubeconfigPath, HOME: dir }, timeout: 60_000 }, (err, stdout, stderr) =>
      resolve({ code: err ? (typeof err.code === 'number' ? err.code : 1) : 0, stdout, stderr }),
    );
    if (stdin !== undefined) child.stdin!.end(stdin);
  });
}

async function apply(yaml: string, ...extra: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  const file = join(dir, `m${++n}.yaml`);
  writeFileSync(file, yaml);
  return kubectl(['apply', '-f', file, ...extra]);
}

async function create(yaml: string, ...extra: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  const file = join(dir, `m${++n}.yaml`);
  writeFileSync(file, yaml);
  return kubectl(['create', '-f', file, ...extra]);
}

async function freePort(): Promise<number> {
  const s = createNetServer();
  await new Promise<void>((r) => s.listen(0, '127.0.0.1', () => r()));
  const port = (s.address() as AddressInfo).port;
  await new Promise<void>((r) => s.close(() => r()));
  return port;
}

const cm = (name: string, ns = 'default', labels = '') => `apiVersion: v1
kind: ConfigMap
metadata: {name: ${name}, namespace: ${ns}${labels ? `, labels: {${labels}}` : ''}}
data: {k: v}
`;

function validating(name: string, webhooks: string): string {
  return `apiVersion: admissionregistration.k8s.io/v1
kind: ValidatingWebhookConfiguration
metadata: {name: ${name}}
webhooks:
${webhooks}`;
}

function mutating(name: string, webhooks: string): string {
  return `apiVersion: admissionregistration.k8s.io/v1
kind: MutatingWebhookConfiguration
metadata: {name: ${name}}
webhooks:
${webhooks}`;
}

function byUrl(name: string, path: string, extra = '', ns = 'wh'): string {
  return `- name: ${name}
  clientConfig: {url: "https://127.0.0.1:${hookPort}${path}", caBundle: ${caBundle}}
  rules: [{apiGroups: [""], apiVersions: [v1], operations: [CREATE, UPDATE, DELETE], resources: [configmaps]}]
  namespaceSelector: {matchLabels: {kubernetes.io/metadata.name: ${ns}}}
  sideEffects: None
  admissionReviewVersions: [v1]
${extra}`;
}

before(async () => {
  dir = mkdtempSync(join(tmpdir(), 'ripple-webhooks-'));
  const cert = generateServingCertificate('webhook', 1, ['backend.wh.svc']);
  caBundle = Buffer.from(cert.cert).toString('base64');
  hook = createServer({ cert: cert.cert, key: cert.key }, (req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const path = new URL(req.url ?? '/', 'https://x').pathname;
      const review = JSON.parse(Buffer.concat(chunks).toString('utf8')) as Review & Record<string, unknown>;
      (received[path] ??= []).push({ ...review, query: new URL(req.url ?? '/', 'https://x').search });
      const h = handlers[path];
      if (!h) {
        res.writeHead(404).end();
        return;
      }
      const response = { uid: review.request.uid, ...h(review) };
      res.writeHead(200, { 'Content-Type': 'application/json' });
      res.end(path === '/not-json' ? 'not json' : JSON.stringify({ apiVersion: review.apiVersion, kind: 'AdmissionReview', response }));
    });
  });
  await new Promise<void>((r) => hook.listen(0, '127.0.0.1', () => r()));
  hookPort = (hook.address() as AddressInfo).port;
  server = await startApiServer({ dataDir: dir, port: 0, clusters: ['wh'] });
  for (const ns of ['wh', 'other', 'svc', 'fail', 'mut', 'dry']) assert.equal((await kubectl(['create', 'namespace', ns])).code, 0);
});

after(async () => {
  await server.stop();
  hook.close();
  rmSync(dir, { recursive: true, force: true });
});

test('a validating webhook denies with its message; the AdmissionReview it gets is kube-shaped', { timeout: 90_000 }, async () => {
  const reg = await apply(validating('deny-bad', byUrl('deny.example.com', '/deny', '  objectSelector: {matchLabels: {bad: "true"}}\n')));
  assert.equal(reg.code, 0, reg.stderr);
  const refused = await apply(cm('c1', 'wh', 'bad: "true"'));
  assert.notEqual(refused.code, 0);
  assert.match(refused.stderr, /admission webhook "deny\.example\.com" denied the request: configmap c1 is not welcome here/);
  assert.equal((await kubectl(['-n', 'wh', 'get', 'configmap', 'c1'])).code, 1, 'nothing was stored');
  const review = received['/deny']!.at(-1)! as { apiVersion: string; kind: string; request: Record<string, unknown>; query: string };
  assert.equal(review.apiVersion, 'admission.k8s.io/v1');
  assert.equal(review.kind, 'AdmissionReview');
  assert.equal(review.query, '?timeout=10s');
  const r = review.request;
  assert.deepEqual(r.kind, { group: '', version: 'v1', kind: 'ConfigMap' });
  assert.deepEqual(r.resource, { group: '', version: 'v1', resource: 'configmaps' });
  assert.deepEqual(r.requestKind, { group: '', version: 'v1', kind: 'ConfigMap' });
  assert.equal(r.operation, 'CREATE');
  assert.equal(r.name, 'c1');
  assert.equal(r.namespace, 'wh');
  assert.equal(r.dryRun, false);
  assert.equal(r.oldObject, null);
  assert.equal((r.object as { data: Record<string, string> }).data.k, 'v');
  assert.equal((r.options as Record<string, unknown>).kind, 'CreateOptions');
  assert.ok(typeof r.uid === 'string' && r.uid.length > 0);
  // The object selector leaves unlabelled objects alone; other namespaces are not selected either.
  assert.equal((await apply(cm('c2', 'wh'))).code, 0);
  assert.equal((await apply(cm('c3', 'other', 'bad: "true"'))).code, 0);
  // Deletion goes through validating webhooks too: labelling c2 bad makes its deletion refused.
  assert.equal((await kubectl(['-n', 'wh', 'label', 'configmap', 'c2', 'bad=true'])).code, 1, 'the update is refused as well');
  assert.equal((await kubectl(['delete', 'validatingwebhookconfiguration', 'deny-bad'])).code, 0);
});

test('a denial without a message says so; response warnings reach kubectl', { timeout: 90_000 }, async () => {
  assert.equal((await apply(validating('plain', byUrl('plain.example.com', '/deny-plain', '  objectSelector: {matchLabels: {plain: "true"}}\n')))).code, 0);
  assert.equal((await apply(validating('warn', byUrl('warn.example.com', '/warn', '  objectSelector: {matchLabels: {warn: "true"}}\n')))).code, 0);
  const refused = await apply(cm('p1', 'wh', 'plain: "true"'));
  assert.match(refused.stderr, /admission webhook "plain\.example\.com" denied the request without explanation/);
  const warned = await apply(cm('w1', 'wh', 'warn: "true"'));
  assert.equal(warned.code, 0, warned.stderr);
  assert.match(warned.stderr, /Warning: webhook says: be careful/);
  assert.equal((await kubectl(['delete', 'validatingwebhookconfiguration', 'plain', 'warn'])).code, 0);
});

test('a mutating webhook patches the object before it is validated and stored; IfNeeded reinvocation', { timeout: 90_000 }, async () => {
  // "a" runs first (name order) and only annotates objects that already carry the label "b" adds: reinvoked.
  const reg = await apply(
    [
      mutating('a-annotate', byUrl('annotate.example.com', '/annotate-if-labelled', '  reinvocationPolicy: IfNeeded\n', 'mut')),
      '---',
      mutating('b-label', byUrl('label.example.com', '/label', '', 'mut')),
    ].join('\n'),
  );
  assert.equal(reg.code, 0, reg.stderr);
  const made = await apply(cm('m1', 'mut'));
  assert.equal(made.code, 0, made.stderr);
  const got = await kubectl(['-n', 'mut', 'get', 'configmap', 'm1', '-o', 'jsonpath={.metadata.labels.mutated}/{.metadata.annotations.seen-label}']);
  assert.equal(got.stdout, 'yes/yes');
  // Server-side dry run: webhooks with sideEffects None are called with dryRun true and nothing is stored.
  const before = received['/label']!.length;
  const dry = await apply(cm('m2', 'mut'), '--dry-run=server', '-o', 'jsonpath={.metadata.labels.mutated}');
  assert.equal(dry.code, 0, dry.stderr);
  assert.equal(dry.stdout, 'yes');
  assert.equal((received['/label']!.at(-1)!.request as Record<string, unknown>).dryRun, true);
  assert.ok(received['/label']!.length > before);
  assert.equal((await kubectl(['-n', 'mut', 'get', 'configmap', 'm2'])).code, 1);
  assert.equal((await kubectl(['delete', 'mutatingwebhookconfiguration', 'a-annotate', 'b-label'])).code, 0);
});

test('failurePolicy: an unreachable webhook refuses the write with Fail and is skipped with Ignore', { timeout: 90_000 }, async () => {
  const closed = await freePort();
  const down = (name: string, policy: string, label: string) => `- name: ${name}
  clientConfig: {url: "https://127.0.0.1:${closed}/down", caBundle: ${caBundle}}
  rules: [{apiGroups: [""], apiVersions: [v1], operations: [CREATE], resources: [configmaps]}]
  namespaceSelector: {matchLabels: {kubernetes.io/metadata.name: fail}}
  objectSelector: {matchLabels: {${label}: "true"}}
  failurePolicy: ${policy}
  sideEffects: None
  admissionReviewVersions: [v1]
`;
  assert.equal((await apply(validating('down', down('fail.example.com', 'Fail', 'f') + down('ignore.example.com', 'Ignore', 'i')))).code, 0);
  const refused = await apply(cm('f1', 'fail', 'f: "true"'));
  assert.notEqual(refused.code, 0);
  assert.ok(
    refused.stderr.includes(
      `Internal error occurred: failed calling webhook "fail.example.com": failed to call webhook: Post "https://127.0.0.1:${closed}/down?timeout=10s": dial tcp 127.0.0.1:${closed}: connect: connection refused`,
    ),
    refused.stderr,
  );
  assert.equal((await apply(cm('i1', 'fail', 'i: "true"'))).code, 0, 'Ignore lets the write through');
  // A response that is not an AdmissionReview, or answers another request, is a failed call as well.
  const bad = (name: string, path: string) => byUrl(name, path, '  objectSelector: {matchLabels: {bad-answer: "true"}}\n', 'fail');
  assert.equal((await apply(validating('bad-answers', bad('not-json.example.com', '/not-json')))).code, 0);
  const notJson = await apply(cm('j1', 'fail', 'bad-answer: "true"'));
  assert.match(notJson.stderr, /failed calling webhook "not-json\.example\.com": received invalid webhook response/);
  assert.equal((await apply(validating('bad-answers', bad('uid.example.com', '/wrong-uid')))).code, 0);
  const wrongUid = await apply(cm('j2', 'fail', 'bad-answer: "true"'));
  assert.match(wrongUid.stderr, /failed calling webhook "uid\.example\.com": expected response\.uid=".*", got "not-the-request"/);
  assert.equal((await kubectl(['delete', 'validatingwebhookconfiguration', 'down', 'bad-answers'])).code, 0);
});

test('a Service-backed webhook is called at its endpoints; without endpoints the call fails as in kube', { timeout: 90_000 }, async () => {
  const svcHook = `- name: svc.example.com
  clientConfig:
    service: {name: backend, namespace: wh, path: /deny, port: 443}
    caBundle: ${caBundle}
  rules: [{apiGroups: [""], apiVersions: [v1], operations: [CREATE], resources: [configmaps]}]
  namespaceSelector: {matchLabels: {kubernetes.io/metadata.name: svc}}
  sideEffects: None
  admissionReviewVersions: [v1]
`;
  assert.equal((await apply(validating('svc', svcHook))).code, 0);
  const missing = await apply(cm('s1', 'svc'));
  assert.match(missing.stderr, /failed calling webhook "svc\.example\.com": failed to call webhook: Post "https:\/\/backend\.wh\.svc:443\/deny\?timeout=10s": service "backend" not found/);
  assert.equal((await apply(`apiVersion: v1\nkind: Service\nmetadata: {name: backend, namespace: wh}\nspec:\n  ports: [{port: 443, targetPort: 8443}]\n`)).code, 0);
  const noEndpoints = await apply(cm('s2', 'svc'));
  assert.match(noEndpoints.stderr, /no endpoints available for service "backend"/);
  // An EndpointSlice pointing at the backend on this machine: the webhook is reached (TLS verified for backend.wh.svc).
  const slice = `apiVersion: discovery.k8s.io/v1
kind: EndpointSlice
metadata: {name: backend-1, namespace: wh, labels: {kubernetes.io/service-name: backend}}
addressType: IPv4
ports: [{port: ${hookPort}}]
endpoints: [{addresses: [127.0.0.1], conditions: {ready: true}}]
`;
  assert.equal((await apply(slice)).code, 0);
  const denied = await apply(cm('s3', 'svc'));
  assert.match(denied.stderr, /admission webhook "svc\.example\.com" denied the request: configmap s3 is not welcome here/);
  // An endpoint that is a Pod the embedded server only simulates refuses the connection, saying why.
  const podSlice = slice.replace('backend-1', 'backend-1').replace('endpoints: [{addresses: [127.0.0.1], conditions: {ready: true}}]', 'endpoints: [{addresses: [10.244.0.9], conditions: {ready: true}, targetRef: {kind: Pod, name: backend-abc, namespace: wh}}]');
  assert.equal((await apply(podSlice)).code, 0);
  const simulated = await apply(cm('s4', 'svc'));
  assert.match(simulated.stderr, new RegExp(`dial tcp 10\\.244\\.0\\.9:${hookPort}: connect: connection refused \\(pod wh/backend-abc is simulated by the embedded API server and runs no process\\)`));
  assert.equal((await kubectl(['delete', 'validatingwebhookconfiguration', 'svc'])).code, 0);
});

test('dry run reaches NoneOnDryRun webhooks with dryRun set; matchConditions select requests by CEL', { timeout: 90_000 }, async () => {
  // v1 allows only sideEffects None and NoneOnDryRun (kube's validation), so every v1 webhook accepts dry runs.
  const some = byUrl('effects.example.com', '/allow', '', 'dry').replace('sideEffects: None', 'sideEffects: Some');
  const invalid = await apply(validating('effects', some));
  assert.match(invalid.stderr, /webhooks\[0\]\.sideEffects: Unsupported value: "Some": supported values: "None", "NoneOnDryRun"/);
  const onDry = byUrl('effects.example.com', '/allow', '', 'dry').replace('sideEffects: None', 'sideEffects: NoneOnDryRun');
  const reg = await apply(validating('effects', onDry));
  assert.equal(reg.code, 0, reg.stderr);
  const dry = await apply(cm('d1', 'dry'), '--dry-run=server');
  assert.equal(dry.code, 0, dry.stderr);
  assert.equal((received['/allow']!.at(-1)!.request as Record<string, unknown>).dryRun, true);
  assert.equal((await kubectl(['-n', 'dry', 'get', 'configmap', 'd1'])).code, 1);
  const cond = byUrl('cond.example.com', '/deny', `  matchConditions:\n  - {name: only-secret-ones, expression: "object.metadata.name.startsWith('secret-')"}\n`, 'dry');
  assert.equal((await apply(validating('effects', cond))).code, 0);
  assert.equal((await apply(cm('open-1', 'dry'))).code, 0);
  const refused = await apply(cm('secret-1', 'dry'));
  assert.match(refused.stderr, /denied the request: configmap secret-1 is not welcome here/);
  assert.equal((await kubectl(['delete', 'validatingwebhookconfiguration', 'effects'])).code, 0);
});

test('webhook configurations themselves are never sent to webhooks; generateName objects are admitted once', { timeout: 90_000 }, async () => {
  const all = `- name: all.example.com
  clientConfig: {url: "https://127.0.0.1:${hookPort}/deny", caBundle: ${caBundle}}
  rules: [{apiGroups: ["*"], apiVersions: ["*"], operations: ["*"], resources: ["*"]}]
  namespaceSelector: {matchLabels: {kubernetes.io/metadata.name: other}}
  sideEffects: None
  admissionReviewVersions: [v1]
`;
  assert.equal((await apply(validating('all', all))).code, 0);
  // Changing or deleting the configuration is not itself subject to it.
  assert.equal((await kubectl(['label', 'validatingwebhookconfiguration', 'all', 'x=y'])).code, 0);
  assert.equal((await kubectl(['delete', 'validatingwebhookconfiguration', 'all'])).code, 0);
  assert.equal((await apply(mutating('gen', byUrl('gen.example.com', '/label', '', 'other')))).code, 0);
  const made = await create(`apiVersion: v1\nkind: ConfigMap\nmetadata: {generateName: gen-, namespace: other}\n`, '-o', 'jsonpath={.metadata.name} {.metadata.labels.mutated}');
  assert.equal(made.code, 0, made.stderr);
  assert.match(made.stdout, /^gen-[a-z0-9]{5} yes$/);
  assert.equal((await kubectl(['delete', 'mutatingwebhookconfiguration', 'gen'])).code, 0);
});
