// fmt.test.ts: the exported fmt functions on values the oracle's JSON data cannot carry (sized integers, float32,
// typed slices and maps); JSON-shaped values are covered by the fmt goldens.
import { strict as assert } from 'node:assert';
import { test } from 'node:test';
import { formatFloat, GoFloat32, GoInt, goTypeOf, sprint, sprintf, sprintln, withGoType } from './index.js';

test('sized integers print by their kind', () => {
  assert.equal(sprintf('%d %v %x %T', new GoInt('uint8', 255n), new GoInt('int8', -3n), new GoInt('uint64', 2n ** 64n - 1n), new GoInt('uint16', 1n)), '255 -3 ffffffffffffffff uint16');
  assert.equal(sprintf('%#v %#v', new GoInt('uint', 10n), new GoInt('int32', 10n)), '0xa 10');
  assert.equal(sprintf('%c %q %U', new GoInt('int32', 0x263an), new GoInt('int32', 0x263an), new GoInt('int32', 0x263an)), '☺ \'☺\' U+263A');
});

test('float32 uses the shortest float32 representation', () => {
  assert.equal(sprint(new GoFloat32(0.1)), '0.1');
  assert.equal(sprintf('%v %.3f %T', new GoFloat32(1 / 3), new GoFloat32(1 / 3), new GoFloat32(0)), '0.33333334 0.333 float32');
  assert.equal(formatFloat(16777216, 'g', -1, 32), '1.6777216e+07');
});

test('typed slices and maps print their Go types', () => {
  const strs = withGoType(['a', 'b'], '[]string');
  const m = withGoType({ b: 'y', a: 'x' }, 'map[string]string');
  assert.equal(sprintf('%v %#v %T', strs, strs, strs), '[a b] []string{"a", "b"} []string');
  assert.equal(sprintf('%v %#v', m, m), 'map[a:x b:y] map[string]string{"a":"x", "b":"y"}');
  assert.equal(goTypeOf(withGoType([], '[]int')), '[]int');
});

test('Sprint spaces operands unless one is a string; Sprintln always does', () => {
  assert.equal(sprint('a', 1n, 2n, 'b', 'c', 3.5), 'a1 2bc3.5');
  assert.equal(sprintln('a', 1n, 'b'), 'a 1 b\n');
  assert.equal(sprint(), '');
  assert.equal(sprint(null, undefined), '<nil> <nil>');
});
