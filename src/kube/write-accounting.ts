// write-accounting: which reconciles write nothing. A diagnostic the benches switch on (enableWriteAccounting):
// every mutating request a client sends (POST, PUT, PATCH, DELETE) is counted against the reconcile it was issued
// from, followed through awaits with an AsyncLocalStorage; a reconcile that issued none is a no-op
// (`ripple_reconcile_noop_total`). Off by default: a store carried through every promise costs a little CPU, and
// a controller in production has no use for the count.
import { AsyncLocalStorage } from 'node:async_hooks';

/** WriteScope counts the mutating requests issued inside one reconcile. */
export interface WriteScope {
  writes: number;
}

let storage: AsyncLocalStorage<WriteScope> | undefined;

/** enableWriteAccounting turns the accounting on for the whole process (controllers started from now on). */
export function enableWriteAccounting(): void {
  storage ??= new AsyncLocalStorage<WriteScope>();
}

/** writeAccountingEnabled says whether enableWriteAccounting was called. */
export function writeAccountingEnabled(): boolean {
  return storage !== undefined;
}

/** countingWrites runs f with a fresh scope and returns its result with the number of writes it issued. */
export async function countingWrites<T>(f: () => Promise<T>): Promise<{ value: T; writes: number }> {
  const scope: WriteScope = { writes: 0 };
  if (!storage) return { value: await f(), writes: -1 };
  const value = await storage.run(scope, f);
  return { value, writes: scope.writes };
}

/** noteRequest counts a request against the current reconcile, if it mutates and accounting is on. */
export function noteRequest(method: string): void {
  if (!storage || method === 'GET' || method === 'HEAD') return;
  const s = storage.getStore();
  if (s) s.writes++;
}
