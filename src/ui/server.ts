// server.ts: the dashboard's HTTP server — node:http on loopback, the bundled browser app, a read-only JSON API and
// server-sent events (a message whenever the informer-fed model changes; the browser then refetches what it shows).
// GET and HEAD only; a Host check keeps other sites from reaching it through DNS rebinding; strict security headers.
// Nothing here writes to any cluster and no handler returns Secret data (the model reads Secret metadata only).
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { ClusterRegistry } from '../clusters/index.js';
import type { InformerFactory } from '../kube/index.js';
import { createMetricsRegistry, silentLogger, type Logger, type Registry } from '../obs/index.js';
import type { ObjRef, StreamMessage, Topic } from './api-types.js';
import { buildBundle, type Bundle } from './bundle.js';
import type { Filter } from './filter.js';
import { downstreamLineage, upstreamLineage } from './lineage.js';
import { MetricsSampler } from './metrics.js';
import { FleetModel } from './model.js';

/** UiOptions configures startUi. */
export interface UiOptions {
  /** Informer factory of the management cluster (shared with the control plane). */
  informers: InformerFactory;
  registry: ClusterRegistry;
  /** The process's Prometheus registry (the plots read it; default: a new, empty one). */
  metrics?: Registry;
  /** Port on host (0 or undefined: a free one). */
  port?: number;
  /** Address to bind (default 127.0.0.1: the dashboard is for the local user). */
  host?: string;
  logger?: Logger;
  /** Metrics sampling interval, ms (default 2000). */
  sampleIntervalMs?: number;
}

/** UiServer is a running dashboard. */
export interface UiServer {
  /** `http://127.0.0.1:PORT/`. */
  readonly url: string;
  readonly port: number;
  readonly model: FleetModel;
  stop(): Promise<void>;
}

/** SECURITY_HEADERS go on every response. */
export const SECURITY_HEADERS: Readonly<Record<string, string>> = {
  'content-security-policy':
    "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' data:; connect-src 'self'; font-src 'self'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'",
  'x-content-type-options': 'nosniff',
  'referrer-policy': 'no-referrer',
  'x-frame-options': 'DENY',
  'cross-origin-opener-policy': 'same-origin',
  'cross-origin-resource-policy': 'same-origin',
  'permissions-policy': 'camera=(), microphone=(), geolocation=()',
};

/** startUi builds the browser bundle, starts the model and serves the dashboard. */
export async function startUi(o: UiOptions): Promise<UiServer> {
  const log = (o.logger ?? silentLogger()).child({ component: 'ui' });
  const metrics = o.metrics ?? createMetricsRegistry();
  const bundle = await buildBundle();
  const model = new FleetModel({ informers: o.informers, registry: o.registry, metrics, logger: o.logger });
  const sampler = new MetricsSampler(metrics, o.sampleIntervalMs);
  const streams = new Set<ServerResponse>();
  const broadcast = (m: StreamMessage) => {
    const text = `data: ${JSON.stringify(m)}\n\n`;
    for (const s of streams) s.write(text);
  };
  model.onChange((topics, version) => broadcast({ version, topics }));
  sampler.onSample(() => broadcast({ version: model.version, topics: ['metrics'] }));
  sampler.start();
  const host = o.host ?? '127.0.0.1';
  let port = 0;
  const server: Server = createServer((req, res) => {
    handle(req, res).catch((err: unknown) => {
      log.warn({ err: err instanceof Error ? err.message : String(err), url: req.url }, 'dashboard request failed');
      if (!res.headersSent) send(res, 500, 'text/plain; charset=utf-8', 'internal error\n');
      else res.end();
    });
  });
  const heartbeat = setInterval(() => {
    for (const s of streams) s.write(': keep-alive\n\n');
  }, 25_000);
  heartbeat.unref();

  async function handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    if (!allowedHost(req.headers.host, port)) return send(res, 421, 'text/plain; charset=utf-8', 'misdirected request: use the URL ripple printed\n');
    if (req.method !== 'GET' && req.method !== 'HEAD') {
      res.setHeader('allow', 'GET, HEAD');
      return send(res, 405, 'text/plain; charset=utf-8', 'the dashboard is read-only\n');
    }
    const url = new URL(req.url ?? '/', 'http://localhost');
    const p = url.pathname;
    if (p === '/' || p === '/index.html') return send(res, 200, 'text/html; charset=utf-8', bundle.html, 'no-cache');
    if (p === '/app.js') return send(res, 200, 'text/javascript; charset=utf-8', bundle.js, 'no-cache');
    if (p === '/app.css') return send(res, 200, 'text/css; charset=utf-8', bundle.css, 'no-cache');
    if (p === '/favicon.svg') return send(res, 200, 'image/svg+xml', FAVICON, 'max-age=3600');
    if (p === '/api/stream') return req.method === 'HEAD' ? send(res, 200, 'text/event-stream; charset=utf-8', '') : stream(req, res);
    const f = filterOf(url);
    switch (p) {
      case '/api/summary':
        return json(res, model.summary());
      case '/api/clusters':
        return json(res, model.clusters(f));
      case '/api/sources':
        return json(res, model.sources(f));
      case '/api/events':
        return json(res, model.events(f));
      case '/api/triggers':
        return json(res, model.triggers(f));
      case '/api/addons':
        return json(res, model.addons(f));
      case '/api/failures':
        return json(res, model.failures(f));
      case '/api/lineage/upstream':
      case '/api/lineage/downstream': {
        const ref = refOf(url);
        if (!ref) return send(res, 400, 'application/json', JSON.stringify({ error: 'cluster, apiVersion, kind and name are required' }));
        return json(res, p.endsWith('upstream') ? upstreamLineage(model, ref) : downstreamLineage(model, ref));
      }
      case '/api/metrics':
        return json(res, await sampler.view());
      default:
        return send(res, 404, 'application/json', JSON.stringify({ error: `no such page: ${p}` }));
    }
  }

  function stream(req: IncomingMessage, res: ServerResponse): void {
    res.writeHead(200, { ...SECURITY_HEADERS, 'content-type': 'text/event-stream; charset=utf-8', 'cache-control': 'no-store', connection: 'keep-alive' });
    const all: Topic[] = ['clusters', 'sources', 'triggers', 'addons', 'failures', 'lineage', 'metrics'];
    res.write(`retry: 1000\ndata: ${JSON.stringify({ version: model.version, topics: all } satisfies StreamMessage)}\n\n`);
    streams.add(res);
    req.on('close', () => streams.delete(res));
  }

  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(o.port ?? 0, host, () => {
      server.off('error', reject);
      resolve();
    });
  }).catch(async (err: unknown) => {
    sampler.stop();
    await model.stop();
    throw err;
  });
  const addr = server.address();
  port = addr && typeof addr === 'object' ? addr.port : (o.port ?? 0);
  const shownHost = host.includes(':') ? `[${host}]` : host;
  log.info({ port }, 'dashboard serving');
  return {
    url: `http://${shownHost}:${port}/`,
    port,
    model,
    async stop() {
      clearInterval(heartbeat);
      sampler.stop();
      for (const s of streams) s.end();
      streams.clear();
      server.closeAllConnections();
      await new Promise<void>((r) => server.close(() => r()));
      await model.stop();
    },
  };
}

function send(res: ServerResponse, code: number, type: string, body: string, cache = 'no-store'): void {
  res.writeHead(code, { ...SECURITY_HEADERS, 'content-type': type, 'cache-control': cache, 'content-length': Buffer.byteLength(body) });
  res.end(res.req.method === 'HEAD' ? undefined : body);
}

function json(res: ServerResponse, v: unknown): void {
  send(res, 200, 'application/json; charset=utf-8', JSON.stringify(v));
}

/** allowedHost accepts loopback names (and the bound port) only: a DNS-rebinding page cannot read the API. */
export function allowedHost(host: string | undefined, port: number): boolean {
  if (!host) return false;
  const m = /^(\[[^\]]+\]|[^:]+)(?::(\d+))?$/.exec(host);
  if (!m) return false;
  if (m[2] !== undefined && Number(m[2]) !== port) return false;
  return ['127.0.0.1', 'localhost', '[::1]'].includes(m[1].toLowerCase());
}

function filterOf(url: URL): Filter {
  const n = (k: string) => {
    const v = url.searchParams.get(k);
    return v === null || !/^\d+$/.test(v) ? undefined : Number(v);
  };
  return { q: url.searchParams.get('q') ?? undefined, offset: n('offset'), limit: n('limit') };
}

function refOf(url: URL): ObjRef | undefined {
  const g = (k: string) => url.searchParams.get(k) ?? undefined;
  const cluster = g('cluster');
  const apiVersion = g('apiVersion');
  const kind = g('kind');
  const name = g('name');
  if (!cluster || !apiVersion || !kind || !name) return undefined;
  return { cluster, apiVersion, kind, namespace: g('namespace') || undefined, name };
}

const FAVICON = `<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 32 32"><circle cx="16" cy="16" r="4" fill="#2563eb"/><circle cx="16" cy="16" r="9" fill="none" stroke="#2563eb" stroke-width="2.5" opacity=".6"/><circle cx="16" cy="16" r="14" fill="none" stroke="#2563eb" stroke-width="2" opacity=".3"/></svg>`;
