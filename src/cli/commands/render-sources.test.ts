// `ripple render --source NAME=DIR`: kustomizationRefs and Flux-sourced policyRefs previewed from local directories
// (no cluster, no download). The Kustomize objects are what `kubectl kustomize DIR/path` prints, plus Sveltos'
// stamps (reason Kustomize); values and targetNamespace applied; policyRefs read every file under their path.
import { strict as assert } from 'node:assert';
import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { after, test } from 'node:test';
import { parseAllDocuments, stringify } from 'yaml';
import { runCli } from '../../../test/support/run-cli.js';

const dir = mkdtempSync(join(tmpdir(), 'ripple-render-src-'));
after(() => rmSync(dir, { recursive: true, force: true }));
const put = (rel: string, text: string) => {
  mkdirSync(dirname(join(dir, rel)), { recursive: true });
  writeFileSync(join(dir, rel), text);
};
put('repo/base/kustomization.yaml', 'resources:\n- deploy.yaml\nconfigMapGenerator:\n- name: cfg\n  literals:\n  - a=1\n');
put('repo/base/deploy.yaml', 'apiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: web\nspec:\n  selector:\n    matchLabels: {app: web}\n  template:\n    metadata:\n      labels: {app: web}\n    spec:\n      containers:\n      - name: web\n        image: nginx\n        envFrom:\n        - configMapRef: {name: cfg}\n');
put('repo/overlays/prod/kustomization.yaml', 'resources:\n- ../../base\nnamePrefix: prod-\nimages:\n- name: nginx\n  newTag: "1.27"\n');
put('repo/policies/ns.yaml', 'apiVersion: v1\nkind: Namespace\nmetadata:\n  name: team-{{ .Cluster.metadata.name }}\n');
put('repo/other/skip.yaml', 'apiVersion: v1\nkind: Namespace\nmetadata:\n  name: not-deployed\n');
const profile = (spec: object) => {
  const p = join(dir, `profile-${Math.random().toString(36).slice(2)}.yaml`);
  const objs = [
    { apiVersion: 'source.toolkit.fluxcd.io/v1', kind: 'GitRepository', metadata: { name: 'apps', namespace: 'flux-system', annotations: { 'projectsveltos.io/template': 'ok' } }, spec: { url: 'https://example.com/apps', interval: '1m' } },
    { apiVersion: 'config.projectsveltos.io/v1beta1', kind: 'ClusterProfile', metadata: { name: 'gitops' }, spec: { clusterSelector: { matchLabels: { env: 'prod' } }, ...spec } },
  ];
  writeFileSync(p, objs.map((o) => stringify(o)).join('---\n'));
  return p;
};
type Obj = { apiVersion: string; kind: string; metadata: { name: string; namespace?: string; labels?: Record<string, string>; annotations?: Record<string, string> } };
const strip = (o: Obj): Obj => {
  const { labels = {}, annotations = {}, ...md } = o.metadata;
  const l = Object.fromEntries(Object.entries(labels).filter(([k]) => !k.startsWith('projectsveltos.io/')));
  const a = Object.fromEntries(Object.entries(annotations).filter(([k]) => !k.startsWith('projectsveltos.io/')));
  return { ...o, metadata: { ...md, ...(Object.keys(l).length ? { labels: l } : {}), ...(Object.keys(a).length ? { annotations: a } : {}) } };
};

test('kustomizationRefs from --source: the objects kubectl kustomize builds, stamped Kustomize; policyRefs read the files under path', async () => {
  const f = profile({
    kustomizationRefs: [{ kind: 'GitRepository', namespace: 'flux-system', name: 'apps', path: './overlays/prod' }],
    policyRefs: [{ kind: 'GitRepository', namespace: 'flux-system', name: 'apps', path: 'policies' }],
  });
  const r = await runCli(['render', '-f', f, '--cluster', 'prod:env=prod', '--source', `GitRepository/flux-system/apps=${join(dir, 'repo')}`]);
  assert.equal(r.code, 0, r.stderr);
  const docs = parseAllDocuments(r.stdout).map((d) => d.toJS() as Obj);
  const kust = docs.filter((d) => d.metadata.labels?.['projectsveltos.io/reason'] === 'Kustomize');
  const expected = parseAllDocuments(execFileSync('/usr/bin/kubectl', ['kustomize', join(dir, 'repo/overlays/prod')], { encoding: 'utf8' })).map((d) => d.toJS() as Obj);
  // Namespaced objects without a namespace land in `default`, as the deployer defaults them.
  assert.deepEqual(kust.map(strip), expected.map((o) => ({ ...o, metadata: { ...o.metadata, namespace: o.metadata.namespace ?? 'default' } })));
  assert.equal(kust[0].metadata.annotations!['projectsveltos.io/reference-kind'], 'GitRepository');
  const ns = docs.filter((d) => d.kind === 'Namespace').map((d) => d.metadata.name);
  assert.ok(ns.includes('team-prod'), `policy rendered as a template (the source is annotated): ${ns.join(',')}`);
  assert.ok(!ns.includes('not-deployed'));
  assert.match(r.stderr, /0 problems\n$/);
});

test('values, valuesFrom-less substitution and targetNamespace; a missing --source is a problem saying what to pass', async () => {
  put('vals/kustomization.yaml', 'resources:\n- cm.yaml\n');
  put('vals/cm.yaml', 'apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: settings\ndata:\n  region: "{{ .region }}"\n');
  const f = profile({ kustomizationRefs: [{ kind: 'GitRepository', namespace: 'flux-system', name: 'vals', path: '.', targetNamespace: 'apps', values: { region: '{{ index .Cluster.metadata.labels "env" }}-eu' } }] });
  const r = await runCli(['render', '-f', f, '--cluster', 'prod:env=prod', '--source', `flux-system/vals=${join(dir, 'vals')}`, '-o', 'json']);
  assert.equal(r.code, 0, r.stderr);
  const out = JSON.parse(r.stdout) as { deployments: { actions: { object?: Obj & { data?: Record<string, string> } }[] }[] };
  const cm = out.deployments.flatMap((d) => d.actions).map((a) => a.object).find((o) => o?.metadata.name === 'settings')!;
  assert.equal(cm.metadata.namespace, 'apps');
  assert.deepEqual(cm.data, { region: 'prod-eu' });

  const missing = await runCli(['render', '-f', f, '--cluster', 'prod:env=prod']);
  assert.equal(missing.code, 3);
  assert.match(missing.stderr, /kustomizationRefs\[0\]: referenced GitRepository flux-system\/vals has no local copy: pass its files with --source GitRepository\/flux-system\/vals=DIR/);
  const bad = await runCli(['render', '-f', f, '--source', 'vals=/tmp']);
  assert.equal(bad.code, 2);
  assert.match(bad.stderr, /--source wants KIND\/NAMESPACE\/NAME=DIR or NAMESPACE\/NAME=DIR/);
});

test('a broken kustomization is reported with Kustomize\'s message', async () => {
  put('broken/kustomization.yaml', 'resources:\n- nope.yaml\n');
  const f = profile({ kustomizationRefs: [{ kind: 'GitRepository', namespace: 'flux-system', name: 'apps', path: '.' }] });
  const r = await runCli(['render', '-f', f, '--cluster', 'prod:env=prod', '--source', `GitRepository/flux-system/apps=${join(dir, 'broken')}`]);
  assert.equal(r.code, 3);
  assert.match(r.stderr, /KustomizeBuildFailed|kustomize build: accumulating resources/);
});

test('an EventTrigger\'s kustomizationRefs (path templated with .Resource) reach the generated ClusterProfile and are built per event', async () => {
  put('events/services/my-service/kustomization.yaml', 'resources:\n- np.yaml\n');
  put('events/services/my-service/np.yaml', 'apiVersion: networking.k8s.io/v1\nkind: NetworkPolicy\nmetadata:\n  name: allow-my-service\nspec:\n  podSelector: {}\n');
  const f = join(dir, 'trigger.yaml');
  writeFileSync(
    f,
    [
      { apiVersion: 'lib.projectsveltos.io/v1beta1', kind: 'EventSource', metadata: { name: 'svc' }, spec: { collectResources: true, resourceSelectors: [{ group: '', version: 'v1', kind: 'Service', labelFilters: [{ key: 'sveltos', operation: 'Equal', value: 'fv' }] }] } },
      {
        apiVersion: 'lib.projectsveltos.io/v1beta1',
        kind: 'EventTrigger',
        metadata: { name: 'per-service' },
        spec: { sourceClusterSelector: { matchLabels: { env: 'fv' } }, eventSourceName: 'svc', oneForEvent: true, kustomizationRefs: [{ kind: 'GitRepository', namespace: 'flux-system', name: 'apps', path: './services/{{ .Resource.metadata.name }}', targetNamespace: '{{ .Resource.metadata.namespace }}' }] },
      },
    ]
      .map((o) => stringify(o))
      .join('---\n'),
  );
  const svc = join(dir, 'svc.yaml');
  writeFileSync(svc, stringify({ apiVersion: 'v1', kind: 'Service', metadata: { name: 'my-service', namespace: 'shop', labels: { sveltos: 'fv' } }, spec: { ports: [{ port: 80 }] } }));
  const r = await runCli(['render', '-f', f, '--resource', svc, '--cluster', 'fv1:env=fv', '--source', `GitRepository/flux-system/apps=${join(dir, 'events')}`, '-o', 'json']);
  assert.equal(r.code, 0, r.stderr);
  const out = JSON.parse(r.stdout) as { deployments: { actions: { object?: Obj }[] }[] };
  const np = out.deployments.flatMap((d) => d.actions).map((a) => a.object).find((o) => o?.kind === 'NetworkPolicy');
  assert.ok(np, r.stdout.slice(0, 2000));
  assert.equal(`${np.metadata.namespace}/${np.metadata.name}`, 'shop/allow-my-service');
  assert.equal(np.metadata.labels!['projectsveltos.io/reason'], 'Kustomize');
});
