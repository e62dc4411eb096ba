import { strict as assert } from 'node:assert';
import { readFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { parse } from 'yaml';
import { applyCRDDefaults, crdStoredVersions, validateCRD } from './crd-validation.js';
import { fieldErrorString } from './field-errors.js';
import type { JSONSchemaProps } from './types.js';

const schema = (props: Record<string, JSONSchemaProps>, extra: JSONSchemaProps = {}): JSONSchemaProps => ({
  type: 'object',
  properties: { spec: { type: 'object', properties: props }, ...extra.properties },
  ...Object.fromEntries(Object.entries(extra).filter(([k]) => k !== 'properties')),
});

function crd(over: { spec?: Record<string, unknown>; schema?: JSONSchemaProps; versions?: unknown[]; name?: string } = {}): object {
  return {
    apiVersion: 'apiextensions.k8s.io/v1',
    kind: 'CustomResourceDefinition',
    metadata: { name: over.name ?? 'widgets.example.com' },
    spec: {
      group: 'example.com',
      scope: 'Namespaced',
      names: { plural: 'widgets', kind: 'Widget' },
      versions: over.versions ?? [{ name: 'v1', served: true, storage: true, schema: { openAPIV3Schema: over.schema ?? schema({ a: { type: 'string' } }) } }],
      ...over.spec,
    },
  };
}

const messages = (c: object, old?: object) => validateCRD(c, old).map(fieldErrorString);
const root = 'spec.validation.openAPIV3Schema';

test('validateCRD: every Sveltos CRD is valid', () => {
  const dir = '/work/shared/reference/sveltos-crds';
  const files = readdirSync(dir).filter((f) => f.endsWith('.yaml'));
  assert.ok(files.length > 5);
  for (const f of files) assert.deepEqual(messages(parse(readFileSync(join(dir, f), 'utf8'))), [], f);
});

test('validateCRD: names, group, scope, versions', () => {
  assert.deepEqual(messages(crd()), []);
  assert.deepEqual(messages(crd({ name: 'gadgets.example.com' })), ['metadata.name: Invalid value: "gadgets.example.com": must be spec.names.plural+"."+spec.group']);
  assert.deepEqual(messages(crd({ name: 'widgets.example', spec: { group: 'example' } })), ['spec.group: Invalid value: "example": should be a domain with at least one dot']);
  assert.deepEqual(messages(crd({ spec: { scope: 'Global' } })), ['spec.scope: Unsupported value: "Global": supported values: "Cluster", "Namespaced"']);
  assert.deepEqual(messages(crd({ spec: { scope: '' } })), ['spec.scope: Required value']);
  assert.deepEqual(messages(crd({ name: 'Widgets.example.com', spec: { names: { plural: 'Widgets', kind: 'Widget' } } })), [
    "spec.names.plural: Invalid value: \"Widgets\": a DNS-1035 label must consist of lower case alphanumeric characters or '-', start with an alphabetic character, and end with an alphanumeric character (e.g. 'my-name',  or 'abc-123', regex used for validation is '[a-z]([-a-z0-9]*[a-z0-9])?')",
  ]);
  assert.deepEqual(messages(crd({ spec: { names: { plural: 'widgets', kind: 'Widget', listKind: 'Widget' } } })), [
    'spec.names.listKind: Invalid value: "Widget": kind and listKind may not be the same',
  ]);
  const s = { openAPIV3Schema: schema({}) };
  const two = [
    { name: 'v1', served: true, storage: true, schema: s },
    { name: 'v2', served: true, storage: true, schema: s },
  ];
  assert.deepEqual(messages(crd({ versions: two })).map((m) => m.replace(/Invalid value: .*?: must/, 'Invalid value: …: must')), [
    'spec.versions: Invalid value: …: must have exactly one version marked as storage version',
  ]);
  const dup = [
    { name: 'v1', served: true, storage: true, schema: s },
    { name: 'v1', served: true, storage: false, schema: s },
  ];
  assert.ok(messages(crd({ versions: dup })).some((m) => m.endsWith('must contain unique version names')));
  assert.deepEqual(messages(crd({ versions: [{ name: 'V1', served: true, storage: true, schema: s }] })).length, 1);
  assert.deepEqual(messages(crd({ versions: [{ name: 'v1', served: true, storage: true }] })), [
    'spec.versions[0].schema.openAPIV3Schema: Required value: schemas are required',
  ]);
});

test('validateCRD: structural schema rules with the apiserver messages and paths', () => {
  assert.deepEqual(messages(crd({ schema: schema({ a: {} }) })), [`${root}.properties[spec].properties[a].type: Required value: must not be empty for specified object fields`]);
  assert.deepEqual(messages(crd({ schema: schema({ a: { type: 'array' } }) })), [`${root}.properties[spec].properties[a].items: Required value: must be specified`]);
  assert.deepEqual(messages(crd({ schema: schema({ a: { type: 'array', items: {} } }) })), [
    `${root}.properties[spec].properties[a].items.type: Required value: must not be empty for specified array items`,
  ]);
  assert.deepEqual(messages(crd({ schema: { type: 'string' } })), [`${root}.type: Invalid value: "string": must be object at the root`]);
  assert.deepEqual(messages(crd({ schema: { properties: {} } })), [`${root}.type: Required value: must not be empty at the root`]);
  assert.deepEqual(messages(crd({ schema: schema({}, { properties: { metadata: { type: 'object', properties: { labels: { type: 'object' } } } } }) })), [
    `${root}.properties[metadata]: Forbidden: must not specify anything other than name and generateName, but metadata is implicitly specified`,
  ]);
  assert.deepEqual(messages(crd({ schema: schema({ a: { type: 'string', anyOf: [{ type: 'string' }], description: 'x' } }) })), [
    `${root}.properties[spec].properties[a].anyOf[0].type: Forbidden: must be empty to be structural`,
  ]);
  assert.deepEqual(messages(crd({ schema: schema({ port: { 'x-kubernetes-int-or-string': true, anyOf: [{ type: 'integer' }, { type: 'string' }] } }) })), []);
  assert.deepEqual(messages(crd({ schema: schema({ p: { 'x-kubernetes-int-or-string': true, 'x-kubernetes-preserve-unknown-fields': true } }) })), [
    `${root}.properties[spec].properties[p].x-kubernetes-preserve-unknown-fields: Invalid value: true: must be false if x-kubernetes-int-or-string is true`,
  ]);
  assert.deepEqual(messages(crd({ schema: schema({ e: { type: 'object', 'x-kubernetes-embedded-resource': true } }) })), [
    `${root}.properties[spec].properties[e].properties: Required value: must not be empty if x-kubernetes-embedded-resource is true without x-kubernetes-preserve-unknown-fields`,
  ]);
  assert.deepEqual(messages(crd({ schema: { type: 'object', additionalProperties: { type: 'string' } } })), [
    `${root}.additionalProperties: Forbidden: must not be used at the root`,
  ]);
  assert.deepEqual(messages(crd({ schema: { type: 'object', anyOf: [{ properties: { missing: {} } }], properties: { spec: { type: 'object' } } } })), [
    `${root}.properties[missing]: Required value: because it is defined in ${root}.anyOf[0].properties[missing]`,
  ]);
});

test('validateCRD: OpenAPI rules (uniqueItems, list types, map keys, defaults, CEL shape)', () => {
  assert.deepEqual(messages(crd({ schema: schema({ l: { type: 'array', items: { type: 'string' }, uniqueItems: true } }) })), [
    `${root}.properties[spec].properties[l].uniqueItems: Forbidden: uniqueItems cannot be set to true since the runtime complexity becomes quadratic`,
  ]);
  assert.deepEqual(messages(crd({ schema: schema({ l: { type: 'object', 'x-kubernetes-list-type': 'set' } }) })), [
    `${root}.properties[spec].properties[l].type: Invalid value: "object": must be array if x-kubernetes-list-type is specified`,
  ]);
  const mapList: JSONSchemaProps = {
    type: 'array',
    'x-kubernetes-list-type': 'map',
    'x-kubernetes-list-map-keys': ['name'],
    items: { type: 'object', properties: { name: { type: 'string' } } },
  };
  assert.deepEqual(messages(crd({ schema: schema({ l: mapList }) })), [
    `${root}.properties[spec].properties[l].items.properties[name].default: Required value: this property is in x-kubernetes-list-map-keys, so it must have a default or be a required property`,
  ]);
  assert.deepEqual(messages(crd({ schema: schema({ l: { ...mapList, items: { type: 'object', required: ['name'], properties: { name: { type: 'string' } } } } }) })), []);
  assert.deepEqual(messages(crd({ schema: schema({ n: { type: 'integer', default: 'x' } }) })), [
    `${root}.properties[spec].properties[n].default: Invalid value: "string":  in body must be of type integer: "string"`,
  ]);
  assert.deepEqual(messages(crd({ schema: schema({ o: { type: 'object', default: { a: 1, b: 2 }, properties: { a: { type: 'integer' } } } }) })), [
    `${root}.properties[spec].properties[o].default: Invalid value: map[string]interface {}{"a":1, "b":2}: must not have unknown fields`,
  ]);
  assert.deepEqual(messages(crd({ schema: { type: 'object', properties: { metadata: { type: 'object', default: {} } } } })), [
    `${root}.properties[metadata].default: Forbidden: must not be set in top-level metadata`,
  ]);
  assert.deepEqual(messages(crd({ schema: schema({ a: { type: 'string', 'x-kubernetes-validations': [{ rule: ' ' }, { rule: 'self.size() > 1' }] } }) })), [
    `${root}.properties[spec].properties[a].x-kubernetes-validations[0].rule: Required value: rule is not specified`,
  ]);
  assert.deepEqual(messages(crd({ schema: schema({ a: { type: 'null' as never } }) })), [
    `${root}.properties[spec].properties[a].type: Unsupported value: "null": supported values: "array", "boolean", "integer", "number", "object", "string"`,
    `${root}.properties[spec].properties[a].type: Forbidden: type cannot be set to null, use nullable as an alternative`,
  ]);
});

test('validateCRD: status subresource restricts the root schema; per-version schemas keep their version path', () => {
  const status = { subresources: { status: {} } };
  const v = (name: string, storage: boolean, s: JSONSchemaProps) => ({ name, served: true, storage, schema: { openAPIV3Schema: s }, ...status });
  assert.deepEqual(messages(crd({ versions: [v('v1', true, { ...schema({}), 'x-kubernetes-preserve-unknown-fields': true, nullable: true })] })).slice(1), [
    `${root}.nullable: Forbidden: nullable cannot be true at the root`,
  ]);
  assert.deepEqual(
    messages(crd({ versions: [v('v1', true, { ...schema({}), default: {} } as JSONSchemaProps)] })).map((m) => m.replace(/Invalid value: .*: only/, 'Invalid value: …: only')),
    [`${root}: Invalid value: …: only [Description Type Format Title Maximum ExclusiveMaximum Minimum ExclusiveMinimum MaxLength MinLength Pattern MaxItems MinItems UniqueItems MultipleOf Required Items Properties ExternalDocs Example XPreserveUnknownFields XValidations] fields are allowed at the root of the schema if the status subresource is enabled`],
  );
  const two = [v('v1', true, schema({ a: { type: 'string' } })), v('v2', false, schema({ a: {} }))];
  assert.deepEqual(messages(crd({ versions: two })), [
    'spec.versions[1].schema.openAPIV3Schema.properties[spec].properties[a].type: Required value: must not be empty for specified object fields',
  ]);
});

test('validateCRD: subresources, printer columns and conversion', () => {
  const withSub = (sub: unknown, cols?: unknown, conversion?: unknown) =>
    crd({
      versions: [{ name: 'v1', served: true, storage: true, schema: { openAPIV3Schema: schema({}) }, subresources: sub, additionalPrinterColumns: cols }],
      spec: conversion ? { conversion } : {},
    });
  assert.deepEqual(messages(withSub({ scale: { specReplicasPath: 'spec.replicas', statusReplicasPath: '.spec.replicas' } })), [
    'spec.subresources.scale.specReplicasPath: Invalid value: "spec.replicas": must be a simple json path starting with .',
    'spec.subresources.scale.statusReplicasPath: Invalid value: ".spec.replicas": should be a json path under .status',
  ]);
  assert.deepEqual(messages(withSub(undefined, [{ name: 'Age', type: 'time', jsonPath: '' }])), [
    'spec.additionalPrinterColumns[0].type: Invalid value: "time": must be one of boolean,date,integer,number,string',
    'spec.additionalPrinterColumns[0].JSONPath: Required value',
  ]);
  assert.deepEqual(messages(withSub(undefined, undefined, { strategy: 'Webhook' })), [
    'spec.conversion.webhookClientConfig: Required value: required when strategy is set to Webhook',
    'spec.conversion.conversionReviewVersions: Required value',
  ]);
});

test('validateCRD: updates keep group and plural immutable and stored versions listed', () => {
  const old = { ...(crd() as Record<string, unknown>), status: { storedVersions: ['v1alpha1', 'v1'], conditions: [{ type: 'Established', status: 'True' }] } };
  assert.deepEqual(messages(crd(), old), ['status.storedVersions[0]: Invalid value: "v1alpha1": must appear in spec.versions']);
  const renamed = crd({ name: 'gizmos.example.com', spec: { names: { plural: 'gizmos', kind: 'Gizmo' } } });
  assert.deepEqual(messages(renamed, { ...(old as object), status: { storedVersions: ['v1'], conditions: [{ type: 'Established', status: 'True' }] } }), [
    'spec.names.kind: Invalid value: "Gizmo": field is immutable',
    'spec.names.plural: Invalid value: "gizmos": field is immutable',
  ]);
  assert.deepEqual(crdStoredVersions(crd()), ['v1']);
  assert.deepEqual(crdStoredVersions(crd(), old), ['v1alpha1', 'v1']);
});

test('validateCRD: protected groups need the API approval annotation', () => {
  const c = crd({ name: 'widgets.x.k8s.io', spec: { group: 'x.k8s.io' } });
  assert.deepEqual(messages(c), [
    'metadata.annotations[api-approved.kubernetes.io]: Required value: protected groups must have approval annotation "api-approved.kubernetes.io", see https://github.com/kubernetes/enhancements/pull/1111',
  ]);
});

test('applyCRDDefaults fills singular, listKind and conversion', () => {
  const d = applyCRDDefaults(crd()) as { spec: { names: Record<string, string>; conversion: unknown } };
  assert.equal(d.spec.names.singular, 'widget');
  assert.equal(d.spec.names.listKind, 'WidgetList');
  assert.deepEqual(d.spec.conversion, { strategy: 'None' });
});
