// helm-owners.ts: which ClusterSummary manages a Helm release when several profiles list the same release
// (releaseNamespace/releaseName) for one cluster — Sveltos' chart manager. The lowest `tier` wins; a tie keeps the
// current manager; the others report the release as Conflict (helmReleaseSummaries status Conflict, conflictMessage)
// and take over when the manager goes away or stops listing it. The decision is pure; ReleaseManagers remembers
// who manages what in this process (rebuilt from the ClusterSummaries' status after a restart).
// Go: addon-controller pkg/chartmanager/chartmanager.go (CanManageChart, RegisterClusterSummaryForCharts),
// controllers/handlers_helm.go (determineChartOwnership)
import type { ClusterSummary, HelmChart } from '../api/index.js';

/** ReleaseClaimant is one ClusterSummary listing a release for a cluster. */
export interface ReleaseClaimant {
  /** ClusterSummary key (`namespace/name`). */
  summary: string;
  /** `ClusterProfile/name` or `Profile/name`, for messages. */
  profile: string;
  tier: number;
  /** Its status says it manages the release (status.helmReleaseSummaries status Managing). */
  managing: boolean;
}

/** releaseKey names a release in a cluster. */
export const releaseKey = (cluster: string, namespace: string, name: string) => `${cluster}|${namespace}/${name}`;

/**
 * decideManager picks the manager of one release among its claimants: the current manager (remembered, else the
 * one whose status says Managing) keeps it unless another claimant has a strictly lower tier; without a current
 * manager the lowest tier wins, and among equals the one asking first (`self`) or else the first by key.
 */
export function decideManager(claimants: readonly ReleaseClaimant[], remembered: string | undefined, self: string): ReleaseClaimant | undefined {
  if (claimants.length === 0) return undefined;
  const current = claimants.find((c) => c.summary === remembered) ?? claimants.find((c) => c.managing);
  const lowest = Math.min(...claimants.map((c) => c.tier));
  if (current && current.tier <= lowest) return current;
  const best = claimants.filter((c) => c.tier === lowest).sort((a, b) => (a.summary < b.summary ? -1 : a.summary > b.summary ? 1 : 0));
  return best.find((c) => c.summary === self) ?? best[0];
}

/** conflictMessage is what a claimant that does not manage the release reports (Sveltos' wording, with the tiers). */
export function conflictMessage(namespace: string, name: string, manager: ReleaseClaimant, self: ReleaseClaimant | undefined): string {
  return (
    `cannot manage chart ${namespace}/${name}. ClusterSummary ${manager.summary} (${manager.profile}, tier ${manager.tier}) managing it` +
    (self ? `; this profile's tier is ${self.tier}: a lower tier takes the release over, otherwise it is installed from here once the manager no longer lists it` : '')
  );
}

/**
 * claimantsOf lists the ClusterSummaries (of one cluster) that list a release, deleted ones and DryRun ones excluded
 * (a DryRun profile never changes the cluster: it neither manages a release nor takes one over).
 */
export function claimantsOf(summaries: readonly ClusterSummary[], namespace: string, name: string, profileOf: (cs: ClusterSummary) => string): ReleaseClaimant[] {
  const out: ReleaseClaimant[] = [];
  for (const cs of summaries) {
    if (cs.metadata.deletionTimestamp) continue;
    const spec = cs.spec?.clusterProfileSpec;
    if (spec?.syncMode === 'DryRun') continue;
    const lists = (spec?.helmCharts ?? []).some((h: HelmChart) => h.releaseNamespace === namespace && h.releaseName === name);
    if (!lists) continue;
    const managing = (cs.status?.helmReleaseSummaries ?? []).some((h) => h.releaseNamespace === namespace && h.releaseName === name && h.status === 'Managing');
    out.push({ summary: `${cs.metadata.namespace}/${cs.metadata.name}`, profile: profileOf(cs), tier: spec?.tier ?? 100, managing });
  }
  return out;
}

/** ReleaseManagers remembers the manager of each release (per cluster) decided in this process. */
export class ReleaseManagers {
  private readonly managers = new Map<string, string>();

  get(key: string): string | undefined {
    return this.managers.get(key);
  }

  set(key: string, summary: string): string | undefined {
    const old = this.managers.get(key);
    this.managers.set(key, summary);
    return old;
  }

  /** release forgets what a ClusterSummary manages (all releases, or those of one cluster); returns their keys. */
  release(summary: string): string[] {
    const out: string[] = [];
    for (const [k, v] of this.managers) {
      if (v !== summary) continue;
      this.managers.delete(k);
      out.push(k);
    }
    return out;
  }

  drop(key: string, summary: string): void {
    if (this.managers.get(key) === summary) this.managers.delete(key);
  }
}
