// Which passes of the Resources feature record a `Deployed` Event: one that creates or removes objects, and one that
// recovers from a failed pass; a pass that only updates objects already deployed shows in the ClusterSummary's status
// alone (with event-driven add-ons that is every event). Failures always record their Warning.
import { strict as assert } from 'node:assert';
import { after, before, describe, test } from 'node:test';
import { eventually } from '../../test/support/eventually.js';
import type { KubeObject } from '../kube/index.js';
import { startAddonTestEnv, type AddonTestEnv } from '../../test/support/addon-env.js';

const CP = { apiVersion: 'config.projectsveltos.io/v1beta1', kind: 'ClusterProfile' } as const;
const CS = { apiVersion: 'config.projectsveltos.io/v1beta1', kind: 'ClusterSummary' } as const;
const CM = { apiVersion: 'v1', kind: 'ConfigMap' } as const;
type Feature = { status?: string; failureMessage?: string; hash?: string };
type Obj = KubeObject & { status?: { featureSummaries?: Feature[] }; data?: Record<string, string> };
type Ev = KubeObject & { involvedObject: { name: string }; reason: string; message: string; count: number; type: string };

const configMap = (name: string, value: string) => `apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: ${name}\n  namespace: de\ndata:\n  value: "${value}"\n`;

describe('Deployed Events of the Resources feature', () => {
  let env: AddonTestEnv;
  before(async () => {
    env = await startAddonTestEnv({ clusters: [{ name: 'e1', labels: { env: 'events' } }] });
  });
  after(async () => env?.stop());
  const put = (o: object) => env.mgmt.apply(o as KubeObject, { fieldManager: 'test', force: true });
  const policy = (text: string) => put({ ...CM, metadata: { name: 'de-policy', namespace: 'default' }, data: { 'all.yaml': text } });
  const summary = 'de-sveltos-e1';
  const feature = async () => (await env.mgmt.getIfExists<Obj>({ ...CS, namespace: 'e1', name: summary }))?.status?.featureSummaries?.[0];
  const deployedValue = async (name: string) => (await env.clusters.e1.getIfExists<Obj>({ ...CM, namespace: 'de', name }))?.data?.value;
  const events = async (reason: string) => {
    await env.recorder.flush();
    return (await env.mgmt.list<Ev>({ apiVersion: 'v1', kind: 'Event' }, { namespace: 'e1' })).items.filter((e) => e.involvedObject.name === summary && e.reason === reason);
  };
  const deployedCount = async () => (await events('Deployed')).reduce((n, e) => n + e.count, 0);

  test('created objects record one; updates of deployed objects none; a recovery from a failure one', async () => {
    await policy(configMap('a', 'one'));
    await put({ ...CP, metadata: { name: 'de' }, spec: { clusterSelector: { matchLabels: { env: 'events' } }, policyRefs: [{ kind: 'ConfigMap', name: 'de-policy', namespace: 'default' }] } });
    await eventually(() => deployedValue('a'), (v) => v === 'one', { message: 'a deployed' });
    await eventually(feature, (f) => f?.status === 'Provisioned', { message: 'Provisioned' });
    const first = await events('Deployed');
    assert.equal(first.length, 1, JSON.stringify(first.map((e) => e.message)));
    assert.match(first[0]!.message, /deployed to cluster e1\/e1: 1 created, 0 updated, 0 removed/);

    // Updates only: the objects change, status says so, no Event.
    for (const v of ['two', 'three']) {
      const before = (await feature())?.hash;
      await policy(configMap('a', v));
      await eventually(() => deployedValue('a'), (x) => x === v, { message: `a is ${v}` });
      await eventually(feature, (f) => f?.status === 'Provisioned' && f.hash !== before, { message: `Provisioned with the new hash (${v})` });
    }
    assert.equal(await deployedCount(), 1, 'updating deployed objects records no Deployed Event');

    // One more object: created, so an Event.
    await policy(configMap('a', 'three') + '---\n' + configMap('b', 'one'));
    await eventually(() => deployedValue('b'), (v) => v === 'one', { message: 'b deployed' });
    // Same message as the first pass ("1 created, 0 updated, 0 removed"): the recorder counts it on the same Event.
    const afterCreate = await eventually(deployedCount, (n) => n === 2, { message: 'a pass that created an object records one' });

    // A failing pass (an invalid object) records its Warning; the next good pass, though it only updates, records one.
    await policy(configMap('a', 'four') + '---\n' + configMap('b', 'one') + '---\n' + configMap('Not_A_Name', 'x'));
    await eventually(feature, (f) => f?.status === 'Failed', { message: 'Failed' });
    assert.ok((await events('DeploymentFailed')).length >= 1, 'the failure is an Event');
    await policy(configMap('a', 'five') + '---\n' + configMap('b', 'one'));
    await eventually(() => deployedValue('a'), (v) => v === 'five', { message: 'a is five' });
    await eventually(feature, (f) => f?.status === 'Provisioned', { message: 'Provisioned again' });
    await eventually(deployedCount, (n) => n === afterCreate + 1, { message: 'a recovery records a Deployed Event' });

    // Removing an object records one.
    await policy(configMap('a', 'five'));
    await eventually(() => deployedValue('b'), (v) => v === undefined, { message: 'b removed' });
    await eventually(async () => (await events('Deployed')).map((e) => e.message), (m) => m.some((x) => /0 created, 0 updated, 1 removed/.test(x)), { message: 'Deployed Event for the removal' });
  });
});
