// heap.ts: how far V8 lets `ripple up`'s heaps grow past what is live before collecting. V8 picks a growth factor per
// isolate between 1.1 and 4 by its own heuristics; under an event storm both threads (the API server's and the control
// plane's) produce garbage fast and V8 lets each heap run to 2-3.5x its live data before a full collection, which
// was most of the peak RSS in the fleet bench (30 clusters x 100 Services: API server heap 586 MiB with 165 MiB live).
//
// A fixed limit trades latency for memory at every size. Measured with the fleet bench (compiled, 2 cores):
//   - 25%: 10 x 100 event p99 63-65 ms (V8's own: 44-56 ms; 50%: 51-54 ms) — more frequent full collections, each
//     a pause of 8-30 ms on a machine whose two cores are both busy;
//   - 50%: 100 x 100 RSS after converge 998 MiB (25%: 933), 1000 x 10 peak 1,584 MiB (25%: 1,508).
// So by default the limit adapts to the heap: after each full collection of the control plane's heap the allowance
// for garbage is about HEADROOM_MIB (64 MiB), as a percentage of the live heap between 25% and 100% — a small heap
// gets room and fewer pauses, a large one stays within 25% of its live size. The flag is process-wide (every thread's
// heap, read by V8 whenever it sizes a heap after a collection); the control plane's heap stands for both, as the two
// grow together with the fleet. RIPPLE_HEAP_GROWING_PERCENT (or the heapGrowingPercent option) fixes it instead; 0 leaves
// V8's heuristics.
import { constants, PerformanceObserver } from 'node:perf_hooks';
import { getHeapStatistics, setFlagsFromString } from 'node:v8';

/** HEADROOM_MIB is the garbage a heap may gather past its live size before a full collection, when adaptive. */
export const HEADROOM_MIB = 64;
/** The bounds of the adaptive growing percent. */
export const MIN_GROWING_PERCENT = 25;
export const MAX_GROWING_PERCENT = 100;

/** HeapGrowth is how the heaps grow: adaptive (the default), a fixed percentage, or V8's own heuristics (0). */
export type HeapGrowth = 'adaptive' | number;

/** heapGrowth reads RIPPLE_HEAP_GROWING_PERCENT (0: V8's own heuristics), else the given value, else adaptive. */
export function heapGrowth(given?: number): HeapGrowth {
  const env = process.env.RIPPLE_HEAP_GROWING_PERCENT;
  if (env !== undefined && env !== '') {
    const n = Number(env);
    if (!Number.isInteger(n) || n < 0 || n > 1000) throw new Error(`RIPPLE_HEAP_GROWING_PERCENT=${env}: want an integer percentage 0-1000 (0: V8's own heuristics)`);
    return n;
  }
  return given ?? 'adaptive';
}

/** growingPercentFor is the adaptive percentage for a live heap of liveBytes (HEADROOM_MIB of it, within bounds). */
export function growingPercentFor(liveBytes: number): number {
  if (!(liveBytes > 0)) return MAX_GROWING_PERCENT;
  const pct = Math.round(((HEADROOM_MIB * 2 ** 20) / liveBytes) * 100);
  return Math.min(MAX_GROWING_PERCENT, Math.max(MIN_GROWING_PERCENT, pct));
}

let current = 0;
let observer: PerformanceObserver | undefined;

function setPercent(pct: number): void {
  if (pct === current) return;
  current = pct;
  setFlagsFromString(`--heap-growing-percent=${pct}`);
}

/** currentGrowingPercent is the percentage last set by this module (0: none set). */
export function currentGrowingPercent(): number {
  return current;
}

/**
 * limitHeapGrowth applies a HeapGrowth to the whole process: a fixed percentage once, or the adaptive rule after
 * every full collection of this thread's heap (a PerformanceObserver on GC entries: nothing runs between
 * collections). 0 leaves V8's heuristics. Calling it again replaces the previous setting.
 */
export function limitHeapGrowth(growth: HeapGrowth): void {
  observer?.disconnect();
  observer = undefined;
  if (growth === 'adaptive') {
    setPercent(growingPercentFor(getHeapStatistics().used_heap_size));
    observer = new PerformanceObserver((list) => {
      for (const e of list.getEntries()) {
        if ((e as { detail?: { kind?: number } }).detail?.kind !== constants.NODE_PERFORMANCE_GC_MAJOR) continue;
        setPercent(growingPercentFor(getHeapStatistics().used_heap_size));
      }
    });
    observer.observe({ entryTypes: ['gc'] });
    return;
  }
  if (growth > 0) setPercent(growth);
}
