// Controller: informer events → keys → work queue → N workers calling reconcile(key). Level-based: reconcile gets a
// key, never the event type, and reads current state itself. Errors back off per key; `requeueAfter` schedules the
// next pass. Prometheus metrics: reconcile duration histogram, outcome counter, queue depth, queue wait.
// Go: sigs.k8s.io/controller-runtime pkg/internal/controller (reconcileHandler), pkg/handler (EnqueueRequestForObject)
import { Counter, Gauge, Histogram, type Registry } from 'prom-client';
import { silentLogger, type Logger } from '../obs/index.js';
import { objectKey, type CacheObject } from './cache.js';
import { errorMessage } from './errors.js';
import type { EventHandlers } from './informer.js';
import { WorkQueue, type RateLimiter } from './workqueue.js';
import { countingWrites, writeAccountingEnabled } from './write-accounting.js';

/** ReconcileResult asks for another pass: after `requeueAfter` ms, or with backoff when `requeue` is true. */
export interface ReconcileResult {
  /** Reconcile this key again after this many milliseconds (resets its failure backoff). */
  requeueAfter?: number;
  /** Reconcile again with the per-key backoff, without counting as an error. */
  requeue?: boolean;
}

/** ReconcileContext is what a reconcile gets besides its key. */
export interface ReconcileContext {
  /** A child logger carrying controller and key. */
  logger: Logger;
  /** How many times this key failed in a row before this pass. */
  retries: number;
  /** Aborted when the controller stops. */
  signal: AbortSignal;
}

/** Reconciler brings the world in line with the desired state of one key. */
export type Reconciler = (key: string, ctx: ReconcileContext) => Promise<ReconcileResult | void>;

/** ControllerOptions configures a Controller. */
export interface ControllerOptions {
  /** Names the controller in logs and metrics (`controller` label). */
  name: string;
  reconcile: Reconciler;
  /** Concurrent workers (default 4); one key is never reconciled by two at once. */
  workers?: number;
  logger?: Logger;
  /** Registry for the metrics (none: no metrics). */
  metrics?: Registry;
  rateLimiter?: RateLimiter;
  /** Coalescing window in ms for informer-driven adds (default 0). */
  coalesceMs?: number;
}

/** EventSource is anything handlers can be attached to: an informer or a subscription's informer. */
export interface EventSource<T> {
  addHandler(h: EventHandlers<T>): () => void;
}

/** KeyMapper turns an object into the keys to reconcile (default: its own `namespace/name`). */
export type KeyMapper<T> = (obj: T) => string | readonly string[] | undefined;

interface ControllerMetrics {
  duration: Histogram<'controller'>;
  outcomes: Counter<'controller' | 'result'>;
  depth: Gauge<'controller'>;
  wait: Histogram<'controller'>;
  adds: Counter<'controller'>;
  noops: Counter<'controller'>;
  queues: Map<string, WorkQueue>;
}

const registries = new WeakMap<Registry, ControllerMetrics>();

/** controllerMetrics returns the controller metrics of a registry, registering them on first use. */
function controllerMetrics(registry: Registry): ControllerMetrics {
  let m = registries.get(registry);
  if (m) return m;
  const queues = new Map<string, WorkQueue>();
  m = {
    queues,
    duration: new Histogram({
      name: 'ripple_reconcile_duration_seconds',
      help: 'Time spent in one reconcile, by controller.',
      labelNames: ['controller'],
      buckets: [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60],
      registers: [registry],
    }),
    outcomes: new Counter({
      name: 'ripple_reconcile_total',
      help: 'Reconciles by controller and result (success, error, requeue, requeue_after).',
      labelNames: ['controller', 'result'],
      registers: [registry],
    }),
    depth: new Gauge({
      name: 'ripple_workqueue_depth',
      help: 'Keys ready to be reconciled, by controller.',
      labelNames: ['controller'],
      registers: [registry],
      collect() {
        for (const [name, q] of queues) this.set({ controller: name }, q.length);
      },
    }),
    wait: new Histogram({
      name: 'ripple_workqueue_wait_seconds',
      help: 'Time a ready key waited for a worker, by controller.',
      labelNames: ['controller'],
      buckets: [0.0001, 0.0005, 0.001, 0.005, 0.01, 0.05, 0.1, 0.5, 1, 5],
      registers: [registry],
    }),
    noops: new Counter({
      name: 'ripple_reconcile_noop_total',
      help: 'Reconciles that sent no write request, by controller (counted only with write accounting on: benches).',
      labelNames: ['controller'],
      registers: [registry],
    }),
    adds: new Counter({
      name: 'ripple_workqueue_adds_total',
      help: 'Keys that became ready, by controller.',
      labelNames: ['controller'],
      registers: [registry],
    }),
  };
  registries.set(registry, m);
  return m;
}

/** Controller runs a Reconciler over keys fed by informers and by explicit enqueues. */
export class Controller {
  readonly name: string;
  readonly queue: WorkQueue;
  private readonly reconcile: Reconciler;
  private readonly workers: number;
  private readonly log: Logger;
  private readonly metrics: ControllerMetrics | undefined;
  private readonly removers: (() => void)[] = [];
  private readonly abort = new AbortController();
  private running: Promise<void>[] = [];
  private started = false;

  constructor(options: ControllerOptions) {
    this.name = options.name;
    this.reconcile = options.reconcile;
    this.workers = Math.max(1, options.workers ?? 4);
    this.log = (options.logger ?? silentLogger()).child({ controller: options.name });
    this.metrics = options.metrics ? controllerMetrics(options.metrics) : undefined;
    const m = this.metrics;
    const name = this.name;
    this.queue = new WorkQueue({
      rateLimiter: options.rateLimiter,
      coalesceMs: options.coalesceMs,
      onReady: m ? () => m.adds.inc({ controller: name }) : undefined,
      onTake: m ? (_k, ms) => m.wait.observe({ controller: name }, ms / 1000) : undefined,
    });
    m?.queues.set(name, this.queue);
  }

  /**
   * watch enqueues keys for every add, update (old and new object, so a changed mapping reaches both) and delete
   * of source; updates for which `ignoreUpdate(old, new)` holds (e.g. onlyStatusChanged) are skipped. Returns a
   * function that detaches the handlers.
   */
  watch<T extends CacheObject>(source: EventSource<T>, map: KeyMapper<T> = objectKey, ignoreUpdate?: (oldObj: T, newObj: T) => boolean): () => void {
    const enqueue = (obj: T) => {
      const keys = map(obj);
      if (keys === undefined) return;
      if (typeof keys === 'string') this.queue.add(keys);
      else for (const k of keys) this.queue.add(k);
    };
    const remove = source.addHandler({
      onAdd: (o) => enqueue(o),
      onUpdate: (old, o) => {
        if (ignoreUpdate?.(old, o)) return;
        enqueue(o);
        // Only re-map the old object when the mapping may differ (custom mappers); the default key never changes.
        if (map !== objectKey) enqueue(old);
      },
      onDelete: (o) => enqueue(o),
    });
    this.removers.push(remove);
    return remove;
  }

  /** enqueue queues a key now (subject to the coalescing window). */
  enqueue(key: string): void {
    this.queue.add(key);
  }

  /** enqueueAfter queues a key after ms milliseconds. */
  enqueueAfter(key: string, ms: number): void {
    this.queue.addAfter(key, ms);
  }

  /** start launches the workers (idempotent). */
  start(): void {
    if (this.started) return;
    this.started = true;
    for (let i = 0; i < this.workers; i++) this.running.push(this.worker());
  }

  /** stop detaches from informers, lets in-flight reconciles finish, and resolves when the workers have exited. */
  async stop(): Promise<void> {
    for (const r of this.removers.splice(0)) r();
    this.abort.abort();
    await this.queue.shutDownWithDrain();
    await Promise.all(this.running);
    this.running = [];
    this.metrics?.queues.delete(this.name);
  }

  private async worker(): Promise<void> {
    for (;;) {
      const key = await this.queue.get();
      if (key === undefined) return;
      await this.process(key);
    }
  }

  private async process(key: string): Promise<void> {
    const log = this.log.child({ key });
    const retries = this.queue.numRequeues(key);
    const t0 = performance.now();
    let result: 'success' | 'error' | 'requeue' | 'requeue_after';
    try {
      const ctx = { logger: log, retries, signal: this.abort.signal };
      let r: ReconcileResult | void;
      if (this.metrics && writeAccountingEnabled()) {
        const counted = await countingWrites(() => this.reconcile(key, ctx));
        r = counted.value;
        if (counted.writes === 0) this.metrics.noops.inc({ controller: this.name });
      } else r = await this.reconcile(key, ctx);
      if (r?.requeueAfter !== undefined && r.requeueAfter >= 0) {
        this.queue.forget(key);
        this.queue.addAfter(key, r.requeueAfter);
        result = 'requeue_after';
      } else if (r?.requeue) {
        this.queue.addRateLimited(key);
        result = 'requeue';
      } else {
        this.queue.forget(key);
        result = 'success';
      }
    } catch (err) {
      result = 'error';
      if (!this.abort.signal.aborted) {
        this.queue.addRateLimited(key);
        log.error({ err: errorMessage(err), retries: retries + 1 }, 'reconcile failed; will retry with backoff');
      }
    } finally {
      this.queue.done(key);
    }
    const seconds = (performance.now() - t0) / 1000;
    if (this.metrics) {
      this.metrics.duration.observe({ controller: this.name }, seconds);
      this.metrics.outcomes.inc({ controller: this.name, result });
    }
    log.debug({ result, ms: Math.round(seconds * 1e4) / 10 }, 'reconciled');
  }
}
