import { strict as assert } from 'node:assert';
import { test } from 'node:test';
import { validateAgainstSchema, type JsonSchema } from './index.js';

const schema: JsonSchema = { type: 'object', properties: { data: { type: 'string', format: 'byte' } } };
const codes = (data: string) => validateAgainstSchema({ data }, schema).map((i) => `${i.path} ${i.code}`);

test('format byte: base64 with or without padding and whitespace is valid, anything else is not', () => {
  for (const ok of ['', 'QUJD', 'QUI=', 'QQ==', 'QU JD\nRA==']) assert.deepEqual(codes(ok), [], ok);
  for (const bad of ['QUJ', 'Q===', 'QU=D', 'QUJD!', '====']) assert.deepEqual(codes(bad), ['data format'], bad);
});

test('format byte: a large blob is judged the same the first time and when seen again (the memo only remembers valid ones)', () => {
  const big = Buffer.from('x'.repeat(60_000)).toString('base64');
  assert.deepEqual(codes(big), []);
  assert.deepEqual(codes(String(big)), []);
  // Equal length, one character outside the alphabet: not valid, before or after the valid blob was remembered.
  const broken = big.slice(0, 1000) + '!' + big.slice(1001);
  assert.deepEqual(codes(broken), ['data format']);
  assert.deepEqual(codes(broken), ['data format']);
  assert.deepEqual(codes(big.slice(0, -1)), ['data format']);
});
