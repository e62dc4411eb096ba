// types.test.ts: clone gives exactly what a JSON round trip gives (the API server relied on that shape).
import { strict as assert } from 'node:assert';
import { test } from 'node:test';
import { clone } from './types.js';

const roundTrip = (v: unknown): unknown => JSON.parse(JSON.stringify(v)) as unknown;

test('clone equals a JSON round trip, including the values JSON changes or drops', () => {
  const proto = JSON.parse('{"__proto__": {"x": 1}, "y": 2}') as Record<string, unknown>;
  const cases: unknown[] = [
    { a: 1, b: 'x', c: true, d: null, e: [1, 'two', null, { f: [] }], g: {} },
    { undefinedMember: undefined, keep: 1, nested: { gone: undefined, arr: [undefined, () => 1, Symbol('s'), NaN, Infinity, -0] } },
    { when: new Date(0), buf: Buffer.from('hi'), map: new Map([[1, 2]]), set: new Set([1]) },
    { custom: { toJSON: () => ({ replaced: true }) } },
    [1, , 3], // eslint-disable-line no-sparse-arrays
    proto,
    { big: 'x'.repeat(100_000), '10': 'a', '2': 'b', z: 'c' },
    -0,
    NaN,
    'text',
    false,
    null,
  ];
  for (const v of cases) {
    const c = clone(v);
    assert.deepStrictEqual(c, roundTrip(v));
    assert.equal(JSON.stringify(c), JSON.stringify(roundTrip(v)));
    if (c !== null && typeof c === 'object') assert.notEqual(c, v);
  }
  const c = clone(proto);
  assert.equal(Object.getPrototypeOf(c), Object.prototype);
  assert.deepEqual(Object.keys(c), ['__proto__', 'y']);
  assert.equal(clone(undefined), undefined);
  assert.throws(() => clone({ n: 1n }), TypeError);
});

test('clone copies deeply: changing the copy leaves the original alone', () => {
  const o = { metadata: { labels: { a: 'b' } }, spec: { ports: [{ port: 80 }] } };
  const c = clone(o);
  c.metadata.labels.a = 'changed';
  c.spec.ports[0].port = 81;
  c.spec.ports.push({ port: 82 });
  assert.deepEqual(o, { metadata: { labels: { a: 'b' } }, spec: { ports: [{ port: 80 }] } });
});
