// upstream.test.ts: bugs found in landed components while building the event manager, pinned as failing tests
// (marked todo so the suite stays green) for the lead to fix on main; remove the todo when fixed.
import { strict as assert } from 'node:assert';
import { test } from 'node:test';
import { generateCrds } from '../api/index.js';
import { KubeClient, type KubeObject } from '../kube/index.js';
import { startTestApiServer } from '../../test/support/apiserver.js';
import { seedObjects } from '../../test/support/seeds.js';

test(
  'apiserver: a write through lib.projectsveltos.io/v1alpha1 is validated with the v1alpha1 schema (seed 001 EventTrigger, string selectors)',
  {
    todo:
      'src/apiserver/registry.ts validateAll validates custom resources with the storage version schema (desc.schema(desc.storageVersion)); ' +
      'kube-apiserver validates with the schema of the request version (crdHandler builds one validator per served version), so the ' +
      'seed 001 EventTrigger (sourceClusterSelector: env=production) is rejected with 422 "must be of type object"',
  },
  async () => {
    const api = await startTestApiServer({ clusters: ['mgmt'] });
    try {
      const mgmt = new KubeClient(await api.kubeConfig('mgmt'));
      for (const crd of generateCrds()) await mgmt.create(crd as unknown as KubeObject);
      const et = seedObjects().find((s) => s.seed === '001' && (s.object as { kind?: string }).kind === 'EventTrigger')!.object as unknown as KubeObject;
      assert.equal(et.apiVersion, 'lib.projectsveltos.io/v1alpha1');
      const created = await mgmt.create<KubeObject & { spec: { sourceClusterSelector: unknown } }>(et);
      assert.equal(created.spec.sourceClusterSelector, 'env=production');
      mgmt.close();
    } finally {
      await api.stop();
    }
  },
);
