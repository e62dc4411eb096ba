// The built-in resources every virtual cluster serves — kube-apiserver 1.32's GA built-ins — in discovery order
// (alphabetical by resource within a group, as kube lists them).
import type { ResourceDescriptor } from '../resource.js';
import { crdKindDescriptor } from '../crd.js';
import {
  apiServiceDescriptor,
  csrDescriptor,
  mutatingWebhookDescriptor,
  validatingAdmissionPolicyBindingDescriptor,
  validatingAdmissionPolicyDescriptor,
  validatingWebhookDescriptor,
} from './admission.js';
import {
  controllerRevisionDescriptor,
  daemonSetDescriptor,
  deploymentDescriptor,
  podTemplateDescriptor,
  replicaSetDescriptor,
  replicationControllerDescriptor,
  statefulSetDescriptor,
} from './apps.js';
import { hpaDescriptor } from './autoscaling.js';
import { cronJobDescriptor, jobDescriptor } from './batch.js';
import {
  configMapDescriptor,
  endpointsDescriptor,
  eventDescriptor,
  eventsV1Descriptor,
  namespaceDescriptor,
  podDescriptor,
  secretDescriptor,
  serviceAccountDescriptor,
} from './core.js';
import { endpointSliceDescriptor, ingressClassDescriptor, ingressDescriptor, leaseDescriptor, networkPolicyDescriptor } from './networking.js';
import { bindingDescriptor, componentStatusDescriptor, nodeDescriptor } from './nodes.js';
import {
  flowSchemaDescriptor,
  limitRangeDescriptor,
  pdbDescriptor,
  priorityClassDescriptor,
  priorityLevelDescriptor,
  resourceQuotaDescriptor,
  runtimeClassDescriptor,
} from './policy.js';
import { clusterRoleBindingDescriptor, clusterRoleDescriptor, roleBindingDescriptor, roleDescriptor } from './rbac.js';
import { reviewDescriptors } from './review.js';
import { serviceDescriptor } from './service.js';
import {
  csiDriverDescriptor,
  csiNodeDescriptor,
  csiStorageCapacityDescriptor,
  pvcDescriptor,
  pvDescriptor,
  storageClassDescriptor,
  volumeAttachmentDescriptor,
} from './storage.js';

/** BUILTIN_DESCRIPTORS lists the built-in kinds with their real scopes and behaviours. */
export const BUILTIN_DESCRIPTORS: ResourceDescriptor[] = [
  bindingDescriptor,
  componentStatusDescriptor,
  configMapDescriptor,
  endpointsDescriptor,
  eventDescriptor,
  limitRangeDescriptor,
  namespaceDescriptor,
  nodeDescriptor,
  pvcDescriptor,
  pvDescriptor,
  podDescriptor,
  podTemplateDescriptor,
  replicationControllerDescriptor,
  resourceQuotaDescriptor,
  secretDescriptor,
  serviceAccountDescriptor,
  serviceDescriptor,
  controllerRevisionDescriptor,
  daemonSetDescriptor,
  deploymentDescriptor,
  replicaSetDescriptor,
  statefulSetDescriptor,
  eventsV1Descriptor,
  hpaDescriptor,
  cronJobDescriptor,
  jobDescriptor,
  csrDescriptor,
  leaseDescriptor,
  ingressClassDescriptor,
  ingressDescriptor,
  networkPolicyDescriptor,
  runtimeClassDescriptor,
  pdbDescriptor,
  clusterRoleBindingDescriptor,
  clusterRoleDescriptor,
  roleBindingDescriptor,
  roleDescriptor,
  priorityClassDescriptor,
  csiDriverDescriptor,
  csiNodeDescriptor,
  csiStorageCapacityDescriptor,
  storageClassDescriptor,
  volumeAttachmentDescriptor,
  mutatingWebhookDescriptor,
  validatingAdmissionPolicyDescriptor,
  validatingAdmissionPolicyBindingDescriptor,
  validatingWebhookDescriptor,
  endpointSliceDescriptor,
  crdKindDescriptor,
  flowSchemaDescriptor,
  priorityLevelDescriptor,
  apiServiceDescriptor,
  ...reviewDescriptors,
];
