import { strict as assert } from 'node:assert';
import { test } from 'node:test';
import { tenantReads } from './tenant.js';

test('tenantReads: policyRefs, templateResourceRefs, Helm valuesFrom and registry credentials, namespaces defaulted to the cluster namespace', () => {
  const reads = tenantReads(
    [{ kind: 'Secret', namespace: 'tenants', name: 'np' }],
    [{ resource: { apiVersion: 'v1', kind: 'Secret' }, ns: 'platform', nm: 'db', identifier: 'DB' }, { resource: { apiVersion: 'v1', kind: 'Namespace' }, ns: '', nm: 'kube-system', identifier: 'NS' }],
    { helmCharts: [{ releaseName: 'web', releaseNamespace: 'web', repositoryURL: 'x', repositoryName: 'x', chartName: 'x', chartVersion: '1', valuesFrom: [{ kind: 'ConfigMap', name: 'vals', namespace: '' }], registryCredentialsConfig: { credentials: { name: 'cred' } } }] } as never,
    'fleet',
  );
  assert.deepEqual(
    reads.map((r) => `${r.via} ${r.kind} ${r.namespace ?? ''}/${r.name}`),
    ['policyRefs[0] Secret tenants/np', 'templateResourceRefs DB Secret platform/db', 'templateResourceRefs NS Namespace /kube-system', 'helmCharts[web].valuesFrom[0] ConfigMap fleet/vals', 'helmCharts[web].registryCredentialsConfig.credentials Secret fleet/cred'],
  );
});
