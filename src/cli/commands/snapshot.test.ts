// `ripple snapshot create|list|diff|rollback` against the embedded API server: what goes into a snapshot (and what
// the event manager generated stays out), a diff after changes, a dry run that changes nothing, and a rollback with
// --prune that puts the configuration back exactly.
import { strict as assert } from 'node:assert';
import { existsSync, mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { startTestApiServer, type TestApiServer } from '../../../test/support/apiserver.js';
import { runCli } from '../../../test/support/run-cli.js';
import { registerCluster } from '../../clusters/index.js';
import { KubeClient, type KubeObject } from '../../kube/index.js';
import { installCrds } from '../../manager/index.js';
import { diffLines } from './snapshot.js';

const LIB = 'lib.projectsveltos.io/v1beta1';
const CONFIG = 'config.projectsveltos.io/v1beta1';

describe('ripple snapshot', () => {
  let api: TestApiServer;
  let mgmt: KubeClient;
  let dir: string;
  before(async () => {
    api = await startTestApiServer({ clusters: ['mgmt', 'edge'] });
    mgmt = new KubeClient(await api.kubeConfig('mgmt'));
    await installCrds(mgmt);
    dir = mkdtempSync(join(tmpdir(), 'ripple-snapshots-'));
    await registerCluster(mgmt, { namespace: 'edge', name: 'edge', kubeconfig: api.server.kubeconfigYaml('edge'), labels: { env: 'prod' } });
    await mgmt.create({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'policy', namespace: 'default' }, data: { 'a.yaml': 'kind: Namespace\napiVersion: v1\nmetadata:\n  name: one\n' } });
    await mgmt.create({ apiVersion: CONFIG, kind: 'ClusterProfile', metadata: { name: 'p1' }, spec: { clusterSelector: { matchLabels: { env: 'prod' } }, policyRefs: [{ kind: 'ConfigMap', namespace: 'default', name: 'policy' }] } });
    await mgmt.create({ apiVersion: LIB, kind: 'EventSource', metadata: { name: 'es1' }, spec: { resourceSelectors: [{ group: '', version: 'v1', kind: 'Service' }] } });
    await mgmt.create({ apiVersion: LIB, kind: 'EventTrigger', metadata: { name: 'et1' }, spec: { sourceClusterSelector: { matchLabels: { env: 'prod' } }, eventSourceName: 'es1' } });
    // What the event manager would have generated for et1: not configuration, not in the snapshot.
    await mgmt.create({ apiVersion: CONFIG, kind: 'ClusterProfile', metadata: { name: 'sveltos-generated', labels: { 'eventtrigger.lib.projectsveltos.io/eventtriggername': 'et1' } }, spec: {} });
  });
  after(async () => {
    mgmt?.close();
    await api?.stop();
    rmSync(dir, { recursive: true, force: true });
  });

  const flags = () => ['--dir', dir, '--kubeconfig', api.kubeconfigPath, '--context', 'mgmt'];
  const cm = () => mgmt.get<KubeObject & { data?: Record<string, string> }>({ apiVersion: 'v1', kind: 'ConfigMap', namespace: 'default', name: 'policy' });

  test('create writes each configuration object as a file, without status or generated objects', async () => {
    const r = await runCli(['snapshot', 'create', '--name', 's1', ...flags()]);
    assert.equal(r.code, 0, r.stderr);
    assert.match(r.stdout, /^snapshot s1: 5 object\(s\) in /);
    const s1 = join(dir, 's1');
    assert.equal(statSync(s1).mode & 0o777, 0o700);
    for (const f of ['configmap/default/policy.yaml', 'clusterprofile.config.projectsveltos.io/p1.yaml', 'eventsource.lib.projectsveltos.io/es1.yaml', 'eventtrigger.lib.projectsveltos.io/et1.yaml', 'sveltoscluster.lib.projectsveltos.io/edge/edge.yaml', 'snapshot.json']) {
      assert.ok(existsSync(join(s1, f)), f);
    }
    assert.equal(existsSync(join(s1, 'clusterprofile.config.projectsveltos.io/sveltos-generated.yaml')), false);
    const cluster = readFileSync(join(s1, 'sveltoscluster.lib.projectsveltos.io/edge/edge.yaml'), 'utf8');
    assert.match(cluster, /labels:\n(.*\n)*\s+env: prod\n/);
    assert.doesNotMatch(cluster, /status:|resourceVersion|uid:|managedFields/);
    const again = await runCli(['snapshot', 'create', '--name', 's1', ...flags()]);
    assert.equal(again.code, 3);
    assert.match(again.stderr, /exists; pick another --name/);

    const list = await runCli(['snapshot', 'list', '--dir', dir]);
    assert.match(list.stdout, /^NAME\s+CREATED\s+OBJECTS\s+SERVER\ns1\s+\d{4}-\S+Z\s+5\s+https:/);
  });

  test('diff shows what changed since; rollback --dry-run changes nothing; rollback --prune puts it all back', async () => {
    const live = await cm();
    await mgmt.update({ ...live, data: { 'a.yaml': 'kind: Namespace\napiVersion: v1\nmetadata:\n  name: two\n' } });
    await mgmt.patch({ apiVersion: LIB, kind: 'SveltosCluster', namespace: 'edge', name: 'edge' }, 'merge', { metadata: { labels: { env: 'dev', extra: 'x' } } });
    await mgmt.delete({ apiVersion: LIB, kind: 'EventSource', name: 'es1' });
    await mgmt.create({ apiVersion: CONFIG, kind: 'ClusterProfile', metadata: { name: 'p2' }, spec: {} });

    const d = await runCli(['snapshot', 'diff', 's1', ...flags()]);
    assert.equal(d.code, 0, d.stderr);
    assert.match(d.stdout, /^- EventSource es1 \(in s1 only\)$/m);
    assert.match(d.stdout, /^\+ ClusterProfile p2 \(in the cluster only\)$/m);
    assert.match(d.stdout, /^~ ConfigMap default\/policy\n(.*\n)*\s+- .*name: one.*\n\s+\+ .*name: two/m);
    assert.match(d.stdout, /^~ SveltosCluster edge\/edge\n(.*\n)*\s+- +env: prod\n\s+\+ +env: dev\n\s+\+ +extra: x\n/m);

    const dry = await runCli(['snapshot', 'rollback', 's1', '--prune', '--dry-run', ...flags()]);
    assert.equal(dry.code, 0, dry.stderr);
    assert.match(dry.stdout, /^would apply ConfigMap default\/policy$/m);
    assert.match(dry.stdout, /^would delete ClusterProfile p2$/m);
    assert.match(dry.stdout, /dry run: rollback to s1: 3 object\(s\) to apply, 1 to delete\n$/);
    assert.match((await cm()).data!['a.yaml'], /two/);

    const r = await runCli(['snapshot', 'rollback', 's1', '--prune', ...flags()]);
    assert.equal(r.code, 0, r.stderr);
    assert.match(r.stdout, /rollback to s1: 3 object\(s\) applied, 1 deleted\n$/);
    assert.match((await cm()).data!['a.yaml'], /name: one/);
    const cluster = await mgmt.get<KubeObject>({ apiVersion: LIB, kind: 'SveltosCluster', namespace: 'edge', name: 'edge' });
    assert.equal(cluster.metadata.labels?.env, 'prod');
    assert.equal(cluster.metadata.labels?.extra, undefined, 'labels added since are gone');
    assert.ok(await mgmt.getIfExists({ apiVersion: LIB, kind: 'EventSource', name: 'es1' }));
    assert.equal(await mgmt.getIfExists({ apiVersion: CONFIG, kind: 'ClusterProfile', name: 'p2' }), undefined);
    assert.ok(await mgmt.getIfExists({ apiVersion: CONFIG, kind: 'ClusterProfile', name: 'sveltos-generated' }), 'generated objects are not pruned');

    const none = await runCli(['snapshot', 'diff', 's1', ...flags()]);
    assert.equal(none.stdout, 'No differences between s1 and the cluster\n');
  });

  test('bad command lines and unknown snapshots', async () => {
    const unknown = await runCli(['snapshot', 'diff', 'nope', ...flags()]);
    assert.equal(unknown.code, 3);
    assert.match(unknown.stderr, /no snapshot "nope" in .*ripple snapshot list/);
    const bad = await runCli(['snapshot', 'list', '--prune', '--dir', dir]);
    assert.equal(bad.code, 2);
    assert.match(bad.stderr, /--prune does not apply to `ripple snapshot list`/);
  });

  test('diffLines keeps common lines and marks removed and added ones', () => {
    assert.deepEqual(diffLines('a\nb\nc', 'a\nc\nd'), ['  a', '- b', '  c', '+ d']);
  });
});
