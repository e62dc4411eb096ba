// scale-report.ts: turns fleet bench results (fleet.bench.ts) into docs/scale-report.md — a table of fleet size against
// converge time, event latency, throughput, memory and CPU — and SVG plots of latency and memory against fleet size.
// Pure: the caller runs the bench and writes the files (scripts/scale-report.ts, `npm run scale-report`).

/** FleetRun is what the report reads of one fleet bench result. */
export interface FleetRun {
  clusters: number;
  services: number;
  coldConvergeMs?: number;
  /** cpuMsPerEvent: the process; of it, the API server's thread and the main thread (when the bench could tell). */
  single?: { p50?: number; p99?: number; cpuMsPerEvent?: number; apiServerCpuMsPerEvent?: number; mainThreadCpuMsPerEvent?: number };
  withdraw?: { p50?: number; p99?: number };
  churnPerSec?: number;
  load?: { ratePerSec?: number; achievedPerSec?: number; p50?: number; p99?: number };
  /** The highest open-loop rate sustained (p99 ≤ 250 ms, nothing lost), when the bench tried several. */
  sustainedPerSec?: number;
  peakRssMiB?: number;
  /** RSS once the cold converge has settled (what the issue's memory targets are held against). */
  convergedRssMiB?: number;
  quietCpuPct?: number;
  error?: string;
}

type Rec = Record<string, unknown>;
const rec = (v: unknown): Rec => (v && typeof v === 'object' && !Array.isArray(v) ? (v as Rec) : {});
const num = (v: unknown): number | undefined => (typeof v === 'number' && Number.isFinite(v) ? v : undefined);

/** threadSplit is ` (API server / main)` of a run's CPU per event, when the bench measured it. */
function threadSplit(r: FleetRun): string {
  const a = r.single?.apiServerCpuMsPerEvent;
  const m = r.single?.mainThreadCpuMsPerEvent;
  return a === undefined || m === undefined ? '' : ` (${a.toFixed(1)} / ${m.toFixed(1)})`;
}

/** fromBench extracts the runs of a fleet bench result (`{ fleets: { clusters_N: … } }`). */
export function fromBench(result: unknown, services: number): FleetRun[] {
  const fleets = rec(rec(result).fleets);
  return Object.entries(fleets).map(([key, raw]) => {
    const r = rec(raw);
    const cold = rec(r.coldConverge);
    const single = rec(r.singleEvent);
    const withdraw = rec(r.withdraw ?? rec(r.newService).withdraw);
    const churn = rec(r.churn);
    const load = rec(r.load);
    return {
      clusters: Number(key.replace('clusters_', '')),
      services,
      coldConvergeMs: num(cold.ms) ?? num(cold.convergeMs) ?? num(cold.totalMs),
      single: {
        p50: num(single.p50),
        p99: num(single.p99),
        cpuMsPerEvent: num(single.cpuMsPerEvent),
        apiServerCpuMsPerEvent: num(single.apiServerCpuMsPerEvent),
        mainThreadCpuMsPerEvent: num(single.mainThreadCpuMsPerEvent),
      },
      withdraw: { p50: num(withdraw.p50), p99: num(withdraw.p99) },
      churnPerSec: num(churn.eventsPerSec) ?? num(churn.perSec),
      load: { ratePerSec: num(load.ratePerSec), achievedPerSec: num(load.achievedPerSec), p50: num(load.p50), p99: num(load.p99) },
      sustainedPerSec: num(r.sustainedPerSec),
      peakRssMiB: num(rec(r.memoryPeak).rssMiB),
      convergedRssMiB: num(rec(r.memoryAfterConverge).rssMiB),
      quietCpuPct: num(r.quietCpuPct),
      error: typeof r.error === 'string' ? r.error : undefined,
    };
  });
}

const fmt = (v: number | undefined, unit = '', digits = 0): string => (v === undefined ? '—' : `${v.toFixed(digits)}${unit}`);

/** Series is one line of a plot. */
export interface Series {
  name: string;
  points: [number, number][];
}

const COLORS = ['#1f77b4', '#d62728', '#2ca02c', '#9467bd'];

/** svgPlot draws series against a log-scaled x axis (fleet size), a linear y axis from 0. */
export function svgPlot(title: string, xLabel: string, yLabel: string, series: Series[]): string {
  const W = 560;
  const H = 320;
  const L = 64;
  const R = 16;
  const T = 36;
  const B = 48;
  const xs = series.flatMap((s) => s.points.map((p) => p[0]));
  const ys = series.flatMap((s) => s.points.map((p) => p[1]));
  const xMin = Math.min(...xs, 1);
  const xMax = Math.max(...xs, xMin * 10);
  const yMax = niceCeil(Math.max(...ys, 1));
  const lx = (x: number) => L + ((Math.log10(x) - Math.log10(xMin)) / Math.max(1e-9, Math.log10(xMax) - Math.log10(xMin))) * (W - L - R);
  const ly = (y: number) => H - B - (y / yMax) * (H - T - B);
  const out: string[] = [];
  out.push(`<svg xmlns="http://www.w3.org/2000/svg" width="${W}" height="${H}" viewBox="0 0 ${W} ${H}" font-family="sans-serif" font-size="12">`);
  out.push(`<rect width="${W}" height="${H}" fill="white"/>`);
  out.push(`<text x="${W / 2}" y="20" text-anchor="middle" font-size="14">${esc(title)}</text>`);
  out.push(`<line x1="${L}" y1="${H - B}" x2="${W - R}" y2="${H - B}" stroke="black"/>`);
  out.push(`<line x1="${L}" y1="${T}" x2="${L}" y2="${H - B}" stroke="black"/>`);
  for (const x of [...new Set(xs)].sort((a, b) => a - b)) {
    out.push(`<line x1="${lx(x).toFixed(1)}" y1="${H - B}" x2="${lx(x).toFixed(1)}" y2="${H - B + 4}" stroke="black"/>`);
    out.push(`<text x="${lx(x).toFixed(1)}" y="${H - B + 16}" text-anchor="middle">${x}</text>`);
  }
  for (let i = 0; i <= 4; i++) {
    const y = (yMax * i) / 4;
    out.push(`<line x1="${L - 4}" y1="${ly(y).toFixed(1)}" x2="${W - R}" y2="${ly(y).toFixed(1)}" stroke="${i === 0 ? 'black' : '#ddd'}"/>`);
    out.push(`<text x="${L - 8}" y="${(ly(y) + 4).toFixed(1)}" text-anchor="end">${Number(y.toPrecision(3))}</text>`);
  }
  out.push(`<text x="${(L + W - R) / 2}" y="${H - 10}" text-anchor="middle">${esc(xLabel)}</text>`);
  out.push(`<text x="14" y="${(T + H - B) / 2}" text-anchor="middle" transform="rotate(-90 14 ${(T + H - B) / 2})">${esc(yLabel)}</text>`);
  series.forEach((s, i) => {
    const color = COLORS[i % COLORS.length];
    const pts = [...s.points].sort((a, b) => a[0] - b[0]);
    if (pts.length > 1) out.push(`<polyline fill="none" stroke="${color}" stroke-width="2" points="${pts.map((p) => `${lx(p[0]).toFixed(1)},${ly(p[1]).toFixed(1)}`).join(' ')}"/>`);
    for (const p of pts) out.push(`<circle cx="${lx(p[0]).toFixed(1)}" cy="${ly(p[1]).toFixed(1)}" r="3" fill="${color}"/>`);
    out.push(`<rect x="${L + 12}" y="${T + 4 + i * 16}" width="10" height="10" fill="${color}"/><text x="${L + 28}" y="${T + 13 + i * 16}">${esc(s.name)}</text>`);
  });
  out.push('</svg>');
  return out.join('\n') + '\n';
}

function niceCeil(v: number): number {
  const p = 10 ** Math.floor(Math.log10(v));
  for (const m of [1, 2, 2.5, 5, 10]) if (m * p >= v) return m * p;
  return 10 * p;
}

function esc(s: string): string {
  return s.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');
}

const pointsOf = (runs: FleetRun[], f: (r: FleetRun) => number | undefined): [number, number][] =>
  runs.flatMap((r) => {
    const v = f(r);
    return v === undefined ? [] : [[r.clusters * r.services, v] as [number, number]];
  });

/** ReportInput is everything the page states besides the runs. */
export interface ReportInput {
  runs: FleetRun[];
  machine: { cpus: number; cpu?: string; node: string; date: string; loadAverageBefore?: number };
  command: string;
}

/** renderReport returns docs/scale-report.md and its plots (file name → SVG). */
export function renderReport(input: ReportInput): { markdown: string; plots: Record<string, string> } {
  const runs = [...input.runs].sort((a, b) => a.clusters * a.services - b.clusters * b.services);
  const plots: Record<string, string> = {
    'scale-latency.svg': svgPlot('Event → add-on latency (one event at a time)', 'managed resources (clusters × Services, log scale)', 'ms', [
      { name: 'p50', points: pointsOf(runs, (r) => r.single?.p50) },
      { name: 'p99', points: pointsOf(runs, (r) => r.single?.p99) },
      { name: 'withdraw p50', points: pointsOf(runs, (r) => r.withdraw?.p50) },
    ]),
    'scale-memory.svg': svgPlot('Memory of `ripple up`', 'managed resources (clusters × Services, log scale)', 'RSS MiB', [
      { name: 'peak RSS', points: pointsOf(runs, (r) => r.peakRssMiB) },
      { name: 'RSS after converge', points: pointsOf(runs, (r) => r.convergedRssMiB) },
    ]),
    'scale-converge.svg': svgPlot('Cold converge (every resource created at once)', 'managed resources (clusters × Services, log scale)', 'seconds', [
      { name: 'converge', points: pointsOf(runs, (r) => (r.coldConvergeMs === undefined ? undefined : r.coldConvergeMs / 1000)) },
    ]),
  };
  const rows = runs.map(
    (r) =>
      `| ${r.clusters} × ${r.services} | ${fmt(r.coldConvergeMs === undefined ? undefined : r.coldConvergeMs / 1000, ' s', 1)} | ${fmt(r.single?.p50, ' ms', 1)} / ${fmt(r.single?.p99, ' ms', 1)} | ${fmt(r.withdraw?.p50, ' ms', 1)} / ${fmt(r.withdraw?.p99, ' ms', 1)} | ${fmt(r.churnPerSec, '/s')} | ${r.sustainedPerSec !== undefined ? `sustained ${fmt(r.sustainedPerSec, '/s')}: ` : ''}${fmt(r.load?.achievedPerSec, '/s')} at p99 ${fmt(r.load?.p99, ' ms')} | ${fmt(r.convergedRssMiB, ' MiB')} / ${fmt(r.peakRssMiB, ' MiB')} | ${fmt(r.single?.cpuMsPerEvent, ' ms', 1)}${threadSplit(r)} | ${fmt(r.quietCpuPct, ' %', 1)} |${r.error ? ` error: ${r.error.replace(/\|/g, '/')}` : ''}`,
  );
  const m = input.machine;
  const markdown = `# Fleet scale report

How Ripple behaves as the fleet grows, measured on one machine with \`ripple up\`'s own stack (embedded API server
with virtual clusters on a worker thread of its own and the whole control plane on the main thread, in one process;
SQLite durability \`process\`).

Regenerate it with one command: \`${input.command}\` (it runs the fleet bench for each size and rewrites this page and
its plots; sizes: \`RIPPLE_SCALE_SIZES\`, e.g. \`10x100,100x100,1000x10\`).

## Method

For each size, N managed clusters each get S Services labelled \`bench=yes\`. One EventSource selects them
(\`collectResources\`), one EventTrigger (\`oneForEvent\`) instantiates a ConfigMap add-on per Service from the event
data and deploys it into the Service's cluster. Every latency is taken from just before the write to the watch event
that shows the add-on in the managed cluster, the way a user observes it. The bench runs compiled, as \`dist/\` is
(what \`ripple up\` runs), not through tsx. Details: \`src/manager/fleet.bench.ts\`.

- **Converge**: every Service created at once → every add-on observed.
- **Event p50/p99**: one event at a time (a Service's port changes → the add-on carries the new port).
- **Withdraw**: a Service deleted → its add-on gone.
- **Churn**: 16 closed-loop workers; **open loop**: events issued at a fixed rate whatever the latency, at each rate
  of \`RIPPLE_FLEET_BENCH_LOAD_RATE\` in turn (the report's default: 50, 100, 200, 300 per second, 5 s each) until one is
  not sustained; \`sustained\` is the highest rate with p99 ≤ 250 ms, nothing lost and ≥ 90 % of it achieved.
- **CPU/event**: process CPU time per event, one at a time, and in brackets the API server's thread / the main thread
  (control plane and the bench's clients); the rest is V8's garbage-collection helper threads. **Quiet CPU**: share of
  a core while nothing happens.

Machine: ${m.cpus} × ${m.cpu ?? 'CPU'}, Node ${m.node}, ${m.date}${m.loadAverageBefore !== undefined ? `, 1-minute load average before the run ${m.loadAverageBefore}` : ''}.
The bench's clients share the process and its cores with what they measure: these are end-to-end numbers.

## Results

| clusters × Services | converge | event p50 / p99 | withdraw p50 / p99 | churn | open loop | RSS after converge / peak | CPU/event | quiet CPU |
|---|---|---|---|---|---|---|---|---|
${rows.join('\n')}

![Event latency against fleet size](scale-latency.svg)

![Memory against fleet size](scale-memory.svg)

![Cold converge time against fleet size](scale-converge.svg)

## Targets

From issue 22: one event p50 ≤ 20 ms and p99 ≤ 60 ms; ≥ 300 events/s across 100 clusters with p99 ≤ 250 ms;
100 × 100 converge ≤ 60 s in ≤ 1 GiB; 1,000 × 10 ≤ 120 s in ≤ 1.5 GiB. Sveltos, by design, takes 0–13 s per
event (agent evaluation every 3 s, report collection every 10 s).
`;
  return { markdown, plots };
}
