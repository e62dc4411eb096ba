import { strict as assert } from 'node:assert';
import { test } from 'node:test';
import { didYouMean, editDistance, suggest } from './suggest.js';

test('editDistance counts insertions, deletions, substitutions and swapped neighbours', () => {
  assert.equal(editDistance('yml', 'yaml'), 1);
  assert.equal(editDistance('gte', 'get'), 1);
  assert.equal(editDistance('loadbalancr', 'loadbalancer'), 1);
  assert.equal(editDistance('kitten', 'sitting'), 3);
  assert.equal(editDistance('', 'abc'), 3);
});

test('suggest keeps candidates within distance 2 or starting with the word, closest first', () => {
  assert.deepEqual(suggest('yml', ['table', 'wide', 'yaml', 'json']), ['yaml']);
  assert.deepEqual(suggest('clus', ['addons', 'clusters', 'profiles']), ['clusters']);
  assert.deepEqual(suggest('tmplate', ['template', 'test', 'validate']), ['template']);
  assert.deepEqual(suggest('xyzzy', ['get', 'up']), []);
  assert.deepEqual(suggest('g', ['get']), [], 'one character is close to everything');
  assert.deepEqual(suggest('get', ['get']), [], 'the word itself is no suggestion');
});

test('didYouMean is a sentence fragment, empty without suggestions', () => {
  assert.equal(didYouMean('yml', ['yaml', 'json']), '; did you mean "yaml"?');
  assert.equal(didYouMean('demoo', ['demo', 'data-dir'], (s) => `--${s}`), '; did you mean --demo?');
  assert.equal(didYouMean('zzz', ['yaml']), '');
});
