// drift.ts: drift detection for syncMode ContinuousWithDriftDetection. Sveltos deploys a drift-detection-manager and a
// ResourceSummary into each managed cluster; Ripple watches the deployed objects directly through shared informers
// (per target cluster and kind, selected by the `projectsveltos.io/reason` label) and compares each change with what
// the ClusterSummary applied. A manual edit or deletion re-queues the ClusterSummary, which re-applies.
// Objects annotated `projectsveltos.io/driftDetectionIgnore` and driftExclusions paths are not compared.
// Go: libsveltos lib/deployer/drift_detection_utils.go; drift-detection-manager (evaluation of ResourceSummary)
import { Annotations, Labels } from '../api/index.js';
import type { ClusterRegistry } from '../clusters/index.js';
import { errorMessage, type InformerFactory, type InformerView, type KubeObject, type Subscription } from '../kube/index.js';
import type { Logger } from '../obs/index.js';
import { containsDesired } from './diff.js';
import { groupOf } from './plan.js';

/** TrackedObject is one deployed object drift detection compares against. */
export interface TrackedObject {
  /** `local` (management cluster) or the cluster registry key of the managed cluster. */
  cluster: string;
  apiVersion: string;
  kind: string;
  namespace?: string;
  name: string;
  /** What must still be present (desired object without drift-excluded paths). */
  expected: KubeObject;
  /** The `projectsveltos.io/clustersummary` stamp we wrote: another value means someone else owns it now. */
  clusterSummary: string;
  /** Not labelled `projectsveltos.io/reason` (Helm chart objects): watched through an unfiltered informer. */
  unlabelled?: boolean;
}

/** watchKey names one informer subscription: cluster, kind, and `*` for an unfiltered one. */
const watchKey = (o: { cluster: string; apiVersion: string; kind: string; unlabelled?: boolean }) => `${o.cluster}|${o.apiVersion}|${o.kind}${o.unlabelled ? '|*' : ''}`;

/** LOCAL is the tracking key of the management cluster. */
export const LOCAL = 'local';

interface Watched {
  sub: Subscription<KubeObject> | undefined;
  pending?: Promise<void>;
  users: Set<string>;
}

const objKey = (cluster: string, apiVersion: string, kind: string, ns: string | undefined, name: string) =>
  `${cluster}|${groupOf(apiVersion)}|${kind}|${ns ?? ''}|${name}`;

/** DriftWatcher tracks the objects of drift-detecting ClusterSummaries and reports drift through onDrift. */
export class DriftWatcher {
  private readonly tracked = new Map<string, { summary: string; obj: TrackedObject }>();
  private readonly bySummary = new Map<string, { hash: string; keys: string[]; watches: Set<string> }>();
  private readonly watches = new Map<string, Watched>();
  private stopped = false;

  constructor(
    private readonly registry: ClusterRegistry,
    private readonly mgmtInformers: InformerFactory,
    private readonly onDrift: (summary: string, what: string) => void,
    private readonly log: Logger,
  ) {}

  /** trackedHash returns the input hash a ClusterSummary was last tracked at (undefined: not tracked). */
  trackedHash(summary: string): string | undefined {
    return this.bySummary.get(summary)?.hash;
  }

  /**
   * track replaces what a ClusterSummary is tracked for, subscribing to the informers it needs. With checkNow
   * (the caller wrote nothing, so the caches are not behind its own writes) objects in the synced caches are
   * checked at once, so drift that happened while Ripple was down is caught.
   */
  async track(summary: string, hash: string, objects: readonly TrackedObject[], checkNow: boolean): Promise<void> {
    const prev = this.bySummary.get(summary);
    for (const k of prev?.keys ?? []) if (this.tracked.get(k)?.summary === summary) this.tracked.delete(k);
    const keys: string[] = [];
    const watches = new Set<string>();
    for (const o of objects) {
      const k = objKey(o.cluster, o.apiVersion, o.kind, o.namespace, o.name);
      this.tracked.set(k, { summary, obj: o });
      keys.push(k);
      watches.add(watchKey(o));
    }
    this.bySummary.set(summary, { hash, keys, watches });
    for (const w of prev?.watches ?? []) if (!watches.has(w)) this.releaseWatch(w, summary);
    await Promise.all([...watches].map((w) => this.acquireWatch(w, summary)));
    if (!checkNow) return;
    for (const k of keys) {
      const t = this.tracked.get(k);
      if (!t) continue;
      const view = this.watches.get(watchKey(t.obj))?.sub?.informer;
      if (!view?.hasSynced()) continue;
      const live = view.cache.get(t.obj.namespace, t.obj.name);
      if (!live) this.onDrift(summary, `${t.obj.kind} ${t.obj.namespace ?? ''}/${t.obj.name} is missing`);
      else this.check(k, live);
    }
  }

  /** untrack stops tracking a ClusterSummary. */
  untrack(summary: string): void {
    const prev = this.bySummary.get(summary);
    if (!prev) return;
    for (const k of prev.keys) if (this.tracked.get(k)?.summary === summary) this.tracked.delete(k);
    for (const w of prev.watches) this.releaseWatch(w, summary);
    this.bySummary.delete(summary);
  }

  /** dropCluster forgets the informers of a cluster whose client changed or which went away; returns affected summaries. */
  dropCluster(cluster: string): string[] {
    const affected = new Set<string>();
    for (const [w, watched] of this.watches) {
      if (!w.startsWith(`${cluster}|`)) continue;
      for (const u of watched.users) affected.add(u);
      this.watches.delete(w);
      void watched.sub?.unsubscribe();
    }
    for (const s of affected) {
      const e = this.bySummary.get(s);
      if (e) e.hash = ''; // re-track on the next reconcile
    }
    return [...affected];
  }

  private async acquireWatch(w: string, summary: string): Promise<void> {
    let watched = this.watches.get(w);
    if (watched) {
      watched.users.add(summary);
      await watched.pending;
      return;
    }
    watched = { sub: undefined, users: new Set([summary]) };
    this.watches.set(w, watched);
    const cur = watched;
    cur.pending = (async () => {
      const [cluster, apiVersion, kind, all] = w.split('|');
      let factory: InformerFactory;
      try {
        factory = cluster === LOCAL ? this.mgmtInformers : await this.registry.informers(cluster);
      } catch (err) {
        this.log.warn({ cluster, err: errorMessage(err) }, 'drift detection cannot watch cluster');
        this.watches.delete(w);
        return;
      }
      if (this.stopped || this.watches.get(w) !== cur) return;
      cur.sub = factory.subscribe<KubeObject>(
        { apiVersion, kind, labelSelector: all === '*' ? undefined : Labels.reason },
        {
          onAdd: (o) => this.onEvent(cluster, o, false),
          onUpdate: (_old, o) => this.onEvent(cluster, o, false),
          onDelete: (o) => this.onEvent(cluster, o, true),
        },
      );
      // Give the first list a moment so track() can check existing objects; never block reconciles for long.
      await cur.sub.informer.waitForSync({ timeoutMs: 2000 }).catch(() => undefined);
    })();
    await cur.pending;
  }

  private releaseWatch(w: string, summary: string): void {
    const watched = this.watches.get(w);
    if (!watched) return;
    watched.users.delete(summary);
    if (watched.users.size > 0) return;
    this.watches.delete(w);
    void watched.sub?.unsubscribe();
  }

  private onEvent(cluster: string, o: KubeObject, deleted: boolean): void {
    const k = objKey(cluster, o.apiVersion, o.kind, o.metadata.namespace, o.metadata.name);
    if (!this.tracked.has(k)) return;
    if (deleted) {
      const t = this.tracked.get(k)!;
      this.onDrift(t.summary, `${o.kind} ${o.metadata.namespace ?? ''}/${o.metadata.name} was deleted`);
      return;
    }
    this.check(k, o);
  }

  private check(k: string, live: KubeObject): void {
    const t = this.tracked.get(k);
    if (!t) return;
    const anns = live.metadata.annotations ?? {};
    if (anns[Annotations.driftDetectionIgnore] !== undefined) return;
    // Another ClusterSummary (e.g. a lower-tier profile) owns it now: that is a conflict, reported elsewhere.
    if (anns[Annotations.clusterSummary] !== undefined && anns[Annotations.clusterSummary] !== t.obj.clusterSummary) return;
    if (!containsDesired(live, t.obj.expected)) this.onDrift(t.summary, `${live.kind} ${live.metadata.namespace ?? ''}/${live.metadata.name} was changed`);
  }

  /** informerFor returns the drift informer of a tracked kind (tests and diagnostics). */
  informerFor(cluster: string, apiVersion: string, kind: string): InformerView<KubeObject> | undefined {
    return this.watches.get(`${cluster}|${apiVersion}|${kind}`)?.sub?.informer;
  }

  /** stop ends every watch. */
  async stop(): Promise<void> {
    this.stopped = true;
    const all = [...this.watches.values()];
    this.watches.clear();
    await Promise.all(all.map(async (w) => {
      await w.pending;
      await w.sub?.unsubscribe();
    }));
  }
}
