// thread-cpu: the CPU time of the calling thread, for benches that split a process' CPU between its threads
// (process.cpuUsage counts them all; Node 20 has no per-thread counter).
import { readFileSync } from 'node:fs';

/** threadCpuMs is the calling thread's CPU time in ms (Linux: /proc/thread-self/schedstat, in ns); else undefined. */
export function threadCpuMs(): number | undefined {
  try {
    const ns = Number(readFileSync('/proc/thread-self/schedstat', 'utf8').split(' ')[0]);
    return Number.isFinite(ns) ? ns / 1e6 : undefined;
  } catch {
    return undefined;
  }
}
