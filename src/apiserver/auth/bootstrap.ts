// The default RBAC objects kube-apiserver 1.32 reconciles at start (the rbac/bootstrap-roles post-start hook), the
// subset a virtual cluster needs: the user-facing roles (cluster-admin, admin, edit, view with their aggregation),
// discovery, basic-user and public-info-viewer, and their bindings (system:masters -> cluster-admin, every
// authenticated user -> discovery and basic-user). Missing ones are created at every start; existing ones are left
// as the cluster's admin made them. Go: plugin/pkg/auth/authorizer/rbac/bootstrappolicy/policy.go (testdata/*.yaml)
import type { Cluster } from '../cluster.js';
import { create, internalWrite, scopeFor } from '../registry.js';
import { isStatusError } from '../status.js';
import type { KubeObject } from '../types.js';
import type { PolicyRule } from './rules.js';

const RBAC = 'rbac.authorization.k8s.io';
const READ = ['get', 'list', 'watch'];
const WRITE = ['create', 'delete', 'deletecollection', 'patch', 'update'];
const ALL = ['create', 'delete', 'deletecollection', 'get', 'list', 'patch', 'update', 'watch'];
const r = (verbs: string[], apiGroups: string[], resources: string[]): PolicyRule => ({ apiGroups, resources, verbs });

/** The label and annotation every bootstrap object carries. */
const BOOTSTRAP_META = { labels: { 'kubernetes.io/bootstrapping': 'rbac-defaults' }, annotations: { 'rbac.authorization.kubernetes.io/autoupdate': 'true' } };
const AGG = (to: string) => ({ [`rbac.authorization.k8s.io/aggregate-to-${to}`]: 'true' });

function clusterRole(name: string, rules: PolicyRule[] | undefined, o: { labels?: Record<string, string>; aggregateFrom?: string } = {}): KubeObject {
  const obj: KubeObject = {
    apiVersion: `${RBAC}/v1`,
    kind: 'ClusterRole',
    metadata: { name, labels: { ...BOOTSTRAP_META.labels, ...(o.labels ?? {}) }, annotations: { ...BOOTSTRAP_META.annotations } },
  };
  if (o.aggregateFrom) obj.aggregationRule = { clusterRoleSelectors: [{ matchLabels: AGG(o.aggregateFrom) }] };
  if (rules) obj.rules = rules;
  return obj;
}

function clusterRoleBinding(name: string, role: string, groups: string[]): KubeObject {
  return {
    apiVersion: `${RBAC}/v1`,
    kind: 'ClusterRoleBinding',
    metadata: { name, labels: { ...BOOTSTRAP_META.labels }, annotations: { ...BOOTSTRAP_META.annotations } },
    roleRef: { apiGroup: RBAC, kind: 'ClusterRole', name: role },
    subjects: groups.map((g) => ({ apiGroup: RBAC, kind: 'Group', name: g })),
  };
}

const VIEW_RULES: PolicyRule[] = [
  r(READ, [''], ['configmaps', 'endpoints', 'persistentvolumeclaims', 'persistentvolumeclaims/status', 'pods', 'replicationcontrollers', 'replicationcontrollers/scale', 'serviceaccounts', 'services', 'services/status']),
  r(READ, [''], ['bindings', 'events', 'limitranges', 'namespaces/status', 'pods/log', 'pods/status', 'replicationcontrollers/status', 'resourcequotas', 'resourcequotas/status']),
  r(READ, [''], ['namespaces']),
  r(READ, ['discovery.k8s.io'], ['endpointslices']),
  r(READ, ['apps'], ['controllerrevisions', 'daemonsets', 'daemonsets/status', 'deployments', 'deployments/scale', 'deployments/status', 'replicasets', 'replicasets/scale', 'replicasets/status', 'statefulsets', 'statefulsets/scale', 'statefulsets/status']),
  r(READ, ['autoscaling'], ['horizontalpodautoscalers', 'horizontalpodautoscalers/status']),
  r(READ, ['batch'], ['cronjobs', 'cronjobs/status', 'jobs', 'jobs/status']),
  r(READ, ['extensions'], ['daemonsets', 'daemonsets/status', 'deployments', 'deployments/scale', 'deployments/status', 'ingresses', 'ingresses/status', 'networkpolicies', 'replicasets', 'replicasets/scale', 'replicasets/status', 'replicationcontrollers/scale']),
  r(READ, ['policy'], ['poddisruptionbudgets', 'poddisruptionbudgets/status']),
  r(READ, ['networking.k8s.io'], ['ingresses', 'ingresses/status', 'networkpolicies']),
];

const EDIT_RULES: PolicyRule[] = [
  r(READ, [''], ['pods/attach', 'pods/exec', 'pods/portforward', 'pods/proxy', 'secrets', 'services/proxy']),
  r(['impersonate'], [''], ['serviceaccounts']),
  r(WRITE, [''], ['pods', 'pods/attach', 'pods/exec', 'pods/portforward', 'pods/proxy']),
  r(['create'], [''], ['pods/eviction']),
  r(WRITE, [''], ['configmaps', 'events', 'persistentvolumeclaims', 'replicationcontrollers', 'replicationcontrollers/scale', 'secrets', 'serviceaccounts', 'services', 'services/proxy']),
  r(['create'], [''], ['serviceaccounts/token']),
  r(WRITE, ['apps'], ['daemonsets', 'deployments', 'deployments/rollback', 'deployments/scale', 'replicasets', 'replicasets/scale', 'statefulsets', 'statefulsets/scale']),
  r(WRITE, ['autoscaling'], ['horizontalpodautoscalers']),
  r(WRITE, ['batch'], ['cronjobs', 'jobs']),
  r(WRITE, ['extensions'], ['daemonsets', 'deployments', 'deployments/rollback', 'deployments/scale', 'ingresses', 'networkpolicies', 'replicasets', 'replicasets/scale', 'replicationcontrollers/scale']),
  r(WRITE, ['policy'], ['poddisruptionbudgets']),
  r(WRITE, ['networking.k8s.io'], ['ingresses', 'networkpolicies']),
];

const ADMIN_RULES: PolicyRule[] = [r(['create'], ['authorization.k8s.io'], ['localsubjectaccessreviews']), r(ALL, [RBAC], ['rolebindings', 'roles'])];

/** BOOTSTRAP_CLUSTER_ROLES are the default ClusterRoles, in kube's (name) order. */
export const BOOTSTRAP_CLUSTER_ROLES: KubeObject[] = [
  clusterRole('admin', undefined, { aggregateFrom: 'admin' }),
  clusterRole('cluster-admin', [r(['*'], ['*'], ['*']), { nonResourceURLs: ['*'], verbs: ['*'] }]),
  clusterRole('edit', undefined, { aggregateFrom: 'edit', labels: AGG('admin') }),
  clusterRole('system:aggregate-to-admin', ADMIN_RULES, { labels: AGG('admin') }),
  clusterRole('system:aggregate-to-edit', EDIT_RULES, { labels: AGG('edit') }),
  clusterRole('system:aggregate-to-view', VIEW_RULES, { labels: AGG('view') }),
  clusterRole('system:auth-delegator', [r(['create'], ['authentication.k8s.io'], ['tokenreviews']), r(['create'], ['authorization.k8s.io'], ['subjectaccessreviews'])]),
  clusterRole('system:basic-user', [r(['create'], ['authorization.k8s.io'], ['selfsubjectaccessreviews', 'selfsubjectrulesreviews']), r(['create'], ['authentication.k8s.io'], ['selfsubjectreviews'])]),
  clusterRole('system:discovery', [{ nonResourceURLs: ['/api', '/api/*', '/apis', '/apis/*', '/healthz', '/livez', '/openapi', '/openapi/*', '/readyz', '/version', '/version/'], verbs: ['get'] }]),
  clusterRole('system:public-info-viewer', [{ nonResourceURLs: ['/healthz', '/livez', '/readyz', '/version', '/version/'], verbs: ['get'] }]),
  clusterRole('view', undefined, { aggregateFrom: 'view', labels: AGG('edit') }),
];

/** BOOTSTRAP_CLUSTER_ROLE_BINDINGS are the default ClusterRoleBindings. */
export const BOOTSTRAP_CLUSTER_ROLE_BINDINGS: KubeObject[] = [
  clusterRoleBinding('cluster-admin', 'cluster-admin', ['system:masters']),
  clusterRoleBinding('system:basic-user', 'system:basic-user', ['system:authenticated']),
  clusterRoleBinding('system:discovery', 'system:discovery', ['system:authenticated']),
  clusterRoleBinding('system:public-info-viewer', 'system:public-info-viewer', ['system:authenticated', 'system:unauthenticated']),
];

/** ensureBootstrapPolicy creates the default roles and bindings that are missing. */
export function ensureBootstrapPolicy(cluster: Cluster): void {
  const o = internalWrite('kube-apiserver');
  const put = (plural: string, objs: KubeObject[]) => {
    const desc = cluster.registry.lookup(RBAC, 'v1', plural);
    if (!desc) return;
    for (const obj of objs) {
      if (cluster.get(desc.storage, undefined, obj.metadata!.name!)) continue;
      try {
        create(scopeFor(cluster, desc, ''), structuredClone(obj), o);
      } catch (e) {
        // A cluster at its object limit keeps serving; the roles come when there is room at the next start.
        if (!isStatusError(e, 'Forbidden') && !isStatusError(e, 'AlreadyExists')) throw e;
      }
    }
  };
  put('clusterroles', BOOTSTRAP_CLUSTER_ROLES);
  put('clusterrolebindings', BOOTSTRAP_CLUSTER_ROLE_BINDINGS);
}
