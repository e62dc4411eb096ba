// metrics.ts: the event manager's Prometheus metrics, registered once per Registry (several managers may run in one
// process, e.g. in tests). Sveltos' event-manager names (reference §10.1) where they apply, plus Ripple's own.
import { Counter, Gauge, Histogram, type Registry } from 'prom-client';

/** EventMetrics are the metrics of one registry. */
export interface EventMetrics {
  /** projectsveltos_reconcile_duration_seconds{cluster_type,cluster_namespace,cluster_name} */
  reconcileDuration: Histogram<'cluster_type' | 'cluster_namespace' | 'cluster_name'>;
  /** projectsveltos_reconcile_outcome_total{…,status,event_trigger_name} */
  outcomes: Counter<'cluster_type' | 'cluster_namespace' | 'cluster_name' | 'status' | 'event_trigger_name'>;
  /** projectsveltos_matching_clusters{event_trigger_name} */
  matchingClusters: Gauge<'event_trigger_name'>;
  /** projectsveltos_matching_resources{event_trigger_name,cluster_type,cluster_namespace,cluster_name} */
  matchingResources: Gauge<'event_trigger_name' | 'cluster_type' | 'cluster_namespace' | 'cluster_name'>;
  /** projectsveltos_reconcile_last_success_timestamp_seconds{…} */
  lastSuccess: Gauge<'cluster_type' | 'cluster_namespace' | 'cluster_name' | 'event_trigger_name'>;
  /** ripple_events_writes_total{kind,action}: objects the event manager created, updated or deleted. */
  writes: Counter<'kind' | 'action'>;
  /** ripple_events_report_to_write_seconds: EventReport change seen → generated objects written. */
  reportToWrite: Histogram<never>;
  /** ripple_events_legacy_instantiations_total: ConfigMaps/Secrets instantiated for compatibility (no annotation). */
  legacy: Counter<never>;
}

const registries = new WeakMap<Registry, EventMetrics>();

/** eventMetrics returns the metrics of a registry, registering them on first use. */
export function eventMetrics(registry: Registry): EventMetrics {
  const hit = registries.get(registry);
  if (hit) return hit;
  const cl = ['cluster_type', 'cluster_namespace', 'cluster_name'] as const;
  const m: EventMetrics = {
    reconcileDuration: new Histogram({
      name: 'projectsveltos_reconcile_duration_seconds',
      help: 'Time to instantiate what one EventTrigger generates for one cluster, by cluster.',
      labelNames: [...cl],
      // Sveltos' buckets start at 0.1 s; Ripple reconciles in milliseconds, so finer buckets come first.
      buckets: [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.5, 1, 5, 10, 30, 60, 120],
      registers: [registry],
    }),
    outcomes: new Counter({
      name: 'projectsveltos_reconcile_outcome_total',
      help: 'Instantiations by outcome (success or failure), per EventTrigger and cluster.',
      labelNames: [...cl, 'status', 'event_trigger_name'],
      registers: [registry],
    }),
    matchingClusters: new Gauge({
      name: 'projectsveltos_matching_clusters',
      help: 'Clusters an EventTrigger selects.',
      labelNames: ['event_trigger_name'],
      registers: [registry],
    }),
    matchingResources: new Gauge({
      name: 'projectsveltos_matching_resources',
      help: 'Resources matching the EventSource of an EventTrigger in a cluster (from its EventReport).',
      labelNames: ['event_trigger_name', ...cl],
      registers: [registry],
    }),
    lastSuccess: new Gauge({
      name: 'projectsveltos_reconcile_last_success_timestamp_seconds',
      help: 'Unix time of the last successful instantiation, per EventTrigger and cluster.',
      labelNames: [...cl, 'event_trigger_name'],
      registers: [registry],
    }),
    writes: new Counter({
      name: 'ripple_events_writes_total',
      help: 'Generated objects written by the event manager, by kind and action (create, update, delete).',
      labelNames: ['kind', 'action'],
      registers: [registry],
    }),
    reportToWrite: new Histogram({
      name: 'ripple_events_report_to_write_seconds',
      help: 'Time from seeing an EventReport change to having written what it generates.',
      buckets: [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5],
      registers: [registry],
    }),
    legacy: new Counter({
      name: 'ripple_events_legacy_instantiations_total',
      help: 'ConfigMaps/Secrets instantiated with event data although they lack projectsveltos.io/instantiate (older Sveltos semantics).',
      registers: [registry],
    }),
  };
  registries.set(registry, m);
  return m;
}
