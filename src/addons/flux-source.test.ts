// Pure parts of the Flux source reader and of the Kustomize feature: digest verification (sha256/384/512, the older
// checksum), the SOURCE_CONTROLLER_LOCALHOST override, artifacts of a source's status, the build with components,
// values substitution and targetNamespace, and the per-feature deployedGVKs bookkeeping.
import { strict as assert } from 'node:assert';
import { createHash } from 'node:crypto';
import { describe, test } from 'node:test';
import { KustomizeError } from '../kustomize/index.js';
import type { KubeObject } from '../kube/index.js';
import { artifactOf, artifactURL, isFluxKind, verifyDigest } from './flux-source.js';
import { kustomizeObjects, kustomizeResolvedRef, setFeatureGvks, withComponents } from './kustomize-feature.js';
import { PolicyRenderer } from './render.js';

const bytes = Buffer.from('artifact bytes');
const hex = (alg: string) => createHash(alg).update(bytes).digest('hex');

describe('flux-source', () => {
  test('verifyDigest accepts a matching digest of each algorithm and the legacy checksum', () => {
    for (const alg of ['sha256', 'sha384', 'sha512']) assert.equal(verifyDigest(bytes, { digest: `${alg}:${hex(alg)}` }), undefined);
    assert.equal(verifyDigest(bytes, { checksum: hex('sha256') }), undefined);
  });
  test('verifyDigest names a mismatch, a malformed digest and a missing one', () => {
    assert.equal(verifyDigest(bytes, { digest: `sha256:${'0'.repeat(64)}` }), `failed to verify artifact: computed digest sha256:${hex('sha256')} doesn't match 'sha256:${'0'.repeat(64)}'`);
    assert.match(verifyDigest(bytes, { digest: 'md5:abc' })!, /invalid digest 'md5:abc'/);
    assert.match(verifyDigest(bytes, { digest: 'nocolon' })!, /invalid digest/);
    assert.match(verifyDigest(bytes, {})!, /gives no digest/);
  });
  test('artifactURL replaces host and port when SOURCE_CONTROLLER_LOCALHOST is set', () => {
    const url = 'http://source-controller.flux-system.svc.cluster.local./gitrepository/flux-system/repo/abc.tar.gz';
    assert.equal(artifactURL(url, undefined), url);
    assert.equal(artifactURL(url, 'localhost:9090'), 'http://localhost:9090/gitrepository/flux-system/repo/abc.tar.gz');
  });
  test('artifactOf reads status.artifact; no artifact or no url means not ready', () => {
    const src = (status: unknown) => ({ apiVersion: 'source.toolkit.fluxcd.io/v1', kind: 'GitRepository', metadata: { name: 'r' }, status }) as unknown as KubeObject;
    assert.deepEqual(artifactOf(src({ artifact: { url: 'http://x/a.tar.gz', revision: 'main@sha1:1', digest: 'sha256:aa' } })), { url: 'http://x/a.tar.gz', revision: 'main@sha1:1', digest: 'sha256:aa', checksum: undefined });
    assert.equal(artifactOf(src({})), undefined);
    assert.equal(artifactOf(src({ artifact: { revision: 'x' } })), undefined);
    assert.ok(isFluxKind('Bucket') && !isFluxKind('ConfigMap'));
  });
});

describe('kustomize-feature (pure)', () => {
  const renderer = new PolicyRenderer({});
  const files = new Map<string, string>([
    ['base/kustomization.yaml', 'resources:\n- cm.yaml\n'],
    ['base/cm.yaml', 'apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: app\n  namespace: a\ndata:\n  who: "{{ .team }}"\n'],
    ['comp/kustomization.yaml', 'apiVersion: kustomize.config.k8s.io/v1alpha1\nkind: Component\ncommonLabels:\n  comp: "on"\n'],
  ]);

  test('builds, substitutes values in every object and overrides the namespace', () => {
    const out = kustomizeObjects(files, { path: './base', values: { team: 'blue' }, targetNamespace: 'target', templateName: 't', renderer });
    assert.deepEqual(out, [{ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'app', namespace: 'target' }, data: { who: 'blue' } }]);
  });
  test('without values the objects are not templates', () => {
    const out = kustomizeObjects(files, { path: 'base', templateName: 't', renderer });
    assert.equal((out[0] as unknown as { data: Record<string, string> }).data.who, '{{ .team }}');
  });
  test('a missing value is a template error (missingkey=error)', () => {
    assert.throws(() => kustomizeObjects(files, { path: 'base', values: { other: 'x' }, templateName: 't', renderer }), /substituting values: .*map has no entry for key "team"/);
  });
  test('components are appended to the kustomization', () => {
    const tree = withComponents(files, '/base', ['../comp']);
    assert.match(String(tree.get('base/kustomization.yaml')), /components:\n {2}- \.\.\/comp/);
    const out = kustomizeObjects(files, { path: 'base', components: ['../comp'], templateName: 't', renderer });
    assert.equal(out[0].metadata.labels?.comp, 'on');
  });
  test('a missing path and a broken kustomization are KustomizeErrors', () => {
    assert.throws(() => kustomizeObjects(files, { path: 'nope', templateName: 't', renderer }), (e: unknown) => e instanceof KustomizeError && /kustomization path not found: nope/.test(e.message));
    const broken = new Map([...files, ['base/kustomization.yaml', 'resources:\n- missing.yaml\n']]);
    assert.throws(() => kustomizeObjects(broken, { path: 'base', templateName: 't', renderer }), KustomizeError);
  });
  test('built integers (int64 as bigint) survive into the resolved reference', () => {
    const out = kustomizeObjects(new Map([['k/kustomization.yaml', 'resources:\n- d.yaml\n'], ['k/d.yaml', 'apiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: d\nspec:\n  replicas: 3\n']]), { path: 'k', templateName: 't', renderer });
    const ref = kustomizeResolvedRef({ ref: {}, kind: 'GitRepository', namespace: 'ns', name: 'n' }, out);
    assert.match(ref.data.kustomize, /"replicas":3/);
  });
  test('setFeatureGvks replaces one feature entry and drops it when empty', () => {
    const r = setFeatureGvks([{ featureID: 'Resources', deployedGroupVersionKind: ['ConfigMap.v1.'] }], 'Kustomize', ['Service.v1.']);
    assert.deepEqual(r, [{ featureID: 'Resources', deployedGroupVersionKind: ['ConfigMap.v1.'] }, { featureID: 'Kustomize', deployedGroupVersionKind: ['Service.v1.'] }]);
    assert.deepEqual(setFeatureGvks(r, 'Kustomize', []), [{ featureID: 'Resources', deployedGroupVersionKind: ['ConfigMap.v1.'] }]);
    assert.equal(setFeatureGvks(undefined, 'Kustomize', []), undefined);
  });
});
