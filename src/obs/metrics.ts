// metrics.ts: Prometheus metrics. One registry per process (or per test), passed to components that record metrics.
import { createServer, type Server } from 'node:http';
import { collectDefaultMetrics, Registry } from 'prom-client';

/** createMetricsRegistry returns a fresh registry, optionally with Node's default process metrics. */
export function createMetricsRegistry({ defaults = false }: { defaults?: boolean } = {}): Registry {
  const registry = new Registry();
  if (defaults) collectDefaultMetrics({ register: registry, prefix: 'ripple_' });
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
