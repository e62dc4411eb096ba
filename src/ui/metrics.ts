// metrics.ts: time series for the plots, sampled from the process's own Prometheus registry (the numbers /metrics
// serves): matching evaluations per second, failures per second, event → add-on latency quantiles per interval, and
// the cumulative histograms of the pipeline's stages. Sampling reads a handful of in-memory metrics (no I/O).
import type { Histogram, Registry } from 'prom-client';
import type { HistogramView, MetricSample, MetricsView } from './api-types.js';

/** HISTOGRAMS are the latency histograms the plots page draws, end to end first. */
export const HISTOGRAMS = ['ripple_event_to_addon_seconds', 'ripple_agent_event_to_report_seconds', 'ripple_events_report_to_write_seconds', 'ripple_addons_deploy_duration_seconds'] as const;

interface Value {
  value: number;
  labels: Record<string, string | number>;
  metricName?: string;
}

async function values(registry: Registry, name: string): Promise<Value[]> {
  const m = registry.getSingleMetric(name);
  if (!m) return [];
  return ((await m.get()).values ?? []) as Value[];
}

async function counterSum(registry: Registry, name: string, keep: (labels: Record<string, string | number>) => boolean): Promise<number> {
  return (await values(registry, name)).filter((v) => keep(v.labels)).reduce((n, v) => n + v.value, 0);
}

/** histogramView reads a histogram's cumulative buckets, summed over its label sets. */
export async function histogramView(registry: Registry, name: string): Promise<HistogramView | undefined> {
  const m = registry.getSingleMetric(name) as Histogram | undefined;
  if (!m) return undefined;
  const data = await m.get();
  const buckets = new Map<number, number>();
  let count = 0;
  let sum = 0;
  for (const v of (data.values ?? []) as Value[]) {
    if (v.metricName === `${name}_bucket`) {
      const le = v.labels.le === '+Inf' ? Infinity : Number(v.labels.le);
      buckets.set(le, (buckets.get(le) ?? 0) + v.value);
    } else if (v.metricName === `${name}_count`) count += v.value;
    else if (v.metricName === `${name}_sum`) sum += v.value;
  }
  return { name, help: data.help, buckets: [...buckets].sort((a, b) => a[0] - b[0]).map(([le, c]) => ({ le, count: c })), count, sum };
}

/** quantile estimates a quantile from cumulative bucket deltas (Prometheus' histogram_quantile, linear in a bucket). */
export function quantile(q: number, buckets: readonly { le: number; count: number }[]): number | undefined {
  const total = buckets.at(-1)?.count ?? 0;
  if (total <= 0) return undefined;
  const rank = q * total;
  let prevLe = 0;
  let prevCount = 0;
  for (const b of buckets) {
    if (b.count >= rank) {
      if (!Number.isFinite(b.le)) return prevLe;
      const inBucket = b.count - prevCount;
      return inBucket <= 0 ? b.le : prevLe + ((b.le - prevLe) * (rank - prevCount)) / inBucket;
    }
    prevLe = b.le;
    prevCount = b.count;
  }
  return prevLe;
}

/** MetricsSampler keeps the last `size` samples, one every intervalMs. */
export class MetricsSampler {
  private readonly samples: MetricSample[] = [];
  private timer: NodeJS.Timeout | undefined;
  private last: { t: number; events: number; failures: number; buckets: { le: number; count: number }[] } | undefined;
  private readonly listeners = new Set<() => void>();

  constructor(
    private readonly registry: Registry,
    readonly intervalMs = 2000,
    private readonly size = 300,
    private readonly now: () => number = Date.now,
  ) {}

  /** start samples now and then every intervalMs. */
  start(): void {
    void this.sample();
    this.timer = setInterval(() => void this.sample(), this.intervalMs);
    this.timer.unref();
  }

  /** onSample registers a listener called after each sample; returns a remover. */
  onSample(l: () => void): () => void {
    this.listeners.add(l);
    return () => this.listeners.delete(l);
  }

  /** sample takes one sample (also called by start's timer). */
  async sample(): Promise<void> {
    const t = this.now();
    const events = await counterSum(this.registry, 'ripple_agent_evaluations_total', (l) => l.result === 'match');
    const failures =
      (await counterSum(this.registry, 'ripple_addons_deploy_outcome_total', (l) => l.outcome === 'failed' || l.outcome === 'conflict')) +
      (await counterSum(this.registry, 'projectsveltos_reconcile_outcome_total', (l) => l.status === 'failure'));
    const h = await histogramView(this.registry, HISTOGRAMS[0]);
    const buckets = h?.buckets ?? [];
    const prev = this.last;
    this.last = { t, events, failures, buckets };
    if (!prev) return;
    const dt = Math.max(1, t - prev.t) / 1000;
    const delta = buckets.map((b) => ({ le: b.le, count: b.count - (prev.buckets.find((p) => p.le === b.le)?.count ?? 0) }));
    const count = delta.at(-1)?.count ?? 0;
    this.samples.push({
      t,
      eventsPerSecond: Math.max(0, events - prev.events) / dt,
      failuresPerSecond: Math.max(0, failures - prev.failures) / dt,
      count,
      ...(count > 0 ? { p50: quantile(0.5, delta), p90: quantile(0.9, delta), p99: quantile(0.99, delta) } : {}),
    });
    if (this.samples.length > this.size) this.samples.splice(0, this.samples.length - this.size);
    for (const l of this.listeners) l();
  }

  /** view returns the samples and the stage histograms. */
  async view(): Promise<MetricsView> {
    const histograms: HistogramView[] = [];
    for (const name of HISTOGRAMS) {
      const h = await histogramView(this.registry, name);
      if (h) histograms.push(h);
    }
    return { intervalMs: this.intervalMs, samples: [...this.samples], histograms };
  }

  /** stop stops sampling. */
  stop(): void {
    if (this.timer) clearInterval(this.timer);
    this.listeners.clear();
  }
}
