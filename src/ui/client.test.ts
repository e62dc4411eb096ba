// The browser code: it type-checks against the server's API types (its own tsconfig: DOM lib, Preact JSX) and
// bundles from node_modules alone; plus the pure helpers the server filters and plots with.
import { strict as assert } from 'node:assert';
import { spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { test } from 'node:test';
import { buildBundle, filterRows, parseQuery, quantile } from './index.js';

const root = join(import.meta.dirname, '..', '..');

test('the browser code type-checks with the API types (tsc -p src/ui/client)', { timeout: 300_000 }, () => {
  const tsc = join(root, 'node_modules', 'typescript', 'bin', 'tsc');
  const r = spawnSync(process.execPath, [tsc, '--noEmit', '-p', join(import.meta.dirname, 'client')], { encoding: 'utf8' });
  assert.equal(r.status, 0, `tsc reported errors:\n${r.stdout}${r.stderr}`);
});

test('the bundle is built from node_modules: one script, one stylesheet, no remote URL', async () => {
  const b = await buildBundle();
  assert.ok(b.js.length > 10_000 && b.css.length > 1000);
  assert.doesNotMatch(b.js, /\bimport\s*\(?\s*["']https?:/, 'no remote import');
  assert.doesNotMatch(b.css, /@import|url\(\s*["']?https?:/, 'no remote stylesheet or font');
  assert.match(b.html, /src="\/app\.js"/);
});

test('filter: labels, cluster:, kind:, name: and free text, all terms must match', () => {
  const rows: { n: string; labels: Record<string, string>; kind: string }[] = [
    { n: 'edge-1', labels: { env: 'prod', region: 'eu' }, kind: 'SveltosCluster' },
    { n: 'edge-2', labels: { env: 'dev' }, kind: 'SveltosCluster' },
    { n: 'capi-1', labels: { env: 'prod' }, kind: 'Cluster' },
  ];
  const s = (r: (typeof rows)[number]) => ({ names: [r.n], kinds: [r.kind], clusters: [r.n], labels: r.labels });
  const names = (q: string) => filterRows(rows, { q }, s).rows.map((r) => r.n);
  assert.deepEqual(names('env=prod'), ['edge-1', 'capi-1']);
  assert.deepEqual(names('env=prod kind:sveltos'), ['edge-1']);
  assert.deepEqual(names('EDGE'), ['edge-1', 'edge-2']);
  assert.deepEqual(names('cluster:capi'), ['capi-1']);
  assert.deepEqual(names('region=eu env=dev'), []);
  assert.deepEqual(names(''), ['edge-1', 'edge-2', 'capi-1']);
  const page = filterRows(rows, { q: 'env=prod', offset: 1, limit: 1 }, s);
  assert.deepEqual({ total: page.total, matched: page.matched, rows: page.rows.map((r) => r.n) }, { total: 3, matched: 2, rows: ['capi-1'] });
  assert.deepEqual(parseQuery(' name:web  a=b '), [
    { field: 'name', text: 'web' },
    { field: 'label', key: 'a', value: 'b' },
  ]);
});

test('quantile interpolates within the bucket like histogram_quantile', () => {
  const b = [
    { le: 0.01, count: 0 },
    { le: 0.1, count: 10 },
    { le: 1, count: 10 },
    { le: Infinity, count: 10 },
  ];
  assert.ok(Math.abs(quantile(0.5, b)! - 0.055) < 1e-12);
  assert.equal(quantile(1, b), 0.1);
  assert.equal(quantile(0.5, [{ le: Infinity, count: 0 }]), undefined);
});
