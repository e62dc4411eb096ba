import { strict as assert } from 'node:assert';
import { test } from 'node:test';
import { bindingName, parseRoles, planCluster, staleObjects, ROLE_REQUEST_LABEL } from './index.js';

const t = { namespace: 'tenants', name: 'eng' };
const cr = 'apiVersion: rbac.authorization.k8s.io/v1\nkind: ClusterRole\nmetadata:\n  name: reader\nrules: []\n';
const role = 'apiVersion: rbac.authorization.k8s.io/v1\nkind: Role\nmetadata:\n  name: editor\n  namespace: eng\nrules: []\n';

test('parseRoles reads roles from every key, in key order, and refuses anything else', () => {
  const ok = parseRoles([{ kind: 'ConfigMap', namespace: 'n', name: 'c', data: { b: role, a: `${cr}---\n` } }]);
  assert.ok(ok.ok);
  assert.deepEqual(ok.roles.map((r) => r.kind), ['ClusterRole', 'Role']);
  const bad = parseRoles([{ kind: 'Secret', namespace: 'n', name: 's', data: { x: 'apiVersion: v1\nkind: Secret\nmetadata:\n  name: s\n' } }]);
  assert.deepEqual(bad, { ok: false, message: 'Secret n/s key x: Secret s is not a rbac.authorization.k8s.io/v1 Role or ClusterRole; roleRefs may hold only roles' });
  const noNs = parseRoles([{ kind: 'ConfigMap', namespace: 'n', name: 'c', data: { x: role.replace('  namespace: eng\n', '') } }]);
  assert.match((noNs as { message: string }).message, /Role editor has no metadata.namespace/);
  const twice = parseRoles([{ kind: 'ConfigMap', namespace: 'n', name: 'c', data: { x: cr } }, { kind: 'ConfigMap', namespace: 'n', name: 'd', data: { x: cr } }]);
  assert.match((twice as { message: string }).message, /ClusterRole reader is defined twice \(ConfigMap n\/c and ConfigMap n\/d\)/);
  const yaml = parseRoles([{ kind: 'ConfigMap', namespace: 'n', name: 'c', data: { x: 'a: [' } }]);
  assert.match((yaml as { message: string }).message, /invalid YAML/);
});

test('planCluster: ServiceAccount, roles labelled with the RoleRequest, one binding per role to the tenant ServiceAccount', () => {
  const roles = parseRoles([{ kind: 'ConfigMap', namespace: 'n', name: 'c', data: { a: cr, b: role } }]);
  assert.ok(roles.ok);
  const p = planCluster('rr', t, roles.roles);
  assert.deepEqual(p.namespaces, ['eng', 'projectsveltos']);
  assert.deepEqual(p.serviceAccount.metadata, { name: 'tenants--eng', namespace: 'projectsveltos', labels: { 'projectsveltos.io/serviceaccount-name': 'eng', 'projectsveltos.io/serviceaccount-namespace': 'tenants' } });
  assert.deepEqual(p.objects.map((o) => `${o.kind}/${o.metadata.namespace ?? ''}/${o.metadata.name}`), ['ClusterRole//reader', 'Role/eng/editor', 'ClusterRoleBinding//reader--tenants--eng', 'RoleBinding/eng/editor--tenants--eng']);
  for (const o of p.objects) assert.equal(o.metadata.labels?.[ROLE_REQUEST_LABEL], 'rr');
  const crb = p.objects[2] as unknown as { roleRef: unknown; subjects: unknown };
  assert.deepEqual(crb.roleRef, { apiGroup: 'rbac.authorization.k8s.io', kind: 'ClusterRole', name: 'reader' });
  assert.deepEqual(crb.subjects, [{ kind: 'ServiceAccount', name: 'tenants--eng', namespace: 'projectsveltos' }]);
  assert.equal(planCluster('rr', t, roles.roles).hash, p.hash, 'stable hash');
  assert.notEqual(planCluster('rr', { ...t, name: 'ops' }, roles.roles).hash, p.hash);
});

test('staleObjects: only ours and no longer planned; long binding names stay valid', () => {
  const roles = parseRoles([{ kind: 'ConfigMap', namespace: 'n', name: 'c', data: { a: cr } }]);
  assert.ok(roles.ok);
  const p = planCluster('rr', t, roles.roles);
  const existing = [
    ...p.objects,
    { apiVersion: 'rbac.authorization.k8s.io/v1', kind: 'Role', metadata: { name: 'old', namespace: 'eng', labels: { [ROLE_REQUEST_LABEL]: 'rr' } } },
    { apiVersion: 'rbac.authorization.k8s.io/v1', kind: 'Role', metadata: { name: 'other', namespace: 'eng', labels: { [ROLE_REQUEST_LABEL]: 'rr2' } } },
  ];
  assert.deepEqual(staleObjects('rr', existing, p).map((o) => o.metadata.name), ['old']);
  assert.deepEqual(staleObjects('rr', existing, undefined).map((o) => o.metadata.name), ['reader', 'reader--tenants--eng', 'old']);
  assert.ok(bindingName('r'.repeat(250), t).length <= 253);
});
