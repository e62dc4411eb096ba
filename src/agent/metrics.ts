// metrics: the agent's Prometheus series, registered once per Registry (several agents may share one registry in a
// process or a test).
import { Counter, Gauge, Histogram, type Registry } from 'prom-client';

/** AgentMetrics are the agent's series. */
export interface AgentMetrics {
  /** Per-object (and aggregatedSelection) evaluations, by result: match, nomatch, error. */
  evaluations: Counter<'result'>;
  /** Detector flushes (one coalesced batch of changes in one cluster). */
  flushSeconds: Histogram;
  /** EventReport writes by target (management, managed) and action (create, update, status, delete). */
  writes: Counter<'target' | 'action'>;
  /** Failed EventReport writes, by target. */
  writeFailures: Counter<'target'>;
  /** From the first informer event of a batch to the report written (when the batch changed a report). */
  eventToReportSeconds: Histogram;
  /** 1 when the agent cannot list/watch a cluster it needs, else 0. */
  clusterUnreachable: Gauge<'cluster'>;
  /** Distinct GVK informers the agent holds, over all clusters. */
  informers: Gauge;
  /** EventSources being evaluated, over all clusters. */
  eventSources: Gauge;
  /** EventSource copies written to (or deleted from) managed clusters, by action. */
  distributions: Counter<'action'>;
  /** NATS messages by outcome: stored (appended to ≥1 report), unmatched, ignored (not a JSON CloudEvent), failed. */
  cloudEvents: Counter<'result'>;
  /** 1 while a configured NATS/JetStream connection of a cluster is not subscribed, else 0. */
  natsDown: Gauge<'cluster' | 'section'>;
}

const byRegistry = new WeakMap<Registry, AgentMetrics>();

/** agentMetrics returns the agent's series in registry, registering them on first use. */
export function agentMetrics(registry: Registry): AgentMetrics {
  const cached = byRegistry.get(registry);
  if (cached) return cached;
  const registers = [registry];
  const m: AgentMetrics = {
    evaluations: new Counter({ name: 'ripple_agent_evaluations_total', help: 'EventSource evaluations by result (match, nomatch, error).', labelNames: ['result'], registers }),
    flushSeconds: new Histogram({
      name: 'ripple_agent_flush_duration_seconds',
      help: 'Time to evaluate one coalesced batch of object changes in one cluster.',
      buckets: [0.0001, 0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 1, 5],
      registers,
    }),
    writes: new Counter({ name: 'ripple_agent_report_writes_total', help: 'EventReport writes by target cluster role and action.', labelNames: ['target', 'action'], registers }),
    writeFailures: new Counter({ name: 'ripple_agent_report_write_failures_total', help: 'EventReport writes that failed (retried with backoff).', labelNames: ['target'], registers }),
    eventToReportSeconds: new Histogram({
      name: 'ripple_agent_event_to_report_seconds',
      help: 'From an object change seen by the agent to the EventReport written.',
      buckets: [0.001, 0.0025, 0.005, 0.01, 0.02, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 10],
      registers,
    }),
    clusterUnreachable: new Gauge({ name: 'ripple_agent_cluster_unreachable', help: '1 while the agent cannot list/watch a cluster it needs.', labelNames: ['cluster'], registers }),
    informers: new Gauge({ name: 'ripple_agent_informers', help: 'GVK informers held by the agent over all clusters.', registers }),
    eventSources: new Gauge({ name: 'ripple_agent_eventsources', help: 'EventSources evaluated by the agent over all clusters.', registers }),
    distributions: new Counter({ name: 'ripple_agent_eventsource_distributions_total', help: 'EventSource copies applied to or deleted from managed clusters.', labelNames: ['action'], registers }),
    cloudEvents: new Counter({ name: 'ripple_agent_cloudevents_total', help: 'NATS messages by outcome (stored, unmatched, ignored, failed).', labelNames: ['result'], registers }),
    natsDown: new Gauge({ name: 'ripple_agent_nats_down', help: '1 while a configured NATS/JetStream connection is not subscribed.', labelNames: ['cluster', 'section'], registers }),
  };
  byRegistry.set(registry, m);
  return m;
}
