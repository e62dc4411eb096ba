// The pulling agent's pure parts: bundle resources parse as JSON or YAML objects; settings it does not implement are
// named (so the group fails visibly instead of being half-applied).
import { strict as assert } from 'node:assert';
import { test } from 'node:test';
import { parseBundleResource, unsupportedFields } from './pull-agent.js';

test('bundle resources: JSON or YAML, one object with apiVersion, kind and name', () => {
  assert.equal(parseBundleResource('{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"a"}}').metadata.name, 'a');
  assert.equal(parseBundleResource('apiVersion: v1\nkind: Secret\nmetadata:\n  name: s\n').kind, 'Secret');
  assert.throws(() => parseBundleResource('- a\n- b\n'), /not a Kubernetes object/);
  assert.throws(() => parseBundleResource('kind: ConfigMap\n'), /apiVersion, kind and metadata.name are required/);
});

test('settings the agent does not implement are named', () => {
  assert.deepEqual(unsupportedFields({}), []);
  assert.deepEqual(unsupportedFields({ driftDetection: false, validateHealths: [] }), []);
  assert.deepEqual(unsupportedFields({ driftDetection: true, reloader: true, serviceAccountName: 'sa' }), ['driftDetection', 'reloader', 'serviceAccountName/serviceAccountNamespace (impersonation)']);
});
