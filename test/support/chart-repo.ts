// chart-repo: a classic Helm chart repository served over HTTP on loopback by the test itself — index.yaml and
// chart archives from memory, with ETags (If-None-Match → 304) and optional basic auth. It records the requests
// it answered, so tests can check what was (not) downloaded.
import { spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { createServer, type IncomingMessage, type RequestListener, type Server } from 'node:http';
import { createServer as createTLSServer } from 'node:https';
import type { AddressInfo } from 'node:net';

/** ServedRequest is one request the repository answered. */
export interface ServedRequest {
  method: string;
  path: string;
  status: number;
  authorization?: string;
}

/** ChartRepo is a running repository. */
export interface ChartRepo {
  url: string;
  files: Map<string, Buffer>;
  requests: ServedRequest[];
  stop(): Promise<void>;
}

/** startChartRepo serves files (path → bytes, e.g. `/index.yaml`) on 127.0.0.1; basic auth when auth is given. */
export async function startChartRepo(
  files: Record<string, string | Buffer>,
  auth?: { username: string; password: string },
  tls?: { key: string; cert: string },
): Promise<ChartRepo> {
  const map = new Map(Object.entries(files).map(([k, v]) => [k, Buffer.isBuffer(v) ? v : Buffer.from(v)]));
  const requests: ServedRequest[] = [];
  const expected = auth ? `Basic ${Buffer.from(`${auth.username}:${auth.password}`).toString('base64')}` : undefined;
  const handler: RequestListener = (req: IncomingMessage, res) => {
    const path = new URL(req.url ?? '/', 'http://x').pathname;
    const answer = (status: number, body?: Buffer, headers: Record<string, string> = {}) => {
      requests.push({ method: req.method ?? '', path, status, authorization: req.headers.authorization });
      res.writeHead(status, headers);
      res.end(body);
    };
    if (expected && req.headers.authorization !== expected) return answer(401, Buffer.from('unauthorized\n'), { 'www-authenticate': 'Basic realm="charts"' });
    const body = map.get(path);
    if (!body) return answer(404, Buffer.from('404 page not found\n'));
    const etag = `"${createHash('sha256').update(body).digest('hex').slice(0, 16)}"`;
    if (req.headers['if-none-match'] === etag) return answer(304, undefined, { etag });
    answer(200, body, { etag, 'content-type': path.endsWith('.yaml') ? 'application/yaml' : 'application/gzip' });
  };
  const server: Server = tls ? createTLSServer(tls, handler) : createServer(handler);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as AddressInfo).port;
  return {
    url: `${tls ? 'https' : 'http'}://127.0.0.1:${port}`,
    files: map,
    requests,
    stop: () => new Promise((resolve) => server.close(() => resolve())),
  };
}

/** sha256Hex is the digest an index.yaml entry carries for an archive. */
export function sha256Hex(b: Buffer): string {
  return createHash('sha256').update(b).digest('hex');
}

/** selfSignedCert makes a throw-away key and certificate for 127.0.0.1 with the system's openssl (undefined if absent). */
export function selfSignedCert(dir: string): { key: string; cert: string } | undefined {
  const r = spawnSync('openssl', ['req', '-x509', '-newkey', 'rsa:2048', '-nodes', '-days', '1', '-subj', '/CN=127.0.0.1', '-addext', 'subjectAltName=IP:127.0.0.1',
    '-keyout', join(dir, 'key.pem'), '-out', join(dir, 'cert.pem')], { encoding: 'utf8' });
  if (r.status !== 0) return undefined;
  return { key: readFileSync(join(dir, 'key.pem'), 'utf8'), cert: readFileSync(join(dir, 'cert.pem'), 'utf8') };
}
