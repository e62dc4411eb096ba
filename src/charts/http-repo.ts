// http-repo.ts: charts from classic HTTP(S) chart repositories: index.yaml fetched with If-None-Match against the
// cached copy, the version chosen like Helm, the archive downloaded once into the content-addressed cache and
// checked against the index's digest. Credentials go to the chart URL only when it is on the repository's own
// scheme+host+port, or when passCredentialsAll says so (Helm's rule, pkg/downloader/chart_downloader.go).
import { ChartCache, sha256Digest } from './cache.js';
import { ChartSourceError } from './errors.js';
import { basicAuth, redact, send, statusText, type HttpResponse, type TLSOptions } from './http.js';
import { findIndexEntry, indexURL, parseRepoIndex, resolveReferenceURL, type IndexEntry, type RepoIndex } from './repo-index.js';
import { readChartYaml } from './tar.js';

/** RepoCredentials are basic-auth credentials (Sveltos: a Secret with `username` and `password`). */
export interface RepoCredentials {
  username: string;
  password: string;
}

/** HttpChartRequest names a chart in a classic repository. */
export interface HttpChartRequest extends TLSOptions {
  repoURL: string;
  chart: string;
  /** version is an exact version, a constraint, or "" for the latest stable version. */
  version: string;
  credentials?: RepoCredentials;
  passCredentialsAll?: boolean;
  /** indexMaxAgeMs reuses an index fetched less than this long ago without asking the server again (default 0). */
  indexMaxAgeMs?: number;
  /** now is the clock for indexMaxAgeMs (default Date.now). */
  now?: () => number;
}

/** FetchedChart is a chart archive in the cache, with what identifies it. */
export interface FetchedChart {
  /** path of the archive in the cache. */
  path: string;
  digest: string;
  name: string;
  version: string;
  /** source is the URL or OCI reference it came from. */
  source: string;
  /** manifestDigest is the OCI manifest's digest (OCI charts only). */
  manifestDigest?: string;
  /** cached is true when no archive was downloaded this time. */
  cached: boolean;
}

// Parsed indexes by URL, with the ETag they were parsed from: a 304 costs no re-parse of a large index.
const parsed = new Map<string, { etag?: string; body: Buffer; index: RepoIndex; at: number; auth: string }>();

function authHeaders(creds: RepoCredentials | undefined): Record<string, string> {
  return creds ? { authorization: basicAuth(creds.username, creds.password) } : {};
}

function failure(res: HttpResponse, what: string): ChartSourceError {
  if (res.status === 401 || res.status === 403) return new ChartSourceError('AuthFailed', `${what}: ${res.status === 401 ? 'authentication required or credentials rejected' : 'access denied'} (${statusText(res)})`);
  return new ChartSourceError('Unreachable', `${what}: failed to fetch ${redact(res.url)}: ${statusText(res)}`);
}

/** loadRepoIndex returns the repository's index, revalidating the cached copy with its ETag. */
export async function loadRepoIndex(req: HttpChartRequest, cache: ChartCache): Promise<RepoIndex> {
  const url = indexURL(req.repoURL);
  const what = `chart repository ${redact(req.repoURL)}`;
  const now = req.now ?? Date.now;
  const authKey = req.credentials ? basicAuth(req.credentials.username, req.credentials.password) : '';
  const fresh = parsed.get(url);
  // Only a copy fetched with the same credentials counts: another caller's access must not stand in for ours.
  if (fresh && req.indexMaxAgeMs && fresh.auth === authKey && now() - fresh.at < req.indexMaxAgeMs) return fresh.index;
  const cached = await cache.readIndex(url);
  const headers: Record<string, string> = { accept: 'application/yaml, application/x-yaml, text/yaml, */*', ...authHeaders(req.credentials) };
  if (cached?.etag) headers['if-none-match'] = cached.etag;
  const res = await send({ method: 'GET', url, headers, ca: req.ca, insecureSkipTLSVerify: req.insecureSkipTLSVerify, what: `${what} index` });
  let body: Buffer;
  let etag: string | undefined;
  if (res.status === 304 && cached) {
    body = cached.body;
    etag = cached.etag;
  } else if (res.status === 200) {
    body = res.body;
    etag = typeof res.headers.etag === 'string' ? res.headers.etag : undefined;
  } else if (res.status === 404) {
    throw new ChartSourceError('Unreachable', `${what}: ${redact(url)} answered 404: not a valid chart repository`);
  } else {
    throw failure(res, `${what} index`);
  }
  const memo = parsed.get(url);
  const index = memo && memo.body.equals(body) ? memo.index : parseRepoIndex(body.toString('utf8'), what);
  if (res.status === 200 && memo?.index !== index) await cache.writeIndex({ url, etag, body });
  parsed.set(url, { etag, body, index, at: now(), auth: authKey });
  return index;
}

/**
 * fetchFromRepository resolves and downloads (or finds in the cache) a chart of a classic repository. The cache is
 * found through the index entry's digest; an entry without one (rare: `helm repo index` always writes it) is
 * downloaded on every call, since nothing else says the archive behind its URL is unchanged.
 */
export async function fetchFromRepository(req: HttpChartRequest, cache: ChartCache): Promise<FetchedChart> {
  const repo = redact(req.repoURL);
  const index = await loadRepoIndex(req, cache);
  const entry = findIndexEntry(index, req.chart, req.version, repo);
  const chartURL = resolveReferenceURL(req.repoURL, entry.urls[0]);
  const what = `chart "${req.chart}" version "${entry.version}" from ${repo}`;
  if (entry.digest && /^[a-f0-9]{64}$/.test(entry.digest)) {
    const digest = `sha256:${entry.digest}`;
    if (await cache.has(digest)) return { path: cache.pathOf(digest), digest, name: entry.name, version: entry.version, source: chartURL, cached: true };
  }
  const bytes = await download(req, chartURL, what);
  return store(cache, bytes, entry, chartURL, what);
}

async function download(req: HttpChartRequest, chartURL: string, what: string): Promise<Buffer> {
  const repo = new URL(req.repoURL);
  const target = new URL(chartURL);
  const sameService = repo.protocol === target.protocol && repo.host === target.host;
  const creds = req.passCredentialsAll || sameService ? req.credentials : undefined;
  const res = await send({
    method: 'GET',
    url: chartURL,
    headers: authHeaders(creds),
    ca: req.ca,
    insecureSkipTLSVerify: req.insecureSkipTLSVerify,
    what,
  });
  if (res.status === 404) throw new ChartSourceError('ChartNotFound', `${what}: the index lists ${redact(chartURL)} but it answered 404`);
  if (res.status !== 200) throw failure(res, what);
  return res.body;
}

async function store(cache: ChartCache, bytes: Buffer, entry: IndexEntry, source: string, what: string): Promise<FetchedChart> {
  const digest = sha256Digest(bytes);
  if (entry.digest && `sha256:${entry.digest}` !== digest && entry.digest !== digest) {
    throw new ChartSourceError('DigestMismatch', `${what}: downloaded archive has digest ${digest}, the repository index says sha256:${entry.digest.replace(/^sha256:/, '')}`);
  }
  // Check it is a chart before it enters the cache: a proxy's HTML error page must not be cached as a chart.
  readChartYaml(bytes, what);
  await cache.put(bytes);
  return { path: cache.pathOf(digest), digest, name: entry.name, version: entry.version, source, cached: false };
}
