// The RBAC objects a RoleRequest puts into one managed cluster, and what to remove — pure (no I/O).
// Per cluster: the tenant's ServiceAccount `projectsveltos/<saNamespace>--<saName>`, every Role/ClusterRole found
// in the roleRefs ConfigMaps/Secrets (YAML documents, one or more per data key), and one RoleBinding /
// ClusterRoleBinding per role binding it to that ServiceAccount. Everything but the ServiceAccount carries the label
// `projectsveltos.io/role-request-name: <RoleRequest>` so withdrawal finds exactly what this RoleRequest created;
// the ServiceAccount carries the tenant labels and is removed only when no RoleRequest of the tenant selects the
// cluster any more. Anything other than a Role or ClusterRole in a roleRef is refused (a RoleRequest grants
// permissions, it is not a deployer).
import { createHash } from 'node:crypto';
import { parseAllDocuments } from 'yaml';
import { SVELTOS_NAMESPACE } from '../api/index.js';
import type { KubeObject } from '../kube/index.js';
import { managedServiceAccount, tenantLabels, type Tenant } from '../api/index.js';

/** ROLE_REQUEST_LABEL marks the objects one RoleRequest created in a managed cluster. */
export const ROLE_REQUEST_LABEL = 'projectsveltos.io/role-request-name';
/** RBAC_GROUP is rbac.authorization.k8s.io. */
export const RBAC_API = 'rbac.authorization.k8s.io/v1';
/** OWNED_KINDS are the kinds a RoleRequest writes (besides the ServiceAccount), in apply order. */
export const OWNED_KINDS = [
  { apiVersion: RBAC_API, kind: 'ClusterRole' },
  { apiVersion: RBAC_API, kind: 'Role' },
  { apiVersion: RBAC_API, kind: 'ClusterRoleBinding' },
  { apiVersion: RBAC_API, kind: 'RoleBinding' },
] as const;

/** RoleSource is one roleRef's content: its identity and data (Secret data already base64-decoded). */
export interface RoleSource {
  kind: 'ConfigMap' | 'Secret';
  namespace: string;
  name: string;
  data: Readonly<Record<string, string>>;
}

/** ParsedRoles is the roles found in the roleRefs, or the first reason they cannot be used. */
export type ParsedRoles = { ok: true; roles: KubeObject[] } | { ok: false; message: string };

/** parseRoles reads every Role/ClusterRole of the sources (keys in sorted order, documents in order). */
export function parseRoles(sources: readonly RoleSource[]): ParsedRoles {
  const roles: KubeObject[] = [];
  const seen = new Map<string, string>();
  for (const src of sources) {
    const where = `${src.kind} ${src.namespace}/${src.name}`;
    for (const key of Object.keys(src.data).sort()) {
      const docs = parseAllDocuments(src.data[key]!);
      for (const d of Array.isArray(docs) ? docs : [docs]) {
        if (d.errors.length > 0) return { ok: false, message: `${where} key ${key}: invalid YAML: ${d.errors[0]!.message.split('\n')[0]}` };
        const o = d.toJS() as unknown;
        if (o === null || o === undefined) continue;
        if (typeof o !== 'object' || Array.isArray(o)) return { ok: false, message: `${where} key ${key}: a document is not an object` };
        const obj = o as KubeObject;
        const name = obj.metadata?.name;
        if (obj.apiVersion !== RBAC_API || (obj.kind !== 'Role' && obj.kind !== 'ClusterRole')) {
          return { ok: false, message: `${where} key ${key}: ${obj.kind ?? '(no kind)'} ${name ?? ''} is not a ${RBAC_API} Role or ClusterRole; roleRefs may hold only roles` };
        }
        if (!name) return { ok: false, message: `${where} key ${key}: ${obj.kind} without metadata.name` };
        if (obj.kind === 'Role' && !obj.metadata.namespace) return { ok: false, message: `${where} key ${key}: Role ${name} has no metadata.namespace` };
        const id = `${obj.kind}/${obj.metadata.namespace ?? ''}/${name}`;
        const prev = seen.get(id);
        if (prev) return { ok: false, message: `${obj.kind} ${name} is defined twice (${prev} and ${where})` };
        seen.set(id, where);
        roles.push(obj);
      }
    }
  }
  return { ok: true, roles };
}

/** ClusterPlan is what one managed cluster must hold for one RoleRequest. */
export interface ClusterPlan {
  /** Namespaces that must exist (projectsveltos and those of Roles); created if missing, never deleted. */
  namespaces: string[];
  serviceAccount: KubeObject;
  /** Roles, ClusterRoles and their bindings, in apply order. */
  objects: KubeObject[];
  /** sha256 of the plan (base64, as RoleRequest status.clusterInfo[].hash). */
  hash: string;
}

/** bindingName names the binding of a role to a tenant (`<role>--<saNamespace>--<saName>`, at most 253 chars). */
export function bindingName(roleName: string, t: Tenant): string {
  const full = `${roleName}--${t.namespace}--${t.name}`;
  if (full.length <= 253) return full;
  const h = createHash('sha256').update(full).digest('hex').slice(0, 16);
  return `${full.slice(0, 253 - 17)}-${h}`;
}

/** planCluster builds the objects of one RoleRequest for one cluster. */
export function planCluster(roleRequest: string, t: Tenant, roles: readonly KubeObject[]): ClusterPlan {
  const sa = managedServiceAccount(t);
  const label = { [ROLE_REQUEST_LABEL]: roleRequest };
  const subject = { kind: 'ServiceAccount', name: sa.name, namespace: sa.namespace };
  const namespaces = new Set<string>([SVELTOS_NAMESPACE]);
  const clusterRoles: KubeObject[] = [];
  const nsRoles: KubeObject[] = [];
  const bindings: KubeObject[] = [];
  for (const r of roles) {
    const { name, namespace, labels, annotations } = r.metadata;
    const role: KubeObject = {
      ...r,
      metadata: { name, ...(namespace && r.kind === 'Role' ? { namespace } : {}), labels: { ...(labels ?? {}), ...label }, ...(annotations ? { annotations } : {}) },
    };
    const roleRef = { apiGroup: 'rbac.authorization.k8s.io', kind: r.kind, name };
    if (r.kind === 'ClusterRole') {
      clusterRoles.push(role);
      bindings.push({ apiVersion: RBAC_API, kind: 'ClusterRoleBinding', metadata: { name: bindingName(name, t), labels: label }, roleRef, subjects: [subject] } as KubeObject);
    } else {
      namespaces.add(namespace!);
      nsRoles.push(role);
      bindings.push({ apiVersion: RBAC_API, kind: 'RoleBinding', metadata: { name: bindingName(name, t), namespace, labels: label }, roleRef, subjects: [subject] } as KubeObject);
    }
  }
  const serviceAccount: KubeObject = { apiVersion: 'v1', kind: 'ServiceAccount', metadata: { name: sa.name, namespace: sa.namespace, labels: tenantLabels(t) } };
  const objects = [...clusterRoles, ...nsRoles, ...bindings.filter((b) => b.kind === 'ClusterRoleBinding'), ...bindings.filter((b) => b.kind === 'RoleBinding')];
  const ns = [...namespaces].sort();
  const hash = createHash('sha256').update(JSON.stringify({ ns, serviceAccount, objects })).digest('base64');
  return { namespaces: ns, serviceAccount, objects, hash };
}

/** objectId identifies an object within a cluster. */
export function objectId(o: { kind: string; metadata: { namespace?: string; name: string } }): string {
  return `${o.kind}/${o.metadata.namespace ?? ''}/${o.metadata.name}`;
}

/** staleObjects returns the existing objects labelled for this RoleRequest that the plan no longer holds. */
export function staleObjects(roleRequest: string, existing: readonly KubeObject[], plan: { objects: readonly KubeObject[] } | undefined): KubeObject[] {
  const want = new Set((plan?.objects ?? []).map(objectId));
  return existing.filter((o) => o.metadata.labels?.[ROLE_REQUEST_LABEL] === roleRequest && !want.has(objectId(o)));
}

/** foreignOwner says which other RoleRequest (or nobody Ripple knows: `unlabelled`) holds an object the plan wants. */
export function foreignOwner(roleRequest: string, existing: KubeObject | undefined): string | undefined {
  if (!existing) return undefined;
  const owner = existing.metadata.labels?.[ROLE_REQUEST_LABEL];
  if (owner === roleRequest) return undefined;
  return owner ?? 'unlabelled';
}
