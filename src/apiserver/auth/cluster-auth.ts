// ClusterAuth: authentication and authorization of one virtual cluster. The cluster's admin token authenticates as
// ripple:CLUSTER:admin in system:masters (every request allowed, as before); every other identity goes through RBAC.
// Go: k8s.io/apiserver pkg/endpoints/filters/authentication.go, authorization.go
import { timingSafeEqual } from 'node:crypto';
import type { IncomingMessage } from 'node:http';
import type { Cluster, Logger } from '../cluster.js';
import { AggregationController } from './aggregation.js';
import { forbiddenError, requestAttributes } from './attributes.js';
import { ensureBootstrapPolicy } from './bootstrap.js';
import { setAuthorizer } from './lookup.js';
import { MASTERS, RBACAuthorizer } from './rbac.js';
import type { UserInfo } from './rules.js';

/** adminUser is who a cluster's admin token authenticates as. */
export function adminUser(cluster: string): UserInfo {
  return { username: `ripple:${cluster}:admin`, groups: [MASTERS, 'system:authenticated'] };
}

/** bearerToken reads the token of an Authorization: Bearer header. */
export function bearerToken(req: IncomingMessage): string | undefined {
  const h = req.headers.authorization ?? '';
  if (!h.startsWith('Bearer ')) return undefined;
  const t = h.slice(7).trim();
  return t === '' ? undefined : t;
}

/** ClusterAuth authenticates and authorizes the requests of one cluster. */
export class ClusterAuth {
  readonly authorizer: RBACAuthorizer;
  private readonly aggregation: AggregationController;
  private readonly admin: UserInfo;

  constructor(
    private readonly cluster: Cluster,
    logger: Logger,
  ) {
    this.authorizer = new RBACAuthorizer(cluster);
    setAuthorizer(cluster, this.authorizer);
    this.aggregation = new AggregationController(cluster, logger);
    this.admin = adminUser(cluster.name);
  }

  /** start creates the missing default roles and bindings and aggregates ClusterRoles. */
  start(): void {
    ensureBootstrapPolicy(this.cluster);
    this.aggregation.syncAll();
  }

  /** stop ends the cluster's auth controllers. */
  stop(): void {
    this.aggregation.stop();
  }

  /** authenticate returns who the request's credentials belong to, or undefined (401). */
  authenticate(req: IncomingMessage): UserInfo | undefined {
    const token = bearerToken(req);
    if (token === undefined) return undefined;
    const given = Buffer.from(token);
    const want = Buffer.from(this.cluster.token);
    if (given.length === want.length && timingSafeEqual(given, want)) return this.admin;
    return undefined;
  }

  /** authorize throws kube's 403 when the user may not make the request (path below the cluster prefix). */
  authorize(user: UserInfo, method: string, path: string, url: URL): void {
    if (user.groups.includes(MASTERS)) return;
    const a = requestAttributes(user, method, path, url);
    const d = this.authorizer.authorize(a);
    if (!d.allowed) throw forbiddenError(a, d.reason);
  }
}
