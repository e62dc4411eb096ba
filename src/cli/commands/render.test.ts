// render.test.ts: `ripple render` — flags, the three output formats, stdin, exit codes and error messages. What the
// preview computes is pinned by src/preview/preview.test.ts; here the command around it.
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
const inputs = (id: string, ...indexes: number[]) => seedObjects().filter((s) => s.seed === id && s.role === 'input' && indexes.includes(s.index)).map((s) => s.object);
const seed004 = write('seed004.yaml', inputs('004', 1, 5));
const service = write('svc.yaml', [
  { apiVersion: 'v1', kind: 'Service', metadata: { name: 'my-service', namespace: 'default', labels: { sveltos: 'fv' } }, spec: { selector: { 'app.kubernetes.io/name': 'MyApp' }, ports: [{ protocol: 'TCP', port: 80 }] } },
]);

test('yaml output: every generated and deployed object after a comment saying where it goes', async () => {
  const r = await runCli(['render', '-f', seed004, '--resource', service, '--cluster', 'fv1:env=fv']);
  assert.equal(r.code, 0, r.stderr);
  const docs = parseAllDocuments(r.stdout);
  assert.deepEqual(
    docs.map((d) => (d.toJS() as { kind: string }).kind),
    ['ConfigMap', 'ClusterProfile', 'NetworkPolicy'],
  );
  assert.match(r.stdout, /^# generated in the management cluster by EventBasedAddOn service-network-policy for cluster fv1\/fv1 \(Service default\/my-service\)\n/);
  assert.match(r.stdout, /\n# deployed to cluster fv1\/fv1 \(Remote\) by ClusterProfile\/sveltos-[0-9a-z]{20} for cluster fv1\/fv1 from ConfigMap projectsveltos\/sveltos-[0-9a-z]{20}: create\n/);
  const np = docs[2].toJS() as { metadata: { name: string; namespace: string; annotations: Record<string, string> } };
  assert.equal(`${np.metadata.namespace}/${np.metadata.name}`, 'default/front-my-service');
  assert.equal(np.metadata.annotations['projectsveltos.io/deploymenttype'], 'Remote');
  assert.match(r.stderr, /note: EventBasedAddOn service-network-policy, cluster fv1\/fv1: ConfigMap default\/network-policy reads \.Resource without projectsveltos\.io\/instantiate/);
  assert.match(r.stderr, /ripple render: 2 generated objects; 1 deployment \(1 object\) to 1 cluster; 0 problems\n$/);
});

test('table and json output; the old --cluster NS/NAME --labels form still works', async () => {
  const t = await runCli(['render', '-f', seed004, '--resource', service, '--cluster', 'default/fv1', '--labels', 'env=fv', '-o', 'table']);
  assert.equal(t.code, 0, t.stderr);
  const lines = t.stdout.trimEnd().split('\n');
  assert.match(lines[0], /^STAGE\s+CLUSTER\s+WHERE\s+ACTION\s+KIND\s+NAME\s+BY$/);
  assert.match(lines[1], /^generate\s+default\/fv1\s+mgmt\s+create\s+ConfigMap\s+projectsveltos\/sveltos-\S+\s+EventBasedAddOn\/service-network-policy \(Service default\/my-service\)$/);
  assert.match(lines[3], /^deploy\s+default\/fv1\s+default\/fv1 \(Remote\)\s+create\s+NetworkPolicy\s+default\/front-my-service\s+ClusterProfile\/sveltos-\S+ <- ConfigMap projectsveltos\/sveltos-\S+$/);
  const j = await runCli(['render', '-f', seed004, '--resource', service, '--cluster', 'fv1:env=fv', '-o', 'json']);
  assert.equal(j.code, 0, j.stderr);
  const out = JSON.parse(j.stdout) as { clusters: { key: string }[]; matches: { matched: { name: string }[] }[]; generated: unknown[]; deployments: { actions: unknown[] }[]; problems: unknown[] };
  assert.deepEqual(out.clusters.map((c) => c.key), ['Sveltos:fv1/fv1']);
  assert.deepEqual(out.matches[0].matched.map((m) => m.name), ['my-service']);
  assert.equal(out.generated.length, 2);
  assert.equal(out.deployments[0].actions.length, 1);
});

test('seed 001 across two clusters, config from stdin, clusters as objects', async () => {
  const lb = write('lb.yaml', [
    { apiVersion: 'v1', kind: 'Service', metadata: { name: 'my-lb-service', namespace: 'test' }, spec: { type: 'LoadBalancer', ports: [{ port: 80, protocol: 'TCP', targetPort: 9376 }] }, status: { loadBalancer: { ingress: [{ ip: '172.18.0.10' }] } } },
  ]);
  const clusters = write('clusters.yaml', [
    { apiVersion: 'lib.projectsveltos.io/v1beta1', kind: 'SveltosCluster', metadata: { namespace: 'fleet', name: 'prod', labels: { env: 'production' } }, spec: {} },
    { apiVersion: 'cluster.x-k8s.io/v1beta1', kind: 'Cluster', metadata: { namespace: 'fleet', name: 'eng', labels: { dep: 'eng' } }, spec: {} },
  ]);
  const stdin = inputs('001', 1, 2).map((o) => stringify(o)).join('---\n');
  const r = await runCli(['render', '-f', '-', '--resource', lb, '--cluster-object', clusters, '-o', 'table'], stdin);
  assert.equal(r.code, 0, r.stderr);
  assert.match(r.stdout, /\ndeploy\s+fleet\/eng\s+fleet\/eng \(Remote\)\s+create\s+Endpoints\s+external\/external-my-lb-service\s/);
  assert.doesNotMatch(r.stdout, /deploy\s+fleet\/prod/);
});

test('a template error exits 3 with the template name, line and column', async () => {
  const bad = write('bad.yaml', [
    { apiVersion: 'lib.projectsveltos.io/v1beta1', kind: 'EventSource', metadata: { name: 'es' }, spec: { collectResources: true, resourceSelectors: [{ group: '', version: 'v1', kind: 'Service' }] } },
    { apiVersion: 'lib.projectsveltos.io/v1beta1', kind: 'EventTrigger', metadata: { name: 'bad' }, spec: { sourceClusterSelector: { matchLabels: { env: 'fv' } }, eventSourceName: 'es', oneForEvent: true, policyRefs: [{ kind: 'ConfigMap', namespace: 'default', name: 'cm' }] } },
    { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'cm', namespace: 'default', annotations: { 'projectsveltos.io/instantiate': 'true' } }, data: { k: 'a: {{ .Resource.spec.nope }}' } },
  ]);
  const r = await runCli(['render', '-f', bad, '--resource', service, '--cluster', 'fv1:env=fv']);
  assert.equal(r.code, 3);
  assert.equal(r.stdout, '');
  assert.match(r.stderr, /error: EventTrigger bad, cluster fv1\/fv1, event resource:\/Service\/default\/my-service: policyRefs\[0\]: ConfigMap default\/cm data "k": template: bad:1:15: executing "bad" at <.Resource.spec.nope>: map has no entry for key "nope"\n/);
});

test('no matching cluster exits 3 and says how to add one', async () => {
  const r = await runCli(['render', '-f', seed004, '--resource', service, '--cluster', 'other:env=prod']);
  assert.equal(r.code, 3);
  assert.match(r.stderr, /error: EventBasedAddOn service-network-policy: sourceClusterSelector \{"matchLabels":\{"env":"fv"\}\} selects none of the clusters \(other\/other \{"env":"prod"\}\); add one with --cluster NAME:KEY=VALUE/);
});

test('bad input: missing file, invalid YAML, not an object, nothing to preview, bad flags', async () => {
  const missing = await runCli(['render', '-f', join(dir, 'nope.yaml'), '--resource', service]);
  assert.equal(missing.code, 3);
  assert.match(missing.stderr, /nope\.yaml: no such file/);
  const invalidPath = join(dir, 'invalid.yaml');
  writeFileSync(invalidPath, 'kind: ConfigMap\nmetadata:\n  name: [x\n');
  const invalid = await runCli(['render', '-f', invalidPath]);
  assert.equal(invalid.code, 3);
  assert.match(invalid.stderr, /invalid\.yaml: invalid YAML at line \d+, column \d+/);
  const scalar = await runCli(['render', '-f', '-'], 'just text\n');
  assert.equal(scalar.code, 3);
  assert.match(scalar.stderr, /stdin: every document must be a Kubernetes object/);
  const none = await runCli(['render', '-f', service]);
  assert.equal(none.code, 3);
  assert.match(none.stderr, /nothing to preview/);
  assert.equal((await runCli(['render', '--resource', service])).code, 2);
  assert.equal((await runCli(['render', '-f', seed004, '--cluster', 'a/b/c'])).code, 2);
  assert.equal((await runCli(['render', '-f', seed004, '--cluster', 'a:nolabel'])).code, 2);
  assert.equal((await runCli(['render', '-f', seed004, '--labels', 'a=b'])).code, 2);
  assert.equal((await runCli(['render', '-f', seed004, '-o', 'xml'])).code, 2);
  const help = await runCli(['render', '--help']);
  assert.equal(help.code, 0);
  assert.match(help.stdout, /^Usage:\n  ripple render -f FILE/);
});
