import { strict as assert } from 'node:assert';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import { parseAllDocuments, stringify } from 'yaml';
import { runCli } from '../../../test/support/run-cli.js';
import { seedObjects } from '../../../test/support/seeds.js';

const oldShapes = `apiVersion: lib.projectsveltos.io/v1alpha1
kind: EventSource
metadata:
 name: load-balancer-service
spec:
 collectResources: true
 group: ""
 version: "v1"
 kind: "Service"
 script: |
  function evaluate()
    return {matching = true}
  end
---
apiVersion: lib.projectsveltos.io/v1alpha1
kind: EventBasedAddOn
metadata:
 name: service-policy
spec:
 sourceClusterSelector: env=production
 eventSourceName: load-balancer-service
 policyRefs:
 - name: service-policy
   namespace: default
   kind: ConfigMap
---
apiVersion: v1
kind: ConfigMap
metadata:
  name: service-policy
  namespace: default
data:
  a: b
`;

const invalid = `apiVersion: lib.projectsveltos.io/v1beta1
kind: EventTrigger
metadata:
  name: t
spec:
  sourceClusterSelector:
    matchLabels:
      env: fv
  eventSourceName: es
  tier: "high"
  policyRefs:
  - name: a
    kind: Configmap
`;

test('ripple validate: valid old shapes exit 0 with notes on what gets converted', async () => {
  const r = await runCli(['validate', '-'], oldShapes);
  assert.equal(r.code, 0, r.stdout + r.stderr);
  assert.match(r.stdout, /<stdin>:1 lib\.projectsveltos\.io\/v1alpha1 EventSource load-balancer-service: valid/);
  assert.match(r.stdout, /<stdin>:15 lib\.projectsveltos\.io\/v1alpha1 EventBasedAddOn service-policy: valid/);
  assert.match(r.stdout, /v1 ConfigMap service-policy: not a Sveltos kind/);
  assert.match(r.stdout, /note: spec\.sourceClusterSelector: v1alpha1 string selector "env=production"/);
  assert.match(r.stdout, /3 objects: 3 valid, 0 invalid \(1 not Sveltos kinds\)/);
});

test('ripple validate: every issue with its path, exit 3', async () => {
  const r = await runCli(['validate', '-'], invalid);
  assert.equal(r.code, 3);
  assert.match(r.stdout, /EventTrigger t: 2 errors/);
  assert.match(r.stdout, /error: spec\.tier: Invalid value: "high": must be of type integer, got string/);
  assert.match(r.stdout, /error: spec\.policyRefs\[0\]\.kind: Unsupported value: "Configmap": supported values: .*"ConfigMap"/);
});

test('ripple validate compiles EventSource Lua and CEL as ripple render does', async () => {
  const es = (name: string, selector: string) => `apiVersion: lib.projectsveltos.io/v1beta1
kind: EventSource
metadata:
  name: ${name}
spec:
  resourceSelectors:
  - group: ""
    version: v1
    kind: Service
${selector}
`;
  const r = await runCli(
    ['validate', '-'],
    [
      es('bad-lua', '    evaluate: |\n      function evaluate()\n        return {matching = (}\n      end'),
      es('bad-cel', '    evaluateCEL:\n    - name: r\n      rule: "resource.spec.ports.size( > 0"'),
      es('good', '    evaluate: |\n      function evaluate() return {matching = true} end'),
    ].join('---\n'),
  );
  assert.equal(r.code, 3, r.stdout + r.stderr);
  assert.match(r.stdout, /EventSource bad-lua: 1 error\n {2}error: spec\.resourceSelectors\[0\]\.evaluate: <string>:2: unexpected symbol near '}'/);
  assert.match(r.stdout, /EventSource bad-cel: 1 error\n {2}error: spec\.resourceSelectors\[0\]\.evaluateCEL\[0\]: Unexpected token: GT/);
  assert.match(r.stdout, /EventSource good: valid/);
});

test('ripple validate --normalize prints v1beta1 YAML on stdout, diagnostics on stderr', async () => {
  const r = await runCli(['validate', '--normalize', '-'], oldShapes);
  assert.equal(r.code, 0, r.stderr);
  const docs = parseAllDocuments(r.stdout).map((d) => d.toJS() as { apiVersion: string; kind: string; spec?: Record<string, unknown> });
  assert.deepEqual(docs.map((d) => `${d.apiVersion} ${d.kind}`), ['lib.projectsveltos.io/v1beta1 EventSource', 'lib.projectsveltos.io/v1beta1 EventTrigger', 'v1 ConfigMap']);
  assert.deepEqual(docs[1].spec?.sourceClusterSelector, { matchLabels: { env: 'production' } });
  assert.match(r.stderr, /EventBasedAddOn is deprecated; converted to EventTrigger/);
});

test('ripple validate --output json', async () => {
  const r = await runCli(['validate', '-o', 'json', '-'], invalid);
  assert.equal(r.code, 3);
  const out = JSON.parse(r.stdout) as { objects: { kind: string; valid: boolean; issues: { path: string; code: string }[] }[] };
  assert.deepEqual(out.objects[0].issues.map((i) => `${i.path} ${i.code}`), ['spec.tier type', 'spec.policyRefs[0].kind enum']);
});

test('ripple validate: files, directories, missing files, YAML errors, unknown kinds', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'ripple-validate-'));
  try {
    writeFileSync(join(dir, 'a.yaml'), oldShapes);
    writeFileSync(join(dir, 'b.yml'), 'apiVersion: lib.projectsveltos.io/v1beta1\nkind: EventWidget\nmetadata:\n  name: w\n');
    writeFileSync(join(dir, 'c.yaml'), 'a: [1\n');
    writeFileSync(join(dir, 'notes.txt'), 'ignored');
    const r = await runCli(['validate', dir, join(dir, 'missing.yaml')]);
    assert.equal(r.code, 3);
    assert.match(r.stdout, /b\.yml:1 lib\.projectsveltos\.io\/v1beta1 EventWidget w: 1 error\n  error: kind: "EventWidget" is not a kind Ripple serves in lib\.projectsveltos\.io/);
    assert.match(r.stdout, /c\.yaml:\d+: YAML syntax error: /);
    assert.match(r.stdout, /missing\.yaml: no such file or directory/);
    const empty = await runCli(['validate', '-'], '---\n');
    assert.equal(empty.code, 3);
    assert.match(empty.stdout, /<stdin>: no Kubernetes objects found/);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test('ripple validate: usage errors exit 2', async () => {
  const none = await runCli(['validate']);
  assert.equal(none.code, 2);
  assert.match(none.stderr, /give at least one FILE, DIR or - \(standard input\)/);
  const flag = await runCli(['validate', '--frobnicate', 'x']);
  assert.equal(flag.code, 2);
  const help = await runCli(['validate', '--help']);
  assert.equal(help.code, 0);
  assert.match(help.stdout, /Exit status: 0 when every object is valid, 3 when/);
});

test('ripple validate accepts every recovered seed object', async () => {
  const stream = seedObjects()
    .filter((o) => o.role !== 'fragment')
    .map((o) => '---\n' + stringify(o.object))
    .join('');
  const r = await runCli(['validate', '-'], stream);
  assert.equal(r.code, 0, r.stdout.split('\n').filter((l) => l.includes('error')).join('\n'));
  assert.match(r.stdout, /59 objects: 59 valid, 0 invalid/);
});
