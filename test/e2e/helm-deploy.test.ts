// End to end, the Helm feature: a chart repository served on loopback by the test (charts written here, packaged
// with Ripple's `helm package` code), the embedded environment of `ripple up`, and kubectl as the client. A
// ClusterProfile with helmCharts installs the chart in the selected cluster — the release recorded in Helm 3's
// storage format, objects carrying Helm's ownership metadata, values rendered with the cluster's data — then an
// upgrade drops an object, a missing version fails visibly (status + Event) and deleting the profile uninstalls.
import { strict as assert } from 'node:assert';
import { createHash } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import { loadChartFiles, packageChart, releaseFromSecret } from '../../src/helm/index.js';
import { startEmbedded, type Embedded } from '../../src/manager/index.js';
import { eventually } from '../support/eventually.js';
import { startChartRepo, type ChartRepo } from '../support/chart-repo.js';
import { runCli } from '../support/run-cli.js';
import { kubectl } from './ripple-up.js';

const enc = (s: string) => new TextEncoder().encode(s);

function chartTgz(version: string, withExtra: boolean): { filename: string; bytes: Buffer } {
  const files = [
    { name: 'Chart.yaml', data: enc(`apiVersion: v2\nname: webapp\nversion: ${version}\nappVersion: "1.0"\n`) },
    { name: 'values.yaml', data: enc('replicas: 1\nclusterName: unknown\n') },
    {
      name: 'templates/config.yaml',
      data: enc('apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: {{ .Release.Name }}-config\ndata:\n  cluster: {{ .Values.clusterName | quote }}\n  replicas: {{ .Values.replicas | quote }}\n  chart: {{ .Chart.Version | quote }}\n'),
    },
    {
      name: 'templates/hook.yaml',
      data: enc('apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: {{ .Release.Name }}-installed\n  annotations:\n    "helm.sh/hook": post-install\ndata:\n  revision: {{ .Release.Revision | quote }}\n'),
    },
    { name: 'templates/NOTES.txt', data: enc('webapp {{ .Chart.Version }} installed as {{ .Release.Name }}\n') },
  ];
  if (withExtra) files.push({ name: 'templates/extra.yaml', data: enc('apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: {{ .Release.Name }}-extra\ndata: {}\n') });
  const p = packageChart(loadChartFiles(files), 1_700_000_000);
  return { filename: p.filename, bytes: Buffer.from(p.bytes) };
}

function indexYaml(charts: { filename: string; bytes: Buffer; version: string }[]): string {
  const entries = charts
    .map((c) => `  - apiVersion: v2\n    name: webapp\n    version: ${c.version}\n    appVersion: "1.0"\n    digest: ${createHash('sha256').update(c.bytes).digest('hex')}\n    urls:\n    - ${c.filename}\n    created: "2026-01-01T00:00:00Z"`)
    .join('\n');
  return `apiVersion: v1\nentries:\n  webapp:\n${entries}\ngenerated: "2026-01-01T00:00:00Z"\n`;
}

const profile = (repoURL: string, version: string) => `apiVersion: config.projectsveltos.io/v1beta1
kind: ClusterProfile
metadata:
  name: webapp
spec:
  clusterSelector:
    matchLabels:
      env: fv
  helmCharts:
  - repositoryURL: ${repoURL}
    repositoryName: charts
    chartName: charts/webapp
    chartVersion: ${version}
    releaseName: web
    releaseNamespace: web
    helmChartAction: Install
    values: |
      replicas: 3
      clusterName: {{ .Cluster.metadata.name }}
`;

let env: Embedded;
let repo: ChartRepo;
let dir: string;
let kc: (args: string[], stdin?: string) => Promise<string>;

before(async () => {
  dir = mkdtempSync(join(tmpdir(), 'ripple-helm-e2e-'));
  const v1 = { ...chartTgz('0.1.0', true), version: '0.1.0' };
  const v2 = { ...chartTgz('0.2.0', false), version: '0.2.0' };
  repo = await startChartRepo({ '/index.yaml': indexYaml([v1, v2]), [`/${v1.filename}`]: v1.bytes, [`/${v2.filename}`]: v2.bytes });
  env = await startEmbedded({ dataDir: join(dir, 'data'), port: 0, clusters: [{ name: 'cluster-a', labels: { env: 'fv' } }] });
  kc = async (args, stdin) => {
    const r = await kubectl(env.kubeconfigPath, args, stdin);
    if (r.code !== 0) throw new Error(`kubectl ${args.join(' ')}: ${r.stderr}`);
    return r.stdout;
  };
});

after(async () => {
  await env?.stop();
  await repo?.stop();
  rmSync(dir, { recursive: true, force: true });
});

interface Obj {
  metadata: { name: string; labels?: Record<string, string>; annotations?: Record<string, string> };
  data?: Record<string, string>;
  type?: string;
}

const releases = async () =>
  (JSON.parse(await kc(['--context', 'cluster-a', '-n', 'web', 'get', 'secrets', '-l', 'owner=helm,name=web', '-o', 'json'])) as { items: Obj[] }).items
    .map((s) => releaseFromSecret(s))
    .sort((a, b) => a.version - b.version)
    .map((r) => `${r.version}:${r.info?.status}`);

const configMap = async (name: string): Promise<Obj | undefined> => {
  const r = await kubectl(env.kubeconfigPath, ['--context', 'cluster-a', '-n', 'web', 'get', 'configmap', name, '-o', 'json']);
  return r.code === 0 ? (JSON.parse(r.stdout) as Obj) : undefined;
};

const summary = async () => {
  const list = JSON.parse(await kc(['--context', 'mgmt', '-n', 'cluster-a', 'get', 'clustersummaries', '-o', 'json'])) as {
    items: { status?: { featureSummaries?: { featureID: string; status?: string; failureMessage?: string }[]; helmReleaseSummaries?: { releaseName: string; status: string; failureMessage?: string }[] } }[];
  };
  return list.items[0]?.status;
};

test('helmCharts: install, upgrade, a missing version visible in status, uninstall on withdrawal', { timeout: 120_000 }, async () => {
  await kc(['--context', 'mgmt', 'apply', '-f', '-'], profile(repo.url, '0.1.0'));

  // Installed: release record v1 deployed in Helm's format, objects with values rendered from the cluster.
  await eventually(releases, (r) => r.join(',') === '1:deployed', { timeoutMs: 30_000, message: 'release web v1 deployed' });
  const cm = await configMap('web-config');
  assert.deepEqual(cm?.data, { cluster: 'cluster-a', replicas: '3', chart: '0.1.0' });
  assert.equal(cm?.metadata.labels?.['app.kubernetes.io/managed-by'], 'Helm');
  assert.equal(cm?.metadata.annotations?.['meta.helm.sh/release-name'], 'web');
  assert.equal(cm?.metadata.annotations?.['meta.helm.sh/release-namespace'], 'web');
  assert.ok(await configMap('web-extra'), 'web-extra is part of chart 0.1.0');
  assert.equal((await configMap('web-installed'))?.data?.revision, '1', 'the post-install hook ran');
  const secret = JSON.parse(await kc(['--context', 'cluster-a', '-n', 'web', 'get', 'secret', 'sh.helm.release.v1.web.v1', '-o', 'json'])) as Obj;
  assert.equal(secret.type, 'helm.sh/release.v1');
  const rel = releaseFromSecret(secret);
  assert.equal(rel.chart?.metadata?.version, '0.1.0');
  assert.equal(rel.info?.notes, 'webapp 0.1.0 installed as web\n');
  assert.deepEqual(rel.config, { replicas: 3, clusterName: 'cluster-a' });
  assert.match(rel.manifest, /# Source: webapp\/templates\/config.yaml/);
  const st = await eventually(summary, (s) => s?.featureSummaries?.some((f) => f.featureID === 'Helm' && f.status === 'Provisioned') ?? false, { message: 'Helm Provisioned' });
  assert.deepEqual(st?.helmReleaseSummaries?.map((h) => [h.releaseName, h.status]), [['web', 'Managing']]);
  // ripple get addons lists the release (like sveltosctl's helm chart rows), with the chart in the wide VERSION column.
  const get = await runCli(['get', 'addons', '--kubeconfig', env.kubeconfigPath, '--context', 'mgmt', '-o', 'wide']);
  assert.equal(get.code, 0, get.stderr);
  const line = get.stdout.split('\n').find((l) => /HelmRelease/.test(l)) ?? '';
  assert.match(line, /cluster-a\/cluster-a\s+Remote\s+HelmRelease\s+charts\/webapp 0\.1\.0\s+web\s+web\s+ClusterProfile\/webapp\s+.*Helm Provisioned/);

  // Upgrade: v2 deployed, v1 superseded; the object 0.2.0 no longer has is deleted.
  await kc(['--context', 'mgmt', 'apply', '-f', '-'], profile(repo.url, '0.2.0'));
  await eventually(releases, (r) => r.join(',') === '1:superseded,2:deployed', { timeoutMs: 30_000, message: 'release web v2 deployed' });
  await eventually(() => configMap('web-config'), (c) => c?.data?.chart === '0.2.0', { message: 'web-config upgraded' });
  await eventually(() => configMap('web-extra'), (c) => c === undefined, { message: 'web-extra deleted by the upgrade' });

  // A version the repository does not have: Failed with the cause in status and in an Event; the release stays.
  await kc(['--context', 'mgmt', 'apply', '-f', '-'], profile(repo.url, '9.9.9'));
  const failed = await eventually(summary, (s) => s?.featureSummaries?.some((f) => f.featureID === 'Helm' && f.status?.startsWith('Failed')) ?? false, { timeoutMs: 30_000, message: 'Helm Failed' });
  const message = failed?.featureSummaries?.find((f) => f.featureID === 'Helm')?.failureMessage ?? '';
  assert.match(message, /webapp/);
  assert.match(message, /9\.9\.9/);
  const events = await kc(['--context', 'mgmt', '-n', 'cluster-a', 'get', 'events', '--field-selector', 'reason=HelmChartFailed', '-o', 'json']);
  assert.match(events, /9\.9\.9/);
  assert.deepEqual(await releases(), ['1:superseded', '2:deployed']);

  // Withdrawal: deleting the profile uninstalls the release (objects and records).
  await kc(['--context', 'mgmt', 'delete', 'clusterprofile', 'webapp', '--wait=false']);
  await eventually(releases, (r) => r.length === 0, { timeoutMs: 30_000, message: 'release records removed' });
  await eventually(() => configMap('web-config'), (c) => c === undefined, { message: 'web-config uninstalled' });
});

function waitChartTgz(failJob: boolean): { filename: string; bytes: Buffer } {
  const files = [
    { name: 'Chart.yaml', data: enc(`apiVersion: v2\nname: batch\nversion: ${failJob ? '2.0.0' : '1.0.0'}\n`) },
    {
      name: 'templates/deploy.yaml',
      data: enc('apiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: {{ .Release.Name }}-api\nspec:\n  replicas: 2\n  selector:\n    matchLabels: {app: api}\n  template:\n    metadata:\n      labels: {app: api}\n    spec:\n      containers:\n      - name: api\n        image: registry.example/api:1\n'),
    },
    {
      name: 'templates/job.yaml',
      // A Job of the same name would already be complete from 1.0.0 (its template is immutable): 2.0.0 has its own.
      data: enc(`apiVersion: batch/v1\nkind: Job\nmetadata:\n  name: {{ .Release.Name }}-migrate${failJob ? '-v2' : ''}\n${failJob ? '  annotations:\n    ripple.dev/simulate-job: fail\n' : ''}spec:\n  backoffLimit: 0\n  template:\n    spec:\n      restartPolicy: Never\n      containers:\n      - name: migrate\n        image: registry.example/migrate:1\n`),
    },
  ];
  const p = packageChart(loadChartFiles(files), 1_700_000_000);
  return { filename: p.filename, bytes: Buffer.from(p.bytes) };
}

test('helmCharts wait/waitForJobs: deployed once the Deployment is ready and the Job complete; a failing Job fails the release; unhonoured options are said aloud', { timeout: 120_000 }, async () => {
  const good = waitChartTgz(false);
  const bad = waitChartTgz(true);
  const digest = (b: Buffer) => createHash('sha256').update(b).digest('hex');
  const index = `apiVersion: v1\nentries:\n  batch:\n  - {apiVersion: v2, name: batch, version: 2.0.0, digest: ${digest(bad.bytes)}, urls: [${bad.filename}]}\n  - {apiVersion: v2, name: batch, version: 1.0.0, digest: ${digest(good.bytes)}, urls: [${good.filename}]}\n`;
  const repo2 = await startChartRepo({ '/index.yaml': index, [`/${good.filename}`]: good.bytes, [`/${bad.filename}`]: bad.bytes });
  const cp = (version: string) => `apiVersion: config.projectsveltos.io/v1beta1
kind: ClusterProfile
metadata:
  name: batch
spec:
  clusterSelector:
    matchLabels:
      env: fv
  helmCharts:
  - repositoryURL: ${repo2.url}
    repositoryName: b
    chartName: b/batch
    chartVersion: ${version}
    releaseName: jobs
    releaseNamespace: jobs
    options:
      wait: true
      waitForJobs: true
      atomic: true
      runTests: true
      timeout: 30s
`;
  try {
    const rels = async () =>
      (JSON.parse(await kc(['--context', 'cluster-a', '-n', 'jobs', 'get', 'secrets', '-l', 'owner=helm,name=jobs', '-o', 'json'])) as { items: Obj[] }).items
        .map((s) => releaseFromSecret(s))
        .sort((a, b) => a.version - b.version)
        .map((r) => `${r.version}:${r.info?.status}`);
    await kc(['--context', 'mgmt', 'apply', '-f', '-'], cp('1.0.0'));
    await eventually(rels, (r) => r.join(',') === '1:deployed', { timeoutMs: 60_000, message: 'release jobs v1 deployed after the waits' });
    // deployed is written only after the waits: by then the workloads are ready and the Job complete.
    const dep = JSON.parse(await kc(['--context', 'cluster-a', '-n', 'jobs', 'get', 'deployment', 'jobs-api', '-o', 'json'])) as { status?: { readyReplicas?: number } };
    assert.equal(dep.status?.readyReplicas, 2);
    const job = JSON.parse(await kc(['--context', 'cluster-a', '-n', 'jobs', 'get', 'job', 'jobs-migrate', '-o', 'json'])) as { status?: { conditions?: { type: string; status: string }[] } };
    assert.ok(job.status?.conditions?.some((c) => c.type === 'Complete' && c.status === 'True'));
    const warned = await kc(['--context', 'mgmt', '-n', 'cluster-a', 'get', 'events', '--field-selector', 'reason=NotSupported', '-o', 'json']);
    assert.match(warned, /jobs: options\.runTests/);
    assert.doesNotMatch(warned, /options\.atomic/);

    // 2.0.0's Job fails: with atomic the upgrade is rolled back to revision 1 (a new record, "Rollback to 1"),
    // and the ClusterSummary says what failed and that it was rolled back.
    await kc(['--context', 'mgmt', 'apply', '-f', '-'], cp('2.0.0'));
    const failed = await eventually(summary, (s) => /job failed/.test(s?.featureSummaries?.find((f) => f.featureID === 'Helm')?.failureMessage ?? ''), { timeoutMs: 60_000, message: 'Helm failed on the Job' });
    assert.match(failed?.featureSummaries?.find((f) => f.featureID === 'Helm')?.failureMessage ?? '', /rolled back to revision 1 \(atomic\): Job jobs\/jobs-migrate-v2: job failed/);
    const records = async () =>
      (JSON.parse(await kc(['--context', 'cluster-a', '-n', 'jobs', 'get', 'secrets', '-l', 'owner=helm,name=jobs', '-o', 'json'])) as { items: Obj[] }).items.map((s) => releaseFromSecret(s));
    const rolledBack = await eventually(records, (rs) => rs.some((r) => r.info?.status === 'deployed' && r.info.description === 'Rollback to 1'), { timeoutMs: 30_000, message: 'a Rollback to 1 record deployed' });
    const back = rolledBack.find((r) => r.info?.status === 'deployed')!;
    assert.equal(back.chart?.metadata?.version, '1.0.0');
    assert.ok(back.version > 1);
    await kc(['--context', 'mgmt', 'delete', 'clusterprofile', 'batch', '--wait=false']);
    await eventually(rels, (r) => r.length === 0, { timeoutMs: 30_000, message: 'release jobs uninstalled' });
  } finally {
    await repo2.stop();
  }
});
