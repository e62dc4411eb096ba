// names.test.ts: Sveltos' names for ClusterSummaries, ClusterReports and the clustersummary stamp; GVK strings.
import { strict as assert } from 'node:assert';
import { test } from 'node:test';
import { clusterReportName, clusterSummaryAnnotationValue, clusterSummaryName, gvkString, parseGvkString, parseProfileKey, profileKey } from './names.js';
import { maxUpdateCount } from './profile-controller.js';

test('ClusterSummary and ClusterReport names', () => {
  assert.equal(clusterSummaryName('ClusterProfile', 'lbs', 'Sveltos', 'a'), 'lbs-sveltos-a');
  assert.equal(clusterSummaryName('Profile', 'lbs', 'Capi', 'a'), 'p--lbs-capi-a');
  assert.equal(clusterReportName('ClusterProfile', 'dry', 'Sveltos', 'c2'), 'dry--sveltos--c2');
  assert.equal(clusterReportName('Profile', 'dry', 'Capi', 'c2'), 'p--dry--capi--c2');
  assert.equal(clusterSummaryAnnotationValue('Sveltos', 'cluster-a', 'a'), 'sveltos-cluster-a-a');
});

test('deployedGroupVersionKind strings round-trip, core group included', () => {
  assert.equal(gvkString('v1', 'Service'), 'Service.v1.');
  assert.equal(gvkString('apps/v1', 'Deployment'), 'Deployment.v1.apps');
  assert.deepEqual(parseGvkString('Service.v1.'), { apiVersion: 'v1', kind: 'Service' });
  assert.deepEqual(parseGvkString('Role.v1.rbac.authorization.k8s.io'), { apiVersion: 'rbac.authorization.k8s.io/v1', kind: 'Role' });
  assert.equal(parseGvkString('nonsense'), undefined);
});

test('profile keys', () => {
  assert.equal(profileKey('ClusterProfile', 'ignored', 'p'), 'ClusterProfile:/p');
  assert.deepEqual(parseProfileKey('Profile:ns/p'), { kind: 'Profile', namespace: 'ns', name: 'p' });
  assert.equal(parseProfileKey('Other:x/y'), undefined);
});

test('maxUpdate: a number, a percentage rounded up, or unlimited', () => {
  assert.equal(maxUpdateCount(undefined, 10), Number.POSITIVE_INFINITY);
  assert.equal(maxUpdateCount(2, 10), 2);
  assert.equal(maxUpdateCount('30%', 10), 3);
  assert.equal(maxUpdateCount('25%', 10), 3);
  assert.equal(maxUpdateCount('5', 10), 5);
});
