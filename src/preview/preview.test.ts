// preview.test.ts: the offline preview on every seed trigger — what the agent matches, what the event manager
// generates (names, labels, instantiated content) and what the deployer applies where (stamps, Local/Remote,
// adoption, namespaces, the seed 000 chain of ClusterProfiles) — and every failure the controllers would report.
import { strict as assert } from 'node:assert';
import { createHash } from 'node:crypto';
import { after, before, describe, test } from 'node:test';
import { seedObjects } from '../../test/support/seeds.js';
import type { KubeObject } from '../kube/index.js';
import { createLuaRuntime, type LuaRuntime } from '../lua/index.js';
import { runPreview, type DeployAction, type PreviewInput, type PreviewResult } from './index.js';

type Obj = KubeObject & Record<string, unknown>;

const seed = (id: string, ...indexes: number[]): Obj[] =>
  seedObjects()
    .filter((s) => s.seed === id && s.role === 'input' && (indexes.length === 0 || indexes.includes(s.index)))
    .map((s) => structuredClone(s.object) as unknown as Obj);

const cluster = (name: string, labels: Record<string, string>, extra: Partial<Obj> = {}): Obj => ({
  apiVersion: 'lib.projectsveltos.io/v1beta1',
  kind: 'SveltosCluster',
  metadata: { namespace: name, name, labels },
  spec: {},
  status: { ready: true },
  ...extra,
});

const service = (namespace: string, name: string, spec: Record<string, unknown>, extra: { metadata?: { labels?: Record<string, string> }; status?: unknown } = {}): Obj => ({
  apiVersion: 'v1',
  kind: 'Service',
  metadata: { namespace, name, ...(extra.metadata ?? {}) },
  spec,
  ...(extra.status ? { status: extra.status } : {}),
});

/** plain drops the null prototypes the YAML splitter gives rendered objects, for deepEqual. */
const plain = (v: unknown): unknown => JSON.parse(JSON.stringify(v));
const sha1 = (s: string) => createHash('sha1').update(s).digest('hex');
const fixedClock = { now: () => Date.UTC(2025, 0, 2, 3, 4, 5) };

describe('ripple render preview', () => {
  let runtime: LuaRuntime;
  before(async () => {
    runtime = await createLuaRuntime({ clock: fixedClock });
  });
  after(() => runtime.close());
  const run = (input: Partial<PreviewInput>) =>
    runPreview({ management: [], clusters: [], resources: [], ...input }, { runtime, funcOptions: { clock: fixedClock } });
  const actions = (r: PreviewResult) => r.deployments.flatMap((d) => d.actions.map((a) => ({ ...a, profile: d.profile.name, cluster: d.cluster })));
  const line = (a: DeployAction) => `${a.type} ${a.target} ${a.targetCluster} ${a.kind} ${a.namespace ? `${a.namespace}/` : ''}${a.name}`;

  // Seed 000: svc-a as it lives in cluster-a (the API server assigned a nodePort, which the template reads).
  const svcA = () => {
    const s = seed('000', 1)[0];
    (s.spec as { ports: Record<string, unknown>[] }).ports[0].nodePort = 31111;
    return s;
  };
  const lbName = `lb-${sha1('svc-a test cluster-a')}`;

  test('seed 000: the Service and ClusterProfile generated, deployed Local, and the ClusterProfile they deploy followed to cluster-a', async () => {
    const upstream = service('cluster-a', lbName, { type: 'LoadBalancer', ports: [{ name: 'test', port: 1234 }] }, { status: { loadBalancer: { ingress: [{ ip: '1.1.1.1' }] } } });
    const r = await run({ management: seed('000', 6), live: [upstream], clusters: [cluster('cluster-a', { env: 'prod' })], resources: [svcA()] });
    assert.deepEqual(r.problems, []);
    assert.deepEqual(r.matches.map((m) => [m.trigger, m.cluster, m.eventReport, m.matched.map((x) => x.name)]), [
      ['loadbalancer-class-handler', 'cluster-a/cluster-a', 'sveltos--loadbalancer-class-handler--cluster-a', ['svc-a']],
    ]);
    // Generated: two instantiated ConfigMaps in projectsveltos, then the ClusterProfile pointing at them (Local).
    assert.deepEqual(r.generated.map((g) => `${g.object.kind} ${g.object.metadata.namespace ?? ''}`), ['ConfigMap projectsveltos', 'ConfigMap projectsveltos', 'ClusterProfile ']);
    const cp = r.generated[2].object as Obj & { spec: { clusterRefs: { name: string }[]; policyRefs: { name: string; deploymentType: string }[] } };
    assert.match(cp.metadata.name, /^sveltos-[0-9a-z]{20}$/);
    assert.equal(cp.metadata.labels?.['eventtrigger.lib.projectsveltos.io/eventtriggername'], 'loadbalancer-class-handler');
    assert.equal(cp.metadata.labels?.['eventtrigger.lib.projectsveltos.io/resourcename'], 'svc-a');
    assert.deepEqual(cp.spec.clusterRefs.map((c) => c.name), ['cluster-a']);
    assert.deepEqual(
      cp.spec.policyRefs.map((p) => [p.name, p.deploymentType]),
      [r.generated[0].object.metadata.name, r.generated[1].object.metadata.name].map((n) => [n, 'Local']),
    );
    const svcCm = r.generated[0].object as Obj & { data: Record<string, string> };
    assert.match(svcCm.data['service.yaml'], new RegExp(`name: "${lbName}"\\n\\s+namespace: "cluster-a"`));
    assert.match(svcCm.data['service.yaml'], /targetPort: 31111/);

    // Deployed: the generated profile puts a Service and a ClusterProfile into the management cluster; that
    // ClusterProfile (followed) writes the upstream IP into svc-a's status in cluster-a, adopting svc-a.
    const lbs = `lbs-${sha1('svc-a test cluster-a')}`;
    assert.deepEqual(
      actions(r).map((a) => `${a.profile}: ${line(a)}${a.subresources.length ? ` +${a.subresources}` : ''}`),
      [`${cp.metadata.name}: create Local mgmt Service cluster-a/${lbName}`, `${cp.metadata.name}: create Local mgmt ClusterProfile ${lbs}`, `${lbs}: adopt Remote cluster-a/cluster-a Service test/svc-a +status`],
    );
    assert.deepEqual(
      r.deployments.map((d) => [d.profile.origin, d.profile.by, d.clusterSummary]),
      [
        ['generated', 'EventTrigger/loadbalancer-class-handler', `${cp.metadata.name}-sveltos-cluster-a`],
        ['deployed', `ClusterProfile/${cp.metadata.name}`, `${lbs}-sveltos-cluster-a`],
      ],
    );
    const status = actions(r)[2].object as Obj & { status: unknown; metadata: { annotations: Record<string, string> } };
    assert.deepEqual(plain(status.status), { loadBalancer: { ingress: [{ ip: '1.1.1.1' }] } });
    const anns = status.metadata.annotations;
    assert.equal(anns['projectsveltos.io/owner-kind'], 'ClusterProfile');
    assert.equal(anns['projectsveltos.io/owner-name'], lbs);
    assert.equal(anns['projectsveltos.io/deploymenttype'], 'Remote');
    assert.equal(anns['projectsveltos.io/clustersummary'], 'sveltos-cluster-a-cluster-a');
    assert.match(anns['projectsveltos.io/hash'], /^sha256:[0-9a-f]{64}$/);
    assert.equal(status.metadata.labels?.['projectsveltos.io/reason'], 'Resources');
    assert.ok(r.notes.some((n) => n.message.includes('misspelled annotation projectsveltos.io/subressources')));
  });

  test('seed 000 without the live upstream Service: the status template fails as the deployer reports it, with a hint', async () => {
    const r = await run({ management: seed('000', 6), clusters: [cluster('cluster-a', { env: 'prod' })], resources: [svcA()] });
    assert.equal(r.problems.length, 1);
    const p = r.problems[0];
    assert.equal(p.code, 'TemplateError');
    assert.match(p.where, /^ClusterProfile lbs-[0-9a-f]{40} \(deployed by ClusterProfile\/sveltos-[0-9a-z]{20}\), cluster cluster-a\/cluster-a$/);
    assert.match(p.message, /^rendering ConfigMap projectsveltos\/loadbalancer-class-handler-status key service\.yaml: template: cluster-a-cluster-a-loadbalancer-class-handler-status\/service\.yaml:9:41: .*map has no entry for key "status"$/);
    assert.ok(r.notes.some((n) => /templateResourceRefs UpstreamLB reads Service cluster-a\/lb-[0-9a-f]+ as this preview deployed it .*--mgmt-resource/.test(n.message)));
    assert.equal(r.deployments[1].failure?.reason, 'TemplateError');
  });

  test('seed 000 with svc-a as written in the document (no nodePort): the event template fails with line and column', async () => {
    const r = await run({ management: seed('000', 6), clusters: [cluster('cluster-a', { env: 'prod' })], resources: seed('000', 1) });
    assert.deepEqual(
      r.problems.map((p) => [p.stage, p.code, p.where]),
      [['generate', 'TemplateExec', 'EventTrigger loadbalancer-class-handler, cluster cluster-a/cluster-a, event resource:/Service/test/svc-a']],
    );
    assert.match(r.problems[0].message, /template: loadbalancer-class-handler:18:26: executing "loadbalancer-class-handler" at <\$port\.nodePort>: map has no entry for key "nodePort"/);
    assert.deepEqual(r.generated, []);
  });

  // Seeds 001 (v1alpha1 EventTrigger, string selectors) and 002 (EventBasedAddOn, flat EventSource).
  const lbService = () => service('test', 'my-lb-service', { type: 'LoadBalancer', selector: { app: 'x' }, ports: [{ protocol: 'TCP', port: 80, targetPort: 9376 }] }, { status: { loadBalancer: { ingress: [{ ip: '172.18.0.10' }] } } });
  const pending = () => service('test', 'pending', { type: 'LoadBalancer', ports: [{ port: 81 }] }, { status: { loadBalancer: {} } });
  for (const [name, config] of [
    ['seed 001', () => seed('001', 1, 2)],
    ['seed 002', () => seed('002', 1)],
  ] as const) {
    test(`${name} cross-cluster: a Service with an IP in the production cluster → Service + Endpoints in the dep=eng cluster`, async () => {
      const r = await run({ management: config(), clusters: [cluster('prod', { env: 'production' }), cluster('eng', { dep: 'eng' }), cluster('other', { env: 'staging' })], resources: [lbService(), pending()] });
      assert.deepEqual(r.problems, []);
      assert.deepEqual(r.matches.map((m) => [m.cluster, m.matched.map((x) => x.name), m.unmatched.map((x) => x.name)]), [['prod/prod', ['my-lb-service'], ['pending']]]);
      const cp = r.generated.find((g) => g.object.kind === 'ClusterProfile')!.object as Obj & { spec: Record<string, unknown> };
      assert.deepEqual(plain(cp.spec.clusterSelector), { matchLabels: { dep: 'eng' } });
      assert.deepEqual(actions(r).map(line), ['createNamespace Remote eng/eng Namespace external', 'create Remote eng/eng Endpoints external/external-my-lb-service', 'create Remote eng/eng Service external/external-my-lb-service']);
      const ep = actions(r)[1].object as Obj & { subsets: unknown };
      assert.deepEqual(plain(ep.subsets), [{ addresses: [{ ip: '172.18.0.10' }], ports: [{ port: 80 }] }]);
      // The old seeds instantiate without projectsveltos.io/instantiate: said so.
      assert.ok(r.notes.some((n) => n.message.includes('reads .Resource without projectsveltos.io/instantiate')));
    });
  }

  test('seed 001 without a dep=eng cluster: the generated ClusterProfile selects no cluster', async () => {
    const r = await run({ management: seed('001', 1, 2), clusters: [cluster('prod', { env: 'production' })], resources: [lbService()] });
    assert.deepEqual(r.problems.map((p) => [p.stage, p.code]), [['deploy', 'NoMatchingCluster']]);
    assert.match(r.problems[0].message, /clusterSelector \{"matchLabels":\{"dep":"eng"\}\} selects none of the clusters \(prod\/prod \{"env":"production"\}\).*--cluster NAME:KEY=VALUE/);
  });

  // Seeds 003/004: NetworkPolicy per labelled Service, one Ingress over all https Services, HTTPRoute per Service.
  const myService = () => service('default', 'my-service', { selector: { 'app.kubernetes.io/name': 'MyApp' }, ports: [{ protocol: 'TCP', port: 80 }] }, { metadata: { labels: { sveltos: 'fv' } } });
  for (const [name, config] of [
    ['seed 003', () => seed('003', 1, 4)],
    ['seed 004', () => seed('004', 1, 5)],
  ] as const) {
    test(`${name} network policy: a NetworkPolicy per Service labelled sveltos=fv`, async () => {
      const r = await run({ management: config(), clusters: [cluster('fv1', { env: 'fv' })], resources: [myService(), service('default', 'plain', { ports: [{ port: 1 }] })] });
      assert.deepEqual(r.problems, []);
      assert.deepEqual(r.matches.map((m) => [m.triggerKind, m.matched.map((x) => x.name), m.unmatched.map((x) => x.name)]), [['EventBasedAddOn', ['my-service'], ['plain']]]);
      assert.deepEqual(actions(r).map(line), ['create Remote fv1/fv1 NetworkPolicy default/front-my-service']);
      const np = actions(r)[0].object as Obj & { spec: unknown };
      assert.deepEqual(plain(np.spec), {
        podSelector: { matchLabels: { 'app.kubernetes.io/name': 'MyApp' } },
        ingress: [{ from: [{ podSelector: { matchLabels: { app: 'internal' } } }], ports: [{ port: 80 }] }],
      });
    });
  }

  const engServices = () => [
    service('eng', 'web', { selector: { app: 'web' }, ports: [{ name: 'https', port: 443 }, { name: 'http', port: 80 }] }),
    service('eng', 'api', { selector: { app: 'api' }, ports: [{ name: 'https', port: 8443 }] }),
    service('other', 'elsewhere', { ports: [{ port: 443 }] }),
  ];

  test('seed 003 ingress (oneForEvent false): one Ingress over every https Service of namespace eng', async () => {
    const r = await run({ management: seed('003', 9, 10), clusters: [cluster('fv1', { env: 'fv' })], resources: engServices() });
    assert.deepEqual(r.problems, []);
    assert.deepEqual(r.generated.map((g) => [g.event, g.object.kind]), [['all', 'ConfigMap'], ['all', 'ClusterProfile']]);
    assert.deepEqual(actions(r).map(line), ['create Remote fv1/fv1 Ingress default/ingress']);
    const ing = actions(r)[0].object as Obj & { spec: { rules: { http: { paths: { path: string; backend: { service: { name: string; port: { number: number } } } }[] } }[] } };
    assert.deepEqual(
      ing.spec.rules[0].http.paths.map((p) => [p.path, p.backend.service.name, p.backend.service.port.number]),
      [['/api', 'api', 8443], ['/web', 'web', 443]],
    );
  });

  test('seed 003 HTTPRoute per port-80 Service of namespace eng (a Gateway API kind, namespaced)', async () => {
    const r = await run({ management: seed('003', 12), clusters: [cluster('fv1', { env: 'fv' })], resources: engServices() });
    assert.deepEqual(r.problems, []);
    assert.deepEqual(actions(r).map(line), ['create Remote fv1/fv1 HTTPRoute eng/web']);
    const route = actions(r)[0].object as Obj & { spec: { rules: { backendRefs: unknown[] }[] } };
    assert.deepEqual(plain(route.metadata.labels), { app: 'web', 'projectsveltos.io/reason': 'Resources' });
    assert.deepEqual(plain(route.spec.rules[0].backendRefs), [{ kind: 'Service', name: 'web', port: 443 }]);
  });

  test('failures the controllers would report: no source cluster, missing EventSource, missing ConfigMap, invalid YAML, unknown kind', async () => {
    const trigger = (name: string, spec: Record<string, unknown>): Obj => ({
      apiVersion: 'lib.projectsveltos.io/v1beta1',
      kind: 'EventTrigger',
      metadata: { name },
      spec: { sourceClusterSelector: { matchLabels: { env: 'fv' } }, eventSourceName: 'es', oneForEvent: true, ...spec },
    });
    const es: Obj = { apiVersion: 'lib.projectsveltos.io/v1beta1', kind: 'EventSource', metadata: { name: 'es' }, spec: { collectResources: true, resourceSelectors: [{ group: '', version: 'v1', kind: 'Service' }] } };
    const cm = (name: string, data: Record<string, string>): Obj => ({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { namespace: 'default', name, annotations: { 'projectsveltos.io/instantiate': 'true' } }, data });
    const ref = (name: string) => [{ kind: 'ConfigMap', namespace: 'default', name }];
    const r = await run({
      management: [
        es,
        trigger('nowhere', { sourceClusterSelector: { matchLabels: { env: 'none' } }, policyRefs: ref('ok') }),
        trigger('no-source', { eventSourceName: 'missing-{{ .Cluster.metadata.name }}', policyRefs: ref('ok') }),
        trigger('no-cm', { policyRefs: ref('absent') }),
        trigger('bad-yaml', { policyRefs: ref('bad') }),
        trigger('unknown-kind', { policyRefs: ref('widget') }),
        cm('ok', { 'a.yaml': 'apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: ok-{{ .Resource.metadata.name }}\n' }),
        cm('bad', { 'a.yaml': 'kind: ConfigMap\nmetadata: {{ .Resource.metadata.name }}: x\n' }),
        cm('widget', { 'w.yaml': 'apiVersion: example.com/v1\nkind: Widget\nmetadata:\n  name: w-{{ .Resource.metadata.name }}\n' }),
      ],
      clusters: [cluster('fv1', { env: 'fv' })],
      resources: [myService()],
    });
    const byWhere = Object.fromEntries(r.problems.map((p) => [p.where.split(',')[0], `${p.code}: ${p.message}`]));
    assert.match(byWhere['EventTrigger nowhere'], /^NoMatchingCluster: sourceClusterSelector \{"matchLabels":\{"env":"none"\}\} selects none of the clusters \(fv1\/fv1 \{"env":"fv"\}\)/);
    assert.match(byWhere['EventTrigger no-source'], /^EventSourceNotFound: EventSource missing-fv1 does not exist in the management cluster/);
    assert.match(byWhere['EventTrigger no-cm'], /^MissingReference: .*ConfigMap default\/absent/);
    assert.match(byWhere['EventTrigger bad-yaml'], /^InvalidYAML: /);
    const widget = r.problems.find((p) => p.code === 'KindNotInstalled');
    assert.ok(widget, JSON.stringify(r.problems));
    assert.match(widget.message, /the managed cluster does not serve example\.com\/v1 Widget .*pass its CRD with -f FILE/);

    // With the CRD (cluster-scoped), the Widget deploys without a namespace.
    const crd: Obj = {
      apiVersion: 'apiextensions.k8s.io/v1',
      kind: 'CustomResourceDefinition',
      metadata: { name: 'widgets.example.com' },
      spec: { group: 'example.com', scope: 'Cluster', names: { kind: 'Widget', plural: 'widgets' }, versions: [{ name: 'v1', served: true, storage: true }] },
    };
    const ok = await run({ management: [es, trigger('unknown-kind', { policyRefs: ref('widget') }), cm('widget', { 'w.yaml': 'apiVersion: example.com/v1\nkind: Widget\nmetadata:\n  name: w-{{ .Resource.metadata.name }}\n  namespace: ignored\n' }), crd], clusters: [cluster('fv1', { env: 'fv' })], resources: [myService()] });
    assert.deepEqual(ok.problems, []);
    assert.deepEqual(actions(ok).map(line), ['create Remote fv1/fv1 Widget w-my-service']);
  });

  test('profiles given directly: conflicts between two profiles, DryRun applies nothing, paused clusters, the management cluster as a target', async () => {
    const cm = (name: string, ns = 'apps'): Obj => ({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { namespace: 'default', name }, data: { 'x.yaml': `apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: shared\n  namespace: ${ns}\ndata:\n  from: ${name}\n` } });
    const profile = (name: string, spec: Record<string, unknown>): Obj => ({ apiVersion: 'config.projectsveltos.io/v1beta1', kind: 'ClusterProfile', metadata: { name }, spec });
    const envX = { clusterSelector: { matchLabels: { env: 'x' } } };
    const r = await run({
      management: [
        cm('one'),
        cm('two'),
        cm('three', 'dry'),
        profile('a-first', { ...envX, policyRefs: [{ kind: 'ConfigMap', namespace: 'default', name: 'one' }] }),
        profile('b-second', { ...envX, policyRefs: [{ kind: 'ConfigMap', namespace: 'default', name: 'two' }] }),
        profile('c-dry', { ...envX, syncMode: 'DryRun', policyRefs: [{ kind: 'ConfigMap', namespace: 'default', name: 'three' }] }),
        profile('d-after-dry', { policyRefs: [{ kind: 'ConfigMap', namespace: 'default', name: 'three' }], clusterRefs: [{ kind: 'SveltosCluster', namespace: 'mgmt', name: 'mgmt' }] }),
      ],
      clusters: [cluster('x1', { env: 'x' }), cluster('paused', { env: 'x' }, { spec: { paused: true } }), cluster('mgmt', {})],
    });
    assert.deepEqual(r.problems.map((p) => [p.code, p.where]), [['Conflict', 'ClusterProfile b-second, cluster x1/x1']]);
    assert.deepEqual(
      actions(r).map((a) => `${a.profile}: ${line(a)}`),
      [
        'a-first: createNamespace Remote x1/x1 Namespace apps',
        'a-first: create Remote x1/x1 ConfigMap apps/shared',
        'b-second: conflict Remote x1/x1 ConfigMap apps/shared',
        'c-dry: createNamespace Remote x1/x1 Namespace dry',
        'c-dry: create Remote x1/x1 ConfigMap dry/shared',
        // DryRun wrote nothing: the next profile still creates the namespace. mgmt/mgmt is the management cluster.
        'd-after-dry: createNamespace Remote mgmt Namespace dry',
        'd-after-dry: create Remote mgmt ConfigMap dry/shared',
      ],
    );
    assert.deepEqual(r.problems.map((p) => [p.code, p.where]), [['Conflict', 'ClusterProfile b-second, cluster x1/x1']]);
    assert.match(r.problems[0].message, /ClusterProfile a-first/);
    assert.ok(r.notes.some((n) => n.where === 'ClusterProfile a-first, cluster paused/paused' && /paused/.test(n.message)));
    assert.ok(r.notes.some((n) => n.where === 'ClusterProfile c-dry, cluster x1/x1' && /DryRun/.test(n.message)));
  });

  test('nothing to preview, and invalid objects, are problems', async () => {
    const none = await run({ management: [{ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'x' } }] });
    assert.deepEqual(none.problems.map((p) => p.code), ['NothingToPreview']);
    const bad = await run({ management: [{ apiVersion: 'lib.projectsveltos.io/v1beta1', kind: 'EventTrigger', metadata: { name: 'bad' }, spec: { oneForEvent: 'yes' } }] });
    assert.equal(bad.problems[0].code, 'Invalid');
    assert.match(bad.problems[0].where, /^EventTrigger bad$/);
  });
});
