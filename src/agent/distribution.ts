// distribution: EventSource copies in managed clusters (delivery modes "push" and "collect", where an agent runs in
// the managed cluster and evaluates the copies it finds there). Pure planning; the manager executes.
//
// Ownership scheme. Sveltos sets an ownerReference from the copy to the EventTrigger, an object that exists only in
// the management cluster. A garbage collector that can resolve the owner's kind (any managed cluster that has the
// EventTrigger CRD — the embedded API server's GC, or a management cluster registered as its own target) finds no
// owner with that uid and deletes the copy at once; one that cannot resolve the kind keeps retrying forever. Neither
// is safe, so Ripple copies carry NO ownerReferences: the triggers that need a copy are listed in the annotation
// `agent.ripple.dev/event-triggers` (sorted, comma-separated), and Ripple deletes only copies carrying that
// annotation, when no trigger selecting the cluster names the EventSource any more.
// Go: event-manager controllers/eventtrigger_deployer.go createOrUpdateEventSource / removeEventSource.
import { Annotations, type EventSource } from '../api/index.js';
import { goJSONMarshal } from './go-json.js';
import { EVENT_SOURCE } from './sources.js';

/** OWNER_TRIGGERS_ANNOTATION lists the EventTriggers a copied EventSource is deployed for. */
export const OWNER_TRIGGERS_ANNOTATION = 'agent.ripple.dev/event-triggers';

/** EventSourceCopy is an EventSource as written into a managed cluster. */
export interface EventSourceCopy {
  apiVersion: string;
  kind: string;
  metadata: { name: string; labels?: Record<string, string>; annotations: Record<string, string>; uid?: string; deletionTimestamp?: string };
  spec: unknown;
}

/** DistributionAction is one write in a managed cluster. */
export type DistributionAction = { type: 'apply'; object: EventSourceCopy } | { type: 'delete'; name: string; uid?: string };

/** buildEventSourceCopy is the managed-cluster copy of a normalised EventSource needed by triggers. */
export function buildEventSourceCopy(es: EventSource, triggers: readonly string[]): EventSourceCopy {
  const metadata: EventSourceCopy['metadata'] = {
    name: es.metadata.name,
    annotations: { [Annotations.deployedBySveltos]: 'true', [OWNER_TRIGGERS_ANNOTATION]: [...triggers].sort().join(',') },
  };
  // Labels are copied (tenant labels drive impersonation in the managed cluster, §9).
  if (es.metadata.labels && Object.keys(es.metadata.labels).length > 0) metadata.labels = { ...es.metadata.labels };
  return { ...EVENT_SOURCE, metadata, spec: es.spec };
}

function sameCopy(want: EventSourceCopy, have: EventSourceCopy): boolean {
  if (goJSONMarshal(want.spec) !== goJSONMarshal(have.spec)) return false;
  for (const [k, v] of Object.entries(want.metadata.annotations)) if (have.metadata.annotations?.[k] !== v) return false;
  const wl = want.metadata.labels ?? {};
  const hl = have.metadata.labels ?? {};
  return Object.entries(wl).every(([k, v]) => hl[k] === v);
}

/**
 * planDistribution returns the writes that make a managed cluster hold exactly the desired copies among those
 * Ripple manages: apply missing or different ones, delete Ripple-managed copies nobody needs. Copies without
 * Ripple's annotation (written by a user or by Sveltos) are never deleted; a desired name is still applied over them.
 */
export function planDistribution(desired: ReadonlyMap<string, EventSourceCopy>, observed: readonly EventSourceCopy[]): DistributionAction[] {
  const actions: DistributionAction[] = [];
  const byName = new Map(observed.map((o) => [o.metadata.name, o]));
  for (const [name, want] of [...desired].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))) {
    const have = byName.get(name);
    if (have?.metadata.deletionTimestamp) continue;
    if (!have || !sameCopy(want, have)) actions.push({ type: 'apply', object: want });
  }
  for (const o of observed) {
    if (desired.has(o.metadata.name) || o.metadata.deletionTimestamp) continue;
    if (o.metadata.annotations?.[OWNER_TRIGGERS_ANNOTATION] === undefined) continue;
    actions.push({ type: 'delete', name: o.metadata.name, ...(o.metadata.uid ? { uid: o.metadata.uid } : {}) });
  }
  return actions;
}
