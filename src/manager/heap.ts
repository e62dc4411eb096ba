// heap.ts: how far V8 lets `ripple up`'s heaps grow past what is live before collecting. V8 picks a growth factor per
// isolate between 1.1 and 4 by its own heuristics; under an event storm both threads (the API server's and the control
// plane's) produce garbage fast and V8 lets each heap run to 2-3.5x its live data before a full collection, which
// was most of the peak RSS in the fleet bench (30 clusters x 100 Services: API server heap 586 MiB with 165 MiB live).
// A fixed factor of 1.25 held the peak at 915 instead of 1,219 MiB RSS with no measurable CPU per event difference
// (36.6 against 37.1 ms). The flag is process-wide (every thread's heap), so `ripple up` sets it once at start.
import { setFlagsFromString } from 'node:v8';

/** DEFAULT_HEAP_GROWING_PERCENT: a heap may grow 25% past its live size before a full collection. */
export const DEFAULT_HEAP_GROWING_PERCENT = 25;

/** heapGrowingPercent reads RIPPLE_HEAP_GROWING_PERCENT (0: V8's own heuristics), else the given or default value. */
export function heapGrowingPercent(given?: number): number {
  const env = process.env.RIPPLE_HEAP_GROWING_PERCENT;
  if (env !== undefined && env !== '') {
    const n = Number(env);
    if (!Number.isInteger(n) || n < 0 || n > 1000) throw new Error(`RIPPLE_HEAP_GROWING_PERCENT=${env}: want an integer percentage 0-1000 (0: V8's own heuristics)`);
    return n;
  }
  return given ?? DEFAULT_HEAP_GROWING_PERCENT;
}

/** limitHeapGrowth sets V8's heap growing factor for every thread of the process (0 leaves V8's heuristics). */
export function limitHeapGrowth(percent: number): void {
  if (percent > 0) setFlagsFromString(`--heap-growing-percent=${percent}`);
}
