// diff.test.ts: the drift comparison, JSON-pointer removal and the DryRun diff.
import { strict as assert } from 'node:assert';
import { test } from 'node:test';
import { containsDesired, removePaths, unifiedDiff } from './diff.js';

test('containsDesired: extra live fields are fine, changed or missing ones are not', () => {
  assert.ok(containsDesired({ a: 1, b: { c: [1, { d: 2, e: 3 }] }, extra: true }, { a: 1, b: { c: [1, { d: 2 }] } }));
  assert.ok(!containsDesired({ a: 2 }, { a: 1 }));
  assert.ok(!containsDesired({ b: { c: [1] } }, { b: { c: [1, 2] } }));
  assert.ok(!containsDesired({}, { a: 'x' }));
  assert.ok(containsDesired({}, { a: null }));
  assert.ok(!containsDesired({ a: 1 }, { a: null }));
});

test('removePaths: JSON pointers with escapes and indexes; missing paths ignored; invalid reported', () => {
  const o = { spec: { replicas: 3, 'a/b': 1, list: [{ x: 1 }, { x: 2 }] }, metadata: { annotations: { 'k~n': 'v' } } };
  const r = removePaths(o, ['/spec/replicas', '/spec/a~1b', '/spec/list/0', '/metadata/annotations/k~0n', '/not/there', 'bad']);
  assert.deepEqual(r.value, { spec: { list: [{ x: 2 }] }, metadata: { annotations: {} } });
  assert.deepEqual(r.invalid, ['bad']);
  assert.equal(o.spec.replicas, 3, 'input untouched');
});

test('unifiedDiff: hunks with context (merged when 6 lines apart or less), removals first, volatile metadata ignored', () => {
  const a = { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'x', resourceVersion: '1', managedFields: [{}] }, data: { a: '1', b: '2', c: '3', d: '4', e: '5', f: '6', g: '7', h: '8', i: '9', j: '10' } };
  const b = { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'x' }, data: { ...a.data, a: 'one', i: 'nine' } };
  assert.equal(
    unifiedDiff(a, b, 'ConfigMap x'),
    [
      '--- a/ConfigMap x',
      '+++ b/ConfigMap x',
      '@@ -1,6 +1,6 @@',
      ' apiVersion: v1',
      ' data:',
      '-  a: "1"',
      '+  a: one',
      '   b: "2"',
      '   c: "3"',
      '   d: "4"',
      '@@ -8,7 +8,7 @@',
      '   f: "6"',
      '   g: "7"',
      '   h: "8"',
      '-  i: "9"',
      '+  i: nine',
      '   j: "10"',
      ' kind: ConfigMap',
      ' metadata:',
      '',
    ].join('\n'),
  );
  assert.equal(unifiedDiff(a, a, 'same'), '--- a/same\n+++ b/same\n');
  const near = unifiedDiff(a, { ...b, data: { ...a.data, b: 'two', i: 'nine' } }, 'x');
  assert.equal(near.split('\n').filter((l) => l.startsWith('@@')).length, 1);
});
