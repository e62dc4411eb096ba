// up: `ripple up` — the embedded default. One process runs the embedded API server (the management cluster `mgmt` and
// managed clusters as virtual clusters on one port; on a worker thread of its own), installs the CRDs, registers every cluster as Sveltos does, runs
// the control plane agentless and narrates what happens; `--demo NAME` applies a seed scenario on top, `--once` runs
// it to the end, checks every outcome and exits.
import { createWriteStream, readFileSync, statSync, writeFileSync, type WriteStream } from 'node:fs';
import { relative, resolve } from 'node:path';
import { Writable } from 'node:stream';
import { chartsInDir, serveChartRepo, type ChartRepoServer, type ServedChart } from '../../charts/index.js';
import { parseSimulators, type Simulator } from '../../apiserver/index.js';
import { parseLabels } from '../../clusters/index.js';
import { loadChartFiles, packageChart } from '../../helm/index.js';
import { DEMOS, SeedError, demoCharts, demoVariant, formatMs, loadSeedDocs, runDemo, type Demo, type DemoReport, type SeedDoc } from '../../demos/index.js';
import { DATA_FILE_MODE, prepareDataDir, type ClusterLimits } from '../../apiserver/index.js';
import { errorMessage } from '../../kube/index.js';
import { EmbeddedError, MGMT, startEmbedded, startNarrator, validateClusterSpec, type ClusterSpec, type Embedded, type LoadBalancerSpec, type ManagerOptions } from '../../manager/index.js';
import { createLogger, type Logger } from '../../obs/index.js';
import { startUi, type UiServer } from '../../ui/index.js';
import { ExitCode, UsageError, parseFlags, portFlag, type Command, type CommandIO } from '../command.js';
import { DataDirLockedError, lockDataDir, type DataDirLock } from '../data-dir-lock.js';
import { logLevelFlag, onStopSignal } from '../runtime.js';
import { readChartDir } from './helm.js';
import { didYouMean } from '../suggest.js';
import { NATS_MISSING, ensureStream, natsServerBinary, startNatsServer, type RunningNats } from '../nats-server.js';
import { publishCloudEvent, type CloudEvent } from '../../agent/index.js';
import { onboardTenants, parseTenantFlags, TENANT_USAGE } from '../up-tenants.js';

const DEMO_LIST = Object.values(DEMOS)
  .map((d) => `  ${d.name.padEnd(15)} ${d.title}${d.seeds.length > 0 ? ` (seed ${d.seeds.join(', ')})` : ''}`)
  .join('\n');

const USAGE = `Usage: ripple up [--data-dir DIR] [--port P] [--cluster NAME[:k=v,...]]... [--load-balancer NAME[=POOL]]...
                 [--chart-repo DIR] [--demo NAME [--seed NNN] [--once] [--timeout SECONDS]] [--ui-port P | --no-ui]
                 [--metrics-port P] [--log-level LEVEL] [--tenant NAME[:SELECTOR]]...

Runs Ripple on your machine in one process: an embedded Kubernetes-compatible API server with a management cluster
"mgmt" and the managed clusters you name (virtual clusters behind one port on 127.0.0.1, served from a thread of
their own so the API server and the control plane use two cores), Ripple's CRDs installed
(with Flux's GitRepository/OCIRepository/Bucket, for kustomizationRefs and policyRefs fed by GitOps sources),
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
  --chart-repo DIR          serve DIR as a Helm chart repository on 127.0.0.1 while ripple up runs (URL printed at
                            start; the port of the last run when free): index.yaml generated from DIR's *.tgz files
                            and chart directories (packaged on the fly), for helmCharts' repositoryURL
${TENANT_USAGE}  --simulate LIST           controllers simulated in every cluster: all (default), none, or a comma-separated list of
                            workloads (Deployments, StatefulSets, DaemonSets, Jobs, CronJobs get running Pods),
                            volumes (claims bind to provisioned volumes), node (one Ready Node), rootca
                            (kube-root-ca.crt in every namespace), tokens (service account token Secrets filled)
  --demo NAME               set up and run a seed scenario (its clusters and load balancers are added for you):
${DEMO_LIST}
  --seed NNN                run the demo from another seed document's version of the YAML (see --demo help below)
  --once                    with --demo: run every step, check every expected outcome, print a report and exit
                            (0: all happened; 1: one did not — the report says which, with status and Events)
  --timeout SECONDS         with --once: how long each outcome may take (default 30)
  --ui-port P               serve the read-only web dashboard on 127.0.0.1:P (default: a free port; the URL is
                            printed at start)
  --no-ui                   do not serve the dashboard (it is never served with --once)
  --metrics-port P          serve the control plane's Prometheus metrics on 127.0.0.1:P/metrics (and /healthz)
  --log-level LEVEL         error, warn, info or debug: logs go to stderr at that level (always also to
                            DIR/ripple.log, at info by default)
  --limit NAME=N            a limit (repeatable). Per virtual cluster of the API server: objects (default 200000),
                            bytes of stored JSON (536870912), object-bytes (1572864), body-bytes (3145728),
                            nesting (1000); beyond them writes get 403/413/400 as kube-apiserver answers. Per
                            event-manager template render: template-steps (1000000), template-output (33554432
                            characters), template-ms (10000); beyond them that render fails, in status. Per
                            EventSource evaluation: lua-instructions (10000000), pattern matching included

Demo variants (--seed): cross-cluster 002 (the blog post's EventBasedAddOn); network-policy, ingress and
httproute 003 (the newer revision of the event framework page, recovered from flattened text).

Exit codes: 0 stopped by SIGTERM, or --once passed; 1 --once: an expected outcome did not happen; 2 bad command line;
            3 unusable data directory or seed documents; 4 the port is in use or the data directory is in use;
            130 stopped by Ctrl-C (SIGINT).

Examples:
  ripple up --demo loadbalancer                      # watch the seed's load-balancer example happen, then explore
  ripple up --demo cross-cluster --once              # run the scenario end to end and exit with its verdict
  ripple up --demo helm --once                       # a chart from ripple up's own repository, installed on an event
  ripple up --demo health --once                     # validateHealths gate a profile, then its dependent proceeds
  ripple up --demo cloudevent                        # a CloudEvent from NATS creates an add-on (needs nats-server)
  ripple up --cluster edge-1:env=prod --cluster edge-2:env=dev --load-balancer mgmt
  ripple up --cluster edge-1:env=prod --tenant eng:env=prod   # then: kubectl --kubeconfig .ripple/tenant-eng.kubeconfig …
  export KUBECONFIG=$PWD/.ripple/kubeconfig && kubectl --context edge-1 get svc -A
`;

/** packageChartDir packages a --chart-repo chart directory like `ripple helm package` (.helmignore honoured), dated by its Chart.yaml (stable digests). */
function packageChartDir(dir: string): ServedChart {
  const p = packageChart(loadChartFiles(readChartDir(dir)), Math.floor(statSync(resolve(dir, 'Chart.yaml')).mtimeMs / 1000));
  return { filename: p.filename, bytes: p.bytes };
}

/** lastPort is the port recorded in file by an earlier run (0: none, pick a free one). */
function lastPort(file: string): number {
  let n = 0;
  try {
    n = Number.parseInt(readFileSync(file, 'utf8'), 10);
  } catch {
    // first run
  }
  return n > 0 && n < 65536 ? n : 0;
}

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

function simulateFlag(v: string): Simulator[] {
  try {
    return parseSimulators(v);
  } catch (e) {
    throw new UsageError(`--simulate: ${(e as Error).message}`);
  }
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

type RenderBudget = NonNullable<ManagerOptions['renderBudget']>;

const LIMIT_FLAGS: Record<string, { api: keyof ClusterLimits } | { render: keyof RenderBudget } | { lua: true }> = {
  'lua-instructions': { lua: true },
  objects: { api: 'maxObjects' },
  bytes: { api: 'maxBytes' },
  'object-bytes': { api: 'maxObjectBytes' },
  'body-bytes': { api: 'maxRequestBodyBytes' },
  nesting: { api: 'maxNestingDepth' },
  'template-steps': { render: 'maxSteps' },
  'template-output': { render: 'maxOutputBytes' },
  'template-ms': { render: 'maxMillis' },
};

// parseLimitFlags reads --limit NAME=N flags into the API server's per-cluster limits and the render budget.
function parseLimitFlags(flags: string[]): { api: Partial<ClusterLimits>; render: RenderBudget; luaInstructions?: number } {
  const api: Partial<ClusterLimits> = {};
  const render: RenderBudget = {};
  let luaInstructions: number | undefined;
  for (const f of flags) {
    const i = f.indexOf('=');
    const key = LIMIT_FLAGS[i < 0 ? f : f.slice(0, i)];
    if (!key) throw new UsageError(`--limit ${f}: NAME must be one of ${Object.keys(LIMIT_FLAGS).join(', ')}`);
    const n = Number(f.slice(i + 1));
    if (i < 0 || !Number.isSafeInteger(n) || n <= 0) throw new UsageError(`--limit ${f}: give a positive whole number, e.g. --limit objects=1000`);
    if ('api' in key) api[key.api] = n;
    else if ('render' in key) render[key.render] = n;
    else luaInstructions = n;
  }
  return { api, render, luaInstructions };
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
        limit: { type: 'string', multiple: true },
        simulate: { type: 'string' },
        demo: { type: 'string' },
        seed: { type: 'string' },
        once: { type: 'boolean' },
        timeout: { type: 'string' },
        'metrics-port': { type: 'string' },
        'log-level': { type: 'string' },
        'ui-port': { type: 'string' },
        'no-ui': { type: 'boolean' },
        'chart-repo': { type: 'string' },
        tenant: { type: 'string', multiple: true },
      });
      const tenants = parseTenantFlags(values.tenant);
      if (positionals.length > 0) throw new UsageError(`unexpected argument ${JSON.stringify(positionals[0])}`);
      const port = portFlag('port', values.port);
      const uiPort = portFlag('ui-port', values['ui-port']);
      if (uiPort !== undefined && values['no-ui']) throw new UsageError('--ui-port and --no-ui exclude each other');
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
      const limits = parseLimitFlags(values.limit ?? []);

      const simulators = simulateFlag(values.simulate ?? 'all');
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
      let dataDirWarnings: string[] = [];
      try {
        lock = lockDataDir(dataDir, 'ripple up');
      } catch (err) {
        if (err instanceof DataDirLockedError) return fail(ExitCode.Unavailable, `${err.message}; stop it or pass another --data-dir`);
        return fail(ExitCode.BadInput, `cannot use data directory ${display}: ${errorMessage(err)}`);
      }
      try {
        // 0700 directory, 0600 log from its first byte (the log names clusters and objects; the directory holds tokens).
        dataDirWarnings = prepareDataDir(dataDir, ['ripple.log']);
        logFile = createWriteStream(resolve(dataDir, 'ripple.log'), { flags: 'a', mode: DATA_FILE_MODE });
        await new Promise<void>((res, rej) => logFile.once('open', () => res()).once('error', rej));
      } catch (err) {
        lock.release();
        return fail(ExitCode.BadInput, `cannot use data directory ${display}: ${errorMessage(err)}`);
      }
      const logger: Logger = createLogger({ level: level ?? 'info', destination: teeStream(logFile, level ? io.stderr : undefined), name: 'ripple-up' });
      for (const w of dataDirWarnings) {
        logger.warn(w);
        io.stderr.write(`ripple up: warning: ${w}\n`);
      }
      const sig = onStopSignal();
      const out = (s: string) => io.stdout.write(`${s}\n`);
      out(`ripple up — data directory ${display} (state persists there; run ripple up again to resume)`);
      for (const n of notes) out(`  note: ${n}`);

      const chartDir = values['chart-repo'] !== undefined ? resolve(values['chart-repo']) : undefined;
      if (chartDir !== undefined && !statSync(chartDir, { throwIfNoEntry: false })?.isDirectory()) {
        sig.dispose();
        logFile.end();
        return fail(ExitCode.Usage, `--chart-repo ${values['chart-repo']}: not a directory`);
      }
      let chartRepo: ChartRepoServer | undefined;
      if (chartDir !== undefined || (demo?.charts?.length ?? 0) > 0) {
        const warn = (m: string) => {
          out(`  warning: chart repository: ${m}`);
          logger.warn({ component: 'chart-repo' }, m);
        };
        const list = (): ServedChart[] => [...(chartDir ? chartsInDir(chartDir, packageChartDir, warn) : []), ...(demo ? demoCharts(demo) : [])];
        // The port of last time when free: helmCharts applied then name this URL, and a resumed run keeps serving it.
        const portFile = resolve(dataDir, 'chart-repo.port');
        chartRepo = await serveChartRepo({ list, warn, port: lastPort(portFile) }).catch(() => serveChartRepo({ list, warn }));
        writeFileSync(portFile, `${new URL(chartRepo.url).port}\n`);
      }
      // Demos receiving CloudEvents get a NATS server (JetStream on, store in the data directory).
      let nats: RunningNats | undefined;
      if (demo?.nats) {
        const bin = natsServerBinary();
        try {
          if (!bin) throw new Error(NATS_MISSING);
          nats = await startNatsServer({ bin, storeDir: resolve(dataDir, 'nats'), log: (l) => logger.debug({ component: 'nats-server' }, l) });
          await ensureStream(nats.url, demo.nats.stream, demo.nats.subjects);
        } catch (err) {
          sig.dispose();
          await chartRepo?.stop();
          await nats?.stop();
          logFile.end();
          lock.release();
          return fail(ExitCode.Unavailable, `demo ${demo.name} receives CloudEvents over NATS: ${errorMessage(err)}`);
        }
      }
      const demoVars = { ...(chartRepo ? { chartRepo: chartRepo.url } : {}), ...(nats ? { natsUrl: nats.url } : {}) };

      let env: Embedded;
      try {
        env = await startEmbedded({ dataDir, port, clusters, loadBalancers, simulators, logger, limits: limits.api, manager: { metricsPort, renderBudget: limits.render, luaInstructionLimit: limits.luaInstructions } });
      } catch (err) {
        sig.dispose();
        await chartRepo?.stop();
        await nats?.stop();
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
      let ui: UiServer | undefined;
      try {
        if (!values['no-ui'] && !values.once) {
          try {
            ui = await startUi({ informers: env.manager.informers, registry: env.manager.registry, metrics: env.manager.metrics, port: uiPort, logger });
          } catch (err) {
            if ((err as NodeJS.ErrnoException).code === 'EADDRINUSE') return (code = fail(ExitCode.Unavailable, `dashboard port ${uiPort} is in use; pick another with --ui-port, omit it for a free one, or pass --no-ui`));
            // The dashboard is a convenience: without it (say, esbuild's binary was not installed) the rest still runs.
            out(`  note: the dashboard could not start: ${errorMessage(err)}`);
          }
        }
        const served = env.server.clusters();
        const labelsOf = new Map(env.manager.registry.all().map((c) => [c.ref.name, c.labels]));
        const lbs = new Map(loadBalancers.map((l) => [l.cluster, l.pool]));
        out(`  API server   ${env.server.url} (virtual clusters under /clusters/NAME; HTTPS only)`);
        for (const [i, name] of served.entries()) {
          const labels = labelText(Object.fromEntries(Object.entries(labelsOf.get(name) ?? {}).filter(([k]) => !k.startsWith('projectsveltos.io/'))));
          const lb = lbs.has(name) ? `, load balancer ${(lbs.get(name) ?? ['default pool']).join(',')}` : '';
          out(`  ${i === 0 ? 'clusters' : '        '}     ${name.padEnd(12)} SveltosCluster ${name}/${name}${name === MGMT ? ' (the management cluster)' : ''}${labels ? `, labels ${labels}` : ''}${lb}`);
        }
        if (chartRepo) out(`  chart repo   ${chartRepo.url} (${[...(chartDir ? [relative(process.cwd(), chartDir) || '.'] : []), ...(demo?.charts?.length ? ['the demo’s charts'] : [])].join(' + ')}; index.yaml generated on request)`);
        if (nats) out(`  NATS         ${nats.url} (nats-server, JetStream stream ${demo!.nats!.stream}; publish with: ripple publish-cloudevent --server ${nats.url} …)`);
        out(`  control plane  agentless agents, event manager, add-on deployer — logs in ${display}/ripple.log`);
        if (ui) out(`  dashboard    ${ui.url} (read-only; live)`);
        if (env.manager.metricsPort !== undefined) out(`  metrics      http://127.0.0.1:${env.manager.metricsPort}/metrics`);
        await onboardTenants(env, dataDir, tenants, out);
        out('');
        out('Use it with kubectl (one context per cluster):');
        out(`  export KUBECONFIG=${env.kubeconfigPath}`);
        out(`  kubectl --context ${served.find((n) => n !== MGMT) ?? MGMT} get svc -A`);
        out(`  kubectl --context ${MGMT} get sveltosclusters,eventtriggers,clusterprofiles -A`);
        out('');
        if (demo) {
          out(`Demo ${demo.name}: ${demo.title}${demo.seeds.length > 0 ? ` (seed ${demo.seeds.join(', ')})` : ''}`);
          for (const l of demo.summary.split('\n')) out(`  ${l}`);
          for (const n of demo.notes ?? []) out(`  note: ${n}`);
          out('');
          const report = await runDemo(
            demo,
            { client: env.client, mgmt: MGMT, publish: nats ? (subject, event) => publishCloudEvent({ url: nats.url }, subject, event as CloudEvent, { jetstream: true }) : undefined },
            { once: Boolean(values.once), write: out, seeds, vars: Object.keys(demoVars).length > 0 ? demoVars : undefined, filesDir: resolve(dataDir, 'demos', demo.name), displayDir: `${display}/demos/${demo.name}`, timeoutMs, signal: sig.abort.signal },
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
          for (const c of demo.explore) out(`  ${Object.entries(demoVars).reduce((t, [k, v]) => t.replaceAll(`{${k}}`, v), c)}`);
        }
        out('');
        out(`Ripple is running. Ctrl-C stops it (state stays in ${display}; \`ripple up\` resumes).`);
        const s = await sig.signal;
        code = s === 'SIGINT' ? ExitCode.Interrupted : ExitCode.Ok;
        return code;
      } finally {
        sig.dispose();
        await ui?.stop();
        await narrator.stop();
        await env.stop();
        await chartRepo?.stop();
        await nats?.stop();
        out(`ripple up: stopped${code === ExitCode.Interrupted ? ' (Ctrl-C)' : ''}; state kept in ${display}`);
        await new Promise<void>((r) => logFile.end(() => r()));
        lock.release();
      }
    },
  },
];
