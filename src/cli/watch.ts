// watch: `ripple get … -w` and `ripple show … -w` — a listing kept live, as `kubectl get -w` does: the table once,
// then one line per row that appears, changes or disappears (in its last state), never the whole table again.
//
// Rows derive from several kinds (a trigger row counts ClusterProfiles; an add-on row reads ClusterSummaries), so
// the listing is not a view of one watch: informers on every kind the rows come from say *when* something changed,
// and the listing's own load() — the same code as without -w — says *what* the rows are now. Changes arriving
// together are read once (a short settle window), and loads never overlap.
import { stringify } from 'yaml';
import { InformerFactory, type InformerKey, type KubeClient, type Subscription } from '../kube/index.js';
import type { CommandIO } from './command.js';

/** LiveTable is a listing to keep live. */
export interface LiveTable<R> {
  client: KubeClient;
  /** The kinds (in the management cluster) the rows are computed from. */
  kinds: readonly InformerKey[];
  /** load reads the rows as they are now. */
  load(): Promise<R[]>;
  /** key identifies a row across loads (cluster and name, say). */
  key(r: R): string;
  header: readonly string[];
  cells(r: R): string[];
  output: 'table' | 'json' | 'yaml';
  /** What to print when there are no rows at the start (table output). */
  empty?: string;
  io: CommandIO;
  /** Ends the watch. */
  signal: AbortSignal;
  /** How long to wait for related changes to arrive before reading (default 100 ms). */
  settleMs?: number;
}

/** watchTable prints the rows, then every change to them until signal aborts. Errors of load() after the first are
 * reported to the caller's onError (default: rethrown), so a listing can print them and keep watching. */
export async function watchTable<R>(t: LiveTable<R>, onError: (err: unknown) => void = (e) => { throw e; }): Promise<void> {
  const factory = new InformerFactory(t.client);
  const subs: Subscription<unknown>[] = [];
  let timer: NodeJS.Timeout | undefined;
  let wake: (() => void) | undefined;
  let dirty = false;
  const changed = () => {
    dirty = true;
    if (timer === undefined) {
      timer = setTimeout(() => {
        timer = undefined;
        wake?.();
      }, t.settleMs ?? 100);
    }
  };
  try {
    // Subscribe before the first load, so a change between the two is not lost.
    for (const k of t.kinds) subs.push(factory.subscribe(k, { onAdd: (_o, initial) => !initial && changed(), onUpdate: changed, onDelete: changed }));
    const printer = new RowPrinter(t);
    printer.first(await t.load());
    while (!t.signal.aborted) {
      await new Promise<void>((resolve) => {
        wake = resolve;
        t.signal.addEventListener('abort', () => resolve(), { once: true });
      });
      wake = undefined;
      if (t.signal.aborted || !dirty) continue;
      dirty = false;
      try {
        printer.next(await t.load());
      } catch (err) {
        onError(err);
      }
    }
  } finally {
    clearTimeout(timer);
    for (const s of subs) await s.unsubscribe();
    await factory.stop();
  }
}

// RowPrinter remembers what it printed last per row key and prints rows whose cells changed. Columns named AGE are
// left out of the comparison: they change every second without anything happening.
class RowPrinter<R> {
  private readonly last = new Map<string, { row: R; cells: string[]; sig: string }>();
  private readonly widths: number[];
  private readonly volatile: Set<number>;

  constructor(private readonly t: LiveTable<R>) {
    this.widths = t.header.map((h) => h.length);
    this.volatile = new Set(t.header.flatMap((h, i) => (h === 'AGE' ? [i] : [])));
  }

  first(rows: R[]): void {
    const lines: string[][] = [];
    for (const r of rows) lines.push(this.remember(r));
    if (this.t.output !== 'table') {
      for (const r of rows) this.printRow(r);
      return;
    }
    for (const c of lines) c.forEach((s, i) => (this.widths[i] = Math.max(this.widths[i] ?? 0, s.length)));
    if (rows.length === 0 && this.t.empty) this.t.io.stderr.write(`${this.t.empty}\n`);
    this.t.io.stdout.write(this.line([...this.t.header]));
    for (const c of lines) this.t.io.stdout.write(this.line(c));
  }

  next(rows: R[]): void {
    const seen = new Set<string>();
    for (const r of rows) {
      const k = this.t.key(r);
      seen.add(k);
      const before = this.last.get(k)?.sig;
      const cells = this.remember(r);
      if (before !== this.last.get(k)!.sig) this.emit(r, cells);
    }
    for (const [k, v] of [...this.last]) {
      if (seen.has(k)) continue;
      this.last.delete(k);
      this.emit(v.row, v.cells);
    }
  }

  private remember(r: R): string[] {
    const cells = this.t.cells(r);
    this.last.set(this.t.key(r), { row: r, cells, sig: cells.filter((_c, i) => !this.volatile.has(i)).join('\u0000') });
    return cells;
  }

  private emit(r: R, cells: string[]): void {
    if (this.t.output === 'table') this.t.io.stdout.write(this.line(cells));
    else this.printRow(r);
  }

  // JSON: one row per line (JSON Lines, for jq); YAML: one document per row.
  private printRow(r: R): void {
    this.t.io.stdout.write(this.t.output === 'json' ? JSON.stringify(r) + '\n' : `---\n${stringify(r, { lineWidth: 0 })}`);
  }

  private line(cells: string[]): string {
    cells.forEach((s, i) => (this.widths[i] = Math.max(this.widths[i] ?? 0, s.length)));
    return (
      cells
        .map((c, i) => (i === cells.length - 1 ? c : c.padEnd(this.widths[i])))
        .join('   ')
        .trimEnd() + '\n'
    );
  }
}
