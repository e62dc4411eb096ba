// plan.test.ts: the pure pieces — report plans, EventSource copy plans, which EventSources a cluster needs and the
// eventSourceName templates — without any server.
import { strict as assert } from 'node:assert';
import { test } from 'node:test';
import type { EventSource } from '../api/index.js';
import { toEntry } from '../clusters/index.js';
import type { KubeObject } from '../kube/index.js';
import { OWNER_TRIGGERS_ANNOTATION, buildEventSourceCopy, planDistribution } from './distribution.js';
import { EventSourceNameRenderer, computeNeeds, type TriggerView } from './needs.js';
import { EVALUATION_FAILURE_ANNOTATION, buildManagedReport, buildManagementReport, type ReportObject } from './report.js';
import { planReport, reportDiffers } from './writer.js';

const id = { clusterNamespace: 'fleet', clusterName: 'c1', clusterType: 'Sveltos' as const };
const content = { eventSourceName: 'es', matchingResources: [{ apiVersion: 'v1', kind: 'Service', namespace: 'a', name: 'b' }] };
const stored = (r: ReportObject, status?: ReportObject['status']): ReportObject => ({
  ...structuredClone(r),
  metadata: { ...structuredClone(r.metadata), uid: 'u1', resourceVersion: '7', labels: { ...r.metadata.labels, extra: 'kept' } },
  ...(status ? { status } : {}),
});

test('reportDiffers compares matchingResources as Go marshals them: key order aside, every value counts', () => {
  const want = buildManagementReport(id, content);
  const withRefs = (refs: unknown[]) => ({ ...stored(want), spec: { ...want.spec, matchingResources: refs as ReportObject['spec']['matchingResources'] } });
  const ref = { apiVersion: 'v1', kind: 'Service', namespace: 'a', name: 'b' };
  assert.equal(reportDiffers(want, withRefs([{ ...ref }])), false, 'equal copy');
  assert.equal(reportDiffers(want, withRefs([{ name: 'b', namespace: 'a', kind: 'Service', apiVersion: 'v1' }])), false, 'other key order');
  assert.equal(reportDiffers(want, withRefs([{ ...ref, uid: undefined }])), false, 'undefined member');
  assert.equal(reportDiffers(want, withRefs([{ ...ref, name: 'c' }])), true, 'other name');
  assert.equal(reportDiffers(want, withRefs([{ ...ref, uid: '' }])), true, 'an empty member is marshalled');
  assert.equal(reportDiffers(want, withRefs([{ apiVersion: 'v1', kind: 'Service', namespace: 'a' }])), true, 'missing member');
  assert.equal(reportDiffers(want, withRefs([ref, ref])), true, 'longer list');
});

test('planReport: create, unchanged, changed, phase only, withdrawn, being deleted', () => {
  const want = buildManagementReport(id, content);
  assert.deepEqual(
    planReport({ state: 'present', report: want }, undefined).map((a) => a.type),
    ['apply', 'applyStatus'],
  );
  const processed = stored(want, { phase: 'Processed' });
  assert.deepEqual(planReport({ state: 'present', report: want }, processed), [], 'same content, processed: nothing to write');
  assert.deepEqual(planReport({ state: 'present', report: want }, stored(want)).map((a) => a.type), ['applyStatus'], 'no phase yet');
  const waiting = stored(want, { phase: 'WaitingForDelivery' });
  assert.deepEqual(planReport({ state: 'present', report: buildManagementReport(id, { ...content, matchingResources: [] }) }, waiting).map((a) => a.type), ['apply'], 'still waiting: no status write');
  const changed = buildManagementReport(id, { ...content, matchingResources: [] });
  const actions = planReport({ state: 'present', report: changed }, processed);
  assert.deepEqual(actions.map((a) => a.type), ['apply', 'applyStatus']);
  assert.deepEqual((actions[1] as { object: ReportObject }).object.status, { phase: 'WaitingForDelivery' });
  const failing = buildManagementReport(id, { ...content, failureMessage: 'bad' });
  assert.equal(failing.metadata.annotations?.[EVALUATION_FAILURE_ANNOTATION], 'bad');
  assert.deepEqual(planReport({ state: 'present', report: failing }, processed).map((a) => a.type), ['apply', 'applyStatus'], 'a failure is a content change');
  assert.deepEqual(planReport({ state: 'absent' }, processed), [{ type: 'delete', namespace: 'fleet', name: 'sveltos--es--c1', uid: 'u1' }]);
  assert.deepEqual(planReport({ state: 'absent' }, undefined), []);
  assert.deepEqual(planReport(undefined, processed), [], 'unknown keys are never touched');
  const deleting = { ...processed, metadata: { ...processed.metadata, deletionTimestamp: '2024-01-01T00:00:00Z' } };
  assert.deepEqual(planReport({ state: 'present', report: want }, deleting), []);
});

test('planReport: empty matchingResources and a missing list are the same content (Go omitempty)', () => {
  const want = buildManagementReport(id, { eventSourceName: 'es', matchingResources: [] });
  const observed = stored(want, { phase: 'Processed' });
  delete observed.spec.matchingResources;
  assert.deepEqual(planReport({ state: 'present', report: want }, observed), []);
});

test('planReport: the event manager’s failureMessage on the management copy is not a difference', () => {
  const want = buildManagementReport(id, content);
  const observed = stored(want, { phase: 'Processed', failureMessage: 'template error in ClusterProfile generation' });
  assert.deepEqual(planReport({ state: 'present', report: want }, observed), []);
});

test('planReport: the managed copy carries its failure in status.failureMessage', () => {
  const want = buildManagedReport({ ...content, failureMessage: 'lua: boom' });
  const observed = stored(buildManagedReport(content), { phase: 'WaitingForDelivery' });
  const actions = planReport({ state: 'present', report: want }, observed);
  assert.deepEqual(actions.map((a) => a.type), ['applyStatus']);
  assert.deepEqual((actions[0] as { object: ReportObject }).object.status, { phase: 'WaitingForDelivery', failureMessage: 'lua: boom' });
  // Recovery clears it.
  const healed = planReport({ state: 'present', report: buildManagedReport(content) }, stored(want, { phase: 'WaitingForDelivery', failureMessage: 'lua: boom' }));
  assert.deepEqual(healed.map((a) => a.type), ['applyStatus']);
  assert.deepEqual((healed[0] as { object: ReportObject }).object.status, { phase: 'WaitingForDelivery' });
});

const esObj = (name: string, labels?: Record<string, string>): EventSource =>
  ({ apiVersion: 'lib.projectsveltos.io/v1beta1', kind: 'EventSource', metadata: { name, ...(labels ? { labels } : {}) }, spec: { collectResources: true, resourceSelectors: [{ group: '', version: 'v1', kind: 'Service' }] } }) as unknown as EventSource;

test('planDistribution: apply missing or changed copies, delete only Ripple-managed copies nobody needs', () => {
  const a = buildEventSourceCopy(esObj('a', { 'projectsveltos.io/serviceaccount-name': 't' }), ['t2', 't1']);
  assert.deepEqual(a.metadata.annotations, { 'projectsveltos.io/deployed-by-sveltos': 'true', [OWNER_TRIGGERS_ANNOTATION]: 't1,t2' });
  assert.deepEqual(a.metadata.labels, { 'projectsveltos.io/serviceaccount-name': 't' });
  assert.equal((a.metadata as { ownerReferences?: unknown }).ownerReferences, undefined, 'no ownerReferences');
  const b = buildEventSourceCopy(esObj('b'), ['t1']);
  const userCopy = { ...buildEventSourceCopy(esObj('user'), []), metadata: { name: 'user', annotations: { 'projectsveltos.io/deployed-by-sveltos': 'true' } } };
  const stale = { ...buildEventSourceCopy(esObj('stale'), ['gone']), metadata: { ...buildEventSourceCopy(esObj('stale'), ['gone']).metadata, uid: 'u-stale' } };
  const observed = [{ ...a, metadata: { ...a.metadata, uid: 'u-a' } }, userCopy, stale];
  const actions = planDistribution(new Map([['a', a], ['b', b]]), observed);
  assert.deepEqual(actions, [{ type: 'apply', object: b }, { type: 'delete', name: 'stale', uid: 'u-stale' }]);
  // A trigger joining changes the owner annotation: the copy is re-applied.
  const a2 = buildEventSourceCopy(esObj('a', { 'projectsveltos.io/serviceaccount-name': 't' }), ['t1', 't2', 't3']);
  assert.deepEqual(planDistribution(new Map([['a', a2]]), [a]).map((x) => x.type), ['apply']);
});

const cluster = (name: string, labels: Record<string, string>, ns = 'fleet'): ReturnType<typeof toEntry> =>
  toEntry({ apiVersion: 'lib.projectsveltos.io/v1beta1', kind: 'SveltosCluster', metadata: { name, namespace: ns, labels, resourceVersion: '1' }, status: { ready: true } } as KubeObject, 'Sveltos');

test('computeNeeds: rendered names per cluster, triggers listed, render problems reported', () => {
  const c1 = cluster('c1', { env: 'fv', zone: 'eu' });
  const c2 = cluster('c2', { env: 'fv', zone: 'us' });
  const renderer = new EventSourceNameRenderer({ clock: { now: () => 0 } });
  const triggers: TriggerView[] = [
    { kind: 'EventTrigger', apiVersion: 'v', name: 'plain', eventSourceName: 'svc' },
    { kind: 'EventTrigger', apiVersion: 'v', name: 'also', eventSourceName: 'svc' },
    { kind: 'EventTrigger', apiVersion: 'v', name: 'zoned', eventSourceName: 'svc-{{ index .Cluster.metadata.labels "zone" }}' },
    { kind: 'EventTrigger', apiVersion: 'v', name: 'byname', eventSourceName: '{{ .ClusterName }}-{{ .ClusterNamespace }}' },
    { kind: 'EventTrigger', apiVersion: 'v', name: 'broken', eventSourceName: '{{ .Cluster.nothere.x }}' },
  ];
  const r = computeNeeds(triggers, () => [c1, c2], (t, e) => renderer.render(t, e));
  assert.deepEqual(Object.fromEntries([...r.byCluster.get(c1.key)!.sources]), { svc: ['also', 'plain'], 'svc-eu': ['zoned'], 'c1-fleet': ['byname'] });
  assert.deepEqual([...r.byCluster.get(c2.key)!.sources.keys()].sort(), ['c2-fleet', 'svc', 'svc-us']);
  assert.equal(r.problems.length, 2);
  assert.equal(r.problems[0].trigger.name, 'broken');
  assert.match(r.problems[0].message, /fleet-c1-broken/, 'the template name follows libsveltos: <clusterNamespace>-<clusterName>-<requestor>');
  // html/template escaping applies, as in libsveltos.
  const odd = cluster('c3', { env: 'a&b' });
  assert.equal(renderer.render({ kind: 'EventTrigger', apiVersion: 'v', name: 'x', eventSourceName: '{{ .Cluster.metadata.labels.env }}' }, odd), 'a&amp;b');
});

test('planReport: the collected resources blob and a reordered matching list are differences; equal copies are not', () => {
  const want = buildManagementReport(id, content);
  const processed = stored(want, { phase: 'Processed' });
  assert.deepEqual(planReport({ state: 'present', report: structuredClone(want) }, processed), []);
  const blob = { ...structuredClone(want), spec: { ...structuredClone(want.spec), resources: Buffer.from('{"kind":"Service"}\n---').toString('base64') } };
  assert.deepEqual(planReport({ state: 'present', report: blob }, processed).map((a) => a.type), ['apply', 'applyStatus']);
  const two = buildManagementReport(id, { ...content, matchingResources: [...content.matchingResources, { apiVersion: 'v1', kind: 'Service', namespace: 'a', name: 'c' }] });
  const twoStored = stored(two, { phase: 'Processed' });
  const reordered = { ...structuredClone(two), spec: { ...structuredClone(two.spec), matchingResources: [...(two.spec.matchingResources ?? [])].reverse() } };
  assert.deepEqual(planReport({ state: 'present', report: reordered }, twoStored).map((a) => a.type), ['apply', 'applyStatus']);
});
