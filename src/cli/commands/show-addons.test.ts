// `ripple show addons` / `ripple show dryrun` against the embedded API server with the add-on deployer running:
// feature states per (cluster, profile) with the exact failure, DryRun actions, filters, JSON, and the errors.
import { strict as assert } from 'node:assert';
import { after, before, describe, test } from 'node:test';
import { eventually } from '../../../test/support/eventually.js';
import { runCli } from '../../../test/support/run-cli.js';
import { startAddonTestEnv, type AddonTestEnv } from '../../../test/support/addon-env.js';
import type { KubeObject } from '../../kube/index.js';

const CM = (name: string, data: Record<string, string>) => ({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name, namespace: 'default' }, data }) as KubeObject;
const CP = (name: string, spec: Record<string, unknown>) => ({ apiVersion: 'config.projectsveltos.io/v1beta1', kind: 'ClusterProfile', metadata: { name }, spec }) as KubeObject;
const obj = (name: string) => `apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: ${name}\n  namespace: apps\ndata:\n  a: b\n`;

describe('ripple show addons / dryrun', () => {
  let env: AddonTestEnv;
  before(async () => {
    env = await startAddonTestEnv({ clusters: [{ name: 's1', labels: { env: 'show' } }, { name: 's2', labels: { env: 'show' } }] });
    const put = (o: KubeObject) => env.mgmt.apply(o, { fieldManager: 'test' });
    await put(CM('good', { 'a.yaml': obj('good') }));
    await put(CP('good', { clusterSelector: { matchLabels: { env: 'show' } }, policyRefs: [{ kind: 'ConfigMap', name: 'good', namespace: 'default' }] }));
    await put(CP('broken', { clusterRefs: [{ apiVersion: 'lib.projectsveltos.io/v1beta1', kind: 'SveltosCluster', namespace: 's1', name: 's1' }], policyRefs: [{ kind: 'ConfigMap', name: 'nope', namespace: 'default' }] }));
    const cs = (ns: string, name: string) => env.mgmt.getIfExists<KubeObject & { status?: { featureSummaries?: { status?: string }[] } }>({ apiVersion: 'config.projectsveltos.io/v1beta1', kind: 'ClusterSummary', namespace: ns, name });
    await eventually(() => cs('s2', 'good-sveltos-s2'), (o) => o?.status?.featureSummaries?.[0]?.status === 'Provisioned');
    await put(CP('preview', { clusterRefs: [{ apiVersion: 'lib.projectsveltos.io/v1beta1', kind: 'SveltosCluster', namespace: 's2', name: 's2' }], syncMode: 'DryRun', policyRefs: [{ kind: 'ConfigMap', name: 'good', namespace: 'default' }] }));
    await eventually(() => cs('s1', 'broken-sveltos-s1'), (o) => o?.status?.featureSummaries?.[0]?.status === 'FailedNonRetriable');
    await eventually(() => env.mgmt.getIfExists<KubeObject & { status?: { resourceReports?: unknown[] } }>({ apiVersion: 'config.projectsveltos.io/v1beta1', kind: 'ClusterReport', namespace: 's2', name: 'preview--sveltos--s2' }), (o) => (o?.status?.resourceReports ?? []).length > 0);
  });
  after(async () => env?.stop());

  const flags = () => ['--kubeconfig', env.api.kubeconfigPath, '--context', 'mgmt'];

  test('show addons lists each feature per cluster and profile, with the failure', async () => {
    const r = await runCli(['show', 'addons', ...flags()]);
    assert.equal(r.code, 0, r.stderr);
    const lines = r.stdout.trimEnd().split('\n');
    assert.match(lines[0], /^CLUSTER\s+PROFILE\s+FEATURE\s+STATUS\s+LAST APPLIED\s+KINDS\s+MESSAGE$/);
    assert.ok(lines.some((l) => /^s1\/s1\s+ClusterProfile\/broken\s+Resources\s+FailedNonRetriable\s+.*referenced ConfigMap default\/nope does not exist/.test(l)), r.stdout);
    assert.ok(lines.some((l) => /^s1\/s1\s+ClusterProfile\/good\s+Resources\s+Provisioned\s+\d{4}-\d\d-\d\dT\S+Z\s+1\s*$/.test(l)), r.stdout);
    assert.ok(lines.some((l) => /^s2\/s2\s+ClusterProfile\/good\s+Resources\s+Provisioned/.test(l)), r.stdout);
    const only = await runCli(['show', 'addons', ...flags(), '--cluster', 's2/s2', '--profile', 'good', '-o', 'json']);
    assert.equal(only.code, 0, only.stderr);
    const rows = JSON.parse(only.stdout) as { cluster: string; profile: string; status: string; deployed: string[] }[];
    assert.deepEqual(rows.map((x) => [x.cluster, x.profile, x.status, x.deployed]), [['s2/s2', 'ClusterProfile/good', 'Provisioned', ['ConfigMap.v1.']]]);
  });

  test('show dryrun lists what a DryRun profile would do', async () => {
    const r = await runCli(['show', 'dryrun', ...flags()]);
    assert.equal(r.code, 0, r.stderr);
    assert.match(r.stdout, /^CLUSTER\s+PROFILE\s+ACTION\s+RESOURCE\s+MESSAGE\n/);
    // good already deployed the same object to s2: the DryRun profile would conflict with it.
    assert.match(r.stdout, /s2\/s2\s+ClusterProfile\/preview\s+Conflict\s+ConfigMap apps\/good\s+A conflict was detected/);
    const none = await runCli(['show', 'dryrun', ...flags(), '--cluster', 's1/s1']);
    assert.equal(none.code, 0);
    assert.match(none.stdout, /^No DryRun reports/);
  });

  test('bad command lines and unusable kubeconfigs say what to do', async () => {
    const bad = await runCli(['show', 'addons', ...flags(), '--cluster', 'justname']);
    assert.equal(bad.code, 2);
    assert.match(bad.stderr, /--cluster must be NAMESPACE\/NAME/);
    const out = await runCli(['show', 'addons', ...flags(), '-o', 'yaml']);
    assert.equal(out.code, 2);
    const missing = await runCli(['show', 'addons', '--kubeconfig', '/nonexistent/kubeconfig']);
    assert.equal(missing.code, 3);
    assert.match(missing.stderr, /management kubeconfig \/nonexistent\/kubeconfig: .*\nPass --kubeconfig FILE/);
    const help = await runCli(['show', 'addons', '--help']);
    assert.equal(help.code, 0);
    assert.match(help.stdout, /^Usage: ripple show addons/);
  });
});
