// addon-env: the environment the add-on deployer's integration tests (and its bench) run in — the embedded API
// server with a management cluster and managed clusters registered as ready SveltosClusters, the cluster registry,
// an event recorder, a metrics registry and a running deployer (src/addons tests, the addons bench, CLI tests).
import { generateCrds } from '../../src/api/index.js';
import { ClusterRegistry, registerCluster } from '../../src/clusters/index.js';
import { EventRecorder, InformerFactory, KubeClient, type KubeObject } from '../../src/kube/index.js';
import { createMetricsRegistry, type Registry } from '../../src/obs/index.js';
import { startTestApiServer, type TestApiServer } from './apiserver.js';
import type { Simulator } from '../../src/apiserver/index.js';
import { eventually } from './eventually.js';
import { startAddonDeployer, type AddonDeployer, type AddonDeployerOptions } from '../../src/addons/index.js';

/** AddonTestEnv is a running management cluster + managed clusters + deployer. */
export interface AddonTestEnv {
  api: TestApiServer;
  mgmt: KubeClient;
  /** Clients of the managed clusters by name. */
  clusters: Record<string, KubeClient>;
  informers: InformerFactory;
  registry: ClusterRegistry;
  recorder: EventRecorder;
  metrics: Registry;
  deployer: AddonDeployer;
  /** register adds a managed cluster as SveltosCluster `<namespace>/<name>` (ready) with labels. */
  register(name: string, labels: Record<string, string>, namespace?: string): Promise<void>;
  stop(): Promise<void>;
}

/** SVELTOS_CLUSTER_GVK is the SveltosCluster apiVersion/kind. */
export const SC = { apiVersion: 'lib.projectsveltos.io/v1beta1', kind: 'SveltosCluster' } as const;

/**
 * startAddonTestEnv starts the server with `mgmt` plus the named managed clusters (each registered in namespace
 * `<name>` unless `namespaces` says otherwise), and the deployer.
 */
export async function startAddonTestEnv(
  o: {
    clusters: { name: string; labels?: Record<string, string>; namespace?: string }[];
    loadBalancer?: string[];
    deployer?: Partial<AddonDeployerOptions>;
    /** Simulators of the embedded server (e.g. `workloads`: Deployments get ready Pods). */
    simulators?: Simulator[];
  },
): Promise<AddonTestEnv> {
  const api = await startTestApiServer({
    clusters: ['mgmt', ...o.clusters.map((c) => c.name)],
    loadBalancer: (o.loadBalancer ?? []).map((cluster) => ({ cluster, pool: ['1.1.1.1', '1.1.1.2', '1.1.1.3', '1.1.1.4'] })),
    simulators: o.simulators,
  });
  const mgmt = new KubeClient(await api.kubeConfig('mgmt'));
  for (const crd of generateCrds()) await mgmt.create(crd as unknown as KubeObject);
  const clusters: Record<string, KubeClient> = {};
  for (const c of o.clusters) clusters[c.name] = new KubeClient(await api.kubeConfig(c.name));
  const informers = new InformerFactory(mgmt);
  const registry = new ClusterRegistry({ informers, kubeconfigTtlMs: 60_000 });
  registry.start();
  await registry.waitForSync({ timeoutMs: 10_000 });
  const recorder = new EventRecorder(mgmt, { burst: 1000 });
  const metrics = createMetricsRegistry();
  const register = async (name: string, labels: Record<string, string>, namespace = name) => {
    if (!clusters[name]) clusters[name] = new KubeClient(await api.kubeConfig(name));
    await registerCluster(mgmt, { namespace, name, kubeconfig: api.server.kubeconfigYaml(name), labels });
    await mgmt.patch({ ...SC, namespace, name }, 'merge', { status: { ready: true, connectionStatus: 'Healthy' } }, { subresource: 'status' });
    await eventually(() => registry.get({ ...SC, namespace, name })?.ready, Boolean, { message: `cluster ${namespace}/${name} ready in the registry` });
  };
  for (const c of o.clusters) await register(c.name, c.labels ?? {}, c.namespace);
  const deployer = await startAddonDeployer({ informers, registry, recorder, metrics, coalesceMs: 5, ...o.deployer });
  return {
    api,
    mgmt,
    clusters,
    informers,
    registry,
    recorder,
    metrics,
    deployer,
    register,
    async stop() {
      await deployer.stop();
      await recorder.close();
      await registry.stop();
      await informers.stop();
      mgmt.close();
      for (const c of Object.values(clusters)) c.close();
      await api.stop();
    },
  };
}
