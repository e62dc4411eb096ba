// Capped exponential backoff with jitter, and an abortable sleep. Used by informers (reconnects), leader election
// and probes. Go: k8s.io/apimachinery/pkg/util/wait (Backoff, with Jitter and Cap)

/** BackoffOptions shapes a backoff: delays grow from initialMs by factor up to maxMs, with a random jitter. */
export interface BackoffOptions {
  /** First delay (default 200 ms). */
  initialMs?: number;
  /** Cap (default 30 s). */
  maxMs?: number;
  /** Growth per step (default 2). */
  factor?: number;
  /** Fraction of the delay that is random: 0.5 draws from [d/2, d] (default 0.5; 0 disables jitter). */
  jitter?: number;
  /** Random source in [0, 1) (default Math.random); tests pass a fixed one. */
  random?: () => number;
}

/** Backoff hands out successive delays; reset() after a success starts over. */
export class Backoff {
  private attempt = 0;
  private readonly initialMs: number;
  private readonly maxMs: number;
  private readonly factor: number;
  private readonly jitter: number;
  private readonly random: () => number;

  constructor(o: BackoffOptions = {}) {
    this.initialMs = o.initialMs ?? 200;
    this.maxMs = o.maxMs ?? 30_000;
    this.factor = o.factor ?? 2;
    this.jitter = Math.min(1, Math.max(0, o.jitter ?? 0.5));
    this.random = o.random ?? Math.random;
  }

  /** next returns the next delay in ms and advances. */
  next(): number {
    const base = Math.min(this.maxMs, this.initialMs * this.factor ** this.attempt);
    this.attempt++;
    return Math.round(base * (1 - this.jitter) + base * this.jitter * this.random());
  }

  /** failures is the number of delays handed out since the last reset. */
  get failures(): number {
    return this.attempt;
  }

  reset(): void {
    this.attempt = 0;
  }
}

/** sleep waits ms milliseconds; it resolves early (without throwing) when signal aborts. */
export function sleep(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    if (signal?.aborted) return resolve();
    const onAbort = () => {
      clearTimeout(timer);
      resolve();
    };
    const timer = setTimeout(() => {
      signal?.removeEventListener('abort', onAbort);
      resolve();
    }, ms);
    signal?.addEventListener('abort', onAbort, { once: true });
  });
}
