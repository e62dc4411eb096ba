// Where request handling and the kinds' hooks find a cluster's auth (authorizer, token issuer) and a request's user,
// without threading them through every signature: both are keyed by object identity and vanish with the cluster or
// request.
import type { IncomingMessage } from 'node:http';
import type { Cluster } from '../cluster.js';
import type { ClusterAuth } from './cluster-auth.js';
import type { RBACAuthorizer } from './rbac.js';
import type { UserInfo } from './rules.js';
import type { ServiceAccountTokenIssuer } from './tokens.js';

const auths = new WeakMap<Cluster, ClusterAuth>();
const users = new WeakMap<IncomingMessage, UserInfo>();

/** setClusterAuth registers the auth of a cluster. */
export function setClusterAuth(cluster: Cluster, a: ClusterAuth): void {
  auths.set(cluster, a);
}

/** clusterAuthOf returns the auth of a cluster (undefined: the cluster does not authorize). */
export function clusterAuthOf(cluster: Cluster): ClusterAuth | undefined {
  return auths.get(cluster);
}

/** authorizerOf returns the RBAC authorizer of a cluster. */
export function authorizerOf(cluster: Cluster): RBACAuthorizer | undefined {
  return auths.get(cluster)?.authorizer;
}

/** tokenIssuerOf returns the ServiceAccount token issuer of a cluster. */
export function tokenIssuerOf(cluster: Cluster): ServiceAccountTokenIssuer | undefined {
  return auths.get(cluster)?.tokens;
}

/** setRequestUser records who a request authenticated (or impersonates) as. */
export function setRequestUser(req: IncomingMessage, user: UserInfo): void {
  users.set(req, user);
}

/** requestUser returns who a request acts as. */
export function requestUser(req: IncomingMessage): UserInfo | undefined {
  return users.get(req);
}
