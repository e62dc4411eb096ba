import { strict as assert } from 'node:assert';
import { test } from 'node:test';
import { isDNS1035Label, isDNS1123Label, isDNS1123Subdomain, isQualifiedName, isValidLabelValue, isValidPathSegmentName, validateAnnotations, validateName, validateObjectMeta } from './validation.js';

test('DNS names with kube messages', () => {
  assert.deepEqual(isDNS1123Subdomain('my.app-1'), []);
  assert.deepEqual(isDNS1123Subdomain('My_App'), [
    "a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character (e.g. 'example.com', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')",
  ]);
  assert.deepEqual(isDNS1123Label('a.b'), ['must not contain dots']);
  assert.deepEqual(isDNS1123Label('x'.repeat(64)), ['must be no more than 63 characters']);
  assert.deepEqual(isDNS1035Label('1abc'), [
    "a DNS-1035 label must consist of lower case alphanumeric characters or '-', start with an alphabetic character, and end with an alphanumeric character (e.g. 'my-name',  or 'abc-123', regex used for validation is '[a-z]([-a-z0-9]*[a-z0-9])?')",
  ]);
  assert.deepEqual(isValidPathSegmentName('..'), ["may not be '..'"]);
  assert.deepEqual(isValidPathSegmentName('a/b%c'), ["may not contain '/'", "may not contain '%'"]);
  assert.deepEqual(validateName('dns1123Subdomain', 'gen-', true), [], 'a generateName may end in a dash');
});

test('qualified names and label values', () => {
  assert.deepEqual(isQualifiedName('example.com/name'), []);
  assert.deepEqual(isQualifiedName('/name'), ['prefix part must be non-empty']);
  assert.match(isQualifiedName('a/b/c')[0], /^a qualified name must consist of alphanumeric characters.*with an optional DNS subdomain prefix and '\/' \(e\.g\. 'example\.com\/MyName'\)$/);
  assert.deepEqual(isQualifiedName('-x'), [
    "name part must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyName',  or 'my.name',  or '123-abc', regex used for validation is '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]')",
  ]);
  assert.deepEqual(isValidLabelValue(''), []);
  assert.deepEqual(isValidLabelValue('a'.repeat(64))[0], 'must be no more than 63 characters');
});

test('object metadata', () => {
  assert.deepEqual(validateObjectMeta({ name: 'ok', namespace: 'ns' }, true, 'dns1123Subdomain'), []);
  assert.deepEqual(
    validateObjectMeta({}, true, 'dns1123Subdomain').map((e) => `${e.field}: ${e.type}`),
    ['metadata.name: FieldValueRequired', 'metadata.namespace: FieldValueRequired'],
  );
  assert.deepEqual(validateObjectMeta({ name: 'x', namespace: 'ns' }, false, 'dns1123Subdomain').map((e) => e.detail), ['not allowed on this type']);
  const refs = validateObjectMeta({ name: 'x', ownerReferences: [{ apiVersion: 'v1', kind: 'Event', name: 'e', uid: 'u' }] }, false, 'dns1123Subdomain');
  assert.equal(refs[0].detail, '/v1, Kind=Event is disallowed from being an owner');
  const fin = validateObjectMeta({ name: 'x', finalizers: ['orphan', 'foregroundDeletion'] }, false, 'dns1123Subdomain');
  assert.equal(fin[0].detail, 'finalizer orphan and foregroundDeletion cannot be both set');
  assert.deepEqual(validateAnnotations({ a: 'x'.repeat(256 * 1024) }, 'metadata.annotations'), [
    { type: 'FieldValueTooLong', field: 'metadata.annotations', detail: 'must have at most 262144 bytes' },
  ]);
});
