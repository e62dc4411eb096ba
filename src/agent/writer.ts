// writer: keeps EventReports in one cluster equal to what the agent wants — level-based. Desired reports are set
// per key (namespace/name); a work queue reconciles each key: read the observed report (informer cache, or the
// agent's own last write when the cache has not caught up yet) → planReport (pure) → execute with server-side
// apply (field manager `ripple-agent`) → status phase WaitingForDelivery after every content change. Nothing is
// written when the stored report already carries the desired content, so a steady state makes no writes.
// Deletion happens only for keys the caller explicitly withdrew (positive evidence), never for unknown keys.
import {
  Controller,
  errorMessage,
  isConflict,
  isNotFound,
  type InformerFactory,
  type KubeClient,
  type KubeObject,
  type Subscription,
} from '../kube/index.js';
import { Labels } from '../api/index.js';
import { silentLogger, type Logger } from '../obs/index.js';
import type { Registry } from 'prom-client';
import { goJSONMarshal } from './go-json.js';
import type { AgentMetrics } from './metrics.js';
import { EVALUATION_FAILURE_ANNOTATION, EVENT_REPORT, type ReportObject } from './report.js';

/** FIELD_MANAGER is the server-side apply field manager of everything the agent writes. */
export const FIELD_MANAGER = 'ripple-agent';
/** PHASE_WAITING is the phase the agent sets after each content change (the event manager sets Processed). */
export const PHASE_WAITING = 'WaitingForDelivery';

/** ReportAction is one write planned for an EventReport. */
export type ReportAction =
  | { type: 'apply'; object: ReportObject }
  | { type: 'applyStatus'; object: Pick<ReportObject, 'apiVersion' | 'kind' | 'metadata' | 'status'> }
  | { type: 'delete'; namespace: string; name: string; uid?: string };

/** DesiredReport is what the caller wants for a key: the report, or its absence (withdrawn on positive evidence). */
export type DesiredReport = { state: 'present'; report: ReportObject } | { state: 'absent' };

const OWNED_LABELS = [Labels.eventSourceName, Labels.eventReportClusterName, Labels.eventReportClusterType];

// specDiffers compares the spec the agent owns as Go would marshal it (absent = zero value), without marshalling the
// `resources` blob (hundreds of KB with collectResources): strings compare as they are, only the matching list is
// marshalled.
function specDiffers(a: Partial<ReportObject['spec']> | undefined, b: Partial<ReportObject['spec']> | undefined): boolean {
  const x = a ?? {};
  const y = b ?? {};
  if ((x.clusterNamespace ?? '') !== (y.clusterNamespace ?? '') || (x.clusterName ?? '') !== (y.clusterName ?? '')) return true;
  if ((x.clusterType ?? '') !== (y.clusterType ?? '') || (x.eventSourceName ?? '') !== (y.eventSourceName ?? '')) return true;
  if ((x.resources || '') !== (y.resources || '')) return true;
  const mx = x.matchingResources ?? [];
  const my = y.matchingResources ?? [];
  if (mx.length !== my.length) return true;
  return mx.length > 0 && !sameStringEntries(mx, my) && goJSONMarshal(mx) !== goJSONMarshal(my);
}

// sameStringEntries proves cheaply that two lists marshal alike: same length, and entries that are the same object
// or plain objects whose defined members are the same keys with identical string values (matchingResources as the
// agent builds and reads them back). Marshalling sorts keys and drops undefined members, so such lists give the
// same text; anything else (other value types) is left to the marshal comparison.
function sameStringEntries(a: readonly unknown[], b: readonly unknown[]): boolean {
  if (a.length !== b.length) return false;
  for (let i = 0; i < a.length; i++) {
    const x = a[i];
    const y = b[i];
    if (x === y) continue;
    if (x === null || y === null || typeof x !== 'object' || typeof y !== 'object' || Array.isArray(x) || Array.isArray(y)) return false;
    const xo = x as Record<string, unknown>;
    const yo = y as Record<string, unknown>;
    let n = 0;
    for (const k of Object.keys(xo)) {
      const v = xo[k];
      if (v === undefined) continue;
      if (typeof v !== 'string' || yo[k] !== v) return false;
      n++;
    }
    for (const k of Object.keys(yo)) if (yo[k] !== undefined) n--;
    if (n !== 0) return false;
  }
  return true;
}

/** reportDiffers says whether observed lacks any content of desired the agent owns (spec, its labels, annotation). */
export function reportDiffers(desired: ReportObject, observed: ReportObject): boolean {
  if (specDiffers(desired.spec, observed.spec)) return true;
  const dl = desired.metadata.labels ?? {};
  const ol = observed.metadata.labels ?? {};
  for (const k of OWNED_LABELS) if ((dl[k] ?? undefined) !== (ol[k] ?? undefined)) return true;
  const da = desired.metadata.annotations?.[EVALUATION_FAILURE_ANNOTATION];
  const oa = observed.metadata.annotations?.[EVALUATION_FAILURE_ANNOTATION];
  return da !== oa;
}

/**
 * planReport is the pure heart of the writer: the writes that make observed match desired. A content change
 * (spec, owned labels, failure annotation) is an apply followed by a status apply setting WaitingForDelivery; a
 * report with no phase yet gets the status apply alone; a report the caller withdrew is deleted; a report being
 * deleted by someone else is left alone until it is gone.
 */
export function planReport(desired: DesiredReport | undefined, observed: ReportObject | undefined): ReportAction[] {
  if (!desired) return [];
  if (desired.state === 'absent') {
    if (!observed) return [];
    return [{ type: 'delete', namespace: observed.metadata.namespace, name: observed.metadata.name, ...(observed.metadata.uid ? { uid: observed.metadata.uid } : {}) }];
  }
  const want = desired.report;
  if (observed?.metadata.deletionTimestamp) return [];
  const status = { phase: PHASE_WAITING, ...(want.status?.failureMessage ? { failureMessage: want.status.failureMessage } : {}) };
  const statusAction: ReportAction = {
    type: 'applyStatus',
    object: { apiVersion: want.apiVersion, kind: want.kind, metadata: { name: want.metadata.name, namespace: want.metadata.namespace }, status },
  };
  const waiting = observed?.status?.phase === PHASE_WAITING;
  if (!observed || reportDiffers(want, observed)) {
    // A report still waiting for delivery keeps waiting: the status write would change nothing.
    const failureSame = want.status === undefined || (want.status.failureMessage ?? undefined) === (observed?.status?.failureMessage ?? undefined);
    return waiting && failureSame ? [{ type: 'apply', object: want }] : [{ type: 'apply', object: want }, statusAction];
  }
  // status.failureMessage is the agent's only on managed copies (a desired `status`); on the management copy it
  // belongs to the event manager and must not count as a difference, or both would rewrite the phase forever.
  const failureDiffers = want.status !== undefined && (want.status.failureMessage ?? undefined) !== (observed.status?.failureMessage ?? undefined);
  if (!observed.status?.phase || failureDiffers) return [statusAction];
  return [];
}

/** applyShape is the object the agent applies: only the fields it owns (empty lists and blobs omitted like Go's omitempty). */
function applyShape(r: ReportObject): KubeObject {
  const spec: Record<string, unknown> = {
    clusterNamespace: r.spec.clusterNamespace,
    clusterName: r.spec.clusterName,
    clusterType: r.spec.clusterType,
    eventSourceName: r.spec.eventSourceName,
  };
  if (r.spec.matchingResources && r.spec.matchingResources.length > 0) spec.matchingResources = r.spec.matchingResources;
  if (r.spec.resources) spec.resources = r.spec.resources;
  const metadata: Record<string, unknown> = { name: r.metadata.name, namespace: r.metadata.namespace, labels: r.metadata.labels ?? {} };
  if (r.metadata.annotations) metadata.annotations = r.metadata.annotations;
  return { apiVersion: r.apiVersion, kind: r.kind, metadata, spec } as unknown as KubeObject;
}

// The agent's writes ask for the written report's metadata only (PartialObjectMetadata): the whole report — its
// `resources` blob is ~130 KB with 100 collected objects — would come back on every write just to be parsed and
// dropped. What the server now stores is known without it: the applied spec (the agent owns every spec field) with
// the server's metadata (resourceVersion, generation, labels, …) and the status as last seen, or the applied status
// over the last seen one. It stands in for the informer's copy until that is as new.

/** afterSpecApply is the report as stored after the agent applied `want`'s spec (server metadata from the answer). */
export function afterSpecApply(want: ReportObject, answer: KubeObject, before: ReportObject | undefined): ReportObject {
  const shape = applyShape(want) as unknown as ReportObject;
  const out: ReportObject = { apiVersion: want.apiVersion, kind: want.kind, metadata: answer.metadata as ReportObject['metadata'], spec: shape.spec };
  if (before?.status) out.status = before.status;
  return out;
}

/** afterStatusApply is the report as stored after the agent applied `status`: the other fields as last seen. */
export function afterStatusApply(status: Pick<ReportObject, 'apiVersion' | 'kind' | 'metadata' | 'status'>, answer: KubeObject, before: ReportObject | undefined, ownsFailure: boolean): ReportObject {
  const base: ReportObject = before ?? { apiVersion: status.apiVersion, kind: status.kind, metadata: status.metadata, spec: {} as ReportObject['spec'] };
  // The apply sets the fields the agent owns: phase always; failureMessage only on managed copies (there, leaving it
  // out removes it; on the management copy it is the event manager's and stays).
  const applied = status.status ?? {};
  const next: NonNullable<ReportObject['status']> = { ...(base.status ?? {}), ...applied };
  if (ownsFailure && applied.failureMessage === undefined) delete next.failureMessage;
  return { ...base, metadata: answer.metadata as ReportObject['metadata'], status: next };
}

/** ReportWriterOptions configures a ReportWriter. */
export interface ReportWriterOptions {
  /** Names the target in logs and metrics: `management` or `managed`. */
  role: 'management' | 'managed';
  client: KubeClient;
  /** Informer factory of the target cluster (observed reports come from its EventReport informer). */
  informers: InformerFactory;
  /** Watch reports in this namespace only (a namespace-scoped credential), default all namespaces. */
  namespace?: string;
  logger?: Logger;
  metrics?: AgentMetrics;
  /** Registry for the work-queue metrics (ripple_reconcile_* with controller `agent-reports-<role>`). */
  registry?: Registry;
  /** Concurrent writes (default 8). */
  workers?: number;
}

interface Written {
  object: ReportObject;
}

/** ReportWriter reconciles desired EventReports into one cluster; see the file comment. */
export class ReportWriter {
  private readonly desired = new Map<string, DesiredReport & { since?: number }>();
  private readonly written = new Map<string, Written>();
  private readonly controller: Controller;
  private readonly sub: Subscription<ReportObject & KubeObject>;
  private readonly log: Logger;
  private readonly removeDeleteHandler: () => void;

  constructor(private readonly options: ReportWriterOptions) {
    this.log = (options.logger ?? silentLogger()).child({ writer: options.role });
    this.sub = options.informers.subscribe<ReportObject & KubeObject>({ ...EVENT_REPORT, ...(options.namespace ? { namespace: options.namespace } : {}) });
    this.controller = new Controller({
      name: `agent-reports-${options.role}`,
      reconcile: (key) => this.reconcile(key),
      workers: options.workers ?? 8,
      logger: this.log,
      metrics: options.registry,
    });
    // Observed changes of keys the agent manages re-run their reconcile (someone deleted or edited a report) —
    // except updates that cannot change its plan (needless).
    this.controller.watch(
      this.sub.informer,
      (o) => {
        const k = keyOf(o.metadata.namespace, o.metadata.name);
        return this.desired.has(k) ? k : undefined;
      },
      (old, o) => this.needless(old, o),
    );
    // A deletion seen after our last write makes that write history: forget it, so the next plan starts from
    // "absent" instead of a stale copy (whose uid would make a delete precondition fail forever).
    this.removeDeleteHandler = this.sub.informer.addHandler({
      onDelete: (o) => {
        const k = keyOf(o.metadata.namespace, o.metadata.name);
        const w = this.written.get(k);
        if (w && !olderThan(o.metadata.resourceVersion, w.object.metadata.resourceVersion)) this.written.delete(k);
      },
    });
  }

  /** start launches the workers. */
  start(): void {
    this.controller.start();
  }

  /** waitForSync resolves once the observed reports are listed. */
  waitForSync(opts: { timeoutMs?: number; signal?: AbortSignal } = {}): Promise<void> {
    return this.sub.informer.waitForSync(opts);
  }

  /** hasSynced says whether the observed reports have been listed. */
  hasSynced(): boolean {
    return this.sub.informer.hasSynced();
  }

  /** observed lists the reports currently stored in the target (from the cache). */
  observed(): ReportObject[] {
    return this.sub.informer.cache.list();
  }

  /** set makes report the desired state of its key; `since` (performance.now()) feeds the event→report metric. */
  set(report: ReportObject, since?: number): void {
    const key = keyOf(report.metadata.namespace, report.metadata.name);
    const cur = this.desired.get(key);
    const keepSince = cur?.state === 'present' && cur.since !== undefined ? cur.since : since;
    this.desired.set(key, keepSince === undefined ? { state: 'present', report } : { state: 'present', report, since: keepSince });
    this.controller.enqueue(key);
  }

  /** withdraw deletes the report at namespace/name (the caller has positive evidence it must go). */
  withdraw(namespace: string, name: string): void {
    const key = keyOf(namespace, name);
    this.desired.set(key, { state: 'absent' });
    this.controller.enqueue(key);
  }

  /**
   * release stops managing a key without writing anything: the report stays as stored (another manager — the
   * cluster's new shard — takes it over).
   */
  release(namespace: string, name: string): void {
    const key = keyOf(namespace, name);
    this.desired.delete(key);
    this.written.delete(key);
  }

  /** has says whether the writer manages a key (present or being withdrawn). */
  has(namespace: string, name: string): boolean {
    return this.desired.has(keyOf(namespace, name));
  }

  /** presentKeys lists the `namespace/name` keys the writer keeps present. */
  presentKeys(): string[] {
    return [...this.desired].filter(([, d]) => d.state === 'present').map(([k]) => k);
  }

  /** desiredReport returns the desired report of a key, if present. */
  desiredReport(namespace: string, name: string): ReportObject | undefined {
    const d = this.desired.get(keyOf(namespace, name));
    return d?.state === 'present' ? d.report : undefined;
  }

  /** idle says whether nothing is queued or being written (tests and benches). */
  idle(): boolean {
    const q = this.controller.queue;
    return q.length === 0 && q.processingCount === 0 && q.delayedCount === 0;
  }

  /** stop ends the workers and the informer subscription. */
  async stop(): Promise<void> {
    this.removeDeleteHandler();
    await this.controller.stop();
    await this.sub.unsubscribe();
  }

  /**
   * needless says whether an observed update cannot change what reconcile plans, so it need not wake it: a version
   * no newer than the agent's own last write (its echo — reconcile would plan from that write, as the reconcile that
   * made it did), or one from which planReport plans nothing. Changes of desired content enqueue the key themselves.
   */
  private needless(_old: ReportObject, o: ReportObject): boolean {
    const key = keyOf(o.metadata.namespace, o.metadata.name);
    const w = this.written.get(key);
    const rv = o.metadata.resourceVersion;
    const wrv = w?.object.metadata.resourceVersion;
    if (rv !== undefined && wrv !== undefined && (rv === wrv || (/^\d+$/.test(rv) && /^\d+$/.test(wrv) && BigInt(rv) < BigInt(wrv)))) return true;
    // Newer than our last write: needless if it already is what we want (our write's echo arriving before the
    // write's response, the event manager's Processed) — reconcile would plan nothing from it.
    return planReport(this.desired.get(key), o).length === 0;
  }

  // observedFor returns the newest known state of key: the cache, or the agent's own last write when newer.
  private observedFor(key: string): ReportObject | undefined {
    const { namespace, name } = splitKey(key);
    const cached = this.sub.informer.cache.get(namespace, name);
    const w = this.written.get(key);
    if (!w) return cached;
    if (cached && !olderThan(cached.metadata.resourceVersion, w.object.metadata.resourceVersion)) {
      this.written.delete(key);
      return cached;
    }
    return w.object;
  }

  private async reconcile(key: string): Promise<void> {
    const desired = this.desired.get(key);
    if (!desired) return;
    const observed = this.observedFor(key);
    const actions = planReport(desired, observed);
    if (actions.length > 0) this.log.debug({ report: key, desired: desired.state, observedRv: observed?.metadata.resourceVersion, actions: actions.map((a) => a.type) }, 'writing EventReport');
    const metrics = this.options.metrics;
    const target = this.options.role;
    try {
      for (const a of actions) {
        switch (a.type) {
          case 'apply': {
            const meta = await this.options.client.apply<KubeObject>(applyShape(a.object), { fieldManager: FIELD_MANAGER, force: true, metadataOnly: true });
            this.written.set(key, { object: afterSpecApply(a.object, meta, this.written.get(key)?.object ?? observed) });
            metrics?.writes.inc({ target, action: 'apply' });
            if (desired.state === 'present' && desired.since !== undefined) {
              metrics?.eventToReportSeconds.observe((performance.now() - desired.since) / 1000);
              delete desired.since;
            }
            break;
          }
          case 'applyStatus': {
            const meta = await this.options.client.apply<KubeObject>(a.object as unknown as KubeObject, { fieldManager: FIELD_MANAGER, force: true, subresource: 'status', metadataOnly: true });
            const ownsFailure = desired.state === 'present' && desired.report.status !== undefined;
            this.written.set(key, { object: afterStatusApply(a.object, meta, this.written.get(key)?.object ?? observed, ownsFailure) });
            metrics?.writes.inc({ target, action: 'status' });
            break;
          }
          case 'delete': {
            try {
              await this.options.client.delete({ ...EVENT_REPORT, namespace: a.namespace, name: a.name }, a.uid ? { preconditions: { uid: a.uid } } : {});
            } catch (err) {
              // A uid precondition that fails means our view was stale: forget it and plan again from the cache.
              if (isConflict(err)) this.written.delete(key);
              if (!isNotFound(err)) throw err;
            }
            this.written.delete(key);
            metrics?.writes.inc({ target, action: 'delete' });
            break;
          }
        }
      }
    } catch (err) {
      metrics?.writeFailures.inc({ target });
      this.log.warn({ report: key, err: errorMessage(err) }, 'EventReport write failed; retrying with backoff');
      throw err;
    }
    // A withdrawn key whose report is gone needs no more attention.
    if (desired.state === 'absent' && this.desired.get(key) === desired) this.desired.delete(key);
  }
}

function keyOf(namespace: string | undefined, name: string): string {
  return `${namespace ?? ''}/${name}`;
}

function splitKey(key: string): { namespace: string; name: string } {
  const i = key.indexOf('/');
  return { namespace: key.slice(0, i), name: key.slice(i + 1) };
}

/**
 * olderThan says whether resourceVersion a is older than b. Kubernetes calls them opaque, but etcd's and the
 * embedded server's are integers, and comparing them is the only way to tell a lagging cache from a newer write by
 * someone else; for anything else, the cache counts as caught up only once it shows our write.
 */
function olderThan(a: string | undefined, b: string | undefined): boolean {
  if (a && b && /^\d+$/.test(a) && /^\d+$/.test(b)) return BigInt(a) < BigInt(b);
  return a !== b;
}
