// charts.tsx: small SVG plots drawn here (no chart library): a time-series line chart and a bar chart of a
// histogram's buckets. Each has a <title>/<desc> and a text summary for screen readers.

/** Series is one line of a LineChart. */
export interface Series {
  name: string;
  color: string;
  points: { t: number; v: number | undefined }[];
}

const W = 560;
const H = 200;
const PAD = { l: 52, r: 12, t: 10, b: 26 };

function niceMax(v: number): number {
  if (v <= 0) return 1;
  const e = Math.pow(10, Math.floor(Math.log10(v)));
  for (const m of [1, 2, 2.5, 5, 10]) if (v <= m * e) return m * e;
  return 10 * e;
}

/** LineChart plots series over time with a y axis in `unit`. */
export function LineChart(p: { title: string; series: Series[]; unit: (v: number) => string; empty: string }) {
  const all = p.series.flatMap((s) => s.points);
  const ts = all.map((x) => x.t);
  const vs = all.map((x) => x.v).filter((v): v is number => v !== undefined);
  if (ts.length < 2 || vs.length === 0) return <div class="empty">{p.empty}</div>;
  const t0 = Math.min(...ts);
  const t1 = Math.max(...ts);
  const ymax = niceMax(Math.max(0, ...vs));
  const x = (t: number) => PAD.l + ((t - t0) / Math.max(1, t1 - t0)) * (W - PAD.l - PAD.r);
  const y = (v: number) => H - PAD.b - (v / ymax) * (H - PAD.t - PAD.b);
  const ticks = [0, 0.25, 0.5, 0.75, 1].map((f) => f * ymax);
  const path = (s: Series) => {
    let d = '';
    let pen = false;
    for (const pt of s.points) {
      if (pt.v === undefined) {
        pen = false;
        continue;
      }
      d += `${pen ? 'L' : 'M'}${x(pt.t).toFixed(1)},${y(pt.v).toFixed(1)}`;
      pen = true;
    }
    return d;
  };
  const last = (s: Series) => [...s.points].reverse().find((pt) => pt.v !== undefined)?.v;
  return (
    <figure style={{ margin: 0 }}>
      <svg viewBox={`0 0 ${W} ${H}`} role="img" aria-label={p.title}>
        <title>{p.title}</title>
        {ticks.map((v) => (
          <g key={v}>
            <line class="grid" x1={PAD.l} x2={W - PAD.r} y1={y(v)} y2={y(v)} />
            <text class="tick" x={PAD.l - 6} y={y(v) + 3.5} text-anchor="end">
              {p.unit(v)}
            </text>
          </g>
        ))}
        <line class="axis" x1={PAD.l} x2={W - PAD.r} y1={H - PAD.b} y2={H - PAD.b} />
        <text class="tick" x={PAD.l} y={H - 8}>
          {new Date(t0).toISOString().slice(11, 19)}
        </text>
        <text class="tick" x={W - PAD.r} y={H - 8} text-anchor="end">
          {new Date(t1).toISOString().slice(11, 19)} UTC
        </text>
        {p.series.map((s) => (
          <g key={s.name}>
            <path d={path(s)} fill="none" stroke={s.color} stroke-width={2} stroke-linejoin="round" />
            {/* Points as dots too: an interval with one observation has no neighbour to draw a line to. */}
            {s.points.length <= 150 &&
              s.points.map((pt) => (pt.v === undefined ? null : <circle key={pt.t} cx={x(pt.t)} cy={y(pt.v)} r={2.6} fill={s.color} />))}
          </g>
        ))}
      </svg>
      <figcaption class="legend">
        {p.series.map((s) => (
          <span key={s.name}>
            <i style={{ background: s.color }} />
            {s.name}
            {last(s) !== undefined ? `: ${p.unit(last(s)!)} (last)` : ''}
          </span>
        ))}
      </figcaption>
    </figure>
  );
}

/** BarChart draws a histogram: one bar per bucket (per-bucket counts, not cumulative). */
export function BarChart(p: { title: string; buckets: { le: number; count: number }[]; unit: (le: number) => string }) {
  const bars = p.buckets.map((b, i) => ({ label: Number.isFinite(b.le) ? p.unit(b.le) : `>${p.unit(p.buckets[i - 1]?.le ?? 0)}`, n: b.count - (i > 0 ? p.buckets[i - 1].count : 0) }));
  // Labels need ~44 px: show every k-th (upper bounds, "≤" implied; the last bar is the overflow).
  const every = Math.max(1, Math.ceil(44 / ((W - PAD.l - PAD.r) / Math.max(1, bars.length))));
  const max = niceMax(Math.max(0, ...bars.map((b) => b.n)));
  const bw = (W - PAD.l - PAD.r) / Math.max(1, bars.length);
  const y = (v: number) => H - PAD.b - (v / max) * (H - PAD.t - PAD.b);
  return (
    <svg viewBox={`0 0 ${W} ${H}`} role="img" aria-label={`${p.title}: ${bars.map((b) => `${b.label}: ${b.n}`).join(', ')}`}>
      <title>{p.title}</title>
      {[0, 0.5, 1].map((f) => (
        <g key={f}>
          <line class="grid" x1={PAD.l} x2={W - PAD.r} y1={y(f * max)} y2={y(f * max)} />
          <text class="tick" x={PAD.l - 6} y={y(f * max) + 3.5} text-anchor="end">
            {Number.isInteger(f * max) ? f * max : (f * max).toFixed(1)}
          </text>
        </g>
      ))}
      {bars.map((b, i) => (
        <g key={i}>
          <rect x={PAD.l + i * bw + 2} y={y(b.n)} width={Math.max(1, bw - 4)} height={H - PAD.b - y(b.n)} fill="#2563eb" rx={2}>
            <title>{`${b.label}: ${b.n}`}</title>
          </rect>
          {(i % every === 0 || i === bars.length - 1) && (
            <text class="tick" x={PAD.l + i * bw + bw / 2} y={H - 10} text-anchor="middle">
              {b.label}
            </text>
          )}
        </g>
      ))}
      <line class="axis" x1={PAD.l} x2={W - PAD.r} y1={H - PAD.b} y2={H - PAD.b} />
    </svg>
  );
}
