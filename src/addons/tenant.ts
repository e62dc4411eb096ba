// Tenant deployments (Sveltos §9): a ClusterSummary carrying tenant labels (copied from its ClusterProfile/Profile,
// which the event manager copies from the EventTrigger) is deployed AS the tenant — every request to the managed
// cluster impersonates the ServiceAccount its RoleRequest created there
// (`system:serviceaccount:projectsveltos:<ns>--<name>`), every Local request to the management cluster the tenant's
// own ServiceAccount — so the API server refuses whatever the RoleRequest does not grant, exactly as kube-apiserver
// would for the tenant. What a tenant's templates and values read from the management cluster (policyRefs,
// templateResourceRefs, Helm valuesFrom) is checked with a SubjectAccessReview first: a refusal names the object,
// never its content. Objects the event manager generated for this tenant (projectsveltos namespace, same tenant
// labels) are the tenant's own.
import { Labels, SVELTOS_NAMESPACE, type ClusterProfileSpec } from '../api/index.js';
import { type InformerFactory, type KubeClient, type KubeObject } from '../kube/index.js';
import { managedUser, managementUser, readRefusal, TenantDirectory, type Tenant, type TenantRead, type TenantResolution } from '../tenancy/index.js';

export type { TenantRead };


/** TenantAccess resolves tenants and builds their impersonating clients (one per base client and user). */
export class TenantAccess {
  private readonly derived = new WeakMap<KubeClient, Map<string, KubeClient>>();
  private readonly all = new Set<KubeClient>();
  private readonly bases = new WeakMap<KubeClient, KubeClient>();
  private readonly directory: TenantDirectory;

  constructor(
    informers: InformerFactory,
    private readonly mgmt: KubeClient,
  ) {
    this.directory = new TenantDirectory(informers);
  }

  /** resolve reads the tenant of an object from its labels (admin-name through the RoleRequests). */
  resolve(labels: Readonly<Record<string, string>> | undefined): TenantResolution {
    return this.directory.resolve(labels);
  }

  /** remote is the managed cluster's client acting as the tenant's ServiceAccount there. */
  remote(base: KubeClient, t: Tenant): KubeClient {
    return this.as(base, managedUser(t), SVELTOS_NAMESPACE);
  }

  /** local is the management cluster's client acting as the tenant. */
  local(t: Tenant): KubeClient {
    return this.as(this.mgmt, managementUser(t), t.namespace);
  }

  /** as: the groups kube-apiserver gives a ServiceAccount's token (impersonation adds none by itself here). */
  private as(base: KubeClient, user: string, saNamespace: string): KubeClient {
    let m = this.derived.get(base);
    if (!m) this.derived.set(base, (m = new Map()));
    let c = m.get(user);
    if (!c || c.closed || base.closed) {
      c?.close();
      c = base.impersonating({ user, groups: ['system:serviceaccounts', `system:serviceaccounts:${saNamespace}`, 'system:authenticated'] });
      m.set(user, c);
      this.all.add(c);
      this.bases.set(c, base);
    }
    return c;
  }

  /**
   * own returns the client with the deployer's own credentials behind a tenant client (itself for any other). Only
   * for reads that find what this deployer stamped (the stale-object scan): a tenant may lack list rights at the
   * cluster scope, and the scan's results are deleted through the tenant's client anyway.
   */
  own(c: KubeClient | undefined): KubeClient | undefined {
    return c && (this.bases.get(c) ?? c);
  }

  /**
   * refusal asks the management cluster whether the tenant may `get` each object (SubjectAccessReview); returns the
   * first refusal's message, or undefined when every read is allowed (src/tenancy access.ts). Objects the event
   * manager generated for this same tenant are its own.
   */
  refusal(t: Tenant, reads: readonly TenantRead[], lookup: (r: TenantRead) => KubeObject | undefined): Promise<string | undefined> {
    return readRefusal(this.mgmt, t, reads.filter((r) => !(r.namespace === SVELTOS_NAMESPACE && this.generatedFor(t, lookup(r)))));
  }

  /** generatedFor: an object the event manager instantiated for this same tenant. */
  private generatedFor(t: Tenant, o: KubeObject | undefined): boolean {
    const l = o?.metadata.labels ?? {};
    return l[Labels.serviceAccountName] === t.name && l[Labels.serviceAccountNamespace] === t.namespace && Object.keys(l).some((k) => k.startsWith('eventtrigger.lib.projectsveltos.io/'));
  }

  async close(): Promise<void> {
    for (const c of this.all) c.close();
    this.all.clear();
    await this.directory.close();
  }
}

/**
 * tenantReads lists what a deployment reads from the management cluster on behalf of its tenant: the policyRefs
 * ConfigMaps/Secrets, the templateResourceRefs objects (what `getResource` returns), each Helm chart's valuesFrom
 * and registry credentials. Pure.
 */
export function tenantReads(
  refs: readonly { kind: string; namespace: string; name: string }[],
  trrs: readonly { resource: { apiVersion: string; kind: string }; ns: string; nm: string; identifier: string }[],
  spec: ClusterProfileSpec,
  clusterNamespace: string,
): TenantRead[] {
  const out: TenantRead[] = [];
  refs.forEach((r, i) => out.push({ apiVersion: 'v1', kind: r.kind, namespace: r.namespace, name: r.name, via: `policyRefs[${i}]` }));
  for (const t of trrs) out.push({ apiVersion: t.resource.apiVersion, kind: t.resource.kind, namespace: t.ns || undefined, name: t.nm, via: `templateResourceRefs ${t.identifier}` });
  for (const h of spec.helmCharts ?? []) {
    (h.valuesFrom ?? []).forEach((v, i) => out.push({ apiVersion: 'v1', kind: v.kind ?? 'ConfigMap', namespace: v.namespace || clusterNamespace, name: v.name ?? '', via: `helmCharts[${h.releaseName}].valuesFrom[${i}]` }));
    const cred = h.registryCredentialsConfig;
    for (const [what, s] of [['credentials', cred?.credentials], ['ca', cred?.ca]] as const) {
      if (s?.name) out.push({ apiVersion: 'v1', kind: 'Secret', namespace: s.namespace || clusterNamespace, name: s.name, via: `helmCharts[${h.releaseName}].registryCredentialsConfig.${what}` });
    }
  }
  return out;
}
