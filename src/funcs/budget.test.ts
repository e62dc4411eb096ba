import { strict as assert } from 'node:assert';
import { test } from 'node:test';
import { Template, TemplateError } from '../gotemplate/index.js';
import { sprigFuncMap } from './index.js';

const run = (text: string, o: Parameters<typeof sprigFuncMap>[0] = {}) => new Template('t', { funcs: sprigFuncMap(o) }).parse(text).execute(null);

function failure(text: string, o?: Parameters<typeof sprigFuncMap>[0]): string {
  try {
    run(text, o);
  } catch (e) {
    if (e instanceof TemplateError) return e.message;
    throw e;
  }
  return assert.fail(`${text} did not fail`);
}

test('until, untilStep and seq refuse lists beyond the budget before allocating them', () => {
  assert.match(failure('{{range until 100000000}}{{end}}'), /error calling until: until: a list of 100000000 elements is more than the render budget allows \(100000\)/);
  assert.match(failure('{{untilStep 0 100 1}}', { maxListLength: 10 }), /untilStep: a list of 100 elements/);
  assert.match(failure('{{seq 1 100}}', { maxListLength: 10 }), /seq: a list of 100 elements/);
  assert.equal(run('{{until 3}} {{untilStep 0 10 5}} {{seq 3}}', { maxListLength: 3 }), '[0 1 2] [0 5] 1 2 3');
});

test('repeat, indent, nindent and rand* refuse strings beyond the budget', () => {
  assert.match(failure('{{repeat 100000000 "abcdefgh"}}'), /repeat: a string of 800000000 characters is more than the render budget allows \(16777216\)/);
  assert.match(failure('{{"a\\nb\\nc" | indent 100}}', { maxStringLength: 100 }), /indent: a string of 305 characters/);
  assert.match(failure('{{nindent 1000 "x"}}', { maxStringLength: 100 }), /nindent: a string of/);
  assert.match(failure('{{randAlpha 1000}}', { maxStringLength: 100 }), /rand: a string of 1000 characters/);
  assert.equal(run('{{repeat 3 "ab"}}|{{indent 2 "x"}}'), 'ababab|  x');
});
