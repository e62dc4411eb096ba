// lineage-graph.tsx: draws a LineageGraph left to right in causal order (layers by longest path), edges labelled with
// the latency of the hop. Nodes that start a lineage of their own are links (deployed objects: upstream; events:
// downstream), so the graph is navigable with Tab and Enter.
import type { LineageGraph, LineageNode, LineageRole } from '../api-types.js';
import { MGMT_ID } from '../api-types.js';
import { clock, latencyText, lineageHref, ms } from './data.js';

// Top to bottom: one row per causal layer (a chain is long, its layers narrow).
const NW = 250;
const NH = 62;
const GX = 22;
const GY = 46;
const PAD = 16;

const ROLE_TEXT: Record<LineageRole, string> = {
  event: 'event',
  report: 'EventReport',
  source: 'EventSource',
  trigger: 'EventTrigger',
  instantiated: 'instantiated',
  config: 'referenced',
  profile: 'ClusterProfile',
  summary: 'ClusterSummary',
  object: 'deployed',
};

/** clusterText names a cluster for people (the management cluster is `mgmt`). */
export function clusterText(c: string): string {
  return c === MGMT_ID ? 'mgmt' : c;
}

function truncate(s: string, n: number): string {
  return s.length <= n ? s : `${s.slice(0, n - 1)}…`;
}

/** nodeTitle is a node's one-line description. */
export function nodeTitle(n: LineageNode): string {
  const r = n.ref;
  return `${r.kind} ${r.namespace ? `${r.namespace}/` : ''}${r.name}`;
}

/** layout places each node: its layer is the longest causal path from a node with no input. */
export function layout(g: LineageGraph): Map<string, { x: number; y: number; layer: number }> {
  const incoming = new Map<string, string[]>();
  for (const e of g.edges) incoming.set(e.to, [...(incoming.get(e.to) ?? []), e.from]);
  const layerOf = new Map<string, number>();
  const depth = (id: string, seen: Set<string>): number => {
    const hit = layerOf.get(id);
    if (hit !== undefined) return hit;
    if (seen.has(id)) return 0;
    seen.add(id);
    const d = Math.max(-1, ...(incoming.get(id) ?? []).map((p) => depth(p, seen))) + 1;
    layerOf.set(id, d);
    return d;
  };
  for (const n of g.nodes) depth(n.id, new Set());
  const layers = new Map<number, LineageNode[]>();
  for (const n of g.nodes) layers.set(layerOf.get(n.id)!, [...(layers.get(layerOf.get(n.id)!) ?? []), n]);
  const pos = new Map<string, { x: number; y: number; layer: number }>();
  const widest = Math.max(...[...layers.values()].map((l) => l.length));
  for (const [layer, nodes] of layers) {
    const offset = ((widest - nodes.length) * (NW + GX)) / 2;
    nodes.forEach((n, i) => pos.set(n.id, { x: PAD + offset + i * (NW + GX), y: PAD + layer * (NH + GY), layer }));
  }
  return pos;
}

function href(n: LineageNode): string | undefined {
  if (n.role === 'event' && n.ref.kind && !n.withdrawn) return lineageHref('down', n.ref);
  if (n.deployed && !n.withdrawn) return lineageHref('up', n.ref);
  return undefined;
}

/** LineageView draws the graph. */
export function LineageView({ graph }: { graph: LineageGraph }) {
  const pos = layout(graph);
  const width = Math.max(...[...pos.values()].map((p) => p.x + NW)) + PAD;
  const height = Math.max(...[...pos.values()].map((p) => p.y + NH)) + PAD;
  return (
    <div class="graph">
      <svg width={width} height={height} viewBox={`0 0 ${width} ${height}`} role="group" aria-label={`lineage graph, ${graph.nodes.length} objects`}>
        <defs>
          <marker id="arrow" viewBox="0 0 10 10" refX="9" refY="5" markerWidth="7" markerHeight="7" orient="auto-start-reverse">
            <path d="M0,0 L10,5 L0,10 z" fill="#94a3b8" />
          </marker>
        </defs>
        {graph.edges.map((e) => {
          const a = pos.get(e.from);
          const b = pos.get(e.to);
          if (!a || !b) return null;
          const x1 = a.x + NW / 2;
          const y1 = a.y + NH;
          const x2 = b.x + NW / 2;
          const y2 = b.y;
          const my = (y1 + y2) / 2;
          const mx = (x1 + x2) / 2;
          const label = e.latencyMs !== undefined ? (e.approx ? latencyText(e) : `+${ms(e.latencyMs)}`) : undefined;
          return (
            <g key={`${e.from}→${e.to}`}>
              <path class="edge" d={`M${x1},${y1} C${x1},${my} ${x2},${my} ${x2},${y2 - 2}`} marker-end="url(#arrow)" />
              {label && (
                <g>
                  <rect class="edge-label-bg" x={mx - 30} y={my - 9} width={60} height={16} rx={3} />
                  <text class="edge-label" x={mx} y={my + 3} text-anchor="middle">
                    {label}
                  </text>
                </g>
              )}
            </g>
          );
        })}
        {graph.nodes.map((n) => {
          const p = pos.get(n.id)!;
          const failed = /Fail/.test(n.status ?? '') || !!n.message;
          const cls = `node ${n.role}${failed ? ' failed' : ''}${n.withdrawn ? ' withdrawn' : ''}${n.id === graph.root ? ' root' : ''}`;
          const label = `${ROLE_TEXT[n.role]}: ${nodeTitle(n)} in ${clusterText(n.ref.cluster)}${n.time !== undefined ? ` at ${clock(n.time)}` : ''}${n.withdrawn ? ' (withdrawn)' : ''}${n.status ? `, ${n.status}` : ''}`;
          const body = (
            <>
              <rect x={p.x} y={p.y} width={NW} height={NH} rx={8} />
              <text class="role" x={p.x + 10} y={p.y + 16}>
                {truncate(`${ROLE_TEXT[n.role]} · ${clusterText(n.ref.cluster)}${n.withdrawn ? ' · withdrawn' : ''}`, 38)}
              </text>
              <text x={p.x + 10} y={p.y + 34} font-weight={600}>
                {truncate(n.role === 'event' || n.role === 'object' ? `${n.ref.kind} ${n.ref.namespace ? `${n.ref.namespace}/` : ''}${n.ref.name}` : n.ref.name, 34)}
              </text>
              <text class="time" x={p.x + 10} y={p.y + 53}>
                {n.time !== undefined ? `${clock(n.time)}${n.timeSource === 'api' ? ' (object)' : ''}` : n.status ?? (n.role === 'event' ? '' : n.ref.kind)}
              </text>
              <title>{`${label}${n.message ? `\n${n.message}` : ''}${n.detail ? `\n${n.detail}` : ''}`}</title>
            </>
          );
          const h = href(n);
          return h ? (
            <a key={n.id} class={cls} href={h} aria-label={label}>
              {body}
            </a>
          ) : (
            <g key={n.id} class={cls} tabIndex={0} role="img" aria-label={label}>
              {body}
            </g>
          );
        })}
      </svg>
    </div>
  );
}
