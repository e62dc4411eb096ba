// shards.bench.ts: horizontal scale, on exactly what a user runs — `ripple manager` processes against the embedded
// API server (management cluster + virtual managed clusters, in the bench process).
//
// Sharded fleet: RIPPLE_SHARDS_BENCH_CLUSTERS (default 8) clusters spread round-robin over 1, 2 and 4 shards
// (RIPPLE_SHARDS_BENCH_SHARDS, default "1,2,4"), one manager process per shard. Measured per shard count: cold
// converge (a ClusterProfile with RIPPLE_SHARDS_BENCH_OBJECTS, default 20, ConfigMaps per cluster → every object in
// every cluster) and event latency (a labelled Service's port changes → its instantiated add-on shows the new port,
// RIPPLE_SHARDS_BENCH_EVENTS, default 16, one at a time round-robin over the clusters). Every process shares this
// machine's cores, so more shards mean more processes competing, not more hardware.
//
// Hand-over: `ripple manager --leader-elect --shard-key h` as separate processes (a leader and a standby). Per trial: the
// leader is killed with SIGKILL (no release of the Lease), then we time (1) until the standby holds the Lease
// (polled every 10 ms) and (2) until it prints that its controllers run. The bound is client-go's: lease duration
// (written in whole seconds) + one retry period (+20 % jitter) after the leader's last renewal, which precedes the
// kill. Trials: RIPPLE_SHARDS_BENCH_TRIALS (default 3) with 3s/2s/250ms, plus one with the defaults 15s/10s/2s
// unless RIPPLE_SHARDS_BENCH_DEFAULTS=0 (RIPPLE_SHARDS_BENCH_HANDOVER=0 skips the hand-over part).
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { hostname, tmpdir } from 'node:os';
import { join } from 'node:path';
import { KubeConfig } from '@kubernetes/client-node';
import { startApiServer } from '../apiserver/index.js';
import { Annotations } from '../api/index.js';
import { registerCluster } from '../clusters/index.js';
import { KubeClient, errorMessage, type KubeObject } from '../kube/index.js';
import { installCrds } from './crds.js';
import { SVELTOS_NAMESPACE, ensureNamespace } from './bootstrap.js';
import { leaseNameForShard } from './shards.js';

const BIN = new URL('../../bin/ripple.js', import.meta.url).pathname;

interface Timing {
  leaseDurationS: number;
  renewDeadlineS: number;
  retryPeriodS: number;
}

interface Proc {
  child: ChildProcess;
  out: () => string;
  identity: string;
}

function log(s: string): void {
  process.stderr.write(`shards bench: ${s}\n`);
}

function startManager(kubeconfig: string, t: Timing | undefined, shardKey = 'h'): Proc {
  const le = t
    ? ['--leader-elect', '--leader-elect-lease-duration', `${t.leaseDurationS}s`, '--leader-elect-renew-deadline', `${t.renewDeadlineS}s`, '--leader-elect-retry-period', `${t.retryPeriodS * 1000}ms`]
    : [];
  const child = spawn(process.execPath, [BIN, 'manager', '--kubeconfig', kubeconfig, '--context', 'mgmt', '--shard-key', shardKey, ...le, '--log-level', 'warn'], {
    stdio: ['ignore', 'pipe', 'ignore'],
    env: { ...process.env, NODE_ENV: 'production' },
  });
  let out = '';
  child.stdout!.on('data', (c: Buffer) => (out += c.toString()));
  return { child, out: () => out, identity: `${hostname()}-${child.pid}` };
}

async function waitUntil<T>(what: string, read: () => T | Promise<T>, ok: (v: T) => boolean, timeoutMs: number, intervalMs = 10): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const v = await read();
    if (ok(v)) return v;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, intervalMs));
  }
}

async function trial(mgmt: KubeClient, kubeconfig: string, t: Timing): Promise<{ leaseMs: number; runningMs: number; boundMs: number }> {
  const lease = { apiVersion: 'coordination.k8s.io/v1', kind: 'Lease', namespace: SVELTOS_NAMESPACE, name: leaseNameForShard('h') };
  const holder = async () => (await mgmt.getIfExists<KubeObject & { spec?: { holderIdentity?: string } }>(lease))?.spec?.holderIdentity ?? '';
  const procs = [startManager(kubeconfig, t, 'h')];
  try {
    // The first one leads (any previous holder was released or expired), then the standby joins.
    const first = await waitUntil('a leader', holder, (h) => h === procs[0]!.identity, 60_000 + t.leaseDurationS * 2000, 50);
    procs.push(startManager(kubeconfig, t, 'h'));
    await waitUntil('the standby running', () => procs[1]!.out(), (o) => /ripple manager running/.test(o), 60_000, 50);
    // Let a few renewals pass, so the kill lands at a random point of the renew cycle.
    await new Promise((r) => setTimeout(r, t.retryPeriodS * 1000 * (2 + Math.random())));
    procs[0]!.child.kill('SIGKILL');
    const t0 = performance.now();
    await waitUntil('the standby holding the Lease', holder, (h) => h !== '' && h !== first, (t.leaseDurationS + t.retryPeriodS) * 3000);
    const leaseMs = performance.now() - t0;
    await waitUntil('the standby leading', () => procs[1]!.out(), (o) => /ripple manager: leading/.test(o), 60_000, 5);
    const runningMs = performance.now() - t0;
    return { leaseMs: Math.round(leaseMs), runningMs: Math.round(runningMs), boundMs: Math.round((t.leaseDurationS + t.retryPeriodS * 1.2) * 1000) };
  } finally {
    for (const p of procs) p.child.kill('SIGTERM');
    await Promise.all(procs.map((p) => (p.child.exitCode !== null || p.child.signalCode !== null ? undefined : new Promise((r) => p.child.once('exit', r)))));
  }
}

function envInt(name: string, dflt: number): number {
  const v = process.env[name];
  const n = v === undefined || v === '' ? dflt : Number(v);
  if (!Number.isInteger(n) || n < 1) throw new Error(`${name}=${v}: want a positive integer`);
  return n;
}

const pct = (sorted: number[], p: number) => sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))]!;

function policyYaml(objects: number, version: string): Record<string, string> {
  const data: Record<string, string> = {};
  for (let i = 0; i < objects; i++) data[`cm-${i}.yaml`] = `apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: bench-${i}\n  namespace: default\ndata:\n  v: "${version}"\n`;
  return data;
}

/** shardedFleet measures cold converge and event latency with `shards` manager processes over the same clusters. */
async function shardedFleet(clusters: number, shards: number, objects: number, events: number): Promise<Record<string, unknown>> {
  const dir = mkdtempSync(join(tmpdir(), 'ripple-shards-bench-'));
  const names = Array.from({ length: clusters }, (_, i) => `edge-${i}`);
  const server = await startApiServer({ dataDir: dir, port: 0, clusters: ['mgmt', ...names], durability: 'process' });
  const client = (name: string) => {
    const kc = new KubeConfig();
    kc.loadFromString(server.kubeconfigYaml(name));
    return new KubeClient(kc);
  };
  const mgmt = client('mgmt');
  const edges = names.map(client);
  const procs: Proc[] = [];
  try {
    await installCrds(mgmt);
    await ensureNamespace(mgmt, SVELTOS_NAMESPACE);
    for (const [i, name] of names.entries()) {
      await registerCluster(mgmt, { namespace: name, name, kubeconfig: server.kubeconfigYaml(name), labels: { env: 'bench' } });
      await mgmt.patch({ apiVersion: 'lib.projectsveltos.io/v1beta1', kind: 'SveltosCluster', namespace: name, name }, 'merge', { metadata: { annotations: { [Annotations.shardKey]: `s${i % shards}` } } });
      await edges[i]!.create({ apiVersion: 'v1', kind: 'Service', metadata: { name: 'web', namespace: 'default', labels: { bench: 'yes' } }, spec: { ports: [{ port: 1000 }] } });
    }
    await mgmt.create({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'per-service', namespace: 'default', annotations: { 'projectsveltos.io/template': 'ok' } }, data: { 'info.yaml': 'apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: {{ .Resource.metadata.name }}-info\n  namespace: default\ndata:\n  port: "{{ (index .Resource.spec.ports 0).port }}"\n' } });
    await mgmt.create({ apiVersion: 'lib.projectsveltos.io/v1beta1', kind: 'EventSource', metadata: { name: 'services' }, spec: { collectResources: true, resourceSelectors: [{ group: '', version: 'v1', kind: 'Service', labelFilters: [{ key: 'bench', operation: 'Equal', value: 'yes' }] }] } });
    await mgmt.create({ apiVersion: 'lib.projectsveltos.io/v1beta1', kind: 'EventTrigger', metadata: { name: 'per-service' }, spec: { sourceClusterSelector: { matchLabels: { env: 'bench' } }, eventSourceName: 'services', oneForEvent: true, policyRefs: [{ name: 'per-service', namespace: 'default', kind: 'ConfigMap' }] } });
    await mgmt.create({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'fleet-policy', namespace: 'default' }, data: policyYaml(objects, '1') });
    for (let s = 0; s < shards; s++) procs.push(startManager(server.kubeconfigPath, undefined, `s${s}`));
    await Promise.all(procs.map((p) => waitUntil('a manager running', p.out, (o) => /ripple manager: leading/.test(o), 120_000, 50)));
    // Every cluster ready and every event add-on in place before timing anything.
    await Promise.all(edges.map((e) => waitUntil('the event add-on', () => e.getIfExists<KubeObject & { data?: { port?: string } }>({ apiVersion: 'v1', kind: 'ConfigMap', namespace: 'default', name: 'web-info' }), (o) => o?.data?.port === '1000', 120_000, 50)));

    const t0 = performance.now();
    await mgmt.create({ apiVersion: 'config.projectsveltos.io/v1beta1', kind: 'ClusterProfile', metadata: { name: 'fleet' }, spec: { clusterSelector: { matchLabels: { env: 'bench' } }, policyRefs: [{ kind: 'ConfigMap', name: 'fleet-policy', namespace: 'default' }] } });
    const count = async (e: KubeClient) => (await e.list({ apiVersion: 'v1', kind: 'ConfigMap' }, { namespace: 'default' })).items.filter((o) => o.metadata.name.startsWith('bench-')).length;
    await Promise.all(edges.map((e) => waitUntil('cold converge', () => count(e), (n) => n === objects, 300_000, 50)));
    const convergeMs = performance.now() - t0;

    const lat: number[] = [];
    for (let i = 0; i < events; i++) {
      const e = edges[i % clusters]!;
      const port = 2000 + i;
      const t = performance.now();
      await e.patch({ apiVersion: 'v1', kind: 'Service', namespace: 'default', name: 'web' }, 'merge', { spec: { ports: [{ port }] } });
      await waitUntil('the event add-on', () => e.getIfExists<KubeObject & { data?: { port?: string } }>({ apiVersion: 'v1', kind: 'ConfigMap', namespace: 'default', name: 'web-info' }), (o) => o?.data?.port === String(port), 60_000, 2);
      lat.push(performance.now() - t);
    }
    lat.sort((a, b) => a - b);
    const r = { shards, clusters, objectsPerCluster: objects, coldConvergeMs: Math.round(convergeMs), eventLatencyMs: { p50: Math.round(pct(lat, 50)), p99: Math.round(pct(lat, 99)), max: Math.round(lat[lat.length - 1]!) }, events };
    log(`${shards} shard(s): cold converge ${r.coldConvergeMs} ms, event p50 ${r.eventLatencyMs.p50} ms p99 ${r.eventLatencyMs.p99} ms`);
    return r;
  } finally {
    for (const p of procs) p.child.kill('SIGTERM');
    await Promise.all(procs.map((p) => (p.child.exitCode !== null || p.child.signalCode !== null ? undefined : new Promise((r) => p.child.once('exit', r)))));
    mgmt.close();
    for (const e of edges) e.close();
    await server.stop();
    rmSync(dir, { recursive: true, force: true });
  }
}

/** bench measures sharded fleets (1, 2, 4 shards) and leader hand-over after kill -9; see the file comment. */
export async function bench(): Promise<Record<string, unknown>> {
  const clusters = envInt('RIPPLE_SHARDS_BENCH_CLUSTERS', 8);
  const objects = envInt('RIPPLE_SHARDS_BENCH_OBJECTS', 20);
  const events = envInt('RIPPLE_SHARDS_BENCH_EVENTS', 16);
  const shardCounts = (process.env.RIPPLE_SHARDS_BENCH_SHARDS ?? '1,2,4').split(',').filter((x) => x.trim() !== '').map((x) => Number(x));
  const fleet: Record<string, unknown> = {};
  for (const n of shardCounts) {
    try {
      fleet[`shards_${n}`] = await shardedFleet(clusters, n, objects, events);
    } catch (err) {
      fleet[`shards_${n}`] = { error: errorMessage(err) };
    }
  }
  return { fleet, ...(process.env.RIPPLE_SHARDS_BENCH_HANDOVER === '0' ? {} : await handover()) };
}

async function handover(): Promise<Record<string, unknown>> {
  const dir = mkdtempSync(join(tmpdir(), 'ripple-shards-bench-'));
  const server = await startApiServer({ dataDir: dir, port: 0, clusters: ['mgmt'], durability: 'process' });
  const kc = new KubeConfig();
  kc.loadFromString(server.kubeconfigYaml('mgmt'));
  const mgmt = new KubeClient(kc);
  try {
    await installCrds(mgmt);
    await ensureNamespace(mgmt, SVELTOS_NAMESPACE);
    const trials = Math.max(1, Number(process.env.RIPPLE_SHARDS_BENCH_TRIALS ?? 3));
    const fast: Timing = { leaseDurationS: 3, renewDeadlineS: 2, retryPeriodS: 0.25 };
    const dflt: Timing = { leaseDurationS: 15, renewDeadlineS: 10, retryPeriodS: 2 };
    const configs: [string, Timing, number][] = [['lease_3s_renew_2s_retry_250ms', fast, trials]];
    if (process.env.RIPPLE_SHARDS_BENCH_DEFAULTS !== '0') configs.push(['defaults_lease_15s_renew_10s_retry_2s', dflt, 1]);
    const out: Record<string, unknown> = {};
    for (const [name, t, n] of configs) {
      const runs = [];
      for (let i = 0; i < n; i++) {
        const r = await trial(mgmt, server.kubeconfigPath, t);
        log(`${name} #${i + 1}: Lease taken over after ${r.leaseMs} ms, controllers running after ${r.runningMs} ms (bound ${r.boundMs} ms)`);
        runs.push(r);
      }
      const lease = runs.map((r) => r.leaseMs).sort((a, b) => a - b);
      const running = runs.map((r) => r.runningMs).sort((a, b) => a - b);
      out[name] = {
        trials: runs.length,
        leaseTakeoverMs: { min: lease[0], median: lease[Math.floor(lease.length / 2)], max: lease[lease.length - 1] },
        controllersRunningMs: { min: running[0], median: running[Math.floor(running.length / 2)], max: running[running.length - 1] },
        boundMs: runs[0]!.boundMs,
        withinBound: runs.every((r) => r.leaseMs <= r.boundMs),
      };
    }
    return {
      handoverScenario: '`ripple manager --leader-elect --shard-key h` leader + standby processes on the embedded API server; kill -9 of the leader → standby holds the Lease / runs its controllers',
      handoverBound: 'lease duration + retry period (+20 % jitter), counted from the last renewal (before the kill)',
      handover: out,
    };
  } finally {
    mgmt.close();
    await server.stop();
    rmSync(dir, { recursive: true, force: true });
  }
}
