// helm.bench.ts: renders/s of testdata/helm/bench/webstack (30 templates: a parent, two subcharts and a library
// chart), loaded once and rendered from values to `helm template` text each time — what an event costs when a
// profile carries a Helm chart. The oracle's wall time per `helm template` of the same chart is measured in the
// same run when /work/tools/helm-oracle exists (it includes process start and chart loading, as a CLI run does).
import { spawnSync } from 'node:child_process';
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { formatTemplateOutput, loadChartFiles, mergeUserValues, renderChart, type ChartFile } from './index.js';

const root = resolve(import.meta.dirname, '..', '..');
const chartDir = join(root, 'testdata', 'helm', 'bench', 'webstack');
const ORACLE = process.env.HELM_ORACLE ?? '/work/tools/helm-oracle';

function readDir(dir: string, rel = '', out: ChartFile[] = []): ChartFile[] {
  for (const name of readdirSync(dir).sort()) {
    const p = join(dir, name);
    const n = rel === '' ? name : `${rel}/${name}`;
    if (statSync(p).isDirectory()) readDir(p, n, out);
    else out.push({ name: n, data: new Uint8Array(readFileSync(p)) });
  }
  return out;
}

/** bench measures renders/s (median of 3 runs) and the oracle's ms per render. */
export async function bench(): Promise<Record<string, unknown>> {
  const files = readDir(chartDir);
  const chart = loadChartFiles(files);
  const release = { name: 'bench', namespace: 'default', revision: 1, isInstall: true, isUpgrade: false };
  const render = (i: number) => formatTemplateOutput(renderChart(chart, { values: mergeUserValues([], [`replicaCount=${i % 5}`]), release }));
  for (let i = 0; i < 300; i++) render(i); // warm-up (parse and head caches, JIT)
  const runs: number[] = [];
  const n = 500;
  for (let r = 0; r < 3; r++) {
    const t0 = performance.now();
    for (let i = 0; i < n; i++) render(i);
    runs.push(Math.round(n / ((performance.now() - t0) / 1000)));
  }
  const rendersPerSec = [...runs].sort((a, b) => a - b)[1];
  const result: Record<string, unknown> = { chart: 'testdata/helm/bench/webstack', templates: chart.templates.length + chart.dependencies.reduce((s, d) => s + d.templates.length + d.dependencies.reduce((t, l) => t + l.templates.length, 0), 0), rendersPerSec, runs, target: 200 };
  if (existsSync(ORACLE)) {
    const ours = render(3);
    const times: number[] = [];
    let identical = true;
    for (let i = 0; i < 5; i++) {
      const t0 = performance.now();
      const r = spawnSync(ORACLE, ['-include-crds=false', '--set', 'replicaCount=3', 'bench', chartDir], { encoding: 'utf8' });
      times.push(performance.now() - t0);
      if (r.stdout !== ours) identical = false;
    }
    times.sort((a, b) => a - b);
    result.oracle = { msPerRender: Number(times[2].toFixed(1)), rendersPerSec: Math.round(1000 / times[2]), identicalOutput: identical, note: 'helm template as a process: start, load, render, print' };
  }
  return result;
}
