// json.test.ts: decodeJSON's number modes and errors, and toPlainJSON's conversions back to plain data.
import { strict as assert } from 'node:assert';
import { test } from 'node:test';
import { decodeJSON, GoFloat32, GoInt, GoStruct, rawTopLevelField, TemplateError, toPlainJSON, withGoType } from './index.js';

test('float64 mode decodes every number as a float64', () => {
  assert.deepEqual(decodeJSON('{"a":1,"b":[2.5,-0],"c":null}'), { a: 1, b: [2.5, -0], c: null });
});

test('int64 mode keeps integral literals exact, beyond 2^53, and falls back to float64', () => {
  const v = decodeJSON('{"big":9007199254740993,"min":-9223372036854775808,"over":9223372036854775808,"f":1.0,"e":1e3,"s":"x\\u00e9"}', { numbers: 'int64' });
  assert.deepEqual(v, { big: 9007199254740993n, min: -9223372036854775808n, over: 9223372036854775808, f: 1, e: 1000, s: 'xé' });
});

test('per-key modes apply to top-level keys, with * for the rest', () => {
  const v = decodeJSON('{"Resource":{"port":80},"Cluster":{"port":80},"Other":[1]}', { numbers: { Cluster: 'int64', '*': 'float64' } });
  assert.deepEqual(v, { Resource: { port: 80 }, Cluster: { port: 80n }, Other: [1] });
  assert.deepEqual(decodeJSON('[1]', { numbers: { '*': 'int64' } }), [1n]);
});

test('a __proto__ key is data, not a prototype', () => {
  const v = decodeJSON('{"__proto__":{"x":1}}', { numbers: 'int64' }) as Record<string, unknown>;
  assert.equal(Object.getPrototypeOf(v), Object.prototype);
  assert.deepEqual(Object.keys(v), ['__proto__']);
});

test('malformed JSON is a TemplateError with code invalid_json', () => {
  for (const bad of ['{"a":}', '[1,]', '{"a":1} x', '"\\q"', '01']) {
    assert.throws(() => decodeJSON(bad, { numbers: 'int64' }), (e: unknown) => e instanceof TemplateError && e.code === 'invalid_json', bad);
  }
  assert.throws(() => decodeJSON('{'), (e: unknown) => e instanceof TemplateError && e.code === 'invalid_json');
});

test('toPlainJSON converts Go values back to plain data', () => {
  const v = {
    i: 5n,
    huge: 2n ** 60n,
    n: new GoInt('int', 3n),
    f32: new GoFloat32(1.5),
    b: new Uint8Array([104, 105, 33]),
    s: new GoStruct('T', { A: 1n, B: null }),
    l: withGoType(['a'], '[]string'),
    when: { goString: () => 'then', goTypeName: () => 'time.Time' },
    f: { name: 'f', params: [], result: 'string', impl: () => '' },
  };
  assert.deepEqual(toPlainJSON(v), { i: 5, huge: 2n ** 60n, n: 3, f32: 1.5, b: 'aGkh', s: { A: 1, B: null }, l: ['a'], when: 'then' });
  assert.equal(toPlainJSON(undefined), null);
});

test('rawTopLevelField: the exact text of a top-level member, nested keys and strings skipped', () => {
  const line = '{"id": "x", "inner": {"data": 1}, "s": "\\"data\\": 2", "data" : {"n": 9007199254740993, "f": 1.0}, "z": [1]}';
  assert.equal(rawTopLevelField(line, 'data'), '{"n": 9007199254740993, "f": 1.0}');
  assert.equal(rawTopLevelField(line, 'z'), '[1]');
  assert.equal(rawTopLevelField(line, 'missing'), undefined);
  assert.deepEqual(decodeJSON(rawTopLevelField(line, 'data')!, { numbers: 'int64' }), { n: 9007199254740993n, f: 1 });
});
