// profile-controller.ts: ClusterProfile / Profile → one ClusterSummary per matching cluster. Selection by
// clusterSelector, clusterRefs and setRefs (a Profile: clusters of its own namespace only), extended to the clusters
// of the profiles that depend on it (Sveltos deploys prerequisites where dependents go); ClusterSummaries named,
// labelled and owned as Sveltos does, with a copy of the spec; maxUpdate; OneTime keeps existing summaries; deletion
// of unmatched summaries (their finalizer makes withdrawal happen first); profile status and pause annotation.
// Go: addon-controller controllers/clusterprofile_controller.go, profile_utils.go (updateClusterSummaries,
// createClusterSummary, addClusterSummaryLabels), dependencymanager
import { Annotations, type ClusterProfileSpec, type ClusterProfileStatus, type ClusterSummary, type ObjectReference } from '../api/index.js';
import type { ClusterEntry } from '../clusters/index.js';
import { errorMessage, isNotFound, type KubeObject, type ReconcileResult } from '../kube/index.js';
import { normalized, profileOfSummary, record, type AddonContext, type AnyProfile } from './context.js';
import {
  AddonFinalizers,
  AddonLabels,
  clusterSummaryName,
  parseProfileKey,
  profileKey,
  profileLabelKey,
  type ProfileKind,
} from './names.js';
import { goJSON, sha256Hex } from './stamp.js';
import { clusterIndexOf, isProvisioned, runLimited } from './summary-controller.js';

/** PROFILE_INDEX indexes ClusterSummaries by the profileKey of their owner. */
export const PROFILE_INDEX = 'addons.profile';

/** profileIndexOf is the PROFILE_INDEX function. */
export function profileIndexOf(o: KubeObject): string[] {
  const p = profileOfSummary(o);
  return p ? [profileKey(p.kind, o.metadata.namespace, p.name)] : [];
}

/** DEPENDS_INDEX indexes ClusterProfiles and Profiles by `<namespace>/<name>` of each profile they depend on. */
export const DEPENDS_INDEX = 'addons.dependsOn';

/** dependsIndexOf is the DEPENDS_INDEX function (a ClusterProfile's namespace is ''). */
export function dependsIndexOf(o: KubeObject): string[] {
  const deps = ((o as { spec?: { dependsOn?: unknown } }).spec?.dependsOn ?? []) as unknown;
  if (!Array.isArray(deps)) return [];
  return deps.filter((d): d is string => typeof d === 'string').map((d) => `${o.metadata.namespace ?? ''}/${d}`);
}

const CONFIG_API = 'config.projectsveltos.io/v1beta1';
const LAST_APPLIED = 'kubectl.kubernetes.io/last-applied-configuration';

/** DesiredSummary is the ClusterSummary a profile wants for one cluster. */
export interface DesiredSummary {
  object: KubeObject;
  cluster: ClusterEntry;
}

/** summaryFor builds the ClusterSummary of (profile, cluster). Pure. Go: createClusterSummary, addClusterSummaryLabels */
export function summaryFor(kind: ProfileKind, profile: AnyProfile, cluster: ClusterEntry): KubeObject {
  const labels: Record<string, string> = {
    ...(profile.metadata.labels ?? {}),
    [profileLabelKey(kind)]: profile.metadata.name,
    [AddonLabels.clusterName]: cluster.ref.name,
    [AddonLabels.clusterType]: cluster.type,
  };
  const annotations = { ...(profile.metadata.annotations ?? {}) };
  delete annotations[LAST_APPLIED];
  return {
    apiVersion: CONFIG_API,
    kind: 'ClusterSummary',
    metadata: {
      name: clusterSummaryName(kind, profile.metadata.name, cluster.type, cluster.ref.name),
      namespace: cluster.ref.namespace,
      labels,
      ...(Object.keys(annotations).length > 0 ? { annotations } : {}),
      ownerReferences: [{ apiVersion: CONFIG_API, kind, name: profile.metadata.name, uid: profile.metadata.uid ?? '' }],
      finalizers: [AddonFinalizers.clusterSummary],
    },
    spec: { clusterNamespace: cluster.ref.namespace, clusterName: cluster.ref.name, clusterType: cluster.type, clusterProfileSpec: profile.spec },
  };
}

/** sameMap compares string maps. */
function sameMap(a: Record<string, string> | undefined, b: Record<string, string> | undefined): boolean {
  const ka = Object.keys(a ?? {});
  if (ka.length !== Object.keys(b ?? {}).length) return false;
  return ka.every((k) => b?.[k] === a?.[k]);
}

/** summaryUpToDate reports whether a stored ClusterSummary already carries what summaryFor wants. */
export function summaryUpToDate(current: KubeObject, desired: KubeObject): boolean {
  const cm = current.metadata;
  const dm = desired.metadata;
  if (!sameMap(cm.labels, dm.labels) || !sameMap(cm.annotations, dm.annotations)) return false;
  if (!(cm.finalizers ?? []).includes(AddonFinalizers.clusterSummary)) return false;
  const owner = dm.ownerReferences![0];
  if (!(cm.ownerReferences ?? []).some((r) => r.uid === owner.uid && r.kind === owner.kind && r.name === owner.name)) return false;
  return specUpToDate(current, desired);
}

const specJSON = new WeakMap<object, string>();

/** jsonOf is goJSON memoised per (immutable) object: cached objects and one desired spec per reconcile. */
function jsonOf(o: object): string {
  let j = specJSON.get(o);
  if (j === undefined) {
    j = goJSON(o);
    specJSON.set(o, j);
  }
  return j;
}

function specUpToDate(current: KubeObject, desired: KubeObject): boolean {
  const n = normalized<ClusterSummary>(current);
  const cur = (n.ok ? n.object.spec : current.spec) as ClusterSummary['spec'] | undefined;
  const want = desired.spec as ClusterSummary['spec'];
  if (!cur || cur.clusterName !== want.clusterName || cur.clusterNamespace !== want.clusterNamespace || cur.clusterType !== want.clusterType) return false;
  // The profile spec object is shared by every desired ClusterSummary of one reconcile: serialised once.
  return jsonOf(cur.clusterProfileSpec ?? {}) === jsonOf(want.clusterProfileSpec ?? {});
}

/** maxUpdateCount resolves maxUpdate (a number or a percentage of the matching clusters, rounded up). */
export function maxUpdateCount(v: number | string | undefined, matching: number): number {
  if (v === undefined) return Number.POSITIVE_INFINITY;
  if (typeof v === 'number') return v;
  const m = /^(\d+)%$/.exec(v);
  if (m) return Math.ceil((Number(m[1]) * matching) / 100);
  return /^\d+$/.test(v) ? Number(v) : Number.POSITIVE_INFINITY;
}

/** ProfileReconciler keeps the ClusterSummaries and status of ClusterProfiles and Profiles. */
export class ProfileReconciler {
  constructor(private readonly c: AddonContext) {}

  /** dependents returns the cached profiles of a kind (in a namespace for Profiles) that depend on `name`. */
  private dependents(kind: ProfileKind, namespace: string, name: string): KubeObject[] {
    const view = kind === 'ClusterProfile' ? this.c.caches.clusterProfiles : this.c.caches.profiles;
    return view.cache.byIndex(DEPENDS_INDEX, `${kind === 'ClusterProfile' ? '' : namespace}/${name}`);
  }

  private get(kind: ProfileKind, namespace: string, name: string): KubeObject | undefined {
    return kind === 'ClusterProfile' ? this.c.caches.clusterProfiles.cache.get(undefined, name) : this.c.caches.profiles.cache.get(namespace, name);
  }

  /** ownClusters is a profile's own selection (paused clusters included: pausing is not unselecting). */
  ownClusters(kind: ProfileKind, p: AnyProfile, allShards = false): ClusterEntry[] {
    const spec = p.spec ?? ({} as ClusterProfileSpec);
    return this.c.registry.matching(
      { clusterSelector: spec.clusterSelector, clusterRefs: spec.clusterRefs, clusterSetRefs: spec.setRefs, namespace: kind === 'Profile' ? p.metadata.namespace : undefined },
      { includePaused: true, allShards },
    );
  }

  /**
   * matchingClusters is the own selection plus the clusters of every profile that (transitively) depends on this
   * one: a prerequisite goes wherever its dependents go.
   */
  matchingClusters(kind: ProfileKind, p: AnyProfile, allShards = false): ClusterEntry[] {
    const out = new Map<string, ClusterEntry>();
    const seen = new Set<string>();
    const walk = (q: AnyProfile) => {
      if (seen.has(q.metadata.name)) return;
      seen.add(q.metadata.name);
      for (const e of this.ownClusters(kind, q, allShards)) out.set(e.key, e);
      for (const other of this.dependents(kind, p.metadata.namespace ?? '', q.metadata.name)) {
        if (other.metadata.deletionTimestamp) continue;
        const n = normalized<AnyProfile>(other);
        if (n.ok) walk(n.object);
      }
    };
    walk(p);
    return [...out.values()].sort((a, b) => (a.key < b.key ? -1 : a.key > b.key ? 1 : 0));
  }

  /** reconcile brings a profile's ClusterSummaries and status in line. */
  reconcile = async (key: string): Promise<ReconcileResult | void> => {
    const id = parseProfileKey(key);
    if (!id) return;
    const raw = this.get(id.kind, id.namespace, id.name);
    const existing = this.c.caches.summaries.cache.byIndex(PROFILE_INDEX, key);
    if (!raw) {
      // Gone without us (finalizer removed by hand): its ClusterSummaries must still withdraw.
      await this.deleteSummaries(existing);
      return;
    }
    const n = normalized<AnyProfile>(raw);
    if (!n.ok) {
      record(this.c, raw, 'Warning', 'InvalidProfile', `cannot read ${id.kind}: ${n.message}`);
      return;
    }
    const profile = n.object;
    const finalizer = id.kind === 'ClusterProfile' ? AddonFinalizers.clusterProfile : AddonFinalizers.profile;
    if (raw.metadata.deletionTimestamp) {
      await this.deleteSummaries(existing);
      if (existing.length === 0 && (raw.metadata.finalizers ?? []).includes(finalizer)) await this.setFinalizers(raw, (raw.metadata.finalizers ?? []).filter((f) => f !== finalizer));
      this.c.metrics?.matchingClusters.remove({ profile_kind: id.kind, profile_namespace: id.namespace, profile_name: id.name });
      return;
    }
    if (!(raw.metadata.finalizers ?? []).includes(finalizer)) await this.setFinalizers(raw, [...(raw.metadata.finalizers ?? []), finalizer]);
    if (raw.metadata.annotations?.[Annotations.profilePaused] !== undefined) {
      await this.writeStatus(raw, profile, { ...(profile.status ?? {}), reconciliationSuspended: true, suspensionReason: `annotation ${Annotations.profilePaused} is set` });
      return;
    }

    const clusters = this.matchingClusters(id.kind, profile);
    this.c.metrics?.matchingClusters.set({ profile_kind: id.kind, profile_namespace: id.namespace, profile_name: id.name }, clusters.length);
    const desired = clusters.map((cluster) => ({ cluster, object: summaryFor(id.kind, profile, cluster) }));
    const byName = new Map(existing.map((o) => [`${o.metadata.namespace}/${o.metadata.name}`, o]));
    const wanted = new Set(desired.map((d) => `${d.object.metadata.namespace}/${d.object.metadata.name}`));
    const spec = profile.spec ?? ({} as ClusterProfileSpec);
    // maxUpdate: at most N ClusterSummaries in flight (updated to this spec but not Provisioned yet).
    const limit = maxUpdateCount(spec.maxUpdate, clusters.length);
    let inFlight = 0;
    for (const d of desired) {
      const cur = byName.get(`${d.object.metadata.namespace}/${d.object.metadata.name}`);
      if (!cur || !specUpToDate(cur, d.object)) continue;
      const nc = normalized<ClusterSummary>(cur);
      if (nc.ok && !isProvisioned(nc.object)) inFlight++;
    }
    let deferred = 0;
    const writes: KubeObject[] = [];
    for (const d of desired) {
      const cur = byName.get(`${d.object.metadata.namespace}/${d.object.metadata.name}`);
      if (cur?.metadata.deletionTimestamp) continue; // Still withdrawing; recreated once it is gone.
      if (cur && summaryUpToDate(cur, d.object)) continue;
      let object = d.object;
      if (cur && !specUpToDate(cur, d.object)) {
        // Go: OneTime — a ClusterSummary, once created, is not updated when the profile changes.
        if (spec.syncMode === 'OneTime') object = { ...object, spec: cur.spec };
        else if (inFlight >= limit) {
          deferred++;
          object = { ...object, spec: cur.spec };
        } else inFlight++;
      }
      if (cur && summaryUpToDate(cur, object)) continue;
      writes.push(object);
    }
    try {
      await runLimited(writes, 16, async (o) => {
        await this.c.mgmt.apply(o, { fieldManager: this.c.fieldManager, force: true });
      });
      await this.deleteSummaries(existing.filter((o) => !wanted.has(`${o.metadata.namespace}/${o.metadata.name}`)));
    } catch (err) {
      record(this.c, raw, 'Warning', 'ClusterSummaryWriteFailed', `cannot create, update or delete ClusterSummaries: ${errorMessage(err)}`);
      throw err;
    }
    // Status is fleet-wide: with sharding every shard's manager computes it over all shards' clusters and
    // ClusterSummaries alike, so they agree instead of each overwriting it with its own shard's part.
    const fleet = this.c.registry.hasClustersInOtherShards() ? this.matchingClusters(id.kind, profile, true) : clusters;
    // (own ⊆ fleet: equal sizes mean no other shard has a matching cluster, and the desired list is reused.)
    const status =
      fleet.length === clusters.length
        ? this.status(profile, clusters, desired)
        : this.status(
            profile,
            fleet,
            fleet.map((cluster) => ({ cluster, object: summaryFor(id.kind, profile, cluster) })),
          );
    const before = new Set((profile.status?.matchingClusters ?? []).map((r) => `${r.namespace}/${r.name}`));
    const now = new Set((status.matchingClusters ?? []).map((r) => `${r.namespace}/${r.name}`));
    const added = [...now].filter((k) => !before.has(k));
    const removed = [...before].filter((k) => !now.has(k));
    if (added.length + removed.length > 0) {
      const list = (l: string[]) => (l.length > 10 ? `${l.slice(0, 10).join(', ')} and ${l.length - 10} more` : l.join(', '));
      record(this.c, raw, 'Normal', 'MatchingClusters', `matching ${now.size} cluster(s)${added.length ? `; added ${list(added)}` : ''}${removed.length ? `; removed ${list(removed)}` : ''}`);
    }
    await this.writeStatus(raw, profile, status);
    // Deferred updates resume when an in-flight ClusterSummary reports Provisioned (its status change re-queues us).
    void deferred;
  };

  /** status computes ClusterProfile/Profile status from the selection and the ClusterSummaries' progress. */
  private status(profile: AnyProfile, clusters: ClusterEntry[], desired: { cluster: ClusterEntry; object: KubeObject }[]): ClusterProfileStatus {
    const hash = Buffer.from(sha256Hex(goJSON(profile.spec ?? {})), 'hex').toString('base64');
    const refOf = (e: ClusterEntry): ObjectReference => ({ apiVersion: e.ref.apiVersion, kind: e.ref.kind, namespace: e.ref.namespace, name: e.ref.name });
    const updated: ObjectReference[] = [];
    const updating: ObjectReference[] = [];
    const failed: NonNullable<ClusterProfileStatus['failedClusters']> = [];
    for (const d of desired) {
      const cur = this.c.caches.summaries.cache.get(d.object.metadata.namespace, d.object.metadata.name);
      const nc = cur ? normalized<ClusterSummary>(cur) : undefined;
      const cs = nc?.ok ? nc.object : undefined;
      if (cs && specUpToDate(cur!, d.object) && isProvisioned(cs)) updated.push(refOf(d.cluster));
      else updating.push(refOf(d.cluster));
      const bad = cs?.status?.featureSummaries?.filter((f) => f.status === 'Failed' || f.status === 'FailedNonRetriable') ?? [];
      if (bad.length > 0) failed.push({ clusterRef: refOf(d.cluster), failureMessage: bad.map((f) => `${f.featureID}: ${f.failureMessage ?? f.status}`).join('\n') });
    }
    const out: ClusterProfileStatus = {
      matchingClusters: clusters.map(refOf),
      updatedClusters: { hash, clusters: updated },
      updatingClusters: { hash, clusters: updating },
    };
    if (failed.length > 0) out.failedClusters = failed;
    if (profile.status?.dependenciesHash) out.dependenciesHash = profile.status.dependenciesHash;
    return out;
  }

  private async deleteSummaries(list: readonly KubeObject[]): Promise<void> {
    // A ClusterSummary of a cluster that moved to another shard is that shard's now: it adopts it as it is; deleting
    // it here would withdraw what it deploys. (A deleted cluster is in no shard: its summaries are deleted.)
    const ours = list.filter((o) => !o.metadata.deletionTimestamp && !clusterIndexOf(o).some((k) => this.c.registry.inOtherShard(k)));
    await runLimited(
      ours,
      16,
      async (o) => {
        try {
          await this.c.mgmt.delete({ apiVersion: CONFIG_API, kind: 'ClusterSummary', namespace: o.metadata.namespace, name: o.metadata.name }, { preconditions: { uid: o.metadata.uid } });
        } catch (err) {
          if (!isNotFound(err)) throw err;
        }
      },
    );
  }

  private async setFinalizers(raw: KubeObject, finalizers: string[]): Promise<void> {
    try {
      await this.c.mgmt.patch({ apiVersion: raw.apiVersion, kind: raw.kind, namespace: raw.metadata.namespace, name: raw.metadata.name }, 'json', [
        { op: raw.metadata.finalizers ? 'test' : 'add', path: '/metadata/finalizers', value: raw.metadata.finalizers ?? [] },
        { op: 'replace', path: '/metadata/finalizers', value: finalizers },
      ]);
    } catch (err) {
      if (!isNotFound(err)) throw err;
    }
  }

  private async writeStatus(raw: KubeObject, profile: AnyProfile, status: ClusterProfileStatus): Promise<void> {
    if (goJSON(status) === goJSON(profile.status ?? {})) return;
    try {
      await this.c.mgmt.apply(
        { apiVersion: CONFIG_API, kind: raw.kind, metadata: { name: raw.metadata.name, ...(raw.metadata.namespace ? { namespace: raw.metadata.namespace } : {}) }, status },
        { fieldManager: this.c.fieldManager, force: true, subresource: 'status' },
      );
    } catch (err) {
      if (!isNotFound(err)) throw err;
    }
  }
}
