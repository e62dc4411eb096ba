// The ClusterSet/Set controller: status.matchingClusterRefs = ready clusters selected by spec.clusterSelector and
// spec.clusterRefs; status.selectedClusterRefs = up to spec.maxReplicas of those whose connection is not Down,
// keeping clusters already selected (so a set is sticky) and filling up in key order. clusterSetRefs of profiles
// and triggers read selectedClusterRefs. Re-evaluated whenever a set or any cluster changes.
// Go: addon-controller controllers/set_utils.go (selectClusters, selectMoreClusters, pruneConnectionDownClusters),
// clusterset_controller.go reconcileNormal. Deliberate fix: Sveltos trims an over-full selection to maxReplicas-1.
import type { Registry } from 'prom-client';
import type { LabelSelector } from '../api/index.js';
import { Controller, type InformerFactory, type KubeObject, type Subscription } from '../kube/index.js';
import type { Logger } from '../obs/index.js';
import { CLUSTER_SET, SET, refKey, type ClusterEntry, type ClusterRefLike } from './cluster.js';
import type { ClusterRegistry } from './registry.js';

/** ObjectRefOut is a cluster reference as written to ClusterSet status (corev1.ObjectReference fields). */
export interface ObjectRefOut {
  apiVersion: string;
  kind: string;
  namespace: string;
  name: string;
}

type SetObject = KubeObject & {
  spec?: { clusterSelector?: LabelSelector; clusterRefs?: ClusterRefLike[]; maxReplicas?: number };
  status?: { matchingClusterRefs?: ClusterRefLike[]; selectedClusterRefs?: ClusterRefLike[] };
};

/**
 * selectClusters picks the selected set (pure): previously selected clusters that are still healthy matches come
 * first (stickiness), then other healthy matches in order, up to maxReplicas (0 or unset selects none, as in Sveltos).
 */
export function selectClusters<T extends { key: string }>(previous: readonly string[], healthy: readonly T[], maxReplicas: number | undefined): T[] {
  const max = maxReplicas ?? 0;
  if (max <= 0) return [];
  const byKey = new Map(healthy.map((h) => [h.key, h]));
  const out: T[] = [];
  const taken = new Set<string>();
  for (const k of previous) {
    const h = byKey.get(k);
    if (h && !taken.has(k) && out.length < max) {
      out.push(h);
      taken.add(k);
    }
  }
  for (const h of healthy) {
    if (out.length >= max) break;
    if (!taken.has(h.key)) {
      out.push(h);
      taken.add(h.key);
    }
  }
  return out;
}

function refOut(e: ClusterEntry): ObjectRefOut {
  return { apiVersion: e.ref.apiVersion, kind: e.ref.kind, namespace: e.ref.namespace, name: e.ref.name };
}

/** ClusterSetControllerOptions configures the ClusterSet/Set controller. */
export interface ClusterSetControllerOptions {
  registry: ClusterRegistry;
  informers: InformerFactory;
  logger?: Logger;
  metrics?: Registry;
  workers?: number;
}

/** ClusterSetController maintains ClusterSet and Set status; see the file comment. */
export class ClusterSetController {
  private readonly controller: Controller;
  private clusterSets: Subscription<SetObject> | undefined;
  private sets: Subscription<SetObject> | undefined;
  private removeListener: (() => void) | undefined;

  constructor(private readonly options: ClusterSetControllerOptions) {
    this.controller = new Controller({
      name: 'clusterset',
      workers: options.workers ?? 2,
      logger: options.logger,
      metrics: options.metrics,
      reconcile: (key) => this.reconcile(key),
    });
  }

  /** start subscribes to ClusterSets, Sets and cluster changes. */
  start(): void {
    if (this.sets) return;
    this.clusterSets = this.options.informers.subscribe<SetObject>(CLUSTER_SET);
    this.sets = this.options.informers.subscribe<SetObject>(SET);
    this.controller.watch(this.clusterSets.informer, (o) => `ClusterSet/${o.metadata.name}`);
    this.controller.watch(this.sets.informer, (o) => `Set/${o.metadata.namespace}/${o.metadata.name}`);
    // Any cluster change may change any set's matches: sets are few, so re-evaluate them all.
    this.removeListener = this.options.registry.onChange((e) => {
      if (e.kind !== 'cluster') return;
      for (const o of this.clusterSets?.informer.cache.list() ?? []) this.controller.enqueue(`ClusterSet/${o.metadata.name}`);
      for (const o of this.sets?.informer.cache.list() ?? []) this.controller.enqueue(`Set/${o.metadata.namespace}/${o.metadata.name}`);
    });
    this.controller.start();
  }

  async stop(): Promise<void> {
    this.removeListener?.();
    await this.controller.stop();
    await this.clusterSets?.unsubscribe();
    await this.sets?.unsubscribe();
    this.clusterSets = this.sets = undefined;
  }

  private async reconcile(key: string): Promise<void> {
    const parts = key.split('/');
    const isSet = parts[0] === 'Set';
    const namespace = isSet ? parts[1] : undefined;
    const name = isSet ? parts[2] : parts[1];
    const obj = (isSet ? this.sets : this.clusterSets)?.informer.cache.get(namespace, name);
    if (!obj || obj.metadata.deletionTimestamp) return;
    const spec = obj.spec ?? {};
    // Fleet-wide (every shard): each shard's manager computes the same status, so they never flip it back and forth.
    const matching = this.options.registry.matching({ clusterSelector: spec.clusterSelector ?? null, clusterRefs: spec.clusterRefs ?? [], namespace }, { includePaused: true, allShards: true });
    const healthy = matching.filter((e) => e.connectionStatus !== 'Down');
    const previous = (obj.status?.selectedClusterRefs ?? []).map((r) => refKey(r)).filter((k): k is string => k !== undefined);
    const selected = selectClusters(previous, healthy, spec.maxReplicas);
    const status = { matchingClusterRefs: matching.map(refOut), selectedClusterRefs: selected.map(refOut) };
    const same = (a: ClusterRefLike[] | undefined, b: ObjectRefOut[]) => JSON.stringify((a ?? []).map((r) => refKey(r))) === JSON.stringify(b.map((r) => refKey(r)));
    if (same(obj.status?.matchingClusterRefs, status.matchingClusterRefs) && same(obj.status?.selectedClusterRefs, status.selectedClusterRefs)) return;
    const gvk = isSet ? SET : CLUSTER_SET;
    await this.options.registry.mgmt.patch({ ...gvk, namespace, name }, 'merge', { status }, { subresource: 'status' });
  }
}
