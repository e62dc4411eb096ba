// ClusterAuth: authentication and authorization of one virtual cluster. The cluster's admin token authenticates as
// ripple:CLUSTER:admin in system:masters (every request allowed, as before); ServiceAccount tokens (TokenRequest or
// legacy Secret JWTs signed with the cluster's key) as their ServiceAccount; every identity but system:masters goes
// through RBAC.
// Go: k8s.io/apiserver pkg/endpoints/filters/authentication.go, authorization.go
import { timingSafeEqual } from 'node:crypto';
import type { IncomingMessage } from 'node:http';
import type { Cluster, Logger } from '../cluster.js';
import { AggregationController } from './aggregation.js';
import { forbiddenError, requestAttributes } from './attributes.js';
import { ensureBootstrapPolicy } from './bootstrap.js';
import { hasImpersonation, impersonate } from './impersonation.js';
import { setClusterAuth } from './lookup.js';
import { MASTERS, RBACAuthorizer } from './rbac.js';
import type { UserInfo } from './rules.js';
import { API_AUDIENCE, ServiceAccountTokenIssuer } from './tokens.js';

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
  readonly tokens: ServiceAccountTokenIssuer;
  private readonly aggregation: AggregationController;
  private readonly admin: UserInfo;

  constructor(
    private readonly cluster: Cluster,
    logger: Logger,
  ) {
    this.authorizer = new RBACAuthorizer(cluster);
    this.tokens = new ServiceAccountTokenIssuer(cluster, cluster.ctx.store);
    setClusterAuth(cluster, this);
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
    return token === undefined ? undefined : this.authenticateToken(token)?.user;
  }

  /** authenticateToken checks a bearer token for the given audiences (default: the API server's own), as the
   * authentication filter and TokenReview do; returns the user and the audiences it is good for. */
  authenticateToken(token: string, audiences: string[] = []): { user: UserInfo; audiences: string[] } | undefined {
    // The admin token has a fixed length: only a token of that length is compared (in constant time).
    if (token.length === this.cluster.token.length && timingSafeEqual(Buffer.from(token), Buffer.from(this.cluster.token))) return audiences.length === 0 || audiences.includes(API_AUDIENCE) ? { user: this.admin, audiences: [API_AUDIENCE] } : undefined;
    const sa = this.tokens.authenticate(token);
    if (!sa) return undefined;
    // Go: a token is accepted only for an audience it was issued for (the API server's --api-audiences by default).
    const wanted = audiences.length > 0 ? audiences : [API_AUDIENCE];
    const common = wanted.filter((a) => sa.audiences.includes(a));
    return common.length > 0 ? { user: sa.user, audiences: common } : undefined;
  }

  /** actAs returns who the request acts as: the authenticated user, or whom it may impersonate (throws 403/500). */
  actAs(req: IncomingMessage, user: UserInfo): UserInfo {
    return hasImpersonation(req) ? impersonate(req, user, this.authorizer) : user;
  }

  /** authorize throws kube's 403 when the user may not make the request (path below the cluster prefix). */
  authorize(user: UserInfo, method: string, path: string, url: URL): void {
    if (user.groups.includes(MASTERS)) return;
    const a = requestAttributes(user, method, path, url);
    const d = this.authorizer.authorize(a);
    if (!d.allowed) throw forbiddenError(a, d.reason);
  }
}
