// scopes.ts: whether a kind is namespaced, without a server — what discovery would say in a real cluster. The
// deployer needs it to default a namespaced object's namespace to `default` and to drop the namespace of a
// cluster-scoped one. Known: Kubernetes' built-in kinds, Sveltos' kinds (src/api), a few add-on kinds the seeds
// and common policies deploy, and every CustomResourceDefinition the preview was given or deploys.
import { KINDS, splitApiVersion } from '../api/index.js';
import type { KubeObject } from '../kube/index.js';

/** CLUSTER_SCOPED lists well-known cluster-scoped kinds as `group/Kind` (core group: `/Kind`). */
const CLUSTER_SCOPED = [
  '/Namespace',
  '/Node',
  '/PersistentVolume',
  '/ComponentStatus',
  'rbac.authorization.k8s.io/ClusterRole',
  'rbac.authorization.k8s.io/ClusterRoleBinding',
  'apiextensions.k8s.io/CustomResourceDefinition',
  'apiregistration.k8s.io/APIService',
  'admissionregistration.k8s.io/ValidatingWebhookConfiguration',
  'admissionregistration.k8s.io/MutatingWebhookConfiguration',
  'admissionregistration.k8s.io/ValidatingAdmissionPolicy',
  'admissionregistration.k8s.io/ValidatingAdmissionPolicyBinding',
  'admissionregistration.k8s.io/MutatingAdmissionPolicy',
  'admissionregistration.k8s.io/MutatingAdmissionPolicyBinding',
  'storage.k8s.io/StorageClass',
  'storage.k8s.io/CSIDriver',
  'storage.k8s.io/CSINode',
  'storage.k8s.io/VolumeAttachment',
  'storage.k8s.io/VolumeAttributesClass',
  'scheduling.k8s.io/PriorityClass',
  'node.k8s.io/RuntimeClass',
  'networking.k8s.io/IngressClass',
  'networking.k8s.io/IPAddress',
  'networking.k8s.io/ServiceCIDR',
  'certificates.k8s.io/CertificateSigningRequest',
  'certificates.k8s.io/ClusterTrustBundle',
  'flowcontrol.apiserver.k8s.io/FlowSchema',
  'flowcontrol.apiserver.k8s.io/PriorityLevelConfiguration',
  'authentication.k8s.io/TokenReview',
  'authentication.k8s.io/SelfSubjectReview',
  'authorization.k8s.io/SubjectAccessReview',
  'authorization.k8s.io/SelfSubjectAccessReview',
  'authorization.k8s.io/SelfSubjectRulesReview',
  'gateway.networking.k8s.io/GatewayClass',
  'cert-manager.io/ClusterIssuer',
  'kyverno.io/ClusterPolicy',
  'kyverno.io/ClusterCleanupPolicy',
  'kyverno.io/ClusterPolicyReport',
  'wgpolicyk8s.io/ClusterPolicyReport',
];

/** NAMESPACED lists well-known namespaced kinds that are not defined by Sveltos. */
const NAMESPACED = [
  '/ConfigMap',
  '/Secret',
  '/Service',
  '/Endpoints',
  '/Pod',
  '/PodTemplate',
  '/ServiceAccount',
  '/PersistentVolumeClaim',
  '/ReplicationController',
  '/ResourceQuota',
  '/LimitRange',
  '/Event',
  '/Binding',
  'apps/Deployment',
  'apps/StatefulSet',
  'apps/DaemonSet',
  'apps/ReplicaSet',
  'apps/ControllerRevision',
  'batch/Job',
  'batch/CronJob',
  'autoscaling/HorizontalPodAutoscaler',
  'policy/PodDisruptionBudget',
  'rbac.authorization.k8s.io/Role',
  'rbac.authorization.k8s.io/RoleBinding',
  'networking.k8s.io/NetworkPolicy',
  'networking.k8s.io/Ingress',
  'discovery.k8s.io/EndpointSlice',
  'coordination.k8s.io/Lease',
  'events.k8s.io/Event',
  'storage.k8s.io/CSIStorageCapacity',
  'authorization.k8s.io/LocalSubjectAccessReview',
  'gateway.networking.k8s.io/Gateway',
  'gateway.networking.k8s.io/HTTPRoute',
  'gateway.networking.k8s.io/GRPCRoute',
  'gateway.networking.k8s.io/TLSRoute',
  'gateway.networking.k8s.io/TCPRoute',
  'gateway.networking.k8s.io/UDPRoute',
  'gateway.networking.k8s.io/ReferenceGrant',
  'cert-manager.io/Issuer',
  'cert-manager.io/Certificate',
  'kyverno.io/Policy',
  'kyverno.io/CleanupPolicy',
  'monitoring.coreos.com/ServiceMonitor',
  'monitoring.coreos.com/PodMonitor',
  'monitoring.coreos.com/PrometheusRule',
  'cluster.x-k8s.io/Cluster',
  'cluster.x-k8s.io/MachineDeployment',
  'controlplane.cluster.x-k8s.io/KubeadmControlPlane',
];

const BUILTIN = new Map<string, boolean>([
  ...CLUSTER_SCOPED.map((k) => [k, false] as const),
  ...NAMESPACED.map((k) => [k, true] as const),
  ...KINDS.map((d) => [`${d.group}/${d.kind}`, d.scope === 'Namespaced'] as const),
]);

/** kindKey is the `group/Kind` key of an apiVersion and kind. */
export function kindKey(apiVersion: string, kind: string): string {
  return `${splitApiVersion(apiVersion).group}/${kind}`;
}

/** crdScope returns the `group/Kind` key and scope a CustomResourceDefinition object defines, if it is one. */
export function crdScope(o: KubeObject): { key: string; namespaced: boolean } | undefined {
  if (o.kind !== 'CustomResourceDefinition' || splitApiVersion(o.apiVersion).group !== 'apiextensions.k8s.io') return undefined;
  const s = (o.spec ?? {}) as { group?: string; scope?: string; names?: { kind?: string } };
  if (typeof s.group !== 'string' || typeof s.names?.kind !== 'string') return undefined;
  return { key: `${s.group}/${s.names.kind}`, namespaced: s.scope !== 'Cluster' };
}

/**
 * KindScopes answers "is this kind namespaced?" from the built-in table plus the CRDs it has been shown. Unknown
 * kinds answer undefined: the caller decides (the preview assumes namespaced and says so).
 */
export class KindScopes {
  private readonly crds = new Map<string, boolean>();

  /** learn records the scope defined by a CRD object (anything else is ignored). */
  learn(o: KubeObject): void {
    const s = crdScope(o);
    if (s) this.crds.set(s.key, s.namespaced);
  }

  /** namespaced reports the scope of a kind, or undefined when it is not known offline. */
  namespaced(apiVersion: string, kind: string): boolean | undefined {
    const key = kindKey(apiVersion, kind);
    return this.crds.get(key) ?? BUILTIN.get(key);
  }
}
