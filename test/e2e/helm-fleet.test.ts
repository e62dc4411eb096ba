// End to end, the Helm feature among several profiles and under the other sync modes: two ClusterProfiles listing
// one release (the lower tier manages it, the other reports Conflict and takes over when the manager goes away),
// drift detection of chart objects (ContinuousWithDriftDetection restores an edited or deleted object), DryRun
// (ClusterReport releaseReports), a release locked in pending-install by a crashed process (recovered after
// recoverAfterConsecutiveFailures) and a failing upgrade retried with backoff without piling failed revisions.
// Charts come from a repository served on loopback by the test; kubectl is the client.
import { strict as assert } from 'node:assert';
import { createHash } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import { loadChartFiles, newRelease, packageChart, releaseFromSecret, releaseSecret } from '../../src/helm/index.js';
import { startEmbedded, type Embedded } from '../../src/manager/index.js';
import { eventually } from '../support/eventually.js';
import { startChartRepo, type ChartRepo } from '../support/chart-repo.js';
import { kubectl } from './ripple-up.js';

const enc = (s: string) => new TextEncoder().encode(s);

/** app chart: a ConfigMap with the values; 0.3.0 adds a post-upgrade hook Job the Job simulator fails. */
function chartTgz(version: string): { filename: string; bytes: Buffer; version: string } {
  const files = [
    { name: 'Chart.yaml', data: enc(`apiVersion: v2\nname: app\nversion: ${version}\n`) },
    { name: 'values.yaml', data: enc('owner: nobody\n') },
    { name: 'templates/config.yaml', data: enc('apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: {{ .Release.Name }}-config\ndata:\n  owner: {{ .Values.owner | quote }}\n  chart: {{ .Chart.Version | quote }}\n') },
  ];
  if (version === '0.3.0') {
    files.push({
      name: 'templates/hook.yaml',
      data: enc('apiVersion: batch/v1\nkind: Job\nmetadata:\n  name: {{ .Release.Name }}-check\n  annotations:\n    "helm.sh/hook": post-upgrade\n    ripple.dev/simulate-job: fail\nspec:\n  backoffLimit: 0\n  template:\n    spec:\n      restartPolicy: Never\n      containers:\n      - name: check\n        image: registry.example/check:1\n'),
    });
  }
  const p = packageChart(loadChartFiles(files), 1_700_000_000);
  return { filename: p.filename, bytes: Buffer.from(p.bytes), version };
}

function indexYaml(charts: { filename: string; bytes: Buffer; version: string }[]): string {
  const entries = charts.map((c) => `  - {apiVersion: v2, name: app, version: ${c.version}, digest: ${createHash('sha256').update(c.bytes).digest('hex')}, urls: [${c.filename}]}`).join('\n');
  return `apiVersion: v1\nentries:\n  app:\n${entries}\n`;
}

interface ProfileOpts {
  name: string;
  release: string;
  version?: string;
  owner?: string;
  tier?: number;
  syncMode?: string;
  extra?: string;
}

const profileYaml = (o: ProfileOpts) => `apiVersion: config.projectsveltos.io/v1beta1
kind: ClusterProfile
metadata:
  name: ${o.name}
spec:
  clusterSelector:
    matchLabels:
      env: fv
${o.tier ? `  tier: ${o.tier}\n` : ''}${o.syncMode ? `  syncMode: ${o.syncMode}\n` : ''}  helmCharts:
  - repositoryURL: ${repo.url}
    repositoryName: r
    chartName: r/app
    chartVersion: ${o.version ?? '0.1.0'}
    releaseName: ${o.release}
    releaseNamespace: ${o.release}
    helmChartAction: Install
    values: |
      owner: ${o.owner ?? o.name}
${o.extra ?? ''}`;

let env: Embedded;
let repo: ChartRepo;
let dir: string;
let kc: (args: string[], stdin?: string) => Promise<string>;

before(async () => {
  dir = mkdtempSync(join(tmpdir(), 'ripple-helm-fleet-'));
  const charts = ['0.1.0', '0.2.0', '0.3.0'].map(chartTgz);
  repo = await startChartRepo({ '/index.yaml': indexYaml(charts), ...Object.fromEntries(charts.map((c) => [`/${c.filename}`, c.bytes])) });
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

const records = async (release: string) =>
  (JSON.parse(await kc(['--context', 'cluster-a', '-n', release, 'get', 'secrets', '-l', `owner=helm,name=${release}`, '-o', 'json'])) as { items: Obj[] }).items
    .map((s) => releaseFromSecret(s))
    .sort((a, b) => a.version - b.version);
const history = async (release: string) => (await records(release)).map((r) => `${r.version}:${r.info?.status}`).join(',');

const configMap = async (ns: string, name: string): Promise<Obj | undefined> => {
  const r = await kubectl(env.kubeconfigPath, ['--context', 'cluster-a', '-n', ns, 'get', 'configmap', name, '-o', 'json']);
  return r.code === 0 ? (JSON.parse(r.stdout) as Obj) : undefined;
};

interface SummaryStatus {
  featureSummaries?: { featureID: string; status?: string; failureMessage?: string; failureReason?: string }[];
  helmReleaseSummaries?: { releaseName: string; status: string; conflictMessage?: string }[];
}
const summaryOf = async (profile: string): Promise<SummaryStatus | undefined> => {
  const list = JSON.parse(await kc(['--context', 'mgmt', '-n', 'cluster-a', 'get', 'clustersummaries', '-l', `projectsveltos.io/cluster-profile-name=${profile}`, '-o', 'json'])) as { items: { status?: SummaryStatus }[] };
  return list.items[0]?.status;
};
const helmFeature = (s: SummaryStatus | undefined) => s?.featureSummaries?.find((f) => f.featureID === 'Helm');
const events = async (reason: string) =>
  (JSON.parse(await kc(['--context', 'mgmt', '-n', 'cluster-a', 'get', 'events', '--field-selector', `reason=${reason}`, '-o', 'json'])) as { items: { message: string; count?: number }[] }).items;

test('tier: two profiles list one release — the lower tier manages it, the other reports Conflict, then takes over when the manager goes away', { timeout: 120_000 }, async () => {
  await kc(['--context', 'mgmt', 'apply', '-f', '-'], profileYaml({ name: 'first', release: 'shared', tier: 100 }));
  await eventually(() => history('shared'), (h) => h === '1:deployed', { timeoutMs: 30_000, message: 'shared installed by first' });
  await eventually(() => summaryOf('first'), (s) => helmFeature(s)?.status === 'Provisioned', { message: 'first Provisioned' });

  // A higher tier: Conflict, named in status and an Event; the release is untouched.
  // (second also lists a release of its own: the conflict does not stop it)
  const solo = `  - repositoryURL: ${repo.url}\n    repositoryName: r\n    chartName: r/app\n    chartVersion: 0.1.0\n    releaseName: solo\n    releaseNamespace: solo\n`;
  await kc(['--context', 'mgmt', 'apply', '-f', '-'], profileYaml({ name: 'second', release: 'shared', tier: 200, extra: solo }));
  const lost = await eventually(() => summaryOf('second'), (s) => s?.helmReleaseSummaries?.[0]?.status === 'Conflict', { timeoutMs: 30_000, message: 'second reports Conflict' });
  await eventually(() => history('solo'), (h) => h === '1:deployed', { timeoutMs: 30_000, message: 'solo installed by second despite the conflict' });
  assert.equal((await summaryOf('second'))?.helmReleaseSummaries?.[1]?.status, 'Managing');
  assert.match(lost?.helmReleaseSummaries?.[0]?.conflictMessage ?? '', /cannot manage chart shared\/shared\. ClusterSummary cluster-a\/\S+ \(ClusterProfile\/first, tier 100\) managing it/);
  assert.equal(helmFeature(lost)?.status, 'Failed');
  assert.equal(helmFeature(lost)?.failureReason, 'ConflictError');
  assert.match((await events('HelmReleaseConflict')).map((e) => e.message).join('\n'), /chart r\/app 0\.1\.0: cannot manage chart shared\/shared/);
  assert.equal((await summaryOf('first'))?.helmReleaseSummaries?.[0]?.status, 'Managing');
  assert.equal((await configMap('shared', 'shared-config'))?.data?.owner, 'first');
  assert.equal(await history('shared'), '1:deployed');

  // A lower tier takes the release over (an upgrade with its values); the old manager now reports Conflict.
  await kc(['--context', 'mgmt', 'apply', '-f', '-'], profileYaml({ name: 'third', release: 'shared', tier: 10 }));
  await eventually(() => configMap('shared', 'shared-config'), (c) => c?.data?.owner === 'third', { timeoutMs: 30_000, message: 'third took shared over' });
  await eventually(() => summaryOf('first'), (s) => s?.helmReleaseSummaries?.[0]?.status === 'Conflict', { timeoutMs: 30_000, message: 'first now reports Conflict' });
  assert.match((await summaryOf('first'))?.helmReleaseSummaries?.[0]?.conflictMessage ?? '', /ClusterProfile\/third, tier 10/);
  assert.equal(await history('shared'), '1:superseded,2:deployed');

  // The manager goes away: the release is handed over, not uninstalled — the next lowest tier (first) upgrades it.
  await kc(['--context', 'mgmt', 'delete', 'clusterprofile', 'third', '--wait=false']);
  await eventually(() => configMap('shared', 'shared-config'), (c) => c?.data?.owner === 'first', { timeoutMs: 30_000, message: 'first took shared back' });
  await eventually(() => summaryOf('first'), (s) => s?.helmReleaseSummaries?.[0]?.status === 'Managing' && helmFeature(s)?.status === 'Provisioned', { timeoutMs: 30_000, message: 'first Managing' });
  assert.equal((await records('shared')).filter((r) => r.info?.status === 'deployed').length, 1);
  assert.equal((await summaryOf('second'))?.helmReleaseSummaries?.[0]?.status, 'Conflict');

  // Both go: the last one uninstalls.
  await kc(['--context', 'mgmt', 'delete', 'clusterprofile', 'first', '--wait=false']);
  await eventually(() => configMap('shared', 'shared-config'), (c) => c?.data?.owner === 'second', { timeoutMs: 30_000, message: 'second took shared over' });
  await kc(['--context', 'mgmt', 'delete', 'clusterprofile', 'second', '--wait=false']);
  await eventually(() => history('shared'), (h) => h === '', { timeoutMs: 30_000, message: 'shared uninstalled by its last manager' });
  await eventually(() => history('solo'), (h) => h === '', { timeoutMs: 30_000, message: 'solo uninstalled' });
});

test('ContinuousWithDriftDetection: an edited or deleted chart object is restored', { timeout: 120_000 }, async () => {
  await kc(['--context', 'mgmt', 'apply', '-f', '-'], profileYaml({ name: 'drift', release: 'drifty', syncMode: 'ContinuousWithDriftDetection' }));
  await eventually(() => history('drifty'), (h) => h === '1:deployed', { timeoutMs: 30_000, message: 'drifty installed' });
  await eventually(() => summaryOf('drift'), (s) => helmFeature(s)?.status === 'Provisioned', { message: 'drift Provisioned' });

  await kc(['--context', 'cluster-a', '-n', 'drifty', 'patch', 'configmap', 'drifty-config', '--type', 'merge', '-p', '{"data":{"owner":"someone-else"}}']);
  await eventually(() => configMap('drifty', 'drifty-config'), (c) => c?.data?.owner === 'drift', { timeoutMs: 30_000, message: 'edited object restored' });
  await kc(['--context', 'cluster-a', '-n', 'drifty', 'delete', 'configmap', 'drifty-config']);
  await eventually(() => configMap('drifty', 'drifty-config'), (c) => c?.data?.owner === 'drift', { timeoutMs: 30_000, message: 'deleted object restored' });
  // Repaired in place: the release keeps its revision.
  assert.equal(await history('drifty'), '1:deployed');
  assert.ok((await events('HelmDriftRepaired')).some((e) => /drifty\/drifty/.test(e.message)));

  // An upgrade changes the tracked objects itself: that is not drift (no repair), and revision 2 is tracked next.
  await kc(['--context', 'mgmt', 'apply', '-f', '-'], profileYaml({ name: 'drift', release: 'drifty', syncMode: 'ContinuousWithDriftDetection', version: '0.2.0' }));
  await eventually(() => history('drifty'), (h) => h === '1:superseded,2:deployed', { timeoutMs: 30_000, message: 'drifty upgraded' });
  await eventually(() => summaryOf('drift'), (s) => helmFeature(s)?.status === 'Provisioned', { message: 'drift Provisioned after the upgrade' });
  await kc(['--context', 'cluster-a', '-n', 'drifty', 'delete', 'configmap', 'drifty-config']);
  await eventually(() => configMap('drifty', 'drifty-config'), (c) => c?.data?.chart === '0.2.0', { timeoutMs: 30_000, message: 'revision 2 object restored' });
  const rev2 = await eventually(async () => (await events('HelmDriftRepaired')).filter((e) => /revision 2 drifted/.test(e.message)), (e) => e.length > 0, { message: 'repair of revision 2 reported' });
  assert.equal(rev2.reduce((n, e) => n + (e.count ?? 1), 0), 1, 'one repair: the deletion, not the upgrade');

  await kc(['--context', 'mgmt', 'delete', 'clusterprofile', 'drift', '--wait=false']);
  await eventually(() => history('drifty'), (h) => h === '', { timeoutMs: 30_000, message: 'drifty uninstalled' });
});

test('DryRun: the ClusterReport says per release what would happen; nothing is installed', { timeout: 120_000 }, async () => {
  const reports = async () => {
    const r = await kubectl(env.kubeconfigPath, ['--context', 'mgmt', '-n', 'cluster-a', 'get', 'clusterreports', '-o', 'json']);
    if (r.code !== 0) return [];
    const items = (JSON.parse(r.stdout) as { items: { metadata: { name: string }; status?: { releaseReports?: { chartName: string; chartVersion: string; releaseNamespace: string; action: string; message?: string }[] } }[] }).items;
    return items.filter((i) => i.metadata.name.includes('preview')).flatMap((i) => i.status?.releaseReports ?? []);
  };
  await kc(['--context', 'mgmt', 'apply', '-f', '-'], profileYaml({ name: 'preview', release: 'dry', syncMode: 'DryRun' }));
  const install = await eventually(reports, (r) => r.length === 1, { timeoutMs: 30_000, message: 'a release report' });
  assert.equal(install[0]!.action, 'Install');
  assert.equal(install[0]!.chartVersion, '0.1.0');
  assert.equal(install[0]!.releaseNamespace, 'dry');
  assert.match(install[0]!.message ?? '', /create ConfigMap dry\/dry-config/);
  assert.equal(await history('dry'), '');

  // Installed for real, then a DryRun of a new version: Upgrade, with the version move and the object changes.
  await kc(['--context', 'mgmt', 'apply', '-f', '-'], profileYaml({ name: 'preview', release: 'dry' }));
  await eventually(() => history('dry'), (h) => h === '1:deployed', { timeoutMs: 30_000, message: 'dry installed' });
  await kc(['--context', 'mgmt', 'apply', '-f', '-'], profileYaml({ name: 'preview', release: 'dry', syncMode: 'DryRun', version: '0.2.0' }));
  const upgrade = await eventually(reports, (r) => r[0]?.action === 'Upgrade', { timeoutMs: 30_000, message: 'an Upgrade report' });
  assert.match(upgrade[0]!.message ?? '', /Current version: 0\.1\.0\. Would move to version: 0\.2\.0\. Objects: update ConfigMap dry\/dry-config/);
  await kc(['--context', 'mgmt', 'apply', '-f', '-'], profileYaml({ name: 'preview', release: 'dry', syncMode: 'DryRun', owner: 'changed' }));
  const values = await eventually(reports, (r) => r[0]?.action === 'Update Values', { timeoutMs: 30_000, message: 'an Update Values report' });
  assert.match(values[0]!.message ?? '', /values changed/);
  await kc(['--context', 'mgmt', 'apply', '-f', '-'], profileYaml({ name: 'preview', release: 'dry', syncMode: 'DryRun' }));
  await eventually(reports, (r) => r[0]?.action === 'No Action', { timeoutMs: 30_000, message: 'a No Action report' });
  // A chart version the repository lacks: reported with the chart and the cause, nothing else affected.
  await kc(['--context', 'mgmt', 'apply', '-f', '-'], profileYaml({ name: 'preview', release: 'dry', syncMode: 'DryRun', version: '7.7.7' }));
  const bad = await eventually(reports, (r) => /7\.7\.7/.test(r[0]?.message ?? ''), { timeoutMs: 30_000, message: 'a report naming the missing version' });
  assert.match(bad[0]!.message ?? '', /cannot evaluate: chart r\/app@7\.7\.7/);
  const feature = await eventually(() => summaryOf('preview'), (s) => helmFeature(s)?.status === 'Failed', { message: 'Helm Failed in DryRun' });
  assert.match(helmFeature(feature)?.failureMessage ?? '', /^DryRun: chart r\/app@7\.7\.7 \(release dry\/dry\): .*7\.7\.7/);
  assert.ok((await events('HelmChartFailed')).some((e) => /^DryRun: chart r\/app@7\.7\.7/.test(e.message)));
  assert.equal(await history('dry'), '1:deployed');

  await kc(['--context', 'mgmt', 'delete', 'clusterprofile', 'preview', '--wait=false']);
  await eventually(reports, (r) => r.length === 0, { timeoutMs: 30_000, message: 'ClusterReport removed' });
  // DryRun never uninstalls: the release deployed before stays.
  assert.equal(await history('dry'), '1:deployed');
});

test('a release locked in pending-install by a crashed process is recovered after recoverAfterConsecutiveFailures, with status and Events', { timeout: 120_000 }, async () => {
  // What a `helm install` killed mid-way leaves behind: revision 1 pending-install, one object created.
  await kc(['--context', 'cluster-a', 'create', 'namespace', 'stuck']);
  const rel = newRelease('stuck', 'stuck', 1);
  rel.info = { firstDeployed: '2026-01-01T00:00:00Z', lastDeployed: '2026-01-01T00:00:00Z', deleted: '', description: 'Initial install underway', status: 'pending-install', notes: '' };
  rel.manifest = '---\n# Source: app/templates/old.yaml\napiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: stuck-leftover\ndata: {}\n';
  rel.config = {};
  await kc(['--context', 'cluster-a', 'apply', '-f', '-'], JSON.stringify(releaseSecret(rel, { op: 'create', nowUnix: 1_767_225_600 })));
  await kc(['--context', 'cluster-a', '-n', 'stuck', 'create', 'configmap', 'stuck-leftover']);

  await kc(['--context', 'mgmt', 'apply', '-f', '-'], profileYaml({ name: 'locked', release: 'stuck', extra: '    options:\n      installOptions:\n        recoverAfterConsecutiveFailures: 3\n' }));
  await eventually(() => history('stuck'), (h) => h === '1:deployed', { timeoutMs: 60_000, message: 'stuck recovered and installed' });
  const failures = (await events('HelmChartFailed')).filter((e) => /stuck\/stuck/.test(e.message));
  assert.ok(failures.length > 0);
  assert.match(failures[0]!.message, /chart r\/app@0\.1\.0 \(release stuck\/stuck\): release stuck\/stuck revision 1 is pending-install .*failure 1 of 3 before Ripple recovers it/);
  const recovered = (await events('HelmReleaseRecovered')).map((e) => e.message).join('\n');
  assert.match(recovered, /chart r\/app 0\.1\.0: release stuck\/stuck was never deployed and its pending-install revision 1 blocked it 2 time\(s\) in a row: uninstalled the stale release and installed again/);
  // The stale release's object went with it; the new one is there.
  assert.equal(await configMap('stuck', 'stuck-leftover'), undefined);
  assert.equal((await configMap('stuck', 'stuck-config'))?.data?.owner, 'locked');
  await eventually(() => summaryOf('locked'), (s) => helmFeature(s)?.status === 'Provisioned', { message: 'locked Provisioned' });

  await kc(['--context', 'mgmt', 'delete', 'clusterprofile', 'locked', '--wait=false']);
  await eventually(() => history('stuck'), (h) => h === '', { timeoutMs: 30_000, message: 'stuck uninstalled' });
});

test('a failing upgrade is retried with backoff into the same failed revision (no pile of failed records), then a good version upgrades', { timeout: 120_000 }, async () => {
  await kc(['--context', 'mgmt', 'apply', '-f', '-'], profileYaml({ name: 'retry', release: 'again' }));
  await eventually(() => history('again'), (h) => h === '1:deployed', { timeoutMs: 30_000, message: 'again installed' });
  await kc(['--context', 'mgmt', 'apply', '-f', '-'], profileYaml({ name: 'retry', release: 'again', version: '0.3.0' }));
  // Several retries (the Event's count grows) while the history keeps one failed record for the attempt.
  await eventually(
    async () => (await events('HelmChartFailed')).filter((e) => /again\/again/.test(e.message)).reduce((n, e) => n + (e.count ?? 1), 0),
    (n) => n >= 3,
    { timeoutMs: 60_000, message: 'the failing upgrade retried' },
  );
  // (a retry may be under way: the record is then pending-upgrade again, never a new revision)
  assert.match(await history('again'), /^1:deployed,2:(failed|pending-upgrade)$/);
  const failed = helmFeature(await summaryOf('retry'));
  assert.match(failed?.failureMessage ?? '', /chart r\/app@0\.3\.0 \(release again\/again\): post-upgrade hook app\/templates\/hook\.yaml failed: job failed/);
  // The other releases are not affected: a fixed version upgrades from the deployed revision.
  await kc(['--context', 'mgmt', 'apply', '-f', '-'], profileYaml({ name: 'retry', release: 'again', version: '0.2.0' }));
  await eventually(() => history('again'), (h) => h === '1:superseded,3:deployed', { timeoutMs: 30_000, message: 'again upgraded to 0.2.0 (maxHistory 2 keeps the last deployed, as Helm)' });
  assert.equal((await configMap('again', 'again-config'))?.data?.chart, '0.2.0');
  await kc(['--context', 'mgmt', 'delete', 'clusterprofile', 'retry', '--wait=false']);
  await eventually(() => history('again'), (h) => h === '', { timeoutMs: 30_000, message: 'again uninstalled' });
});

test('a release stuck in pending-upgrade over a deployed revision: the lock is marked failed after recoverAfterConsecutiveFailures and the upgrade goes on', { timeout: 120_000 }, async () => {
  await kc(['--context', 'mgmt', 'apply', '-f', '-'], profileYaml({ name: 'midway', release: 'midway' }));
  await eventually(() => history('midway'), (h) => h === '1:deployed', { timeoutMs: 30_000, message: 'midway installed' });
  // A `helm upgrade` killed mid-way: revision 2 pending-upgrade, revision 1 still deployed.
  const [v1] = await records('midway');
  const stuck = { ...v1!, version: 2, info: { ...v1!.info!, status: 'pending-upgrade' as const, description: 'Preparing upgrade' }, manifest: `${v1!.manifest}# killed\n` };
  await kc(['--context', 'cluster-a', 'apply', '-f', '-'], JSON.stringify(releaseSecret(stuck, { op: 'create', nowUnix: 1_767_225_600 })));
  await kc(['--context', 'mgmt', 'apply', '-f', '-'], profileYaml({ name: 'midway', release: 'midway', owner: 'after-crash', extra: '    options:\n      installOptions:\n        recoverAfterConsecutiveFailures: 2\n' }));
  await eventually(() => configMap('midway', 'midway-config'), (c) => c?.data?.owner === 'after-crash', { timeoutMs: 60_000, message: 'midway upgraded after the recovery' });
  // maxHistory 2: the failed (formerly pending) record is pruned when revision 3 is added; the deployed one stays.
  await eventually(() => history('midway'), (h) => h === '1:superseded,3:deployed', { timeoutMs: 30_000, message: 'revision 3 deployed' });
  const failures = (await events('HelmChartFailed')).map((e) => e.message).join('\n');
  assert.match(failures, /chart r\/app@0\.1\.0 \(release midway\/midway\): release midway\/midway revision 2 is pending-upgrade .*failure 1 of 2/);
  const recovered = (await events('HelmReleaseRecovered')).map((e) => e.message).join('\n');
  assert.match(recovered, /release midway\/midway revision 2 was stuck in pending-upgrade: marked failed after 1 consecutive failure\(s\) and upgraded from the deployed revision/);
  await kc(['--context', 'mgmt', 'delete', 'clusterprofile', 'midway', '--wait=false']);
  await eventually(() => history('midway'), (h) => h === '', { timeoutMs: 30_000, message: 'midway uninstalled' });
});
