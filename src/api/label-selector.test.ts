import { strict as assert } from 'node:assert';
import { test } from 'node:test';
import {
  compileLabelSelector,
  formatLabelSelector,
  labelFiltersAsSelector,
  matchesLabelSelector,
  parseLabelSelector,
  validateLabelFilters,
  validateLabelSelector,
  type LabelSelector,
} from './label-selector.js';

function parsed(text: string): LabelSelector {
  const r = parseLabelSelector(text);
  assert.ok(r.ok, `expected ${JSON.stringify(text)} to parse: ${r.ok ? '' : r.error}`);
  return r.selector;
}

test('parseLabelSelector: the forms Sveltos users write', () => {
  assert.deepEqual(parsed('env=fv'), { matchLabels: { env: 'fv' } });
  assert.deepEqual(parsed('a==b'), { matchLabels: { a: 'b' } });
  assert.deepEqual(parsed('env=production, dep = eng'), { matchLabels: { dep: 'eng', env: 'production' } });
  assert.deepEqual(parsed('tier!=x'), { matchExpressions: [{ key: 'tier', operator: 'NotIn', values: ['x'] }] });
  assert.deepEqual(parsed('k in (b,a,b)'), { matchExpressions: [{ key: 'k', operator: 'In', values: ['a', 'b'] }] });
  assert.deepEqual(parsed('k notin (a)'), { matchExpressions: [{ key: 'k', operator: 'NotIn', values: ['a'] }] });
  assert.deepEqual(parsed('k'), { matchExpressions: [{ key: 'k', operator: 'Exists' }] });
  assert.deepEqual(parsed('!k'), { matchExpressions: [{ key: 'k', operator: 'DoesNotExist' }] });
  assert.deepEqual(parsed(''), {});
  assert.deepEqual(parsed('   '), {});
  // `in` is an identifier in value position; empty values are legal.
  assert.deepEqual(parsed('x in (in,,notin)'), { matchExpressions: [{ key: 'x', operator: 'In', values: ['', 'in', 'notin'] }] });
  assert.deepEqual(parsed('x in ()'), { matchExpressions: [{ key: 'x', operator: 'In', values: [''] }] });
  assert.deepEqual(parsed('x='), { matchLabels: { x: '' } });
  // Requirements come out sorted by key, like Go.
  assert.deepEqual(parsed('z,a=1,!m'), {
    matchLabels: { a: '1' },
    matchExpressions: [
      { key: 'm', operator: 'DoesNotExist' },
      { key: 'z', operator: 'Exists' },
    ],
  });
  assert.deepEqual(parsed('example.com/role=db'), { matchLabels: { 'example.com/role': 'db' } });
});

test('parseLabelSelector: errors carry apimachinery texts', () => {
  const err = (text: string) => {
    const r = parseLabelSelector(text);
    assert.equal(r.ok, false, `expected ${JSON.stringify(text)} to fail`);
    return r.ok ? '' : r.error;
  };
  assert.equal(err('env=fv,'), `couldn't parse the selector string "env=fv,": found '', expected: identifier after ','`);
  assert.equal(err('a b'), `couldn't parse the selector string "a b": unable to parse requirement: found 'b', expected: in, notin, =, ==, !=, gt, lt`);
  assert.equal(err('x in a'), `couldn't parse the selector string "x in a": unable to parse requirement: found 'a' expected: '('`);
  assert.equal(err('x in (a'), `couldn't parse the selector string "x in (a": unable to parse requirement: found '', expected: ',' or ')'`);
  assert.equal(err('=a'), `couldn't parse the selector string "=a": found '=', expected: !, identifier, or 'end of string'`);
  assert.equal(err('a=b c'), `couldn't parse the selector string "a=b c": found 'c', expected: ',' or 'end of string'`);
  assert.match(err('-bad=1'), /unable to parse requirement: <nil>: Invalid value: "-bad": name part must consist of alphanumeric characters, '-', '_' or '\.', and must start and end with an alphanumeric character \(e\.g\. 'MyName',  or 'my\.name',  or '123-abc', regex used/);
  assert.match(err('a=-x'), /unable to parse requirement: values\[0\]\[a\]: Invalid value: "-x": a valid label must be an empty string/);
  assert.match(err('a/b/c=1'), /a qualified name must consist of/);
  assert.match(err('Bad_Prefix.com/x=1'), /prefix part a lowercase RFC 1123 subdomain must consist of/);
  assert.equal(err('a>1'), `"gt" isn't supported in label selectors`);
  assert.equal(err('a<1'), `"lt" isn't supported in label selectors`);
});

test('matchesLabelSelector: Kubernetes semantics', () => {
  const labels = { env: 'prod', tier: 'web' };
  assert.equal(matchesLabelSelector(parsed('env=prod'), labels), true);
  assert.equal(matchesLabelSelector(parsed('env=dev'), labels), false);
  assert.equal(matchesLabelSelector(parsed('env in (dev,prod)'), labels), true);
  assert.equal(matchesLabelSelector(parsed('env notin (prod)'), labels), false);
  // NotIn / != also match objects without the label.
  assert.equal(matchesLabelSelector(parsed('zone!=a'), labels), true);
  assert.equal(matchesLabelSelector(parsed('zone notin (a)'), labels), true);
  assert.equal(matchesLabelSelector(parsed('tier'), labels), true);
  assert.equal(matchesLabelSelector(parsed('!tier'), labels), false);
  assert.equal(matchesLabelSelector(parsed('env=prod,!zone'), labels), true);
  assert.equal(matchesLabelSelector(parsed('env=prod'), undefined), false);
});

test('matchesLabelSelector: empty and missing selectors', () => {
  assert.equal(matchesLabelSelector({}, { a: 'b' }), true, 'Kubernetes: empty selector selects everything');
  assert.equal(matchesLabelSelector({ matchLabels: {}, matchExpressions: [] }, {}), true);
  assert.equal(matchesLabelSelector({}, { a: 'b' }, { empty: 'nothing' }), false, 'Sveltos sourceClusterSelector');
  assert.equal(matchesLabelSelector(undefined, { a: 'b' }), false, 'nil selector selects nothing');
  assert.equal(matchesLabelSelector(null, {}), false);
  // invalid selectors never match
  assert.equal(matchesLabelSelector({ matchExpressions: [{ key: 'a', operator: 'Bogus' as 'In' }] }, { a: 'b' }), false);
  assert.equal(matchesLabelSelector({ matchExpressions: [{ key: 'a', operator: 'In', values: [] }] }, { a: 'b' }), false);
});

test('validateLabelSelector reports every problem', () => {
  const issues = validateLabelSelector(
    {
      matchLabels: { 'bad key!': 'ok', good: 'bad value!' },
      matchExpressions: [
        { key: 'a', operator: 'In' },
        { key: 'b', operator: 'Exists', values: ['x'] },
        { key: 'c', operator: 'Sometimes', values: ['y'] },
      ],
    },
    'spec.sourceClusterSelector',
  );
  assert.deepEqual(
    issues.map((i) => [i.path, i.code, i.message.split(':')[0]]),
    [
      ['spec.sourceClusterSelector.matchLabels[bad key!]', 'invalidSelector', 'Invalid value'],
      ['spec.sourceClusterSelector.matchLabels.good', 'invalidSelector', 'Invalid value'],
      ['spec.sourceClusterSelector.matchExpressions[0].values', 'invalidSelector', 'Required value'],
      ['spec.sourceClusterSelector.matchExpressions[1].values', 'invalidSelector', 'Forbidden'],
      ['spec.sourceClusterSelector.matchExpressions[2].operator', 'invalidSelector', 'Invalid value'],
    ],
  );
  assert.deepEqual(validateLabelSelector(parsed('env=fv,k in (a,b),!z'), 'x'), []);
});

test('formatLabelSelector round-trips through parseLabelSelector', () => {
  for (const text of ['env=fv', 'a=1,k in (x,y),!z', 'k notin (a)', 'k', 'dep=eng,env=production']) {
    assert.equal(formatLabelSelector(parsed(text)), text);
    assert.deepEqual(parsed(formatLabelSelector(parsed(text))), parsed(text));
  }
  assert.equal(formatLabelSelector({}), '<none>');
  assert.equal(formatLabelSelector(undefined), '<none>');
});

test('compileLabelSelector: one compiled selector, many label sets, the same answers as matchesLabelSelector', () => {
  const selector = parsed('env in (prod,staging),tier!=db,!deprecated,app');
  const compiled = compileLabelSelector(selector);
  const sets: Record<string, string>[] = [
    { env: 'prod', app: 'web' },
    { env: 'staging', app: 'web', tier: 'db' },
    { env: 'dev', app: 'web' },
    { env: 'prod', app: 'web', deprecated: 'yes' },
    { env: 'prod' },
    {},
  ];
  assert.deepEqual(sets.map((l) => compiled.matches(l)), [true, false, false, false, false, false]);
  assert.deepEqual(sets.map((l) => matchesLabelSelector(selector, l)), [true, false, false, false, false, false]);
  assert.deepEqual(compiled.requirements?.map((r) => `${r.key} ${r.operator} ${r.values.join('|')}`), [
    'app Exists ',
    'deprecated DoesNotExist ',
    'env In prod|staging',
    'tier NotIn db',
  ]);
  assert.equal(compileLabelSelector(undefined).requirements, null, 'nil selects nothing');
  assert.equal(compileLabelSelector({}, { empty: 'nothing' }).matches({ a: 'b' }), false);
  assert.equal(compileLabelSelector({ matchExpressions: [{ key: 'a', operator: 'Exists', values: ['x'] }] }).matches({ a: 'b' }), false);
});

test('compiled selectors on unvalidated labels: null counts as absent, other values by their text', () => {
  const c = compileLabelSelector({ matchLabels: { version: '2' }, matchExpressions: [{ key: 'gone', operator: 'DoesNotExist' }] });
  assert.equal(c.matches({ version: 2, gone: null } as unknown as Record<string, string>), true);
  assert.equal(c.matches(null), false);
  assert.equal(compileLabelSelector({}).matches(undefined), true, 'an empty selector matches an object without labels');
});

test('labelFiltersAsSelector: Sveltos labelFilters as the equivalent selector', () => {
  const filters = [
    { key: 'sveltos', operation: 'Equal' as const, value: 'fv' },
    { key: 'tier', operation: 'Different' as const, value: 'db' },
    { key: 'app', operation: 'Has' as const },
    { key: 'old', operation: 'DoesNotHave' as const },
  ];
  const sel = labelFiltersAsSelector(filters);
  assert.equal(formatLabelSelector(sel), 'app,!old,sveltos in (fv),tier notin (db)');
  const c = compileLabelSelector(sel);
  assert.equal(c.matches({ sveltos: 'fv', app: 'a' }), true, 'Different also holds when the label is absent');
  assert.equal(c.matches({ sveltos: 'fv', app: 'a', tier: 'db' }), false);
  assert.equal(c.matches({ sveltos: 'prod', app: 'a' }), false);
  assert.deepEqual(labelFiltersAsSelector([]), {});
  assert.equal(compileLabelSelector(labelFiltersAsSelector([{ key: 'a', operation: 'Like' as 'Equal' }])).matches({ a: 'b' }), false, 'unknown operation selects nothing');
});

test('validateLabelFilters: what labels.Parse would reject', () => {
  const issues = validateLabelFilters(
    [
      { key: 'ok', operation: 'Equal', value: 'fine' },
      { key: 'bad key!', operation: 'Has' },
      { key: 'a', operation: 'Different', value: 'not ok!' },
      { key: 'a', operation: 'Like' },
      { operation: 'Has' },
    ],
    'spec.labelFilters',
  );
  assert.deepEqual(
    issues.map((i) => [i.path, i.code]),
    [
      ['spec.labelFilters[1].key', 'invalidSelector'],
      ['spec.labelFilters[2].value', 'invalidSelector'],
      ['spec.labelFilters[3].operation', 'invalidSelector'],
      ['spec.labelFilters[4].key', 'invalidSelector'],
    ],
  );
  assert.match(issues[0].message, /^Invalid value: "bad key!": name part must consist of alphanumeric characters/);
  assert.deepEqual(validateLabelFilters(undefined, 'x'), []);
});
