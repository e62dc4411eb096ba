// manager.ts: the whole control plane against one management cluster, in one process — the fleet registry with its
// readiness and ClusterSet controllers, the agent's management side (agentless by default, or collect), the event
// manager, the add-on deployer, a Kubernetes Event recorder, Prometheus metrics (optionally served) and structured
// logs, optionally behind Lease-based leader election. `ripple manager` runs it against real clusters and `ripple up`
// against the embedded API server; construction is explicit (no globals), so tests run several in one process.
import type { Server } from 'node:http';
import { hostname } from 'node:os';
import { randomBytes } from 'node:crypto';
import { AddonFinalizers, startAddonDeployer, type AddonDeployer } from '../addons/index.js';
import { startAgentManager, type AgentDeployment, type AgentManager } from '../agent/index.js';
import { ActiveWindowController, ClusterReadinessController, ClusterRegistry, ClusterSetController, TokenRenewalController } from '../clusters/index.js';
import { startEventManager, type EventManager, type EventManagerOptions } from '../events/index.js';
import { EventRecorder, FencedError, InformerFactory, KubeClient, LeaderElector, errorMessage } from '../kube/index.js';
import { createMetricsRegistry, serveMetrics, silentLogger, type Logger, type Registry } from '../obs/index.js';
import { RoleRequestController } from '../tenancy/index.js';
import { leaseNameForShard } from './shards.js';

/** AgentMode is how EventSources are evaluated: agentless (watched from here) or collect (in-cluster agents). */
export type AgentMode = 'agentless' | 'collect';

/** AGENT_MODES lists the agent modes the manager runs. */
export const AGENT_MODES: readonly AgentMode[] = ['agentless', 'collect'];

/** Clock is the manager's time source (milliseconds since the epoch). */
export interface Clock {
  now(): number;
}

/** LeaderElectionOptions places the Lease the replicas compete for. */
export interface LeaderElectionOptions {
  /** Lease namespace (default `projectsveltos`). */
  namespace?: string;
  /** Lease name (default: leaseNameForShard(shardKey) — one Lease per shard, see shards.ts). */
  name?: string;
  /** This replica's identity (default: host name + random suffix). */
  identity?: string;
  leaseDurationMs?: number;
  renewDeadlineMs?: number;
  retryPeriodMs?: number;
}

/** ManagerOptions configures startManager. */
export interface ManagerOptions {
  /** Client of the management cluster. */
  client: KubeClient;
  /** Its shared informer factory (default: a new one, stopped with the manager). */
  informers?: InformerFactory;
  logger?: Logger;
  /** Metrics registry (default: a new one with Node's process metrics). */
  metrics?: Registry;
  /** Serve GET /metrics and /healthz on this port (0: a free one; undefined: not served). */
  metricsPort?: number;
  /** Address the metrics endpoint binds (default 127.0.0.1). */
  metricsHost?: string;
  /** Kubernetes Event recorder (default: a new one on the management cluster, closed with the manager). */
  recorder?: EventRecorder;
  /** How EventSources are evaluated (default agentless). */
  agentMode?: AgentMode;
  /** agentMode collect: install `ripple agent` with this image into the managed clusters (src/agent/deploy.ts). */
  agentDeployment?: AgentDeployment;
  clock?: Clock;
  /** Coalescing window of every watch-driven component, ms (default: each component's own, 10). */
  coalesceMs?: number;
  /** Cache directory of downloaded Helm charts (default: ripple-charts in the OS temporary directory). */
  chartCacheDir?: string;
  /** Time between readiness probes of a healthy cluster (default 60 s). */
  probeIntervalMs?: number;
  /** How long the event manager lets per-cluster results accumulate before writing a trigger's status (ms). */
  statusDelayMs?: number;
  /** Lua instructions one EventSource evaluation may run (default the Lua runtime's, 10,000,000). */
  luaInstructionLimit?: number;
  /** Budget of every event-manager template render (default gotemplate's DEFAULT_EXEC_BUDGET). */
  renderBudget?: EventManagerOptions['renderBudget'];
  /** Sharding key (sharding.projectsveltos.io/key): undefined = every cluster. */
  shardKey?: string;
  /** Run the controllers only while holding a Lease (several replicas: one active). */
  leaderElection?: LeaderElectionOptions;
}

/** ManagerEnd says why a manager stopped on its own. */
export interface ManagerEnd {
  reason: 'leadership-lost';
  message: string;
}

/** Manager is a running control plane. */
export interface Manager {
  readonly client: KubeClient;
  readonly informers: InformerFactory;
  readonly registry: ClusterRegistry;
  readonly recorder: EventRecorder;
  readonly metrics: Registry;
  readonly logger: Logger;
  /** The metrics endpoint's port, when served. */
  readonly metricsPort: number | undefined;
  /** Resolves once the controllers run (at once without leader election, when elected with it). */
  readonly running: Promise<void>;
  /** Resolves when the manager ends by itself (leadership lost); it never resolves otherwise. */
  readonly done: Promise<ManagerEnd>;
  /** The Lease this replica campaigns for (undefined without leader election). */
  readonly leaseRef: { namespace: string; name: string } | undefined;
  /** isLeader is true while the controllers run. */
  isLeader(): boolean;
  /** stop stops every controller (releasing the Lease), then the informers it created; idempotent. */
  stop(): Promise<void>;
}

interface Controllers {
  readiness: ClusterReadinessController;
  sets: ClusterSetController;
  activeWindow: ActiveWindowController;
  tokens: TokenRenewalController;
  agent?: AgentManager;
  events?: EventManager;
  addons?: AddonDeployer;
  roleRequests?: RoleRequestController;
}

/**
 * startManager starts the control plane against the management cluster behind options.client and resolves once the
 * fleet registry has synced (and, without leader election, once every controller runs).
 */
export async function startManager(options: ManagerOptions): Promise<Manager> {
  const m = new ControlPlane(options);
  try {
    await m.start();
  } catch (err) {
    await m.stop();
    throw err;
  }
  return m;
}

class ControlPlane implements Manager {
  readonly client: KubeClient;
  readonly informers: InformerFactory;
  readonly registry: ClusterRegistry;
  readonly recorder: EventRecorder;
  readonly metrics: Registry;
  readonly logger: Logger;
  metricsPort: number | undefined;
  readonly running: Promise<void>;
  readonly done: Promise<ManagerEnd>;
  private resolveRunning!: () => void;
  private resolveDone!: (e: ManagerEnd) => void;
  private readonly ownsInformers: boolean;
  private readonly ownsRecorder: boolean;
  private server: Server | undefined;
  private elector: LeaderElector | undefined;
  private controllers: Controllers | undefined;
  // Starting and stopping the controllers is serialized: leadership can flip while a start is still awaiting.
  private transition: Promise<void> = Promise.resolve();
  private stopping: Promise<void> | undefined;
  private leading = false;
  /** The Lease this replica campaigns for (leader election only). */
  leaseRef: { namespace: string; name: string } | undefined;
  private fencedClient: KubeClient | undefined;

  constructor(private readonly options: ManagerOptions) {
    this.client = options.client;
    this.logger = (options.logger ?? silentLogger()).child({ component: 'manager' });
    this.ownsInformers = !options.informers;
    // Fencing: with leader election, every write of the controllers — to the management cluster and to managed
    // clusters — goes through a client whose writeGuard refuses to send once this replica may have lost its Lease
    // (holdsLease: by our clock, within renewDeadline of the last renewal). The elector itself writes the Lease
    // through options.client, unguarded.
    const writeGuard = options.leaderElection ? () => this.guardWrite() : undefined;
    if (writeGuard && !options.informers) this.fencedClient = new KubeClient(options.client.kubeConfig, { name: options.client.name, writeGuard });
    const controllersClient = this.fencedClient ?? options.client;
    // Its readers look at who wrote an object and when (the dashboard), never at field sets: those stay on the server.
    this.informers = options.informers ?? new InformerFactory(controllersClient, { logger: options.logger, compactManagedFields: true });
    this.metrics = options.metrics ?? createMetricsRegistry({ defaults: true });
    this.ownsRecorder = !options.recorder;
    this.recorder = options.recorder ?? new EventRecorder(controllersClient, { component: 'ripple', logger: options.logger });
    this.registry = new ClusterRegistry({ informers: this.informers, logger: options.logger, shardKey: options.shardKey, clientOptions: writeGuard ? { writeGuard } : undefined });
    this.running = new Promise((r) => (this.resolveRunning = r));
    this.done = new Promise((r) => (this.resolveDone = r));
  }

  isLeader(): boolean {
    return this.leading;
  }

  private guardWrite(): void {
    if (this.elector?.holdsLease()) return;
    const l = this.leaseRef;
    throw new FencedError(`not sent: this replica does not hold the Lease ${l ? `${l.namespace}/${l.name}` : ''} (any more)`);
  }

  async start(): Promise<void> {
    if (this.options.metricsPort !== undefined) {
      this.server = await serveMetrics(this.metrics, this.options.metricsPort, this.options.metricsHost);
      const addr = this.server.address();
      this.metricsPort = addr && typeof addr === 'object' ? addr.port : this.options.metricsPort;
    }
    this.registry.start();
    await this.registry.waitForSync({ timeoutMs: 60_000 });
    const le = this.options.leaderElection;
    if (!le) {
      await this.startControllers();
      return;
    }
    const identity = le.identity ?? `${hostname()}-${randomBytes(4).toString('hex')}`;
    const lease = { namespace: le.namespace ?? 'projectsveltos', name: le.name ?? leaseNameForShard(this.options.shardKey) };
    this.leaseRef = lease;
    this.elector = new LeaderElector(this.client, {
      ...lease,
      identity,
      leaseDurationMs: le.leaseDurationMs,
      renewDeadlineMs: le.renewDeadlineMs,
      retryPeriodMs: le.retryPeriodMs,
      logger: this.options.logger,
      onStartedLeading: (signal) => {
        this.transition = this.transition.then(() => (signal.aborted ? undefined : this.startControllers()));
        signal.addEventListener('abort', () => {
          this.transition = this.transition.then(() => this.stopControllers());
          if (!this.stopping) {
            // Like controller-runtime: a replica that lost its Lease ends, and its supervisor restarts it.
            this.resolveDone({ reason: 'leadership-lost', message: `lost the Lease ${lease.namespace}/${lease.name}` });
          }
        });
      },
    });
    this.logger.info({ identity, lease: `${lease.namespace}/${lease.name}` }, 'waiting for leadership');
    this.elector.start();
  }

  private async startControllers(): Promise<void> {
    if (this.stopping || this.controllers) return;
    const o = this.options;
    const common = { informers: this.informers, registry: this.registry, recorder: this.recorder, logger: o.logger, metrics: this.metrics };
    const tokens = new TokenRenewalController({ registry: this.registry, informers: this.informers, recorder: this.recorder, logger: o.logger });
    const readiness = new ClusterReadinessController({ ...common, probeIntervalMs: o.probeIntervalMs, extraProblem: (ns, name) => tokens.problem(ns, name) });
    const sets = new ClusterSetController({ registry: this.registry, informers: this.informers, logger: o.logger, metrics: this.metrics });
    const activeWindow = new ActiveWindowController({ registry: this.registry, informers: this.informers, recorder: this.recorder, logger: o.logger });
    const c: Controllers = { readiness, sets, activeWindow, tokens };
    this.controllers = c;
    readiness.start();
    sets.start();
    activeWindow.start();
    tokens.start();
    try {
      c.agent = await startAgentManager({ ...common, mode: o.agentMode ?? 'agentless', agentDeployment: o.agentDeployment, clock: o.clock, coalesceMs: o.coalesceMs, luaInstructionLimit: o.luaInstructionLimit });
      // The add-on deployer starts right after: generated ClusterProfiles can carry its finalizer from their first write.
      c.events = startEventManager({ ...common, client: this.client, clock: o.clock, coalesceMs: o.coalesceMs, statusDelayMs: o.statusDelayMs, renderBudget: o.renderBudget, profileFinalizer: AddonFinalizers.clusterProfile });
      await c.events.ready;
      c.addons = await startAddonDeployer({ ...common, clock: o.clock, coalesceMs: o.coalesceMs, chartCacheDir: o.chartCacheDir });
      c.roleRequests = new RoleRequestController(common);
      c.roleRequests.start();
    } catch (err) {
      this.logger.error({ err: errorMessage(err) }, 'a controller failed to start');
      await this.stopControllers();
      throw err;
    }
    this.leading = true;
    this.logger.info({ agentMode: o.agentMode ?? 'agentless' }, 'controllers running');
    this.resolveRunning();
  }

  private async stopControllers(): Promise<void> {
    const c = this.controllers;
    if (!c) return;
    this.controllers = undefined;
    this.leading = false;
    // Reverse order of the data flow's consumers: nothing writes into a component that already stopped.
    await c.roleRequests?.stop();
    await c.addons?.stop();
    await c.events?.stop();
    await c.agent?.stop();
    await c.sets.stop();
    await c.activeWindow.stop();
    await c.tokens.stop();
    await c.readiness.stop();
    this.logger.info('controllers stopped');
  }

  stop(): Promise<void> {
    this.stopping ??= (async () => {
      await this.elector?.stop();
      await this.transition.catch(() => undefined);
      await this.stopControllers();
      if (this.ownsRecorder) await this.recorder.close();
      await this.registry.stop();
      if (this.ownsInformers) await this.informers.stop();
      this.fencedClient?.close();
      if (this.server) await new Promise<void>((r) => this.server!.close(() => r()));
    })();
    return this.stopping;
  }
}
