// refs.test.ts: which changes of a templateResourceRefs object matter (ignoreStatusChanges, watchFields) and the
// index from referenced objects to the ClusterSummaries reading them.
import { strict as assert } from 'node:assert';
import { test } from 'node:test';
import type { KubeObject } from '../kube/index.js';
import { fieldAt, fingerprint, ReferenceIndex, refKey, relevantChange } from './refs.js';

const svc = (rv: string, ip?: string, port = 80, labels: Record<string, string> = {}): KubeObject =>
  ({
    apiVersion: 'v1',
    kind: 'Service',
    metadata: { name: 'lb', namespace: 'ns', resourceVersion: rv, labels, managedFields: [{ manager: rv }] },
    spec: { ports: [{ port }] },
    status: ip ? { loadBalancer: { ingress: [{ ip }] } } : {},
  }) as KubeObject;

test('every change counts by default; volatile metadata never does', () => {
  assert.ok(relevantChange(svc('1'), svc('2', '1.1.1.1'), undefined));
  assert.deepEqual(fingerprint(svc('1'), undefined), fingerprint(svc('2'), undefined));
});

test('ignoreStatusChanges: only spec and metadata changes count', () => {
  const f = { ignoreStatusChanges: true };
  assert.ok(!relevantChange(svc('1'), svc('2', '1.1.1.1'), f));
  assert.ok(relevantChange(svc('1'), svc('2', undefined, 81), f));
  assert.ok(relevantChange(svc('1'), svc('2', undefined, 80, { a: 'b' }), f));
});

test('watchFields: only the listed paths count (and override ignoreStatusChanges)', () => {
  const f = { watchFields: ['status.loadBalancer'], ignoreStatusChanges: true };
  assert.ok(relevantChange(svc('1'), svc('2', '1.1.1.1'), f));
  assert.ok(!relevantChange(svc('1'), svc('2', undefined, 81), f));
  assert.deepEqual(fieldAt(svc('1', '9.9.9.9'), 'status.loadBalancer.ingress'), [{ ip: '9.9.9.9' }]);
  assert.equal(fieldAt(svc('1'), 'spec.nope.deeper'), undefined);
});

test('the index maps objects to readers and forgets them', () => {
  const idx = new ReferenceIndex();
  const k = refKey('v1', 'Service', 'ns', 'lb');
  idx.set('a/cs1', [{ key: k, filter: { ignoreStatusChanges: true } }, { key: refKey('v1', 'ConfigMap', 'ns', 'x') }]);
  idx.set('b/cs2', [{ key: k }]);
  assert.deepEqual(idx.affected(k, svc('1'), svc('2', '1.1.1.1')).sort(), ['b/cs2']);
  assert.deepEqual(idx.affected(k, undefined, svc('2')).sort(), ['a/cs1', 'b/cs2']);
  idx.set('a/cs1', [{ key: refKey('v1', 'ConfigMap', 'ns', 'y') }]);
  assert.deepEqual(idx.affected(k, undefined, svc('2')), ['b/cs2']);
  assert.deepEqual([...idx.readers(refKey('v1', 'ConfigMap', 'ns', 'x')).keys()], []);
  idx.forget('b/cs2');
  assert.deepEqual(idx.affected(k, undefined, svc('2')), []);
  assert.equal(refKey('apps/v1', 'Deployment', undefined, 'd'), 'apps|Deployment||d');
});
