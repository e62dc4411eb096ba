// shards.bench.ts: leader hand-over after `kill -9`, on exactly what a user runs — `ripple manager --leader-elect
// --shard-key h` as separate processes (a leader and a standby) against the embedded API server. Per trial: the
// leader is killed with SIGKILL (no release of the Lease), then we time (1) until the standby holds the Lease
// (polled every 10 ms) and (2) until it prints that its controllers run. The bound is client-go's: lease duration
// (written in whole seconds) + one retry period (+20 % jitter) after the leader's last renewal, which precedes the
// kill. Trials: RIPPLE_SHARDS_BENCH_TRIALS (default 3) with 3s/2s/250ms, plus one with the defaults 15s/10s/2s
// unless RIPPLE_SHARDS_BENCH_DEFAULTS=0.
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { hostname, tmpdir } from 'node:os';
import { join } from 'node:path';
import { KubeConfig } from '@kubernetes/client-node';
import { startApiServer } from '../apiserver/index.js';
import { KubeClient, type KubeObject } from '../kube/index.js';
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

function startManager(kubeconfig: string, t: Timing): Proc {
  const child = spawn(
    process.execPath,
    [
      BIN,
      'manager',
      '--kubeconfig',
      kubeconfig,
      '--context',
      'mgmt',
      '--shard-key',
      'h',
      '--leader-elect',
      '--leader-elect-lease-duration',
      `${t.leaseDurationS}s`,
      '--leader-elect-renew-deadline',
      `${t.renewDeadlineS}s`,
      '--leader-elect-retry-period',
      `${t.retryPeriodS * 1000}ms`,
      '--log-level',
      'warn',
    ],
    { stdio: ['ignore', 'pipe', 'ignore'], env: { ...process.env, NODE_ENV: 'production' } },
  );
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
  const procs = [startManager(kubeconfig, t)];
  try {
    // The first one leads (any previous holder was released or expired), then the standby joins.
    const first = await waitUntil('a leader', holder, (h) => h === procs[0]!.identity, 60_000 + t.leaseDurationS * 2000, 50);
    procs.push(startManager(kubeconfig, t));
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

/** bench measures leader hand-over after kill -9; see the file comment. */
export async function bench(): Promise<Record<string, unknown>> {
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
      scenario: '`ripple manager --leader-elect --shard-key h` leader + standby processes on the embedded API server; kill -9 of the leader → standby holds the Lease / runs its controllers',
      bound: 'lease duration + retry period (+20 % jitter), counted from the last renewal (before the kill)',
      handover: out,
    };
  } finally {
    mgmt.close();
    await server.stop();
    rmSync(dir, { recursive: true, force: true });
  }
}
