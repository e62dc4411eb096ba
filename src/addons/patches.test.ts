// patches.test.ts: Kustomize-style patches on deployed objects — JSON 6902 with targets, strategic merge by target or
// by the patch's own kind/name, name-keyed list merge, directives; and target selectors.
import { strict as assert } from 'node:assert';
import { test } from 'node:test';
import type { KubeObject } from '../kube/index.js';
import { applyPatches, selectorMatches, strategicMerge } from './patches.js';

const dep = (name: string, labels: Record<string, string> = {}): KubeObject =>
  ({
    apiVersion: 'apps/v1',
    kind: 'Deployment',
    metadata: { name, namespace: 'web', labels },
    spec: { replicas: 1, template: { spec: { containers: [{ name: 'main', image: 'nginx', ports: [{ containerPort: 80 }] }, { name: 'side', image: 'busybox' }] } } },
  }) as KubeObject;

test('JSON 6902 patches apply to the objects the target selects', () => {
  const r = applyPatches([dep('a', { tier: 'x' }), dep('b')], [{ patch: '- op: replace\n  path: /spec/replicas\n  value: 3\n', target: { kind: 'Deployment', labelSelector: 'tier=x' } }]);
  assert.ok(r.ok);
  assert.deepEqual(r.objects.map((o) => (o.spec as { replicas: number }).replicas), [3, 1]);
  const bad = applyPatches([dep('a')], [{ patch: '- op: replace\n  path: /spec/nope/x\n  value: 3\n', target: { kind: 'Deployment' } }]);
  assert.ok(!bad.ok && /patches\[0\] on Deployment web\/a/.test(bad.message), JSON.stringify(bad));
  const noTarget = applyPatches([dep('a')], [{ patch: '- op: remove\n  path: /spec/replicas\n' }]);
  assert.deepEqual(noTarget, { ok: false, message: 'patches[0]: a JSON 6902 patch needs a target' });
});

test('strategic merge: by the patch kind/name, maps merged, containers merged by name, null deletes', () => {
  const patch = 'apiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: a\n  labels:\n    patched: "yes"\nspec:\n  replicas: null\n  template:\n    spec:\n      containers:\n      - name: side\n        image: busybox:2\n      - name: extra\n        image: x\n';
  const r = applyPatches([dep('a'), dep('b')], [{ patch }]);
  assert.ok(r.ok);
  const a = r.objects[0] as KubeObject & { spec: { replicas?: number; template: { spec: { containers: { name: string; image: string }[] } } } };
  assert.equal(a.metadata.name, 'a');
  assert.equal(a.metadata.labels!.patched, 'yes');
  assert.equal(a.spec.replicas, undefined);
  assert.deepEqual(a.spec.template.spec.containers.map((c) => `${c.name}=${c.image}`), ['main=nginx', 'side=busybox:2', 'extra=x']);
  assert.deepEqual(r.objects[1], dep('b'), 'the other object is untouched');
});

test('strategic merge directives and list replacement', () => {
  assert.deepEqual(strategicMerge({ a: { b: 1, c: 2 } }, { a: { $patch: 'replace', d: 3 } }), { a: { d: 3 } });
  assert.deepEqual(strategicMerge({ l: [{ name: 'x' }, { name: 'y' }] }, { l: [{ name: 'x', $patch: 'delete' }] }), { l: [{ name: 'y' }] });
  assert.deepEqual(strategicMerge({ a: { b: 1 } }, { a: { $patch: 'delete' } }), {});
  assert.deepEqual(strategicMerge({ args: ['a', 'b'] }, { args: ['c'] }), { args: ['c'] });
});

test('target selectors: kind, group, version, anchored name/namespace regexes, label and annotation selectors', () => {
  const o = { ...dep('web-1', { app: 'web' }), metadata: { ...dep('web-1').metadata, labels: { app: 'web' }, annotations: { team: 'a' } } } as KubeObject;
  assert.ok(selectorMatches(undefined, o));
  assert.ok(selectorMatches({ group: 'apps', version: 'v1', kind: 'Deployment', name: 'web-.*', namespace: 'web', labelSelector: 'app in (web)', annotationSelector: 'team=a' }, o));
  assert.ok(!selectorMatches({ name: 'web' }, o), 'names are anchored');
  assert.ok(!selectorMatches({ group: '' , kind: 'Service' }, o));
  assert.ok(!selectorMatches({ annotationSelector: 'team=b' }, o));
});
