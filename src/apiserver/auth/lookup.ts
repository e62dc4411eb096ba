// Where request handling and the kinds' hooks find a cluster's authorizer and a request's user, without threading
// them through every signature: both are keyed by object identity and vanish with the cluster or request.
import type { IncomingMessage } from 'node:http';
import type { Cluster } from '../cluster.js';
import type { RBACAuthorizer } from './rbac.js';
import type { UserInfo } from './rules.js';

const authorizers = new WeakMap<Cluster, RBACAuthorizer>();
const users = new WeakMap<IncomingMessage, UserInfo>();

/** setAuthorizer registers the authorizer of a cluster. */
export function setAuthorizer(cluster: Cluster, a: RBACAuthorizer): void {
  authorizers.set(cluster, a);
}

/** authorizerOf returns the authorizer of a cluster (undefined: the cluster does not authorize). */
export function authorizerOf(cluster: Cluster): RBACAuthorizer | undefined {
  return authorizers.get(cluster);
}

/** setRequestUser records who a request authenticated (or impersonates) as. */
export function setRequestUser(req: IncomingMessage, user: UserInfo): void {
  users.set(req, user);
}

/** requestUser returns who a request acts as. */
export function requestUser(req: IncomingMessage): UserInfo | undefined {
  return users.get(req);
}
