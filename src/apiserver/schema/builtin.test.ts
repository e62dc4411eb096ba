import { strict as assert } from 'node:assert';
import { test } from 'node:test';
import { builtinDefinitions, builtinKind, builtinKinds, builtinSchema, supportsStrategicMergePatch } from './builtin.js';
import type { JSONSchemaProps } from './types.js';

const at = (s: JSONSchemaProps, ...path: string[]): JSONSchemaProps => {
  let cur = s;
  for (const p of path) {
    const next = p === '[]' ? cur.items : p === '{}' ? (cur.additionalProperties as JSONSchemaProps) : cur.properties?.[p];
    assert.ok(next, `no ${p} in ${path.join('.')}`);
    cur = next;
  }
  return cur;
};

test('builtinSchema: every listed kind has a schema with apiVersion, kind and its GVK', () => {
  for (const { group, version, kind } of builtinKinds()) {
    const s = builtinSchema(group, version, kind);
    assert.ok(s, `${group}/${version}/${kind}`);
    assert.equal(s.type, 'object');
    assert.ok(s.properties?.apiVersion && s.properties.kind, kind);
    assert.deepEqual(s['x-kubernetes-group-version-kind'], [{ group, version, kind }]);
    assert.ok(s.description && s.description.length > 10);
  }
  assert.equal(builtinSchema('example.com', 'v1', 'Widget'), undefined);
  assert.equal(supportsStrategicMergePatch('', 'v1', 'ConfigMap'), true);
  assert.equal(supportsStrategicMergePatch('example.com', 'v1', 'Widget'), false);
  assert.equal(builtinKind('apps', 'v1', 'Deployment')?.cls, 'V1Deployment');
});

test('builtinSchema: Pod containers carry SMP and SSA list metadata deep enough for env/ports/volumeMounts', () => {
  const pod = builtinSchema('', 'v1', 'Pod')!;
  const containers = at(pod, 'spec', 'containers');
  assert.equal(containers['x-kubernetes-patch-merge-key'], 'name');
  assert.equal(containers['x-kubernetes-patch-strategy'], 'merge');
  assert.deepEqual(containers['x-kubernetes-list-map-keys'], ['name']);
  assert.deepEqual(containers.items?.required, ['name']);
  const ports = at(containers, '[]', 'ports');
  assert.equal(ports['x-kubernetes-patch-merge-key'], 'containerPort');
  assert.deepEqual(ports['x-kubernetes-list-map-keys'], ['containerPort', 'protocol']);
  assert.equal(at(ports, '[]', 'protocol').default, 'TCP');
  assert.deepEqual(at(ports, '[]', 'protocol').enum, ['SCTP', 'TCP', 'UDP']);
  assert.equal(at(containers, '[]', 'env')['x-kubernetes-patch-merge-key'], 'name');
  assert.equal(at(containers, '[]', 'volumeMounts')['x-kubernetes-patch-merge-key'], 'mountPath');
  assert.equal(at(pod, 'spec', 'volumes')['x-kubernetes-patch-strategy'], 'merge,retainKeys');
  assert.equal(at(containers, '[]', 'resources', 'limits', '{}')['x-kubernetes-int-or-string'], true);
  assert.equal(at(pod, 'spec', 'nodeSelector')['x-kubernetes-map-type'], 'atomic');
  assert.equal(at(pod, 'metadata', 'labels', '{}').type, 'string');
  assert.equal(at(pod, 'metadata', 'ownerReferences')['x-kubernetes-patch-merge-key'], 'uid');
  assert.equal(at(pod, 'metadata', 'finalizers')['x-kubernetes-list-type'], 'set');
  assert.equal(at(pod, 'metadata', 'creationTimestamp').format, 'date-time');
});

test('builtinSchema: Deployment, Service, Secret specifics', () => {
  const dep = builtinSchema('apps', 'v1', 'Deployment')!;
  assert.equal(at(dep, 'spec', 'strategy')['x-kubernetes-patch-strategy'], 'retainKeys');
  assert.equal(at(dep, 'spec', 'selector')['x-kubernetes-map-type'], 'atomic');
  assert.deepEqual(at(dep, 'spec', 'template', 'spec', 'containers', '[]', 'ports')['x-kubernetes-list-map-keys'], ['containerPort', 'protocol']);
  const svc = builtinSchema('', 'v1', 'Service')!;
  assert.deepEqual(at(svc, 'spec', 'ports')['x-kubernetes-list-map-keys'], ['port', 'protocol']);
  assert.equal(at(svc, 'spec', 'ports', '[]', 'targetPort')['x-kubernetes-int-or-string'], true);
  assert.deepEqual(at(svc, 'spec', 'type').enum, ['ClusterIP', 'ExternalName', 'LoadBalancer', 'NodePort']);
  assert.deepEqual(at(svc, 'spec', 'ports', '[]').required, ['port']);
  const secret = builtinSchema('', 'v1', 'Secret')!;
  assert.equal(at(secret, 'data', '{}').format, 'byte');
  assert.equal(at(secret, 'stringData', '{}').format, undefined);
});

test('builtinSchema: CRD schemas recurse through a shared JSONSchemaProps node', () => {
  const crd = builtinSchema('apiextensions.k8s.io', 'v1', 'CustomResourceDefinition')!;
  const root = at(crd, 'spec', 'versions', '[]', 'schema', 'openAPIV3Schema');
  const nested = at(root, 'properties', '{}');
  assert.equal(at(nested, 'properties', '{}').properties, nested.properties, 'cycle shares properties');
  assert.equal(at(root, 'x-kubernetes-preserve-unknown-fields').type, 'boolean');
  assert.equal(at(root, 'default')['x-kubernetes-preserve-unknown-fields'], true);
});

test('builtinDefinitions: $refs resolve and roots carry their GVK', () => {
  const defs = builtinDefinitions([builtinKind('apps', 'v1', 'Deployment')!], '#/definitions/');
  const dep = defs['io.k8s.api.apps.v1.Deployment'];
  assert.deepEqual(dep['x-kubernetes-group-version-kind'], [{ group: 'apps', version: 'v1', kind: 'Deployment' }]);
  assert.ok(defs['io.k8s.apimachinery.pkg.apis.meta.v1.ObjectMeta']);
  assert.ok(defs['io.k8s.api.core.v1.PodSpec']);
  const refs: string[] = [];
  JSON.stringify(defs, (k, v) => (k === '$ref' ? (refs.push(v as string), v) : v));
  assert.ok(refs.length > 50);
  for (const r of refs) assert.ok(defs[r.replace('#/definitions/', '')], `dangling ${r}`);
});
