// helm-deploy bench: Helm charts installed by the add-on deployer on ripple up's embedded environment, observed the
// way a user observes them — a watch on the release records (Secrets owner=helm) in each managed cluster.
// (1) install latency: a ClusterProfile selecting ONE cluster is created → release v1 `deployed` there; then the
// profile is deleted → the release records are gone (uninstall latency). (2) fan-out: one ClusterProfile selecting
// every cluster (RIPPLE_HELM_BENCH_CLUSTERS, default 100) → time until the release is deployed in the last cluster.
// The chart (a ConfigMap, a Service, a post-install hook) is served by a chart repository on loopback; it is
// downloaded once (concurrent passes share the index fetch and the download) and cached by digest.
// Sveltos' documented behaviour (docs: scalability/configuration): the addon-controller reconciles ClusterSummaries
// with 10 parallel workers (--concurrent-reconciles) and hands Helm installs to a pool of 20 long-running-task
// workers (--worker-number, "increase it if the managed clusters are above 100"), each a Helm SDK install against the
// managed cluster; Sveltos publishes no fan-out time to compare with. Ripple: 8 ClusterSummary workers, Helm
// actions in-process with the same API calls `helm install` makes.
import { createHash } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { loadChartFiles, packageChart } from '../helm/index.js';
import { InformerFactory, type KubeObject } from '../kube/index.js';
import { startEmbedded } from '../manager/index.js';
import { startChartRepo } from '../../test/support/chart-repo.js';

const enc = (s: string) => new TextEncoder().encode(s);
const ROUNDS = 10;

function chart(): { filename: string; bytes: Buffer } {
  const p = packageChart(
    loadChartFiles([
      { name: 'Chart.yaml', data: enc('apiVersion: v2\nname: bench\nversion: 1.0.0\n') },
      { name: 'values.yaml', data: enc('port: 80\n') },
      { name: 'templates/cm.yaml', data: enc('apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: {{ .Release.Name }}\ndata:\n  cluster: {{ .Values.cluster | quote }}\n') },
      { name: 'templates/svc.yaml', data: enc('apiVersion: v1\nkind: Service\nmetadata:\n  name: {{ .Release.Name }}\nspec:\n  ports:\n  - port: {{ .Values.port }}\n') },
      { name: 'templates/hook.yaml', data: enc('apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: {{ .Release.Name }}-hook\n  annotations:\n    helm.sh/hook: post-install\ndata: {}\n') },
    ]),
    1_700_000_000,
  );
  return { filename: p.filename, bytes: Buffer.from(p.bytes) };
}

function stats(samples: number[]): { p50ms: number; p99ms: number; maxms: number; n: number } {
  const s = [...samples].sort((a, b) => a - b);
  const q = (p: number) => Number(s[Math.min(s.length - 1, Math.floor(p * s.length))]!.toFixed(1));
  return { p50ms: q(0.5), p99ms: q(0.99), maxms: Number(s[s.length - 1]!.toFixed(1)), n: s.length };
}

/** bench measures Helm release install/uninstall latency and fan-out on the embedded environment. */
export async function bench(): Promise<Record<string, unknown>> {
  const n = Number(process.env.RIPPLE_HELM_BENCH_CLUSTERS ?? 100);
  const dir = mkdtempSync(join(tmpdir(), 'ripple-helm-bench-'));
  const c = chart();
  const index = `apiVersion: v1\nentries:\n  bench:\n  - apiVersion: v2\n    name: bench\n    version: 1.0.0\n    digest: ${createHash('sha256').update(c.bytes).digest('hex')}\n    urls:\n    - ${c.filename}\n`;
  const repo = await startChartRepo({ '/index.yaml': index, [`/${c.filename}`]: c.bytes });
  const names = Array.from({ length: n }, (_, i) => `h${i}`);
  const env = await startEmbedded({ dataDir: join(dir, 'data'), port: 0, clusters: names.map((name, i) => ({ name, labels: { fleet: 'bench', idx: String(i) } })) });
  const factories: InformerFactory[] = [];
  try {
    // release name → cluster → time its `deployed` record / its disappearance was seen.
    const deployed = new Map<string, Map<string, number>>();
    const gone = new Map<string, Map<string, number>>();
    let wake: (() => void) | undefined;
    for (const name of names) {
      const f = new InformerFactory(env.client(name));
      factories.push(f);
      const seen = (o: KubeObject) => {
        const rel = o.metadata.labels?.name ?? '';
        if (o.metadata.labels?.status === 'deployed' && !deployed.get(rel)?.has(name)) {
          if (!deployed.has(rel)) deployed.set(rel, new Map());
          deployed.get(rel)!.set(name, performance.now());
          wake?.();
        }
      };
      f.subscribe<KubeObject>(
        { apiVersion: 'v1', kind: 'Secret', labelSelector: 'owner=helm' },
        {
          onAdd: seen,
          onUpdate: (_o, o) => seen(o),
          onDelete: (o) => {
            const rel = o.metadata.labels?.name ?? '';
            if (!gone.has(rel)) gone.set(rel, new Map());
            gone.get(rel)!.set(name, performance.now());
            wake?.();
          },
        },
      );
    }
    const until = async (ok: () => boolean, timeoutMs = 60_000) => {
      const deadline = performance.now() + timeoutMs;
      while (!ok()) {
        if (performance.now() > deadline) throw new Error('timed out');
        await new Promise<void>((r) => {
          wake = r;
          setTimeout(r, 200);
        });
      }
    };
    const profile = (name: string, selector: Record<string, string>) => ({
      apiVersion: 'config.projectsveltos.io/v1beta1',
      kind: 'ClusterProfile',
      metadata: { name },
      spec: {
        clusterSelector: { matchLabels: selector },
        helmCharts: [{ repositoryURL: repo.url, repositoryName: 'b', chartName: 'b/bench', chartVersion: '1.0.0', releaseName: name, releaseNamespace: 'bench', values: 'cluster: {{ .Cluster.metadata.name }}\n' }],
      },
    });
    const CP = { apiVersion: 'config.projectsveltos.io/v1beta1', kind: 'ClusterProfile' };
    const install: number[] = [];
    const uninstall: number[] = [];
    for (let i = 0; i < ROUNDS; i++) {
      const rel = `one-${i}`;
      const target = names[i % n]!;
      const t0 = performance.now();
      await env.mgmt.create(profile(rel, { idx: String(i % n) }));
      await until(() => deployed.get(rel)?.has(target) ?? false);
      install.push(deployed.get(rel)!.get(target)! - t0);
      const t1 = performance.now();
      await env.mgmt.delete({ ...CP, name: rel });
      await until(() => gone.get(rel)?.has(target) ?? false);
      uninstall.push(gone.get(rel)!.get(target)! - t1);
    }
    const t2 = performance.now();
    await env.mgmt.create(profile('fleet', { fleet: 'bench' }));
    await until(() => (deployed.get('fleet')?.size ?? 0) === n, 300_000);
    const arrivals = [...deployed.get('fleet')!.values()].map((t) => t - t2);
    return {
      clusters: n,
      install: stats(install),
      uninstall: stats(uninstall),
      fanOut: { clusters: n, lastMs: Number(Math.max(...arrivals).toFixed(1)), ...stats(arrivals) },
      chartDownloads: repo.requests.filter((r) => r.path.endsWith('.tgz') && r.status === 200).length,
      note: 'create ClusterProfile → release record deployed in the cluster (watch); delete → records gone. Sveltos: 10 ClusterSummary workers + 20 Helm workers by default (docs: scalability/configuration); no published fan-out time',
    };
  } finally {
    await Promise.all(factories.map((f) => f.stop()));
    await env.stop();
    await repo.stop();
    rmSync(dir, { recursive: true, force: true });
  }
}
