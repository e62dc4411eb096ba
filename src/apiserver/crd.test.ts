import { strict as assert } from 'node:assert';
import { test } from 'node:test';
import { crdDescriptor, evalJsonPath, sortVersions } from './crd.js';

test('versions sort by kube priority', () => {
  assert.deepEqual(sortVersions(['v1alpha1', 'v1', 'v2beta1', 'v1beta2', 'foo', 'v2', 'v1beta1', 'bar']), ['v2', 'v1', 'v2beta1', 'v1beta2', 'v1beta1', 'v1alpha1', 'bar', 'foo']);
});

test('the JSONPath of printer columns and selectable fields', () => {
  const o = { status: { conditions: [{ type: 'Ready', status: 'True' }, { type: 'Synced', status: 'False' }] }, spec: { ports: [{ port: 80 }, { port: 443 }] } };
  assert.deepEqual(evalJsonPath(o, '.status.conditions[?(@.type=="Ready")].status'), ['True']);
  assert.deepEqual(evalJsonPath(o, '.spec.ports[*].port'), [80, 443]);
  assert.deepEqual(evalJsonPath(o, '.spec.ports[-1].port'), [443]);
  assert.deepEqual(evalJsonPath(o, '.spec.missing'), []);
  assert.deepEqual(evalJsonPath(o, "{.spec['ports'][0].port}"), [80]);
});

test('a CRD becomes a descriptor: preferred version, storage, scale, columns and selectable fields', () => {
  const d = crdDescriptor({
    metadata: { name: 'things.x.io' },
    spec: {
      group: 'x.io',
      scope: 'Cluster',
      names: { kind: 'Thing', plural: 'things', shortNames: ['th'], categories: ['all'] },
      versions: [
        { name: 'v1beta1', served: true, storage: false },
        {
          name: 'v1',
          served: true,
          storage: true,
          subresources: { status: {}, scale: { specReplicasPath: '.spec.n', statusReplicasPath: '.status.n' } },
          additionalPrinterColumns: [{ name: 'N', type: 'integer', jsonPath: '.spec.n', priority: 1 }],
          selectableFields: [{ jsonPath: '.spec.color' }],
        },
        { name: 'v0', served: false, storage: false },
      ],
    },
  });
  assert.deepEqual(d.versions, ['v1', 'v1beta1']);
  assert.equal(d.storageVersion, 'v1');
  assert.equal(d.namespaced, false);
  assert.deepEqual(d.subresources, { status: true, scale: { specReplicasPath: '.spec.n', statusReplicasPath: '.status.n', labelSelectorPath: undefined } });
  assert.deepEqual(d.columns('v1').map((c) => [c.name, c.priority]), [['Name', 0], ['N', 1]]);
  assert.deepEqual(d.fieldNames, ['spec.color']);
  assert.deepEqual(d.hooks.fields!({ spec: { color: 'red' } }), { 'spec.color': 'red' });
  assert.equal(d.toStorage({ apiVersion: 'x.io/v1beta1', kind: 'Thing' }, 'v1beta1').apiVersion, 'x.io/v1');
});
