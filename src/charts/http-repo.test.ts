// Classic chart repositories, for real: a repository served over HTTP(S) on loopback from charts this test packages.
import { strict as assert } from 'node:assert';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import { selfSignedCert, sha256Hex, startChartRepo, type ChartRepo } from '../../test/support/chart-repo.js';
import { chartArchive } from '../../test/support/tgz.js';
import { ChartCache, ChartFetcher, fetchChart, fetchFromRepository, isChartSourceError, readChartYaml, sha256Digest } from './index.js';

const web100 = chartArchive('web', '1.0.0');
const web120 = chartArchive('web', '1.2.0');
const web200rc = chartArchive('web', '2.0.0-rc.1');
const cdnChart = chartArchive('cdn', '0.1.0');

function index(base: string, extra = ''): string {
  return `apiVersion: v1
entries:
  web:
  - {name: web, version: 1.0.0, urls: [web-1.0.0.tgz], digest: ${sha256Hex(web100)}}
  - {name: web, version: 1.2.0, urls: [/charts/web-1.2.0.tgz], digest: ${sha256Hex(web120)}}
  - {name: web, version: 2.0.0-rc.1, urls: [web-2.0.0-rc.1.tgz]}
  - {name: web, version: 0.9.0, urls: [web-0.9.0.tgz], digest: '${'0'.repeat(64)}'}
  - {name: web, version: 0.8.0, urls: [missing-0.8.0.tgz]}
  cdn:
  - {name: cdn, version: 0.1.0, urls: [${base}/elsewhere/cdn-0.1.0.tgz]}
${extra}`;
}

let repo: ChartRepo;
let other: ChartRepo;
let dir: string;
const AUTH = { username: 'ann', password: 's3cret' };

before(async () => {
  dir = await mkdtemp(join(tmpdir(), 'ripple-charts-'));
  other = await startChartRepo({ '/elsewhere/cdn-0.1.0.tgz': cdnChart });
  repo = await startChartRepo({}, AUTH);
  repo.files.set('/charts/index.yaml', Buffer.from(index(other.url)));
  repo.files.set('/charts/web-1.0.0.tgz', web100);
  repo.files.set('/charts/web-1.2.0.tgz', web120);
  repo.files.set('/charts/web-2.0.0-rc.1.tgz', web200rc);
  repo.files.set('/charts/web-0.9.0.tgz', web100); // served bytes differ from the index's digest
});
after(async () => {
  await repo.stop();
  await other.stop();
  await rm(dir, { recursive: true, force: true });
});

const req = (version: string, chart = 'web') => ({ repoURL: `${repo.url}/charts`, chart, version, credentials: AUTH });

test('a constraint resolves to the highest matching version; the archive is downloaded once, the index revalidated by ETag', async () => {
  const cache = new ChartCache(join(dir, 'c1'));
  const first = await fetchFromRepository(req('>=1.0 <2'), cache);
  assert.equal(first.version, '1.2.0');
  assert.equal(first.digest, sha256Digest(web120));
  assert.equal(first.cached, false);
  assert.equal(first.source, `${repo.url}/charts/web-1.2.0.tgz`); // absolute-path URL resolved against the host
  assert.equal(first.path, join(dir, 'c1', 'sha256', `${sha256Hex(web120)}.tgz`));
  assert.deepEqual(await readFile(first.path), web120);

  const before = repo.requests.length;
  const second = await fetchFromRepository(req('~1.2'), cache);
  assert.equal(second.cached, true);
  assert.equal(second.path, first.path);
  // One request: the index, answered 304 Not Modified; no chart download.
  assert.deepEqual(repo.requests.slice(before).map((r) => `${r.path} ${r.status}`), ['/charts/index.yaml 304']);

  assert.equal((await fetchFromRepository(req(''), cache)).version, '1.2.0'); // latest stable skips 2.0.0-rc.1
  assert.equal((await fetchFromRepository(req('1.0.0'), cache)).version, '1.0.0'); // relative URL
  assert.equal((await fetchFromRepository(req('>=2.0.0-0'), cache)).version, '2.0.0-rc.1'); // no digest in the index
  assert.equal(readChartYaml(await readFile(cache.pathOf(sha256Digest(web200rc))), 'x').version, '2.0.0-rc.1');
});

test('credentials go only to the repository’s own host unless passCredentialsAll', async () => {
  const cache = new ChartCache(join(dir, 'c2'));
  const got = await fetchFromRepository(req('', 'cdn'), cache);
  assert.equal(got.source, `${other.url}/elsewhere/cdn-0.1.0.tgz`);
  assert.equal(other.requests.at(-1)!.authorization, undefined);
  await fetchFromRepository({ ...req('', 'cdn'), passCredentialsAll: true }, new ChartCache(join(dir, 'c3')));
  assert.match(other.requests.at(-1)!.authorization ?? '', /^Basic /);
  assert.match(repo.requests.at(-1)!.authorization ?? '', /^Basic /);
});

test('failures are typed and name the chart, the repository and the cause', async () => {
  const cache = new ChartCache(join(dir, 'c4'));
  const fails = async (p: Promise<unknown>, code: string, re: RegExp) =>
    assert.rejects(p, (e: unknown) => {
      assert.ok(isChartSourceError(e), String(e));
      assert.equal(e.code, code, e.message);
      assert.match(e.message, re);
      return true;
    });
  await fails(fetchFromRepository({ ...req(''), credentials: undefined }, cache), 'AuthFailed', /chart repository http:\/\/127\.0\.0\.1:\d+\/charts index: authentication required/);
  await fails(fetchFromRepository({ ...req(''), credentials: { username: 'ann', password: 'wrong' } }, cache), 'AuthFailed', /401/);
  await fails(fetchFromRepository(req('', 'nope'), cache), 'ChartNotFound', /chart "nope" not found in http:\/\/127\.0\.0\.1:\d+\/charts repository \(it has: cdn, web\)/);
  await fails(fetchFromRepository(req('>=3'), cache), 'VersionNotFound', /chart "web" version ">=3" not found/);
  await fails(fetchFromRepository(req('0.9.0'), cache), 'DigestMismatch', /chart "web" version "0.9.0" .*downloaded archive has digest sha256:[0-9a-f]{64}, the repository index says sha256:0{64}/);
  assert.equal(await cache.has(sha256Digest(web100)), false, 'a mismatching archive must not enter the cache');
  await fails(fetchFromRepository(req('0.8.0'), cache), 'ChartNotFound', /lists .*missing-0.8.0.tgz but it answered 404/);
  await fails(fetchFromRepository({ ...req(''), repoURL: `${repo.url}/nothing-here` }, cache), 'Unreachable', /answered 404: not a valid chart repository/);
  await fails(fetchFromRepository({ ...req(''), repoURL: 'http://127.0.0.1:1/charts' }, cache), 'Unreachable', /cannot reach http:\/\/127\.0\.0\.1:1\/charts\/index.yaml: ECONNREFUSED/);
  await fails(fetchFromRepository(req('>>1'), cache), 'VersionNotFound', /not a valid version or constraint: improper constraint/);
});

test('a corrupt archive is rejected and never cached', async () => {
  const bad = Buffer.from('<html>proxy error</html>');
  const r = await startChartRepo({ '/index.yaml': `apiVersion: v1\nentries:\n  web:\n  - {name: web, version: 1.0.0, urls: [web.tgz]}\n`, '/web.tgz': bad });
  try {
    const cache = new ChartCache(join(dir, 'c5'));
    await assert.rejects(fetchFromRepository({ repoURL: r.url, chart: 'web', version: '' }, cache), (e: unknown) => isChartSourceError(e, 'BadChart') && /chart "web" version "1.0.0" from .* is not a gzip archive/.test(e.message));
    assert.equal(await cache.has(sha256Digest(bad)), false);
  } finally {
    await r.stop();
  }
});

test('HTTPS repositories: a CA bundle or insecureSkipTLSVerify from registryCredentialsConfig', async (t) => {
  const cert = selfSignedCert(dir);
  if (!cert) return t.skip('openssl not available to make a test certificate');
  const r = await startChartRepo({ '/index.yaml': `apiVersion: v1\nentries:\n  web:\n  - {name: web, version: 1.0.0, urls: [web-1.0.0.tgz]}\n`, '/web-1.0.0.tgz': web100 }, undefined, cert);
  try {
    const spec = { repositoryURL: r.url, repositoryName: 'myrepo', chartName: 'myrepo/web', chartVersion: '1.0.0' };
    await assert.rejects(fetchChart(spec, new ChartCache(join(dir, 'c6'))), (e: unknown) => isChartSourceError(e, 'Unreachable') && /self[- ]signed certificate/i.test(e.message));
    assert.equal((await fetchChart({ ...spec, ca: cert.cert }, new ChartCache(join(dir, 'c7')))).version, '1.0.0');
    assert.equal((await fetchChart({ ...spec, insecureSkipTLSVerify: true }, new ChartCache(join(dir, 'c8')))).version, '1.0.0');
  } finally {
    await r.stop();
  }
});

test('a fleet fanning out shares one index fetch and one download; indexMaxAgeMs skips revalidation', async () => {
  const archive = chartArchive('fan', '1.0.0');
  const r = await startChartRepo({ '/index.yaml': `apiVersion: v1\nentries:\n  fan:\n  - {name: fan, version: 1.0.0, urls: [fan.tgz], digest: '${sha256Hex(archive)}'}\n`, '/fan.tgz': archive });
  try {
    let clock = 1_000;
    const fetcher = new ChartFetcher(new ChartCache(join(dir, 'c9')), { indexMaxAgeMs: 60_000, now: () => clock });
    const spec = { repositoryURL: r.url, repositoryName: 'fan', chartName: 'fan/fan', chartVersion: '^1' };
    const all = await Promise.all(Array.from({ length: 50 }, () => fetcher.fetch(spec)));
    assert.ok(all.every((c) => c.digest === sha256Digest(archive)));
    assert.deepEqual(r.requests.map((q) => `${q.path} ${q.status}`), ['/index.yaml 200', '/fan.tgz 200']);
    await fetcher.fetch(spec); // within indexMaxAgeMs: no request at all
    assert.equal(r.requests.length, 2);
    clock += 60_000;
    assert.equal((await fetcher.fetch(spec)).cached, true); // stale: revalidated (304), archive still from the cache
    assert.deepEqual(r.requests.slice(2).map((q) => `${q.path} ${q.status}`), ['/index.yaml 304']);
  } finally {
    await r.stop();
  }
});
