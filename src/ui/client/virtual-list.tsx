// virtual-list.tsx: a list that renders only the rows in view (fixed row height), so 1,000+ clusters scroll smoothly.
// It is an ARIA table: rows carry aria-rowindex so screen readers know where they are; arrow keys move between rows.
import type { ComponentChildren } from 'preact';
import { useRef, useState } from 'preact/hooks';

/** VirtualListProps configures VirtualList. */
export interface VirtualListProps<T> {
  rows: readonly T[];
  rowHeight: number;
  /** Visible height in px. */
  height: number;
  /** CSS grid-template-columns shared by header and rows. */
  columns: string;
  header: ComponentChildren[];
  render: (row: T, index: number) => ComponentChildren[];
  label: string;
  rowKey: (row: T) => string;
}

/** VirtualList renders the visible window of rows (plus a few above and below). */
export function VirtualList<T>(p: VirtualListProps<T>) {
  const [top, setTop] = useState(0);
  const ref = useRef<HTMLDivElement>(null);
  const overscan = 8;
  const first = Math.max(0, Math.floor(top / p.rowHeight) - overscan);
  const last = Math.min(p.rows.length, Math.ceil((top + p.height) / p.rowHeight) + overscan);
  const onKey = (e: KeyboardEvent) => {
    if (e.key !== 'ArrowDown' && e.key !== 'ArrowUp') return;
    const row = (e.target as HTMLElement).closest<HTMLElement>('[aria-rowindex]');
    if (!row) return;
    const i = Number(row.getAttribute('aria-rowindex')) - 2 + (e.key === 'ArrowDown' ? 1 : -1);
    if (i < 0 || i >= p.rows.length) return;
    e.preventDefault();
    const el = ref.current!;
    const y = i * p.rowHeight;
    if (y < el.scrollTop) el.scrollTop = y;
    else if (y + p.rowHeight > el.scrollTop + p.height - 34) el.scrollTop = y + p.rowHeight - p.height + 34;
    requestAnimationFrame(() => el.querySelector<HTMLElement>(`[aria-rowindex="${i + 2}"]`)?.focus());
  };
  return (
    <div
      class="vlist"
      ref={ref}
      role="table"
      aria-label={p.label}
      aria-rowcount={p.rows.length + 1}
      style={{ height: `${Math.min(p.height, p.rows.length * p.rowHeight + 36)}px`, minHeight: '80px' }}
      onScroll={(e) => setTop((e.currentTarget as HTMLDivElement).scrollTop)}
      onKeyDown={onKey}
    >
      <div class="vhead" role="row" aria-rowindex={1} style={{ gridTemplateColumns: p.columns }}>
        {p.header.map((h, i) => (
          <div role="columnheader" key={i}>
            {h}
          </div>
        ))}
      </div>
      <div style={{ height: `${p.rows.length * p.rowHeight}px`, position: 'relative' }}>
        {p.rows.slice(first, last).map((r, k) => {
          const i = first + k;
          return (
            <div
              class="vrow"
              role="row"
              tabIndex={0}
              aria-rowindex={i + 2}
              key={p.rowKey(r)}
              style={{ top: `${i * p.rowHeight}px`, height: `${p.rowHeight}px`, gridTemplateColumns: p.columns }}
            >
              {p.render(r, i).map((c, j) => (
                <div role="cell" key={j}>
                  {c}
                </div>
              ))}
            </div>
          );
        })}
      </div>
      {p.rows.length === 0 && <div class="empty">Nothing matches.</div>}
    </div>
  );
}
