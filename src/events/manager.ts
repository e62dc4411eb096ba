// manager.ts: the event manager's reconcilers, driven by informers on the management cluster. Three kinds of keys:
//
//   T|<trigger>              the EventTrigger (or EventBasedAddOn) itself: finalizer, selected clusters, status
//   C|<trigger>|<clusterKey> one (trigger, cluster): read → render → plan → execute → per-cluster result
//   R|<namespace>/<name>     one management-cluster EventReport: status.phase Processed + failureMessage
//
// Every key is level-based (it reads the caches, never the event that woke it). Informer handlers only map objects
// to keys: a report change wakes exactly the (trigger, cluster) pairs whose EventSource it is, a ConfigMap change
// exactly the pairs that read it (recorded per reconcile), a generated object's change its owner pair.
import { readRefusal, TenantDirectory } from '../tenancy/index.js';
import { Buffer } from 'node:buffer';
import { createHash } from 'node:crypto';
import type { Registry } from 'prom-client';
import {
  Annotations,
  Finalizers,
  matchesLabelSelector,
  normalizeAs,
  SVELTOS_NAMESPACE,
  eventReportName,
  writeVersion,
  type EventReport,
  type EventTrigger,
  type KubeObject as ApiKubeObject,
} from '../api/index.js';
import { clusterKey as makeClusterKey, type ClusterEntry, type ClusterEvent, type ClusterRegistry } from '../clusters/index.js';
import { eventFuncMap, renderClusterTemplate, type FuncOptions } from '../funcs/index.js';
import { decodeJSON, TemplateError, type ExecBudget, type FuncMap, type GoValue } from '../gotemplate/index.js';
import {
  Controller,
  errorMessage,
  isConflict,
  isNotFound,
  isStatusError,
  isTooManyRequests,
  type EventRecorder,
  type InformerFactory,
  type InformerView,
  type KubeClient,
  type KubeObject,
  type Subscription,
  onlyFinalizersChanged,
  onlyStatusChanged,
} from '../kube/index.js';
import { silentLogger, type Logger } from '../obs/index.js';
import { findCollisions } from './collisions.js';
import { EventError, issue, type EventIssue } from './errors.js';
import { eventMetrics, type EventMetrics } from './metrics.js';
import { ownerOfLabels, parseGoDuration, RippleAnnotations, type ClusterIdentity } from './naming.js';
import { eventIdOf, objectKeyOf, plan, type Plan } from './plan.js';
import { renderEvents, sourceKey, type GeneratedObject, type LegacyUse, type RenderContext, type RenderedEvent, type RenderResult, type SourceKind, type SourceObject, type TriggerView } from './render.js';
import { reportEvents, type ReportEvent, type ReportEvents } from './report-events.js';
import type { KnownDocuments } from './report-resources.js';
import { normalizeReport, type ReportEntries } from './report-normalize.js';
import { reportStatus, sameTriggerStatus, triggerStatus, type PairResult, type ReportTriggerState } from './status.js';

/** Clock tells time in milliseconds since the epoch (injected so tests and benches control it). */
export interface Clock {
  now(): number;
}

/** EventManagerOptions configures startEventManager. */
export interface EventManagerOptions {
  /** Client of the management cluster (writes). */
  client: KubeClient;
  /** Shared informer factory of the management cluster (reads). */
  informers: InformerFactory;
  /** The fleet registry (started by the caller). */
  registry: ClusterRegistry;
  logger?: Logger;
  metrics?: Registry;
  /** Kubernetes Events on EventTriggers (warnings: template errors, legacy instantiation, collisions). */
  recorder?: EventRecorder;
  clock?: Clock;
  /** Namespace of instantiated ConfigMaps/Secrets (default `projectsveltos`). */
  namespace?: string;
  /** Budget of every template render (steps, output, milliseconds; default gotemplate's DEFAULT_EXEC_BUDGET, timed
   * with `clock`). */
  renderBudget?: Partial<Omit<ExecBudget, 'clock'>>;
  /** Coalescing window for informer-driven work in ms (default 10). */
  coalesceMs?: number;
  /** Concurrent reconciles (default 16; they mostly wait on the API server). */
  workers?: number;
  /** Server-side apply field manager (default `ripple-event-manager`). */
  fieldManager?: string;
  /**
   * How long per-cluster results may accumulate before the trigger's status is written (default 1000 ms): status is
   * one object per trigger holding every cluster, so a fleet-wide change writes it once per window instead of once
   * per cluster (it does not delay what is generated).
   */
  statusDelayMs?: number;
  /**
   * With the trigger annotation `eventtrigger.ripple.dev/withdraw-after-empty-reports: N`: the time between two
   * observations of an empty report that count as consecutive (default 10 s, Sveltos' collection interval).
   */
  emptyReportIntervalMs?: number;
  /** Template function options (env, resolver, zone); the clock is filled in from `clock`. */
  funcOptions?: Omit<FuncOptions, 'clock'>;
  /**
   * The add-on deployer's ClusterProfile finalizer, when the deployer runs beside this manager (`ripple manager` and
   * `ripple up` set it). Generated ClusterProfiles then carry it from their first write, so the deployer does not
   * write each new profile a second time to add it (one write fewer per generated profile: 10,000 in a cold converge
   * of 100 clusters × 100 events). Without a deployer it must stay unset: nothing would ever remove it.
   */
  profileFinalizer?: string;
}

/** EventManager is a running event manager. */
export interface EventManager {
  /** Resolves once the caches are synced and the first reconciles are queued. */
  readonly ready: Promise<void>;
  stop(): Promise<void>;
}

const FIELD_MANAGER = 'ripple-event-manager';
const ET = { apiVersion: 'lib.projectsveltos.io/v1beta1', kind: 'EventTrigger' } as const;
const EBAO = { apiVersion: 'lib.projectsveltos.io/v1alpha1', kind: 'EventBasedAddOn' } as const;
const ER = { apiVersion: 'lib.projectsveltos.io/v1beta1', kind: 'EventReport' } as const;
const ES = { apiVersion: 'lib.projectsveltos.io/v1beta1', kind: 'EventSource' } as const;
// The agent's evaluation failure on a management-cluster EventReport (src/agent/report.ts EVALUATION_FAILURE_ANNOTATION;
// status.failureMessage there is ours).
const EVALUATION_FAILURE = 'agent.ripple.dev/evaluation-failure';
const CP = { apiVersion: 'config.projectsveltos.io/v1beta1', kind: 'ClusterProfile' } as const;
const CM = { apiVersion: 'v1', kind: 'ConfigMap' } as const;
const SECRET = { apiVersion: 'v1', kind: 'Secret' } as const;
const OWNER_INDEX = 'events/owner';
const TRIGGER_INDEX = 'events/trigger';
// ClusterProfiles by `<trigger>/<oneForEvent>` (the mode they were generated with; deleting ones left out).
const MODE_INDEX = 'events/trigger-mode';
const MAX_MESSAGE = 4096;

type Obj = KubeObject;

/** RenderMemo is what renderMemoized keeps for one (trigger, cluster) pair. */
interface RenderMemo {
  /** Trigger identity and version, EventSource name, namespace and cluster object: any change renders everything. */
  ctxKey: string;
  /** depsVersion of deps when the memo was last used. */
  depsVersion: string;
  deps: Set<string>;
  legacy: Map<string, LegacyUse>;
  byEvent: Map<string, { key: string; rendered: RenderedEvent }>;
}

/** startEventManager starts the event manager; see the file comment. */
export function startEventManager(options: EventManagerOptions): EventManager {
  const m = new Manager(options);
  return { ready: m.start(), stop: () => m.stop() };
}

interface TriggerSource {
  raw: Obj;
  kind: 'EventTrigger' | 'EventBasedAddOn';
  view?: TriggerView;
  /** Why the trigger cannot be acted on (normalisation failed, shadowed EventBasedAddOn). */
  problem?: string;
  deleting: boolean;
  finalizer: string;
}

const keyT = (t: string) => `T|${t}`;
const keyC = (t: string, c: string) => `C|${t}|${c}`;
const keyR = (ns: string, name: string) => `R|${ns}/${name}`;

function parseClusterKey(k: string): ClusterIdentity | undefined {
  const m = /^(Capi|Sveltos):([^/]*)\/(.+)$/.exec(k);
  return m ? { type: m[1] as 'Capi' | 'Sveltos', namespace: m[2], name: m[3] } : undefined;
}

function truncate(s: string): string {
  return s.length <= MAX_MESSAGE ? s : s.slice(0, MAX_MESSAGE - 20) + ' … (truncated)';
}

class Manager {
  private readonly client: KubeClient;
  private readonly registry: ClusterRegistry;
  private readonly log: Logger;
  private readonly recorder: EventRecorder | undefined;
  private readonly clock: Clock;
  private readonly namespace: string;
  private readonly fieldManager: string;
  private readonly profileFinalizer: string | undefined;
  private readonly statusDelayMs: number;
  private readonly metrics: EventMetrics | undefined;
  private readonly funcOptions: FuncOptions;
  private readonly funcs: FuncMap;
  private readonly controller: Controller;
  private readonly subs: Subscription<Obj>[] = [];
  private removeClusterListener: (() => void) | undefined;
  private stopped = false;

  private et!: InformerView<Obj>;
  private ebao!: InformerView<Obj>;
  private er!: InformerView<Obj>;
  /** EventSources, only to tell a missing one in status (the agents evaluate them). */
  private es!: InformerView<Obj>;
  private cp!: InformerView<Obj>;
  private cm!: InformerView<Obj>;
  private secret!: InformerView<Obj>;

  // ---- in-memory state (all rebuilt by reconciling after a restart) ----
  /** Last result per trigger, per cluster key. */
  private readonly results = new Map<string, Map<string, PairResult>>();
  /** ConfigMap/Secret dependency → pairs that read it, and the reverse. */
  private readonly deps = new Map<string, Set<string>>();
  private readonly depsOf = new Map<string, Set<string>>();
  /** Per pair: the last rendering of each event, valid while its context and referenced objects are unchanged. */
  private readonly renderMemo = new Map<string, RenderMemo>();
  /** Per pair: the desired objects of the last reconcile and their content hash. */
  private readonly lastDesired = new Map<string, { objects: readonly GeneratedObject[]; sorted: string[]; hash: string }>();
  /** Per pair: consecutive observations of an empty report and when the last one counted (empty-report debounce). */
  private readonly emptySeen = new Map<string, { count: number; at: number }>();
  /** Per pair: when each event was first seen missing (grace period). */
  private readonly absentSince = new Map<string, Map<string, number>>();
  /** Per management EventReport: per trigger, the generation processed and the failure if any. */
  private readonly reportStates = new Map<string, Map<string, ReportTriggerState>>();
  /** Per pair: the report it last read (to drop its state when it stops reading it). */
  private readonly pairReport = new Map<string, string>();
  /** ClusterProfile `Kind/ns/name` → metadata.generation right after our last write. */
  private readonly writtenGenerations = new Map<string, number>();
  /** Per trigger: signature of what the fan-out to its clusters depends on, and the last selection. */
  private readonly fanoutSig = new Map<string, string>();
  /** Per trigger: selected cluster keys at the last trigger reconcile. */
  private readonly selected = new Map<string, Set<string>>();
  /** EventSource name → triggers with that literal eventSourceName; triggers whose name is a template. */
  private readonly byEventSource = new Map<string, Set<string>>();
  private readonly templatedEventSource = new Set<string>();
  private readonly eventSourceOf = new Map<string, string>();
  /** When a report's change was seen (latency metric), by report `ns/name`. */
  private readonly reportSeenAt = new Map<string, number>();
  /** Warnings already emitted (trigger + message), so repeats are not re-recorded on every reconcile. */
  private readonly warned = new Map<string, string>();

  private readonly normalized = new WeakMap<object, ReturnType<typeof normalizeAs<'EventTrigger'>>>();
  private readonly normalizedReports = new WeakMap<object, EventReport | undefined>();
  private readonly decodedReports = new WeakMap<object, Map<boolean, ReportEvents | EventError>>();
  /** Per report `ns/name`: its collected documents as last decoded, so a new version decodes only what changed. */
  private readonly reportDocuments = new Map<string, KnownDocuments>();
  private readonly clusterJSON = new WeakMap<object, string>();
  /** Generated objects (`kind/ns/name`) → resourceVersion of our last write, until the watch delivers it. */
  private readonly ownWrites = new Map<string, OwnWrite>();
  /** Per report `ns/name`: the signature (reportSignature) and normalisation of the version last read. */
  private readonly lastReport = new Map<string, { sig: string; normalized: EventReport | undefined; entries?: ReportEntries }>();

  private readonly tenants: TenantDirectory;

  constructor(private readonly o: EventManagerOptions) {
    this.tenants = new TenantDirectory(o.informers);
    this.client = o.client;
    this.registry = o.registry;
    this.log = (o.logger ?? silentLogger()).child({ component: 'events' });
    this.recorder = o.recorder;
    this.clock = o.clock ?? { now: () => Date.now() };
    this.namespace = o.namespace ?? SVELTOS_NAMESPACE;
    this.fieldManager = o.fieldManager ?? FIELD_MANAGER;
    this.profileFinalizer = o.profileFinalizer;
    this.statusDelayMs = o.statusDelayMs ?? 1000;
    this.metrics = o.metrics ? eventMetrics(o.metrics) : undefined;
    this.funcOptions = { ...o.funcOptions, clock: this.clock };
    this.funcs = eventFuncMap(this.funcOptions);
    this.controller = new Controller({
      name: 'event-manager',
      reconcile: (key) => this.reconcile(key),
      workers: o.workers ?? 16,
      logger: this.log,
      metrics: o.metrics,
      coalesceMs: o.coalesceMs ?? 10,
    });
  }

  // ---------------------------------------------------------------------------------------------------------------
  // wiring

  async start(): Promise<void> {
    const inf = this.o.informers;
    const sub = (key: { apiVersion: string; kind: string }, h: Parameters<InformerFactory['subscribe']>[1]) => {
      const s = inf.subscribe<Obj>(key, h);
      this.subs.push(s);
      return s.informer;
    };
    const ownerIndex = (o: Obj): string[] => {
      const owner = ownerOfLabels(o.metadata.labels);
      return owner ? [`${owner.trigger}|${makeClusterKey(owner.cluster.type, owner.cluster.namespace, owner.cluster.name)}`] : [];
    };
    const triggerIndex = (o: Obj): string[] => {
      const owner = ownerOfLabels(o.metadata.labels);
      return owner ? [owner.trigger] : [];
    };

    this.et = sub(ET, this.triggerHandlers());
    this.ebao = sub(EBAO, this.triggerHandlers());
    this.cp = sub(CP, this.generatedHandlers());
    this.cm = sub(CM, this.sourceHandlers('ConfigMap'));
    this.secret = sub(SECRET, this.sourceHandlers('Secret'));
    for (const i of [this.cp, this.cm, this.secret]) {
      i.addIndexer(OWNER_INDEX, ownerIndex);
      i.addIndexer(TRIGGER_INDEX, triggerIndex);
    }
    // The oneForEvent freeze check runs on every reconcile: an index keeps it O(1) instead of scanning every
    // ClusterProfile the trigger generated across the fleet.
    this.cp.addIndexer(MODE_INDEX, (o: Obj): string[] => {
      const owner = ownerOfLabels(o.metadata.labels);
      const mode = o.metadata.annotations?.[RippleAnnotations.oneForEvent];
      return owner && mode !== undefined && !o.metadata.deletionTimestamp ? [`${owner.trigger}/${mode}`] : [];
    });
    this.er = sub(ER, this.reportHandlers());
    this.es = sub(ES, this.eventSourceHandlers());
    this.removeClusterListener = this.registry.onChange((e) => this.onClusterEvent(e));

    await Promise.all([this.et, this.ebao, this.er, this.es, this.cp, this.cm, this.secret].map((i) => syncedOrAbsent(i)));
    await this.registry.waitForSync();
    if (this.stopped) return;
    // Every trigger once (it fans out to its clusters), and every trigger name that still owns outputs (a trigger
    // deleted while the manager was down: its outputs are withdrawn).
    const names = new Set<string>([...this.et.cache.list(), ...this.ebao.cache.list()].map((o) => o.metadata.name));
    for (const i of [this.cp, this.cm, this.secret]) for (const n of i.cache.indexValues(TRIGGER_INDEX)) names.add(n);
    for (const n of names) this.controller.enqueue(keyT(n));
    this.controller.start();
  }

  async stop(): Promise<void> {
    this.stopped = true;
    this.removeClusterListener?.();
    await this.controller.stop();
    await Promise.all(this.subs.splice(0).map((s) => s.unsubscribe()));
    await this.tenants.close();
  }

  private triggerHandlers() {
    const changed = (o: Obj) => {
      this.indexEventSource(o);
      this.controller.enqueue(keyT(o.metadata.name));
    };
    return {
      onAdd: changed,
      onUpdate: (_old: Obj, o: Obj) => changed(o),
      onDelete: (o: Obj) => {
        this.unindexEventSource(o.metadata.name);
        if (this.et?.cache.get(undefined, o.metadata.name) || this.ebao?.cache.get(undefined, o.metadata.name)) {
          this.indexEventSource((this.et.cache.get(undefined, o.metadata.name) ?? this.ebao.cache.get(undefined, o.metadata.name))!);
        }
        this.controller.enqueue(keyT(o.metadata.name));
      },
    };
  }

  private indexEventSource(o: Obj): void {
    const name = o.metadata.name;
    this.unindexEventSource(name);
    const es = String((o.spec as { eventSourceName?: unknown } | undefined)?.eventSourceName ?? '');
    if (es.includes('{{') || es === '') this.templatedEventSource.add(name);
    else {
      let s = this.byEventSource.get(es);
      if (!s) this.byEventSource.set(es, (s = new Set()));
      s.add(name);
      this.eventSourceOf.set(name, es);
    }
  }

  private unindexEventSource(name: string): void {
    this.templatedEventSource.delete(name);
    const es = this.eventSourceOf.get(name);
    if (es === undefined) return;
    this.eventSourceOf.delete(name);
    const s = this.byEventSource.get(es);
    if (s?.delete(name) && s.size === 0) this.byEventSource.delete(es);
  }

  // An EventSource appearing or going away changes the status of the triggers naming it (missing or not).
  private eventSourceHandlers() {
    const wake = (o: Obj) => {
      for (const t of this.byEventSource.get(o.metadata.name) ?? []) this.controller.enqueue(keyT(t));
      for (const t of this.templatedEventSource) this.controller.enqueue(keyT(t));
    };
    return { onAdd: wake, onUpdate: (_old: Obj, o: Obj) => wake(o), onDelete: wake };
  }

  private reportHandlers() {
    const wake = (r: Obj) => {
      const spec = (r.spec ?? {}) as { clusterType?: string; clusterNamespace?: string; clusterName?: string; eventSourceName?: string };
      const type = spec.clusterType === 'Capi' || spec.clusterType === 'Sveltos' ? spec.clusterType : undefined;
      if (!type || !spec.clusterName || !spec.eventSourceName) return;
      const ck = makeClusterKey(type, spec.clusterNamespace ?? r.metadata.namespace ?? '', spec.clusterName);
      this.reportSeenAt.set(`${r.metadata.namespace}/${r.metadata.name}`, this.clock.now());
      for (const t of this.byEventSource.get(spec.eventSourceName) ?? []) this.controller.enqueue(keyC(t, ck));
      if (this.templatedEventSource.size > 0) {
        const entry = this.registry.get(ck);
        for (const t of this.templatedEventSource) {
          if (!entry || this.eventSourceNameFor(t, entry) === spec.eventSourceName) this.controller.enqueue(keyC(t, ck));
        }
      }
    };
    return {
      onAdd: (r: Obj) => {
        wake(r);
        this.controller.enqueue(keyR(r.metadata.namespace ?? '', r.metadata.name));
      },
      onUpdate: (old: Obj, r: Obj) => {
        // Status-only writes (ours, the agent's phase) do not change what is generated.
        // The agent's evaluation failure is an annotation: its change changes the trigger's status.
        const failureChanged = old.metadata.annotations?.[EVALUATION_FAILURE] !== r.metadata.annotations?.[EVALUATION_FAILURE];
        if (old.metadata.generation !== r.metadata.generation || old.metadata.deletionTimestamp !== r.metadata.deletionTimestamp || failureChanged) wake(r);
        // The report's status is written once every trigger processed its generation (setReportState wakes it
        // then); a version before that, or one already carrying that status, leaves nothing to do.
        if (this.reportNeedsWrite(r)) this.controller.enqueue(keyR(r.metadata.namespace ?? '', r.metadata.name));
      },
      onDelete: (r: Obj) => {
        wake(r);
        this.reportStates.delete(`${r.metadata.namespace}/${r.metadata.name}`);
        this.reportDocuments.delete(`${r.metadata.namespace ?? ''}/${r.metadata.name}`);
        this.lastReport.delete(`${r.metadata.namespace ?? ''}/${r.metadata.name}`);
        this.reportSeenAt.delete(`${r.metadata.namespace}/${r.metadata.name}`);
      },
    };
  }

  private wakeOwner(o: { metadata: { labels?: Record<string, string> } }): void {
    const owner = ownerOfLabels(o.metadata.labels);
    if (owner) this.controller.enqueue(keyC(owner.trigger, makeClusterKey(owner.cluster.type, owner.cluster.namespace, owner.cluster.name)));
  }

  private generatedHandlers() {
    const wake = (o: Obj) => this.wakeOwner(o);
    // Our own write coming back through the watch is what the reconcile that wrote it already planned for: waking
    // the pair again would only re-plan to a no-op. While our apply is in flight (the watch often delivers it before
    // the response), a version carrying the hash we are writing is held back and judged once the response names
    // our resourceVersion (see execute); afterwards only that exact version is ours. Anyone else's change wakes it.
    const changed = (o: Obj) => {
      const k = generatedKey(o);
      const own = this.ownWrites.get(k);
      if (own !== undefined) {
        const rv = o.metadata.resourceVersion ?? '';
        if (own.rv === undefined) {
          if (own.hash !== undefined && o.metadata.annotations?.[RippleAnnotations.hash] === own.hash) {
            own.held.push(rv);
            return;
          }
        } else {
          this.ownWrites.delete(k);
          if (own.rv === rv) return;
        }
      }
      wake(o);
    };
    const gone = (o: Obj) => {
      this.ownWrites.delete(generatedKey(o));
      wake(o);
    };
    // The add-on deployer's status writes and finalizer on generated ClusterProfiles change nothing the manager generates.
    return { onAdd: changed, onUpdate: (o: Obj, n: Obj) => !onlyStatusChanged(o, n) && !onlyFinalizersChanged(o, n) && changed(n), onDelete: gone, onOwnedChange: changed };
  }

  private sourceHandlers(kind: SourceKind) {
    const generated = this.generatedHandlers();
    const wake = (o: Obj) => {
      if (o.metadata.namespace === this.namespace && ownerOfLabels(o.metadata.labels)) generated.onOwnedChange(o);
      for (const pair of this.deps.get(sourceKey(kind, o.metadata.namespace ?? '', o.metadata.name)) ?? []) {
        const [t, c] = splitPair(pair);
        this.controller.enqueue(keyC(t, c));
      }
    };
    const removed = (o: Obj) => {
      if (o.metadata.namespace === this.namespace && ownerOfLabels(o.metadata.labels)) this.ownWrites.delete(generatedKey(o));
      wake(o);
    };
    return { onAdd: wake, onUpdate: (_o: Obj, n: Obj) => wake(n), onDelete: removed };
  }

  private onClusterEvent(e: ClusterEvent): void {
    const triggers = this.triggerNames();
    if (e.kind === 'cluster') {
      for (const t of triggers) {
        this.controller.enqueue(keyC(t, e.entry.key));
        this.controller.enqueue(keyT(t));
      }
      return;
    }
    for (const t of triggers) {
      const src = this.triggerSource(t);
      if (src?.view?.spec.clusterSetRefs?.includes(e.name)) this.controller.enqueue(keyT(t));
    }
  }

  private triggerNames(): string[] {
    return [...new Set([...this.et.cache.keys(), ...this.ebao.cache.keys()].map((k) => k.slice(k.indexOf('/') + 1)))];
  }

  // ---------------------------------------------------------------------------------------------------------------
  // reading

  /** triggerSource reads the EventTrigger of that name (else the EventBasedAddOn), normalised. */
  private triggerSource(name: string): TriggerSource | undefined {
    const et = this.et.cache.get(undefined, name);
    const eb = this.ebao.cache.get(undefined, name);
    const raw = et ?? eb;
    if (!raw) return undefined;
    const kind = et ? 'EventTrigger' : 'EventBasedAddOn';
    const src: TriggerSource = {
      raw,
      kind,
      deleting: Boolean(raw.metadata.deletionTimestamp),
      finalizer: kind === 'EventTrigger' ? Finalizers.eventTrigger : Finalizers.eventBasedAddOn,
    };
    let n = this.normalized.get(raw);
    if (!n) {
      n = normalizeAs('EventTrigger', raw);
      this.normalized.set(raw, n);
    }
    if (!n.ok) {
      src.problem = `${kind} ${name} cannot be read: ${n.issues.map((i) => `${i.path}: ${i.message}`).join('; ')}`;
      return src;
    }
    const t = n.object as EventTrigger;
    src.view = { name, kind, spec: t.spec, labels: t.metadata.labels ?? {}, annotations: t.metadata.annotations ?? {} };
    return src;
  }

  private report(ns: string, name: string): EventReport | 'invalid' | undefined {
    const raw = this.er.cache.get(ns, name);
    if (!raw) return undefined;
    if (!this.normalizedReports.has(raw)) {
      // A version that differs from the last one read only in status or bookkeeping metadata (the agent's
      // WaitingForDelivery, our Processed: same uid and generation, hence the same spec) is the same report to a
      // pair: reuse its normalisation (a full schema check of the ~100 KB resources blob) and, being the same
      // object, its decoded events.
      const key = `${ns}/${name}`;
      const sig = reportSignature(raw);
      const last = this.lastReport.get(key);
      let normalized: EventReport | undefined;
      let entries = last?.entries;
      if (last && sig !== undefined && last.sig === sig) normalized = last.normalized;
      else {
        const n = normalizeReport(raw, last?.entries);
        normalized = n?.report;
        entries = n?.entries;
      }
      this.normalizedReports.set(raw, normalized);
      if (sig !== undefined) this.lastReport.set(key, { sig, normalized, entries });
      else this.lastReport.delete(key);
    }
    return this.normalizedReports.get(raw) ?? 'invalid';
  }

  private events(report: EventReport, oneForEvent: boolean): ReportEvents {
    let byMode = this.decodedReports.get(report);
    if (!byMode) this.decodedReports.set(report, (byMode = new Map()));
    let r = byMode.get(oneForEvent);
    if (!r) {
      try {
        const key = `${report.metadata.namespace ?? ''}/${report.metadata.name}`;
        r = reportEvents(report, oneForEvent, this.reportDocuments.get(key));
        if (r.documents && r.documents.texts.length > 0) this.reportDocuments.set(key, r.documents);
        else this.reportDocuments.delete(key);
      } catch (e) {
        if (!(e instanceof EventError)) throw e;
        r = e;
      }
      byMode.set(oneForEvent, r);
    }
    if (r instanceof EventError) throw r;
    return r;
  }

  private clusterText(entry: ClusterEntry): string {
    let s = this.clusterJSON.get(entry.object);
    if (s === undefined) {
      s = JSON.stringify(entry.object);
      this.clusterJSON.set(entry.object, s);
    }
    return s;
  }

  /** eventSourceNameFor renders eventSourceName with cluster data (html/template, as libsveltos does). */
  private eventSourceNameFor(trigger: string, entry: ClusterEntry): string | EventIssue {
    const src = this.triggerSource(trigger);
    const text = src?.view?.spec.eventSourceName ?? '';
    if (!text.includes('{{') && text !== '') return text;
    try {
      const cluster = decodeJSON(this.clusterText(entry), { numbers: 'int64' }) as GoValue;
      return renderClusterTemplate(trigger, text, { Cluster: cluster, ClusterNamespace: entry.ref.namespace, ClusterName: entry.ref.name }, this.funcOptions);
    } catch (e) {
      if (e instanceof TemplateError) return issue(e.code === 'parse' ? 'TemplateParse' : 'TemplateExec', `eventSourceName: ${e.message}`);
      throw e;
    }
  }

  private isSelected(spec: TriggerView['spec'], entry: ClusterEntry): boolean {
    const sel = spec.sourceClusterSelector;
    if (matchesLabelSelector(sel, entry.labels, { empty: 'nothing' })) return true;
    for (const name of spec.clusterSetRefs ?? []) {
      for (const r of this.registry.setSelection('ClusterSet', '', name)) {
        if (r.name === entry.ref.name && (r.namespace ?? '') === entry.ref.namespace && (r.kind === undefined || r.kind === entry.ref.kind)) return true;
      }
    }
    return false;
  }

  private outputs(pair: string): { profiles: GeneratedObject[]; objects: GeneratedObject[] } {
    const objects = [...this.cm.cache.byIndex(OWNER_INDEX, pair), ...this.secret.cache.byIndex(OWNER_INDEX, pair)].filter(
      (o) => o.metadata.namespace === this.namespace,
    );
    return { profiles: this.cp.cache.byIndex(OWNER_INDEX, pair) as GeneratedObject[], objects: objects as GeneratedObject[] };
  }

  /** outputClusters lists the cluster keys a trigger still has generated objects for. */
  private outputClusters(trigger: string): Set<string> {
    // From the owner index's values (`<trigger>|<clusterKey>`, one per pair with outputs), not by visiting every
    // generated object: a trigger over 100 clusters × 100 resources owns 20,000 of them.
    const out = new Set<string>();
    const prefix = `${trigger}|`;
    for (const i of [this.cp, this.cm, this.secret]) {
      for (const v of i.cache.indexValues(OWNER_INDEX)) if (v.startsWith(prefix)) out.add(v.slice(prefix.length));
    }
    return out;
  }

  // ---------------------------------------------------------------------------------------------------------------
  // reconcile

  private async reconcile(key: string): Promise<{ requeueAfter?: number } | void> {
    if (key.startsWith('C|')) {
      const [t, c] = splitPair(key.slice(2));
      return this.reconcilePair(t, c);
    }
    if (key.startsWith('T|')) return this.reconcileTrigger(key.slice(2));
    if (key.startsWith('R|')) {
      const s = key.slice(2);
      const i = s.indexOf('/');
      return this.reconcileReport(s.slice(0, i), s.slice(i + 1));
    }
  }

  private async reconcileTrigger(name: string): Promise<void> {
    const src = this.triggerSource(name);
    const withOutputs = this.outputClusters(name);
    const withResults = new Set(this.results.get(name)?.keys() ?? []);
    const fanOut = (keys: Iterable<string>) => {
      for (const c of keys) this.controller.enqueue(keyC(name, c));
    };
    if (!src) {
      // Gone (possibly while we were down): withdraw everything it generated.
      fanOut(new Set([...withOutputs, ...withResults]));
      this.forgetTrigger(name);
      return;
    }
    if (src.problem) {
      this.warn(src, 'InvalidSpec', src.problem);
      return;
    }
    const spec = src.view!.spec;
    if (src.deleting) {
      fanOut(new Set([...withOutputs, ...withResults]));
      if (withOutputs.size === 0 && src.raw.metadata.finalizers?.includes(src.finalizer)) {
        await this.setFinalizer(src, false);
        this.forgetTrigger(name);
      }
      return;
    }
    if (!src.raw.metadata.finalizers?.includes(src.finalizer)) await this.setFinalizer(src, true);
    const shadowed = src.kind === 'EventTrigger' ? this.ebao.cache.get(undefined, name) : undefined;
    if (shadowed) {
      const other: TriggerSource = { raw: shadowed, kind: 'EventBasedAddOn', deleting: Boolean(shadowed.metadata.deletionTimestamp), finalizer: Finalizers.eventBasedAddOn };
      if (other.deleting) {
        // Its outputs are the EventTrigger's: nothing to clean up for it.
        if (shadowed.metadata.finalizers?.includes(other.finalizer)) await this.setFinalizer(other, false);
      } else {
        const msg = `EventBasedAddOn ${name} is ignored: an EventTrigger with the same name exists (their generated objects would collide); rename or delete one of them`;
        this.warn(other, 'NameCollision', msg);
      }
    }

    const matching = this.registry.matching(
      { clusterSelector: spec.sourceClusterSelector, clusterSetRefs: spec.clusterSetRefs },
      { includePaused: true },
    );
    // With sharding, the status lists every shard's matching clusters (each shard reports the results of its own),
    // so shards do not overwrite each other's clusters out of it.
    const fleet = this.registry.hasClustersInOtherShards()
      ? this.registry.matching({ clusterSelector: spec.sourceClusterSelector, clusterSetRefs: spec.clusterSetRefs }, { includePaused: true, allShards: true })
      : matching;
    const matchKeys = new Set(matching.map((e) => e.key));
    const prev = this.selected.get(name);
    const sig = JSON.stringify([src.raw.metadata.generation, src.raw.metadata.labels ?? {}, src.raw.metadata.annotations ?? {}]);
    const selectionChanged = !prev || prev.size !== matchKeys.size || [...matchKeys].some((k) => !prev.has(k));
    if (selectionChanged || this.fanoutSig.get(name) !== sig) {
      fanOut(new Set([...matchKeys, ...withOutputs, ...withResults, ...(prev ?? [])]));
      this.fanoutSig.set(name, sig);
      this.selected.set(name, matchKeys);
    }
    this.metrics?.matchingClusters.set({ event_trigger_name: name }, matching.length);

    const results = new Map<string, PairResult>();
    for (const c of new Set([...matchKeys, ...withResults])) {
      const r = this.results.get(name)?.get(c);
      if (r) results.set(c, r);
    }
    const stored = (src.raw.status ?? undefined) as EventTrigger['status'];
    const status = triggerStatus(fleet.map((e) => ({ key: e.key, ref: { ...e.ref } })), results, stored);
    if (!sameTriggerStatus(stored, status)) {
      await this.client.apply(
        { apiVersion: writeVersion(src.raw) ?? src.raw.apiVersion, kind: src.kind, metadata: { name }, status } as ApiKubeObject,
        { fieldManager: this.fieldManager, force: true, subresource: 'status' },
      );
    }
  }

  private forgetTrigger(name: string): void {
    this.fanoutSig.delete(name);
    this.selected.delete(name);
    this.metrics?.matchingClusters.remove({ event_trigger_name: name });
    for (const k of [...this.warned.keys()]) if (k.startsWith(`${name}|`)) this.warned.delete(k);
  }

  private async setFinalizer(src: TriggerSource, present: boolean): Promise<void> {
    const current = src.raw.metadata.finalizers ?? [];
    const finalizers = present ? [...current, src.finalizer] : current.filter((f) => f !== src.finalizer);
    try {
      await this.client.patch(
        { apiVersion: writeVersion(src.raw) ?? src.raw.apiVersion, kind: src.kind, name: src.raw.metadata.name },
        'merge',
        { metadata: { resourceVersion: src.raw.metadata.resourceVersion, finalizers } },
      );
    } catch (e) {
      if (isNotFound(e)) return;
      throw e;
    }
  }

  /**
   * reconcilePair brings the generated objects of one (trigger, cluster) in line with the trigger, the cluster and
   * the cluster's EventReport.
   */
  private async reconcilePair(trigger: string, ck: string): Promise<{ requeueAfter?: number } | void> {
    const t0 = performance.now();
    const pair = `${trigger}|${ck}`;
    const id = parseClusterKey(ck);
    if (!id) return;
    const src = this.triggerSource(trigger);
    const entry = this.registry.get(ck);
    if (!entry && this.registry.inOtherShard(ck)) {
      // The cluster moved to another shard: its generated objects are that shard's now (same deterministic names, so
      // it adopts them); forget our bookkeeping without withdrawing anything.
      this.forgetPairReport(pair, trigger);
      this.setDeps(pair, new Set());
      this.renderMemo.delete(pair);
      this.lastDesired.delete(pair);
      this.absentSince.delete(pair);
      this.emptySeen.delete(pair);
      this.results.get(trigger)?.delete(ck);
      return;
    }
    const observed = this.outputs(pair);
    const prev = this.results.get(trigger)?.get(ck);
    const clusterRef = entry
      ? { apiVersion: entry.ref.apiVersion, kind: entry.ref.kind, namespace: entry.ref.namespace, name: entry.ref.name }
      : { apiVersion: id.type === 'Sveltos' ? 'lib.projectsveltos.io/v1beta1' : 'cluster.x-k8s.io/v1beta1', kind: id.type === 'Sveltos' ? 'SveltosCluster' : 'Cluster', namespace: id.namespace, name: id.name };

    const hold = (status: PairResult['status'], failure?: string) => {
      const r: PairResult = { clusterKey: ck, cluster: clusterRef, status, hash: prev?.hash ?? '', matching: prev?.matching ?? 0 };
      if (failure) r.failureMessage = truncate(failure);
      this.setResult(trigger, src, r);
    };

    // Withdraw everything: the trigger is gone or being deleted, the cluster is gone or no longer selected.
    let withdraw: string | undefined;
    if (!src) withdraw = 'EventTrigger deleted';
    else if (src.deleting) withdraw = 'EventTrigger being deleted';
    else if (src.problem) return hold('Failed', src.problem);
    else if (src.view?.annotations[Annotations.capiPaused] !== undefined) {
      // A paused trigger (Cluster API's pause annotation, as Sveltos honours it) changes nothing until unpaused.
      return;
    } else if (!entry || entry.deleting) withdraw = 'cluster deleted';
    else if (entry.paused || !entry.ready) {
      // Pausing is not unselecting, and a cluster that is not ready says nothing about its events: keep everything.
      return;
    } else if (!this.isSelected(src.view!.spec, entry)) withdraw = 'cluster no longer selected';

    if (withdraw !== undefined) {
      if (observed.profiles.length + observed.objects.length > 0) this.log.debug({ trigger, cluster: ck, why: withdraw }, 'withdrawing generated objects');
      this.forgetPairReport(pair, trigger);
      this.setDeps(pair, new Set());
      this.renderMemo.delete(pair);
      this.lastDesired.delete(pair);
      this.absentSince.delete(pair);
      this.emptySeen.delete(pair);
      const p = plan({ desired: [], observedProfiles: observed.profiles, observedObjects: observed.objects, retain: new Set(), remove: new Set(), withdrawAll: true });
      const issues = await this.execute(p);
      const left = observed.profiles.length + observed.objects.length;
      if (left === 0 && issues.length === 0) {
        this.dropResult(trigger, src, pair, id);
      } else {
        hold('Removing', issues.map((i) => i.message).join('; ') || undefined);
      }
      return;
    }

    const view = src!.view!;
    const e = entry!;
    const es = this.eventSourceNameFor(trigger, e);
    if (typeof es !== 'string') return this.failHold(src!, pair, hold, [es]);

    // oneForEvent is immutable: outputs generated with the other value freeze this trigger (see README).
    const oneForEvent = view.spec.oneForEvent === true;
    const otherMode = this.cp.cache.byIndex(MODE_INDEX, `${trigger}/${!oneForEvent}`)[0];
    if (otherMode) {
      const was = otherMode.metadata.annotations?.[RippleAnnotations.oneForEvent];
      return this.failHold(src!, pair, hold, [
        issue(
          'ImmutableField',
          `spec.oneForEvent changed from ${was} to ${oneForEvent} after ClusterProfiles were generated with ${was}; oneForEvent is immutable: restore oneForEvent: ${was}, or delete and recreate the ${src!.kind}. Generated objects are left unchanged until then`,
        ),
      ]);
    }

    const reportName = eventReportName(id.type, es, id.name);
    const reportKey = `${id.namespace}/${reportName}`;
    const report = this.report(id.namespace, reportName);
    let events: ReportEvents;
    let reportGeneration: number | undefined;
    if (report === 'invalid') {
      return this.failHold(src!, pair, hold, [issue('InvalidReport', `EventReport ${reportKey} cannot be read`)], reportKey);
    } else if (report === undefined) {
      // No report: evidence that nothing matches only while the cluster is reachable (the agent deletes reports
      // when nothing is selected any more); a Down cluster keeps what it had.
      if (e.connectionStatus === 'Down') return;
      events = { events: [], matching: 0 };
      this.forgetPairReport(pair, trigger);
    } else if (report.metadata.deletionTimestamp) {
      events = { events: [], matching: 0 };
    } else {
      reportGeneration = report.metadata.generation ?? 0;
      try {
        events = this.events(report, oneForEvent);
      } catch (err) {
        if (err instanceof EventError) return this.failHold(src!, pair, hold, [...err.issues], reportKey, reportGeneration);
        throw err;
      }
    }

    if (!oneForEvent && events.events.some((ev) => (ev.cloudEvents?.length ?? 0) > 0)) {
      // Not a failure (Sveltos accepts it), but the add-on would not last: CloudEvents are cleared once processed and
      // a per-(trigger, cluster) output is withdrawn when the report is empty again. Say so once.
      this.warn(
        src!,
        'CloudEventsNeedOneForEvent',
        `cluster ${ck}: CloudEvents reached a trigger with oneForEvent: false — their ClusterProfile is withdrawn as soon as the report is empty again (CloudEvents are cleared once processed); set oneForEvent: true for one lasting ClusterProfile per CloudEvent source/subject, removed by a Delete CloudEvent`,
        `cloudevents:${pair}`,
      );
    }
    const rendered = this.renderMemoized(
      pair,
      src!,
      {
        trigger: view,
        cluster: { ...id, apiVersion: e.ref.apiVersion, kind: e.ref.kind },
        clusterJSON: this.clusterText(e),
        eventSourceName: es,
        funcs: this.funcs,
        budget: { ...this.o.renderBudget, clock: () => this.clock.now() },
        lookup: (kind, ns, name) => (kind === 'ConfigMap' ? this.cm : this.secret).cache.get(ns, name) as SourceObject | undefined,
        namespace: this.namespace,
      },
      events.events,
    );
    this.setDeps(pair, rendered.deps);
    this.noteLegacy(src!, rendered.legacy);
    // A tenant's trigger instantiates only what the tenant may read itself (nothing of a refused object is written).
    const tenancy = this.tenants.resolve(view.labels);
    if (tenancy.kind !== 'admin') {
      const refusal =
        tenancy.kind === 'invalid'
          ? `tenant labels: ${tenancy.message}`
          : await readRefusal(
              this.client,
              tenancy.tenant,
              [...rendered.deps].map((d) => {
                const [kind, namespace, name] = d.split('/');
                return { apiVersion: 'v1', kind: kind!, namespace, name: name!, via: `${view.kind} ${view.name}` };
              }),
            );
      if (refusal) {
        this.renderMemo.delete(pair);
        this.lastDesired.delete(pair);
        return this.failHold(src!, pair, hold, [issue('Forbidden', refusal)]);
      }
    }

    // The pair's own outputs are the cache's objects of those names: most lookups need not build a cache key.
    const own = new Map<string, GeneratedObject>();
    for (const o of observed.profiles) own.set(objectKeyOf(o), o);
    for (const o of observed.objects) own.set(objectKeyOf(o), o);
    const collisions = findCollisions(
      rendered.events,
      (kind, ns, name, key) => own.get(key) ?? ((kind === 'ClusterProfile' ? this.cp : kind === 'ConfigMap' ? this.cm : this.secret).cache.get(ns, name) as GeneratedObject | undefined),
      { trigger, cluster: id },
    );
    // Rendered events are shared with the render memo: an event's collision is kept beside it, never added to it.
    const failed = (r: RenderedEvent) => r.issues.length > 0 || collisions.has(r.id);

    // Events that went away: withdraw, unless inside the trigger's grace period.
    const now = this.clock.now();
    const present = new Set(rendered.events.map((r) => r.id));
    const retain = new Set(rendered.events.filter(failed).map((r) => r.id));
    const remove = new Set(rendered.events.filter((r) => r.action === 'delete').map((r) => r.id));
    const grace = this.graceMs(view);
    let requeueAfter: number | undefined;
    const absent = this.absentSince.get(pair) ?? new Map<string, number>();
    for (const o of [...observed.profiles, ...observed.objects]) {
      const ev = eventIdOf(o);
      if (present.has(ev) || ev.startsWith('cloudevent:')) continue;
      if (grace > 0) {
        const since = absent.get(ev) ?? now;
        absent.set(ev, since);
        const left = since + grace - now;
        if (left > 0) {
          retain.add(ev);
          requeueAfter = Math.min(requeueAfter ?? left, left);
        }
      }
    }
    const debounce = this.emptyDebounce(pair, src!, report !== undefined && !report.metadata.deletionTimestamp && events.events.length === 0, observed, now);
    if (debounce) {
      for (const ev of debounce.retain) retain.add(ev);
      requeueAfter = Math.min(requeueAfter ?? debounce.requeueAfter, debounce.requeueAfter);
    }
    for (const ev of [...absent.keys()]) if (present.has(ev)) absent.delete(ev);
    if (absent.size > 0) this.absentSince.set(pair, absent);
    else this.absentSince.delete(pair);

    const desired: GeneratedObject[] = [];
    for (const r of rendered.events) {
      if (r.action !== 'create' || failed(r)) continue;
      if (r.profile) desired.push(r.profile);
      desired.push(...r.objects);
    }
    const p = plan({
      desired,
      observedProfiles: observed.profiles,
      observedObjects: observed.objects,
      retain,
      remove,
      withdrawAll: false,
      writtenGenerations: this.writtenGenerations,
    });
    const writeIssues = await this.execute(p);
    if (p.applies.length > 0 || p.deletes.length > 0) {
      const seen = this.reportSeenAt.get(reportKey);
      if (seen !== undefined) {
        this.metrics?.reportToWrite.observe((this.clock.now() - seen) / 1000);
      }
    }

    const issues: EventIssue[] = [];
    for (const r of rendered.events) {
      issues.push(...r.issues);
      const c = collisions.get(r.id);
      if (c) issues.push(c);
    }
    issues.push(...writeIssues);
    if (report === undefined && !this.es.cache.get(undefined, es)) {
      issues.push(issue('MissingEventSource', `EventSource ${JSON.stringify(es)} does not exist: create it, or correct spec.eventSourceName`));
    }
    const badDebounce = this.emptyReportsProblem(view);
    if (badDebounce) issues.push(issue('InvalidSpec', badDebounce));
    const evaluation = report?.metadata.annotations?.[EVALUATION_FAILURE];
    if (evaluation) issues.push(issue('EvaluationFailed', `EventSource ${JSON.stringify(es)} fails to evaluate in this cluster: ${evaluation}`));
    const failure = dedupe(issues.map((i) => i.message)).join('; ');
    const hash = this.desiredHash(pair, desired);
    const status: PairResult['status'] = issues.length > 0 ? 'Failed' : report === undefined && desired.length === 0 ? 'Provisioning' : 'Provisioned';
    const result: PairResult = {
      clusterKey: ck,
      cluster: clusterRef,
      status,
      hash: Buffer.from(hash, 'hex').toString('base64'),
      matching: events.matching,
    };
    if (failure) result.failureMessage = truncate(failure);
    this.setResult(trigger, src, result);
    if (issues.length > 0) this.warn(src!, issues[0].code, `cluster ${ck}: ${result.failureMessage}`, pair);
    else this.warned.delete(`${trigger}|${pair}`);
    // CloudEvents are acted on once: the report's list may be cleared unless this trigger failed on one of them.
    const ceFailed = writeIssues.length > 0 || rendered.events.some((r) => (r.id === 'all' || r.id.startsWith('cloudevent:')) && failed(r));
    if (reportGeneration !== undefined) this.setReportState(pair, trigger, reportKey, reportGeneration, failure || undefined, ceFailed);

    this.recordMetrics(trigger, id, issues.length === 0, events.matching, performance.now() - t0);
    if (p.blocked.length > 0) return { requeueAfter: 500 };
    return requeueAfter !== undefined ? { requeueAfter: Math.ceil(requeueAfter) } : undefined;
  }

  private failHold(
    src: TriggerSource,
    pair: string,
    hold: (status: PairResult['status'], failure?: string) => void,
    issues: EventIssue[],
    reportKey?: string,
    generation?: number,
  ): void {
    const msg = dedupe(issues.map((i) => i.message)).join('; ');
    hold('Failed', msg);
    this.warn(src, issues[0].code, `cluster ${splitPair(pair)[1]}: ${msg}`, pair);
    if (reportKey !== undefined && generation !== undefined) this.setReportState(pair, src.raw.metadata.name, reportKey, generation, msg, true);
  }

  /**
   * emptyDebounce is the opt-in Sveltos-compatible withdrawal debounce: with `withdraw-after-empty-reports: N` an
   * empty report (no matches, no CloudEvents) withdraws the pair's outputs only at the N-th consecutive observation,
   * observations counting at most once per emptyReportIntervalMs (Sveltos: 3, one per 10 s collection). Any
   * non-empty report resets the count. Returns the events to keep and when to look again, or undefined.
   */
  private emptyDebounce(
    pair: string,
    src: TriggerSource,
    empty: boolean,
    observed: { profiles: readonly GeneratedObject[]; objects: readonly GeneratedObject[] },
    now: number,
  ): { retain: string[]; requeueAfter: number } | undefined {
    const n = this.emptyReports(src.view!);
    const outputs = !empty || n <= 1 ? [] : [...observed.profiles, ...observed.objects].map(eventIdOf).filter((id) => !id.startsWith('cloudevent:'));
    if (!empty || n <= 1 || outputs.length === 0) {
      this.emptySeen.delete(pair);
      return undefined;
    }
    const interval = this.o.emptyReportIntervalMs ?? 10_000;
    const prev = this.emptySeen.get(pair);
    const seen = !prev ? { count: 1, at: now } : now - prev.at >= interval ? { count: prev.count + 1, at: now } : prev;
    this.emptySeen.set(pair, seen);
    if (seen !== prev && seen.count < n) {
      const message = `cluster ${splitPair(pair)[1]}: the EventReport is empty (observation ${seen.count} of ${n}, ${RippleAnnotations.withdrawAfterEmptyReports}); outputs kept until the ${n}th consecutive empty observation`;
      this.recorder?.event({ apiVersion: writeVersion(src.raw) ?? src.raw.apiVersion, kind: src.kind, metadata: src.raw.metadata }, 'Normal', 'WithdrawalDebounced', message);
    }
    if (seen.count >= n) {
      this.log.info({ pair, observations: seen.count }, 'empty report observed enough times: withdrawing');
      this.emptySeen.delete(pair);
      return undefined;
    }
    this.log.debug({ pair, observations: seen.count, of: n }, 'empty report: withdrawal debounced');
    return { retain: [...new Set(outputs)], requeueAfter: Math.max(1, seen.at + interval - now) };
  }

  private emptyReports(view: TriggerView): number {
    const v = view.annotations[RippleAnnotations.withdrawAfterEmptyReports];
    if (v === undefined || this.emptyReportsProblem(view)) return 0;
    return Number(v.trim());
  }

  private emptyReportsProblem(view: TriggerView): string | undefined {
    const v = view.annotations[RippleAnnotations.withdrawAfterEmptyReports];
    if (v === undefined || /^\s*[1-9]\d{0,3}\s*$/.test(v)) return undefined;
    return `annotation ${RippleAnnotations.withdrawAfterEmptyReports}: ${JSON.stringify(v)} is not a count between 1 and 9999 (e.g. "3", as Sveltos): outputs are withdrawn at the first empty report until it is fixed`;
  }

  private graceMs(view: TriggerView): number {
    const v = view.annotations[RippleAnnotations.withdrawAfter];
    if (v === undefined) return 0;
    const ms = parseGoDuration(v);
    return ms === undefined ? 0 : ms;
  }

  /** execute performs a plan: applies (ConfigMaps/Secrets, then ClusterProfiles), then deletes. */
  private async execute(p: Plan): Promise<EventIssue[]> {
    const issues: EventIssue[] = [];
    const run = async (f: () => Promise<void>, what: string) => {
      try {
        await f();
      } catch (e) {
        // Invalid content will not become valid by retrying; anything else (conflicts, outages) is retried.
        if (isStatusError(e) && e.code >= 400 && e.code < 500 && !isConflict(e) && !isTooManyRequests(e) && !isNotFound(e)) {
          issues.push(issue('InvalidSpec', `${what}: ${errorMessage(e)}`));
          return;
        }
        throw e;
      }
    };
    const apply = (a: (typeof p.applies)[number]) =>
      run(async () => {
        const k = generatedKey(a.object);
        const own: OwnWrite = { hash: a.object.metadata.annotations?.[RippleAnnotations.hash], held: [] };
        this.ownWrites.set(k, own);
        let written: GeneratedObject;
        try {
          written = await this.client.apply<GeneratedObject>(this.withProfileFinalizer(a.object), { fieldManager: this.fieldManager, force: true });
        } catch (e) {
          if (this.ownWrites.get(k) === own) this.ownWrites.delete(k);
          if (own.held.length > 0) this.wakeOwner(a.object);
          throw e;
        }
        this.settleOwnWrite(k, own, written);
        this.metrics?.writes.inc({ kind: a.object.kind, action: a.reason });
        if (a.object.kind === 'ClusterProfile' && written.metadata.generation !== undefined) {
          this.writtenGenerations.set(objectKeyOf(a.object), written.metadata.generation);
        }
      }, `writing ${a.object.kind} ${objectKeyOf(a.object)}`);
    const objects = p.applies.filter((a) => a.object.kind !== 'ClusterProfile');
    const profiles = p.applies.filter((a) => a.object.kind === 'ClusterProfile');
    await Promise.all(objects.map(apply));
    // A ClusterProfile must not point at a ConfigMap that failed to be written.
    if (issues.length === 0) await Promise.all(profiles.map(apply));
    const del = (d: (typeof p.deletes)[number]) =>
      run(async () => {
        try {
          await this.client.delete(
            { apiVersion: d.apiVersion, kind: d.kind, namespace: d.namespace, name: d.name },
            d.uid ? { preconditions: { uid: d.uid } } : {},
          );
          this.metrics?.writes.inc({ kind: d.kind, action: 'delete' });
          this.writtenGenerations.delete(`${d.kind}/${d.namespace ?? ''}/${d.name}`);
        } catch (e) {
          // Already gone, or replaced by a new object of the same name (uid precondition): nothing to delete.
          if (isNotFound(e) || isConflict(e)) return;
          throw e;
        }
      }, `deleting ${d.kind} ${d.namespace ? d.namespace + '/' : ''}${d.name}`);
    await Promise.all(p.deletes.filter((d) => d.kind === 'ClusterProfile').map(del));
    await Promise.all(p.deletes.filter((d) => d.kind !== 'ClusterProfile').map(del));
    return issues;
  }

  // withProfileFinalizer adds the deployer's finalizer to a generated ClusterProfile (see profileFinalizer). Every apply
  // carries it: server-side apply would take back a list entry this manager stopped sending. It stays out of the
  // content hash, so profiles written before are not rewritten for it (the deployer added it to those).
  private withProfileFinalizer(o: GeneratedObject): GeneratedObject {
    if (!this.profileFinalizer || o.kind !== 'ClusterProfile') return o;
    return { ...o, metadata: { ...o.metadata, finalizers: [this.profileFinalizer] } };
  }

  // settleOwnWrite records the resourceVersion our apply produced: versions held back while it was in flight that are
  // not ours wake the pair now; if ours already came through the watch, nothing is left to wait for.
  private settleOwnWrite(k: string, own: OwnWrite, written: GeneratedObject): void {
    if (this.ownWrites.get(k) !== own) return;
    const rv = written.metadata.resourceVersion;
    if (!rv || own.held.some((h) => h !== rv)) {
      this.ownWrites.delete(k);
      if (own.held.length > 0) this.wakeOwner(written);
      return;
    }
    if (own.held.length > 0) this.ownWrites.delete(k);
    else own.rv = rv;
  }

  private setResult(trigger: string, src: TriggerSource | undefined, r: PairResult): void {
    let byCluster = this.results.get(trigger);
    if (!byCluster) this.results.set(trigger, (byCluster = new Map()));
    const prev = byCluster.get(r.clusterKey);
    byCluster.set(r.clusterKey, r);
    if (!prev || JSON.stringify(prev) !== JSON.stringify(r)) {
      if (src) this.controller.enqueueAfter(keyT(trigger), this.statusDelayMs);
    }
  }

  private dropResult(trigger: string, src: TriggerSource | undefined, pair: string, id: ClusterIdentity): void {
    const byCluster = this.results.get(trigger);
    const had = byCluster?.delete(splitPair(pair)[1]) ?? false;
    if (byCluster?.size === 0) this.results.delete(trigger);
    this.warned.delete(`${trigger}|${pair}`);
    const labels = { event_trigger_name: trigger, cluster_type: id.type, cluster_namespace: id.namespace, cluster_name: id.name };
    this.metrics?.matchingResources.remove(labels);
    this.metrics?.lastSuccess.remove(labels);
    // The trigger's status (and, when deleting, its finalizer) depends on this pair being gone.
    if (src?.deleting || !src) this.controller.enqueue(keyT(trigger));
    else if (had) this.controller.enqueueAfter(keyT(trigger), this.statusDelayMs);
  }

  /**
   * renderMemoized renders the events of a pair, reusing the last rendering of every event whose key (the collected
   * object's text) is unchanged while the trigger, the cluster, the EventSource name and every referenced
   * ConfigMap/Secret are unchanged too: one Service change re-renders one event, not every event of the cluster.
   * Failed events, CloudEvents and `all` are always rendered again.
   */
  private renderMemoized(pair: string, src: TriggerSource, ctx: RenderContext, events: readonly ReportEvent[]): RenderResult {
    // The trigger's spec by generation (its status writes bump only resourceVersion), plus labels and annotations.
    const meta = src.raw.metadata;
    const version = meta.generation !== undefined ? `g${meta.generation}|${JSON.stringify(meta.labels ?? {})}|${JSON.stringify(meta.annotations ?? {})}` : `rv${meta.resourceVersion}`;
    const ctxKey = `${src.kind}|${meta.uid}|${version}|${ctx.eventSourceName}|${ctx.namespace}|${ctx.clusterJSON}`;
    let memo = this.renderMemo.get(pair);
    if (!memo || memo.ctxKey !== ctxKey || memo.depsVersion !== this.depsVersion(memo.deps)) {
      memo = { ctxKey, depsVersion: '', deps: new Set(), legacy: new Map(), byEvent: new Map() };
      this.renderMemo.set(pair, memo);
    }
    const m = memo;
    const stale = events.filter((e) => e.key === undefined || m.byEvent.get(e.id)?.key !== e.key);
    let depsChanged = false;
    const byId = new Map<string, RenderedEvent>();
    if (stale.length > 0) {
      const fresh = renderEvents(ctx, stale);
      for (const r of fresh.events) byId.set(r.id, r);
      for (const d of fresh.deps) {
        if (m.deps.has(d)) continue;
        m.deps.add(d);
        depsChanged = true;
      }
      for (const l of fresh.legacy) m.legacy.set(`${l.kind}/${l.namespace}/${l.name}`, l);
    }
    if (m.byEvent.size > events.length - stale.length) {
      const present = new Set(events.map((e) => e.id));
      for (const id of [...m.byEvent.keys()]) if (!present.has(id)) m.byEvent.delete(id);
    }
    // The rendered events are shared with the memo (and with the previous reconcile): callers never modify them.
    const out: RenderedEvent[] = [];
    for (const e of events) {
      const r = byId.get(e.id);
      if (r) {
        if (e.key !== undefined && r.issues.length === 0) m.byEvent.set(e.id, { key: e.key, rendered: r });
        else m.byEvent.delete(e.id);
      }
      out.push(r ?? m.byEvent.get(e.id)!.rendered);
    }
    if (depsChanged || m.depsVersion === '') m.depsVersion = this.depsVersion(m.deps);
    return { events: out, deps: m.deps, legacy: [...m.legacy.values()] };
  }

  /** desiredHash is the pair's content hash (status): of the desired objects' hashes, sorted. The sorted list is kept
   * per pair and updated with the objects that came and went (by identity), instead of sorted again. */
  private desiredHash(pair: string, desired: readonly GeneratedObject[]): string {
    const last = this.lastDesired.get(pair);
    if (last && sameObjects(last.objects, desired)) return last.hash;
    const hashOf = (d: GeneratedObject) => d.metadata.annotations?.[RippleAnnotations.hash] ?? '';
    let sorted: string[];
    if (last) {
      sorted = last.sorted.slice();
      const now = new Set(desired);
      const before = new Set(last.objects);
      for (const o of last.objects) if (!now.has(o)) sortedRemove(sorted, hashOf(o));
      for (const o of desired) if (!before.has(o)) sortedInsert(sorted, hashOf(o));
    } else sorted = desired.map(hashOf).sort();
    // contentHash of the sorted list (its key-sorted JSON is the plain JSON of a list of strings).
    const hash = createHash('sha256').update(JSON.stringify(sorted)).digest('hex');
    this.lastDesired.set(pair, { objects: desired, sorted, hash });
    return hash;
  }

  /** depsVersion fingerprints the referenced ConfigMaps/Secrets (their resourceVersions, '-' when absent). */
  private depsVersion(deps: ReadonlySet<string>): string {
    let v = '';
    for (const d of deps) {
      const [kind, namespace, name] = d.split('/');
      const o = (kind === 'ConfigMap' ? this.cm : this.secret).cache.get(namespace, name);
      v += `${d}=${o?.metadata.resourceVersion ?? '-'};`;
    }
    return v;
  }

  private setDeps(pair: string, deps: Set<string>): void {
    const old = this.depsOf.get(pair);
    if (old) {
      for (const d of old) {
        if (deps.has(d)) continue;
        const s = this.deps.get(d);
        if (s && s.delete(pair) && s.size === 0) this.deps.delete(d);
      }
    }
    for (const d of deps) {
      let s = this.deps.get(d);
      if (!s) this.deps.set(d, (s = new Set()));
      s.add(pair);
    }
    if (deps.size > 0) this.depsOf.set(pair, deps);
    else this.depsOf.delete(pair);
  }

  private setReportState(pair: string, trigger: string, reportKey: string, generation: number, failure: string | undefined, holdCloudEvents = false): void {
    const prevKey = this.pairReport.get(pair);
    if (prevKey !== undefined && prevKey !== reportKey) this.forgetPairReport(pair, trigger);
    this.pairReport.set(pair, reportKey);
    let states = this.reportStates.get(reportKey);
    if (!states) this.reportStates.set(reportKey, (states = new Map()));
    const cur = states.get(trigger);
    if (cur && cur.generation === generation && cur.failure === failure && (cur.holdCloudEvents ?? false) === holdCloudEvents) return;
    const state: ReportTriggerState = failure === undefined ? { generation } : { generation, failure };
    if (holdCloudEvents) state.holdCloudEvents = true;
    states.set(trigger, state);
    this.wakeReport(reportKey);
  }

  private forgetPairReport(pair: string, trigger: string): void {
    const k = this.pairReport.get(pair);
    if (k === undefined) return;
    this.pairReport.delete(pair);
    const states = this.reportStates.get(k);
    if (states?.delete(trigger)) {
      if (states.size === 0) this.reportStates.delete(k);
      this.wakeReport(k);
    }
  }

  /**
   * wakeReport queues a report's key after its processing state changed, if that leaves it something to write now.
   * A report read before the agent's status write of the same change still says Processed: that status write
   * wakes it (reportHandlers).
   */
  private wakeReport(reportKey: string): void {
    const i = reportKey.indexOf('/');
    const [ns, name] = [reportKey.slice(0, i), reportKey.slice(i + 1)];
    const raw = this.er.cache.get(ns, name);
    if (raw && this.reportNeedsWrite(raw)) this.controller.enqueue(keyR(ns, name));
  }

  /** reportNeedsWrite says whether reconcileReport would write to this version of a report (status, CloudEvents). */
  private reportNeedsWrite(raw: Obj): boolean {
    const states = this.reportStates.get(`${raw.metadata.namespace ?? ''}/${raw.metadata.name}`);
    if (!states) return false;
    const want = reportStatus(raw.metadata.generation ?? 0, states);
    if (!want) return false;
    const cur = (raw.status ?? {}) as { phase?: string; failureMessage?: string };
    if (cur.phase !== want.phase || (cur.failureMessage ?? undefined) !== want.failureMessage) return true;
    const list = (raw.spec as { cloudEvents?: string[] } | undefined)?.cloudEvents;
    return Array.isArray(list) && list.length > 0 && ![...states.values()].some((s) => s.holdCloudEvents);
  }

  private async reconcileReport(ns: string, name: string): Promise<void> {
    const raw = this.er.cache.get(ns, name);
    const key = `${ns}/${name}`;
    if (!raw) {
      this.reportStates.delete(key);
      return;
    }
    const states = this.reportStates.get(key);
    if (!states) return;
    const want = reportStatus(raw.metadata.generation ?? 0, states);
    if (!want) return;
    const cur = (raw.status ?? {}) as { phase?: string; failureMessage?: string };
    if (cur.phase !== want.phase || (cur.failureMessage ?? undefined) !== want.failureMessage) {
      try {
        await this.client.apply(
          { apiVersion: writeVersion(raw) ?? raw.apiVersion, kind: 'EventReport', metadata: { name, namespace: ns }, status: want } as ApiKubeObject,
          // The answer is not used: metadata only, not the whole report with its collected resources.
          { fieldManager: this.fieldManager, force: true, subresource: 'status', metadataOnly: true },
        );
      } catch (e) {
        if (isNotFound(e)) return;
        throw e;
      }
    }
    await this.clearCloudEvents(raw, ![...states.values()].some((s) => s.holdCloudEvents));
  }

  /**
   * clearCloudEvents empties `spec.cloudEvents` once every trigger acted on them (a failure elsewhere — another
   * event's template, the agent's evaluation failure — does not hold them back), as Sveltos'
   * event manager does after processing: a CloudEvent is acted on once (its outputs stay until a Delete CloudEvent).
   * A JSON-patch test makes the removal fail if the agent appended an event meanwhile; that event's new
   * generation is processed and cleared in turn.
   */
  private async clearCloudEvents(raw: Obj, processedOk: boolean): Promise<void> {
    const list = (raw.spec as { cloudEvents?: string[] } | undefined)?.cloudEvents;
    if (!processedOk || !Array.isArray(list) || list.length === 0) return;
    try {
      await this.client.patch(
        { apiVersion: writeVersion(raw) ?? raw.apiVersion, kind: 'EventReport', namespace: raw.metadata.namespace, name: raw.metadata.name },
        'json',
        [
          { op: 'test', path: '/spec/cloudEvents', value: list },
          { op: 'remove', path: '/spec/cloudEvents' },
        ],
        { fieldManager: this.fieldManager },
      );
      this.metrics?.writes.inc({ kind: 'EventReport', action: 'clear-cloudevents' });
    } catch (e) {
      // Gone, or changed since it was processed (a new CloudEvent): the new generation comes through the watch.
      if (isNotFound(e) || isConflict(e) || (isStatusError(e) && (e.code === 422 || e.code === 500))) return;
      throw e;
    }
  }

  // ---------------------------------------------------------------------------------------------------------------
  // events and metrics

  /** warn records a Warning Event on the trigger, once per distinct message per scope (pair or trigger). */
  private warn(src: TriggerSource, reason: string, message: string, scope = ''): void {
    const k = `${src.raw.metadata.name}|${scope || reason}`;
    if (this.warned.get(k) === message) return;
    this.warned.set(k, message);
    this.log.warn({ trigger: src.raw.metadata.name, reason }, message);
    this.recorder?.event(
      { apiVersion: writeVersion(src.raw) ?? src.raw.apiVersion, kind: src.kind, metadata: src.raw.metadata },
      'Warning',
      reason,
      message,
    );
  }

  private noteLegacy(src: TriggerSource, legacy: readonly { kind: string; namespace: string; name: string; fields: string[] }[]): void {
    for (const l of legacy) {
      const msg =
        `${l.kind} ${l.namespace}/${l.name} is instantiated with event data (its templates read ${l.fields.join(', ')}) although it lacks the ` +
        `${Annotations.instantiate} annotation, as older Sveltos releases did; add the annotation ${Annotations.instantiate}: "true" ` +
        `(current Sveltos would deploy it unrendered)`;
      const k = `${src.raw.metadata.name}|legacy:${l.kind}/${l.namespace}/${l.name}`;
      if (this.warned.get(k) === msg) continue;
      this.metrics?.legacy.inc();
      this.warn(src, 'LegacyTemplateInstantiated', msg, `legacy:${l.kind}/${l.namespace}/${l.name}`);
    }
  }

  private recordMetrics(trigger: string, id: ClusterIdentity, ok: boolean, matching: number, ms: number): void {
    const m = this.metrics;
    if (!m) return;
    const cl = { cluster_type: id.type, cluster_namespace: id.namespace, cluster_name: id.name };
    m.reconcileDuration.observe(cl, ms / 1000);
    m.outcomes.inc({ ...cl, status: ok ? 'success' : 'failure', event_trigger_name: trigger });
    m.matchingResources.set({ ...cl, event_trigger_name: trigger }, matching);
    if (ok) m.lastSuccess.set({ ...cl, event_trigger_name: trigger }, this.clock.now() / 1000);
  }
}

/** sortedIndex is where s goes in a list sorted as Array.prototype.sort sorts strings (UTF-16 code units). */
function sortedIndex(list: readonly string[], s: string): number {
  let lo = 0;
  let hi = list.length;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if (list[mid] < s) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

function sortedInsert(list: string[], s: string): void {
  list.splice(sortedIndex(list, s), 0, s);
}

function sortedRemove(list: string[], s: string): void {
  const i = sortedIndex(list, s);
  if (list[i] === s) list.splice(i, 1);
}

function sameObjects(a: readonly object[], b: readonly object[]): boolean {
  if (a.length !== b.length) return false;
  for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return false;
  return true;
}

function splitPair(pair: string): [string, string] {
  const i = pair.indexOf('|');
  return [pair.slice(0, i), pair.slice(i + 1)];
}

function dedupe(xs: string[]): string[] {
  return [...new Set(xs)];
}

/** syncedOrAbsent resolves when an informer has listed once, or its kind is not installed (nothing to wait for). */
/** OwnWrite is one apply of a generated object: its hash annotation, versions held back in flight, then its rv. */
interface OwnWrite {
  hash: string | undefined;
  held: string[];
  rv?: string;
}

function generatedKey(o: { kind?: string; metadata: { namespace?: string; name: string } }): string {
  return `${o.kind ?? ''}/${o.metadata.namespace ?? ''}/${o.metadata.name}`;
}

/**
 * reportSignature identifies what a pair reads of an EventReport version apart from its spec: uid and generation
 * (the API server bumps generation on every spec change, so equal generations of one uid carry the same spec), plus
 * the metadata read directly (labels, annotations, deletionTimestamp). Versions with equal signatures normalise
 * alike for a pair; status is not read. Undefined (no reuse) without a uid or a generation.
 */
function reportSignature(raw: Obj): string | undefined {
  const m = raw.metadata;
  if (!m.uid || m.generation === undefined) return undefined;
  return `${m.uid}|${m.generation}|${m.deletionTimestamp ?? ''}|${JSON.stringify(m.labels ?? {})}|${JSON.stringify(m.annotations ?? {})}`;
}

async function syncedOrAbsent(i: InformerView<Obj>): Promise<void> {
  for (;;) {
    if (i.hasSynced() || i.state === 'waiting-for-kind' || i.state === 'stopped') return;
    try {
      await i.waitForSync({ timeoutMs: 100 });
      return;
    } catch {
      // Not yet: check whether the kind is missing, then wait again.
    }
  }
}
