// render.test.ts: `ripple render` previews what an EventTrigger generates, offline, through the event manager's core.
import { strict as assert } from 'node:assert';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, test } from 'node:test';
import { parseAllDocuments, stringify } from 'yaml';
import { runCli } from '../../../test/support/run-cli.js';
import { seedObjects } from '../../../test/support/seeds.js';

const dir = mkdtempSync(join(tmpdir(), 'ripple-render-'));
after(() => rmSync(dir, { recursive: true, force: true }));
const write = (name: string, objs: unknown[]) => {
  const p = join(dir, name);
  writeFileSync(p, objs.map((o) => stringify(o)).join('---\n'));
  return p;
};
const seed004 = write('seed004.yaml', seedObjects().filter((s) => s.seed === '004' && s.index === 5).map((s) => s.object));
const service = write('svc.yaml', [
  { apiVersion: 'v1', kind: 'Service', metadata: { name: 'my-service', namespace: 'default', labels: { sveltos: 'fv' } }, spec: { selector: { 'app.kubernetes.io/name': 'MyApp' }, ports: [{ protocol: 'TCP', port: 80 }] } },
]);

test('ripple render shows the ClusterProfile and the instantiated ConfigMap of seed 004 for a Service', async () => {
  const r = await runCli(['render', '-f', seed004, '--resource', service, '--cluster', 'default/fv1', '--labels', 'env=fv']);
  assert.equal(r.code, 0, r.stderr);
  const docs = parseAllDocuments(r.stdout).map((d) => d.toJS() as { kind: string; metadata: { name: string }; data?: Record<string, string>; spec?: { policyRefs?: { name: string }[] } });
  assert.deepEqual(docs.map((d) => d.kind), ['ConfigMap', 'ClusterProfile']);
  assert.match(docs[0].data?.['networkpolicy.yaml'] ?? '', /name: front-my-service\n\s+namespace: default/);
  assert.equal(docs[1].spec?.policyRefs?.[0].name, docs[0].metadata.name);
  assert.match(r.stderr, /EventBasedAddOn service-network-policy, cluster default\/fv1: warning: ConfigMap default\/network-policy reads \.Resource without projectsveltos\.io\/instantiate/);
});

test('a cluster the trigger does not select is skipped unless --all', async () => {
  const r = await runCli(['render', '-f', seed004, '--resource', service, '--cluster', 'default/other', '--labels', 'env=prod']);
  assert.equal(r.code, 0);
  assert.equal(r.stdout, '');
  assert.match(r.stderr, /skipped, sourceClusterSelector does not select the cluster/);
  const all = await runCli(['render', '-f', seed004, '--resource', service, '--cluster', 'default/other', '--all', '-o', 'json']);
  assert.equal((JSON.parse(all.stdout) as unknown[]).length, 2);
});

test('a template error exits 1 with the template name, line and column', async () => {
  const bad = write('bad.yaml', [
    { apiVersion: 'lib.projectsveltos.io/v1beta1', kind: 'EventTrigger', metadata: { name: 'bad' }, spec: { sourceClusterSelector: { matchLabels: { env: 'fv' } }, eventSourceName: 'es', oneForEvent: true, policyRefs: [{ kind: 'ConfigMap', namespace: 'default', name: 'cm' }] } },
    { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'cm', namespace: 'default', annotations: { 'projectsveltos.io/instantiate': 'true' } }, data: { k: 'a: {{ .Resource.spec.nope }}' } },
  ]);
  const r = await runCli(['render', '-f', bad, '--resource', service, '--cluster', 'default/fv1', '--labels', 'env=fv']);
  assert.equal(r.code, 1);
  assert.match(r.stderr, /EventTrigger bad, cluster default\/fv1, event resource:\/Service\/default\/my-service: policyRefs\[0\]: ConfigMap default\/cm data "k": template: bad:1:15: executing "bad" at <.Resource.spec.nope>: map has no entry for key "nope"/);
});

test('bad input: missing file, no trigger, bad flags', async () => {
  const missing = await runCli(['render', '-f', join(dir, 'nope.yaml'), '--resource', service]);
  assert.equal(missing.code, 3);
  assert.match(missing.stderr, /nope.yaml: no such file/);
  const none = await runCli(['render', '-f', service]);
  assert.equal(none.code, 3);
  assert.match(none.stderr, /hold no EventTrigger/);
  assert.equal((await runCli(['render', '--resource', service])).code, 2);
  assert.equal((await runCli(['render', '-f', seed004, '--cluster', 'nons'])).code, 2);
});
