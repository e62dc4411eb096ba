// context.ts: what both add-on reconcilers share — the management client and informer caches, the cluster
// registry, the event recorder, metrics, clock and function options — plus small helpers over them (normalised
// reads with a per-object memo, Events about Sveltos objects, profile identity of a ClusterSummary).
import { normalize, writeVersion, type ClusterProfile, type ClusterSummary, type Profile } from '../api/index.js';
import type { ClusterRegistry } from '../clusters/index.js';
import type { FuncOptions } from '../funcs/index.js';
import type { EventRecorder, EventType, InformerFactory, InformerView, KubeClient, KubeObject } from '../kube/index.js';
import type { Logger } from '../obs/index.js';
import type { AddonMetrics } from './metrics.js';
import { AddonLabels, type ProfileKind } from './names.js';

/** Clock is the time source of the deployer (milliseconds since the epoch). */
export interface Clock {
  now(): number;
}

/** Caches are the management-cluster informers the reconcilers read from (never mutate their objects). */
export interface Caches {
  clusterProfiles: InformerView<KubeObject>;
  profiles: InformerView<KubeObject>;
  summaries: InformerView<KubeObject>;
  configMaps: InformerView<KubeObject>;
  secrets: InformerView<KubeObject>;
}

/** AddonContext is the shared dependencies of the reconcilers. */
export interface AddonContext {
  mgmt: KubeClient;
  mgmtInformers: InformerFactory;
  registry: ClusterRegistry;
  recorder: EventRecorder | undefined;
  log: Logger;
  metrics: AddonMetrics | undefined;
  clock: Clock;
  funcOptions: FuncOptions;
  fieldManager: string;
  caches: Caches;
  /** Where downloaded Helm charts are cached, content-addressed by digest. */
  chartCacheDir: string;
}

const memo = new WeakMap<object, { ok: true; object: unknown; warnings: string[] } | { ok: false; message: string }>();

/**
 * normalized returns the v1beta1 form of a cached Sveltos object (memoised per cached object: informers replace
 * objects on change, so identity is a safe key), or why it cannot be read.
 */
export function normalized<T>(o: KubeObject): { ok: true; object: T; warnings: string[] } | { ok: false; message: string } {
  let r = memo.get(o);
  if (!r) {
    const n = normalize(o);
    // An object the API server stored is most often in normal form already: then the cached object itself is the
    // answer, and normalize's copy is not kept beside it for as long as the object lives.
    r = n.ok ? { ok: true, object: sameJSON(n.object, o) ? o : n.object, warnings: n.warnings } : { ok: false, message: n.issues.map((i) => `${i.path}: ${i.message}`).join('; ') };
    memo.set(o, r);
  }
  return r as { ok: true; object: T; warnings: string[] } | { ok: false; message: string };
}

/** sameJSON tells whether two decoded JSON values are equal (object members in any order). */
function sameJSON(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (typeof a !== 'object' || typeof b !== 'object' || a === null || b === null) return false;
  if (Array.isArray(a)) return Array.isArray(b) && a.length === b.length && a.every((x, i) => sameJSON(x, b[i]));
  if (Array.isArray(b)) return false;
  const ka = Object.keys(a);
  if (ka.length !== Object.keys(b).length) return false;
  for (const k of ka) if (!Object.prototype.hasOwnProperty.call(b, k) || !sameJSON((a as Record<string, unknown>)[k], (b as Record<string, unknown>)[k])) return false;
  return true;
}

/** AnyProfile is a ClusterProfile or a Profile. */
export type AnyProfile = ClusterProfile | Profile;

/** profileOfSummary names the profile that owns a ClusterSummary (ownerReference, else labels). */
export function profileOfSummary(cs: KubeObject | ClusterSummary): { kind: ProfileKind; name: string } | undefined {
  for (const r of cs.metadata.ownerReferences ?? []) {
    if (r.apiVersion?.startsWith('config.projectsveltos.io/') && (r.kind === 'ClusterProfile' || r.kind === 'Profile')) return { kind: r.kind, name: r.name };
  }
  const l = cs.metadata.labels ?? {};
  if (l[AddonLabels.clusterProfileName]) return { kind: 'ClusterProfile', name: l[AddonLabels.clusterProfileName] };
  if (l[AddonLabels.profileName]) return { kind: 'Profile', name: l[AddonLabels.profileName] };
  return undefined;
}

/** record emits a Kubernetes Event about a Sveltos object (never throws, never blocks). */
export function record(c: AddonContext, obj: KubeObject, type: EventType, reason: string, message: string): void {
  c.recorder?.event(
    { apiVersion: writeVersion(obj) ?? obj.apiVersion, kind: obj.kind, metadata: { name: obj.metadata.name, namespace: obj.metadata.namespace, uid: obj.metadata.uid } },
    type,
    reason,
    message,
  );
}

/** rfc3339 formats a clock reading like metav1.Time (second precision). */
export function rfc3339(ms: number): string {
  return new Date(Math.floor(ms / 1000) * 1000).toISOString().replace(/\.\d{3}Z$/, 'Z');
}
