// auth bench: the in-process cost of authorization per request — an RBAC decision with the rules cache warm and cold
// (500 unrelated bindings in the cluster), the system:masters short-circuit, and ServiceAccount token authentication
// (signature remembered, existence checks each time) against a first verification.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Cluster, type ServerContext } from '../cluster.js';
import { BUILTIN_DESCRIPTORS } from '../kinds/builtins.js';
import { create, internalWrite, scopeFor } from '../registry.js';
import { Store } from '../store.js';
import { requestAttributes } from './attributes.js';
import { adminUser, ClusterAuth } from './cluster-auth.js';
import type { UserInfo } from './rules.js';

const RBAC = 'rbac.authorization.k8s.io';

function perOp(n: number, fn: (i: number) => void): number {
  for (let i = 0; i < Math.min(n, 1000); i++) fn(i);
  const t = process.hrtime.bigint();
  for (let i = 0; i < n; i++) fn(i);
  return +(Number(process.hrtime.bigint() - t) / n / 1000).toFixed(3);
}

/** bench measures microseconds per operation. */
export async function bench(): Promise<Record<string, unknown>> {
  const dir = mkdtempSync(join(tmpdir(), 'ripple-auth-bench-'));
  const store = new Store(join(dir, 'state.db'));
  let rv = store.lastResourceVersion;
  const ctx: ServerContext = { store, nextRv: () => ++rv, currentRv: () => rv, now: () => new Date(), logger: { info() {}, warn() {}, error() {}, debug() {} }, watchWindow: 100 };
  const cluster = new Cluster('bench', 'token', ctx, BUILTIN_DESCRIPTORS);
  const auth = new ClusterAuth(cluster, ctx.logger);
  auth.start();
  try {
    const w = internalWrite('bench');
    const desc = (g: string, p: string) => cluster.registry.lookup(g, 'v1', p)!;
    create(scopeFor(cluster, desc('', 'namespaces'), ''), { apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'team' } }, w);
    const sa = create(scopeFor(cluster, desc('', 'serviceaccounts'), 'team'), { apiVersion: 'v1', kind: 'ServiceAccount', metadata: { name: 'robot' } }, w);
    for (let i = 0; i < 500; i++) {
      create(scopeFor(cluster, desc(RBAC, 'rolebindings'), 'team'), { apiVersion: `${RBAC}/v1`, kind: 'RoleBinding', metadata: { name: `other-${i}` }, roleRef: { apiGroup: RBAC, kind: 'ClusterRole', name: 'view' }, subjects: [{ kind: 'ServiceAccount', name: `other-${i}` }] }, w);
    }
    create(scopeFor(cluster, desc(RBAC, 'rolebindings'), 'team'), { apiVersion: `${RBAC}/v1`, kind: 'RoleBinding', metadata: { name: 'robot' }, roleRef: { apiGroup: RBAC, kind: 'ClusterRole', name: 'edit' }, subjects: [{ kind: 'ServiceAccount', name: 'robot' }] }, w);
    await store.committed();
    const user: UserInfo = { username: 'system:serviceaccount:team:robot', groups: ['system:serviceaccounts', 'system:serviceaccounts:team', 'system:authenticated'] };
    const url = new URL('http://x/api/v1/namespaces/team/configmaps/settings');
    const attrs = requestAttributes(user, 'GET', url.pathname, url);
    const authz = auth.authorizer;
    if (!authz.authorize(attrs).allowed) throw new Error('bench setup: robot should be allowed');
    const token = String((auth.tokens.request({ cluster, namespace: 'team', name: 'robot', verb: 'create', body: { spec: {} }, dryRun: false, fieldManager: 'bench' }).obj as { status: { token: string } }).status.token);
    if (sa.obj.metadata?.uid === undefined || !auth.authenticateToken(token)) throw new Error('bench setup: token should authenticate');
    const fresh = Array.from({ length: 2000 }, () => String((auth.tokens.request({ cluster, namespace: 'team', name: 'robot', verb: 'create', body: { spec: {} }, dryRun: false, fieldManager: 'bench' }).obj as { status: { token: string } }).status.token));
    let next = 0;
    return {
      us_per_op: {
        request_attributes: perOp(100_000, () => requestAttributes(user, 'GET', url.pathname, url)),
        authorize_system_masters: perOp(1_000_000, () => auth.authorize(adminUser('bench'), 'GET', url.pathname, url)),
        authorize_rbac_cached: perOp(200_000, () => authz.authorize(attrs)),
        authorize_rbac_cold_500_bindings: perOp(2_000, () => {
          (authz as unknown as { cache: Map<string, unknown> }).cache.clear();
          authz.authorize(attrs);
        }),
        authenticate_admin_token: perOp(200_000, () => auth.authenticateToken('token')),
        authenticate_sa_token_remembered: perOp(200_000, () => auth.authenticateToken(token)),
        authenticate_sa_token_first_verification: perOp(1_000, () => auth.authenticateToken(fresh[next++])),
      },
    };
  } finally {
    auth.stop();
    store.close();
    rmSync(dir, { recursive: true, force: true });
  }
}
