// Discovery documents of one cluster: /api, /apis, /apis/G, group/version resource lists, the aggregated discovery
// format (apidiscovery.k8s.io v2 / v2beta1) and the OpenAPI v2/v3 documents built by the schema component.
// Go: k8s.io/apiserver pkg/endpoints/discovery (legacy and aggregated)
import { createHash } from 'node:crypto';
import { openAPIV2, openAPIV3GroupVersion, openAPIV3Root, type ServedResource } from './schema/index.js';
import type { Cluster } from './cluster.js';
import { gvString, type ResourceDescriptor } from './resource.js';

const SUB_VERBS = ['get', 'patch', 'update'];

// The groups in the order kube-apiserver 1.32 lists them (the aggregator's group priorities); CRD groups follow, sorted
// by name.
const GROUP_ORDER = [
  '',
  'apiregistration.k8s.io',
  'apps',
  'events.k8s.io',
  'authentication.k8s.io',
  'authorization.k8s.io',
  'autoscaling',
  'batch',
  'certificates.k8s.io',
  'networking.k8s.io',
  'policy',
  'rbac.authorization.k8s.io',
  'storage.k8s.io',
  'admissionregistration.k8s.io',
  'apiextensions.k8s.io',
  'scheduling.k8s.io',
  'coordination.k8s.io',
  'node.k8s.io',
  'discovery.k8s.io',
  'flowcontrol.apiserver.k8s.io',
];

interface GroupInfo {
  name: string;
  versions: string[];
  resources: Map<string, ResourceDescriptor[]>;
}

/** groupsOf gathers the served groups with their versions (preferred first). */
function groupsOf(cluster: Cluster): GroupInfo[] {
  const groups = new Map<string, GroupInfo>();
  for (const d of cluster.registry.all()) {
    let g = groups.get(d.group);
    if (!g) groups.set(d.group, (g = { name: d.group, versions: [], resources: new Map() }));
    for (const v of d.versions) {
      if (!g.versions.includes(v)) g.versions.push(v);
      let list = g.resources.get(v);
      if (!list) g.resources.set(v, (list = []));
      list.push(d);
    }
  }
  const out = [...groups.values()];
  // Preferred version: the one most resources prefer (their first version).
  for (const g of out) {
    const score = new Map<string, number>();
    for (const d of cluster.registry.all()) if (d.group === g.name) score.set(d.versions[0], (score.get(d.versions[0]) ?? 0) + 1);
    g.versions.sort((a, b) => (score.get(b) ?? 0) - (score.get(a) ?? 0) || g.versions.indexOf(a) - g.versions.indexOf(b));
  }
  const rank = (n: string) => {
    const i = GROUP_ORDER.indexOf(n);
    return i < 0 ? GROUP_ORDER.length : i;
  };
  return out.sort((a, b) => rank(a.name) - rank(b.name) || (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
}

/** storageVersionHash mimics kube's 8-byte base64 hash of group/version/kind. */
function storageVersionHash(d: ResourceDescriptor): string {
  return createHash('sha256').update(`${d.group}/${d.storageVersion}/${d.kind}`).digest().subarray(0, 8).toString('base64');
}

/** apiVersions is the /api document. */
export function apiVersions(hostPort: string): object {
  return { kind: 'APIVersions', versions: ['v1'], serverAddressByClientCIDRs: [{ clientCIDR: '0.0.0.0/0', serverAddress: hostPort }] };
}

function apiGroup(g: GroupInfo): object {
  const versions = g.versions.map((v) => ({ groupVersion: gvString(g.name, v), version: v }));
  return { name: g.name, versions, preferredVersion: versions[0] };
}

/** apiGroupList is the /apis document (every named group). */
export function apiGroupList(cluster: Cluster): object {
  return { kind: 'APIGroupList', apiVersion: 'v1', groups: groupsOf(cluster).filter((g) => g.name !== '').map(apiGroup) };
}

/** apiGroupDoc is the /apis/GROUP document, or undefined for an unknown group. */
export function apiGroupDoc(cluster: Cluster, group: string): object | undefined {
  const g = groupsOf(cluster).find((x) => x.name === group && group !== '');
  return g ? { kind: 'APIGroup', apiVersion: 'v1', ...apiGroup(g) } : undefined;
}

/** apiResourceList is the /api/v1 or /apis/G/V document, or undefined when nothing is served there. */
export function apiResourceList(cluster: Cluster, group: string, version: string): object | undefined {
  const descs = cluster.registry.all().filter((d) => d.group === group && d.versions.includes(version));
  if (descs.length === 0) return undefined;
  const resources: object[] = [];
  for (const d of descs) {
    const r: Record<string, unknown> = { name: d.plural, singularName: d.singular, namespaced: d.namespaced, kind: d.kind, verbs: d.verbs };
    if (d.shortNames.length > 0) r.shortNames = d.shortNames;
    if (d.categories.length > 0) r.categories = d.categories;
    r.storageVersionHash = storageVersionHash(d);
    resources.push(r);
    if (d.subresources.status) resources.push({ name: `${d.plural}/status`, singularName: '', namespaced: d.namespaced, kind: d.kind, verbs: SUB_VERBS });
    if (d.subresources.scale) resources.push({ name: `${d.plural}/scale`, singularName: '', namespaced: d.namespaced, group: 'autoscaling', version: 'v1', kind: 'Scale', verbs: SUB_VERBS });
    for (const a of d.subresources.actions ?? []) {
      const r: Record<string, unknown> = { name: `${d.plural}/${a.name}`, singularName: '', namespaced: d.namespaced };
      if (a.kind.group !== d.group) r.group = a.kind.group;
      if (a.kind.group !== d.group || a.kind.version !== version) r.version = a.kind.version;
      resources.push({ ...r, kind: a.kind.kind, verbs: a.verbs });
    }
    if (d.plural === 'pods' && d.group === '') resources.push({ name: 'pods/ephemeralcontainers', singularName: '', namespaced: true, kind: 'Pod', verbs: SUB_VERBS });
    if (d.plural === 'namespaces' && d.group === '') resources.push({ name: 'namespaces/finalize', singularName: '', namespaced: false, kind: 'Namespace', verbs: ['update'] });
  }
  return { kind: 'APIResourceList', apiVersion: 'v1', groupVersion: gvString(group, version), resources };
}

function discoveryResource(d: ResourceDescriptor, version: string): object {
  const r: Record<string, unknown> = {
    resource: d.plural,
    responseKind: { group: d.group, version, kind: d.kind },
    scope: d.namespaced ? 'Namespaced' : 'Cluster',
    singularResource: d.singular,
    verbs: d.verbs,
  };
  if (d.shortNames.length > 0) r.shortNames = d.shortNames;
  if (d.categories.length > 0) r.categories = d.categories;
  const subs: object[] = [];
  if (d.subresources.scale) subs.push({ subresource: 'scale', responseKind: { group: 'autoscaling', version: 'v1', kind: 'Scale' }, verbs: SUB_VERBS });
  if (d.subresources.status) subs.push({ subresource: 'status', responseKind: { group: d.group, version, kind: d.kind }, verbs: SUB_VERBS });
  for (const a of d.subresources.actions ?? []) subs.push({ subresource: a.name, responseKind: a.kind, verbs: a.verbs });
  if (d.plural === 'pods' && d.group === '') subs.push({ subresource: 'ephemeralcontainers', responseKind: { group: '', version: 'v1', kind: 'Pod' }, verbs: SUB_VERBS });
  if (d.plural === 'namespaces' && d.group === '') subs.push({ subresource: 'finalize', responseKind: { group: '', version: 'v1', kind: 'Namespace' }, verbs: ['update'] });
  if (subs.length > 0) r.subresources = subs;
  return r;
}

/** aggregatedDiscovery is the APIGroupDiscoveryList of /api (core only) or /apis (named groups). */
export function aggregatedDiscovery(cluster: Cluster, core: boolean, apiVersion: 'v2' | 'v2beta1'): object {
  const items = groupsOf(cluster)
    .filter((g) => (g.name === '') === core)
    .map((g) => ({
      metadata: { name: g.name, creationTimestamp: null },
      versions: g.versions.map((v) => ({
        version: v,
        resources: (g.resources.get(v) ?? []).map((d) => discoveryResource(d, v)),
        freshness: 'Current',
      })),
    }));
  return { kind: 'APIGroupDiscoveryList', apiVersion: `apidiscovery.k8s.io/${apiVersion}`, metadata: {}, items };
}

/** servedResources lists what the OpenAPI documents describe. */
export function servedResources(cluster: Cluster): ServedResource[] {
  const out: ServedResource[] = [];
  for (const d of cluster.registry.all()) {
    for (const v of d.versions) {
      const schema = d.schema(v);
      if (!schema) continue;
      const subresources: string[] = [];
      if (d.subresources.status) subresources.push('status');
      if (d.subresources.scale) subresources.push('scale');
      out.push({ group: d.group, version: v, kind: d.kind, plural: d.plural, namespaced: d.namespaced, verbs: d.verbs, subresources, schema });
    }
  }
  return out;
}

/** OpenAPICache renders a cluster's OpenAPI documents once per registry generation. */
export class OpenAPICache {
  private generation = -1;
  private v2?: string;
  private v3 = new Map<string, { text: string; hash: string }>();

  constructor(private readonly cluster: Cluster) {}

  private fresh(): void {
    if (this.generation === this.cluster.registry.generation) return;
    this.generation = this.cluster.registry.generation;
    this.v2 = undefined;
    this.v3.clear();
  }

  /** v2 is the Swagger 2.0 document. */
  openAPIV2(): string {
    this.fresh();
    this.v2 ??= JSON.stringify(openAPIV2(servedResources(this.cluster)));
    return this.v2;
  }

  /** v3GroupVersion is one group-version's OpenAPI 3 document with its hash ("api/v1", "apis/apps/v1"). */
  v3GroupVersion(gv: string): { text: string; hash: string } | undefined {
    this.fresh();
    let doc = this.v3.get(gv);
    if (!doc) {
      const resources = servedResources(this.cluster);
      const wanted = gv === 'api/v1' ? { group: '', version: 'v1' } : { group: gv.split('/')[1], version: gv.split('/')[2] };
      if (!resources.some((r) => r.group === wanted.group && r.version === wanted.version)) return undefined;
      const text = JSON.stringify(openAPIV3GroupVersion(resources, gv));
      doc = { text, hash: createHash('sha512').update(text).digest('hex').toUpperCase().slice(0, 128) };
      this.v3.set(gv, doc);
    }
    return doc;
  }

  /** v3Root is the /openapi/v3 index; server-relative URLs carry the cluster's path prefix. */
  v3Root(prefix: string): object {
    this.fresh();
    const root = openAPIV3Root(servedResources(this.cluster), (gv) => this.v3GroupVersion(gv)?.hash ?? '') as { paths?: Record<string, { serverRelativeURL?: string }> };
    for (const entry of Object.values(root.paths ?? {})) {
      if (entry.serverRelativeURL && !entry.serverRelativeURL.startsWith(prefix)) entry.serverRelativeURL = prefix + entry.serverRelativeURL;
    }
    return root;
  }
}
