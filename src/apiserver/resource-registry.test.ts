// ResourceRegistry: clusters serving the same built-ins share one index until one of them registers a kind.
import { strict as assert } from 'node:assert';
import { test } from 'node:test';
import { ResourceRegistry } from './cluster.js';
import { BUILTIN_DESCRIPTORS } from './kinds/builtins.js';
import type { ResourceDescriptor } from './resource.js';

test('registries of the same built-ins share their index until one changes; a change stays in its cluster', () => {
  const a = new ResourceRegistry(BUILTIN_DESCRIPTORS);
  const b = new ResourceRegistry(BUILTIN_DESCRIPTORS);
  assert.equal(a.all(), b.all(), 'one shared list');
  const gen = b.generation;
  const cm = a.lookup('', 'v1', 'configmaps')!;
  assert.equal(cm.kind, 'ConfigMap');
  const widget = { ...cm, group: 'example.com', versions: ['v1'], storageVersion: 'v1', kind: 'Widget', listKind: 'WidgetList', plural: 'widgets', singular: 'widget', shortNames: [], storage: 'example.com/widgets' } as ResourceDescriptor;
  a.add(widget);
  assert.equal(a.lookup('example.com', 'v1', 'widgets'), widget);
  assert.equal(a.forKind('example.com/v1', 'Widget'), widget);
  assert.ok(a.generation > gen);
  // The other registry (and any new one) still serves the built-ins alone, at its generation.
  assert.equal(b.lookup('example.com', 'v1', 'widgets'), undefined);
  assert.equal(b.all().length, BUILTIN_DESCRIPTORS.length);
  assert.equal(b.generation, gen);
  assert.equal(new ResourceRegistry(BUILTIN_DESCRIPTORS).forGroupResource('example.com', 'widgets'), undefined);
  // Removing a built-in from one cluster leaves it in the others.
  assert.ok(b.remove('', 'configmaps'));
  assert.equal(b.lookup('', 'v1', 'configmaps'), undefined);
  assert.equal(a.lookup('', 'v1', 'configmaps'), cm);
  assert.equal(new ResourceRegistry(BUILTIN_DESCRIPTORS).forStorage(cm.storage), cm);
  assert.equal(b.remove('', 'configmaps'), undefined);
});
