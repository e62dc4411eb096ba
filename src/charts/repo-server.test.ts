// A directory served as a chart repository (what `ripple up --chart-repo DIR` needs), read back by our own
// repository client: the index is built like `helm repo index` and follows the directory.
import { strict as assert } from 'node:assert';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import { load } from 'js-yaml';
import { chartArchive } from '../../test/support/tgz.js';
import { buildRepoIndex, ChartCache, fetchChart, serveChartRepository, sha256Digest } from './index.js';

test('buildRepoIndex writes helm repo index’s layout', () => {
  const a = chartArchive('web', '1.0.0', 'appVersion: "2.1"\n');
  const { yaml, skipped } = buildRepoIndex(
    [
      { fileName: 'web-1.0.0.tgz', bytes: a, created: '2026-11-25T10:00:00Z' },
      { fileName: 'web-1.1.0.tgz', bytes: chartArchive('web', '1.1.0'), created: '2026-11-25T11:00:00Z' },
      { fileName: 'junk.tgz', bytes: Buffer.from('junk'), created: '2026-11-25T11:00:00Z' },
    ],
    '2026-11-25T12:00:00Z',
  );
  assert.deepEqual(skipped.length, 1);
  assert.match(skipped[0], /^junk\.tgz: junk\.tgz is not a gzip archive/);
  const doc = load(yaml) as { apiVersion: string; generated: string; entries: Record<string, Record<string, unknown>[]> };
  assert.equal(doc.apiVersion, 'v1');
  assert.deepEqual(doc.entries.web.map((e) => e.version), ['1.1.0', '1.0.0']);
  assert.deepEqual(doc.entries.web[1], {
    apiVersion: 'v2',
    appVersion: '2.1',
    created: '2026-11-25T10:00:00Z',
    description: 'web test chart',
    digest: sha256Digest(a).slice('sha256:'.length),
    name: 'web',
    type: 'application',
    urls: ['web-1.0.0.tgz'],
    version: '1.0.0',
  });
  assert.ok(yaml.indexOf('apiVersion: v1') < yaml.indexOf('entries:'), 'keys are sorted');
});

test('serveChartRepository publishes whatever archives the directory holds', async () => {
  const dir = await mkdtemp(join(tmpdir(), 'ripple-serve-'));
  const repo = await serveChartRepository(dir);
  try {
    await writeFile(join(dir, 'web-1.0.0.tgz'), chartArchive('web', '1.0.0'));
    const spec = { repositoryURL: repo.url, repositoryName: 'local', chartName: 'local/web', chartVersion: '' };
    const cache = new ChartCache(join(dir, 'cache'));
    assert.equal((await fetchChart(spec, cache)).version, '1.0.0');
    await writeFile(join(dir, 'web-1.1.0.tgz'), chartArchive('web', '1.1.0'));
    const next = await fetchChart(spec, cache);
    assert.deepEqual([next.version, next.cached], ['1.1.0', false]);
    assert.equal((await fetch(`${repo.url}/../etc/passwd`)).status, 404);
    assert.equal((await fetch(`${repo.url}/missing.tgz`)).status, 404);
  } finally {
    await repo.stop();
    await rm(dir, { recursive: true, force: true });
  }
});
