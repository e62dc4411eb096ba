// fleet.bench.ts: event → add-on applied, end to end, on exactly what `ripple up` runs (embedded API server with
// virtual clusters + the whole control plane in one process, SQLite durability 'process'), for fleets of
// RIPPLE_FLEET_BENCH_CLUSTERS (default "10,100") managed clusters × RIPPLE_FLEET_BENCH_SERVICES (default 100)
// matching Services each. One EventSource selects Services labelled bench=yes (collectResources), one EventTrigger
// (oneForEvent) instantiates a ConfigMap add-on per Service from the event data and deploys it back into the
// Service's cluster — a Service event travels agent → EventReport → event manager → ClusterProfile + instantiated
// ConfigMap → add-on deployer → managed cluster.
//
// Measured per fleet size: cold converge (every Service created at once → every add-on observed in its cluster),
// RSS/heap after it and at peak; single events one at a time (a Service's port changes → the watch on its cluster
// delivers the add-on with the new port), split by stage; a new Service → its add-on created, and its deletion →
// the add-on withdrawn; closed-loop churn (C workers, each changing a random Service and waiting for its add-on) and
// open-loop load (events at a fixed rate) with p50/p99 under load. Every latency is taken from just before the write
// to the watch event in the managed cluster (informers of the bench's own, one per cluster). Everything — the API
// server, the control plane and the bench's clients — shares the process and its cores, so these are end-to-end
// numbers. Targets (issue 22): one event p50 ≤ 20 ms, p99 ≤ 60 ms; open loop ≥ 300 events/s with p99 ≤ 250 ms
// (RIPPLE_FLEET_BENCH_LOAD_RATE="100,200,300" tries rates in turn; `sustainedPerSec` is the highest sustained). Anchor: Sveltos by design — the agent
// evaluates every 3 s and the event manager collects reports every 10 s, so an event waits 0–13 s.
//
// Diagnostics: the process' CPU per event (one at a time) and while quiet, work-queue depths when the last add-on
// lands and the reconciles until the control plane settles, by controller; reconciles per event and, of those, the
// ones that sent no write (noopReconcilesPerEvent; RIPPLE_FLEET_BENCH_COUNT_NOOPS=0 turns that accounting off); stored
// objects the API server parsed again per event (apiServerReparsesPerEvent: their parsed form had left its cache). RIPPLE_FLEET_BENCH_CPU_PROFILE=DIR writes
// a CPU profile per phase (cold, quiet, single, churn) and adds its hot spots to the result (with
// RIPPLE_FLEET_BENCH_PROFILE=alloc, allocation profiles: bytes allocated by function, collected ones included). Every wait is capped
// (RIPPLE_FLEET_BENCH_COLD_TIMEOUT_S, _EVENT_TIMEOUT_S, _SETTLE_TIMEOUT_S): a fleet that does not converge in time
// reports `error` and what it reached instead of hanging. Other knobs: _SAMPLES, _WITHDRAW_SAMPLES, _CHURN_WORKERS,
// _CHURN_EVENTS, _CHURN_SECONDS, _LOAD_RATE, _LOAD_SECONDS. Memory is sampled for the process (RSS), the control
// plane's heap and the API server thread's heap; RIPPLE_FLEET_BENCH_HEAP_SNAPSHOT=DIR writes heap snapshots of both
// threads once the cold converge has settled. `npm run bench` runs this bench compiled, as dist/ is (RIPPLE_BENCH_FROM=sources
// runs it through tsx, for profiles naming src/ files; config.code says which).
import { enableWriteAccounting, errorMessage, type KubeClient } from '../kube/index.js';
import { threadCpuMs, type RequestCounts } from '../apiserver/index.js';
import { SVELTOS_NAMESPACE } from './bootstrap.js';
import { loadavg } from 'node:os';
import { apiServerThread, writeHeapSnapshots, MemorySampler, PhaseProfiler, StageProbes, scenarioObjects, serviceObject, startFleet, BENCH_NS, type Fleet, type Observed } from './fleet-harness.js';

/** Issue 22's targets: one event at a time p50 ≤ 20 ms and p99 ≤ 60 ms; ≥ 300 events/s sustained (open loop) with p99 ≤ 250 ms. */
const TARGET = { p50: 20, p99: 60, loadPerSec: 300, loadP99: 250 } as const;
const ANCHOR = {
  sveltos: 'agent 3 s batches + 10 s collection: 0–13 s per event',
  agentBatchS: 3,
  collectionS: 10,
  perEventS: [0, 13],
} as const;
const FIELD_MANAGER = 'fleet-bench';

function envInt(name: string, dflt: number): number {
  const v = process.env[name];
  if (v === undefined || v === '') return dflt;
  const n = Number(v);
  if (!Number.isInteger(n) || n < 0) throw new Error(`${name}=${v}: want a non-negative integer`);
  return n;
}

const CONFIG = () => ({
  sizes: (process.env.RIPPLE_FLEET_BENCH_CLUSTERS ?? '10,100').split(',').map((s) => {
    const n = Number(s.trim());
    if (!Number.isInteger(n) || n < 1) throw new Error(`RIPPLE_FLEET_BENCH_CLUSTERS=${process.env.RIPPLE_FLEET_BENCH_CLUSTERS}: want cluster counts like "10,100"`);
    return n;
  }),
  services: Math.max(1, envInt('RIPPLE_FLEET_BENCH_SERVICES', 100)),
  samples: envInt('RIPPLE_FLEET_BENCH_SAMPLES', 200),
  withdrawSamples: envInt('RIPPLE_FLEET_BENCH_WITHDRAW_SAMPLES', 30),
  churnWorkers: Math.max(1, envInt('RIPPLE_FLEET_BENCH_CHURN_WORKERS', 16)),
  churnEvents: envInt('RIPPLE_FLEET_BENCH_CHURN_EVENTS', 2000),
  churnSeconds: envInt('RIPPLE_FLEET_BENCH_CHURN_SECONDS', 15),
  // Write accounting (noopReconcilesPerEvent) costs a little CPU per promise: 0 turns it off for CPU comparisons.
  countNoops: envInt('RIPPLE_FLEET_BENCH_COUNT_NOOPS', 1) !== 0,
  /** Open-loop rates, tried in increasing order until one is not sustained (e.g. "50,100,200,300"). */
  loadRates: (process.env.RIPPLE_FLEET_BENCH_LOAD_RATE || '10')
    .split(',')
    .map((s) => {
      const n = Number(s.trim());
      if (!Number.isInteger(n) || n < 1) throw new Error(`RIPPLE_FLEET_BENCH_LOAD_RATE=${process.env.RIPPLE_FLEET_BENCH_LOAD_RATE}: want events per second like "50,100,300"`);
      return n;
    })
    .sort((a, b) => a - b),
  loadSeconds: envInt('RIPPLE_FLEET_BENCH_LOAD_SECONDS', 5),
  coldTimeoutMs: envInt('RIPPLE_FLEET_BENCH_COLD_TIMEOUT_S', 120) * 1000,
  eventTimeoutMs: envInt('RIPPLE_FLEET_BENCH_EVENT_TIMEOUT_S', 10) * 1000,
  /** How long the control plane may keep reconciling after the cold converge before events are measured anyway. */
  settleTimeoutMs: envInt('RIPPLE_FLEET_BENCH_SETTLE_TIMEOUT_S', 120) * 1000,
  /** A directory: write one CPU profile per phase there and list the hot spots in the result. */
  profileDir: process.env.RIPPLE_FLEET_BENCH_CPU_PROFILE || undefined,
  /** RIPPLE_FLEET_BENCH_PROFILE=alloc: allocation profiles (.heapprofile, bytes allocated by function) instead. */
  profileKind: profileKind(process.env.RIPPLE_FLEET_BENCH_PROFILE),
  /** A directory: write heap snapshots of both threads there once the cold converge has settled. */
  heapSnapshotDir: process.env.RIPPLE_FLEET_BENCH_HEAP_SNAPSHOT || undefined,
});
type Config = ReturnType<typeof CONFIG>;

function profileKind(v: string | undefined): 'cpu' | 'alloc' {
  if (v === undefined || v === '' || v === 'cpu') return 'cpu';
  if (v === 'alloc') return 'alloc';
  throw new Error(`RIPPLE_FLEET_BENCH_PROFILE=${v}: want cpu or alloc`);
}

const log = (msg: string) => process.stderr.write(`  fleet: ${msg}\n`);
const ms = (x: number) => Math.round(x * 10) / 10;

/** Percentiles by nearest rank over the samples (undefined fields when there are none). */
function stats(xs: number[]): { samples: number; p50?: number; p90?: number; p99?: number; max?: number } {
  if (xs.length === 0) return { samples: 0 };
  const s = [...xs].sort((a, b) => a - b);
  const q = (p: number) => ms(s[Math.min(s.length - 1, Math.max(0, Math.ceil(p * s.length) - 1))]);
  return { samples: s.length, p50: q(0.5), p90: q(0.9), p99: q(0.99), max: ms(s[s.length - 1]) };
}

// mulberry32: a small seeded PRNG, so every run picks the same (cluster, service) sequence.
function prng(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

async function pool<T>(items: readonly T[], n: number, f: (x: T) => Promise<void>): Promise<void> {
  let i = 0;
  await Promise.all(
    Array.from({ length: Math.min(n, items.length) }, async () => {
      while (i < items.length) await f(items[i++]);
    }),
  );
}

/** cpuMs is the process' CPU time (user + system, all threads) since an earlier process.cpuUsage(), in ms. */
const cpuMs = (since: NodeJS.CpuUsage) => {
  const d = process.cpuUsage(since);
  return (d.user + d.system) / 1000;
};

const sleep = (t: number) => new Promise<void>((r) => setTimeout(r, t));

const serviceName = (i: number) => `svc-${String(i).padStart(3, '0')}`;

/** Churn drives port changes: each picks a Service not already changing and a port it does not carry. */
class Churn {
  private readonly rand = prng(0x5eed);
  private readonly busy = new Set<string>();
  private waiting: (() => void)[] = [];
  private readonly ports = new Map<string, number>();
  private next = 20_000;

  constructor(
    private readonly f: Fleet,
    private readonly services: number,
  ) {}

  /**
   * pick chooses a Service no event is in flight for; when every Service of the fleet has one in flight (more workers
   * or a higher rate than a small fleet has Services), it waits for one to finish instead of spinning. The Service is
   * reserved until change() for it ends.
   */
  async pick(): Promise<{ cluster: string; service: string }> {
    while (this.busy.size >= this.f.clusters.length * this.services) await new Promise<void>((r) => this.waiting.push(r));
    for (;;) {
      const cluster = this.f.clusters[Math.floor(this.rand() * this.f.clusters.length)];
      const service = serviceName(Math.floor(this.rand() * this.services));
      // Reserved at once: another worker picks while this one has not called change() yet.
      const key = `${cluster}/${service}`;
      if (!this.busy.has(key)) {
        this.busy.add(key);
        return { cluster, service };
      }
    }
  }

  /** change sets a new port on one Service; resolves with the write's start/end and when its add-on carried it. */
  async change(cluster: string, service: string, timeoutMs: number): Promise<{ start: number; written: number; seen: Observed }> {
    const key = `${cluster}/${service}`;
    this.busy.add(key);
    try {
      let port = this.next++;
      if (this.next > 60_000) this.next = 20_000;
      if (port === this.ports.get(key)) port = this.next++;
      this.ports.set(key, port);
      const want = String(port);
      const seen = this.f.addons.until(cluster, service, (p) => p === want, timeoutMs);
      const start = performance.now();
      await this.f.client(cluster).patch({ apiVersion: 'v1', kind: 'Service', namespace: BENCH_NS, name: service }, 'merge', {
        spec: { ports: [{ name: 'http', port, protocol: 'TCP' }] },
      });
      const written = performance.now();
      return { start, written, seen: await seen };
    } finally {
      this.busy.delete(key);
      this.waiting.shift()?.();
    }
  }
}

/** LoadStep is one open-loop rate's outcome. */
interface LoadStep {
  ratePerSec: number;
  events: number;
  achievedPerSec: number;
  p50?: number;
  p90?: number;
  p99?: number;
  max?: number;
  timedOut: number;
  /** sustained: ≥ 90 % of the rate achieved, nothing timed out, p99 within the target. */
  sustained: boolean;
}

/** openLoop issues events at a fixed rate for `seconds`, whatever their latency, and waits for all of them. */
async function openLoop(churn: Churn, rate: number, seconds: number, timeoutMs: number): Promise<LoadStep> {
  const lat: number[] = [];
  let timedOut = 0;
  const pending: Promise<void>[] = [];
  const total = Math.max(1, Math.round(rate * seconds));
  const l0 = performance.now();
  for (let k = 0; k < total; k++) {
    const due = l0 + (k * 1000) / rate;
    const wait = due - performance.now();
    if (wait > 0) await sleep(wait);
    const { cluster, service } = await churn.pick();
    pending.push(
      churn.change(cluster, service, timeoutMs).then((r) => {
        if (r.seen === undefined) timedOut++;
        else lat.push(r.seen - r.start);
      }),
    );
  }
  await Promise.all(pending);
  // Achieved: events that arrived per second from the first write to the last arrival (a backlog lowers it).
  const issuedS = Math.max(1e-3, (performance.now() - l0) / 1000);
  const st = stats(lat);
  const achievedPerSec = Math.round(lat.length / issuedS);
  const sustained = timedOut === 0 && achievedPerSec >= 0.9 * rate && st.p99 !== undefined && st.p99 <= TARGET.loadP99;
  return { ratePerSec: rate, events: lat.length, achievedPerSec, p50: st.p50, p90: st.p90, p99: st.p99, max: st.max, timedOut, sustained };
}

/** requestsPerEvent splits the API requests made between two counts into management and managed clusters, per event. */
function requestsPerEvent(a: RequestCounts, b: RequestCounts, managed: readonly string[], events: number): { management: number; managed: number } {
  const m = new Set(managed);
  let toManaged = 0;
  for (const [c, n] of Object.entries(b.byCluster)) if (m.has(c)) toManaged += n - (a.byCluster[c] ?? 0);
  const all = b.total - a.total;
  const per = (x: number) => Math.round((x / Math.max(1, events)) * 100) / 100;
  return { management: per(all - toManaged), managed: per(toManaged) };
}

/** metricBy sums a metric's values by the given labels (e.g. reconciles by controller and result). */
async function metricBy(f: Fleet, name: string, labels: string[]): Promise<Record<string, number>> {
  const m = f.embedded.manager.metrics.getSingleMetric(name);
  const out: Record<string, number> = {};
  if (!m) return out;
  for (const v of (await m.get()).values) {
    if (v.value === 0) continue;
    const k = labels.map((l) => String(v.labels[l] ?? '')).join('/');
    out[k] = (out[k] ?? 0) + v.value;
  }
  return out;
}

/** perEvent divides counts by a number of events (two decimals). */
function perEvent(counts: Record<string, number>, events: number): Record<string, number> {
  return Object.fromEntries(Object.entries(counts).map(([k, v]) => [k, Math.round((v / Math.max(1, events)) * 100) / 100]));
}

/** delta subtracts an earlier metricBy reading from a later one (keys that did not change are left out). */
function delta(a: Record<string, number>, b: Record<string, number>): Record<string, number> {
  const out: Record<string, number> = {};
  for (const [k, v] of Object.entries(b)) if (v - (a[k] ?? 0) !== 0) out[k] = v - (a[k] ?? 0);
  return out;
}

async function reconciles(f: Fleet): Promise<number> {
  const m = f.embedded.manager.metrics.getSingleMetric('ripple_reconcile_total');
  if (!m) return 0;
  return (await m.get()).values.reduce((a, v) => a + v.value, 0);
}

/** settle waits until the control plane stops reconciling (status tails of a burst), at most capMs. */
async function settle(f: Fleet, capMs: number): Promise<{ ms: number; settled: boolean }> {
  const t0 = performance.now();
  for (let prev = await reconciles(f); ; ) {
    if (performance.now() - t0 >= capMs) return { ms: performance.now() - t0, settled: false };
    await sleep(1000);
    const cur = await reconciles(f);
    if (cur === prev) return { ms: performance.now() - t0, settled: true };
    prev = cur;
  }
}

async function waitForReports(mgmt: KubeClient, n: number, timeoutMs: number): Promise<number> {
  const t0 = performance.now();
  for (;;) {
    const { items } = await mgmt.list({ apiVersion: 'lib.projectsveltos.io/v1beta1', kind: 'EventReport' }, { labelSelector: 'projectsveltos.io/eventsource-name=bench-services' });
    if (items.length >= n || performance.now() - t0 > timeoutMs) return items.length;
    await sleep(100);
  }
}

async function measureFleet(n: number, cfg: Config): Promise<Record<string, unknown>> {
  const S = cfg.services;
  const out: Record<string, unknown> = { clusters: n, services: S, servicesTotal: n * S };
  const mem = new MemorySampler();
  const prof = new PhaseProfiler(cfg.profileDir, cfg.profileKind);
  const profiles: Record<string, unknown> = {};
  // Other processes on the machine share its cores: the load average says how much.
  out.loadAverage1mBefore = Math.round(loadavg()[0] * 100) / 100;
  // Count the reconciles that write nothing (ripple_reconcile_noop_total): the control plane runs in this process.
  if (cfg.countNoops) enableWriteAccounting();
  const t0 = performance.now();
  let f: Fleet | undefined;
  let probes: StageProbes | undefined;
  try {
    f = await startFleet(n, log);
    prof.attach(f.embedded.server);
    mem.attach(f.embedded.server);
    const fleet = f;
    for (const o of scenarioObjects()) await fleet.embedded.mgmt.apply(o, { fieldManager: FIELD_MANAGER, force: true });
    const reports = await waitForReports(fleet.embedded.mgmt, n, 30_000);
    if (reports < n) log(`only ${reports} of ${n} EventReports appeared before the Services (continuing)`);
    out.setupMs = Math.round(performance.now() - t0);
    const idle = await mem.read(true);
    out.idleMemory = idle;
    log(`${n} clusters: setup ${out.setupMs} ms, idle RSS ${idle.rssMiB} MiB`);

    // Phase 1: cold converge — every Service created at once.
    const pairs = fleet.clusters.flatMap((cluster) => Array.from({ length: S }, (_, i) => ({ cluster, i })));
    const all = fleet.addons.untilCount(pairs.length, cfg.coldTimeoutMs);
    const rCold = await metricBy(fleet, 'ripple_reconcile_total', ['controller', 'result']);
    await prof.begin();
    const cpuCold = process.cpuUsage();
    const c0 = performance.now();
    let createdCount = 0;
    await pool(pairs, 32, async ({ cluster, i }) => {
      // Past the deadline the phase has failed anyway: stop adding load.
      if (performance.now() - c0 > cfg.coldTimeoutMs) return;
      await fleet.client(cluster).create(serviceObject(serviceName(i), 10_000 + i));
      createdCount++;
    });
    const created = performance.now() - c0;
    const done = await all;
    const afterCold = await mem.read(true);
    profiles.cold = await prof.end(`fleet-${n}-cold`);
    const cold: Record<string, unknown> = { createMs: Math.round(created), createsPerSec: Math.round(createdCount / (created / 1000)) };
    out.coldConverge = cold;
    out.memoryAfterConverge = afterCold;
    if (done === undefined) {
      cold.timedOut = true;
      cold.servicesCreated = createdCount;
      cold.addonsObserved = fleet.addons.count();
      cold.cpuMsPerAppliedAddon = Math.round((cpuMs(cpuCold) / Math.max(1, fleet.addons.count())) * 10) / 10;
      out.error = `cold converge timed out after ${cfg.coldTimeoutMs / 1000} s with ${fleet.addons.count()} of ${pairs.length} add-ons applied`;
      log(String(out.error));
      return out;
    }
    out.coldConvergeMs = Math.round(done - c0);
    cold.ms = out.coldConvergeMs;
    cold.addonsPerSec = Math.round(pairs.length / ((done - c0) / 1000));
    log(`cold converge ${out.coldConvergeMs} ms (creates ${Math.round(created)} ms), RSS ${afterCold.rssMiB} MiB, heap ${afterCold.heapUsedMiB} MiB, API server heap ${afterCold.apiServerHeapUsedMiB ?? '-'} MiB`);
    // What the control plane still does once every add-on is applied: queue depths, then reconciles until it settles.
    cold.queueDepthAtConverge = await metricBy(fleet, 'ripple_workqueue_depth', ['controller']);
    const r0 = await metricBy(fleet, 'ripple_reconcile_total', ['controller', 'result']);
    // Reconciles from the first Service created to the last add-on observed, by controller and result.
    cold.reconcilesUntilConverge = delta(rCold, r0);
    const settled = await settle(fleet, cfg.settleTimeoutMs);
    cold.statusSettledAfterMs = Math.round(settled.ms);
    // Not settled: the events below are measured on a control plane still working through the converge's tail.
    if (!settled.settled) cold.settled = false;
    cold.reconcilesWhileSettling = delta(r0, await metricBy(fleet, 'ripple_reconcile_total', ['controller', 'result']));
    if (cfg.heapSnapshotDir) out.heapSnapshots = await writeHeapSnapshots(cfg.heapSnapshotDir, `fleet-${n}-converged`, fleet.embedded.server);
    const rq = await metricBy(fleet, 'ripple_reconcile_total', ['controller', 'result']);
    cold.cpuMsPerService = Math.round((cpuMs(cpuCold) / pairs.length) * 10) / 10;
    // A settled fleet should cost (almost) nothing: the process' CPU while nothing happens.
    await prof.begin();
    const q = process.cpuUsage();
    const q0 = performance.now();
    await sleep(3000);
    out.quietCpuPct = Math.round((cpuMs(q) / (performance.now() - q0)) * 1000) / 10;
    out.quietReconciles = delta(rq, await metricBy(fleet, 'ripple_reconcile_total', ['controller', 'result']));
    profiles.quiet = await prof.end(`fleet-${n}-quiet`);

    // Phase 2a: single events, one at a time — a port change → the add-on carries the new port.
    probes = await StageProbes.start(fleet.embedded.mgmt, SVELTOS_NAMESPACE);
    const churn = new Churn(fleet, S);
    const lat: number[] = [];
    const afterWrite: number[] = [];
    const stage = { serviceToReport: [] as number[], reportToInstantiated: [] as number[], instantiatedToApplied: [] as number[] };
    let timedOut = 0;
    await prof.begin();
    const rs = await metricBy(fleet, 'ripple_reconcile_total', ['controller', 'result']);
    const req0 = await fleet.embedded.server.requestCounts();
    const ns = await metricBy(fleet, 'ripple_reconcile_noop_total', ['controller']);
    const server = fleet.embedded.server;
    const apiCpu0 = await server.threadCpuMs?.();
    const reparse0 = (await server.threadMemory?.())?.reparses;
    const mainCpu0 = threadCpuMs();
    const cpuSingle = process.cpuUsage();
    for (let k = 0; k < cfg.samples; k++) {
      const { cluster, service } = await churn.pick();
      probes.arm(cluster, service);
      const r = await churn.change(cluster, service, cfg.eventTimeoutMs);
      if (r.seen === undefined) {
        timedOut++;
        continue;
      }
      lat.push(r.seen - r.start);
      afterWrite.push(r.seen - r.written);
      const st = probes.read(cluster, service);
      if (st.report !== undefined && st.instantiated !== undefined && st.report <= st.instantiated && st.instantiated <= r.seen) {
        stage.serviceToReport.push(st.report - r.start);
        stage.reportToInstantiated.push(st.instantiated - st.report);
        stage.instantiatedToApplied.push(r.seen - st.instantiated);
      }
    }
    const singleCpu = cpuMs(cpuSingle);
    const mainCpu1 = threadCpuMs();
    const apiCpu1 = await server.threadCpuMs?.();
    const reparse1 = (await server.threadMemory?.())?.reparses;
    const req1 = await fleet.embedded.server.requestCounts();
    const singleReconciles = delta(rs, await metricBy(fleet, 'ripple_reconcile_total', ['controller', 'result']));
    const singleNoops = delta(ns, await metricBy(fleet, 'ripple_reconcile_noop_total', ['controller']));
    profiles.singleEvent = await prof.end(`fleet-${n}-single`);
    const single = stats(lat);
    out.singleEvent = {
      ...single,
      timedOut,
      // Process CPU (all threads) per event, one event at a time: what one Service change costs the whole pipeline.
      cpuMsPerEvent: Math.round((singleCpu / Math.max(1, cfg.samples)) * 10) / 10,
      // Of that, the API server's thread (storage, validation, server-side apply, watch fan-out) and the main thread
      // (the control plane and the bench's own clients); the rest is V8's GC helpers and libuv's pool (Linux only).
      ...(apiCpu0 !== undefined && apiCpu1 !== undefined ? { apiServerCpuMsPerEvent: Math.round(((apiCpu1 - apiCpu0) / Math.max(1, cfg.samples)) * 10) / 10 } : {}),
      ...(mainCpu0 !== undefined && mainCpu1 !== undefined ? { mainThreadCpuMsPerEvent: Math.round(((mainCpu1 - mainCpu0) / Math.max(1, cfg.samples)) * 10) / 10 } : {}),
      // Stored objects the API server parsed again from their JSON (their parsed form had left its cache), per event.
      ...(reparse0 !== undefined && reparse1 !== undefined
        ? { apiServerReparsesPerEvent: { count: Math.round(((reparse1.count - reparse0.count) / Math.max(1, cfg.samples)) * 100) / 100, kB: Math.round((reparse1.chars - reparse0.chars) / Math.max(1, cfg.samples) / 100) / 10 } }
        : {}),
      fromWriteReturned: stats(afterWrite),
      // Where the time goes (management-cluster watches): agent (Service → EventReport written), event manager
      // (→ instantiated ConfigMap written), add-on deployer (→ add-on in the managed cluster), p50/p99 each.
      stagesMs: Object.fromEntries(Object.entries(stage).map(([k, v]) => [k, { p50: stats(v).p50, p99: stats(v).p99 }])),
      // Reconciles per event by controller/result (a no-op reconcile woken by our own writes shows up here).
      reconcilesPerEvent: perEvent(singleReconciles, cfg.samples),
      // API requests per event (a watch counts once, when opened): to the management cluster, and to the managed
      // clusters (the bench's own Service patch included).
      requestsPerEvent: requestsPerEvent(req0, req1, fleet.clusters, cfg.samples),
      // Of those, reconciles that sent no write request (write accounting), by controller.
      noopReconcilesPerEvent: perEvent(singleNoops, cfg.samples),
    };
    log(`single event: p50 ${single.p50} ms, p99 ${single.p99} ms, max ${single.max} ms (${lat.length} samples, ${timedOut} timed out)`);

    // Phase 2b: a new Service → its add-on appears; the Service deleted → the add-on is withdrawn.
    const createLat: number[] = [];
    const withdrawLat: number[] = [];
    const profileLat: number[] = [];
    const withdrawStage = { serviceToReport: [] as number[], reportToProfileDeleting: [] as number[], profileDeletingToGone: [] as number[] };
    let newTimedOut = 0;
    let wTimedOut = 0;
    const rand = prng(0xadd);
    for (let k = 0; k < cfg.withdrawSamples; k++) {
      const cluster = fleet.clusters[Math.floor(rand() * fleet.clusters.length)];
      const service = `new-${k}`;
      const port = String(30_000 + k);
      probes.arm(cluster, service);
      const appear = fleet.addons.until(cluster, service, (p) => p === port, cfg.eventTimeoutMs);
      const s0 = performance.now();
      await fleet.client(cluster).create(serviceObject(service, 30_000 + k));
      const seen = await appear;
      if (seen === undefined) {
        // Never applied: there is no withdrawal to time (the Service is still deleted, untimed).
        newTimedOut++;
        await fleet.client(cluster).delete({ apiVersion: 'v1', kind: 'Service', namespace: BENCH_NS, name: service });
        continue;
      }
      createLat.push(seen - s0);
      const p = probes.read(cluster, service).profile;
      if (p !== undefined) profileLat.push(p - s0);
      const gone = fleet.addons.until(cluster, service, (p) => p === undefined, cfg.eventTimeoutMs);
      probes.arm(cluster, service);
      const d0 = performance.now();
      await fleet.client(cluster).delete({ apiVersion: 'v1', kind: 'Service', namespace: BENCH_NS, name: service });
      const away = await gone;
      if (away === undefined) {
        wTimedOut++;
        continue;
      }
      withdrawLat.push(away - d0);
      // The report without the Service, then the first change of its ClusterProfile (deletion begins), then the
      // add-on gone from the cluster.
      const st = probes.read(cluster, service);
      if (st.report !== undefined && st.profile !== undefined && st.report <= st.profile && st.profile <= away) {
        withdrawStage.serviceToReport.push(st.report - d0);
        withdrawStage.reportToProfileDeleting.push(st.profile - st.report);
        withdrawStage.profileDeletingToGone.push(away - st.profile);
      }
    }
    out.newService = { ...stats(createLat), timedOut: newTimedOut, serviceToClusterProfileMs: { p50: stats(profileLat).p50, p99: stats(profileLat).p99 } };
    const stage50 = (x: number[]) => ({ p50: stats(x).p50, p99: stats(x).p99 });
    out.withdraw = {
      ...stats(withdrawLat),
      timedOut: wTimedOut,
      stagesMs: { serviceToReport: stage50(withdrawStage.serviceToReport), reportToProfileDeleting: stage50(withdrawStage.reportToProfileDeleting), profileDeletingToGone: stage50(withdrawStage.profileDeletingToGone) },
    };
    log(`new service → add-on p50 ${stats(createLat).p50} ms; withdraw p50 ${stats(withdrawLat).p50} ms, p99 ${stats(withdrawLat).p99} ms`);
    probes.stop();
    probes = undefined;
    await settle(fleet, 20_000);

    // Phase 2c: closed-loop churn — C workers, each changing a random Service and waiting for its add-on.
    const churnLat: number[] = [];
    let churnTimedOut = 0;
    let issued = 0;
    await prof.begin();
    const rc = await metricBy(fleet, 'ripple_reconcile_total', ['controller']);
    const nc = await metricBy(fleet, 'ripple_reconcile_noop_total', ['controller']);
    const ch0 = performance.now();
    await Promise.all(
      Array.from({ length: cfg.churnWorkers }, async () => {
        while (issued < cfg.churnEvents && performance.now() - ch0 < cfg.churnSeconds * 1000) {
          issued++;
          const { cluster, service } = await churn.pick();
          const r = await churn.change(cluster, service, cfg.eventTimeoutMs);
          if (r.seen === undefined) churnTimedOut++;
          else churnLat.push(r.seen - r.start);
        }
      }),
    );
    const churnS = (performance.now() - ch0) / 1000;
    profiles.churn = await prof.end(`fleet-${n}-churn`);
    const cs = stats(churnLat);
    out.churn = { workers: cfg.churnWorkers, events: churnLat.length, seconds: ms(churnS), eventsPerSec: Math.round(churnLat.length / churnS), p50: cs.p50, p90: cs.p90, p99: cs.p99, max: cs.max, timedOut: churnTimedOut };
    Object.assign(out.churn as object, {
      reconcilesPerEvent: perEvent(delta(rc, await metricBy(fleet, 'ripple_reconcile_total', ['controller'])), churnLat.length),
      noopReconcilesPerEvent: perEvent(delta(nc, await metricBy(fleet, 'ripple_reconcile_noop_total', ['controller'])), churnLat.length),
    });
    log(`churn (${cfg.churnWorkers} workers): ${Math.round(churnLat.length / churnS)} events/s, p50 ${cs.p50} ms, p99 ${cs.p99} ms`);
    await settle(fleet, 20_000);

    // Phase 2d: open-loop load — events issued at a fixed rate whatever the latency (no coordinated omission), at
    // each configured rate in turn until one is not sustained: fewer than 90 % of the rate achieved, an event that
    // never arrived, or p99 above the target.
    const ladder: LoadStep[] = [];
    for (const rate of cfg.loadRates) {
      const step = await openLoop(churn, rate, cfg.loadSeconds, cfg.eventTimeoutMs);
      ladder.push(step);
      log(`open-loop ${rate}/s: achieved ${step.achievedPerSec}/s, p50 ${step.p50} ms, p99 ${step.p99} ms${step.sustained ? '' : ' (not sustained)'}`);
      if (!step.sustained) break;
      if (rate !== cfg.loadRates[cfg.loadRates.length - 1]) await settle(fleet, 20_000);
    }
    const best = [...ladder].reverse().find((l) => l.sustained);
    const shown = best ?? ladder[0]!;
    out.load = { ...shown };
    if (ladder.length > 1) out.loadLadder = ladder;
    out.sustainedPerSec = best?.ratePerSec ?? 0;

    out.targets = {
      ...TARGET,
      met: single.p50 !== undefined && single.p99 !== undefined && single.p50 <= TARGET.p50 && single.p99 <= TARGET.p99 && timedOut === 0,
      metUnderLoad: (best?.ratePerSec ?? 0) >= TARGET.loadPerSec,
    };
    if (single.p50 !== undefined) out.vsAnchor = { sveltosMidpointMs: 6500, speedupAtP50: Math.round(6500 / single.p50) };
    return out;
  } catch (err) {
    out.error = errorMessage(err);
    log(`error: ${out.error}`);
    return out;
  } finally {
    probes?.stop();
    await prof.end(`fleet-${n}-aborted`).catch(() => undefined);
    for (const [k, v] of Object.entries(profiles)) if (v === undefined) delete profiles[k];
    if (Object.keys(profiles).length > 0) out.cpuProfiles = profiles;
    out.loadAverage1mAfter = Math.round(loadavg()[0] * 100) / 100;
    out.memoryEnd = await mem.read(true).catch(() => undefined);
    mem.stop();
    out.memoryPeak = mem.peaks();
    const s0 = performance.now();
    if (f) await f.stop();
    out.stopMs = Math.round(performance.now() - s0);
    out.totalMs = Math.round(performance.now() - t0);
  }
}

/** bench runs the scenario described in the file comment for every configured fleet size. */
export async function bench(): Promise<Record<string, unknown>> {
  const cfg = CONFIG();
  const fleets: Record<string, unknown> = {};
  for (const n of cfg.sizes) {
    log(`--- ${n} clusters × ${cfg.services} Services`);
    fleets[`clusters_${n}`] = await measureFleet(n, cfg);
  }
  return {
    scenario:
      'EventSource (Services labelled bench=yes, collectResources) + EventTrigger (oneForEvent) → one instantiated ConfigMap add-on per Service, deployed into its cluster; `ripple up` in one process (API server on its own thread unless RIPPLE_FLEET_BENCH_API_THREAD=main), durability process',
    targets: TARGET,
    anchor: ANCHOR,
    config: {
      ...cfg,
      coldTimeoutMs: undefined,
      eventTimeoutMs: undefined,
      settleTimeoutMs: undefined,
      coldTimeoutS: cfg.coldTimeoutMs / 1000,
      eventTimeoutS: cfg.eventTimeoutMs / 1000,
      settleTimeoutS: cfg.settleTimeoutMs / 1000,
      // Where the API server ran; with 'worker' the CPU profiles cover the control plane's thread only (CPU per event
      // counts both threads).
      apiServerThread: apiServerThread(),
      // 'build': compiled as dist/ is (npm run bench builds this bench first), what users run; 'sources': through tsx.
      code: import.meta.url.endsWith('.ts') ? 'sources' : 'build',
    },
    fleets,
  };
}
