// The add-on half of the load-balancer seed (testdata/seeds/000_*.txt), with the seed's YAML verbatim: the
// ClusterProfile the event manager generates deploys, Local, a LoadBalancer Service and a second ClusterProfile into
// the management cluster; the load-balancer simulator gives that Service an address; the second ClusterProfile's
// templateResourceRefs (`getResource "UpstreamLB"`) carries the address back into the managed cluster's svc-a
// through the status subresource named by the seed's misspelled `projectsveltos.io/subressources` annotation.
// The event manager's instantiation is emulated here with the seed's own `projectsveltos.io/instantiate` templates
// rendered by the event function map (what src/events does), so the chain starts from the seed's inputs.
import { strict as assert } from 'node:assert';
import { after, before, describe, test } from 'node:test';
import { eventually } from '../../test/support/eventually.js';
import { seedObjects } from '../../test/support/seeds.js';
import { eventFuncMap } from '../funcs/index.js';
import { decodeJSON, Template } from '../gotemplate/index.js';
import type { KubeObject } from '../kube/index.js';
import { ADOPTED_ANNOTATION } from './names.js';
import { startAddonTestEnv, SC, type AddonTestEnv } from '../../test/support/addon-env.js';

type Obj = KubeObject & { data?: Record<string, string>; status?: Record<string, unknown>; spec?: Record<string, unknown> };
const CP = { apiVersion: 'config.projectsveltos.io/v1beta1', kind: 'ClusterProfile' } as const;
const SVC = { apiVersion: 'v1', kind: 'Service' } as const;

const seed = seedObjects().filter((o) => o.seed === '000');
const pick = (kind: string, name: string, index?: number) => {
  const o = seed.find((s) => (s.object as Obj).kind === kind && (s.object as Obj).metadata?.name === name && (index === undefined || s.index === index));
  assert.ok(o, `seed 000 has ${kind} ${name}`);
  return structuredClone(o.object) as Obj;
};

describe('seed 000: load balancer (add-on half)', () => {
  let env: AddonTestEnv;
  let lbName = '';
  before(async () => {
    env = await startAddonTestEnv({ clusters: [{ name: 'a', namespace: 'cluster-a', labels: { env: 'prod' } }], loadBalancer: ['mgmt'] });
  });
  after(async () => env?.stop());

  test('the generated ClusterProfile deploys the upstream Service and the status ClusterProfile; the address reaches svc-a', async () => {
    const a = env.clusters.a;
    // Managed cluster: the user's svc-a, exactly as the seed shows it.
    const svcA = pick('Service', 'svc-a');
    await a.create({ apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'test' } });
    const createdSvcA = await a.create<Obj>(svcA);
    // Management cluster: the seed's ConfigMaps (full code block), in projectsveltos.
    await env.mgmt.create({ apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'projectsveltos' } });
    const svcTemplate = pick('ConfigMap', 'loadbalancer-class-handler-svc', 6);
    const cpTemplate = pick('ConfigMap', 'loadbalancer-class-handler-cp', 6);
    const statusCm = pick('ConfigMap', 'loadbalancer-class-handler-status', 6);
    await env.mgmt.create(statusCm);

    // What the event manager does for svc-a in cluster a: instantiate both templates with .Resource and .Cluster
    // (event-manager numbers: .Resource float64, .Cluster int64), and generate a ClusterProfile like the seed's.
    const cluster = await env.mgmt.get<Obj>({ ...SC, namespace: 'cluster-a', name: 'a' });
    const data = { Resource: decodeJSON(JSON.stringify(createdSvcA)), Cluster: decodeJSON(JSON.stringify(cluster), { numbers: 'int64' }) };
    const funcs = eventFuncMap({ clock: { now: () => Date.now() } });
    const instantiate = (cm: Obj, name: string): Obj => {
      const out: Record<string, string> = {};
      for (const [k, v] of Object.entries(cm.data ?? {})) out[k] = new Template(k, { funcs, missingKey: 'error' }).parse(v).execute(data);
      return { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name, namespace: 'projectsveltos' }, data: out };
    };
    await env.mgmt.create(instantiate(svcTemplate, 'sveltos-8dem6v44g95u8lh5oi55'));
    await env.mgmt.create(instantiate(cpTemplate, 'sveltos-uad8ick2n9mrde65usds'));
    const generated = pick('ClusterProfile', 'sveltos-2z2p8p7olrro79biygp8');
    delete generated.status;
    for (const r of generated.spec!.policyRefs as { namespace?: string }[]) r.namespace = 'projectsveltos';
    await env.mgmt.create(generated);

    // Local deployment: the upstream Service in the cluster namespace of the management cluster…
    const upstream = await eventually(
      async () => (await env.mgmt.list<Obj>(SVC, { namespace: 'cluster-a' })).items.find((s) => s.metadata.name.startsWith('lb-')),
      Boolean,
      { message: 'upstream Service deployed Local' },
    );
    lbName = upstream!.metadata.name;
    assert.match(lbName, /^lb-[0-9a-f]{40}$/);
    assert.equal(upstream!.metadata.annotations!['lb.buttah.cloud/name'], 'svc-a');
    assert.equal(upstream!.metadata.annotations!['lb.buttah.cloud/namespace'], 'test');
    assert.equal(upstream!.metadata.annotations!['projectsveltos.io/deploymenttype'], 'Local');
    assert.equal(upstream!.metadata.annotations!['projectsveltos.io/owner-name'], 'sveltos-2z2p8p7olrro79biygp8');
    // …and the status ClusterProfile, which the deployer then runs itself.
    const lbs = await eventually(() => env.mgmt.getIfExists<Obj>({ ...CP, name: `lbs-${lbName.slice(3)}` }), Boolean, { message: 'lbs ClusterProfile deployed Local' });
    assert.equal(lbs!.metadata.annotations!['projectsveltos.io/reference-name'], 'sveltos-uad8ick2n9mrde65usds');

    // The simulator assigns 1.1.1.1; the templateResourceRefs watch re-renders and patches svc-a's status in cluster a.
    const patched = await eventually(
      () => a.get<Obj>({ ...SVC, namespace: 'test', name: 'svc-a' }),
      (o) => JSON.stringify((o.status as { loadBalancer?: unknown })?.loadBalancer) === JSON.stringify({ ingress: [{ ip: '1.1.1.1' }] }),
      { message: 'svc-a status carries the upstream address', timeoutMs: 15_000 },
    );
    // svc-a was the user's object: Ripple adopted it (recording the subresource it wrote) and kept its spec.
    assert.equal(patched.metadata.annotations![ADOPTED_ANNOTATION], 'status');
    assert.deepEqual(patched.spec, createdSvcA.spec);
    assert.equal(patched.metadata.labels!['lb.buttah.cloud/class'], 'internet');

    // The misspelled annotation worked, with a Warning Event telling the user to rename it.
    await env.recorder.flush();
    const events = (await env.mgmt.list<Obj & { reason?: string; message?: string; involvedObject?: { name?: string } }>({ apiVersion: 'v1', kind: 'Event' }, { namespace: 'cluster-a' })).items;
    assert.ok(events.some((e) => e.reason === 'MisspelledAnnotation' && e.message?.includes('projectsveltos.io/subressources')), JSON.stringify(events.map((e) => [e.reason, e.message])));
  });

  test('a new address on the upstream Service is carried over promptly', async () => {
    // The load balancer moves the Service to another address (as an LB controller writes status): svc-a follows.
    await env.mgmt.patch({ ...SVC, namespace: 'cluster-a', name: lbName }, 'merge', { status: { loadBalancer: { ingress: [{ ip: '1.1.1.3' }] } } }, { subresource: 'status' });
    await eventually(
      () => env.clusters.a.get<Obj>({ ...SVC, namespace: 'test', name: 'svc-a' }),
      (o) => JSON.stringify((o.status as { loadBalancer?: unknown })?.loadBalancer).includes('1.1.1.3'),
      { message: 'new address carried over', timeoutMs: 15_000 },
    );
  });

  test('withdrawal releases the adopted svc-a (stamps and status removed) instead of deleting it', async () => {
    await env.mgmt.delete({ ...CP, name: 'sveltos-2z2p8p7olrro79biygp8' });
    // The lbs ClusterProfile was deployed by the first one: deleting it withdraws the status ClusterProfile too.
    await eventually(() => env.mgmt.getIfExists({ ...CP, name: `lbs-${lbName.slice(3)}` }), (o) => o === undefined, { message: 'lbs ClusterProfile withdrawn' });
    await eventually(() => env.mgmt.getIfExists({ ...SVC, namespace: 'cluster-a', name: lbName }), (o) => o === undefined, { message: 'upstream Service withdrawn' });
    const svc = await eventually(
      () => env.clusters.a.getIfExists<Obj>({ ...SVC, namespace: 'test', name: 'svc-a' }),
      (o) => o !== undefined && o.metadata.annotations?.[ADOPTED_ANNOTATION] === undefined,
      { message: 'svc-a released' },
    );
    const anns = svc!.metadata.annotations ?? {};
    assert.deepEqual(Object.keys(anns).filter((k) => k.startsWith('projectsveltos.io/')), []);
    assert.equal(svc!.metadata.labels?.['projectsveltos.io/reason'], undefined);
    assert.equal(svc!.metadata.labels?.['lb.buttah.cloud/class'], 'internet');
    assert.deepEqual((svc!.status as { loadBalancer?: unknown })?.loadBalancer ?? {}, {});
  });
});
