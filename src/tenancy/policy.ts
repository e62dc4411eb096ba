// The tenant-label rule for real clusters (Kubernetes >= 1.30, no Kyverno): a ValidatingAdmissionPolicy + binding
// refusing a create/update of a tenant kind by a ServiceAccount (outside `projectsveltos`) unless its labels name
// exactly that ServiceAccount. A ValidatingAdmissionPolicy cannot mutate, so on a real cluster the tenant sets the
// labels itself (the embedded API server stamps them; the seed's Kyverno policy can stamp them too). Pure.
import { Labels, SVELTOS_NAMESPACE } from '../api/index.js';
import type { KubeObject } from '../kube/index.js';
import { TENANT_RESOURCES } from '../api/index.js';

/** TENANCY_POLICY_NAME names the policy and its binding. */
export const TENANCY_POLICY_NAME = 'ripple-tenant-labels';

const label = (key: string) => `object.metadata.labels['${key}']`;
const has = (key: string) => `has(object.metadata.labels) && '${key}' in object.metadata.labels`;

/** tenancyPolicy returns the ValidatingAdmissionPolicy and its ValidatingAdmissionPolicyBinding. */
export function tenancyPolicy(): KubeObject[] {
  const must = (key: string, variable: string) => ({
    expression: `${has(key)} && ${label(key)} == variables.${variable}`,
    messageExpression: `'label ${key} must be "' + variables.${variable} + '": it names the requesting ServiceAccount ' + variables.saNamespace + '/' + variables.saName`,
    reason: 'Forbidden',
  });
  const mayOnly = (key: string, variable: string) => ({
    expression: `!(${has(key)}) || ${label(key)} == variables.${variable}`,
    messageExpression: `'label ${key} is set from the requesting ServiceAccount ' + variables.saNamespace + '/' + variables.saName + ': it may be "' + variables.${variable} + '" or absent'`,
    reason: 'Forbidden',
  });
  const policy = {
    apiVersion: 'admissionregistration.k8s.io/v1',
    kind: 'ValidatingAdmissionPolicy',
    metadata: { name: TENANCY_POLICY_NAME },
    spec: {
      failurePolicy: 'Fail',
      matchConstraints: {
        resourceRules: Object.entries(TENANT_RESOURCES).map(([group, resources]) => ({ apiGroups: [group], apiVersions: ['*'], operations: ['CREATE', 'UPDATE'], resources: [...resources] })),
      },
      matchConditions: [
        {
          name: 'tenant-serviceaccount',
          expression: `request.userInfo.username.startsWith('system:serviceaccount:') && !request.userInfo.username.startsWith('system:serviceaccount:${SVELTOS_NAMESPACE}:')`,
        },
      ],
      variables: [
        { name: 'saNamespace', expression: "request.userInfo.username.split(':')[2]" },
        { name: 'saName', expression: "request.userInfo.username.split(':')[3]" },
      ],
      validations: [must(Labels.serviceAccountName, 'saName'), must(Labels.serviceAccountNamespace, 'saNamespace'), mayOnly(Labels.adminName, 'saName'), mayOnly(Labels.adminNamespace, 'saNamespace')],
    },
  };
  const binding = {
    apiVersion: 'admissionregistration.k8s.io/v1',
    kind: 'ValidatingAdmissionPolicyBinding',
    metadata: { name: TENANCY_POLICY_NAME },
    spec: { policyName: TENANCY_POLICY_NAME, validationActions: ['Deny'] },
  };
  return [policy as unknown as KubeObject, binding as unknown as KubeObject];
}
