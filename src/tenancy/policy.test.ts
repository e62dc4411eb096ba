// The tenancy ValidatingAdmissionPolicy on the embedded API server, for a ServiceAccount's requests: its CEL
// evaluates (no expression error), and combined with the server's own stamping a tenant's write goes through with
// its labels. The platform admin is not matched.
import { strict as assert } from 'node:assert';
import { test } from 'node:test';
import { generateCrds } from '../api/index.js';
import { KubeClient, createKubeClient, type KubeObject } from '../kube/index.js';
import { startTestApiServer } from '../../test/support/apiserver.js';
import { tenancyPolicy } from './index.js';

test('with the policy installed, a tenant ServiceAccount writes EventSources labelled as itself; forging is refused', async () => {
  const api = await startTestApiServer({ clusters: ['mgmt'] });
  const admin = new KubeClient(await api.kubeConfig('mgmt'));
  let tenant: KubeClient | undefined;
  try {
    for (const crd of generateCrds()) await admin.create(crd as unknown as KubeObject);
    for (const o of tenancyPolicy()) await admin.create(o);
    await admin.create({ apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'eng' } });
    await admin.create({ apiVersion: 'v1', kind: 'ServiceAccount', metadata: { name: 'eng', namespace: 'eng' } });
    await admin.create({ apiVersion: 'rbac.authorization.k8s.io/v1', kind: 'ClusterRoleBinding', metadata: { name: 'eng' }, roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'ClusterRole', name: 'cluster-admin' }, subjects: [{ kind: 'ServiceAccount', name: 'eng', namespace: 'eng' }] } as KubeObject);
    const tr = await admin.request<{ status: { token: string } }>({ method: 'POST', path: '/api/v1/namespaces/eng/serviceaccounts/eng/token', body: { apiVersion: 'authentication.k8s.io/v1', kind: 'TokenRequest', spec: {} } });
    const yaml = api.server.kubeconfigYaml('mgmt').replace(/token: .*/, `token: ${JSON.stringify(tr.status.token)}`);
    tenant = createKubeClient({ yaml });
    const es = (name: string, labels?: Record<string, string>) => ({ apiVersion: 'lib.projectsveltos.io/v1beta1', kind: 'EventSource', metadata: { name, ...(labels ? { labels } : {}) }, spec: { resourceSelectors: [{ group: '', version: 'v1', kind: 'Service' }] } });
    const made = await tenant.create<KubeObject>(es('mine'));
    assert.deepEqual(made.metadata.labels, { 'projectsveltos.io/serviceaccount-name': 'eng', 'projectsveltos.io/serviceaccount-namespace': 'eng' });
    await assert.rejects(tenant.create(es('forged', { 'projectsveltos.io/serviceaccount-name': 'ops' })), /eventsources.lib.projectsveltos.io "forged" is forbidden: label projectsveltos.io\/serviceaccount-name is set from the requesting ServiceAccount eng\/eng/);
    // The platform admin is not a ServiceAccount: neither stamped nor matched by the policy.
    const adm = await admin.create<KubeObject>(es('platform', { 'projectsveltos.io/serviceaccount-name': 'ops', 'projectsveltos.io/serviceaccount-namespace': 'ops' }));
    assert.equal(adm.metadata.labels?.['projectsveltos.io/serviceaccount-name'], 'ops');
  } finally {
    tenant?.close();
    admin.close();
    await api.stop();
  }
});
