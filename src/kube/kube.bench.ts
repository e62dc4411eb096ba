// kube bench: what the client layer adds to a request (get / server-side apply through KubeClient versus a bare
// keep-alive HTTPS request to the same embedded server), informer delivery latency (write issued → handler called),
// and a fan-out of one apply to each of 100 virtual clusters (the shape of the event → add-on path).
// Anchor: /work/shared anchors — real kube-apiserver watch delivery p50 ≈ 1.7 ms; the embedded server targets ≤ 1 ms.
// The server runs in this process, so absolute times include its work; the overhead lines isolate the client's.
import { request, Agent } from 'node:https';
import { startTestApiServer } from '../../test/support/apiserver.js';
import { ClientCache, InformerFactory, KubeClient, type KubeObject } from './index.js';

const WATCH_P50_ANCHOR_MS = 1.7;

function stats(samples: number[]): { p50ms: number; p99ms: number; meanms: number } {
  const s = [...samples].sort((a, b) => a - b);
  const q = (p: number) => Number(s[Math.min(s.length - 1, Math.floor(p * s.length))].toFixed(3));
  return { p50ms: q(0.5), p99ms: q(0.99), meanms: Number((s.reduce((a, b) => a + b, 0) / s.length).toFixed(3)) };
}

async function time(n: number, fn: (i: number) => Promise<unknown>): Promise<number[]> {
  const out: number[] = [];
  for (let i = 0; i < n; i++) {
    const t = performance.now();
    await fn(i);
    out.push(performance.now() - t);
  }
  return out;
}

/** bench measures request overhead, informer delivery and a 100-cluster fan-out against the embedded server. */
export async function bench(): Promise<Record<string, unknown>> {
  const clusterNames = Array.from({ length: 100 }, (_, i) => `c${i}`);
  const api = await startTestApiServer({ clusters: clusterNames });
  try {
    const client = new KubeClient(await api.kubeConfig('c0'));
    await client.create({ apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'bench' } });
    const cm = (name: string, v: string): KubeObject => ({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name, namespace: 'bench' }, data: { v, pad: 'x'.repeat(200) } });
    await client.create(cm('target', '0'));
    const ref = { apiVersion: 'v1', kind: 'ConfigMap', namespace: 'bench', name: 'target' };

    // Baseline: a bare keep-alive HTTPS GET of the same object (no auth plumbing, no discovery, JSON.parse only).
    const info = await api.cluster('c0');
    const url = new URL(info.server);
    const agent = new Agent({ keepAlive: true, ca: api.server.caCertificate });
    const raw = () =>
      new Promise<void>((resolve, reject) => {
        const req = request({ hostname: url.hostname, port: url.port, path: `${url.pathname}/api/v1/namespaces/bench/configmaps/target`, agent, headers: { authorization: `Bearer ${info.token}`, accept: 'application/json' } }, (res) => {
          let body = '';
          res.setEncoding('utf8');
          res.on('data', (c) => (body += c));
          res.on('end', () => {
            JSON.parse(body);
            resolve();
          });
        });
        req.on('error', reject);
        req.end();
      });
    // Warm up both paths (JIT, sockets, discovery).
    for (let i = 0; i < 300; i++) {
      await raw();
      await client.get(ref);
    }
    const N = 2000;
    // Interleave the two so machine noise hits both alike.
    const rawS: number[] = [];
    const getS: number[] = [];
    for (let i = 0; i < N; i++) {
      let t = performance.now();
      await raw();
      rawS.push(performance.now() - t);
      t = performance.now();
      await client.get(ref);
      getS.push(performance.now() - t);
    }
    const applyS = await time(1000, (i) => client.apply(cm('applied', String(i)), { fieldManager: 'bench', force: true }));
    const rawStats = stats(rawS);
    const getStats = stats(getS);
    agent.destroy();

    // Informer delivery: issue a write, measure until the informer's handler sees it.
    const factory = new InformerFactory(client);
    let waiting: { v: string; resolve: () => void } | undefined;
    const sub = factory.subscribe<KubeObject>(
      { apiVersion: 'v1', kind: 'ConfigMap', namespace: 'bench' },
      {
        onUpdate: (_o, n) => {
          if (waiting && (n.data as Record<string, string>).v === waiting.v) waiting.resolve();
        },
      },
    );
    await sub.informer.waitForSync();
    const deliver: number[] = [];
    const afterResponse: number[] = [];
    for (let i = 0; i < 1000; i++) {
      const v = `d${i}`;
      const t0 = performance.now();
      let tResp = 0;
      const seen = new Promise<number>((resolve) => (waiting = { v, resolve: () => resolve(performance.now()) }));
      await client.patch(ref, 'merge', { data: { v } });
      tResp = performance.now();
      const tSeen = await seen;
      deliver.push(tSeen - t0);
      afterResponse.push(Math.max(0, tSeen - tResp));
    }
    await factory.stop();

    // Fan-out: one apply to each of 100 clusters at once, through cached per-cluster clients.
    const cache = new ClientCache();
    const clients = clusterNames.map((n) => cache.client(n, api.server.kubeconfigYaml(n)));
    await Promise.all(clients.map((c) => c.apply(cm('warm', '0'), { fieldManager: 'bench', force: true }).catch(() => undefined)));
    await Promise.all(clients.map((c) => c.create({ apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'bench' } }).catch(() => undefined)));
    const fan = await time(30, (i) => Promise.all(clients.map((c) => c.apply(cm('fan', String(i)), { fieldManager: 'bench', force: true }))));
    const fanGet = await time(30, () => Promise.all(clients.map((c) => c.get({ apiVersion: 'v1', kind: 'ConfigMap', namespace: 'bench', name: 'fan' }))));
    cache.close();
    client.close();

    const deliverStats = stats(deliver);
    return {
      get: { ...getStats, opsPerSec: Math.round(1000 / getStats.meanms) },
      rawHttpsGet: rawStats,
      clientOverhead: {
        p50ms: Number((getStats.p50ms - rawStats.p50ms).toFixed(3)),
        p99ms: Number((getStats.p99ms - rawStats.p99ms).toFixed(3)),
        note: 'KubeClient.get minus a bare keep-alive HTTPS GET of the same object',
      },
      apply: { ...stats(applyS), opsPerSec: Math.round(1000 / stats(applyS).meanms) },
      informerDelivery: {
        writeToHandler: deliverStats,
        responseToHandler: stats(afterResponse),
        anchorKubeApiserverWatchP50ms: WATCH_P50_ANCHOR_MS,
        ratioToAnchorP50: Number((deliverStats.p50ms / WATCH_P50_ANCHOR_MS).toFixed(2)),
        note: 'writeToHandler includes the write round trip; responseToHandler is 0 when the event beat the response',
      },
      fanOut100Clusters: {
        apply: stats(fan),
        get: stats(fanGet),
        note: 'one request to each of 100 virtual clusters, concurrently; the in-process server does the 100 applies on the same core',
      },
    };
  } finally {
    await api.stop();
  }
}
