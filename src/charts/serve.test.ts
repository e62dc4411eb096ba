// The loopback chart repository, checked with Ripple's own repository client (index parsing, version choice, digest
// verification): a .tgz and a chart directory (packaged by the caller's packager) in one directory, a chart added
// while it runs, a corrupt archive left out with a warning.
import { strict as assert } from 'node:assert';
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import { parse } from 'yaml';
import { loadChartFiles, packageChart } from '../helm/index.js';
import { ChartCache, chartsInDir, fetchFromRepository, readChartYaml, serveChartRepo, type ChartRepoServer, type ServedChart } from './index.js';

const enc = (s: string) => new TextEncoder().encode(s);
const chartYaml = (name: string, version: string) => `apiVersion: v2\nname: ${name}\nversion: ${version}\nappVersion: "1.0"\ndescription: test chart\n`;

function packaged(name: string, version: string): ServedChart {
  const p = packageChart(loadChartFiles([{ name: 'Chart.yaml', data: enc(chartYaml(name, version)) }, { name: 'values.yaml', data: enc('a: 1\n') }]), 1_700_000_000);
  return { filename: p.filename, bytes: p.bytes };
}

// The directory packager the CLI injects, reduced to the flat files this test writes.
function packageDir(dir: string): ServedChart {
  const files = readdirSync(dir).sort().map((name) => ({ name, data: new Uint8Array(readFileSync(join(dir, name))) }));
  const p = packageChart(loadChartFiles(files), 1_700_000_000);
  return { filename: p.filename, bytes: p.bytes };
}

let dir: string;
let repo: ChartRepoServer;
const warnings: string[] = [];

before(async () => {
  dir = mkdtempSync(join(tmpdir(), 'ripple-serve-'));
  const web = packaged('web', '1.0.0');
  writeFileSync(join(dir, web.filename), web.bytes);
  mkdirSync(join(dir, 'api'));
  writeFileSync(join(dir, 'api', 'Chart.yaml'), chartYaml('api', '0.3.0'));
  writeFileSync(join(dir, 'api', 'values.yaml'), 'a: 1\n');
  writeFileSync(join(dir, 'notes.txt'), 'not a chart');
  mkdirSync(join(dir, 'empty'));
  repo = await serveChartRepo({ list: () => chartsInDir(dir, packageDir, (m) => warnings.push(m)), warn: (m) => warnings.push(m), now: () => new Date('2026-01-02T03:04:05Z') });
});

after(async () => {
  await repo?.stop();
  rmSync(dir, { recursive: true, force: true });
});

test('index.yaml lists the archives and the packaged chart directories with digests, newest first', async () => {
  const res = await fetch(`${repo.url}/index.yaml`);
  assert.equal(res.status, 200);
  const index = parse(await res.text()) as { apiVersion: string; entries: Record<string, { name: string; version: string; digest: string; urls: string[]; created: string; description?: string }[]> };
  assert.equal(index.apiVersion, 'v1');
  assert.deepEqual(Object.keys(index.entries), ['api', 'web']);
  const [web] = index.entries.web;
  assert.equal(web.version, '1.0.0');
  assert.deepEqual(web.urls, ['web-1.0.0.tgz']);
  assert.equal(web.created, '2026-01-02T03:04:05.000Z');
  assert.equal(web.description, 'test chart');
  assert.match(web.digest, /^[0-9a-f]{64}$/);
  assert.equal(index.entries.api[0].version, '0.3.0');

  writeFileSync(join(dir, 'web-1.1.0.tgz'), packaged('web', '1.1.0').bytes);
  const again = parse(await (await fetch(`${repo.url}/index.yaml`)).text()) as { entries: Record<string, { version: string }[]> };
  assert.deepEqual(again.entries.web.map((e) => e.version), ['1.1.0', '1.0.0'], 'a chart added while serving appears, newest first');
});

test('Ripple’s repository client fetches both charts with digest verification', async () => {
  const cacheDir = mkdtempSync(join(tmpdir(), 'ripple-serve-cache-'));
  try {
    const cache = new ChartCache(cacheDir);
    const api = await fetchFromRepository({ repoURL: repo.url, chart: 'api', version: '0.3.x' }, cache);
    assert.equal(api.version, '0.3.0');
    assert.equal(readChartYaml(readFileSync(api.path), 'api').name, 'api');
    const web = await fetchFromRepository({ repoURL: repo.url, chart: 'web', version: '1.0.0' }, cache);
    assert.equal(web.version, '1.0.0');
  } finally {
    rmSync(cacheDir, { recursive: true, force: true });
  }
});

test('a corrupt archive is left out with a warning; unknown paths are 404', async () => {
  writeFileSync(join(dir, 'broken-0.1.0.tgz'), 'not gzip');
  const index = parse(await (await fetch(`${repo.url}/index.yaml`)).text()) as { entries: Record<string, unknown> };
  assert.equal(index.entries.broken, undefined);
  assert.ok(warnings.some((w) => w.includes('broken-0.1.0.tgz')), warnings.join('\n'));
  assert.equal((await fetch(`${repo.url}/nope-1.0.0.tgz`)).status, 404);
});
