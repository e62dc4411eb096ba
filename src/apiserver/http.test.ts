import { strict as assert } from 'node:assert';
import { test } from 'node:test';
import { decodeBody } from './http.js';
import { StatusError } from './status.js';

const message = (f: () => unknown) => {
  try {
    f();
  } catch (e) {
    assert.ok(e instanceof StatusError);
    return e.message;
  }
  assert.fail('expected a StatusError');
};

test('decodeBody: JSON objects parse (also as apply YAML); too deep is refused naming the bracket, parsed or not', () => {
  const obj = { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'a' }, data: { k: 'v'.repeat(5000) } };
  assert.deepEqual(decodeBody(Buffer.from(JSON.stringify(obj)), 'application/json'), obj);
  assert.deepEqual(decodeBody(Buffer.from(JSON.stringify(obj)), 'application/apply-patch+yaml'), obj);
  const deep = (n: number, open: string, close: string) => '{"a":' + open.repeat(n) + close.repeat(n) + '}';
  assert.deepEqual(decodeBody(Buffer.from(deep(19, '[', ']')), 'application/json', { maxDepth: 20 }), { a: JSON.parse('['.repeat(19) + ']'.repeat(19)) });
  assert.match(message(() => decodeBody(Buffer.from(deep(30, '[', ']')), 'application/json', { maxDepth: 20 })), /invalid character '\[' exceeded max depth/);
  assert.match(message(() => decodeBody(Buffer.from(deep(30, '{"b":', '}')), 'application/json', { maxDepth: 20 })), /invalid character '\{' exceeded max depth/);
  // Too deep and broken: the depth is reported first, as the Go scanner does.
  assert.match(message(() => decodeBody(Buffer.from(deep(30, '[', ']') + 'x'), 'application/json', { maxDepth: 20 })), /exceeded max depth/);
  assert.match(message(() => decodeBody(Buffer.from('{"a": tru}'), 'application/json')), /json parse error/);
});
