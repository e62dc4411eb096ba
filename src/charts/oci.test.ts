// OCI registries, for real: Debian's docker-registry (CNCF Distribution) on loopback, charts pushed with our client
// the way `helm push` lays them out, then pulled by version, constraint and latest; with htpasswd auth; and with a
// blob corrupted on the registry's disk to prove digests are checked.
import { strict as assert } from 'node:assert';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { registryMissing, startRegistry, type Registry } from '../../test/support/oci-registry.js';
import { chartArchive } from '../../test/support/tgz.js';
import {
  ChartCache,
  ChartFetcher,
  fetchChart,
  fetchFromOci,
  HELM_CHART_MEDIA_TYPE,
  HELM_CONFIG_MEDIA_TYPE,
  isChartSourceError,
  OciClient,
  pushChart,
  sha256Digest,
  type ChartSourceErrorCode,
} from './index.js';

const missing = registryMissing();
const CREATED = '2026-11-25T10:00:00Z';

async function fails(p: Promise<unknown>, code: ChartSourceErrorCode, re: RegExp): Promise<void> {
  await assert.rejects(p, (e: unknown) => {
    assert.ok(isChartSourceError(e), String(e));
    assert.equal(e.code, code, e.message);
    assert.match(e.message, re);
    return true;
  });
}

describe('OCI registry without auth', { skip: missing }, () => {
  let reg: Registry;
  let dir: string;
  const charts = {
    '0.1.0': chartArchive('web', '0.1.0'),
    '0.2.0': chartArchive('web', '0.2.0', 'home: https://example.com/web\nmaintainers:\n- {name: Ann, email: ann@example.com}\n'),
    '1.0.0-beta.1': chartArchive('web', '1.0.0-beta.1'),
    '0.2.1+build.7': chartArchive('web', '0.2.1+build.7'),
  };
  before(async () => {
    reg = await startRegistry();
    dir = await mkdtemp(join(tmpdir(), 'ripple-oci-'));
    for (const a of Object.values(charts)) await pushChart(a, `oci://${reg.host}/charts`, { plainHTTP: true, createdAt: CREATED });
  });
  after(async () => {
    await reg?.stop();
    if (dir) await rm(dir, { recursive: true, force: true });
  });

  test('push writes Helm’s manifest: config = Chart.yaml metadata JSON, one chart layer, OCI annotations', async () => {
    const client = new OciClient(reg.host, { plainHTTP: true });
    const { manifest, bytes } = await client.manifest('charts/web', '0.2.0', 'test');
    assert.equal(manifest.schemaVersion, 2);
    assert.equal(manifest.config.mediaType, HELM_CONFIG_MEDIA_TYPE);
    assert.deepEqual(manifest.layers.map((l) => [l.mediaType, l.digest, l.size]), [[HELM_CHART_MEDIA_TYPE, sha256Digest(charts['0.2.0']), charts['0.2.0'].length]]);
    assert.deepEqual(manifest.annotations, {
      'org.opencontainers.image.authors': 'Ann (ann@example.com)',
      'org.opencontainers.image.created': CREATED,
      'org.opencontainers.image.description': 'web test chart',
      'org.opencontainers.image.title': 'web',
      'org.opencontainers.image.url': 'https://example.com/web',
      'org.opencontainers.image.version': '0.2.0',
    });
    // Field order as oras-go v1 marshals ocispec.Manifest.
    assert.match(bytes.toString(), /^\{"schemaVersion":2,"config":\{"mediaType":"application\/vnd\.cncf\.helm\.config\.v1\+json","digest":"sha256:[0-9a-f]{64}","size":\d+\},"layers":\[/);
    const config = await client.blob('charts/web', manifest.config, 'test');
    assert.equal(config.toString(), '{"name":"web","home":"https://example.com/web","version":"0.2.0","description":"web test chart","maintainers":[{"name":"Ann","email":"ann@example.com"}],"apiVersion":"v2","type":"application"}');
    // Build metadata: `+` is stored as `_` in the tag.
    assert.ok((await client.tags('charts/web', 'test')).includes('0.2.1_build.7'));
  });

  test('pull by exact version, constraint and latest stable; the layer is downloaded once', async () => {
    const cache = new ChartCache(join(dir, 'c1'));
    const ref = `oci://${reg.host}/charts/web`;
    const exact = await fetchFromOci({ ref, version: '0.1.0', plainHTTP: true }, cache);
    assert.deepEqual([exact.version, exact.digest, exact.cached], ['0.1.0', sha256Digest(charts['0.1.0']), false]);
    assert.deepEqual(await readFile(exact.path), charts['0.1.0']);
    assert.equal((await fetchFromOci({ ref, version: '0.1.0', plainHTTP: true }, cache)).cached, true);
    assert.equal((await fetchFromOci({ ref, version: '~0.2.0', plainHTTP: true }, cache)).version, '0.2.1+build.7');
    assert.equal((await fetchFromOci({ ref, version: '', plainHTTP: true }, cache)).version, '0.2.1+build.7');
    assert.equal((await fetchFromOci({ ref, version: '>=1.0.0-0', plainHTTP: true }, cache)).version, '1.0.0-beta.1');
    assert.equal((await fetchFromOci({ ref, version: '0.2.1+build.7', plainHTTP: true }, cache)).version, '0.2.1+build.7');
    // Through the helmCharts-shaped entry point, as Sveltos names OCI charts.
    const viaSpec = await fetchChart({ repositoryURL: `oci://${reg.host}/charts`, repositoryName: 'oci', chartName: `oci://${reg.host}/charts/web`, chartVersion: '0.2.0', plainHTTP: true }, cache);
    assert.equal(viaSpec.digest, sha256Digest(charts['0.2.0']));
  });

  test('missing charts and versions, an unreachable registry', async () => {
    const cache = new ChartCache(join(dir, 'c2'));
    await fails(fetchFromOci({ ref: `oci://${reg.host}/charts/nope`, version: '1.0.0', plainHTTP: true }, cache), 'ChartNotFound', /chart oci:\/\/127\.0\.0\.1:\d+\/charts\/nope:1\.0\.0: registry .* has no such repository \(NAME_UNKNOWN/);
    await fails(fetchFromOci({ ref: `oci://${reg.host}/charts/nope`, version: '^1', plainHTTP: true }, cache), 'ChartNotFound', /has no such repository/);
    await fails(fetchFromOci({ ref: `oci://${reg.host}/charts/web`, version: '9.9.9', plainHTTP: true }, cache), 'VersionNotFound', /charts\/web:9\.9\.9: registry .* has no such tag \(MANIFEST_UNKNOWN.*\); available versions: 1\.0\.0-beta\.1, 0\.2\.1\+build\.7, 0\.2\.0, 0\.1\.0$/);
    await fails(fetchFromOci({ ref: `oci://${reg.host}/charts/web`, version: '>=5', plainHTTP: true }, cache), 'VersionNotFound', /could not locate a version matching provided version string >=5 \(tags: 1\.0\.0-beta\.1, 0\.2\.1\+build\.7, 0\.2\.0, 0\.1\.0\)/);
    await fails(fetchFromOci({ ref: 'oci://127.0.0.1:1/charts/web', version: '1.0.0', plainHTTP: true }, cache), 'Unreachable', /ECONNREFUSED/);
  });

  test('a blob corrupted in the registry’s storage is refused (DigestMismatch) and not cached', async () => {
    await pushChart(chartArchive('victim', '1.0.0'), `oci://${reg.host}/charts`, { plainHTTP: true, createdAt: CREATED });
    const digest = sha256Digest(chartArchive('victim', '1.0.0'));
    const hex = digest.slice('sha256:'.length);
    await writeFile(join(reg.dataDir, 'docker/registry/v2/blobs/sha256', hex.slice(0, 2), hex, 'data'), chartArchive('victim', '6.6.6'));
    const cache = new ChartCache(join(dir, 'c3'));
    await fails(fetchFromOci({ ref: `oci://${reg.host}/charts/victim`, version: '1.0.0', plainHTTP: true }, cache), 'DigestMismatch', new RegExp(`blob has digest sha256:[0-9a-f]{64}, the manifest says ${digest}`));
    assert.equal(await cache.has(digest), false);
  });
});

describe('OCI registry with htpasswd basic auth', { skip: missing }, () => {
  let reg: Registry;
  let dir: string;
  const creds = { username: 'ann', password: 'pa55word' };
  before(async () => {
    reg = await startRegistry(creds);
    dir = await mkdtemp(join(tmpdir(), 'ripple-oci-auth-'));
  });
  after(async () => {
    await reg?.stop();
    if (dir) await rm(dir, { recursive: true, force: true });
  });

  test('push and pull need the credentials; wrong or missing ones fail as AuthFailed', async () => {
    const archive = chartArchive('secure', '1.0.0');
    await fails(pushChart(archive, `oci://${reg.host}/p`, { plainHTTP: true, createdAt: CREATED }), 'AuthFailed', /registry 127\.0\.0\.1:\d+ requires credentials \(basic auth\) and none were given/);
    const pushed = await pushChart(archive, `oci://${reg.host}/p`, { plainHTTP: true, createdAt: CREATED, ...creds });
    assert.equal(pushed.ref, `${reg.host}/p/secure:1.0.0`);
    const cache = new ChartCache(join(dir, 'c'));
    await fails(fetchFromOci({ ref: `oci://${reg.host}/p/secure`, version: '1.0.0', plainHTTP: true, username: 'ann', password: 'nope' }, cache), 'AuthFailed', /rejected the credentials/);
    const got = await fetchChart({ repositoryURL: `oci://${reg.host}/p`, repositoryName: 'p', chartName: 'p/secure', chartVersion: '^1', plainHTTP: true, credentials: creds }, cache);
    assert.deepEqual([got.version, got.digest], ['1.0.0', sha256Digest(archive)]);
  });
});

describe('OCI registry with Bearer token auth', { skip: registryMissing('token') }, () => {
  let reg: Registry;
  let dir: string;
  const creds = { username: 'bot', password: 't0ken-pass' };
  before(async () => {
    reg = await startRegistry({ ...creds, mode: 'token' });
    dir = await mkdtemp(join(tmpdir(), 'ripple-oci-token-'));
  });
  after(async () => {
    await reg?.stop();
    if (dir) await rm(dir, { recursive: true, force: true });
  });

  test('the WWW-Authenticate Bearer flow: token from the realm for the scope, then push and pull', async () => {
    const archive = chartArchive('tok', '3.1.4');
    await fails(pushChart(archive, `oci://${reg.host}/t`, { plainHTTP: true, createdAt: CREATED }), 'AuthFailed', /token service http:\/\/127\.0\.0\.1:\d+ refused anonymous access/);
    await fails(pushChart(archive, `oci://${reg.host}/t`, { plainHTTP: true, createdAt: CREATED, username: 'bot', password: 'x' }), 'AuthFailed', /refused the credentials/);
    const pushed = await pushChart(archive, `oci://${reg.host}/t`, { plainHTTP: true, createdAt: CREATED, ...creds });
    assert.equal(pushed.chartDigest, sha256Digest(archive));
    const got = await fetchFromOci({ ref: `oci://${reg.host}/t/tok`, version: '>=3', plainHTTP: true, ...creds }, new ChartCache(join(dir, 'c')));
    assert.deepEqual([got.version, got.digest], ['3.1.4', sha256Digest(archive)]);
    // One token for the push scope and one for the pull scope: each client asks once per scope, not per request.
    assert.equal(reg.tokensIssued(), 2);
    // A ChartFetcher keeps its registry client: later pulls reuse the token.
    const fetcher = new ChartFetcher(new ChartCache(join(dir, 'f')));
    const spec = { repositoryURL: `oci://${reg.host}/t`, repositoryName: 't', chartName: 't/tok', plainHTTP: true, credentials: creds };
    await fetcher.fetch({ ...spec, chartVersion: '3.1.4' });
    await fetcher.fetch({ ...spec, chartVersion: '^3' });
    assert.equal(reg.tokensIssued(), 3);
  });
});
