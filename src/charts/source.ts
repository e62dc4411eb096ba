// source.ts: one entry point for a Sveltos helmCharts item's chart: classic repository or OCI registry, chosen by
// the URLs (`oci://` in repositoryURL or chartName), the way Sveltos' addon-controller hands them to Helm.
import { ChartCache } from './cache.js';
import { fetchFromRepository, type FetchedChart, type RepoCredentials } from './http-repo.js';
import { OciClient } from './oci.js';
import { fetchFromOci } from './oci-source.js';
import { chartNameInRepository } from './repo-index.js';

/** ChartSpec is the part of a helmCharts item that locates a chart, with its credentials already read. */
export interface ChartSpec {
  repositoryURL: string;
  repositoryName: string;
  chartName: string;
  chartVersion: string;
  credentials?: RepoCredentials;
  /** ca is the PEM of registryCredentialsConfig.ca (Secret key ca.crt). */
  ca?: string;
  insecureSkipTLSVerify?: boolean;
  plainHTTP?: boolean;
  passCredentialsAll?: boolean;
}

/** ociChartRef is the `oci://…/NAME` a spec names, or undefined for a classic repository. */
export function ociChartRef(spec: Pick<ChartSpec, 'repositoryURL' | 'repositoryName' | 'chartName'>): string | undefined {
  if (spec.chartName.startsWith('oci://')) return spec.chartName;
  if (!spec.repositoryURL.startsWith('oci://')) return undefined;
  return `${spec.repositoryURL.replace(/\/+$/, '')}/${chartNameInRepository(spec.chartName, spec.repositoryName)}`;
}

/**
 * fetchChart downloads (once; later calls hit the cache) the chart a spec names and returns where it is. Failures
 * are ChartSourceErrors; nothing here retries — the caller's backoff does.
 */
export async function fetchChart(spec: ChartSpec, cache: ChartCache, opts: ChartFetcherOptions = {}): Promise<FetchedChart> {
  const oci = ociChartRef(spec);
  if (oci !== undefined) {
    return fetchFromOci(
      {
        ref: oci,
        version: spec.chartVersion,
        username: spec.credentials?.username,
        password: spec.credentials?.password,
        ca: spec.ca,
        insecureSkipTLSVerify: spec.insecureSkipTLSVerify,
        plainHTTP: spec.plainHTTP,
      },
      cache,
      opts.ociClient && ((registry: string) => opts.ociClient!(registry, spec)),
    );
  }
  return fetchFromRepository(
    {
      repoURL: spec.repositoryURL,
      chart: chartNameInRepository(spec.chartName, spec.repositoryName),
      version: spec.chartVersion,
      credentials: spec.credentials,
      passCredentialsAll: spec.passCredentialsAll,
      ca: spec.ca,
      insecureSkipTLSVerify: spec.insecureSkipTLSVerify,
      indexMaxAgeMs: opts.indexMaxAgeMs,
      now: opts.now,
    },
    cache,
  );
}

/** ChartFetcherOptions tune a ChartFetcher. */
export interface ChartFetcherOptions {
  /** indexMaxAgeMs: how long a repository index is trusted without revalidation (default 0: always revalidate). */
  indexMaxAgeMs?: number;
  now?: () => number;
  /** ociClient supplies the registry client for a spec (ChartFetcher keeps one per registry and credentials). */
  ociClient?: (registry: string, spec: ChartSpec) => OciClient;
}

/**
 * ChartFetcher is fetchChart for many callers at once: concurrent requests for the same chart (a profile fanning out
 * to a fleet) share one index fetch and one download.
 */
export class ChartFetcher {
  private readonly inflight = new Map<string, Promise<FetchedChart>>();
  // One client per registry and connection settings, so Bearer tokens are reused until the registry refuses them.
  private readonly clients = new Map<string, OciClient>();

  constructor(
    readonly cache: ChartCache,
    private readonly opts: ChartFetcherOptions = {},
  ) {}

  private ociClient(registry: string, spec: ChartSpec): OciClient {
    const key = JSON.stringify([registry, spec.credentials, spec.ca, spec.insecureSkipTLSVerify, spec.plainHTTP]);
    let c = this.clients.get(key);
    if (!c) {
      c = new OciClient(registry, { username: spec.credentials?.username, password: spec.credentials?.password, ca: spec.ca, insecureSkipTLSVerify: spec.insecureSkipTLSVerify, plainHTTP: spec.plainHTTP });
      this.clients.set(key, c);
    }
    return c;
  }

  /** fetch returns the chart the spec names, joining a fetch of the same spec already under way. */
  fetch(spec: ChartSpec): Promise<FetchedChart> {
    const key = JSON.stringify([spec.repositoryURL, spec.repositoryName, spec.chartName, spec.chartVersion, spec.credentials, spec.ca, spec.insecureSkipTLSVerify, spec.plainHTTP, spec.passCredentialsAll]);
    let p = this.inflight.get(key);
    if (!p) {
      p = fetchChart(spec, this.cache, { ...this.opts, ociClient: (r, s) => this.ociClient(r, s) }).finally(() => this.inflight.delete(key));
      this.inflight.set(key, p);
    }
    return p;
  }
}

/**
 * credentialsFromSecret reads registry credentials from a Secret's decoded data as Sveltos does: `username` and
 * `password` keys, or a kubernetes.io/dockerconfigjson Secret's auth for the host. Returns undefined when both are
 * empty; throws a message naming the Secret when only one is set.
 */
export function credentialsFromSecret(host: string, secret: { name: string; type?: string; data: Record<string, string> }): RepoCredentials | undefined {
  let username = secret.data.username ?? '';
  let password = secret.data.password ?? '';
  if (secret.type === 'kubernetes.io/dockerconfigjson') {
    let cfg: { auths?: Record<string, { username?: string; password?: string; auth?: string }> };
    try {
      cfg = JSON.parse(secret.data['.dockerconfigjson'] ?? '') as typeof cfg;
    } catch {
      throw new Error(`unable to load Docker config from Secret '${secret.name}': invalid JSON`);
    }
    const entry = Object.entries(cfg.auths ?? {}).find(([k]) => k.replace(/^https?:\/\//, '').replace(/\/.*$/, '') === host)?.[1];
    if (!entry) throw new Error(`no auth config for '${host}' in the docker-registry Secret '${secret.name}'`);
    username = entry.username ?? '';
    password = entry.password ?? '';
    if (!username && !password && entry.auth) {
      const dec = Buffer.from(entry.auth, 'base64').toString('utf8');
      const i = dec.indexOf(':');
      username = dec.slice(0, i);
      password = dec.slice(i + 1);
    }
  }
  if (username === '' && password === '') return undefined;
  if (username === '' || password === '') throw new Error(`invalid '${secret.name}' secret data: required fields 'username' and 'password'`);
  return { username, password };
}
