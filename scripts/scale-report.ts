// scale-report.ts: `npm run scale-report` runs the fleet bench (src/manager/fleet.bench.ts) for each size in
// RIPPLE_SCALE_SIZES (default "10x100,30x100,100x100,300x10,1000x10": clusters x Services per cluster) and writes
// docs/scale-report.md, its SVG plots and docs/scale.json (the raw bench results). Other RIPPLE_FLEET_BENCH_* knobs apply.
// Each size runs in its own process, so one fleet's memory is not counted in the next one's.
import { execFileSync } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import { cpus, loadavg } from 'node:os';
import { join } from 'node:path';
import { fromBench, renderReport, type FleetRun } from '../src/manager/scale-report.js';

const root = new URL('..', import.meta.url).pathname;
const spec = process.env.RIPPLE_SCALE_SIZES ?? '10x100,30x100,100x100,300x10,1000x10';
const sizes = spec.split(',').map((s) => {
  const m = /^\s*(\d+)\s*[x×]\s*(\d+)\s*$/.exec(s);
  if (!m) throw new Error(`RIPPLE_SCALE_SIZES=${spec}: want sizes like 10x100,1000x10`);
  return { clusters: Number(m[1]), services: Number(m[2]) };
});
const loadBefore = Math.round(loadavg()[0] * 100) / 100;
const runs: FleetRun[] = [];
const raw: Record<string, unknown> = {};
for (const { clusters, services } of sizes) {
  process.stderr.write(`scale-report: ${clusters} clusters × ${services} Services …\n`);
  const out = execFileSync(process.execPath, ['--import', 'tsx', join(root, 'scripts', 'bench.ts'), 'fleet'], {
    cwd: root,
    env: { RIPPLE_FLEET_BENCH_LOAD_RATE: '50,100,200,300', ...process.env, RIPPLE_FLEET_BENCH_CLUSTERS: String(clusters), RIPPLE_FLEET_BENCH_SERVICES: String(services) },
    stdio: ['ignore', 'pipe', 'inherit'],
    maxBuffer: 64 * 2 ** 20,
  }).toString('utf8');
  const result = (JSON.parse(out) as { fleet: unknown }).fleet;
  raw[`${clusters}x${services}`] = result;
  runs.push(...fromBench(result, services));
}
const { markdown, plots } = renderReport({
  runs,
  machine: { cpus: cpus().length, cpu: cpus()[0]?.model, node: process.version, date: new Date().toISOString(), loadAverageBefore: loadBefore },
  command: 'npm run scale-report',
});
const docs = join(root, 'docs');
mkdirSync(docs, { recursive: true });
writeFileSync(join(docs, 'scale-report.md'), markdown);
for (const [name, svg] of Object.entries(plots)) writeFileSync(join(docs, name), svg);
writeFileSync(join(docs, 'scale.json'), JSON.stringify(raw, null, 2) + '\n');
process.stderr.write(`scale-report: wrote docs/scale-report.md, ${Object.keys(plots).join(', ')} and docs/scale.json\n`);
