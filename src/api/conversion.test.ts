// How old shapes survive a real API server. Ripple's CRDs use conversion strategy None: for a write through
// v1alpha1 the API server prunes with the v1alpha1 schema, validates against it, rewrites apiVersion to the storage
// version (v1beta1) and prunes AGAIN with the v1beta1 schema before storing (customresource_handler.go,
// schemaCoercingConverter). So every field of an old shape must be declared by both schemas, or it is silently
// lost. These tests run that pipeline (admitWrite/readAs mirror the Go code) on the seed shapes and prove:
//   - nothing the user wrote is pruned, for every old shape the seeds use;
//   - reading through v1beta1 and calling normalize() gives the v1beta1 object the controllers expect;
//   - without the legacy declarations in the v1beta1 EventSource schema, fields WOULD be lost (the reason they exist);
//   - an EventTrigger stored with string selectors fails v1beta1 validation on update, so Ripple writes such objects
//     back through v1alpha1 (writeVersion), whose schema accepts them.
import { strict as assert } from 'node:assert';
import { test } from 'node:test';
import { admitWrite, kindDescriptor, normalize, pruneUnknownFields, readAs, validateAgainstSchema, writeVersion, type JsonSchema } from './index.js';

const flatEventSource = {
  apiVersion: 'lib.projectsveltos.io/v1alpha1',
  kind: 'EventSource',
  metadata: { name: 'load-balancer-service' },
  spec: {
    collectResources: true,
    group: '',
    version: 'v1',
    kind: 'Service',
    namespace: 'eng',
    labelsFilters: [{ key: 'sveltos', operation: 'Equal', value: 'fv' }],
    script: 'function evaluate()\n  hs = {}\n  hs.matching = true\n  return hs\nend\n',
  },
};

const stringSelectorTrigger = {
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
};

const eventBasedAddOn = {
  apiVersion: 'lib.projectsveltos.io/v1alpha1',
  kind: 'EventBasedAddOn',
  metadata: { name: 'service-network-policy' },
  spec: { clusterSelector: 'env=fv', eventSourceName: 'sveltos-service', oneForEvent: true, policyRefs: [{ name: 'network-policy', namespace: 'default', kind: 'ConfigMap' }] },
};

test('a flat v1alpha1 EventSource written through v1alpha1 is stored as v1beta1 with no field lost', () => {
  const d = kindDescriptor('EventSource');
  const w = admitWrite(d, flatEventSource, 'v1alpha1');
  assert.deepEqual(w.issues, []);
  assert.deepEqual(w.pruned, [], 'no user field pruned by either schema');
  assert.equal(w.stored?.apiVersion, 'lib.projectsveltos.io/v1beta1');
  assert.deepEqual(w.stored?.spec, flatEventSource.spec);
  const read = readAs(d, w.stored!, 'v1beta1');
  const n = normalize(read);
  assert.ok(n.ok);
  assert.deepEqual(n.object.spec, {
    collectResources: true,
    resourceSelectors: [
      { group: '', version: 'v1', kind: 'Service', namespace: 'eng', labelFilters: [{ key: 'sveltos', operation: 'Equal', value: 'fv' }], evaluate: flatEventSource.spec.script },
    ],
  });
});

test('without the legacy declarations, the v1beta1 storage schema would prune the flat fields (why they exist)', () => {
  const d = kindDescriptor('EventSource');
  const strict = JSON.parse(JSON.stringify(d.versions.find((v) => v.storage)!.schema)) as JsonSchema;
  const spec = strict.properties!.spec!;
  for (const f of ['group', 'version', 'kind', 'labelFilters', 'labelsFilters', 'namespace', 'script']) delete spec.properties![f];
  delete spec.properties!.resourceSelectors!.items!.properties!.script;
  const copy = JSON.parse(JSON.stringify({ ...flatEventSource, apiVersion: 'lib.projectsveltos.io/v1beta1' }));
  assert.deepEqual(pruneUnknownFields(copy, strict), ['spec.group', 'spec.kind', 'spec.labelsFilters', 'spec.namespace', 'spec.script', 'spec.version']);
});

test('resourceSelectors[].script survives storage too', () => {
  const d = kindDescriptor('EventSource');
  const w = admitWrite(d, { ...flatEventSource, spec: { resourceSelectors: [{ group: '', version: 'v1', kind: 'Service', script: 'x' }] } }, 'v1alpha1');
  assert.deepEqual(w.pruned, []);
  assert.equal((w.stored?.spec as { resourceSelectors: { script: string }[] }).resourceSelectors[0].script, 'x');
});

test('a v1alpha1 EventTrigger with string selectors: stored intact, read and normalized through v1beta1', () => {
  const d = kindDescriptor('EventTrigger');
  const w = admitWrite(d, stringSelectorTrigger, 'v1alpha1');
  assert.deepEqual(w.issues, []);
  assert.deepEqual(w.pruned, [], 'pruning never removes scalars: the string selector survives the v1beta1 storage schema');
  const stored = w.stored!;
  assert.equal((stored.spec as Record<string, unknown>).sourceClusterSelector, 'env=production');
  const read = readAs(d, stored, 'v1beta1');
  const n = normalize(read);
  assert.ok(n.ok, JSON.stringify(n));
  assert.deepEqual((n.object.spec as { sourceClusterSelector: unknown }).sourceClusterSelector, { matchLabels: { env: 'production' } });
  assert.deepEqual(n.from, { apiVersion: 'lib.projectsveltos.io/v1beta1', kind: 'EventTrigger' });
  assert.match(n.warnings[0], /read as lib\.projectsveltos\.io\/v1beta1 but stored in the v1alpha1 shape/);
  // Writing it back through v1beta1 would fail validation (the selector is a string there)…
  const v1beta1 = d.versions.find((v) => v.name === 'v1beta1')!.schema;
  assert.deepEqual(validateAgainstSchema(read, v1beta1, '', { skipRootFields: ['metadata'], unknownFields: false }).map((i) => `${i.path} ${i.code}`), [
    'spec.sourceClusterSelector type',
    'spec.destinationClusterSelector type',
  ]);
  // …so Ripple writes status and finalizers of such objects through v1alpha1, which accepts them.
  assert.equal(writeVersion(read), 'lib.projectsveltos.io/v1alpha1');
  const back = admitWrite(d, { ...read, status: { matchingClusters: [] } }, 'v1alpha1');
  assert.deepEqual(back.issues, []);
});

test('v1beta1 writes are unaffected: Sveltos-shaped objects keep strict validation and pruning', () => {
  const d = kindDescriptor('EventTrigger');
  const w = admitWrite(d, { ...stringSelectorTrigger, apiVersion: 'lib.projectsveltos.io/v1beta1', spec: { ...stringSelectorTrigger.spec, sourceClusterSelector: { matchLabels: { env: 'prod' } }, destinationClusterSelector: undefined, typo: 1 } }, 'v1beta1');
  assert.deepEqual(w.issues, []);
  assert.deepEqual(w.pruned, ['v1beta1: spec.typo']);
  const rejected = admitWrite(d, stringSelectorTrigger, 'v1beta1');
  assert.deepEqual(rejected.issues.map((i) => `${i.path} ${i.code}`).sort(), ['spec.destinationClusterSelector type', 'spec.sourceClusterSelector type']);
});

test('EventBasedAddOn is its own cluster-scoped v1alpha1 CRD; stored intact and normalized to an EventTrigger', () => {
  const d = kindDescriptor('EventBasedAddOn');
  assert.equal(d.scope, 'Cluster');
  assert.deepEqual(d.versions.map((v) => [v.name, v.storage]), [['v1alpha1', true]]);
  const w = admitWrite(d, eventBasedAddOn, 'v1alpha1');
  assert.deepEqual(w.issues, []);
  assert.deepEqual(w.pruned, []);
  const n = normalize(readAs(d, w.stored!, 'v1alpha1'));
  assert.ok(n.ok);
  assert.equal(n.object.kind, 'EventTrigger');
  assert.deepEqual((n.object.spec as { sourceClusterSelector: unknown }).sourceClusterSelector, { matchLabels: { env: 'fv' } });
});

test('reading a v1beta1 object through v1alpha1 and back loses nothing either', () => {
  const d = kindDescriptor('EventSource');
  const current = { apiVersion: 'lib.projectsveltos.io/v1beta1', kind: 'EventSource', metadata: { name: 's' }, spec: { collectResources: false, aggregatedSelection: 'x', resourceSelectors: [{ group: '', version: 'v1', kind: 'Pod', evaluateCEL: [{ name: 'r', rule: 'true' }], selector: { matchLabels: { a: 'b' } } }] } };
  const w = admitWrite(d, current, 'v1beta1');
  const viaAlpha = readAs(d, w.stored!, 'v1alpha1');
  const again = admitWrite(d, viaAlpha, 'v1alpha1');
  assert.deepEqual(again.pruned, []);
  assert.deepEqual(again.stored?.spec, current.spec);
});
