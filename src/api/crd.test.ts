// CRD tests: Ripple's generated CRDs pass the API server's CRD rules, match Sveltos' published CRDs path by path
// (via the committed fixture testdata/api/sveltos-crd-paths.json), and the checker itself rejects what a
// kube-apiserver rejects.
import { strict as assert } from 'node:assert';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { parseAllDocuments } from 'yaml';
import { CEL_RULES } from './cel-rules.js';
import {
  KINDS,
  checkCrd,
  checkStructuralSchema,
  crdFor,
  crdsToYaml,
  generateCrds,
  kindDescriptor,
  schemaPaths,
  type JsonSchema,
  type SchemaPathInfo,
} from './index.js';

const fixture = JSON.parse(
  readFileSync(join(import.meta.dirname, '..', '..', 'testdata', 'api', 'sveltos-crd-paths.json'), 'utf8'),
) as {
  kinds: Record<
    string,
    {
      crd: string;
      group: string;
      scope: string;
      names: { kind: string; listKind: string; plural: string; singular: string };
      version: string;
      status: boolean;
      printerColumns: { name: string; jsonPath: string; type: string }[];
      paths: Record<string, SchemaPathInfo>;
    }
  >;
};

test('every generated CRD passes the API server CRD rules', () => {
  const crds = generateCrds();
  assert.equal(crds.length, KINDS.length);
  for (const crd of crds) assert.deepEqual(checkCrd(crd), [], crd.metadata.name);
});

test('the CRD YAML stream parses back to the generated objects', () => {
  const crds = generateCrds();
  const docs = parseAllDocuments(crdsToYaml(crds));
  assert.deepEqual(
    docs.map((d) => d.toJS()),
    JSON.parse(JSON.stringify(crds)),
  );
  assert.deepEqual(docs.flatMap((d) => d.errors), []);
});

test('the descriptor table is consistent', () => {
  for (const d of KINDS) {
    const storage = d.versions.filter((v) => v.storage);
    assert.equal(storage.length, 1, `${d.kind}: exactly one storage version`);
    assert.equal(storage[0].name, d.storageVersion, d.kind);
    assert.ok(d.versions.every((v) => v.served), `${d.kind}: every listed version is served`);
    assert.equal(crdFor(d).metadata.name, `${d.plural}.${d.group}`);
    for (const p of d.legacyPaths) {
      const paths = schemaPaths(d.versions.find((v) => v.storage)!.schema);
      assert.ok(paths.has(p), `${d.kind}: legacy path ${p} is declared in the storage schema (else it would be pruned)`);
    }
  }
});

test('every CEL rule in the schemas has a TypeScript implementation', () => {
  const rules = new Set<string>();
  const walk = (s: JsonSchema) => {
    for (const r of s['x-kubernetes-validations'] ?? []) rules.add(r.rule);
    for (const c of Object.values(s.properties ?? {})) walk(c);
    if (s.items) walk(s.items);
    if (typeof s.additionalProperties === 'object') walk(s.additionalProperties);
  };
  for (const d of KINDS) for (const v of d.versions) walk(v.schema);
  const missing = [...rules].filter((r) => !CEL_RULES[r]);
  assert.deepEqual(missing, []);
  assert.ok(rules.size >= 10, 'the schemas carry the Sveltos CEL rules');
});

// Paths Ripple declares beyond Sveltos' v1beta1 schema, each for a documented reason (src/api/README.md).
const EXPECTED_EXTRA_PATHS: Record<string, string[]> = {
  EventSource: [
    'spec.group',
    // Ripple extension (deletion safety, issue 17): keep resources being deleted among the matches.
    'spec.includeDeletingResources',
    'spec.kind',
    'spec.labelFilters',
    'spec.labelFilters[]',
    'spec.labelFilters[].key',
    'spec.labelFilters[].operation',
    'spec.labelFilters[].value',
    'spec.labelsFilters',
    'spec.labelsFilters[]',
    'spec.labelsFilters[].key',
    'spec.labelsFilters[].operation',
    'spec.labelsFilters[].value',
    'spec.namespace',
    'spec.resourceSelectors[].script',
    'spec.script',
    'spec.version',
  ],
};

test('generated CRDs match Sveltos CRDs path by path (type, required, enum, default, format, bounds, x-kubernetes-*)', () => {
  const kinds = Object.keys(fixture.kinds);
  assert.equal(kinds.length, 11, 'the fixture covers the 11 Sveltos kinds Ripple serves');
  for (const kind of kinds) {
    const ref = fixture.kinds[kind];
    const d = kindDescriptor(kind as Parameters<typeof kindDescriptor>[0]);
    assert.equal(d.group, ref.group, kind);
    assert.equal(d.scope, ref.scope, kind);
    assert.equal(d.plural, ref.names.plural, kind);
    assert.equal(d.singular, ref.names.singular, kind);
    assert.equal(d.listKind, ref.names.listKind, kind);
    assert.equal(d.status, ref.status, `${kind}: status subresource`);
    const ours = d.versions.find((v) => v.name === ref.version);
    assert.ok(ours, `${kind} serves ${ref.version}`);
    for (const col of ref.printerColumns) {
      assert.ok(
        ours.printerColumns.some((c) => c.name === col.name && c.jsonPath === col.jsonPath && c.type === col.type),
        `${kind}: printer column ${col.name}`,
      );
    }
    const ourPaths = schemaPaths(crdFor(d).spec.versions.find((v) => v.name === ref.version)!.schema.openAPIV3Schema);
    const mismatches: string[] = [];
    for (const [p, info] of Object.entries(ref.paths)) {
      const mine = ourPaths.get(p);
      if (!mine) mismatches.push(`${kind} ${p}: missing`);
      else if (JSON.stringify(mine) !== JSON.stringify(info)) mismatches.push(`${kind} ${p}: ours ${JSON.stringify(mine)} vs Sveltos ${JSON.stringify(info)}`);
    }
    assert.deepEqual(mismatches, []);
    const extra = [...ourPaths.keys()].filter((p) => !(p in ref.paths)).sort();
    assert.deepEqual(extra, EXPECTED_EXTRA_PATHS[kind] ?? [], `${kind}: paths Sveltos does not have`);
  }
});

// ---- the checker rejects what the API server rejects ----

const ok = (extra: JsonSchema = {}): JsonSchema => ({
  type: 'object',
  properties: { apiVersion: { type: 'string' }, kind: { type: 'string' }, metadata: { type: 'object' }, spec: { type: 'object', ...extra } },
});
const problems = (schema: JsonSchema, statusEnabled = false) => checkStructuralSchema(schema, { statusEnabled }).map((i) => `${i.path}: ${i.message}`);

test('checkStructuralSchema accepts a minimal structural schema', () => {
  assert.deepEqual(problems(ok()), []);
  assert.deepEqual(problems(ok({ properties: { m: { 'x-kubernetes-preserve-unknown-fields': true } } })), []);
  assert.deepEqual(problems(ok({ properties: { n: { anyOf: [{ type: 'integer' }, { type: 'string' }], 'x-kubernetes-int-or-string': true } } })), []);
});

test('checkStructuralSchema rejects non-structural schemas with the API server reasons', () => {
  const cases: [string, JsonSchema, RegExp, boolean?][] = [
    ['missing type', ok({ properties: { a: {} } }), /properties\[a\]\.type: Required value: must not be empty for specified object fields/],
    ['array without items', ok({ properties: { a: { type: 'array' } } }), /properties\[a\]\.items: Required value: must be specified/],
    ['array items without type', ok({ properties: { a: { type: 'array', items: {} } } }), /items\.type: Required value: must not be empty for specified array items/],
    ['properties + additionalProperties', ok({ properties: { a: { type: 'object', properties: { b: { type: 'string' } }, additionalProperties: { type: 'string' } } } }), /additionalProperties and properties are mutual exclusive/],
    ['root type', { type: 'array', items: { type: 'string' } }, /openAPIV3Schema\.type: Invalid value: "array": must be object at the root/],
    ['metadata restrictions', { type: 'object', properties: { metadata: { type: 'object', properties: { labels: { type: 'object' } } } } }, /metadata\]: Forbidden: must not specify anything other than name and generateName/],
    ['metadata with a description', { type: 'object', properties: { metadata: { type: 'object', description: 'x' } } }, /must not specify anything other than name and generateName/],
    ['kind not a string', { type: 'object', properties: { kind: { type: 'integer' } } }, /properties\[kind\]\.type: Invalid value: "integer": must be string/],
    ['preserve-unknown-fields false', ok({ 'x-kubernetes-preserve-unknown-fields': false as unknown as true }), /must be true or undefined/],
    ['int-or-string with a type', ok({ properties: { a: { type: 'string', 'x-kubernetes-int-or-string': true } } }), /must be empty if x-kubernetes-int-or-string is true/],
    ['int-or-string + preserve', ok({ properties: { a: { 'x-kubernetes-int-or-string': true, 'x-kubernetes-preserve-unknown-fields': true } } }), /must be false if x-kubernetes-int-or-string is true/],
    ['typed junctor', ok({ properties: { a: { type: 'string', anyOf: [{ type: 'string' }] } } }), /anyOf\[0\]\.type: Forbidden: must be empty to be structural/],
    ['junctor restricting an undeclared field', ok({ anyOf: [{ properties: { z: { minLength: 1 } } }] }), /anyOf\[0\]\.properties\[z\]: Required value/],
    ['map-type on a string', ok({ properties: { a: { type: 'string', 'x-kubernetes-map-type': 'atomic' } } }), /must be object if x-kubernetes-map-type is specified/],
    ['list-type on an object', ok({ 'x-kubernetes-list-type': 'atomic' }), /must be array if x-kubernetes-list-type is specified/],
    ['list-map without keys', ok({ properties: { a: { type: 'array', items: { type: 'object' }, 'x-kubernetes-list-type': 'map' } } }), /x-kubernetes-list-map-keys: Required value: must not be empty if x-kubernetes-list-type is map/],
    ['list-map key optional without default', ok({ properties: { a: { type: 'array', 'x-kubernetes-list-type': 'map', 'x-kubernetes-list-map-keys': ['k'], items: { type: 'object', properties: { k: { type: 'string' } } } } } }), /must have a default or be a required property/],
    ['list-map key not a property', ok({ properties: { a: { type: 'array', 'x-kubernetes-list-type': 'map', 'x-kubernetes-list-map-keys': ['z'], items: { type: 'object', required: ['z'], properties: { k: { type: 'string' } } } } } }), /entries must all be names of item properties/],
    ['set of granular maps', ok({ properties: { a: { type: 'array', 'x-kubernetes-list-type': 'set', items: { type: 'object', properties: { k: { type: 'string' } } } } } }), /must be atomic as item of a list with x-kubernetes-list-type=set/],
    ['default of the wrong type', ok({ properties: { a: { type: 'integer', default: 'x' } } }), /properties\[a\]\.default: Invalid value: "x": must be of type integer/],
    ['default with unknown fields', ok({ properties: { a: { type: 'object', properties: { b: { type: 'string' } }, default: { b: 'x', c: 'y' } } } }), /must not have unknown fields/],
    ['default in top-level metadata', { type: 'object', properties: { metadata: { type: 'object', default: {} } } }, /default: Forbidden: must not be set in top-level metadata/],
    ['enum value of the wrong type', ok({ properties: { a: { type: 'string', enum: ['a', 1] } } }), /enum\[1\]: Invalid value: 1: enum value must be of type string/],
    ['patternProperties', ok({ patternProperties: { '^a': { type: 'string' } } }), /patternProperties is not supported/],
    ['$ref', ok({ properties: { a: { $ref: '#/x' } } }), /\$ref is not supported/],
    ['uniqueItems', ok({ properties: { a: { type: 'array', items: { type: 'string' }, uniqueItems: true } } }), /uniqueItems cannot be set to true/],
    ['non-RE2 pattern', ok({ properties: { a: { type: 'string', pattern: '^(?!x)' } } }), /must be a valid regular expression, but isn't: error parsing regexp: invalid or unsupported Perl syntax: `\(\?!`/],
    ['unknown schema keyword', ok({ properties: { a: { type: 'string', const: 'x' } } }), /unknown field "const"/],
    ['CEL message with a line break', ok({ 'x-kubernetes-validations': [{ rule: 'true', message: 'a\nb' }] }), /must not contain line breaks/],
    ['status root with extras', { ...ok(), additionalProperties: false, 'x-kubernetes-map-type': 'granular' }, /only .* fields are allowed at the root of the schema if the status subresource is enabled/, true],
  ];
  for (const [name, schema, want, status] of cases) {
    const got = problems(schema, status);
    assert.ok(got.some((g) => want.test(g)), `${name}: expected ${want}, got ${JSON.stringify(got)}`);
  }
});

test('checkCrd rejects bad names, versions and printer columns', () => {
  const good = crdFor(kindDescriptor('EventReport'));
  const bad = JSON.parse(JSON.stringify(good));
  bad.metadata.name = 'eventreports.example.com';
  bad.spec.names.plural = 'EventReports';
  bad.spec.names.listKind = 'EventReport';
  bad.spec.versions[1].storage = true;
  bad.spec.versions[0].deprecationWarning = 'not deprecated';
  bad.spec.versions[0].additionalPrinterColumns[0].type = 'text';
  bad.spec.versions[0].additionalPrinterColumns[1].jsonPath = 'spec.x';
  bad.spec.scope = 'Global';
  const got = checkCrd(bad).map((i) => `${i.path}: ${i.message}`);
  for (const want of [
    /^metadata\.name: .*must be spec\.names\.plural\+"\."\+spec\.group/,
    /^spec\.names\.plural: Invalid value: "EventReports": a DNS-1035 label/,
    /^spec\.names\.listKind: Invalid value: kind and listKind may not be the same/,
    /^spec\.versions: Invalid value: must have exactly one version marked as storage version/,
    /^spec\.versions\[0\]\.deprecationWarning: Invalid value: can only be set for deprecated versions/,
    /^spec\.versions\[0\]\.additionalPrinterColumns\[0\]\.type: Invalid value: "text": must be one of boolean,date,integer,number,string/,
    /^spec\.versions\[0\]\.additionalPrinterColumns\[1\]\.JSONPath: Invalid value: "spec\.x": must be a simple json path starting with \./,
    /^spec\.scope: Unsupported value: "Global"/,
  ]) {
    assert.ok(got.some((g) => want.test(g)), `expected ${want} in ${JSON.stringify(got, null, 1)}`);
  }
});
