// cluster-agent: the agent that runs in (or against) ONE managed cluster — delivery modes "push" (it also writes the
// management-cluster copy through a credential scoped to its cluster namespace) and "collect" (it only writes the
// managed copy; the management side collects it). It evaluates the EventSource copies it finds in the managed
// cluster — only those carrying `projectsveltos.io/deployed-by-sveltos`, like sveltos-agent — and keeps one
// EventReport per EventSource in `projectsveltos`, named after the EventSource.
//
// RBAC the management-cluster credential needs (push mode), in the cluster namespace only:
//   eventreports (lib.projectsveltos.io):        get, list, watch, create, update, patch, delete
//   eventreports/status (lib.projectsveltos.io): get, update, patch
// (`ripple agent rbac` prints the Role, RoleBinding and ServiceAccount.) In the managed cluster it needs
// get/list/watch on every kind its EventSources select, get/list/watch on eventsources, the same verbs as above on
// eventreports in `projectsveltos`, and create on namespaces (to create `projectsveltos` if missing).
// Go: sveltos-agent pkg/evaluation (manager.go, eventsource_evaluation.go sendEventReport).
import { Annotations, Labels, SVELTOS_NAMESPACE, type EventSource } from '../api/index.js';
import { errorMessage, isAlreadyExists, type EventRecorder, type InformerFactory, type KubeObject, type Subscription } from '../kube/index.js';
import { createLuaRuntime, type LuaRuntime } from '../lua/index.js';
import { silentLogger, type Logger } from '../obs/index.js';
import type { Registry } from 'prom-client';
import { CloudEventSink, compileSourceCriteria } from './cloudevent-sink.js';
import { ClusterDetector, type ReportUpdate } from './detector.js';
import { agentMetrics, type AgentMetrics } from './metrics.js';
import { buildManagedReport, buildManagementReport, managementReportName, type ClusterIdentity } from './report.js';
import { EVENT_SOURCE, NormalizedCache, isDeleting, listedOrAbsent } from './sources.js';
import { ReportWriter } from './writer.js';

/** ClusterAgentOptions configures startClusterAgent. */
export interface ClusterAgentOptions {
  /** Informer factory of the managed cluster (its client is used for writes). */
  informers: InformerFactory;
  /** Which cluster this is, as the management cluster knows it. */
  cluster: ClusterIdentity;
  /**
   * Push mode: an informer factory on the management cluster whose credential may read and write EventReports in
   * the cluster namespace (see the RBAC in the file comment). Absent: collect mode (do-not-send-reports).
   */
  management?: InformerFactory;
  /** Events in the managed cluster (evaluation failures on the EventSource copies). */
  recorder?: EventRecorder;
  logger?: Logger;
  metrics?: Registry;
  clock?: { now(): number };
  runtime?: LuaRuntime;
  luaHelpers?: boolean;
  /** Coalescing window for object changes, ms (default 10). */
  coalesceMs?: number;
  /** How long start waits for the EventSource informer to list, ms (default 60 s). */
  syncTimeoutMs?: number;
}

/** ClusterAgent is a running in-cluster agent. */
export interface ClusterAgent {
  /** eventSources lists the EventSources being evaluated. */
  eventSources(): string[];
  stop(): Promise<void>;
}

/** startClusterAgent starts the agent for one managed cluster and resolves once it evaluates. */
export async function startClusterAgent(options: ClusterAgentOptions): Promise<ClusterAgent> {
  const runtime = options.runtime ?? (await createLuaRuntime({ clock: options.clock ?? { now: () => Date.now() } }));
  const a = new InClusterAgent(options, runtime, options.runtime === undefined);
  await a.start();
  return a;
}

class InClusterAgent implements ClusterAgent {
  private readonly log: Logger;
  private readonly metrics: AgentMetrics | undefined;
  private readonly managed: ReportWriter;
  private readonly mgmt: ReportWriter | undefined;
  private readonly detector: ClusterDetector;
  private esSub!: Subscription<KubeObject>;
  private sources!: NormalizedCache<EventSource>;
  private timer: NodeJS.Timeout | undefined;
  private ready = false;
  private stopped = false;
  private readonly failures = new Map<string, string>();
  private wanted = new Set<string>();
  /** Push mode: CloudEvents over NATS for the EventSource copies with messagingMatchCriteria. */
  private cloudEvents: CloudEventSink | undefined;

  constructor(
    private readonly options: ClusterAgentOptions,
    private readonly runtime: LuaRuntime,
    private readonly ownsRuntime: boolean,
  ) {
    const id = options.cluster;
    this.log = (options.logger ?? silentLogger()).child({ component: 'agent', cluster: `${id.clusterType}:${id.clusterNamespace}/${id.clusterName}`, mode: options.management ? 'push' : 'collect' });
    this.metrics = options.metrics ? agentMetrics(options.metrics) : undefined;
    this.managed = new ReportWriter({ role: 'managed', client: options.informers.client, informers: options.informers, namespace: SVELTOS_NAMESPACE, logger: this.log, metrics: this.metrics, registry: options.metrics });
    if (options.management) {
      this.mgmt = new ReportWriter({
        role: 'management',
        client: options.management.client,
        informers: options.management,
        namespace: id.clusterNamespace,
        logger: this.log,
        metrics: this.metrics,
        registry: options.metrics,
      });
    }
    this.detector = new ClusterDetector({
      cluster: options.informers.client.name,
      informers: options.informers,
      runtime,
      coalesceMs: options.coalesceMs,
      luaHelpers: options.luaHelpers,
      logger: this.log,
      metrics: this.metrics,
      onReport: (u) => this.onReport(u),
    });
  }

  async start(): Promise<void> {
    const inf = this.options.informers;
    await this.ensureNamespace();
    const touch = () => this.schedule();
    this.esSub = inf.subscribe<KubeObject>(EVENT_SOURCE, { onAdd: touch, onUpdate: touch, onDelete: touch });
    this.sources = new NormalizedCache(this.esSub);
    await listedOrAbsent(inf, this.esSub.informer, { timeoutMs: this.options.syncTimeoutMs ?? 60_000 });
    this.managed.start();
    this.mgmt?.start();
    // Sweeps need the stored reports listed; the management cluster may be unreachable now, so do not wait for it.
    void this.managed.waitForSync().then(() => this.schedule(), () => {});
    void this.mgmt?.waitForSync().then(() => this.schedule(), () => {});
    this.ready = true;
    this.sync();
    this.log.info({ eventSources: this.detector.eventSources().length }, 'agent started');
  }

  eventSources(): string[] {
    return this.detector.eventSources();
  }

  async stop(): Promise<void> {
    if (this.stopped) return;
    this.stopped = true;
    if (this.timer) clearTimeout(this.timer);
    await this.detector.stop();
    await Promise.all([this.managed.stop(), this.mgmt?.stop(), this.cloudEvents?.stop()]);
    await this.esSub?.unsubscribe();
    if (this.ownsRuntime) this.runtime.close();
  }

  private async ensureNamespace(): Promise<void> {
    const client = this.options.informers.client;
    try {
      await client.create({ apiVersion: 'v1', kind: 'Namespace', metadata: { name: SVELTOS_NAMESPACE } } as KubeObject);
    } catch (err) {
      if (isAlreadyExists(err)) return;
      // Not fatal: the namespace may exist already and creating it may be forbidden; report writes will tell.
      this.log.warn({ err: errorMessage(err) }, `cannot create namespace ${SVELTOS_NAMESPACE}`);
    }
  }

  private schedule(): void {
    if (!this.ready || this.stopped || this.timer) return;
    this.timer = setTimeout(() => {
      this.timer = undefined;
      this.sync();
    }, this.options.coalesceMs ?? 10);
  }

  // sync evaluates the EventSource copies present now and withdraws reports whose EventSource is gone.
  private sync(): void {
    if (this.stopped) return;
    const wanted = new Map<string, EventSource>();
    for (const key of this.sources.keys()) {
      const raw = this.sources.raw(key);
      if (!raw || isDeleting(raw) || raw.metadata.annotations?.[Annotations.deployedBySveltos] === undefined) continue;
      const es = this.sources.get(key);
      if (!es) {
        this.log.warn({ eventSource: key, problem: this.sources.problem(key) }, 'EventSource cannot be read; skipped');
        continue;
      }
      wanted.set(key, es);
    }
    this.log.debug({ eventSources: [...wanted.keys()] }, 'EventSource copies');
    this.detector.setEventSources(wanted);
    const id = this.options.cluster;
    // EventSources that just went away: withdraw their reports by name (a write may still be in flight, so the
    // stored reports below are not enough).
    for (const es of this.wanted) {
      if (wanted.has(es)) continue;
      this.managed.withdraw(SVELTOS_NAMESPACE, es);
      this.mgmt?.withdraw(id.clusterNamespace, managementReportName(id, es));
    }
    this.wanted = new Set(wanted.keys());
    this.syncCloudEvents(wanted);
    if (this.managed.hasSynced()) {
      for (const r of this.managed.observed()) {
        const es = r.metadata.labels?.[Labels.eventSourceName];
        // Reports naming a cluster belong to a management cluster managed by another Sveltos: not ours.
        if (!es || r.metadata.labels?.[Labels.eventReportClusterName] !== undefined || r.metadata.name !== es) continue;
        if (!wanted.has(es)) this.managed.withdraw(r.metadata.namespace, r.metadata.name);
      }
    }
    if (this.mgmt?.hasSynced()) {
      for (const r of this.mgmt.observed()) {
        const l = r.metadata.labels ?? {};
        const es = l[Labels.eventSourceName];
        if (!es || l[Labels.eventReportClusterName] !== id.clusterName || l[Labels.eventReportClusterType] !== id.clusterType.toLowerCase()) continue;
        if (r.metadata.name !== managementReportName(id, es)) continue;
        if (!wanted.has(es)) this.mgmt.withdraw(r.metadata.namespace, r.metadata.name);
      }
    }
  }

  // syncCloudEvents (push mode): while some copy has messagingMatchCriteria, subscribe to NATS with the settings of
  // Secret projectsveltos/sveltos-nats in this cluster (as sveltos-agent) and append matching CloudEvents to the
  // management-cluster reports. Collect mode does not (the management side refuses such EventSources visibly).
  private syncCloudEvents(wanted: Map<string, EventSource>): void {
    const management = this.options.management;
    if (!management) return;
    const messaging = [...wanted].filter(([, es]) => (es.spec?.messagingMatchCriteria ?? []).length > 0);
    if (messaging.length === 0) {
      void this.cloudEvents?.stop();
      this.cloudEvents = undefined;
      return;
    }
    if (!this.cloudEvents) {
      const id = this.options.cluster;
      this.cloudEvents = new CloudEventSink({
        cluster: `${id.clusterType}:${id.clusterNamespace}/${id.clusterName}`,
        informers: this.options.informers,
        client: management.client,
        logger: this.log,
        metrics: this.metrics,
        reportOf: (es) => ({ namespace: id.clusterNamespace, name: managementReportName(id, es) }),
        republish: (es) => {
          const last = this.detector.lastContent(es);
          if (last) this.onReport({ content: last });
        },
      });
      this.cloudEvents.start();
    }
    this.cloudEvents.setSources(new Map(messaging.map(([name, es]) => [name, compileSourceCriteria(es)])));
  }

  private onReport(update: ReportUpdate): void {
    if (this.stopped || !this.wanted.has(update.content.eventSourceName)) return;
    const u = this.cloudEvents ? { ...update, content: this.cloudEvents.content(update.content) } : update;
    this.managed.set(buildManagedReport(u.content), u.since);
    this.mgmt?.set(buildManagementReport(this.options.cluster, u.content), u.since);
    const es = u.content.eventSourceName;
    const failure = u.content.failureMessage;
    const prev = this.failures.get(es);
    if (prev === failure) return;
    if (failure) this.failures.set(es, failure);
    else this.failures.delete(es);
    const raw = this.sources.raw(es);
    if (!raw || !this.options.recorder) return;
    const obj = raw as Parameters<EventRecorder['event']>[0];
    if (failure) this.options.recorder.event(obj, 'Warning', 'EvaluationFailed', failure);
    else if (prev) this.options.recorder.event(obj, 'Normal', 'EvaluationRecovered', `EventSource ${es} evaluates again`);
  }
}
