// data.tsx: the browser's side of the API — one EventSource for change notifications, and useLive(path, topics)
// which fetches a JSON endpoint and fetches it again whenever the server says one of its topics changed.
import { createContext } from 'preact';
import { useContext, useEffect, useRef, useState } from 'preact/hooks';
import type { ObjRef, StreamMessage, Topic } from '../api-types.js';

/** Versions counts, per topic, the change notifications received. */
export type Versions = Record<Topic, number>;

const ZERO: Versions = { clusters: 0, sources: 0, triggers: 0, addons: 0, failures: 0, lineage: 0, metrics: 0 };

/** LiveContext carries the versions and the connection state down the tree. */
export const LiveContext = createContext<{ versions: Versions; connected: boolean }>({ versions: ZERO, connected: false });

/** useStream subscribes to /api/stream (the browser reconnects by itself). */
export function useStream(): { versions: Versions; connected: boolean } {
  const [versions, setVersions] = useState<Versions>(ZERO);
  const [connected, setConnected] = useState(false);
  useEffect(() => {
    const es = new EventSource('/api/stream');
    es.onopen = () => setConnected(true);
    es.onerror = () => setConnected(false);
    es.onmessage = (e: MessageEvent<string>) => {
      const m = JSON.parse(e.data) as StreamMessage;
      setVersions((v) => {
        const n = { ...v };
        for (const t of m.topics) n[t]++;
        return n;
      });
    };
    return () => es.close();
  }, []);
  return { versions, connected };
}

/** useLive fetches path and refetches it when any of topics changes (at most one request in flight). */
export function useLive<T>(path: string | undefined, topics: Topic[]): { data?: T; error?: string } {
  const { versions } = useContext(LiveContext);
  const [state, setState] = useState<{ data?: T; error?: string; path?: string }>({});
  const inflight = useRef(false);
  const again = useRef(false);
  const key = topics.map((t) => versions[t]).join(',');
  const latest = useRef(path);
  latest.current = path;
  useEffect(() => {
    if (!path) return;
    const run = async () => {
      if (inflight.current) {
        again.current = true;
        return;
      }
      inflight.current = true;
      try {
        do {
          again.current = false;
          const p = latest.current;
          if (!p) break;
          try {
            const r = await fetch(p, { headers: { accept: 'application/json' } });
            const body = (await r.json()) as T & { error?: string };
            if (p !== latest.current) continue;
            setState(r.ok ? { data: body, path: p } : { error: body.error ?? `HTTP ${r.status}`, path: p });
          } catch (err) {
            setState((s) => ({ ...s, error: String(err) }));
          }
        } while (again.current);
      } finally {
        inflight.current = false;
      }
    };
    void run();
  }, [path, key]);
  // Data of another path (the filter changed) is kept until the new answer arrives: no flicker.
  return { data: state.data, error: state.error };
}

/** refQuery renders an ObjRef as query parameters. */
export function refQuery(r: ObjRef): string {
  const p = new URLSearchParams({ cluster: r.cluster, apiVersion: r.apiVersion, kind: r.kind, name: r.name });
  if (r.namespace) p.set('namespace', r.namespace);
  return p.toString();
}

/** lineageHref links to the lineage page of a deployed object (up) or an event (down). */
export function lineageHref(dir: 'up' | 'down', r: ObjRef): string {
  return `#/lineage?dir=${dir}&${refQuery(r)}`;
}

/** useDebounced returns value after it stopped changing for ms. */
export function useDebounced<T>(value: T, ms: number): T {
  const [v, setV] = useState(value);
  useEffect(() => {
    const t = setTimeout(() => setV(value), ms);
    return () => clearTimeout(t);
  }, [value, ms]);
  return v;
}

/** ago renders a time relative to now (`3 s ago`), or the ISO date for old times. */
export function ago(t: number | string | undefined, now = Date.now()): string {
  if (t === undefined) return '';
  const ms = typeof t === 'number' ? t : Date.parse(t);
  if (!Number.isFinite(ms)) return '';
  const d = Math.max(0, now - ms) / 1000;
  if (d < 60) return `${Math.round(d)} s ago`;
  if (d < 3600) return `${Math.round(d / 60)} min ago`;
  if (d < 86400) return `${Math.round(d / 3600)} h ago`;
  return new Date(ms).toISOString().slice(0, 16).replace('T', ' ');
}

/** clock renders a time of day with milliseconds (`17:30:33.927`). */
export function clock(t: number | undefined): string {
  if (t === undefined) return '';
  return new Date(t).toISOString().slice(11, 23);
}

/** ms renders a duration: `41 ms`, `1.2 s`. */
export function ms(v: number | undefined): string {
  if (v === undefined) return '';
  if (Math.abs(v) < 1000) return `${Math.round(v)} ms`;
  return `${(v / 1000).toFixed(v < 10_000 ? 2 : 1)} s`;
}

/** latencyText renders a hop's latency; from second-precision timestamps only whole seconds mean anything. */
export function latencyText(e: { latencyMs?: number; approx?: boolean }): string {
  if (e.latencyMs === undefined) return '';
  return e.approx ? `≈${Math.round(e.latencyMs / 1000)} s` : ms(e.latencyMs);
}
