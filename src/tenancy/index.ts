// tenancy: Sveltos multi-tenancy (§9) — tenant identity from labels, RoleRequests (the tenant's ServiceAccount and
// roles in every matching managed cluster), impersonation of tenants when acting for them, and the label stamping
// that keeps tenants from claiming someone else's identity. See README.md in this folder.
// Tenant identity and the tenant-label decision live in src/api (pure) so that the embedded API server's admission
// can use them without loading this component's controllers (and the Kubernetes client they bring).
export {
  PLATFORM_ADMIN,
  managedServiceAccount,
  managedUser,
  managementUser,
  serviceAccountOfUser,
  tenantLabels,
  tenantOf,
  type RoleRequestLike,
  type Tenant,
  type TenantResolution,
} from '../api/index.js';
export { OWNED_KINDS, ROLE_REQUEST_LABEL, bindingName, parseRoles, planCluster, staleObjects, type ClusterPlan, type ParsedRoles, type RoleSource } from './plan.js';
export { ACCESS_FIELD_MANAGER, ROLE_REQUEST_FINALIZER, RoleRequestController, type RoleRequestControllerOptions } from './rolerequest-controller.js';
export { TENANT_KINDS, TENANT_RESOURCES, tenantLabelDecision, type LabelDecision } from '../api/index.js';
export { TENANCY_POLICY_NAME, tenancyPolicy } from './policy.js';
export { onboardTenant, parseTenantFlag, tenantObjects, type OnboardResult, type TenantFlag } from './onboard.js';
export { readRefusal, type TenantRead } from './access.js';
export { TenantDirectory } from './directory.js';
