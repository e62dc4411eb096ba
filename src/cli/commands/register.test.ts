// `ripple register cluster` against the embedded API server: creates namespace, Secret and SveltosCluster, is
// idempotent, merges labels, and fails with clear messages and exit codes.
import { strict as assert } from 'node:assert';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { generateCrds } from '../../api/index.js';
import { KubeClient, loadKubeConfig, type KubeObject } from '../../kube/index.js';
import { runCli } from '../../../test/support/run-cli.js';
import { startTestApiServer, type TestApiServer } from '../../../test/support/apiserver.js';

describe('ripple register cluster', () => {
  let api: TestApiServer;
  let mgmt: KubeClient;
  let dir: string;
  before(async () => {
    api = await startTestApiServer({ clusters: ['mgmt', 'edge', 'bare'] });
    mgmt = new KubeClient(await api.kubeConfig('mgmt'));
    for (const crd of generateCrds()) await mgmt.create(crd as unknown as KubeObject);
    dir = mkdtempSync(join(tmpdir(), 'ripple-register-'));
  });
  after(async () => {
    mgmt.close();
    await api.stop();
    rmSync(dir, { recursive: true, force: true });
  });

  const base = () => ['register', 'cluster', '--mgmt-kubeconfig', api.kubeconfigPath, '--mgmt-context', 'mgmt', '--kubeconfig', api.kubeconfigPath, '--context', 'edge'];

  test('creates namespace, kubeconfig Secret and SveltosCluster; a second run changes nothing', async () => {
    const r = await runCli([...base(), '--namespace', 'fleet', '--name', 'edge', '--labels', 'env=prod,region=eu']);
    assert.equal(r.code, 0, r.stderr);
    assert.match(r.stdout, /^namespace\/fleet created\nsecret\/edge-sveltos-kubeconfig created\nsveltoscluster\.lib\.projectsveltos\.io\/edge created\n/);
    assert.match(r.stdout, /cluster edge is reachable from here \(Kubernetes v1\.32\.0-ripple\)/);
    assert.match(r.stdout, /clusterSelector: \{matchLabels: \{env: prod, region: eu\}\}/);
    const sc = await mgmt.get<KubeObject & { spec: { kubeconfigKeyName: string } }>({ apiVersion: 'lib.projectsveltos.io/v1beta1', kind: 'SveltosCluster', namespace: 'fleet', name: 'edge' });
    assert.deepEqual(sc.metadata.labels, { env: 'prod', region: 'eu' });
    assert.equal(sc.spec.kubeconfigKeyName, 'kubeconfig');
    const secret = await mgmt.get<KubeObject & { data: Record<string, string> }>({ apiVersion: 'v1', kind: 'Secret', namespace: 'fleet', name: 'edge-sveltos-kubeconfig' });
    assert.deepEqual(Object.keys(secret.data), ['kubeconfig']);
    // The stored kubeconfig is self-contained, has exactly one context, and reaches the edge cluster.
    const stored = Buffer.from(secret.data.kubeconfig, 'base64').toString();
    const kc = loadKubeConfig({ yaml: stored });
    assert.equal(kc.getContexts().length, 1);
    const edge = new KubeClient(kc);
    assert.match(edge.server, /\/clusters\/edge$/);
    assert.equal((await edge.version()).major, '1');
    edge.close();

    const again = await runCli([...base(), '--namespace', 'fleet', '--name', 'edge', '--labels', 'env=prod']);
    assert.equal(again.code, 0, again.stderr);
    assert.match(again.stdout, /^namespace\/fleet unchanged\nsecret\/edge-sveltos-kubeconfig unchanged\nsveltoscluster\.lib\.projectsveltos\.io\/edge unchanged\n/);
  });

  test('labels merge into existing ones; a changed kubeconfig updates the Secret', async () => {
    await mgmt.patch({ apiVersion: 'lib.projectsveltos.io/v1beta1', kind: 'SveltosCluster', namespace: 'fleet', name: 'edge' }, 'merge', { metadata: { labels: { 'projectsveltos.io/k8s-version': 'v1.32.0' } } });
    const r = await runCli(['register', 'cluster', '--mgmt-kubeconfig', api.kubeconfigPath, '--mgmt-context', 'mgmt', '--kubeconfig', api.kubeconfigPath, '--context', 'bare', '--namespace', 'fleet', '--name', 'edge', '--labels', 'env=staging']);
    assert.equal(r.code, 0, r.stderr);
    assert.match(r.stdout, /secret\/edge-sveltos-kubeconfig configured\nsveltoscluster\.lib\.projectsveltos\.io\/edge configured/);
    const sc = await mgmt.get({ apiVersion: 'lib.projectsveltos.io/v1beta1', kind: 'SveltosCluster', namespace: 'fleet', name: 'edge' });
    assert.deepEqual(sc.metadata.labels, { env: 'staging', region: 'eu', 'projectsveltos.io/k8s-version': 'v1.32.0' });
  });

  test('the management cluster can register itself as mgmt/mgmt', async () => {
    const r = await runCli(['register', 'cluster', '--mgmt-kubeconfig', api.kubeconfigPath, '--mgmt-context', 'mgmt', '--kubeconfig', api.kubeconfigPath, '--context', 'mgmt', '--namespace', 'mgmt', '--name', 'mgmt']);
    assert.equal(r.code, 0, r.stderr);
    assert.match(r.stdout, /add labels \(--labels k=v\)/);
    assert.ok(await mgmt.getIfExists({ apiVersion: 'lib.projectsveltos.io/v1beta1', kind: 'SveltosCluster', namespace: 'mgmt', name: 'mgmt' }));
  });

  test('bad input: usage errors, unusable kubeconfig, bad labels, missing CRDs, unreachable management cluster', async () => {
    const usage = await runCli(['register', 'cluster', '--name', 'x']);
    assert.equal(usage.code, 2);
    assert.match(usage.stderr, /missing --namespace, --kubeconfig/);
    const help = await runCli(['register', 'cluster', '--help']);
    assert.equal(help.code, 0);
    assert.match(help.stdout, /^Usage: ripple register cluster/);

    const noFile = await runCli([...base().slice(0, 6), '--kubeconfig', join(dir, 'missing.yaml'), '--namespace', 'a', '--name', 'b']);
    assert.equal(noFile.code, 3);
    assert.match(noFile.stderr, /--kubeconfig .*missing\.yaml: cannot read kubeconfig/);
    const badCtx = await runCli([...base().slice(0, 8), '--context', 'nope', '--namespace', 'a', '--name', 'b']);
    assert.equal(badCtx.code, 3);
    assert.match(badCtx.stderr, /context "nope" not found/);
    const badLabels = await runCli([...base(), '--namespace', 'a', '--name', 'b', '--labels', 'oops']);
    assert.equal(badLabels.code, 3);
    assert.match(badLabels.stderr, /--labels: invalid label "oops"/);
    const badName = await runCli([...base(), '--namespace', 'a', '--name', 'Not_Valid']);
    assert.equal(badName.code, 3);
    assert.match(badName.stderr, /name "Not_Valid"/);

    // A management cluster without the Sveltos CRDs.
    const noCrds = await runCli(['register', 'cluster', '--mgmt-kubeconfig', api.kubeconfigPath, '--mgmt-context', 'bare', '--kubeconfig', api.kubeconfigPath, '--context', 'edge', '--namespace', 'a', '--name', 'b']);
    assert.equal(noCrds.code, 4);
    assert.match(noCrds.stderr, /does not serve SveltosCluster[\s\S]*ripple manifests crds \| kubectl apply -f -/);
    const bare = new KubeClient(await api.kubeConfig('bare'));
    assert.equal(await bare.getIfExists({ apiVersion: 'v1', kind: 'Namespace', name: 'a' }), undefined, 'nothing written when the CRD is missing');
    bare.close();

    // An unreachable management cluster.
    const deadPath = join(dir, 'dead.yaml');
    writeFileSync(deadPath, api.server.kubeconfigYaml('mgmt').replace(/https:\/\/127\.0\.0\.1:\d+/g, 'http://127.0.0.1:1'));
    const dead = await runCli(['register', 'cluster', '--mgmt-kubeconfig', deadPath, '--kubeconfig', api.kubeconfigPath, '--context', 'edge', '--namespace', 'a', '--name', 'b']);
    assert.equal(dead.code, 4);
    assert.match(dead.stderr, /cannot reach the management cluster/);
  });
});
