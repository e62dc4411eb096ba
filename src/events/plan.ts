// plan.ts: what to write for one (EventTrigger, cluster) — a pure function of the desired objects (render.ts) and the
// generated objects that exist (informer caches). Writes happen only when content changed (hash annotation), and
// removals only for what is known to be gone: events whose rendering failed, that are inside their grace period, or
// CloudEvent outputs (removed only by a Delete CloudEvent) are kept exactly as they are.
// Go: event-manager eventtrigger_deployer.go removeInstantiatedResources, removeClusterProfiles, removeConfigMaps
import { EventTriggerLabels } from '../api/index.js';
import { RippleAnnotations } from './naming.js';
import type { GeneratedObject } from './render.js';

/** Action is one write of a plan. */
export type Action =
  | { type: 'apply'; object: GeneratedObject; reason: 'create' | 'update' }
  | { type: 'delete'; kind: string; apiVersion: string; namespace?: string; name: string; uid?: string; eventId: string };

/** PlanInput is the desired and observed state of one (trigger, cluster). */
export interface PlanInput {
  /** Objects that should exist (ClusterProfiles, ConfigMaps, Secrets) for events that rendered. */
  desired: readonly GeneratedObject[];
  /** Existing generated ClusterProfiles of this (trigger, cluster). */
  observedProfiles: readonly GeneratedObject[];
  /** Existing generated ConfigMaps/Secrets of this (trigger, cluster). */
  observedObjects: readonly GeneratedObject[];
  /** Event ids whose existing outputs stay untouched (failed rendering, grace period). */
  retain: ReadonlySet<string>;
  /** Event ids to remove even if sticky (CloudEvent Delete). */
  remove: ReadonlySet<string>;
  /** Everything goes (trigger deleted, cluster no longer selected): nothing is sticky or retained. */
  withdrawAll: boolean;
  /** metadata.generation of ClusterProfiles right after our last write; a different one means someone edited the spec. */
  writtenGenerations?: ReadonlyMap<string, number>;
}

/** Plan is the ordered writes: applies (ConfigMaps/Secrets before the ClusterProfiles that use them), then deletes. */
export interface Plan {
  applies: Extract<Action, { type: 'apply' }>[];
  deletes: Extract<Action, { type: 'delete' }>[];
  /** ConfigMaps/Secrets that stay until the ClusterProfiles still referencing them are gone. */
  waiting: string[];
  /** Desired objects that cannot be written yet because the existing one is being deleted. */
  blocked: string[];
}

// Generated objects (a render's output, an informer's copy) are never modified once made, so what plan derives from
// one is kept by identity: a reconcile of a pair whose 100 events did not change derives nothing again.
const keyMemo = new WeakMap<object, string>();
const refsMemo = new WeakMap<object, string[]>();
/** Per desired object: the resourceVersion of the observed object it was last compared with, and whether that one was
 * up to date (the version, not the object: holding the object would keep every replaced version alive). */
const upToDateMemo = new WeakMap<object, { rv: string; upToDate: boolean }>();

/** objectKeyOf is `Kind/namespace/name`. */
export function objectKeyOf(o: { kind: string; metadata: { namespace?: string; name: string } }): string {
  let k = keyMemo.get(o);
  if (k === undefined) {
    k = `${o.kind}/${o.metadata.namespace ?? ''}/${o.metadata.name}`;
    keyMemo.set(o, k);
  }
  return k;
}

/** eventIdOf is the event a generated object was made for ('' for objects Ripple did not annotate). */
export function eventIdOf(o: { metadata: { annotations?: Record<string, string> } }): string {
  return o.metadata.annotations?.[RippleAnnotations.event] ?? '';
}

const isSticky = (eventId: string) => eventId.startsWith('cloudevent:');

function sameLabels(a: Record<string, string> | undefined, b: Record<string, string> | undefined): boolean {
  const ka = Object.keys(a ?? {});
  if (ka.length !== Object.keys(b ?? {}).length) return false;
  return ka.every((k) => b?.[k] === a?.[k]);
}

/** profileReferences lists `Kind/namespace/name` of the ConfigMaps/Secrets a ClusterProfile spec points at (the
 * returned list is shared: do not modify it). */
export function profileReferences(profile: GeneratedObject): readonly string[] {
  let refs = refsMemo.get(profile);
  if (refs === undefined) {
    refs = computeProfileReferences(profile);
    refsMemo.set(profile, refs);
  }
  return refs;
}

function computeProfileReferences(profile: GeneratedObject): string[] {
  const spec = (profile.spec ?? {}) as {
    policyRefs?: { kind?: string; namespace?: string; name?: string }[];
    helmCharts?: { valuesFrom?: { kind?: string; namespace?: string; name?: string }[] }[];
    kustomizationRefs?: { valuesFrom?: { kind?: string; namespace?: string; name?: string }[] }[];
  };
  const refs = [
    ...(spec.policyRefs ?? []),
    ...(spec.helmCharts ?? []).flatMap((h) => h.valuesFrom ?? []),
    ...(spec.kustomizationRefs ?? []).flatMap((k) => k.valuesFrom ?? []),
  ];
  return refs.filter((r) => r.kind === 'ConfigMap' || r.kind === 'Secret').map((r) => `${r.kind}/${r.namespace ?? ''}/${r.name ?? ''}`);
}

/** upToDate says whether the observed object already carries the desired content (hash annotation and labels). */
function upToDate(d: GeneratedObject, cur: GeneratedObject): boolean {
  const rv = cur.metadata.resourceVersion;
  const m = upToDateMemo.get(d);
  if (m !== undefined && rv !== undefined && m.rv === rv) return m.upToDate;
  const r = cur.metadata.annotations?.[RippleAnnotations.hash] === d.metadata.annotations?.[RippleAnnotations.hash] && sameLabels(cur.metadata.labels, d.metadata.labels);
  if (rv !== undefined) upToDateMemo.set(d, { rv, upToDate: r });
  return r;
}

/** plan compares desired with observed generated objects and returns the writes that reconcile them. */
export function plan(input: PlanInput): Plan {
  const out: Plan = { applies: [], deletes: [], waiting: [], blocked: [] };
  const observed = new Map<string, GeneratedObject>();
  for (const o of input.observedProfiles) observed.set(objectKeyOf(o), o);
  for (const o of input.observedObjects) observed.set(objectKeyOf(o), o);
  const desiredKeys = new Set<string>();

  // Applies: ConfigMaps/Secrets first, so a ClusterProfile never points at an object that does not exist yet.
  const visit = (d: GeneratedObject) => {
    const key = objectKeyOf(d);
    desiredKeys.add(key);
    const cur = observed.get(key);
    if (cur?.metadata.deletionTimestamp) {
      out.blocked.push(key);
      return;
    }
    if (!cur) {
      out.applies.push({ type: 'apply', object: d, reason: 'create' });
      return;
    }
    const written = input.writtenGenerations?.get(key);
    const edited = written !== undefined && cur.metadata.generation !== undefined && cur.metadata.generation !== written;
    if (!upToDate(d, cur) || edited) out.applies.push({ type: 'apply', object: d, reason: 'update' });
  };
  for (const d of input.desired) if (d.kind !== 'ClusterProfile') visit(d);
  for (const d of input.desired) if (d.kind === 'ClusterProfile') visit(d);

  const stale = (o: GeneratedObject): boolean => {
    if (desiredKeys.has(objectKeyOf(o))) return false;
    if (input.withdrawAll) return true;
    const id = eventIdOf(o);
    if (input.remove.has(id)) return true;
    if (input.retain.has(id)) return false;
    return !isSticky(id);
  };

  for (const p of input.observedProfiles) if (!p.metadata.deletionTimestamp && stale(p)) out.deletes.push(deleteOf(p));
  const staleObjects = input.observedObjects.filter(stale);
  if (staleObjects.length === 0) return out;
  // ClusterProfiles that will still exist after this pass (including stale ones until they are fully gone): a stale
  // ClusterProfile keeps its ConfigMaps until it is gone, the deployer may still read them while withdrawing.
  const referenced = new Set<string>();
  for (const d of input.desired) if (d.kind === 'ClusterProfile') for (const r of profileReferences(d)) referenced.add(r);
  for (const p of input.observedProfiles) for (const r of profileReferences(p)) referenced.add(r);
  for (const o of staleObjects) {
    const key = objectKeyOf(o);
    const fromGenerator = o.metadata.labels?.[EventTriggerLabels.fromGenerator] !== undefined;
    if (referenced.has(key) && !fromGenerator) {
      out.waiting.push(key);
      continue;
    }
    if (!o.metadata.deletionTimestamp) out.deletes.push(deleteOf(o));
  }
  return out;
}

function deleteOf(o: GeneratedObject): Extract<Action, { type: 'delete' }> {
  return {
    type: 'delete',
    apiVersion: o.apiVersion,
    kind: o.kind,
    namespace: o.metadata.namespace,
    name: o.metadata.name,
    uid: o.metadata.uid,
    eventId: eventIdOf(o),
  };
}
