// Tenant identity (Sveltos §9): who a tenant-labelled EventSource / EventTrigger / ClusterProfile / Profile belongs
// to, and which user Ripple impersonates when it acts for that tenant. Pure: no I/O.
//
// - `projectsveltos.io/serviceaccount-name` + `-namespace` name the tenant's ServiceAccount in the management cluster.
// - The 2023 labels `projectsveltos.io/admin-name` (+ optional `admin-namespace`) name it the same way; the seed's Kyverno
//   policy stamps `admin-name: {{serviceAccountName}}`, so without `admin-namespace` the namespace is the one of the
//   RoleRequest granting a ServiceAccount of that name (exactly one such namespace, or the labels are refused).
// - `kubernetes-admin` is the platform admin: no impersonation (libsveltos AdminServiceAccountName).
// In the management cluster the tenant acts as `system:serviceaccount:<ns>:<name>`; in a managed cluster as the
// ServiceAccount its RoleRequest created there, `system:serviceaccount:projectsveltos:<ns>--<name>`.
import { Labels, SVELTOS_NAMESPACE } from './keys.js';

/** PLATFORM_ADMIN is the ServiceAccount name Sveltos treats as the platform admin. */
export const PLATFORM_ADMIN = 'kubernetes-admin';

/** Tenant is a tenant admin: a ServiceAccount of the management cluster. */
export interface Tenant {
  namespace: string;
  name: string;
}

/** TenantResolution is what an object's labels say about its owner. */
export type TenantResolution =
  | { kind: 'admin' }
  | { kind: 'tenant'; tenant: Tenant }
  | { kind: 'invalid'; message: string };

/** RoleRequestLike is the part of a RoleRequest identity resolution reads. */
export interface RoleRequestLike {
  spec?: { serviceAccountName?: string; serviceAccountNamespace?: string };
}

/**
 * tenantOf reads the tenant labels of an object. `roleRequests` resolves the namespace of a bare `admin-name`.
 * Conflicting label pairs (both spellings naming different ServiceAccounts) are refused, never guessed.
 */
export function tenantOf(labels: Readonly<Record<string, string>> | undefined, roleRequests: readonly RoleRequestLike[] = []): TenantResolution {
  const l = labels ?? {};
  const saName = l[Labels.serviceAccountName];
  const saNs = l[Labels.serviceAccountNamespace];
  const adminName = l[Labels.adminName];
  const adminNs = l[Labels.adminNamespace];
  let fromSa: Tenant | undefined;
  if (saName !== undefined || saNs !== undefined) {
    if (!saName || !saNs) return { kind: 'invalid', message: `labels ${Labels.serviceAccountName} and ${Labels.serviceAccountNamespace} must be set together` };
    fromSa = { namespace: saNs, name: saName };
  }
  let fromAdmin: Tenant | undefined;
  if (adminName !== undefined) {
    if (!adminName) return { kind: 'invalid', message: `label ${Labels.adminName} is empty` };
    if (adminNs) fromAdmin = { namespace: adminNs, name: adminName };
    else if (adminName !== PLATFORM_ADMIN) {
      const namespaces = [...new Set(roleRequests.filter((r) => r.spec?.serviceAccountName === adminName).map((r) => r.spec?.serviceAccountNamespace ?? ''))].sort();
      if (fromSa && fromSa.name === adminName) fromAdmin = fromSa;
      else if (namespaces.length === 1) fromAdmin = { namespace: namespaces[0]!, name: adminName };
      else if (namespaces.length === 0) return { kind: 'invalid', message: `no RoleRequest grants tenant admin ${adminName} (label ${Labels.adminName}); add label ${Labels.adminNamespace} or a RoleRequest for it` };
      else return { kind: 'invalid', message: `tenant admin ${adminName} (label ${Labels.adminName}) is ambiguous: RoleRequests grant ServiceAccounts of that name in namespaces ${namespaces.join(', ')}; add label ${Labels.adminNamespace}` };
    }
  } else if (adminNs !== undefined) {
    return { kind: 'invalid', message: `label ${Labels.adminNamespace} needs label ${Labels.adminName}` };
  }
  if (fromSa && fromAdmin && (fromSa.name !== fromAdmin.name || fromSa.namespace !== fromAdmin.namespace)) {
    return { kind: 'invalid', message: `labels name two different tenants: ${fromSa.namespace}/${fromSa.name} (${Labels.serviceAccountName}) and ${fromAdmin.namespace}/${fromAdmin.name} (${Labels.adminName})` };
  }
  const t = fromSa ?? fromAdmin;
  if (!t || t.name === PLATFORM_ADMIN) return { kind: 'admin' };
  return { kind: 'tenant', tenant: t };
}

/** managementUser is the user a tenant acts as in the management cluster. */
export function managementUser(t: Tenant): string {
  return `system:serviceaccount:${t.namespace}:${t.name}`;
}

/** managedServiceAccount is the ServiceAccount a RoleRequest creates for the tenant in each managed cluster. */
export function managedServiceAccount(t: Tenant): { namespace: string; name: string } {
  return { namespace: SVELTOS_NAMESPACE, name: `${t.namespace}--${t.name}` };
}

/** managedUser is the user a tenant acts as in a managed cluster. */
export function managedUser(t: Tenant): string {
  const sa = managedServiceAccount(t);
  return `system:serviceaccount:${sa.namespace}:${sa.name}`;
}

/** serviceAccountOfUser parses `system:serviceaccount:NS:NAME` (undefined for any other user name). */
export function serviceAccountOfUser(username: string): Tenant | undefined {
  const m = /^system:serviceaccount:([^:]+):([^:]+)$/.exec(username);
  return m ? { namespace: m[1]!, name: m[2]! } : undefined;
}

/** tenantLabels are the labels that carry a tenant on an object (the current spelling). */
export function tenantLabels(t: Tenant): Record<string, string> {
  return { [Labels.serviceAccountName]: t.name, [Labels.serviceAccountNamespace]: t.namespace };
}
