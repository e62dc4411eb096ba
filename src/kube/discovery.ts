// Discovery: apiVersion+kind → REST resource (plural, namespaced, verbs, subresources), from the group-version
// documents (/api/v1, /apis/G/V). Each group-version is fetched once and cached; a kind missing from the cache
// triggers one refetch, so a CRD installed after start becomes usable without a restart. "Not served" is the typed
// KindNotInstalledError, never a generic failure. Go: client-go discovery + restmapper (DeferredDiscoveryRESTMapper)
import { KindNotInstalledError, StatusError, isNotFound } from './errors.js';
import type { Transport } from './transport.js';

/** ResourceInfo describes how to reach one kind over REST. */
export interface ResourceInfo {
  group: string;
  version: string;
  apiVersion: string;
  kind: string;
  /** The resource name in URLs (plural, lower case), e.g. `configmaps`. */
  plural: string;
  namespaced: boolean;
  verbs: readonly string[];
  /** Subresources served for this resource, e.g. ['status', 'scale']. */
  subresources: readonly string[];
  shortNames: readonly string[];
}

interface APIResource {
  name: string;
  singularName?: string;
  namespaced: boolean;
  kind: string;
  verbs?: string[];
  shortNames?: string[];
  group?: string;
  version?: string;
}

interface GroupVersionEntry {
  /** Resources by kind; undefined when the group-version itself is not served. */
  byKind: Map<string, ResourceInfo> | undefined;
  fetchedAt: number;
}

/** splitGroupVersion splits `apps/v1` into group and version (`v1` → core group ""). */
export function splitGroupVersion(apiVersion: string): { group: string; version: string } {
  const i = apiVersion.indexOf('/');
  return i < 0 ? { group: '', version: apiVersion } : { group: apiVersion.slice(0, i), version: apiVersion.slice(i + 1) };
}

/** groupVersionPath is the URL path of a group-version: /api/v1 or /apis/G/V. */
export function groupVersionPath(apiVersion: string): string {
  const { group, version } = splitGroupVersion(apiVersion);
  return group === '' ? `/api/${version}` : `/apis/${group}/${version}`;
}

/** Discovery resolves kinds to resources for one cluster, caching per group-version. */
export class Discovery {
  private readonly cache = new Map<string, GroupVersionEntry>();
  private readonly inflight = new Map<string, Promise<GroupVersionEntry>>();

  constructor(private readonly transport: Transport) {}

  /** resolve returns the resource of apiVersion/kind, refetching its group-version once on a miss. */
  async resolve(apiVersion: string, kind: string): Promise<ResourceInfo> {
    const cached = this.cache.get(apiVersion);
    const hit = cached?.byKind?.get(kind);
    if (hit) return hit;
    const fresh = await this.fetch(apiVersion);
    const found = fresh.byKind?.get(kind);
    if (!found) throw new KindNotInstalledError(apiVersion, kind, this.transport.server);
    return found;
  }

  /** cached returns the resource from the cache only (no request), or undefined. */
  cached(apiVersion: string, kind: string): ResourceInfo | undefined {
    return this.cache.get(apiVersion)?.byKind?.get(kind);
  }

  /** resources lists the kinds served in a group-version (fresh from the server), or undefined when it is not served. */
  async resources(apiVersion: string): Promise<ResourceInfo[] | undefined> {
    const e = await this.fetch(apiVersion);
    return e.byKind ? [...e.byKind.values()] : undefined;
  }

  /** invalidate drops one group-version (or everything) from the cache. */
  invalidate(apiVersion?: string): void {
    if (apiVersion === undefined) this.cache.clear();
    else this.cache.delete(apiVersion);
  }

  /** fetch loads one group-version document; concurrent callers share the request. */
  private fetch(apiVersion: string): Promise<GroupVersionEntry> {
    let p = this.inflight.get(apiVersion);
    if (p) return p;
    p = this.load(apiVersion).finally(() => this.inflight.delete(apiVersion));
    this.inflight.set(apiVersion, p);
    return p;
  }

  private async load(apiVersion: string): Promise<GroupVersionEntry> {
    const { group, version } = splitGroupVersion(apiVersion);
    let doc: { resources?: APIResource[] };
    try {
      doc = await this.transport.request({ method: 'GET', path: groupVersionPath(apiVersion) });
    } catch (err) {
      // 404: the group-version is not served. Kube-apiserver answers 503 for an aggregated API whose backend is
      // down; that is "unavailable", not "not installed", so it propagates.
      if (isNotFound(err) || (err instanceof StatusError && err.code === 404)) {
        const entry = { byKind: undefined, fetchedAt: Date.now() };
        this.cache.set(apiVersion, entry);
        return entry;
      }
      throw err;
    }
    const byKind = new Map<string, ResourceInfo>();
    const subs = new Map<string, string[]>();
    for (const r of doc.resources ?? []) {
      const slash = r.name.indexOf('/');
      if (slash >= 0) {
        const parent = r.name.slice(0, slash);
        const list = subs.get(parent) ?? [];
        list.push(r.name.slice(slash + 1));
        subs.set(parent, list);
      }
    }
    for (const r of doc.resources ?? []) {
      if (r.name.includes('/')) continue;
      // A resource from another group/version (rare: kube lists some under a different version) is skipped.
      if ((r.group !== undefined && r.group !== group) || (r.version !== undefined && r.version !== version)) continue;
      if (byKind.has(r.kind)) continue;
      byKind.set(r.kind, {
        group,
        version,
        apiVersion,
        kind: r.kind,
        plural: r.name,
        namespaced: r.namespaced,
        verbs: r.verbs ?? [],
        subresources: subs.get(r.name) ?? [],
        shortNames: r.shortNames ?? [],
      });
    }
    const entry = { byKind, fetchedAt: Date.now() };
    this.cache.set(apiVersion, entry);
    return entry;
  }
}
