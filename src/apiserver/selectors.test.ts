import { strict as assert } from 'node:assert';
import { test } from 'node:test';
import { fieldTermsMatch, labelSelectorFromMatch, parseFieldSelector, parseLabelSelector, SelectorError } from './selectors.js';

const matches = (sel: string, labels: Record<string, string>) => parseLabelSelector(sel).matches(labels);

test('label selectors: every operator', () => {
  const l = { env: 'prod', tier: '3', app: 'web' };
  assert.ok(matches('env=prod', l));
  assert.ok(matches('env==prod', l));
  assert.ok(!matches('env!=prod', l));
  assert.ok(matches('env!=dev', {}), '!= holds for an absent key');
  assert.ok(matches('env in (dev, prod)', l));
  assert.ok(!matches('env notin (prod)', l));
  assert.ok(matches('missing notin (x)', l));
  assert.ok(matches('app', l));
  assert.ok(matches('!missing', l));
  assert.ok(!matches('!app', l));
  assert.ok(matches('tier>2', l));
  assert.ok(!matches('tier<3', l));
  assert.ok(!matches('app>1', l), 'gt on a non-number label is false');
  assert.ok(matches('env=prod,tier in (3),app', l));
  assert.ok(matches('', l));
  assert.ok(matches('example.com/role=db', { 'example.com/role': 'db' }));
  assert.ok(matches('x in (in, notin)', { x: 'notin' }), 'in/notin are values in a value list');
});

test('label selectors: apimachinery parse errors', () => {
  const err = (s: string) => {
    try {
      parseLabelSelector(s);
    } catch (e) {
      assert.ok(e instanceof SelectorError);
      return e.message;
    }
    assert.fail(`${s} parsed`);
  };
  assert.equal(err('a in b'), "unable to parse requirement: found 'b' expected: '('");
  assert.equal(err('a,'), "found '', expected: identifier after ','");
  assert.equal(err('a b'), "unable to parse requirement: found 'b', expected: in, notin, =, ==, !=, gt, lt");
  assert.equal(err('a=b c'), "found 'c', expected: ',' or 'end of string'");
  assert.equal(err('!a=b'), "found '=', expected: ',' or 'end of string'");
  assert.equal(err('a>b'), 'unable to parse requirement: values[0]: Invalid value: "b": for \'Gt\', \'Lt\' operators, the value must be an integer');
  assert.match(err('Bad Key=1'), /found 'Key'/);
  assert.match(err('k=v@v'), /unable to parse requirement: values\[0\]\[k\]: Invalid value: "v@v": a valid label must be an empty string/);
});

test('metav1.LabelSelector conversion', () => {
  const sel = labelSelectorFromMatch({ matchLabels: { a: '1' }, matchExpressions: [{ key: 'b', operator: 'In', values: ['x', 'y'] }, { key: 'c', operator: 'DoesNotExist' }] });
  assert.ok(sel.matches({ a: '1', b: 'y' }));
  assert.ok(!sel.matches({ a: '1', b: 'y', c: '' }));
  assert.ok(labelSelectorFromMatch(undefined).matches({ any: 'thing' }));
});

test('field selectors: terms, escapes and errors', () => {
  assert.deepEqual(parseFieldSelector('metadata.name=a,metadata.namespace!=b'), [
    { field: 'metadata.name', value: 'a', negated: false },
    { field: 'metadata.namespace', value: 'b', negated: true },
  ]);
  assert.deepEqual(parseFieldSelector('involvedObject.name==x\\,y'), [{ field: 'involvedObject.name', value: 'x,y', negated: false }]);
  assert.throws(() => parseFieldSelector('metadata.name'), /invalid selector: 'metadata.name'; can't understand 'metadata.name'/);
  assert.throws(() => parseFieldSelector('a=b\\c'), /invalid field selector: invalid escape sequence: \\c/);
  const terms = parseFieldSelector('spec.nodeName=,status.phase!=Running');
  assert.ok(fieldTermsMatch(terms, { 'spec.nodeName': '', 'status.phase': 'Pending' }));
  assert.ok(!fieldTermsMatch(terms, { 'spec.nodeName': 'n1', 'status.phase': 'Pending' }));
});
