// `ripple helm push|pull` against a real OCI registry (Debian's docker-registry) and a loopback chart repository.
import { strict as assert } from 'node:assert';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { sha256Hex, startChartRepo } from '../../../test/support/chart-repo.js';
import { registryMissing, startRegistry, type Registry } from '../../../test/support/oci-registry.js';
import { runCli } from '../../../test/support/run-cli.js';
import { chartArchive } from '../../../test/support/tgz.js';

test('helm push and helm pull answer --help', async () => {
  for (const cmd of ['push', 'pull']) {
    const r = await runCli(['helm', cmd, '--help']);
    assert.equal(r.code, 0, r.stderr);
    assert.match(r.stdout, new RegExp(`ripple helm ${cmd}`));
  }
  const bad = await runCli(['helm', 'push', 'x.tgz', 'https://not-oci']);
  assert.equal(bad.code, 2);
  assert.match(bad.stderr, /must be an oci:\/\/ reference/);
});

describe('helm push/pull with a real registry', { skip: registryMissing() }, () => {
  let reg: Registry;
  let dir: string;
  const creds = { username: 'ci', password: 'tok3n' };
  before(async () => {
    reg = await startRegistry(creds);
    dir = await mkdtemp(join(tmpdir(), 'ripple-helm-cli-'));
    await writeFile(join(dir, 'web-1.0.0.tgz'), chartArchive('web', '1.0.0'));
    await writeFile(join(dir, 'web-1.1.0.tgz'), chartArchive('web', '1.1.0'));
  });
  after(async () => {
    await reg?.stop();
    if (dir) await rm(dir, { recursive: true, force: true });
  });

  test('push, then pull by constraint: the same bytes come back', async () => {
    const auth = ['--plain-http', '--username', creds.username, '--password-stdin'];
    for (const v of ['1.0.0', '1.1.0']) {
      const r = await runCli(['helm', 'push', join(dir, `web-${v}.tgz`), `oci://${reg.host}/charts`, ...auth], `${creds.password}\n`);
      assert.equal(r.code, 0, r.stderr);
      assert.match(r.stdout, new RegExp(`^Pushed: ${reg.host}/charts/web:${v}\\nDigest: sha256:[0-9a-f]{64}\\n$`));
    }
    const out = join(dir, 'out');
    const cache = ['--cache-dir', join(dir, 'cache')];
    const pull = await runCli(['helm', 'pull', `oci://${reg.host}/charts/web`, '--version', '~1.0', '-d', out, ...cache, ...auth], creds.password);
    assert.equal(pull.code, 0, pull.stderr);
    assert.match(pull.stdout, new RegExp(`^Pulled: ${reg.host}/charts/web:1\\.0\\.0\\nDigest: sha256:`));
    assert.deepEqual(await readFile(join(out, 'web-1.0.0.tgz')), await readFile(join(dir, 'web-1.0.0.tgz')));
    const latest = await runCli(['helm', 'pull', `oci://${reg.host}/charts/web`, '-d', out, ...cache, ...auth], creds.password);
    assert.equal(latest.code, 0, latest.stderr);
    assert.deepEqual(await readFile(join(out, 'web-1.1.0.tgz')), await readFile(join(dir, 'web-1.1.0.tgz')));

    const denied = await runCli(['helm', 'pull', `oci://${reg.host}/charts/web`, '--version', '1.0.0', '--plain-http', '-d', out, '--cache-dir', join(dir, 'c2')]);
    assert.equal(denied.code, 4);
    assert.match(denied.stderr, /^ripple helm pull: chart oci:\/\/127\.0\.0\.1:\d+\/charts\/web:1\.0\.0: registry .* requires credentials \(basic auth\) and none were given/);
    const none = await runCli(['helm', 'pull', `oci://${reg.host}/charts/web`, '--version', '>=2', '-d', out, ...cache, ...auth], creds.password);
    assert.equal(none.code, 3);
    assert.match(none.stderr, /could not locate a version matching provided version string >=2 \(tags: 1\.1\.0, 1\.0\.0\)/);
    const missing = await runCli(['helm', 'push', join(dir, 'nope.tgz'), `oci://${reg.host}/charts`, '--plain-http']);
    assert.equal(missing.code, 3);
    assert.match(missing.stderr, /ENOENT.*nope\.tgz/);
  });

  test('pull from a classic chart repository with --repo', async () => {
    const archive = chartArchive('db', '2.3.4');
    const repo = await startChartRepo({
      '/index.yaml': `apiVersion: v1\nentries:\n  db:\n  - {name: db, version: 2.3.4, urls: [db-2.3.4.tgz], digest: '${sha256Hex(archive)}'}\n`,
      '/db-2.3.4.tgz': archive,
    });
    try {
      const r = await runCli(['helm', 'pull', 'db', '--repo', repo.url, '--version', '^2', '-d', join(dir, 'repo-out'), '--cache-dir', join(dir, 'cache')]);
      assert.equal(r.code, 0, r.stderr);
      assert.deepEqual(await readFile(join(dir, 'repo-out', 'db-2.3.4.tgz')), archive);
    } finally {
      await repo.stop();
    }
  });
});
