// plan.test.ts: the pure deployment plan — ordering, namespaces, unchanged objects, conflicts, adoption, stale
// objects (delete vs release), driftExclusions, and withdrawal (WithdrawPolicies vs LeavePolicies).
import { strict as assert } from 'node:assert';
import { test } from 'node:test';
import type { KubeObject } from '../kube/index.js';
import { ADOPTED_ANNOTATION } from './names.js';
import { identityKey, identityOf, plan, planWithdrawal, type Action, type DesiredObject } from './plan.js';
import { stampObject, STAMP_ANNOTATIONS } from './stamp.js';

const ctx = (refName = 'cm') => ({
  reference: { kind: 'ConfigMap', namespace: 'default', name: refName, tier: 100 },
  profile: { kind: 'ClusterProfile' as const, name: 'p', tier: 100 },
  cluster: { type: 'Sveltos' as const, namespace: 'c', name: 'c' },
  deploymentType: 'Remote' as const,
});

function desired(o: KubeObject, more: Partial<DesiredObject> = {}, refName = 'cm'): DesiredObject {
  const s = stampObject(o, ctx(refName));
  return {
    object: s.object,
    hash: s.hash,
    target: 'Remote',
    subresources: [],
    claim: { reference: ctx(refName).reference, profile: ctx(refName).profile },
    skipNamespaceCreation: false,
    forceRecreate: false,
    driftExclusions: [],
    source: `ConfigMap default/${refName}`,
    ...more,
  };
}

const cm = (name: string, ns = 'apps', data: Record<string, string> = { k: 'v' }): KubeObject => ({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name, namespace: ns }, data } as KubeObject);
const crd: KubeObject = { apiVersion: 'apiextensions.k8s.io/v1', kind: 'CustomResourceDefinition', metadata: { name: 'things.example.com' }, spec: {} } as KubeObject;
const nsObj = (name: string): KubeObject => ({ apiVersion: 'v1', kind: 'Namespace', metadata: { name } });
const key = (d: DesiredObject) => identityKey(identityOf(d.target, d.object));
const types = (a: Action[]) => a.map((x) => (x.type === 'apply' ? `${x.op}:${x.id.kind}/${x.id.name}` : x.type === 'createNamespace' ? `ns:${x.name}` : `${x.type}:${'id' in x ? x.id.name : ''}`));

test('CRDs and Namespaces first; missing namespaces created once unless skipped or deployed', () => {
  const d = [desired(cm('a')), desired(cm('b', 'other'), { skipNamespaceCreation: true }), desired(nsObj('own')), desired(cm('c', 'own')), desired(crd), desired(cm('d'))];
  const actions = plan({ desired: d, observed: new Map(), deployed: [], namespaces: new Set() });
  assert.deepEqual(types(actions), ['ns:apps', 'create:CustomResourceDefinition/things.example.com', 'create:Namespace/own', 'create:ConfigMap/a', 'create:ConfigMap/b', 'create:ConfigMap/c', 'create:ConfigMap/d']);
  const known = plan({ desired: [desired(cm('a'))], observed: new Map(), deployed: [], namespaces: new Set(['Remote:apps']) });
  assert.deepEqual(types(known), ['create:ConfigMap/a']);
});

test('an intact object is left alone; a changed or drifted one is updated with an optimistic lock', () => {
  const d = desired(cm('a'));
  const live = { ...d.object, metadata: { ...d.object.metadata, resourceVersion: '7', uid: 'u', managedFields: [] } } as KubeObject;
  assert.deepEqual(types(plan({ desired: [d], observed: new Map([[key(d), live]]), deployed: [], namespaces: new Set(['Remote:apps']) })), ['unchanged:a']);
  const edited = { ...live, data: { k: 'hacked' } } as KubeObject;
  const [u] = plan({ desired: [d], observed: new Map([[key(d), edited]]), deployed: [], namespaces: new Set(['Remote:apps']) });
  assert.equal(u.type, 'apply');
  assert.equal((u as Extract<Action, { type: 'apply' }>).resourceVersion, '7');
  // Same content but a stale hash stamp (the policy changed back and forth): updated.
  const staleHash = { ...live, metadata: { ...live.metadata, annotations: { ...live.metadata.annotations, 'projectsveltos.io/hash': 'sha256:x' } } } as KubeObject;
  assert.equal(plan({ desired: [d], observed: new Map([[key(d), staleHash]]), deployed: [], namespaces: new Set(['Remote:apps']) })[0].type, 'apply');
});

test('a status that only a status subresource apply writes is compared only when that subresource is applied', () => {
  const withStatus = { ...cm('s'), status: { x: 1 } } as KubeObject;
  const d = desired(withStatus);
  const live = { ...d.object, status: {} } as KubeObject;
  assert.equal(plan({ desired: [d], observed: new Map([[key(d), live]]), deployed: [], namespaces: new Set(['Remote:apps']) })[0].type, 'unchanged');
  const ds = desired(withStatus, { subresources: ['status'] });
  assert.equal(plan({ desired: [ds], observed: new Map([[key(ds), live]]), deployed: [], namespaces: new Set(['Remote:apps']) })[0].type, 'apply');
});

test('adoption marks the object with the subresources applied', () => {
  const d = desired(cm('a'), { subresources: ['status'] });
  const user = cm('a', 'apps', { mine: 'x' });
  const [a] = plan({ desired: [d], observed: new Map([[key(d), user]]), deployed: [], namespaces: new Set(['Remote:apps']) });
  assert.equal(a.type, 'apply');
  assert.equal((a as Extract<Action, { type: 'apply' }>).object.metadata.annotations![ADOPTED_ANNOTATION], 'status');
});

test('conflicts are actions, never writes; two references yielding one object conflict', () => {
  const d = desired(cm('a'));
  const other = stampObject(cm('a'), { ...ctx('x'), profile: { kind: 'ClusterProfile', name: 'other', tier: 100 } }).object;
  const [c] = plan({ desired: [d], observed: new Map([[key(d), other]]), deployed: [], namespaces: new Set(['Remote:apps']) });
  assert.equal(c.type, 'conflict');
  const twice = plan({ desired: [desired(cm('a')), desired(cm('a'), {}, 'cm2')], observed: new Map(), deployed: [], namespaces: new Set(['Remote:apps']) });
  assert.deepEqual(types(twice), ['create:ConfigMap/a', 'conflict:a']);
  assert.match((twice[1] as { message: string }).message, /also deployed from ConfigMap default\/cm by the same profile/);
});

test('stale objects: deleted (with a uid precondition) or released when adopted; objects before CRDs', () => {
  const keep = desired(cm('a'));
  const gone = { ...stampObject(cm('old'), ctx()).object, metadata: { ...stampObject(cm('old'), ctx()).object.metadata, uid: 'u1' } } as KubeObject;
  const adopted = stampObject({ ...cm('user'), metadata: { ...cm('user').metadata, annotations: { [ADOPTED_ANNOTATION]: 'status' } } }, ctx()).object;
  const oldCrd = stampObject(crd, ctx()).object;
  const actions = plan({
    desired: [keep],
    observed: new Map(),
    deployed: [{ target: 'Remote', object: oldCrd }, { target: 'Remote', object: gone }, { target: 'Remote', object: adopted }, { target: 'Remote', object: keep.object }],
    namespaces: new Set(['Remote:apps']),
  });
  assert.deepEqual(types(actions), ['create:ConfigMap/a', 'delete:old', 'release:user', 'delete:things.example.com']);
  assert.equal((actions[1] as { uid?: string }).uid, 'u1');
  assert.deepEqual((actions[2] as { subresources: readonly string[] }).subresources, ['status']);
});

test('driftExclusions: not compared, and not re-applied over an existing object', () => {
  const dep = { apiVersion: 'apps/v1', kind: 'Deployment', metadata: { name: 'w', namespace: 'apps' }, spec: { replicas: 2, paused: false } } as KubeObject;
  const d = desired(dep, { driftExclusions: ['/spec/replicas'] });
  const live = { ...d.object, spec: { replicas: 9, paused: false } } as KubeObject;
  assert.equal(plan({ desired: [d], observed: new Map([[key(d), live]]), deployed: [], namespaces: new Set(['Remote:apps']) })[0].type, 'unchanged');
  const changed = { ...d.object, spec: { replicas: 9, paused: true } } as KubeObject;
  const [u] = plan({ desired: [d], observed: new Map([[key(d), changed]]), deployed: [], namespaces: new Set(['Remote:apps']) });
  assert.deepEqual((u as Extract<Action, { type: 'apply' }>).object.spec, { paused: false });
});

test('withdrawal: delete/release, or strip the stamps with LeavePolicies', () => {
  const a = stampObject(cm('a'), ctx()).object;
  const adopted = { ...a, metadata: { ...a.metadata, name: 'b', annotations: { ...a.metadata.annotations, [ADOPTED_ANNOTATION]: '' } } } as KubeObject;
  assert.deepEqual(types(planWithdrawal([{ target: 'Remote', object: a }, { target: 'Remote', object: adopted }], false, STAMP_ANNOTATIONS, ['projectsveltos.io/reason'])), ['delete:a', 'release:b']);
  const leave = planWithdrawal([{ target: 'Remote', object: adopted }], true, STAMP_ANNOTATIONS, ['projectsveltos.io/reason']);
  assert.equal(leave[0].type, 'strip');
  assert.deepEqual([...(leave[0] as { annotations: readonly string[] }).annotations].sort(), [...STAMP_ANNOTATIONS, ADOPTED_ANNOTATION].sort());
  assert.deepEqual((leave[0] as { labels: readonly string[] }).labels, ['projectsveltos.io/reason']);
});
