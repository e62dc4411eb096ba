// manager: the management-side agent process, for every delivery mode.
//
//   agentless (default of `ripple up`): one ClusterDetector per managed cluster inside this process; EventSources
//     are read from the management cluster, objects are watched remotely, EventReports are written straight into the
//     management cluster.
//   push: agents run in the managed clusters (`ripple agent --send-reports`) and push their reports; this side
//     distributes EventSource copies into the managed clusters and withdraws reports nobody needs.
//   collect: agents run in the managed clusters without sending; this side distributes the copies and watches the
//     EventReports the agents write in `projectsveltos` of each managed cluster, copying them into the management
//     cluster.
//
// Which EventSources a cluster needs is recomputed (coalesced) whenever an EventTrigger / EventBasedAddOn,
// EventSource or cluster changes: every trigger whose sourceClusterSelector / clusterSetRefs select the cluster
// contributes its eventSourceName rendered with the cluster's data. Reports are withdrawn only on positive evidence:
// no trigger selecting the cluster needs that EventSource any more, the EventSource is gone from the management
// cluster, or the cluster was deleted — never because a cluster is unreachable.
import { Labels, SVELTOS_NAMESPACE, crdFor, kindDescriptor, type ClusterType, type EventSource, type EventTrigger } from '../api/index.js';
import type { ClusterEntry, ClusterEvent, ClusterRegistry } from '../clusters/index.js';
import type { FuncOptions } from '../funcs/index.js';
import {
  Backoff,
  Controller,
  errorMessage,
  isAlreadyExists,
  isNotFound,
  objectKey,
  type EventRecorder,
  type InformerFactory,
  type InformerView,
  type KubeClient,
  type KubeObject,
  type Subscription,
} from '../kube/index.js';
import { createLuaRuntime, type LuaRuntime } from '../lua/index.js';
import { TenantDirectory } from '../tenancy/index.js';
import { silentLogger, type Logger } from '../obs/index.js';
import type { Registry } from 'prom-client';
import { ClusterDetector, type ReportUpdate } from './detector.js';
import { applyAgent, type AgentDeployment } from './deploy.js';
import { CloudEventSink, compileSourceCriteria } from './cloudevent-sink.js';
import { buildEventSourceCopy, planDistribution, type EventSourceCopy } from './distribution.js';
import { agentMetrics, type AgentMetrics } from './metrics.js';
import { EventSourceNameRenderer, computeNeeds, type TriggerView } from './needs.js';
import {
  EVENT_REPORT,
  buildManagementReport,
  contentFromManagedReport,
  managementReportName,
  type ClusterIdentity,
  type ReportObject,
} from './report.js';
import { EVENT_BASED_ADDON, EVENT_SOURCE, EVENT_TRIGGER, NormalizedCache, isDeleting, listedOrAbsent, triggerViewOf } from './sources.js';
import { FIELD_MANAGER, ReportWriter } from './writer.js';

/** DeliveryMode is how EventReports reach the management cluster; see the file comment. */
export type DeliveryMode = 'agentless' | 'push' | 'collect';

/** DELIVERY_MODES lists the modes. */
export const DELIVERY_MODES: readonly DeliveryMode[] = ['agentless', 'push', 'collect'];

/** AgentManagerOptions configures startAgentManager. */
export interface AgentManagerOptions {
  /** Delivery mode (default agentless). */
  mode?: DeliveryMode;
  /** Informer factory of the management cluster (shared with the other controllers). */
  informers: InformerFactory;
  /** The fleet; started here if it is not yet. */
  registry: ClusterRegistry;
  /** Kubernetes Events about clusters, triggers and EventSources (none: log only). */
  recorder?: EventRecorder;
  logger?: Logger;
  metrics?: Registry;
  /** Time source (templates, Lua os.time); default the system clock. */
  clock?: { now(): number };
  /** A Lua runtime to share; default a new one. */
  runtime?: LuaRuntime;
  /** Lua instructions one evaluation may run, pattern matching included, for the runtime created here (default
   * the Lua runtime's, 10,000,000). */
  luaInstructionLimit?: number;
  /** Expose the libsveltos Lua helpers to EventSource scripts (default true). */
  luaHelpers?: boolean;
  /** Coalescing window for object changes and needs recomputation, ms (default 10). */
  coalesceMs?: number;
  /** How often cluster reachability is checked from informer state, ms (default 1000). */
  healthIntervalMs?: number;
  /** How long start waits for the management informers to list, ms (default 60 s). */
  syncTimeoutMs?: number;
  /** collect mode: install `ripple agent` (this image) into every cluster EventSources are copied to (deploy.ts). */
  agentDeployment?: AgentDeployment;
}

/** AgentManager is a running management-side agent. */
export interface AgentManager {
  readonly mode: DeliveryMode;
  /** needs returns, per cluster key, the EventSource names it evaluates (diagnostics, tests). */
  needs(): Map<string, string[]>;
  /** unreachable lists the clusters currently failing to list/watch. */
  unreachable(): string[];
  stop(): Promise<void>;
}

/** startAgentManager starts the management side of the agent in the given delivery mode and waits until it runs. */
export async function startAgentManager(options: AgentManagerOptions): Promise<AgentManager> {
  const runtime = options.runtime ?? (await createLuaRuntime({ clock: options.clock ?? { now: () => Date.now() }, instructionLimit: options.luaInstructionLimit }));
  const m = new Manager(options, runtime, options.runtime === undefined);
  await m.start();
  return m;
}

interface Wanted {
  es: EventSource;
  triggers: string[];
}

interface ClusterRuntime {
  key: string;
  entry: ClusterEntry;
  identity: ClusterIdentity;
  wanted: Map<string, Wanted>;
  factory?: InformerFactory;
  detector?: ClusterDetector;
  collectorSub?: Subscription<ReportObject & KubeObject>;
  collectPending: Set<string>;
  collectAll: boolean;
  collectSince?: number;
  collectTimer?: NodeJS.Timeout;
  lastCollectAt?: number;
  esSub?: Subscription<EventSourceCopy & KubeObject>;
  esSubFactory?: InformerFactory;
  connecting: boolean;
  backoff: Backoff;
  retryTimer?: NodeJS.Timeout;
  unreachable: boolean;
  stopped: boolean;
  /** Last evaluation failure per EventSource (Events only on change). */
  failures: Map<string, string>;
  /** CloudEvents over NATS for the EventSources with messagingMatchCriteria (agentless mode). */
  cloudEvents?: CloudEventSink;
}

const DEFAULT_COALESCE_MS = 10;

function identityOf(entry: ClusterEntry): ClusterIdentity {
  return { clusterNamespace: entry.ref.namespace, clusterName: entry.ref.name, clusterType: entry.type };
}

class Manager implements AgentManager {
  readonly mode: DeliveryMode;
  private readonly log: Logger;
  private readonly metrics: AgentMetrics | undefined;
  private readonly mgmt: KubeClient;
  private readonly subs: Subscription<KubeObject>[] = [];
  private triggers!: NormalizedCache<EventTrigger>;
  private addons!: NormalizedCache<EventTrigger>;
  private sources!: NormalizedCache<EventSource>;
  private triggerSub!: Subscription<KubeObject>;
  private addonSub!: Subscription<KubeObject>;
  private sourceSub!: Subscription<KubeObject>;
  private readonly writer: ReportWriter;
  private readonly tenants: TenantDirectory;
  private readonly renderer: EventSourceNameRenderer;
  private readonly runtimes = new Map<string, ClusterRuntime>();
  private distributor: Controller | undefined;
  private readonly coalesceMs: number;
  private recomputeTimer: NodeJS.Timeout | undefined;
  private healthTimer: NodeJS.Timeout | undefined;
  private removeRegistryListener: (() => void) | undefined;
  private ready = false;
  private stopped = false;
  private readonly triggerProblems = new Map<string, { rv: string | undefined; messages: Set<string> }>();
  private readonly crdsEnsured = new WeakSet<KubeClient>();
  private readonly agentDeployed = new WeakSet<KubeClient>();

  constructor(
    private readonly options: AgentManagerOptions,
    private readonly runtime: LuaRuntime,
    private readonly ownsRuntime: boolean,
  ) {
    this.mode = options.mode ?? 'agentless';
    if (options.agentDeployment && this.mode !== 'collect') throw new Error(`deploying the agent needs delivery mode collect (not ${this.mode}): the installed agent does not send reports`);
    this.log = (options.logger ?? silentLogger()).child({ component: 'agent', mode: this.mode });
    this.metrics = options.metrics ? agentMetrics(options.metrics) : undefined;
    this.mgmt = options.informers.client;
    this.coalesceMs = options.coalesceMs ?? DEFAULT_COALESCE_MS;
    const clock = options.clock ?? { now: () => Date.now() };
    const funcOptions: FuncOptions = { clock };
    this.renderer = new EventSourceNameRenderer(funcOptions);
    this.writer = new ReportWriter({ role: 'management', client: this.mgmt, informers: options.informers, logger: this.log, metrics: this.metrics, registry: options.metrics });
    this.tenants = new TenantDirectory(options.informers);
  }

  async start(): Promise<void> {
    const inf = this.options.informers;
    const onChange = { onAdd: () => this.scheduleRecompute(), onUpdate: () => this.scheduleRecompute(), onDelete: () => this.scheduleRecompute() };
    this.triggerSub = inf.subscribe<KubeObject>(EVENT_TRIGGER, onChange);
    this.addonSub = inf.subscribe<KubeObject>(EVENT_BASED_ADDON, onChange);
    this.sourceSub = inf.subscribe<KubeObject>(EVENT_SOURCE, onChange);
    this.subs.push(this.triggerSub, this.addonSub, this.sourceSub);
    this.triggers = new NormalizedCache(this.triggerSub);
    this.addons = new NormalizedCache(this.addonSub);
    this.sources = new NormalizedCache(this.sourceSub);
    this.removeRegistryListener = this.options.registry.onChange((e) => this.onClusterEvent(e));
    this.options.registry.start();
    const timeoutMs = this.options.syncTimeoutMs ?? 60_000;
    await Promise.all([
      listedOrAbsent(inf, this.triggerSub.informer, { timeoutMs }),
      listedOrAbsent(inf, this.addonSub.informer, { timeoutMs }),
      listedOrAbsent(inf, this.sourceSub.informer, { timeoutMs }),
      this.options.registry.waitForSync({ timeoutMs }),
      this.writer.waitForSync({ timeoutMs }),
    ]);
    if (this.mode !== 'agentless') {
      this.distributor = new Controller({
        name: 'agent-eventsource-distributor',
        reconcile: (key) => this.distribute(key),
        workers: 8,
        logger: this.log,
        metrics: this.options.metrics,
      });
      this.distributor.start();
    }
    this.writer.start();
    this.ready = true;
    this.recompute();
    const every = this.options.healthIntervalMs ?? 1000;
    this.healthTimer = setInterval(() => this.checkHealth(), every);
    this.healthTimer.unref?.();
    this.log.info({ clusters: this.runtimes.size }, 'agent started');
  }

  needs(): Map<string, string[]> {
    const out = new Map<string, string[]>();
    for (const [k, rt] of this.runtimes) if (rt.wanted.size > 0) out.set(k, [...rt.wanted.keys()].sort());
    return out;
  }

  unreachable(): string[] {
    return [...this.runtimes.values()].filter((r) => r.unreachable).map((r) => r.key).sort();
  }

  async stop(): Promise<void> {
    if (this.stopped) return;
    this.stopped = true;
    if (this.recomputeTimer) clearTimeout(this.recomputeTimer);
    if (this.healthTimer) clearInterval(this.healthTimer);
    this.removeRegistryListener?.();
    await this.tenants.close();
    await this.distributor?.stop();
    await Promise.all([...this.runtimes.values()].map((rt) => this.stopRuntime(rt)));
    this.runtimes.clear();
    await this.writer.stop();
    await Promise.all(this.subs.map((s) => s.unsubscribe()));
    if (this.ownsRuntime) this.runtime.close();
  }

  private scheduleRecompute(): void {
    if (!this.ready || this.stopped || this.recomputeTimer) return;
    this.recomputeTimer = setTimeout(() => {
      this.recomputeTimer = undefined;
      this.recompute();
    }, this.coalesceMs);
  }

  private onClusterEvent(e: ClusterEvent): void {
    if (!this.ready || this.stopped) return;
    if (e.kind === 'cluster' && e.type === 'removed') {
      // The cluster is gone: its reports go with it (Sveltos' cluster controller does the same).
      const rt = this.runtimes.get(e.entry.key);
      if (rt) {
        this.runtimes.delete(rt.key);
        void this.stopRuntime(rt);
      }
      // A cluster that merely moved to another shard keeps its reports: that shard's manager takes them over (same
      // names), and deleting them would read as "nothing matches any more" and withdraw the add-ons.
      if (this.options.registry.inOtherShard(e.entry.key)) this.releaseClusterReports(identityOf(e.entry));
      else this.withdrawClusterReports(identityOf(e.entry));
    } else if (e.kind === 'cluster' && e.type === 'updated' && e.changed.includes('kubeconfig')) {
      // A new kubeconfig means a new client and informer factory: reconnect everything of that cluster.
      const rt = this.runtimes.get(e.entry.key);
      if (rt) {
        this.runtimes.delete(rt.key);
        void this.stopRuntime(rt).then(() => this.scheduleRecompute());
      }
    }
    this.scheduleRecompute();
  }

  private triggerViews(): TriggerView[] {
    const out: TriggerView[] = [];
    for (const [cache, kind] of [
      [this.triggers, 'EventTrigger'],
      [this.addons, 'EventBasedAddOn'],
    ] as const) {
      for (const key of cache.keys()) {
        const raw = cache.raw(key);
        if (!raw || isDeleting(raw)) continue;
        const t = cache.get(key);
        if (!t) {
          this.problem(raw, `${kind} ${raw.metadata.name} cannot be read: ${cache.problem(key) ?? 'invalid'}`, 'InvalidEventTrigger');
          continue;
        }
        out.push(triggerViewOf(t, raw));
      }
    }
    return out;
  }

  // problem reports a problem with a trigger once per (trigger version, reason, message): recomputations repeat it.
  private problem(raw: KubeObject, message: string, reason: string): void {
    const key = `${raw.kind}/${raw.metadata.name}`;
    let seen = this.triggerProblems.get(key);
    if (!seen || seen.rv !== raw.metadata.resourceVersion) this.triggerProblems.set(key, (seen = { rv: raw.metadata.resourceVersion, messages: new Set() }));
    const id = `${reason}\0${message}`;
    if (seen.messages.has(id)) return;
    seen.messages.add(id);
    this.log.warn({ object: `${raw.kind}/${raw.metadata.name}`, reason }, message);
    this.options.recorder?.event(raw as Parameters<EventRecorder['event']>[0], 'Warning', reason, message);
  }

  // recompute derives every cluster's EventSources and brings runtimes and reports in line.
  private recompute(): void {
    if (this.stopped) return;
    const registry = this.options.registry;
    const triggers = this.triggerViews();
    const needs = computeNeeds(
      triggers,
      (t) => registry.matching({ clusterSelector: t.sourceClusterSelector as never, clusterSetRefs: t.clusterSetRefs }, { includePaused: true }),
      (t, entry) => this.renderer.render(t, entry),
    );
    for (const p of needs.problems) {
      const raw = (p.trigger.kind === 'EventBasedAddOn' ? this.addons : this.triggers).raw(p.trigger.name);
      if (raw) this.problem(raw, `cluster ${p.cluster}: ${p.message}`, 'EventSourceNameInvalid');
    }
    const desiredReports = new Set<string>();
    const keys = new Set([...this.runtimes.keys(), ...needs.byCluster.keys()]);
    for (const key of keys) {
      const n = needs.byCluster.get(key);
      const wanted = new Map<string, Wanted>();
      for (const [name, users] of n?.sources ?? []) {
        const raw = this.sources.raw(name);
        const es = raw && !isDeleting(raw) ? this.sources.get(name) : undefined;
        if (!es) {
          for (const tname of users) {
            const t = this.triggers.raw(tname) ?? this.addons.raw(tname);
            const why = raw && !isDeleting(raw) ? `EventSource ${name} is invalid: ${this.sources.problem(name)}` : `EventSource ${name} does not exist`;
            // One Event per trigger and EventSource, not per cluster (a fleet would flood it).
            if (t) this.problem(t, why, 'EventSourceNotFound');
          }
          continue;
        }
        wanted.set(name, { es, triggers: users });
      }
      let rt = this.runtimes.get(key);
      const entry = n?.entry ?? rt?.entry;
      if (!entry) continue;
      if (!rt) {
        if (wanted.size === 0) continue;
        rt = this.newRuntime(entry);
        this.runtimes.set(key, rt);
      }
      rt.entry = entry;
      rt.identity = identityOf(entry);
      rt.wanted = wanted;
      for (const name of wanted.keys()) desiredReports.add(`${rt.identity.clusterNamespace}/${managementReportName(rt.identity, name)}`);
      this.applyRuntime(rt);
    }
    this.sweepReports(desiredReports);
  }

  private newRuntime(entry: ClusterEntry): ClusterRuntime {
    return {
      key: entry.key,
      entry,
      identity: identityOf(entry),
      wanted: new Map(),
      collectPending: new Set(),
      collectAll: true,
      connecting: false,
      backoff: new Backoff({ initialMs: 500, maxMs: 30_000 }),
      unreachable: false,
      stopped: false,
      failures: new Map(),
    };
  }

  // applyRuntime makes a cluster's watchers follow its wanted EventSources.
  private applyRuntime(rt: ClusterRuntime): void {
    if (this.mode !== 'agentless') this.distributor?.enqueue(rt.key);
    if (rt.wanted.size === 0) {
      // Nothing to evaluate or collect here any more (push/collect keep the runtime until copies are removed).
      if (this.mode === 'agentless') {
        this.runtimes.delete(rt.key);
        void this.stopRuntime(rt);
      } else if (rt.collectorSub) {
        void rt.collectorSub.unsubscribe();
        rt.collectorSub = undefined;
      }
      return;
    }
    if (this.mode === 'collect') this.refuseMessaging(rt);
    if (this.mode === 'push') return;
    if (!rt.factory) {
      this.connect(rt);
      return;
    }
    if (this.mode === 'agentless') {
      rt.detector!.setEventSources(new Map([...rt.wanted].map(([k, w]) => [k, w.es])));
      this.syncCloudEvents(rt);
    } else {
      if (!rt.collectorSub) this.subscribeCollector(rt);
      rt.collectAll = true;
      this.scheduleCollect(rt);
    }
  }

  private connect(rt: ClusterRuntime): void {
    if (rt.connecting || rt.stopped) return;
    rt.connecting = true;
    if (rt.retryTimer) clearTimeout(rt.retryTimer);
    rt.retryTimer = undefined;
    this.options.registry
      .informers(rt.key)
      .then((factory) => {
        if (rt.stopped || this.runtimes.get(rt.key) !== rt) return;
        rt.factory = factory;
        rt.backoff.reset();
        if (this.mode === 'agentless') {
          rt.detector = new ClusterDetector({
            cluster: rt.key,
            informers: factory,
            runtime: this.runtime,
            coalesceMs: this.coalesceMs,
            luaHelpers: this.options.luaHelpers,
            logger: this.log,
            metrics: this.metrics,
            onReport: (u) => this.onDetectorReport(rt, u),
            tenantOf: this.tenants.resolve,
          });
        }
        this.applyRuntime(rt);
      })
      .catch((err) => {
        if (rt.stopped) return;
        const delay = rt.backoff.next();
        const message = `agent cannot connect to cluster ${rt.key}: ${errorMessage(err)}; retrying in ${delay} ms, last EventReports kept`;
        this.log.warn({ cluster: rt.key }, message);
        if (rt.backoff.failures === 1) this.options.recorder?.event(rt.entry.object as Parameters<EventRecorder['event']>[0], 'Warning', 'AgentConnectFailed', message);
        rt.retryTimer = setTimeout(() => this.connect(rt), delay);
      })
      .finally(() => {
        rt.connecting = false;
      });
  }

  private async stopRuntime(rt: ClusterRuntime): Promise<void> {
    rt.stopped = true;
    if (rt.retryTimer) clearTimeout(rt.retryTimer);
    if (rt.collectTimer) clearTimeout(rt.collectTimer);
    if (rt.unreachable) this.metrics?.clusterUnreachable.set({ cluster: rt.key }, 0);
    await Promise.all([rt.detector?.stop(), rt.collectorSub?.unsubscribe(), rt.esSub?.unsubscribe(), rt.cloudEvents?.stop()]);
  }

  private onDetectorReport(rt: ClusterRuntime, u: ReportUpdate): void {
    const name = u.content.eventSourceName;
    if (rt.stopped || !rt.wanted.has(name)) return;
    const content = rt.cloudEvents ? rt.cloudEvents.content(u.content) : u.content;
    this.writer.set(buildManagementReport(rt.identity, content), u.since);
    this.noteFailure(rt, name, content.failureMessage);
  }

  // syncCloudEvents starts the cluster's NATS subscriber while some wanted EventSource has messagingMatchCriteria
  // and stops it when none has; the sink matches events against the EventSources and appends them to the reports.
  private syncCloudEvents(rt: ClusterRuntime): void {
    const messaging = [...rt.wanted].filter(([, w]) => (w.es.spec?.messagingMatchCriteria ?? []).length > 0);
    if (messaging.length === 0) {
      if (rt.cloudEvents) {
        void rt.cloudEvents.stop();
        rt.cloudEvents = undefined;
      }
      return;
    }
    if (!rt.cloudEvents) {
      rt.cloudEvents = new CloudEventSink({
        cluster: rt.key,
        informers: rt.factory!,
        client: this.mgmt,
        logger: this.log,
        metrics: this.metrics,
        reportOf: (es) => ({ namespace: rt.identity.clusterNamespace, name: managementReportName(rt.identity, es) }),
        republish: (es) => {
          const last = rt.detector?.lastContent(es);
          if (last && !rt.stopped && rt.wanted.has(es)) this.onDetectorReport(rt, { content: last });
        },
      });
      rt.cloudEvents.start();
    }
    rt.cloudEvents.setSources(new Map(messaging.map(([name, w]) => [name, compileSourceCriteria(w.es)])));
  }

  // refuseMessaging: in collect mode nobody subscribes to NATS (the in-cluster agent appends CloudEvents to the
  // management-cluster report only when it pushes) — say so instead of silently receiving nothing.
  private refuseMessaging(rt: ClusterRuntime): void {
    for (const [name, w] of rt.wanted) {
      if ((w.es.spec?.messagingMatchCriteria ?? []).length === 0) continue;
      const raw = this.sources.raw(name);
      if (raw) {
        this.problem(
          raw,
          `EventSource ${name}: spec.messagingMatchCriteria (CloudEvents over NATS) is evaluated only by agents that write the management-cluster EventReport (agentless, or ripple agent pushing reports); in collect mode no CloudEvent reaches its EventReports`,
          'MessagingNotSupported',
        );
      }
    }
  }

  // noteFailure turns evaluation failures into Events on the management-cluster EventSource (on change only).
  private noteFailure(rt: ClusterRuntime, es: string, failure: string | undefined): void {
    const prev = rt.failures.get(es);
    if (prev === failure) return;
    const raw = this.sources.raw(es);
    if (failure) rt.failures.set(es, failure);
    else rt.failures.delete(es);
    if (!raw || !this.options.recorder) return;
    const obj = raw as Parameters<EventRecorder['event']>[0];
    if (failure) this.options.recorder.event(obj, 'Warning', 'EvaluationFailed', `cluster ${rt.key}: ${failure}`);
    else if (prev) this.options.recorder.event(obj, 'Normal', 'EvaluationRecovered', `cluster ${rt.key}: EventSource ${es} evaluates again`);
  }

  // sweepReports withdraws management-cluster reports of known clusters that no trigger needs any more.
  private sweepReports(desired: ReadonlySet<string>): void {
    // Reports this process wants present but no longer needs (an update may still be in flight: withdraw by name).
    for (const key of this.writer.presentKeys()) {
      if (desired.has(key)) continue;
      const i = key.indexOf('/');
      this.writer.withdraw(key.slice(0, i), key.slice(i + 1));
    }
    for (const r of this.writer.observed()) {
      const id = this.reportIdentity(r);
      if (!id) continue;
      const key = `${r.metadata.namespace}/${r.metadata.name}`;
      if (desired.has(key) || r.metadata.deletionTimestamp) continue;
      this.writer.withdraw(r.metadata.namespace, r.metadata.name);
    }
  }

  // reportIdentity returns the cluster of a management-cluster report written for a cluster this process manages
  // (labels, namespace and the name scheme must agree), or undefined for anything else.
  private reportIdentity(r: ReportObject): ClusterIdentity | undefined {
    const labels = r.metadata.labels ?? {};
    const es = labels[Labels.eventSourceName];
    const name = labels[Labels.eventReportClusterName];
    const type = labels[Labels.eventReportClusterType];
    if (!es || !name || !type) return undefined;
    const clusterType: ClusterType | undefined = type === 'sveltos' ? 'Sveltos' : type === 'capi' ? 'Capi' : undefined;
    if (!clusterType) return undefined;
    const entry = this.options.registry.get(`${clusterType}:${r.metadata.namespace}/${name}`);
    if (!entry) return undefined;
    const id = identityOf(entry);
    return managementReportName(id, es) === r.metadata.name ? id : undefined;
  }

  // releaseClusterReports stops managing a cluster's reports without touching them (it moved to another shard).
  private releaseClusterReports(id: ClusterIdentity): void {
    for (const key of this.writer.presentKeys()) {
      const i = key.indexOf('/');
      const [namespace, name] = [key.slice(0, i), key.slice(i + 1)];
      const labels = this.writer.desiredReport(namespace, name)?.metadata.labels ?? {};
      if (namespace !== id.clusterNamespace) continue;
      if (labels[Labels.eventReportClusterName] !== id.clusterName || labels[Labels.eventReportClusterType] !== id.clusterType.toLowerCase()) continue;
      this.writer.release(namespace, name);
    }
  }

  private withdrawClusterReports(id: ClusterIdentity): void {
    for (const r of this.writer.observed()) {
      const labels = r.metadata.labels ?? {};
      if (r.metadata.namespace !== id.clusterNamespace) continue;
      if (labels[Labels.eventReportClusterName] !== id.clusterName || labels[Labels.eventReportClusterType] !== id.clusterType.toLowerCase()) continue;
      const es = labels[Labels.eventSourceName];
      if (es && managementReportName(id, es) === r.metadata.name) this.writer.withdraw(r.metadata.namespace, r.metadata.name);
    }
  }

  // --- collect mode: copy the agents' managed-cluster reports into the management cluster -------------------------

  private subscribeCollector(rt: ClusterRuntime): void {
    const touch = (o: KubeObject) => {
      rt.collectPending.add(objectKey(o));
      if (rt.collectSince === undefined) rt.collectSince = performance.now();
      this.scheduleCollect(rt);
    };
    rt.collectorSub = rt.factory!.subscribe<ReportObject & KubeObject>(
      { ...EVENT_REPORT, namespace: SVELTOS_NAMESPACE },
      { onAdd: touch, onUpdate: (_o, n) => touch(n), onDelete: touch },
    );
  }

  // scheduleCollect throttles like the detector: leading edge, then at most one collection per window.
  private scheduleCollect(rt: ClusterRuntime): void {
    if (rt.collectTimer || rt.stopped) return;
    const wait = rt.lastCollectAt === undefined ? 0 : rt.lastCollectAt + this.coalesceMs - performance.now();
    rt.collectTimer = setTimeout(() => this.collect(rt), Math.max(0, wait));
  }

  private collect(rt: ClusterRuntime): void {
    rt.collectTimer = undefined;
    rt.lastCollectAt = performance.now();
    const sub = rt.collectorSub;
    if (!sub || rt.stopped) return;
    const since = rt.collectSince;
    rt.collectSince = undefined;
    const cache = sub.informer.cache;
    const keys = rt.collectAll ? cache.keys() : [...rt.collectPending];
    rt.collectAll = false;
    rt.collectPending.clear();
    for (const key of keys) {
      const r = cache.getByKey(key);
      // Deleted managed copies are not evidence on their own: the management side withdraws by needs.
      if (!r || r.metadata.deletionTimestamp) continue;
      // A report that already names a cluster belongs to a management cluster managed by another Sveltos.
      if (r.metadata.labels?.[Labels.eventReportClusterName] !== undefined) continue;
      const content = contentFromManagedReport(r);
      if (!rt.wanted.has(content.eventSourceName)) continue;
      this.writer.set(buildManagementReport(rt.identity, content), since);
      this.noteFailure(rt, content.eventSourceName, content.failureMessage);
    }
  }

  // --- push and collect: EventSource copies in managed clusters ----------------------------------------------------

  private async distribute(key: string): Promise<void> {
    const rt = this.runtimes.get(key);
    if (!rt) return;
    const entry = this.options.registry.get(key);
    if (!entry) return;
    // Pausing is not unselecting: a paused cluster keeps its copies and gets no writes.
    if (entry.paused) return;
    const client = await this.options.registry.client(key);
    await this.ensureAgentCrds(client);
    if (this.options.agentDeployment && !this.agentDeployed.has(client)) {
      await applyAgent(client, rt.identity, this.options.agentDeployment);
      this.agentDeployed.add(client);
      this.log.info({ cluster: key, image: this.options.agentDeployment.image }, 'agent deployed into the cluster');
    }
    const factory = await this.options.registry.informers(key);
    if (!rt.esSub || rt.esSubFactory !== factory) {
      void rt.esSub?.unsubscribe();
      rt.esSubFactory = factory;
      rt.esSub = factory.subscribe<EventSourceCopy & KubeObject>(EVENT_SOURCE, {
        onUpdate: () => this.distributor?.enqueue(key),
        onDelete: () => this.distributor?.enqueue(key),
      });
    }
    await rt.esSub.informer.waitForSync({ timeoutMs: 10_000 });
    const desired = new Map([...rt.wanted].map(([name, w]) => [name, buildEventSourceCopy(w.es, w.triggers)]));
    const actions = planDistribution(desired, rt.esSub.informer.cache.list());
    if (actions.length > 0) this.log.debug({ cluster: key, actions: actions.map((a) => (a.type === 'apply' ? `apply ${a.object.metadata.name}` : `delete ${a.name}`)) }, 'distributing EventSources');
    for (const a of actions) {
      if (a.type === 'apply') {
        await client.apply(a.object as unknown as KubeObject, { fieldManager: FIELD_MANAGER, force: true });
        this.metrics?.distributions.inc({ action: 'apply' });
      } else {
        try {
          await client.delete({ ...EVENT_SOURCE, name: a.name }, a.uid ? { preconditions: { uid: a.uid } } : {});
        } catch (err) {
          if (!isNotFound(err)) throw err;
        }
        this.metrics?.distributions.inc({ action: 'delete' });
      }
    }
    // Retire the runtime only when this pass removed every copy AND nothing is wanted now: the wanted set may have
    // changed while this pass awaited (its key is queued again then).
    if (desired.size === 0 && rt.wanted.size === 0 && this.runtimes.get(key) === rt) {
      // Every copy is gone: nothing left to do for this cluster.
      this.runtimes.delete(key);
      await this.stopRuntime(rt);
    }
  }

  // ensureAgentCrds installs the EventSource and EventReport CRDs an in-cluster agent needs (once per client).
  private async ensureAgentCrds(client: KubeClient): Promise<void> {
    if (this.crdsEnsured.has(client)) return;
    for (const kind of ['EventSource', 'EventReport'] as const) {
      const crd = crdFor(kindDescriptor(kind));
      const existing = await client.getIfExists({ apiVersion: crd.apiVersion, kind: crd.kind, name: crd.metadata.name });
      if (existing) continue;
      try {
        await client.create(crd as unknown as KubeObject);
      } catch (err) {
        if (!isAlreadyExists(err)) throw err;
      }
    }
    this.crdsEnsured.add(client);
  }

  // --- reachability ------------------------------------------------------------------------------------------------

  private informersOf(rt: ClusterRuntime): { failing: number; views: number } {
    if (rt.detector) {
      const h = rt.detector.health();
      return { failing: h.failing, views: h.informers };
    }
    const views: InformerView<unknown>[] = [];
    if (rt.collectorSub) views.push(rt.collectorSub.informer);
    if (rt.esSub) views.push(rt.esSub.informer);
    return { failing: views.filter((v) => v.state === 'backoff' && v.stats.failures > 0).length, views: views.length };
  }

  private checkHealth(): void {
    for (const rt of this.runtimes.values()) {
      if (rt.stopped) continue;
      // Asking the registry for the client re-reads the kubeconfig Secret once its TTL passed: a changed kubeconfig
      // (a fix for an unreachable cluster, a rotated credential) reaches us as an `updated: kubeconfig` event.
      this.options.registry.client(rt.key).catch(() => undefined);
      const h = this.informersOf(rt);
      const down = h.failing > 0;
      if (down === rt.unreachable) continue;
      rt.unreachable = down;
      this.metrics?.clusterUnreachable.set({ cluster: rt.key }, down ? 1 : 0);
      const obj = rt.entry.object as Parameters<EventRecorder['event']>[0];
      if (!down) {
        this.log.info({ cluster: rt.key }, 'cluster reachable again; watches resumed');
        this.options.recorder?.event(obj, 'Normal', 'AgentWatchRestored', `agent watches on cluster ${rt.key} resumed; EventReports are current again`);
        continue;
      }
      // Ask the cluster once for the exact cause, for the Event.
      void this.options.registry
        .client(rt.key)
        .then((c) => c.version({ timeoutMs: 2000 }))
        .then(
          () => 'watch requests fail',
          (err) => errorMessage(err),
        )
        .then((cause) => {
          if (!rt.unreachable) return;
          const message = `agent cannot watch cluster ${rt.key}: ${cause}; retrying with backoff, last EventReports kept`;
          this.log.warn({ cluster: rt.key }, message);
          this.options.recorder?.event(obj, 'Warning', 'AgentWatchFailing', message);
        });
    }
  }
}
