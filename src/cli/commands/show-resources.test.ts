// `ripple show resources` and `ripple show usage` against the embedded API server with the add-on deployer running:
// objects of a kind across the registered clusters (one unreachable), and who references which ConfigMap/Secret/chart.
import { strict as assert } from 'node:assert';
import { PassThrough, Readable } from 'node:stream';
import { after, before, describe, test } from 'node:test';
import { eventually } from '../../../test/support/eventually.js';
import { runCli } from '../../../test/support/run-cli.js';
import { startAddonTestEnv, type AddonTestEnv } from '../../../test/support/addon-env.js';
import { registerCluster } from '../../clusters/index.js';
import type { KubeObject } from '../../kube/index.js';
import { main } from '../main.js';

const CP = (name: string, spec: Record<string, unknown>) => ({ apiVersion: 'config.projectsveltos.io/v1beta1', kind: 'ClusterProfile', metadata: { name }, spec }) as KubeObject;

describe('ripple show resources / usage', () => {
  let env: AddonTestEnv;
  before(async () => {
    env = await startAddonTestEnv({ clusters: [{ name: 'r1', labels: { env: 'res' } }, { name: 'r2', labels: { env: 'res' } }] });
    await env.clusters.r1.create({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'probe', namespace: 'default' }, data: { a: 'b' } });
    // A cluster whose API server is gone: its kubeconfig points at a closed port.
    const dead = env.api.server.kubeconfigYaml('r2').replace(/server: "?https?:\/\/127\.0\.0\.1:\d+/, 'server: "https://127.0.0.1:1');
    await registerCluster(env.mgmt, { namespace: 'ghost', name: 'ghost', kubeconfig: dead });
    const put = (o: KubeObject) => env.mgmt.apply(o, { fieldManager: 'test' });
    await put({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'policy', namespace: 'default' }, data: {} });
    await put(CP('uses-policy', { clusterSelector: { matchLabels: { env: 'res' } }, policyRefs: [{ kind: 'ConfigMap', name: 'policy', namespace: 'default' }] }));
    await put(
      CP('uses-chart', {
        clusterRefs: [{ apiVersion: 'lib.projectsveltos.io/v1beta1', kind: 'SveltosCluster', namespace: 'r1', name: 'r1' }],
        policyRefs: [{ kind: 'ConfigMap', name: 'policy', namespace: 'default' }],
        helmCharts: [{ repositoryURL: 'https://charts.example.com', repositoryName: 'ex', chartName: 'ex/app', chartVersion: '1.2.3', releaseName: 'app', releaseNamespace: 'app', valuesFrom: [{ kind: 'Secret', name: 'app-values', namespace: 'default' }] }],
      }),
    );
    await put({
      apiVersion: 'lib.projectsveltos.io/v1beta1',
      kind: 'EventTrigger',
      metadata: { name: 'on-event' },
      spec: { sourceClusterSelector: { matchLabels: { env: 'res' } }, eventSourceName: 'x', policyRefs: [{ kind: 'ConfigMap', name: 'policy', namespace: 'default' }], configMapGenerator: [{ name: 'tmpl', nameFormat: '{{ .Cluster.metadata.name }}-x' }] },
    });
    const status = (name: string) => env.mgmt.getIfExists<KubeObject & { status?: { matchingClusters?: unknown[] } }>({ apiVersion: 'config.projectsveltos.io/v1beta1', kind: 'ClusterProfile', name });
    await eventually(() => status('uses-policy'), (o) => o?.status?.matchingClusters?.length === 2);
    await eventually(() => status('uses-chart'), (o) => o?.status?.matchingClusters?.length === 1);
  });
  after(async () => env?.stop());

  const flags = () => ['--kubeconfig', env.api.kubeconfigPath, '--context', 'mgmt'];

  test('show resources lists a kind in every registered cluster, and says which cluster it could not read', async () => {
    const r = await runCli(['show', 'resources', '--kind', 'ConfigMap', '-n', 'default', ...flags()]);
    assert.equal(r.code, 0, r.stderr);
    const lines = r.stdout.trimEnd().split('\n');
    assert.match(lines[0], /^CLUSTER\s+GVK\s+NAMESPACE\s+NAME\s+MESSAGE$/);
    assert.ok(lines.some((l) => /^r1\/r1\s+v1, Kind=ConfigMap\s+default\s+probe\s*$/.test(l)), r.stdout);
    assert.ok(!lines.some((l) => /^r2\/r2 .*probe/.test(l)), r.stdout);
    assert.ok(lines.some((l) => /^ghost\/ghost\s+v1, Kind=ConfigMap\s+-\s+cannot read cluster ghost\/ghost: /.test(l)), r.stdout);

    const one = await runCli(['show', 'resources', '--kind', 'ConfigMap', '-n', 'default', '--cluster', 'r1/r1', '-o', 'json', ...flags()]);
    const rows = JSON.parse(one.stdout) as { cluster: string; name: string }[];
    assert.ok(rows.length > 0 && rows.every((x) => x.cluster === 'r1/r1'));
    assert.ok(rows.some((x) => x.name === 'probe'));

    const full = await runCli(['show', 'resources', '--kind', 'ConfigMap', '-n', 'default', '--cluster', 'r1/r1', '--full', ...flags()]);
    assert.match(full.stdout, /---\n# cluster r1\/r1\napiVersion: v1\nkind: ConfigMap\n(.*\n)*data:\n {2}a: b\n/);

    const none = await runCli(['show', 'resources', '--kind', 'Deployment', '--group', 'apps', '--cluster', 'r2/r2', ...flags()]);
    assert.equal(none.code, 0, none.stderr);
    assert.match(none.stdout, /^No Deployment \(apps\/v1\) in any registered cluster\n$/);

    const bad = await runCli(['show', 'resources', ...flags()]);
    assert.equal(bad.code, 2);
    assert.match(bad.stderr, /--kind is required/);
  });

  test('show usage says who references each ConfigMap, Secret and chart, and where it lands', async () => {
    const r = await runCli(['show', 'usage', ...flags()]);
    assert.equal(r.code, 0, r.stderr);
    const lines = r.stdout.trimEnd().split('\n');
    assert.match(lines[0], /^KIND\s+NAMESPACE\s+NAME\s+USED BY\s+CLUSTERS$/);
    assert.ok(
      lines.some((l) => /^ConfigMap\s+default\s+policy\s+ClusterProfile\/uses-chart \(policyRefs\), ClusterProfile\/uses-policy \(policyRefs\), EventTrigger\/on-event \(policyRefs\)\s+r1\/r1, r2\/r2$/.test(l)),
      r.stdout,
    );
    assert.ok(lines.some((l) => /^HelmChart\s+https:\/\/charts\.example\.com\/ex\/app@1\.2\.3\s+ClusterProfile\/uses-chart \(helmCharts\)\s+r1\/r1$/.test(l)), r.stdout);
    assert.ok(lines.some((l) => /^Secret\s+default\s+app-values\s+ClusterProfile\/uses-chart \(helmCharts\.valuesFrom\)\s+r1\/r1$/.test(l)), r.stdout);
    assert.ok(lines.some((l) => /^ConfigMap\s+\(cluster namespace\)\s+tmpl\s+EventTrigger\/on-event \(configMapGenerator\)\s+-$/.test(l)), r.stdout);

    const only = await runCli(['show', 'usage', '--kind', 'Secret', '-o', 'json', ...flags()]);
    assert.deepEqual(JSON.parse(only.stdout), [{ kind: 'Secret', namespace: 'default', name: 'app-values', usedBy: ['ClusterProfile/uses-chart (helmCharts.valuesFrom)'], clusters: ['r1/r1'] }]);
    const typo = await runCli(['show', 'usage', '--kind', 'Configmap', ...flags()]);
    assert.equal(typo.code, 2);
    assert.match(typo.stderr, /did you mean "ConfigMap"\?/);
  });

  test('show usage -w prints the table, then a line for each reference that appears', { timeout: 30_000 }, async () => {
    const out = new PassThrough();
    let text = '';
    out.on('data', (c: Buffer) => (text += c.toString()));
    const done = main(['show', 'usage', '-w', '--kind', 'ConfigMap', ...flags()], { stdin: Readable.from(['']), stdout: out, stderr: new PassThrough() });
    await eventually(() => text, (t) => /^ConfigMap\s+default\s+policy\s/m.test(t), { message: 'the initial table' });
    const before = text.length;
    await env.mgmt.apply(CP('uses-extra', { policyRefs: [{ kind: 'ConfigMap', name: 'extra', namespace: 'default' }] }), { fieldManager: 'test' });
    await eventually(() => text.slice(before), (t) => /^ConfigMap\s+default\s+extra\s+ClusterProfile\/uses-extra \(policyRefs\)\s+-\n$/.test(t), { message: 'one line for the new reference' });
    // SIGTERM ends a watch with exit 0 (the handler is the command's; emitting the event does not kill this process).
    process.emit('SIGTERM', 'SIGTERM');
    assert.equal(await done, 0);
  });
});
