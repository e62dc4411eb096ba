import { strict as assert } from 'node:assert';
import { test } from 'node:test';
import { builtinSchema } from './builtin.js';
import { GENERIC_INVALID, isPatchError } from './errors.js';
import { applyStrategicMergePatch } from './strategic-merge-patch.js';

const podSchema = builtinSchema('', 'v1', 'Pod')!;
const depSchema = builtinSchema('apps', 'v1', 'Deployment')!;
const svcSchema = builtinSchema('', 'v1', 'Service')!;

const pod = (containers: object[], extra: object = {}) => ({
  apiVersion: 'v1',
  kind: 'Pod',
  metadata: { name: 'p', labels: { a: '1', b: '2' }, finalizers: ['x', 'y'] },
  spec: { containers, ...extra },
});
const smp = (target: object, patch: unknown, schema = podSchema) => applyStrategicMergePatch(target, patch, schema) as any;

test('SMP: containers merge by name; without $setElementOrder Go puts patch-only items before unmatched live ones', () => {
  const live = pod([{ name: 'a', image: 'a:1' }, { name: 'b', image: 'b:1', env: [{ name: 'X', value: '1' }] }]);
  const out = smp(live, { spec: { containers: [{ name: 'b', image: 'b:2', env: [{ name: 'Y', value: '2' }] }, { name: 'c', image: 'c:1' }] } });
  assert.deepEqual(out.spec.containers, [
    { name: 'a', image: 'a:1' },
    { name: 'b', image: 'b:2', env: [{ name: 'Y', value: '2' }, { name: 'X', value: '1' }] },
    { name: 'c', image: 'c:1' },
  ]);
  assert.deepEqual(live.spec.containers[1], { name: 'b', image: 'b:1', env: [{ name: 'X', value: '1' }] }, 'input untouched');
});

test('SMP: maps merge, null deletes, scalars replace', () => {
  const out = smp(pod([{ name: 'a', image: 'a:1' }]), { metadata: { labels: { a: null, c: '3' } }, spec: { restartPolicy: 'Never' } });
  assert.deepEqual(out.metadata.labels, { b: '2', c: '3' });
  assert.equal(out.spec.restartPolicy, 'Never');
});

test('SMP: $patch delete and replace in lists, $patch replace and delete in maps', () => {
  const live = pod([{ name: 'a', image: 'a:1' }, { name: 'b', image: 'b:1' }]);
  assert.deepEqual(smp(live, { spec: { containers: [{ name: 'a', $patch: 'delete' }] } }).spec.containers, [{ name: 'b', image: 'b:1' }]);
  assert.deepEqual(smp(live, { spec: { containers: [{ name: 'z', image: 'z:1' }, { $patch: 'replace' }] } }).spec.containers, [{ name: 'z', image: 'z:1' }]);
  assert.deepEqual(smp(live, { metadata: { labels: { $patch: 'replace', only: 'this' } } }).metadata.labels, { only: 'this' });
  assert.deepEqual(smp(live, { metadata: { labels: { $patch: 'delete' } } }).metadata.labels, {});
});

test('SMP: primitive merge lists keep Go order, $deleteFromPrimitiveList removes', () => {
  const live = pod([{ name: 'a', image: 'a:1' }]);
  live.metadata.finalizers = ['a', 'b'];
  assert.deepEqual(smp(live, { metadata: { finalizers: ['c', 'a'] } }).metadata.finalizers, ['c', 'a', 'b']);
  assert.deepEqual(smp(live, { metadata: { '$deleteFromPrimitiveList/finalizers': ['a'] } }).metadata.finalizers, ['b']);
  // Not a merge list: args replace.
  const withArgs = pod([{ name: 'a', image: 'a:1', args: ['1', '2'] }]);
  assert.deepEqual(smp(withArgs, { spec: { containers: [{ name: 'a', args: ['3'] }] } }).spec.containers[0].args, ['3']);
});

test('SMP: $setElementOrder reorders the merged list', () => {
  const live = pod([{ name: 'a', image: 'a:1' }, { name: 'b', image: 'b:1' }, { name: 'c', image: 'c:1' }]);
  const out = smp(live, { spec: { '$setElementOrder/containers': [{ name: 'c' }, { name: 'a' }, { name: 'b' }], containers: [{ name: 'a', image: 'a:2' }] } });
  assert.deepEqual(out.spec.containers.map((c: { name: string }) => c.name), ['c', 'a', 'b']);
  assert.equal(out.spec.containers[1].image, 'a:2');
});

test('SMP: $retainKeys clears the fields of a union (deployment strategy, volume sources)', () => {
  const dep = { spec: { strategy: { type: 'RollingUpdate', rollingUpdate: { maxSurge: 1 } }, replicas: 1 } };
  assert.deepEqual(smp(dep, { spec: { strategy: { $retainKeys: ['type'], type: 'Recreate' } } }, depSchema).spec.strategy, { type: 'Recreate' });
  const live = pod([{ name: 'a', image: 'a:1' }], { volumes: [{ name: 'v', emptyDir: {} }] });
  const out = smp(live, { spec: { volumes: [{ name: 'v', $retainKeys: ['configMap', 'name'], configMap: { name: 'cm' } }] } });
  assert.deepEqual(out.spec.volumes, [{ name: 'v', configMap: { name: 'cm' } }]);
  assert.throws(
    () => smp(live, { spec: { volumes: [{ name: 'v', $retainKeys: ['name'], configMap: { name: 'cm' } }] } }),
    (e) => isPatchError(e, 'BadRequest') && e.message === 'invalid patch format of retainKeys',
  );
});

test('SMP: service ports merge by port; containers ports by containerPort', () => {
  const svc = { spec: { ports: [{ port: 80, targetPort: 8080, protocol: 'TCP' }, { port: 443, protocol: 'TCP' }] } };
  const out = smp(svc, { spec: { ports: [{ port: 80, targetPort: 9090 }] } }, svcSchema);
  assert.deepEqual(out.spec.ports, [{ port: 80, targetPort: 9090, protocol: 'TCP' }, { port: 443, protocol: 'TCP' }]);
  const live = pod([{ name: 'a', image: 'a:1', ports: [{ containerPort: 80 }] }]);
  assert.deepEqual(smp(live, { spec: { containers: [{ name: 'a', ports: [{ containerPort: 81 }] }] } }).spec.containers[0].ports, [{ containerPort: 81 }, { containerPort: 80 }]);
});

test('SMP: directives left in added values are dropped like the typed decode does', () => {
  const live = pod([{ name: 'a', image: 'a:1' }]);
  const out = smp(live, { spec: { initContainers: [{ name: 'i', image: 'i:1', $patch: 'merge' }], nodeSelector: { $patch: 'replace', k: 'v' } } });
  assert.deepEqual(out.spec.initContainers, [{ name: 'i', image: 'i:1' }]);
  assert.deepEqual(out.spec.nodeSelector, { k: 'v' });
});

test('SMP errors map to the apiserver Status', () => {
  const live = pod([{ name: 'a', image: 'a:1' }]);
  assert.throws(
    () => smp(live, { spec: { containers: [{ image: 'nginx' }] } }),
    (e) => isPatchError(e, 'Unknown') && e.status === 500 && e.message === 'map: map[image:nginx] does not contain declared merge key: name',
  );
  assert.throws(
    () => smp(live, { metadata: { labels: { $patch: 'frob', x: 'y' } } }),
    (e) => isPatchError(e, 'Unknown') && e.message === 'unknown patch type: frob in map: map[$patch:frob x:y]',
  );
  assert.throws(
    () => smp(live, { spec: { containers: [{ name: 'a', $patch: 'merge' }] } }),
    (e) => isPatchError(e, 'Unknown') && e.message === 'merging lists cannot yet be specified in the patch',
  );
  assert.throws(() => smp(live, [1]), (e) => isPatchError(e, 'BadRequest') && e.message === 'json: cannot unmarshal array into Go value of type map[string]interface {}');
  const empty = { metadata: { finalizers: [] } };
  assert.throws(() => smp(empty, { metadata: { finalizers: [['x']] } }), (e) => isPatchError(e, 'Invalid') && e.message === GENERIC_INVALID);
  assert.throws(() => smp(live, { metadata: { '$deleteFromPrimitiveListfinalizers': ['x'] } }), (e) => isPatchError(e, 'BadRequest') && e.message === 'invalid patch format of primitive list');
});

test('SMP: larger lists follow Go stable sort (more than one insertion block)', () => {
  const names = Array.from({ length: 45 }, (_, i) => `c${String(i).padStart(2, '0')}`);
  const live = pod(names.map((name) => ({ name, image: 'x' })));
  const patchOrder = [...names].reverse();
  const out = smp(live, { spec: { '$setElementOrder/containers': patchOrder.map((name) => ({ name })), containers: [] } });
  assert.deepEqual(out.spec.containers.map((c: { name: string }) => c.name), patchOrder);
});
