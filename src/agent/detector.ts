// detector: EventSource detection in ONE cluster, watch-driven and incremental.
//
// One informer per GVK (shared through the cluster's InformerFactory with every other user of that GVK), started
// when the first EventSource needs the GVK and stopped when none does. A kind that is not installed yields nothing
// (discovery says so, like Sveltos' RESTMapping NoMatch) and starts delivering as soon as its CRD is served (the
// informer waits for it). Informer handlers only record the changed object's key; a throttled flush (leading edge,
// then at most one per coalescing window) re-evaluates only those objects, only against the selectors of the EventSources that watch their
// GVK (the src/match per-object API), and keeps each EventSource's matching set up to date. An EventSource whose
// set (or, with collectResources / aggregatedSelection, whose matched objects) changed gets a new ReportContent;
// content that did not change is not reported again.
//
// Failures never erase knowledge: an object whose evaluation fails keeps its last known outcome, and the failure is
// carried in the content's failureMessage until the evaluation succeeds again. A report is produced only when every
// GVK of the EventSource has been listed (or is known not to be installed), so an unreachable cluster produces
// nothing and the last reports stay as they are.
// Go: sveltos-agent pkg/evaluation/watchers.go (GVK watchers, re-queue on change) and eventsource_evaluation.go.
import type { EventSource, ObjectReference } from '../api/index.js';
import { compareStrings } from '../gotemplate/index.js';
import {
  errorMessage,
  isKindNotInstalled,
  objectKey,
  type InformerFactory,
  type InformerState,
  type KubeObject,
  type Subscription,
} from '../kube/index.js';
import type { LuaRuntime, LuaScript } from '../lua/index.js';
import { compileEventSource, gvkKey, type CompiledEventSource, type GroupVersionKind, type MatchDiagnostic } from '../match/index.js';
import { silentLogger, type Logger } from '../obs/index.js';
import { managedUser, tenantOf, type TenantResolution } from '../tenancy/index.js';
import type { AgentMetrics } from './metrics.js';
import { encodeResourceDocument, joinEncodedDocuments, objectReferenceOf, sameContent, type ReportContent } from './report.js';

/** ReportUpdate is new content for one EventSource, with when the first change behind it was seen. */
export interface ReportUpdate {
  content: ReportContent;
  /** performance.now() of the earliest informer event that led to this content (absent for spec-driven updates). */
  since?: number;
}

/** DetectorOptions configures a ClusterDetector. */
export interface DetectorOptions {
  /** Names the cluster in logs and metrics. */
  cluster: string;
  /** The cluster's shared informer factory. */
  informers: InformerFactory;
  runtime: LuaRuntime;
  /** Receives content whenever an EventSource's report content changes (called from the flush, synchronously). */
  onReport(update: ReportUpdate): void;
  /** Coalescing window in ms (default 10): at most one flush per window while changes keep coming. */
  coalesceMs?: number;
  /** Expose the libsveltos Lua helpers to EventSource scripts (default true). */
  luaHelpers?: boolean;
  logger?: Logger;
  metrics?: AgentMetrics;
  /**
   * Resolves the tenant of an EventSource from its labels (default: tenantOf without RoleRequests). A tenant's
   * EventSource only sees objects its ServiceAccount in this cluster (projectsveltos/<ns>--<name>) may list — asked
   * of the cluster with SubjectAccessReviews, once per kind and namespace.
   */
  tenantOf?: (labels: Readonly<Record<string, string>> | undefined) => TenantResolution;
}

/** DetectorHealth says whether the detector can see its cluster. */
export interface DetectorHealth {
  /** GVK informers held. */
  informers: number;
  /** Informers neither synced nor known absent (listing, backing off). */
  notReady: number;
  /** Informers currently backing off after failed list/watch attempts. */
  failing: number;
  /** EventSources whose report is computed. */
  ready: number;
  sources: number;
}

interface Entry {
  obj: KubeObject;
  /** The Go-JSON document of obj for the resources blob (computed when needed). */
  doc?: string;
}

interface GvkWatch {
  key: string;
  gvk: GroupVersionKind;
  apiVersion: string;
  sub: Subscription<KubeObject>;
  users: Set<SourceState>;
  synced: boolean;
  /** Discovery said the kind is not served: it yields nothing until its CRD appears. */
  absent: boolean;
  pending: Set<string>;
}

interface SourceState {
  name: string;
  specKey: string;
  compiled: CompiledEventSource;
  aggregated?: LuaScript;
  aggregatedError?: string;
  collect: boolean;
  /** Valid GVKs (kind and version set) in first-use order. */
  gvks: string[];
  /** Per selector: matched objects by cache key. */
  matches: Map<string, Entry>[];
  /** Per selector: the selector's GVK key (for carrying state across a spec change). */
  selectorGvks: string[];
  /** Per-object failures by `selectorIndex|key`. */
  failures: Map<string, MatchDiagnostic>;
  compileProblems: string[];
  /** The last aggregatedSelection outcome (kept when a later run fails). */
  lastAggregate?: Record<string, unknown>[];
  needFull: boolean;
  dirty: boolean;
  /**
   * The last content reported: a new evaluation reports only when it differs; reported again with other failures
   * merged (e.g. CloudEvent subscription). Undefined until the first evaluation.
   */
  lastContent?: ReportContent;
  since?: number;
  /** The tenant user whose list rights limit what this EventSource sees (undefined: the platform admin). */
  tenantUser?: string;
}

const apiVersionOfGvk = (g: GroupVersionKind) => (g.group ? `${g.group}/${g.version}` : g.version);

/** ClusterDetector evaluates a set of EventSources against one cluster; see the file comment. */
export class ClusterDetector {
  private readonly sources = new Map<string, SourceState>();
  private readonly watches = new Map<string, GvkWatch>();
  private readonly log: Logger;
  private timer: NodeJS.Timeout | NodeJS.Immediate | undefined;
  private firstPendingAt: number | undefined;
  private lastFlushAt: number | undefined;
  private stopped = false;
  private readonly coalesceMs: number;
  /** Tenant list rights: `user|gvk|namespace` → allowed, or 'pending' while the SubjectAccessReview runs. */
  private readonly access = new Map<string, boolean | 'pending'>();

  constructor(private readonly options: DetectorOptions) {
    this.log = (options.logger ?? silentLogger()).child({ cluster: options.cluster });
    this.coalesceMs = options.coalesceMs ?? 10;
  }

  /** cluster is the name given in the options. */
  get cluster(): string {
    return this.options.cluster;
  }

  /** informers is the factory the detector watches through. */
  get informers(): InformerFactory {
    return this.options.informers;
  }

  /**
   * setEventSources makes `sources` (normalised EventSources by name) the set to evaluate: new ones are compiled and
   * watched, changed specs recompiled (keeping last known outcomes for objects that now fail), removed ones dropped.
   */
  setEventSources(sources: ReadonlyMap<string, EventSource>): void {
    if (this.stopped) return;
    for (const [name, st] of [...this.sources]) {
      if (!sources.has(name)) this.dropSource(st);
    }
    for (const [name, es] of sources) {
      const specKey = JSON.stringify([es.spec ?? {}, this.tenantKey(es)]);
      const cur = this.sources.get(name);
      if (cur && cur.specKey === specKey) continue;
      this.addSource(name, es, specKey, cur);
    }
    this.schedule();
  }

  /** eventSources lists the names being evaluated. */
  eventSources(): string[] {
    return [...this.sources.keys()].sort();
  }

  /** lastContent is the last content reported for an EventSource (undefined before the first report). */
  lastContent(name: string): ReportContent | undefined {
    return this.sources.get(name)?.lastContent;
  }

  /** isReady says whether the report of an EventSource has been computed at least once. */
  isReady(name: string): boolean {
    return this.sources.get(name)?.lastContent !== undefined;
  }

  /** health summarises the informers (for unreachable-cluster reporting). */
  health(): DetectorHealth {
    let notReady = 0;
    let failing = 0;
    for (const w of this.watches.values()) {
      const state: InformerState = w.sub.informer.state;
      if (!w.synced && !w.absent) notReady++;
      if (state === 'backoff' && w.sub.informer.stats.failures > 0) failing++;
    }
    let ready = 0;
    for (const s of this.sources.values()) if (s.lastContent !== undefined) ready++;
    return { informers: this.watches.size, notReady, failing, ready, sources: this.sources.size };
  }

  /** stop drops every EventSource and informer subscription. */
  async stop(): Promise<void> {
    if (this.stopped) return;
    this.stopped = true;
    this.cancelTimer();
    const subs = [...this.watches.values()].map((w) => w.sub);
    this.options.metrics?.informers.dec(this.watches.size);
    this.options.metrics?.eventSources.dec(this.sources.size);
    this.watches.clear();
    this.sources.clear();
    await Promise.all(subs.map((s) => s.unsubscribe()));
  }

  private addSource(name: string, es: EventSource, specKey: string, prev: SourceState | undefined): void {
    const compiled = compileEventSource(es, this.options.runtime, { helpers: this.options.luaHelpers !== false });
    const selectors = compiled.selectors;
    const selectorGvks = selectors.map((s) => gvkKey(s.gvk));
    const tenancy = (this.options.tenantOf ?? ((l) => tenantOf(l)))(es.metadata?.labels);
    const st: SourceState = {
      name,
      tenantUser: tenancy.kind === 'tenant' ? managedUser(tenancy.tenant) : tenancy.kind === 'invalid' ? '' : undefined,
      specKey,
      compiled,
      collect: compiled.collectResources,
      gvks: [],
      // Outcomes of a selector that still watches the same GVK are carried over as "last known": the full
      // re-evaluation replaces them, except for objects whose evaluation now fails.
      matches: selectors.map((s, i) => (prev && prev.selectorGvks[i] === selectorGvks[i] ? new Map(prev.matches[i]) : new Map())),
      selectorGvks,
      failures: new Map(),
      compileProblems: [...compiled.diagnostics.map((d) => formatDiagnostic(d)), ...(tenancy.kind === 'invalid' ? [`tenant labels: ${tenancy.message}; this EventSource sees nothing`] : [])],
      needFull: true,
      dirty: true,
      lastContent: prev?.lastContent,
      lastAggregate: prev?.lastAggregate,
    };
    const agg = typeof es.spec?.aggregatedSelection === 'string' ? es.spec.aggregatedSelection : '';
    if (agg.trim() !== '') {
      const c = this.options.runtime.compile(agg);
      if (c.ok) st.aggregated = c.script;
      else st.aggregatedError = `spec.aggregatedSelection: ${c.failure.message}`;
    }
    for (const s of selectors) {
      if (!s.gvk.kind || !s.gvk.version) continue;
      const k = gvkKey(s.gvk);
      if (!st.gvks.includes(k)) st.gvks.push(k);
    }
    if (prev) this.dropSource(prev, st.gvks);
    this.sources.set(name, st);
    this.options.metrics?.eventSources.inc();
    for (const k of st.gvks) this.watch(k, selectors.find((s) => gvkKey(s.gvk) === k)!.gvk).users.add(st);
  }

  private dropSource(st: SourceState, keep: readonly string[] = []): void {
    if (this.sources.get(st.name) === st) {
      this.sources.delete(st.name);
      this.options.metrics?.eventSources.dec();
    }
    for (const k of st.gvks) {
      const w = this.watches.get(k);
      if (!w) continue;
      w.users.delete(st);
      if (w.users.size === 0 && !keep.includes(k)) {
        this.watches.delete(k);
        this.options.metrics?.informers.dec();
        void w.sub.unsubscribe();
      }
    }
  }

  private watch(key: string, gvk: GroupVersionKind): GvkWatch {
    const cur = this.watches.get(key);
    if (cur) return cur;
    const apiVersion = apiVersionOfGvk(gvk);
    const w: GvkWatch = { key, gvk, apiVersion, users: new Set(), synced: false, absent: false, pending: new Set(), sub: undefined as unknown as Subscription<KubeObject> };
    const touch = (o: KubeObject) => {
      w.pending.add(objectKey(o));
      this.schedule(true);
    };
    w.sub = this.options.informers.subscribe<KubeObject>(
      { apiVersion, kind: gvk.kind },
      { onAdd: (o) => touch(o), onUpdate: (_old, o) => touch(o), onDelete: (o) => touch(o) },
    );
    this.watches.set(key, w);
    this.options.metrics?.informers.inc();
    w.sub.informer.waitForSync().then(
      () => {
        if (this.watches.get(key) !== w) return;
        w.synced = true;
        w.absent = false;
        this.schedule();
      },
      () => {},
    );
    // Discovery tells "not installed" at once; the informer meanwhile waits for the CRD.
    this.options.informers.client.resource({ apiVersion, kind: gvk.kind }).then(
      () => {},
      (err) => {
        if (this.watches.get(key) !== w || w.synced) return;
        if (isKindNotInstalled(err)) {
          w.absent = true;
          this.schedule();
        } else this.log.debug({ gvk: key, err: errorMessage(err) }, 'discovery failed; waiting for the informer');
      },
    );
    return w;
  }

  // schedule arranges a flush with leading-edge throttling: the first change after a quiet period is evaluated on
  // the next turn of the event loop (everything delivered in the same watch chunk joins it); changes arriving while
  // flushes are recent wait until coalesceMs after the previous flush, so a burst costs at most one flush per window
  // and an isolated change pays no window at all.
  private schedule(fromEvent = false): void {
    if (this.stopped) return;
    if (fromEvent && this.firstPendingAt === undefined) this.firstPendingAt = performance.now();
    if (this.timer) return;
    const wait = this.lastFlushAt === undefined ? 0 : this.lastFlushAt + this.coalesceMs - performance.now();
    this.timer = wait > 0 ? setTimeout(() => this.flush(), wait) : setImmediate(() => this.flush());
  }

  private cancelTimer(): void {
    if (!this.timer) return;
    clearTimeout(this.timer as NodeJS.Timeout);
    clearImmediate(this.timer as NodeJS.Immediate);
    this.timer = undefined;
  }

  private ready(st: SourceState): boolean {
    return st.gvks.every((k) => {
      const w = this.watches.get(k);
      return w !== undefined && (w.synced || w.absent);
    });
  }

  /** flush evaluates what changed since the last flush and reports changed content. */
  flush(): void {
    this.timer = undefined;
    if (this.stopped) return;
    const t0 = performance.now();
    this.lastFlushAt = t0;
    const since = this.firstPendingAt;
    this.firstPendingAt = undefined;
    try {
      for (const w of this.watches.values()) {
        if (w.pending.size === 0) continue;
        const keys = [...w.pending];
        w.pending.clear();
        for (const st of w.users) {
          if (st.needFull) continue;
          for (const key of keys) {
            if (this.evaluateKey(st, w, key)) {
              st.dirty = true;
              if (since !== undefined && st.since === undefined) st.since = since;
            }
          }
        }
      }
      for (const st of this.sources.values()) {
        if (!this.ready(st)) continue;
        if (st.needFull) {
          this.evaluateAll(st);
          // A tenant's rights still being asked: report once they are known (never an empty set meanwhile).
          if (this.accessPending(st)) continue;
          st.needFull = false;
          st.dirty = true;
        }
        if (st.dirty && !this.accessPending(st)) this.publish(st);
      }
    } catch (err) {
      // Nothing here should throw (evaluation failures are values); if it does, log and keep the agent alive.
      this.log.error({ err: errorMessage(err) }, 'detector flush failed');
    } finally {
      this.options.metrics?.flushSeconds.observe((performance.now() - t0) / 1000);
    }
  }

  // evaluateKey re-evaluates one object (or its deletion) against every selector of st for the watch's GVK and
  // returns whether the report content may have changed.
  private evaluateKey(st: SourceState, w: GvkWatch, key: string): boolean {
    const obj = w.sub.informer.cache.getByKey(key) as KubeObject | undefined;
    let changed = false;
    for (const i of st.compiled.selectorsFor(w.gvk)) {
      if (this.evaluateOne(st, i, key, obj)) changed = true;
    }
    return changed;
  }

  // evaluateOne updates selector i's outcome for one object; obj undefined means the object is gone.
  private evaluateOne(st: SourceState, i: number, key: string, obj: KubeObject | undefined): boolean {
    const matches = st.matches[i];
    const fkey = `${i}|${key}`;
    const prevFailure = st.failures.get(fkey);
    const prev = matches.get(key);
    if (!obj) {
      st.failures.delete(fkey);
      return matches.delete(key) || prevFailure !== undefined;
    }
    if (st.tenantUser !== undefined && !this.visible(st, i, obj)) {
      st.failures.delete(fkey);
      return matches.delete(key) || prevFailure !== undefined;
    }
    const m = st.compiled.matchObject(obj, i);
    const failure = m.diagnostics.find((d) => d.code !== 'cel-evaluate');
    const metrics = this.options.metrics;
    if (failure) {
      metrics?.evaluations.inc({ result: 'error' });
      st.failures.set(fkey, failure);
      // Keep the last known outcome (prev stays as it is).
      return prevFailure === undefined || prevFailure.message !== failure.message;
    }
    metrics?.evaluations.inc({ result: m.matched ? 'match' : 'nomatch' });
    st.failures.delete(fkey);
    let changed = prevFailure !== undefined;
    if (m.matched) {
      if (!prev || prev.obj !== obj) {
        const rvChanged = !prev || prev.obj.metadata?.resourceVersion !== obj.metadata?.resourceVersion;
        matches.set(key, { obj });
        // Without collectResources or aggregatedSelection only membership matters.
        if (!prev || (rvChanged && (st.collect || st.aggregated !== undefined))) changed = true;
      }
    } else if (prev) {
      matches.delete(key);
      changed = true;
    }
    return changed;
  }

  private tenantKey(es: EventSource): string {
    const t = (this.options.tenantOf ?? ((l) => tenantOf(l)))(es.metadata?.labels);
    return t.kind === 'tenant' ? managedUser(t.tenant) : t.kind;
  }

  private accessPending(st: SourceState): boolean {
    if (!st.tenantUser) return false;
    for (const [k, v] of this.access) if (v === 'pending' && k.startsWith(`${st.tenantUser}|`)) return true;
    return false;
  }

  // visible: may the tenant list this object's kind in its namespace? Unknown yet: no (and the review is started).
  private visible(st: SourceState, i: number, obj: KubeObject): boolean {
    if (!st.tenantUser) return false; // invalid tenant labels see nothing
    const gvk = st.compiled.selectors[i]!.gvk;
    const ns = obj.metadata?.namespace ?? '';
    const k = `${st.tenantUser}|${gvkKey(gvk)}|${ns}`;
    const v = this.access.get(k);
    if (v === undefined) {
      this.access.set(k, 'pending');
      void this.review(k, st.tenantUser, gvk, ns);
    }
    return v === true;
  }

  private async review(k: string, user: string, gvk: GroupVersionKind, namespace: string): Promise<void> {
    const client = this.options.informers.client;
    let allowed = false;
    try {
      const info = await client.resource({ apiVersion: apiVersionOfGvk(gvk), kind: gvk.kind });
      const saNs = user.split(':')[2] ?? '';
      const r = await client.create<KubeObject & { status?: { allowed?: boolean } }>({
        apiVersion: 'authorization.k8s.io/v1',
        kind: 'SubjectAccessReview',
        spec: { user, groups: ['system:serviceaccounts', `system:serviceaccounts:${saNs}`, 'system:authenticated'], resourceAttributes: { verb: 'list', group: info.group, resource: info.plural, ...(namespace ? { namespace } : {}) } },
      } as unknown as KubeObject);
      allowed = r.status?.allowed === true;
    } catch (err) {
      // Fail closed: what cannot be checked is not seen.
      this.log.warn({ user, gvk: gvkKey(gvk), namespace, err: errorMessage(err) }, 'cannot check what a tenant may list; its EventSource does not see these objects');
    }
    if (this.stopped) return;
    this.access.set(k, allowed);
    for (const st of this.sources.values()) if (st.tenantUser === user) st.needFull = true;
    this.schedule();
  }

  // evaluateAll rebuilds st's outcomes from the informer caches (new or changed EventSource).
  private evaluateAll(st: SourceState): void {
    const selectors = st.compiled.selectors;
    const carried = st.matches;
    st.matches = selectors.map(() => new Map());
    st.failures.clear();
    selectors.forEach((s, i) => {
      const w = this.watches.get(gvkKey(s.gvk));
      if (!w) return;
      const last = carried[i];
      for (const obj of w.sub.informer.cache.list()) {
        const key = objectKey(obj);
        const prev = last.get(key);
        if (prev) st.matches[i].set(key, prev);
        this.evaluateOne(st, i, key, obj);
      }
    });
  }

  private publish(st: SourceState): void {
    st.dirty = false;
    const selected: Entry[] = [];
    for (const m of st.matches) {
      const keys = [...m.keys()].sort(compareStrings);
      for (const k of keys) selected.push(m.get(k)!);
    }
    const problems = [...st.compileProblems];
    for (const d of st.failures.values()) problems.push(formatDiagnostic(d));
    let refs: ObjectReference[];
    let docs: string[] | undefined;
    if (st.aggregatedError !== undefined || st.aggregated !== undefined) {
      let objects = st.lastAggregate ?? [];
      if (st.aggregatedError !== undefined) problems.push(st.aggregatedError);
      else {
        const r = this.options.runtime.aggregate(st.aggregated!, selected.map((e) => e.obj), { helpers: this.options.luaHelpers !== false });
        if (r.ok) {
          objects = r.resources;
          st.lastAggregate = objects;
          this.options.metrics?.evaluations.inc({ result: 'match' });
        } else {
          this.options.metrics?.evaluations.inc({ result: 'error' });
          problems.push(`spec.aggregatedSelection: ${r.failure.message}${r.failure.line !== undefined ? ` (line ${r.failure.line})` : ''}`);
        }
      }
      refs = objects.map((o) => objectReferenceOf(o as KubeObject));
      if (st.collect) docs = objects.map((o) => encodeResourceDocument(o));
    } else {
      refs = selected.map((e) => objectReferenceOf(e.obj));
      if (st.collect) docs = selected.map((e) => (e.doc ??= encodeResourceDocument(e.obj)));
    }
    const content: ReportContent = { eventSourceName: st.name, matchingResources: refs };
    const blob = docs ? joinEncodedDocuments(docs) : undefined;
    if (blob) content.resources = blob;
    if (problems.length > 0) content.failureMessage = summarize(st.name, problems);
    const since = st.since;
    st.since = undefined;
    if (st.lastContent && sameContent(content, st.lastContent)) return;
    st.lastContent = content;
    if (problems.length > 0) this.log.warn({ eventSource: st.name, failure: content.failureMessage }, 'EventSource evaluation failed');
    this.options.onReport(since === undefined ? { content } : { content, since });
  }
}

/** formatDiagnostic renders a match diagnostic as one line: field, object, message, line. */
export function formatDiagnostic(d: MatchDiagnostic): string {
  const obj = d.object ? ` on ${d.object.kind ?? 'object'} ${d.object.namespace ? `${d.object.namespace}/` : ''}${d.object.name ?? ''}` : '';
  const line = d.line !== undefined ? ` (line ${d.line})` : '';
  const rule = d.rule ? ` rule ${JSON.stringify(d.rule)}` : '';
  return `${d.field}${rule}${obj}: ${d.message}${line}`;
}

const MAX_LISTED = 5;

function summarize(es: string, problems: string[]): string {
  const shown = problems.slice(0, MAX_LISTED).join('; ');
  const more = problems.length > MAX_LISTED ? `; and ${problems.length - MAX_LISTED} more` : '';
  return `EventSource ${es}: evaluation failed: ${shown}${more}`;
}
