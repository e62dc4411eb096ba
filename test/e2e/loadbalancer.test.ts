// End to end, seed 000 (load balancer): `ripple up --demo loadbalancer` as a child process, checked and driven with
// kubectl only — the address reaches svc-a's status in cluster-a; a restart in the middle keeps everything and
// duplicates nothing; the event going away and coming back at once (while the generated ClusterProfile is still
// withdrawing, held by the deployer's finalizer) converges to the same single ClusterProfile; deleting svc-a
// withdraws everything; Ctrl-C exits 130.
import { strict as assert } from 'node:assert';
import { after, before, test } from 'node:test';
import { kubectlFor, startRippleUp, tempDataDir, until, type K8sObject, type Kubectl, type RippleUp } from './ripple-up.js';

const TRIGGER = 'eventtrigger.lib.projectsveltos.io/eventtriggername=loadbalancer-class-handler';
const lbAddress = (s: K8sObject | undefined) => ((s?.status?.loadBalancer as { ingress?: { ip?: string }[] } | undefined)?.ingress ?? []).map((i) => i.ip);

let data: ReturnType<typeof tempDataDir>;
let up: RippleUp;
let k: Kubectl;

before(() => {
  data = tempDataDir();
});
after(async () => {
  await up?.stop('SIGKILL');
  data.remove();
});

/** state reads what the scenario produced: generated and deployed ClusterProfiles, upstream Services, svc-a. */
async function state() {
  const [generated, profiles, upstream, svcA] = await Promise.all([
    k.items('mgmt', ['clusterprofiles', '-l', TRIGGER]),
    k.items('mgmt', ['clusterprofiles']),
    k.items('mgmt', ['services', '-n', 'cluster-a']),
    k.run(['--context', 'cluster-a', '-n', 'test', 'get', 'service', 'svc-a', '-o', 'json']).then((r) => (r.code === 0 ? (JSON.parse(r.stdout) as K8sObject) : undefined)),
  ]);
  return { generated, lbs: profiles.filter((p) => p.metadata.name.startsWith('lbs-')), upstream: upstream.filter((s) => s.metadata.name.startsWith('lb-')), svcA };
}

const converged = (s: Awaited<ReturnType<typeof state>>) =>
  s.generated.length === 1 && !s.generated[0].metadata.deletionTimestamp && s.lbs.length === 1 && s.upstream.length === 1 && lbAddress(s.svcA)[0] === '1.1.1.1';

test('ripple up --demo loadbalancer: svc-a gets the address mgmt assigned; restart, flap and delete converge', { timeout: 120_000 }, async () => {
  up = startRippleUp(data.dir, ['--demo', 'loadbalancer']);
  await up.waitFor(/Ripple is running/);
  k = kubectlFor(up.kubeconfig, data.dir);
  const out = up.stdout();
  assert.match(out, /export KUBECONFIG=.*kubeconfig/);
  assert.match(out, /event: EventSource loadbalancer-class-handler matches Service test\/svc-a in cluster cluster-a/);
  assert.match(out, /✓ .* svc-a in cluster-a carries the upstream address in its status/);

  // kubectl sees the clusters registered like Sveltos registers them, and the outcome.
  const clusters = await k.items('mgmt', ['sveltoscluster', '-A']);
  assert.deepEqual(clusters.map((c) => `${c.metadata.namespace}/${c.metadata.name}:${c.metadata.labels?.env ?? ''}`).sort(), ['cluster-a/cluster-a:prod', 'mgmt/mgmt:']);
  await k.ok(['--context', 'mgmt', '-n', 'cluster-a', 'get', 'secret', 'cluster-a-sveltos-kubeconfig']);
  const first = await until('the load-balancer chain', state, converged);
  assert.match(await k.ok(['--context', 'cluster-a', '-n', 'test', 'get', 'service', 'svc-a']), /1\.1\.1\.1/, 'kubectl shows EXTERNAL-IP');
  // The generated ClusterProfile carries the deployer's finalizer from the event manager's first write: no second
  // write by the deployer to add it.
  const gp = await k.json<K8sObject & { metadata: { finalizers?: string[]; managedFields?: { manager: string; operation: string; fieldsV1?: { 'f:metadata'?: Record<string, unknown> } }[] } }>(
    ['--context', 'mgmt', 'get', 'clusterprofile', first.generated[0].metadata.name, '--show-managed-fields'],
  );
  assert.deepEqual(gp.metadata.finalizers, ['clusterprofilefinalizer.projectsveltos.io']);
  const finalizerOwners = (gp.metadata.managedFields ?? []).filter((m) => m.fieldsV1?.['f:metadata']?.['f:finalizers'] !== undefined).map((m) => `${m.manager}/${m.operation}`);
  assert.deepEqual(finalizerOwners, ['ripple-event-manager/Apply'], JSON.stringify(gp.metadata.managedFields));

  // Restart in the middle of the scenario: SIGTERM → clean exit 0; the same data directory resumes.
  assert.deepEqual(await up.stop('SIGTERM'), { code: 0, signal: null });
  assert.match(up.stdout(), /ripple up: stopped; state kept in/);
  up = startRippleUp(data.dir, []);
  await up.waitFor(/Ripple is running/);
  const again = await state();
  assert.ok(converged(again), JSON.stringify(again));
  assert.equal(again.generated[0].metadata.uid, first.generated[0].metadata.uid, 'the generated ClusterProfile survived the restart (not re-created)');
  assert.equal(again.upstream[0].metadata.uid, first.upstream[0].metadata.uid);
  assert.match(up.stdout(), /cluster-a\s+SveltosCluster cluster-a\/cluster-a, labels env=prod/, 'clusters and labels come back without flags');

  // The event goes away and comes back at once: the generated ClusterProfile (same deterministic name) may still be
  // withdrawing behind the deployer's finalizer; it must be re-created once the old one is gone.
  const svcFile = `${data.dir}/demos/loadbalancer/02-cluster-a-seed-000-block-1.yaml`;
  await k.ok(['--context', 'cluster-a', '-n', 'test', 'delete', 'service', 'svc-a', '--wait=false']);
  await k.ok(['--context', 'cluster-a', 'apply', '--server-side', '-f', svcFile]);
  const flapped = await until('the chain after the event came back', state, (s) => converged(s) && s.generated[0].metadata.uid !== first.generated[0].metadata.uid);
  assert.equal(flapped.generated[0].metadata.name, first.generated[0].metadata.name, 'same deterministic name');

  // Deleting svc-a withdraws everything from mgmt; the report lists nothing.
  const mark = up.stdout().length;
  await k.ok(['--context', 'cluster-a', '-n', 'test', 'delete', 'service', 'svc-a']);
  await until('withdrawal', state, (s) => s.generated.length === 0 && s.lbs.length === 0 && s.upstream.length === 0);
  const report = await k.json<K8sObject>(['--context', 'mgmt', '-n', 'cluster-a', 'get', 'eventreport', 'sveltos--loadbalancer-class-handler--cluster-a']);
  assert.equal(report.spec?.matchingResources, undefined);
  await up.waitFor(/EventTrigger loadbalancer-class-handler withdrew ClusterProfile/, { from: mark });

  // Ctrl-C: exit code 130.
  assert.deepEqual(await up.stop('SIGINT'), { code: 130, signal: null });
});
