import { strict as assert } from 'node:assert';
import { test } from 'node:test';
import { builtinSchema } from './builtin.js';
import { compileSchema, VALIDATION_STATS } from './compile.js';
import { fieldErrorString, invalidMessage } from './field-errors.js';
import type { JSONSchemaProps } from './types.js';

const widget: JSONSchemaProps = {
  type: 'object',
  properties: {
    spec: {
      type: 'object',
      required: ['size'],
      properties: {
        replicas: { type: 'integer', minimum: 1, maximum: 10, default: 1 },
        size: { type: 'string', enum: ['small', 'large'] },
        name: { type: 'string', maxLength: 5, minLength: 2, pattern: '^[a-z]+$' },
        port: { 'x-kubernetes-int-or-string': true },
        ratio: { type: 'number', multipleOf: 0.5, exclusiveMinimum: true, minimum: 0 },
        when: { type: 'string', format: 'date-time' },
        tags: { type: 'array', items: { type: 'string' }, maxItems: 2, minItems: 1, 'x-kubernetes-list-type': 'set' },
        items: {
          type: 'array',
          'x-kubernetes-list-type': 'map',
          'x-kubernetes-list-map-keys': ['name'],
          items: { type: 'object', required: ['name'], properties: { name: { type: 'string' }, value: { type: 'string', default: 'v' } } },
        },
        labels: { type: 'object', additionalProperties: { type: 'string' } },
        raw: { type: 'object', 'x-kubernetes-preserve-unknown-fields': true, properties: { known: { type: 'object', properties: { a: { type: 'string' } } } } },
        template: { type: 'object', 'x-kubernetes-embedded-resource': true, properties: { spec: { type: 'object', properties: { x: { type: 'string' } } } } },
        nested: { type: 'object', default: {}, properties: { deep: { type: 'string', default: 'd' } } },
        opt: { type: 'string', nullable: true },
        strict: { type: 'string' },
      },
    },
    status: { type: 'object', properties: { ready: { type: 'boolean' } } },
  },
};

const messages = (obj: object, old?: object) => compileSchema(widget).validate(obj, old).map(fieldErrorString);

test('validate: the apiserver messages for type, enum, required, bounds, pattern and length', () => {
  assert.deepEqual(messages({ spec: { size: 'small', replicas: 'three' } }), [
    'spec.replicas: Invalid value: "string": spec.replicas in body must be of type integer: "string"',
  ]);
  assert.deepEqual(messages({ spec: { size: 'medium' } }), ['spec.size: Unsupported value: "medium": supported values: "small", "large"']);
  assert.deepEqual(messages({ spec: {} }), ['spec.size: Required value']);
  assert.deepEqual(messages({ spec: { size: 'small', replicas: 0 } }), [
    'spec.replicas: Invalid value: 0: spec.replicas in body should be greater than or equal to 1',
  ]);
  assert.deepEqual(messages({ spec: { size: 'small', replicas: 11 } }), [
    'spec.replicas: Invalid value: 11: spec.replicas in body should be less than or equal to 10',
  ]);
  assert.deepEqual(messages({ spec: { size: 'small', name: 'abcdef' } }), ['spec.name: Too long: may not be longer than 5']);
  assert.deepEqual(messages({ spec: { size: 'small', name: 'a' } }), ['spec.name: Invalid value: "a": spec.name in body should be at least 2 chars long']);
  assert.deepEqual(messages({ spec: { size: 'small', name: 'AB' } }), ["spec.name: Invalid value: \"AB\": spec.name in body should match '^[a-z]+$'"]);
  assert.deepEqual(messages({ spec: { size: 'small', port: true } }), [
    'spec.port: Invalid value: "boolean": spec.port in body must be of type integer,string: "boolean"',
  ]);
  assert.deepEqual(messages({ spec: { size: 'small', ratio: 0 } }), ['spec.ratio: Invalid value: 0: spec.ratio in body should be greater than 0']);
  assert.deepEqual(messages({ spec: { size: 'small', ratio: 0.7 } }), ['spec.ratio: Invalid value: 0.7: spec.ratio in body should be a multiple of 0.5']);
  assert.deepEqual(messages({ spec: { size: 'small', when: 'yesterday' } }), [
    'spec.when: Invalid value: "yesterday": spec.when in body must be of type date-time: "yesterday"',
  ]);
  assert.deepEqual(messages({ spec: { size: 'small', tags: ['a', 'b', 'c'] } }), ['spec.tags: Too many: 3: must have at most 2 items']);
  assert.deepEqual(messages({ spec: { size: 'small', tags: [] } }), ['spec.tags: Invalid value: 0: spec.tags in body should have at least 1 items']);
  assert.deepEqual(messages({ spec: { size: 'small', labels: { a: 1 } } }), [
    'spec.labels.a: Invalid value: "integer": spec.labels.a in body must be of type string: "integer"',
  ]);
  assert.deepEqual(messages({ spec: { size: 'small', strict: null, opt: null } }), [
    'spec.strict: Invalid value: "null": spec.strict in body must be of type string: "null"',
  ]);
  assert.deepEqual(messages({ spec: { size: 'small', when: '2024-05-01T10:00:00Z', port: 80, ratio: 1.5 } }), []);
});

test('validate: list-type set and map invariants, item paths', () => {
  assert.deepEqual(messages({ spec: { size: 'small', tags: ['a', 'a'] } }), ['spec.tags[1]: Duplicate value: "a"']);
  assert.deepEqual(messages({ spec: { size: 'small', items: [{ name: 'x' }, { name: 'x' }, {}] } }), [
    'spec.items[2].name: Required value',
    'spec.items[1]: Duplicate value: map[string]interface {}{"name":"x"}',
  ]);
});

test('validate: embedded resources need apiVersion and kind', () => {
  assert.deepEqual(messages({ spec: { size: 'small', template: { metadata: { name: 'x' } } } }), [
    'spec.template.apiVersion: Required value: must not be empty',
    'spec.template.kind: Required value: must not be empty',
  ]);
});

test('validate: ratcheting keeps unchanged invalid values valid on update', () => {
  const old = { spec: { size: 'medium', replicas: 0 } };
  assert.deepEqual(messages({ spec: { size: 'medium', replicas: 2 } }, old), []);
  assert.deepEqual(messages({ spec: { size: 'medium', replicas: 0, name: 'AB' } }, old), [
    "spec.name: Invalid value: \"AB\": spec.name in body should match '^[a-z]+$'",
  ]);
});

test('validate: a member found clean is not walked again while it is the same value; errors are never remembered', () => {
  const c = compileSchema(widget);
  const skipped = () => VALIDATION_STATS.cleanMembersSkipped;
  const s0 = skipped();
  const spec = { size: 'small', tags: ['a', 'b'], template: { apiVersion: 'v1', kind: 'X' } };
  assert.deepEqual(c.validate({ spec, status: { ready: true } }), []);
  assert.equal(skipped(), s0);
  // A status write: the stored spec, a new status.
  assert.deepEqual(c.validate({ spec, status: { ready: false } }, { spec, status: { ready: true } }), []);
  assert.equal(skipped(), s0 + 1);
  // An equal copy is a different value: walked.
  assert.deepEqual(c.validate({ spec: structuredClone(spec) }), []);
  assert.equal(skipped(), s0 + 1);
  // A member with errors reports them every time it is seen.
  const bad = { size: 'small', tags: ['a', 'a'], template: { apiVersion: 'v1' } };
  const want = ['spec.tags[1]: Duplicate value: "a"', 'spec.template.kind: Required value: must not be empty'];
  assert.deepEqual(messages({ spec: bad }), want);
  assert.deepEqual(messages({ spec: bad, status: { ready: true } }, { spec: bad }), want);
  assert.equal(skipped(), s0 + 1);
  // The same value under another schema (a changed CRD compiles new nodes) is walked again.
  const setless = structuredClone(widget);
  delete setless.properties!.spec.properties!.tags['x-kubernetes-list-type'];
  const dup = { size: 'small', tags: ['a', 'a'] };
  assert.deepEqual(compileSchema(setless).validate({ spec: dup }), []);
  assert.deepEqual(messages({ spec: dup }), ['spec.tags[1]: Duplicate value: "a"']);
});

test('invalidMessage aggregates like apierrors.NewInvalid', () => {
  const errs = compileSchema(widget).validate({ spec: { replicas: 0 } });
  assert.equal(
    invalidMessage('Widget.example.com', 'w1', errs),
    'Widget.example.com "w1" is invalid: [spec.replicas: Invalid value: 0: spec.replicas in body should be greater than or equal to 1, spec.size: Required value]',
  );
});

test('applyDefaults: nested defaults, defaults inside defaulted objects, list items, non-nullable nulls', () => {
  const c = compileSchema(widget);
  const input = { spec: { size: 'small', items: [{ name: 'a' }, { name: 'b', value: 'x' }], strict: null, opt: null } };
  assert.deepEqual(c.applyDefaults(input), {
    spec: { size: 'small', replicas: 1, items: [{ name: 'a', value: 'v' }, { name: 'b', value: 'x' }], opt: null, nested: { deep: 'd' } },
  });
  assert.deepEqual(input.spec.items[0], { name: 'a' }, 'input not mutated');
  assert.deepEqual(c.applyDefaults({ spec: { size: 'small', replicas: null } }), { spec: { size: 'small', replicas: 1, nested: { deep: 'd' } } });
});

test('prune and unknownFields: drop unknown fields, keep preserved and metadata rules', () => {
  const c = compileSchema(widget);
  const obj = {
    apiVersion: 'example.com/v1',
    kind: 'Widget',
    metadata: { name: 'w', labels: { a: 'b' }, bogus: 1 },
    spec: {
      size: 'small',
      extra: true,
      items: [{ name: 'a', junk: 1 }],
      raw: { anything: { goes: 1 }, known: { a: 'x', b: 'pruned' } },
      template: { apiVersion: 'v1', kind: 'Pod', metadata: { name: 'p', what: 1 }, spec: { x: 'y', z: 1 } },
    },
    top: 1,
  };
  const unknown = ['metadata.bogus', 'spec.extra', 'spec.items[0].junk', 'spec.raw.known.b', 'spec.template.metadata.what', 'spec.template.spec.z', 'top'];
  assert.deepEqual(c.unknownFields(obj).sort(), unknown);
  const { object, pruned } = c.prune(obj);
  assert.deepEqual(pruned.sort(), unknown);
  assert.deepEqual(object, {
    apiVersion: 'example.com/v1',
    kind: 'Widget',
    metadata: { name: 'w', labels: { a: 'b' } },
    spec: {
      size: 'small',
      items: [{ name: 'a' }],
      raw: { anything: { goes: 1 }, known: { a: 'x' } },
      template: { apiVersion: 'v1', kind: 'Pod', metadata: { name: 'p' }, spec: { x: 'y' } },
    },
  });
  assert.equal((obj.spec as Record<string, unknown>).extra, true, 'input not mutated');
});

test('built-in schemas: unknown fields deep in a Deployment and type errors', () => {
  const c = compileSchema(builtinSchema('apps', 'v1', 'Deployment')!, { isBuiltin: true });
  const dep = {
    apiVersion: 'apps/v1',
    kind: 'Deployment',
    metadata: { name: 'd' },
    spec: {
      replicas: 2,
      selector: { matchLabels: { app: 'a' } },
      template: {
        metadata: { labels: { app: 'a' } },
        spec: { containers: [{ name: 'c', image: 'nginx', ports: [{ containerPort: 80, protocl: 'TCP' }], envv: [] }] },
      },
    },
  };
  assert.deepEqual(c.unknownFields(dep), ['spec.template.spec.containers[0].ports[0].protocl', 'spec.template.spec.containers[0].envv']);
  assert.deepEqual(c.validate(dep), []);
  const bad = structuredClone(dep);
  (bad.spec as Record<string, unknown>).replicas = 'two';
  assert.deepEqual(c.validate(bad).map(fieldErrorString), [
    'spec.replicas: Invalid value: "string": spec.replicas in body must be of type integer: "string"',
  ]);
  assert.equal(compileSchema(builtinSchema('apps', 'v1', 'Deployment')!, { isBuiltin: true }), c, 'cached by identity');
});

test('built-in CRD schema: recursive JSONSchemaProps is walked without looping', () => {
  const c = compileSchema(builtinSchema('apiextensions.k8s.io', 'v1', 'CustomResourceDefinition')!, { isBuiltin: true });
  const crd = {
    apiVersion: 'apiextensions.k8s.io/v1',
    kind: 'CustomResourceDefinition',
    metadata: { name: 'widgets.example.com' },
    spec: {
      group: 'example.com',
      names: { plural: 'widgets', kind: 'Widget' },
      scope: 'Namespaced',
      versions: [{ name: 'v1', served: true, storage: true, schema: { openAPIV3Schema: { type: 'object', properties: { spec: { type: 'object', properties: { a: { tpye: 'string' } } } } } } }],
    },
  };
  assert.deepEqual(c.unknownFields(crd), ['spec.versions[0].schema.openAPIV3Schema.properties.spec.properties.a.tpye']);
});

test('maxLength and minLength count characters as Go counts runes: a surrogate pair is one, a lone surrogate one', () => {
  const s: JSONSchemaProps = { type: 'object', properties: { a: { type: 'string', maxLength: 3, minLength: 2 }, b: { type: 'string' } } };
  const c = compileSchema(s);
  const errs = (a: string) => c.validate({ a }).map((e) => e.type);
  const pair = '\u{1F600}'; // two UTF-16 units, one rune
  assert.deepEqual(errs('ab'), []);
  assert.deepEqual(errs('abc'), []);
  assert.deepEqual(errs(pair + pair + pair), []); // 6 units, 3 runes
  assert.deepEqual(errs(pair + pair + pair + 'x'), ['FieldValueTooLong']);
  assert.deepEqual(errs('abcd'), ['FieldValueTooLong']);
  assert.deepEqual(errs(pair), ['FieldValueInvalid']); // 1 rune < minLength 2
  assert.deepEqual(errs('\ud800\ud800\ud800'), []); // lone surrogates: a rune each
  assert.deepEqual(errs('\ud800\ud800\ud800\ud800'), ['FieldValueTooLong']);
  assert.deepEqual(errs('a'), ['FieldValueInvalid']);
  // A long string without limits is not counted (nor refused).
  assert.deepEqual(c.validate({ b: 'x'.repeat(1_000_000) }), []);
});

test('format byte: base64 (large blobs too, first time and again) is valid, anything else is refused', () => {
  const c = compileSchema({ type: 'object', properties: { data: { type: 'string', format: 'byte' } } });
  const errs = (data: string) => c.validate({ data }).map(fieldErrorString);
  for (const ok of ['', 'QUJD', 'QUI=', 'QQ==']) assert.deepEqual(errs(ok), [], ok);
  for (const bad of ['QUJ', 'Q===', 'QU=D', 'QU JD']) assert.equal(errs(bad).length, 1, bad);
  const big = Buffer.from('y'.repeat(60_000)).toString('base64');
  assert.deepEqual(errs(big), []);
  assert.deepEqual(errs(String(big)), []);
  const broken = big.slice(0, 500) + '-' + big.slice(501);
  assert.equal(errs(broken).length, 1);
  assert.equal(errs(broken).length, 1);
});
