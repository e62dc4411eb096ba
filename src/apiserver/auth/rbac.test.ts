// The RBAC authorizer against a real in-memory cluster: bootstrap policy, bindings by subject, resourceNames,
// subresources, wildcards, nonResourceURLs, aggregation, cache invalidation, escalation checks and kube's messages.
import { strict as assert } from 'node:assert';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, test } from 'node:test';
import { Cluster, type ServerContext } from '../cluster.js';
import { BUILTIN_DESCRIPTORS } from '../kinds/builtins.js';
import { create, internalWrite, mutate, remove, scopeFor, type WriteOptions } from '../registry.js';
import { Store } from '../store.js';
import type { KubeObject } from '../types.js';
import { forbiddenError, requestAttributes } from './attributes.js';
import { ClusterAuth } from './cluster-auth.js';
import { compactString, covers, ruleAllows, type Attributes, type UserInfo } from './rules.js';

const dir = mkdtempSync(join(tmpdir(), 'ripple-rbac-'));
const store = new Store(join(dir, 'state.db'));
let rv = store.lastResourceVersion;
const ctx: ServerContext = { store, nextRv: () => ++rv, currentRv: () => rv, now: () => new Date(), logger: { info() {}, warn() {}, error() {}, debug() {} }, watchWindow: 100 };
const cluster = new Cluster('unit', 'token', ctx, BUILTIN_DESCRIPTORS);
const auth = new ClusterAuth(cluster, ctx.logger);
auth.start();
after(() => {
  auth.stop();
  store.close();
  rmSync(dir, { recursive: true, force: true });
});
const admin = internalWrite('unit-test');
const RBAC = 'rbac.authorization.k8s.io';
const scope = (plural: string, ns = '') => scopeFor(cluster, cluster.registry.lookup(plural.startsWith('role') || plural.startsWith('cluster') ? RBAC : '', 'v1', plural)!, ns);
const sa: UserInfo = { username: 'system:serviceaccount:team:robot', groups: ['system:serviceaccounts', 'system:serviceaccounts:team', 'system:authenticated'] };
const as = (user: UserInfo): WriteOptions => ({ ...internalWrite('kubectl'), user });

function attrs(user: UserInfo, method: string, path: string): Attributes {
  const url = new URL(path, 'http://x');
  return requestAttributes(user, method, url.pathname, url);
}
const allowed = (user: UserInfo, method: string, path: string) => auth.authorizer.authorize(attrs(user, method, path)).allowed;
const message = (user: UserInfo, method: string, path: string) => {
  const a = attrs(user, method, path);
  return forbiddenError(a, auth.authorizer.authorize(a).reason).status;
};

test('request attributes follow kube: list/watch/deletecollection, namespaces, subresources, metadata.name', () => {
  const a = attrs(sa, 'GET', '/api/v1/namespaces/team/pods?watch=1&fieldSelector=metadata.name%3Dweb');
  assert.deepEqual([a.verb, a.resource, a.namespace, a.name], ['watch', 'pods', 'team', 'web']);
  assert.equal(attrs(sa, 'DELETE', '/apis/apps/v1/namespaces/team/deployments').verb, 'deletecollection');
  const ns = attrs(sa, 'GET', '/api/v1/namespaces/team');
  assert.deepEqual([ns.resource, ns.name, ns.namespace], ['namespaces', 'team', 'team']);
  const log = attrs(sa, 'GET', '/api/v1/namespaces/team/pods/web/log');
  assert.deepEqual([log.verb, log.resource, log.subresource, log.name], ['get', 'pods', 'log', 'web']);
  assert.equal(attrs(sa, 'GET', '/api/v1/watch/namespaces/team/pods').verb, 'watch');
  const nr = attrs(sa, 'GET', '/apis');
  assert.deepEqual([nr.resourceRequest, nr.verb, nr.path], [false, 'get', '/apis']);
});

test('rule matching: wildcards, */subresource, resourceNames, nonResourceURL prefixes', () => {
  const a = (p: string, m = 'GET') => attrs(sa, m, p);
  assert.ok(ruleAllows(a('/api/v1/namespaces/x/pods/p/log'), { verbs: ['get'], apiGroups: [''], resources: ['pods/log'] }));
  assert.ok(!ruleAllows(a('/api/v1/namespaces/x/pods/p/log'), { verbs: ['get'], apiGroups: [''], resources: ['pods'] }));
  assert.ok(ruleAllows(a('/api/v1/namespaces/x/pods/p/status'), { verbs: ['get'], apiGroups: [''], resources: ['*/status'] }));
  assert.ok(ruleAllows(a('/apis/apps/v1/namespaces/x/deployments/d', 'PATCH'), { verbs: ['*'], apiGroups: ['*'], resources: ['*'] }));
  assert.ok(ruleAllows(a('/api/v1/namespaces/x/configmaps/one'), { verbs: ['get'], apiGroups: [''], resources: ['configmaps'], resourceNames: ['one'] }));
  assert.ok(!ruleAllows(a('/api/v1/namespaces/x/configmaps'), { verbs: ['list'], apiGroups: [''], resources: ['configmaps'], resourceNames: ['one'] }));
  assert.ok(ruleAllows(a('/apis/apps/v1'), { verbs: ['get'], nonResourceURLs: ['/apis/*'] }));
  assert.ok(!ruleAllows(a('/metrics'), { verbs: ['get'], nonResourceURLs: ['/apis/*'] }));
});

test('bootstrap: default roles exist, admin/edit/view are aggregated, system:masters and discovery are bound', () => {
  for (const n of ['cluster-admin', 'admin', 'edit', 'view', 'system:discovery', 'system:basic-user', 'system:public-info-viewer']) assert.ok(cluster.get(`${RBAC}/clusterroles`, undefined, n), n);
  const view = cluster.get(`${RBAC}/clusterroles`, undefined, 'view')!.obj;
  const edit = cluster.get(`${RBAC}/clusterroles`, undefined, 'edit')!.obj;
  const adminRole = cluster.get(`${RBAC}/clusterroles`, undefined, 'admin')!.obj;
  assert.ok((view.rules as unknown[]).length >= 10);
  assert.ok((edit.rules as unknown[]).length > (view.rules as unknown[]).length, 'edit includes view');
  assert.ok((adminRole.rules as unknown[]).length > (edit.rules as unknown[]).length, 'admin includes edit');
  assert.ok(allowed(sa, 'GET', '/apis'), 'authenticated users may discover');
  assert.ok(allowed(sa, 'GET', '/version'));
  assert.ok(!allowed(sa, 'GET', '/metrics'));
  assert.ok(allowed({ username: 'someone', groups: ['system:masters'] }, 'DELETE', '/api/v1/nodes/n'));
});

test('a RoleBinding grants in its namespace only; the decision changes with the write; messages are kube\'s', () => {
  assert.deepEqual(message(sa, 'GET', '/api/v1/namespaces/default/pods/x'), {
    kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Failure',
    message: 'pods "x" is forbidden: User "system:serviceaccount:team:robot" cannot get resource "pods" in API group "" in the namespace "default"',
    reason: 'Forbidden', details: { name: 'x', kind: 'pods' }, code: 403,
  });
  assert.equal(message(sa, 'GET', '/apis/apps/v1/deployments').message, 'deployments.apps is forbidden: User "system:serviceaccount:team:robot" cannot list resource "deployments" in API group "apps" at the cluster scope');
  assert.deepEqual(message(sa, 'GET', '/metrics'), { kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Failure', message: 'forbidden: User "system:serviceaccount:team:robot" cannot get path "/metrics"', reason: 'Forbidden', details: {}, code: 403 });
  assert.equal(message(sa, 'GET', '/api/v1/namespaces/team/pods/p/log').message, 'pods "p" is forbidden: User "system:serviceaccount:team:robot" cannot get resource "pods/log" in API group "" in the namespace "team"');

  create(scope('namespaces'), { apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'team' } }, admin);
  create(scope('rolebindings', 'team'), { apiVersion: `${RBAC}/v1`, kind: 'RoleBinding', metadata: { name: 'robot-view', namespace: 'team' }, roleRef: { apiGroup: RBAC, kind: 'ClusterRole', name: 'view' }, subjects: [{ kind: 'ServiceAccount', name: 'robot' }] }, admin);
  assert.ok(allowed(sa, 'GET', '/api/v1/namespaces/team/pods'));
  assert.equal(auth.authorizer.authorize(attrs(sa, 'GET', '/api/v1/namespaces/team/pods')).reason, 'RBAC: allowed by RoleBinding "robot-view/team" of ClusterRole "view" to ServiceAccount "robot/team"');
  assert.equal(auth.authorizer.authorize(attrs(sa, 'GET', '/version')).reason, 'RBAC: allowed by ClusterRoleBinding "system:discovery" of ClusterRole "system:discovery" to Group "system:authenticated"');
  assert.ok(allowed(sa, 'GET', '/api/v1/namespaces/team/pods/p/log'));
  assert.ok(!allowed(sa, 'GET', '/api/v1/namespaces/team/secrets'), 'view does not read secrets');
  assert.ok(!allowed(sa, 'GET', '/api/v1/namespaces/default/pods'), 'only in its namespace');
  assert.ok(!allowed(sa, 'POST', '/api/v1/namespaces/team/pods'));
  remove(scope('rolebindings', 'team'), 'robot-view', {});
  assert.ok(!allowed(sa, 'GET', '/api/v1/namespaces/team/pods'), 'the cached decision went with the binding');
});

test('a binding to a missing role says so in the reason', () => {
  create(scope('rolebindings', 'team'), { apiVersion: `${RBAC}/v1`, kind: 'RoleBinding', metadata: { name: 'dangling', namespace: 'team' }, roleRef: { apiGroup: RBAC, kind: 'Role', name: 'ghost' }, subjects: [{ kind: 'Group', apiGroup: RBAC, name: 'system:serviceaccounts:team' }] }, admin);
  assert.equal(message(sa, 'GET', '/api/v1/namespaces/team/pods').message, 'pods is forbidden: User "system:serviceaccount:team:robot" cannot list resource "pods" in API group "" in the namespace "team": RBAC: role.rbac.authorization.k8s.io "ghost" not found');
  remove(scope('rolebindings', 'team'), 'dangling', {});
});

test('aggregation follows label changes of ClusterRoles', async () => {
  create(scope('clusterroles'), { apiVersion: `${RBAC}/v1`, kind: 'ClusterRole', metadata: { name: 'widgets-view', labels: { 'rbac.authorization.k8s.io/aggregate-to-view': 'true' } }, rules: [{ apiGroups: ['example.com'], resources: ['widgets'], verbs: ['get'] }] }, admin);
  await store.committed();
  await new Promise((r) => setImmediate(r));
  const has = () => JSON.stringify(cluster.get(`${RBAC}/clusterroles`, undefined, 'view')!.obj.rules).includes('widgets');
  assert.ok(has(), 'view gained the rule');
  await store.committed();
  await new Promise((r) => setImmediate(r));
  assert.ok(JSON.stringify(cluster.get(`${RBAC}/clusterroles`, undefined, 'admin')!.obj.rules).includes('widgets'), 'and admin through edit');
  mutate(scope('clusterroles'), 'widgets-view', (o) => void (o.metadata.labels = {}), admin);
  await store.committed();
  await new Promise((r) => setImmediate(r));
  assert.ok(!has(), 'and lost it with the label');
});

test('escalation: a Role granting more than its author holds is refused with kube\'s message; escalate/bind lift it', () => {
  const grant = (rules: unknown[], name = 'r1'): KubeObject => ({ apiVersion: `${RBAC}/v1`, kind: 'Role', metadata: { name, namespace: 'team' }, rules });
  create(scope('roles', 'team'), grant([{ apiGroups: [RBAC], resources: ['roles', 'rolebindings'], verbs: ['create'] }, { apiGroups: [''], resources: ['configmaps'], verbs: ['get', 'list'] }], 'role-author'), admin);
  create(scope('rolebindings', 'team'), { apiVersion: `${RBAC}/v1`, kind: 'RoleBinding', metadata: { name: 'author', namespace: 'team' }, roleRef: { apiGroup: RBAC, kind: 'Role', name: 'role-author' }, subjects: [{ kind: 'ServiceAccount', name: 'robot' }] }, admin);
  // Within what it holds: fine.
  create(scope('roles', 'team'), grant([{ apiGroups: [''], resources: ['configmaps'], verbs: ['get'] }], 'ok'), as(sa));
  assert.throws(() => create(scope('roles', 'team'), grant([{ apiGroups: [''], resources: ['secrets', 'configmaps'], verbs: ['get', 'delete'] }]), as(sa)), (e: { status: { message: string; code: number; details: unknown } }) => {
    assert.equal(e.status.code, 403);
    assert.deepEqual(e.status.details, { name: 'r1', group: RBAC, kind: 'roles' });
    assert.equal(e.status.message, 'roles.rbac.authorization.k8s.io "r1" is forbidden: user "system:serviceaccount:team:robot" (groups=["system:serviceaccounts" "system:serviceaccounts:team" "system:authenticated"]) is attempting to grant RBAC permissions not currently held:\n{APIGroups:[""], Resources:["configmaps"], Verbs:["delete"]}\n{APIGroups:[""], Resources:["secrets"], Verbs:["get" "delete"]}');
    return true;
  });
  assert.throws(() => create(scope('rolebindings', 'team'), { apiVersion: `${RBAC}/v1`, kind: 'RoleBinding', metadata: { name: 'b', namespace: 'team' }, roleRef: { apiGroup: RBAC, kind: 'ClusterRole', name: 'admin' }, subjects: [{ kind: 'ServiceAccount', name: 'robot' }] }, as(sa)), /rolebindings.rbac.authorization.k8s.io "b" is forbidden: user "system:serviceaccount:team:robot" .* is attempting to grant RBAC permissions not currently held/);
  // A binding to a role within its rights is fine.
  create(scope('rolebindings', 'team'), { apiVersion: `${RBAC}/v1`, kind: 'RoleBinding', metadata: { name: 'ok', namespace: 'team' }, roleRef: { apiGroup: RBAC, kind: 'Role', name: 'ok' }, subjects: [{ kind: 'ServiceAccount', name: 'robot' }] }, as(sa));
  // escalate and bind verbs.
  mutate(scope('roles', 'team'), 'role-author', (o) => void (o.rules as unknown[]).push({ apiGroups: [RBAC], resources: ['roles'], verbs: ['escalate'] }, { apiGroups: [RBAC], resources: ['clusterroles'], verbs: ['bind'], resourceNames: ['admin'] }), admin);
  create(scope('roles', 'team'), grant([{ apiGroups: ['*'], resources: ['*'], verbs: ['*'] }], 'big'), as(sa));
  create(scope('rolebindings', 'team'), { apiVersion: `${RBAC}/v1`, kind: 'RoleBinding', metadata: { name: 'b', namespace: 'team' }, roleRef: { apiGroup: RBAC, kind: 'ClusterRole', name: 'admin' }, subjects: [{ kind: 'ServiceAccount', name: 'robot' }] }, as(sa));
});

test('covers and compactString', () => {
  assert.ok(covers([{ verbs: ['*'], apiGroups: [''], resources: ['*/status'] }], [{ verbs: ['get'], apiGroups: [''], resources: ['pods/status'] }]).covered);
  assert.ok(!covers([{ verbs: ['get'], apiGroups: [''], resources: ['pods'], resourceNames: ['a'] }], [{ verbs: ['get'], apiGroups: [''], resources: ['pods'] }]).covered);
  assert.ok(covers([{ verbs: ['get'], nonResourceURLs: ['/apis/*'] }], [{ verbs: ['get'], nonResourceURLs: ['/apis/apps'] }]).covered);
  assert.equal(compactString({ verbs: ['get'], nonResourceURLs: ['/x'] }), '{NonResourceURLs:["/x"], Verbs:["get"]}');
});
