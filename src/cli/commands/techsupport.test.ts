// `ripple techsupport` against the embedded API server: the archive is read back with tar, holds the objects with
// status, Events, versions and logs, and no secret value (neither a Secret's data nor a token in a log line).
import { strict as assert } from 'node:assert';
import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, readdirSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { startTestApiServer, type TestApiServer } from '../../../test/support/apiserver.js';
import { runCli } from '../../../test/support/run-cli.js';
import { registerCluster } from '../../clusters/index.js';
import { KubeClient } from '../../kube/index.js';
import { installCrds } from '../../manager/index.js';
import { redactText } from './techsupport.js';

const SECRET_VALUE = 'hunter2-very-secret';

function readTree(dir: string): Record<string, string> {
  const out: Record<string, string> = {};
  const walk = (d: string) => {
    for (const e of readdirSync(d)) {
      const p = join(d, e);
      if (statSync(p).isDirectory()) walk(p);
      else out[relative(dir, p)] = readFileSync(p, 'utf8');
    }
  };
  walk(dir);
  return out;
}

describe('ripple techsupport', () => {
  let api: TestApiServer;
  let mgmt: KubeClient;
  let dir: string;
  before(async () => {
    api = await startTestApiServer({ clusters: ['mgmt', 'edge'] });
    mgmt = new KubeClient(await api.kubeConfig('mgmt'));
    await installCrds(mgmt);
    dir = mkdtempSync(join(tmpdir(), 'ripple-techsupport-'));
    await registerCluster(mgmt, { namespace: 'edge', name: 'edge', kubeconfig: api.server.kubeconfigYaml('edge') });
    await mgmt.create({ apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'projectsveltos' } });
    await mgmt.create({ apiVersion: 'v1', kind: 'Secret', metadata: { name: 'creds', namespace: 'projectsveltos' }, stringData: { password: SECRET_VALUE } });
    await mgmt.create({ apiVersion: 'v1', kind: 'Event', metadata: { name: 'ev1', namespace: 'edge' }, involvedObject: { kind: 'SveltosCluster', namespace: 'edge', name: 'edge' }, reason: 'Probe', message: 'probed fine', type: 'Normal' });
    mkdirSync(join(dir, 'data'));
    writeFileSync(join(dir, 'data', 'ripple.log'), `{"msg":"request","headers":{"Authorization":"Bearer ${SECRET_VALUE}"}}\nplain line\n`);
  });
  after(async () => {
    mgmt?.close();
    await api?.stop();
    rmSync(dir, { recursive: true, force: true });
  });

  test('writes a tarball with objects, Events, versions and logs, and no secret value', async () => {
    const out = join(dir, 'bundle.tar.gz');
    const r = await runCli(['techsupport', '--output', out, '--data-dir', join(dir, 'data'), '--kubeconfig', api.kubeconfigPath, '--context', 'mgmt']);
    assert.equal(r.code, 0, r.stderr);
    assert.match(r.stdout, /wrote .*bundle\.tar\.gz \(\d+ files from the management cluster and 1 managed cluster\(s\)\)/);
    assert.equal(statSync(out).mode & 0o777, 0o600);
    const x = join(dir, 'x');
    mkdirSync(x);
    const t = spawnSync('tar', ['-xzf', out, '-C', x], { encoding: 'utf8' });
    assert.equal(t.status, 0, t.stderr);
    const files = readTree(join(x, 'ripple-techsupport'));
    for (const f of ['versions.json', 'management/SveltosCluster.yaml', 'management/ClusterSummary.yaml', 'management/events.yaml', 'management/secrets.yaml', 'clusters/edge_edge/version.json', 'clusters/edge_edge/events.yaml', 'logs/ripple.log', 'errors.txt']) {
      assert.ok(files[f] !== undefined, `${f} in ${Object.keys(files).join(', ')}`);
    }
    assert.match(files['management/SveltosCluster.yaml'], /name: edge\n/);
    assert.match(files['management/events.yaml'], /message: probed fine/);
    const versions = JSON.parse(files['versions.json']) as { ripple: string; management: { gitVersion: string }; clusters: Record<string, { gitVersion?: string }> };
    assert.match(versions.ripple, /^\d+\.\d+\.\d+/);
    assert.ok(versions.management.gitVersion);
    assert.ok(versions.clusters['edge/edge'].gitVersion);
    assert.match(files['management/secrets.yaml'], /name: creds\n(.*\n)*\s+password: REDACTED \(19 bytes\)/);
    // The kubeconfig Secret of the cluster is there by its keys only: its bearer token is not in the archive.
    assert.match(files['management/secrets.yaml'], /name: edge-sveltos-kubeconfig/);
    const token = /token: "?([^"\s]+)/.exec(api.server.kubeconfigYaml('edge'))?.[1];
    assert.ok(token);
    assert.match(files['logs/ripple.log'], /Bearer REDACTED/);
    for (const [name, text] of Object.entries(files)) {
      assert.ok(!text.includes(SECRET_VALUE), `${name} holds the secret value`);
      assert.ok(!text.includes(token), `${name} holds the cluster token`);
    }
    assert.equal(files['errors.txt'], 'none\n');
  });

  test('a cluster that is not registered is reported in errors.txt; a missing log file is an error', async () => {
    const out = join(dir, 'b2.tar.gz');
    const r = await runCli(['techsupport', '--output', out, '--cluster', 'nope/nope', '--kubeconfig', api.kubeconfigPath, '--context', 'mgmt']);
    assert.equal(r.code, 0, r.stderr);
    assert.match(r.stdout, /1 item\(s\) could not be collected, see errors\.txt/);
    const bad = await runCli(['techsupport', '--output', out, '--log-file', join(dir, 'missing.log'), '--kubeconfig', api.kubeconfigPath]);
    assert.equal(bad.code, 3);
    assert.match(bad.stderr, /cannot read log file .*missing\.log/);
  });

  test('redactText hides bearer tokens, tokens and passwords', () => {
    assert.equal(redactText('Authorization: Bearer abc.def-ghi'), 'Authorization: Bearer REDACTED');
    assert.equal(redactText('{"token":"xyz","user":"u"}'), '{"token":"REDACTED","user":"u"}');
    assert.equal(redactText('password=s3cret other=1'), 'password=REDACTED other=1');
  });
});
