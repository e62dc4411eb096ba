// fleet-harness: what the fleet bench (fleet.bench.ts) observes and drives — `ripple up`'s embedded environment with
// N managed clusters, the objects of the scenario (an EventSource selecting labelled Services, an instantiated
// ConfigMap add-on, a per-resource EventTrigger), one ConfigMap informer per managed cluster that records every
// add-on as it lands and wakes whoever waits for it, stage probes on the management cluster (EventReport,
// instantiated ConfigMap, ClusterProfile) that split one event's latency by component, and a memory sampler.
// Only the bench uses it; nothing here is part of Ripple's API.
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { Session } from 'node:inspector/promises';
import { tmpdir } from 'node:os';
import { setFlagsFromString, writeHeapSnapshot } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { join } from 'node:path';
import { InformerFactory, errorMessage, type KubeClient, type KubeObject, type Subscription, type Watch } from '../kube/index.js';
import { startEmbedded, type ApiServerThread, type Embedded } from './embedded.js';

/** BENCH_NS is the namespace of the churning Services and of their add-ons in every managed cluster. */
export const BENCH_NS = 'bench';
/** ADDON_SUFFIX ends the name of every add-on ConfigMap (`<service>-addon`). */
export const ADDON_SUFFIX = '-addon';

const CM = { apiVersion: 'v1', kind: 'ConfigMap' } as const;
const SVC = { apiVersion: 'v1', kind: 'Service' } as const;
const ER = { apiVersion: 'lib.projectsveltos.io/v1beta1', kind: 'EventReport' } as const;
const CP = { apiVersion: 'config.projectsveltos.io/v1beta1', kind: 'ClusterProfile' } as const;
const LABEL_CLUSTER = 'eventtrigger.lib.projectsveltos.io/clustername';
const LABEL_RESOURCE = 'eventtrigger.lib.projectsveltos.io/resourcename';

// The add-on: a ConfigMap per Service, in the Service's namespace, carrying its first port. Rendered by the event
// manager with the event's data (`projectsveltos.io/instantiate`, Sveltos ≥ v0.37 semantics), then deployed by the
// add-on deployer into the cluster where the Service lives.
const ADDON_TEMPLATE = `apiVersion: v1
kind: ConfigMap
metadata:
  name: {{ .Resource.metadata.name }}${ADDON_SUFFIX}
  namespace: {{ .Resource.metadata.namespace }}
data:
  service: {{ .Resource.metadata.name }}
  port: "{{ (index .Resource.spec.ports 0).port }}"
`;

/** scenarioObjects returns the management-cluster objects of the bench: policy ConfigMap, EventSource, EventTrigger. */
export function scenarioObjects(): KubeObject[] {
  return [
    {
      ...CM,
      metadata: { namespace: 'default', name: 'bench-addon', annotations: { 'projectsveltos.io/instantiate': 'true' } },
      data: { 'addon.yaml': ADDON_TEMPLATE },
    } as KubeObject,
    {
      apiVersion: 'lib.projectsveltos.io/v1beta1',
      kind: 'EventSource',
      metadata: { name: 'bench-services' },
      spec: {
        collectResources: true,
        resourceSelectors: [{ group: '', version: 'v1', kind: 'Service', namespace: BENCH_NS, labelFilters: [{ key: 'bench', operation: 'Equal', value: 'yes' }] }],
      },
    } as KubeObject,
    {
      apiVersion: 'lib.projectsveltos.io/v1beta1',
      kind: 'EventTrigger',
      metadata: { name: 'bench-addons' },
      spec: {
        sourceClusterSelector: { matchLabels: { env: 'bench' } },
        eventSourceName: 'bench-services',
        oneForEvent: true,
        policyRefs: [{ kind: 'ConfigMap', namespace: 'default', name: 'bench-addon' }],
      },
    } as KubeObject,
  ];
}

/** serviceObject is a Service the EventSource selects, with one port. */
export function serviceObject(name: string, port: number): KubeObject {
  return {
    ...SVC,
    metadata: { namespace: BENCH_NS, name, labels: { bench: 'yes' } },
    spec: { type: 'ClusterIP', ports: [{ name: 'http', port, protocol: 'TCP' }] },
  } as KubeObject;
}

/** Observed is the moment (performance.now()) a waited-for state was seen, or undefined after the timeout. */
export type Observed = number | undefined;

interface Waiter {
  ok: (port: string | undefined) => boolean;
  resolve: (t: Observed) => void;
  timer: NodeJS.Timeout;
}

/**
 * AddonObserver holds the add-on ConfigMaps (name → data.port) of every managed cluster as its informers deliver
 * them, and resolves waiters the moment a watch event makes their predicate true.
 */
export class AddonObserver {
  private readonly state = new Map<string, Map<string, string>>();
  private readonly waiters = new Map<string, Waiter>();
  private readonly factories: InformerFactory[] = [];
  private readonly subs: Subscription<KubeObject>[] = [];
  private total = 0;
  private countWaiter: { n: number; resolve: (t: Observed) => void; timer: NodeJS.Timeout } | undefined;

  /** watch starts observing one cluster's add-ons (a ConfigMap informer on the bench namespace). */
  watch(cluster: string, client: KubeClient): Promise<void> {
    const f = new InformerFactory(client);
    this.factories.push(f);
    const m = new Map<string, string>();
    this.state.set(cluster, m);
    const seen = (o: KubeObject) => {
      const name = o.metadata.name;
      if (!name.endsWith(ADDON_SUFFIX)) return;
      const port = (o as KubeObject & { data?: Record<string, string> }).data?.port ?? '';
      if (!m.has(name)) this.total++;
      m.set(name, port);
      this.changed(cluster, name, port);
    };
    const sub = f.subscribe<KubeObject>(
      { ...CM, namespace: BENCH_NS },
      {
        onAdd: seen,
        onUpdate: (_o, n) => seen(n),
        onDelete: (o) => {
          if (!m.delete(o.metadata.name)) return;
          this.total--;
          this.changed(cluster, o.metadata.name, undefined);
        },
      },
    );
    this.subs.push(sub);
    return sub.informer.waitForSync({ timeoutMs: 60_000 });
  }

  /** count is how many add-ons exist across the fleet. */
  count(): number {
    return this.total;
  }

  /** port returns the port an add-on currently carries (undefined: no such add-on). */
  port(cluster: string, service: string): string | undefined {
    return this.state.get(cluster)?.get(service + ADDON_SUFFIX);
  }

  /**
   * until resolves with the moment the add-on of (cluster, service) satisfies ok (its port, undefined when absent),
   * at once if it already does, or undefined after timeoutMs. One waiter per add-on at a time.
   */
  until(cluster: string, service: string, ok: (port: string | undefined) => boolean, timeoutMs: number): Promise<Observed> {
    const key = `${cluster}/${service}${ADDON_SUFFIX}`;
    if (ok(this.port(cluster, service))) return Promise.resolve(performance.now());
    if (this.waiters.has(key)) throw new Error(`bench bug: two waiters for ${key}`);
    return new Promise<Observed>((resolve) => {
      const timer = setTimeout(() => {
        this.waiters.delete(key);
        resolve(undefined);
      }, timeoutMs);
      this.waiters.set(key, { ok, resolve, timer });
    });
  }

  /** untilCount resolves when the fleet holds at least n add-ons, or with undefined after timeoutMs. */
  untilCount(n: number, timeoutMs: number): Promise<Observed> {
    if (this.total >= n) return Promise.resolve(performance.now());
    return new Promise<Observed>((resolve) => {
      const timer = setTimeout(() => {
        this.countWaiter = undefined;
        resolve(undefined);
      }, timeoutMs);
      this.countWaiter = { n, resolve, timer };
    });
  }

  private changed(cluster: string, name: string, port: string | undefined): void {
    const now = performance.now();
    const key = `${cluster}/${name}`;
    const w = this.waiters.get(key);
    if (w && w.ok(port)) {
      this.waiters.delete(key);
      clearTimeout(w.timer);
      w.resolve(now);
    }
    const c = this.countWaiter;
    if (c && this.total >= c.n) {
      this.countWaiter = undefined;
      clearTimeout(c.timer);
      c.resolve(now);
    }
  }

  /** stop ends every informer and releases pending waiters (as timed out). */
  async stop(): Promise<void> {
    for (const w of this.waiters.values()) {
      clearTimeout(w.timer);
      w.resolve(undefined);
    }
    this.waiters.clear();
    if (this.countWaiter) {
      clearTimeout(this.countWaiter.timer);
      this.countWaiter.resolve(undefined);
      this.countWaiter = undefined;
    }
    await Promise.all(this.subs.map((s) => s.unsubscribe()));
    await Promise.all(this.factories.map((f) => f.stop()));
  }
}

/** Stage names one hop of the event path as seen from the management cluster. */
export type Stage = 'report' | 'instantiated' | 'profile';

/**
 * StageProbes watch the management cluster (raw watches from the current resourceVersion: no cache, so they do not
 * inflate the measured memory) and record, for an armed key, the first moment each stage changed after arming:
 * `report` = the cluster's EventReport written by the agent, `instantiated` = the instantiated ConfigMap of
 * (cluster, resource) written by the event manager, `profile` = its ClusterProfile created or changed.
 */
export class StageProbes {
  private readonly watches: Watch[] = [];
  private readonly armed = new Map<string, number | undefined>();

  /** start opens the three watches. */
  static async start(mgmt: KubeClient, sveltosNamespace: string): Promise<StageProbes> {
    const p = new StageProbes();
    const none = 'ripple.dev/fleet-bench-none=x';
    const open = async (gvk: { apiVersion: string; kind: string }, namespace: string | undefined, key: (o: KubeObject) => string | undefined) => {
      const { resourceVersion } = await mgmt.list(gvk, { namespace, labelSelector: none });
      // Metadata only: the probe needs labels, and a full EventReport (~100 collected resources) per event would be
      // bench overhead counted in the CPU per event.
      const w = await mgmt.watch<KubeObject>(gvk, { namespace, resourceVersion, allowWatchBookmarks: false, metadataOnly: true }, (ev) => {
        if (ev.type === 'BOOKMARK') return;
        const k = key(ev.object);
        if (k !== undefined) p.hit(k);
      });
      // A probe whose stream ends only loses the stage breakdown; the latencies themselves come from AddonObserver.
      w.done.catch(() => undefined);
      p.watches.push(w);
    };
    await open(ER, undefined, (o) => `report:${o.metadata.labels?.['eventreport.projectsveltos.io/cluster-name'] ?? ''}`);
    const perResource = (stage: Stage) => (o: KubeObject) => {
      const l = o.metadata.labels ?? {};
      return l[LABEL_CLUSTER] && l[LABEL_RESOURCE] ? `${stage}:${l[LABEL_CLUSTER]}/${l[LABEL_RESOURCE]}` : undefined;
    };
    await open(CM, sveltosNamespace, perResource('instantiated'));
    await open(CP, undefined, perResource('profile'));
    return p;
  }

  /** arm starts recording the next change of each stage for (cluster, resource). */
  arm(cluster: string, resource: string): void {
    this.armed.clear();
    this.armed.set(`report:${cluster}`, undefined);
    this.armed.set(`instantiated:${cluster}/${resource}`, undefined);
    this.armed.set(`profile:${cluster}/${resource}`, undefined);
  }

  /** read returns when each armed stage first changed (undefined: not seen). */
  read(cluster: string, resource: string): Record<Stage, number | undefined> {
    return {
      report: this.armed.get(`report:${cluster}`),
      instantiated: this.armed.get(`instantiated:${cluster}/${resource}`),
      profile: this.armed.get(`profile:${cluster}/${resource}`),
    };
  }

  private hit(key: string): void {
    if (this.armed.has(key) && this.armed.get(key) === undefined) this.armed.set(key, performance.now());
  }

  /** stop closes the watches. */
  stop(): void {
    for (const w of this.watches) w.stop();
  }
}

/** ThreadHeap is what an API server on its own thread reports of its heap (ApiServer.threadMemory). */
interface ThreadHeap {
  threadMemory?(collect?: boolean): Promise<{ heapUsed: number; heapTotal: number; external: number; heapLimit: number; reparses?: { count: number; chars: number; ms: number } }>;
}

/** MemoryReading is one sample: the process (RSS is the whole process; heap and external are the main thread's) and,
 * with the API server on its own thread, that thread's heap. */
export interface MemoryReading {
  rssMiB: number;
  heapUsedMiB: number;
  heapTotalMiB: number;
  externalMiB: number;
  apiServerHeapUsedMiB?: number;
  apiServerHeapTotalMiB?: number;
  apiServerExternalMiB?: number;
  /** Cold objects the API server parsed again from their JSON since it started (count, characters, ms). */
  apiServerReparses?: { count: number; chars: number; ms: number };
  /** With `collect`: the heaps after a full GC of each thread (what is live; the fields above include garbage). */
  live?: { heapUsedMiB: number; apiServerHeapUsedMiB?: number };
}

/** fullGc runs a full garbage collection of this thread (the bench's live-heap readings). */
function fullGc(): void {
  setFlagsFromString('--expose-gc');
  (runInNewContext('gc') as () => void)();
}

const toMiB = (b: number) => Math.round(b / 2 ** 20);

/** MemorySampler records the process' peak RSS and heapUsed (and the API server thread's peak heapUsed when it runs
 * on a thread of its own), sampling every intervalMs. */
export class MemorySampler {
  peakRss = 0;
  peakHeap = 0;
  peakApiServerHeap = 0;
  /** The reading with the highest RSS (how the process' memory split then). */
  atPeakRss: MemoryReading | undefined;
  private apiServer: ThreadHeap | undefined;
  private readonly timer: NodeJS.Timeout;

  constructor(intervalMs = 200) {
    this.sample();
    this.timer = setInterval(() => void this.read().catch(() => undefined), intervalMs);
    this.timer.unref();
  }

  /** attach also samples the API server's own thread, when it has one. */
  attach(apiServer: ThreadHeap): void {
    this.apiServer = apiServer;
  }

  /** sample takes one reading of this thread and the process now and returns it. */
  sample(): NodeJS.MemoryUsage {
    const m = process.memoryUsage();
    this.peakRss = Math.max(this.peakRss, m.rss);
    this.peakHeap = Math.max(this.peakHeap, m.heapUsed);
    return m;
  }

  /** read takes one reading of the process, this thread and the API server's thread, in MiB; with collect, also the
   * live heaps after a full GC of both threads. */
  async read(collect = false): Promise<MemoryReading> {
    const t = this.apiServer?.threadMemory ? await this.apiServer.threadMemory() : undefined;
    const m = this.sample();
    const r: MemoryReading = { rssMiB: toMiB(m.rss), heapUsedMiB: toMiB(m.heapUsed), heapTotalMiB: toMiB(m.heapTotal), externalMiB: toMiB(m.external) };
    if (t) {
      this.peakApiServerHeap = Math.max(this.peakApiServerHeap, t.heapUsed);
      Object.assign(r, { apiServerHeapUsedMiB: toMiB(t.heapUsed), apiServerHeapTotalMiB: toMiB(t.heapTotal), apiServerExternalMiB: toMiB(t.external), apiServerReparses: t.reparses });
    }
    if (r.rssMiB >= (this.atPeakRss?.rssMiB ?? 0)) this.atPeakRss = r;
    if (collect) {
      fullGc();
      const lt = this.apiServer?.threadMemory ? await this.apiServer.threadMemory(true) : undefined;
      r.live = { heapUsedMiB: toMiB(process.memoryUsage().heapUsed), ...(lt ? { apiServerHeapUsedMiB: toMiB(lt.heapUsed) } : {}) };
    }
    return r;
  }

  /** peaks are the highest readings so far, in MiB. */
  peaks(): { rssMiB: number; heapUsedMiB: number; apiServerHeapUsedMiB?: number; atPeakRss?: MemoryReading } {
    const p = { rssMiB: toMiB(this.peakRss), heapUsedMiB: toMiB(this.peakHeap), atPeakRss: this.atPeakRss };
    return this.apiServer?.threadMemory ? { ...p, apiServerHeapUsedMiB: toMiB(this.peakApiServerHeap) } : p;
  }

  /** stop ends the sampling. */
  stop(): void {
    clearInterval(this.timer);
  }
}

/** writeHeapSnapshots writes a heap snapshot of this thread and of the API server's own thread (when it has one) to
 * DIR/NAME-main.heapsnapshot and DIR/NAME-apiserver.heapsnapshot, and returns the paths. */
export async function writeHeapSnapshots(dir: string, name: string, apiServer: { writeHeapSnapshot?(file: string): Promise<string> }): Promise<string[]> {
  mkdirSync(dir, { recursive: true });
  const files = [writeHeapSnapshot(join(dir, `${name}-main.heapsnapshot`))];
  if (apiServer.writeHeapSnapshot) files.push(await apiServer.writeHeapSnapshot(join(dir, `${name}-apiserver.heapsnapshot`)));
  return files;
}

interface ProfileNode {
  id: number;
  hitCount?: number;
  callFrame: { functionName: string; url: string };
  children?: number[];
}

/** HotSpot is one function's (file's, component's) share of the samples of a profiled phase, in percent. */
export interface HotSpot {
  fn: string;
  pct: number;
}

/**
 * PhaseProfile summarizes one phase's CPU profile: self time by function and by file, inclusive time of Ripple's
 * functions, and the share of samples with each src/ component on the stack (idle included in the total). With the
 * API server on its own thread, `apiServer` is the same summary of that thread's profile.
 */
export interface PhaseProfile extends ThreadProfile {
  apiServer?: ThreadProfile;
}

/** ThreadProfile summarizes one thread's profile (see PhaseProfile). */
export interface ThreadProfile {
  file: string;
  self: HotSpot[];
  selfByFile: HotSpot[];
  inclusive: HotSpot[];
  components: HotSpot[];
}

/** ThreadProfiling is what an API server on its own thread offers (ApiServer.startCpuProfile/stopCpuProfile). */
interface ThreadProfiling {
  startCpuProfile?(interval?: number, kind?: 'cpu' | 'alloc'): Promise<void>;
  stopCpuProfile?(): Promise<object | undefined>;
}

const SAMPLING_US = 500;

/**
 * PhaseProfiler takes a CPU profile of one bench phase through the inspector (same process, no restart) — of the
 * control plane's thread and, when the API server runs on a thread of its own, of that thread too — writes them as
 * DIR/<name>.cpuprofile and DIR/<name>-apiserver.cpuprofile (open them in Chrome DevTools) and summarizes where the
 * time went.
 */
export class PhaseProfiler {
  private session: Session | undefined;
  private threadProfiling = false;
  private apiServer: ThreadProfiling | undefined;

  /** kind 'alloc' takes allocation profiles instead (DIR/<name>.heapprofile): V8's sampling heap profiler, counting
   * the objects collected since as well, i.e. where each phase allocates, not what it keeps. */
  constructor(
    private readonly dir: string | undefined,
    private readonly kind: 'cpu' | 'alloc' = 'cpu',
  ) {}

  /** attach profiles the API server's own thread too, when it has one. */
  attach(apiServer: ThreadProfiling): void {
    this.apiServer = apiServer;
  }

  /** begin starts profiling (nothing when no directory was given). */
  async begin(): Promise<void> {
    if (!this.dir) return;
    mkdirSync(this.dir, { recursive: true });
    this.session = new Session();
    this.session.connect();
    if (this.kind === 'alloc') {
      await this.session.post('HeapProfiler.startSampling', { samplingInterval: ALLOC_SAMPLING_BYTES, includeObjectsCollectedByMajorGC: true, includeObjectsCollectedByMinorGC: true });
    } else {
      await this.session.post('Profiler.enable');
      await this.session.post('Profiler.setSamplingInterval', { interval: SAMPLING_US });
      await this.session.post('Profiler.start');
    }
    if (this.apiServer?.startCpuProfile) {
      await this.apiServer.startCpuProfile(this.kind === 'alloc' ? ALLOC_SAMPLING_BYTES : SAMPLING_US, this.kind);
      this.threadProfiling = true;
    }
  }

  /** end stops profiling, writes the profiles and returns the top self-time functions (undefined when off). */
  async end(name: string, top = 15): Promise<PhaseProfile | undefined> {
    const s = this.session;
    if (!s || !this.dir) return undefined;
    this.session = undefined;
    if (this.kind === 'alloc') return this.endAlloc(s, name, top);
    const { profile } = (await s.post('Profiler.stop')) as unknown as { profile: { nodes: ProfileNode[] } };
    await s.post('Profiler.disable');
    s.disconnect();
    const file = join(this.dir, `${name}.cpuprofile`);
    writeFileSync(file, JSON.stringify(profile));
    const result: PhaseProfile = summarizeProfile(profile, file, top);
    if (this.threadProfiling) {
      this.threadProfiling = false;
      const other = (await this.apiServer!.stopCpuProfile!()) as { nodes: ProfileNode[] } | undefined;
      if (other) {
        const otherFile = join(this.dir, `${name}-apiserver.cpuprofile`);
        writeFileSync(otherFile, JSON.stringify(other));
        result.apiServer = summarizeProfile(other, otherFile, top);
      }
    }
    return result;
  }

  private async endAlloc(s: Session, name: string, top: number): Promise<PhaseProfile> {
    const { profile } = (await s.post('HeapProfiler.stopSampling')) as unknown as { profile: HeapProfile };
    s.disconnect();
    const file = join(this.dir!, `${name}.heapprofile`);
    writeFileSync(file, JSON.stringify(profile));
    const result: PhaseProfile = summarizeProfile(heapProfileNodes(profile), file, top);
    if (this.threadProfiling) {
      this.threadProfiling = false;
      const other = (await this.apiServer!.stopCpuProfile!()) as HeapProfile | undefined;
      if (other) {
        const otherFile = join(this.dir!, `${name}-apiserver.heapprofile`);
        writeFileSync(otherFile, JSON.stringify(other));
        result.apiServer = summarizeProfile(heapProfileNodes(other), otherFile, top);
      }
    }
    return result;
  }
}

/** Bytes between allocation samples (V8's default is 32 KiB; smaller sees more of the small objects). */
const ALLOC_SAMPLING_BYTES = 8192;

/** HeapProfile is a sampling heap profile (HeapProfiler.stopSampling): a call tree with bytes allocated per node. */
interface HeapProfile {
  head: HeapProfileNode;
}
interface HeapProfileNode {
  id: number;
  callFrame: ProfileNode['callFrame'];
  selfSize: number;
  children: HeapProfileNode[];
}

/** heapProfileNodes flattens a heap profile into a CPU profile's shape, KiB allocated standing for samples, so one
 * summary ranks both. */
function heapProfileNodes(p: HeapProfile): { nodes: ProfileNode[] } {
  const nodes: ProfileNode[] = [];
  const walk = (n: HeapProfileNode) => {
    nodes.push({ id: n.id, callFrame: n.callFrame, hitCount: Math.round(n.selfSize / 1024), children: n.children.map((c) => c.id) });
    for (const c of n.children) walk(c);
  };
  walk(p.head);
  return { nodes };
}

/** summarizeProfile ranks a profile's samples (see PhaseProfile). */
function summarizeProfile(profile: { nodes: ProfileNode[] }, file: string, top: number): ThreadProfile {
  const where = (url: string) => url.replace(/^.*\/node_modules\//, '').replace(/^file:\/\/.*?\/src\//, 'src/').replace(/^file:\/\//, '');
  const parent = new Map<number, ProfileNode>();
  for (const n of profile.nodes) for (const c of n.children ?? []) parent.set(c, n);
  const self = new Map<string, number>();
  const files = new Map<string, number>();
  const inclusive = new Map<string, number>();
  const components = new Map<string, number>();
  let total = 0;
  for (const n of profile.nodes) {
    const h = n.hitCount ?? 0;
    if (h === 0) continue;
    total += h;
    const f = where(n.callFrame.url);
    const fn = n.callFrame.functionName || '(anonymous)';
    self.set(f ? `${fn} ${f}` : fn, (self.get(f ? `${fn} ${f}` : fn) ?? 0) + h);
    files.set(f || fn, (files.get(f || fn) ?? 0) + h);
    // Inclusive: every Ripple function and component on the sample's stack, once per sample.
    const fns = new Set<string>();
    const comps = new Set<string>();
    for (let cur: ProfileNode | undefined = n; cur; cur = parent.get(cur.id)) {
      const u = where(cur.callFrame.url);
      const m = /^src\/([^/]+)\//.exec(u);
      if (!m) continue;
      comps.add(m[1]);
      fns.add(`${cur.callFrame.functionName || '(anonymous)'} ${u}`);
    }
    for (const k of fns) inclusive.set(k, (inclusive.get(k) ?? 0) + h);
    for (const k of comps) components.set(k, (components.get(k) ?? 0) + h);
  }
  const rank = (m: Map<string, number>, k = top) =>
    [...m]
      .sort((a, b) => b[1] - a[1])
      .slice(0, k)
      .map(([fn, h]) => ({ fn, pct: Math.round((1000 * h) / Math.max(1, total)) / 10 }));
  return { file, self: rank(self), selfByFile: rank(files), inclusive: rank(inclusive, 25), components: rank(components, 20) };
}

/** apiServerThread reads RIPPLE_FLEET_BENCH_API_THREAD: 'worker' (default, as `ripple up` runs) or 'main'. */
export function apiServerThread(): ApiServerThread {
  const v = process.env.RIPPLE_FLEET_BENCH_API_THREAD || 'worker';
  if (v !== 'worker' && v !== 'main') throw new Error(`RIPPLE_FLEET_BENCH_API_THREAD=${v}: want worker or main`);
  return v;
}

/** Fleet is a running embedded environment with the bench's observers. */
export interface Fleet {
  readonly embedded: Embedded;
  readonly clusters: string[];
  readonly addons: AddonObserver;
  client(cluster: string): KubeClient;
  stop(): Promise<void>;
}

/**
 * startFleet starts `ripple up`'s environment in a fresh temporary directory with n managed clusters labelled
 * env=bench, waits until every one is ready, creates the bench namespace in each and starts observing add-ons.
 */
/** Connections one cluster holds open in the bench (both ends live in this process): a connection per watch (HTTP/1.1)
 * — about 2 per cluster measured at 300 clusters, requests sharing one pool over the local socket — with margin. */
const FDS_PER_CLUSTER = 2 * 4;

/** openFileLimit reads this process' soft limit of open files (Linux /proc; undefined elsewhere). */
function openFileLimit(): number | undefined {
  try {
    const m = /^Max open files\s+(\d+)/m.exec(readFileSync('/proc/self/limits', 'utf8'));
    return m ? Number(m[1]) : undefined;
  } catch {
    return undefined;
  }
}

export async function startFleet(n: number, log: (msg: string) => void): Promise<Fleet> {
  // Fail before starting, with the fix, rather than with EMFILE / ECONNRESET halfway through the converge.
  const limit = openFileLimit();
  const need = 512 + n * FDS_PER_CLUSTER;
  if (limit !== undefined && limit < need) {
    throw new Error(`${n} clusters need about ${need} open files (both ends of a few watch connections per cluster); this process may open ${limit}: raise the limit (e.g. \`ulimit -n ${Math.ceil(need / 1024) * 1024}\`) and run again`);
  }
  const dir = mkdtempSync(join(tmpdir(), 'ripple-fleet-bench-'));
  const clusters = Array.from({ length: n }, (_, i) => `c${i}`);
  let embedded: Embedded | undefined;
  const addons = new AddonObserver();
  const stop = async () => {
    await addons.stop();
    await embedded?.stop();
    rmSync(dir, { recursive: true, force: true });
  };
  try {
    embedded = await startEmbedded({ dataDir: dir, durability: 'process', apiServerThread: apiServerThread(), clusters: clusters.map((name) => ({ name, labels: { env: 'bench' } })) });
    const e = embedded;
    const t0 = performance.now();
    for (;;) {
      const ready = e.manager.registry.list().filter((c) => c.labels.env === 'bench' && c.ready).length;
      if (ready === n) break;
      if (performance.now() - t0 > 60_000) throw new Error(`only ${ready} of ${n} clusters became ready within 60 s`);
      await new Promise((r) => setTimeout(r, 100));
    }
    log(`${n} clusters ready in ${Math.round(performance.now() - t0)} ms`);
    for (const c of clusters) await e.client(c).create({ apiVersion: 'v1', kind: 'Namespace', metadata: { name: BENCH_NS } } as KubeObject);
    await Promise.all(clusters.map((c) => addons.watch(c, e.client(c))));
    return { embedded: e, clusters, addons, client: (c) => e.client(c), stop };
  } catch (err) {
    await stop().catch((e2: unknown) => log(`cleanup failed: ${errorMessage(e2)}`));
    throw err;
  }
}
