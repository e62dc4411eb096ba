// Release Secrets through a real API path: written to the embedded API server with kubectl, listed by the label
// queries Helm's storage driver uses (owner=helm; name=…,owner=helm,status=deployed), read back and decoded. This is
// where the double base64 (the API's encoding of []byte around Helm's own base64 of gzip) is proven.
import { strict as assert } from 'node:assert';
import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import { gunzipSync } from 'node:zlib';
import { startTestApiServer, type TestApiServer } from '../support/apiserver.js';
import { marshalRelease, newRelease, releaseFromSecret, releaseSecret, releaseSelector, deployedRelease, type Release } from '../../src/helm/index.js';

let srv: TestApiServer;
let work: string;

function kubectl(args: string[], input?: string): Promise<string> {
  return new Promise((resolve, reject) => {
    const child = execFile('/usr/bin/kubectl', ['--cache-dir', join(work, 'cache'), ...args], { env: { ...process.env, KUBECONFIG: srv.kubeconfigPath, HOME: work }, timeout: 30_000 }, (err, stdout, stderr) =>
      err ? reject(new Error(`kubectl ${args.join(' ')}: ${stderr}`)) : resolve(stdout),
    );
    if (input !== undefined) child.stdin!.end(input);
  });
}

before(async () => {
  work = mkdtempSync(join(tmpdir(), 'ripple-release-'));
  srv = await startTestApiServer({ clusters: ['c1'] });
  await kubectl(['create', 'namespace', 'apps']);
});
after(async () => {
  await srv.stop();
  rmSync(work, { recursive: true, force: true });
});

function revision(v: number, status: 'deployed' | 'superseded', replicas: number): Release {
  const r = newRelease('web', 'apps', v);
  r.info = { firstDeployed: '2026-11-25T10:00:00Z', lastDeployed: `2026-11-25T1${v}:00:00Z`, deleted: '', description: v === 1 ? 'Install complete' : 'Upgrade complete', status, notes: '' };
  r.chart = { metadata: { name: 'web', version: `1.${v}.0`, apiVersion: 'v2' }, lock: null, templates: [], values: { replicas: 1 }, schema: null, files: [] };
  r.config = { replicas };
  r.manifest = `---\n# Source: web/templates/cm.yaml\napiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: web\ndata:\n  replicas: "${replicas}"\n`;
  r.labels = { team: 'payments' };
  return r;
}

test('release Secrets round-trip through the API server and answer Helm’s label queries', async () => {
  const v1 = revision(1, 'deployed', 2);
  await kubectl(['create', '-f', '-'], JSON.stringify(releaseSecret(v1, { op: 'create', nowUnix: 1764064800 })));

  // What kubectl shows is base64 of Helm's base64(gzip(json)).
  const shown = (await kubectl(['get', 'secret', '-n', 'apps', 'sh.helm.release.v1.web.v1', '-o', 'jsonpath={.data.release}'])).trim();
  const helmText = Buffer.from(shown, 'base64').toString('utf8');
  assert.equal(gunzipSync(Buffer.from(helmText, 'base64')).toString('utf8'), marshalRelease(v1));
  assert.equal((await kubectl(['get', 'secret', '-n', 'apps', 'sh.helm.release.v1.web.v1', '-o', 'jsonpath={.type}'])).trim(), 'helm.sh/release.v1');

  // An upgrade as Helm records it: the new revision is created, the old one updated to superseded.
  const v2 = revision(2, 'deployed', 3);
  await kubectl(['create', '-f', '-'], JSON.stringify(releaseSecret(v2, { op: 'create', nowUnix: 1764068400 })));
  await kubectl(['replace', '-f', '-'], JSON.stringify(releaseSecret({ ...v1, info: { ...v1.info!, status: 'superseded' } }, { op: 'update', nowUnix: 1764068401 })));

  const list = JSON.parse(await kubectl(['get', 'secrets', '-n', 'apps', '-l', releaseSelector('web'), '-o', 'json'])) as { items: Parameters<typeof releaseFromSecret>[0][] };
  const history = list.items.map(releaseFromSecret);
  assert.deepEqual(history.map((r) => [r.version, r.info!.status]).sort(), [[1, 'superseded'], [2, 'deployed']]);
  assert.equal(deployedRelease(history)!.version, 2);
  assert.deepEqual(history.map((r) => r.labels), [{ team: 'payments' }, { team: 'payments' }]);
  assert.equal(marshalRelease(history.find((r) => r.version === 2)!), marshalRelease(v2));

  // Storage.DeployedAll's query: name, owner=helm, status=deployed.
  const deployed = await kubectl(['get', 'secrets', '-n', 'apps', '-l', 'name=web,owner=helm,status=deployed', '-o', 'name']);
  assert.equal(deployed.trim(), 'secret/sh.helm.release.v1.web.v2');
  const v1Labels = JSON.parse(await kubectl(['get', 'secret', '-n', 'apps', 'sh.helm.release.v1.web.v1', '-o', 'jsonpath={.metadata.labels}'])) as Record<string, string>;
  assert.deepEqual(v1Labels, { modifiedAt: '1764068401', name: 'web', owner: 'helm', status: 'superseded', team: 'payments', version: '1' });
});
