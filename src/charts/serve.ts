// serve.ts: a classic Helm chart repository served over plain HTTP on loopback — what `ripple up --chart-repo DIR`
// and the helm demo run. The index is generated on every request from the charts the caller lists (so a .tgz dropped
// into the directory shows up without a restart), with Helm's entry fields (Chart.yaml metadata + urls, created,
// digest) and versions newest first, as `helm repo index` writes them.
import { createHash } from 'node:crypto';
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { stringify } from 'yaml';
import { readChartYaml } from './tar.js';
import { sortVersionsDescending } from './versions.js';

/** ServedChart is one chart archive the repository offers under its file name. */
export interface ServedChart {
  filename: string;
  bytes: Uint8Array;
}

/** chartRepoIndex is the index.yaml of the charts (unreadable archives are left out and reported to warn). */
export function chartRepoIndex(charts: readonly ServedChart[], generated: Date, warn: (msg: string) => void = () => {}): string {
  const byName = new Map<string, { version: string; entry: Record<string, unknown> }[]>();
  for (const c of charts) {
    let meta;
    try {
      meta = readChartYaml(c.bytes, c.filename);
    } catch (err) {
      warn(`${c.filename} left out of index.yaml: ${(err as Error).message}`);
      continue;
    }
    const entry = {
      ...meta.chartYaml,
      apiVersion: meta.chartYaml.apiVersion ?? 'v1',
      created: generated.toISOString(),
      digest: createHash('sha256').update(c.bytes).digest('hex'),
      urls: [encodeURIComponent(c.filename)],
    };
    const list = byName.get(meta.name) ?? [];
    list.push({ version: meta.version, entry });
    byName.set(meta.name, list);
  }
  const entries: Record<string, unknown[]> = {};
  for (const name of [...byName.keys()].sort()) entries[name] = sortVersionsDescending(byName.get(name)!, (e) => e.version).map((e) => e.entry);
  return stringify({ apiVersion: 'v1', entries, generated: generated.toISOString() });
}

/**
 * chartsInDir lists the charts of a repository directory: every `*.tgz` file as it is, and every subdirectory holding
 * a Chart.yaml packaged by packageDir (the caller's `helm package`). A chart that cannot be read is reported to warn.
 */
export function chartsInDir(dir: string, packageDir: (path: string) => ServedChart, warn: (msg: string) => void = () => {}): ServedChart[] {
  const out: ServedChart[] = [];
  for (const name of readdirSync(dir).sort()) {
    const path = join(dir, name);
    try {
      const st = statSync(path);
      if (st.isFile() && name.endsWith('.tgz')) out.push({ filename: name, bytes: new Uint8Array(readFileSync(path)) });
      else if (st.isDirectory() && statSync(join(path, 'Chart.yaml'), { throwIfNoEntry: false })?.isFile()) out.push(packageDir(path));
    } catch (err) {
      warn(`chart ${path} not served: ${(err as Error).message}`);
    }
  }
  return out;
}

/** ChartRepoServer is a running repository. */
export interface ChartRepoServer {
  /** Base URL (`http://127.0.0.1:PORT`), what a helmCharts repositoryURL names. */
  url: string;
  stop(): Promise<void>;
}

/** ChartRepoServerOptions configures serveChartRepo. */
export interface ChartRepoServerOptions {
  /** The charts to serve, asked again on every request. */
  list: () => ServedChart[];
  /** Port on 127.0.0.1 (default: a free one). */
  port?: number;
  now?: () => Date;
  warn?: (msg: string) => void;
}

/** serveChartRepo serves `/index.yaml` and the archives it names on 127.0.0.1 until stop(). */
export async function serveChartRepo(o: ChartRepoServerOptions): Promise<ChartRepoServer> {
  const now = o.now ?? (() => new Date());
  // Each distinct problem is reported once, not on every index request.
  const warned = new Set<string>();
  const warn = (m: string) => {
    if (warned.has(m)) return;
    warned.add(m);
    o.warn?.(m);
  };
  const server: Server = createServer((req, res) => {
    const answer = (status: number, body: string | Uint8Array, type: string) => {
      res.writeHead(status, { 'content-type': type });
      res.end(req.method === 'HEAD' ? undefined : body);
    };
    if (req.method !== 'GET' && req.method !== 'HEAD') return answer(405, 'method not allowed\n', 'text/plain');
    let path: string;
    try {
      path = decodeURIComponent(new URL(req.url ?? '/', 'http://x').pathname);
    } catch {
      return answer(400, 'bad path\n', 'text/plain');
    }
    let charts: ServedChart[];
    try {
      charts = o.list();
    } catch (err) {
      return answer(500, `cannot list the charts: ${(err as Error).message}\n`, 'text/plain');
    }
    if (path === '/index.yaml' || path === '/') return answer(200, chartRepoIndex(charts, now(), warn), 'application/yaml');
    const chart = charts.find((c) => `/${c.filename}` === path);
    if (!chart) return answer(404, '404 page not found\n', 'text/plain');
    answer(200, chart.bytes, 'application/gzip');
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(o.port ?? 0, '127.0.0.1', () => resolve());
  });
  const port = (server.address() as AddressInfo).port;
  return {
    url: `http://127.0.0.1:${port}`,
    stop: () =>
      new Promise((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}
