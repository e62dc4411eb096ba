// Pure cluster rules: kubeconfig Secret location and key fallback, CAPI readiness, shards, refs, ClusterSet selection
// and the readiness status plan (Sveltos' connection-failure accounting).
import { strict as assert } from 'node:assert';
import { test } from 'node:test';
import type { KubeObject } from '../kube/index.js';
import {
  clusterTypeOf,
  isCapiClusterReady,
  k8sVersionLabel,
  kubeconfigFromSecret,
  kubeconfigLocation,
  matchesShard,
  parseLabels,
  planStatus,
  refKey,
  selectClusters,
  toEntry,
  validateRegistration,
} from './index.js';

const b64 = (s: string) => Buffer.from(s).toString('base64');
const sc = (name: string, spec: Record<string, unknown> = {}, extra: Partial<KubeObject> = {}): KubeObject => ({
  apiVersion: 'lib.projectsveltos.io/v1beta1',
  kind: 'SveltosCluster',
  metadata: { name, namespace: 'ns' },
  spec,
  ...extra,
});

test('kubeconfig Secret: Sveltos default name and key rules, CAPI <name>-kubeconfig/value', () => {
  assert.deepEqual(kubeconfigLocation(toEntry(sc('edge'), 'Sveltos')), { namespace: 'ns', secretName: 'edge-sveltos-kubeconfig', key: undefined });
  assert.deepEqual(kubeconfigLocation(toEntry(sc('edge', { kubeconfigName: 'custom', kubeconfigKeyName: 'cfg' }), 'Sveltos')), { namespace: 'ns', secretName: 'custom', key: 'cfg' });
  const capi = { apiVersion: 'cluster.x-k8s.io/v1beta1', kind: 'Cluster', metadata: { name: 'c1', namespace: 'capi' } };
  assert.deepEqual(kubeconfigLocation(toEntry(capi, 'Capi')), { namespace: 'capi', secretName: 'c1-kubeconfig', key: 'value' });

  const loc = { namespace: 'ns', secretName: 's', key: undefined };
  assert.deepEqual(kubeconfigFromSecret({ data: { anything: b64('A') } }, loc), { ok: true, kubeconfig: 'A', key: 'anything' });
  assert.deepEqual(kubeconfigFromSecret({ data: { a: b64('A'), kubeconfig: b64('K'), value: b64('V') } }, loc), { ok: true, kubeconfig: 'K', key: 'kubeconfig' });
  assert.deepEqual(kubeconfigFromSecret({ data: { z: b64('Z'), value: b64('V') } }, loc), { ok: true, kubeconfig: 'V', key: 'value' });
  assert.deepEqual(kubeconfigFromSecret({ data: { z: b64('Z'), b: b64('B') } }, loc), { ok: true, kubeconfig: 'B', key: 'b' });
  assert.deepEqual(kubeconfigFromSecret({ data: { a: b64('A') } }, { ...loc, key: 'a' }), { ok: true, kubeconfig: 'A', key: 'a' });
  assert.deepEqual(kubeconfigFromSecret({ data: { a: b64('A') } }, { ...loc, key: 'b' }), { ok: false, message: 'secret ns/s: data section does not contain key: b' });
  assert.deepEqual(kubeconfigFromSecret({ data: {} }, loc), { ok: false, message: 'secret ns/s: data section is empty' });
  assert.deepEqual(kubeconfigFromSecret(undefined, loc), { ok: false, message: 'Failed to get secret ns/s: not found' });
});

test('CAPI readiness: ControlPlaneInitialized condition, v1beta2 initialization, v1beta1 controlPlaneReady', () => {
  const c = (status: unknown): KubeObject => ({ apiVersion: 'cluster.x-k8s.io/v1beta2', kind: 'Cluster', metadata: { name: 'x' }, status });
  assert.equal(isCapiClusterReady(c(undefined)), false);
  assert.equal(isCapiClusterReady(c({ conditions: [{ type: 'ControlPlaneInitialized', status: 'False' }] })), false);
  assert.equal(isCapiClusterReady(c({ conditions: [{ type: 'Ready', status: 'True' }, { type: 'ControlPlaneInitialized', status: 'True' }] })), true);
  assert.equal(isCapiClusterReady(c({ initialization: { controlPlaneInitialized: true } })), true);
  assert.equal(isCapiClusterReady(c({ controlPlaneReady: true })), true);
  assert.equal(isCapiClusterReady(c({ deprecated: { v1beta1: { conditions: [{ type: 'ControlPlaneInitialized', status: 'True' }] } } })), true);
});

test('entries: readiness, pause, deletion, identity; types and refs', () => {
  const e = toEntry(sc('edge', { paused: true }, { status: { ready: true, connectionStatus: 'Down' } }), 'Sveltos');
  assert.deepEqual({ ready: e.ready, paused: e.paused, deleting: e.deleting, conn: e.connectionStatus, key: e.key }, { ready: true, paused: true, deleting: false, conn: 'Down', key: 'Sveltos:ns/edge' });
  assert.equal(toEntry({ ...sc('d'), metadata: { name: 'd', namespace: 'ns', deletionTimestamp: '2026-01-01T00:00:00Z' } }, 'Sveltos').deleting, true);
  assert.equal(clusterTypeOf('lib.projectsveltos.io/v1beta1'), 'Sveltos');
  assert.equal(clusterTypeOf('cluster.x-k8s.io/v1beta1'), 'Capi');
  assert.equal(clusterTypeOf('v1'), undefined);
  assert.equal(refKey({ kind: 'SveltosCluster', namespace: 'a', name: 'b' }), 'Sveltos:a/b');
  assert.equal(refKey({ apiVersion: 'cluster.x-k8s.io/v1beta2', kind: 'Cluster', namespace: 'a', name: 'b' }), 'Capi:a/b');
  assert.equal(refKey({ kind: 'Pod', name: 'b' }), undefined);
});

test('shards: no key handles everything, "" the unannotated clusters, a value exactly its shard', () => {
  const annotated = sc('a', {}, { metadata: { name: 'a', namespace: 'ns', annotations: { 'sharding.projectsveltos.io/key': 'blue' } } });
  const plain = sc('b');
  assert.deepEqual([matchesShard(annotated, undefined), matchesShard(plain, undefined)], [true, true]);
  assert.deepEqual([matchesShard(annotated, ''), matchesShard(plain, '')], [false, true]);
  assert.deepEqual([matchesShard(annotated, 'blue'), matchesShard(plain, 'blue'), matchesShard(annotated, 'red')], [true, false, false]);
});

test('ClusterSet selection is sticky, skips unhealthy clusters, honours maxReplicas (0 selects none)', () => {
  const h = (...keys: string[]) => keys.map((key) => ({ key }));
  assert.deepEqual(selectClusters([], h('a', 'b', 'c'), 2).map((x) => x.key), ['a', 'b']);
  assert.deepEqual(selectClusters(['c'], h('a', 'b', 'c'), 2).map((x) => x.key), ['c', 'a'], 'already selected clusters stay');
  assert.deepEqual(selectClusters(['c', 'b'], h('a', 'b'), 2).map((x) => x.key), ['b', 'a'], 'an unhealthy or unmatched cluster is replaced');
  assert.deepEqual(selectClusters(['a', 'b', 'c'], h('a', 'b', 'c'), 2).map((x) => x.key), ['a', 'b'], 'over-full selections shrink to maxReplicas (Sveltos drops one too many)');
  assert.deepEqual(selectClusters([], h('a'), 0), []);
  assert.deepEqual(selectClusters([], h('a'), undefined), []);
});

test('readiness status plan follows sveltoscluster-manager', () => {
  // Success: ready, version, Healthy, failures reset, failureMessage cleared; first success is an event.
  const ok = planStatus(undefined, 0, undefined, { ok: true, version: 'v1.32.0' });
  assert.deepEqual(ok.status, { ready: true, version: 'v1.32.0', connectionStatus: 'Healthy', connectionFailures: 0, failureMessage: null });
  assert.deepEqual(ok.events.map((e) => e.reason), ['ClusterReady']);
  // Failures count up; Down at the threshold (default 3); ready is never taken back.
  const f1 = planStatus({ ready: true, connectionStatus: 'Healthy' }, 0, undefined, { ok: false, message: 'refused' });
  assert.deepEqual(f1.status, { connectionStatus: 'Healthy', connectionFailures: 1, failureMessage: 'refused' });
  assert.deepEqual(f1.events.map((e) => e.reason), ['ProbeFailed']);
  const f3 = planStatus({ ready: true, connectionStatus: 'Healthy', connectionFailures: 2 }, 2, undefined, { ok: false, message: 'refused' });
  assert.equal(f3.status.connectionStatus, 'Down');
  assert.equal(f3.status.ready, undefined);
  assert.deepEqual(f3.events.map((e) => e.reason), ['ProbeFailed', 'ConnectionDown']);
  const f4 = planStatus({ ready: true, connectionStatus: 'Down', connectionFailures: 3 }, 3, undefined, { ok: false, message: 'refused' });
  assert.deepEqual(f4.events.map((e) => e.reason), ['ProbeFailed'], 'Down is announced once');
  assert.equal(planStatus(undefined, 0, 1, { ok: false, message: 'x' }).status.connectionStatus, 'Down', 'threshold 1');
  const back = planStatus({ ready: true, connectionStatus: 'Down', connectionFailures: 5 }, 5, undefined, { ok: true, version: 'v1.32.0' });
  assert.deepEqual(back.events.map((e) => e.reason), ['ConnectionRestored']);
  assert.equal(back.status.connectionFailures, 0);
});

test('registration input: labels parse; names and labels are validated', () => {
  assert.deepEqual(parseLabels('env=prod, tier=edge,,empty='), { env: 'prod', tier: 'edge', empty: '' });
  assert.throws(() => parseLabels('novalue'), /expected key=value/);
  assert.deepEqual(validateRegistration({ namespace: 'ns', name: 'ok', labels: { env: 'prod' } }), []);
  const errs = validateRegistration({ namespace: 'Bad_NS', name: 'x', labels: { 'bad key!': 'v', k: 'bad value!' } });
  assert.equal(errs.length, 3);
  assert.match(errs[0], /^namespace "Bad_NS"/);
  assert.equal(k8sVersionLabel('v1.32.0-ripple'), 'v1.32.0');
  assert.equal(k8sVersionLabel('weird'), undefined);
});
