// narrator.ts: tells what the control plane does as it happens, one human line per step — a cluster became ready, an
// EventSource started (or stopped) matching a resource, an EventTrigger generated (or withdrew) a ClusterProfile, the
// deployer applied, changed or removed an object in a cluster, a profile is provisioned or failed, a Warning Event.
// It only watches (informers on the management cluster and, for deployed kinds, on the target clusters) — no log
// parsing, no writes — and only narrates changes after it started (initial lists are state, not news).
import { Annotations, EventTriggerLabels, Labels } from '../api/index.js';
import { ADOPTED_ANNOTATION, HEALTH_PENDING, PRE_DEPLOY_PENDING, parseGvkString } from '../addons/index.js';
import type { ClusterEntry, ClusterEvent, ClusterRegistry } from '../clusters/index.js';
import { errorMessage, type InformerFactory, type KubeObject, type Subscription } from '../kube/index.js';
import { silentLogger, type Logger } from '../obs/index.js';
import { describe, detailOf, objectName } from './describe.js';

/** NarratorOptions configures startNarrator. */
export interface NarratorOptions {
  /** Informer factory of the management cluster. */
  informers: InformerFactory;
  registry: ClusterRegistry;
  /** Receives each line (no trailing newline). */
  write(line: string): void;
  /** At most this many lines per second; the rest is counted and summarized (default 40). */
  maxLinesPerSecond?: number;
  /** Prefix each line with the wall-clock time (default true). */
  timestamps?: boolean;
  logger?: Logger;
}

/** Narrator is a running narrator. */
export interface Narrator {
  stop(): Promise<void>;
}

type Obj = KubeObject & { spec?: Record<string, unknown>; status?: Record<string, unknown> };
interface Ref {
  apiVersion?: string;
  kind?: string;
  namespace?: string;
  name?: string;
}

const KEYS = {
  eventSource: { apiVersion: 'lib.projectsveltos.io/v1beta1', kind: 'EventSource' },
  eventTrigger: { apiVersion: 'lib.projectsveltos.io/v1beta1', kind: 'EventTrigger' },
  eventBasedAddOn: { apiVersion: 'lib.projectsveltos.io/v1alpha1', kind: 'EventBasedAddOn' },
  eventReport: { apiVersion: 'lib.projectsveltos.io/v1beta1', kind: 'EventReport' },
  clusterProfile: { apiVersion: 'config.projectsveltos.io/v1beta1', kind: 'ClusterProfile' },
  clusterSummary: { apiVersion: 'config.projectsveltos.io/v1beta1', kind: 'ClusterSummary' },
  event: { apiVersion: 'v1', kind: 'Event' },
} as const;

// The management cluster's own watch (Local deployments) is keyed by this name.
const LOCAL = '(management cluster)';

const refText = (r: Ref) => `${r.kind ?? 'object'} ${r.namespace ? `${r.namespace}/` : ''}${r.name ?? ''}`;

/** clusterLabel names a cluster briefly: `cluster-a` for ripple up's NAME/NAME convention, else `namespace/name`. */
export function clusterLabel(namespace: string | undefined, name: string | undefined): string {
  return namespace === name || !namespace ? (name ?? '?') : `${namespace}/${name}`;
}

const labelsText = (l: Readonly<Record<string, string>>) =>
  Object.keys(l).filter((k) => !k.startsWith('projectsveltos.io/')).map((k) => `${k}=${l[k]}`).join(',') || 'none';

function matchingRefs(report: Obj | undefined): Map<string, Ref> {
  const out = new Map<string, Ref>();
  for (const r of ((report?.spec?.matchingResources ?? []) as Ref[])) out.set(`${r.apiVersion}|${r.kind}|${r.namespace ?? ''}|${r.name}`, r);
  return out;
}

function resourcesFeature(cs: Obj | undefined): { status?: string; failureMessage?: string; failureReason?: string } | undefined {
  const fs = (cs?.status?.featureSummaries ?? []) as { featureID?: string; status?: string; failureMessage?: string; failureReason?: string }[];
  return fs.find((f) => f.featureID === 'Resources');
}

// What is news about a deployed object: its content and the kind's detail (a Service's load-balancer address lives
// in status) — not metadata churn (resourceVersion, managedFields, stamps) nor status a controller keeps (a
// ClusterProfile's matchingClusters).
function contentOf(o: Obj): string {
  const { metadata: _m, apiVersion: _a, kind: _k, status: _s, ...rest } = o as Record<string, unknown>;
  return `${JSON.stringify(rest)}|${detailOf(o)}`;
}

/** startNarrator subscribes to the informers and narrates until stop(). */
export function startNarrator(o: NarratorOptions): Narrator {
  return new NarratorImpl(o);
}

class NarratorImpl implements Narrator {
  private readonly subs: Subscription<Obj>[] = [];
  private readonly remoteSubs = new Map<string, Subscription<Obj>>();
  private readonly log: Logger;
  private readonly removeListener: () => void;
  private started = false;
  private stopped = false;
  private windowStart = 0;
  private windowLines = 0;
  private suppressed = 0;
  private flushTimer: NodeJS.Timeout | undefined;
  private readonly seenWarnings = new Map<string, number>();

  constructor(private readonly o: NarratorOptions) {
    this.log = (o.logger ?? silentLogger()).child({ component: 'narrator' });
    this.removeListener = o.registry.onChange((e) => this.onCluster(e));
    const sub = (key: { apiVersion: string; kind: string }, h: Parameters<InformerFactory['subscribe']>[1]) => this.subs.push(o.informers.subscribe<Obj>(key, h as never));
    for (const key of [KEYS.eventSource, KEYS.eventTrigger, KEYS.eventBasedAddOn]) {
      sub(key, {
        onAdd: (x: Obj, initial: boolean) => !initial && this.say(`${describeUserObject(x)} created`),
        onUpdate: (a: Obj, b: Obj) => a.metadata.generation !== b.metadata.generation && this.say(`${describeUserObject(b)} changed`),
        onDelete: (x: Obj) => this.say(`${objectName(x)} deleted`),
      });
    }
    sub(KEYS.eventReport, {
      onAdd: (x: Obj, initial: boolean) => !initial && this.onReport(undefined, x),
      onUpdate: (a: Obj, b: Obj) => this.onReport(a, b),
      onDelete: (x: Obj) => this.onReport(x, undefined),
    });
    sub(KEYS.clusterProfile, {
      onAdd: (x: Obj, initial: boolean) => !initial && this.onProfile('added', x),
      onDelete: (x: Obj) => this.onProfile('deleted', x),
    });
    sub(KEYS.clusterSummary, {
      onAdd: (x: Obj, initial: boolean) => this.onSummary(undefined, x, initial),
      onUpdate: (a: Obj, b: Obj) => this.onSummary(a, b, false),
      onDelete: (x: Obj) => this.say(`ClusterProfile ${profileOf(x)}: add-ons withdrawn from cluster ${summaryCluster(x)}`),
    });
    sub(KEYS.event, {
      onAdd: (x: Obj, initial: boolean) => this.onEvent(x, initial),
      onUpdate: (_a: Obj, b: Obj) => this.onEvent(b, false),
    });
    // Everything delivered so far was the initial state; from here on it is news.
    queueMicrotask(() => (this.started = true));
  }

  // ---------------------------------------------------------------------------------------------------------------
  // what happened

  private onCluster(e: ClusterEvent): void {
    if (e.kind !== 'cluster') return;
    const c = e.entry;
    const name = clusterLabel(c.ref.namespace, c.ref.name);
    switch (e.type) {
      case 'added':
        this.say(`cluster ${name} registered (${c.type}Cluster ${c.ref.namespace}/${c.ref.name}, labels ${labelsText(c.labels)})${c.ready ? '' : ', waiting for it to be ready'}`);
        return;
      case 'removed':
        this.say(`cluster ${name} unregistered`);
        return;
      case 'updated':
        if (e.changed.includes('ready') && c.ready) this.say(`cluster ${name} is ready (labels ${labelsText(c.labels)})`);
        if (e.changed.includes('labels') && labelsText(e.old.labels) !== labelsText(c.labels)) this.say(`cluster ${name} labels are now ${labelsText(c.labels)}`);
        if (e.changed.includes('connection') && c.connectionStatus) this.say(`cluster ${name} connection ${c.connectionStatus}`);
        if (e.changed.includes('paused')) this.say(`cluster ${name} ${c.paused ? 'paused' : 'resumed'}`);
        return;
    }
  }

  private onReport(before: Obj | undefined, after: Obj | undefined): void {
    const r = (after ?? before)!;
    const spec = (r.spec ?? {}) as { eventSourceName?: string; clusterNamespace?: string; clusterName?: string };
    const es = spec.eventSourceName ?? r.metadata.labels?.[Labels.eventSourceName] ?? '?';
    const cluster = clusterLabel(spec.clusterNamespace ?? r.metadata.namespace, spec.clusterName);
    const was = matchingRefs(before);
    const now = matchingRefs(after);
    for (const [k, ref] of now) if (!was.has(k)) this.say(`event: EventSource ${es} matches ${refText(ref)} in cluster ${cluster}`);
    for (const [k, ref] of was) if (!now.has(k)) this.say(`event: EventSource ${es} no longer matches ${refText(ref)} in cluster ${cluster}`);
  }

  private onProfile(what: 'added' | 'deleted', p: Obj): void {
    const l = p.metadata.labels ?? {};
    if (l[Labels.reason]) return; // deployed by a profile: narrated as a deployed object
    const trigger = l[EventTriggerLabels.eventTriggerName];
    if (!trigger) {
      this.say(`ClusterProfile ${p.metadata.name} ${what === 'added' ? 'created' : 'deleted'}`);
      return;
    }
    const cluster = clusterLabel(l[EventTriggerLabels.clusterNamespace], l[EventTriggerLabels.clusterName]);
    const resource = l[EventTriggerLabels.resourceName]
      ? ` for ${l[EventTriggerLabels.resourceNamespace] ? `${l[EventTriggerLabels.resourceNamespace]}/` : ''}${l[EventTriggerLabels.resourceName]}`
      : '';
    if (what === 'added') this.say(`EventTrigger ${trigger} generated ClusterProfile ${p.metadata.name}${resource} in cluster ${cluster} (${detailOf(p)})`);
    else this.say(`EventTrigger ${trigger} withdrew ClusterProfile ${p.metadata.name}${resource} (cluster ${cluster})`);
  }

  private onSummary(before: Obj | undefined, cs: Obj, initial: boolean): void {
    this.followDeployedKinds(cs, initial);
    if (initial) return;
    const was = resourcesFeature(before);
    const now = resourcesFeature(cs);
    if (!now || (was?.status === now.status && was?.failureMessage === now.failureMessage)) return;
    const profile = profileOf(cs);
    const cluster = summaryCluster(cs);
    if (now.status === 'Provisioned') this.say(`ClusterProfile ${profile}: add-ons provisioned in cluster ${cluster}`);
    else if ((now.status === 'Failed' || now.status === 'FailedNonRetriable') && now.failureMessage) this.say(`ClusterProfile ${profile}: failed in cluster ${cluster}: ${now.failureMessage}`);
    // Deployed (or about to be) but held back by validateHealths / preDeployChecks: say what it waits for.
    else if (now.status === 'Provisioning' && now.failureMessage && (now.failureReason === HEALTH_PENDING || now.failureReason === PRE_DEPLOY_PENDING)) this.say(`ClusterProfile ${profile}: waiting in cluster ${cluster}: ${now.failureMessage}`);
  }

  private onEvent(e: Obj, initial: boolean): void {
    const ev = e as Obj & { type?: string; reason?: string; message?: string; count?: number; involvedObject?: Ref };
    if (ev.type !== 'Warning') return;
    const key = `${e.metadata.namespace}/${e.metadata.name}`;
    const count = ev.count ?? 1;
    const seen = this.seenWarnings.get(key);
    this.seenWarnings.set(key, count);
    if (initial || seen === count) return;
    this.say(`warning: ${refText(ev.involvedObject ?? {})}: ${ev.reason}: ${ev.message}`);
  }

  // Deployed objects: one label-selected informer per (cluster, kind) that some ClusterSummary deployed, on the
  // target cluster and on the management cluster (Local deployments), opened when the kind first appears.
  private followDeployedKinds(cs: Obj, initial: boolean): void {
    const spec = (cs.spec ?? {}) as { clusterNamespace?: string; clusterName?: string; clusterType?: string };
    const gvks = new Set<string>();
    for (const list of [cs.status?.deployedGVKs, cs.status?.featureSummaries] as { deployedGroupVersionKind?: string[] }[][] | undefined[]) {
      for (const f of list ?? []) for (const g of f.deployedGroupVersionKind ?? []) gvks.add(g);
    }
    if (gvks.size === 0 || !spec.clusterName) return;
    const entry = this.o.registry.get({ apiVersion: spec.clusterType === 'Capi' ? 'cluster.x-k8s.io/v1beta1' : 'lib.projectsveltos.io/v1beta1', kind: spec.clusterType === 'Capi' ? 'Cluster' : 'SveltosCluster', namespace: spec.clusterNamespace, name: spec.clusterName });
    for (const g of gvks) {
      const key = parseGvkString(g);
      if (!key) continue;
      this.follow(LOCAL, key, Promise.resolve(this.o.informers), initial);
      if (entry) this.follow(entry.key, key, this.o.registry.informers(entry.key), initial, entry);
    }
  }

  private follow(where: string, gvk: { apiVersion: string; kind: string }, factory: Promise<InformerFactory>, initial: boolean, entry?: ClusterEntry): void {
    const id = `${where}|${gvk.apiVersion}|${gvk.kind}`;
    if (this.remoteSubs.has(id) || this.stopped) return;
    this.remoteSubs.set(id, undefined as never);
    // Subscriptions opened at start report existing objects as state; later ones are for a kind just deployed.
    const narrateInitial = !initial && this.started;
    const cluster = entry ? clusterLabel(entry.ref.namespace, entry.ref.name) : LOCAL;
    factory.then(
      (f) => {
        if (this.stopped) return;
        const s = f.subscribe<Obj>(
          { ...gvk, labelSelector: Labels.reason },
          {
            onAdd: (x, init) => (!init || narrateInitial) && this.onDeployed(cluster, undefined, x),
            onUpdate: (a, b) => this.onDeployed(cluster, a, b),
            onDelete: (x) => this.onGone(f, cluster, x),
          },
        );
        this.remoteSubs.set(id, s);
      },
      (err: unknown) => {
        this.remoteSubs.delete(id);
        this.log.debug({ cluster, err: errorMessage(err) }, 'cannot watch deployed objects');
      },
    );
  }

  // A label-selected watch reports an object that lost its stamps (an adopted object released on withdrawal) as
  // deleted: one read tells which it was.
  private onGone(f: InformerFactory, where: string, x: Obj): void {
    f.client.getIfExists<Obj>({ apiVersion: x.apiVersion, kind: x.kind, namespace: x.metadata.namespace, name: x.metadata.name }).then(
      (cur) => (cur && cur.metadata.uid === x.metadata.uid ? this.onReleased(where, x) : this.onDeployed(where, x, undefined)),
      () => this.onDeployed(where, x, undefined),
    );
  }

  private onReleased(where: string, x: Obj): void {
    const local = x.metadata.annotations?.[Annotations.deploymentType] === 'Local';
    if (local !== (where === LOCAL)) return;
    this.say(`released ${objectName(x)} in ${local ? 'mgmt' : where}: Ripple no longer manages it (stamps and the fields it wrote removed)`);
  }

  // Each object is narrated once: Local objects by the management cluster's watch (they live there, whichever cluster
  // their ClusterSummary targets), Remote ones by the watch of the cluster they were deployed to (mgmt/mgmt included).
  private onDeployed(where: string, before: Obj | undefined, after: Obj | undefined): void {
    const x = (after ?? before)!;
    const a = x.metadata.annotations ?? {};
    const local = a[Annotations.deploymentType] === 'Local';
    if (local !== (where === LOCAL)) return;
    const by = a[Annotations.ownerName] ? ` by ${a[Annotations.ownerKind] ?? 'ClusterProfile'} ${a[Annotations.ownerName]}` : '';
    const target = local ? `mgmt (Local, for cluster ${clusterFromSummaryStamp(a[Annotations.clusterSummary])})` : where;
    const adopted = a[ADOPTED_ANNOTATION];
    if (!before) {
      this.say(adopted ? `adopted the existing ${describe(x)} in ${target}${by}: Ripple writes its ${adopted}` : `deployed ${describe(x)} to ${target}${by}`);
    } else if (!after) {
      this.say(`${objectName(x)} deleted from ${target}`);
    } else if (contentOf(before) !== contentOf(after)) {
      this.say(`${objectName(x)} in ${target} changed: ${detailOf(after) || 'updated'}`);
    }
  }

  // ---------------------------------------------------------------------------------------------------------------
  // output

  private say(line: string): void {
    if (this.stopped) return;
    const now = Date.now();
    if (now - this.windowStart >= 1000) {
      this.windowStart = now;
      this.windowLines = 0;
    }
    if (this.windowLines >= (this.o.maxLinesPerSecond ?? 40)) {
      this.suppressed++;
      this.flushTimer ??= setTimeout(() => this.flushSuppressed(), 1000);
      return;
    }
    this.windowLines++;
    this.emit(line);
  }

  private flushSuppressed(): void {
    this.flushTimer = undefined;
    if (this.suppressed === 0 || this.stopped) return;
    const n = this.suppressed;
    this.suppressed = 0;
    this.emit(`… ${n} more change(s) not shown (too many to narrate; the informers and logs have them)`);
  }

  private emit(line: string): void {
    const ts = this.o.timestamps === false ? '' : `${new Date().toISOString().slice(11, 23)}  `;
    this.o.write(`${ts}${line}`);
  }

  async stop(): Promise<void> {
    this.stopped = true;
    if (this.flushTimer) clearTimeout(this.flushTimer);
    this.removeListener();
    const remote = [...this.remoteSubs.values()].filter(Boolean);
    this.remoteSubs.clear();
    await Promise.all([...this.subs, ...remote].map((s) => s.unsubscribe()));
  }
}

function describeUserObject(x: Obj): string {
  const spec = x.spec ?? {};
  if (x.kind === 'EventTrigger' || x.kind === 'EventBasedAddOn') {
    const sel = (spec.sourceClusterSelector ?? spec.clusterSelector) as unknown;
    const selText = typeof sel === 'string' ? sel : sel && typeof sel === 'object' ? labelsText(((sel as { matchLabels?: Record<string, string> }).matchLabels ?? {}) as Record<string, string>) : 'none';
    return `${x.kind} ${x.metadata.name} (EventSource ${String(spec.eventSourceName ?? '?')}, source clusters ${selText})`;
  }
  return objectName(x);
}

function profileOf(cs: Obj): string {
  const l = cs.metadata.labels ?? {};
  return l[Labels.clusterProfileName] ?? l['projectsveltos.io/profile-name'] ?? cs.metadata.name;
}

function summaryCluster(cs: Obj): string {
  const spec = (cs.spec ?? {}) as { clusterNamespace?: string; clusterName?: string };
  return clusterLabel(spec.clusterNamespace, spec.clusterName);
}

// The clustersummary stamp is `<sveltos|capi>-<clusterNamespace>-<clusterName>`; ripple up's clusters are NAME/NAME.
function clusterFromSummaryStamp(v: string | undefined): string {
  if (!v) return '?';
  const rest = v.replace(/^(sveltos|capi)-/, '');
  const half = (rest.length - 1) / 2;
  if (Number.isInteger(half) && rest[half] === '-' && rest.slice(0, half) === rest.slice(half + 1)) return rest.slice(0, half);
  return rest;
}
