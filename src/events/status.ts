// status.ts: EventTrigger and EventReport status, computed purely from what the per-cluster reconciles found, and
// compared with what is stored so that status is written only when it changes (a watch-driven loop must go quiet).
import type { EventTriggerStatus, ObjectReference } from '../api/index.js';

/** ClusterInfoStatus is the per-cluster status Ripple reports (a subset of Sveltos' values). */
export type ClusterInfoStatus = 'Provisioning' | 'Provisioned' | 'Failed' | 'Removing';

/** PairResult is the outcome of the last reconcile of one (trigger, cluster). */
export interface PairResult {
  clusterKey: string;
  cluster: Required<Pick<ObjectReference, 'apiVersion' | 'kind' | 'namespace' | 'name'>>;
  status: ClusterInfoStatus;
  failureMessage?: string;
  /** base64 sha256 of the desired content (EventTrigger status clusterInfo[].hash is a []byte). */
  hash: string;
  /** Resources matching in the cluster's EventReport (0 without a report). */
  matching: number;
}

type ClusterInfo = NonNullable<EventTriggerStatus['clusterInfo']>[number];

const refKeyOf = (r: ObjectReference) => `${r.kind ?? ''}:${r.namespace ?? ''}/${r.name ?? ''}`;

/**
 * triggerStatus computes EventTrigger status: the selected clusters and one clusterInfo entry per selected cluster
 * (or cluster still being cleaned up). A selected cluster without a result yet keeps its stored entry (a restart
 * does not flap status) or starts as Provisioning.
 */
export function triggerStatus(
  matching: readonly { key: string; ref: ObjectReference }[],
  results: ReadonlyMap<string, PairResult>,
  stored: EventTriggerStatus | undefined,
): EventTriggerStatus {
  const storedInfo = new Map<string, ClusterInfo>();
  for (const ci of stored?.clusterInfo ?? []) storedInfo.set(refKeyOf(ci.cluster), ci);
  const info: ClusterInfo[] = [];
  const seen = new Set<string>();
  const push = (ref: ObjectReference, r: PairResult | undefined) => {
    const k = refKeyOf(ref);
    if (seen.has(k)) return;
    seen.add(k);
    if (r) {
      const ci: ClusterInfo = { cluster: { ...r.cluster }, hash: r.hash, status: r.status };
      if (r.failureMessage) ci.failureMessage = r.failureMessage;
      info.push(ci);
    } else {
      info.push(storedInfo.get(k) ?? { cluster: { ...ref }, hash: '', status: 'Provisioning' });
    }
  };
  for (const m of matching) push(m.ref, results.get(m.key));
  for (const r of [...results.values()].sort((a, b) => (a.clusterKey < b.clusterKey ? -1 : 1))) {
    if (r.status === 'Removing') push(r.cluster, r);
  }
  const out: EventTriggerStatus = { matchingClusters: matching.map((m) => ({ ...m.ref })) };
  if (info.length > 0) out.clusterInfo = info;
  return out;
}

/** sameTriggerStatus compares the fields Ripple writes (order-sensitive: both sides are built sorted). */
export function sameTriggerStatus(a: EventTriggerStatus | undefined, b: EventTriggerStatus): boolean {
  const pick = (s: EventTriggerStatus | undefined) =>
    JSON.stringify({
      m: (s?.matchingClusters ?? []).map((r) => [r.apiVersion ?? '', r.kind ?? '', r.namespace ?? '', r.name ?? '']),
      c: (s?.clusterInfo ?? []).map((c) => [c.cluster.kind ?? '', c.cluster.namespace ?? '', c.cluster.name ?? '', c.hash ?? '', c.status ?? '', c.failureMessage ?? '']),
    });
  return pick(a) === pick(b);
}

/** ReportTriggerState is what one trigger concluded from one EventReport generation. */
export interface ReportTriggerState {
  generation: number;
  failure?: string;
  /** The trigger could not act on the report's CloudEvents (their rendering or writes failed): keep them. */
  holdCloudEvents?: boolean;
}

/**
 * reportStatus returns the EventReport status to write once every trigger using the report has processed its
 * current generation (undefined while some have not): phase Processed, failureMessage naming each failing trigger.
 */
export function reportStatus(generation: number, states: ReadonlyMap<string, ReportTriggerState>): { phase: 'Processed'; failureMessage?: string } | undefined {
  if (states.size === 0) return undefined;
  const failures: string[] = [];
  for (const [trigger, s] of [...states].sort(([a], [b]) => (a < b ? -1 : 1))) {
    if (s.generation !== generation) return undefined;
    if (s.failure) failures.push(`EventTrigger ${trigger}: ${s.failure}`);
  }
  return failures.length > 0 ? { phase: 'Processed', failureMessage: failures.join('\n') } : { phase: 'Processed' };
}
