// plan.test.ts: the writes for one (trigger, cluster) — pure; and names, durations, status computations.
import { strict as assert } from 'node:assert';
import { describe, test } from 'node:test';
import { findCollisions } from './collisions.js';
import { contentHash, generatedName, parseGoDuration, RippleAnnotations } from './naming.js';
import { plan, type PlanInput } from './plan.js';
import type { GeneratedObject, RenderedEvent } from './render.js';
import { reportStatus, sameTriggerStatus, triggerStatus, type PairResult } from './status.js';

const base = {
  'eventtrigger.lib.projectsveltos.io/eventtriggername': 't',
  'eventtrigger.lib.projectsveltos.io/clusterNamespace': 'ns',
  'eventtrigger.lib.projectsveltos.io/clustername': 'c',
  'eventtrigger.lib.projectsveltos.io/clustertype': 'Sveltos',
};

function cm(name: string, event: string, hash = 'h1', extra: Partial<GeneratedObject['metadata']> = {}): GeneratedObject {
  return {
    apiVersion: 'v1',
    kind: 'ConfigMap',
    metadata: { name, namespace: 'projectsveltos', labels: { ...base }, annotations: { [RippleAnnotations.event]: event, [RippleAnnotations.hash]: hash }, ...extra },
    data: {},
  };
}
function cp(name: string, event: string, refs: string[] = [], hash = 'h1', extra: Partial<GeneratedObject['metadata']> = {}): GeneratedObject {
  return {
    apiVersion: 'config.projectsveltos.io/v1beta1',
    kind: 'ClusterProfile',
    metadata: { name, labels: { ...base }, annotations: { [RippleAnnotations.event]: event, [RippleAnnotations.hash]: hash }, ...extra },
    spec: { policyRefs: refs.map((r) => ({ kind: 'ConfigMap', namespace: 'projectsveltos', name: r })) },
  };
}
const input = (o: Partial<PlanInput>): PlanInput => ({ desired: [], observedProfiles: [], observedObjects: [], retain: new Set(), remove: new Set(), withdrawAll: false, ...o });
const names = (xs: { object?: GeneratedObject; name?: string }[]) => xs.map((x) => x.object?.metadata.name ?? x.name);

describe('plan', () => {
  test('creates ConfigMaps before the ClusterProfile that references them', () => {
    const p = plan(input({ desired: [cp('p1', 'e1', ['m1']), cm('m1', 'e1')] }));
    assert.deepEqual(names(p.applies), ['m1', 'p1']);
    assert.deepEqual(p.applies.map((a) => a.reason), ['create', 'create']);
  });

  test('equal hash and labels: no write; a changed hash or an edited spec (generation) is re-applied', () => {
    assert.deepEqual(plan(input({ desired: [cp('p1', 'e1')], observedProfiles: [cp('p1', 'e1')] })).applies, []);
    assert.deepEqual(names(plan(input({ desired: [cp('p1', 'e1', [], 'h2')], observedProfiles: [cp('p1', 'e1')] })).applies), ['p1']);
    const edited = cp('p1', 'e1', [], 'h1', { generation: 3 });
    assert.deepEqual(names(plan(input({ desired: [cp('p1', 'e1')], observedProfiles: [edited], writtenGenerations: new Map([['ClusterProfile//p1', 2]]) })).applies), ['p1']);
  });

  test('an event that went away: its ClusterProfile is deleted now, its ConfigMap once the ClusterProfile is gone', () => {
    const p = plan(input({ observedProfiles: [cp('p1', 'e1', ['m1'])], observedObjects: [cm('m1', 'e1')] }));
    assert.deepEqual(names(p.deletes), ['p1']);
    assert.deepEqual(p.waiting, ['ConfigMap/projectsveltos/m1']);
    const later = plan(input({ observedObjects: [cm('m1', 'e1')] }));
    assert.deepEqual(names(later.deletes), ['m1']);
  });

  test('retained events (failed rendering, grace period) keep their outputs untouched', () => {
    const p = plan(input({ observedProfiles: [cp('p1', 'e1', ['m1'])], observedObjects: [cm('m1', 'e1')], retain: new Set(['e1']) }));
    assert.deepEqual(p.deletes, []);
    assert.deepEqual(p.applies, []);
  });

  test('CloudEvent outputs are sticky until a Delete CloudEvent or withdrawAll', () => {
    const ce = 'cloudevent:src/subj';
    assert.deepEqual(plan(input({ observedProfiles: [cp('p1', ce)] })).deletes, []);
    assert.deepEqual(names(plan(input({ observedProfiles: [cp('p1', ce)], remove: new Set([ce]) })).deletes), ['p1']);
    assert.deepEqual(names(plan(input({ observedProfiles: [cp('p1', ce)], withdrawAll: true })).deletes), ['p1']);
  });

  test('withdrawAll removes retained outputs too; objects already being deleted are not deleted again', () => {
    const gone = cp('p2', 'e2', [], 'h1', { deletionTimestamp: '2024-01-01T00:00:00Z' });
    const p = plan(input({ observedProfiles: [cp('p1', 'e1'), gone], retain: new Set(['e1']), withdrawAll: true }));
    assert.deepEqual(names(p.deletes), ['p1']);
  });

  test('a desired object whose predecessor is still being deleted waits (blocked)', () => {
    const p = plan(input({ desired: [cp('p1', 'e1')], observedProfiles: [cp('p1', 'e1', [], 'h0', { deletionTimestamp: 'x' })] }));
    assert.deepEqual(p.applies, []);
    assert.deepEqual(p.blocked, ['ClusterProfile//p1']);
  });

  test('a ConfigMap the updated ClusterProfile no longer references waits for the update to land', () => {
    const p = plan(input({ desired: [cp('p1', 'e1', ['m2'], 'h2'), cm('m2', 'e1')], observedProfiles: [cp('p1', 'e1', ['m1'])], observedObjects: [cm('m1', 'e1')] }));
    assert.deepEqual(names(p.applies), ['m2', 'p1']);
    assert.deepEqual(p.waiting, ['ConfigMap/projectsveltos/m1']);
  });

  test('the same desired objects planned again against changed observed ones: the verdicts follow the observed objects', () => {
    // A reconcile reuses the objects of the last render (memoized by identity): what plan derived from them must not
    // hide a change of what exists.
    const desired = [cp('p1', 'e1', ['m1']), cm('m1', 'e1'), cp('p2', 'e2', ['m2']), cm('m2', 'e2')];
    const observed = { observedProfiles: [cp('p1', 'e1', ['m1']), cp('p2', 'e2', ['m2'])], observedObjects: [cm('m1', 'e1'), cm('m2', 'e2')] };
    const first = plan(input({ desired, ...observed }));
    assert.deepEqual([first.applies, first.deletes], [[], []]);
    assert.deepEqual(plan(input({ desired, ...observed })), first);
    // Someone rewrote m2 (new object, other hash) and relabelled p1: both are applied again; m1 and p2 are not.
    const edited = {
      observedProfiles: [cp('p1', 'e1', ['m1'], 'h1', { labels: { ...base, extra: 'x' } }), observed.observedProfiles[1]],
      observedObjects: [observed.observedObjects[0], cm('m2', 'e2', 'tampered')],
    };
    assert.deepEqual(names(plan(input({ desired, ...edited })).applies), ['m2', 'p1']);
    // Event e2 went away: its outputs go, e1's stay, with the same objects as before.
    const withdrawn = plan(input({ desired: desired.slice(0, 2), ...observed }));
    assert.deepEqual(names(withdrawn.deletes), ['p2']);
    assert.deepEqual(withdrawn.waiting, ['ConfigMap/projectsveltos/m2']);
    assert.deepEqual(names(plan(input({ desired: desired.slice(0, 2), observedProfiles: observed.observedProfiles.slice(0, 1), observedObjects: observed.observedObjects })).deletes), ['m2']);
  });
});

describe('collisions', () => {
  const ev = (id: string, profile: GeneratedObject): RenderedEvent => ({ id, action: 'create', profile, objects: [], issues: [] });
  const owner = { trigger: 't', cluster: { type: 'Sveltos' as const, namespace: 'ns', name: 'c' } };

  test('two events rendering the same profile name: the second reports a collision', () => {
    const c = findCollisions([ev('e1', cp('same', 'e1')), ev('e2', cp('same', 'e2'))], () => undefined, owner);
    assert.deepEqual([...c.keys()], ['e2']);
    assert.match(c.get('e2')!.message, /ClusterProfile same is generated for both event e1 and event e2/);
  });

  test('an existing object of another owner (other cluster, or not generated) is not overwritten', () => {
    const other = cp('same', 'e9');
    other.metadata.labels = { ...base, 'eventtrigger.lib.projectsveltos.io/clustername': 'c2' };
    const c = findCollisions([ev('e1', cp('same', 'e1'))], () => other, owner);
    assert.match(c.get('e1')!.message, /already exists and belongs to EventTrigger t for cluster Sveltos:ns\/c2 \(event e9\)/);
    const user = cp('same', '');
    user.metadata.labels = {};
    assert.match(findCollisions([ev('e1', cp('same', 'e1'))], () => user, owner).get('e1')!.message, /an object not generated by an EventTrigger/);
    assert.equal(findCollisions([ev('e1', cp('same', 'e1'))], () => cp('same', 'e1'), owner).size, 0, 'our own object is no collision');
  });

  test('the same rendered events checked again: a collision that appears since is found, one that went away is cleared', () => {
    const events = [ev('e1', cp('p1', 'e1')), ev('e2', cp('p2', 'e2'))];
    const existing = new Map<string, GeneratedObject>([
      ['p1', cp('p1', 'e1')],
      ['p2', cp('p2', 'e2')],
    ]);
    const lookup = (_k: string, _ns: string | undefined, name: string) => existing.get(name);
    assert.equal(findCollisions(events, lookup, owner).size, 0);
    assert.equal(findCollisions(events, lookup, owner).size, 0);
    // p2 is replaced by an object of another cluster: e2 now collides (same rendered objects as before).
    const other = cp('p2', 'e9');
    other.metadata.labels = { ...base, 'eventtrigger.lib.projectsveltos.io/clustername': 'c2' };
    existing.set('p2', other);
    assert.deepEqual([...findCollisions(events, lookup, owner).keys()], ['e2']);
    // The same for another owner of the same render (another trigger reading the same objects).
    assert.deepEqual([...findCollisions(events, lookup, { ...owner, trigger: 'u' }).keys()], ['e1', 'e2']);
    existing.set('p2', cp('p2', 'e2'));
    assert.equal(findCollisions(events, lookup, owner).size, 0);
  });
});

describe('naming', () => {
  test('generated names are sveltos-<20 of [0-9a-z]>, deterministic and distinct', () => {
    const a = generatedName(['ClusterProfile', 't', 'Sveltos', 'ns', 'c', 'resource:/Service/a/x']);
    assert.match(a, /^sveltos-[0-9a-z]{20}$/);
    assert.equal(generatedName(['ClusterProfile', 't', 'Sveltos', 'ns', 'c', 'resource:/Service/a/x']), a);
    assert.notEqual(generatedName(['ClusterProfile', 't', 'Sveltos', 'ns', 'c', 'resource:apps/Deployment/a/x']), a);
    assert.equal(contentHash({ b: 1, a: 2 }), contentHash({ a: 2, b: 1 }));
  });

  test('Go durations', () => {
    assert.equal(parseGoDuration('30s'), 30_000);
    assert.equal(parseGoDuration('1m30s'), 90_000);
    assert.equal(parseGoDuration('250ms'), 250);
    assert.equal(parseGoDuration('1.5h'), 5_400_000);
    assert.equal(parseGoDuration('0'), 0);
    assert.equal(parseGoDuration('30'), undefined);
    assert.equal(parseGoDuration('3x'), undefined);
  });
});

describe('status', () => {
  const ref = (n: string) => ({ apiVersion: 'lib.projectsveltos.io/v1beta1', kind: 'SveltosCluster', namespace: 'ns', name: n });
  const res = (n: string, status: PairResult['status'], failureMessage?: string): PairResult => ({ clusterKey: `Sveltos:ns/${n}`, cluster: ref(n), status, hash: 'aGFzaA==', matching: 1, failureMessage });

  test('one clusterInfo per selected cluster, Removing ones kept until gone, stored entries kept across a restart', () => {
    const stored = { clusterInfo: [{ cluster: ref('c'), hash: 'b2xk', status: 'Provisioned' as const }] };
    const s = triggerStatus(
      [{ key: 'Sveltos:ns/a', ref: ref('a') }, { key: 'Sveltos:ns/c', ref: ref('c') }, { key: 'Sveltos:ns/d', ref: ref('d') }],
      new Map([
        ['Sveltos:ns/a', res('a', 'Failed', 'boom')],
        ['Sveltos:ns/b', res('b', 'Removing')],
      ]),
      stored,
    );
    assert.deepEqual(s.matchingClusters?.map((r) => r.name), ['a', 'c', 'd']);
    assert.deepEqual(s.clusterInfo?.map((c) => [c.cluster.name, c.status, c.failureMessage]), [
      ['a', 'Failed', 'boom'],
      ['c', 'Provisioned', undefined],
      ['d', 'Provisioning', undefined],
      ['b', 'Removing', undefined],
    ]);
    assert.ok(sameTriggerStatus(JSON.parse(JSON.stringify(s)), s));
    assert.ok(!sameTriggerStatus(stored, s));
  });

  test('EventReport status: Processed once every trigger handled the generation, failures named per trigger', () => {
    assert.equal(reportStatus(2, new Map([['a', { generation: 1 }]])), undefined);
    assert.deepEqual(reportStatus(2, new Map([['a', { generation: 2 }]])), { phase: 'Processed' });
    assert.deepEqual(reportStatus(2, new Map([['b', { generation: 2, failure: 'x' }], ['a', { generation: 2 }]])), { phase: 'Processed', failureMessage: 'EventTrigger b: x' });
  });
});
