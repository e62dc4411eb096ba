// builtin-overlay: what client-node's model metadata does not carry about the built-in kinds, written from the Go
// struct tags of k8s.io/api 1.32 (+patchMergeKey, +patchStrategy, +listType, +listMapKey, +mapType, +structType,
// +enum, +default): SMP/SSA list semantics, atomic maps and structs, enums, quantities, key defaults, and where each
// model class lives (its OpenAPI definition name).

/** FieldOverlay adds OpenAPI extensions and constraints to one field of one model class. */
export interface FieldOverlay {
  /** x-kubernetes-patch-merge-key */
  mergeKey?: string;
  /** x-kubernetes-patch-strategy: merge | retainKeys | merge,retainKeys | replace */
  strategy?: string;
  /** x-kubernetes-list-type (lists default to atomic) */
  listType?: 'atomic' | 'set' | 'map';
  /** x-kubernetes-list-map-keys */
  keys?: string[];
  /** x-kubernetes-map-type for map-valued fields (maps default to granular) */
  mapType?: 'atomic' | 'granular';
  /** enum of the field (or of the list items / map values) */
  enum?: string[];
  /** the string (or map of strings) holds resource.Quantity values */
  quantity?: boolean;
  default?: unknown;
}

const mapBy = (key: string, strategy = 'merge'): FieldOverlay => ({ mergeKey: key, strategy, listType: 'map', keys: [key] });
const PROTOCOLS = ['SCTP', 'TCP', 'UDP'];

/** FIELD_OVERLAY is keyed by "ModelClass.jsonName". */
export const FIELD_OVERLAY: Record<string, FieldOverlay> = {
  // meta/v1
  'V1ObjectMeta.finalizers': { strategy: 'merge', listType: 'set' },
  'V1ObjectMeta.ownerReferences': mapBy('uid'),
  // core/v1 Pod
  'V1PodSpec.volumes': mapBy('name', 'merge,retainKeys'),
  'V1PodSpec.initContainers': mapBy('name'),
  'V1PodSpec.containers': mapBy('name'),
  'V1PodSpec.ephemeralContainers': mapBy('name'),
  'V1PodSpec.imagePullSecrets': mapBy('name'),
  'V1PodSpec.hostAliases': mapBy('ip'),
  'V1PodSpec.topologySpreadConstraints': { mergeKey: 'topologyKey', strategy: 'merge', listType: 'map', keys: ['topologyKey', 'whenUnsatisfiable'] },
  'V1PodSpec.schedulingGates': mapBy('name'),
  'V1PodSpec.resourceClaims': mapBy('name', 'merge,retainKeys'),
  'V1PodSpec.nodeSelector': { mapType: 'atomic' },
  'V1PodSpec.overhead': { quantity: true },
  'V1PodSpec.restartPolicy': { enum: ['Always', 'Never', 'OnFailure'] },
  'V1PodSpec.dnsPolicy': { enum: ['ClusterFirst', 'ClusterFirstWithHostNet', 'Default', 'None'] },
  'V1PodSpec.preemptionPolicy': { enum: ['Never', 'PreemptLowerPriority'] },
  'V1PodStatus.conditions': mapBy('type'),
  'V1PodStatus.podIPs': mapBy('ip'),
  'V1PodStatus.hostIPs': { mergeKey: 'ip', strategy: 'merge', listType: 'atomic' },
  'V1PodStatus.resourceClaimStatuses': mapBy('name', 'merge,retainKeys'),
  'V1PodStatus.phase': { enum: ['Failed', 'Pending', 'Running', 'Succeeded', 'Unknown'] },
  'V1ContainerStatus.volumeMounts': mapBy('mountPath'),
  'V1ContainerStatus.allocatedResources': { quantity: true },
  'V1ContainerStatus.allocatedResourcesStatus': mapBy('name'),
  'V1ResourceStatus.resources': { listType: 'map', keys: ['resourceID'] },
  'V1ResourceRequirements.limits': { quantity: true },
  'V1ResourceRequirements.requests': { quantity: true },
  'V1ResourceRequirements.claims': { listType: 'map', keys: ['name'] },
  'V1VolumeResourceRequirements.limits': { quantity: true },
  'V1VolumeResourceRequirements.requests': { quantity: true },
  'V1EmptyDirVolumeSource.sizeLimit': { quantity: true },
  'V1ResourceFieldSelector.divisor': { quantity: true },
  'V1Toleration.operator': { enum: ['Equal', 'Exists'] },
  'V1Toleration.effect': { enum: ['NoExecute', 'NoSchedule', 'PreferNoSchedule'] },
  'V1NodeSelectorRequirement.operator': { enum: ['DoesNotExist', 'Exists', 'Gt', 'In', 'Lt', 'NotIn'] },
  'V1TopologySpreadConstraint.whenUnsatisfiable': { enum: ['DoNotSchedule', 'ScheduleAnyway'] },
  'V1HTTPGetAction.scheme': { enum: ['HTTP', 'HTTPS'] },
  'V1ContainerPort.protocol': { enum: PROTOCOLS, default: 'TCP' },
  // core/v1 containers (Container and EphemeralContainer share EphemeralContainerCommon's tags)
  ...Object.fromEntries(
    ['V1Container', 'V1EphemeralContainer'].flatMap((c) => [
      [`${c}.ports`, { mergeKey: 'containerPort', strategy: 'merge', listType: 'map', keys: ['containerPort', 'protocol'] }],
      [`${c}.env`, mapBy('name')],
      [`${c}.volumeMounts`, mapBy('mountPath')],
      [`${c}.volumeDevices`, mapBy('devicePath')],
      [`${c}.imagePullPolicy`, { enum: ['Always', 'IfNotPresent', 'Never'] }],
      [`${c}.terminationMessagePolicy`, { enum: ['FallbackToLogsOnError', 'File'] }],
    ]),
  ),
  // core/v1 Service
  'V1ServiceSpec.ports': { mergeKey: 'port', strategy: 'merge', listType: 'map', keys: ['port', 'protocol'] },
  'V1ServiceSpec.selector': { mapType: 'atomic' },
  'V1ServiceSpec.type': { enum: ['ClusterIP', 'ExternalName', 'LoadBalancer', 'NodePort'] },
  'V1ServiceSpec.sessionAffinity': { enum: ['ClientIP', 'None'] },
  'V1ServiceSpec.externalTrafficPolicy': { enum: ['Cluster', 'Local'] },
  'V1ServiceSpec.internalTrafficPolicy': { enum: ['Cluster', 'Local'] },
  'V1ServiceSpec.ipFamilyPolicy': { enum: ['PreferDualStack', 'RequireDualStack', 'SingleStack'] },
  'V1ServiceSpec.ipFamilies': { enum: ['IPv4', 'IPv6'] },
  'V1ServiceStatus.conditions': mapBy('type'),
  'V1ServicePort.protocol': { enum: PROTOCOLS, default: 'TCP' },
  'CoreV1EndpointPort.protocol': { enum: PROTOCOLS },
  // core/v1 Namespace, ServiceAccount
  'V1NamespaceStatus.conditions': mapBy('type'),
  'V1NamespaceStatus.phase': { enum: ['Active', 'Terminating'] },
  'V1ServiceAccount.secrets': mapBy('name'),
  // apps/v1
  'V1DeploymentSpec.strategy': { strategy: 'retainKeys' },
  'V1DeploymentStatus.conditions': mapBy('type'),
  'V1DeploymentStrategy.type': { enum: ['Recreate', 'RollingUpdate'] },
  // discovery/v1
  'V1Endpoint.addresses': { listType: 'set' },
  'V1EndpointSlice.addressType': { enum: ['FQDN', 'IPv4', 'IPv6'] },
  'DiscoveryV1EndpointPort.protocol': { enum: PROTOCOLS },
  // networking/v1
  'V1NetworkPolicySpec.policyTypes': { enum: ['Egress', 'Ingress'] },
  'V1NetworkPolicyPort.protocol': { enum: PROTOCOLS },
  'V1HTTPIngressPath.pathType': { enum: ['Exact', 'ImplementationSpecific', 'Prefix'] },
  // apps/v1, batch/v1, policy/v1, autoscaling/v2 status conditions and the other keyed lists of the newer kinds
  'V1ReplicaSetStatus.conditions': mapBy('type'),
  'V1StatefulSetStatus.conditions': mapBy('type'),
  'V1DaemonSetStatus.conditions': mapBy('type'),
  'V1DaemonSetUpdateStrategy.type': { enum: ['OnDelete', 'RollingUpdate'] },
  'V1StatefulSetUpdateStrategy.type': { enum: ['OnDelete', 'RollingUpdate'] },
  'V1StatefulSetSpec.podManagementPolicy': { enum: ['OrderedReady', 'Parallel'] },
  'V1StatefulSetSpec.volumeClaimTemplates': { listType: 'atomic' },
  'V1JobStatus.conditions': { mergeKey: 'type', strategy: 'merge', listType: 'atomic' },
  'V1CronJobStatus.active': { listType: 'atomic' },
  'V1CronJobSpec.concurrencyPolicy': { enum: ['Allow', 'Forbid', 'Replace'] },
  'V1JobSpec.completionMode': { enum: ['Indexed', 'NonIndexed'] },
  'V1JobSpec.podReplacementPolicy': { enum: ['Failed', 'TerminatingOrFailed'] },
  'V1PodDisruptionBudgetStatus.conditions': mapBy('type'),
  'V1PodDisruptionBudgetStatus.disruptedPods': { mapType: 'granular' },
  'V2HorizontalPodAutoscalerSpec.metrics': { listType: 'atomic' },
  'V2HorizontalPodAutoscalerStatus.conditions': mapBy('type'),
  'V2HorizontalPodAutoscalerStatus.currentMetrics': { listType: 'atomic' },
  'V1ReplicationControllerStatus.conditions': mapBy('type'),
  'V1ReplicationControllerSpec.selector': { mapType: 'atomic' },
  'V1PersistentVolumeClaimStatus.conditions': mapBy('type'),
  'V1PersistentVolumeClaimStatus.capacity': { quantity: true },
  'V1PersistentVolumeClaimStatus.allocatedResources': { quantity: true },
  'V1PersistentVolumeClaimSpec.accessModes': { listType: 'atomic' },
  'V1PersistentVolumeSpec.capacity': { quantity: true },
  'V1PersistentVolumeSpec.accessModes': { listType: 'atomic' },
  'V1PersistentVolumeSpec.mountOptions': { listType: 'atomic' },
  'V1NodeStatus.conditions': mapBy('type'),
  'V1NodeStatus.addresses': mapBy('type'),
  'V1NodeStatus.capacity': { quantity: true },
  'V1NodeStatus.allocatable': { quantity: true },
  'V1NodeSpec.podCIDRs': { strategy: 'merge', listType: 'set' },
  'V1ResourceQuotaSpec.hard': { quantity: true },
  'V1ResourceQuotaStatus.hard': { quantity: true },
  'V1ResourceQuotaStatus.used': { quantity: true },
  'V1LimitRangeItem.max': { quantity: true },
  'V1LimitRangeItem.min': { quantity: true },
  'V1LimitRangeItem.default': { quantity: true },
  'V1LimitRangeItem.defaultRequest': { quantity: true },
  'V1LimitRangeItem.maxLimitRequestRatio': { quantity: true },
  'V1CSIStorageCapacity.capacity': { quantity: true },
  'V1CSIStorageCapacity.maximumVolumeSize': { quantity: true },
  'V1CSINodeSpec.drivers': mapBy('name'),
  'V1StorageClass.reclaimPolicy': { enum: ['Delete', 'Recycle', 'Retain'] },
  'V1StorageClass.volumeBindingMode': { enum: ['Immediate', 'WaitForFirstConsumer'] },
  'V1ValidatingWebhookConfiguration.webhooks': mapBy('name'),
  'V1MutatingWebhookConfiguration.webhooks': mapBy('name'),
  'V1ValidatingAdmissionPolicyStatus.conditions': { listType: 'map', keys: ['type'] },
  'V1CertificateSigningRequestStatus.conditions': { listType: 'map', keys: ['type'] },
  'V1FlowSchemaStatus.conditions': { listType: 'map', keys: ['type'] },
  'V1PriorityLevelConfigurationStatus.conditions': { listType: 'map', keys: ['type'] },
  'V1APIServiceStatus.conditions': { listType: 'map', keys: ['type'] },
  // apiextensions/v1
  'V1CustomResourceDefinitionStatus.conditions': { listType: 'map', keys: ['type'] },
};

/** ATOMIC_STRUCTS are model classes tagged +structType=atomic (x-kubernetes-map-type: atomic on the object). */
export const ATOMIC_STRUCTS = new Set([
  'V1LabelSelector', 'V1LocalObjectReference', 'V1ObjectReference', 'V1ConfigMapKeySelector', 'V1SecretKeySelector',
  'V1ObjectFieldSelector', 'V1ResourceFieldSelector', 'V1NodeSelector', 'V1NodeSelectorTerm',
  'V1TypedLocalObjectReference', 'V1FileKeySelector',
]);

/** DEFINITION_PACKAGE maps model classes outside core/v1 to their OpenAPI definition package. */
const PACKAGES: [string, string[]][] = [
  ['io.k8s.apimachinery.pkg.apis.meta.v1', ['V1ObjectMeta', 'V1ListMeta', 'V1LabelSelector', 'V1LabelSelectorRequirement', 'V1ManagedFieldsEntry', 'V1OwnerReference', 'V1Condition', 'V1Status', 'V1StatusCause', 'V1StatusDetails', 'V1DeleteOptions', 'V1Preconditions', 'V1APIResource', 'V1APIResourceList']],
  ['io.k8s.api.apps.v1', ['V1Deployment', 'V1DeploymentSpec', 'V1DeploymentStatus', 'V1DeploymentStrategy', 'V1DeploymentCondition', 'V1RollingUpdateDeployment']],
  ['io.k8s.api.rbac.v1', ['V1Role', 'V1ClusterRole', 'V1RoleBinding', 'V1ClusterRoleBinding', 'V1PolicyRule', 'V1AggregationRule', 'V1RoleRef', 'RbacV1Subject']],
  ['io.k8s.api.networking.v1', ['V1NetworkPolicy', 'V1NetworkPolicySpec', 'V1NetworkPolicyIngressRule', 'V1NetworkPolicyEgressRule', 'V1NetworkPolicyPeer', 'V1NetworkPolicyPort', 'V1IPBlock', 'V1Ingress', 'V1IngressSpec', 'V1IngressStatus', 'V1IngressRule', 'V1IngressBackend', 'V1IngressServiceBackend', 'V1ServiceBackendPort', 'V1IngressTLS', 'V1HTTPIngressRuleValue', 'V1HTTPIngressPath', 'V1IngressLoadBalancerStatus', 'V1IngressLoadBalancerIngress', 'V1IngressPortStatus']],
  ['io.k8s.api.discovery.v1', ['V1EndpointSlice', 'V1Endpoint', 'V1EndpointConditions', 'V1EndpointHints', 'V1ForZone', 'V1ForNode', 'DiscoveryV1EndpointPort']],
  ['io.k8s.api.coordination.v1', ['V1Lease', 'V1LeaseSpec']],
  ['io.k8s.api.events.v1', ['EventsV1Event', 'EventsV1EventSeries']],
  ['io.k8s.api.autoscaling.v1', ['V1Scale', 'V1ScaleSpec', 'V1ScaleStatus']],
  ['io.k8s.apiextensions-apiserver.pkg.apis.apiextensions.v1', ['V1CustomResourceDefinition', 'V1CustomResourceDefinitionSpec', 'V1CustomResourceDefinitionStatus', 'V1CustomResourceDefinitionNames', 'V1CustomResourceDefinitionVersion', 'V1CustomResourceDefinitionCondition', 'V1CustomResourceColumnDefinition', 'V1CustomResourceConversion', 'V1CustomResourceSubresources', 'V1CustomResourceSubresourceScale', 'V1CustomResourceValidation', 'V1JSONSchemaProps', 'V1ExternalDocumentation', 'V1ValidationRule', 'V1SelectableField', 'V1WebhookConversion', 'ApiextensionsV1ServiceReference', 'ApiextensionsV1WebhookClientConfig']],
];
const PACKAGE_OF = new Map(PACKAGES.flatMap(([pkg, classes]) => classes.map((c) => [c, pkg] as const)));

/** explicitPackage is the OpenAPI definition package of a model class listed above, if any. Classes not listed get the
 * package of the first served kind whose type closure reaches them (builtin.ts definitionName). */
export function explicitPackage(cls: string): string | undefined {
  return PACKAGE_OF.get(cls);
}

/** goTypeNameOf strips client-node's group/version prefix from a model class (AdmissionregistrationV1ServiceReference → ServiceReference). */
export function goTypeNameOf(cls: string): string {
  return cls.replace(/^(?:[A-Z][a-z]+)?V\d+(?:(?:alpha|beta)\d+)?/, '');
}

/** groupPackage is the OpenAPI definition package of the types of an API group version (io.k8s.api.apps.v1). */
export function groupPackage(group: string, version: string): string {
  switch (group) {
    case '':
      return `io.k8s.api.core.${version}`;
    case 'apiextensions.k8s.io':
      return `io.k8s.apiextensions-apiserver.pkg.apis.apiextensions.${version}`;
    case 'apiregistration.k8s.io':
      return `io.k8s.kube-aggregator.pkg.apis.apiregistration.${version}`;
    default:
      return `io.k8s.api.${group.split('.')[0]}.${version}`;
  }
}

/** BuiltinKind is one served built-in kind and the model class that describes it. */
export interface BuiltinKind {
  group: string;
  version: string;
  kind: string;
  cls: string;
}

/** BUILTIN_KINDS lists the built-in kinds with schemas (the served kinds, plus autoscaling/v1 Scale and v1 Status). */
export const BUILTIN_KINDS: BuiltinKind[] = [
  { group: '', version: 'v1', kind: 'Namespace', cls: 'V1Namespace' },
  { group: '', version: 'v1', kind: 'ConfigMap', cls: 'V1ConfigMap' },
  { group: '', version: 'v1', kind: 'Secret', cls: 'V1Secret' },
  { group: '', version: 'v1', kind: 'Service', cls: 'V1Service' },
  { group: '', version: 'v1', kind: 'Endpoints', cls: 'V1Endpoints' },
  { group: '', version: 'v1', kind: 'Pod', cls: 'V1Pod' },
  { group: '', version: 'v1', kind: 'ServiceAccount', cls: 'V1ServiceAccount' },
  { group: '', version: 'v1', kind: 'Event', cls: 'CoreV1Event' },
  { group: '', version: 'v1', kind: 'Status', cls: 'V1Status' },
  { group: 'discovery.k8s.io', version: 'v1', kind: 'EndpointSlice', cls: 'V1EndpointSlice' },
  { group: 'apps', version: 'v1', kind: 'Deployment', cls: 'V1Deployment' },
  { group: 'rbac.authorization.k8s.io', version: 'v1', kind: 'Role', cls: 'V1Role' },
  { group: 'rbac.authorization.k8s.io', version: 'v1', kind: 'ClusterRole', cls: 'V1ClusterRole' },
  { group: 'rbac.authorization.k8s.io', version: 'v1', kind: 'RoleBinding', cls: 'V1RoleBinding' },
  { group: 'rbac.authorization.k8s.io', version: 'v1', kind: 'ClusterRoleBinding', cls: 'V1ClusterRoleBinding' },
  { group: 'networking.k8s.io', version: 'v1', kind: 'NetworkPolicy', cls: 'V1NetworkPolicy' },
  { group: 'networking.k8s.io', version: 'v1', kind: 'Ingress', cls: 'V1Ingress' },
  { group: 'coordination.k8s.io', version: 'v1', kind: 'Lease', cls: 'V1Lease' },
  { group: 'events.k8s.io', version: 'v1', kind: 'Event', cls: 'EventsV1Event' },
  { group: 'apiextensions.k8s.io', version: 'v1', kind: 'CustomResourceDefinition', cls: 'V1CustomResourceDefinition' },
  { group: 'autoscaling', version: 'v1', kind: 'Scale', cls: 'V1Scale' },
  { group: 'apps', version: 'v1', kind: 'ReplicaSet', cls: 'V1ReplicaSet' },
  { group: 'networking.k8s.io', version: 'v1', kind: 'IngressClass', cls: 'V1IngressClass' },
  // The rest of kube-apiserver 1.32's built-ins.
  { group: '', version: 'v1', kind: 'PersistentVolumeClaim', cls: 'V1PersistentVolumeClaim' },
  { group: '', version: 'v1', kind: 'PersistentVolume', cls: 'V1PersistentVolume' },
  { group: '', version: 'v1', kind: 'Node', cls: 'V1Node' },
  { group: '', version: 'v1', kind: 'ResourceQuota', cls: 'V1ResourceQuota' },
  { group: '', version: 'v1', kind: 'LimitRange', cls: 'V1LimitRange' },
  { group: '', version: 'v1', kind: 'ReplicationController', cls: 'V1ReplicationController' },
  { group: '', version: 'v1', kind: 'PodTemplate', cls: 'V1PodTemplate' },
  { group: '', version: 'v1', kind: 'Binding', cls: 'V1Binding' },
  { group: '', version: 'v1', kind: 'ComponentStatus', cls: 'V1ComponentStatus' },
  { group: 'apps', version: 'v1', kind: 'StatefulSet', cls: 'V1StatefulSet' },
  { group: 'apps', version: 'v1', kind: 'DaemonSet', cls: 'V1DaemonSet' },
  { group: 'apps', version: 'v1', kind: 'ControllerRevision', cls: 'V1ControllerRevision' },
  { group: 'batch', version: 'v1', kind: 'Job', cls: 'V1Job' },
  { group: 'batch', version: 'v1', kind: 'CronJob', cls: 'V1CronJob' },
  { group: 'autoscaling', version: 'v2', kind: 'HorizontalPodAutoscaler', cls: 'V2HorizontalPodAutoscaler' },
  { group: 'autoscaling', version: 'v1', kind: 'HorizontalPodAutoscaler', cls: 'V1HorizontalPodAutoscaler' },
  { group: 'policy', version: 'v1', kind: 'PodDisruptionBudget', cls: 'V1PodDisruptionBudget' },
  { group: 'policy', version: 'v1', kind: 'Eviction', cls: 'V1Eviction' },
  { group: 'storage.k8s.io', version: 'v1', kind: 'StorageClass', cls: 'V1StorageClass' },
  { group: 'storage.k8s.io', version: 'v1', kind: 'CSIDriver', cls: 'V1CSIDriver' },
  { group: 'storage.k8s.io', version: 'v1', kind: 'CSINode', cls: 'V1CSINode' },
  { group: 'storage.k8s.io', version: 'v1', kind: 'CSIStorageCapacity', cls: 'V1CSIStorageCapacity' },
  { group: 'storage.k8s.io', version: 'v1', kind: 'VolumeAttachment', cls: 'V1VolumeAttachment' },
  { group: 'scheduling.k8s.io', version: 'v1', kind: 'PriorityClass', cls: 'V1PriorityClass' },
  { group: 'node.k8s.io', version: 'v1', kind: 'RuntimeClass', cls: 'V1RuntimeClass' },
  { group: 'admissionregistration.k8s.io', version: 'v1', kind: 'ValidatingWebhookConfiguration', cls: 'V1ValidatingWebhookConfiguration' },
  { group: 'admissionregistration.k8s.io', version: 'v1', kind: 'MutatingWebhookConfiguration', cls: 'V1MutatingWebhookConfiguration' },
  { group: 'admissionregistration.k8s.io', version: 'v1', kind: 'ValidatingAdmissionPolicy', cls: 'V1ValidatingAdmissionPolicy' },
  { group: 'admissionregistration.k8s.io', version: 'v1', kind: 'ValidatingAdmissionPolicyBinding', cls: 'V1ValidatingAdmissionPolicyBinding' },
  { group: 'certificates.k8s.io', version: 'v1', kind: 'CertificateSigningRequest', cls: 'V1CertificateSigningRequest' },
  { group: 'flowcontrol.apiserver.k8s.io', version: 'v1', kind: 'FlowSchema', cls: 'V1FlowSchema' },
  { group: 'flowcontrol.apiserver.k8s.io', version: 'v1', kind: 'PriorityLevelConfiguration', cls: 'V1PriorityLevelConfiguration' },
  { group: 'apiregistration.k8s.io', version: 'v1', kind: 'APIService', cls: 'V1APIService' },
];

/**
 * VALUE_STRUCT_FIELDS are the fields a typed Go object always has: structs held by value (present as {}), and
 * lists without omitempty (present as null, written "~name"). kube's field manager compares typed objects, so these
 * are never "added" and carry no "." in managedFields. Only what changes visible managedFields is listed (leaves
 * never do; metadata is stripped there anyway).
 */
export const VALUE_STRUCT_FIELDS: Record<string, string[]> = {
  V1Namespace: ['spec', 'status'],
  V1Service: ['spec', 'status'],
  V1ServiceStatus: ['loadBalancer'],
  V1Pod: ['spec', 'status'],
  V1PodTemplateSpec: ['metadata', 'spec'],
  V1PodSpec: ['~containers'],
  V1EndpointSlice: ['~endpoints'],
  V1Role: ['~rules'],
  V1ClusterRole: ['~rules'],
  V1Deployment: ['spec', 'status'],
  V1DeploymentSpec: ['template', 'strategy'],
  V1NetworkPolicy: ['spec'],
  V1Ingress: ['spec', 'status'],
  V1IngressStatus: ['loadBalancer'],
  V1Lease: ['spec'],
  V1RoleBinding: ['roleRef'],
  V1ClusterRoleBinding: ['roleRef'],
  CoreV1Event: ['involvedObject', 'source'],
  V1CustomResourceDefinition: ['spec', 'status'],
  V1CustomResourceDefinitionSpec: ['names', '~versions'],
  V1CustomResourceDefinitionStatus: ['acceptedNames', '~storedVersions'],
  V1Scale: ['spec', 'status'],
  V1ReplicaSet: ['spec', 'status'],
  V1ReplicaSetSpec: ['template'],
  V1StatefulSet: ['spec', 'status'],
  V1StatefulSetSpec: ['template', 'updateStrategy'],
  V1DaemonSet: ['spec', 'status'],
  V1DaemonSetSpec: ['template', 'updateStrategy'],
  V1Job: ['spec', 'status'],
  V1JobSpec: ['template'],
  V1CronJob: ['spec', 'status'],
  V1CronJobSpec: ['jobTemplate'],
  V1JobTemplateSpec: ['spec'],
  V1ReplicationController: ['spec', 'status'],
  V1PodTemplate: ['template'],
  V1PodDisruptionBudget: ['spec', 'status'],
  V1PersistentVolumeClaim: ['spec', 'status'],
  V1PersistentVolume: ['spec', 'status'],
  V1Node: ['spec', 'status'],
  V1ResourceQuota: ['spec', 'status'],
  V1LimitRange: ['spec'],
  V2HorizontalPodAutoscaler: ['spec', 'status'],
  V1HorizontalPodAutoscaler: ['spec', 'status'],
  V1CertificateSigningRequest: ['spec', 'status'],
  V1FlowSchema: ['spec', 'status'],
  V1PriorityLevelConfiguration: ['spec', 'status'],
  V1APIService: ['spec', 'status'],
  V1ValidatingAdmissionPolicy: ['spec', 'status'],
  V1ValidatingAdmissionPolicyBinding: ['spec'],
  V1IngressClass: ['spec'],
  V1CSIDriver: ['spec'],
  V1CSINode: ['spec'],
  V1VolumeAttachment: ['spec', 'status'],
};
