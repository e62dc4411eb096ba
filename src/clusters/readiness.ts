// The readiness controller: probes each SveltosCluster (GET /version through its kubeconfig, which needs no RBAC)
// when it appears or its spec changes and then periodically — every probeIntervalMs while healthy, with exponential
// backoff while failing — and writes status exactly as sveltoscluster-manager does: failureMessage, connectionFailures
// (reset on success), connectionStatus Down once failures reach spec.consecutiveFailureThreshold (default 3),
// Healthy on success, ready=true and version on success (ready stays true afterwards: Sveltos' "was reachable",
// so a blip never unselects a cluster), plus the projectsveltos.io/k8s-version label. Transitions become Events.
//
// A quiet fleet asks its clusters nothing: when a healthy cluster's probe is due and the watches Ripple keeps open
// on it (the registry's shared informers: agent, deployer) are all working and have had data recently (within
// watchEvidenceMaxAgeMs, 150 s) — an event or the API server's periodic bookmark — that is the evidence the probe
// would give, so no GET /version is sent and the status stays as it is. A real probe still runs when that evidence
// is missing (nothing watches the cluster, an informer is failing, a silent connection), when the cluster has
// checks to run (readinessChecks/livenessChecks run on every probe, as in Sveltos), when its spec changed or it is
// failing, and at least every quietProbeMaxMs (10 × probeIntervalMs) to refresh the version. With 1,000 clusters
// the probes were ~17 requests a second to managed clusters from a fleet where nothing happened.
// Go: sveltoscluster-manager controllers/sveltoscluster_controller.go (reconcileNormal, updateConnectionStatus)
import { Counter, type Registry } from 'prom-client';
import type { SveltosClusterStatus } from '../api/index.js';
import {
  Backoff,
  Controller,
  errorMessage,
  splitKey,
  type BackoffOptions,
  type EventRecorder,
  type InformerFactory,
  type KubeClient,
  type KubeObject,
  type ReconcileResult,
  type Subscription,
} from '../kube/index.js';
import { createLuaRuntime, type LuaRuntime } from '../lua/index.js';
import { silentLogger, type Logger } from '../obs/index.js';
import { planActiveWindow, type ActiveWindow } from './active-window.js';
import { checkProblems, runClusterChecks, type CheckPhase, type ClusterCheck } from './checks.js';
import { K8S_VERSION_LABEL, SVELTOS_CLUSTER, k8sVersionLabel } from './cluster.js';
import type { ClusterRegistry } from './registry.js';

/** ReadinessControllerOptions configures the readiness controller. */
export interface ReadinessControllerOptions {
  registry: ClusterRegistry;
  /** Informer factory of the management cluster (the one the registry uses). */
  informers: InformerFactory;
  recorder?: EventRecorder;
  logger?: Logger;
  metrics?: Registry;
  /** Time between probes of a healthy cluster (default 60 s, ±10% jitter). */
  probeIntervalMs?: number;
  /** Timeout of one probe (default 10 s). */
  probeTimeoutMs?: number;
  /** Backoff between probes of a failing cluster (default 1 s doubling, capped at probeIntervalMs). */
  failureBackoff?: BackoffOptions;
  /** Concurrent probes (default 10). */
  workers?: number;
  /** Longest time without a real probe of a healthy, watched cluster (default 10 × probeIntervalMs; 0 probes every
   * interval whatever the watches show). */
  quietProbeMaxMs?: number;
  /** How recent the watches' last data must be to stand in for a probe (default the larger of probeIntervalMs and
   * 150 s: kube-apiserver sends each watcher a bookmark about once a minute, so a quiet but open watch has data at
   * least that often; Ripple's embedded server every 30 s). */
  watchEvidenceMaxAgeMs?: number;
  /** Problems other controllers own (e.g. token renewal) shown in status.failureMessage while probes succeed. */
  extraProblem?: (namespace: string, name: string) => string | undefined;
}

interface ProbeState {
  generation: number | undefined;
  nextAt: number;
  ok: boolean;
  failures: number;
  backoff: Backoff;
  /** When the last real probe (a request to the cluster) ran. */
  probedAt: number;
}

type SveltosClusterObject = KubeObject & {
  spec?: {
    consecutiveFailureThreshold?: number;
    pullMode?: boolean;
    readinessChecks?: ClusterCheck[];
    livenessChecks?: ClusterCheck[];
    activeWindow?: ActiveWindow;
  };
  status?: SveltosClusterStatus;
};

/**
 * ProbeOutcome is the result of one probe: reachable (and every readiness/liveness check passed), unreachable, or
 * reachable with a check that did not pass (`check`; `version` is then known).
 */
export type ProbeOutcome =
  | { ok: true; version: string }
  | { ok: false; message: string; check?: { phase: CheckPhase; name: string; error: boolean }; version?: string };

/**
 * configProblem is what is wrong in a SveltosCluster's spec that no probe can reveal (duplicate check names, an
 * activeWindow that does not parse): it stays in status.failureMessage while the cluster is otherwise healthy.
 */
export function configProblem(spec: SveltosClusterObject['spec'] | undefined): string | null {
  const problems = [...checkProblems('readiness', spec?.readinessChecks), ...checkProblems('liveness', spec?.livenessChecks)];
  if (spec?.activeWindow) {
    const w = planActiveWindow(spec.activeWindow, new Date(0));
    if (!w.ok) problems.push(w.message);
  }
  return problems.length > 0 ? problems.join('; ') : null;
}

/** StatusPlan is what a probe changes: the status fields to write and the Events to emit. */
export interface StatusPlan {
  status: { ready?: boolean; version?: string; connectionStatus: 'Healthy' | 'Down'; connectionFailures: number; failureMessage: string | null };
  events: { type: 'Normal' | 'Warning'; reason: string; message: string }[];
}

/**
 * planStatus computes the status after a probe (pure). `failures` is the number of consecutive failures before
 * this probe. Go: sveltoscluster_controller.go reconcileNormal + updateConnectionStatus
 */
export function planStatus(
  current: SveltosClusterStatus | undefined,
  failures: number,
  threshold: number | undefined,
  outcome: ProbeOutcome,
  problem: string | null = null,
): StatusPlan {
  const cur = current ?? {};
  const limit = Math.max(1, threshold ?? 3);
  const events: StatusPlan['events'] = [];
  if (outcome.ok) {
    if (cur.ready !== true) events.push({ type: 'Normal', reason: 'ClusterReady', message: `cluster is reachable (Kubernetes ${outcome.version})` });
    else if (cur.connectionStatus === 'Down') events.push({ type: 'Normal', reason: 'ConnectionRestored', message: `cluster is reachable again (Kubernetes ${outcome.version})` });
    return { status: { ready: true, version: outcome.version, connectionStatus: 'Healthy', connectionFailures: 0, failureMessage: problem }, events };
  }
  if (outcome.check?.phase === 'readiness') {
    // Reachable but not ready yet: the connection is fine, the cluster stays unready (unselected) until it passes.
    events.push({ type: 'Warning', reason: 'ReadinessCheckFailed', message: `${outcome.message}; the cluster stays not ready` });
    const status: StatusPlan['status'] = { connectionStatus: 'Healthy', connectionFailures: 0, failureMessage: outcome.message };
    if (outcome.version) status.version = outcome.version;
    return { status, events };
  }
  // Unreachable, or a liveness check did not pass: a connection failure (Down at the threshold).
  const n = failures + 1;
  const down = n >= limit;
  events.push({ type: 'Warning', reason: outcome.check ? 'LivenessCheckFailed' : 'ProbeFailed', message: outcome.message });
  if (down && cur.connectionStatus !== 'Down') {
    events.push({ type: 'Warning', reason: 'ConnectionDown', message: `${n} consecutive connection failures (threshold ${limit}): ${outcome.message}` });
  }
  const status: StatusPlan['status'] = {
    connectionStatus: down ? 'Down' : (cur.connectionStatus ?? 'Healthy'),
    connectionFailures: n,
    failureMessage: outcome.message,
  };
  return { status, events };
}

function statusDiffers(cur: SveltosClusterStatus | undefined, next: StatusPlan['status']): boolean {
  const c = cur ?? {};
  return (
    (next.ready !== undefined && c.ready !== next.ready) ||
    (next.version !== undefined && c.version !== next.version) ||
    c.connectionStatus !== next.connectionStatus ||
    (c.connectionFailures ?? 0) !== next.connectionFailures ||
    (c.failureMessage ?? null) !== next.failureMessage
  );
}

/** ClusterReadinessController probes SveltosClusters and maintains their status; see the file comment. */
export class ClusterReadinessController {
  private readonly controller: Controller;
  private readonly state = new Map<string, ProbeState>();
  private sub: Subscription<SveltosClusterObject> | undefined;
  private readonly interval: number;
  private readonly timeout: number;
  private readonly log: Logger;
  private runtime: Promise<LuaRuntime> | undefined;
  private readonly quietMax: number;
  private readonly evidenceMaxAge: number;
  private readonly probes: Counter<'via'> | undefined;

  constructor(private readonly options: ReadinessControllerOptions) {
    this.interval = options.probeIntervalMs ?? 60_000;
    this.timeout = options.probeTimeoutMs ?? 10_000;
    this.quietMax = options.quietProbeMaxMs ?? 10 * this.interval;
    this.evidenceMaxAge = options.watchEvidenceMaxAgeMs ?? Math.max(this.interval, 150_000);
    const name = 'ripple_cluster_probes_total';
    this.probes = options.metrics
      ? ((options.metrics.getSingleMetric(name) as Counter<'via'> | undefined) ??
        new Counter({ name, help: 'SveltosCluster health probes by how they were answered: request (GET /version and checks) or watch (the open watches showed the cluster answering)', labelNames: ['via'], registers: [options.metrics] }))
      : undefined;
    this.log = (options.logger ?? silentLogger()).child({ component: 'cluster-readiness' });
    this.controller = new Controller({
      name: 'sveltoscluster-readiness',
      workers: options.workers ?? 10,
      logger: options.logger,
      metrics: options.metrics,
      reconcile: (key) => this.reconcile(key),
    });
  }

  /** start subscribes to SveltosClusters and starts probing. */
  start(): void {
    if (this.sub) return;
    this.sub = this.options.informers.subscribe<SveltosClusterObject>(SVELTOS_CLUSTER);
    this.controller.watch(this.sub.informer);
    this.controller.start();
  }

  /** stop ends probing (in-flight probes finish). */
  async stop(): Promise<void> {
    await this.controller.stop();
    await this.sub?.unsubscribe();
    this.sub = undefined;
    const rt = this.runtime;
    this.runtime = undefined;
    if (rt) (await rt).close();
  }

  /** reconcile probes one SveltosCluster when due and writes its status. */
  private async reconcile(key: string): Promise<ReconcileResult | void> {
    const { namespace, name } = splitKey(key);
    const obj = this.sub?.informer.cache.get(namespace, name);
    if (!obj || obj.metadata.deletionTimestamp || obj.spec?.pullMode) {
      this.state.delete(key);
      return;
    }
    const entry = this.options.registry.get({ kind: 'SveltosCluster', namespace, name });
    // Not ours (another shard) or not known yet: the registry's view decides.
    if (!entry) return;
    const now = Date.now();
    const st = this.state.get(key);
    if (st && st.generation === obj.metadata.generation && now < st.nextAt) return { requeueAfter: st.nextAt - now };
    if (st && st.generation === obj.metadata.generation && this.watchedHealthy(entry.key, obj, st, now)) {
      this.probes?.inc({ via: 'watch' });
      const delay = Math.round(this.interval * (0.9 + 0.2 * Math.random()));
      this.state.set(key, { ...st, nextAt: now + delay });
      return { requeueAfter: delay };
    }

    this.probes?.inc({ via: 'request' });
    const probedAt = Date.now();
    const outcome = await this.probe(entry.key, st !== undefined && !st.ok, obj);
    const failures = st?.failures ?? obj.status?.connectionFailures ?? 0;
    const plan = planStatus(obj.status, failures, obj.spec?.consecutiveFailureThreshold, outcome, this.problem(obj));
    const client = this.options.registry.mgmt;
    const ref = { ...SVELTOS_CLUSTER, namespace, name };
    if (statusDiffers(obj.status, plan.status)) {
      await client.patch(ref, 'merge', { status: plan.status }, { subresource: 'status' });
    }
    if (outcome.version) {
      const label = k8sVersionLabel(outcome.version);
      if (label && obj.metadata.labels?.[K8S_VERSION_LABEL] !== label) {
        await client.patch(ref, 'merge', { metadata: { labels: { [K8S_VERSION_LABEL]: label } } });
      }
    }
    for (const e of plan.events) this.options.recorder?.event(obj, e.type, e.reason, e.message);

    const backoff = st?.backoff ?? new Backoff({ initialMs: 1000, maxMs: this.interval, ...this.options.failureBackoff });
    let delay: number;
    if (outcome.ok) {
      backoff.reset();
      delay = Math.round(this.interval * (0.9 + 0.2 * Math.random()));
    } else {
      delay = backoff.next();
      this.log.debug({ cluster: key, delayMs: delay, err: outcome.message }, 'probe failed');
    }
    this.state.set(key, { generation: obj.metadata.generation, nextAt: Date.now() + delay, ok: outcome.ok, failures: plan.status.connectionFailures, backoff, probedAt });
    return { requeueAfter: delay };
  }

  /**
   * watchedHealthy says whether a due probe can be answered by the cluster's open watches (see the file comment): the
   * last probe succeeded, no check is configured for the phase, status would not change, a real probe ran within
   * quietProbeMaxMs, and the shared informers are working with data more recent than watchEvidenceMaxAgeMs.
   */
  private watchedHealthy(clusterKey: string, obj: SveltosClusterObject, st: ProbeState, now: number): boolean {
    if (!st.ok || this.quietMax <= 0 || now - st.probedAt >= this.quietMax) return false;
    const checks = obj.status?.ready === true ? obj.spec?.livenessChecks : obj.spec?.readinessChecks;
    if ((checks ?? []).length > 0 || obj.status?.ready !== true || obj.status.connectionStatus !== 'Healthy') return false;
    const live = this.options.registry.watchLiveness(clusterKey);
    if (live === undefined || live.failing || live.lastDataAt === 0 || now - live.lastDataAt >= this.evidenceMaxAge) return false;
    // What a successful probe would write: nothing new (a problem another controller owns may have appeared).
    const plan = planStatus(obj.status, 0, obj.spec?.consecutiveFailureThreshold, { ok: true, version: obj.status.version ?? '' }, this.problem(obj));
    return !statusDiffers(obj.status, plan.status) && plan.events.length === 0;
  }

  // problem is what status.failureMessage shows while probes succeed: the spec's own problems and those of other
  // controllers (token renewal), or null.
  private problem(obj: SveltosClusterObject): string | null {
    const problems = [configProblem(obj.spec), this.options.extraProblem?.(obj.metadata.namespace ?? '', obj.metadata.name)].filter((p): p is string => !!p);
    return problems.length > 0 ? problems.join('; ') : null;
  }

  private async probe(clusterKey: string, fresh: boolean, obj: SveltosClusterObject): Promise<ProbeOutcome> {
    let version: string;
    let client: KubeClient;
    try {
      // A failing cluster re-reads its Secret each time: the fix is often a new kubeconfig.
      client = await this.options.registry.client(clusterKey, { fresh });
      version = (await client.version({ timeoutMs: this.timeout })).gitVersion;
    } catch (err) {
      return { ok: false, message: errorMessage(err) };
    }
    // Not ready yet: readinessChecks decide; ready: livenessChecks (Go: isReady / isHealthy over cluster_checks).
    const phase: CheckPhase = obj.status?.ready === true ? 'liveness' : 'readiness';
    const checks = (phase === 'readiness' ? obj.spec?.readinessChecks : obj.spec?.livenessChecks) ?? [];
    if (checks.length === 0) return { ok: true, version };
    const out = await runClusterChecks(client, checks, await this.lua(), { signal: AbortSignal.timeout(this.timeout) });
    if (out.ok) return { ok: true, version };
    return {
      ok: false,
      version,
      message: `${phase} check ${out.check} ${out.error ? `failed: ${out.message}` : out.message}`,
      check: { phase, name: out.check, error: out.error },
    };
  }

  private lua(): Promise<LuaRuntime> {
    this.runtime ??= createLuaRuntime();
    return this.runtime;
  }
}
