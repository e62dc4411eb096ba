// repo-server.ts: serves a directory of packaged charts (*.tgz) as a classic Helm chart repository — the index is
// built from the archives as `helm repo index` builds it (each version's Chart.yaml fields, urls, digest, created;
// keys sorted), and rebuilt when the directory changes, so dropping a new archive in publishes it. For `ripple up
// --chart-repo DIR` and for tests; loopback by default.
import { createHash } from 'node:crypto';
import { readdir, readFile, stat } from 'node:fs/promises';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { dump } from 'js-yaml';
import { chartMetadata } from './chart-config.js';
import { readChartYaml } from './tar.js';
import { sortVersionsDescending } from './versions.js';

/** RepoArchive is one packaged chart to index. */
export interface RepoArchive {
  fileName: string;
  bytes: Uint8Array;
  /** created is the entry's RFC 3339 creation time (helm repo index uses the file's modification time). */
  created: string;
}

/**
 * buildRepoIndex writes index.yaml for archives, as `helm repo index` does: entries by chart name, versions highest
 * first, each with its Chart.yaml metadata, `urls: [FILE]`, `digest` (sha256 hex) and `created`. Archives that are
 * not charts are skipped and reported in `skipped`.
 */
export function buildRepoIndex(archives: readonly RepoArchive[], generated: string): { yaml: string; skipped: string[] } {
  const entries: Record<string, Record<string, unknown>[]> = {};
  const skipped: string[] = [];
  for (const a of archives) {
    let chart;
    try {
      chart = readChartYaml(a.bytes, a.fileName);
    } catch (e) {
      skipped.push(`${a.fileName}: ${(e as Error).message}`);
      continue;
    }
    const entry = { ...chartMetadata(chart.chartYaml), urls: [a.fileName], created: a.created, digest: createHash('sha256').update(a.bytes).digest('hex') };
    (entries[chart.name] ??= []).push(entry);
  }
  for (const name of Object.keys(entries)) entries[name] = sortVersionsDescending(entries[name], (e) => String(e.version));
  const yaml = dump({ apiVersion: 'v1', entries, generated }, { sortKeys: true, lineWidth: -1, noRefs: true });
  return { yaml, skipped };
}

/** ChartRepoServer is a running repository: `url` is its base URL. */
export interface ChartRepoServer {
  url: string;
  stop(): Promise<void>;
}

/** serveChartRepository serves dir on host:port (default 127.0.0.1, any free port) until stop(). */
export async function serveChartRepository(dir: string, opts: { host?: string; port?: number } = {}): Promise<ChartRepoServer> {
  let memo: { key: string; body: Buffer; etag: string } | undefined;
  // index rebuilds index.yaml when the set of archives, their sizes or times changed since the last request.
  const index = async () => {
    const names = (await readdir(dir)).filter((n) => n.endsWith('.tgz')).sort();
    const stats = await Promise.all(names.map((n) => stat(join(dir, n))));
    const key = names.map((n, i) => `${n}:${stats[i].size}:${stats[i].mtimeMs}`).join('|');
    if (memo?.key !== key) {
      const archives = await Promise.all(names.map(async (n, i) => ({ fileName: n, bytes: await readFile(join(dir, n)), created: stats[i].mtime.toISOString() })));
      const newest = stats.reduce((m, s) => Math.max(m, s.mtimeMs), 0);
      const body = Buffer.from(buildRepoIndex(archives, new Date(newest).toISOString()).yaml);
      memo = { key, body, etag: `"${createHash('sha256').update(body).digest('hex').slice(0, 32)}"` };
    }
    return memo;
  };
  const server: Server = createServer((req, res) => {
    void (async () => {
      const path = decodeURIComponent(new URL(req.url ?? '/', 'http://x').pathname);
      if (req.method !== 'GET' && req.method !== 'HEAD') return void res.writeHead(405).end();
      if (path === '/index.yaml') {
        const i = await index();
        if (req.headers['if-none-match'] === i.etag) return void res.writeHead(304, { etag: i.etag }).end();
        return void res.writeHead(200, { 'content-type': 'application/yaml', etag: i.etag }).end(req.method === 'HEAD' ? undefined : i.body);
      }
      const name = path.slice(1);
      if (!/^[^/\\]+\.tgz$/.test(name) || name.startsWith('.')) return void res.writeHead(404).end('not found\n');
      const body = await readFile(join(dir, name)).catch(() => undefined);
      if (!body) return void res.writeHead(404).end('not found\n');
      res.writeHead(200, { 'content-type': 'application/gzip' }).end(req.method === 'HEAD' ? undefined : body);
    })().catch((e: unknown) => {
      if (!res.headersSent) res.writeHead(500).end(`${(e as Error).message}\n`);
    });
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(opts.port ?? 0, opts.host ?? '127.0.0.1', resolve);
  });
  const a = server.address() as AddressInfo;
  const host = a.family === 'IPv6' ? `[${a.address}]` : a.address;
  return { url: `http://${host}:${a.port}`, stop: () => new Promise((r) => server.close(() => r())) };
}
