// REST semantics of the embedded API server over raw HTTP: metadata, concurrency, subresources, finalizers, garbage
// collection, namespaces, CRDs, Services and the load-balancer simulator.
import { strict as assert } from 'node:assert';
import { after, before, describe, test } from 'node:test';
import { startTestApiServer, type TestApiServer } from '../support/apiserver.js';
import { eventually } from '../support/eventually.js';
import { RawClient } from './raw.js';

let srv: TestApiServer;
let api: RawClient;
let n = 0;
// Every test works in its own namespace.
async function ns(): Promise<string> {
  const name = `t${++n}`;
  const r = await api.post('/api/v1/namespaces', { apiVersion: 'v1', kind: 'Namespace', metadata: { name } });
  assert.equal(r.status, 201, r.text);
  return name;
}
const cm = (name: string, extra: Record<string, unknown> = {}) => ({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name, ...extra }, data: { k: 'v' } });

before(async () => {
  srv = await startTestApiServer({ clusters: ['sem'], loadBalancer: [{ cluster: 'lb', pool: ['1.1.1.1', '10.20.0.0/30'] }] });
  api = new RawClient(await srv.cluster('sem'));
});
after(() => srv.stop());

describe('create', () => {
  test('fills uid, creationTimestamp, resourceVersion and answers 201', async () => {
    const s = await ns();
    const r = await api.post(`/api/v1/namespaces/${s}/configmaps`, cm('a'));
    assert.equal(r.status, 201);
    const m = r.json.metadata;
    assert.match(m.uid, /^[0-9a-f-]{36}$/);
    assert.match(m.creationTimestamp, /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$/);
    assert.match(m.resourceVersion, /^\d+$/);
    assert.equal(m.namespace, s);
    assert.equal(m.generation, undefined, 'ConfigMaps do not track generation');
  });

  test('built-in kinds come back as their Go types encode them: empty omitempty maps, slices and zero scalars are dropped', async () => {
    const s = await ns();
    const r = await api.post(`/api/v1/namespaces/${s}/services`, {
      apiVersion: 'v1',
      kind: 'Service',
      metadata: { name: 'bare', labels: {}, annotations: {} },
      spec: { selector: {}, externalIPs: [], ports: [{ name: '', port: 80, targetPort: 8080 }], sessionAffinityConfig: { clientIP: { timeoutSeconds: 10 } } },
    });
    assert.equal(r.status, 201, r.text);
    assert.equal(r.json.spec.selector, undefined, 'Service.spec.selector is map,omitempty');
    assert.equal(r.json.spec.externalIPs, undefined);
    assert.equal(r.json.metadata.labels, undefined);
    assert.equal(r.json.metadata.annotations, undefined);
    assert.deepEqual(r.json.spec.ports, [{ port: 80, protocol: 'TCP', targetPort: 8080 }], 'name "" is dropped inside list items too');
    const get = await api.get(`/api/v1/namespaces/${s}/services/bare`);
    assert.equal(get.json.spec.selector, undefined);
    // A Role's rules is a slice without omitempty: [] stays.
    const role = await api.post(`/apis/rbac.authorization.k8s.io/v1/namespaces/${s}/roles`, { apiVersion: 'rbac.authorization.k8s.io/v1', kind: 'Role', metadata: { name: 'empty' }, rules: [] });
    assert.equal(role.status, 201, role.text);
    assert.deepEqual(role.json.rules, []);
  });

  test('generateName appends five random characters', async () => {
    const s = await ns();
    const r = await api.post(`/api/v1/namespaces/${s}/configmaps`, { apiVersion: 'v1', kind: 'ConfigMap', metadata: { generateName: 'gen-' } });
    assert.equal(r.status, 201);
    assert.match(r.json.metadata.name, /^gen-[bcdfghjklmnpqrstvwxz2456789]{5}$/);
  });

  test('AlreadyExists is byte-compatible with kube-apiserver', async () => {
    const s = await ns();
    await api.post(`/api/v1/namespaces/${s}/configmaps`, cm('dup'));
    const r = await api.post(`/api/v1/namespaces/${s}/configmaps`, cm('dup'));
    assert.equal(r.status, 409);
    assert.equal(r.text, '{"kind":"Status","apiVersion":"v1","metadata":{},"status":"Failure","message":"configmaps \\"dup\\" already exists","reason":"AlreadyExists","details":{"name":"dup","kind":"configmaps"},"code":409}');
  });

  test('a missing namespace is NotFound, a terminating one Forbidden', async () => {
    const r = await api.post('/api/v1/namespaces/nope/configmaps', cm('x'));
    assert.equal(r.status, 404);
    assert.equal(r.json.message, 'namespaces "nope" not found');
    const s = await ns();
    await api.post(`/api/v1/namespaces/${s}/configmaps`, cm('held', { finalizers: ['example.com/hold'] }));
    await api.delete(`/api/v1/namespaces/${s}`);
    const f = await api.post(`/api/v1/namespaces/${s}/configmaps`, cm('late'));
    assert.equal(f.status, 403);
    assert.equal(f.json.reason, 'Forbidden');
    assert.equal(f.json.message, `configmaps "late" is forbidden: unable to create new content in namespace ${s} because it is being terminated`);
    assert.equal(f.json.details.causes[0].reason, 'NamespaceTerminating');
    const nsObj = await eventually(() => api.get(`/api/v1/namespaces/${s}`), (r) => (r.json.status.conditions ?? []).length === 5, { message: 'namespace conditions' });
    const byType = Object.fromEntries(nsObj.json.status.conditions.map((c: { type: string; message: string }) => [c.type, c.message]));
    assert.equal(byType.NamespaceContentRemaining, 'Some resources are remaining: configmaps. has 1 resource instances');
    assert.equal(byType.NamespaceFinalizersRemaining, 'Some content in the namespace has finalizers remaining: example.com/hold in 1 resource instances');
  });

  test('Deployment defaults and generation 1', async () => {
    const s = await ns();
    const r = await api.post(`/apis/apps/v1/namespaces/${s}/deployments`, {
      apiVersion: 'apps/v1',
      kind: 'Deployment',
      metadata: { name: 'web' },
      spec: { selector: { matchLabels: { app: 'web' } }, template: { metadata: { labels: { app: 'web' } }, spec: { containers: [{ name: 'c', image: 'nginx' }] } } },
    });
    assert.equal(r.status, 201, r.text);
    assert.equal(r.json.metadata.generation, 1);
    assert.equal(r.json.spec.replicas, 1);
    assert.equal(r.json.spec.strategy.type, 'RollingUpdate');
    assert.equal(r.json.spec.template.spec.containers[0].imagePullPolicy, 'Always');
    const bad = await api.post(`/apis/apps/v1/namespaces/${s}/deployments`, {
      apiVersion: 'apps/v1',
      kind: 'Deployment',
      metadata: { name: 'bad' },
      spec: { selector: { matchLabels: { app: 'x' } }, template: { metadata: { labels: { app: 'y' } }, spec: { containers: [{ name: 'c', image: 'nginx' }] } } },
    });
    assert.equal(bad.status, 422);
    assert.equal(bad.json.message, 'Deployment.apps "bad" is invalid: spec.template.metadata.labels: Invalid value: map[string]string{"app":"y"}: `selector` does not match template `labels`');
  });

  test('port protocols default to TCP: Endpoints, EndpointSlice and NetworkPolicy ports (SetDefaults_*Port)', async () => {
    const s = await ns();
    const ep = await api.post(`/api/v1/namespaces/${s}/endpoints`, {
      apiVersion: 'v1',
      kind: 'Endpoints',
      metadata: { name: 'e' },
      subsets: [{ addresses: [{ ip: '10.0.0.1' }], ports: [{ port: 80 }, { port: 53, protocol: 'UDP' }] }],
    });
    assert.equal(ep.status, 201, ep.text);
    assert.deepEqual(ep.json.subsets[0].ports, [{ port: 80, protocol: 'TCP' }, { port: 53, protocol: 'UDP' }]);
    const slice = await api.post(`/apis/discovery.k8s.io/v1/namespaces/${s}/endpointslices`, {
      apiVersion: 'discovery.k8s.io/v1',
      kind: 'EndpointSlice',
      metadata: { name: 'es' },
      addressType: 'IPv4',
      endpoints: [{ addresses: ['10.0.0.1'] }],
      ports: [{ port: 80 }],
    });
    assert.equal(slice.status, 201, slice.text);
    assert.equal(slice.json.ports[0].protocol, 'TCP');
    const np = await api.post(`/apis/networking.k8s.io/v1/namespaces/${s}/networkpolicies`, {
      apiVersion: 'networking.k8s.io/v1',
      kind: 'NetworkPolicy',
      metadata: { name: 'np' },
      spec: { podSelector: {}, ingress: [{ ports: [{ port: 80 }] }] },
    });
    assert.equal(np.status, 201, np.text);
    assert.deepEqual(np.json.spec.ingress[0].ports, [{ port: 80, protocol: 'TCP' }]);
    assert.deepEqual(np.json.spec.policyTypes, ['Ingress']);
  });
});

describe('update', () => {
  test('a stale resourceVersion is a Conflict; no-op updates keep the resourceVersion', async () => {
    const s = await ns();
    const c = (await api.post(`/api/v1/namespaces/${s}/configmaps`, cm('a'))).json;
    const u = await api.put(`/api/v1/namespaces/${s}/configmaps/a`, { ...c, data: { k: 'w' } });
    assert.equal(u.status, 200);
    assert.notEqual(u.json.metadata.resourceVersion, c.metadata.resourceVersion);
    const stale = await api.put(`/api/v1/namespaces/${s}/configmaps/a`, { ...c, data: { k: 'x' } });
    assert.equal(stale.status, 409);
    assert.equal(
      stale.json.message,
      'Operation cannot be fulfilled on configmaps "a": the object has been modified; please apply your changes to the latest version and try again',
    );
    const same = await api.put(`/api/v1/namespaces/${s}/configmaps/a`, u.json);
    assert.equal(same.json.metadata.resourceVersion, u.json.metadata.resourceVersion);
    const unconditional = await api.put(`/api/v1/namespaces/${s}/configmaps/a`, { ...cm('a'), data: { k: 'y' } });
    assert.equal(unconditional.status, 200);
  });

  test('status is ignored on the main resource and spec on /status', async () => {
    const s = await ns();
    const svc = (await api.post(`/api/v1/namespaces/${s}/services`, { apiVersion: 'v1', kind: 'Service', metadata: { name: 's' }, spec: { ports: [{ port: 80 }] }, status: { loadBalancer: { ingress: [{ ip: '9.9.9.9' }] } } })).json;
    assert.deepEqual(svc.status, { loadBalancer: {} }, 'create resets status');
    const st = await api.put(`/api/v1/namespaces/${s}/services/s/status`, { ...svc, spec: { ...svc.spec, sessionAffinity: 'ClientIP' }, status: { loadBalancer: { ingress: [{ ip: '9.9.9.9' }] } } });
    assert.equal(st.status, 200, st.text);
    assert.equal(st.json.spec.sessionAffinity, 'None');
    assert.equal(st.json.status.loadBalancer.ingress[0].ip, '9.9.9.9');
    const main = await api.put(`/api/v1/namespaces/${s}/services/s`, { ...st.json, status: {} });
    assert.equal(main.json.status.loadBalancer.ingress[0].ip, '9.9.9.9');
  });
});

describe('delete, finalizers and garbage collection', () => {
  test('DELETE answers a Success Status; finalizers hold the object with a deletionTimestamp', async () => {
    const s = await ns();
    const c = (await api.post(`/api/v1/namespaces/${s}/configmaps`, cm('a'))).json;
    const d = await api.delete(`/api/v1/namespaces/${s}/configmaps/a`);
    assert.equal(d.status, 200);
    assert.deepEqual(d.json, { kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Success', details: { name: 'a', kind: 'configmaps', uid: c.metadata.uid } });
    await api.post(`/api/v1/namespaces/${s}/configmaps`, cm('held', { finalizers: ['example.com/hold'] }));
    const h = await api.delete(`/api/v1/namespaces/${s}/configmaps/held`);
    assert.equal(h.status, 200);
    assert.ok(h.json.metadata.deletionTimestamp);
    const cur = (await api.get(`/api/v1/namespaces/${s}/configmaps/held`)).json;
    const add = await api.put(`/api/v1/namespaces/${s}/configmaps/held`, { ...cur, metadata: { ...cur.metadata, finalizers: ['example.com/hold', 'x.io/new'] } });
    assert.equal(add.status, 422, 'no new finalizers while deleting');
    const rel = await api.patch(`/api/v1/namespaces/${s}/configmaps/held`, [{ op: 'remove', path: '/metadata/finalizers' }], 'application/json-patch+json');
    assert.equal(rel.status, 200, rel.text);
    assert.equal((await api.get(`/api/v1/namespaces/${s}/configmaps/held`)).status, 404);
  });

  test('preconditions on uid and resourceVersion', async () => {
    const s = await ns();
    await api.post(`/api/v1/namespaces/${s}/configmaps`, cm('a'));
    const r = await api.delete(`/api/v1/namespaces/${s}/configmaps/a`, { preconditions: { uid: 'other' } });
    assert.equal(r.status, 409);
    assert.match(r.json.message, /Precondition failed: UID in precondition: other, UID in object meta: /);
  });

  const owned = (name: string, owner: { metadata: { name: string; uid: string } }, block = false) =>
    cm(name, { ownerReferences: [{ apiVersion: 'v1', kind: 'ConfigMap', name: owner.metadata.name, uid: owner.metadata.uid, blockOwnerDeletion: block }] });

  test('background propagation deletes dependents after the owner', async () => {
    const s = await ns();
    const owner = (await api.post(`/api/v1/namespaces/${s}/configmaps`, cm('owner'))).json;
    await api.post(`/api/v1/namespaces/${s}/configmaps`, owned('dep', owner));
    await api.delete(`/api/v1/namespaces/${s}/configmaps/owner`);
    await eventually(() => api.get(`/api/v1/namespaces/${s}/configmaps/dep`), (r) => r.status === 404, { message: 'dependent collected' });
  });

  test('foreground propagation keeps the owner until blocking dependents are gone', async () => {
    const s = await ns();
    const owner = (await api.post(`/api/v1/namespaces/${s}/configmaps`, cm('owner'))).json;
    await api.post(`/api/v1/namespaces/${s}/configmaps`, { ...owned('dep', owner, true), metadata: { ...owned('dep', owner, true).metadata, finalizers: ['example.com/hold'] } });
    const d = await api.delete(`/api/v1/namespaces/${s}/configmaps/owner`, { propagationPolicy: 'Foreground' });
    assert.deepEqual(d.json.metadata.finalizers, ['foregroundDeletion']);
    await eventually(() => api.get(`/api/v1/namespaces/${s}/configmaps/dep`), (r) => !!r.json.metadata.deletionTimestamp, { message: 'dependent deleting' });
    assert.equal((await api.get(`/api/v1/namespaces/${s}/configmaps/owner`)).status, 200, 'owner waits');
    await api.patch(`/api/v1/namespaces/${s}/configmaps/dep`, { metadata: { finalizers: null } }, 'application/merge-patch+json');
    await eventually(() => api.get(`/api/v1/namespaces/${s}/configmaps/owner`), (r) => r.status === 404, { message: 'owner deleted' });
  });

  test('orphan propagation removes the owner reference and keeps the dependent', async () => {
    const s = await ns();
    const owner = (await api.post(`/api/v1/namespaces/${s}/configmaps`, cm('owner'))).json;
    await api.post(`/api/v1/namespaces/${s}/configmaps`, owned('dep', owner));
    await api.delete(`/api/v1/namespaces/${s}/configmaps/owner`, { propagationPolicy: 'Orphan' });
    await eventually(() => api.get(`/api/v1/namespaces/${s}/configmaps/owner`), (r) => r.status === 404, { message: 'owner deleted' });
    const dep = await api.get(`/api/v1/namespaces/${s}/configmaps/dep`);
    assert.equal(dep.status, 200);
    assert.equal(dep.json.metadata.ownerReferences, undefined);
  });

  test('namespace deletion removes its content, then the namespace', async () => {
    const s = await ns();
    await api.post(`/api/v1/namespaces/${s}/configmaps`, cm('a'));
    await api.post(`/api/v1/namespaces/${s}/secrets`, { apiVersion: 'v1', kind: 'Secret', metadata: { name: 'b' }, stringData: { x: 'y' } });
    const d = await api.delete(`/api/v1/namespaces/${s}`);
    assert.equal(d.json.status.phase, 'Terminating');
    await eventually(() => api.get(`/api/v1/namespaces/${s}`), (r) => r.status === 404, { message: 'namespace gone' });
    assert.equal((await api.get('/api/v1/namespaces/default')).status, 200);
    const sys = await api.delete('/api/v1/namespaces/kube-system');
    assert.equal(sys.status, 403);
    assert.equal(sys.json.message, 'namespaces "kube-system" is forbidden: this namespace may not be deleted');
  });
});

describe('list', () => {
  test('label selectors with every operator and field selectors', async () => {
    const s = await ns();
    for (const [name, labels] of [['a', { env: 'prod', tier: '1' }], ['b', { env: 'dev', tier: '5' }], ['c', { other: 'x' }]] as const) {
      await api.post(`/api/v1/namespaces/${s}/configmaps`, cm(name, { labels }));
    }
    const names = async (q: string) => (await api.get(`/api/v1/namespaces/${s}/configmaps?${q}`)).json.items.map((i: { metadata: { name: string } }) => i.metadata.name);
    assert.deepEqual(await names('labelSelector=env%3Dprod'), ['a']);
    assert.deepEqual(await names('labelSelector=env!%3Dprod'), ['b', 'c']);
    assert.deepEqual(await names('labelSelector=env+in+(prod,dev)'), ['a', 'b']);
    assert.deepEqual(await names('labelSelector=env+notin+(prod)'), ['b', 'c']);
    assert.deepEqual(await names('labelSelector=env'), ['a', 'b']);
    assert.deepEqual(await names('labelSelector=!env'), ['c']);
    assert.deepEqual(await names('labelSelector=tier%3E2'), ['b']);
    assert.deepEqual(await names('fieldSelector=metadata.name%3Db'), ['b']);
    assert.deepEqual(await names('fieldSelector=metadata.name!%3Db'), ['a', 'c']);
    const bad = await api.get(`/api/v1/namespaces/${s}/configmaps?fieldSelector=spec.foo%3Dbar`);
    assert.equal(bad.status, 400);
    assert.equal(bad.json.message, 'field label not supported: spec.foo');
    const badLabel = await api.get(`/api/v1/namespaces/${s}/configmaps?labelSelector=a+in+b`);
    assert.equal(badLabel.status, 400);
    assert.equal(badLabel.json.message, "unable to parse requirement: found 'b' expected: '('");
  });

  test('limit/continue pages at one resourceVersion, consistent while objects change', async () => {
    const s = await ns();
    for (let i = 0; i < 5; i++) await api.post(`/api/v1/namespaces/${s}/configmaps`, cm(`c${i}`));
    const p1 = (await api.get(`/api/v1/namespaces/${s}/configmaps?limit=2`)).json;
    assert.deepEqual(p1.items.map((i: { metadata: { name: string } }) => i.metadata.name), ['c0', 'c1']);
    assert.equal(p1.metadata.remainingItemCount, 3);
    assert.equal(p1.items[0].kind, undefined, 'typed list items carry no kind');
    // Changes after the first page do not show up in later pages of the same list.
    await api.delete(`/api/v1/namespaces/${s}/configmaps/c3`);
    await api.post(`/api/v1/namespaces/${s}/configmaps`, cm('c2a'));
    const p2 = (await api.get(`/api/v1/namespaces/${s}/configmaps?limit=2&continue=${p1.metadata.continue}`)).json;
    assert.deepEqual(p2.items.map((i: { metadata: { name: string } }) => i.metadata.name), ['c2', 'c3']);
    assert.equal(p2.metadata.resourceVersion, p1.metadata.resourceVersion);
    const p3 = (await api.get(`/api/v1/namespaces/${s}/configmaps?limit=2&continue=${p2.metadata.continue}`)).json;
    assert.deepEqual(p3.items.map((i: { metadata: { name: string } }) => i.metadata.name), ['c4']);
    assert.equal(p3.metadata.continue, undefined);
    const garbage = await api.get(`/api/v1/namespaces/${s}/configmaps?limit=2&continue=xyz`);
    assert.equal(garbage.status, 400);
  });
});

describe('custom resources', () => {
  const crd = {
    apiVersion: 'apiextensions.k8s.io/v1',
    kind: 'CustomResourceDefinition',
    metadata: { name: 'gadgets.demo.io' },
    spec: {
      group: 'demo.io',
      names: { kind: 'Gadget', plural: 'gadgets' },
      scope: 'Namespaced',
      versions: [
        {
          name: 'v1',
          served: true,
          storage: true,
          subresources: { status: {} },
          schema: { openAPIV3Schema: { type: 'object', properties: { spec: { type: 'object', properties: { size: { type: 'integer', default: 1 } } }, status: { type: 'object', 'x-kubernetes-preserve-unknown-fields': true } } } },
        },
      ],
    },
  };

  test('a CRD is established at once; its resources are served, validated and removed with it', async () => {
    const r = await api.post('/apis/apiextensions.k8s.io/v1/customresourcedefinitions', crd);
    assert.equal(r.status, 201, r.text);
    const conds = Object.fromEntries(r.json.status.conditions.map((c: { type: string; status: string }) => [c.type, c.status]));
    assert.deepEqual(conds, { NamesAccepted: 'True', Established: 'True' });
    assert.equal(r.json.status.acceptedNames.singular, 'gadget');
    const s = await ns();
    const g = await api.post(`/apis/demo.io/v1/namespaces/${s}/gadgets`, { apiVersion: 'demo.io/v1', kind: 'Gadget', metadata: { name: 'g1' }, spec: { extra: true }, status: { x: 1 } });
    assert.equal(g.status, 201, g.text);
    assert.deepEqual(g.json.spec, { size: 1 }, 'defaulted and pruned');
    assert.equal(g.json.status, undefined, 'status is reset on create');
    assert.equal(g.json.metadata.generation, 1);
    const bad = await api.post(`/apis/demo.io/v1/namespaces/${s}/gadgets`, { apiVersion: 'demo.io/v1', kind: 'Gadget', metadata: { name: 'g2' }, spec: { size: 'big' } });
    assert.equal(bad.status, 422);
    assert.equal(bad.json.details.causes[0].field, 'spec.size');
    const upd = await api.put(`/apis/demo.io/v1/namespaces/${s}/gadgets/g1`, { ...g.json, spec: { size: 2 } });
    assert.equal(upd.json.metadata.generation, 2);
    const noRv = await api.put(`/apis/demo.io/v1/namespaces/${s}/gadgets/g1`, { apiVersion: 'demo.io/v1', kind: 'Gadget', metadata: { name: 'g1' }, spec: { size: 3 } });
    assert.equal(noRv.status, 422);
    assert.equal(noRv.json.message, 'Gadget.demo.io "g1" is invalid: metadata.resourceVersion: Invalid value: 0x0: must be specified for an update');
    const del = await api.delete('/apis/apiextensions.k8s.io/v1/customresourcedefinitions/gadgets.demo.io');
    assert.equal(del.status, 200);
    await eventually(() => api.get(`/apis/demo.io/v1/namespaces/${s}/gadgets`), (x) => x.status === 404, { message: 'resource unserved' });
    assert.equal((await api.get('/apis/apiextensions.k8s.io/v1/customresourcedefinitions/gadgets.demo.io')).status, 404);
  });
});

describe('services and load balancers', () => {
  test('clusterIP and nodePort come from their ranges; a taken IP is Invalid', async () => {
    const s = await ns();
    const r = await api.post(`/api/v1/namespaces/${s}/services`, { apiVersion: 'v1', kind: 'Service', metadata: { name: 'np' }, spec: { type: 'NodePort', ports: [{ port: 80 }] } });
    assert.equal(r.status, 201, r.text);
    assert.match(r.json.spec.clusterIP, /^10\.(9[6-9]|10[0-9]|11[01])\.\d+\.\d+$/);
    assert.deepEqual(r.json.spec.clusterIPs, [r.json.spec.clusterIP]);
    const np = r.json.spec.ports[0].nodePort;
    assert.ok(np >= 30000 && np <= 32767);
    assert.equal(r.json.spec.ports[0].targetPort, 80);
    const taken = await api.post(`/api/v1/namespaces/${s}/services`, { apiVersion: 'v1', kind: 'Service', metadata: { name: 'again' }, spec: { clusterIP: r.json.spec.clusterIP, ports: [{ port: 80 }] } });
    assert.equal(taken.status, 422);
    assert.equal(taken.json.message, `Service "again" is invalid: spec.clusterIPs: Invalid value: []string{"${r.json.spec.clusterIP}"}: failed to allocate IP ${r.json.spec.clusterIP}: provided IP is already allocated`);
    const port = await api.post(`/api/v1/namespaces/${s}/services`, { apiVersion: 'v1', kind: 'Service', metadata: { name: 'np2' }, spec: { type: 'NodePort', ports: [{ port: 80, nodePort: np }] } });
    assert.equal(port.status, 422);
    assert.equal(port.json.message, `Service "np2" is invalid: spec.ports[0].nodePort: Invalid value: ${np}: provided port is already allocated`);
    // Releasing on delete makes the port available again.
    await api.delete(`/api/v1/namespaces/${s}/services/np`);
    await eventually(() => api.post(`/api/v1/namespaces/${s}/services`, { apiVersion: 'v1', kind: 'Service', metadata: { name: 'np3' }, spec: { type: 'NodePort', ports: [{ port: 80, nodePort: np }] } }), (x) => x.status === 201);
  });

  test('the load-balancer simulator assigns pool addresses and releases them', async () => {
    const lb = new RawClient(await srv.cluster('lb'));
    const mk = (name: string) => lb.post('/api/v1/namespaces/default/services', { apiVersion: 'v1', kind: 'Service', metadata: { name }, spec: { type: 'LoadBalancer', ports: [{ port: 443 }] } });
    await mk('first');
    const first = await eventually(() => lb.get('/api/v1/namespaces/default/services/first'), (r) => !!r.json.status.loadBalancer.ingress, { message: 'ingress ip' });
    assert.deepEqual(first.json.status.loadBalancer.ingress, [{ ip: '1.1.1.1', ipMode: 'VIP' }]);
    await mk('second');
    const second = await eventually(() => lb.get('/api/v1/namespaces/default/services/second'), (r) => !!r.json.status.loadBalancer.ingress);
    assert.equal(second.json.status.loadBalancer.ingress[0].ip, '10.20.0.1');
    await lb.delete('/api/v1/namespaces/default/services/first');
    await mk('third');
    const third = await eventually(() => lb.get('/api/v1/namespaces/default/services/third'), (r) => !!r.json.status.loadBalancer.ingress);
    assert.equal(third.json.status.loadBalancer.ingress[0].ip, '1.1.1.1', 'released address is reused');
    // The other cluster has no simulator.
    const s = await ns();
    await api.post(`/api/v1/namespaces/${s}/services`, { apiVersion: 'v1', kind: 'Service', metadata: { name: 'plain' }, spec: { type: 'LoadBalancer', ports: [{ port: 443 }] } });
    await new Promise((r) => setTimeout(r, 50));
    assert.deepEqual((await api.get(`/api/v1/namespaces/${s}/services/plain`)).json.status, { loadBalancer: {} });
  });
});

describe('request options', () => {
  test('dryRun=All validates without storing', async () => {
    const s = await ns();
    const r = await api.post(`/api/v1/namespaces/${s}/configmaps?dryRun=All`, cm('dry'));
    assert.equal(r.status, 201);
    assert.equal((await api.get(`/api/v1/namespaces/${s}/configmaps/dry`)).status, 404);
  });

  test('fieldValidation Strict rejects unknown fields, Warn warns', async () => {
    const s = await ns();
    const strict = await api.post(`/api/v1/namespaces/${s}/configmaps?fieldValidation=Strict`, { ...cm('a'), bogus: 1 });
    assert.equal(strict.status, 400);
    assert.equal(strict.json.message, 'ConfigMap in version "v1" cannot be handled as a ConfigMap: strict decoding error: unknown field "bogus"');
    const warn = await api.post(`/api/v1/namespaces/${s}/configmaps?fieldValidation=Warn`, { ...cm('b'), bogus: 1 });
    assert.equal(warn.status, 201);
    assert.equal(warn.headers.get('warning'), '299 - "unknown field \\"bogus\\""');
  });

  test('Secrets fold stringData into base64 data and reject bad base64', async () => {
    const s = await ns();
    const r = await api.post(`/api/v1/namespaces/${s}/secrets`, { apiVersion: 'v1', kind: 'Secret', metadata: { name: 'a' }, data: { x: 'eA==' }, stringData: { y: 'why' } });
    assert.equal(r.status, 201);
    assert.deepEqual(r.json.data, { x: 'eA==', y: 'd2h5' });
    assert.equal(r.json.stringData, undefined);
    assert.equal(r.json.type, 'Opaque');
    const bad = await api.post(`/api/v1/namespaces/${s}/secrets`, { apiVersion: 'v1', kind: 'Secret', metadata: { name: 'b' }, data: { x: 'not base64!' } });
    assert.equal(bad.status, 400);
    assert.equal(bad.json.message, 'Secret in version "v1" cannot be handled as a Secret: illegal base64 data at input byte 3');
  });
});
