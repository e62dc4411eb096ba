import { strict as assert } from 'node:assert';
import { test } from 'node:test';
import { applyJsonPatch, MAX_JSON_PATCH_OPERATIONS } from './json-patch.js';
import { GENERIC_INVALID, isPatchError } from './errors.js';

test('json patch: add/remove/replace/move/copy/test', () => {
  const doc = { metadata: { labels: { a: '1' } }, spec: { list: [1, 2, 3] } };
  const out = applyJsonPatch(doc, [
    { op: 'add', path: '/metadata/labels/b', value: '2' },
    { op: 'remove', path: '/metadata/labels/a' },
    { op: 'replace', path: '/spec/list/0', value: 10 },
    { op: 'add', path: '/spec/list/-', value: 4 },
    { op: 'add', path: '/spec/list/1', value: 15 },
    { op: 'move', from: '/spec/list/4', path: '/spec/last' },
    { op: 'copy', from: '/metadata/labels', path: '/spec/labels' },
    { op: 'test', path: '/spec/last', value: 4 },
  ]);
  assert.deepEqual(out, { metadata: { labels: { b: '2' } }, spec: { list: [10, 15, 2, 3], last: 4, labels: { b: '2' } } });
  assert.deepEqual(doc, { metadata: { labels: { a: '1' } }, spec: { list: [1, 2, 3] } }, 'input not mutated');
});

test('json patch: pointer escapes ~0 and ~1 (annotation keys with slashes)', () => {
  const out = applyJsonPatch({ metadata: { annotations: {} } }, [
    { op: 'add', path: '/metadata/annotations/example.com~1a~0b', value: 'x' },
  ]);
  assert.deepEqual(out, { metadata: { annotations: { 'example.com/a~b': 'x' } } });
});

test('json patch: negative indices count from the end like json-patch v4', () => {
  assert.deepEqual(applyJsonPatch({ l: [1, 2, 3] }, [{ op: 'remove', path: '/l/-1' }]), { l: [1, 2] });
});

test('json patch: failures are the generic 422 with the json-patch text in detail', () => {
  const bad: unknown[] = [
    [{ op: 'remove', path: '/missing' }],
    [{ op: 'replace', path: '/missing', value: 1 }],
    [{ op: 'add', path: '/a/b/c', value: 1 }],
    [{ op: 'test', path: '/a', value: 2 }],
    [{ op: 'frobnicate', path: '/a' }],
    [{ op: 'add', path: '/l/9', value: 1 }],
    [{ op: 'add' }],
  ];
  for (const ops of bad) {
    assert.throws(
      () => applyJsonPatch({ a: 1, l: [] }, ops),
      (e) => isPatchError(e, 'Invalid') && e.message === GENERIC_INVALID && e.status === 422 && typeof e.detail === 'string',
      JSON.stringify(ops),
    );
  }
});

test('json patch: a document that is not an operation list is a BadRequest with Go decoder text', () => {
  assert.throws(
    () => applyJsonPatch({}, { op: 'add' }),
    (e) => isPatchError(e, 'BadRequest') && e.message === 'json: cannot unmarshal object into Go value of type jsonpatch.Patch',
  );
  assert.throws(
    () => applyJsonPatch({}, ['x']),
    (e) => isPatchError(e, 'BadRequest') && e.message === 'json: cannot unmarshal string into Go value of type jsonpatch.Operation',
  );
  assert.deepEqual(applyJsonPatch({ a: 1 }, null), { a: 1 });
});

test('json patch: more than 10000 operations is RequestEntityTooLarge', () => {
  const ops = Array.from({ length: MAX_JSON_PATCH_OPERATIONS + 1 }, () => ({ op: 'test', path: '/a', value: 1 }));
  assert.throws(
    () => applyJsonPatch({ a: 1 }, ops),
    (e) => isPatchError(e, 'RequestEntityTooLarge') && e.status === 413 && e.message.endsWith('is 10000, got 10001'),
  );
});
