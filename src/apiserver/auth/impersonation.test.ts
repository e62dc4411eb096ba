// Impersonation headers, decided by the RBAC authorizer of a real in-memory cluster.
import { strict as assert } from 'node:assert';
import { mkdtempSync, rmSync } from 'node:fs';
import type { IncomingMessage } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, test } from 'node:test';
import { Cluster, type ServerContext } from '../cluster.js';
import { BUILTIN_DESCRIPTORS } from '../kinds/builtins.js';
import { create, internalWrite, scopeFor } from '../registry.js';
import { Store } from '../store.js';
import { adminUser, ClusterAuth } from './cluster-auth.js';
import type { UserInfo } from './rules.js';

const dir = mkdtempSync(join(tmpdir(), 'ripple-impersonation-'));
const store = new Store(join(dir, 'state.db'));
let rv = store.lastResourceVersion;
const ctx: ServerContext = { store, nextRv: () => ++rv, currentRv: () => rv, now: () => new Date(), logger: { info() {}, warn() {}, error() {}, debug() {} }, watchWindow: 100 };
const cluster = new Cluster('imp', 'token', ctx, BUILTIN_DESCRIPTORS);
const auth = new ClusterAuth(cluster, ctx.logger);
auth.start();
after(() => {
  auth.stop();
  store.close();
  rmSync(dir, { recursive: true, force: true });
});
const RBAC = 'rbac.authorization.k8s.io';
const req = (headers: Record<string, string>) => ({ headers }) as unknown as IncomingMessage;
const bob: UserInfo = { username: 'bob', groups: ['system:authenticated'] };
const status = (fn: () => unknown) => {
  try {
    fn();
  } catch (e) {
    return (e as { status: { code: number; message: string } }).status;
  }
  return undefined;
};

test('without impersonation headers the requester acts as itself', () => {
  assert.equal(auth.actAs(req({ accept: 'application/json' }), bob), bob);
});

test('the admin may impersonate anyone; groups, uid and extras are carried, system:authenticated added', () => {
  const u = auth.actAs(req({ 'impersonate-user': 'alice', 'impersonate-group': 'devs, ops', 'impersonate-uid': 'u-1', 'impersonate-extra-scopes': 'a,b', 'impersonate-extra-example.com%2fteam': 'x' }), adminUser('imp'));
  assert.deepEqual(u, { username: 'alice', groups: ['devs', 'ops', 'system:authenticated'], uid: 'u-1', extra: { scopes: ['a', 'b'], 'example.com/team': ['x'] } });
  const sa = auth.actAs(req({ 'impersonate-user': 'system:serviceaccount:ns:app' }), adminUser('imp'));
  assert.deepEqual(sa.groups, ['system:serviceaccounts', 'system:serviceaccounts:ns', 'system:authenticated']);
});

test('a group or extra without a user is an error; each part needs the impersonate verb', () => {
  assert.equal(status(() => auth.actAs(req({ 'impersonate-group': 'devs' }), adminUser('imp')))?.message, 'Internal error occurred: requested [groups=devs] without impersonating a user');
  assert.equal(status(() => auth.actAs(req({ 'impersonate-user': 'alice' }), bob))?.message, 'users "alice" is forbidden: User "bob" cannot impersonate resource "users" in API group "" at the cluster scope');
  const w = internalWrite('test');
  create(scopeFor(cluster, cluster.registry.lookup(RBAC, 'v1', 'clusterroles')!, ''), { apiVersion: `${RBAC}/v1`, kind: 'ClusterRole', metadata: { name: 'impersonate-alice' }, rules: [{ apiGroups: [''], resources: ['users'], verbs: ['impersonate'], resourceNames: ['alice'] }] }, w);
  create(scopeFor(cluster, cluster.registry.lookup(RBAC, 'v1', 'clusterrolebindings')!, ''), { apiVersion: `${RBAC}/v1`, kind: 'ClusterRoleBinding', metadata: { name: 'bob-as-alice' }, roleRef: { apiGroup: RBAC, kind: 'ClusterRole', name: 'impersonate-alice' }, subjects: [{ apiGroup: RBAC, kind: 'User', name: 'bob' }] }, w);
  assert.equal(auth.actAs(req({ 'impersonate-user': 'alice' }), bob).username, 'alice');
  assert.equal(status(() => auth.actAs(req({ 'impersonate-user': 'carol' }), bob))?.code, 403);
  assert.equal(status(() => auth.actAs(req({ 'impersonate-user': 'alice', 'impersonate-group': 'system:masters' }), bob))?.message, 'groups "system:masters" is forbidden: User "bob" cannot impersonate resource "groups" in API group "" at the cluster scope');
  assert.equal(status(() => auth.actAs(req({ 'impersonate-user': 'alice', 'impersonate-uid': 'x' }), bob))?.message, 'uids.authentication.k8s.io "x" is forbidden: User "bob" cannot impersonate resource "uids" in API group "authentication.k8s.io" at the cluster scope');
  assert.equal(status(() => auth.actAs(req({ 'impersonate-user': 'system:serviceaccount:ns:app' }), bob))?.message, 'serviceaccounts "app" is forbidden: User "bob" cannot impersonate resource "serviceaccounts" in API group "" in the namespace "ns"');
});

test('an aggregationRule must have valid selectors', () => {
  const cr = cluster.registry.lookup(RBAC, 'v1', 'clusterroles')!;
  assert.match(String(status(() => create(scopeFor(cluster, cr, ''), { apiVersion: `${RBAC}/v1`, kind: 'ClusterRole', metadata: { name: 'agg' }, aggregationRule: { clusterRoleSelectors: [] } }, internalWrite('t')))?.message), /aggregationRule.clusterRoleSelectors: Required value: at least one clusterRoleSelector required if aggregationRule is non-nil/);
  assert.match(String(status(() => create(scopeFor(cluster, cr, ''), { apiVersion: `${RBAC}/v1`, kind: 'ClusterRole', metadata: { name: 'agg' }, aggregationRule: { clusterRoleSelectors: [{ matchExpressions: [{ key: 'a', operator: 'Near' }] }] } }, internalWrite('t')))?.message), /aggregationRule.clusterRoleSelectors\[0\]: Invalid value: .*invalid label selector\./);
});
