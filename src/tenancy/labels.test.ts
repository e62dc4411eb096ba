import { strict as assert } from 'node:assert';
import { test } from 'node:test';
import { tenantLabelDecision } from './index.js';

const me = 'system:serviceaccount:tenants:eng';
const L = 'lib.projectsveltos.io';

test('a tenant ServiceAccount gets its labels stamped on the tenant kinds only', () => {
  assert.deepEqual(tenantLabelDecision(me, L, 'EventTrigger', { app: 'x' }), { action: 'set', labels: { 'projectsveltos.io/serviceaccount-name': 'eng', 'projectsveltos.io/serviceaccount-namespace': 'tenants' } });
  assert.deepEqual(tenantLabelDecision(me, 'config.projectsveltos.io', 'Profile', undefined).action, 'set');
  assert.deepEqual(tenantLabelDecision(me, '', 'ConfigMap', {}), { action: 'none' });
  assert.deepEqual(tenantLabelDecision(me, L, 'EventReport', {}), { action: 'none' });
  assert.deepEqual(tenantLabelDecision(me, L, 'EventSource', { 'projectsveltos.io/serviceaccount-name': 'eng', 'projectsveltos.io/serviceaccount-namespace': 'tenants' }), { action: 'none' });
  assert.deepEqual(tenantLabelDecision(me, L, 'EventSource', { 'projectsveltos.io/admin-name': 'eng' }).action, 'set');
});

test('naming another tenant (either spelling) is refused', () => {
  const d = tenantLabelDecision(me, L, 'EventSource', { 'projectsveltos.io/serviceaccount-name': 'ops' });
  assert.deepEqual(d, { action: 'deny', message: 'label projectsveltos.io/serviceaccount-name is set from the requesting ServiceAccount tenants/eng: it may be "eng" or absent, not "ops"' });
  assert.equal(tenantLabelDecision(me, L, 'EventSource', { 'projectsveltos.io/admin-name': 'kubernetes-admin' }).action, 'deny');
  assert.equal(tenantLabelDecision(me, L, 'EventSource', { 'projectsveltos.io/admin-namespace': 'other' }).action, 'deny');
});

test('platform users and Sveltos controllers (projectsveltos ServiceAccounts) are not stamped', () => {
  assert.deepEqual(tenantLabelDecision('kubernetes-admin', L, 'EventTrigger', { 'projectsveltos.io/serviceaccount-name': 'ops' }), { action: 'none' });
  assert.deepEqual(tenantLabelDecision('system:serviceaccount:projectsveltos:ripple', L, 'EventTrigger', { 'projectsveltos.io/serviceaccount-name': 'ops' }), { action: 'none' });
  assert.deepEqual(tenantLabelDecision(undefined, L, 'EventTrigger', {}), { action: 'none' });
});

test('an update may not take over the object of another tenant or of the admin', () => {
  const mine = { 'projectsveltos.io/serviceaccount-name': 'eng', 'projectsveltos.io/serviceaccount-namespace': 'tenants' };
  assert.deepEqual(tenantLabelDecision(me, L, 'EventTrigger', mine, mine), { action: 'none' });
  const theirs = { 'projectsveltos.io/serviceaccount-name': 'ops', 'projectsveltos.io/serviceaccount-namespace': 'tenants' };
  assert.deepEqual(tenantLabelDecision(me, L, 'EventTrigger', {}, theirs), { action: 'deny', message: 'this EventTrigger belongs to tenant tenants/ops; ServiceAccount tenants/eng may change only its own' });
  assert.match((tenantLabelDecision(me, L, 'EventTrigger', {}, {}) as { message: string }).message, /belongs to the platform admin/);
});
