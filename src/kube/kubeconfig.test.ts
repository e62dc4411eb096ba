// Kubeconfig loading (file with relative paths, YAML, object, context selection), the errors for unusable ones,
// flattening into a self-contained single-context document, and the per-cluster client cache.
import { strict as assert } from 'node:assert';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { stringify as toYaml } from 'yaml';
import { startTestApiServer, type TestApiServer } from '../../test/support/apiserver.js';
import { ClientCache, KubeConfigError, flattenKubeConfig, kubeConfigYaml, loadKubeConfig } from './index.js';

const doc = (server: string, extra: Record<string, unknown> = {}) => ({
  apiVersion: 'v1',
  kind: 'Config',
  clusters: [
    { name: 'one', cluster: { server, 'certificate-authority': 'ca.crt' } },
    { name: 'two', cluster: { server: 'https://two.example:6443', 'insecure-skip-tls-verify': true } },
  ],
  users: [
    { name: 'cert-user', user: { 'client-certificate': 'client.crt', 'client-key': 'client.key' } },
    { name: 'token-user', user: { token: 'abc' } },
  ],
  contexts: [
    { name: 'ctx-one', context: { cluster: 'one', user: 'cert-user', namespace: 'team' } },
    { name: 'ctx-two', context: { cluster: 'two', user: 'token-user' } },
    { name: 'ctx-broken', context: { cluster: 'missing', user: 'token-user' } },
    { name: 'ctx-nouser', context: { cluster: 'two', user: 'ghost' } },
  ],
  'current-context': 'ctx-one',
  ...extra,
});

describe('kubeconfig', () => {
  let dir: string;
  before(() => {
    dir = mkdtempSync(join(tmpdir(), 'ripple-kubeconfig-'));
    writeFileSync(join(dir, 'ca.crt'), 'CA-PEM');
    writeFileSync(join(dir, 'client.crt'), 'CERT-PEM');
    writeFileSync(join(dir, 'client.key'), 'KEY-PEM');
    writeFileSync(join(dir, 'config'), toYaml(doc('https://one.example:6443')));
  });
  after(() => rmSync(dir, { recursive: true, force: true }));

  test('loads a file (relative paths resolved), selects contexts, flattens with files inlined', () => {
    const kc = loadKubeConfig({ file: join(dir, 'config') });
    assert.equal(kc.getCurrentContext(), 'ctx-one');
    assert.equal(kc.getCurrentCluster()?.caFile, join(dir, 'ca.crt'));
    const flat = flattenKubeConfig(kc) as { clusters: { cluster: Record<string, unknown> }[]; users: { user: Record<string, unknown> }[]; contexts: { context: Record<string, unknown> }[] };
    assert.equal(flat.clusters.length, 1);
    assert.equal(Buffer.from(String(flat.clusters[0].cluster['certificate-authority-data']), 'base64').toString(), 'CA-PEM');
    assert.equal(Buffer.from(String(flat.users[0].user['client-key-data']), 'base64').toString(), 'KEY-PEM');
    assert.equal(flat.contexts[0].context.namespace, 'team');
    // The flattened document loads on its own, anywhere.
    const again = loadKubeConfig({ yaml: kubeConfigYaml(flat) });
    assert.equal(again.getCurrentCluster()?.server, 'https://one.example:6443');
    const two = loadKubeConfig({ file: join(dir, 'config'), context: 'ctx-two' });
    assert.equal(two.getCurrentCluster()?.server, 'https://two.example:6443');
    const flatTwo = flattenKubeConfig(two) as { clusters: { cluster: Record<string, unknown> }[]; users: { user: Record<string, unknown> }[] };
    assert.deepEqual(flatTwo.clusters[0].cluster, { server: 'https://two.example:6443', 'insecure-skip-tls-verify': true });
    assert.deepEqual(flatTwo.users[0].user, { token: 'abc' });
  });

  test('unusable kubeconfigs fail with a KubeConfigError that says what is wrong', () => {
    const code = (f: () => unknown) => {
      try {
        f();
      } catch (e) {
        assert.ok(e instanceof KubeConfigError, String(e));
        return `${e.code}: ${e.message}`;
      }
      return 'no error';
    };
    assert.match(code(() => loadKubeConfig({ file: join(dir, 'nope') })), /^Unreadable: cannot read kubeconfig/);
    assert.match(code(() => loadKubeConfig({ yaml: 'clusters: [' })), /^Malformed/);
    assert.match(code(() => loadKubeConfig({ yaml: toYaml({ clusters: [{ name: 'x' }] }) })), /^Malformed: .*cluster is missing/);
    assert.match(code(() => loadKubeConfig({ file: join(dir, 'config'), context: 'nope' })), /^NoContext: context "nope" not found .*ctx-one, ctx-two/);
    assert.match(code(() => loadKubeConfig({ file: join(dir, 'config'), context: 'ctx-broken' })), /^NoCluster: .*cluster "missing"/);
    assert.match(code(() => loadKubeConfig({ file: join(dir, 'config'), context: 'ctx-nouser' })), /^NoUser: .*user "ghost"/);
    assert.match(code(() => loadKubeConfig({ object: doc('not a url') })), /^BadServer/);
    assert.match(code(() => loadKubeConfig({ object: { ...doc('ftp://x'), 'current-context': 'ctx-one' } })), /^BadServer: .*must be http/);
    assert.match(code(() => loadKubeConfig({ object: { ...doc('https://x'), 'current-context': '' } })), /^NoContext: kubeconfig has no current-context/);
  });
});

describe('ClientCache', () => {
  let api: TestApiServer;
  before(async () => {
    api = await startTestApiServer({ clusters: ['c1', 'c2'] });
  });
  after(async () => api.stop());

  test('reuses a client per identity and rebuilds it when the kubeconfig changes', async () => {
    const cache = new ClientCache({ closeGraceMs: 0 });
    const rebuilt: string[] = [];
    cache.onRebuild((id) => rebuilt.push(id));
    const y1 = api.server.kubeconfigYaml('c1');
    const a = cache.client('Sveltos:ns/one', y1);
    assert.equal(cache.client('Sveltos:ns/one', y1), a, 'same kubeconfig, same client');
    assert.equal((await a.version()).major, '1');
    const y2 = api.server.kubeconfigYaml('c2');
    const b = cache.client('Sveltos:ns/one', y2);
    assert.notEqual(b, a);
    assert.equal(a.closed, true, 'the replaced client is closed');
    assert.deepEqual(rebuilt, ['Sveltos:ns/one']);
    assert.match(b.server, /\/clusters\/c2$/);
    const other = cache.client('Sveltos:ns/two', y1);
    assert.notEqual(other, b);
    assert.deepEqual(cache.identities().sort(), ['Sveltos:ns/one', 'Sveltos:ns/two']);
    assert.throws(() => cache.client('bad', 'not: [valid'), KubeConfigError);
    cache.delete('Sveltos:ns/two');
    assert.equal(other.closed, true);
    cache.close();
    assert.equal(b.closed, true);
  });
});
