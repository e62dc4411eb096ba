// embedded.ts: the embedded default behind `ripple up` — the embedded API server with the management cluster `mgmt`
// and managed clusters (virtual clusters on one loopback port, state in DIR), Ripple's CRDs installed into mgmt, every
// cluster registered the way Sveltos registers it (SveltosCluster NAME/NAME with its labels, kubeconfig Secret
// NAME-sveltos-kubeconfig; the management cluster as mgmt/mgmt) and the whole control plane (src/manager, agentless)
// in-process. Starting again on the same DIR re-registers (updating what changed, e.g. the port) and converges.
import { join } from 'node:path';
import { heapGrowth, limitHeapGrowth } from './heap.js';
import { SIMULATORS, startApiServer, startApiServerThread, validateClusterName, type ApiServer, type ClusterLimits, type Durability, type Simulator } from '../apiserver/index.js';
import { MANAGEMENT_CLUSTER, registerCluster, validateRegistration } from '../clusters/index.js';
import { createKubeClient, registerLocalEndpoint, type KubeClient } from '../kube/index.js';
import { silentLogger, type Logger, type Registry } from '../obs/index.js';
import { ensureNamespace, registerManagementCluster, SVELTOS_NAMESPACE } from './bootstrap.js';
import { installCrds } from './crds.js';
import { fluxSourceCrds, generateCrds } from '../api/index.js';
import { startManager, type Manager, type ManagerOptions } from './manager.js';

/** MGMT is the name of the management cluster's virtual cluster (and of its kubeconfig context). */
export const MGMT = MANAGEMENT_CLUSTER.name;

/** ClusterSpec is one cluster `ripple up` serves: its name (also its namespace in mgmt) and SveltosCluster labels. */
export interface ClusterSpec {
  name: string;
  labels?: Record<string, string>;
}

/** LoadBalancerSpec switches the load-balancer simulator on for a cluster, with an optional address pool. */
export interface LoadBalancerSpec {
  cluster: string;
  pool?: string[];
}

/** EmbeddedOptions configures startEmbedded. */
export interface EmbeddedOptions {
  dataDir: string;
  /** Port on 127.0.0.1 (default: the one used last time in dataDir if free, else a random one). */
  port?: number;
  /** Clusters to serve and register besides mgmt (`mgmt` itself may appear, for its labels). */
  clusters?: ClusterSpec[];
  loadBalancers?: LoadBalancerSpec[];
  logger?: Logger;
  metrics?: Registry;
  durability?: Durability;
  /** Per-virtual-cluster limits of the API server (objects, bytes, request bodies, nesting). */
  limits?: Partial<ClusterLimits>;
  /** Simulated controllers in every cluster (default: all of SIMULATORS). */
  simulators?: Simulator[];
  /** Where the API server runs: 'worker' (default) on its own thread, so it and the control plane use two cores;
   * 'main' on the control plane's thread (one core; what a debugger or a single-threaded profile wants). */
  apiServerThread?: ApiServerThread;
  /** Options passed to the control plane (agent mode, coalescing, metrics port, …). */
  manager?: Omit<ManagerOptions, 'client' | 'logger' | 'metrics'>;
  /** How far a heap may grow past its live data before a full GC, in percent, for the whole process (heap.ts; default
   * adaptive: ~64 MiB of garbage, 25-100% of the live heap; RIPPLE_HEAP_GROWING_PERCENT overrides; 0: V8's own
   * heuristics). */
  heapGrowingPercent?: number;
}

/** ApiServerThread says where `ripple up`'s API server runs (see EmbeddedOptions.apiServerThread). */
export type ApiServerThread = 'worker' | 'main';

/** Embedded is a running `ripple up` environment. */
export interface Embedded {
  readonly server: ApiServer;
  readonly manager: Manager;
  /** A client of the management cluster (the manager's). */
  readonly mgmt: KubeClient;
  /** client returns a client of any served cluster (cached; closed by stop). */
  client(cluster: string): KubeClient;
  /** addCluster serves, registers and labels one more cluster (idempotent). */
  addCluster(spec: ClusterSpec): Promise<void>;
  /** enableLoadBalancer switches the simulator on for a cluster (persisted in dataDir). */
  enableLoadBalancer(spec: LoadBalancerSpec): Promise<void>;
  /** kubeconfigPath is DIR/kubeconfig: one context per cluster, named after it. */
  readonly kubeconfigPath: string;
  stop(): Promise<void>;
}

/** EmbeddedError is a problem with the options of startEmbedded (bad cluster name or label). */
export class EmbeddedError extends Error {
  override readonly name = 'EmbeddedError';
}

/** validateClusterSpec returns what is wrong with a cluster spec (empty when fine). */
export function validateClusterSpec(spec: ClusterSpec): string[] {
  const bad = validateClusterName(spec.name);
  if (bad) return [bad];
  return validateRegistration({ namespace: spec.name, name: spec.name, labels: spec.labels });
}

/** startEmbedded starts the API server, bootstraps the management cluster and runs the control plane in-process. */
export async function startEmbedded(o: EmbeddedOptions): Promise<Embedded> {
  const logger = o.logger ?? silentLogger();
  const specs = o.clusters ?? [];
  for (const s of [...specs, ...(o.loadBalancers ?? []).map((l) => ({ name: l.cluster }))]) {
    const errs = validateClusterSpec(s);
    if (errs.length > 0) throw new EmbeddedError(errs.join('; '));
  }
  const names = [...new Set([MGMT, ...specs.map((s) => s.name), ...(o.loadBalancers ?? []).map((l) => l.cluster)])];
  limitHeapGrowth(heapGrowth(o.heapGrowingPercent));
  const start = o.apiServerThread === 'main' ? startApiServer : startApiServerThread;
  const server = await start({
    dataDir: o.dataDir,
    port: o.port,
    clusters: names,
    loadBalancer: o.loadBalancers,
    durability: o.durability,
    simulators: o.simulators ?? [...SIMULATORS],
    logger: logger.child({ component: 'apiserver' }),
    limits: o.limits,
  });
  // Every client of these clusters in this process — the control plane's, built from the registered kubeconfigs, and
  // the ones client() returns — reaches the server through its Unix socket (src/kube/local-endpoints.ts).
  const unregister = server.socketPath ? registerLocalEndpoint(server.url, server.socketPath) : () => {};
  const clients = new Map<string, KubeClient>();
  const client = (name: string): KubeClient => {
    let c = clients.get(name);
    if (!c) {
      c = createKubeClient({ yaml: server.kubeconfigYaml(name) }, { name });
      clients.set(name, c);
    }
    return c;
  };
  let manager: Manager | undefined;
  try {
    const mgmt = client(MGMT);
    // Flux's source kinds too: kustomizationRefs/policyRefs can then name GitRepository/OCIRepository/Bucket objects.
    const crds = await installCrds(mgmt, { crds: [...generateCrds(), ...fluxSourceCrds()] });
    logger.info({ created: crds.created.length, updated: crds.updated.length, unchanged: crds.unchanged.length }, 'CRDs installed');
    await ensureNamespace(mgmt, SVELTOS_NAMESPACE);
    const register = async (spec: ClusterSpec) => {
      await server.addCluster(spec.name);
      if (spec.name === MGMT) await registerManagementCluster(mgmt, server.kubeconfigYaml(MGMT), spec.labels);
      else await registerCluster(mgmt, { namespace: spec.name, name: spec.name, kubeconfig: server.kubeconfigYaml(spec.name), labels: spec.labels });
    };
    // Every served cluster is registered again: the port (hence each kubeconfig Secret) may have changed.
    const labelsOf = new Map(specs.map((s) => [s.name, s.labels]));
    for (const name of server.clusters()) await register({ name, labels: labelsOf.get(name) });
    manager = await startManager({ chartCacheDir: join(o.dataDir, 'charts'), ...o.manager, client: mgmt, logger, metrics: o.metrics });
    const m = manager;
    return {
      server,
      manager: m,
      mgmt,
      client,
      kubeconfigPath: server.kubeconfigPath,
      addCluster: async (spec) => {
        const errs = validateClusterSpec(spec);
        if (errs.length > 0) throw new EmbeddedError(errs.join('; '));
        await register(spec);
      },
      enableLoadBalancer: async (spec) => {
        await server.addCluster(spec.cluster);
        await server.enableLoadBalancer(spec.cluster, spec.pool);
      },
      async stop() {
        await m.stop();
        for (const c of clients.values()) c.close();
        unregister();
        await server.stop();
      },
    };
  } catch (err) {
    await manager?.stop();
    for (const c of clients.values()) c.close();
    unregister();
    await server.stop();
    throw err;
  }
}
