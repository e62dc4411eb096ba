import { strict as assert } from 'node:assert';
import { test } from 'node:test';
import { parseTenantFlag, tenantObjects } from './index.js';

test('parseTenantFlag: NAME, NAME:selector, and refusals', () => {
  assert.deepEqual(parseTenantFlag('eng'), { name: 'eng' });
  assert.deepEqual(parseTenantFlag('eng:env=prod,tier in (a,b)'), { name: 'eng', clusterSelector: { matchLabels: { env: 'prod' }, matchExpressions: [{ key: 'tier', operator: 'In', values: ['a', 'b'] }] } });
  assert.throws(() => parseTenantFlag('BAD NAME'), /tenant name "BAD NAME": a lowercase RFC 1123 label/);
  assert.throws(() => parseTenantFlag('eng:env in ('), /couldn't parse the selector string/);
});

test('tenantObjects: the roles granted in managed clusters live in projectsveltos, the RoleRequest names the tenant', () => {
  const objs = tenantObjects({ name: 'eng', clusterSelector: { matchLabels: { env: 'prod' } } });
  const rr = objs.find((o) => o.kind === 'RoleRequest') as unknown as { spec: Record<string, unknown> };
  assert.deepEqual(rr.spec, { clusterSelector: { matchLabels: { env: 'prod' } }, roleRefs: [{ kind: 'ConfigMap', name: 'tenant-eng-roles', namespace: 'projectsveltos' }], serviceAccountName: 'eng', serviceAccountNamespace: 'eng' });
  const cm = objs.find((o) => o.kind === 'ConfigMap')!;
  assert.equal(cm.metadata.namespace, 'projectsveltos');
  // The tenant gets no RBAC rights in the management cluster beyond its own namespace's Role.
  const rules = JSON.stringify(objs.filter((o) => o.kind === 'ClusterRole' || o.kind === 'Role').map((o) => (o as unknown as { rules: unknown }).rules));
  assert.ok(!rules.includes('rbac.authorization.k8s.io') && !rules.includes('rolerequests') && !rules.includes('"*"'), rules);
});
