// The scale report page and plots are rendered from fleet bench results.
import { strict as assert } from 'node:assert';
import { test } from 'node:test';
import { fromBench, renderReport, svgPlot } from './scale-report.js';

const bench = {
  fleets: {
    clusters_10: { coldConvergeMs: 18000, coldConverge: { ms: 18000 }, singleEvent: { p50: 50.8, p99: 99, cpuMsPerEvent: 59.9 }, withdraw: { p50: 54.5, p99: 80 }, churn: { eventsPerSec: 26 }, load: { ratePerSec: 10, achievedPerSec: 10, p50: 49.6, p99: 76 }, memoryPeak: { rssMiB: 1600 }, memoryAfterConverge: { rssMiB: 900 }, quietCpuPct: 2.3 },
    clusters_30: { singleEvent: { p50: 15, cpuMsPerEvent: 30.1, apiServerCpuMsPerEvent: 12.25, mainThreadCpuMsPerEvent: 14 }, load: { ratePerSec: 100, achievedPerSec: 97, p50: 40, p99: 180 }, sustainedPerSec: 100, loadLadder: [] },
    clusters_100: { error: 'cold converge did not finish in 120 s (4100/10000 add-ons)', memoryPeak: { rssMiB: 2100 } },
  },
};

test('fromBench reads every fleet size of a bench result, errors included', () => {
  const runs = fromBench(bench, 100);
  assert.deepEqual(runs.map((r) => [r.clusters, r.services, r.coldConvergeMs, r.single?.p50, r.peakRssMiB, r.convergedRssMiB, r.error]), [
    [10, 100, 18000, 50.8, 1600, 900, undefined],
    [30, 100, undefined, 15, undefined, undefined, undefined],
    [100, 100, undefined, undefined, 2100, undefined, 'cold converge did not finish in 120 s (4100/10000 add-ons)'],
  ]);
});

test('the report has one table row per size, the method, the command and three plots', () => {
  const { markdown, plots } = renderReport({ runs: fromBench(bench, 100), machine: { cpus: 2, cpu: 'AMD EPYC', node: 'v20', date: '2026-11-27T00:00:00Z' }, command: 'npm run scale-report' });
  assert.match(markdown, /\| 10 × 100 \| 18\.0 s \| 50\.8 ms \/ 99\.0 ms \| 54\.5 ms \/ 80\.0 ms \| 26\/s \| 10\/s at p99 76 ms \| 900 MiB \/ 1600 MiB \| 59\.9 ms \| 2\.3 % \|/);
  assert.match(markdown, /\| 30 × 100 \|.*\| sustained 100\/s: 97\/s at p99 180 ms \|/, 'the highest sustained open-loop rate');
  assert.match(markdown, /\| 30 × 100 \|.* ms \(12\.3 \/ 14\.0\) \|/, 'CPU per event split by thread when the bench measured it');
  assert.match(markdown, /\| 100 × 100 \| — \| — \/ — \|.*error: cold converge did not finish/);
  assert.match(markdown, /`npm run scale-report`/);
  assert.deepEqual(Object.keys(plots).sort(), ['scale-converge.svg', 'scale-latency.svg', 'scale-memory.svg']);
  for (const name of Object.keys(plots)) assert.ok(markdown.includes(`](${name})`), name);
});

test('svgPlot draws each series with its points and a legend', () => {
  const svg = svgPlot('t <1>', 'x', 'y', [{ name: 'p50', points: [[1000, 50], [10000, 80]] }, { name: 'p99', points: [[1000, 99]] }]);
  assert.match(svg, /^<svg xmlns="http:\/\/www\.w3\.org\/2000\/svg"/);
  assert.equal((svg.match(/<circle /g) ?? []).length, 3);
  assert.equal((svg.match(/<polyline /g) ?? []).length, 1);
  assert.match(svg, />t &lt;1&gt;</);
  assert.match(svg, />p99</);
});
