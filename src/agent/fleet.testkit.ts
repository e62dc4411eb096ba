// fleet.testkit: a management cluster plus managed virtual clusters on the embedded API server, registered as
// ready SveltosClusters, with the agent running in one delivery mode — what the agent's tests and bench drive.
// (Test support only: imported by *.test.ts and *.bench.ts.)
import { generateCrds } from '../api/index.js';
import { ClusterRegistry, registerCluster } from '../clusters/index.js';
import { EventRecorder, InformerFactory, KubeClient, isAlreadyExists, type KubeObject } from '../kube/index.js';
import { createLuaRuntime, type LuaRuntime } from '../lua/index.js';
import { createLogger, createMetricsRegistry, type Registry } from '../obs/index.js';
import { createWriteStream } from 'node:fs';
import { startTestApiServer, type TestApiServer } from '../../test/support/apiserver.js';
import { eventually } from '../../test/support/eventually.js';
import { startClusterAgent, type ClusterAgent } from './cluster-agent.js';
import { startAgentManager, type AgentManager, type DeliveryMode } from './manager.js';
import { decodeEventReportResources, type ReportObject } from './report.js';

/** CLUSTER_NAMESPACE is where the test clusters are registered. */
export const CLUSTER_NAMESPACE = 'fleet';

/** FleetOptions configures startFleet. */
export interface FleetOptions {
  mode: DeliveryMode;
  /** Managed cluster names and their labels. */
  clusters: Record<string, Record<string, string>>;
  coalesceMs?: number;
  /** Reuse a server (restart tests start their own). */
  api?: TestApiServer;
  runtime?: LuaRuntime;
  healthIntervalMs?: number;
  /** How long the registry trusts a kubeconfig Secret (default 60 s). */
  kubeconfigTtlMs?: number;
}

/** Fleet is a running test fleet. */
export interface Fleet {
  api: TestApiServer;
  mgmt: KubeClient;
  registry: ClusterRegistry;
  informers: InformerFactory;
  manager: AgentManager;
  agents: Map<string, ClusterAgent>;
  metrics: Registry;
  recorder: EventRecorder;
  runtime: LuaRuntime;
  client(cluster: string): Promise<KubeClient>;
  /** report returns the management-cluster report of (cluster, EventSource), or undefined. */
  report(cluster: string, es: string): Promise<ReportObject | undefined>;
  /** stopAgents stops the agent processes (manager and in-cluster agents), leaving the server up. */
  stopAgents(): Promise<void>;
  stop(): Promise<void>;
}

const clients: KubeClient[] = [];

/** managedClient returns a client for a virtual cluster of the server. */
export async function managedClient(api: TestApiServer, name: string): Promise<KubeClient> {
  const c = new KubeClient(await api.kubeConfig(name), { name });
  clients.push(c);
  return c;
}

/** startFleet starts (or reuses) the server, registers the clusters and starts the agent in the given mode. */
export async function startFleet(o: FleetOptions): Promise<Fleet> {
  const names = Object.keys(o.clusters);
  const api = o.api ?? (await startTestApiServer({ clusters: ['mgmt', ...names] }));
  const mgmt = await managedClient(api, 'mgmt');
  for (const crd of generateCrds()) {
    try {
      await mgmt.create(crd as unknown as KubeObject);
    } catch (err) {
      if (!isAlreadyExists(err)) throw err;
    }
  }
  for (const name of names) {
    await api.cluster(name);
    await registerCluster(mgmt, { namespace: CLUSTER_NAMESPACE, name, kubeconfig: api.server.kubeconfigYaml(name), labels: o.clusters[name] });
    await mgmt.patch({ apiVersion: 'lib.projectsveltos.io/v1beta1', kind: 'SveltosCluster', namespace: CLUSTER_NAMESPACE, name }, 'merge', { status: { ready: true } }, { subresource: 'status' });
  }
  const runtime = o.runtime ?? (await createLuaRuntime({ clock: { now: () => Date.now() } }));
  const metrics = createMetricsRegistry();
  const informers = new InformerFactory(mgmt);
  const registry = new ClusterRegistry({ informers, kubeconfigTtlMs: o.kubeconfigTtlMs ?? 60_000 });
  const recorder = new EventRecorder(mgmt);
  // AGENT_TEST_LOG=<file> writes the agent's debug log there (diagnosing a failing test).
  const logger = process.env.AGENT_TEST_LOG ? createLogger({ level: 'debug', destination: createWriteStream(process.env.AGENT_TEST_LOG, { flags: 'a' }) }) : undefined;
  const manager = await startAgentManager({
    mode: o.mode,
    informers,
    registry,
    recorder,
    metrics,
    runtime,
    logger,
    coalesceMs: o.coalesceMs ?? 5,
    healthIntervalMs: o.healthIntervalMs ?? 200,
  });
  const agents = new Map<string, ClusterAgent>();
  const agentFactories: InformerFactory[] = [];
  if (o.mode !== 'agentless') {
    for (const name of names) {
      const managed = new InformerFactory(await managedClient(api, name));
      agentFactories.push(managed);
      let management: InformerFactory | undefined;
      if (o.mode === 'push') {
        management = new InformerFactory(await managedClient(api, 'mgmt'));
        agentFactories.push(management);
      }
      agents.set(
        name,
        await startClusterAgent({
          informers: managed,
          management,
          cluster: { clusterNamespace: CLUSTER_NAMESPACE, clusterName: name, clusterType: 'Sveltos' },
          runtime,
          metrics,
          logger,
          coalesceMs: o.coalesceMs ?? 5,
        }),
      );
    }
  }
  let agentsStopped = false;
  const stopAgents = async () => {
    if (agentsStopped) return;
    agentsStopped = true;
    await Promise.all([...agents.values()].map((a) => a.stop()));
    await manager.stop();
    await registry.stop();
    await Promise.all(agentFactories.map((f) => f.stop()));
    await informers.stop();
    await recorder.close();
  };
  return {
    api,
    mgmt,
    registry,
    informers,
    manager,
    agents,
    metrics,
    recorder,
    runtime,
    client: (name) => managedClient(api, name),
    report: (cluster, es) => mgmt.getIfExists<ReportObject>({ apiVersion: 'lib.projectsveltos.io/v1beta1', kind: 'EventReport', namespace: CLUSTER_NAMESPACE, name: `sveltos--${es}--${cluster}` }),
    stopAgents,
    async stop() {
      await stopAgents();
      if (!o.runtime) runtime.close();
      for (const c of clients.splice(0)) c.close();
      if (!o.api) await api.stop();
    },
  };
}

/** reportView reduces a report to what tests compare: matched names and the collected objects' names. */
export function reportView(r: ReportObject | undefined): { matching: string[]; collected: string[]; failure?: string } | undefined {
  if (!r) return undefined;
  const v: { matching: string[]; collected: string[]; failure?: string } = {
    matching: (r.spec.matchingResources ?? []).map((m) => `${m.kind}:${m.namespace ? `${m.namespace}/` : ''}${m.name}`),
    collected: decodeEventReportResources(r.spec.resources).map((o) => {
      const m = o.metadata as { namespace?: string; name?: string };
      return `${o.kind}:${m.namespace ? `${m.namespace}/` : ''}${m.name}`;
    }),
  };
  const f = r.metadata.annotations?.['agent.ripple.dev/evaluation-failure'];
  if (f) v.failure = f;
  return v;
}

/** waitReport waits until the report of (cluster, es) satisfies ok. */
export function waitReport(f: Fleet, cluster: string, es: string, ok: (v: ReturnType<typeof reportView>) => boolean, message?: string) {
  return eventually(async () => reportView(await f.report(cluster, es)), ok, { timeoutMs: 15_000, message: message ?? `report ${cluster}/${es}` });
}

/** ensureNamespace creates a namespace in a cluster if missing. */
export async function ensureNamespace(c: KubeClient, name: string): Promise<void> {
  try {
    await c.create({ apiVersion: 'v1', kind: 'Namespace', metadata: { name } } as KubeObject);
  } catch (err) {
    if (!isAlreadyExists(err)) throw err;
  }
}

