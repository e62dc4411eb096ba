// What a tenant reads from the management cluster on its own behalf (templates, values), checked before it is read:
// a SubjectAccessReview per object, `get`, as the tenant's ServiceAccount. Fails closed; a refusal names the object
// and never carries its content.
import { errorMessage, isKindNotInstalled, isNotFound, type KubeClient, type KubeObject } from '../kube/index.js';
import { managementUser, type Tenant } from '../api/index.js';

/** TenantRead is one management-cluster object a tenant's deployment reads. */
export interface TenantRead {
  apiVersion: string;
  kind: string;
  namespace?: string;
  name: string;
  /** What reads it, for the message (`policyRefs[0]`, `templateResourceRefs db`, `helmCharts[web].valuesFrom[1]`). */
  via: string;
}

/** plural guesses the resource of a kind the way discovery names most kinds (used only when discovery has no answer). */
function fallbackPlural(kind: string): string {
  const k = kind.toLowerCase();
  return k.endsWith('s') ? `${k}es` : k.endsWith('y') ? `${k.slice(0, -1)}ies` : `${k}s`;
}

/**
 * refusal asks the management cluster whether the tenant may `get` each object (SubjectAccessReview); returns the
 * first refusal's message, or undefined when every read is allowed. Fails closed: a review that cannot be made
 * refuses too.
 */
export async function readRefusal(mgmt: KubeClient, t: Tenant, reads: readonly TenantRead[]): Promise<string | undefined> {
  const user = managementUser(t);
  const seen = new Set<string>();
  for (const r of reads) {
    const id = `${r.apiVersion}|${r.kind}|${r.namespace ?? ''}|${r.name}`;
    if (seen.has(id)) continue;
    seen.add(id);
    let group = r.apiVersion.includes('/') ? r.apiVersion.slice(0, r.apiVersion.indexOf('/')) : '';
    let resource = fallbackPlural(r.kind);
    try {
      const info = await mgmt.resource({ apiVersion: r.apiVersion, kind: r.kind });
      resource = info.plural ?? resource;
      group = info.group ?? group;
    } catch (err) {
      if (!isKindNotInstalled(err)) return `${r.via}: cannot check whether tenant ${t.namespace}/${t.name} may read ${r.kind} ${r.name}: ${errorMessage(err)}`;
    }
    let allowed = false;
    let reason = '';
    try {
      const review = await mgmt.create<KubeObject & { status?: { allowed?: boolean; reason?: string } }>({
        apiVersion: 'authorization.k8s.io/v1',
        kind: 'SubjectAccessReview',
        metadata: {},
        spec: { user, groups: ['system:serviceaccounts', `system:serviceaccounts:${t.namespace}`, 'system:authenticated'], resourceAttributes: { verb: 'get', group, resource, ...(r.namespace ? { namespace: r.namespace } : {}), name: r.name } },
      } as unknown as KubeObject);
      allowed = review.status?.allowed === true;
      reason = review.status?.reason ?? '';
    } catch (err) {
      const why = isNotFound(err) || isKindNotInstalled(err) ? 'the management cluster does not serve SubjectAccessReviews' : errorMessage(err);
      return `${r.via}: cannot check whether tenant ${t.namespace}/${t.name} may read ${r.kind} ${r.namespace ? `${r.namespace}/` : ''}${r.name} (${why}); not read`;
    }
    if (!allowed) {
      const where = r.namespace ? ` in the namespace "${r.namespace}"` : '';
      return `${r.via}: tenant ${t.namespace}/${t.name} may not read ${r.kind} "${r.name}"${where} of the management cluster (User "${user}" cannot get resource "${resource}" in API group "${group}"${reason ? `: ${reason}` : ''}); its content was not used`;
    }
  }
  return undefined;
}

