import { strict as assert } from 'node:assert';
import { test } from 'node:test';
import { normalize, normalizeAs, writeVersion, type EventSource, type EventTrigger } from './index.js';

function ok(obj: unknown) {
  const r = normalize(obj);
  assert.ok(r.ok, `normalize failed: ${r.ok ? '' : JSON.stringify(r.issues)}`);
  return r;
}

test('flat v1alpha1 EventSource → one resourceSelector (script → evaluate), metadata kept', () => {
  const input = {
    apiVersion: 'lib.projectsveltos.io/v1alpha1',
    kind: 'EventSource',
    metadata: { name: 'load-balancer-service', labels: { team: 'a' } },
    spec: { collectResources: true, group: '', version: 'v1', kind: 'Service', script: 'function evaluate() end' },
  };
  const before = JSON.stringify(input);
  const r = ok(input);
  assert.equal(JSON.stringify(input), before, 'the input is not modified');
  assert.deepEqual(r.object, {
    apiVersion: 'lib.projectsveltos.io/v1beta1',
    kind: 'EventSource',
    metadata: { name: 'load-balancer-service', labels: { team: 'a' } },
    spec: {
      collectResources: true,
      resourceSelectors: [{ group: '', version: 'v1', kind: 'Service', evaluate: 'function evaluate() end' }],
    },
  });
  assert.deepEqual(r.from, { apiVersion: 'lib.projectsveltos.io/v1alpha1', kind: 'EventSource' });
  assert.match(r.warnings.join('\n'), /v1alpha1 flat EventSource converted: spec\.\{group,version,kind,script\} → spec\.resourceSelectors\[0\] \(script→evaluate\)/);
});

test('flat EventSource with labelsFilters (old spelling) and a namespace', () => {
  const r = ok({
    apiVersion: 'lib.projectsveltos.io/v1alpha1',
    kind: 'EventSource',
    metadata: { name: 'sveltos-service' },
    spec: { group: '', version: 'v1', kind: 'Service', namespace: 'eng', labelsFilters: [{ key: 'sveltos', operation: 'Equal', value: 'fv' }] },
  });
  assert.deepEqual((r.object as EventSource).spec, {
    collectResources: false,
    resourceSelectors: [{ group: '', version: 'v1', kind: 'Service', namespace: 'eng', labelFilters: [{ key: 'sveltos', operation: 'Equal', value: 'fv' }] }],
  });
  assert.match(r.warnings.join('\n'), /labelsFilters→labelFilters/);
});

test('resourceSelectors[].script → evaluate', () => {
  const r = ok({
    apiVersion: 'lib.projectsveltos.io/v1alpha1',
    kind: 'EventSource',
    metadata: { name: 's' },
    spec: { resourceSelectors: [{ group: 'apps', version: 'v1', kind: 'Deployment', script: 'x' }] },
  });
  assert.deepEqual((r.object as EventSource).spec.resourceSelectors, [{ group: 'apps', version: 'v1', kind: 'Deployment', evaluate: 'x' }]);
  assert.match(r.warnings.join('\n'), /spec\.resourceSelectors\[0\]\.script converted to evaluate/);
});

test('v1alpha1 EventTrigger: string selectors → LabelSelector, apiserver defaults applied', () => {
  const r = ok({
    apiVersion: 'lib.projectsveltos.io/v1alpha1',
    kind: 'EventTrigger',
    metadata: { name: 'service-policy' },
    spec: {
      sourceClusterSelector: 'env=production',
      destinationClusterSelector: 'dep=eng',
      eventSourceName: 'load-balancer-service',
      oneForEvent: true,
      policyRefs: [{ name: 'service-policy', namespace: 'default', kind: 'ConfigMap' }],
    },
  });
  const t = r.object as EventTrigger;
  assert.equal(t.apiVersion, 'lib.projectsveltos.io/v1beta1');
  assert.deepEqual(t.spec.sourceClusterSelector, { matchLabels: { env: 'production' } });
  assert.deepEqual(t.spec.destinationClusterSelector, { matchLabels: { dep: 'eng' } });
  assert.equal(t.spec.syncMode, 'Continuous');
  assert.equal(t.spec.tier, 100);
  assert.equal(t.spec.stopMatchingBehavior, 'WithdrawPolicies');
  assert.equal(t.spec.continueOnConflict, false);
  assert.equal(t.spec.reloader, false);
  assert.equal(t.spec.cloudEventAction, 'Create');
  assert.deepEqual(t.spec.policyRefs, [
    { name: 'service-policy', namespace: 'default', kind: 'ConfigMap', deploymentType: 'Remote', force: false, optional: false, skipNamespaceCreation: false, tier: 100 },
  ]);
  assert.deepEqual(r.warnings, [
    'lib.projectsveltos.io/v1alpha1 EventTrigger converted to v1beta1',
    'spec.sourceClusterSelector "env=production" converted to {"matchLabels":{"env":"production"}}',
    'spec.destinationClusterSelector "dep=eng" converted to {"matchLabels":{"dep":"eng"}}',
  ]);
});

test('EventBasedAddOn → EventTrigger (clusterSelector → sourceClusterSelector), namespace dropped', () => {
  const r = normalizeAs('EventTrigger', {
    apiVersion: 'lib.projectsveltos.io/v1alpha1',
    kind: 'EventBasedAddOn',
    metadata: { name: 'ingress-configuration', namespace: 'default', uid: 'u-1' },
    spec: {
      clusterSelector: 'env=fv',
      eventSourceName: 'https-service',
      oneForEvent: false,
      helmCharts: [{ repositoryURL: 'https://kyverno.github.io/kyverno/', repositoryName: 'kyverno', chartName: 'kyverno/kyverno', chartVersion: 'v2.6.0', releaseName: 'kyverno-latest', releaseNamespace: 'kyverno', helmChartAction: 'Install' }],
    },
  });
  assert.ok(r.ok);
  assert.equal(r.object.kind, 'EventTrigger');
  assert.deepEqual(r.object.metadata, { name: 'ingress-configuration', uid: 'u-1' });
  assert.deepEqual(r.object.spec.sourceClusterSelector, { matchLabels: { env: 'fv' } });
  assert.equal((r.object.spec as Record<string, unknown>).clusterSelector, undefined);
  assert.equal(r.object.spec.helmCharts?.[0].options, undefined, 'no defaults invented for absent objects');
  assert.deepEqual(r.warnings, [
    'metadata.namespace "default" is ignored: EventBasedAddOn is cluster-scoped (the API server clears it)',
    'EventBasedAddOn is deprecated; converted to EventTrigger',
    'spec.clusterSelector (first EventBasedAddOn shape) renamed spec.sourceClusterSelector',
    'spec.sourceClusterSelector "env=fv" converted to {"matchLabels":{"env":"fv"}}',
  ]);
});

test('v1alpha1 EventReport → v1beta1 (same shape)', () => {
  const r = ok({
    apiVersion: 'lib.projectsveltos.io/v1alpha1',
    kind: 'EventReport',
    metadata: { name: 'capi--sveltos-service--w', namespace: 'default' },
    spec: { clusterName: 'w', clusterNamespace: 'default', clusterType: 'Capi', eventSourceName: 'sveltos-service', resources: 'eyJ9Cg==' },
  });
  assert.equal(r.object.apiVersion, 'lib.projectsveltos.io/v1beta1');
  assert.match(r.warnings[0], /has the v1beta1 shape: converted by rewriting apiVersion/);
});

test('undeclared fields are pruned like the API server does, with a warning', () => {
  const r = ok({ apiVersion: 'config.projectsveltos.io/v1beta1', kind: 'ClusterProfile', metadata: { name: 'p' }, spec: { clusterRefs: [{ name: 'a', color: 'red' }], bogus: 1 } });
  assert.deepEqual(r.object.spec, {
    clusterRefs: [{ name: 'a' }],
    continueOnConflict: false,
    continueOnError: false,
    reloader: false,
    stopMatchingBehavior: 'WithdrawPolicies',
    syncMode: 'Continuous',
    tier: 100,
  });
  assert.deepEqual(r.warnings, ['pruned fields the API does not declare: spec.bogus, spec.clusterRefs[0].color']);
});

test('invalid or foreign input: ok false with issues', () => {
  const bad = normalize({ apiVersion: 'lib.projectsveltos.io/v1alpha1', kind: 'EventTrigger', metadata: { name: 't' }, spec: { sourceClusterSelector: 'env in (', eventSourceName: 'es' } });
  assert.equal(bad.ok, false);
  assert.equal(bad.ok ? '' : bad.issues[0].code, 'invalidSelector');
  const cm = normalize({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'c' } });
  assert.equal(cm.ok, false);
  assert.equal(cm.ok ? '' : cm.issues[0].code, 'unknownKind');
  const mismatch = normalizeAs('EventSource', { apiVersion: 'lib.projectsveltos.io/v1alpha1', kind: 'EventBasedAddOn', metadata: { name: 'x' }, spec: { clusterSelector: 'a=b', eventSourceName: 'es' } });
  assert.equal(mismatch.ok, false);
});

test('writeVersion: objects stored in a v1alpha1-only shape are written back through v1alpha1', () => {
  const legacy = { apiVersion: 'lib.projectsveltos.io/v1beta1', kind: 'EventTrigger', metadata: { name: 't' }, spec: { sourceClusterSelector: 'env=fv', eventSourceName: 'es' } };
  assert.equal(writeVersion(legacy), 'lib.projectsveltos.io/v1alpha1');
  const current = { ...legacy, spec: { sourceClusterSelector: { matchLabels: { env: 'fv' } }, eventSourceName: 'es' } };
  assert.equal(writeVersion(current), 'lib.projectsveltos.io/v1beta1');
  assert.equal(writeVersion({ apiVersion: 'lib.projectsveltos.io/v1alpha1', kind: 'EventBasedAddOn', metadata: { name: 'x' }, spec: { clusterSelector: 'a=b', eventSourceName: 'e' } }), 'lib.projectsveltos.io/v1alpha1');
  assert.equal(writeVersion({ apiVersion: 'v1', kind: 'ConfigMap' }), undefined);
});

test('writeVersion answers the same for an object normalize has read (which it remembers) as for a fresh copy', () => {
  const legacy = { apiVersion: 'lib.projectsveltos.io/v1beta1', kind: 'EventTrigger', metadata: { name: 't' }, spec: { sourceClusterSelector: 'env=fv', eventSourceName: 'es' } };
  const current = { ...legacy, spec: { sourceClusterSelector: { matchLabels: { env: 'fv' } }, eventSourceName: 'es' } };
  const report = {
    apiVersion: 'lib.projectsveltos.io/v1beta1',
    kind: 'EventReport',
    metadata: { name: 'sveltos--es--c', namespace: 'ns' },
    spec: { clusterName: 'c', clusterNamespace: 'ns', clusterType: 'Sveltos', eventSourceName: 'es', matchingResources: [{ apiVersion: 'v1', kind: 'Service', namespace: 'a', name: 'x' }] },
  };
  const alpha = { ...report, apiVersion: 'lib.projectsveltos.io/v1alpha1' };
  for (const o of [legacy, current, report, alpha]) {
    const fresh = writeVersion(structuredClone(o));
    assert.equal(normalize(o).ok, true);
    assert.equal(writeVersion(o), fresh, `${o.apiVersion} ${o.kind}`);
  }
  assert.equal(writeVersion(report), 'lib.projectsveltos.io/v1beta1');
});
