import { strict as assert } from 'node:assert';
import { test } from 'node:test';
import { alreadyExists, conflict, goQuote, goStringSlice, invalid, notFound, OPTIMISTIC_LOCK_MESSAGE, fieldErrorBody } from './status.js';

test('Status bodies keep Go field order and omit empty fields', () => {
  assert.equal(
    JSON.stringify(notFound({ group: 'apps', resource: 'deployments' }, 'web').status),
    '{"kind":"Status","apiVersion":"v1","metadata":{},"status":"Failure","message":"deployments.apps \\"web\\" not found","reason":"NotFound","details":{"name":"web","group":"apps","kind":"deployments"},"code":404}',
  );
  assert.equal(alreadyExists({ group: '', resource: 'configmaps' }, 'x').status.message, 'configmaps "x" already exists');
  assert.equal(
    conflict({ group: '', resource: 'configmaps' }, 'x', OPTIMISTIC_LOCK_MESSAGE).status.message,
    'Operation cannot be fulfilled on configmaps "x": the object has been modified; please apply your changes to the latest version and try again',
  );
});

test('Invalid aggregates field errors like utilerrors.NewAggregate', () => {
  const one = invalid({ group: '', kind: 'ConfigMap' }, 'x', [{ type: 'FieldValueRequired', field: 'metadata.name', detail: 'name or generateName is required' }]);
  assert.equal(one.status.message, 'ConfigMap "x" is invalid: metadata.name: Required value: name or generateName is required');
  const two = invalid({ group: 'apps', kind: 'Deployment' }, 'd', [
    { type: 'FieldValueInvalid', field: 'spec.replicas', badValue: -1, detail: 'must be greater than or equal to 0' },
    { type: 'FieldValueNotSupported', field: 'spec.strategy.type', badValue: 'Fast', detail: 'supported values: "Recreate", "RollingUpdate"' },
  ]);
  assert.equal(
    two.status.message,
    'Deployment.apps "d" is invalid: [spec.replicas: Invalid value: -1: must be greater than or equal to 0, spec.strategy.type: Unsupported value: "Fast": supported values: "Recreate", "RollingUpdate"]',
  );
  assert.deepEqual(two.status.details?.causes?.[0], { reason: 'FieldValueInvalid', message: 'Invalid value: -1: must be greater than or equal to 0', field: 'spec.replicas' });
  assert.equal(fieldErrorBody({ type: 'FieldValueInvalid', field: 'x', badValue: goStringSlice(['a']), detail: 'd' }), 'Invalid value: []string{"a"}: d');
});

test('goQuote matches strconv.Quote for what names contain', () => {
  assert.equal(goQuote('a"b\\c'), '"a\\"b\\\\c"');
  assert.equal(goQuote('tab\there\n'), '"tab\\there\\n"');
  assert.equal(goQuote('\u0001é'), '"\\x01é"');
});
