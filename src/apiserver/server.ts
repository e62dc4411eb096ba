// The embedded API server: one loopback HTTP listener serving many virtual clusters under /clusters/NAME, each
// with its own bearer token, state (durable in DIR/state.db) and controllers; DIR/kubeconfig has one context each.
import { randomBytes } from 'node:crypto';
import { chmodSync, existsSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { rename, writeFile } from 'node:fs/promises';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { createServer as createHttpsServer, type Server as HttpsServer } from 'node:https';
import { DEFAULT_CIPHERS } from 'node:tls';
import { createServer as createNetServer, type AddressInfo, type Server as NetServer, type Socket } from 'node:net';
import { generateServingCertificate, type ServingCertificate } from './certificate.js';
import { join } from 'node:path';
import { ParsedCache } from './parsed.js';
import { WindowBudget } from './watch.js';
import { Cluster, DEFAULT_CLUSTER_LIMITS, type ClusterLimits, type Logger, type ServerContext } from './cluster.js';
import { Controllers } from './controllers.js';
import { ClusterAuth } from './auth/cluster-auth.js';
import { setRequestUser } from './auth/lookup.js';
import { CRD_STORAGE, watchCrds } from './crd.js';
import { DATA_FILE_MODE, prepareDataDir } from './data-dir.js';
import { OpenAPICache } from './discovery.js';
import { ClusterHandler, type HttpWatcher } from './handlers.js';
import { sendStatus } from './http.js';
import { BUILTIN_DESCRIPTORS } from './kinds/builtins.js';
import { DEFAULT_LB_POOL, LoadBalancer } from './loadbalancer.js';
import { ensureNode, nodeLabelsOf, nodeNameOf, RootCAPublisher, ServiceAccountTokens } from './node.js';
import { VolumeBinder } from './volumes.js';
import { WorkloadSimulator } from './workloads.js';
import { create, internalWrite, scopeFor } from './registry.js';
import { notFound, pathNotFound, unauthorized } from './status.js';
import { Store, type Durability } from './store.js';
import type { KubeObject, ObjectMeta } from './types.js';
import { isDNS1123Label } from './validation.js';
import { asRecord } from './printers.js';

/** ApiServerOptions configures startApiServer. */
export interface ApiServerOptions {
  /** Directory for state.db and kubeconfig (created when missing). */
  dataDir: string;
  /** TCP port on 127.0.0.1; 0 or undefined: the port used last time in this data dir if free, else a random one. */
  port?: number;
  /** Clusters to create if they do not exist yet (existing ones are always served). */
  clusters?: string[];
  /** Clusters that get the load-balancer simulator, with an optional address pool. */
  loadBalancer?: { cluster: string; pool?: string[] }[];
  logger?: Logger;
  /** 'process' (default): acknowledged writes survive a killed process; 'power': they also survive power loss (the
   * WAL is fsynced before answering, off the event loop, shared by all writes committed meanwhile). */
  durability?: Durability;
  /** Simulators every cluster runs (default none; `ripple up` runs them all): see SIMULATORS. */
  simulators?: Simulator[];
  /** Events kept per cluster for watches resuming from a resourceVersion (default 10,000). */
  watchWindow?: number;
  /** Bytes of object JSON kept per cluster for such watches (default 32 MiB); whichever bound is hit first wins. */
  watchWindowBytes?: number;
  /** Bytes of object JSON all clusters' windows keep together (default DEFAULT_WATCH_WINDOWS_TOTAL_BYTES, 64 MiB). */
  watchWindowsTotalBytes?: number;
  /** Also serve plain HTTP on the port (default false: a plain request gets 400, as Go's TLS servers answer, and no
   * data; bearer tokens must not cross even loopback in clear text). Tests that check raw bodies switch it on. */
  plainHttp?: boolean;
  /** Per-virtual-cluster limits (objects, bytes, request bodies, nesting); unset ones keep DEFAULT_CLUSTER_LIMITS. */
  limits?: Partial<ClusterLimits>;
  /** JSON characters of cold objects kept parsed besides their text, all clusters together (parsed.ts; default
   * DEFAULT_PARSED_CACHE_BYTES). */
  parsedCacheBytes?: number;
}

/** SIMULATORS are the controllers a real cluster would run and an embedded one can simulate: workloads (Deployments,
 * ReplicaSets, StatefulSets, DaemonSets, Jobs and CronJobs get Pods that run and report ready), volumes (claims bind to
 * provisioned volumes), node (one Ready Node), rootca (kube-root-ca.crt in every namespace) and tokens (service account
 * token Secrets get their token, ca.crt and namespace). */
export const SIMULATORS = ['workloads', 'volumes', 'node', 'rootca', 'tokens'] as const;
/** Simulator names one of SIMULATORS. */
export type Simulator = (typeof SIMULATORS)[number];

/** parseSimulators reads a --simulate value: "all", "none" or a comma-separated list of SIMULATORS; throws on others. */
export function parseSimulators(text: string): Simulator[] {
  const v = text.trim();
  if (v === 'all') return [...SIMULATORS];
  if (v === 'none' || v === '') return [];
  const names = v.split(',').map((x) => x.trim());
  for (const n of names) if (!(SIMULATORS as readonly string[]).includes(n)) throw new Error(`unknown simulator ${JSON.stringify(n)}; simulators: ${SIMULATORS.join(', ')} (or all, none)`);
  return names as Simulator[];
}

/** ClusterInfo is how a client reaches one virtual cluster. */
export interface ClusterInfo {
  name: string;
  /** HTTPS server URL (what the kubeconfig holds). */
  server: string;
  /** The same cluster over plain HTTP (answers only when the server was started with plainHttp). */
  httpServer: string;
  token: string;
}

/** KubeConfig is a kubeconfig document (apiVersion v1, kind Config). */
export interface KubeConfig {
  apiVersion: 'v1';
  kind: 'Config';
  clusters: { name: string; cluster: { server: string; 'certificate-authority-data': string } }[];
  contexts: { name: string; context: { cluster: string; user: string } }[];
  users: { name: string; user: { token: string } }[];
  'current-context': string;
  preferences: Record<string, never>;
}

/** ApiServer is a running embedded API server. */
export interface ApiServer {
  /** Base HTTPS URL of the listener, e.g. https://127.0.0.1:41234 (clusters live under /clusters/NAME). The same
   * port also speaks plain HTTP (see httpUrl); kubeconfigs use HTTPS because client-go sends tokens only over TLS. */
  readonly url: string;
  /** Base plain-HTTP URL of the same listener. */
  readonly httpUrl: string;
  /** PEM of the self-signed serving certificate (also the CA in the kubeconfig). */
  readonly caCertificate: string;
  readonly port: number;
  readonly dataDir: string;
  /** Path of the kubeconfig with one context per cluster. */
  readonly kubeconfigPath: string;
  /** A Unix socket in the data directory (mode 0600) serving the same clusters over plain HTTP, for clients in this
   * process (src/kube's local endpoints): no TLS and no TCP stack on every request. Undefined when the path would
   * be too long for a socket. Bearer tokens are still required. */
  readonly socketPath: string | undefined;
  /** clusters lists the served cluster names. */
  clusters(): string[];
  /** cluster returns the server URL and token of one cluster. */
  cluster(name: string): ClusterInfo;
  /** addCluster creates (or returns) a cluster and rewrites the kubeconfig. */
  addCluster(name: string): Promise<ClusterInfo>;
  /** kubeconfig returns the kubeconfig of one cluster, or of all clusters (current context: the first). */
  kubeconfig(name?: string): KubeConfig;
  /** kubeconfigYaml is kubeconfig() rendered as YAML. */
  kubeconfigYaml(name?: string): string;
  /** enableLoadBalancer switches the load-balancer simulator on for a cluster (persisted). */
  enableLoadBalancer(cluster: string, pool?: string[]): Promise<void>;
  /** requestCounts returns how many requests each cluster has received since start (a watch counts once, when
   * opened), and the total including requests outside /clusters. Idle tests read it: a settled fleet sends none. */
  requestCounts(): Promise<RequestCounts>;
  /** stop closes watches and connections, commits what is pending and closes the database. */
  stop(): Promise<void>;
  /** A server on a thread of its own (startApiServerThread) can profile that thread: the process' inspector sees
   * only the thread it runs on. Absent on a server sharing the caller's thread. */
  startCpuProfile?(interval?: number, kind?: 'cpu' | 'alloc'): Promise<void>;
  stopCpuProfile?(): Promise<object | undefined>;
  /** The same server's heap, read on its own thread (process.memoryUsage() there sees only the caller's heap), and a
   * heap snapshot of that thread written to a file (diagnostics: the fleet bench). */
  threadMemory?(collect?: boolean): Promise<ThreadMemory>;
  /** threadCpuMs (a server on its own thread): that thread's CPU time in ms, read there (Linux; else undefined). */
  threadCpuMs?(): Promise<number | undefined>;
  writeHeapSnapshot?(file: string): Promise<string>;
}

/** ThreadMemory is the API server thread's V8 heap in bytes (v8.getHeapStatistics() read on that thread; with
 * `collect`, after a full garbage collection, so heapUsed is what is live). */
export interface ThreadMemory {
  heapUsed: number;
  heapTotal: number;
  external: number;
  /** The old generation's limit (resourceLimits.maxOldGenerationSizeMb, or V8's default). */
  heapLimit: number;
  /** Cold objects parsed again from their JSON so far (parsed.ts), their characters and the time it took. */
  reparses?: { count: number; chars: number; ms: number };
}

/** RequestCounts is what ApiServer.requestCounts returns. */
export interface RequestCounts {
  total: number;
  byCluster: Record<string, number>;
}

const NOOP_LOGGER: Logger = { info() {}, warn() {}, error() {}, debug() {} };
const SYSTEM_NAMESPACES = ['default', 'kube-system', 'kube-public', 'kube-node-lease'];
const BOOTSTRAP_MANAGER = 'kube-apiserver';

interface ClusterConfig {
  loadBalancer?: { pool: string[] };
}

interface Entry {
  cluster: Cluster;
  auth: ClusterAuth;
  handler: ClusterHandler;
  controllers: Controllers;
  lb?: LoadBalancer;
  simulators: { stop(): void }[];
  config: ClusterConfig;
  created: string;
}

/** validateClusterName checks a virtual cluster name (a DNS-1123 label: it is a path segment and a context name). */
export function validateClusterName(name: string): string | undefined {
  const errs = isDNS1123Label(name);
  return errs.length > 0 ? `invalid cluster name ${JSON.stringify(name)}: ${errs.join('; ')}` : undefined;
}

class EmbeddedApiServer implements ApiServer {
  private readonly entries = new Map<string, Entry>();
  private readonly watchers = new Set<HttpWatcher>();
  private readonly ctx: ServerContext;
  private rv: number;
  private http!: Server;
  private https!: HttpsServer;
  private listener!: NetServer;
  private local: NetServer | undefined;
  socketPath: string | undefined;
  private readonly sockets = new Set<Socket>();
  readonly caCertificate: string;
  private readonly tlsKey: string;
  port = 0;
  readonly kubeconfigPath: string;
  private stopped = false;
  private kubeconfigWrite: Promise<void> | undefined;
  private kubeconfigDirty = false;
  private kubeconfigSeq = 0;
  private requestsTotal = 0;
  private readonly requestsByCluster = new Map<string, number>();
  /** simulators run in every cluster (set before load). */
  simulators: readonly Simulator[] = [];

  constructor(
    readonly dataDir: string,
    private readonly store: Store,
    private readonly logger: Logger,
    watchWindow: number,
    watchWindowBytes: number | undefined,
    private readonly plainHttp: boolean,
    limits: ClusterLimits,
    parsedCacheBytes?: number,
    watchWindowsTotalBytes?: number,
  ) {
    this.kubeconfigPath = join(dataDir, 'kubeconfig');
    const tls = loadOrCreateCertificate(dataDir);
    this.caCertificate = tls.cert;
    this.tlsKey = tls.key;
    this.rv = store.lastResourceVersion;
    this.ctx = {
      store,
      nextRv: () => ++this.rv,
      currentRv: () => this.rv,
      now: () => new Date(),
      logger,
      watchWindow,
      watchWindowBytes,
      limits,
      parsedCache: new ParsedCache(parsedCacheBytes),
      watchWindows: new WindowBudget(watchWindowsTotalBytes),
    };
  }

  get url(): string {
    return `https://127.0.0.1:${this.port}`;
  }

  get httpUrl(): string {
    return `http://127.0.0.1:${this.port}`;
  }

  clusters(): string[] {
    return [...this.entries.keys()];
  }

  cluster(name: string): ClusterInfo {
    const e = this.entries.get(name);
    if (!e) throw new Error(`no cluster named ${JSON.stringify(name)}`);
    return { name, server: `${this.url}/clusters/${name}`, httpServer: `${this.httpUrl}/clusters/${name}`, token: e.cluster.token };
  }

  /** load restores every persisted cluster. */
  load(): void {
    for (const row of this.store.clusters()) {
      const config = JSON.parse(row.config) as ClusterConfig;
      const cluster = new Cluster(row.name, row.token, this.ctx, BUILTIN_DESCRIPTORS);
      const rows = this.store.objects(row.name);
      // CRDs first, so their resources are registered before their instances load.
      rows.sort((a, b) => Number(b.resource === CRD_STORAGE) - Number(a.resource === CRD_STORAGE));
      for (const r of rows) {
        const obj = JSON.parse(r.data) as KubeObject & { metadata: ObjectMeta };
        cluster.load(r.resource, obj, r.rv, r.data);
      }
      this.rebuildAllocations(cluster);
      this.install(cluster, config, row.created);
    }
  }

  // Allocations are derived from the stored Services (like kube's repair controllers).
  private rebuildAllocations(cluster: Cluster): void {
    const ips = cluster.allocator('serviceIPs');
    const ports = cluster.allocator('nodePorts');
    for (const s of cluster.table('/services').objects.values()) {
      const owner = `${s.obj.metadata.namespace}/${s.obj.metadata.name}`;
      const spec = asRecord(s.obj.spec);
      if (typeof spec.clusterIP === 'string' && spec.clusterIP !== 'None') ips.allocateSpecific(spec.clusterIP, owner);
      for (const p of Array.isArray(spec.ports) ? spec.ports : []) {
        const np = asRecord(p).nodePort;
        if (typeof np === 'number' && np > 0) ports.allocateSpecific(String(np), owner);
      }
      if (typeof spec.healthCheckNodePort === 'number') ports.allocateSpecific(String(spec.healthCheckNodePort), owner);
    }
  }

  private install(cluster: Cluster, config: ClusterConfig, created: string): Entry {
    const prefix = `/clusters/${cluster.name}`;
    watchCrds(cluster, (desc) => {
      for (const sub of cluster.hub.subscribersOf(desc.storage)) sub.close();
    });
    const openapi = new OpenAPICache(cluster);
    const auth = new ClusterAuth(cluster, this.logger);
    const handler = new ClusterHandler(cluster, { prefix, hostPort: () => `127.0.0.1:${this.port}`, openapi, watchers: this.watchers, auth });
    const controllers = new Controllers(cluster, this.logger);
    const entry: Entry = { cluster, auth, handler, controllers, config, created, simulators: [] };
    if (config.loadBalancer) entry.lb = new LoadBalancer(cluster, config.loadBalancer.pool, this.logger);
    this.entries.set(cluster.name, entry);
    controllers.start();
    auth.start();
    this.startSimulators(entry);
    return entry;
  }

  private startSimulators(e: Entry): void {
    const on = new Set(this.simulators);
    const { cluster } = e;
    if (on.has('workloads')) e.simulators.push(new WorkloadSimulator(cluster, { nodeName: nodeNameOf(cluster.name), nodeLabels: nodeLabelsOf(cluster.name), logger: this.logger }));
    if (on.has('volumes')) e.simulators.push(new VolumeBinder(cluster, this.logger));
    if (on.has('rootca')) e.simulators.push(new RootCAPublisher(cluster, this.caCertificate, this.logger));
    if (on.has('tokens')) e.simulators.push(new ServiceAccountTokens(cluster, this.caCertificate, this.logger));
    if (on.has('node')) ensureNode(cluster);
  }

  private persistCluster(e: Entry): void {
    this.store.write({ op: 'cluster', row: { name: e.cluster.name, token: e.cluster.token, created: e.created, config: JSON.stringify(e.config) } });
  }

  async addCluster(name: string): Promise<ClusterInfo> {
    const existing = this.entries.get(name);
    if (existing) return this.cluster(name);
    const bad = validateClusterName(name);
    if (bad) throw new Error(bad);
    const cluster = new Cluster(name, randomBytes(24).toString('hex'), this.ctx, BUILTIN_DESCRIPTORS);
    const e = this.install(cluster, {}, new Date().toISOString());
    this.persistCluster(e);
    this.bootstrap(cluster);
    await this.store.committed();
    await this.writeKubeconfig();
    return this.cluster(name);
  }

  // What a fresh kube-apiserver creates: the system namespaces and the kubernetes Service.
  private bootstrap(cluster: Cluster): void {
    const o = internalWrite(BOOTSTRAP_MANAGER);
    const nsDesc = cluster.registry.lookup('', 'v1', 'namespaces')!;
    for (const ns of SYSTEM_NAMESPACES) {
      if (cluster.get('/namespaces', '', ns)) continue;
      create(scopeFor(cluster, nsDesc, ''), { apiVersion: 'v1', kind: 'Namespace', metadata: { name: ns } }, o);
    }
    const svcDesc = cluster.registry.lookup('', 'v1', 'services')!;
    if (!cluster.get('/services', 'default', 'kubernetes')) {
      create(scopeFor(cluster, svcDesc, 'default'), {
        apiVersion: 'v1',
        kind: 'Service',
        metadata: { name: 'kubernetes', namespace: 'default', labels: { component: 'apiserver', provider: 'kubernetes' } },
        spec: { clusterIP: '10.96.0.1', ports: [{ name: 'https', port: 443, protocol: 'TCP', targetPort: 6443 }], sessionAffinity: 'None', type: 'ClusterIP' },
      }, o);
    }
  }

  async enableLoadBalancer(name: string, pool?: string[]): Promise<void> {
    const e = this.entries.get(name);
    if (!e) throw new Error(`no cluster named ${JSON.stringify(name)}`);
    const addresses = pool && pool.length > 0 ? pool : DEFAULT_LB_POOL;
    e.lb?.stop();
    e.lb = new LoadBalancer(e.cluster, addresses, this.logger);
    e.config = { ...e.config, loadBalancer: { pool: addresses } };
    this.persistCluster(e);
    await this.store.committed();
  }

  kubeconfig(name?: string): KubeConfig {
    const names = name ? [name] : this.clusters();
    for (const n of names) if (!this.entries.has(n)) throw new Error(`no cluster named ${JSON.stringify(n)}`);
    return buildKubeconfig(names.map((n) => this.cluster(n)), this.caCertificate);
  }

  kubeconfigYaml(name?: string): string {
    return kubeconfigToYaml(this.kubeconfig(name));
  }

  /** writeKubeconfig rewrites DIR/kubeconfig atomically (mode 0600: it holds tokens) and resolves once a write that
   * started after the call is done. Writes run off the event loop (replacing a file can wait on the disk) and
   * concurrent callers share one. */
  async writeKubeconfig(): Promise<void> {
    this.kubeconfigDirty = true;
    while (this.kubeconfigWrite) await this.kubeconfigWrite;
    if (!this.kubeconfigDirty) return;
    this.kubeconfigDirty = false;
    const tmp = `${this.kubeconfigPath}.tmp-${process.pid}-${++this.kubeconfigSeq}`;
    const text = this.kubeconfigYaml();
    this.kubeconfigWrite = (async () => {
      await writeFile(tmp, text, { mode: 0o600 });
      await rename(tmp, this.kubeconfigPath);
    })().finally(() => (this.kubeconfigWrite = undefined));
    await this.kubeconfigWrite;
  }

  /** listen starts the listener (trying the preferred port first). One port speaks both HTTP and HTTPS: the first
   * byte of a connection tells a TLS handshake (0x16) from a plain request. */
  async listen(preferred: number | undefined): Promise<void> {
    const handler = (req: IncomingMessage, res: ServerResponse) => this.serve(req, res);
    this.http = createServer({ keepAlive: true, noDelay: true }, handler);
    // AES-128-GCM first: on loopback the cipher is the per-request cost that matters.
    this.https = createHttpsServer(
      { key: this.tlsKey, cert: this.caCertificate, keepAlive: true, noDelay: true, ciphers: `TLS_AES_128_GCM_SHA256:${DEFAULT_CIPHERS}`, honorCipherOrder: true },
      handler,
    );
    for (const srv of [this.http, this.https]) {
      srv.keepAliveTimeout = 60_000;
      srv.headersTimeout = 65_000;
      srv.requestTimeout = 0;
    }
    this.listener = createNetServer({ noDelay: true, pauseOnConnect: false }, (socket) => {
      this.sockets.add(socket);
      socket.on('close', () => this.sockets.delete(socket));
      socket.on('error', () => socket.destroy());
      socket.once('data', (chunk: Buffer) => {
        socket.pause();
        if (chunk[0] !== 0x16 && !this.plainHttp) {
          // Go: net/http server.go answers a plain request on a TLS port this way; nothing of the request is read.
          socket.end('HTTP/1.0 400 Bad Request\r\n\r\nClient sent an HTTP request to an HTTPS server.\n');
          return;
        }
        socket.unshift(chunk);
        (chunk[0] === 0x16 ? this.https : this.http).emit('connection', socket);
        process.nextTick(() => socket.resume());
      });
    });
    const tryListen = (port: number) =>
      new Promise<void>((resolve, reject) => {
        const onError = (e: Error) => {
          this.listener.off('listening', onListening);
          reject(e);
        };
        const onListening = () => {
          this.listener.off('error', onError);
          resolve();
        };
        this.listener.once('error', onError);
        this.listener.once('listening', onListening);
        this.listener.listen(port, '127.0.0.1');
      });
    const remembered = Number(this.store.getMeta('port') ?? 0);
    const first = preferred || remembered;
    try {
      await tryListen(first);
    } catch (e) {
      if (preferred || (e as NodeJS.ErrnoException).code !== 'EADDRINUSE') throw e;
      await tryListen(0);
    }
    this.port = (this.listener.address() as AddressInfo).port;
    this.store.setMeta('port', String(this.port));
    await this.listenLocal();
  }

  /** listenLocal serves plain HTTP on DIR/api.sock (see ApiServer.socketPath); one process per data directory owns it. */
  private async listenLocal(): Promise<void> {
    const path = join(this.dataDir, 'api.sock');
    // sun_path holds 107 bytes on Linux (103 on macOS): a deeper data directory goes without the socket.
    if (Buffer.byteLength(path) > 100) {
      this.logger.debug({ path }, 'data directory path too long for a Unix socket; in-process clients use TCP');
      return;
    }
    rmSync(path, { force: true });
    const local = createNetServer({ noDelay: true }, (socket) => {
      this.sockets.add(socket);
      socket.on('close', () => this.sockets.delete(socket));
      socket.on('error', () => socket.destroy());
      this.http.emit('connection', socket);
    });
    await new Promise<void>((resolve, reject) => {
      local.once('error', reject);
      local.listen(path, () => {
        local.off('error', reject);
        resolve();
      });
    });
    chmodSync(path, DATA_FILE_MODE);
    this.local = local;
    this.socketPath = path;
  }

  async requestCounts(): Promise<RequestCounts> {
    return { total: this.requestsTotal, byCluster: Object.fromEntries(this.requestsByCluster) };
  }

  private serve(req: IncomingMessage, res: ServerResponse): void {
    this.requestsTotal++;
    let url: URL;
    try {
      url = new URL(req.url ?? '/', 'http://127.0.0.1');
    } catch {
      sendStatus(res, pathNotFound().status);
      return;
    }
    const m = /^\/clusters\/([^/]+)(\/.*)?$/.exec(url.pathname);
    if (!m) {
      if (url.pathname === '/healthz' || url.pathname === '/livez' || url.pathname === '/readyz') {
        res.writeHead(200, { 'Content-Type': 'text/plain; charset=utf-8' });
        res.end('ok');
        return;
      }
      sendStatus(res, pathNotFound().status);
      return;
    }
    this.requestsByCluster.set(m[1], (this.requestsByCluster.get(m[1]) ?? 0) + 1);
    const e = this.entries.get(m[1]);
    if (!e || this.stopped) {
      sendStatus(res, notFound({ group: '', resource: 'clusters' }, m[1]).status);
      return;
    }
    const user = e.auth.authenticate(req);
    if (!user) {
      req.resume();
      sendStatus(res, unauthorized().status);
      return;
    }
    setRequestUser(req, user);
    void e.handler.handle(req, res, m[2] ?? '/', url);
  }

  async stop(): Promise<void> {
    if (this.stopped) return;
    this.stopped = true;
    for (const w of [...this.watchers]) w.close();
    for (const e of this.entries.values()) {
      e.controllers.stop();
      e.auth.stop();
      e.lb?.stop();
      for (const sim of e.simulators) sim.stop();
    }
    while (this.kubeconfigWrite) await this.kubeconfigWrite.catch(() => undefined);
    // close() waits for open connections: both listeners stop accepting, then every socket (TCP or local) is destroyed.
    const closing = [this.local, this.listener].filter((l): l is NetServer => l !== undefined).map((l) => new Promise<void>((resolve) => l.close(() => resolve())));
    for (const s of this.sockets) s.destroy();
    await Promise.all(closing);
    this.store.close();
  }
}

/** buildKubeconfig is the kubeconfig of the given clusters (one context each, current: the first). */
export function buildKubeconfig(infos: ClusterInfo[], caCertificate: string): KubeConfig {
  const ca = Buffer.from(caCertificate).toString('base64');
  return {
    apiVersion: 'v1',
    kind: 'Config',
    clusters: infos.map((c) => ({ name: c.name, cluster: { server: c.server, 'certificate-authority-data': ca } })),
    contexts: infos.map((c) => ({ name: c.name, context: { cluster: c.name, user: c.name } })),
    users: infos.map((c) => ({ name: c.name, user: { token: c.token } })),
    'current-context': infos[0]?.name ?? '',
    preferences: {},
  };
}

// kubeconfigToYaml renders a kubeconfig without a YAML library: the structure is fixed and every value is a string,
// written as a JSON-quoted (hence valid YAML) scalar. A thousand clusters stay cheap to rewrite.
export function kubeconfigToYaml(kc: KubeConfig): string {
  const q = JSON.stringify;
  const lines = ['apiVersion: v1', 'kind: Config', 'clusters:'];
  for (const c of kc.clusters) {
    lines.push(`- name: ${q(c.name)}`, '  cluster:', `    server: ${q(c.cluster.server)}`, `    certificate-authority-data: ${q(c.cluster['certificate-authority-data'])}`);
  }
  lines.push('contexts:');
  for (const c of kc.contexts) lines.push(`- name: ${q(c.name)}`, '  context:', `    cluster: ${q(c.context.cluster)}`, `    user: ${q(c.context.user)}`);
  lines.push('users:');
  for (const u of kc.users) lines.push(`- name: ${q(u.name)}`, '  user:', `    token: ${q(u.user.token)}`);
  lines.push(`current-context: ${q(kc['current-context'])}`, 'preferences: {}', '');
  return lines.join('\n');
}

// The serving certificate lives in the data directory so kubeconfigs stay valid across restarts.
function loadOrCreateCertificate(dataDir: string): ServingCertificate {
  const certPath = join(dataDir, 'tls.crt');
  const keyPath = join(dataDir, 'tls.key');
  if (existsSync(certPath) && existsSync(keyPath)) return { cert: readFileSync(certPath, 'utf8'), key: readFileSync(keyPath, 'utf8') };
  const c = generateServingCertificate();
  writeFileSync(keyPath, c.key, { mode: DATA_FILE_MODE });
  writeFileSync(certPath, c.cert, { mode: DATA_FILE_MODE });
  return c;
}

/** startApiServer opens (or creates) the data directory, restores its clusters and starts serving. */
export async function startApiServer(o: ApiServerOptions): Promise<ApiServer> {
  for (const c of o.clusters ?? []) {
    const bad = validateClusterName(c);
    if (bad) throw new Error(bad);
  }
  const logger = o.logger ?? NOOP_LOGGER;
  // state.db exists (0600) before SQLite opens it: its WAL and SHM inherit that mode.
  for (const w of prepareDataDir(o.dataDir, ['state.db'])) logger.warn({ dataDir: o.dataDir }, w);
  const store = new Store(join(o.dataDir, 'state.db'), o.durability ?? 'process');
  const server = new EmbeddedApiServer(o.dataDir, store, logger, o.watchWindow ?? 10_000, o.watchWindowBytes, o.plainHttp ?? false, { ...DEFAULT_CLUSTER_LIMITS, ...o.limits }, o.parsedCacheBytes, o.watchWindowsTotalBytes);
  server.simulators = o.simulators ?? [];
  try {
    server.load();
    await server.listen(o.port);
    for (const c of o.clusters ?? []) await server.addCluster(c);
    for (const lb of o.loadBalancer ?? []) {
      if (!server.clusters().includes(lb.cluster)) await server.addCluster(lb.cluster);
      await server.enableLoadBalancer(lb.cluster, lb.pool);
    }
    await server.writeKubeconfig();
  } catch (e) {
    await server.stop().catch(() => store.close());
    throw e;
  }
  return server;
}
