// ClusterRegistry: the fleet as the controllers see it. It watches SveltosClusters, Cluster API Clusters (whichever
// of v1beta2/v1beta1 the CRD serves; no CRD, no CAPI clusters — and it notices the CRD being installed later),
// ClusterSets and Sets, answers "which ready clusters match this selector / these refs / these sets", tells
// listeners when a cluster appears, disappears or changes labels, readiness, pause or connection, and hands out a
// cached KubeClient per cluster built from its kubeconfig Secret.
import {
  Annotations,
  matchesLabelSelector,
  parseLabelSelector,
  type ClusterType,
  type LabelSelector,
} from '../api/index.js';
import {
  ClientCache,
  InformerFactory,
  errorMessage,
  isNotFound,
  type KubeClient,
  type KubeClientOptions,
  type KubeObject,
  type Subscription,
} from '../kube/index.js';
import { silentLogger, type Logger } from '../obs/index.js';
import {
  CAPI_CRD_NAME,
  CAPI_GROUP,
  CLUSTER_SET,
  SET,
  SVELTOS_CLUSTER,
  clusterKey,
  kubeconfigFromSecret,
  kubeconfigLocation,
  matchesShard,
  refKey,
  toEntry,
  type ClusterEntry,
  type ClusterRefLike,
} from './cluster.js';

/** ClusterErrorCode is the closed set of reasons a cluster client cannot be built. */
export type ClusterErrorCode = 'NotFound' | 'NoKubeconfig' | 'BadKubeconfig' | 'PullMode' | 'Unsupported';

/** ClusterError says why the registry cannot give a client for a cluster. */
export class ClusterError extends Error {
  override readonly name = 'ClusterError';
  constructor(
    readonly code: ClusterErrorCode,
    readonly cluster: string,
    message: string,
    options?: { cause?: unknown },
  ) {
    super(message, options);
  }
}

/** ClusterChangeKind names what changed about a cluster. */
export type ClusterChangeKind = 'labels' | 'ready' | 'paused' | 'deleting' | 'connection' | 'spec' | 'kubeconfig' | 'shard';

/** ClusterEvent tells listeners a cluster appeared, disappeared or changed in a way that affects selection. */
export type ClusterEvent =
  | { kind: 'cluster'; type: 'added'; entry: ClusterEntry }
  | { kind: 'cluster'; type: 'removed'; entry: ClusterEntry }
  | { kind: 'cluster'; type: 'updated'; entry: ClusterEntry; old: ClusterEntry; changed: ClusterChangeKind[] }
  /** A ClusterSet/Set's selected clusters changed (clusterSetRefs readers re-select). */
  | { kind: 'set'; setKind: 'ClusterSet' | 'Set'; namespace: string; name: string };

/** ClusterSelection is what a profile or trigger selects clusters with (any combination; results are unioned). */
export interface ClusterSelection {
  /** Label selector over cluster labels (or its string form). Missing or empty: matches no cluster (Sveltos). */
  clusterSelector?: LabelSelector | string | null;
  /** Explicit clusters (SveltosCluster or Cluster; apiVersion optional). */
  clusterRefs?: readonly ClusterRefLike[] | null;
  /** Names of ClusterSets (or of Sets in `namespace` when it is given): their status.selectedClusterRefs. */
  clusterSetRefs?: readonly string[] | null;
  /** Restrict to clusters in this namespace (namespaced Profiles); clusterSetRefs then name Sets there. */
  namespace?: string;
}

/** SelectOptions tunes list/matching. */
export interface SelectOptions {
  /**
   * Include paused clusters (default false). Controllers deciding what to WITHDRAW should pass true and skip writes
   * to paused clusters instead: pausing a cluster must not look like unselecting it.
   */
  includePaused?: boolean;
}

/** ClusterRegistryOptions configures a ClusterRegistry. */
export interface ClusterRegistryOptions {
  /** Informer factory of the management cluster (shared with other controllers); its client is used for reads. */
  informers: InformerFactory;
  /** Client cache for managed clusters (default: a private one). */
  clients?: ClientCache;
  /** Options of managed-cluster clients (timeouts, sockets). */
  clientOptions?: KubeClientOptions;
  logger?: Logger;
  /** Sharding (annotation sharding.projectsveltos.io/key): undefined = all clusters, '' = unannotated only. */
  shardKey?: string;
  /** Only CAPI clusters carrying this annotation are managed (Sveltos --capi-onboard-annotation). */
  capiOnboardAnnotation?: string;
  /** How long a fetched kubeconfig Secret is trusted before client() reads it again (default 30 s), while the
   * metadata-only watch of Secrets that otherwise tells when it changed has not synced. */
  kubeconfigTtlMs?: number;
}

interface KubeconfigCacheEntry {
  client: KubeClient;
  fetchedAt: number;
  /** The kubeconfig Secret (`namespace/name`) and the resourceVersion read. */
  secret: string;
  resourceVersion: string | undefined;
  /** Set when the Secret changed or went away since it was read: the next client() reads it again. */
  stale?: boolean;
}

type SetObject = KubeObject & { status?: { selectedClusterRefs?: ClusterRefLike[]; matchingClusterRefs?: ClusterRefLike[] } };

function sameLabels(a: Readonly<Record<string, string>>, b: Readonly<Record<string, string>>): boolean {
  const ka = Object.keys(a);
  if (ka.length !== Object.keys(b).length) return false;
  return ka.every((k) => b[k] === a[k]);
}

function specOf(o: KubeObject): string {
  return JSON.stringify(o.spec ?? {});
}

function setRefsOf(o: SetObject | undefined): string {
  return JSON.stringify((o?.status?.selectedClusterRefs ?? []).map((r) => refKey(r)));
}

/** ClusterRegistry keeps the fleet in memory; see the file comment. */
export class ClusterRegistry {
  private readonly entries = new Map<string, ClusterEntry>();
  // Clusters that exist but belong to another shard: never handed to controllers, only consulted so that a cluster
  // that moved to another shard is told apart from a deleted one (the first is let go, the second cleaned up).
  private readonly elsewhere = new Map<string, ClusterEntry>();
  private readonly listeners = new Set<(e: ClusterEvent) => void>();
  private readonly subs: Subscription<KubeObject>[] = [];
  private capiSub: Subscription<KubeObject> | undefined;
  private capiVersion: string | undefined;
  private crdSub: Subscription<KubeObject> | undefined;
  private secretSub: Subscription<KubeObject> | undefined;
  private setSub: Subscription<SetObject> | undefined;
  private clusterSetSub: Subscription<SetObject> | undefined;
  private readonly clients: ClientCache;
  private readonly ownsClients: boolean;
  private readonly kubeconfigs = new Map<string, KubeconfigCacheEntry>();
  /** Which clusters' cached kubeconfigs were read from each Secret (`namespace/name` → cluster keys). */
  private readonly secretUsers = new Map<string, Set<string>>();
  private readonly inflight = new Map<string, Promise<KubeClient>>();
  private readonly factories = new Map<string, InformerFactory>();
  private readonly removeRebuildListener: () => void;
  private readonly log: Logger;
  private readonly ttl: number;
  private started = false;
  /** The management cluster client. */
  readonly mgmt: KubeClient;

  constructor(private readonly options: ClusterRegistryOptions) {
    this.mgmt = options.informers.client;
    this.ownsClients = !options.clients;
    this.clients = options.clients ?? new ClientCache({ client: options.clientOptions });
    this.log = (options.logger ?? silentLogger()).child({ component: 'clusters' });
    this.ttl = options.kubeconfigTtlMs ?? 30_000;
    // A cluster whose kubeconfig changed gets a new client: its informer factory is replaced and listeners told.
    this.removeRebuildListener = this.clients.onRebuild((key) => {
      const entry = this.entries.get(key);
      const factory = this.factories.get(key);
      this.factories.delete(key);
      void factory?.stop();
      if (entry) this.emit({ kind: 'cluster', type: 'updated', entry, old: entry, changed: ['kubeconfig'] });
    });
  }

  /** start subscribes to the informers (idempotent); use waitForSync to know when the fleet is fully known. */
  start(): void {
    if (this.started) return;
    this.started = true;
    const inf = this.options.informers;
    const sveltos = inf.subscribe<KubeObject>(SVELTOS_CLUSTER, {
      onAdd: (o) => this.upsert(o, 'Sveltos'),
      onUpdate: (_old, o) => this.upsert(o, 'Sveltos'),
      onDelete: (o) => this.remove(o, 'Sveltos'),
    });
    this.subs.push(sveltos);
    // The CAPI Cluster CRD may come and go and may serve v1beta2 or only v1beta1: follow it.
    this.crdSub = inf.subscribe<KubeObject>(
      { apiVersion: 'apiextensions.k8s.io/v1', kind: 'CustomResourceDefinition', fieldSelector: `metadata.name=${CAPI_CRD_NAME}` },
      {
        onAdd: (crd) => this.followCapiCrd(crd),
        onUpdate: (_old, crd) => this.followCapiCrd(crd),
        onDelete: () => this.followCapiCrd(undefined),
      },
    );
    const setHandlers = (setKind: 'ClusterSet' | 'Set') => ({
      onAdd: (o: SetObject) => this.emit({ kind: 'set', setKind, namespace: o.metadata.namespace ?? '', name: o.metadata.name }),
      onUpdate: (old: SetObject, o: SetObject) => {
        if (setRefsOf(old) !== setRefsOf(o)) this.emit({ kind: 'set', setKind, namespace: o.metadata.namespace ?? '', name: o.metadata.name });
      },
      onDelete: (o: SetObject) => this.emit({ kind: 'set', setKind, namespace: o.metadata.namespace ?? '', name: o.metadata.name }),
    });
    this.clusterSetSub = inf.subscribe<SetObject>(CLUSTER_SET, setHandlers('ClusterSet'));
    this.setSub = inf.subscribe<SetObject>(SET, setHandlers('Set'));
    // Kubeconfig Secrets are followed by a metadata-only watch of Secrets (names and resourceVersions, never their
    // data): a kubeconfig read once stays trusted until its Secret changes, instead of being read again after
    // kubeconfigTtlMs — which in a large fleet with events spread thin was a GET per event (1,000 clusters: 2.7 extra
    // management requests per event). A changed Secret is also noticed at once rather than up to 30 s later. Until
    // this watch has synced (or where RBAC does not let it list Secrets) the TTL applies. Not part of waitForSync.
    this.secretSub = inf.subscribe<KubeObject>(
      { apiVersion: 'v1', kind: 'Secret', metadataOnly: true },
      {
        onAdd: (o) => this.secretChanged(o, false),
        onUpdate: (_old, o) => this.secretChanged(o, false),
        onDelete: (o) => this.secretChanged(o, true),
      },
    );
  }

  // secretChanged marks the cached kubeconfigs read from this Secret stale unless it is the version read.
  private secretChanged(o: KubeObject, deleted: boolean): void {
    if (this.kubeconfigs.size === 0) return;
    const secretKey = `${o.metadata.namespace ?? ''}/${o.metadata.name}`;
    const users = this.secretUsers.get(secretKey);
    if (!users) return;
    for (const key of users) {
      const c = this.kubeconfigs.get(key);
      if (!c || c.secret !== secretKey) users.delete(key); // forgotten, or read from another Secret since
      else if (deleted || c.resourceVersion !== o.metadata.resourceVersion) c.stale = true;
    }
    if (users.size === 0) this.secretUsers.delete(secretKey);
  }

  // kubeconfigFresh: a cached kubeconfig is used as long as its Secret is unchanged (followed by the Secret watch once
  // it has synced), else for kubeconfigTtlMs after it was read.
  private kubeconfigFresh(c: KubeconfigCacheEntry): boolean {
    if (c.stale || c.client.closed) return false;
    if (this.secretSub?.informer.hasSynced()) return true;
    return Date.now() - c.fetchedAt < this.ttl;
  }

  /** waitForSync resolves once SveltosClusters, ClusterSets, Sets and (when installed) CAPI Clusters are listed. */
  async waitForSync(opts: { timeoutMs?: number; signal?: AbortSignal } = {}): Promise<void> {
    this.start();
    const deadline = opts.timeoutMs === undefined ? undefined : Date.now() + opts.timeoutMs;
    const left = () => (deadline === undefined ? undefined : Math.max(1, deadline - Date.now()));
    for (const s of [...this.subs, this.crdSub!, this.clusterSetSub!, this.setSub!]) await s.informer.waitForSync({ timeoutMs: left(), signal: opts.signal });
    // The CRD informer synced, so followCapiCrd has run for an installed CRD; wait for its Cluster informer too.
    if (this.capiSub) await this.capiSub.informer.waitForSync({ timeoutMs: left(), signal: opts.signal });
  }

  /** hasSynced reports whether waitForSync would resolve now. */
  hasSynced(): boolean {
    const all = [...this.subs, this.crdSub, this.clusterSetSub, this.setSub, this.capiSub].filter((s) => s !== undefined);
    return this.started && all.every((s) => s!.informer.hasSynced());
  }

  /** capiApiVersion is the Cluster API apiVersion being watched, e.g. `cluster.x-k8s.io/v1beta2` (undefined: no CRD). */
  get capiApiVersion(): string | undefined {
    return this.capiVersion && `${CAPI_GROUP}/${this.capiVersion}`;
  }

  private followCapiCrd(crd: KubeObject | undefined): void {
    const versions = ((crd?.spec as { versions?: { name: string; served?: boolean }[] } | undefined)?.versions ?? []).filter((v) => v.served !== false).map((v) => v.name);
    const want = crd && !crd.metadata.deletionTimestamp ? (versions.includes('v1beta2') ? 'v1beta2' : versions.includes('v1beta1') ? 'v1beta1' : undefined) : undefined;
    if (want === this.capiVersion) return;
    const previous = this.capiSub;
    this.capiVersion = want;
    this.capiSub = undefined;
    const stale = new Set([...this.entries.values(), ...this.elsewhere.values()].filter((e) => e.type === 'Capi').map((e) => e.key));
    if (want) {
      const apiVersion = `${CAPI_GROUP}/${want}`;
      this.log.info({ apiVersion }, 'watching Cluster API clusters');
      const sub = this.options.informers.subscribe<KubeObject>(
        { apiVersion, kind: 'Cluster' },
        {
          onAdd: (o) => this.upsert(o, 'Capi'),
          onUpdate: (_old, o) => this.upsert(o, 'Capi'),
          onDelete: (o) => this.remove(o, 'Capi'),
        },
      );
      this.capiSub = sub;
      // Switching versions re-reads the same clusters: drop only those the new version does not list.
      void sub.informer
        .waitForSync()
        .then(() => {
          for (const k of stale) if (!sub.informer.cache.get(splitNs(k).namespace, splitNs(k).name)) this.forgetKey(k);
        })
        .catch(() => undefined);
    } else {
      for (const k of stale) this.forgetKey(k);
    }
    if (previous) void previous.unsubscribe();
  }

  private upsert(obj: KubeObject, type: ClusterType): void {
    if (type === 'Capi' && !this.onboarded(obj)) {
      this.remove(obj, type);
      return;
    }
    if (!matchesShard(obj, this.options.shardKey)) {
      // Recorded before `removed` is emitted, so listeners can already ask inOtherShard.
      const e = toEntry(obj, type);
      this.elsewhere.set(e.key, e);
      this.removeKey(e.key);
      return;
    }
    const entry = toEntry(obj, type);
    this.elsewhere.delete(entry.key);
    const old = this.entries.get(entry.key);
    this.entries.set(entry.key, entry);
    if (!old) {
      this.emit({ kind: 'cluster', type: 'added', entry });
      return;
    }
    const changed: ClusterChangeKind[] = [];
    if (!sameLabels(old.labels, entry.labels)) changed.push('labels');
    if (old.ready !== entry.ready) changed.push('ready');
    if (old.paused !== entry.paused) changed.push('paused');
    if (old.deleting !== entry.deleting) changed.push('deleting');
    if (old.connectionStatus !== entry.connectionStatus) changed.push('connection');
    // Only seen without a shard key (a sharded registry drops clusters leaving its shard): the shard controller.
    if (old.object.metadata.annotations?.[Annotations.shardKey] !== entry.object.metadata.annotations?.[Annotations.shardKey]) changed.push('shard');
    if (specOf(old.object) !== specOf(entry.object)) {
      changed.push('spec');
      // The kubeconfig Secret may have moved: read it again on next use.
      this.kubeconfigs.delete(entry.key);
    }
    if (changed.length > 0) this.emit({ kind: 'cluster', type: 'updated', entry, old, changed });
  }

  private onboarded(obj: KubeObject): boolean {
    const a = this.options.capiOnboardAnnotation;
    return !a || obj.metadata.annotations?.[a] !== undefined;
  }

  private remove(obj: KubeObject, type: ClusterType): void {
    const key = clusterKey(type, obj.metadata.namespace ?? '', obj.metadata.name);
    this.elsewhere.delete(key);
    this.removeKey(key);
  }

  /** forgetKey drops a cluster that no longer exists (in any shard). */
  private forgetKey(key: string): void {
    this.elsewhere.delete(key);
    this.removeKey(key);
  }

  private removeKey(key: string): void {
    const old = this.entries.get(key);
    if (!old) return;
    this.entries.delete(key);
    this.kubeconfigs.delete(key);
    const factory = this.factories.get(key);
    this.factories.delete(key);
    void factory?.stop();
    this.clients.delete(key);
    this.emit({ kind: 'cluster', type: 'removed', entry: old });
  }

  private emit(e: ClusterEvent): void {
    for (const l of [...this.listeners]) {
      try {
        l(e);
      } catch (err) {
        this.log.error({ err: errorMessage(err) }, 'cluster listener threw');
      }
    }
  }

  /** onChange registers a listener for cluster and set changes; returns a remover. */
  onChange(listener: (e: ClusterEvent) => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  /** get returns a known cluster in any state (ready or not, paused, deleting), by reference or key. */
  get(ref: ClusterRefLike | string): ClusterEntry | undefined {
    const key = typeof ref === 'string' ? ref : refKey(ref);
    return key ? this.entries.get(key) : undefined;
  }

  /**
   * inOtherShard reports whether a cluster exists but belongs to another shard (annotation
   * sharding.projectsveltos.io/key): controllers must then neither write to it nor clean up after it — its new
   * shard's manager adopts what is deployed there. False for clusters of this shard and for unknown (deleted) ones.
   */
  inOtherShard(ref: ClusterRefLike | string): boolean {
    const key = typeof ref === 'string' ? ref : refKey(ref);
    return key !== undefined && !this.entries.has(key) && this.elsewhere.has(key);
  }

  /** hasClustersInOtherShards says whether any cluster of another shard exists (allShards would differ). */
  hasClustersInOtherShards(): boolean {
    return this.elsewhere.size > 0;
  }

  /** all lists every known cluster, in any state, sorted by key. */
  all(): ClusterEntry[] {
    return [...this.entries.values()].sort((a, b) => (a.key < b.key ? -1 : a.key > b.key ? 1 : 0));
  }

  /** list returns the ready clusters that are not being deleted (and, by default, not paused), sorted by key. */
  list(opts: SelectOptions & { namespace?: string } = {}): ClusterEntry[] {
    return this.all().filter((e) => selectable(e, opts) && (opts.namespace === undefined || e.ref.namespace === opts.namespace));
  }

  /**
   * matching returns the ready, non-deleting clusters selected by a label selector, explicit refs and ClusterSet/Set
   * refs (the union, sorted by key, each once). An empty or missing selector selects nothing, as in Sveltos.
   * Go: addon-controller profile_utils.go getMatchingClusters, libsveltos clusterproxy GetMatchingClusters
   */
  matching(sel: ClusterSelection, opts: SelectOptions & { allShards?: boolean } = {}): ClusterEntry[] {
    // allShards: the whole fleet, for fleet-wide status (ClusterProfile, ClusterSet, EventTrigger) that every shard
    // must compute alike; never for deciding what to write into clusters.
    const entries = opts.allShards && this.elsewhere.size > 0 ? new Map([...this.entries, ...this.elsewhere]) : this.entries;
    return matchClusterEntries(entries, sel, opts, (kind, namespace, name) => this.setSelection(kind, namespace, name), (selector, error) =>
      this.log.warn({ selector, err: error }, 'invalid cluster selector matches no cluster'),
    );
  }

  /** setSelection returns status.selectedClusterRefs of a ClusterSet (namespace '') or Set. */
  setSelection(setKind: 'ClusterSet' | 'Set', namespace: string, name: string): ClusterRefLike[] {
    const sub = setKind === 'ClusterSet' ? this.clusterSetSub : this.setSub;
    const obj = sub?.informer.cache.get(setKind === 'ClusterSet' ? undefined : namespace, name);
    return obj?.status?.selectedClusterRefs ?? [];
  }

  /**
   * client returns a (cached) KubeClient for a cluster, built from its kubeconfig Secret. The Secret is re-read
   * after kubeconfigTtlMs, or at once with `fresh`; a changed kubeconfig yields a new client. Throws ClusterError.
   */
  async client(ref: ClusterRefLike | string, opts: { fresh?: boolean } = {}): Promise<KubeClient> {
    const entry = this.get(ref);
    const name = typeof ref === 'string' ? ref : (refKey(ref) ?? JSON.stringify(ref));
    if (!entry) throw new ClusterError('NotFound', name, `cluster ${name} is not registered`);
    const cached = this.kubeconfigs.get(entry.key);
    if (cached && !opts.fresh && this.kubeconfigFresh(cached)) return cached.client;
    let p = this.inflight.get(entry.key);
    if (!p) {
      p = this.loadClient(entry).finally(() => this.inflight.delete(entry.key));
      this.inflight.set(entry.key, p);
    }
    return p;
  }

  /**
   * informers returns the shared InformerFactory of a cluster, so every controller watching it shares one list+watch
   * per key. It is stopped (and a `kubeconfig` change emitted) when the cluster's kubeconfig changes, and stopped
   * when the cluster goes away: on those events, subscribe again through a fresh call.
   */
  async informers(ref: ClusterRefLike | string): Promise<InformerFactory> {
    const client = await this.client(ref);
    const key = client.name;
    const cur = this.factories.get(key);
    if (cur && cur.client === client) return cur;
    if (cur) void cur.stop();
    const factory = new InformerFactory(client, { logger: this.options.logger });
    this.factories.set(key, factory);
    return factory;
  }

  /** watchLiveness is what the cluster's shared informers see of it (InformerFactory.liveness), without asking the
   * cluster; undefined when nothing watches it through the registry. */
  watchLiveness(key: string): { lastDataAt: number; failing: boolean } | undefined {
    return this.factories.get(key)?.liveness();
  }

  /** clientFor is client() for a ClusterRef of a known entry (convenience for controllers holding entries). */
  clientFor(entry: ClusterEntry, opts: { fresh?: boolean } = {}): Promise<KubeClient> {
    return this.client(entry.key, opts);
  }

  private async loadClient(entry: ClusterEntry): Promise<KubeClient> {
    const spec = (entry.object.spec ?? {}) as { pullMode?: boolean; workloadIdentity?: unknown };
    if (spec.pullMode) throw new ClusterError('PullMode', entry.key, `cluster ${entry.key} is in pull mode: the management cluster does not connect to it`);
    if (spec.workloadIdentity) throw new ClusterError('Unsupported', entry.key, `cluster ${entry.key} uses workloadIdentity, which Ripple does not support; register it with a kubeconfig Secret`);
    const loc = kubeconfigLocation(entry);
    let secret: { metadata?: { resourceVersion?: string }; data?: Record<string, string> } | undefined;
    try {
      secret = await this.mgmt.getIfExists({ apiVersion: 'v1', kind: 'Secret', namespace: loc.namespace, name: loc.secretName });
    } catch (err) {
      if (!isNotFound(err)) throw err;
    }
    const r = kubeconfigFromSecret(secret, loc);
    if (!r.ok) throw new ClusterError('NoKubeconfig', entry.key, `cluster ${entry.key}: ${r.message}`);
    let client: KubeClient;
    try {
      client = this.clients.client(entry.key, r.kubeconfig);
    } catch (err) {
      throw new ClusterError('BadKubeconfig', entry.key, `cluster ${entry.key}: kubeconfig in secret ${loc.namespace}/${loc.secretName} key ${r.key}: ${errorMessage(err)}`, { cause: err });
    }
    const secretKey = `${loc.namespace}/${loc.secretName}`;
    const prev = this.kubeconfigs.get(entry.key);
    if (prev && prev.secret !== secretKey) this.secretUsers.get(prev.secret)?.delete(entry.key);
    const rv = secret?.metadata?.resourceVersion;
    // A change the watch delivered while this read was in flight found no entry to mark: compare with what it holds.
    const watched = this.secretSub?.informer.cache.get(loc.namespace, loc.secretName)?.metadata.resourceVersion;
    this.kubeconfigs.set(entry.key, { client, fetchedAt: Date.now(), secret: secretKey, resourceVersion: rv, stale: watched !== undefined && watched !== rv });
    let users = this.secretUsers.get(secretKey);
    if (!users) this.secretUsers.set(secretKey, (users = new Set()));
    users.add(entry.key);
    return client;
  }

  /** stop unsubscribes from the informers and closes the managed-cluster clients it created. */
  async stop(): Promise<void> {
    const subs = [...this.subs, this.crdSub, this.capiSub, this.clusterSetSub, this.setSub, this.secretSub].filter((s) => s !== undefined);
    this.subs.length = 0;
    this.crdSub = this.capiSub = this.clusterSetSub = this.setSub = this.secretSub = undefined;
    await Promise.all(subs.map((s) => s!.unsubscribe()));
    this.listeners.clear();
    this.removeRebuildListener();
    const factories = [...this.factories.values()];
    this.factories.clear();
    await Promise.all(factories.map((f) => f.stop()));
    if (this.ownsClients) this.clients.close();
    this.started = false;
  }
}

function splitNs(key: string): { namespace: string; name: string } {
  const rest = key.slice(key.indexOf(':') + 1);
  const i = rest.indexOf('/');
  return { namespace: rest.slice(0, i), name: rest.slice(i + 1) };
}

/** selectable: ready, not being deleted, and not paused unless asked for. */
function selectable(e: ClusterEntry, o: SelectOptions): boolean {
  return e.ready && !e.deleting && (o.includePaused === true || !e.paused);
}

/**
 * matchClusterEntries is ClusterRegistry.matching over any set of entries keyed by ClusterEntry.key: the ready,
 * non-deleting clusters selected by a label selector, explicit refs and ClusterSet/Set refs (`setSelection` gives
 * a set's status.selectedClusterRefs), the union sorted by key. An empty or missing selector selects nothing.
 * Go: addon-controller profile_utils.go getMatchingClusters, libsveltos clusterproxy GetMatchingClusters
 */
export function matchClusterEntries(
  entries: ReadonlyMap<string, ClusterEntry>,
  sel: ClusterSelection,
  opts: SelectOptions = {},
  setSelection: (kind: 'ClusterSet' | 'Set', namespace: string, name: string) => readonly ClusterRefLike[] = () => [],
  onInvalidSelector?: (selector: string, error: string) => void,
): ClusterEntry[] {
  const out = new Map<string, ClusterEntry>();
  const inScope = (e: ClusterEntry | undefined): e is ClusterEntry => e !== undefined && selectable(e, opts) && (sel.namespace === undefined || e.ref.namespace === sel.namespace);
  const get = (ref: ClusterRefLike) => {
    const key = refKey(ref);
    return key ? entries.get(key) : undefined;
  };
  const selector = parseClusterSelector(sel.clusterSelector, onInvalidSelector);
  if (selector) {
    for (const e of entries.values()) if (inScope(e) && matchesLabelSelector(selector, e.labels, { empty: 'nothing' })) out.set(e.key, e);
  }
  for (const r of sel.clusterRefs ?? []) {
    const e = get({ ...r, namespace: r.namespace ?? sel.namespace });
    if (inScope(e)) out.set(e.key, e);
  }
  for (const name of sel.clusterSetRefs ?? []) {
    for (const r of setSelection(sel.namespace === undefined ? 'ClusterSet' : 'Set', sel.namespace ?? '', name)) {
      const e = get(r);
      if (inScope(e)) out.set(e.key, e);
    }
  }
  return [...out.values()].sort((a, b) => (a.key < b.key ? -1 : a.key > b.key ? 1 : 0));
}

/** parseClusterSelector turns a selector or its string form into a LabelSelector (undefined: selects nothing). */
function parseClusterSelector(s: ClusterSelection['clusterSelector'], onInvalid?: (selector: string, error: string) => void): LabelSelector | undefined {
  if (s === undefined || s === null) return undefined;
  if (typeof s !== 'string') return s;
  if (s.trim() === '') return undefined;
  const r = parseLabelSelector(s);
  if (!r.ok) {
    onInvalid?.(s, r.error);
    return undefined;
  }
  return r.selector;
}
