// RoleRequest (lib.projectsveltos.io/v1beta1, cluster-scoped): what a platform admin grants a tenant admin in every
// managed cluster matching a selector. Shapes follow libsveltos api/v1beta1/rolerequest_type.go.
import { labelSelectorSchema, objectReferenceSchema, type KubeObject } from './common-types.js';
import { bytes, int, list, obj, opt, str, strEnum, type Static } from './schema-dsl.js';

/** ROLE_REQUEST_CLUSTER_STATUSES are the per-cluster states of a RoleRequest (libsveltos FeatureStatus subset). */
export const ROLE_REQUEST_CLUSTER_STATUSES = ['Provisioning', 'Provisioned', 'Failed', 'FailedNonRetriable', 'Removing', 'Removed'] as const;

/** roleRequestSpecSchema is RoleRequestSpec. */
export const roleRequestSpecSchema = () =>
  obj({
    clusterSelector: opt(labelSelectorSchema()),
    expirationSeconds: opt(int({ format: 'int64', description: 'ExpirationSeconds is the requested duration of validity of the TokenRequest associated to ServiceAccount.' })),
    roleRefs: opt(
      list(
        obj({
          kind: strEnum(['Secret', 'ConfigMap'] as const),
          name: str({ minLength: 1 }),
          namespace: str({ description: 'Namespace of the referenced resource. Empty: the cluster namespace.' }),
        }),
      ),
    ),
    serviceAccountName: str({ description: 'ServiceAccountName is the name of the ServiceAccount representing a tenant admin.' }),
    serviceAccountNamespace: str({ description: 'ServiceAccountNamespace is the namespace of the ServiceAccount representing a tenant admin.' }),
  });
/** RoleRequestSpec selects clusters and the Roles/ClusterRoles granted there to one tenant ServiceAccount. */
export type RoleRequestSpec = Static<ReturnType<typeof roleRequestSpecSchema>>;

/** roleRequestStatusSchema is RoleRequestStatus. */
export const roleRequestStatusSchema = () =>
  obj({
    clusterInfo: opt(
      list(
        obj({
          cluster: objectReferenceSchema(),
          failureMessage: opt(str()),
          hash: bytes(),
          status: opt(strEnum(ROLE_REQUEST_CLUSTER_STATUSES)),
        }),
      ),
    ),
    failureMessage: opt(str()),
    matchingClusters: opt(list(objectReferenceSchema())),
  });
/** RoleRequestStatus reports matching clusters and, per cluster, the hash of what was deployed or why it failed. */
export type RoleRequestStatus = Static<ReturnType<typeof roleRequestStatusSchema>>;

/** RoleRequest is a lib.projectsveltos.io/v1beta1 RoleRequest (cluster-scoped). */
export interface RoleRequest extends KubeObject<'lib.projectsveltos.io/v1beta1', 'RoleRequest'> {
  spec: RoleRequestSpec;
  status?: RoleRequestStatus;
}
