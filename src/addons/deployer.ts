// deployer.ts: wiring of the add-on deployer — management-cluster informers (ClusterProfiles, Profiles,
// ClusterSummaries, ConfigMaps, Secrets), the two controllers, the indexes that route every change to exactly the
// keys it affects, and the cluster registry's change notifications. `startAddonDeployer` is what `ripple up` /
// `ripple manager` call.
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Annotations } from '../api/index.js';
import { silentLogger, type Logger, type Registry } from '../obs/index.js';
import type { ClusterRegistry } from '../clusters/index.js';
import type { FuncOptions } from '../funcs/index.js';
import { Controller, objectKey, onlyFinalizersChanged, onlyStatusChanged, type EventRecorder, type InformerFactory, type KubeObject, type Subscription } from '../kube/index.js';
import type { AddonContext, Clock } from './context.js';
import { addonMetrics } from './metrics.js';
import { AddonFinalizers, FIELD_MANAGER, profileKey, type ProfileKind } from './names.js';
import { DEPENDS_INDEX, PROFILE_INDEX, ProfileReconciler, dependsIndexOf, profileIndexOf } from './profile-controller.js';
import { CLUSTER_INDEX, SummaryReconciler, clusterIndexOf } from './summary-controller.js';

/** SUMMARY_DEPENDS_INDEX indexes ClusterSummaries by `<cluster key>|<profileKey>` of each profile theirs depends on. */
const SUMMARY_DEPENDS_INDEX = 'addons.summaryDependsOn';

function summaryDependsIndexOf(o: KubeObject): string[] {
  const deps = (o as { spec?: { clusterProfileSpec?: { dependsOn?: unknown } } }).spec?.clusterProfileSpec?.dependsOn;
  const owner = profileIndexOf(o)[0];
  const cluster = clusterIndexOf(o)[0];
  if (!Array.isArray(deps) || !owner || !cluster) return [];
  const prefix = owner.slice(0, owner.indexOf('/') + 1);
  return deps.filter((d): d is string => typeof d === 'string').map((d) => `${cluster}|${prefix}${d}`);
}

/** AddonDeployerOptions configures startAddonDeployer. */
export interface AddonDeployerOptions {
  /** Informer factory of the management cluster (shared with the other components). */
  informers: InformerFactory;
  registry: ClusterRegistry;
  recorder?: EventRecorder;
  logger?: Logger;
  metrics?: Registry;
  /** Time source (status timestamps, template `now`); default: the system clock. */
  clock?: Clock;
  /** Template function options (ONE object per deployer: function maps are cached per object); default: `{ clock }`. */
  funcOptions?: FuncOptions;
  /** Coalescing window of informer-driven work in ms (default 10). */
  coalesceMs?: number;
  /** Concurrent ClusterSummary deployments (default 8) and profile reconciles (default 2). */
  workers?: number;
  profileWorkers?: number;
  /** Field manager of every write (default `ripple-addon-controller`). */
  fieldManager?: string;
  /** How long start waits for the management caches (default 30 s). */
  syncTimeoutMs?: number;
  /** Cache directory of downloaded Helm charts (default: ripple-charts in the OS temporary directory). */
  chartCacheDir?: string;
}

/** AddonDeployer is a running deployer. */
export interface AddonDeployer {
  /** The ClusterSummary controller (tests: queue depth, enqueue). */
  readonly summaries: Controller;
  readonly profiles: Controller;
  stop(): Promise<void>;
}

const CONFIG_API = 'config.projectsveltos.io/v1beta1';

/**
 * startAddonDeployer starts the deployer: waits for the management caches, then runs the profile and ClusterSummary
 * controllers until stop(). Construction is explicit (no globals), so several can run in one process.
 */
export async function startAddonDeployer(options: AddonDeployerOptions): Promise<AddonDeployer> {
  const log = (options.logger ?? silentLogger()).child({ component: 'addons' });
  const clock: Clock = options.clock ?? { now: () => Date.now() };
  const inf = options.informers;
  const subs: Subscription<KubeObject>[] = [];
  const sub = (apiVersion: string, kind: string) => {
    const s = inf.subscribe<KubeObject>({ apiVersion, kind });
    subs.push(s);
    return s.informer;
  };
  const caches = {
    clusterProfiles: sub(CONFIG_API, 'ClusterProfile'),
    profiles: sub(CONFIG_API, 'Profile'),
    summaries: sub(CONFIG_API, 'ClusterSummary'),
    configMaps: sub('v1', 'ConfigMap'),
    secrets: sub('v1', 'Secret'),
  };
  caches.clusterProfiles.addIndexer(DEPENDS_INDEX, dependsIndexOf);
  caches.profiles.addIndexer(DEPENDS_INDEX, dependsIndexOf);
  caches.summaries.addIndexer(PROFILE_INDEX, profileIndexOf);
  caches.summaries.addIndexer(CLUSTER_INDEX, clusterIndexOf);
  caches.summaries.addIndexer(SUMMARY_DEPENDS_INDEX, summaryDependsIndexOf);
  const c: AddonContext = {
    mgmt: inf.client,
    mgmtInformers: inf,
    registry: options.registry,
    recorder: options.recorder,
    log,
    metrics: options.metrics ? addonMetrics(options.metrics) : undefined,
    clock,
    funcOptions: options.funcOptions ?? { clock },
    fieldManager: options.fieldManager ?? FIELD_MANAGER,
    chartCacheDir: options.chartCacheDir ?? join(tmpdir(), 'ripple-charts'),
    caches,
  };
  const coalesceMs = options.coalesceMs ?? 10;
  const removers: (() => void)[] = [];

  let summaryController!: Controller;
  const summaries = new SummaryReconciler(c, (key) => summaryController.enqueue(key));
  summaryController = new Controller({ name: 'addons-summary', reconcile: summaries.reconcile, workers: options.workers ?? 8, logger: log, metrics: options.metrics, coalesceMs });
  const profiles = new ProfileReconciler(c);
  const profileController = new Controller({ name: 'addons-profile', reconcile: profiles.reconcile, workers: options.profileWorkers ?? 2, logger: log, metrics: options.metrics, coalesceMs });

  // Profiles: their own changes (and those of profiles depending on them, which extend their selection).
  const profileKeys = (kind: ProfileKind) => (o: KubeObject) => {
    const keys = [profileKey(kind, o.metadata.namespace, o.metadata.name)];
    for (const dep of ((o as { spec?: { dependsOn?: string[] } }).spec?.dependsOn ?? []) as string[]) keys.push(profileKey(kind, o.metadata.namespace, dep));
    return keys;
  };
  // A profile's own status write (this controller's) changes nothing it reads: no reconcile for it. Nor does its
  // finalizer being added: the reconcile that adds it goes on with the same spec.
  const own = (finalizer: string) => (o: KubeObject, n: KubeObject) => onlyStatusChanged(o, n) || onlyFinalizersChanged(o, n, finalizer);
  profileController.watch(caches.clusterProfiles, profileKeys('ClusterProfile'), own(AddonFinalizers.clusterProfile));
  profileController.watch(caches.profiles, profileKeys('Profile'), own(AddonFinalizers.profile));
  // A profile paused or resumed: its ClusterSummaries re-evaluate (a paused profile updates none of them).
  for (const [kind, view] of [['ClusterProfile', caches.clusterProfiles], ['Profile', caches.profiles]] as const) {
    removers.push(
      view.addHandler({
        onUpdate: (o, n) => {
          if ((o.metadata.annotations?.[Annotations.profilePaused] === undefined) === (n.metadata.annotations?.[Annotations.profilePaused] === undefined)) return;
          for (const cs of caches.summaries.cache.byIndex(PROFILE_INDEX, profileKey(kind, n.metadata.namespace, n.metadata.name))) summaryController.enqueue(objectKey(cs));
        },
      }),
    );
  }
  // ClusterSummaries. A change of spec or metadata (or a deletion) re-queues the ClusterSummary itself and its
  // profile at once. A status-only change (the deployer's own status write, mostly) re-queues only what reads that
  // status: the ClusterSummaries of the same cluster that depend on it or that it depends on (dependsOn), and the
  // profile's status roll-up after a short delay (one roll-up per burst, not one per ClusterSummary).
  // Found through two indexes (not by scanning the cluster's ClusterSummaries, one scan per status write): the
  // summaries of this cluster whose profile depends on this one's, and those of the profiles this one depends on.
  const related = (o: KubeObject): string[] => {
    const spec = (o as { spec?: { clusterName?: string; clusterProfileSpec?: { dependsOn?: string[] } } }).spec;
    const owner = profileIndexOf(o)[0];
    const cluster = clusterIndexOf(o)[0];
    if (!owner || !spec?.clusterName || !cluster) return [];
    const prefix = owner.slice(0, owner.indexOf('/') + 1); // `<kind>:<namespace>/`: dependsOn names profiles of the same kind and namespace.
    const keys = new Set<string>();
    for (const other of caches.summaries.cache.byIndex(SUMMARY_DEPENDS_INDEX, `${cluster}|${owner}`)) if (other !== o) keys.add(objectKey(other));
    for (const dep of spec.clusterProfileSpec?.dependsOn ?? []) {
      for (const other of caches.summaries.cache.byIndex(PROFILE_INDEX, prefix + dep)) if (other !== o && clusterIndexOf(other)[0] === cluster) keys.add(objectKey(other));
    }
    return [...keys];
  };
  const ROLLUP_MS = Math.max(coalesceMs, 50);
  const anyChange = (o: KubeObject) => {
    summaryController.enqueue(objectKey(o));
    for (const k of related(o)) summaryController.enqueue(k);
    for (const p of profileIndexOf(o)) profileController.enqueue(p);
  };
  removers.push(
    caches.summaries.addHandler({
      onAdd: anyChange,
      onDelete: anyChange,
      onUpdate: (old, o) => {
        if (!onlyStatusChanged(old, o)) return anyChange(o);
        for (const k of related(o)) summaryController.enqueue(k);
        // The profile reads only the features' states of a ClusterSummary's status (Provisioned, failures): a status
        // write that changes neither (hashes, times of a redeploy) leaves its roll-up as it is.
        if (featureStates(old) !== featureStates(o)) for (const p of profileIndexOf(o)) profileController.enqueueAfter(p, ROLLUP_MS);
      },
    }),
  );
  // Referenced ConfigMaps/Secrets: exactly their readers.
  for (const s of [caches.configMaps, caches.secrets]) {
    removers.push(s.addHandler({
      onAdd: (o) => summaries.onReferenceChange(undefined, o),
      onUpdate: (o, n) => summaries.onReferenceChange(o, n),
      onDelete: (o) => summaries.onReferenceChange(o, undefined),
    }));
  }
  // Clusters: re-select every profile; re-deploy that cluster's ClusterSummaries.
  const removeClusterListener = options.registry.onChange((e) => {
    for (const p of caches.clusterProfiles.cache.list()) profileController.enqueue(profileKey('ClusterProfile', undefined, p.metadata.name));
    for (const p of caches.profiles.cache.list()) profileController.enqueue(profileKey('Profile', p.metadata.namespace, p.metadata.name));
    summaries.onClusterEvent(e);
  });

  const timeoutMs = options.syncTimeoutMs ?? 30_000;
  await Promise.all(Object.values(caches).map((i) => i.waitForSync({ timeoutMs })));
  summaryController.start();
  profileController.start();
  log.info('add-on deployer started');

  return {
    summaries: summaryController,
    profiles: profileController,
    async stop() {
      removeClusterListener();
      for (const r of removers) r();
      await profileController.stop();
      await summaryController.stop();
      await summaries.drift.stop();
      await summaries.health.stop();
      await summaries.lua.close();
      await summaries.pull.stop();
      await summaries.kinds.stop();
      await summaries.kustomize.stop();
      await summaries.tenants.close();
      await Promise.all(subs.map((s) => s.unsubscribe()));
    },
  };
}

/** featureStates is what profile status reads of a ClusterSummary's status: each feature's id, state and failure. */
function featureStates(o: KubeObject): string {
  const fs = (o as { status?: { featureSummaries?: { featureID?: string; status?: string; failureMessage?: string }[] } }).status?.featureSummaries ?? [];
  return JSON.stringify(fs.map((f) => [f.featureID, f.status, f.failureMessage]));
}
