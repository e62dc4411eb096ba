// What a cluster is to Ripple: a SveltosCluster or a Cluster API Cluster in the management cluster, with its
// readiness, pause state and kubeconfig Secret worked out exactly as Sveltos does. Pure functions only.
// Go: libsveltos lib/clusterproxy (clusterproxy.go GetSveltosSecretNameAndKey, getSecretData, isCAPIClusterReady,
// cluster_utils.go GetClusterType, IsClusterPaused)
import { Annotations, type ClusterType, type SveltosCluster } from '../api/index.js';
import type { KubeObject } from '../kube/index.js';

/** SVELTOS_CLUSTER is the GVK of SveltosCluster. */
export const SVELTOS_CLUSTER = { apiVersion: 'lib.projectsveltos.io/v1beta1', kind: 'SveltosCluster' } as const;
/** CAPI_GROUP is the Cluster API group; its Cluster kind is served as v1beta2 (current) or v1beta1 (older). */
export const CAPI_GROUP = 'cluster.x-k8s.io';
/** CAPI_CRD_NAME is the name of the Cluster API Cluster CRD. */
export const CAPI_CRD_NAME = 'clusters.cluster.x-k8s.io';
/** CLUSTER_SET is the GVK of ClusterSet (cluster-scoped). */
export const CLUSTER_SET = { apiVersion: 'lib.projectsveltos.io/v1beta1', kind: 'ClusterSet' } as const;
/** SET is the GVK of Set (namespaced). */
export const SET = { apiVersion: 'lib.projectsveltos.io/v1beta1', kind: 'Set' } as const;
/** K8S_VERSION_LABEL is the label the readiness probe sets to the cluster's Kubernetes version (vX.Y.Z). */
export const K8S_VERSION_LABEL = 'projectsveltos.io/k8s-version';
/** MANAGEMENT_CLUSTER is where Sveltos (and Ripple) register the management cluster itself as a target. */
export const MANAGEMENT_CLUSTER = { namespace: 'mgmt', name: 'mgmt' } as const;
/** SVELTOS_KUBECONFIG_KEY is the Secret key `sveltosctl register cluster` (and `ripple register cluster`) writes. */
export const SVELTOS_KUBECONFIG_KEY = 'kubeconfig';

/** ClusterRef identifies a cluster object. */
export interface ClusterRef {
  apiVersion: string;
  kind: string;
  namespace: string;
  name: string;
}

/** ClusterRefLike is any reference to a cluster (an ObjectReference from a Sveltos spec or status). */
export interface ClusterRefLike {
  apiVersion?: string;
  kind?: string;
  namespace?: string;
  name?: string;
}

/** ClusterEntry is one registered cluster as controllers see it. */
export interface ClusterEntry {
  ref: ClusterRef;
  type: ClusterType;
  labels: Readonly<Record<string, string>>;
  /** The SveltosCluster or CAPI Cluster object (shared with the informer cache: do not mutate). */
  object: KubeObject;
  /** Sveltos readiness: SveltosCluster status.ready; CAPI control plane initialized. Only ready clusters match. */
  ready: boolean;
  /** spec.paused: still selected, but nothing may be deployed to it. */
  paused: boolean;
  /** Being deleted (deletionTimestamp set): never matches. */
  deleting: boolean;
  /** SveltosCluster status.connectionStatus (`Healthy`, `Down`, or undefined for CAPI / not yet probed). */
  connectionStatus: 'Healthy' | 'Down' | undefined;
  /** A stable identity: `<type>:<namespace>/<name>`, e.g. `Sveltos:mgmt/mgmt`. */
  key: string;
}

/** clusterTypeOf maps a cluster's apiVersion to its ClusterType (undefined for anything else). Go: GetClusterType */
export function clusterTypeOf(apiVersion: string | undefined): ClusterType | undefined {
  const group = apiVersion?.includes('/') ? apiVersion.slice(0, apiVersion.indexOf('/')) : '';
  if (group === 'lib.projectsveltos.io') return 'Sveltos';
  if (group === CAPI_GROUP) return 'Capi';
  return undefined;
}

/** clusterKey is the identity of a cluster: `<type>:<namespace>/<name>`. */
export function clusterKey(type: ClusterType, namespace: string, name: string): string {
  return `${type}:${namespace}/${name}`;
}

/** refKey is the identity of a cluster reference (kind decides the type when apiVersion is missing). */
export function refKey(ref: ClusterRefLike): string | undefined {
  const type = clusterTypeOf(ref.apiVersion) ?? (ref.kind === 'SveltosCluster' ? 'Sveltos' : ref.kind === 'Cluster' ? 'Capi' : undefined);
  if (!type || !ref.name) return undefined;
  return clusterKey(type, ref.namespace ?? '', ref.name);
}

interface Condition {
  type?: string;
  status?: string;
}

/**
 * isCapiClusterReady: the ControlPlaneInitialized condition is True (v1beta1 and v1beta2 conditions), or
 * status.initialization.controlPlaneInitialized (v1beta2), or status.controlPlaneReady (v1beta1).
 * Go: clusterproxy.go isCAPIClusterReady
 */
export function isCapiClusterReady(obj: KubeObject): boolean {
  const status = (obj.status ?? {}) as {
    conditions?: Condition[];
    v1beta2?: { conditions?: Condition[] };
    initialization?: { controlPlaneInitialized?: boolean };
    controlPlaneReady?: boolean;
    deprecated?: { v1beta1?: { conditions?: Condition[] } };
  };
  const conds = [...(status.conditions ?? []), ...(status.v1beta2?.conditions ?? []), ...(status.deprecated?.v1beta1?.conditions ?? [])];
  if (conds.some((c) => c?.type === 'ControlPlaneInitialized' && c.status === 'True')) return true;
  if (status.initialization?.controlPlaneInitialized === true) return true;
  return status.controlPlaneReady === true;
}

/** toEntry builds the ClusterEntry of a SveltosCluster or CAPI Cluster object. */
export function toEntry(obj: KubeObject, type: ClusterType): ClusterEntry {
  const namespace = obj.metadata.namespace ?? '';
  const name = obj.metadata.name;
  const spec = (obj.spec ?? {}) as { paused?: boolean };
  const status = (obj.status ?? {}) as { ready?: boolean; connectionStatus?: 'Healthy' | 'Down' };
  return {
    ref: { apiVersion: obj.apiVersion, kind: obj.kind, namespace, name },
    type,
    labels: obj.metadata.labels ?? {},
    object: obj,
    ready: type === 'Sveltos' ? status.ready === true : isCapiClusterReady(obj),
    paused: spec.paused === true,
    deleting: Boolean(obj.metadata.deletionTimestamp),
    connectionStatus: type === 'Sveltos' ? status.connectionStatus : undefined,
    key: clusterKey(type, namespace, name),
  };
}

/**
 * matchesShard reports whether a cluster belongs to this controller's shard (annotation
 * `sharding.projectsveltos.io/key`): no shard key handles every cluster (one Ripple process); '' handles the
 * clusters without the annotation (Sveltos' default instance); any other value handles exactly that shard.
 */
export function matchesShard(obj: KubeObject, shardKey: string | undefined): boolean {
  if (shardKey === undefined) return true;
  const value = obj.metadata.annotations?.[Annotations.shardKey];
  return shardKey === '' ? value === undefined || value === '' : value === shardKey;
}

/** KubeconfigLocation says where a cluster's kubeconfig lives in the management cluster. */
export interface KubeconfigLocation {
  namespace: string;
  secretName: string;
  /** The data key; undefined: Sveltos' "any key" rule (see kubeconfigFromSecret). */
  key: string | undefined;
}

/**
 * kubeconfigLocation: SveltosCluster → spec.kubeconfigName or `<name>-sveltos-kubeconfig`, key
 * spec.kubeconfigKeyName; CAPI → `<name>-kubeconfig`, key `value`. Go: GetSveltosSecretNameAndKey, CAPI FromSecret
 */
export function kubeconfigLocation(entry: Pick<ClusterEntry, 'type' | 'object' | 'ref'>): KubeconfigLocation {
  if (entry.type === 'Capi') return { namespace: entry.ref.namespace, secretName: `${entry.ref.name}-kubeconfig`, key: 'value' };
  const spec = ((entry.object as SveltosCluster).spec ?? {}) as { kubeconfigName?: string; kubeconfigKeyName?: string };
  return {
    namespace: entry.ref.namespace,
    secretName: spec.kubeconfigName || `${entry.ref.name}-sveltos-kubeconfig`,
    key: spec.kubeconfigKeyName || undefined,
  };
}

/** KubeconfigResult is the kubeconfig text, or why the Secret does not hold one. */
export type KubeconfigResult = { ok: true; kubeconfig: string; key: string } | { ok: false; message: string };

/**
 * kubeconfigFromSecret extracts the kubeconfig from a Secret. With a key, that key must exist. Without one Sveltos
 * takes "the first key" of a Go map, which is random when there are several; Ripple makes it deterministic: the only
 * key, else `kubeconfig`, else `value`, else the first key in sorted order. Go: clusterproxy.go getSecretData
 */
export function kubeconfigFromSecret(secret: { data?: Record<string, string> } | undefined, loc: KubeconfigLocation): KubeconfigResult {
  const where = `${loc.namespace}/${loc.secretName}`;
  if (!secret) return { ok: false, message: `Failed to get secret ${where}: not found` };
  const data = secret.data ?? {};
  const keys = Object.keys(data);
  if (keys.length === 0) return { ok: false, message: `secret ${where}: data section is empty` };
  let key: string;
  if (loc.key !== undefined) {
    if (!(loc.key in data)) return { ok: false, message: `secret ${where}: data section does not contain key: ${loc.key}` };
    key = loc.key;
  } else if (keys.length === 1) key = keys[0];
  else if ('kubeconfig' in data) key = 'kubeconfig';
  else if ('value' in data) key = 'value';
  else key = [...keys].sort()[0];
  return { ok: true, kubeconfig: Buffer.from(data[key], 'base64').toString('utf8'), key };
}

/** k8sVersionLabel turns a gitVersion (`v1.32.0-ripple`) into the label value Sveltos sets (`v1.32.0`), if it parses. */
export function k8sVersionLabel(gitVersion: string): string | undefined {
  const m = /^v?(\d+)\.(\d+)\.(\d+)/.exec(gitVersion);
  return m ? `v${Number(m[1])}.${Number(m[2])}.${Number(m[3])}` : undefined;
}
