// fieldspec.ts: Kustomize's transformer configuration — which fields of which kinds each builtin transformer
// touches (the default field specs, extended by `configurations` and `crds`) — and the walk that finds those fields
// in an object. One line per field spec: `KIND GROUP VERSION PATH [+]` (`-` is any, `+` creates the field when
// missing); `= KIND GROUP VERSION` opens a name-reference target whose referrers follow.
// Go: kustomize api/internal/konfig/builtinpluginconsts (v5.5.0), api/filters/fieldspec/fieldspec.go.
import { KustomizeError } from './errors.js';
import { parseGroupVersion, type Gvk } from './resource.js';
import { isObject, type JSONObject, type JSONValue } from './yaml.js';

/** FieldSpec selects a field path in objects of a Gvk (empty parts match anything). */
export interface FieldSpec extends Gvk {
  path: string;
  create: boolean;
}

/** NameBackReference is a referral target kind and the fields that refer to it by name. */
export interface NameBackReference {
  gvk: Gvk;
  referrers: FieldSpec[];
}

/** TransformerConfig is Kustomize's builtinconfig.TransformerConfig. */
export interface TransformerConfig {
  namePrefix: FieldSpec[];
  nameSuffix: FieldSpec[];
  commonLabels: FieldSpec[];
  templateLabels: FieldSpec[];
  commonAnnotations: FieldSpec[];
  namespace: FieldSpec[];
  varReference: FieldSpec[];
  images: FieldSpec[];
  replicas: FieldSpec[];
  nameReference: NameBackReference[];
}

const DEFAULTS = {
  namePrefix: String.raw`
- - - metadata/name`,
  nameSuffix: String.raw`
- - - metadata/name`,
  commonLabels: String.raw`
Service - v1 spec/selector +
ReplicationController - v1 spec/selector +
Deployment - - spec/selector/matchLabels +
Deployment apps - spec/template/spec/affinity/podAffinity/preferredDuringSchedulingIgnoredDuringExecution/podAffinityTerm/labelSelector/matchLabels
Deployment apps - spec/template/spec/affinity/podAffinity/requiredDuringSchedulingIgnoredDuringExecution/labelSelector/matchLabels
Deployment apps - spec/template/spec/affinity/podAntiAffinity/preferredDuringSchedulingIgnoredDuringExecution/podAffinityTerm/labelSelector/matchLabels
Deployment apps - spec/template/spec/affinity/podAntiAffinity/requiredDuringSchedulingIgnoredDuringExecution/labelSelector/matchLabels
Deployment apps - spec/template/spec/topologySpreadConstraints/labelSelector/matchLabels
ReplicaSet - - spec/selector/matchLabels +
DaemonSet - - spec/selector/matchLabels +
StatefulSet apps - spec/selector/matchLabels +
StatefulSet apps - spec/template/spec/affinity/podAffinity/preferredDuringSchedulingIgnoredDuringExecution/podAffinityTerm/labelSelector/matchLabels
StatefulSet apps - spec/template/spec/affinity/podAffinity/requiredDuringSchedulingIgnoredDuringExecution/labelSelector/matchLabels
StatefulSet apps - spec/template/spec/affinity/podAntiAffinity/preferredDuringSchedulingIgnoredDuringExecution/podAffinityTerm/labelSelector/matchLabels
StatefulSet apps - spec/template/spec/affinity/podAntiAffinity/requiredDuringSchedulingIgnoredDuringExecution/labelSelector/matchLabels
StatefulSet apps - spec/template/spec/topologySpreadConstraints/labelSelector/matchLabels
Job batch - spec/selector/matchLabels
CronJob batch - spec/jobTemplate/spec/selector/matchLabels
PodDisruptionBudget policy - spec/selector/matchLabels
NetworkPolicy networking.k8s.io - spec/podSelector/matchLabels
NetworkPolicy networking.k8s.io - spec/ingress/from/podSelector/matchLabels
NetworkPolicy networking.k8s.io - spec/egress/to/podSelector/matchLabels
- - - metadata/labels +
ReplicationController - v1 spec/template/metadata/labels +
Deployment - - spec/template/metadata/labels +
ReplicaSet - - spec/template/metadata/labels +
DaemonSet - - spec/template/metadata/labels +
StatefulSet apps - spec/template/metadata/labels +
StatefulSet apps - spec/volumeClaimTemplates[]/metadata/labels +
Job batch - spec/template/metadata/labels +
CronJob batch - spec/jobTemplate/metadata/labels +
CronJob batch - spec/jobTemplate/spec/template/metadata/labels +`,
  templateLabels: String.raw`
- - - metadata/labels +
ReplicationController - v1 spec/template/metadata/labels +
Deployment - - spec/template/metadata/labels +
ReplicaSet - - spec/template/metadata/labels +
DaemonSet - - spec/template/metadata/labels +
StatefulSet apps - spec/template/metadata/labels +
StatefulSet apps - spec/volumeClaimTemplates[]/metadata/labels +
Job batch - spec/template/metadata/labels +
CronJob batch - spec/jobTemplate/metadata/labels +
CronJob batch - spec/jobTemplate/spec/template/metadata/labels +`,
  commonAnnotations: String.raw`
- - - metadata/annotations +
ReplicationController - v1 spec/template/metadata/annotations +
Deployment - - spec/template/metadata/annotations +
ReplicaSet - - spec/template/metadata/annotations +
DaemonSet - - spec/template/metadata/annotations +
StatefulSet - - spec/template/metadata/annotations +
Job batch - spec/template/metadata/annotations +
CronJob batch - spec/jobTemplate/metadata/annotations +
CronJob batch - spec/jobTemplate/spec/template/metadata/annotations +`,
  namespace: String.raw`
Namespace - - metadata/name +
APIService apiregistration.k8s.io - spec/service/namespace +
CustomResourceDefinition apiextensions.k8s.io - spec/conversion/webhook/clientConfig/service/namespace`,
  varReference: String.raw`
CronJob - - spec/jobTemplate/spec/template/spec/containers/args
CronJob - - spec/jobTemplate/spec/template/spec/containers/command
CronJob - - spec/jobTemplate/spec/template/spec/containers/env/value
CronJob - - spec/jobTemplate/spec/template/spec/containers/volumeMounts/mountPath
CronJob - - spec/jobTemplate/spec/template/spec/initContainers/args
CronJob - - spec/jobTemplate/spec/template/spec/initContainers/command
CronJob - - spec/jobTemplate/spec/template/spec/initContainers/env/value
CronJob - - spec/jobTemplate/spec/template/spec/initContainers/volumeMounts/mountPath
CronJob - - spec/jobTemplate/spec/template/volumes/nfs/server
DaemonSet - - spec/template/spec/containers/args
DaemonSet - - spec/template/spec/containers/command
DaemonSet - - spec/template/spec/containers/env/value
DaemonSet - - spec/template/spec/containers/volumeMounts/mountPath
DaemonSet - - spec/template/spec/initContainers/args
DaemonSet - - spec/template/spec/initContainers/command
DaemonSet - - spec/template/spec/initContainers/env/value
DaemonSet - - spec/template/spec/initContainers/volumeMounts/mountPath
DaemonSet - - spec/template/spec/volumes/nfs/server
Deployment - - spec/template/spec/containers/args
Deployment - - spec/template/spec/containers/command
Deployment - - spec/template/spec/containers/env/value
Deployment - - spec/template/spec/containers/volumeMounts/mountPath
Deployment - - spec/template/spec/initContainers/args
Deployment - - spec/template/spec/initContainers/command
Deployment - - spec/template/spec/initContainers/env/value
Deployment - - spec/template/spec/initContainers/volumeMounts/mountPath
Deployment - - spec/template/spec/volumes/nfs/server
Deployment - - spec/template/metadata/annotations
Ingress - - spec/rules/host
Ingress - - spec/tls/hosts
Ingress - - spec/tls/secretName
Job - - spec/template/spec/containers/args
Job - - spec/template/spec/containers/command
Job - - spec/template/spec/containers/env/value
Job - - spec/template/spec/containers/volumeMounts/mountPath
Job - - spec/template/spec/initContainers/args
Job - - spec/template/spec/initContainers/command
Job - - spec/template/spec/initContainers/env/value
Job - - spec/template/spec/initContainers/volumeMounts/mountPath
Job - - spec/template/spec/volumes/nfs/server
Pod - - spec/containers/args
Pod - - spec/containers/command
Pod - - spec/containers/env/value
Pod - - spec/containers/volumeMounts/mountPath
Pod - - spec/initContainers/args
Pod - - spec/initContainers/command
Pod - - spec/initContainers/env/value
Pod - - spec/initContainers/volumeMounts/mountPath
Pod - - spec/volumes/nfs/server
ReplicaSet - - spec/template/spec/containers/args
ReplicaSet - - spec/template/spec/containers/command
ReplicaSet - - spec/template/spec/containers/env/value
ReplicaSet - - spec/template/spec/containers/volumeMounts/mountPath
ReplicaSet - - spec/template/spec/initContainers/args
ReplicaSet - - spec/template/spec/initContainers/command
ReplicaSet - - spec/template/spec/initContainers/env/value
ReplicaSet - - spec/template/spec/initContainers/volumeMounts/mountPath
ReplicaSet - - spec/template/spec/volumes/nfs/server
Service - - spec/ports/port
Service - - spec/ports/targetPort
StatefulSet - - spec/template/spec/containers/args
StatefulSet - - spec/template/spec/containers/command
StatefulSet - - spec/template/spec/containers/env/value
StatefulSet - - spec/template/spec/containers/volumeMounts/mountPath
StatefulSet - - spec/template/spec/initContainers/args
StatefulSet - - spec/template/spec/initContainers/command
StatefulSet - - spec/template/spec/initContainers/env/value
StatefulSet - - spec/template/spec/initContainers/volumeMounts/mountPath
StatefulSet - - spec/volumeClaimTemplates/spec/nfs/server
PersistentVolume - - spec/nfs/server
- - - metadata/labels
- - - metadata/annotations`,
  images: String.raw`
- - - spec/containers[]/image +
- - - spec/initContainers[]/image +
- - - spec/template/spec/containers[]/image +
- - - spec/template/spec/initContainers[]/image +`,
  replicas: String.raw`
Deployment - - spec/replicas +
ReplicationController - - spec/replicas +
ReplicaSet - - spec/replicas +
StatefulSet - - spec/replicas +`,
  nameReference: String.raw`
= Deployment - -
HorizontalPodAutoscaler - - spec/scaleTargetRef/name
= ReplicationController - -
HorizontalPodAutoscaler - - spec/scaleTargetRef/name
= ReplicaSet - -
HorizontalPodAutoscaler - - spec/scaleTargetRef/name
= StatefulSet - -
HorizontalPodAutoscaler - - spec/scaleTargetRef/name
= ConfigMap - v1
Pod - v1 spec/volumes/configMap/name
Pod - v1 spec/containers/env/valueFrom/configMapKeyRef/name
Pod - v1 spec/initContainers/env/valueFrom/configMapKeyRef/name
Pod - v1 spec/containers/envFrom/configMapRef/name
Pod - v1 spec/initContainers/envFrom/configMapRef/name
Pod - v1 spec/volumes/projected/sources/configMap/name
PodTemplate - - template/spec/volumes/configMap/name
PodTemplate - - template/spec/containers/env/valueFrom/configMapKeyRef/name
PodTemplate - - template/spec/initContainers/env/valueFrom/configMapKeyRef/name
PodTemplate - - template/spec/containers/envFrom/configMapRef/name
PodTemplate - - template/spec/initContainers/envFrom/configMapRef/name
PodTemplate - - template/spec/volumes/projected/sources/configMap/name
Deployment - - spec/template/spec/volumes/configMap/name
Deployment - - spec/template/spec/containers/env/valueFrom/configMapKeyRef/name
Deployment - - spec/template/spec/initContainers/env/valueFrom/configMapKeyRef/name
Deployment - - spec/template/spec/containers/envFrom/configMapRef/name
Deployment - - spec/template/spec/initContainers/envFrom/configMapRef/name
Deployment - - spec/template/spec/volumes/projected/sources/configMap/name
ReplicaSet - - spec/template/spec/volumes/configMap/name
ReplicaSet - - spec/template/spec/containers/env/valueFrom/configMapKeyRef/name
ReplicaSet - - spec/template/spec/initContainers/env/valueFrom/configMapKeyRef/name
ReplicaSet - - spec/template/spec/containers/envFrom/configMapRef/name
ReplicaSet - - spec/template/spec/initContainers/envFrom/configMapRef/name
ReplicaSet - - spec/template/spec/volumes/projected/sources/configMap/name
DaemonSet - - spec/template/spec/volumes/configMap/name
DaemonSet - - spec/template/spec/containers/env/valueFrom/configMapKeyRef/name
DaemonSet - - spec/template/spec/initContainers/env/valueFrom/configMapKeyRef/name
DaemonSet - - spec/template/spec/containers/envFrom/configMapRef/name
DaemonSet - - spec/template/spec/initContainers/envFrom/configMapRef/name
DaemonSet - - spec/template/spec/volumes/projected/sources/configMap/name
StatefulSet - - spec/template/spec/volumes/configMap/name
StatefulSet - - spec/template/spec/containers/env/valueFrom/configMapKeyRef/name
StatefulSet - - spec/template/spec/initContainers/env/valueFrom/configMapKeyRef/name
StatefulSet - - spec/template/spec/containers/envFrom/configMapRef/name
StatefulSet - - spec/template/spec/initContainers/envFrom/configMapRef/name
StatefulSet - - spec/template/spec/volumes/projected/sources/configMap/name
Job - - spec/template/spec/volumes/configMap/name
Job - - spec/template/spec/containers/env/valueFrom/configMapKeyRef/name
Job - - spec/template/spec/initContainers/env/valueFrom/configMapKeyRef/name
Job - - spec/template/spec/containers/envFrom/configMapRef/name
Job - - spec/template/spec/initContainers/envFrom/configMapRef/name
Job - - spec/template/spec/volumes/projected/sources/configMap/name
CronJob - - spec/jobTemplate/spec/template/spec/volumes/configMap/name
CronJob - - spec/jobTemplate/spec/template/spec/volumes/projected/sources/configMap/name
CronJob - - spec/jobTemplate/spec/template/spec/containers/env/valueFrom/configMapKeyRef/name
CronJob - - spec/jobTemplate/spec/template/spec/initContainers/env/valueFrom/configMapKeyRef/name
CronJob - - spec/jobTemplate/spec/template/spec/containers/envFrom/configMapRef/name
CronJob - - spec/jobTemplate/spec/template/spec/initContainers/envFrom/configMapRef/name
Node - - spec/configSource/configMap
Role - - rules/resourceNames
ClusterRole - - rules/resourceNames
Ingress - - metadata/annotations/nginx.ingress.kubernetes.io\/fastcgi-params-configmap
= Secret - v1
Pod - v1 spec/volumes/secret/secretName
Pod - v1 spec/containers/env/valueFrom/secretKeyRef/name
Pod - v1 spec/initContainers/env/valueFrom/secretKeyRef/name
Pod - v1 spec/containers/envFrom/secretRef/name
Pod - v1 spec/initContainers/envFrom/secretRef/name
Pod - v1 spec/imagePullSecrets/name
Pod - v1 spec/volumes/projected/sources/secret/name
PodTemplate - - template/spec/volumes/secret/secretName
PodTemplate - - template/spec/containers/env/valueFrom/secretKeyRef/name
PodTemplate - - template/spec/initContainers/env/valueFrom/secretKeyRef/name
PodTemplate - - template/spec/containers/envFrom/secretRef/name
PodTemplate - - template/spec/initContainers/envFrom/secretRef/name
PodTemplate - - template/spec/imagePullSecrets/name
PodTemplate - - template/spec/volumes/projected/sources/secret/name
Deployment - - spec/template/spec/volumes/secret/secretName
Deployment - - spec/template/spec/containers/env/valueFrom/secretKeyRef/name
Deployment - - spec/template/spec/initContainers/env/valueFrom/secretKeyRef/name
Deployment - - spec/template/spec/containers/envFrom/secretRef/name
Deployment - - spec/template/spec/initContainers/envFrom/secretRef/name
Deployment - - spec/template/spec/imagePullSecrets/name
Deployment - - spec/template/spec/volumes/projected/sources/secret/name
ReplicaSet - - spec/template/spec/volumes/secret/secretName
ReplicaSet - - spec/template/spec/containers/env/valueFrom/secretKeyRef/name
ReplicaSet - - spec/template/spec/initContainers/env/valueFrom/secretKeyRef/name
ReplicaSet - - spec/template/spec/containers/envFrom/secretRef/name
ReplicaSet - - spec/template/spec/initContainers/envFrom/secretRef/name
ReplicaSet - - spec/template/spec/imagePullSecrets/name
ReplicaSet - - spec/template/spec/volumes/projected/sources/secret/name
DaemonSet - - spec/template/spec/volumes/secret/secretName
DaemonSet - - spec/template/spec/containers/env/valueFrom/secretKeyRef/name
DaemonSet - - spec/template/spec/initContainers/env/valueFrom/secretKeyRef/name
DaemonSet - - spec/template/spec/containers/envFrom/secretRef/name
DaemonSet - - spec/template/spec/initContainers/envFrom/secretRef/name
DaemonSet - - spec/template/spec/imagePullSecrets/name
DaemonSet - - spec/template/spec/volumes/projected/sources/secret/name
StatefulSet - - spec/template/spec/volumes/secret/secretName
StatefulSet - - spec/template/spec/containers/env/valueFrom/secretKeyRef/name
StatefulSet - - spec/template/spec/initContainers/env/valueFrom/secretKeyRef/name
StatefulSet - - spec/template/spec/containers/envFrom/secretRef/name
StatefulSet - - spec/template/spec/initContainers/envFrom/secretRef/name
StatefulSet - - spec/template/spec/imagePullSecrets/name
StatefulSet - - spec/template/spec/volumes/projected/sources/secret/name
Job - - spec/template/spec/volumes/secret/secretName
Job - - spec/template/spec/containers/env/valueFrom/secretKeyRef/name
Job - - spec/template/spec/initContainers/env/valueFrom/secretKeyRef/name
Job - - spec/template/spec/containers/envFrom/secretRef/name
Job - - spec/template/spec/initContainers/envFrom/secretRef/name
Job - - spec/template/spec/imagePullSecrets/name
Job - - spec/template/spec/volumes/projected/sources/secret/name
CronJob - - spec/jobTemplate/spec/template/spec/volumes/secret/secretName
CronJob - - spec/jobTemplate/spec/template/spec/volumes/projected/sources/secret/name
CronJob - - spec/jobTemplate/spec/template/spec/containers/env/valueFrom/secretKeyRef/name
CronJob - - spec/jobTemplate/spec/template/spec/initContainers/env/valueFrom/secretKeyRef/name
CronJob - - spec/jobTemplate/spec/template/spec/containers/envFrom/secretRef/name
CronJob - - spec/jobTemplate/spec/template/spec/initContainers/envFrom/secretRef/name
CronJob - - spec/jobTemplate/spec/template/spec/imagePullSecrets/name
Ingress - - spec/tls/secretName
Ingress - - metadata/annotations/ingress.kubernetes.io\/auth-secret
Ingress - - metadata/annotations/nginx.ingress.kubernetes.io\/auth-secret
Ingress - - metadata/annotations/nginx.ingress.kubernetes.io\/auth-tls-secret
Ingress - - spec/tls/secretName
ServiceAccount - - imagePullSecrets/name
StorageClass - - parameters/secretName
StorageClass - - parameters/adminSecretName
StorageClass - - parameters/userSecretName
StorageClass - - parameters/secretRef
Role - - rules/resourceNames
ClusterRole - - rules/resourceNames
Service serving.knative.dev v1 spec/template/spec/containers/env/valueFrom/secretKeyRef/name
PersistentVolume - - spec/azureFile/secretName
= Service - v1
StatefulSet apps - spec/serviceName
Ingress - - spec/rules/http/paths/backend/serviceName
Ingress - - spec/backend/serviceName
Ingress - - spec/rules/http/paths/backend/service/name
Ingress - - spec/defaultBackend/service/name
APIService apiregistration.k8s.io - spec/service/name
ValidatingWebhookConfiguration admissionregistration.k8s.io - webhooks/clientConfig/service
MutatingWebhookConfiguration admissionregistration.k8s.io - webhooks/clientConfig/service
= Role rbac.authorization.k8s.io -
RoleBinding rbac.authorization.k8s.io - roleRef/name
= ClusterRole rbac.authorization.k8s.io -
RoleBinding rbac.authorization.k8s.io - roleRef/name
ClusterRoleBinding rbac.authorization.k8s.io - roleRef/name
= ServiceAccount - v1
RoleBinding rbac.authorization.k8s.io - subjects
ClusterRoleBinding rbac.authorization.k8s.io - subjects
Pod - - spec/serviceAccountName
StatefulSet - - spec/template/spec/serviceAccountName
Deployment - - spec/template/spec/serviceAccountName
ReplicationController - - spec/template/spec/serviceAccountName
CronJob - - spec/jobTemplate/spec/template/spec/serviceAccountName
Job - - spec/template/spec/serviceAccountName
DaemonSet - - spec/template/spec/serviceAccountName
= PersistentVolumeClaim - v1
Pod - - spec/volumes/persistentVolumeClaim/claimName
StatefulSet - - spec/template/spec/volumes/persistentVolumeClaim/claimName
Deployment - - spec/template/spec/volumes/persistentVolumeClaim/claimName
ReplicationController - - spec/template/spec/volumes/persistentVolumeClaim/claimName
CronJob - - spec/jobTemplate/spec/template/spec/volumes/persistentVolumeClaim/claimName
Job - - spec/template/spec/volumes/persistentVolumeClaim/claimName
DaemonSet - - spec/template/spec/volumes/persistentVolumeClaim/claimName
= PersistentVolume - v1
PersistentVolumeClaim - - spec/volumeName
ClusterRole - - rules/resourceNames
= StorageClass storage.k8s.io v1
PersistentVolume - - spec/storageClassName
PersistentVolumeClaim - - spec/storageClassName
StatefulSet - - spec/volumeClaimTemplates/spec/storageClassName
= PriorityClass scheduling.k8s.io v1
Pod - - spec/priorityClassName
StatefulSet - - spec/template/spec/priorityClassName
Deployment - - spec/template/spec/priorityClassName
ReplicationController - - spec/template/spec/priorityClassName
CronJob - - spec/jobTemplate/spec/template/spec/priorityClassName
Job - - spec/template/spec/priorityClassName
DaemonSet - - spec/template/spec/priorityClassName
= IngressClass networking.k8s.io/v1 v1
Ingress - - spec/ingressClassName
= ValidatingAdmissionPolicy admissionregistration.k8s.io -
ValidatingAdmissionPolicyBinding admissionregistration.k8s.io - spec/policyName`,
};

const any = (s: string) => (s === '-' ? '' : s);

function parseSpecLine(line: string): FieldSpec {
  const [kind, group, version, path, plus] = line.trim().split(/\s+/);
  return { kind: any(kind), group: any(group), version: any(version), path, create: plus === '+' };
}

function parseSpecs(text: string): FieldSpec[] {
  return text
    .split('\n')
    .filter((l) => l.trim() !== '')
    .map(parseSpecLine);
}

function parseNameRefs(text: string): NameBackReference[] {
  const out: NameBackReference[] = [];
  for (const l of text.split('\n')) {
    if (l.trim() === '') continue;
    if (l.startsWith('= ')) {
      const [, kind, group, version] = l.split(/\s+/);
      out.push({ gvk: { kind: any(kind), group: any(group), version: any(version) }, referrers: [] });
    } else out[out.length - 1].referrers.push(parseSpecLine(l));
  }
  return out;
}

// Go: resid.Gvk.IsLessThan — the legacy kind order first, then group_version_kind with ~G/~V/~K for empty parts.
const ORDER_FIRST = [
  'Namespace', 'ResourceQuota', 'StorageClass', 'CustomResourceDefinition', 'ServiceAccount', 'PodSecurityPolicy', 'Role',
  'ClusterRole', 'RoleBinding', 'ClusterRoleBinding', 'ConfigMap', 'Secret', 'Endpoints', 'Service', 'LimitRange',
  'PriorityClass', 'PersistentVolume', 'PersistentVolumeClaim', 'Deployment', 'StatefulSet', 'CronJob', 'PodDisruptionBudget',
];
const ORDER_LAST = ['MutatingWebhookConfiguration', 'ValidatingWebhookConfiguration'];
const typeOrder = (k: string) => {
  const i = ORDER_FIRST.indexOf(k);
  if (i >= 0) return -ORDER_FIRST.length + i;
  const j = ORDER_LAST.indexOf(k);
  return j >= 0 ? 1 + j : 0;
};
const stableGvk = (g: Gvk) => `${g.group || '~G'}_${g.version || '~V'}_${g.kind || '~K'}`;

/** compareGvk orders Gvks as resid.Gvk.IsLessThan does. */
export function compareGvk(a: Gvk, b: Gvk): number {
  const i = typeOrder(a.kind);
  const j = typeOrder(b.kind);
  if (i !== j) return i - j;
  const x = stableGvk(a);
  const y = stableGvk(b);
  return x < y ? -1 : x > y ? 1 : 0;
}

function sorted(c: TransformerConfig): TransformerConfig {
  const out = { ...c };
  for (const k of ['namePrefix', 'nameSuffix', 'commonLabels', 'templateLabels', 'commonAnnotations', 'namespace', 'varReference', 'images', 'replicas'] as const) {
    out[k] = [...c[k]].sort(compareGvk);
  }
  out.nameReference = [...c.nameReference].sort((a, b) => compareGvk(a.gvk, b.gvk));
  return out;
}

/** defaultTransformerConfig is a fresh copy of Kustomize's default field specs (sorted, as MakeDefaultConfig does). */
export function defaultTransformerConfig(): TransformerConfig {
  return sorted({
    namePrefix: parseSpecs(DEFAULTS.namePrefix),
    nameSuffix: parseSpecs(DEFAULTS.nameSuffix),
    commonLabels: parseSpecs(DEFAULTS.commonLabels),
    templateLabels: parseSpecs(DEFAULTS.templateLabels),
    commonAnnotations: parseSpecs(DEFAULTS.commonAnnotations),
    namespace: parseSpecs(DEFAULTS.namespace),
    varReference: parseSpecs(DEFAULTS.varReference),
    images: parseSpecs(DEFAULTS.images),
    replicas: parseSpecs(DEFAULTS.replicas),
    nameReference: parseNameRefs(DEFAULTS.nameReference),
  });
}

const fsKey = (f: FieldSpec) => `${f.group}|${f.version}|${f.kind}|${f.path}`;

/** mergeFieldSpecs is FsSlice.MergeAll: specs already present (same gvk and path) are kept once; a conflicting create flag is an error. */
export function mergeFieldSpecs(a: FieldSpec[], b: FieldSpec[]): FieldSpec[] {
  const out = [...a];
  for (const f of b) {
    const i = out.findIndex((x) => fsKey(x) === fsKey(f));
    if (i < 0) out.push(f);
    else if (out[i].create !== f.create) {
      throw new KustomizeError('Invalid', `conflicting fieldspecs`);
    }
  }
  return out;
}

/** mergeTransformerConfig merges b into a (builtinconfig.TransformerConfig.Merge). */
export function mergeTransformerConfig(a: TransformerConfig, b: Partial<TransformerConfig>): TransformerConfig {
  const out = { ...a };
  for (const k of ['namePrefix', 'nameSuffix', 'commonLabels', 'templateLabels', 'commonAnnotations', 'namespace', 'varReference', 'images', 'replicas'] as const) {
    if (b[k]) out[k] = mergeFieldSpecs(a[k], b[k]);
  }
  if (b.nameReference) {
    const refs = a.nameReference.map((r) => ({ gvk: r.gvk, referrers: [...r.referrers] }));
    for (const nb of b.nameReference) {
      const i = refs.findIndex((r) => r.gvk.group === nb.gvk.group && r.gvk.version === nb.gvk.version && r.gvk.kind === nb.gvk.kind);
      if (i < 0) refs.push(nb);
      else refs[i].referrers = mergeFieldSpecs(refs[i].referrers, nb.referrers);
    }
    out.nameReference = refs;
  }
  return sorted(out);
}

/** fieldSpecFromJSON reads a field spec as written in a `configurations` file. */
export function fieldSpecFromJSON(v: unknown): FieldSpec {
  const o = isObject(v) ? v : {};
  const s = (x: JSONValue | undefined) => (typeof x === 'string' ? x : '');
  return { group: s(o.group), version: s(o.version), kind: s(o.kind), path: s(o.path), create: o.create === true };
}

/** splitPath is kyaml utils.PathSplitter: split on '/', where '\/' is a literal slash. */
export function splitPath(path: string): string[] {
  const out: string[] = [];
  let cur = '';
  for (let i = 0; i < path.length; i++) {
    if (path[i] === '\\' && path[i + 1] === '/') {
      cur += '/';
      i++;
    } else if (path[i] === '/') {
      out.push(cur);
      cur = '';
    } else cur += path[i];
  }
  out.push(cur);
  return out;
}

/** fieldSpecMatches is fieldspec.isMatchGVK on an object. */
export function fieldSpecMatches(fs: Gvk, obj: JSONObject): boolean {
  const kind = typeof obj.kind === 'string' ? obj.kind : '';
  if (fs.kind && fs.kind !== kind) return false;
  const gv = parseGroupVersion(typeof obj.apiVersion === 'string' ? obj.apiVersion : '');
  if (fs.group && fs.group !== gv.group) return false;
  if (fs.version && fs.version !== gv.version) return false;
  return true;
}

/** NO_CHANGE tells walkFieldSpec that a setter left the value alone. */
export const NO_CHANGE = Symbol('no-change');
/** Setter receives the value at a field spec's path and returns its replacement (or NO_CHANGE). */
export type Setter = (v: JSONValue) => JSONValue | typeof NO_CHANGE;

/**
 * applyFieldSpec walks obj along fs.path (sequences visit every element; `name[]` must be a sequence) and calls set
 * on the value found, creating missing fields when fs.create and createKind say so. Go: fieldspec.Filter.
 */
export function applyFieldSpec(obj: JSONObject, fs: FieldSpec, set: Setter, createKind?: 'map' | 'scalar'): void {
  if (!fieldSpecMatches(fs, obj)) return;
  walk(obj, splitPath(fs.path), fs.create, set, createKind);
}

function walk(node: JSONValue, path: string[], create: boolean, set: Setter, createKind: 'map' | 'scalar' | undefined): JSONValue | typeof NO_CHANGE {
  if (path.length === 0) return set(node);
  if (node === null || node === undefined) return NO_CHANGE;
  if (Array.isArray(node)) {
    for (let i = 0; i < node.length; i++) {
      const r = walk(node[i], path, create, set, createKind);
      if (r !== NO_CHANGE) node[i] = r;
    }
    return NO_CHANGE;
  }
  if (!isObject(node)) throw new KustomizeError('Invalid', 'expected sequence or mapping node');
  const seq = path[0].endsWith('[]');
  const name = seq ? path[0].slice(0, -2) : path[0];
  if (name === '') throw new KustomizeError('Invalid', 'cannot set or create an empty field name');
  let field = node[name];
  const creating = create && createKind !== undefined && !seq;
  if (field === undefined) {
    if (!creating) return NO_CHANGE;
    field = path.length <= 1 ? (createKind === 'map' ? {} : '') : {};
    node[name] = field;
  } else if (field === null && creating) {
    field = path.length <= 1 && createKind === 'scalar' ? '' : {};
    node[name] = field;
  }
  const r = walk(field, path.slice(1), create, set, createKind);
  if (r !== NO_CHANGE) node[name] = r;
  return NO_CHANGE;
}
