// clusters: the fleet registry — SveltosClusters and Cluster API Clusters with readiness, pause and kubeconfig rules
// as Sveltos applies them, selection by labels / refs / ClusterSets, change notifications, per-cluster clients, the
// readiness controller, the ClusterSet/Set controller and cluster registration.
export {
  CAPI_CRD_NAME,
  CAPI_GROUP,
  CLUSTER_SET,
  K8S_VERSION_LABEL,
  MANAGEMENT_CLUSTER,
  SET,
  SVELTOS_CLUSTER,
  SVELTOS_KUBECONFIG_KEY,
  clusterKey,
  clusterTypeOf,
  isCapiClusterReady,
  k8sVersionLabel,
  kubeconfigFromSecret,
  kubeconfigLocation,
  matchesShard,
  refKey,
  toEntry,
  type ClusterEntry,
  type ClusterRef,
  type ClusterRefLike,
  type KubeconfigLocation,
  type KubeconfigResult,
} from './cluster.js';
export {
  ClusterError,
  ClusterRegistry,
  matchClusterEntries,
  type ClusterChangeKind,
  type ClusterErrorCode,
  type ClusterEvent,
  type ClusterRegistryOptions,
  type ClusterSelection,
  type SelectOptions,
} from './registry.js';
export { ClusterReadinessController, configProblem, planStatus, type ProbeOutcome, type ReadinessControllerOptions, type StatusPlan } from './readiness.js';
export { ClusterSetController, selectClusters, type ClusterSetControllerOptions, type ObjectRefOut } from './sets.js';
export { parseLabels, registerCluster, registerPullModeCluster, validateRegistration, type RegisterAction, type RegisterOptions, type RegisterResult } from './register.js';
export { checkProblems, runClusterChecks, type CheckPhase, type ChecksOutcome, type ClusterCheck } from './checks.js';
export { parseCron, type CronParseResult, type CronSchedule } from './cron.js';
export { ActiveWindowController, activeWindowHash, planActiveWindow, type ActiveWindow, type ActiveWindowControllerOptions, type WindowPlan } from './active-window.js';
export {
  RENEWED_KUBECONFIG_KEY,
  TokenRenewalController,
  parseGoDuration,
  planRenewal,
  serviceAccountOfToken,
  withToken,
  type RenewalPlan,
  type TokenRenewalControllerOptions,
  type TokenRequestRenewalOption,
} from './token-renewal.js';
