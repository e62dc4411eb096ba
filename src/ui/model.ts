// model.ts: what the dashboard shows, kept live from informer caches — the management cluster's Sveltos objects
// (shared informers: the narrator and controllers subscribe to the same keys, so the dashboard adds no watch of its
// own for them) and, per cluster, the kinds the deployer reports having deployed (label-selected on
// projectsveltos.io/reason, as the narrator follows them). Handlers only record when they saw a change (ms precision,
// for lineage latencies) and which topics changed; views are computed on request. Never reads Secret data.
import { Annotations, EventTriggerLabels, Labels, eventReportName } from '../api/index.js';
import { ADOPTED_ANNOTATION } from '../addons/index.js';
import { clusterLabel, detailOf } from '../manager/index.js';
import type { ClusterEntry, ClusterRegistry } from '../clusters/index.js';
import { resourceEventId, RippleAnnotations } from '../events/index.js';
import { errorMessage, type InformerFactory, type KubeObject, type Subscription } from '../kube/index.js';
import { silentLogger, type Logger, type Registry } from '../obs/index.js';
import { Histogram } from 'prom-client';
import {
  MGMT_ID,
  type AddonRow,
  type ClusterRow,
  type DeployedObject,
  type EventRow,
  type FailureRow,
  type GeneratedRef,
  type ObjRef,
  type Page,
  type SourceRow,
  type Summary,
  type Topic,
  type TriggerRow,
} from './api-types.js';
import { filterRows, type Filter } from './filter.js';

/** Obj is a Kubernetes object as the model reads it. */
export type Obj = KubeObject & { spec?: Record<string, unknown>; status?: Record<string, unknown> } & Record<string, unknown>;

/** GVKS are the management-cluster kinds the dashboard follows. */
export const GVKS = {
  eventSource: { apiVersion: 'lib.projectsveltos.io/v1beta1', kind: 'EventSource' },
  eventTrigger: { apiVersion: 'lib.projectsveltos.io/v1beta1', kind: 'EventTrigger' },
  eventBasedAddOn: { apiVersion: 'lib.projectsveltos.io/v1alpha1', kind: 'EventBasedAddOn' },
  eventReport: { apiVersion: 'lib.projectsveltos.io/v1beta1', kind: 'EventReport' },
  clusterProfile: { apiVersion: 'config.projectsveltos.io/v1beta1', kind: 'ClusterProfile' },
  profile: { apiVersion: 'config.projectsveltos.io/v1beta1', kind: 'Profile' },
  clusterSummary: { apiVersion: 'config.projectsveltos.io/v1beta1', kind: 'ClusterSummary' },
  configMap: { apiVersion: 'v1', kind: 'ConfigMap', labelSelector: EventTriggerLabels.eventTriggerName },
  secret: { apiVersion: 'v1', kind: 'Secret', labelSelector: EventTriggerLabels.eventTriggerName },
  event: { apiVersion: 'v1', kind: 'Event' },
} as const;

type GvkName = keyof typeof GVKS;

/** Seen is when the dashboard saw an object's content change (fingerprint): the last few versions, ms ascending. */
interface Seen {
  fp: string;
  /** Empty when the object was listed at start (its time is unknown here; the API timestamps stand in). */
  times: number[];
}

const MAX_VERSIONS = 16;

/** pickVersion is the newest time not after notAfter (default: the newest), or the first when all are later. */
export function pickVersion(times: readonly number[], notAfter?: number): number | undefined {
  if (times.length === 0) return undefined;
  if (notAfter === undefined) return times[times.length - 1];
  for (let i = times.length - 1; i >= 0; i--) if (times[i] <= notAfter) return times[i];
  return times[0];
}

/** Withdrawn is an object of an event's lineage that was deleted, remembered for the reverse lineage. */
export interface Withdrawn {
  ref: ObjRef;
  role: 'instantiated' | 'profile' | 'summary' | 'object';
  time: number;
  /** The event key (cluster id + event identity) it belonged to. */
  event: string;
  /** For objects: the profile that had deployed them; for profiles deployed by a profile: that parent. */
  profile?: string;
}

/** ModelOptions configures a FleetModel. */
export interface ModelOptions {
  /** Informer factory of the management cluster. */
  informers: InformerFactory;
  registry: ClusterRegistry;
  /** Registry the end-to-end latency histogram (ripple_event_to_addon_seconds) is registered in. */
  metrics?: Registry;
  logger?: Logger;
  /** Clock (ms); default Date.now. */
  now?: () => number;
  /** Coalescing window of change notifications (default 50 ms). */
  coalesceMs?: number;
}

const MAX_WITHDRAWN = 2000;
/** MAX_REMEMBERED caps the maps that outlive their objects (event times, profile → event): the oldest tenth goes. */
const MAX_REMEMBERED = 100_000;

function cap<K, V>(m: Map<K, V>): void {
  if (m.size <= MAX_REMEMBERED) return;
  let drop = Math.ceil(MAX_REMEMBERED / 10);
  for (const k of m.keys()) {
    if (drop-- <= 0) break;
    m.delete(k);
  }
}

/** objKey is the identity of an object in a cluster. */
export function objKey(r: ObjRef): string {
  return `${r.cluster}|${r.apiVersion}|${r.kind}|${r.namespace ?? ''}|${r.name}`;
}

/** parseGvk parses the deployer's `Kind.version.group` strings (`Service.v1.`, `ClusterProfile.v1beta1.config.projectsveltos.io`). */
export function parseGvk(s: string): { apiVersion: string; kind: string } | undefined {
  const i = s.indexOf('.');
  const j = s.indexOf('.', i + 1);
  if (i <= 0 || j < 0) return undefined;
  const kind = s.slice(0, i);
  const version = s.slice(i + 1, j);
  const group = s.slice(j + 1);
  return { apiVersion: group ? `${group}/${version}` : version, kind };
}

const str = (v: unknown): string | undefined => (typeof v === 'string' ? v : undefined);
const arr = <T = Record<string, unknown>>(v: unknown): T[] => (Array.isArray(v) ? (v as T[]) : []);
const rec = (v: unknown): Record<string, unknown> => (v && typeof v === 'object' && !Array.isArray(v) ? (v as Record<string, unknown>) : {});

/**
 * apiTime is when the object itself says it was last written (ms; seconds precision): the newest managedFields entry
 * of a main-resource write (status writes by other controllers come later and say nothing about this hop) or, with
 * `manager`, of that field manager's writes (a deployed object: the deployer's, status included); else its creation.
 */
export function apiTime(o: Obj | undefined, manager?: RegExp): number | undefined {
  if (!o) return undefined;
  let best: number | undefined;
  for (const m of arr(o.metadata.managedFields)) {
    if (manager ? !manager.test(str(m.manager) ?? '') : str(m.subresource)) continue;
    const t = Date.parse(str(m.time) ?? '');
    if (Number.isFinite(t) && (best === undefined || t > best)) best = t;
  }
  const c = Date.parse(o.metadata.creationTimestamp ?? '');
  return best ?? (Number.isFinite(c) ? c : undefined);
}

/** DEPLOYER_MANAGER matches the add-on deployer's field manager (deployed objects' apiTime). */
export const DEPLOYER_MANAGER = /addon/;

/** summaryCluster is the cluster id a ClusterSummary targets. */
export function summaryCluster(cs: Obj): string {
  return clusterLabel(str(cs.spec?.clusterNamespace), str(cs.spec?.clusterName));
}

/** summaryProfile is the (Cluster)Profile a ClusterSummary belongs to. */
export function summaryProfile(cs: Obj): { kind: string; name: string } {
  const owner = cs.metadata.ownerReferences?.find((o) => o.kind === 'ClusterProfile' || o.kind === 'Profile');
  const name = cs.metadata.labels?.[Labels.clusterProfileName] ?? cs.metadata.labels?.['projectsveltos.io/profile-name'] ?? owner?.name ?? cs.metadata.name;
  return { kind: owner?.kind ?? 'ClusterProfile', name };
}

// What counts as a new version of an object for lineage times: a ClusterSummary's hop is its spec (generation) —
// the deployer applies the objects and only then writes status; a report's, its matches; a generated object's, the
// content hash the event manager stamps; a deployed object's, the deployer's hash (and status, when adopted for it).
function fingerprint(kind: GvkName | 'deployed', o: Obj): string {
  const a = o.metadata.annotations ?? {};
  switch (kind) {
    case 'eventReport':
      return `${JSON.stringify(o.spec?.matchingResources ?? [])}|${str(o.spec?.resources) ?? ''}`;
    case 'configMap':
    case 'secret':
      return a[RippleAnnotations.hash] ?? o.metadata.resourceVersion ?? '';
    case 'deployed':
      // Same as a ClusterProfile's for a deployed profile (both watches see it); status only when adopted for it.
      return `${o.metadata.generation ?? ''}|${a[Annotations.hash] ?? ''}${a[ADOPTED_ANNOTATION] ? `|${JSON.stringify(o.status ?? {})}` : ''}`;
    case 'clusterProfile':
      return `${o.metadata.generation ?? ''}|${a[Annotations.hash] ?? ''}`;
    default:
      return String(o.metadata.generation ?? o.metadata.resourceVersion ?? '');
  }
}

/** FleetModel keeps the dashboard's view of the fleet live. */
export class FleetModel {
  private readonly subs = new Map<GvkName, Subscription<Obj>>();
  private readonly deployedSubs = new Map<string, Subscription<Obj> | undefined>();
  private readonly seen = new Map<string, Seen>();
  /**
   * When reports listed a resource or saw it change: `${cluster}|${eventId}` → ascending ms (the last few). Empty
   * when it was listed at start. A lineage picks the newest version not after what it generated: the resource also
   * changes because of its own add-ons (a status written back), and those versions caused nothing upstream.
   */
  private readonly eventSeen = new Map<string, number[]>();
  /** Generated profile name → event key, kept after deletion (withdrawals are traced after the profile is gone). */
  private readonly profileEvent = new Map<string, string>();
  /** Profile deployed by a profile → its parent profile. */
  private readonly profileParent = new Map<string, string>();
  private readonly withdrawnLog: Withdrawn[] = [];
  private readonly listeners = new Set<(topics: Topic[], version: number) => void>();
  private readonly dirty = new Set<Topic>();
  private readonly latency: Histogram<never> | undefined;
  /** Per deployed object: the event time last observed into the latency histogram (each event counted once). */
  private readonly measured = new Map<string, number>();
  private timer: NodeJS.Timeout | undefined;
  private readonly removeRegistryListener: () => void;
  private readonly log: Logger;
  private readonly now: () => number;
  private stopped = false;
  version = 0;

  constructor(private readonly o: ModelOptions) {
    this.log = (o.logger ?? silentLogger()).child({ component: 'ui' });
    this.now = o.now ?? Date.now;
    if (o.metrics) {
      const existing = o.metrics.getSingleMetric('ripple_event_to_addon_seconds') as Histogram<never> | undefined;
      this.latency =
        existing ??
        new Histogram({
          name: 'ripple_event_to_addon_seconds',
          help: 'From an EventReport listing a resource to an add-on object written for that event, as the dashboard watches them.',
          buckets: [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30],
          registers: [o.metrics],
        });
    }
    this.removeRegistryListener = o.registry.onChange(() => this.touch('clusters'));
    for (const name of Object.keys(GVKS) as GvkName[]) this.follow(name);
  }

  // -------------------------------------------------------------------------------------------------------------
  // watching

  private follow(name: GvkName): void {
    const topics = TOPICS[name];
    const sub = this.o.informers.subscribe<Obj>(GVKS[name], {
      onAdd: (x, initial) => this.changed(name, undefined, x, initial, topics),
      onUpdate: (a, b) => this.changed(name, a, b, false, topics),
      onDelete: (x) => this.changed(name, x, undefined, false, topics),
    });
    this.subs.set(name, sub);
  }

  private changed(name: GvkName, before: Obj | undefined, after: Obj | undefined, initial: boolean, topics: Topic[]): void {
    const x = (after ?? before)!;
    const ref = this.mgmtRef(x);
    const now = this.now();
    if (after) this.observe(objKey(ref), fingerprint(name, after), initial, now);
    else this.seen.delete(objKey(ref));
    // The report is how the dashboard sees the event: both get the same instant.
    if (name === 'eventReport') this.onReport(before, after, initial, now);
    if (name === 'clusterProfile' || name === 'configMap' || name === 'secret') this.onGenerated(name, before, after);
    if (name === 'clusterSummary' && after) this.followDeployed(after);
    if (name === 'event' && (x as { type?: string }).type !== 'Warning') return;
    for (const t of topics) this.touch(t);
  }

  private observe(key: string, fp: string, initial: boolean, now = this.now()): boolean {
    const cur = this.seen.get(key);
    if (cur?.fp === fp) return false;
    if (!cur) {
      this.seen.set(key, { fp, times: initial ? [] : [now] });
      return true;
    }
    cur.fp = fp;
    cur.times.push(now);
    if (cur.times.length > MAX_VERSIONS) cur.times.shift();
    return true;
  }

  private onReport(before: Obj | undefined, after: Obj | undefined, initial: boolean, now: number): void {
    const r = (after ?? before)!;
    const cluster = clusterLabel(str(r.spec?.clusterNamespace) ?? r.metadata.namespace, str(r.spec?.clusterName));
    const was = new Set(arr(before?.spec?.matchingResources).map((m) => resourceEventId(m as never)));
    // A resource that changed (the report's blob changed) is a new version of the same event.
    const blobChanged = !!before && !!after && str(before.spec?.resources) !== str(after.spec?.resources);
    for (const m of arr(after?.spec?.matchingResources)) {
      const id = resourceEventId(m as never);
      const k = `${cluster}|${id}`;
      const times = this.eventSeen.get(k);
      if (!times || !was.has(id)) {
        this.eventSeen.delete(k);
        this.eventSeen.set(k, initial ? [] : [now]);
        cap(this.eventSeen);
      }
      else if (blobChanged) {
        times.push(now);
        if (times.length > MAX_VERSIONS) times.shift();
      }
    }
  }

  private onGenerated(name: GvkName, before: Obj | undefined, after: Obj | undefined): void {
    const x = (after ?? before)!;
    const l = x.metadata.labels ?? {};
    const a = x.metadata.annotations ?? {};
    const trigger = l[EventTriggerLabels.eventTriggerName];
    const event = trigger ? `${clusterLabel(l[EventTriggerLabels.clusterNamespace], l[EventTriggerLabels.clusterName])}|${a[RippleAnnotations.event] ?? ''}` : undefined;
    if (name === 'clusterProfile') {
      if (event) this.profileEvent.set(x.metadata.name, event);
      if (a[Annotations.ownerName] && l[Labels.reason]) this.profileParent.set(x.metadata.name, a[Annotations.ownerName]);
      cap(this.profileEvent);
      cap(this.profileParent);
    }
    if (!after && event) {
      this.remember({ ref: this.mgmtRef(x), role: name === 'clusterProfile' ? 'profile' : 'instantiated', time: this.now(), event });
    }
  }

  private remember(w: Withdrawn): void {
    this.withdrawnLog.push(w);
    if (this.withdrawnLog.length > MAX_WITHDRAWN) this.withdrawnLog.splice(0, this.withdrawnLog.length - MAX_WITHDRAWN);
  }

  // Deployed objects: one label-selected informer per (cluster, kind) a ClusterSummary reports, in the target cluster
  // and in the management cluster (Local deployments).
  private followDeployed(cs: Obj): void {
    const gvks = new Set<string>();
    for (const list of [cs.status?.deployedGVKs, cs.status?.featureSummaries]) for (const f of arr(list)) for (const g of arr<string>(f.deployedGroupVersionKind)) gvks.add(g);
    if (gvks.size === 0) return;
    const entry = this.entryOf(cs);
    for (const g of gvks) {
      const gvk = parseGvk(g);
      if (!gvk) continue;
      this.followKind(MGMT_ID, gvk, Promise.resolve(this.o.informers));
      if (entry) this.followKind(clusterLabel(entry.ref.namespace, entry.ref.name), gvk, this.o.registry.informers(entry.key));
    }
  }

  private entryOf(cs: Obj): ClusterEntry | undefined {
    const capi = str(cs.spec?.clusterType) === 'Capi';
    return this.o.registry.get({
      apiVersion: capi ? 'cluster.x-k8s.io/v1beta1' : 'lib.projectsveltos.io/v1beta1',
      kind: capi ? 'Cluster' : 'SveltosCluster',
      namespace: str(cs.spec?.clusterNamespace),
      name: str(cs.spec?.clusterName),
    });
  }

  private followKind(where: string, gvk: { apiVersion: string; kind: string }, factory: Promise<InformerFactory>): void {
    const id = `${where}|${gvk.apiVersion}|${gvk.kind}`;
    if (this.deployedSubs.has(id) || this.stopped) return;
    this.deployedSubs.set(id, undefined);
    factory.then(
      (f) => {
        if (this.stopped) return;
        const s = f.subscribe<Obj>(
          { ...gvk, labelSelector: Labels.reason },
          {
            onAdd: (x, initial) => this.onDeployed(where, undefined, x, initial),
            onUpdate: (a, b) => this.onDeployed(where, a, b, false),
            onDelete: (x) => this.onDeployed(where, x, undefined, false),
          },
        );
        this.deployedSubs.set(id, s);
      },
      (err: unknown) => {
        this.deployedSubs.delete(id);
        this.log.debug({ cluster: where, err: errorMessage(err) }, 'cannot watch deployed objects');
      },
    );
  }

  private onDeployed(where: string, before: Obj | undefined, after: Obj | undefined, initial: boolean): void {
    const x = (after ?? before)!;
    const a = x.metadata.annotations ?? {};
    const local = a[Annotations.deploymentType] === 'Local';
    // Local objects live in mgmt: only the management cluster's watch reports them (and Remote ones only the target's).
    if (local !== (where === MGMT_ID)) return;
    const ref: ObjRef = { cluster: where, apiVersion: x.apiVersion, kind: x.kind, namespace: x.metadata.namespace, name: x.metadata.name };
    const key = objKey(ref);
    const profile = a[Annotations.ownerName];
    if (after) {
      const changed = this.observe(key, fingerprint('deployed', after), initial);
      if (changed && !initial && profile) this.measure(key, profile);
    } else {
      this.seen.delete(key);
      this.measured.delete(key);
      const event = profile ? this.eventOfProfile(profile) : undefined;
      if (event) this.remember({ ref, role: 'object', time: this.now(), event, profile });
    }
    this.touch('addons');
    this.touch('lineage');
  }

  private measure(key: string, profile: string): void {
    const root = this.rootOfProfile(profile);
    if (!this.latency || !root) return;
    const generatedAt = pickVersion(this.seenTimes({ cluster: MGMT_ID, apiVersion: GVKS.clusterProfile.apiVersion, kind: 'ClusterProfile', name: root.profile }));
    const t = pickVersion(this.eventTimes(root.event), generatedAt);
    if (!t || this.measured.get(key) === t) return;
    const now = this.now();
    if (now < t) return;
    this.measured.set(key, t);
    this.latency.observe((now - t) / 1000);
  }

  /** eventOfProfile follows profiles deployed by profiles up to the generated one and returns its event key. */
  eventOfProfile(profile: string): string | undefined {
    return this.rootOfProfile(profile)?.event;
  }

  private rootOfProfile(profile: string): { event: string; profile: string } | undefined {
    let p: string | undefined = profile;
    for (let i = 0; p && i < 16; i++) {
      const e = this.profileEvent.get(p);
      if (e) return { event: e, profile: p };
      p = this.profileParent.get(p);
    }
    return undefined;
  }

  private touch(t: Topic): void {
    if (this.stopped) return;
    this.dirty.add(t);
    this.timer ??= setTimeout(() => this.flush(), this.o.coalesceMs ?? 50);
  }

  private flush(): void {
    this.timer = undefined;
    if (this.dirty.size === 0) return;
    const topics = [...this.dirty];
    this.dirty.clear();
    if (topics.some((t) => t !== 'metrics')) topics.push('failures');
    this.version++;
    for (const l of this.listeners) l([...new Set(topics)], this.version);
  }

  /** onChange registers a listener for coalesced changes; returns a remover. */
  onChange(l: (topics: Topic[], version: number) => void): () => void {
    this.listeners.add(l);
    return () => this.listeners.delete(l);
  }

  // -------------------------------------------------------------------------------------------------------------
  // reading (used by views and lineage)

  /** list returns the cached objects of a followed kind. */
  list(name: GvkName): Obj[] {
    return this.subs.get(name)?.informer.cache.list() ?? [];
  }

  /** get returns one cached object of a followed kind. */
  get(name: GvkName, namespace: string | undefined, objName: string): Obj | undefined {
    return this.subs.get(name)?.informer.cache.get(namespace, objName);
  }

  /** deployed lists every deployed object the model follows, with the cluster it lives in. */
  deployed(): { where: string; obj: Obj }[] {
    const out: { where: string; obj: Obj }[] = [];
    for (const [id, s] of this.deployedSubs) {
      if (!s) continue;
      const where = id.slice(0, id.indexOf('|'));
      for (const obj of s.informer.cache.list()) {
        const local = obj.metadata.annotations?.[Annotations.deploymentType] === 'Local';
        if (local === (where === MGMT_ID)) out.push({ where, obj });
      }
    }
    return out;
  }

  /** seenTimes are the times the model saw the object's content change (ms, ascending; empty: there at start). */
  seenTimes(ref: ObjRef): readonly number[] {
    return this.seen.get(objKey(ref))?.times ?? [];
  }

  /** eventTimes are the times reports listed the event or saw it change (key: `${cluster}|${eventId}`). */
  eventTimes(key: string): readonly number[] {
    return this.eventSeen.get(key) ?? [];
  }

  /** eventSeenAt is the newest time reports listed or saw the event change (ms); undefined when listed at start. */
  eventSeenAt(cluster: string, eventId: string): number | undefined {
    return pickVersion(this.eventTimes(`${cluster}|${eventId}`));
  }

  /** withdrawn lists what was withdrawn for an event key (newest last). */
  withdrawn(event: string): Withdrawn[] {
    return this.withdrawnLog.filter((w) => w.event === event);
  }

  /** mgmtRef is the reference of an object in the management cluster. */
  mgmtRef(x: Obj): ObjRef {
    return { cluster: MGMT_ID, apiVersion: x.apiVersion, kind: x.kind, namespace: x.metadata.namespace, name: x.metadata.name };
  }

  /** synced is true once every informer of the management cluster listed its kind. */
  synced(): boolean {
    return [...this.subs.values()].every((s) => s.informer.hasSynced()) && this.o.registry.hasSynced();
  }

  /** waitForSync resolves once the management cluster's informers listed (kinds not installed are skipped). */
  async waitForSync(timeoutMs = 30_000): Promise<void> {
    await Promise.all([...this.subs.values()].map((s) => s.informer.waitForSync({ timeoutMs }).catch(() => undefined)));
  }

  // -------------------------------------------------------------------------------------------------------------
  // views

  /** summary counts what the header shows. */
  summary(): Summary {
    const clusters = this.o.registry.all();
    return {
      version: this.version,
      clusters: clusters.length,
      ready: clusters.filter((c) => c.ready).length,
      paused: clusters.filter((c) => c.paused).length,
      eventSources: this.list('eventSource').length,
      eventTriggers: this.list('eventTrigger').length + this.list('eventBasedAddOn').length,
      profiles: this.list('clusterProfile').length + this.list('profile').length,
      deployedObjects: this.deployed().length,
      failures: this.failures({}).matched,
      synced: this.synced(),
    };
  }

  /** clusters lists the fleet. */
  clusters(f: Filter): Page<ClusterRow> {
    const perCluster = new Map<string, { n: number; failed: number }>();
    for (const cs of this.list('clusterSummary')) {
      const id = summaryCluster(cs);
      const c = perCluster.get(id) ?? { n: 0, failed: 0 };
      c.n++;
      if (arr(cs.status?.featureSummaries).some((x) => /Failed/.test(str(x.status) ?? ''))) c.failed++;
      perCluster.set(id, c);
    }
    const rows = this.o.registry
      .all()
      .map((e): ClusterRow => {
        const id = clusterLabel(e.ref.namespace, e.ref.name);
        const st = rec(rec(e.object).status);
        return {
          id,
          type: e.type,
          namespace: e.ref.namespace,
          name: e.ref.name,
          labels: { ...e.labels },
          ready: e.ready,
          paused: e.paused,
          connection: e.connectionStatus,
          shard: e.object.metadata.annotations?.[Annotations.shardKey],
          failureMessage: str(st.failureMessage),
          profiles: perCluster.get(id)?.n ?? 0,
          failedProfiles: perCluster.get(id)?.failed ?? 0,
        };
      })
      .sort((a, b) => Number(!!b.failureMessage || b.failedProfiles > 0) - Number(!!a.failureMessage || a.failedProfiles > 0) || a.id.localeCompare(b.id));
    return filterRows(rows, f, (r) => ({ names: [r.id, r.type], labels: r.labels, kinds: [r.type === 'Sveltos' ? 'SveltosCluster' : 'Cluster'], clusters: [r.id] }));
  }

  /** sources lists EventSources and what their reports match per cluster. */
  sources(f: Filter): Page<SourceRow> {
    const reports = this.list('eventReport');
    const rows = this.list('eventSource')
      .map((es): SourceRow => {
        const selects = arr(es.spec?.resourceSelectors).map((s) => {
          const how = [str(s.evaluate) ? 'Lua' : '', str(s.evaluateCEL) || arr(s.evaluateCEL).length ? 'CEL' : ''].filter(Boolean).join('+');
          return `${str(s.kind) ?? '?'}${str(s.group) ? `.${str(s.group)}` : ''}${how ? ` (${how})` : ''}`;
        });
        const matches = reports
          .filter((r) => (str(r.spec?.eventSourceName) ?? r.metadata.labels?.[Labels.eventSourceName]) === es.metadata.name)
          .map((r) => {
            const cluster = clusterLabel(str(r.spec?.clusterNamespace) ?? r.metadata.namespace, str(r.spec?.clusterName));
            return {
              cluster,
              report: `${r.metadata.namespace}/${r.metadata.name}`,
              resources: arr(r.spec?.matchingResources).map((m) => ({ cluster, apiVersion: str(m.apiVersion) ?? '', kind: str(m.kind) ?? '', namespace: str(m.namespace), name: str(m.name) ?? '' })),
              phase: str(r.status?.phase),
              failureMessage: str(r.status?.failureMessage),
            };
          })
          .sort((a, b) => b.resources.length - a.resources.length || a.cluster.localeCompare(b.cluster));
        return { name: es.metadata.name, selects, aggregated: !!str(es.spec?.aggregatedSelection), matches };
      })
      .sort((a, b) => a.name.localeCompare(b.name));
    return filterRows(rows, f, (r) => ({
      names: [r.name, ...r.matches.flatMap((m) => m.resources.map((x) => `${x.namespace ?? ''}/${x.name}`))],
      kinds: ['EventSource', ...r.selects, ...r.matches.flatMap((m) => m.resources.map((x) => x.kind))],
      clusters: r.matches.map((m) => m.cluster),
      labels: {},
    }));
  }

  /** events lists every event (resource matched in a cluster), newest first. */
  events(f: Filter): Page<EventRow> {
    const rows: EventRow[] = [];
    for (const r of this.list('eventReport')) {
      const cluster = clusterLabel(str(r.spec?.clusterNamespace) ?? r.metadata.namespace, str(r.spec?.clusterName));
      for (const m of arr(r.spec?.matchingResources)) {
        const ref = { cluster, apiVersion: str(m.apiVersion) ?? '', kind: str(m.kind) ?? '', namespace: str(m.namespace), name: str(m.name) ?? '' };
        rows.push({ ...ref, eventSource: str(r.spec?.eventSourceName) ?? '', report: `${r.metadata.namespace}/${r.metadata.name}`, time: this.eventSeenAt(cluster, resourceEventId(ref as never)) ?? apiTime(r) });
      }
    }
    rows.sort((a, b) => (b.time ?? 0) - (a.time ?? 0) || a.name.localeCompare(b.name));
    return filterRows(rows, f, (r) => ({ names: [r.name, `${r.namespace ?? ''}/${r.name}`, r.eventSource], kinds: [r.kind], clusters: [r.cluster], labels: {} }));
  }

  /** triggers lists EventTriggers (and EventBasedAddOns) with the objects they generated. */
  triggers(f: Filter): Page<TriggerRow> {
    const generated = new Map<string, GeneratedRef[]>();
    const add = (kind: GeneratedRef['kind'], o: Obj) => {
      const l = o.metadata.labels ?? {};
      const t = l[EventTriggerLabels.eventTriggerName];
      if (!t) return;
      const list = generated.get(t) ?? [];
      list.push({
        kind,
        name: o.metadata.name,
        namespace: o.metadata.namespace,
        cluster: clusterLabel(l[EventTriggerLabels.clusterNamespace], l[EventTriggerLabels.clusterName]),
        event: o.metadata.annotations?.[RippleAnnotations.event],
        deleting: !!o.metadata.deletionTimestamp,
      });
      generated.set(t, list);
    };
    for (const p of this.list('clusterProfile')) add('ClusterProfile', p);
    for (const c of this.list('configMap')) add('ConfigMap', c);
    for (const s of this.list('secret')) add('Secret', s);
    const rows = [...this.list('eventTrigger'), ...this.list('eventBasedAddOn')]
      .map((t): TriggerRow => {
        const sel = t.spec?.sourceClusterSelector ?? t.spec?.clusterSelector;
        const selText =
          typeof sel === 'string'
            ? sel
            : Object.entries(rec(rec(sel).matchLabels))
                .map(([k, v]) => `${k}=${String(v)}`)
                .join(',') || (arr(rec(sel).matchExpressions).length ? 'expressions' : 'none');
        return {
          kind: t.kind === 'EventBasedAddOn' ? 'EventBasedAddOn' : 'EventTrigger',
          name: t.metadata.name,
          eventSource: str(t.spec?.eventSourceName) ?? '',
          sourceClusters: selText,
          oneForEvent: t.spec?.oneForEvent === true,
          matchingClusters: arr(t.status?.matchingClusters).length,
          clusterInfo: arr(t.status?.clusterInfo).map((ci) => ({
            cluster: clusterLabel(str(rec(ci.cluster).namespace), str(rec(ci.cluster).name)),
            status: str(ci.status),
            failureMessage: str(ci.failureMessage),
          })),
          generated: (generated.get(t.metadata.name) ?? []).sort((a, b) => a.kind.localeCompare(b.kind) || a.cluster.localeCompare(b.cluster) || a.name.localeCompare(b.name)),
        };
      })
      .sort((a, b) => Number(b.clusterInfo.some((c) => c.failureMessage)) - Number(a.clusterInfo.some((c) => c.failureMessage)) || a.name.localeCompare(b.name));
    return filterRows(rows, f, (r) => ({
      names: [r.name, r.eventSource, ...r.generated.map((g) => g.name)],
      kinds: [r.kind, ...r.generated.map((g) => g.kind)],
      clusters: [...r.clusterInfo.map((c) => c.cluster), ...r.generated.map((g) => g.cluster)],
      labels: {},
    }));
  }

  /** addons lists ClusterSummaries (failed first) with the objects they deployed. */
  addons(f: Filter): Page<AddonRow> {
    const byOwner = new Map<string, DeployedObject[]>();
    for (const { where, obj } of this.deployed()) {
      const a = obj.metadata.annotations ?? {};
      const k = `${a[Annotations.ownerName] ?? ''}|${a[Annotations.clusterSummary] ?? ''}`;
      const list = byOwner.get(k) ?? [];
      list.push(deployedObject(where, obj));
      byOwner.set(k, list);
    }
    const rows = this.list('clusterSummary')
      .map((cs): AddonRow => {
        const profile = summaryProfile(cs);
        const spec = rec(cs.spec?.clusterProfileSpec ?? cs.spec?.profileSpec);
        const features = arr(cs.status?.featureSummaries).map((x) => ({
          featureID: str(x.featureID) ?? '?',
          status: str(x.status),
          failureMessage: str(x.failureMessage),
          lastAppliedTime: str(x.lastAppliedTime),
          deployedKinds: arr<string>(x.deployedGroupVersionKind).map((g) => parseGvk(g)?.kind ?? g),
        }));
        const stamp = `${str(cs.spec?.clusterType) === 'Capi' ? 'capi' : 'sveltos'}-${str(cs.spec?.clusterNamespace)}-${str(cs.spec?.clusterName)}`;
        const helmStatus = new Map(arr(cs.status?.helmReleaseSummaries).map((h) => [`${str(h.releaseNamespace)}/${str(h.releaseName)}`, str(h.status)]));
        return {
          cluster: summaryCluster(cs),
          summary: { namespace: cs.metadata.namespace ?? '', name: cs.metadata.name },
          profileKind: profile.kind,
          profile: profile.name,
          features,
          policyRefs: arr(spec.policyRefs).map((p) => ({ kind: str(p.kind) ?? 'ConfigMap', namespace: str(p.namespace), name: str(p.name) ?? '', deploymentType: str(p.deploymentType) })),
          helmReleases: arr(spec.helmCharts).map((h) => ({
            releaseNamespace: str(h.releaseNamespace),
            releaseName: str(h.releaseName),
            chart: str(h.chartName),
            version: str(h.chartVersion),
            status: helmStatus.get(`${str(h.releaseNamespace)}/${str(h.releaseName)}`),
          })),
          kustomizationRefs: arr(spec.kustomizationRefs).map((k) => ({ kind: str(k.kind), namespace: str(k.namespace), name: str(k.name), path: str(k.path) })),
          objects: (byOwner.get(`${profile.name}|${stamp}`) ?? []).sort((a, b) => a.kind.localeCompare(b.kind) || a.name.localeCompare(b.name)),
          failed: features.some((x) => /Failed/.test(x.status ?? '') || !!x.failureMessage),
        };
      })
      .sort((a, b) => Number(b.failed) - Number(a.failed) || a.cluster.localeCompare(b.cluster) || a.profile.localeCompare(b.profile));
    return filterRows(rows, f, (r) => ({
      names: [r.profile, r.summary.name, ...r.objects.map((o) => `${o.namespace ?? ''}/${o.name}`), ...r.objects.map((o) => o.name)],
      kinds: [r.profileKind, ...r.objects.map((o) => o.kind), ...r.features.map((x) => x.featureID)],
      clusters: [r.cluster],
      labels: {},
    }));
  }

  /** failures lists every failure, newest first: status failure messages and Warning Events. */
  failures(f: Filter): Page<FailureRow> {
    const rows: FailureRow[] = [];
    for (const cs of this.list('clusterSummary')) {
      for (const x of arr(cs.status?.featureSummaries)) {
        const msg = str(x.failureMessage);
        if (msg) rows.push({ source: 'status', where: this.mgmtRef(cs), field: `status.featureSummaries[${str(x.featureID)}] ${str(x.status) ?? ''}`.trim(), cluster: summaryCluster(cs), message: msg, time: str(x.lastAppliedTime) ?? cs.metadata.creationTimestamp });
      }
    }
    for (const t of [...this.list('eventTrigger'), ...this.list('eventBasedAddOn')]) {
      for (const ci of arr(t.status?.clusterInfo)) {
        const msg = str(ci.failureMessage);
        const cluster = clusterLabel(str(rec(ci.cluster).namespace), str(rec(ci.cluster).name));
        if (msg) rows.push({ source: 'status', where: this.mgmtRef(t), field: `status.clusterInfo[${cluster}]`, cluster, message: msg });
      }
    }
    for (const r of this.list('eventReport')) {
      const msg = str(r.status?.failureMessage);
      if (msg) rows.push({ source: 'status', where: this.mgmtRef(r), field: 'status.failureMessage', cluster: clusterLabel(str(r.spec?.clusterNamespace), str(r.spec?.clusterName)), message: msg });
    }
    for (const p of [...this.list('clusterProfile'), ...this.list('profile')]) {
      const msg = str(p.status?.failureMessage);
      if (msg) rows.push({ source: 'status', where: this.mgmtRef(p), field: 'status.failureMessage', message: msg });
    }
    for (const e of this.o.registry.all()) {
      const msg = str(rec(rec(e.object).status).failureMessage);
      if (msg) rows.push({ source: 'status', where: { cluster: MGMT_ID, apiVersion: e.ref.apiVersion, kind: e.ref.kind, namespace: e.ref.namespace, name: e.ref.name }, field: 'status.failureMessage', cluster: clusterLabel(e.ref.namespace, e.ref.name), message: msg });
    }
    for (const ev of this.list('event')) {
      const e = ev as Obj & { type?: string; reason?: string; message?: string; count?: number; lastTimestamp?: string; eventTime?: string; involvedObject?: Record<string, string> };
      if (e.type !== 'Warning') continue;
      const io = e.involvedObject ?? {};
      rows.push({
        source: 'event',
        where: { cluster: MGMT_ID, apiVersion: io.apiVersion ?? '', kind: io.kind ?? '', namespace: io.namespace, name: io.name ?? '' },
        field: `Event ${e.reason ?? ''}`.trim(),
        message: e.message ?? '',
        time: e.lastTimestamp ?? e.eventTime ?? e.metadata.creationTimestamp,
        count: e.count,
      });
    }
    rows.sort((a, b) => (Date.parse(b.time ?? '') || 0) - (Date.parse(a.time ?? '') || 0) || Number(a.source === 'event') - Number(b.source === 'event'));
    return filterRows(rows, f, (r) => ({ names: [r.where.name, r.message, r.field], kinds: [r.where.kind], clusters: r.cluster ? [r.cluster] : [], labels: {} }));
  }

  /** stop unsubscribes everything. */
  async stop(): Promise<void> {
    this.stopped = true;
    if (this.timer) clearTimeout(this.timer);
    this.removeRegistryListener();
    this.listeners.clear();
    const subs = [...this.subs.values(), ...[...this.deployedSubs.values()].filter((s): s is Subscription<Obj> => !!s)];
    this.subs.clear();
    this.deployedSubs.clear();
    await Promise.all(subs.map((s) => s.unsubscribe()));
  }
}

const TOPICS: Record<GvkName, Topic[]> = {
  eventSource: ['sources'],
  eventTrigger: ['triggers', 'lineage'],
  eventBasedAddOn: ['triggers', 'lineage'],
  eventReport: ['sources', 'lineage'],
  clusterProfile: ['triggers', 'addons', 'lineage'],
  profile: ['addons'],
  clusterSummary: ['addons', 'clusters', 'lineage'],
  configMap: ['triggers', 'lineage'],
  secret: ['triggers', 'lineage'],
  event: ['failures'],
};

/** deployedObject describes an object the deployer applied (stamps read from its annotations). */
export function deployedObject(where: string, obj: Obj): DeployedObject {
  const a = obj.metadata.annotations ?? {};
  return {
    cluster: where,
    apiVersion: obj.apiVersion,
    kind: obj.kind,
    namespace: obj.metadata.namespace,
    name: obj.metadata.name,
    deploymentType: a[Annotations.deploymentType] === 'Local' ? 'Local' : 'Remote',
    source: a[Annotations.referenceName] ? { kind: a[Annotations.referenceKind] ?? 'ConfigMap', namespace: a[Annotations.referenceNamespace], name: a[Annotations.referenceName] } : undefined,
    adopted: a[ADOPTED_ANNOTATION],
    detail: detailOf(obj) || undefined,
  };
}

/** reportNameFor is the EventReport of an EventSource in a cluster (management-cluster name). */
export function reportNameFor(clusterType: string | undefined, eventSource: string, clusterName: string): string {
  return eventReportName(clusterType === 'Capi' ? 'Capi' : 'Sveltos', eventSource, clusterName);
}
