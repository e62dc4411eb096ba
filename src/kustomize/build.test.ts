// Unit tests of the pure builder over in-memory file trees. Conformance with `kubectl kustomize` is pinned by the
// golden cases (src/cli/commands/kustomize.test.ts, testdata/kustomize); these pin the API shape and the behaviour
// Ripple adds (remote bases refused, plugins refused) and a few properties the goldens rely on.
import { strict as assert } from 'node:assert';
import { test } from 'node:test';
import { buildKustomization, KustomizeError, mapFileTree } from './index.js';

const cm = (name: string) => `apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: ${name}\ndata:\n  k: v\n`;

test('builds a tree handed in as a Map, relative paths taken from /', () => {
  const files = new Map<string, string | Uint8Array>([
    ['app/kustomization.yaml', 'resources:\n- cm.yaml\nnamePrefix: p-\n'],
    ['app/cm.yaml', cm('a')],
  ]);
  const r = buildKustomization(mapFileTree(files), '/app');
  assert.equal(r.yaml, 'apiVersion: v1\ndata:\n  k: v\nkind: ConfigMap\nmetadata:\n  name: p-a\n');
  assert.deepEqual(r.warnings, []);
  assert.equal(r.resources.length, 1);
});

test('configMapGenerator hash is the one Kustomize computes (name excluded from the hash input)', () => {
  const files = new Map([['k/kustomization.yaml', 'configMapGenerator:\n- name: cm\n  literals:\n  - a=1\n  - b=hello world\n']]);
  const r = buildKustomization(mapFileTree(files), '/k');
  assert.match(r.yaml, /name: cm-4mc96h7k26\n/);
});

test('binary file content goes to binaryData', () => {
  const files = new Map<string, string | Uint8Array>([
    ['k/kustomization.yaml', 'configMapGenerator:\n- name: b\n  files:\n  - x.bin\n'],
    ['k/x.bin', new Uint8Array([0, 255, 1])],
  ]);
  const r = buildKustomization(mapFileTree(files), '/k');
  assert.match(r.yaml, /binaryData:\n  x.bin: AP8B\n/);
});

test('remote bases are refused with a clear error, nothing fetched', () => {
  const files = new Map([['k/kustomization.yaml', 'resources:\n- https://github.com/org/repo//base?ref=v1\n']]);
  assert.throws(
    () => buildKustomization(mapFileTree(files), '/k'),
    (e: unknown) => e instanceof KustomizeError && e.code === 'Remote' && /remote resources are not supported/.test(e.message),
  );
});

test('generator and transformer plugins and helmCharts are refused, not ignored', () => {
  for (const field of ['generators:\n- gen.yaml\n', 'transformers:\n- t.yaml\n', 'helmCharts:\n- name: x\n']) {
    const files = new Map([['k/kustomization.yaml', field]]);
    assert.throws(
      () => buildKustomization(mapFileTree(files), '/k'),
      (e: unknown) => e instanceof KustomizeError && e.code === 'Unsupported',
    );
  }
});

test('files outside the kustomization root are refused (RootOnly loader)', () => {
  const files = new Map([
    ['k/kustomization.yaml', 'configMapGenerator:\n- name: c\n  files:\n  - ../secret.txt\n'],
    ['secret.txt', 'x'],
  ]);
  assert.throws(() => buildKustomization(mapFileTree(files), '/k'), /security; file '\/secret.txt' is not in or below '\/k'/);
});

test('deprecated fields produce Kustomize warnings, once per kustomization loaded', () => {
  const files = new Map([
    ['base/kustomization.yaml', 'commonLabels:\n  a: b\nresources:\n- cm.yaml\n'],
    ['base/cm.yaml', cm('x')],
    ['o/kustomization.yaml', 'bases:\n- ../base\n'],
  ]);
  const r = buildKustomization(mapFileTree(files), '/o');
  assert.equal(r.warnings.length, 2);
  assert.match(r.warnings[0], /'bases' is deprecated/);
  assert.match(r.warnings[1], /'commonLabels' is deprecated/);
});
