// apiserver: runs the embedded Kubernetes-compatible API server until interrupted.
import { ExitCode, UsageError, parseFlags, portFlag, type Command, type CommandIO } from '../command.js';
import { DataDirLockedError, lockDataDir, type DataDirLock } from '../data-dir-lock.js';
import { LOG_LEVELS, logLevelFlag, type LogLevel } from '../runtime.js';
import { parseSimulators, startApiServer, validateClusterName, type ApiServer, type Durability, type Logger, type Simulator } from '../../apiserver/index.js';

const USAGE = `Usage: ripple apiserver --data-dir DIR [--port P] [--cluster NAME]... [--load-balancer NAME[=POOL]]...

Runs the embedded Kubernetes-compatible API server: any number of virtual clusters behind one port on 127.0.0.1,
each under /clusters/NAME with its own bearer token, all state durable in DIR/state.db. DIR/kubeconfig gets one
context per cluster (named after it). The port speaks HTTPS (what the kubeconfig uses; its CA is DIR/tls.crt); a
plain-HTTP request gets 400 unless --plain-http is given. DIR is 0700 and its files 0600. Stop it with Ctrl-C or SIGTERM; a restart with the same DIR resumes where it stopped.

Flags:
  --data-dir DIR             state directory (created when missing)               (required)
  --port P                   port on 127.0.0.1 (default: the last one used in DIR if free, else a random port)
  --cluster NAME             create this virtual cluster if missing (repeatable; existing ones are always served;
                             with none at all, a cluster named "default" is created)
  --load-balancer NAME[=POOL]
                             give cluster NAME the load-balancer simulator: Services of type LoadBalancer get
                             status.loadBalancer.ingress IPs from POOL, a comma-separated list of CIDRs, ranges
                             (a.b.c.d-e.f.g.h) or addresses (default: 192.0.2.0/24,198.51.100.0/24,203.0.113.0/24)
  --simulate LIST            controllers simulated in every cluster: none (default), all, or a comma-separated list
                             of workloads, volumes, node, rootca, tokens (see ripple up --help)
  --durability process|power process (default): an acknowledged write survives a killed process (it is committed
                             to SQLite's WAL first); power: it also survives power loss (fsynced before answering)
  --log-level LEVEL          error, warn, info (default) or debug; logs go to stderr as JSON lines
  --plain-http               also answer plain HTTP on the port (bearer tokens then cross loopback in clear text)

One process per DIR: the server holds DIR/ripple.lock while it runs; a second one on the same DIR exits 4 naming the
process that holds it, without touching the database or the kubeconfig.

Exit codes: 0 stopped by SIGTERM; 2 bad command line; 3 unusable data directory; 4 the port is in use or DIR is in
            use by another process; 130 stopped by Ctrl-C (SIGINT).

Examples:
  ripple apiserver --data-dir ./state --cluster mgmt --cluster edge-1 --load-balancer mgmt=1.1.1.1
  export KUBECONFIG=./state/kubeconfig && kubectl --context edge-1 get namespaces
`;


function stderrLogger(io: CommandIO, level: LogLevel): Logger {
  const max = LOG_LEVELS.indexOf(level);
  const log = (l: LogLevel) => (obj: object, msg?: string) => {
    if (LOG_LEVELS.indexOf(l) > max) return;
    io.stderr.write(JSON.stringify({ time: new Date().toISOString(), level: l, msg, ...obj }) + '\n');
  };
  return { error: log('error'), warn: log('warn'), info: log('info'), debug: log('debug') };
}

function parseLoadBalancer(v: string): { cluster: string; pool?: string[] } {
  const i = v.indexOf('=');
  if (i < 0) return { cluster: v };
  const pool = v.slice(i + 1).split(',').map((s) => s.trim()).filter(Boolean);
  return { cluster: v.slice(0, i), pool: pool.length > 0 ? pool : undefined };
}

export const commands: Command[] = [
  {
    path: ['apiserver'],
    summary: 'Run the embedded Kubernetes-compatible API server (virtual clusters, SQLite-durable)',
    usage: USAGE,
    async run(args, io) {
      const { values, positionals } = parseFlags(args, {
        'data-dir': { type: 'string' },
        port: { type: 'string' },
        cluster: { type: 'string', multiple: true },
        'load-balancer': { type: 'string', multiple: true },
        durability: { type: 'string' },
        simulate: { type: 'string' },
        'log-level': { type: 'string' },
        'plain-http': { type: 'boolean' },
      });
      if (positionals.length > 0) throw new UsageError(`unexpected argument ${JSON.stringify(positionals[0])}`);
      const dataDir = values['data-dir'];
      if (!dataDir) throw new UsageError('--data-dir is required');
      const port = portFlag('port', values.port);
      const durability = values.durability ?? 'process';
      if (!['process', 'power', 'normal', 'full'].includes(durability)) throw new UsageError('--durability must be "process" or "power"');
      const level = logLevelFlag(values['log-level'], 'info');
      const clusters = values.cluster ?? [];
      const loadBalancer = (values['load-balancer'] ?? []).map(parseLoadBalancer);
      for (const name of [...clusters, ...loadBalancer.map((l) => l.cluster)]) {
        const bad = validateClusterName(name);
        if (bad) throw new UsageError(bad);
      }
      let simulators: Simulator[];
      try {
        simulators = parseSimulators(values.simulate ?? 'none');
      } catch (e) {
        throw new UsageError(`--simulate: ${(e as Error).message}`);
      }
      const logger = stderrLogger(io, level);
      let lock: DataDirLock;
      try {
        lock = lockDataDir(dataDir, 'ripple apiserver');
      } catch (e) {
        if (e instanceof DataDirLockedError) {
          io.stderr.write(`ripple apiserver: ${e.message}; stop it or pass another --data-dir\n`);
          return ExitCode.Unavailable;
        }
        io.stderr.write(`ripple apiserver: cannot use data directory ${dataDir}: ${(e as Error).message}\n`);
        return ExitCode.BadInput;
      }
      let server: ApiServer;
      try {
        server = await startApiServer({ dataDir, port, clusters, loadBalancer, simulators, durability: durability as Durability, logger, plainHttp: Boolean(values['plain-http']) });
        if (server.clusters().length === 0) await server.addCluster('default');
      } catch (e) {
        lock.release();
        const err = e as NodeJS.ErrnoException;
        if (err.code === 'EADDRINUSE') {
          io.stderr.write(`ripple apiserver: port ${port} is in use; pick another with --port or omit it for a free one\n`);
          return ExitCode.Unavailable;
        }
        if (err.code === 'EACCES' || err.code === 'ENOTDIR' || err.code === 'EROFS') {
          io.stderr.write(`ripple apiserver: cannot use data directory ${dataDir}: ${err.message}\n`);
          return ExitCode.BadInput;
        }
        if (err instanceof Error && /invalid address|invalid CIDR|invalid address range/.test(err.message)) {
          io.stderr.write(`ripple apiserver: bad --load-balancer pool: ${err.message}\n`);
          return ExitCode.Usage;
        }
        throw e;
      }
      const names = server.clusters();
      io.stdout.write(
        [
          `ripple apiserver listening on ${server.url}${values['plain-http'] ? ` (plain HTTP: ${server.httpUrl})` : ''}`,
          `clusters: ${names.join(', ')}`,
          `kubeconfig: ${server.kubeconfigPath} (one context per cluster)`,
          '',
          'Use it with kubectl:',
          `  export KUBECONFIG=${server.kubeconfigPath}`,
          `  kubectl --context ${names[0]} get namespaces`,
          '',
        ].join('\n'),
      );
      const signal = await new Promise<NodeJS.Signals>((resolve) => {
        const on = (s: NodeJS.Signals) => resolve(s);
        process.once('SIGINT', on);
        process.once('SIGTERM', on);
      });
      await server.stop();
      lock.release();
      io.stderr.write(`ripple apiserver: stopped (${signal})\n`);
      return signal === 'SIGINT' ? ExitCode.Interrupted : ExitCode.Ok;
    },
  },
];
