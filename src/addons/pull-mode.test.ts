// Pull mode's pure parts: names, bundle hashes, and reading the agent's report (only the current generation and
// inputs count as Provisioned).
import { strict as assert } from 'node:assert';
import { createHash } from 'node:crypto';
import { test } from 'node:test';
import type { ConfigurationGroup } from '../api/index.js';
import { bundleHash, featureFromGroup, groupName } from './pull-mode.js';

test('group names are stable per cluster and requestor, and DNS-safe', () => {
  assert.equal(groupName('edge', 'p-sveltos-edge'), groupName('edge', 'p-sveltos-edge'));
  assert.notEqual(groupName('edge', 'p-sveltos-edge'), groupName('edge2', 'p-sveltos-edge'));
  assert.match(groupName('edge', 'x'), /^config-[0-9a-f]{20}$/);
});

test("bundle hash is Sveltos' getHash: sha256 over each object's JSON in order", () => {
  const objs = [{ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'a' } }];
  const expected = createHash('sha256').update('{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"a"}}').digest('base64');
  assert.equal(bundleHash(objs as never), expected);
});

test("the agent's report counts only for the current generation and requestor hash", () => {
  const g = (generation: number, status: NonNullable<ConfigurationGroup['status']>) =>
    ({ apiVersion: 'lib.projectsveltos.io/v1beta1', kind: 'ConfigurationGroup', metadata: { name: 'g', generation }, status }) as unknown as ConfigurationGroup;
  assert.deepEqual(featureFromGroup(undefined, 'h'), { status: 'Provisioning' });
  assert.equal(featureFromGroup(g(2, { status: 'Provisioned', observedGeneration: 1, observedRequestorHash: 'h' }), 'h').status, 'Provisioning', 'older generation');
  assert.equal(featureFromGroup(g(2, { status: 'Provisioned', observedGeneration: 2, observedRequestorHash: 'old' }), 'h').status, 'Provisioning', 'older inputs');
  assert.equal(featureFromGroup(g(2, { status: 'Provisioned', observedGeneration: 2, observedRequestorHash: 'h' }), 'h').status, 'Provisioned');
  assert.deepEqual(featureFromGroup(g(3, { status: 'Failed', observedGeneration: 3, failureMessage: 'boom' }), 'h'), { status: 'Failed', failureMessage: 'boom' });
});
