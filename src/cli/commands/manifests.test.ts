import { strict as assert } from 'node:assert';
import { test } from 'node:test';
import { parseAllDocuments } from 'yaml';
import { runCli } from '../../../test/support/run-cli.js';
import { KINDS, checkCrd } from '../../api/index.js';

test('ripple manifests crds prints every CRD as multi-document YAML the API server accepts', async () => {
  const r = await runCli(['manifests', 'crds']);
  assert.equal(r.code, 0, r.stderr);
  const docs = parseAllDocuments(r.stdout).map((d) => d.toJS() as { kind: string; metadata: { name: string } });
  assert.equal(docs.length, KINDS.length);
  assert.ok(docs.every((d) => d.kind === 'CustomResourceDefinition'));
  assert.ok(docs.some((d) => d.metadata.name === 'eventbasedaddons.lib.projectsveltos.io'));
  for (const d of docs) assert.deepEqual(checkCrd(d), [], d.metadata.name);
});

test('ripple manifests crds --kind … --output json', async () => {
  const r = await runCli(['manifests', 'crds', '--kind', 'EventTrigger', '-k', 'EventSource', '-o', 'json']);
  assert.equal(r.code, 0, r.stderr);
  const list = JSON.parse(r.stdout) as { kind: string; items: { metadata: { name: string } }[] };
  assert.equal(list.kind, 'List');
  assert.deepEqual(list.items.map((i) => i.metadata.name), ['eventsources.lib.projectsveltos.io', 'eventtriggers.lib.projectsveltos.io']);
});

test('ripple manifests crds: bad flags exit 2 and say what to do', async () => {
  const bad = await runCli(['manifests', 'crds', '--output', 'xml']);
  assert.equal(bad.code, 2);
  assert.match(bad.stderr, /--output must be yaml or json, not "xml"/);
  assert.match(bad.stderr, /Usage: ripple manifests crds/);
  const kind = await runCli(['manifests', 'crds', '--kind', 'Widget']);
  assert.equal(kind.code, 2);
  assert.match(kind.stderr, /unknown kind "Widget"; kinds: EventSource, EventReport/);
  const help = await runCli(['manifests', 'crds', '--help']);
  assert.equal(help.code, 0);
  assert.match(help.stdout, /kubectl apply --server-side -f -/);
  const group = await runCli(['manifests']);
  assert.equal(group.code, 2);
  assert.match(group.stderr, /ripple manifests crds/);
});

test('ripple manifests crds --flux adds Flux source-controller CRDs (structural, accepted like the others)', async () => {
  const r = await runCli(['manifests', 'crds', '--flux', '-o', 'json']);
  assert.equal(r.code, 0, r.stderr);
  const items = (JSON.parse(r.stdout) as { items: { metadata: { name: string } }[] }).items;
  assert.equal(items.length, KINDS.length + 3);
  for (const d of items.slice(KINDS.length)) assert.deepEqual(checkCrd(d), [], d.metadata.name);
  const only = await runCli(['manifests', 'crds', '--flux', '--kind', 'GitRepository']);
  const docs = parseAllDocuments(only.stdout).map((d) => d.toJS() as { metadata: { name: string }; spec: { versions: { name: string }[] } });
  assert.deepEqual(docs.map((d) => `${d.metadata.name} ${d.spec.versions.map((v) => v.name).join(',')}`), ['gitrepositories.source.toolkit.fluxcd.io v1']);
  const without = await runCli(['manifests', 'crds', '--kind', 'GitRepository']);
  assert.equal(without.code, 2);
  assert.match(without.stderr, /\(Flux source kinds with --flux\)/);
});

test('ripple manifests tenancy prints a ValidatingAdmissionPolicy and its binding the API server accepts', async () => {
  const r = await runCli(['manifests', 'tenancy']);
  assert.equal(r.code, 0, r.stderr);
  const docs = parseAllDocuments(r.stdout).map((d) => d.toJS() as { kind: string; metadata: { name: string }; spec: Record<string, unknown> });
  assert.deepEqual(docs.map((d) => `${d.kind}/${d.metadata.name}`), ['ValidatingAdmissionPolicy/ripple-tenant-labels', 'ValidatingAdmissionPolicyBinding/ripple-tenant-labels']);
  assert.match(r.stdout, /request\.userInfo\.username\.split/);
  const { startTestApiServer } = await import('../../../test/support/apiserver.js');
  const { KubeClient } = await import('../../kube/index.js');
  const api = await startTestApiServer();
  const c = new KubeClient(await api.kubeConfig());
  try {
    for (const d of docs) await c.create(d as never);
    // The platform admin is not a ServiceAccount: not matched, so its writes pass.
    await c.create({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'x', namespace: 'default' } });
  } finally {
    c.close();
    await api.stop();
  }
});
