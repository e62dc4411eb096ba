// up: `ripple up` — the embedded default. One process runs the embedded API server (the management cluster `mgmt` and
// managed clusters as virtual clusters on one port), installs the CRDs, registers every cluster as Sveltos does, runs
// the control plane agentless and narrates what happens; `--demo NAME` applies a seed scenario on top, `--once` runs
// it to the end, checks every outcome and exits.
import { createWriteStream, mkdirSync, type WriteStream } from 'node:fs';
import { relative, resolve } from 'node:path';
import { Writable } from 'node:stream';
import { parseLabels } from '../../clusters/index.js';
import { DEMOS, SeedError, demoVariant, formatMs, loadSeedDocs, runDemo, type Demo, type DemoReport, type SeedDoc } from '../../demos/index.js';
import { errorMessage } from '../../kube/index.js';
import { EmbeddedError, MGMT, startEmbedded, startNarrator, validateClusterSpec, type ClusterSpec, type Embedded, type LoadBalancerSpec } from '../../manager/index.js';
import { createLogger, type Logger } from '../../obs/index.js';
import { ExitCode, UsageError, parseFlags, portFlag, type Command, type CommandIO } from '../command.js';
import { DataDirLockedError, lockDataDir, type DataDirLock } from '../data-dir-lock.js';
import { logLevelFlag, onStopSignal } from '../runtime.js';
import { didYouMean } from '../suggest.js';

const DEMO_LIST = Object.values(DEMOS)
  .map((d) => `  ${d.name.padEnd(15)} ${d.title} (seed ${d.seeds.join(', ')})`)
  .join('\n');

const USAGE = `Usage: ripple up [--data-dir DIR] [--port P] [--cluster NAME[:k=v,...]]... [--load-balancer NAME[=POOL]]...
                 [--demo NAME [--seed NNN] [--once] [--timeout SECONDS]] [--metrics-port P] [--log-level LEVEL]

Runs Ripple on your machine in one process: an embedded Kubernetes-compatible API server with a management cluster
"mgmt" and the managed clusters you name (virtual clusters behind one port on 127.0.0.1), Ripple's CRDs installed,
every cluster registered like Sveltos registers it (SveltosCluster NAME in namespace NAME with the given labels,
kubeconfig in Secret NAME/NAME-sveltos-kubeconfig; the management cluster itself as mgmt/mgmt), and the control plane
(agentless agents, event manager, add-on deployer) watching them. It writes DIR/kubeconfig with one context per
cluster, so kubectl works against each, and narrates what happens: each event detected, ClusterProfile generated,
object deployed or withdrawn, and every warning.

State lives in DIR (SQLite): stop with Ctrl-C (or SIGTERM) and run \`ripple up\` again to resume where it stopped —
clusters, objects and deployed add-ons are kept, and whatever changed meanwhile converges. One process per DIR: it
holds DIR/ripple.lock while it runs, and a second \`ripple up\` on the same DIR exits 4 naming the holder's pid.

Flags:
  --data-dir DIR            state directory (default: .ripple in the current directory)
  --port P                  port on 127.0.0.1 (default: the one used last time in DIR if free, else a free one)
  --cluster NAME[:k=v,...]  serve and register a managed cluster with these labels (repeatable); clusters created
                            earlier in DIR are always served; labels are merged into existing ones
  --load-balancer NAME[=POOL]
                            switch the load-balancer simulator on for a cluster (mgmt included): Services of type
                            LoadBalancer get status.loadBalancer.ingress addresses from POOL (comma-separated
                            addresses, CIDRs or a.b.c.d-e.f.g.h ranges; default 192.0.2.0/24,198.51.100.0/24,
                            203.0.113.0/24)
  --demo NAME               set up and run a seed scenario (its clusters and load balancers are added for you):
${DEMO_LIST}
  --seed NNN                run the demo from another seed document's version of the YAML (see --demo help below)
  --once                    with --demo: run every step, check every expected outcome, print a report and exit
                            (0: all happened; 1: one did not — the report says which, with status and Events)
  --timeout SECONDS         with --once: how long each outcome may take (default 30)
  --metrics-port P          serve the control plane's Prometheus metrics on 127.0.0.1:P/metrics (and /healthz)
  --log-level LEVEL         error, warn, info or debug: logs go to stderr at that level (always also to
                            DIR/ripple.log, at info by default)

Demo variants (--seed): cross-cluster 002 (the blog post's EventBasedAddOn); network-policy, ingress and
httproute 003 (the newer revision of the event framework page, recovered from flattened text).

Exit codes: 0 stopped by SIGTERM, or --once passed; 1 --once: an expected outcome did not happen; 2 bad command line;
            3 unusable data directory or seed documents; 4 the port is in use or the data directory is in use;
            130 stopped by Ctrl-C (SIGINT).

Examples:
  ripple up --demo loadbalancer                      # watch the seed's load-balancer example happen, then explore
  ripple up --demo cross-cluster --once              # run the scenario end to end and exit with its verdict
  ripple up --cluster edge-1:env=prod --cluster edge-2:env=dev --load-balancer mgmt
  export KUBECONFIG=$PWD/.ripple/kubeconfig && kubectl --context edge-1 get svc -A
`;

/** parseClusterFlag parses `NAME[:k=v,...]`. */
export function parseClusterFlag(v: string): ClusterSpec {
  const i = v.indexOf(':');
  const name = i < 0 ? v : v.slice(0, i);
  let labels: Record<string, string> = {};
  if (i >= 0) {
    try {
      labels = parseLabels(v.slice(i + 1));
    } catch (err) {
      throw new UsageError(`--cluster ${v}: ${errorMessage(err)} (expected NAME:key=value,key2=value2)`);
    }
  }
  const spec = { name, labels };
  const errs = validateClusterSpec(spec);
  if (errs.length > 0) throw new UsageError(`--cluster ${v}: ${errs.join('; ')}`);
  return spec;
}

function parseLoadBalancerFlag(v: string): LoadBalancerSpec {
  const i = v.indexOf('=');
  const cluster = i < 0 ? v : v.slice(0, i);
  const pool = i < 0 ? [] : v.slice(i + 1).split(',').map((s) => s.trim()).filter(Boolean);
  const errs = validateClusterSpec({ name: cluster });
  if (errs.length > 0) throw new UsageError(`--load-balancer ${v}: ${errs.join('; ')}`);
  return { cluster, pool: pool.length > 0 ? pool : undefined };
}

/** mergeClusters adds the demo's clusters to the command line's; the demo's labels win (it needs them). */
function mergeClusters(user: ClusterSpec[], demo: Demo | undefined, notes: string[]): ClusterSpec[] {
  const byName = new Map<string, ClusterSpec>();
  for (const c of user) byName.set(c.name, { name: c.name, labels: { ...byName.get(c.name)?.labels, ...c.labels } });
  for (const c of demo?.clusters ?? []) {
    const cur = byName.get(c.name);
    for (const [k, v] of Object.entries(c.labels)) {
      if (cur?.labels?.[k] !== undefined && cur.labels[k] !== v) notes.push(`cluster ${c.name}: the demo needs label ${k}=${v} (not ${cur.labels[k]})`);
    }
    byName.set(c.name, { name: c.name, labels: { ...cur?.labels, ...c.labels } });
  }
  return [...byName.values()];
}

function teeStream(a: NodeJS.WritableStream, b: NodeJS.WritableStream | undefined): NodeJS.WritableStream {
  if (!b) return a;
  return new Writable({
    write(chunk, _enc, cb) {
      a.write(chunk);
      b.write(chunk);
      cb();
    },
  });
}

const labelText = (l: Record<string, string> | undefined) =>
  Object.entries(l ?? {})
    .map(([k, v]) => `${k}=${v}`)
    .join(',');

function printReport(io: CommandIO, r: DemoReport): void {
  const out = (s: string) => io.stdout.write(`${s}\n`);
  const outcomes = r.steps.reduce((n, s) => n + s.outcomes.length, 0);
  out('');
  out(`demo ${r.demo}: ${r.ok ? 'PASSED' : 'FAILED'} — ${r.steps.filter((s) => s.ran).length} step(s), ${outcomes} outcome(s) checked in ${formatMs(r.durationMs)}`);
  for (const [i, s] of r.steps.entries()) {
    if (!s.ran) continue;
    const failed = s.outcomes.find((o) => !o.ok);
    const last = Math.max(0, ...s.outcomes.filter((o) => o.ok).map((o) => o.latencyMs ?? 0));
    out(`  ${failed ? '✗' : '✓'} step ${i + 1}: ${s.title} — ${s.outcomes.filter((o) => o.ok).length} outcome(s), the last after ${formatMs(last)}`);
  }
  if (r.failure) {
    out('');
    out(`Expected: ${r.failure.what}`);
    out(`Observed: ${r.failure.detail}`);
    out('State of the event path (management cluster):');
    for (const d of r.failure.diagnostics) out(`  ${d}`);
  }
}

export const commands: Command[] = [
  {
    path: ['up'],
    summary: 'Run Ripple locally: embedded API server, clusters, control plane, narration (--demo NAME for a seed scenario)',
    usage: USAGE,
    async run(args, io) {
      const { values, positionals } = parseFlags(args, {
        'data-dir': { type: 'string' },
        port: { type: 'string' },
        cluster: { type: 'string', multiple: true },
        'load-balancer': { type: 'string', multiple: true },
        demo: { type: 'string' },
        seed: { type: 'string' },
        once: { type: 'boolean' },
        timeout: { type: 'string' },
        'metrics-port': { type: 'string' },
        'log-level': { type: 'string' },
      });
      if (positionals.length > 0) throw new UsageError(`unexpected argument ${JSON.stringify(positionals[0])}`);
      const port = portFlag('port', values.port);
      const metricsPort = portFlag('metrics-port', values['metrics-port'], { min: 1 });
      const level = logLevelFlag(values['log-level']);
      let timeoutMs: number | undefined;
      if (values.timeout !== undefined) {
        const t = Number(values.timeout);
        if (!Number.isFinite(t) || t <= 0 || t > 3600) throw new UsageError(`--timeout must be a number of seconds (0 < s ≤ 3600), not ${JSON.stringify(values.timeout)}`);
        timeoutMs = t * 1000;
      }
      let demo: Demo | undefined;
      if (values.demo !== undefined) {
        const base = DEMOS[values.demo];
        if (!base) throw new UsageError(`unknown demo ${JSON.stringify(values.demo)}${didYouMean(values.demo, Object.keys(DEMOS))}\nDemos:\n${DEMO_LIST}`);
        demo = demoVariant(base, values.seed);
        if (!demo) throw new UsageError(`demo ${base.name} has no version from seed ${values.seed}; seeds: ${[base.seeds[0], ...Object.keys(base.variants ?? {})].join(', ')}`);
      } else if (values.seed !== undefined || values.once || values.timeout !== undefined) {
        throw new UsageError(`${values.seed !== undefined ? '--seed' : values.once ? '--once' : '--timeout'} needs --demo NAME`);
      }
      const notes: string[] = [];
      const clusters = mergeClusters((values.cluster ?? []).map(parseClusterFlag), demo, notes);
      const loadBalancers = [...(values['load-balancer'] ?? []).map(parseLoadBalancerFlag), ...(demo?.loadBalancers ?? [])];

      const dataDir = resolve(values['data-dir'] ?? '.ripple');
      const shown = relative(process.cwd(), dataDir) || '.';
      const display = shown.startsWith('..') ? dataDir : shown;
      const fail = (code: number, msg: string) => {
        io.stderr.write(`ripple up: ${msg}\n`);
        return code;
      };
      let seeds: readonly SeedDoc[] = [];
      if (demo) {
        try {
          seeds = loadSeedDocs();
        } catch (err) {
          if (err instanceof SeedError) return fail(ExitCode.BadInput, err.message);
          throw err;
        }
      }
      // The lock comes first: a second `ripple up` on DIR must not write a byte to it (log, database, kubeconfig).
      let lock: DataDirLock;
      let logFile: WriteStream;
      try {
        lock = lockDataDir(dataDir, 'ripple up');
      } catch (err) {
        if (err instanceof DataDirLockedError) return fail(ExitCode.Unavailable, `${err.message}; stop it or pass another --data-dir`);
        return fail(ExitCode.BadInput, `cannot use data directory ${display}: ${errorMessage(err)}`);
      }
      try {
        mkdirSync(dataDir, { recursive: true });
        logFile = createWriteStream(resolve(dataDir, 'ripple.log'), { flags: 'a' });
        await new Promise<void>((res, rej) => logFile.once('open', () => res()).once('error', rej));
      } catch (err) {
        lock.release();
        return fail(ExitCode.BadInput, `cannot use data directory ${display}: ${errorMessage(err)}`);
      }
      const logger: Logger = createLogger({ level: level ?? 'info', destination: teeStream(logFile, level ? io.stderr : undefined), name: 'ripple-up' });
      const sig = onStopSignal();
      const out = (s: string) => io.stdout.write(`${s}\n`);
      out(`ripple up — data directory ${display} (state persists there; run ripple up again to resume)`);
      for (const n of notes) out(`  note: ${n}`);

      let env: Embedded;
      try {
        env = await startEmbedded({ dataDir, port, clusters, loadBalancers, logger, manager: { metricsPort } });
      } catch (err) {
        sig.dispose();
        logFile.end();
        lock.release();
        const e = err as NodeJS.ErrnoException;
        if (e.code === 'EADDRINUSE' && metricsPort !== undefined && (e as { port?: number }).port === metricsPort) {
          return fail(ExitCode.Unavailable, `--metrics-port ${metricsPort} is in use; pick another`);
        }
        if (e.code === 'EADDRINUSE') return fail(ExitCode.Unavailable, `port ${port} is in use; pick another with --port or omit it for a free one`);
        if (e.code === 'SQLITE_BUSY' || e.code === 'SQLITE_LOCKED') return fail(ExitCode.Unavailable, `data directory ${display} is in use by another ripple process; stop it or pass another --data-dir`);
        if (err instanceof EmbeddedError) return fail(ExitCode.Usage, err.message);
        if (err instanceof Error && /invalid address|invalid CIDR|invalid address range/.test(err.message)) return fail(ExitCode.Usage, `bad --load-balancer pool: ${err.message}`);
        if (e.code === 'EACCES' || e.code === 'ENOTDIR' || e.code === 'EROFS') return fail(ExitCode.BadInput, `cannot use data directory ${display}: ${e.message}`);
        throw err;
      }
      const narrator = startNarrator({ informers: env.manager.informers, registry: env.manager.registry, write: out, logger });
      let code: number = ExitCode.Ok;
      try {
        const served = env.server.clusters();
        const labelsOf = new Map(env.manager.registry.all().map((c) => [c.ref.name, c.labels]));
        const lbs = new Map(loadBalancers.map((l) => [l.cluster, l.pool]));
        out(`  API server   ${env.server.url} (virtual clusters under /clusters/NAME; plain HTTP on the same port)`);
        for (const [i, name] of served.entries()) {
          const labels = labelText(Object.fromEntries(Object.entries(labelsOf.get(name) ?? {}).filter(([k]) => !k.startsWith('projectsveltos.io/'))));
          const lb = lbs.has(name) ? `, load balancer ${(lbs.get(name) ?? ['default pool']).join(',')}` : '';
          out(`  ${i === 0 ? 'clusters' : '        '}     ${name.padEnd(12)} SveltosCluster ${name}/${name}${name === MGMT ? ' (the management cluster)' : ''}${labels ? `, labels ${labels}` : ''}${lb}`);
        }
        out(`  control plane  agentless agents, event manager, add-on deployer — logs in ${display}/ripple.log`);
        if (env.manager.metricsPort !== undefined) out(`  metrics      http://127.0.0.1:${env.manager.metricsPort}/metrics`);
        out('');
        out('Use it with kubectl (one context per cluster):');
        out(`  export KUBECONFIG=${env.kubeconfigPath}`);
        out(`  kubectl --context ${served.find((n) => n !== MGMT) ?? MGMT} get svc -A`);
        out(`  kubectl --context ${MGMT} get sveltosclusters,eventtriggers,clusterprofiles -A`);
        out('');
        if (demo) {
          out(`Demo ${demo.name}: ${demo.title} (seed ${demo.seeds.join(', ')})`);
          for (const l of demo.summary.split('\n')) out(`  ${l}`);
          for (const n of demo.notes ?? []) out(`  note: ${n}`);
          out('');
          const report = await runDemo(
            demo,
            { client: env.client, mgmt: MGMT },
            { once: Boolean(values.once), write: out, seeds, filesDir: resolve(dataDir, 'demos', demo.name), displayDir: `${display}/demos/${demo.name}`, timeoutMs, signal: sig.abort.signal },
          );
          if (values.once) {
            printReport(io, report);
            code = sig.abort.signal.aborted ? ExitCode.Interrupted : report.ok ? ExitCode.Ok : ExitCode.Failed;
            return code;
          }
          if (!report.ok && report.failure) {
            out(`✗ the demo did not go as expected: ${report.failure.what}: ${report.failure.detail}`);
            for (const d of report.failure.diagnostics) out(`  ${d}`);
          }
          out('');
          out('Explore (in another terminal, after the export above):');
          for (const c of demo.explore) out(`  ${c}`);
        }
        out('');
        out(`Ripple is running. Ctrl-C stops it (state stays in ${display}; \`ripple up\` resumes).`);
        const s = await sig.signal;
        code = s === 'SIGINT' ? ExitCode.Interrupted : ExitCode.Ok;
        return code;
      } finally {
        sig.dispose();
        await narrator.stop();
        await env.stop();
        out(`ripple up: stopped${code === ExitCode.Interrupted ? ' (Ctrl-C)' : ''}; state kept in ${display}`);
        await new Promise<void>((r) => logFile.end(() => r()));
        lock.release();
      }
    },
  },
];
