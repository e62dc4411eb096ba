// known-issues.test.ts: minimal reproductions of bugs found in landed components while building the agent. Fixed
// ones stay here as regression tests.
import { strict as assert } from 'node:assert';
import { test } from 'node:test';
import { generateCrds } from '../api/index.js';
import { KubeClient, type KubeObject } from '../kube/index.js';
import { startTestApiServer } from '../../test/support/apiserver.js';

test(
  'embedded API server: a v1alpha1 EventTrigger with string selectors is accepted (validated with the v1alpha1 schema)',
  async () => {
    const api = await startTestApiServer({ clusters: ['mgmt'] });
    const c = new KubeClient(await api.kubeConfig('mgmt'));
    try {
      for (const crd of generateCrds()) await c.create(crd as unknown as KubeObject);
      const t = { apiVersion: 'lib.projectsveltos.io/v1alpha1', kind: 'EventTrigger', metadata: { name: 'service-policy' }, spec: { sourceClusterSelector: 'env=production', eventSourceName: 'load-balancer-service' } };
      const created = await c.create<KubeObject & { spec: { sourceClusterSelector: unknown } }>(t as unknown as KubeObject);
      assert.equal(created.spec.sourceClusterSelector, 'env=production');
    } finally {
      c.close();
      await api.stop();
    }
  },
);
