// summary-controller.ts: ClusterSummary → deployment. For one (profile, cluster): read the referenced ConfigMaps/
// Secrets and templateResourceRefs objects from the management caches, hash them with the spec; when that hash, the
// feature status and drift say nothing changed, stop (no reads of the cluster, no writes). Otherwise render, stamp,
// read the objects from the target clusters, plan, execute, and write status (featureSummaries, deployedGVKs), a
// ClusterReport in DryRun, Events and metrics. Deletion withdraws (or, with LeavePolicies, un-stamps) what was
// deployed, then releases the finalizer.
// Go: addon-controller controllers/clustersummary_controller.go, clustersummary_deployer.go, handlers_resources.go
import {
  Annotations,
  Labels,
  type ClusterProfileSpec,
  type ClusterSummary,
  type ClusterSummaryStatus,
  type ClusterType,
} from '../api/index.js';
import { ClusterError, clusterKey, type ClusterEntry, type ClusterEvent } from '../clusters/index.js';
import {
  errorMessage,
  isKindNotInstalled,
  isNotFound,
  type KubeClient,
  type KubeObject,
  type ReconcileContext,
  type ReconcileResult,
} from '../kube/index.js';
import {
  missingTemplateResource,
  renderDesired,
  resolvePolicyRefs,
  resolveTemplateResourceRefs,
  type DesiredResult,
  type FeatureFailure,
  type ResolvedRef,
} from './desired.js';
import { normalized, profileOfSummary, record, rfc3339, type AddonContext } from './context.js';
import { LOCAL, DriftWatcher, type TrackedObject } from './drift.js';
import { execute, isTransient, refOf, RetryableError, type ExecuteOutcome, type ObjectResult } from './execute.js';
import {
  AddonFinalizers,
  clusterReportName,
  clusterSummaryAnnotationValue,
  clusterSummaryName,
  gvkString,
  parseGvkString,
  profileLabelKey,
  AddonLabels,
  ADOPTED_ANNOTATION,
  REASON_RESOURCES,
  type ProfileKind,
} from './names.js';
import { appliedDigest, comparable, groupOf, identityKey, identityOf, plan, planWithdrawal, type Action, type DesiredObject, type KnownObject, type Target } from './plan.js';
import { fingerprint, KindWatcher, ReferenceIndex, refKey, type RefEntry } from './refs.js';
import { PolicyRenderer } from './render.js';
import { goJSON, sha256Hex, STAMP_ANNOTATIONS } from './stamp.js';
import { HELM_FEATURE, HelmFeature, unhonouredOptions, type HelmChartResult, type ReleaseReport } from './helm-feature.js';
import { claimantsOf, conflictMessage, decideManager, releaseKey, ReleaseManagers } from './helm-owners.js';
import { ChartCache } from '../charts/index.js';
import { HealthGate, isHealthGated, LuaHost } from './health-feature.js';
import { planRestarts, restartWorkloads } from './reloader.js';
import { luaPolicyRunner } from './lua-policy.js';
import { KUSTOMIZE_FEATURE, KustomizeFeature, setFeatureGvks } from './kustomize-feature.js';
import { isPullMode, PullModeHandler } from './pull-mode.js';
import type { Tenant } from '../tenancy/index.js';
import { TenantAccess, tenantReads } from './tenant.js';

type Feature = NonNullable<ClusterSummaryStatus['featureSummaries']>[number];

/** Inputs is everything a deployment depends on in the management cluster. */
interface Inputs {
  refs: ResolvedRef[];
  mgmtResources: Record<string, KubeObject>;
  hash: string;
  warnings: string[];
}

/** DeployResult is a deployment pass's verdict: the Resources feature status, the controller result, the kinds deployed. */
interface DeployResult {
  feature: Feature;
  result: ReconcileResult | void;
  gvks?: string[];
}

/** Pass is one reconcile of one ClusterSummary: what every step needs to know about it. */
interface Pass {
  /** The work-queue key (`namespace/name`). */
  key: string;
  /** The cached object (for metadata, Events and writes). */
  raw: KubeObject;
  /** The same, normalised. */
  cs: ClusterSummary;
  spec: ClusterProfileSpec;
  profile: { kind: ProfileKind; name: string };
  type: ClusterType;
  /** The registered cluster (absent when it is gone: only withdrawal runs then). */
  entry: ClusterEntry | undefined;
  rctx: ReconcileContext;
  /** The tenant the deployment acts as (tenant.ts); undefined: the platform admin. */
  tenant?: Tenant;
}

const RESOURCES = 'Resources';
/** Suffix of the drift-tracking id of a ClusterSummary's Helm chart objects. */
const HELM_DRIFT = '#helm';
const hexToBase64 = (hex: string) => Buffer.from(hex, 'hex').toString('base64');

/** isProvisioned is true when every feature the spec asks for is Provisioned. Go: isCluterSummaryProvisioned */
export function isProvisioned(cs: ClusterSummary): boolean {
  const spec = cs.spec.clusterProfileSpec ?? ({} as ClusterProfileSpec);
  const features = cs.status?.featureSummaries ?? [];
  const needed = [RESOURCES];
  if ((spec.helmCharts ?? []).length > 0) needed.push('Helm');
  if ((spec.kustomizationRefs ?? []).length > 0) needed.push('Kustomize');
  return needed.every((f) => features.some((s) => s.featureID === f && s.status === 'Provisioned'));
}

/** SummaryReconciler deploys ClusterSummaries; see the file comment. */
export class SummaryReconciler {
  readonly index = new ReferenceIndex();
  readonly kinds: KindWatcher;
  readonly drift: DriftWatcher;
  private readonly renderer: PolicyRenderer;
  readonly tenants: TenantAccess;
  /** Identity keys a ClusterSummary deployed in its last complete pass (lets stale detection skip the scan). */
  private readonly lastDeployed = new Map<string, Set<string>>();
  /** Kinds this process recorded in a ClusterSummary's deployedGVKs (the cache may not show the write yet). */
  private readonly gvksRecorded = new Map<string, Set<string>>();
  /** What each ClusterSummary last wrote per object (resourceVersion + digest): updates without reading first. */
  private readonly known = new Map<string, Map<string, KnownObject>>();
  private readonly driftPending = new Set<string>();
  /** ClusterSummaries that must take the full path once (ownership moved, a competitor withdrew). */
  private readonly forceFull = new Set<string>();
  /** Per cluster key: ClusterSummaries reporting a conflict (re-evaluated when another one withdraws). */
  private readonly conflicted = new Map<string, Set<string>>();
  /** Namespaces known to exist per target client (`name|ns`). */
  private readonly namespaces = new Set<string>();
  /** ClusterSummaries with a DryRun ClusterReport written by this process / checked for a stale one. */
  private readonly reported = new Set<string>();
  private readonly reportChecked = new Set<string>();
  private readonly helm: HelmFeature;
  /** validateHealths gating (health-feature.ts) and the Lua runtime it shares with Lua policies. */
  readonly lua = new LuaHost();
  readonly health: HealthGate;
  readonly kustomize: KustomizeFeature;
  /** Which ClusterSummary manages each Helm release of a cluster (tier conflicts, helm-owners.ts). */
  private readonly releaseManagers = new ReleaseManagers();
  /** SveltosClusters in pull mode: ConfigurationGroups instead of connections (pull-mode.ts). */
  readonly pull: PullModeHandler;

  constructor(
    private readonly c: AddonContext,
    private readonly enqueue: (key: string) => void,
  ) {
    this.renderer = new PolicyRenderer(c.funcOptions);
    this.tenants = new TenantAccess(c.mgmtInformers, c.mgmt);
    this.helm = new HelmFeature(c, this.renderer, new ChartCache(c.chartCacheDir));
    this.pull = new PullModeHandler(c, this.renderer, enqueue);
    this.kinds = new KindWatcher(c.mgmtInformers, this.index, enqueue);
    this.health = new HealthGate(c.registry, this.lua, enqueue, c.log);
    this.kustomize = new KustomizeFeature(
      c,
      this.renderer,
      enqueue,
      (old) => {
        this.forceFull.add(old);
        enqueue(old);
      },
      (cluster, key) => this.wakeConflicted(cluster, key),
    );
    this.drift = new DriftWatcher(
      c.registry,
      c.mgmtInformers,
      (tracked, what) => {
        // Helm chart objects are tracked under `key#helm` (their own set next to the Resources feature's).
        const summary = tracked.endsWith(HELM_DRIFT) ? tracked.slice(0, -HELM_DRIFT.length) : tracked;
        if (!this.driftPending.has(summary)) {
          const [ns, name] = summary.split('/');
          c.log.debug({ summary, what }, 'configuration drift');
          c.metrics?.drifts.inc({ cluster_namespace: ns, cluster_name: name });
        }
        this.driftPending.add(summary);
        enqueue(summary);
      },
      c.log,
    );
  }

  /** onClusterEvent re-queues the ClusterSummaries of a cluster that changed (and re-watches its objects). */
  onClusterEvent(e: ClusterEvent): void {
    if (e.kind !== 'cluster') return;
    const key = e.entry.key;
    if (e.type === 'removed' || (e.type === 'updated' && e.changed.includes('kubeconfig'))) {
      for (const s of [...this.drift.dropCluster(key), ...this.health.dropCluster(key), ...this.kustomize.dropCluster(key)]) this.enqueue(s);
      for (const n of [...this.namespaces]) if (n.startsWith(`${key}|`)) this.namespaces.delete(n);
    }
    for (const cs of this.c.caches.summaries.cache.byIndex(CLUSTER_INDEX, key)) this.enqueue(`${cs.metadata.namespace}/${cs.metadata.name}`);
  }

  /** onReferenceChange re-queues the readers of a changed ConfigMap/Secret. */
  onReferenceChange(o: KubeObject | undefined, n: KubeObject | undefined): void {
    const obj = (n ?? o)!;
    for (const s of this.index.affected(refKey('v1', obj.kind, obj.metadata.namespace, obj.metadata.name), o, n)) this.enqueue(s);
    for (const s of this.kustomize.affected(o, n)) this.enqueue(s);
  }

  /** reconcile brings one ClusterSummary's deployment in line; level-based, never told what changed. */
  reconcile = async (key: string, rctx: ReconcileContext): Promise<ReconcileResult | void> => {
    const raw = this.c.caches.summaries.cache.getByKey(key);
    if (!raw) {
      this.forget(key);
      return;
    }
    const n = normalized<ClusterSummary>(raw);
    if (!n.ok) {
      record(this.c, raw, 'Warning', 'InvalidClusterSummary', `cannot read ClusterSummary: ${n.message}`);
      return;
    }
    const cs = n.object;
    const profile = profileOfSummary(cs);
    if (!profile) {
      record(this.c, raw, 'Warning', 'InvalidClusterSummary', 'ClusterSummary names no ClusterProfile/Profile (ownerReference or profile label)');
      return;
    }
    const type = (cs.spec.clusterType === 'Capi' ? 'Capi' : 'Sveltos') as ClusterType;
    const entry = this.c.registry.get(clusterKey(type, cs.spec.clusterNamespace, cs.spec.clusterName));
    if (!entry && this.c.registry.inOtherShard(clusterKey(type, cs.spec.clusterNamespace, cs.spec.clusterName))) {
      // The cluster moved to another shard: let go without cleanup (no withdraw, no status, no finalizer change);
      // that shard's manager adopts this ClusterSummary and what it deployed.
      this.forget(key);
      return;
    }
    const pass: Pass = { key, raw, cs, spec: cs.spec.clusterProfileSpec ?? ({} as ClusterProfileSpec), profile, type, entry, rctx };
    if (cs.metadata.deletionTimestamp) return this.withdraw(pass);
    // Paused: the annotation copied from the profile, or on the profile itself (a paused profile updates nothing).
    const owner = this.profileObject(profile, raw.metadata.namespace);
    if (cs.metadata.annotations?.[Annotations.profilePaused] !== undefined || owner?.metadata.annotations?.[Annotations.profilePaused] !== undefined) {
      return this.writeStatus(raw, cs, { ...(cs.status ?? {}), reconciliationSuspended: true, suspensionReason: `${profile.kind} ${profile.name} is paused (annotation ${Annotations.profilePaused})` });
    }
    // No registered cluster, or a paused one: nothing may be written there; the cluster's events re-queue us.
    if (!entry || entry.paused) return;
    const tenancy = this.tenants.resolve(raw.metadata.labels);
    if (tenancy.kind === 'invalid') return this.refuseTenant(pass, tenancy.message);
    if (tenancy.kind === 'tenant') pass.tenant = tenancy.tenant;
    const spec = pass.spec;
    const status: ClusterSummaryStatus = { ...(cs.status ?? {}) };
    delete status.reconciliationSuspended;
    delete status.suspensionReason;
    const prevFeature = status.featureSummaries?.find((f) => f.featureID === RESOURCES);

    // Dependencies: deploy only after the profiles this one depends on are Provisioned in this cluster.
    const waiting = this.unmetDependencies(cs, profile.kind, type);
    status.dependencies = waiting ?? ((spec.dependsOn ?? []).length > 0 ? 'All dependencies deployed' : 'no dependencies');
    let features = (status.featureSummaries ?? []).filter((f) => f.featureID === RESOURCES || f.featureID === HELM_FEATURE || f.featureID === KUSTOMIZE_FEATURE);
    // Helm charts first (Sveltos' order: a chart often installs the CRDs the profile's policies then use).
    let helmRequeue = false;
    if (!waiting && spec.syncMode === 'DryRun' && (spec.helmCharts ?? []).length > 0) {
      const h = await this.dryRunHelm(pass, entry, status);
      features = [...features.filter((f) => f.featureID !== HELM_FEATURE), h];
    } else if (!waiting && spec.syncMode !== 'DryRun' && ((spec.helmCharts ?? []).length > 0 || (status.helmReleaseSummaries ?? []).length > 0)) {
      const h = await this.deployHelm(pass, entry, status);
      if (h.feature && (h.feature.status === 'Provisioned' || isHealthGated(h.feature))) h.feature = await this.gateHealth(pass, entry, h.feature, status);
      features = [...features.filter((f) => f.featureID !== HELM_FEATURE), ...(h.feature ? [h.feature] : [])];
      helmRequeue = h.requeue || h.feature?.status === 'Failed';
    }
    // Kustomize (kustomize-feature.ts): its own status entry, deployedGVKs entry, drift watches and Events.
    if (!waiting && KustomizeFeature.wanted(cs)) {
      const recordKinds = (gvks: string[]) => this.writeStatus(raw, cs, { ...status, deployedGVKs: setFeatureGvks(status.deployedGVKs, KUSTOMIZE_FEATURE, gvks) });
      const k = await this.kustomize.reconcile({ key, raw, cs, spec, profile: { ...profile, namespace: raw.metadata.namespace }, type, entry, status, signal: rctx.signal, forced: this.forceFull.has(key), recordKinds });
      features = [...features.filter((f) => f.featureID !== KUSTOMIZE_FEATURE), ...(k.feature ? [k.feature] : [])];
      if (k.gvks) status.deployedGVKs = setFeatureGvks(status.deployedGVKs, KUSTOMIZE_FEATURE, k.gvks);
      helmRequeue ||= k.requeue;
    }
    if (waiting) {
      if (!prevFeature) features = [{ featureID: RESOURCES, status: 'Provisioning' }, ...features];
      return this.writeStatus(raw, cs, { ...status, featureSummaries: features });
    }
    if (spec.syncMode === 'OneTime' && prevFeature?.status === 'Provisioned') {
      return this.writeStatus(raw, cs, { ...status, featureSummaries: features });
    }

    const gathered = await this.gather(pass, entry);
    let feature: Feature;
    let result: ReconcileResult | void;
    if (!gathered.ok) {
      feature = this.failedFeature(prevFeature, gathered.failure, undefined);
      record(this.c, raw, 'Warning', gathered.failure.reason, gathered.failure.message);
      this.c.metrics?.outcomes.inc({ feature: RESOURCES, outcome: 'failed' });
      result = gathered.failure.nonRetriable ? undefined : { requeue: true };
    } else {
      const inputs = gathered.inputs;
      const statusHash = hexToBase64(inputs.hash);
      const drifting = spec.syncMode === 'ContinuousWithDriftDetection';
      const quiet =
        prevFeature?.hash === statusHash &&
        (prevFeature.status === 'Provisioned' || isHealthGated(prevFeature)) &&
        !this.driftPending.has(key) &&
        !this.forceFull.has(key) &&
        (!drifting || this.drift.trackedHash(key) === inputs.hash);
      if (quiet) {
        // Deployed and unchanged; a feature still waiting for its validateHealths evaluates them again.
        const f = isHealthGated(prevFeature) ? await this.gateHealth(pass, entry, prevFeature, status) : prevFeature;
        await this.writeStatus(raw, cs, { ...status, featureSummaries: [f, ...features.filter((f) => f.featureID !== RESOURCES)] });
        // A check that failed for a transient reason (cluster unreachable) retries with the controller's capped backoff.
        return helmRequeue || f.status === 'Failed' ? { requeue: true } : undefined;
      }
      // Drift, or an ownership move: read every object again instead of trusting what we last wrote.
      if (this.driftPending.has(key) || this.forceFull.has(key)) this.known.delete(key);
      this.driftPending.delete(key);
      this.forceFull.delete(key);
      // Warnings belong to passes that do something (a quiet pass must not write Events either).
      for (const w of inputs.warnings) record(this.c, raw, 'Warning', 'MisspelledAnnotation', w);
      this.warnIgnored(raw, spec);
      const t0 = performance.now();
      const blocked = await this.preDeploy(pass, entry, RESOURCES, prevFeature, prevFeature?.hash);
      if (blocked) {
        await this.writeStatus(raw, cs, { ...status, featureSummaries: [blocked, ...features.filter((f) => f.featureID !== RESOURCES)] });
        return helmRequeue || blocked.status === 'Failed' ? { requeue: true } : undefined;
      }
      try {
        const r = isPullMode(entry) ? await this.pull.deploy(pass, inputs, prevFeature) : await this.deploy(pass, entry, inputs, prevFeature, status);
        feature = r.feature.status === 'Provisioned' ? await this.gateHealth(pass, entry, r.feature, status) : r.feature;
        result = r.result ?? (feature.status === 'Failed' ? { requeue: true } : undefined);
        if (r.gvks) status.deployedGVKs = setFeatureGvks(status.deployedGVKs, RESOURCES, r.gvks);
      } catch (err) {
        // Every failure lands in status; unexpected ones are also thrown so the controller logs and retries them.
        const expected = err instanceof ClusterError || isTransient(err);
        const message = err instanceof ClusterError ? err.message : `${expected ? `cluster ${entry.key}` : 'internal error'}: ${errorMessage(err)}`;
        const failure = { message, reason: 'DeploymentFailed', nonRetriable: false };
        feature = this.failedFeature(prevFeature, failure, undefined);
        record(this.c, raw, 'Warning', failure.reason, failure.message);
        this.c.metrics?.outcomes.inc({ feature: RESOURCES, outcome: 'failed' });
        if (!expected) {
          await this.writeStatus(raw, cs, { ...status, featureSummaries: [feature, ...features.filter((f) => f.featureID !== RESOURCES)] });
          throw err;
        }
        result = { requeue: true };
      }
      this.c.metrics?.deployDuration.observe({ feature: RESOURCES }, (performance.now() - t0) / 1000);
    }
    features = [feature, ...features.filter((f) => f.featureID !== RESOURCES)];
    await this.writeStatus(raw, cs, { ...status, featureSummaries: features });
    return result ?? (helmRequeue ? { requeue: true } : undefined);
  };

  /**
   * deployHelm runs the Helm feature (helm-feature.ts) unless nothing it depends on changed since it was last
   * Provisioned; fills status.helmReleaseSummaries and returns the feature entry. Failures: status + Event.
   */
  private async deployHelm(p: Pass, entry: ClusterEntry, status: ClusterSummaryStatus): Promise<{ feature?: Feature; requeue: boolean }> {
    const { raw, cs, spec } = p;
    const prev = status.featureSummaries?.find((f) => f.featureID === HELM_FEATURE);
    const charts = spec.helmCharts ?? [];
    const hash = hexToBase64(this.helm.inputsHash(spec, cs.spec.clusterNamespace, entry.object));
    const drifting = spec.syncMode === 'ContinuousWithDriftDetection';
    if (charts.length > 0 && prev?.hash === hash && (prev.status === 'Provisioned' || isHealthGated(prev)) && !this.driftPending.has(p.key) && !this.forceFull.has(p.key) && (!drifting || this.drift.trackedHash(p.key + HELM_DRIFT) === hash)) return { feature: prev, requeue: false };
    let client: KubeClient;
    try {
      client = await this.c.registry.client(entry.key);
      if (p.tenant) client = this.tenants.remote(client, p.tenant);
    } catch (err) {
      const message = `cluster ${entry.key}: ${errorMessage(err)}`;
      return { feature: { featureID: HELM_FEATURE, status: 'Failed', failureReason: 'DeploymentFailed', failureMessage: message, hash: prev?.hash }, requeue: true };
    }
    if (charts.length > 0) {
      const blocked = await this.preDeploy(p, entry, HELM_FEATURE, prev, prev?.hash);
      if (blocked) return { feature: blocked, requeue: false };
    }
    const data = this.renderer.dataFor({ cluster: entry.object, mgmtResources: {} });
    const { conflicts, handover } = this.helmOwnership(p, entry, status);
    const repair = this.driftPending.has(p.key);
    const t0 = performance.now();
    const results = await this.helm.deploy({ spec, clusterNamespace: cs.spec.clusterNamespace, client, data, previous: status.helmReleaseSummaries ?? [], owner: p.key, conflicts, handover, repair, track: drifting });
    await this.trackHelm(p, entry, drifting, hash, results, repair);
    this.c.metrics?.deployDuration.observe({ feature: HELM_FEATURE }, (performance.now() - t0) / 1000);
    status.helmReleaseSummaries = charts
      .filter((h) => h.helmChartAction !== 'Uninstall')
      .map((h) => {
        const r = results.find((x) => x.chart === h);
        const before = status.helmReleaseSummaries?.find((x) => x.releaseName === h.releaseName && x.releaseNamespace === h.releaseNamespace);
        if (r?.conflict && before?.conflictMessage !== r.conflict) record(this.c, raw, 'Warning', 'HelmReleaseConflict', `chart ${h.chartName ?? ''} ${h.chartVersion ?? ''}: ${r.conflict}`);
        return {
          releaseName: h.releaseName,
          releaseNamespace: h.releaseNamespace,
          status: r?.conflict ? ('Conflict' as const) : ('Managing' as const),
          ...(r?.conflict ? { conflictMessage: r.conflict } : {}),
          ...(h.chartName ? { chartName: h.chartName } : {}),
          ...(h.chartVersion ? { chartVersion: h.chartVersion } : {}),
          ...(r?.error ? { failureMessage: r.error } : {}),
        };
      });
    if (status.helmReleaseSummaries.length === 0) delete status.helmReleaseSummaries;
    for (const r of results) this.recordHelm(raw, r);
    // Options Ripple accepts but does not act on yet are said aloud, once per pass that does something.
    const ignored = [...new Set(charts.flatMap((h) => unhonouredOptions(h).map((o) => `${h.releaseName}: ${o}`)))];
    if (ignored.length > 0 && results.some((r) => r.action !== 'NoAction')) {
      record(this.c, raw, 'Warning', 'NotSupported', `helmCharts options not acted on by Ripple yet (the release is deployed without them): ${ignored.join(', ')}`);
    }
    if (charts.length === 0) return { requeue: false };
    const failed = results.find((r) => r.error);
    const conflict = results.find((r) => r.conflict);
    if (!failed && conflict) {
      // Sveltos: a release another profile manages fails the feature (retriable); the manager's withdrawal wakes us.
      const failure = { message: results.filter((r) => r.conflict).map((r) => r.conflict).join('\n'), reason: 'ConflictError', nonRetriable: false };
      return { feature: { ...this.failedFeature(prev, failure, prev?.hash), featureID: HELM_FEATURE }, requeue: false };
    }
    if (failed) {
      const failure = { message: failed.error!, reason: 'HelmChartFailed', nonRetriable: !failed.transient };
      const feature = { ...this.failedFeature(prev, failure, prev?.hash), featureID: HELM_FEATURE };
      return { feature, requeue: Boolean(failed.transient) };
    }
    const changed = results.some((r) => r.action !== 'NoAction');
    return {
      feature: { featureID: HELM_FEATURE, status: 'Provisioned', hash, lastAppliedTime: changed || !prev?.lastAppliedTime ? rfc3339(this.c.clock.now()) : prev.lastAppliedTime },
      requeue: false,
    };
  }

  /**
   * helmOwnership decides, for each release this ClusterSummary lists, whether it manages it (helm-owners.ts):
   * conflicts (release → message) for those another one manages; handover for releases it no longer lists that
   * another one lists (they are not uninstalled); a ClusterSummary that lost or gained a release is re-queued.
   */
  private helmOwnership(p: Pass, entry: ClusterEntry, status: ClusterSummaryStatus): { conflicts: Map<string, string>; handover: Set<string> } {
    const all = this.c.caches.summaries.cache.byIndex(CLUSTER_INDEX, entry.key) as unknown as ClusterSummary[];
    const profileOf = (cs: ClusterSummary) => {
      const o = profileOfSummary(cs);
      return o ? `${o.kind}/${o.name}` : 'unknown profile';
    };
    const conflicts = new Map<string, string>();
    const handover = new Set<string>();
    const wake = (keys: readonly string[]) => {
      for (const k of keys) {
        if (k === p.key) continue;
        this.forceFull.add(k);
        this.enqueue(k);
      }
    };
    for (const h of p.spec.helmCharts ?? []) {
      const rk = releaseKey(entry.key, h.releaseNamespace, h.releaseName);
      const claimants = claimantsOf(all, h.releaseNamespace, h.releaseName, profileOf);
      const manager = decideManager(claimants, this.releaseManagers.get(rk), p.key);
      if (!manager || manager.summary === p.key) {
        if (p.spec.syncMode === 'DryRun') continue; // reported, never managed
        const old = this.releaseManagers.set(rk, p.key);
        if (old && old !== p.key) wake([old]);
        continue;
      }
      if (this.releaseManagers.get(rk) === undefined || this.releaseManagers.get(rk) === p.key) this.releaseManagers.set(rk, manager.summary);
      conflicts.set(`${h.releaseNamespace}/${h.releaseName}`, conflictMessage(h.releaseNamespace, h.releaseName, manager, claimants.find((c) => c.summary === p.key)));
    }
    const listed = new Set((p.spec.helmCharts ?? []).map((h) => `${h.releaseNamespace}/${h.releaseName}`));
    for (const prev of status.helmReleaseSummaries ?? []) {
      const rel = `${prev.releaseNamespace}/${prev.releaseName}`;
      if (listed.has(rel) || !prev.releaseName || !prev.releaseNamespace) continue;
      const rk = releaseKey(entry.key, prev.releaseNamespace, prev.releaseName);
      this.releaseManagers.drop(rk, p.key);
      const others = claimantsOf(all, prev.releaseNamespace, prev.releaseName, profileOf).filter((c) => c.summary !== p.key);
      if (others.length > 0) handover.add(rel);
      wake(others.map((c) => c.summary));
    }
    return { conflicts, handover };
  }

  /** releasesOthersList is what a withdrawing ClusterSummary must not uninstall: releases another one lists too. */
  private releasesOthersList(p: Pass, entry: ClusterEntry | undefined): { skip: Set<string>; others: string[] } {
    const skip = new Set<string>();
    const others = new Set<string>();
    if (!entry) return { skip, others: [] };
    const all = (this.c.caches.summaries.cache.byIndex(CLUSTER_INDEX, entry.key) as unknown as ClusterSummary[]).filter((o) => `${o.metadata.namespace}/${o.metadata.name}` !== p.key);
    const releases = [...(p.spec.helmCharts ?? []), ...(p.cs.status?.helmReleaseSummaries ?? [])];
    for (const r of releases) {
      if (!r.releaseName || !r.releaseNamespace) continue;
      const claimants = claimantsOf(all, r.releaseNamespace, r.releaseName, () => '');
      if (claimants.length === 0) continue;
      skip.add(`${r.releaseNamespace}/${r.releaseName}`);
      for (const c of claimants) others.add(c.summary);
    }
    return { skip, others: [...others] };
  }

  /** trackHelm (ContinuousWithDriftDetection) watches the chart objects of the releases deployed; else untracks. */
  private async trackHelm(p: Pass, entry: ClusterEntry, drifting: boolean, hash: string, results: readonly HelmChartResult[], repaired: boolean): Promise<void> {
    const id = p.key + HELM_DRIFT;
    if (!drifting) return this.drift.untrack(id);
    if (results.some((r) => r.error && !r.objects)) return; // keep tracking what the last good pass deployed
    const objects: TrackedObject[] = results.flatMap((r) =>
      (r.objects ?? []).map((o) => ({ cluster: entry.key, apiVersion: o.apiVersion!, kind: o.kind, namespace: o.metadata.namespace, name: o.metadata.name, expected: o, clusterSummary: '', unlabelled: true })),
    );
    // Nothing written this pass: the caches are current, so drift that happened while Ripple was down shows now.
    const wrote = repaired || results.some((r) => r.action !== 'NoAction');
    await this.drift.track(id, hash, objects, !wrote);
  }

  /**
   * dryRunHelm (syncMode DryRun) reports what the Helm feature would do per release in the ClusterReport
   * (status.releaseReports) and changes nothing in the cluster.
   */
  private async dryRunHelm(p: Pass, entry: ClusterEntry, status: ClusterSummaryStatus): Promise<Feature> {
    const { cs, spec } = p;
    const prev = status.featureSummaries?.find((f) => f.featureID === HELM_FEATURE);
    let reports: ReleaseReport[];
    try {
      const client = await this.c.registry.client(entry.key);
      const { conflicts } = this.helmOwnership(p, entry, { ...status, helmReleaseSummaries: [] });
      const data = this.renderer.dataFor({ cluster: entry.object, mgmtResources: {} });
      reports = await this.helm.dryRun({ spec, clusterNamespace: cs.spec.clusterNamespace, client, data, previous: [], owner: p.key, conflicts });
      await this.writeReleaseReports(p, reports.map(({ error: _e, ...r }) => r));
    } catch (err) {
      const failure = { message: `cluster ${entry.key}: ${errorMessage(err)}`, reason: 'DeploymentFailed', nonRetriable: false };
      return { ...this.failedFeature(prev, failure, prev?.hash), featureID: HELM_FEATURE };
    }
    const errors = reports.filter((r) => r.error).map((r) => r.error!);
    if (errors.length > 0) {
      const message = `DryRun: ${errors.join('\n')}`;
      if (prev?.failureMessage !== message) record(this.c, p.raw, 'Warning', 'HelmChartFailed', message);
      return { ...this.failedFeature(prev, { message, reason: 'HelmChartFailed', nonRetriable: false }, prev?.hash), featureID: HELM_FEATURE };
    }
    // Its own hash: leaving DryRun must not look like "already deployed" to the quiet check of deployHelm.
    const hash = hexToBase64(sha256Hex(`DryRun|${this.helm.inputsHash(spec, cs.spec.clusterNamespace, entry.object)}`));
    return { featureID: HELM_FEATURE, status: 'Provisioned', hash, lastAppliedTime: prev?.lastAppliedTime ?? rfc3339(this.c.clock.now()) };
  }

  /** writeReleaseReports writes ClusterReport status.releaseReports (its own field manager: resourceReports stay). */
  private async writeReleaseReports(p: Pass, releaseReports: readonly ReleaseReport[]): Promise<void> {
    const { cs, profile, type } = p;
    const name = clusterReportName(profile.kind, profile.name, type, cs.spec.clusterName);
    const base = { apiVersion: 'config.projectsveltos.io/v1beta1', kind: 'ClusterReport' };
    const labels = { [AddonLabels.clusterName]: cs.spec.clusterName, [AddonLabels.clusterType]: type, [profileLabelKey(profile.kind)]: profile.name };
    const fieldManager = `${this.c.fieldManager}-helm`;
    await this.c.mgmt.apply({ ...base, metadata: { name, namespace: cs.spec.clusterNamespace, labels }, spec: { clusterNamespace: cs.spec.clusterNamespace, clusterName: cs.spec.clusterName } }, { fieldManager, force: true });
    await this.c.mgmt.apply({ ...base, metadata: { name, namespace: cs.spec.clusterNamespace }, status: { releaseReports } }, { fieldManager, force: true, subresource: 'status' });
  }

  private recordHelm(raw: KubeObject, r: HelmChartResult): void {
    const rel = `${r.chart.releaseNamespace}/${r.chart.releaseName}`;
    if (r.recovered) record(this.c, raw, 'Warning', 'HelmReleaseRecovered', `chart ${r.chart.chartName ?? ''} ${r.chart.chartVersion ?? ''}: ${r.recovered}`);
    if (r.repaired) record(this.c, raw, 'Normal', 'HelmDriftRepaired', `chart ${r.chart.chartName ?? ''}: the objects of release ${rel} revision ${r.revision} drifted and were applied again`);
    if (r.error) {
      record(this.c, raw, 'Warning', 'HelmChartFailed', r.error);
      this.c.metrics?.outcomes.inc({ feature: HELM_FEATURE, outcome: 'failed' });
      return;
    }
    if (r.action === 'NoAction') return;
    const what = r.action === 'Uninstall' ? `uninstalled release ${rel}` : `${r.action === 'Install' ? 'installed' : 'upgraded'} chart ${r.chart.chartName ?? ''} ${r.chart.chartVersion ?? ''} as release ${rel} (revision ${r.revision})`;
    record(this.c, raw, 'Normal', `Helm${r.action}`, what);
    this.c.metrics?.outcomes.inc({ feature: HELM_FEATURE, outcome: r.action.toLowerCase() });
  }

  /** forget drops every in-memory record of a ClusterSummary that no longer exists. */
  private forget(key: string): void {
    this.index.forget(key);
    this.drift.untrack(key + HELM_DRIFT);
    this.releaseManagers.release(key);
    this.helm.forgetFailures(key);
    this.kinds.forget(key);
    this.kustomize.forget(key);
    this.drift.untrack(key);
    this.health.forget(key);
    this.lastDeployed.delete(key);
    this.gvksRecorded.delete(key);
    this.known.delete(key);
    this.driftPending.delete(key);
    this.forceFull.delete(key);
    this.reported.delete(key);
    this.reportChecked.delete(key);
    for (const s of this.conflicted.values()) s.delete(key);
  }

  /** unmetDependencies returns why a ClusterSummary must wait for its dependsOn, or undefined when it need not. */
  private unmetDependencies(cs: ClusterSummary, kind: ProfileKind, type: ClusterType): string | undefined {
    for (const dep of cs.spec.clusterProfileSpec?.dependsOn ?? []) {
      const name = clusterSummaryName(kind, dep, type, cs.spec.clusterName);
      const other = this.c.caches.summaries.cache.get(cs.spec.clusterNamespace, name);
      if (!other) return `${kind} ${dep} is a dependency. The ClusterSummary instance for this profile/cluster was not found`;
      const on = normalized<ClusterSummary>(other);
      if (!on.ok || other.metadata.deletionTimestamp || !isProvisioned(on.object)) {
        const unhealthy = on.ok ? on.object.status?.featureSummaries?.find((f) => isHealthGated(f)) : undefined;
        if (unhealthy) return `${kind} ${dep} is a dependency and it is not healthy yet: ${unhealthy.failureMessage}`;
        return `${kind} ${dep} is a dependency and it is not fully deployed yet`;
      }
    }
    return undefined;
  }

  /** warnIgnored tells, by Event, which spec fields Ripple does not act on (they are accepted, not evaluated). */
  private warnIgnored(raw: KubeObject, spec: ClusterProfileSpec): void {
    const ignored = (
      [
        ['patchesFrom', spec.patchesFrom],
      ] as const
    )
      .filter(([, v]) => (v ?? []).length > 0)
      .map(([k]): string => k);
    if (ignored.length > 0) {
      record(this.c, raw, 'Warning', 'NotSupported', `${ignored.join(', ')} ${ignored.length > 1 ? 'are' : 'is'} not evaluated by Ripple yet: the add-ons are reported Provisioned once applied`);
    }
  }

  /**
   * deleteChecksBlock runs preDeleteChecks (before anything is removed) or postDeleteChecks (after, before the
   * finalizer goes) of a ClusterSummary being deleted; true while they do not pass (status + Event say why; the
   * watches on what they select re-queue it). Checks cannot run in a cluster that is no longer registered.
   */
  private async deleteChecksBlock(p: Pass, which: 'preDeleteChecks' | 'postDeleteChecks'): Promise<boolean> {
    const checks = p.spec[which] ?? [];
    // Pull mode: the manager cannot reach the cluster; pullModeChecks already refused the checks visibly.
    if (!p.entry || checks.length === 0 || isPullMode(p.entry)) return false;
    const v = await this.health.check(`${p.key}#${which}`, p.entry.key, checks);
    if (v.state === 'healthy') return false;
    const message = `${which} ${v.message.replace(/^validateHealths /, '')}; ${which === 'preDeleteChecks' ? 'nothing is removed' : 'the ClusterSummary is kept'} until it passes`;
    if (p.cs.status?.failureMessage !== message) record(this.c, p.raw, v.state === 'unhealthy' ? 'Normal' : 'Warning', which === 'preDeleteChecks' ? 'WaitingForPreDeleteChecks' : 'WaitingForPostDeleteChecks', message);
    await this.writeStatus(p.raw, p.cs, { ...(p.cs.status ?? {}), failureMessage: message });
    return true;
  }

  /** preDeploy runs a feature's preDeployChecks (health-feature.ts): the entry that blocks it, or undefined. */
  private async preDeploy(p: Pass, entry: ClusterEntry, featureID: string, previous: Feature | undefined, hash: string | undefined): Promise<Feature | undefined> {
    if (p.spec.syncMode === 'DryRun') return undefined; // a DryRun report changes nothing in the cluster
    if (isPullMode(entry)) return pullModeChecks(p.spec, featureID);
    const out = await this.health.preDeploy({ summary: p.key, cluster: entry.key, spec: p.spec, featureID: featureID as 'Resources' | 'Helm', previous, hash });
    if (out?.event) record(this.c, p.raw, out.event.type, out.event.reason, out.event.message);
    return out?.feature;
  }

  /** gateHealth holds a deployed feature back until its validateHealths pass (health-feature.ts); Events on change. */
  private async gateHealth(p: Pass, entry: ClusterEntry, deployed: Feature, status: ClusterSummaryStatus): Promise<Feature> {
    if (p.spec.syncMode === 'DryRun') return deployed; // nothing was deployed to check
    if (isPullMode(entry)) return pullModeChecks(p.spec, deployed.featureID) ?? deployed;
    const base: Feature = { ...deployed, status: 'Provisioned', failureReason: undefined, failureMessage: undefined, consecutiveFailures: undefined };
    const previous = status.featureSummaries?.find((f) => f.featureID === deployed.featureID);
    const featureID = deployed.featureID as 'Resources' | 'Helm';
    const out = await this.health.gate({ summary: p.key, cluster: entry.key, spec: p.spec, featureID, deployed: base, previous });
    if (out.event) record(this.c, p.raw, out.event.type, out.event.reason, out.event.message);
    return out.feature;
  }

  private failedFeature(prev: Feature | undefined, f: FeatureFailure, hash: string | undefined): Feature {
    const same = prev?.failureMessage === f.message && (prev.status === 'Failed' || prev.status === 'FailedNonRetriable');
    return {
      featureID: RESOURCES,
      status: f.nonRetriable ? 'FailedNonRetriable' : 'Failed',
      failureReason: f.reason,
      failureMessage: f.message,
      // A repeat of the same failure on the same inputs is not counted again (steady state writes nothing).
      consecutiveFailures: same ? (prev.consecutiveFailures ?? 1) : (prev?.consecutiveFailures ?? 0) + 1,
      hash: hash ?? prev?.hash,
      lastAppliedTime: prev?.lastAppliedTime,
      deployedGroupVersionKind: prev?.deployedGroupVersionKind,
    };
  }

  /**
   * gather reads what the deployment depends on from the management caches: policyRefs content (names rendered
   * with cluster data), templateResourceRefs objects, and hashes it with the spec. Registers the references so
   * their changes re-queue this ClusterSummary.
   */
  private async gather(p: Pass, entry: ClusterEntry): Promise<{ ok: true; inputs: Inputs } | { ok: false; failure: FeatureFailure }> {
    const { key, raw, cs, profile, spec } = p;
    const names = { cluster: entry.object, clusterNamespace: cs.spec.clusterNamespace, clusterName: cs.spec.clusterName };
    const refEntries: RefEntry[] = [];
    const mgmtResources: Record<string, KubeObject> = {};
    const fingerprints: Record<string, unknown> = {};
    const flux = await this.kustomize.fluxPolicies.prepare(key, spec, names, this.c.funcOptions, p.rctx.signal);
    const policies = resolvePolicyRefs(
      spec,
      { ...profile, namespace: raw.metadata.namespace },
      names,
      (kind, ns, name) => (kind === 'ConfigMap' ? this.c.caches.configMaps.cache : this.c.caches.secrets.cache).get(ns, name),
      this.c.funcOptions,
      flux,
    );
    for (const r of policies.reads) refEntries.push({ key: refKey('v1', r.kind, r.namespace, r.name) });
    if (!policies.ok) {
      this.index.set(key, refEntries);
      return { ok: false, failure: policies.failure };
    }
    const { refs, warnings } = policies;
    const trrResult = resolveTemplateResourceRefs(spec, names, this.c.funcOptions);
    if (!trrResult.ok) {
      this.index.set(key, refEntries);
      return { ok: false, failure: trrResult.failure };
    }
    const trrs = trrResult.refs;
    const kinds = trrs.map((t) => ({ apiVersion: t.resource.apiVersion, kind: t.resource.kind }));
    const informers = this.kinds.use(key, kinds);
    // A kind seen for the first time: give its first list a moment (a kind that is not served stops waiting).
    await Promise.all([...informers.values()].map((inf) => (inf.hasSynced() ? undefined : inf.waitForSync({ timeoutMs: 1000 }).catch(() => undefined))));
    for (const t of trrs) {
      const r = t.resource;
      const inf = informers.get(`${r.apiVersion}|${r.kind}`)!;
      const filter = { ignoreStatusChanges: t.ignoreStatusChanges, watchFields: t.watchFields };
      // Cluster-scoped kinds are cached without a namespace; try the namespaced key first.
      const obj = inf.cache.get(t.ns, t.nm) ?? inf.cache.get(undefined, t.nm);
      refEntries.push({ key: refKey(r.apiVersion!, r.kind!, t.ns, t.nm), filter });
      refEntries.push({ key: refKey(r.apiVersion!, r.kind!, undefined, t.nm), filter });
      if (!inf.hasSynced()) {
        if (t.optional && inf.state === 'waiting-for-kind') continue;
        this.index.set(key, refEntries);
        const served = inf.state !== 'waiting-for-kind';
        return {
          ok: false,
          failure: {
            message: served
              ? `templateResourceRefs ${t.identifier}: the management cluster's ${r.kind} objects could not be listed yet; retrying`
              : `templateResourceRefs ${t.identifier}: the management cluster does not serve ${r.apiVersion} ${r.kind}; it will be read as soon as it is installed`,
            reason: 'ReferenceNotFound',
            nonRetriable: !served,
          },
        };
      }
      if (!obj) {
        if (t.optional) continue;
        this.index.set(key, refEntries);
        return { ok: false, failure: missingTemplateResource(t) };
      }
      mgmtResources[t.identifier] = obj;
      fingerprints[t.identifier] = fingerprint(obj, filter);
    }
    this.index.set(key, refEntries);
    if (p.tenant) {
      const reads = tenantReads(refs, trrs, spec, cs.spec.clusterNamespace);
      const refusal = await this.tenants.refusal(p.tenant, reads, (r) => (r.kind === 'ConfigMap' ? this.c.caches.configMaps.cache : r.kind === 'Secret' ? this.c.caches.secrets.cache : undefined)?.get(r.namespace, r.name));
      if (refusal) return { ok: false, failure: { message: refusal, reason: 'Forbidden', nonRetriable: false } };
    }
    const anyTemplate = refs.some((r) => r.template) || (spec.patches ?? []).length > 0;
    let clusterFp: unknown = null;
    if (anyTemplate) {
      const { resourceVersion: _rv, managedFields: _mf, generation: _g, ...metadata } = entry.object.metadata as unknown as Record<string, unknown>;
      clusterFp = { ...entry.object, metadata };
    }
    const hash = sha256Hex(
      goJSON({
        spec,
        profile,
        refs: refs.map((r) => ({ kind: r.kind, ns: r.namespace, name: r.name, data: r.data, template: r.template, ...(r.lua ? { lua: true } : {}), sub: r.subresources })),
        mgmt: fingerprints,
        cluster: clusterFp,
      }),
    );
    return { ok: true, inputs: { refs, mgmtResources, hash, warnings } };
  }

  /** targetClients returns the management client and, when needed, the managed cluster's client. */
  private async targetClients(entry: ClusterEntry, needRemote: boolean, tenant?: Tenant): Promise<Record<Target, KubeClient | undefined>> {
    const remote = needRemote ? await this.c.registry.client(entry.key) : undefined;
    if (!tenant) return { Local: this.c.mgmt, Remote: remote };
    return { Local: this.tenants.local(tenant), Remote: remote && this.tenants.remote(remote, tenant) };
  }

  /** refuseTenant reports tenant labels that name no usable tenant: nothing is deployed (status + Event). */
  private async refuseTenant(p: Pass, message: string): Promise<void> {
    const status: ClusterSummaryStatus = { ...(p.cs.status ?? {}) };
    const prev = status.featureSummaries?.find((f) => f.featureID === RESOURCES);
    const failure = { message: `tenant labels: ${message}; nothing is deployed`, reason: 'InvalidTenant', nonRetriable: true };
    if (prev?.failureMessage !== failure.message) record(this.c, p.raw, 'Warning', failure.reason, failure.message);
    const feature = this.failedFeature(prev, failure, undefined);
    await this.writeStatus(p.raw, p.cs, { ...status, featureSummaries: [feature, ...(status.featureSummaries ?? []).filter((f) => f.featureID !== RESOURCES)] });
  }

  /** render turns the resolved references into stamped desired objects (or the first failure). */
  private async render(p: Pass, entry: ClusterEntry, inputs: Inputs, clients: Record<Target, KubeClient | undefined>): Promise<DesiredResult> {
    const { raw, cs, profile, type, spec } = p;
    const lua = inputs.refs.some((r) => r.lua) ? luaPolicyRunner(await this.lua.get()) : undefined;
    return renderDesired(
      {
        spec,
        profile: { ...profile, namespace: raw.metadata.namespace },
        cluster: { type, namespace: cs.spec.clusterNamespace, name: cs.spec.clusterName, object: entry.object },
        refs: inputs.refs,
        mgmtResources: inputs.mgmtResources,
        lua,
      },
      this.renderer,
      async (target, apiVersion, kind) => {
        try {
          return (await clients[target]!.resource({ apiVersion, kind })).namespaced;
        } catch (err) {
          if (isKindNotInstalled(err)) return undefined;
          throw err;
        }
      },
      () => this.capiObjects(entry),
    );
  }

  /**
   * capiObjects reads what a Cluster API cluster's templates may also use: the control plane and infrastructure
   * objects its spec references (v1beta1 `apiVersion` refs, v1beta2 `apiGroup` refs at the group's preferred
   * version). Missing objects are left out. Go: fetchKubeadmControlPlane, fetchInfrastructureProvider
   */
  private async capiObjects(entry: ClusterEntry): Promise<{ kubeadmControlPlane?: unknown; infrastructureProvider?: unknown }> {
    const spec = (entry.object.spec ?? {}) as Record<string, { apiVersion?: string; apiGroup?: string; kind?: string; name?: string; namespace?: string } | undefined>;
    const read = async (ref: (typeof spec)[string]): Promise<unknown> => {
      if (!ref?.kind || !ref.name) return undefined;
      let apiVersion = ref.apiVersion;
      if (!apiVersion && ref.apiGroup) {
        const group = await this.c.mgmt.request<{ preferredVersion?: { groupVersion?: string } }>({ method: 'GET', path: `/apis/${ref.apiGroup}` }).catch((err: unknown) => {
          if (isNotFound(err)) return undefined;
          throw err;
        });
        apiVersion = group?.preferredVersion?.groupVersion;
      }
      if (!apiVersion) return undefined;
      try {
        return await this.c.mgmt.getIfExists({ apiVersion, kind: ref.kind, namespace: ref.namespace ?? entry.ref.namespace, name: ref.name });
      } catch (err) {
        if (isKindNotInstalled(err)) return undefined;
        throw err;
      }
    };
    const [kubeadmControlPlane, infrastructureProvider] = await Promise.all([read(spec.controlPlaneRef), read(spec.infrastructureRef)]);
    return { kubeadmControlPlane, infrastructureProvider };
  }

  /** scanDeployed lists the objects of the given kinds in the targets that carry this ClusterSummary's stamps. */
  private async scanDeployed(p: Pass, gvks: readonly string[], clients: Record<Target, KubeClient | undefined>): Promise<{ target: Target; object: KubeObject }[]> {
    const { cs, profile, type } = p;
    const csValue = clusterSummaryAnnotationValue(type, cs.spec.clusterNamespace, cs.spec.clusterName);
    const out: { target: Target; object: KubeObject }[] = [];
    for (const target of ['Local', 'Remote'] as const) {
      const client = this.tenants.own(clients[target]);
      if (!client) continue;
      for (const g of gvks) {
        const gvk = parseGvkString(g);
        if (!gvk) continue;
        let items: KubeObject[];
        try {
          items = (await client.list<KubeObject>(gvk, { labelSelector: `${Labels.reason}=${REASON_RESOURCES}` })).items;
        } catch (err) {
          // A kind no longer served holds nothing of ours.
          if (isKindNotInstalled(err) || isNotFound(err)) continue;
          throw err;
        }
        for (const o of items) if (this.isOurs(o, csValue, target, profile)) out.push({ target, object: o });
      }
    }
    return out;
  }

  /** isOurs: positive evidence that this ClusterSummary deployed the object (stamps of cluster, target and profile). */
  private isOurs(o: KubeObject, csValue: string, target: Target, profile: { kind: ProfileKind; name: string }): boolean {
    const a = o.metadata.annotations ?? {};
    return (
      a[Annotations.clusterSummary] === csValue &&
      (a[Annotations.deploymentType] ?? 'Remote') === target &&
      a[Annotations.ownerName] === profile.name &&
      a[Annotations.ownerKind] === profile.kind &&
      o.metadata.labels?.[Labels.reason] === REASON_RESOURCES
    );
  }

  /**
   * deploy is the full pass. It first trusts what this deployer last wrote (updates under an optimistic lock, no
   * reads); if any object changed under it, it forgets that and runs again reading every object.
   */
  private async deploy(p: Pass, entry: ClusterEntry, inputs: Inputs, prev: Feature | undefined, status: ClusterSummaryStatus): Promise<DeployResult> {
    try {
      return await this.deployPass(p, entry, inputs, prev, status, true);
    } catch (err) {
      if (!(err instanceof RetryableError)) throw err;
      this.known.delete(p.key);
      return this.deployPass(p, entry, inputs, prev, status, false);
    }
  }

  /** deployPass renders, reads the targets (only what it does not know, when `trust`), plans, executes, reports. */
  private async deployPass(p: Pass, entry: ClusterEntry, inputs: Inputs, prev: Feature | undefined, status: ClusterSummaryStatus, trust: boolean): Promise<DeployResult> {
    const { key, raw, cs, spec, type, rctx } = p;
    const dryRun = spec.syncMode === 'DryRun';
    const hashB64 = hexToBase64(inputs.hash);
    const needRemote = inputs.refs.some((r) => (r.ref.deploymentType ?? 'Remote') === 'Remote') || this.recordedGvks(cs).length > 0;
    const clients = await this.targetClients(entry, needRemote, p.tenant);
    const rendered = await this.render(p, entry, inputs, clients);
    if (!rendered.ok) {
      record(this.c, raw, 'Warning', rendered.failure.reason, rendered.failure.message);
      this.c.metrics?.outcomes.inc({ feature: RESOURCES, outcome: 'failed' });
      return { feature: this.failedFeature(prev, rendered.failure, hashB64), result: rendered.failure.nonRetriable ? undefined : { requeue: true } };
    }
    const desired = rendered.desired;
    const newGvks = [...new Set(desired.map((d) => gvkString(d.object.apiVersion, d.object.kind)))].sort();
    const recorded = this.recordedGvks(cs);
    const union = [...new Set([...recorded, ...newGvks])].sort();
    // Objects of ours exist only of kinds recorded before they were created: deployedGVKs as this pass found it, or
    // as this process wrote it earlier (the cache may not show that write yet).
    const mayHold = union.filter((g) => recorded.includes(g) || this.gvksRecorded.get(key)?.has(g));
    if (!dryRun && union.some((g) => !recorded.includes(g))) {
      // Record the kinds BEFORE creating objects of them: withdrawal finds our objects through this list.
      this.gvksRecorded.set(key, new Set([...(this.gvksRecorded.get(key) ?? []), ...union]));
      await this.writeStatus(raw, cs, { ...status, deployedGVKs: setFeatureGvks(status.deployedGVKs, RESOURCES, union), featureSummaries: [{ ...(prev ?? { featureID: RESOURCES }), status: 'Provisioning', deployedGroupVersionKind: union }] });
    }

    // Observe: each desired object we do not know, the namespaces they need, and what we deployed before.
    const known = trust && !dryRun ? this.known.get(key) : undefined;
    const observed = new Map<string, KubeObject | null>();
    await runLimited(known ? desired.filter((d) => !known.has(identityKey(identityOf(d.target, d.object)))) : desired, 16, async (d) => {
      const id = identityOf(d.target, d.object);
      let o: KubeObject | undefined;
      try {
        o = await clients[d.target]!.getIfExists<KubeObject>(refOf(id));
      } catch (err) {
        // A kind not served yet (its CRD comes in this deployment) has no objects.
        if (!isKindNotInstalled(err)) throw err;
      }
      observed.set(identityKey(id), o ?? null);
    });
    const nsKnown = new Set<string>();
    const nsNeeded = new Map<string, { target: Target; name: string }>();
    for (const d of desired) {
      const ns = d.object.metadata.namespace;
      if (!ns || d.skipNamespaceCreation || dryRun) continue;
      const cacheKey = `${d.target === 'Local' ? LOCAL : entry.key}|${ns}`;
      if (this.namespaces.has(cacheKey)) nsKnown.add(`${d.target}:${ns}`);
      else nsNeeded.set(`${d.target}:${ns}`, { target: d.target, name: ns });
    }
    await runLimited([...nsNeeded.values()], 8, async ({ target, name }) => {
      if (await clients[target]!.getIfExists({ apiVersion: 'v1', kind: 'Namespace', name })) {
        nsKnown.add(`${target}:${name}`);
        this.namespaces.add(`${target === 'Local' ? LOCAL : entry.key}|${name}`);
      }
    });
    if (dryRun) for (const k of nsNeeded.keys()) nsKnown.add(k);
    const deployed = await this.previouslyDeployed(p, union, mayHold, desired, clients);

    const actions = plan({ desired, observed, deployed, namespaces: nsKnown, forceApply: false, known });
    const drifting = spec.syncMode === 'ContinuousWithDriftDetection';
    const csValue = clusterSummaryAnnotationValue(type, cs.spec.clusterNamespace, cs.spec.clusterName);
    const writes = actions.some((a) => a.type !== 'unchanged' && a.type !== 'conflict');
    if (drifting && !dryRun) {
      // Track before writing so the watch events of our own writes are compared with the new content.
      const tracked: TrackedObject[] = desired
        .filter((d) => d.object.metadata.annotations?.[Annotations.driftDetectionIgnore] === undefined)
        .map((d) => ({
          cluster: d.target === 'Local' ? LOCAL : entry.key,
          apiVersion: d.object.apiVersion,
          kind: d.object.kind,
          namespace: d.object.metadata.namespace,
          name: d.object.metadata.name,
          expected: comparable(d),
          clusterSummary: csValue,
        }));
      await this.drift.track(key, inputs.hash, tracked, !writes);
    } else {
      this.drift.untrack(key);
    }
    const outcome = await execute(actions, clients, {
      fieldManager: this.c.fieldManager,
      dryRun,
      continueOnConflict: spec.continueOnConflict === true,
      continueOnError: spec.continueOnError === true,
      signal: rctx.signal,
    });
    this.afterExecute(p, entry, actions, outcome);
    if (!dryRun) this.remember(key, desired, outcome, known);
    const reloadErrors = spec.reloader && !dryRun ? await this.reload(p, entry, desired, outcome, clients) : [];
    if (outcome.errors.length > 0) {
      // A namespace deleted behind our back makes applies fail: forget what we believed exists there.
      for (const n of [...this.namespaces]) if (n.startsWith(`${entry.key}|`) || n.startsWith(`${LOCAL}|`)) this.namespaces.delete(n);
    }
    for (const r of outcome.results) this.c.metrics?.objects.inc({ op: opOf(r) });
    if (dryRun) {
      await this.writeClusterReport(p, outcome.results);
      this.reported.add(key);
    } else {
      // A report left by an earlier DryRun pass (this process's, or before a restart) goes once DryRun ends. A
      // summary deployed for the first time (no Resources status yet) has none: checking it would cost a DELETE on the
      // next deploy of every new summary.
      if (this.reported.has(key) || (!this.reportChecked.has(key) && prev !== undefined)) {
        await this.deleteClusterReport(p);
        this.reported.delete(key);
      }
      this.reportChecked.add(key);
    }

    const problems = [...rendered.failures, ...outcome.errors, ...reloadErrors];
    const now = rfc3339(this.c.clock.now());
    if (!dryRun && (outcome.conflicts.length > 0 || problems.length > 0)) {
      const conflict = outcome.conflicts.length > 0;
      const message = [...outcome.conflicts, ...problems].join('\n').trim();
      const failure = { message, reason: conflict ? 'ConflictError' : 'DeploymentFailed', nonRetriable: false };
      record(this.c, raw, 'Warning', conflict ? 'Conflict' : 'DeploymentFailed', message);
      this.c.metrics?.outcomes.inc({ feature: RESOURCES, outcome: conflict ? 'conflict' : 'failed' });
      const f = this.failedFeature(prev, failure, hashB64);
      if (outcome.writes > 0) f.lastAppliedTime = now;
      // Conflicts wait for the owner to go away (it re-queues us); other errors retry with backoff.
      return { feature: f, result: problems.length > 0 ? { requeue: true } : undefined, gvks: union };
    }
    if (outcome.writes > 0) {
      const created = outcome.results.filter((r) => r.wrote && r.action === 'Create').length;
      const updated = outcome.results.filter((r) => r.wrote && r.action === 'Update').length;
      const removed = outcome.results.filter((r) => r.wrote && r.action === 'Delete').length;
      // An Event marks a change in what is deployed (objects created or removed) or a recovery from a failed pass. A
      // pass that only updated objects already there shows in status (lastAppliedTime, hash) alone: with event-driven
      // add-ons that is every event, and an Event each was one more management-cluster write (and stored object) per
      // event: 6 writes per event instead of 5 in the fleet bench.
      if (created > 0 || removed > 0 || (prev !== undefined && prev.status !== 'Provisioned')) {
        record(this.c, raw, 'Normal', 'Deployed', `deployed to cluster ${cs.spec.clusterNamespace}/${cs.spec.clusterName}: ${created} created, ${updated} updated, ${removed} removed`);
      }
    }
    this.c.metrics?.outcomes.inc({ feature: RESOURCES, outcome: 'provisioned' });
    if (!dryRun) {
      this.lastDeployed.set(key, new Set(desired.map((d) => identityKey(identityOf(d.target, d.object)))));
      this.gvksRecorded.delete(key); // Only needed until the first complete pass.
    }
    return {
      feature: {
        featureID: RESOURCES,
        status: 'Provisioned',
        hash: hashB64,
        lastAppliedTime: outcome.writes > 0 || !prev?.lastAppliedTime ? now : prev.lastAppliedTime,
        deployedGroupVersionKind: dryRun ? prev?.deployedGroupVersionKind : newGvks,
        consecutiveFailures: undefined,
      },
      result: undefined,
      gvks: dryRun ? undefined : newGvks,
    };
  }

  /** reload restarts the workloads consuming a ConfigMap/Secret this pass changed (`reloader: true`, reloader.ts). */
  private async reload(p: Pass, entry: ClusterEntry, desired: readonly DesiredObject[], outcome: ExecuteOutcome, clients: Record<Target, KubeClient | undefined>): Promise<string[]> {
    const restarts = planRestarts(desired, outcome);
    if (restarts.length === 0) return [];
    const done = await restartWorkloads(clients, restarts, new Date(this.c.clock.now()).toISOString(), this.c.fieldManager);
    const known = this.known.get(p.key);
    const errors: string[] = [];
    for (const r of done) {
      const { id, because } = r.restart;
      if (r.error) {
        errors.push(r.error);
        continue;
      }
      // The restart changed the object's resourceVersion: keep the optimistic lock of the next update valid.
      const k = known?.get(identityKey(id));
      const rv = r.result?.metadata.resourceVersion;
      if (k && rv) known!.set(identityKey(id), { ...k, resourceVersion: rv });
      record(this.c, p.raw, 'Normal', 'RollingRestart', `reloader: restarted ${id.kind} ${id.namespace ?? ''}/${id.name} in cluster ${entry.key} because ${because.join(', ')} changed`);
    }
    if (errors.length > 0) record(this.c, p.raw, 'Warning', 'ReloaderFailed', errors.join('\n'));
    return errors;
  }

  /** remember records what this pass wrote (or found intact) so the next pass need not read it. */
  private remember(key: string, desired: readonly DesiredObject[], outcome: ExecuteOutcome, prev: ReadonlyMap<string, KnownObject> | undefined): void {
    const wanted = new Set(desired.map((d) => identityKey(identityOf(d.target, d.object))));
    const next = new Map<string, KnownObject>();
    const touched = new Set<string>();
    for (const r of outcome.results) {
      const k = identityKey(r.id);
      touched.add(k);
      const rv = r.result?.metadata.resourceVersion;
      if (!r.applied || !rv || !wanted.has(k) || r.action === 'Error' || r.action === 'Conflict') continue;
      next.set(k, { resourceVersion: rv, digest: appliedDigest(r.applied), adopted: r.applied.metadata.annotations?.[ADOPTED_ANNOTATION] !== undefined });
    }
    // Objects this pass never reached (it stopped early) keep what was known about them.
    for (const [k, v] of prev ?? []) if (wanted.has(k) && !touched.has(k)) next.set(k, v);
    this.known.set(key, next);
  }

  /** recordedGvks is what the status says this ClusterSummary deployed (Resources feature). */
  private recordedGvks(cs: ClusterSummary): string[] {
    const a = cs.status?.deployedGVKs?.find((g) => g.featureID === RESOURCES)?.deployedGroupVersionKind ?? [];
    const b = cs.status?.featureSummaries?.find((f) => f.featureID === RESOURCES)?.deployedGroupVersionKind ?? [];
    return [...new Set([...a, ...b])];
  }

  /**
   * previouslyDeployed finds the objects this ClusterSummary deployed that may now be stale. With a record of the
   * last complete pass in memory only the objects that left the desired set are read (and checked for our stamps);
   * otherwise (after a restart) every kind in `mayHold` is listed in both targets.
   */
  private async previouslyDeployed(
    p: Pass,
    gvks: readonly string[],
    mayHold: readonly string[],
    desired: readonly DesiredObject[],
    clients: Record<Target, KubeClient | undefined>,
  ): Promise<{ target: Target; object: KubeObject }[]> {
    const { key, cs, profile, type } = p;
    const last = this.lastDeployed.get(key);
    // Only kinds that may hold objects of ours are listed: a new ClusterSummary lists nothing (listing every kind it
    // is about to deploy, in both targets, cost a full scan of the management cluster's ConfigMaps per new one).
    if (!last) return mayHold.length > 0 ? this.scanDeployed(p, mayHold, clients) : [];
    const now = new Set(desired.map((d) => identityKey(identityOf(d.target, d.object))));
    const gone = [...last].filter((k) => !now.has(k));
    const csValue = clusterSummaryAnnotationValue(type, cs.spec.clusterNamespace, cs.spec.clusterName);
    const out: { target: Target; object: KubeObject }[] = [];
    await runLimited(gone, 8, async (k) => {
      const [target, group, kind, namespace, name] = k.split('|') as [Target, string, string, string, string];
      const gvk = gvks.map(parseGvkString).find((g) => g && g.kind === kind && groupOf(g.apiVersion) === group);
      if (!gvk || !clients[target]) return;
      let o: KubeObject | undefined;
      try {
        o = await clients[target]!.getIfExists<KubeObject>({ apiVersion: gvk.apiVersion, kind, namespace: namespace || undefined, name });
      } catch (err) {
        if (isKindNotInstalled(err)) return;
        throw err;
      }
      if (o && this.isOurs(o, csValue, target, profile)) out.push({ target, object: o });
    });
    return out;
  }

  /** afterExecute does the bookkeeping of ownership moves and conflicts. */
  private afterExecute(p: Pass, entry: ClusterEntry, actions: readonly Action[], outcome: ExecuteOutcome): void {
    const { key, cs, type } = p;
    for (const a of actions) {
      if (a.type === 'apply' && a.previousOwner && (a.previousOwner.kind === 'ClusterProfile' || a.previousOwner.kind === 'Profile')) {
        // Go: requeueAllOldOwners — the old owner must notice it lost the object (it will now report a conflict).
        const old = `${cs.spec.clusterNamespace}/${clusterSummaryName(a.previousOwner.kind, a.previousOwner.name, type, cs.spec.clusterName)}`;
        if (old !== key) {
          this.forceFull.add(old);
          this.enqueue(old);
        }
      }
    }
    let set = this.conflicted.get(entry.key);
    if (outcome.conflicts.length > 0) {
      if (!set) this.conflicted.set(entry.key, (set = new Set()));
      set.add(key);
    } else {
      set?.delete(key);
    }
    if (outcome.results.some((r) => r.action === 'Delete' && r.wrote)) this.wakeConflicted(entry.key, key);
  }

  /** wakeConflicted re-queues the ClusterSummaries of a cluster that lost a conflict: an owner just removed objects. */
  private wakeConflicted(cluster: string, except: string): void {
    this.kustomize.wakeConflicted(cluster, except);
    for (const s of this.conflicted.get(cluster) ?? []) {
      if (s === except) continue;
      this.forceFull.add(s);
      this.enqueue(s);
    }
  }

  /** withdraw removes what a deleted ClusterSummary deployed (or un-stamps it), then lets it go. Go: undeploy* */
  private async withdraw(p: Pass): Promise<ReconcileResult | void> {
    const { key, raw, cs, profile, type, entry, rctx } = p;
    if (!(raw.metadata.finalizers ?? []).includes(AddonFinalizers.clusterSummary)) {
      this.forget(key);
      return;
    }
    const spec = p.spec;
    // dependsOn works both ways: a prerequisite stays while a dependent still needs it in this cluster.
    const dependents = this.c.caches.summaries.cache
      .byIndex(CLUSTER_INDEX, clusterKey(type, cs.spec.clusterNamespace, cs.spec.clusterName))
      .filter((o) => o !== raw && profileOfSummary(o)?.kind === profile.kind && ((o as unknown as ClusterSummary).spec?.clusterProfileSpec?.dependsOn ?? []).includes(profile.name));
    if (dependents.length > 0) {
      const names = dependents.map((d) => profileOfSummary(d)?.name).join(', ');
      return this.writeStatus(raw, cs, { ...(cs.status ?? {}), failureMessage: `waiting for dependent ${profile.kind}(s) ${names} to be removed from this cluster first` });
    }
    if (entry?.paused) return; // Pausing is not unselecting: resume when the cluster is unpaused.
    if (spec.syncMode !== 'DryRun' && (await this.deleteChecksBlock(p, 'preDeleteChecks'))) return;
    if (isPullMode(entry)) {
      // The agent removes what it applied; the ClusterSummary waits for its report (the group's watch wakes us).
      if ((await this.pull.withdraw(p)) === 'waiting') {
        return this.writeStatus(raw, cs, { ...(cs.status ?? {}), featureSummaries: [{ featureID: RESOURCES, status: 'Removing' }] });
      }
    } else if (spec.syncMode !== 'DryRun') {
      // A cluster that is gone may have been in pull mode: forget what was published for it.
      if (!entry) await this.pull.terminate(p);
      let clients: Record<Target, KubeClient | undefined>;
      try {
        // A cluster that is no longer registered is gone: only the management cluster can hold our objects.
        clients = entry ? await this.targetClients(entry, true) : { Local: this.c.mgmt, Remote: undefined };
      } catch (err) {
        if (!(err instanceof ClusterError)) throw err;
        await this.writeStatus(raw, cs, { ...(cs.status ?? {}), failureMessage: `cannot remove the deployed add-ons: ${err.message}` });
        return { requeue: true };
      }
      const leave = spec.stopMatchingBehavior === 'LeavePolicies';
      this.drift.untrack(key);
      this.drift.untrack(key + HELM_DRIFT);
      const { skip, others } = this.releasesOthersList(p, entry);
      if (!leave && clients.Remote && ((spec.helmCharts ?? []).length > 0 || (cs.status?.helmReleaseSummaries ?? []).length > 0)) {
        try {
          // Releases another profile lists too are left to it (handed over, or never ours): it is woken below.
          await this.helm.withdraw(clients.Remote, spec, cs.status?.helmReleaseSummaries ?? [], skip);
        } catch (err) {
          const message = `cannot uninstall the Helm releases from cluster ${cs.spec.clusterNamespace}/${cs.spec.clusterName}: ${errorMessage(err)}`;
          record(this.c, raw, 'Warning', 'WithdrawFailed', message);
          await this.writeStatus(raw, cs, { ...(cs.status ?? {}), failureMessage: message, featureSummaries: [{ featureID: HELM_FEATURE, status: 'Removing', failureMessage: message }] });
          return { requeue: true };
        }
      }
      if (KustomizeFeature.recordedGvks(cs).length > 0) {
        let k: ExecuteOutcome | undefined;
        let message: string | undefined;
        try {
          k = await this.kustomize.withdraw({ ...p, profile: { ...profile, namespace: raw.metadata.namespace }, signal: rctx.signal }, clients, leave);
          if (k.errors.length > 0) message = k.errors.join('\n');
        } catch (err) {
          if (!isTransient(err)) throw err;
          message = `cannot remove the kustomizationRefs objects from cluster ${cs.spec.clusterNamespace}/${cs.spec.clusterName}: ${errorMessage(err)}`;
        }
        if (message !== undefined) {
          record(this.c, raw, 'Warning', 'WithdrawFailed', message);
          await this.writeStatus(raw, cs, { ...(cs.status ?? {}), failureMessage: message, featureSummaries: [{ featureID: KUSTOMIZE_FEATURE, status: 'Removing', failureMessage: message }] });
          return { requeue: true };
        }
        if (k && k.writes > 0) record(this.c, raw, 'Normal', leave ? 'LeftInPlace' : 'Withdrawn', `kustomizationRefs: ${leave ? 'left in place (LeavePolicies), stamps removed from' : 'removed'} ${k.results.length} object(s) in cluster ${cs.spec.clusterNamespace}/${cs.spec.clusterName}`);
      }
      let outcome: ExecuteOutcome;
      try {
        const deployed = await this.scanDeployed(p, this.recordedGvks(cs), clients);
        outcome = await execute(planWithdrawal(deployed, leave, STAMP_ANNOTATIONS, [Labels.reason]), clients, {
          fieldManager: this.c.fieldManager,
          dryRun: false,
          continueOnConflict: true,
          continueOnError: true,
          signal: rctx.signal,
        });
      } catch (err) {
        if (!isTransient(err)) throw err;
        // Unreachable is not evidence of anything: keep the finalizer and retry with backoff.
        const message = `cannot remove the deployed add-ons from cluster ${cs.spec.clusterNamespace}/${cs.spec.clusterName}: ${errorMessage(err)}`;
        await this.writeStatus(raw, cs, { ...(cs.status ?? {}), failureMessage: message, featureSummaries: [{ featureID: RESOURCES, status: 'Removing', failureMessage: message }] });
        return { requeue: true };
      }
      for (const r of outcome.results) this.c.metrics?.objects.inc({ op: opOf(r) });
      if (outcome.errors.length > 0) {
        const message = outcome.errors.join('\n');
        record(this.c, raw, 'Warning', 'WithdrawFailed', message);
        await this.writeStatus(raw, cs, {
          ...(cs.status ?? {}),
          failureMessage: message,
          featureSummaries: [{ featureID: RESOURCES, status: 'Removing', failureMessage: message }],
        });
        return { requeue: true };
      }
      if (outcome.writes > 0) {
        record(this.c, raw, 'Normal', leave ? 'LeftInPlace' : 'Withdrawn', `${leave ? 'left in place (LeavePolicies), stamps removed from' : 'removed'} ${outcome.results.length} object(s) in cluster ${cs.spec.clusterNamespace}/${cs.spec.clusterName}`);
      }
      if (entry) this.wakeConflicted(entry.key, key);
      this.releaseManagers.release(key);
      for (const o of others) {
        this.forceFull.add(o);
        this.enqueue(o);
      }
      if (await this.deleteChecksBlock(p, 'postDeleteChecks')) return;
    }
    await this.deleteClusterReport(p);
    this.c.metrics?.outcomes.inc({ feature: RESOURCES, outcome: 'removed' });
    const finalizers = raw.metadata.finalizers ?? [];
    try {
      await this.c.mgmt.patch({ apiVersion: raw.apiVersion, kind: raw.kind, namespace: raw.metadata.namespace, name: raw.metadata.name }, 'json', [
        { op: 'test', path: '/metadata/finalizers', value: finalizers },
        { op: 'replace', path: '/metadata/finalizers', value: finalizers.filter((f) => f !== AddonFinalizers.clusterSummary) },
      ]);
    } catch (err) {
      if (!isNotFound(err)) throw err;
    }
    this.forget(key);
  }

  /** writeClusterReport records what DryRun would do (ClusterReport spec + status.resourceReports). */
  private async writeClusterReport(p: Pass, results: readonly ObjectResult[]): Promise<void> {
    const { cs, profile, type } = p;
    const name = clusterReportName(profile.kind, profile.name, type, cs.spec.clusterName);
    const owner = this.profileObject(profile, cs.metadata.namespace);
    const meta = {
      name,
      namespace: cs.spec.clusterNamespace,
      labels: { [AddonLabels.clusterName]: cs.spec.clusterName, [AddonLabels.clusterType]: type, [profileLabelKey(profile.kind)]: profile.name },
      ...(owner?.metadata.uid ? { ownerReferences: [{ apiVersion: 'config.projectsveltos.io/v1beta1', kind: profile.kind, name: profile.name, uid: owner.metadata.uid }] } : {}),
    };
    const base = { apiVersion: 'config.projectsveltos.io/v1beta1', kind: 'ClusterReport' };
    await this.c.mgmt.apply({ ...base, metadata: meta, spec: { clusterNamespace: cs.spec.clusterNamespace, clusterName: cs.spec.clusterName } }, { fieldManager: this.c.fieldManager, force: true });
    const resourceReports = results
      .filter((r) => r.id.kind !== 'Namespace' || r.action !== 'Error' || r.id.name !== '')
      .map((r) => {
        const slash = r.id.apiVersion.indexOf('/');
        return {
          action: r.action,
          ...(r.message ? { message: r.message } : {}),
          resource: {
            group: slash < 0 ? '' : r.id.apiVersion.slice(0, slash),
            version: slash < 0 ? r.id.apiVersion : r.id.apiVersion.slice(slash + 1),
            kind: r.id.kind,
            name: r.id.name,
            ...(r.id.namespace ? { namespace: r.id.namespace } : {}),
          },
        };
      });
    await this.c.mgmt.apply({ ...base, metadata: { name, namespace: cs.spec.clusterNamespace }, status: { resourceReports } }, { fieldManager: this.c.fieldManager, force: true, subresource: 'status' });
  }

  private async deleteClusterReport({ cs, profile, type }: Pass): Promise<void> {
    try {
      await this.c.mgmt.delete({ apiVersion: 'config.projectsveltos.io/v1beta1', kind: 'ClusterReport', namespace: cs.spec.clusterNamespace, name: clusterReportName(profile.kind, profile.name, type, cs.spec.clusterName) });
    } catch (err) {
      if (!isNotFound(err)) throw err;
    }
  }

  private profileObject(profile: { kind: ProfileKind; name: string }, namespace: string | undefined): KubeObject | undefined {
    return profile.kind === 'ClusterProfile' ? this.c.caches.clusterProfiles.cache.get(undefined, profile.name) : this.c.caches.profiles.cache.get(namespace, profile.name);
  }

  /** writeStatus writes the ClusterSummary status when it differs from what is stored (server-side apply). */
  private async writeStatus(raw: KubeObject, cs: ClusterSummary, status: ClusterSummaryStatus): Promise<void> {
    const clean = JSON.parse(JSON.stringify(status)) as ClusterSummaryStatus;
    if (goJSON(clean) === goJSON(cs.status ?? {})) return;
    try {
      await this.c.mgmt.apply(
        { apiVersion: 'config.projectsveltos.io/v1beta1', kind: 'ClusterSummary', metadata: { name: raw.metadata.name, namespace: raw.metadata.namespace }, status: clean },
        { fieldManager: this.c.fieldManager, force: true, subresource: 'status' },
      );
    } catch (err) {
      // Deleted meanwhile: nothing to report on.
      if (!isNotFound(err)) throw err;
    }
  }
}

/** CLUSTER_INDEX indexes ClusterSummaries by their cluster key (`Sveltos:ns/name`). */
export const CLUSTER_INDEX = 'addons.cluster';

/** clusterIndexOf is the CLUSTER_INDEX function. */
export function clusterIndexOf(o: KubeObject): string[] {
  const spec = (o as { spec?: { clusterType?: string; clusterNamespace?: string; clusterName?: string } }).spec;
  if (!spec?.clusterName) return [];
  return [clusterKey(spec.clusterType === 'Capi' ? 'Capi' : 'Sveltos', spec.clusterNamespace ?? '', spec.clusterName)];
}

/** opOf names the metric operation of an object result. */
function opOf(r: ObjectResult): string {
  switch (r.action) {
    case 'Create':
      return r.wrote ? 'create' : 'dryrun';
    case 'Update':
      return r.wrote ? 'update' : 'dryrun';
    case 'Delete':
      return r.wrote ? 'delete' : 'dryrun';
    case 'No Action':
      return 'unchanged';
    case 'Conflict':
      return 'conflict';
    case 'Error':
      return 'error';
  }
}

/** runLimited runs fn over items with at most `limit` in flight. */
export async function runLimited<T>(items: readonly T[], limit: number, fn: (item: T) => Promise<void>): Promise<void> {
  let next = 0;
  const worker = async () => {
    while (next < items.length) {
      const i = next++;
      await fn(items[i]);
    }
  };
  await Promise.all(Array.from({ length: Math.min(limit, items.length) }, worker));
}

// The manager has no access to a pull-mode cluster, so it cannot run health or pre-deploy checks there (the agent
// does not run them either): a profile asking for them is refused visibly instead of deployed ungated.
function pullModeChecks(spec: ClusterProfileSpec, featureID: string): Feature | undefined {
  const asked = ['validateHealths', 'preDeployChecks', 'preDeleteChecks', 'postDeleteChecks'].filter((k) => ((spec as Record<string, unknown>)[k] as unknown[] | undefined)?.length);
  if (asked.length === 0) return undefined;
  return { featureID: featureID as Feature['featureID'], status: 'FailedNonRetriable', failureMessage: `${asked.join(', ')} cannot run for a SveltosCluster in pull mode (the management cluster has no access to it); remove them or use push mode` };
}
