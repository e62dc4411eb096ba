// events.bench.ts: EventReport change → ClusterProfile and instantiated ConfigMap written, on the embedded API server,
// with a fleet of RIPPLE_EVENTS_BENCH_CLUSTERS (default 100) clusters × RIPPLE_EVENTS_BENCH_TRIGGERS (default 100)
// triggers, every (trigger, cluster) pair holding one generated ClusterProfile and ConfigMap (10,000 of each).
//
// Measured: the cold start (manager started with every report present: time until all outputs exist); the latency
// of one event (a report gains a resource → its new ClusterProfile is written, the ConfigMap before it), sequentially,
// p50/p99; a burst of one event in each of 100 clusters at once (all outputs written → events/s); and that a quiet
// fleet causes no writes. Everything runs in one process on the same cores as the API server (SQLite durability
// 'process'), so these are end-to-end numbers including the server's work. Sveltos' anchor by design: reports are
// collected every 10 s (5 s sharded), so an event waits 0–10 s before its ClusterProfile is even computed.
import type { KubeObject } from '../kube/index.js';
import { startHarness } from './harness.js';

const CP = { apiVersion: 'config.projectsveltos.io/v1beta1', kind: 'ClusterProfile' } as const;

function pct(xs: number[], p: number): number {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.floor((p / 100) * s.length))];
}
const round = (x: number) => Math.round(x * 100) / 100;

async function pool<T>(items: readonly T[], n: number, f: (x: T) => Promise<void>): Promise<void> {
  let i = 0;
  await Promise.all(
    Array.from({ length: n }, async () => {
      while (i < items.length) await f(items[i++]);
    }),
  );
}

const svc = (name: string): KubeObject => ({
  apiVersion: 'v1',
  kind: 'Service',
  metadata: { namespace: 'apps', name, labels: { app: name } },
  spec: { ports: [{ name: 'https', port: 443, protocol: 'TCP' }], type: 'ClusterIP' },
} as KubeObject);

/** bench runs the scenario described in the file comment. */
export async function bench(): Promise<Record<string, unknown>> {
  const nClusters = Number(process.env.RIPPLE_EVENTS_BENCH_CLUSTERS ?? 100);
  const nTriggers = Number(process.env.RIPPLE_EVENTS_BENCH_TRIGGERS ?? 100);
  const samples = Number(process.env.RIPPLE_EVENTS_BENCH_SAMPLES ?? 200);
  const clusters = Array.from({ length: nClusters }, (_, i) => ({ namespace: `fleet-${i}`, name: `c${i}`, labels: { env: 'bench' } }));
  const tSetup = performance.now();
  const h = await startHarness({ clusters });
  try {
    await h.apply({
      apiVersion: 'v1',
      kind: 'ConfigMap',
      metadata: { namespace: 'default', name: 'policy', annotations: { 'projectsveltos.io/instantiate': 'true' } },
      data: {
        'np.yaml':
          'kind: NetworkPolicy\napiVersion: networking.k8s.io/v1\nmetadata:\n  name: front-{{ .Resource.metadata.name }}\n  namespace: {{ .Resource.metadata.namespace }}\nspec:\n  podSelector:\n    matchLabels:\n      {{- range $k, $v := .Resource.metadata.labels }}\n      {{ $k }}: {{ $v }}\n      {{- end }}\n  ingress:\n  - ports:\n    {{- range .Resource.spec.ports }}\n    {{- if eq .port 443 }}\n    - port: {{ .port }}\n    {{- end }}\n    {{- end }}\n',
      },
    } as KubeObject);
    const triggers = Array.from({ length: nTriggers }, (_, i) => `t${i}`);
    for (const t of triggers) {
      await h.apply({
        apiVersion: 'lib.projectsveltos.io/v1beta1',
        kind: 'EventTrigger',
        metadata: { name: t },
        spec: { sourceClusterSelector: { matchLabels: { env: 'bench' } }, eventSourceName: `es-${t}`, oneForEvent: true, policyRefs: [{ kind: 'ConfigMap', namespace: 'default', name: 'policy' }] },
      } as KubeObject);
    }
    const pairs = clusters.flatMap((c) => triggers.map((t) => ({ c, t })));
    await pool(pairs, 32, ({ c, t }) => h.putReport(c, `es-${t}`, [svc('base')]));
    const setupS = (performance.now() - tSetup) / 1000;

    // Count generated ClusterProfiles and wait for specific ones through a watch of our own.
    const seen = new Set<string>();
    const waiters = new Map<string, () => void>();
    const key = (o: KubeObject) => {
      const l = o.metadata.labels ?? {};
      return `${l['eventtrigger.lib.projectsveltos.io/eventtriggername']}|${l['eventtrigger.lib.projectsveltos.io/clustername']}|${l['eventtrigger.lib.projectsveltos.io/resourcename']}`;
    };
    const sub = h.informers.subscribe<KubeObject>(CP, {
      onAdd: (o) => {
        const k = key(o);
        seen.add(k);
        waiters.get(k)?.();
      },
    });
    const until = (k: string) => (seen.has(k) ? Promise.resolve() : new Promise<void>((r) => waiters.set(k, r)));

    // Cold start: every report present, the manager starts and generates everything.
    const t0 = performance.now();
    // The production defaults (the test harness shortens both windows).
    await h.startManager({ coalesceMs: 10, statusDelayMs: 1000 });
    await Promise.all(pairs.map(({ c, t }) => until(`${t}|${c.name}|base`)));
    const coldS = (performance.now() - t0) / 1000;
    const rssAfterCold = process.memoryUsage().rss;
    // Let the tail of the cold start (EventReport and EventTrigger status writes) finish: events are measured on a
    // settled fleet.
    const writes = async () => (await h.metrics.getSingleMetric('ripple_events_writes_total')!.get()).values.reduce((a, v) => a + v.value, 0);
    const reconciles = async () =>
      (await h.metrics.getSingleMetric('ripple_reconcile_total')!.get()).values.reduce((a, v) => a + v.value, 0);
    const settle = async () => {
      for (let prev = -1, cur = await reconciles(); prev !== cur; prev = cur, cur = await reconciles()) {
        await new Promise((r) => setTimeout(r, 1500));
      }
    };
    await settle();
    const settleS = (performance.now() - t0) / 1000 - coldS;

    // One event at a time: a report gains a resource → its ClusterProfile (after its ConfigMap) is written.
    const lat: number[] = [];
    const afterWrite: number[] = [];
    const reportWrite: number[] = [];
    for (let i = 0; i < samples; i++) {
      const { c, t } = pairs[(i * 7919) % pairs.length];
      const name = `s${i}`;
      const s = performance.now();
      await h.putReport(c, `es-${t}`, [svc('base'), svc(name)]);
      const w = performance.now();
      await until(`${t}|${c.name}|${name}`);
      lat.push(performance.now() - s);
      afterWrite.push(performance.now() - w);
      reportWrite.push(w - s);
    }

    // A burst: one event in each cluster at once.
    const burst = clusters.map((c, i) => ({ c, t: triggers[i % nTriggers] }));
    const b0 = performance.now();
    await Promise.all(
      burst.map(async ({ c, t }) => {
        await h.putReport(c, `es-${t}`, [svc('base'), svc('burst')]);
        await until(`${t}|${c.name}|burst`);
      }),
    );
    const burstS = (performance.now() - b0) / 1000;

    // Quiet: once the burst's tail (withdrawals it caused, status) is done, nothing changes and nothing is written.
    await settle();
    const w0 = await writes();
    const r0 = await reconciles();
    await new Promise((r) => setTimeout(r, 2000));
    const quietWrites = (await writes()) - w0;
    const quietReconciles = (await reconciles()) - r0;
    await sub.unsubscribe();

    return {
      fleet: { clusters: nClusters, triggers: nTriggers, pairs: pairs.length, generatedObjects: pairs.length * 2 },
      setup_s: round(setupS),
      cold_start: { seconds: round(coldS), pairs_per_s: Math.round(pairs.length / coldS), rss_mib: Math.round(rssAfterCold / 2 ** 20), status_settled_after_s: round(settleS) },
      event_to_written_ms: { samples, p50: round(pct(lat, 50)), p90: round(pct(lat, 90)), p99: round(pct(lat, 99)), max: round(Math.max(...lat)) },
      // The same, from the moment the agent's report write returned (excludes the report write itself).
      report_written_to_profile_ms: { p50: round(pct(afterWrite, 50)), p90: round(pct(afterWrite, 90)), p99: round(pct(afterWrite, 99)) },
      // The agent's own report write (spec apply + status apply) on the same API server, for comparison.
      report_write_ms: { p50: round(pct(reportWrite, 50)), p90: round(pct(reportWrite, 90)), p99: round(pct(reportWrite, 99)) },
      burst: { events: burst.length, seconds: round(burstS), events_per_s: Math.round(burst.length / burstS) },
      quiet_2s: { writes: quietWrites, reconciles: quietReconciles },
      anchor: 'Sveltos collects EventReports every 10 s (5 s sharded): 0–10 s before a ClusterProfile is computed',
      ratio_p50_vs_sveltos_mean_wait: `${Math.round(5000 / pct(lat, 50))}x faster than a 5 s average collection wait`,
    };
  } finally {
    await h.stop();
  }
}
