// charts.ts: the charts a demo ships (Demo.charts, directories under src/demos/charts/), packaged like
// `ripple helm package` for the chart repository ripple up serves, so the helm demo needs no network.
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import type { ServedChart } from '../charts/index.js';
import { loadChartFiles, packageChart, type ChartFile } from '../helm/index.js';
import type { Demo } from './types.js';

// Our own chart directories: every file belongs to the chart (no .helmignore to honour), read in sorted order.
function readDir(dir: string, rel = ''): ChartFile[] {
  return readdirSync(join(dir, rel))
    .sort()
    .flatMap((name) => {
      const r = rel === '' ? name : `${rel}/${name}`;
      return statSync(join(dir, r)).isDirectory() ? readDir(dir, r) : [{ name: r, data: new Uint8Array(readFileSync(join(dir, r))) }];
    });
}

/** demoCharts packages the demo's charts, dated by each Chart.yaml (so digests stay the same while it runs). */
export function demoCharts(demo: Demo): ServedChart[] {
  return (demo.charts ?? []).map((dir) => {
    const p = packageChart(loadChartFiles(readDir(dir)), Math.floor(statSync(join(dir, 'Chart.yaml')).mtimeMs / 1000));
    return { filename: p.filename, bytes: p.bytes };
  });
}
