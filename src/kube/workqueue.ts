// A rate-limited work queue of string keys: a key is queued at most once however often it is added (dedup), a key
// being processed is never handed to a second worker (it is re-queued when done if it was added meanwhile),
// delayed adds keep the earliest deadline, failures back off per key exponentially, and an optional coalescing
// window throttles each key: the first add after a quiet period is ready on the next turn of the event loop (adds
// in the same turn merge into it), while a key handed to a worker less than a window ago waits until the window
// has passed — an isolated change pays no window, a burst costs at most one reconcile per window.
// Go: client-go util/workqueue (queue.go, delaying_queue.go, rate_limiting_queue.go, default_rate_limiters.go)

/** RateLimiter decides how long a failing key waits before its next try. */
export interface RateLimiter {
  /** when returns the delay before the next try of key and counts the failure. */
  when(key: string): number;
  /** forget clears the failure count of key (after a success). */
  forget(key: string): void;
  /** retries is the number of failures counted for key. */
  retries(key: string): number;
}

/** ExponentialRateLimiter waits baseMs·2^failures, capped at maxMs, per key. Go: ItemExponentialFailureRateLimiter */
export class ExponentialRateLimiter implements RateLimiter {
  private readonly failures = new Map<string, number>();
  constructor(
    readonly baseMs = 5,
    readonly maxMs = 300_000,
  ) {}

  when(key: string): number {
    const n = this.failures.get(key) ?? 0;
    this.failures.set(key, n + 1);
    // 2**n overflows to Infinity for large n; the cap keeps the delay finite.
    return Math.min(this.maxMs, this.baseMs * 2 ** n);
  }

  forget(key: string): void {
    this.failures.delete(key);
  }

  retries(key: string): number {
    return this.failures.get(key) ?? 0;
  }
}

/** WorkQueueOptions configures a WorkQueue. */
export interface WorkQueueOptions {
  rateLimiter?: RateLimiter;
  /**
   * Coalescing window in ms for add(): a key is handed to workers at most once per window; the first add after a
   * quiet period waits only for the current turn of the event loop (default 0: queue immediately, no throttling).
   */
  coalesceMs?: number;
  /** Called when a key becomes ready, with how long it waited since it was first added (for metrics). */
  onReady?: (key: string) => void;
  /** Called when a worker takes a key, with the ms since it became ready (for metrics). */
  onTake?: (key: string, waitedMs: number) => void;
}

/** WorkQueue hands string keys to workers; see the file comment for the guarantees. */
export class WorkQueue {
  private queue: string[] = [];
  private head = 0;
  private readonly dirty = new Set<string>();
  private readonly processing = new Set<string>();
  /** Keys waiting for a deadline; `backoff` marks a failed key's retry (addRateLimited). */
  private readonly waiting = new Map<string, { at: number; timer: NodeJS.Timeout | NodeJS.Immediate; backoff?: boolean }>();
  /** When each key was last handed to a worker (coalescing only; pruned as entries age out of the window). */
  private readonly lastTaken = new Map<string, number>();
  private lastPrune = 0;
  private readonly readyAt = new Map<string, number>();
  private readonly getters: ((key: string | undefined) => void)[] = [];
  private readonly drained: (() => void)[] = [];
  private shutting = false;
  readonly rateLimiter: RateLimiter;
  private readonly coalesceMs: number;

  constructor(private readonly options: WorkQueueOptions = {}) {
    this.rateLimiter = options.rateLimiter ?? new ExponentialRateLimiter();
    this.coalesceMs = options.coalesceMs ?? 0;
  }

  /** length is the number of keys ready to be taken. */
  get length(): number {
    return this.queue.length - this.head;
  }

  /** processingCount is the number of keys workers hold right now. */
  get processingCount(): number {
    return this.processing.size;
  }

  /** delayedCount is the number of keys waiting for their delay (addAfter, backoff, coalescing). */
  get delayedCount(): number {
    return this.waiting.size;
  }

  get shuttingDown(): boolean {
    return this.shutting;
  }

  /** add queues key (after the coalescing window, if one is configured); a key already queued is not added twice. */
  add(key: string): void {
    if (this.coalesceMs <= 0 || this.dirty.has(key)) return this.addNow(key);
    const last = this.lastTaken.get(key);
    const wait = last === undefined ? 0 : last + this.coalesceMs - performance.now();
    if (wait > 0) this.addAfter(key, wait);
    else this.addNextTurn(key);
  }

  // addNextTurn queues key once the current turn of the event loop is over (a watch chunk's events join it). A key
  // waiting for a later deadline of addAfter (a delayed status roll-up, a requeueAfter) is due now instead — the
  // earlier deadline wins, as client-go's Add does not wait for an item's AddAfter. A failed key's backoff is kept:
  // a change the failing reconcile itself wrote must not undo it.
  private addNextTurn(key: string): void {
    if (this.shutting) return;
    const cur = this.waiting.get(key);
    if (cur) {
      if (cur.backoff || cur.at <= performance.now()) return;
      clearWaiting(cur.timer);
    }
    const timer = setImmediate(() => {
      this.waiting.delete(key);
      this.addNow(key);
    });
    this.waiting.set(key, { at: performance.now(), timer });
  }

  private addNow(key: string): void {
    if (this.shutting || this.dirty.has(key)) return;
    this.dirty.add(key);
    if (this.processing.has(key)) return;
    this.push(key);
  }

  private push(key: string): void {
    this.readyAt.set(key, performance.now());
    this.options.onReady?.(key);
    this.queue.push(key);
    const getter = this.getters.shift();
    if (getter) getter(this.take());
  }

  /** addAfter queues key after ms; when it is already waiting, the earlier deadline wins. backoff marks the delay as a
   * failed key's retry (addRateLimited), which a later add() does not cut short. */
  addAfter(key: string, ms: number, backoff = false): void {
    if (this.shutting) return;
    if (ms <= 0) {
      this.addNow(key);
      return;
    }
    const at = performance.now() + ms;
    const cur = this.waiting.get(key);
    if (cur) {
      if (cur.at <= at) return;
      clearWaiting(cur.timer);
    }
    const timer = setTimeout(() => {
      this.waiting.delete(key);
      this.addNow(key);
    }, ms);
    this.waiting.set(key, { at, timer, backoff });
  }

  /** addRateLimited queues key after its rate limiter's delay (counts a failure). */
  addRateLimited(key: string): void {
    this.addAfter(key, this.rateLimiter.when(key), true);
  }

  /** forget resets the failure count of key. */
  forget(key: string): void {
    this.rateLimiter.forget(key);
  }

  /** numRequeues is the number of failures counted for key. */
  numRequeues(key: string): number {
    return this.rateLimiter.retries(key);
  }

  private take(): string {
    const key = this.queue[this.head++];
    if (this.head > 1024 && this.head * 2 > this.queue.length) {
      this.queue = this.queue.slice(this.head);
      this.head = 0;
    }
    this.processing.add(key);
    this.dirty.delete(key);
    if (this.coalesceMs > 0) this.noteTaken(key);
    const t = this.readyAt.get(key);
    this.readyAt.delete(key);
    if (t !== undefined) this.options.onTake?.(key, performance.now() - t);
    return key;
  }

  /** get resolves with the next key (the caller must call done(key)), or undefined once the queue shuts down. */
  get(): Promise<string | undefined> {
    if (this.head < this.queue.length) return Promise.resolve(this.take());
    if (this.shutting) return Promise.resolve(undefined);
    return new Promise((resolve) => this.getters.push(resolve));
  }

  private noteTaken(key: string): void {
    const now = performance.now();
    this.lastTaken.set(key, now);
    // Forget keys whose window has passed, at most once per window (amortised over the takes).
    if (now - this.lastPrune < this.coalesceMs || this.lastTaken.size < 1024) return;
    this.lastPrune = now;
    for (const [k, t] of this.lastTaken) if (now - t >= this.coalesceMs) this.lastTaken.delete(k);
  }

  /** done marks key processed; if it was added meanwhile it is queued again (after its window, when coalescing). */
  done(key: string): void {
    this.processing.delete(key);
    if (this.dirty.has(key) && !this.shutting) {
      const last = this.lastTaken.get(key);
      const wait = this.coalesceMs > 0 && last !== undefined ? last + this.coalesceMs - performance.now() : 0;
      if (wait > 0) {
        this.dirty.delete(key);
        this.addAfter(key, wait);
      } else this.push(key);
    }
    if (this.processing.size === 0) for (const d of this.drained.splice(0)) d();
  }

  /** shutDown stops handing out keys: waiting getters get undefined, delayed keys are dropped. */
  shutDown(): void {
    if (this.shutting) return;
    this.shutting = true;
    for (const w of this.waiting.values()) clearWaiting(w.timer);
    this.waiting.clear();
    this.lastTaken.clear();
    this.queue = [];
    this.head = 0;
    this.dirty.clear();
    this.readyAt.clear();
    for (const g of this.getters.splice(0)) g(undefined);
  }

  /** shutDownWithDrain shuts down and resolves when every key being processed is done. */
  shutDownWithDrain(): Promise<void> {
    this.shutDown();
    if (this.processing.size === 0) return Promise.resolve();
    return new Promise((resolve) => this.drained.push(resolve));
  }
}

function clearWaiting(t: NodeJS.Timeout | NodeJS.Immediate): void {
  clearTimeout(t as NodeJS.Timeout);
  clearImmediate(t as NodeJS.Immediate);
}
