// manager: the control plane in one process — `startManager` runs the fleet registry (+ readiness, ClusterSets), the
// agent's management side, the event manager and the add-on deployer against a management cluster (`ripple manager`);
// `startEmbedded` runs it on the embedded API server with virtual clusters (`ripple up`); `startNarrator` tells what
// happens, one human line per step. See README.md in this folder.
export { AGENT_MODES, startManager, type AgentMode, type Clock, type LeaderElectionOptions, type Manager, type ManagerEnd, type ManagerOptions } from './manager.js';
export { LEASE_BASE_NAME, leaseNameForShard } from './shards.js';
export {
  SHARD_CONTROLLER_FIELD_MANAGER,
  ShardController,
  ShardLabels,
  planShards,
  shardDeployment,
  shardKeysInUse,
  type ShardAction,
  type ShardControllerOptions,
  type ShardDeploymentTemplate,
} from './shard-controller.js';
export { CRD_FIELD_MANAGER, installCrds, type InstallResult } from './crds.js';
export { SVELTOS_NAMESPACE, ensureNamespace, registerManagementCluster } from './bootstrap.js';
export {
  EmbeddedError,
  MGMT,
  startEmbedded,
  validateClusterSpec,
  type ClusterSpec,
  type Embedded,
  type EmbeddedOptions,
  type LoadBalancerSpec,
  type ApiServerThread,
} from './embedded.js';
export { startNarrator, clusterLabel, type Narrator, type NarratorOptions } from './narrator.js';
export { describe, detailOf, objectName, loadBalancerAddresses } from './describe.js';
