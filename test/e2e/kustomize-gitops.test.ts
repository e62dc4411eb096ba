// End to end, GitOps through Flux sources: the embedded environment of `ripple up` (which installs Flux's source
// CRDs), a GitRepository created with kubectl whose status the test writes with kubectl the way source-controller
// does (artifact url/revision/digest, Ready condition), the artifact (tar.gz) served over HTTP on loopback by the
// test, and a ClusterProfile with a kustomizationRef deploying the overlay to the cluster — then a new revision.
import { strict as assert } from 'node:assert';
import { createHash } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import { startEmbedded, type Embedded } from '../../src/manager/index.js';
import { eventually } from '../support/eventually.js';
import { tgz } from '../support/tgz.js';
import { kubectl } from './ripple-up.js';

let env: Embedded;
let http: Server;
let base: string;
let dir: string;
const artifacts = new Map<string, Buffer>();
let kc: (args: string[], stdin?: string) => Promise<string>;

before(async () => {
  dir = mkdtempSync(join(tmpdir(), 'ripple-gitops-e2e-'));
  http = createServer((req, res) => {
    const body = artifacts.get(req.url ?? '');
    if (!body) res.writeHead(404).end();
    else res.writeHead(200, { 'content-length': String(body.length) }).end(body);
  });
  await new Promise<void>((r) => http.listen(0, '127.0.0.1', r));
  base = `http://127.0.0.1:${(http.address() as AddressInfo).port}`;
  env = await startEmbedded({ dataDir: join(dir, 'data'), port: 0, clusters: [{ name: 'cluster-a', labels: { env: 'fv' } }] });
  kc = async (args, stdin) => {
    const r = await kubectl(env.kubeconfigPath, args, stdin);
    if (r.code !== 0) throw new Error(`kubectl ${args.join(' ')}: ${r.stderr}`);
    return r.stdout;
  };
});

after(async () => {
  await env?.stop();
  await new Promise<void>((r) => (http ? http.close(() => r()) : r()));
  rmSync(dir, { recursive: true, force: true });
});

const tree = (replicas: number) => ({
  'apps/base/kustomization.yaml': 'resources:\n- deployment.yaml\n',
  'apps/base/deployment.yaml': 'apiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: web\nspec:\n  replicas: 1\n  selector:\n    matchLabels: {app: web}\n  template:\n    metadata:\n      labels: {app: web}\n    spec:\n      containers:\n      - name: web\n        image: nginx:1.25\n',
  'apps/prod/kustomization.yaml': `resources:\n- ../base\nnamespace: web\nnamePrefix: prod-\nreplicas:\n- name: web\n  count: ${replicas}\nimages:\n- name: nginx\n  newTag: "1.27"\n`,
});

/** publish serves the tree as an artifact and writes the GitRepository status as source-controller does. */
async function publish(replicas: number, commit: string): Promise<void> {
  const body = tgz(tree(replicas));
  const path = `/gitrepository/flux-system/apps/${commit}.tar.gz`;
  artifacts.set(path, body);
  const revision = `main@sha1:${commit}`;
  const now = new Date().toISOString().replace(/\.\d+Z$/, 'Z');
  const status = {
    observedGeneration: 1,
    artifact: { path: path.slice(1), url: `${base}${path}`, revision, digest: `sha256:${createHash('sha256').update(body).digest('hex')}`, lastUpdateTime: now, size: body.length },
    conditions: [{ type: 'Ready', status: 'True', observedGeneration: 1, lastTransitionTime: now, reason: 'Succeeded', message: `stored artifact for revision '${revision}'` }],
  };
  await kc(['--context', 'mgmt', '-n', 'flux-system', 'patch', 'gitrepository', 'apps', '--subresource=status', '--type=merge', '-p', JSON.stringify({ status })]);
}

test('ripple up serves Flux GitRepository; a kustomizationRef deploys the overlay, a new revision redeploys', async () => {
  await kc(['--context', 'mgmt', 'get', 'crd', 'gitrepositories.source.toolkit.fluxcd.io', 'ocirepositories.source.toolkit.fluxcd.io', 'buckets.source.toolkit.fluxcd.io']);
  await kc(['--context', 'mgmt', 'create', 'namespace', 'flux-system']);
  await kc(['--context', 'mgmt', 'apply', '-f', '-'], 'apiVersion: source.toolkit.fluxcd.io/v1\nkind: GitRepository\nmetadata:\n  name: apps\n  namespace: flux-system\nspec:\n  url: https://github.com/example/apps\n  interval: 1m\n  ref:\n    branch: main\n');
  await publish(2, '1111111111111111111111111111111111111111');
  // kubectl's table shows the printer columns of the CRD: URL, Age, Ready, Status.
  const table = await kc(['--context', 'mgmt', '-n', 'flux-system', 'get', 'gitrepositories']);
  assert.match(table, /^NAME\s+URL\s+AGE\s+READY\s+STATUS\n/);
  assert.match(table, /apps\s+https:\/\/github\.com\/example\/apps\s+\S+\s+True\s+stored artifact for revision 'main@sha1:1{40}'/);
  await kc(
    ['--context', 'mgmt', 'apply', '-f', '-'],
    'apiVersion: config.projectsveltos.io/v1beta1\nkind: ClusterProfile\nmetadata:\n  name: gitops\nspec:\n  clusterSelector:\n    matchLabels:\n      env: fv\n  kustomizationRefs:\n  - kind: GitRepository\n    namespace: flux-system\n    name: apps\n    path: ./apps/prod\n',
  );
  const get = async () => {
    const r = await kubectl(env.kubeconfigPath, ['--context', 'cluster-a', '-n', 'web', 'get', 'deployment', 'prod-web', '-o', 'json']);
    return r.code === 0 ? (JSON.parse(r.stdout) as { spec: { replicas: number; template: { spec: { containers: { image: string }[] } } }; metadata: { labels: Record<string, string> } }) : undefined;
  };
  const d = await eventually(get, Boolean, { message: 'overlay deployed', timeoutMs: 20_000 }).catch(async (e) => {
    throw new Error(`${(e as Error).message}\n${await kc(['--context', 'mgmt', '-n', 'cluster-a', 'get', 'clustersummaries', '-o', 'yaml'])}`);
  });
  assert.equal(d!.spec.replicas, 2);
  assert.equal(d!.spec.template.spec.containers[0].image, 'nginx:1.27');
  assert.equal(d!.metadata.labels['projectsveltos.io/reason'], 'Kustomize');
  const summary = JSON.parse(await kc(['--context', 'mgmt', '-n', 'cluster-a', 'get', 'clustersummary', 'gitops-sveltos-cluster-a', '-o', 'json'])) as { status: { featureSummaries: { featureID: string; status: string }[] } };
  assert.ok(summary.status.featureSummaries.some((f) => f.featureID === 'Kustomize' && f.status === 'Provisioned'));
  await publish(4, '2222222222222222222222222222222222222222');
  await eventually(get, (x) => x?.spec.replicas === 4, { message: 'new revision redeployed', timeoutMs: 20_000 });
  await kc(['--context', 'mgmt', 'delete', 'clusterprofile', 'gitops']);
  await eventually(get, (x) => x === undefined, { message: 'withdrawn', timeoutMs: 20_000 });
});
