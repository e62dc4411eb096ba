import { strict as assert } from 'node:assert';
import { test } from 'node:test';
import { managedUser, managementUser, serviceAccountOfUser, tenantOf } from './index.js';

const SA = 'projectsveltos.io/serviceaccount-name';
const SANS = 'projectsveltos.io/serviceaccount-namespace';
const AN = 'projectsveltos.io/admin-name';
const ANS = 'projectsveltos.io/admin-namespace';

test('no tenant labels, or kubernetes-admin: the platform admin', () => {
  assert.deepEqual(tenantOf(undefined), { kind: 'admin' });
  assert.deepEqual(tenantOf({ app: 'x' }), { kind: 'admin' });
  assert.deepEqual(tenantOf({ [SA]: 'kubernetes-admin', [SANS]: 'default' }), { kind: 'admin' });
  assert.deepEqual(tenantOf({ [AN]: 'kubernetes-admin' }), { kind: 'admin' });
});

test('serviceaccount labels name the tenant; they must come in pairs', () => {
  assert.deepEqual(tenantOf({ [SA]: 'eng', [SANS]: 'tenants' }), { kind: 'tenant', tenant: { namespace: 'tenants', name: 'eng' } });
  const r = tenantOf({ [SA]: 'eng' });
  assert.equal(r.kind, 'invalid');
  assert.match((r as { message: string }).message, /must be set together/);
});

test('admin-name (the seed Kyverno policy stamps only the ServiceAccount name) resolves through RoleRequests', () => {
  const rrs = [{ spec: { serviceAccountName: 'eng', serviceAccountNamespace: 'tenants' } }, { spec: { serviceAccountName: 'ops', serviceAccountNamespace: 'a' } }, { spec: { serviceAccountName: 'ops', serviceAccountNamespace: 'b' } }];
  assert.deepEqual(tenantOf({ [AN]: 'eng' }, rrs), { kind: 'tenant', tenant: { namespace: 'tenants', name: 'eng' } });
  assert.deepEqual(tenantOf({ [AN]: 'ops', [ANS]: 'b' }, rrs), { kind: 'tenant', tenant: { namespace: 'b', name: 'ops' } });
  assert.match((tenantOf({ [AN]: 'ops' }, rrs) as { message: string }).message, /ambiguous: .* namespaces a, b/);
  assert.match((tenantOf({ [AN]: 'nobody' }, rrs) as { message: string }).message, /no RoleRequest grants tenant admin nobody/);
  // Never fall back to the admin: an unresolvable tenant label is refused.
  assert.equal(tenantOf({ [AN]: 'nobody' }, rrs).kind, 'invalid');
});

test('two spellings naming different tenants are refused', () => {
  const r = tenantOf({ [SA]: 'eng', [SANS]: 'tenants', [AN]: 'ops', [ANS]: 'a' });
  assert.equal(r.kind, 'invalid');
  assert.match((r as { message: string }).message, /two different tenants/);
  assert.deepEqual(tenantOf({ [SA]: 'eng', [SANS]: 'tenants', [AN]: 'eng' }), { kind: 'tenant', tenant: { namespace: 'tenants', name: 'eng' } });
});

test('users: management, managed (projectsveltos/<ns>--<name>), and parsing', () => {
  const t = { namespace: 'tenants', name: 'eng' };
  assert.equal(managementUser(t), 'system:serviceaccount:tenants:eng');
  assert.equal(managedUser(t), 'system:serviceaccount:projectsveltos:tenants--eng');
  assert.deepEqual(serviceAccountOfUser('system:serviceaccount:tenants:eng'), t);
  assert.equal(serviceAccountOfUser('kubernetes-admin'), undefined);
  assert.equal(serviceAccountOfUser('system:serviceaccount:a:b:c'), undefined);
});
