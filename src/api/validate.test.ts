import { strict as assert } from 'node:assert';
import { test } from 'node:test';
import { ISSUE_CODES, formatValidation, validate, validateKind, validateUpdate, type Issue } from './index.js';

const brief = (issues: Issue[]) => issues.map((i) => `${i.path} ${i.code}`);

const eventSource = {
  apiVersion: 'lib.projectsveltos.io/v1beta1',
  kind: 'EventSource',
  metadata: { name: 'loadbalancer-class-handler' },
  spec: {
    collectResources: true,
    resourceSelectors: [{ group: '', version: 'v1', kind: 'Service', evaluate: 'function evaluate() return {matching=true} end' }],
  },
};

test('a valid v1beta1 EventSource has no issues and no warnings', () => {
  const r = validate(eventSource);
  assert.deepEqual(r.issues, []);
  assert.deepEqual(r.warnings, []);
  assert.equal(r.valid, true);
  assert.equal(r.lookup?.status, 'served');
});

test('validate lists every problem with its path, never only the first', () => {
  const r = validate({
    apiVersion: 'lib.projectsveltos.io/v1beta1',
    kind: 'EventSource',
    metadata: { name: 'Bad_Name', labels: { ok: 'not ok!' } },
    spec: {
      collectResources: 'yes',
      resourceSelectors: [
        { group: '', version: 'v1', labelFilters: [{ key: 'a', operation: 'Equals' }] },
        { group: '', version: 'v1', kind: '', selector: { matchExpressions: [{ key: 'k', operator: 'In' }] } },
      ],
      foo: 1,
    },
  });
  assert.deepEqual(brief(r.issues), [
    'metadata.name invalidName',
    'metadata.labels.ok invalidName',
    'spec.collectResources type',
    'spec.resourceSelectors[0].kind required',
    'spec.resourceSelectors[0].labelFilters[0].operation enum',
    'spec.resourceSelectors[1].kind minLength',
    'spec.foo unknownField',
    'spec.resourceSelectors[1].selector.matchExpressions[0].values invalidSelector',
  ]);
  const enumIssue = r.issues.find((i) => i.code === 'enum');
  assert.equal(enumIssue?.message, 'Unsupported value: "Equals": supported values: "Equal", "Different", "Has", "DoesNotHave"');
  assert.equal(r.valid, false);
});

test('EventTrigger: CEL rules, patterns, types and Helm requirements', () => {
  const r = validate({
    apiVersion: 'lib.projectsveltos.io/v1beta1',
    kind: 'EventTrigger',
    metadata: { name: 't' },
    spec: {
      sourceClusterSelector: { matchLabels: { env: 'prod' } },
      eventSourceName: 'es',
      tier: 'abc',
      syncMode: 'Sometimes',
      maxUpdate: '200%',
      policyRefs: [{ kind: 'ConfigMap', name: 'a', remoteURL: { url: 'https://example.com/x' } }, { name: 'no-kind' }],
      helmCharts: [{ repositoryURL: 'https://kyverno.github.io/kyverno/', releaseName: 'k', releaseNamespace: 'kyverno' }],
    },
  });
  assert.deepEqual(brief(r.issues), [
    'spec.tier type',
    'spec.syncMode enum',
    'spec.maxUpdate pattern',
    'spec.policyRefs[0] conflict',
    'spec.policyRefs[1] conflict',
    'spec.helmCharts[0].chartName required',
    'spec.helmCharts[0].chartVersion required',
    'spec.helmCharts[0].repositoryName required',
  ]);
  assert.match(r.issues[3].message, /either remoteURL or kind must be set, but not both/);
});

test('required fields and typed values at every level', () => {
  const r = validate({ apiVersion: 'lib.projectsveltos.io/v1beta1', kind: 'EventTrigger', metadata: { name: 't' }, spec: { oneForEvent: 'true' } });
  assert.deepEqual(brief(r.issues), ['spec.eventSourceName required', 'spec.sourceClusterSelector required', 'spec.oneForEvent type']);
});

test('a string selector in a v1beta1 EventTrigger is a type error with a conversion hint', () => {
  const r = validate({ apiVersion: 'lib.projectsveltos.io/v1beta1', kind: 'EventTrigger', metadata: { name: 't' }, spec: { sourceClusterSelector: 'env=fv', eventSourceName: 'es' } });
  assert.deepEqual(brief(r.issues), ['spec.sourceClusterSelector type']);
  assert.match(r.warnings.join('\n'), /string selectors are the v1alpha1 form.*\{"matchLabels":\{"env":"fv"\}\}/);
});

test('v1alpha1 string selectors are parsed; bad ones are reported with apimachinery texts', () => {
  const good = validate({ apiVersion: 'lib.projectsveltos.io/v1alpha1', kind: 'EventTrigger', metadata: { name: 't' }, spec: { sourceClusterSelector: 'env=production', destinationClusterSelector: 'dep=eng', eventSourceName: 'es' } });
  assert.deepEqual(good.issues, []);
  assert.equal(good.notes.length, 2);
  assert.match(good.warnings[0], /v1alpha1 EventTrigger is deprecated/);
  const bad = validate({ apiVersion: 'lib.projectsveltos.io/v1alpha1', kind: 'EventBasedAddOn', metadata: { name: 't' }, spec: { clusterSelector: 'env in prod', eventSourceName: 'es' } });
  assert.deepEqual(brief(bad.issues), ['spec.clusterSelector invalidSelector']);
  assert.equal(bad.issues[0].message, `couldn't parse the selector string "env in prod": unable to parse requirement: found 'prod' expected: '('`);
  const both = validate({ apiVersion: 'lib.projectsveltos.io/v1alpha1', kind: 'EventBasedAddOn', metadata: { name: 't' }, spec: { clusterSelector: 'a=b', sourceClusterSelector: 'a=b', eventSourceName: 'es' } });
  assert.deepEqual(brief(both.issues), ['spec.clusterSelector conflict']);
  const neither = validate({ apiVersion: 'lib.projectsveltos.io/v1alpha1', kind: 'EventBasedAddOn', metadata: { name: 't' }, spec: { eventSourceName: 'es' } });
  assert.deepEqual(brief(neither.issues), ['spec.sourceClusterSelector required']);
  const wrongType = validate({ apiVersion: 'lib.projectsveltos.io/v1alpha1', kind: 'EventTrigger', metadata: { name: 't' }, spec: { sourceClusterSelector: 42, eventSourceName: 'es' } });
  assert.deepEqual(brief(wrongType.issues), ['spec.sourceClusterSelector type']);
});

test('warnings: empty source selector matches no cluster; namespace on a cluster-scoped kind is ignored', () => {
  const r = validate({ apiVersion: 'lib.projectsveltos.io/v1beta1', kind: 'EventTrigger', metadata: { name: 't', namespace: 'default' }, spec: { sourceClusterSelector: {}, eventSourceName: 'es' } });
  assert.deepEqual(r.issues, []);
  assert.match(r.warnings.join('\n'), /metadata\.namespace "default" is ignored: EventTrigger is cluster-scoped/);
  assert.match(r.warnings.join('\n'), /sourceClusterSelector is empty: Sveltos \(and Ripple\) match no cluster/);
});

test('v1alpha1 flat EventSource: accepted with notes; mixing forms is a conflict', () => {
  const flat = { apiVersion: 'lib.projectsveltos.io/v1alpha1', kind: 'EventSource', metadata: { name: 's' }, spec: { collectResources: true, group: '', version: 'v1', kind: 'Service', labelsFilters: [{ key: 'sveltos', operation: 'Equal', value: 'fv' }] } };
  const r = validate(flat);
  assert.deepEqual(r.issues, []);
  assert.match(r.notes[0], /spec\.group, spec\.version, spec\.kind, spec\.labelsFilters: v1alpha1 flat EventSource form/);
  const mixed = validate({ ...flat, spec: { ...flat.spec, resourceSelectors: [{ group: '', version: 'v1', kind: 'Pod' }], labelFilters: [] } });
  assert.deepEqual(brief(mixed.issues), ['spec.resourceSelectors conflict', 'spec.labelsFilters conflict']);
  const noKind = validate({ ...flat, spec: { script: 'x' } });
  assert.deepEqual(brief(noKind.issues), ['spec.kind required', 'spec.version required']);
});

test('lost indentation (metadata: / spec: with their fields at the top level) is explained', () => {
  const r = validate({ apiVersion: 'lib.projectsveltos.io/v1alpha1', kind: 'EventSource', metadata: null, name: 'load-balancer-service', spec: null, collectResources: true, resourceSelectors: [] });
  assert.deepEqual(brief(r.issues), ['metadata.name required', 'name unknownField', 'collectResources unknownField', 'resourceSelectors unknownField']);
  assert.match(r.issues[1].message, /unknown field "name": it belongs under metadata \(and metadata is empty: was the indentation lost\?\)/);
  assert.match(r.issues[2].message, /it belongs under spec/);
});

test('envelopes: not an object, missing apiVersion/kind, unknown kinds and versions, foreign kinds', () => {
  assert.deepEqual(brief(validate('text').issues), [' notAnObject']);
  assert.deepEqual(brief(validate([1]).issues), [' notAnObject']);
  assert.deepEqual(brief(validate({ metadata: { name: 'x' } }).issues), ['apiVersion required', 'kind required']);
  assert.deepEqual(brief(validate({ apiVersion: 'lib.projectsveltos.io/v1beta1', kind: 'EventThing', metadata: { name: 'x' } }).issues), ['kind unknownKind']);
  const v = validate({ apiVersion: 'lib.projectsveltos.io/v2', kind: 'EventSource', metadata: { name: 'x' } });
  assert.deepEqual(brief(v.issues), ['apiVersion unknownVersion']);
  assert.match(v.issues[0].message, /served versions: lib\.projectsveltos\.io\/v1beta1, lib\.projectsveltos\.io\/v1alpha1/);
  const cm = validate({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'c', annotations: { 'projectsveltos.io/subressources': 'status' } }, data: { a: 'b' } });
  assert.equal(cm.valid, true);
  assert.equal(cm.lookup?.status, 'foreign');
  assert.match(cm.warnings[0], /misspelling of projectsveltos\.io\/subresources/);
  assert.deepEqual(brief(validate({ apiVersion: 'v1', kind: 'Service', metadata: {} }).issues), ['metadata.name required']);
});

test('validate never throws, whatever it is given', () => {
  const weird: unknown[] = [null, undefined, 0, 'x', [], {}, { apiVersion: 1, kind: {} }, { apiVersion: 'lib.projectsveltos.io/v1beta1', kind: 'EventTrigger', metadata: 'x', spec: [] }];
  for (const k of ['EventSource', 'EventTrigger', 'EventReport', 'ClusterProfile', 'SveltosCluster', 'ResourceSummary', 'EventBasedAddOn']) {
    const apiVersion = ['ClusterProfile'].includes(k) ? 'config.projectsveltos.io/v1beta1' : k === 'EventBasedAddOn' ? 'lib.projectsveltos.io/v1alpha1' : 'lib.projectsveltos.io/v1beta1';
    for (const spec of [null, 1, 'x', [], { resourceSelectors: 'x', policyRefs: [null, 1], helmCharts: [{}], sourceClusterSelector: [] }]) {
      weird.push({ apiVersion, kind: k, metadata: { name: 'n', labels: 'x', annotations: [1] }, spec, status: 'x' });
    }
  }
  for (const w of weird) {
    const r = validate(w);
    assert.equal(typeof r.valid, 'boolean');
    for (const i of r.issues) assert.ok(ISSUE_CODES.includes(i.code), i.code);
  }
});

test('validateUpdate enforces immutable fields (CEL self == oldSelf)', () => {
  const base = { apiVersion: 'lib.projectsveltos.io/v1beta1', kind: 'EventTrigger', metadata: { name: 't' }, spec: { sourceClusterSelector: { matchLabels: { a: 'b' } }, eventSourceName: 'es', oneForEvent: true } };
  const changed = { ...base, spec: { ...base.spec, oneForEvent: false } };
  assert.deepEqual(brief(validateUpdate(base, changed).issues), ['spec.oneForEvent immutable']);
  assert.deepEqual(validateUpdate(base, base).issues, []);
  const unset = { ...base, spec: { ...base.spec, oneForEvent: undefined } };
  assert.deepEqual(validateUpdate(unset, base).issues, [], 'setting a previously absent field is allowed, like the API server');
});

test('validateKind insists on the kind (EventBasedAddOn counts as EventTrigger)', () => {
  assert.deepEqual(brief(validateKind('EventTrigger', eventSource).issues), ['kind invalidValue']);
  assert.equal(validateKind('EventSource', eventSource).valid, true);
  const eba = { apiVersion: 'lib.projectsveltos.io/v1alpha1', kind: 'EventBasedAddOn', metadata: { name: 'x' }, spec: { clusterSelector: 'env=fv', eventSourceName: 'es' } };
  assert.equal(validateKind('EventTrigger', eba).valid, true);
});

test('formatValidation prints errors, warnings and notes', () => {
  const lines = formatValidation(validate({ apiVersion: 'lib.projectsveltos.io/v1alpha1', kind: 'EventTrigger', metadata: { name: 't' }, spec: { sourceClusterSelector: 'env=fv', eventSourceName: 'es', tier: 0 } }));
  assert.deepEqual(lines.map((l) => l.split(':')[0]), ['error', 'warning', 'note']);
  assert.equal(lines[0], 'error: spec.tier: Invalid value: 0: should be greater than or equal to 1');
});
