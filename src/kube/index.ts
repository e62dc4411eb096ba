// kube: the Kubernetes client layer — KubeClient (any GVK, discovery, apply/patch/watch), typed errors, shared
// informers with indexed caches, work queue + Controller runtime, Event recorder, per-cluster client cache and
// Lease-based leader election. See README.md in this folder.
export {
  KindNotInstalledError,
  KubeConfigError,
  StatusError,
  UnreachableError,
  FencedError,
  errorMessage,
  isAlreadyExists,
  isBadRequest,
  isConflict,
  isForbidden,
  isGone,
  isInvalid,
  isKindNotInstalled,
  isNotFound,
  isStatusError,
  isTooManyRequests,
  isUnauthorized,
  isUnavailable,
  isUnreachable,
  type KubeConfigErrorCode,
  type Status,
  type StatusCause,
  type StatusDetails,
  type StatusReason,
  type UnreachableReason,
} from './errors.js';
export {
  flattenKubeConfig,
  kubeConfigYaml,
  loadKubeConfig,
  singleContextKubeConfig,
  type KubeConfigParts,
  type KubeConfigSource,
} from './kubeconfig.js';
export type { HttpRequest, Impersonation, QueryValue, TransportOptions } from './transport.js';
export { groupVersionPath, splitGroupVersion, type ResourceInfo, type Discovery } from './discovery.js';
export {
  KubeClient,
  createKubeClient,
  labelSelectorString,
  type ApplyOptions,
  type DeleteOptions,
  type FieldValidation,
  type GVK,
  type KubeClientOptions,
  type KubeObject,
  type ListOptions,
  type ListPageOptions,
  type ObjectList,
  type ObjectRef,
  type PatchOptions,
  type PatchType,
  type Selector,
  type VersionInfo,
  type Watch,
  type WatchEvent,
  type WatchEventType,
  type WatchOptions,
  type WriteOptions,
} from './client.js';
export { Backoff, sleep, type BackoffOptions } from './backoff.js';
export {
  CacheError,
  ObjectCache,
  objectKey,
  onlyStatusChanged,
  onlyFinalizersChanged,
  splitKey,
  type CacheListOptions,
  type CacheObject,
  type CacheReader,
  type IndexFunc,
} from './cache.js';
export {
  Informer,
  InformerFactory,
  informerKeyString,
  type EventHandlers,
  type InformerFactoryOptions,
  type InformerKey,
  type InformerOptions,
  type InformerState,
  type InformerStats,
  type InformerView,
  type KindWaiter,
  type Subscription,
} from './informer.js';
export { ExponentialRateLimiter, WorkQueue, type RateLimiter, type WorkQueueOptions } from './workqueue.js';
export {
  Controller,
  type ControllerOptions,
  type EventSource,
  type KeyMapper,
  type ReconcileContext,
  type ReconcileResult,
  type Reconciler,
} from './controller.js';
export { EventRecorder, type EventRecorderOptions, type EventType, type InvolvedObject } from './events.js';
export { ClientCache, type ClientCacheOptions } from './client-cache.js';
export { localEndpoint, registerLocalEndpoint } from './local-endpoints.js';
export { LeaderElector, type LeaderElectorOptions } from './leader.js';
export { enableWriteAccounting, writeAccountingEnabled } from './write-accounting.js';
