// Onboarding a tenant admin on a management cluster (`ripple up --tenant NAME[:selector]`; the same steps work with
// kubectl alone, see docs/tenancy.md): namespace NAME with ServiceAccount NAME (the tenant's identity), its rights in
// the management cluster (Sveltos event and profile kinds; ConfigMaps, Secrets and Profiles in its own namespace;
// reading clusters), a RoleRequest NAME granting it the Role `tenant-NAME` (everything in namespace NAME of each
// managed cluster matching the selector), and a kubeconfig whose token comes from the TokenRequest API — holding
// only the tenant's credentials, never the admin's. Idempotent (server-side apply).
import { writeFileSync } from 'node:fs';
import { stringify } from 'yaml';
import { LIB_GROUP, SVELTOS_NAMESPACE, isDNS1123Label, parseLabelSelector, type LabelSelector } from '../api/index.js';
import { isAlreadyExists, type KubeClient, type KubeObject } from '../kube/index.js';
import { RBAC_API } from './plan.js';

/** TenantFlag is a parsed `--tenant NAME[:cluster-selector]`. */
export interface TenantFlag {
  name: string;
  /** Clusters the tenant is granted (undefined: none yet — edit RoleRequest NAME to grant some). */
  clusterSelector?: LabelSelector;
}

/** parseTenantFlag parses `NAME[:selector]`; throws Error with the reason. */
export function parseTenantFlag(v: string): TenantFlag {
  const i = v.indexOf(':');
  const name = i < 0 ? v : v.slice(0, i);
  const bad = isDNS1123Label(name);
  if (bad.length > 0) throw new Error(`tenant name ${JSON.stringify(name)}: ${bad.join('; ')}`);
  if (i < 0 || v.slice(i + 1).trim() === '') return { name };
  const sel = parseLabelSelector(v.slice(i + 1));
  if (!sel.ok) throw new Error(sel.error);
  return { name, clusterSelector: sel.selector };
}

const FIELD_MANAGER = 'ripple-tenant-onboarding';
const TOKEN_SECONDS = 24 * 3600;

/** tenantObjects are the management-cluster objects of one tenant (pure). */
export function tenantObjects(t: TenantFlag): KubeObject[] {
  const ns = t.name;
  const sa = { kind: 'ServiceAccount', name: t.name, namespace: ns };
  const verbsAll = ['get', 'list', 'watch', 'create', 'update', 'patch', 'delete'];
  const roleYaml = [
    stringify({ apiVersion: RBAC_API, kind: 'Role', metadata: { name: `tenant-${t.name}`, namespace: ns }, rules: [{ apiGroups: ['*'], resources: ['*'], verbs: ['*'] }] }),
    // Deployments check that the target namespace exists.
    stringify({ apiVersion: RBAC_API, kind: 'ClusterRole', metadata: { name: `tenant-${t.name}-namespace` }, rules: [{ apiGroups: [''], resources: ['namespaces'], resourceNames: [ns], verbs: ['get'] }] }),
  ].join('---\n');
  const o = (x: Record<string, unknown>) => x as unknown as KubeObject;
  return [
    o({ apiVersion: 'v1', kind: 'Namespace', metadata: { name: ns } }),
    o({ apiVersion: 'v1', kind: 'ServiceAccount', metadata: { name: t.name, namespace: ns } }),
    o({
      apiVersion: RBAC_API,
      kind: 'ClusterRole',
      metadata: { name: 'ripple-tenant' },
      rules: [
        { apiGroups: [LIB_GROUP], resources: ['eventsources', 'eventtriggers', 'eventbasedaddons'], verbs: verbsAll },
        { apiGroups: ['config.projectsveltos.io'], resources: ['clusterprofiles'], verbs: verbsAll },
        { apiGroups: [LIB_GROUP], resources: ['sveltosclusters'], verbs: ['get', 'list', 'watch'] },
      ],
    }),
    o({ apiVersion: RBAC_API, kind: 'ClusterRoleBinding', metadata: { name: `ripple-tenant--${t.name}` }, roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'ClusterRole', name: 'ripple-tenant' }, subjects: [sa] }),
    o({
      apiVersion: RBAC_API,
      kind: 'Role',
      metadata: { name: 'ripple-tenant', namespace: ns },
      rules: [
        { apiGroups: [''], resources: ['configmaps', 'secrets'], verbs: verbsAll },
        { apiGroups: ['config.projectsveltos.io'], resources: ['profiles', 'clustersummaries'], verbs: verbsAll },
      ],
    }),
    o({ apiVersion: RBAC_API, kind: 'RoleBinding', metadata: { name: 'ripple-tenant', namespace: ns }, roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'Role', name: 'ripple-tenant' }, subjects: [sa] }),
    // The roles granted in managed clusters live where the tenant cannot edit them.
    o({ apiVersion: 'v1', kind: 'Namespace', metadata: { name: SVELTOS_NAMESPACE } }),
    o({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: `tenant-${t.name}-roles`, namespace: SVELTOS_NAMESPACE }, data: { role: roleYaml } }),
    o({
      apiVersion: `${LIB_GROUP}/v1beta1`,
      kind: 'RoleRequest',
      metadata: { name: t.name },
      spec: {
        ...(t.clusterSelector ? { clusterSelector: t.clusterSelector } : {}),
        roleRefs: [{ kind: 'ConfigMap', name: `tenant-${t.name}-roles`, namespace: SVELTOS_NAMESPACE }],
        serviceAccountName: t.name,
        serviceAccountNamespace: ns,
      },
    }),
  ];
}

/** OnboardResult says where the tenant's kubeconfig is. */
export interface OnboardResult {
  context: string;
  kubeconfigPath: string;
  expiresAt: string;
}

/**
 * onboardTenant applies tenantObjects to the management cluster, asks the TokenRequest API for a token of the
 * tenant's ServiceAccount and writes a kubeconfig (mode 0600) with one context `tenant-NAME`.
 */
export async function onboardTenant(mgmt: KubeClient, t: TenantFlag, o: { kubeconfigPath: string; server: string; certificateAuthorityData?: string; insecure?: boolean }): Promise<OnboardResult> {
  for (const obj of tenantObjects(t)) {
    if (obj.kind === 'Namespace') {
      try {
        await mgmt.create(obj);
      } catch (err) {
        if (!isAlreadyExists(err)) throw err;
      }
      continue;
    }
    await mgmt.apply(obj, { fieldManager: FIELD_MANAGER, force: true });
  }
  const tr = await mgmt.request<{ status?: { token?: string; expirationTimestamp?: string } }>({
    method: 'POST',
    path: `/api/v1/namespaces/${t.name}/serviceaccounts/${t.name}/token`,
    body: { apiVersion: 'authentication.k8s.io/v1', kind: 'TokenRequest', spec: { expirationSeconds: TOKEN_SECONDS } },
  });
  const token = tr.status?.token;
  if (!token) throw new Error(`the TokenRequest API returned no token for ServiceAccount ${t.name}/${t.name}`);
  const context = `tenant-${t.name}`;
  const cfg = {
    apiVersion: 'v1',
    kind: 'Config',
    'current-context': context,
    clusters: [{ name: context, cluster: { server: o.server, ...(o.certificateAuthorityData ? { 'certificate-authority-data': o.certificateAuthorityData } : {}), ...(o.insecure ? { 'insecure-skip-tls-verify': true } : {}) } }],
    users: [{ name: context, user: { token } }],
    contexts: [{ name: context, context: { cluster: context, user: context, namespace: t.name } }],
  };
  writeFileSync(o.kubeconfigPath, stringify(cfg), { mode: 0o600 });
  return { context, kubeconfigPath: o.kubeconfigPath, expiresAt: tr.status?.expirationTimestamp ?? '' };
}
