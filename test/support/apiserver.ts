// startTestApiServer runs the embedded API server on a random loopback port in a fresh temporary directory, for
// tests of any component; stop() shuts it down and removes the directory.
import { KubeConfig } from '@kubernetes/client-node';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startApiServer, type ApiServer, type ClusterInfo, type ClusterLimits, type Simulator } from '../../src/apiserver/index.js';

/** TestApiServer is a running server plus helpers to reach its clusters. */
export interface TestApiServer {
  server: ApiServer;
  /** The temporary data directory (state.db, kubeconfig, tls.*). */
  dir: string;
  /** Path of the kubeconfig with one context per cluster. */
  kubeconfigPath: string;
  /** cluster returns the URLs and token of a cluster (created on first use). */
  cluster(name?: string): Promise<ClusterInfo>;
  /** kubeConfig returns a client-node KubeConfig whose current context is the cluster (created on first use). */
  kubeConfig(name?: string): Promise<KubeConfig>;
  stop(): Promise<void>;
}

/** startTestApiServer starts a server with the given clusters (default: one named "test"). */
export async function startTestApiServer(
  o: { clusters?: string[]; loadBalancer?: { cluster: string; pool?: string[] }[]; watchWindow?: number; watchWindowBytes?: number; limits?: Partial<ClusterLimits>; simulators?: Simulator[] } = {},
): Promise<TestApiServer> {
  const dir = mkdtempSync(join(tmpdir(), 'ripple-apiserver-'));
  const clusters = o.clusters ?? ['test'];
  // The default durability: acknowledged writes survive a killed process.
  // plainHttp: the raw-body tests speak plain HTTP (no CA handling in fetch).
  const server = await startApiServer({ dataDir: dir, port: 0, clusters, loadBalancer: o.loadBalancer, durability: 'process', watchWindow: o.watchWindow, watchWindowBytes: o.watchWindowBytes, plainHttp: true, limits: o.limits, simulators: o.simulators });
  const first = clusters[0] ?? 'test';
  return {
    server,
    dir,
    kubeconfigPath: server.kubeconfigPath,
    async cluster(name = first) {
      return server.addCluster(name);
    },
    async kubeConfig(name = first) {
      await server.addCluster(name);
      const kc = new KubeConfig();
      kc.loadFromString(server.kubeconfigYaml(name));
      return kc;
    },
    async stop() {
      await server.stop();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
