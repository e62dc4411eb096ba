// apiserver: the embedded Kubernetes-compatible API server (virtual clusters on one loopback port, SQLite-durable).
export { SIMULATORS, parseSimulators, startApiServer, validateClusterName, type ApiServer, type ApiServerOptions, type ClusterInfo, type KubeConfig, type RequestCounts, type Simulator } from './server.js';
export { startApiServerThread } from './thread.js';
export { DEFAULT_CLUSTER_LIMITS, type ClusterLimits, type Logger } from './cluster.js';
export type { Durability } from './store.js';
export { DEFAULT_LB_POOL } from './loadbalancer.js';
export { StatusError, isStatusError, type Status, type StatusReason, type StatusCause, type StatusDetails } from './status.js';
export { prepareDataDir, createPrivateFile, DATA_DIR_MODE, DATA_FILE_MODE } from './data-dir.js';
export type { UserInfo } from './auth/rules.js';
export { API_AUDIENCE } from './auth/tokens.js';
export { threadCpuMs } from './thread-cpu.js';
