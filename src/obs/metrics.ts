// metrics.ts: Prometheus metrics. One registry per process (or per test), passed to components that record metrics.
import { createServer, type Server } from 'node:http';
import { collectDefaultMetrics, Registry } from 'prom-client';

/** EVENT_LOOP_SAMPLE_MS is how often the event-loop lag histogram samples (prom-client's default is 10 ms: a timer
 * waking an idle process 100 times a second, ~1% of a core doing nothing; blocking longer than this still shows). */
export const EVENT_LOOP_SAMPLE_MS = 1000;

/** createMetricsRegistry returns a fresh registry, optionally with Node's default process metrics. */
export function createMetricsRegistry({ defaults = false }: { defaults?: boolean } = {}): Registry {
  const registry = new Registry();
  if (defaults) collectDefaultMetrics({ register: registry, prefix: 'ripple_', eventLoopMonitoringPrecision: EVENT_LOOP_SAMPLE_MS });
  return registry;
}

/** serveMetrics exposes GET /metrics (and /healthz) on host:port; resolves with the listening server. */
export async function serveMetrics(registry: Registry, port: number, host = '127.0.0.1'): Promise<Server> {
  const server = createServer((req, res) => {
    if (req.url === '/healthz') {
      res.writeHead(200, { 'content-type': 'text/plain' }).end('ok');
      return;
    }
    if (req.url !== '/metrics') {
      res.writeHead(404, { 'content-type': 'text/plain' }).end('not found: try /metrics\n');
      return;
    }
    registry.metrics().then(
      (body) => res.writeHead(200, { 'content-type': registry.contentType }).end(body),
      (err: unknown) => res.writeHead(500).end(String(err)),
    );
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, () => resolve());
  });
  return server;
}

export { Registry };
