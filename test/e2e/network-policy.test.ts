// End to end, seeds 003/004 (NetworkPolicy per labelled Service) without a demo: plain `ripple up` with a cluster
// labelled env=fv, and kubectl applying the seed's YAML (the EventSource, the EventBasedAddOn + template ConfigMap,
// the Service) — the NetworkPolicy appears; removing the label or deleting the Service removes it.
import { strict as assert } from 'node:assert';
import { after, before, test } from 'node:test';
import { stringify } from 'yaml';
import { seedObjects } from '../support/seeds.js';
import { kubectlFor, startRippleUp, tempDataDir, until, type K8sObject, type RippleUp } from './ripple-up.js';

let data: ReturnType<typeof tempDataDir>;
let up: RippleUp;
before(() => {
  data = tempDataDir();
});
after(async () => {
  await up?.stop('SIGKILL');
  data.remove();
});

const block = (seed: string, index: number) =>
  seedObjects()
    .filter((o) => o.seed === seed && o.index === index && o.role === 'input')
    .map((o) => stringify(o.object))
    .join('---\n');

test('ripple up --cluster workload:env=fv + kubectl apply of seed 004: NetworkPolicy per labelled Service', { timeout: 90_000 }, async () => {
  up = startRippleUp(data.dir, ['--cluster', 'workload:env=fv']);
  await up.waitFor(/Ripple is running/);
  const k = kubectlFor(up.kubeconfig, data.dir);
  const np = () => k.run(['--context', 'workload', '-n', 'default', 'get', 'networkpolicy', 'front-my-service', '-o', 'json']).then((r) => (r.code === 0 ? (JSON.parse(r.stdout) as K8sObject) : undefined));

  await k.applyYaml('mgmt', block('004', 1));
  await k.applyYaml('mgmt', block('004', 5));
  await k.applyYaml('workload', block('004', 6));
  const policy = await until('NetworkPolicy front-my-service', np, Boolean);
  // What the seed shows Sveltos creating (004 block 7), field by field.
  assert.deepEqual(policy!.spec, {
    podSelector: { matchLabels: { 'app.kubernetes.io/name': 'MyApp' } },
    ingress: [{ from: [{ podSelector: { matchLabels: { app: 'internal' } } }], ports: [{ port: 80, protocol: 'TCP' }] }],
    policyTypes: ['Ingress'],
  });
  assert.equal(policy!.metadata.labels?.['projectsveltos.io/reason'], 'Resources');
  await up.waitFor(/deployed NetworkPolicy default\/front-my-service .* to workload by ClusterProfile sveltos-/);

  // The label goes: no longer an event, the NetworkPolicy goes; it comes back: so does the NetworkPolicy.
  await k.ok(['--context', 'workload', 'label', 'service', 'my-service', 'sveltos-']);
  await until('NetworkPolicy removed after unlabelling', np, (p) => p === undefined);
  await k.ok(['--context', 'workload', 'label', 'service', 'my-service', 'sveltos=fv']);
  await until('NetworkPolicy back after relabelling', np, Boolean);

  // The Lua version of the EventSource (004 block 2) replaces the label filter; deletion still withdraws.
  await k.applyYaml('mgmt', block('004', 2));
  await k.ok(['--context', 'workload', 'delete', 'service', 'my-service']);
  await until('NetworkPolicy removed after the Service is deleted', np, (p) => p === undefined);
  const profiles = await k.items('mgmt', ['clusterprofiles']);
  assert.deepEqual(profiles.map((p) => p.metadata.name), []);
  assert.deepEqual(await up.stop('SIGTERM'), { code: 0, signal: null });
});
