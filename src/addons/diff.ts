// diff.ts: comparing what the deployer wants with what a cluster holds. `containsDesired` is the drift test (does
// the live object still carry every field we apply?), `removePaths` applies driftExclusions (JSON pointers), and
// `unifiedDiff` renders the DryRun "Update" message. Pure.
import { toYamlSigs } from '../funcs/index.js';
import type { GoValue } from '../gotemplate/index.js';

const isRecord = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

/**
 * containsDesired reports whether `observed` holds every field of `desired` with the same value: maps are compared
 * key by key (extra observed keys are fine: defaults, other managers, status), lists element by element and with
 * the same length, scalars exactly (a desired null stands for "absent"). Server-side apply leaves an object in this
 * state after our apply, so a false answer means someone changed or removed a field we own.
 */
export function containsDesired(observed: unknown, desired: unknown): boolean {
  if (desired === null || desired === undefined) return observed === null || observed === undefined;
  if (Array.isArray(desired)) {
    if (!Array.isArray(observed) || observed.length !== desired.length) return false;
    for (let i = 0; i < desired.length; i++) if (!containsDesired(observed[i], desired[i])) return false;
    return true;
  }
  if (isRecord(desired)) {
    if (!isRecord(observed)) return false;
    for (const k of Object.keys(desired)) if (!containsDesired(observed[k], desired[k])) return false;
    return true;
  }
  return observed === desired;
}

/** decodePointer splits an RFC 6901 JSON pointer (`/spec/replicas`, `~1` = `/`, `~0` = `~`). */
function decodePointer(p: string): string[] | undefined {
  if (p === '') return [];
  if (!p.startsWith('/')) return undefined;
  return p
    .slice(1)
    .split('/')
    .map((s) => s.replace(/~1/g, '/').replace(/~0/g, '~'));
}

/**
 * removePaths returns a deep copy of obj without the fields at the given JSON pointers (missing paths are ignored,
 * as Sveltos' remove patches are best effort). Invalid pointers are returned in `invalid`.
 */
export function removePaths<T>(obj: T, pointers: readonly string[]): { value: T; invalid: string[] } {
  const copy = structuredClone(obj) as unknown;
  const invalid: string[] = [];
  for (const p of pointers) {
    const parts = decodePointer(p);
    if (!parts || parts.length === 0) {
      invalid.push(p);
      continue;
    }
    let cur: unknown = copy;
    for (let i = 0; i < parts.length - 1 && cur !== undefined; i++) {
      const part = parts[i];
      if (Array.isArray(cur)) cur = /^\d+$/.test(part) ? cur[Number(part)] : undefined;
      else if (isRecord(cur)) cur = cur[part];
      else cur = undefined;
    }
    const last = parts[parts.length - 1];
    if (Array.isArray(cur) && /^\d+$/.test(last) && Number(last) < cur.length) cur.splice(Number(last), 1);
    else if (isRecord(cur)) delete cur[last];
  }
  return { value: copy as T, invalid };
}

/** yamlOf renders an object for diffs (sigs.k8s.io/yaml form; volatile metadata dropped). */
function yamlOf(o: unknown): string {
  if (!isRecord(o)) return '';
  const md = isRecord(o.metadata) ? { ...o.metadata } : undefined;
  if (md) for (const k of ['managedFields', 'resourceVersion', 'uid', 'generation', 'creationTimestamp']) delete md[k];
  return toYamlSigs((md ? { ...o, metadata: md } : o) as GoValue);
}

/**
 * unifiedDiff is a line diff of two objects rendered as YAML, in unified format with `---`/`+++` headers and
 * three lines of context. It is what DryRun reports for an Update.
 */
export function unifiedDiff(current: unknown, proposed: unknown, name: string): string {
  const a = yamlOf(current).split('\n');
  const b = yamlOf(proposed).split('\n');
  // Longest common subsequence table (objects are small; O(n*m) is fine).
  const n = a.length;
  const m = b.length;
  const lcs: number[][] = Array.from({ length: n + 1 }, () => new Array<number>(m + 1).fill(0));
  for (let i = n - 1; i >= 0; i--) for (let j = m - 1; j >= 0; j--) lcs[i][j] = a[i] === b[j] ? lcs[i + 1][j + 1] + 1 : Math.max(lcs[i + 1][j], lcs[i][j + 1]);
  const ops: { t: ' ' | '-' | '+'; s: string; ai: number; bi: number }[] = [];
  let i = 0;
  let j = 0;
  while (i < n || j < m) {
    if (i < n && j < m && a[i] === b[j]) ops.push({ t: ' ', s: a[i], ai: i++, bi: j++ });
    else if (i < n && (j >= m || lcs[i + 1][j] >= lcs[i][j + 1])) ops.push({ t: '-', s: a[i], ai: i++, bi: j });
    else ops.push({ t: '+', s: b[j], ai: i, bi: j++ });
  }
  const out = [`--- a/${name}`, `+++ b/${name}`];
  const ctx = 3;
  let k = 0;
  while (k < ops.length) {
    if (ops[k].t === ' ') {
      k++;
      continue;
    }
    let start = Math.max(0, k - ctx);
    let end = k;
    // Extend the hunk while changes are within 2*ctx lines of each other.
    for (;;) {
      while (end < ops.length && ops[end].t !== ' ') end++;
      let next = end;
      while (next < ops.length && ops[next].t === ' ' && next - end < 2 * ctx) next++;
      if (next < ops.length && ops[next].t !== ' ' && next - end < 2 * ctx + 1) {
        end = next;
        continue;
      }
      break;
    }
    const stop = Math.min(ops.length, end + ctx);
    const slice = ops.slice(start, stop);
    const aLen = slice.filter((o) => o.t !== '+').length;
    const bLen = slice.filter((o) => o.t !== '-').length;
    out.push(`@@ -${slice[0].ai + (aLen > 0 ? 1 : 0)},${aLen} +${slice[0].bi + (bLen > 0 ? 1 : 0)},${bLen} @@`);
    for (const o of slice) out.push(`${o.t}${o.s}`);
    k = stop;
    start = stop;
  }
  return out.join('\n') + '\n';
}
