// thread-worker.ts: the entry point of the API server's worker thread (see thread.ts). It starts the embedded API
// server with the options the control plane's thread sent, reports how to reach it, then answers the few calls the
// ApiServer interface makes after start (addCluster, enableLoadBalancer, requestCounts, stop). Log records are
// forwarded to the parent's logger. Requests themselves never cross threads: clients connect to the listener, which
// this thread owns, so storage, JSON, validation and watch fan-out all run here.
import { writeFileSync } from 'node:fs';
import { Session } from 'node:inspector';
import { getHeapStatistics, setFlagsFromString, writeHeapSnapshot } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { parentPort, workerData } from 'node:worker_threads';
import type { Logger } from './cluster.js';
import { PARSE_STATS } from './parsed.js';
import { threadCpuMs } from './thread-cpu.js';
import { startApiServer, type ApiServer, type ApiServerOptions } from './server.js';
import type { ProfileKind, ThreadCall, ThreadInit, ThreadMessage, ThreadState, WireError } from './thread.js';

const port = parentPort;
if (!port) throw new Error('thread-worker.ts runs only as the API server worker thread (see thread.ts)');

const init = workerData as ThreadInit;
const post = (m: ThreadMessage) => port.postMessage(m);

/** forward posts one log record; a record that cannot be cloned (a function or socket inside) goes as JSON text. */
function forward(level: 'info' | 'warn' | 'error' | 'debug', obj: object, msg?: string): void {
  try {
    post({ t: 'log', level, obj, msg });
  } catch {
    let plain: object;
    try {
      plain = JSON.parse(JSON.stringify(obj, (_k, v: unknown) => (v instanceof Error ? { name: v.name, message: v.message, stack: v.stack } : v))) as object;
    } catch {
      plain = { unserializable: String(obj) };
    }
    post({ t: 'log', level, obj: plain, msg });
  }
}

const logger: Logger = {
  info: (obj, msg) => forward('info', obj, msg),
  warn: (obj, msg) => forward('warn', obj, msg),
  error: (obj, msg) => forward('error', obj, msg),
  debug: init.debug ? (obj, msg) => forward('debug', obj, msg) : () => {},
};

function stateOf(s: ApiServer): ThreadState {
  return {
    url: s.url,
    httpUrl: s.httpUrl,
    caCertificate: s.caCertificate,
    port: s.port,
    dataDir: s.dataDir,
    kubeconfigPath: s.kubeconfigPath,
    socketPath: s.socketPath,
    clusters: s.clusters().map((n) => s.cluster(n)),
  };
}

/** Profiler drives this thread's CPU profiler, or its sampling heap profiler, through the inspector (a worker's
 * Session sees the worker itself). */
class Profiler {
  private session: Session | undefined;
  private kind: ProfileKind = 'cpu';

  /** interval: µs between samples of a CPU profile, bytes between samples of an allocation profile. */
  async start(interval?: number, kind: ProfileKind = 'cpu'): Promise<void> {
    if (this.session) return;
    const s = new Session();
    s.connect();
    this.session = s;
    this.kind = kind;
    if (kind === 'alloc') {
      await this.post('HeapProfiler.startSampling', { ...(interval ? { samplingInterval: interval } : {}), includeObjectsCollectedByMajorGC: true, includeObjectsCollectedByMinorGC: true });
      return;
    }
    await this.post('Profiler.enable');
    if (interval) await this.post('Profiler.setSamplingInterval', { interval });
    await this.post('Profiler.start');
  }

  async stop(): Promise<unknown> {
    if (!this.session) return undefined;
    const { profile } = (await this.post(this.kind === 'alloc' ? 'HeapProfiler.stopSampling' : 'Profiler.stop')) as { profile: unknown };
    this.session.disconnect();
    this.session = undefined;
    return profile;
  }

  private post(method: string, params?: object): Promise<unknown> {
    return new Promise((resolve, reject) => this.session!.post(method, params, (err, res) => (err ? reject(err) : resolve(res))));
  }
}

const profiler = new Profiler();

/** fullGc runs a full garbage collection of this thread (diagnostics: the fleet bench's live-heap readings). */
function fullGc(): void {
  setFlagsFromString('--expose-gc');
  (runInNewContext('gc') as () => void)();
}
// RIPPLE_APISERVER_CPU_PROFILE=FILE: profile from start to stop (the fleet bench profiles phases through calls instead).
const profileFile = process.env.RIPPLE_APISERVER_CPU_PROFILE;
if (profileFile) void profiler.start();

async function answer(server: ApiServer, call: ThreadCall): Promise<unknown> {
  switch (call.method) {
    case 'addCluster':
      return server.addCluster(call.args[0] as string);
    case 'enableLoadBalancer':
      return server.enableLoadBalancer(call.args[0] as string, call.args[1] as string[] | undefined);
    case 'requestCounts':
      return server.requestCounts();
    case 'profileStart':
      return profiler.start(call.args[0], call.args[1]);
    case 'profileStop':
      return profiler.stop();
    case 'memory': {
      if (call.args[0]) fullGc();
      const h = getHeapStatistics();
      const reparses = { count: PARSE_STATS.reparses, chars: PARSE_STATS.reparsedChars, ms: Math.round(PARSE_STATS.parseMs) };
      return { heapUsed: h.used_heap_size, heapTotal: h.total_heap_size, external: h.external_memory, heapLimit: h.heap_size_limit, reparses };
    }
    case 'heapSnapshot':
      return writeHeapSnapshot(call.args[0]);
    case 'cpu':
      return threadCpuMs();
    case 'stop': {
      await server.stop();
      const profile = await profiler.stop();
      if (profileFile && profile) writeFileSync(profileFile, JSON.stringify(profile));
      return;
    }
  }
}

/** wireError is an error as a message carries it (name, message, stack and errno code survive the thread hop). */
function wireError(err: unknown): WireError {
  if (!(err instanceof Error)) return { name: 'Error', message: String(err) };
  const code = (err as NodeJS.ErrnoException).code;
  return { name: err.name, message: err.message, stack: err.stack, ...(code ? { code } : {}) };
}

async function main(): Promise<void> {
  let server: ApiServer;
  try {
    server = await startApiServer({ ...(init.options as ApiServerOptions), logger });
  } catch (err) {
    post({ t: 'failed', error: wireError(err) });
    return;
  }
  port!.on('message', (call: ThreadCall) => {
    answer(server, call).then(
      (value) => post({ t: 'reply', id: call.id, ok: true, value }),
      (err: unknown) => post({ t: 'reply', id: call.id, ok: false, error: wireError(err) }),
    );
  });
  post({ t: 'ready', state: stateOf(server) });
}

void main();
