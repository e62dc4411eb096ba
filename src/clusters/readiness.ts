// The readiness controller: probes each SveltosCluster (GET /version through its kubeconfig, which needs no RBAC)
// when it appears or its spec changes and then periodically — every probeIntervalMs while healthy, with exponential
// backoff while failing — and writes status exactly as sveltoscluster-manager does: failureMessage, connectionFailures
// (reset on success), connectionStatus Down once failures reach spec.consecutiveFailureThreshold (default 3),
// Healthy on success, ready=true and version on success (ready stays true afterwards: Sveltos' "was reachable",
// so a blip never unselects a cluster), plus the projectsveltos.io/k8s-version label. Transitions become Events.
// Go: sveltoscluster-manager controllers/sveltoscluster_controller.go (reconcileNormal, updateConnectionStatus)
import type { Registry } from 'prom-client';
import type { SveltosClusterStatus } from '../api/index.js';
import {
  Backoff,
  Controller,
  errorMessage,
  splitKey,
  type BackoffOptions,
  type EventRecorder,
  type InformerFactory,
  type KubeObject,
  type ReconcileResult,
  type Subscription,
} from '../kube/index.js';
import { silentLogger, type Logger } from '../obs/index.js';
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
}

interface ProbeState {
  generation: number | undefined;
  nextAt: number;
  ok: boolean;
  failures: number;
  backoff: Backoff;
}

type SveltosClusterObject = KubeObject & {
  spec?: { consecutiveFailureThreshold?: number; pullMode?: boolean };
  status?: SveltosClusterStatus;
};

/** ProbeOutcome is the result of one probe. */
export type ProbeOutcome = { ok: true; version: string } | { ok: false; message: string };

/** StatusPlan is what a probe changes: the status fields to write and the Events to emit. */
export interface StatusPlan {
  status: { ready?: boolean; version?: string; connectionStatus: 'Healthy' | 'Down'; connectionFailures: number; failureMessage: string | null };
  events: { type: 'Normal' | 'Warning'; reason: string; message: string }[];
}

/**
 * planStatus computes the status after a probe (pure). `failures` is the number of consecutive failures before
 * this probe. Go: sveltoscluster_controller.go reconcileNormal + updateConnectionStatus
 */
export function planStatus(current: SveltosClusterStatus | undefined, failures: number, threshold: number | undefined, outcome: ProbeOutcome): StatusPlan {
  const cur = current ?? {};
  const limit = Math.max(1, threshold ?? 3);
  const events: StatusPlan['events'] = [];
  if (outcome.ok) {
    if (cur.ready !== true) events.push({ type: 'Normal', reason: 'ClusterReady', message: `cluster is reachable (Kubernetes ${outcome.version})` });
    else if (cur.connectionStatus === 'Down') events.push({ type: 'Normal', reason: 'ConnectionRestored', message: `cluster is reachable again (Kubernetes ${outcome.version})` });
    return { status: { ready: true, version: outcome.version, connectionStatus: 'Healthy', connectionFailures: 0, failureMessage: null }, events };
  }
  const n = failures + 1;
  const down = n >= limit;
  events.push({ type: 'Warning', reason: 'ProbeFailed', message: outcome.message });
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

  constructor(private readonly options: ReadinessControllerOptions) {
    this.interval = options.probeIntervalMs ?? 60_000;
    this.timeout = options.probeTimeoutMs ?? 10_000;
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

    const outcome = await this.probe(entry.key, st !== undefined && !st.ok);
    const failures = st?.failures ?? obj.status?.connectionFailures ?? 0;
    const plan = planStatus(obj.status, failures, obj.spec?.consecutiveFailureThreshold, outcome);
    const client = this.options.registry.mgmt;
    const ref = { ...SVELTOS_CLUSTER, namespace, name };
    if (statusDiffers(obj.status, plan.status)) {
      await client.patch(ref, 'merge', { status: plan.status }, { subresource: 'status' });
    }
    if (outcome.ok) {
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
    this.state.set(key, { generation: obj.metadata.generation, nextAt: Date.now() + delay, ok: outcome.ok, failures: plan.status.connectionFailures, backoff });
    return { requeueAfter: delay };
  }

  private async probe(clusterKey: string, fresh: boolean): Promise<ProbeOutcome> {
    try {
      // A failing cluster re-reads its Secret each time: the fix is often a new kubeconfig.
      const c = await this.options.registry.client(clusterKey, { fresh });
      const v = await c.version({ timeoutMs: this.timeout });
      return { ok: true, version: v.gitVersion };
    } catch (err) {
      return { ok: false, message: errorMessage(err) };
    }
  }
}
