import { strict as assert } from 'node:assert';
import { test } from 'node:test';
import { applyMergePatch } from './merge-patch.js';
import { isPatchError } from './errors.js';

test('merge patch: RFC 7396 appendix A cases', () => {
  const cases: [unknown, unknown, unknown][] = [
    [{ a: 'b' }, { a: 'c' }, { a: 'c' }],
    [{ a: 'b' }, { b: 'c' }, { a: 'b', b: 'c' }],
    [{ a: 'b' }, { a: null }, {}],
    [{ a: 'b', b: 'c' }, { a: null }, { b: 'c' }],
    [{ a: ['b'] }, { a: 'c' }, { a: 'c' }],
    [{ a: 'c' }, { a: ['b'] }, { a: ['b'] }],
    [{ a: { b: 'c' } }, { a: { b: 'd', c: null } }, { a: { b: 'd' } }],
    [{ a: [{ b: 'c' }] }, { a: [1] }, { a: [1] }],
    [{ e: null }, { a: 1 }, { e: null, a: 1 }],
    [{}, { a: { bb: { ccc: null } } }, { a: { bb: {} } }],
  ];
  for (const [target, patch, want] of cases) assert.deepEqual(applyMergePatch(target as object, patch), want);
});

test('merge patch: arrays keep null elements, nested objects lose null members', () => {
  assert.deepEqual(applyMergePatch({}, { a: [null, { x: null, y: 1 }] }), { a: [null, { y: 1 }] });
});

test('merge patch: inputs are not mutated', () => {
  const target = { metadata: { labels: { a: '1' } } };
  const patch = { metadata: { labels: { b: '2' } } };
  const out = applyMergePatch(target, patch);
  assert.deepEqual(out, { metadata: { labels: { a: '1', b: '2' } } });
  assert.deepEqual(target, { metadata: { labels: { a: '1' } } });
  assert.deepEqual(patch, { metadata: { labels: { b: '2' } } });
});

test('merge patch: null or scalar patch is a BadRequest "Invalid JSON Patch"', () => {
  for (const p of [null, 'x', 3, true]) {
    assert.throws(() => applyMergePatch({}, p), (e) => isPatchError(e, 'BadRequest') && e.message === 'Invalid JSON Patch' && e.status === 400);
  }
});

test('merge patch: an array patch yields a document that is not an object (422 Invalid on field patch)', () => {
  assert.throws(
    () => applyMergePatch({ a: 1 }, [1, 2]),
    (e) =>
      isPatchError(e, 'Invalid') &&
      e.message.startsWith(' "" is invalid: patch: Invalid value: "[1,2]": couldn\'t get version/kind; json parse error') &&
      e.causes?.[0]?.field === 'patch',
  );
});

test('merge patch: __proto__ keys stay data', () => {
  const patch = JSON.parse('{"__proto__": {"polluted": 1}}');
  const out = applyMergePatch({}, patch) as Record<string, unknown>;
  assert.equal(({} as Record<string, unknown>).polluted, undefined);
  assert.deepEqual(Object.getOwnPropertyDescriptor(out, '__proto__')?.value, { polluted: 1 });
});
