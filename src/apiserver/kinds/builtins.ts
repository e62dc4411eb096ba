// The built-in resources every virtual cluster serves, in discovery order.
import type { ResourceDescriptor } from '../resource.js';
import { crdKindDescriptor } from '../crd.js';
import { deploymentDescriptor, replicaSetDescriptor } from './apps.js';
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
import { clusterRoleBindingDescriptor, clusterRoleDescriptor, roleBindingDescriptor, roleDescriptor } from './rbac.js';
import { reviewDescriptors } from './review.js';
import { serviceDescriptor } from './service.js';

/** BUILTIN_DESCRIPTORS lists the built-in kinds with their real scopes and behaviours. */
export const BUILTIN_DESCRIPTORS: ResourceDescriptor[] = [
  configMapDescriptor,
  endpointsDescriptor,
  eventDescriptor,
  namespaceDescriptor,
  podDescriptor,
  secretDescriptor,
  serviceAccountDescriptor,
  serviceDescriptor,
  deploymentDescriptor,
  replicaSetDescriptor,
  eventsV1Descriptor,
  leaseDescriptor,
  ingressClassDescriptor,
  ingressDescriptor,
  networkPolicyDescriptor,
  clusterRoleBindingDescriptor,
  clusterRoleDescriptor,
  roleBindingDescriptor,
  roleDescriptor,
  endpointSliceDescriptor,
  crdKindDescriptor,
  ...reviewDescriptors,
];
