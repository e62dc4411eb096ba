// heap-summary.ts: what holds the bytes of a V8 heap snapshot (e.g. the fleet bench's RIPPLE_FLEET_BENCH_HEAP_SNAPSHOT).
// `node --max-old-space-size=6000 --import tsx scripts/heap-summary.ts FILE.heapsnapshot [TOP]` prints
//   1. self size by constructor (or node type),
//   2. strings and arrays by the chain of objects holding them (e.g. "string: Object.json" = stored JSON text),
//   3. Kubernetes objects (apiVersion + kind + metadata) by kind and by the chain holding them, with the size of their
//      whole tree (e.g. "ClusterSummary <- ObjectCache.objects" = an informer cache).
// Sizes are self sizes; a node reachable from several places is counted once, at the first place found.
import { readFileSync } from 'node:fs';

interface Snapshot {
  snapshot: { meta: { node_fields: string[]; edge_fields: string[]; node_types: [string[]]; edge_types: [string[]] } };
  nodes: number[];
  edges: number[];
  strings: string[];
}

const [file, topArg] = process.argv.slice(2);
if (!file) {
  process.stderr.write('usage: node --max-old-space-size=6000 --import tsx scripts/heap-summary.ts FILE.heapsnapshot [TOP]\n');
  process.exit(2);
}
const TOP = Number(topArg ?? 25);
const snap = JSON.parse(readFileSync(file, 'utf8')) as Snapshot;
const { node_fields: nf, edge_fields: ef, node_types, edge_types } = snap.snapshot.meta;
const [nTypes, eTypes] = [node_types[0], edge_types[0]];
const NF = nf.length;
const EF = ef.length;
const [iType, iName, iSize, iEdges] = ['type', 'name', 'self_size', 'edge_count'].map((f) => nf.indexOf(f));
const [eType, eName, eTo] = ['type', 'name_or_index', 'to_node'].map((f) => ef.indexOf(f));
const { nodes, edges, strings } = snap;
const N = nodes.length / NF;
const first = new Uint32Array(N + 1);
for (let i = 0, e = 0; i < N; i++) {
  first[i] = e;
  e += nodes[i * NF + iEdges] * EF;
}
first[N] = edges.length;
const type = (i: number) => nTypes[nodes[i * NF + iType]];
const name = (i: number) => strings[nodes[i * NF + iName]];
const size = (i: number) => nodes[i * NF + iSize];
const edgeType = (e: number) => eTypes[edges[e + eType]];
const target = (e: number) => edges[e + eTo] / NF;
const label = (i: number) => (type(i) === 'object' || type(i) === 'closure' ? name(i) : `(${type(i)})`);
const weak = (e: number) => edgeType(e) === 'weak' || edgeType(e) === 'shortcut';

function prop(i: number, key: string): number {
  for (let e = first[i]; e < first[i + 1]; e += EF) if (edgeType(e) === 'property' && strings[edges[e + eName]] === key) return target(e);
  return -1;
}

// The first strong retainer of every node (and the edge), to name what holds it.
const holder = new Int32Array(N).fill(-1);
const via = new Int32Array(N).fill(-1);
for (let i = 0; i < N; i++) {
  for (let e = first[i]; e < first[i + 1]; e += EF) {
    if (weak(e)) continue;
    const to = target(e);
    if (holder[to] === -1) {
      holder[to] = i;
      via[to] = e;
    }
  }
}
const edgeLabel = (e: number) => (edgeType(e) === 'property' ? strings[edges[e + eName]] : edgeType(e) === 'element' || edgeType(e) === 'hidden' ? '[]' : edgeType(e));

const isKube = new Uint8Array(N);
for (let i = 0; i < N; i++) if (type(i) === 'object' && prop(i, 'metadata') >= 0 && prop(i, 'kind') >= 0 && prop(i, 'apiVersion') >= 0) isKube[i] = 1;

function chain(i: number, depth: number, stopAtKube: boolean): { path: string; nested: boolean } {
  const path: string[] = [];
  let j = i;
  for (let d = 0; d < depth && holder[j] >= 0; d++) {
    const e = via[j];
    j = holder[j];
    if (stopAtKube && isKube[j]) return { path: '', nested: true };
    path.push(`${label(j)}.${edgeLabel(e)}`);
    if (type(j) === 'object' && !['Object', 'Array', 'Map', 'Set'].includes(name(j))) break;
  }
  return { path: path.reverse().join(' > '), nested: false };
}

const counted = new Uint8Array(N);
function treeSize(root: number): number {
  let total = 0;
  const stack = [root];
  while (stack.length > 0) {
    const i = stack.pop()!;
    const t = type(i);
    if (counted[i] || t === 'code' || t === 'closure' || t === 'synthetic' || t === 'object shape' || t === 'native') continue;
    counted[i] = 1;
    total += size(i);
    for (let e = first[i]; e < first[i + 1]; e += EF) {
      if (weak(e)) continue;
      const k = edgeType(e) === 'property' ? strings[edges[e + eName]] : '';
      if (k === 'map' || k === '__proto__' || k === 'constructor') continue;
      stack.push(target(e));
    }
  }
  return total;
}

const add = (m: Map<string, [number, number]>, k: string, s: number) => {
  const v = m.get(k) ?? [0, 0];
  v[0] += s;
  v[1]++;
  m.set(k, v);
};
const mib = (b: number) => (b / 2 ** 20).toFixed(1).padStart(8);
const print = (title: string, m: Map<string, [number, number]>) => {
  console.log(`--- ${title} (MiB, count)`);
  for (const [k, [s, c]] of [...m].sort((a, b) => b[1][0] - a[1][0]).slice(0, TOP)) console.log(mib(s), String(c).padStart(9), k.slice(0, 180));
};

const byType = new Map<string, [number, number]>();
const byHolder = new Map<string, [number, number]>();
let total = 0;
for (let i = 0; i < N; i++) {
  total += size(i);
  add(byType, label(i), size(i));
  const t = type(i);
  if (t.includes('string') || t === 'array' || t === 'hidden') add(byHolder, `${t}: ${chain(i, 6, false).path}`, size(i));
}
const byKube = new Map<string, [number, number]>();
for (let i = 0; i < N; i++) {
  if (!isKube[i]) continue;
  const c = chain(i, 8, true);
  if (c.nested) continue;
  add(byKube, `${name(prop(i, 'kind'))} <- ${c.path}`, treeSize(i));
}
console.log(`${file}: ${(total / 2 ** 20).toFixed(1)} MiB in ${N} nodes`);
print('self size by constructor', byType);
print('strings and arrays by holder', byHolder);
print('Kubernetes objects by kind and holder (whole trees)', byKube);
