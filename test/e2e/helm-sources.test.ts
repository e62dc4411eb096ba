// End to end, where charts and releases come from: an OCI chart pushed with `ripple helm push` to a real registry
// (Debian's docker-registry on loopback, basic auth) and deployed through a ClusterProfile; a release `helm install`
// wrote (its Secret built here by hand the way Helm's storage driver writes it, independent of Ripple's encoder)
// taken over and upgraded by Ripple; and `ripple manager` against `ripple apiserver` clusters installing a chart
// with standard API calls only.
import { strict as assert } from 'node:assert';
import { createHash } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { gzipSync } from 'node:zlib';
import { loadChartFiles, packageChart, releaseFromSecret } from '../../src/helm/index.js';
import { startEmbedded, type Embedded } from '../../src/manager/index.js';
import { eventually } from '../support/eventually.js';
import { startChartRepo, type ChartRepo } from '../support/chart-repo.js';
import { registryMissing, startRegistry, type Registry } from '../support/oci-registry.js';
import { runCli } from '../support/run-cli.js';
import { kubectl, kubectlFor, startRipple, tempDataDir, until, type RippleUp } from './ripple-up.js';

const enc = (s: string) => new TextEncoder().encode(s);
const CONFIG_TEMPLATE = 'apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: {{ .Release.Name }}-config\ndata:\n  owner: {{ .Values.owner | quote }}\n  chart: {{ .Chart.Version | quote }}\n';

function chartTgz(name: string, version: string): { filename: string; bytes: Buffer } {
  const files = [
    { name: 'Chart.yaml', data: enc(`apiVersion: v2\nname: ${name}\nversion: ${version}\n`) },
    { name: 'values.yaml', data: enc('owner: nobody\n') },
    { name: 'templates/config.yaml', data: enc(CONFIG_TEMPLATE) },
  ];
  const p = packageChart(loadChartFiles(files), 1_700_000_000);
  return { filename: p.filename, bytes: Buffer.from(p.bytes) };
}

interface Obj {
  metadata: { name: string; labels?: Record<string, string>; annotations?: Record<string, string> };
  data?: Record<string, string>;
}

describe('embedded environment', () => {
  let env: Embedded;
  let dir: string;
  let kc: (args: string[], stdin?: string) => Promise<string>;
  before(async () => {
    dir = mkdtempSync(join(tmpdir(), 'ripple-helm-sources-'));
    env = await startEmbedded({ dataDir: join(dir, 'data'), port: 0, clusters: [{ name: 'cluster-a', labels: { env: 'fv' } }] });
    kc = async (args, stdin) => {
      const r = await kubectl(env.kubeconfigPath, args, stdin);
      if (r.code !== 0) throw new Error(`kubectl ${args.join(' ')}: ${r.stderr}`);
      return r.stdout;
    };
  });
  after(async () => {
    await env?.stop();
    rmSync(dir, { recursive: true, force: true });
  });
  const history = async (ns: string, name: string) =>
    (JSON.parse(await kc(['--context', 'cluster-a', '-n', ns, 'get', 'secrets', '-l', `owner=helm,name=${name}`, '-o', 'json'])) as { items: Obj[] }).items
      .map((s) => releaseFromSecret(s))
      .sort((a, b) => a.version - b.version);
  const configMap = async (ns: string, name: string): Promise<Obj | undefined> => {
    const r = await kubectl(env.kubeconfigPath, ['--context', 'cluster-a', '-n', ns, 'get', 'configmap', name, '-o', 'json']);
    return r.code === 0 ? (JSON.parse(r.stdout) as Obj) : undefined;
  };
  const helmFeature = async (profile: string) => {
    const list = JSON.parse(await kc(['--context', 'mgmt', '-n', 'cluster-a', 'get', 'clustersummaries', '-l', `projectsveltos.io/cluster-profile-name=${profile}`, '-o', 'json'])) as {
      items: { status?: { featureSummaries?: { featureID: string; status?: string; failureMessage?: string }[] } }[];
    };
    return list.items[0]?.status?.featureSummaries?.find((f) => f.featureID === 'Helm');
  };

  test('an OCI chart pushed with `ripple helm push` to a real registry is deployed through a ClusterProfile', { skip: registryMissing(), timeout: 120_000 }, async () => {
    const creds = { username: 'fleet', password: 's3cret' };
    const reg: Registry = await startRegistry(creds);
    try {
      const tgz = join(dir, 'oci-web-1.2.0.tgz');
      writeFileSync(tgz, chartTgz('oci-web', '1.2.0').bytes);
      const pushed = await runCli(['helm', 'push', tgz, `oci://${reg.host}/charts`, '--plain-http', '--username', creds.username, '--password-stdin'], `${creds.password}\n`);
      assert.equal(pushed.code, 0, pushed.stderr);
      await kc(['--context', 'mgmt', 'create', 'secret', 'generic', 'registry-creds', '-n', 'default', `--from-literal=username=${creds.username}`, `--from-literal=password=${creds.password}`]);
      const profile = (version: string) => `apiVersion: config.projectsveltos.io/v1beta1
kind: ClusterProfile
metadata:
  name: oci
spec:
  clusterSelector:
    matchLabels:
      env: fv
  helmCharts:
  - repositoryURL: oci://${reg.host}/charts
    repositoryName: charts
    chartName: oci-web
    chartVersion: ${version}
    releaseName: ociweb
    releaseNamespace: ociweb
    helmChartAction: Install
    values: |
      owner: {{ .Cluster.metadata.name }}
    registryCredentialsConfig:
      plainHTTP: true
      credentials:
        name: registry-creds
        namespace: default
`;
      await kc(['--context', 'mgmt', 'apply', '-f', '-'], profile('^1.0.0'));
      await eventually(() => history('ociweb', 'ociweb'), (h) => h.length === 1 && h[0]!.info?.status === 'deployed', { timeoutMs: 60_000, message: 'ociweb deployed from the registry' });
      const rel = (await history('ociweb', 'ociweb'))[0]!;
      assert.equal(rel.chart?.metadata?.name, 'oci-web');
      assert.equal(rel.chart?.metadata?.version, '1.2.0', 'the range resolved against the registry tags');
      assert.deepEqual((await configMap('ociweb', 'ociweb-config'))?.data, { owner: 'cluster-a', chart: '1.2.0' });

      // A version the registry lacks: status and Event name the chart and the tags there are; the release stays.
      await kc(['--context', 'mgmt', 'apply', '-f', '-'], profile('2.0.0'));
      const failed = await eventually(() => helmFeature('oci'), (f) => f?.status?.startsWith('Failed') ?? false, { timeoutMs: 30_000, message: 'Helm Failed on the missing tag' });
      assert.match(failed?.failureMessage ?? '', /chart oci-web@2\.0\.0 \(release ociweb\/ociweb\): .*2\.0\.0/);
      const events = await kc(['--context', 'mgmt', '-n', 'cluster-a', 'get', 'events', '--field-selector', 'reason=HelmChartFailed', '-o', 'json']);
      assert.match(events, /oci-web@2\.0\.0/);
      assert.equal((await history('ociweb', 'ociweb')).map((r) => r.info?.status).join(','), 'deployed');

      await kc(['--context', 'mgmt', 'delete', 'clusterprofile', 'oci', '--wait=false']);
      await eventually(() => history('ociweb', 'ociweb'), (h) => h.length === 0, { timeoutMs: 30_000, message: 'ociweb uninstalled' });
    } finally {
      await reg.stop();
    }
  });

  test('a release `helm install` wrote is taken over and upgraded by Ripple', { timeout: 120_000 }, async () => {
    const chart = chartTgz('app', '0.2.0');
    const repo: ChartRepo = await startChartRepo({
      '/index.yaml': `apiVersion: v1\nentries:\n  app:\n  - {apiVersion: v2, name: app, version: 0.2.0, digest: ${createHash('sha256').update(chart.bytes).digest('hex')}, urls: [${chart.filename}]}\n`,
      [`/${chart.filename}`]: chart.bytes,
    });
    try {
      // Revision 1 as `helm install adopt ./app --version 0.1.0 -n adopt --set owner=helm` leaves it: the object with
      // Helm's ownership metadata and the Secret driver's record (JSON field names of Helm's release package,
      // gzipped, base64 in data.release; labels name/owner/status/version/createdAt).
      await kc(['--context', 'cluster-a', 'create', 'namespace', 'adopt']);
      const manifest = '---\n# Source: app/templates/config.yaml\napiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: adopt-config\ndata:\n  owner: "helm"\n  chart: "0.1.0"\n';
      const helmJson = JSON.stringify({
        name: 'adopt',
        info: { first_deployed: '2026-11-20T10:00:00.123456789Z', last_deployed: '2026-11-20T10:00:00.123456789Z', deleted: '', description: 'Install complete', status: 'deployed', notes: '' },
        chart: {
          metadata: { name: 'app', version: '0.1.0', apiVersion: 'v2' },
          lock: null,
          templates: [{ name: 'templates/config.yaml', data: Buffer.from(CONFIG_TEMPLATE).toString('base64') }],
          values: { owner: 'nobody' },
          schema: null,
          files: [],
        },
        config: { owner: 'helm' },
        manifest,
        version: 1,
        namespace: 'adopt',
      });
      const record = Buffer.from(gzipSync(Buffer.from(helmJson))).toString('base64');
      const secret = {
        apiVersion: 'v1',
        kind: 'Secret',
        type: 'helm.sh/release.v1',
        metadata: { name: 'sh.helm.release.v1.adopt.v1', namespace: 'adopt', labels: { name: 'adopt', owner: 'helm', status: 'deployed', version: '1', createdAt: '1763632800' } },
        data: { release: Buffer.from(record).toString('base64') },
      };
      await kc(['--context', 'cluster-a', 'apply', '-f', '-'], JSON.stringify(secret));
      await kc(['--context', 'cluster-a', 'apply', '-f', '-'], JSON.stringify({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'adopt-config', namespace: 'adopt', labels: { 'app.kubernetes.io/managed-by': 'Helm' }, annotations: { 'meta.helm.sh/release-name': 'adopt', 'meta.helm.sh/release-namespace': 'adopt' } }, data: { owner: 'helm', chart: '0.1.0' } }));

      await kc(['--context', 'mgmt', 'apply', '-f', '-'], `apiVersion: config.projectsveltos.io/v1beta1
kind: ClusterProfile
metadata:
  name: adopt
spec:
  clusterSelector:
    matchLabels:
      env: fv
  helmCharts:
  - repositoryURL: ${repo.url}
    repositoryName: r
    chartName: r/app
    chartVersion: 0.2.0
    releaseName: adopt
    releaseNamespace: adopt
    values: |
      owner: ripple
`);
      await eventually(() => history('adopt', 'adopt'), (h) => h.map((r) => `${r.version}:${r.info?.status}`).join(',') === '1:superseded,2:deployed', { timeoutMs: 60_000, message: 'adopt upgraded to revision 2' });
      const [v1, v2] = await history('adopt', 'adopt');
      assert.equal(v1!.chart?.metadata?.version, '0.1.0', "Helm's record kept, marked superseded");
      assert.equal(v1!.info?.firstDeployed, '2026-11-20T10:00:00.123456789Z');
      assert.equal(v2!.chart?.metadata?.version, '0.2.0');
      assert.equal(v2!.info?.firstDeployed, '2026-11-20T10:00:00.123456789Z', 'an upgrade keeps first_deployed');
      assert.equal(v2!.info?.description, 'Upgrade complete');
      assert.deepEqual((await configMap('adopt', 'adopt-config'))?.data, { owner: 'ripple', chart: '0.2.0' });
      await kc(['--context', 'mgmt', 'delete', 'clusterprofile', 'adopt', '--wait=false']);
      await eventually(() => history('adopt', 'adopt'), (h) => h.length === 0, { timeoutMs: 30_000, message: 'adopt uninstalled' });
      assert.equal(await configMap('adopt', 'adopt-config'), undefined);
    } finally {
      await repo.stop();
    }
  });
});

describe('ripple manager', () => {
  let data: ReturnType<typeof tempDataDir>;
  let server: RippleUp | undefined;
  let manager: RippleUp | undefined;
  let repo: ChartRepo | undefined;
  before(() => {
    data = tempDataDir();
  });
  after(async () => {
    await manager?.stop('SIGKILL');
    await server?.stop('SIGKILL');
    await repo?.stop();
    data.remove();
  });

  test('ripple manager against ripple apiserver clusters installs and uninstalls a chart (records readable as Helm writes them)', { timeout: 120_000 }, async () => {
    const chart = chartTgz('app', '1.0.0');
    repo = await startChartRepo({
      '/index.yaml': `apiVersion: v1\nentries:\n  app:\n  - {apiVersion: v2, name: app, version: 1.0.0, digest: ${createHash('sha256').update(chart.bytes).digest('hex')}, urls: [${chart.filename}]}\n`,
      [`/${chart.filename}`]: chart.bytes,
    });
    server = startRipple(data.dir, ['apiserver', '--data-dir', data.dir, '--cluster', 'mgmt', '--cluster', 'edge']);
    await server.waitFor(/kubectl --context mgmt get namespaces/);
    const k = kubectlFor(server.kubeconfig, data.dir);
    const edgeKubeconfig = join(data.dir, 'edge.kubeconfig');
    writeFileSync(edgeKubeconfig, await k.ok(['config', 'view', '--minify', '--flatten', '--context', 'edge']));
    manager = startRipple(data.dir, ['manager', '--kubeconfig', server.kubeconfig, '--context', 'mgmt', '--install-crds']);
    await manager.waitFor(/ripple manager: management cluster https:\/\/127\.0\.0\.1:\d+\/clusters\/mgmt/);
    await until('CRDs installed', () => k.run(['--context', 'mgmt', 'get', 'crd', 'clusterprofiles.config.projectsveltos.io']), (r) => r.code === 0);
    const reg = await runCli(['register', 'cluster', '--namespace', 'edge', '--name', 'edge', '--kubeconfig', edgeKubeconfig, '--labels', 'env=fv', '--mgmt-kubeconfig', server.kubeconfig, '--mgmt-context', 'mgmt']);
    assert.equal(reg.code, 0, reg.stderr);
    await k.applyYaml(
      'mgmt',
      `apiVersion: config.projectsveltos.io/v1beta1
kind: ClusterProfile
metadata:
  name: edge-app
spec:
  clusterSelector:
    matchLabels:
      env: fv
  helmCharts:
  - repositoryURL: ${repo.url}
    repositoryName: r
    chartName: r/app
    chartVersion: 1.0.0
    releaseName: app
    releaseNamespace: apps
    values: |
      owner: {{ .Cluster.metadata.name }}
`,
    );
    const secret = await until('release app in edge', () => k.run(['--context', 'edge', '-n', 'apps', 'get', 'secret', 'sh.helm.release.v1.app.v1', '-o', 'json']), (r) => r.code === 0 && /"status": "deployed"/.test(r.stdout), 60_000);
    const s = JSON.parse(secret.stdout) as Obj & { type?: string };
    assert.equal(s.type, 'helm.sh/release.v1');
    assert.deepEqual({ name: s.metadata.labels?.name, owner: s.metadata.labels?.owner, status: s.metadata.labels?.status, version: s.metadata.labels?.version }, { name: 'app', owner: 'helm', status: 'deployed', version: '1' });
    const rel = releaseFromSecret(s);
    assert.equal(rel.info?.status, 'deployed');
    assert.deepEqual(rel.config, { owner: 'edge' });
    const cm = await k.json<Obj>(['--context', 'edge', '-n', 'apps', 'get', 'configmap', 'app-config']);
    assert.deepEqual(cm.data, { owner: 'edge', chart: '1.0.0' });

    await k.ok(['--context', 'mgmt', 'delete', 'clusterprofile', 'edge-app', '--wait=false']);
    await until('release app uninstalled', () => k.run(['--context', 'edge', '-n', 'apps', 'get', 'configmap', 'app-config']), (r) => r.code === 1, 60_000);
    assert.deepEqual(await manager.stop('SIGTERM'), { code: 0, signal: null });
    assert.deepEqual(await server.stop('SIGTERM'), { code: 0, signal: null });
  });
});
