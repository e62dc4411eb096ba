// Tenant identity lives in src/api (pure; tenant-identity.ts) so that the embedded API server's admission can use it
// without loading this component's controllers (and the Kubernetes client they bring). Re-exported for tenancy.
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
