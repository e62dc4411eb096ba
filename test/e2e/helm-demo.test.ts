// End to end, `ripple up --demo helm`: offline, the demo's chart served by ripple up's own chart repository. With
// --once the verdict is the exit code and the report lists every step's outcomes with latencies; then, exploring on
// the same data directory with --chart-repo DIR as well, kubectl sees the release Helm 3's way (decoded with our
// reader of Helm's storage format), the user's directory charts are in the same index, and deleting the Service
// uninstalls the release.
import { strict as assert } from 'node:assert';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import { parse } from 'yaml';
import { releaseFromSecret } from '../../src/helm/index.js';
import { kubectlFor, startRippleUp, tempDataDir, until } from './ripple-up.js';

let data: ReturnType<typeof tempDataDir>;
let firstURL = '';
before(() => {
  data = tempDataDir();
});
after(() => data.remove());

test('ripple up --demo helm --once installs the chart on the event and uninstalls it when the Service goes', { timeout: 180_000 }, async () => {
  const run = startRippleUp(data.dir, ['--demo', 'helm', '--once']);
  assert.deepEqual(await run.exited, { code: 0, signal: null }, run.stdout() + run.stderr());
  const out = run.stdout();
  firstURL = out.match(/chart repo {3}(http:\/\/127\.0\.0\.1:\d+) \(the demo’s charts/)?.[1] ?? '';
  assert.ok(firstURL, out);
  assert.match(out, /demo helm: PASSED — 2 step\(s\), 10 outcome\(s\) checked in /);
  assert.match(out, /✓ step 1: create Service default\/web \(label app: web\) in cluster-a — 5 outcome\(s\), the last after \d+(\.\d+)? m?s/);
  assert.match(out, /✓\s+\d+(\.\d+)? m?s\s+release web v1 recorded in cluster-a as Helm 3 does/);
  assert.match(out, /✓\s+\d+(\.\d+)? m?s\s+the chart’s ConfigMap web\/web-config deployed with the values rendered for cluster-a/);
  assert.match(out, /✓ step 2: delete Service default\/web in cluster-a — 5 outcome\(s\)/);
  assert.match(out, /✓\s+\d+(\.\d+)? m?s\s+release web uninstalled: its Secret removed from cluster-a/);
});

test('exploring with --chart-repo DIR: one repository, the release readable as Helm’s, withdrawn with kubectl', { timeout: 180_000 }, async () => {
  const charts = join(data.dir, 'my-charts');
  mkdirSync(join(charts, 'hello', 'templates'), { recursive: true });
  writeFileSync(join(charts, 'hello', 'Chart.yaml'), 'apiVersion: v2\nname: hello\nversion: 1.2.3\n');
  writeFileSync(join(charts, 'hello', 'templates', 'cm.yaml'), 'apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: hello\n');
  const up = startRippleUp(data.dir, ['--demo', 'helm', '--chart-repo', charts]);
  try {
    const [, url] = await up.waitFor(/chart repo {3}(http:\/\/127\.0\.0\.1:\d+) \(my-charts \+ the demo’s charts/, { timeoutMs: 60_000 });
    assert.equal(url, firstURL, 'a resumed run serves the repository on the same port (the URL helmCharts name)');
    await up.waitFor(/Ripple is running/, { timeoutMs: 90_000 });
    assert.match(up.stdout(), new RegExp(`curl -s ${url}/index.yaml`), 'the explore commands name the repository');

    const index = parse(await (await fetch(`${url}/index.yaml`)).text()) as { entries: Record<string, { version: string; digest: string; urls: string[] }[]> };
    assert.deepEqual(Object.keys(index.entries).sort(), ['hello', 'webapp']);
    assert.equal(index.entries.hello[0].version, '1.2.3');
    assert.match(index.entries.webapp[0].digest, /^[0-9a-f]{64}$/);
    assert.equal((await fetch(`${url}/${index.entries.hello[0].urls[0]}`)).status, 200);

    // Step 1 ran (explore): the release is installed; read it through kubectl as Helm's storage driver would.
    const k = kubectlFor(up.kubeconfig, data.dir);
    const secret = await until('release Secret', () => k.run(['--context', 'cluster-a', '-n', 'web', 'get', 'secret', 'sh.helm.release.v1.web.v1', '-o', 'json']), (r) => r.code === 0, 30_000);
    const rel = releaseFromSecret(JSON.parse(secret.stdout) as Parameters<typeof releaseFromSecret>[0]);
    assert.equal(rel.info?.status, 'deployed');
    assert.equal(rel.chart?.metadata?.name, 'webapp');
    assert.deepEqual(rel.config, { message: 'deployed by Ripple to cluster-a' });
    const et = await k.json<{ spec: { helmCharts: { repositoryURL: string }[] } }>(['--context', 'mgmt', 'get', 'eventtrigger', 'webapp-on-demand']);
    assert.equal(et.spec.helmCharts[0].repositoryURL, url, 'the EventTrigger names this run’s repository');

    await k.ok(['--context', 'cluster-a', '-n', 'default', 'delete', 'service', 'web']);
    await until('release uninstalled', () => k.run(['--context', 'cluster-a', '-n', 'web', 'get', 'secrets,configmaps,services', '-o', 'name']), (r) => r.code === 0 && !/sh\.helm\.release|web-config|web-webapp/.test(r.stdout), 30_000);
  } finally {
    assert.deepEqual(await up.stop('SIGTERM'), { code: 0, signal: null });
  }
});
