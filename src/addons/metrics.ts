// metrics.ts: Prometheus metrics of the add-on deployer (names prefixed `ripple_addons_`), registered once per
// registry so several deployers (tests) can share one. The controller runtime adds the generic
// ripple_reconcile_* / ripple_workqueue_* metrics for the two controllers (`addons-profile`, `addons-summary`).
import { Counter, Gauge, Histogram, type Registry } from 'prom-client';

/** AddonMetrics are the deployer's metrics. */
export interface AddonMetrics {
  /** Time to deploy one feature to one cluster (full passes only; unchanged inputs are not measured). */
  deployDuration: Histogram<'feature'>;
  /** Terminal outcomes of a deployment pass: provisioned, failed, conflict, removed. */
  outcomes: Counter<'feature' | 'outcome'>;
  /** Objects written or left alone, by operation (create, update, unchanged, delete, release, strip). */
  objects: Counter<'op'>;
  /** Drift detected on deployed objects (each one re-queues its ClusterSummary). */
  drifts: Counter<'cluster_namespace' | 'cluster_name'>;
  /** Clusters matching each profile. */
  matchingClusters: Gauge<'profile_kind' | 'profile_namespace' | 'profile_name'>;
}

const byRegistry = new WeakMap<Registry, AddonMetrics>();

/** addonMetrics returns the metrics of a registry, registering them on first use. */
export function addonMetrics(registry: Registry): AddonMetrics {
  let m = byRegistry.get(registry);
  if (m) return m;
  m = {
    deployDuration: new Histogram({
      name: 'ripple_addons_deploy_duration_seconds',
      help: 'Time to deploy a feature (Resources) to one cluster, for passes that had to look at the cluster.',
      labelNames: ['feature'],
      buckets: [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30],
      registers: [registry],
    }),
    outcomes: new Counter({
      name: 'ripple_addons_deploy_outcome_total',
      help: 'Deployment passes by feature and outcome (provisioned, failed, conflict, removed, not_supported).',
      labelNames: ['feature', 'outcome'],
      registers: [registry],
    }),
    objects: new Counter({
      name: 'ripple_addons_objects_total',
      help: 'Deployed objects by operation (create, update, unchanged, delete, release, strip).',
      labelNames: ['op'],
      registers: [registry],
    }),
    drifts: new Counter({
      name: 'ripple_addons_drifts_total',
      help: 'Configuration drift detected on deployed objects, by cluster.',
      labelNames: ['cluster_namespace', 'cluster_name'],
      registers: [registry],
    }),
    matchingClusters: new Gauge({
      name: 'ripple_addons_matching_clusters',
      help: 'Clusters currently matching a ClusterProfile/Profile.',
      labelNames: ['profile_kind', 'profile_namespace', 'profile_name'],
      registers: [registry],
    }),
  };
  byRegistry.set(registry, m);
  return m;
}
