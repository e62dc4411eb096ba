// thread.ts: the embedded API server on its own thread. startApiServerThread runs startApiServer in a worker thread
// (thread-worker.ts) and returns the same ApiServer interface, so `ripple up` keeps one process while the API server —
// storage, JSON decoding and encoding, validation, server-side apply, watch fan-out, the simulators — uses the second
// core and the control plane keeps the first. Nothing about durability changes: the worker owns the SQLite store and
// answers a write only once it is committed, exactly as on one thread; a killed process loses nothing acknowledged.
//
// Clients reach the worker's listener over loopback HTTP, as before; only start, addCluster, enableLoadBalancer,
// requestCounts and stop cross threads (as messages). Cluster addresses and tokens are mirrored here, so clusters(),
// cluster() and kubeconfig() answer synchronously. Log records are forwarded to the caller's logger. An uncaught
// error in the worker is fatal, as it is on one thread: it is logged and rethrown here.
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { Worker } from 'node:worker_threads';
import type { Logger } from './cluster.js';
import { buildKubeconfig, kubeconfigToYaml, type ApiServer, type ApiServerOptions, type ClusterInfo, type KubeConfig, type RequestCounts, type ThreadMemory } from './server.js';

/** ThreadInit is the worker's workerData: the options without the logger, and whether debug records are wanted. */
export interface ThreadInit {
  options: Omit<ApiServerOptions, 'logger'>;
  debug: boolean;
}

/** ThreadState is how to reach the started server (sent once it listens). */
export interface ThreadState {
  url: string;
  httpUrl: string;
  caCertificate: string;
  port: number;
  dataDir: string;
  kubeconfigPath: string;
  socketPath: string | undefined;
  clusters: ClusterInfo[];
}

/** ProfileKind: a CPU profile, or an allocation profile (the sampling heap profiler counting collected objects too). */
export type ProfileKind = 'cpu' | 'alloc';

/** ThreadCall is a call from the parent to the worker. */
export type ThreadCall =
  | { id: number; method: 'addCluster'; args: [string] }
  | { id: number; method: 'enableLoadBalancer'; args: [string, string[] | undefined] }
  | { id: number; method: 'requestCounts'; args: [] }
  | { id: number; method: 'profileStart'; args: [number | undefined, ProfileKind | undefined] }
  | { id: number; method: 'profileStop'; args: [] }
  | { id: number; method: 'memory'; args: [boolean] }
  | { id: number; method: 'cpu'; args: [] }
  | { id: number; method: 'heapSnapshot'; args: [string] }
  | { id: number; method: 'stop'; args: [] };

/** WireError is an Error crossing threads. */
export interface WireError {
  name: string;
  message: string;
  stack?: string;
  code?: string;
}

/** ThreadMessage is a message from the worker to the parent. */
export type ThreadMessage =
  | { t: 'ready'; state: ThreadState }
  | { t: 'failed'; error: WireError }
  | { t: 'reply'; id: number; ok: true; value: unknown }
  | { t: 'reply'; id: number; ok: false; error: WireError }
  | { t: 'log'; level: 'info' | 'warn' | 'error' | 'debug'; obj: object; msg?: string };

const NOOP_LOGGER: Logger = { info() {}, warn() {}, error() {}, debug() {} };

function toError(w: WireError): Error {
  const e = new Error(w.message) as Error & { code?: string };
  e.name = w.name;
  if (w.stack) e.stack = w.stack;
  if (w.code) e.code = w.code;
  return e;
}

/** workerEntry locates thread-worker: beside this file when running the sources (through tsx), or its own entry in a
 * compiled build (dist/apiserver/thread-worker.js, with this code in dist/chunks/ or an entry under dist/). */
function workerEntry(): { url: URL; source: boolean } {
  const here = import.meta.url;
  if (here.endsWith('.ts')) return { url: new URL('./thread-worker.ts', here), source: true };
  for (const rel of ['./thread-worker.js', '../apiserver/thread-worker.js', '../../apiserver/thread-worker.js']) {
    const url = new URL(rel, here);
    if (existsSync(fileURLToPath(url))) return { url, source: false };
  }
  throw new Error(`the API server's worker entry thread-worker.js is missing next to ${fileURLToPath(here)}: rebuild with \`npm run build\``);
}

/** newWorker starts thread-worker. Running the sources, the thread first registers tsx's loader itself: loader hooks
 * registered in the parent (with --import or programmatically, as bin/ripple.js does) do not reach a worker's entry. */
function newWorker(init: ThreadInit): Worker {
  const entry = workerEntry();
  const options = { workerData: init, name: 'ripple-apiserver' };
  if (!entry.source) return new Worker(entry.url, options);
  const api = JSON.stringify(import.meta.resolve('tsx/esm/api'));
  const code = `import(${api}).then((tsx) => { tsx.register(); return import(${JSON.stringify(entry.url.href)}); });`;
  return new Worker(code, { ...options, eval: true });
}

class ThreadApiServer implements ApiServer {
  private readonly infos = new Map<string, ClusterInfo>();
  private readonly pending = new Map<number, { resolve: (v: unknown) => void; reject: (e: Error) => void }>();
  private seq = 0;
  private stopping: Promise<void> | undefined;
  private exited = false;

  constructor(
    private readonly worker: Worker,
    private readonly state: ThreadState,
  ) {
    for (const c of state.clusters) this.infos.set(c.name, c);
  }

  get url(): string {
    return this.state.url;
  }
  get httpUrl(): string {
    return this.state.httpUrl;
  }
  get caCertificate(): string {
    return this.state.caCertificate;
  }
  get port(): number {
    return this.state.port;
  }
  get dataDir(): string {
    return this.state.dataDir;
  }
  get kubeconfigPath(): string {
    return this.state.kubeconfigPath;
  }
  get socketPath(): string | undefined {
    return this.state.socketPath;
  }

  clusters(): string[] {
    return [...this.infos.keys()];
  }

  cluster(name: string): ClusterInfo {
    const c = this.infos.get(name);
    if (!c) throw new Error(`no cluster named ${JSON.stringify(name)}`);
    return { ...c };
  }

  kubeconfig(name?: string): KubeConfig {
    const names = name ? [name] : this.clusters();
    return buildKubeconfig(names.map((n) => this.cluster(n)), this.state.caCertificate);
  }

  kubeconfigYaml(name?: string): string {
    return kubeconfigToYaml(this.kubeconfig(name));
  }

  async addCluster(name: string): Promise<ClusterInfo> {
    const existing = this.infos.get(name);
    if (existing) return { ...existing };
    const info = (await this.call({ id: 0, method: 'addCluster', args: [name] })) as ClusterInfo;
    this.infos.set(info.name, info);
    return { ...info };
  }

  async enableLoadBalancer(cluster: string, pool?: string[]): Promise<void> {
    await this.call({ id: 0, method: 'enableLoadBalancer', args: [cluster, pool] });
  }

  requestCounts(): Promise<RequestCounts> {
    return this.call({ id: 0, method: 'requestCounts', args: [] }) as Promise<RequestCounts>;
  }

  /** startCpuProfile starts the worker thread's CPU profiler (interval: µs between samples), or with kind 'alloc' its
   * sampling heap profiler (interval: bytes between samples), counting the objects collected since too (a .heapprofile). */
  async startCpuProfile(interval?: number, kind?: ProfileKind): Promise<void> {
    await this.call({ id: 0, method: 'profileStart', args: [interval, kind] });
  }

  /** stopCpuProfile stops it and returns the profile (a .cpuprofile or .heapprofile document). */
  async stopCpuProfile(): Promise<object | undefined> {
    return (await this.call({ id: 0, method: 'profileStop', args: [] })) as object | undefined;
  }

  /** threadMemory reads the worker thread's heap statistics on that thread (after a full GC when collect is set). */
  threadMemory(collect = false): Promise<ThreadMemory> {
    return this.call({ id: 0, method: 'memory', args: [collect] }) as Promise<ThreadMemory>;
  }

  /**
   * threadCpuMs is the CPU time the worker thread has used since it started, in ms (Linux: /proc/thread-self/schedstat,
   * read on that thread); undefined where the system does not tell.
   */
  threadCpuMs(): Promise<number | undefined> {
    return this.call({ id: 0, method: 'cpu', args: [] }) as Promise<number | undefined>;
  }

  /** writeHeapSnapshot writes a heap snapshot of the worker thread to file and returns its path. */
  writeHeapSnapshot(file: string): Promise<string> {
    return this.call({ id: 0, method: 'heapSnapshot', args: [file] }) as Promise<string>;
  }

  stop(): Promise<void> {
    this.stopping ??= (async () => {
      if (!this.exited) await this.call({ id: 0, method: 'stop', args: [] }).catch(() => undefined);
      await this.worker.terminate();
    })();
    return this.stopping;
  }

  /** settle answers a reply from the worker. */
  settle(m: Extract<ThreadMessage, { t: 'reply' }>): void {
    const p = this.pending.get(m.id);
    if (!p) return;
    this.pending.delete(m.id);
    if (m.ok) p.resolve(m.value);
    else p.reject(toError(m.error));
  }

  /** gone fails every call in flight: the worker has exited. */
  gone(reason: Error): void {
    this.exited = true;
    for (const p of this.pending.values()) p.reject(reason);
    this.pending.clear();
  }

  get stopRequested(): boolean {
    return this.stopping !== undefined;
  }

  private call(c: ThreadCall): Promise<unknown> {
    if (this.exited) return Promise.reject(new Error('the API server thread has exited'));
    const id = ++this.seq;
    return new Promise((resolve, reject) => {
      this.pending.set(id, { resolve, reject });
      this.worker.postMessage({ ...c, id });
    });
  }
}

/** startApiServerThread starts the embedded API server on a worker thread (see the file comment). It resolves once the
 * server listens, or rejects with the error startApiServer gave. */
export function startApiServerThread(o: ApiServerOptions): Promise<ApiServer> {
  const logger = o.logger ?? NOOP_LOGGER;
  const { logger: _omit, ...options } = o;
  // A pino logger says whether debug records are wanted; a plain Logger gets them all.
  const levels = logger as Partial<{ isLevelEnabled(level: string): boolean }>;
  const debug = typeof levels.isLevelEnabled === 'function' ? levels.isLevelEnabled('debug') : true;
  const worker = newWorker({ options, debug });
  return new Promise<ApiServer>((resolve, reject) => {
    let server: ThreadApiServer | undefined;
    worker.on('message', (m: ThreadMessage) => {
      switch (m.t) {
        case 'log':
          logger[m.level](m.obj, m.msg);
          return;
        case 'ready':
          server = new ThreadApiServer(worker, m.state);
          resolve(server);
          return;
        case 'failed':
          void worker.terminate();
          reject(toError(m.error));
          return;
        case 'reply':
          server?.settle(m);
          return;
      }
    });
    worker.on('error', (err) => {
      // An uncaught error in the API server: fatal, as it would be on one thread.
      if (!server) {
        reject(err);
        return;
      }
      logger.error({ err }, 'the embedded API server failed; stopping');
      server.gone(err);
      process.nextTick(() => {
        throw err;
      });
    });
    worker.on('exit', (code) => {
      const reason = new Error(`the API server thread exited (code ${code})`);
      if (!server) {
        reject(reason);
        return;
      }
      if (!server.stopRequested && code !== 0) logger.error({ code }, 'the embedded API server thread exited unexpectedly');
      server.gone(reason);
    });
  });
}
