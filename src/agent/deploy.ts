// deploy: the in-cluster agent, installed by the management side into every managed cluster it copies EventSources
// to (delivery mode "collect" with agentDeployment set; `ripple manager --agent-mode collect --deploy-agent`), as
// Sveltos' addon-controller installs sveltos-agent. Pure manifests plus one idempotent server-side apply per client.
//
// What lands in the managed cluster (namespace projectsveltos):
//   ServiceAccount ripple-agent; ClusterRole ripple-agent — read every kind (an EventSource may select any), write
//   EventReports (and their status), create the namespace; ClusterRoleBinding ripple-agent; Deployment ripple-agent
//   running `ripple agent --run-mode do-not-send-reports` for this cluster's identity (non-root, read-only root
//   filesystem). The management side collects its reports. Nothing is removed when a cluster leaves the fleet (as
//   Sveltos leaves sveltos-agent in place); delete the objects labelled app.kubernetes.io/name=ripple-agent to remove it.
import { SVELTOS_NAMESPACE } from '../api/index.js';
import type { KubeClient, KubeObject } from '../kube/index.js';
import type { ClusterIdentity } from './report.js';

/** AgentDeployment configures the agent installed into managed clusters. */
export interface AgentDeployment {
  /** Image whose entrypoint is `ripple` (the repository's Dockerfile). */
  image: string;
}

/** AGENT_NAME names every object of the installed agent. */
export const AGENT_NAME = 'ripple-agent';
/** AGENT_FIELD_MANAGER owns the installed agent's fields (server-side apply). */
export const AGENT_FIELD_MANAGER = 'ripple-agent-deployer';

const LABELS = { 'app.kubernetes.io/name': AGENT_NAME, 'app.kubernetes.io/managed-by': AGENT_FIELD_MANAGER } as const;

/** agentManifests (pure) returns the objects that run `ripple agent` for one cluster inside that cluster. */
export function agentManifests(cluster: ClusterIdentity, o: AgentDeployment): KubeObject[] {
  const meta = (name: string, namespaced: boolean) => ({ name, ...(namespaced ? { namespace: SVELTOS_NAMESPACE } : {}), labels: { ...LABELS } });
  return [
    { apiVersion: 'v1', kind: 'Namespace', metadata: { name: SVELTOS_NAMESPACE } },
    { apiVersion: 'v1', kind: 'ServiceAccount', metadata: meta(AGENT_NAME, true) },
    {
      apiVersion: 'rbac.authorization.k8s.io/v1',
      kind: 'ClusterRole',
      metadata: meta(AGENT_NAME, false),
      rules: [
        // EventSources select any kind: the agent lists and watches what they name.
        { apiGroups: ['*'], resources: ['*'], verbs: ['get', 'list', 'watch'] },
        { apiGroups: ['lib.projectsveltos.io'], resources: ['eventreports', 'eventreports/status'], verbs: ['get', 'list', 'watch', 'create', 'update', 'patch', 'delete'] },
        { apiGroups: [''], resources: ['namespaces'], verbs: ['create'] },
      ],
    },
    {
      apiVersion: 'rbac.authorization.k8s.io/v1',
      kind: 'ClusterRoleBinding',
      metadata: meta(AGENT_NAME, false),
      roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'ClusterRole', name: AGENT_NAME },
      subjects: [{ kind: 'ServiceAccount', name: AGENT_NAME, namespace: SVELTOS_NAMESPACE }],
    },
    {
      apiVersion: 'apps/v1',
      kind: 'Deployment',
      metadata: meta(AGENT_NAME, true),
      spec: {
        replicas: 1,
        selector: { matchLabels: { 'app.kubernetes.io/name': AGENT_NAME } },
        template: {
          metadata: { labels: { ...LABELS } },
          spec: {
            serviceAccountName: AGENT_NAME,
            securityContext: { runAsNonRoot: true, runAsUser: 65532, runAsGroup: 65532, seccompProfile: { type: 'RuntimeDefault' } },
            containers: [
              {
                name: 'agent',
                image: o.image,
                args: ['agent', '--cluster-namespace', cluster.clusterNamespace, '--cluster-name', cluster.clusterName, '--cluster-type', cluster.clusterType, '--run-mode', 'do-not-send-reports'],
                securityContext: { allowPrivilegeEscalation: false, readOnlyRootFilesystem: true, capabilities: { drop: ['ALL'] } },
                resources: { requests: { cpu: '50m', memory: '128Mi' }, limits: { memory: '512Mi' } },
              },
            ],
          },
        },
      },
    },
  ];
}

/** applyAgent installs (or updates) the agent in one managed cluster; unchanged objects are server-side no-ops. */
export async function applyAgent(client: KubeClient, cluster: ClusterIdentity, o: AgentDeployment): Promise<void> {
  for (const obj of agentManifests(cluster, o)) await client.apply(obj, { fieldManager: AGENT_FIELD_MANAGER, force: true });
}
