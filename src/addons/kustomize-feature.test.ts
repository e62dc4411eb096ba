// The Kustomize feature against the embedded API server: Flux's source CRDs installed in the management cluster,
// GitRepository/OCIRepository objects whose status the test writes (with kubectl) the way source-controller does,
// artifacts (tar.gz) served over HTTP on loopback by the test, ConfigMap tarball sources, values substitution,
// targetNamespace, Local deployment with drift detection, a new revision redeploying, and the failures — an
// unreachable artifact, a digest mismatch, a broken kustomization — reported in status and Events while the last
// good deployment stays and the Resources feature of the same profile is undisturbed. DryRun, conflicts, withdrawal.
import { strict as assert } from 'node:assert';
import { execFile } from 'node:child_process';
import { createHash } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { fluxSourceCrds } from '../api/index.js';
import type { KubeObject } from '../kube/index.js';
import { startAddonTestEnv, type AddonTestEnv } from '../../test/support/addon-env.js';
import { eventually } from '../../test/support/eventually.js';
import { tgz } from '../../test/support/tgz.js';

const CP = { apiVersion: 'config.projectsveltos.io/v1beta1', kind: 'ClusterProfile' } as const;
const CS = { apiVersion: 'config.projectsveltos.io/v1beta1', kind: 'ClusterSummary' } as const;
const CM = { apiVersion: 'v1', kind: 'ConfigMap' } as const;
const GIT = { apiVersion: 'source.toolkit.fluxcd.io/v1', kind: 'GitRepository' } as const;
const OCI = { apiVersion: 'source.toolkit.fluxcd.io/v1beta2', kind: 'OCIRepository' } as const;

type Obj = KubeObject & { data?: Record<string, string>; status?: Record<string, unknown>; spec?: Record<string, unknown>; reason?: string; message?: string };
type Feature = { featureID: string; status?: string; failureMessage?: string; failureReason?: string; hash?: string };
const feature = (o: Obj | undefined, id = 'Kustomize') => ((o?.status?.featureSummaries ?? []) as Feature[]).find((f) => f.featureID === id);

const BASE = {
  'base/kustomization.yaml': 'resources:\n- cm.yaml\n',
  'base/cm.yaml': 'apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: app\ndata:\n  color: blue\n',
};
const overlay = (extra: string) => ({
  ...BASE,
  'overlays/prod/kustomization.yaml': `resources:\n- ../../base\nnamePrefix: prod-\nconfigMapGenerator:\n- name: settings\n  literals:\n  - region={{ .region }}\n${extra}`,
});

describe('Kustomize feature', () => {
  let env: AddonTestEnv;
  let http: Server;
  let base: string;
  let work: string;
  const artifacts = new Map<string, Buffer>();

  before(async () => {
    env = await startAddonTestEnv({ clusters: [{ name: 'k1', labels: { env: 'kust' } }] });
    for (const crd of fluxSourceCrds()) await env.mgmt.create(crd as unknown as KubeObject);
    await eventually(() => env.mgmt.list(GIT, { namespace: 'default' }).then(() => true).catch(() => false), Boolean, { message: 'Flux CRDs served' });
    http = createServer((req, res) => {
      const body = artifacts.get(req.url ?? '');
      if (!body) {
        res.writeHead(404).end('not found');
        return;
      }
      res.writeHead(200, { 'content-type': 'application/gzip', 'content-length': String(body.length) }).end(body);
    });
    await new Promise<void>((r) => http.listen(0, '127.0.0.1', r));
    base = `http://127.0.0.1:${(http.address() as AddressInfo).port}`;
    work = mkdtempSync(join(tmpdir(), 'ripple-kustomize-'));
  });
  after(async () => {
    await env?.stop();
    await new Promise<void>((r) => (http ? http.close(() => r()) : r()));
    if (work) rmSync(work, { recursive: true, force: true });
  });

  const kubectl = (args: string[]): Promise<{ code: number; stdout: string; stderr: string }> =>
    new Promise((resolve) =>
      execFile('/usr/bin/kubectl', ['--cache-dir', join(work, 'cache'), ...args], { env: { ...process.env, KUBECONFIG: env.api.kubeconfigPath, HOME: work }, timeout: 30_000 }, (err, stdout, stderr) =>
        resolve({ code: err ? (typeof err.code === 'number' ? err.code : 1) : 0, stdout, stderr }),
      ),
    );
  const ok = async (args: string[]) => {
    const r = await kubectl(args);
    assert.equal(r.code, 0, `kubectl ${args.join(' ')}: ${r.stderr}`);
    return r.stdout;
  };
  const put = (o: object) => env.mgmt.apply(o as KubeObject, { fieldManager: 'test', force: true });
  const cs = (name: string) => env.mgmt.getIfExists<Obj>({ ...CS, namespace: 'k1', name });
  const events = async (name: string) => {
    await env.recorder.flush();
    return (await env.mgmt.list<Obj & { involvedObject: { name: string } }>({ apiVersion: 'v1', kind: 'Event' }, { namespace: 'k1' })).items.filter((e) => e.involvedObject.name === name);
  };
  const remoteCm = (ns: string, name: string) => env.clusters.k1.getIfExists<Obj>({ ...CM, namespace: ns, name });

  /** publish serves files as a new artifact and writes the source's status as source-controller does (kubectl). */
  const publish = async (src: { apiVersion: string; kind: string }, name: string, files: Record<string, string>, revision: string, o: { digest?: string; url?: string } = {}) => {
    const body = tgz(files);
    const path = `/${src.kind.toLowerCase()}/default/${name}/${createHash('sha256').update(revision).digest('hex').slice(0, 12)}.tar.gz`;
    artifacts.set(path, body);
    const digest = o.digest ?? `sha256:${createHash('sha256').update(body).digest('hex')}`;
    const now = new Date().toISOString().replace(/\.\d+Z$/, 'Z');
    const cond = (type: string, reason: string) => ({ type, status: 'True', observedGeneration: 1, lastTransitionTime: now, reason, message: `stored artifact for revision '${revision}'` });
    const status = {
      observedGeneration: 1,
      artifact: { path: path.slice(1), url: o.url ?? `${base}${path}`, revision, digest, lastUpdateTime: now, size: body.length },
      conditions: [cond('Ready', 'Succeeded'), cond('ArtifactInStorage', 'Succeeded')],
    };
    const resource = src.kind === 'GitRepository' ? 'gitrepositories.source.toolkit.fluxcd.io' : 'ocirepositories.source.toolkit.fluxcd.io';
    await ok(['--context', 'mgmt', 'patch', resource, name, '-n', 'default', '--subresource=status', '--type=merge', '-p', JSON.stringify({ status })]);
  };

  test('GitRepository: overlay built, values substituted, targetNamespace; a new revision redeploys; failures keep the last good deployment', async () => {
    await put({ ...GIT, metadata: { name: 'apps', namespace: 'default' }, spec: { url: 'https://github.com/example/apps', interval: '1m', ref: { branch: 'main' } } });
    await publish(GIT, 'apps', overlay(''), 'main@sha1:1111111111111111111111111111111111111111');
    await put({ ...CM, metadata: { name: 'plain-policy', namespace: 'default' }, data: { 'a.yaml': 'apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: from-policy\n  namespace: other\ndata:\n  a: "1"\n' } });
    await put({
      ...CP,
      metadata: { name: 'git' },
      spec: {
        clusterSelector: { matchLabels: { env: 'kust' } },
        policyRefs: [{ kind: 'ConfigMap', name: 'plain-policy', namespace: 'default' }],
        kustomizationRefs: [{ kind: 'GitRepository', name: 'apps', namespace: 'default', path: './overlays/prod', targetNamespace: 'apps', values: { region: '{{ .Cluster.metadata.labels.env }}-eu' } }],
      },
    });
    const done = await eventually(() => cs('git-sveltos-k1'), (o) => feature(o)?.status === 'Provisioned' && feature(o, 'Resources')?.status === 'Provisioned', { message: 'Kustomize and Resources provisioned' });
    assert.ok(feature(done)!.hash);
    // kubectl reads what was deployed in the managed cluster.
    const out = JSON.parse(await ok(['--context', 'k1', 'get', 'configmaps', '-n', 'apps', '-o', 'json'])) as { items: Obj[] };
    const names = out.items.map((i) => i.metadata.name).sort();
    assert.ok(names.includes('prod-app'), names.join(','));
    const settings = out.items.find((i) => i.metadata.name.startsWith('prod-settings-'))!;
    assert.ok(settings, `generated ConfigMap with hash suffix in ${names.join(',')}`);
    assert.deepEqual(settings.data, { region: 'kust-eu' });
    const app = out.items.find((i) => i.metadata.name === 'prod-app')!;
    assert.equal(app.metadata.labels!['projectsveltos.io/reason'], 'Kustomize');
    assert.equal(app.metadata.annotations!['projectsveltos.io/reference-kind'], 'GitRepository');
    assert.equal(app.metadata.annotations!['projectsveltos.io/reference-name'], 'apps');
    const gvks = (done!.status!.deployedGVKs as { featureID: string; deployedGroupVersionKind: string[] }[]).map((g) => g.featureID).sort();
    assert.deepEqual(gvks, ['Kustomize', 'Resources']);

    // A new revision: the generator's literal changes (new hash suffix), the old generated ConfigMap goes.
    await publish(GIT, 'apps', overlay('  - tier=gold\n'), 'main@sha1:2222222222222222222222222222222222222222');
    const second = await eventually(
      async () => (await env.clusters.k1.list<Obj>(CM, { namespace: 'apps' })).items.filter((i) => i.metadata.name.startsWith('prod-settings-')),
      (l) => l.length === 1 && l[0].data?.tier === 'gold',
      { message: 'new revision redeployed, stale generated ConfigMap removed' },
    );
    const good = second[0].metadata.name;
    await eventually(() => cs('git-sveltos-k1'), (o) => feature(o)?.status === 'Provisioned' && feature(o)?.hash !== feature(done)?.hash);

    // Digest mismatch: status + Event, nothing removed.
    await publish(GIT, 'apps', overlay('  - tier=bad\n'), 'main@sha1:3333333333333333333333333333333333333333', { digest: `sha256:${'0'.repeat(64)}` });
    const mismatch = await eventually(() => cs('git-sveltos-k1'), (o) => feature(o)?.status === 'Failed' && /digest/.test(feature(o)?.failureMessage ?? ''), { message: 'digest mismatch reported' });
    assert.match(feature(mismatch)!.failureMessage!, /failed to verify artifact: computed digest sha256:[0-9a-f]{64} doesn't match 'sha256:0{64}'/);
    assert.equal(feature(mismatch, 'Resources')?.status, 'Provisioned');
    assert.ok((await events('git-sveltos-k1')).some((e) => e.reason === 'ArtifactFailed' && /digest/.test(e.message!)));
    assert.ok(await remoteCm('apps', good), 'the last good deployment stays');
    assert.ok(await remoteCm('apps', 'prod-app'));

    // Unreachable artifact (nothing listens there any more).
    const closed = createServer();
    await new Promise<void>((r) => closed.listen(0, '127.0.0.1', r));
    const deadPort = (closed.address() as AddressInfo).port;
    await new Promise<void>((r) => closed.close(() => r()));
    await publish(GIT, 'apps', overlay(''), 'main@sha1:4444444444444444444444444444444444444444', { url: `http://127.0.0.1:${deadPort}/gone.tar.gz` });
    const unreachable = await eventually(() => cs('git-sveltos-k1'), (o) => /failed to download artifact/.test(feature(o)?.failureMessage ?? ''), { message: 'unreachable artifact reported' });
    assert.equal(feature(unreachable)!.status, 'Failed');
    assert.match(feature(unreachable)!.failureMessage!, /ECONNREFUSED/);
    assert.ok((await events('git-sveltos-k1')).some((e) => e.reason === 'ArtifactFailed' && /failed to download artifact/.test(e.message!)));
    assert.ok(await remoteCm('apps', good));

    // A broken kustomization: FailedNonRetriable with Kustomize's message.
    await publish(GIT, 'apps', { ...BASE, 'overlays/prod/kustomization.yaml': 'resources:\n- ../../missing\n' }, 'main@sha1:5555555555555555555555555555555555555555');
    const broken = await eventually(() => cs('git-sveltos-k1'), (o) => feature(o)?.failureReason === 'KustomizeBuildFailed', { message: 'broken kustomization reported' });
    assert.equal(feature(broken)!.status, 'FailedNonRetriable');
    assert.match(feature(broken)!.failureMessage!, /kustomizationRefs\[0\] \(GitRepository default\/apps\): kustomize build: accumulating resources/);
    assert.ok((await events('git-sveltos-k1')).some((e) => e.reason === 'KustomizeBuildFailed'));
    assert.ok(await remoteCm('apps', good));
    assert.ok(await remoteCm('other', 'from-policy'), 'the Resources feature is undisturbed');
    assert.equal(feature(broken, 'Resources')?.status, 'Provisioned');

    // Fixed: deploys again. Then the profile goes: everything Kustomize deployed is withdrawn.
    await publish(GIT, 'apps', overlay('  - tier=silver\n'), 'main@sha1:6666666666666666666666666666666666666666');
    await eventually(
      async () => (await env.clusters.k1.list<Obj>(CM, { namespace: 'apps' })).items.filter((i) => i.metadata.name.startsWith('prod-settings-')),
      (l) => l.length === 1 && l[0].data?.tier === 'silver',
      { message: 'fixed revision deployed' },
    );
    await env.mgmt.delete({ ...CP, name: 'git' });
    await eventually(() => cs('git-sveltos-k1'), (o) => o === undefined, { message: 'ClusterSummary withdrawn' });
    assert.equal((await env.clusters.k1.list<Obj>(CM, { namespace: 'apps' })).items.filter((i) => i.metadata.name.startsWith('prod-')).length, 0);
    assert.equal(await remoteCm('other', 'from-policy'), undefined);
  });

  test('ConfigMap tarball source, deploymentType Local, valuesFrom, drift detection re-applies a deleted object', async () => {
    const tarball = tgz({ 'kustomization.yaml': 'resources:\n- cm.yaml\nnamespace: default\n', 'cm.yaml': 'apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: local-{{ .suffix }}\ndata:\n  owner: "{{ .owner }}"\n' });
    await put({ ...CM, metadata: { name: 'kust-src', namespace: 'default' }, binaryData: { 'kustomize.tar.gz': tarball.toString('base64') } });
    await put({ ...CM, metadata: { name: 'kust-values', namespace: 'default' }, data: { suffix: 'one', owner: 'team-a' } });
    await put({
      ...CP,
      metadata: { name: 'local' },
      spec: {
        clusterSelector: { matchLabels: { env: 'kust' } },
        syncMode: 'ContinuousWithDriftDetection',
        kustomizationRefs: [{ kind: 'ConfigMap', name: 'kust-src', namespace: 'default', path: '.', deploymentType: 'Local', valuesFrom: [{ kind: 'ConfigMap', name: 'kust-values', namespace: 'default' }] }],
      },
    });
    const o = await eventually(() => env.mgmt.getIfExists<Obj>({ ...CM, namespace: 'default', name: 'local-one' }), Boolean, { message: 'deployed to the management cluster' });
    assert.deepEqual(o!.data, { owner: 'team-a' });
    assert.equal(o!.metadata.annotations!['projectsveltos.io/deploymenttype'], 'Local');
    await eventually(() => cs('local-sveltos-k1'), (x) => feature(x)?.status === 'Provisioned');
    await ok(['--context', 'mgmt', 'delete', 'configmap', 'local-one', '-n', 'default']);
    await eventually(() => env.mgmt.getIfExists<Obj>({ ...CM, namespace: 'default', name: 'local-one' }), Boolean, { message: 'drift detection re-created the object' });
    // A valuesFrom change redeploys (the referenced ConfigMap is watched).
    await put({ ...CM, metadata: { name: 'kust-values', namespace: 'default' }, data: { suffix: 'two', owner: 'team-b' } });
    await eventually(() => env.mgmt.getIfExists<Obj>({ ...CM, namespace: 'default', name: 'local-two' }), (x) => x?.data?.owner === 'team-b', { message: 'new values deployed' });
    await eventually(() => env.mgmt.getIfExists<Obj>({ ...CM, namespace: 'default', name: 'local-one' }), (x) => x === undefined, { message: 'stale object removed' });
    await env.mgmt.delete({ ...CP, name: 'local' });
    await eventually(() => env.mgmt.getIfExists<Obj>({ ...CM, namespace: 'default', name: 'local-two' }), (x) => x === undefined, { message: 'withdrawn' });
  });

  test('OCIRepository: DryRun reports in the ClusterReport, a lower tier wins a conflict, a missing source is reported', async () => {
    await put({ ...OCI, metadata: { name: 'oci', namespace: 'default' }, spec: { url: 'oci://registry.example.com/manifests', interval: '5m', ref: { tag: 'v1' } } });
    await publish(OCI, 'oci', { 'deploy/kustomization.yaml': 'resources:\n- cm.yaml\n', 'deploy/cm.yaml': 'apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: shared\n  namespace: oci\ndata:\n  k: v\n' }, 'v1@sha256:abc');
    const ref = { kind: 'OCIRepository', name: 'oci', namespace: 'default', path: 'deploy' };
    await put({ ...CP, metadata: { name: 'dry' }, spec: { clusterSelector: { matchLabels: { env: 'kust' } }, syncMode: 'DryRun', kustomizationRefs: [ref] } });
    const report = await eventually(
      () => env.mgmt.getIfExists<Obj>({ apiVersion: 'config.projectsveltos.io/v1beta1', kind: 'ClusterReport', namespace: 'k1', name: 'dry--sveltos--k1' }),
      (r) => ((r?.status?.kustomizeResourceReports as unknown[]) ?? []).length > 0,
      { message: 'DryRun report' },
    );
    assert.deepEqual(report!.status!.kustomizeResourceReports, [{ action: 'Create', resource: { group: '', version: 'v1', kind: 'ConfigMap', name: 'shared', namespace: 'oci', ignoreForConfigurationDrift: false } }]);
    assert.equal(await remoteCm('oci', 'shared'), undefined, 'DryRun writes nothing');
    await env.mgmt.delete({ ...CP, name: 'dry' });

    await put({ ...CP, metadata: { name: 'first' }, spec: { clusterSelector: { matchLabels: { env: 'kust' } }, kustomizationRefs: [ref] } });
    await eventually(() => remoteCm('oci', 'shared'), (x) => x?.metadata.annotations?.['projectsveltos.io/owner-name'] === 'first');
    await put({ ...CP, metadata: { name: 'second' }, spec: { clusterSelector: { matchLabels: { env: 'kust' } }, kustomizationRefs: [ref] } });
    const lost = await eventually(() => cs('second-sveltos-k1'), (o) => feature(o)?.failureReason === 'ConflictError', { message: 'same tier: the owner keeps it' });
    assert.match(feature(lost)!.failureMessage!, /first/);
    await put({ ...CP, metadata: { name: 'second' }, spec: { clusterSelector: { matchLabels: { env: 'kust' } }, tier: 50, kustomizationRefs: [ref] } });
    await eventually(() => remoteCm('oci', 'shared'), (x) => x?.metadata.annotations?.['projectsveltos.io/owner-name'] === 'second', { message: 'lower tier takes over' });
    const loser = await eventually(() => cs('first-sveltos-k1'), (o) => feature(o)?.failureReason === 'ConflictError', { message: 'the old owner re-evaluates and reports the conflict' });
    assert.match(feature(loser)!.failureMessage!, /second/);
    // The owner withdraws: the ClusterSummary that lost the conflict is woken and deploys (no polling meanwhile).
    await env.mgmt.delete({ ...CP, name: 'second' });
    await eventually(() => remoteCm('oci', 'shared'), (x) => x?.metadata.annotations?.['projectsveltos.io/owner-name'] === 'first', { message: 'the loser takes over once the owner is gone' });
    await eventually(() => cs('first-sveltos-k1'), (o) => feature(o)?.status === 'Provisioned');
    await env.mgmt.delete({ ...CP, name: 'first' });
    await eventually(() => remoteCm('oci', 'shared'), (x) => x === undefined, { message: 'withdrawn' });

    await put({ ...CP, metadata: { name: 'missing' }, spec: { clusterSelector: { matchLabels: { env: 'kust' } }, kustomizationRefs: [{ kind: 'GitRepository', name: 'nope', namespace: 'default', path: '.' }] } });
    const m = await eventually(() => cs('missing-sveltos-k1'), (o) => feature(o)?.failureReason === 'ReferenceNotFound');
    assert.match(feature(m)!.failureMessage!, /referenced GitRepository default\/nope does not exist/);
    await env.mgmt.delete({ ...CP, name: 'missing' });
  });

  test('policyRefs of a GitRepository: the files under path deployed by the Resources feature (templates when the source is annotated); a new revision updates them', async () => {
    const files = (v: string) => ({
      'policies/a.yaml': 'apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: from-git\n  namespace: git\ndata:\n  cluster: "{{ .Cluster.metadata.name }}"\n  v: "' + v + '"\n',
      'policies/sub/b.yaml': 'apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: from-git-sub\n  namespace: git\ndata:\n  k: v\n',
      'other/c.yaml': 'apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: not-under-path\n  namespace: git\n',
    });
    await put({ ...GIT, metadata: { name: 'policies', namespace: 'default', annotations: { 'projectsveltos.io/template': 'ok' } }, spec: { url: 'https://github.com/example/policies', interval: '1m' } });
    await publish(GIT, 'policies', files('1'), 'main@sha1:aaaa');
    await put({ ...CP, metadata: { name: 'gitpol' }, spec: { clusterSelector: { matchLabels: { env: 'kust' } }, policyRefs: [{ kind: 'GitRepository', name: 'policies', namespace: 'default', path: 'policies' }] } });
    const o = await eventually(() => remoteCm('git', 'from-git'), Boolean, { message: 'deployed from the artifact' });
    assert.deepEqual(o!.data, { cluster: 'k1', v: '1' });
    assert.equal(o!.metadata.annotations!['projectsveltos.io/reference-kind'], 'GitRepository');
    assert.equal(o!.metadata.labels!['projectsveltos.io/reason'], 'Resources');
    assert.ok(await remoteCm('git', 'from-git-sub'));
    assert.equal(await remoteCm('git', 'not-under-path'), undefined);
    await publish(GIT, 'policies', files('2'), 'main@sha1:bbbb');
    await eventually(() => remoteCm('git', 'from-git'), (x) => x?.data?.v === '2', { message: 'new revision deployed' });
    await publish(GIT, 'policies', files('3'), 'main@sha1:cccc', { digest: `sha256:${'1'.repeat(64)}` });
    const f = await eventually(() => cs('gitpol-sveltos-k1'), (x) => feature(x, 'Resources')?.failureReason === 'ArtifactFailed', { message: 'digest mismatch reported' });
    assert.match(feature(f, 'Resources')!.failureMessage!, /^policyRefs\[0\] \(GitRepository default\/policies\): artifact .* failed to verify artifact/);
    assert.equal((await remoteCm('git', 'from-git'))?.data?.v, '2', 'the last good deployment stays');
    await env.mgmt.delete({ ...CP, name: 'gitpol' });
    await eventually(() => remoteCm('git', 'from-git'), (x) => x === undefined, { message: 'withdrawn' });
  });

  test('Profiles: kustomization sources of their own namespace only', async () => {
    const tarball = tgz({ 'kustomization.yaml': 'resources:\n- cm.yaml\n', 'cm.yaml': 'apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: from-profile\n  namespace: tenant-app\ndata:\n  k: v\n' });
    await put({ apiVersion: 'v1', kind: 'Secret', metadata: { name: 'kust', namespace: 'k1' }, type: 'Opaque', data: { 'kustomize.tar.gz': tarball.toString('base64') } });
    const PROFILE = { apiVersion: 'config.projectsveltos.io/v1beta1', kind: 'Profile' } as const;
    await put({ ...PROFILE, metadata: { name: 'tenant', namespace: 'k1' }, spec: { clusterSelector: { matchLabels: { env: 'kust' } }, kustomizationRefs: [{ kind: 'Secret', name: 'kust', namespace: 'default', path: '.' }] } });
    const bad = await eventually(() => cs('p--tenant-sveltos-k1'), (o) => feature(o)?.status === 'FailedNonRetriable', { message: 'other namespace refused' });
    assert.match(feature(bad)!.failureMessage!, /a Profile can only reference Secrets in its own namespace k1, not default/);
    await put({ ...PROFILE, metadata: { name: 'tenant', namespace: 'k1' }, spec: { clusterSelector: { matchLabels: { env: 'kust' } }, kustomizationRefs: [{ kind: 'Secret', name: 'kust', path: '.' }] } });
    await eventually(() => remoteCm('tenant-app', 'from-profile'), Boolean, { message: 'Profile deployed from a Secret of its namespace' });
    await env.mgmt.delete({ ...PROFILE, namespace: 'k1', name: 'tenant' });
    await eventually(() => remoteCm('tenant-app', 'from-profile'), (x) => x === undefined, { message: 'withdrawn' });
  });
});
