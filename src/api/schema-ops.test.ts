// schema-ops.test.ts: jsonCopy gives exactly what a JSON round trip gives (normalize relied on that shape).
import { strict as assert } from 'node:assert';
import { test } from 'node:test';
import { jsonCopy } from './schema-ops.js';

const roundTrip = (v: unknown): unknown => JSON.parse(JSON.stringify(v)) as unknown;

test('jsonCopy equals a JSON round trip, including the values JSON changes or drops, and copies deeply', () => {
  const cases: object[] = [
    { a: 1, b: 'x', c: true, d: null, e: [1, 'two', null, { f: [] }], g: {} },
    { undefinedMember: undefined, nested: { gone: undefined, arr: [undefined, () => 1, Symbol('s'), NaN, Infinity, -0] } },
    { when: new Date(0), buf: Buffer.from('hi'), map: new Map([[1, 2]]), custom: { toJSON: () => ({ replaced: true }) } },
    JSON.parse('{"__proto__": {"x": 1}, "y": 2}') as object,
    { big: 'x'.repeat(100_000), '10': 'a', '2': 'b', z: 'c' },
  ];
  for (const v of cases) {
    const c = jsonCopy(v);
    assert.deepStrictEqual(c, roundTrip(v));
    assert.equal(JSON.stringify(c), JSON.stringify(roundTrip(v)));
    assert.notEqual(c, v);
  }
  assert.equal(Object.getPrototypeOf(jsonCopy(cases[3])), Object.prototype);
  const o = { spec: { ports: [{ port: 80 }] } };
  const c = jsonCopy(o);
  c.spec.ports[0].port = 81;
  assert.equal(o.spec.ports[0].port, 80);
  assert.throws(() => jsonCopy({ n: 1n }), TypeError);
});
