import { strict as assert } from 'node:assert';
import { test } from 'node:test';
import { builtinSchema } from './builtin.js';
import { isPatchError } from './errors.js';
import { conflictCauses, serverSideApply, trackUpdate } from './managed-fields.js';
import { TYPED_STATS } from './typed.js';
import type { ApplyResult, JSONSchemaProps, ManagedFieldsEntry } from './types.js';

const cmSchema = builtinSchema('', 'v1', 'ConfigMap')!;
const depSchema = builtinSchema('apps', 'v1', 'Deployment')!;
const T1 = '2024-05-01T10:00:00Z';
const T2 = '2024-05-01T10:00:05.123Z';

type Obj = Record<string, any>;
const cm = (data: Record<string, string>, extra: Obj = {}): Obj => ({
  apiVersion: 'v1',
  kind: 'ConfigMap',
  metadata: { name: 'c', namespace: 'default', ...extra },
  data,
});
const stored = (o: Obj): Obj => ({ ...o, metadata: { ...o.metadata, uid: 'u1', resourceVersion: '1' } });

function apply(live: Obj | undefined, applied: Obj, manager: string, force = false, schema: JSONSchemaProps = cmSchema, now = T1): ApplyResult {
  return serverSideApply(live, applied, { manager, force, schema, apiVersion: applied.apiVersion, now });
}
function ok(r: ApplyResult): Obj {
  assert.ok(r.ok, r.ok ? '' : r.message);
  return r.object as Obj;
}
const mf = (o: Obj): ManagedFieldsEntry[] => o.metadata.managedFields;

test('apply create: object as applied, one Apply entry with FieldsV1 like structured-merge-diff encodes it', () => {
  const out = ok(apply(undefined, cm({ key: 'v' }, { labels: { app: 'x' } }), 'kubectl'));
  assert.deepEqual(out.data, { key: 'v' });
  assert.deepEqual(mf(out), [
    {
      manager: 'kubectl',
      operation: 'Apply',
      apiVersion: 'v1',
      time: T1,
      fieldsType: 'FieldsV1',
      fieldsV1: { 'f:data': { 'f:key': {} }, 'f:metadata': { 'f:labels': { 'f:app': {} } } },
    },
  ]);
});

test('update tracking: create marks added maps with "." like kubectl create does', () => {
  const out = trackUpdate(undefined, cm({ key: 'v' }, { labels: { app: 'x' } }), { manager: 'kubectl-create', schema: cmSchema, apiVersion: 'v1', now: T2 }) as Obj;
  assert.deepEqual(mf(out), [
    {
      manager: 'kubectl-create',
      operation: 'Update',
      apiVersion: 'v1',
      time: '2024-05-01T10:00:05Z',
      fieldsType: 'FieldsV1',
      fieldsV1: { 'f:data': { '.': {}, 'f:key': {} }, 'f:metadata': { 'f:labels': { '.': {}, 'f:app': {} } } },
    },
  ]);
});

test('update tracking: untracked existing objects stay untracked; explicit reset clears', () => {
  const live = stored(cm({ key: 'v' }));
  const out = trackUpdate(live, cm({ key: 'w' }), { manager: 'm', schema: cmSchema, apiVersion: 'v1', now: T1 }) as Obj;
  assert.equal(out.metadata.managedFields, undefined);
  const tracked = trackUpdate(undefined, cm({ key: 'v' }), { manager: 'm', schema: cmSchema, apiVersion: 'v1', now: T1 }) as Obj;
  const reset = { ...tracked, metadata: { ...tracked.metadata, managedFields: [{}] } };
  assert.equal((trackUpdate(stored(tracked), reset, { manager: 'm', schema: cmSchema, apiVersion: 'v1', now: T1 }) as Obj).metadata.managedFields, undefined);
});

test('conflicts: an Update manager changed a field the applier owns; force takes it over', () => {
  const created = ok(apply(undefined, cm({ key: 'v', other: 'o' }), 'kubectl'));
  const edited = trackUpdate(stored(created), { ...created, data: { key: 'changed', other: 'o' } }, { manager: 'kubectl-edit', schema: cmSchema, apiVersion: 'v1', now: T2 }) as Obj;
  const editor = mf(edited).find((e) => e.manager === 'kubectl-edit')!;
  assert.deepEqual(editor.fieldsV1, { 'f:data': { 'f:key': {} } });
  assert.deepEqual(mf(edited).find((e) => e.manager === 'kubectl')!.fieldsV1, { 'f:data': { 'f:other': {} } });

  const again = apply(stored(edited), cm({ key: 'v', other: 'o' }), 'kubectl');
  assert.equal(again.ok, false);
  if (!again.ok) {
    assert.equal(again.message, 'Apply failed with 1 conflict: conflict with "kubectl-edit" using v1: .data.key');
    assert.deepEqual(conflictCauses(again.conflicts), [{ type: 'FieldManagerConflict', message: 'conflict with "kubectl-edit" using v1', field: '.data.key' }]);
  }
  const forced = ok(apply(stored(edited), cm({ key: 'v', other: 'o' }), 'kubectl', true));
  assert.equal(forced.data.key, 'v');
  assert.deepEqual(mf(forced).map((e) => e.manager), ['kubectl']);
});

test('conflicts between two appliers list every field, grouped by manager', () => {
  const a = ok(apply(undefined, cm({ x: '1', y: '2' }), 'alpha'));
  const r = apply(stored(a), cm({ x: '9', y: '8' }), 'beta');
  assert.equal(r.ok, false);
  if (!r.ok) assert.equal(r.message, 'Apply failed with 2 conflicts: conflicts with "alpha":\n- .data.x\n- .data.y');
  // Applying the same values is shared ownership, not a conflict. The object did not change, so (like the
  // apiserver) beta's entry gets no time and sorts first.
  const shared = ok(apply(stored(a), cm({ x: '1' }), 'beta'));
  assert.deepEqual(mf(shared).map((e) => [e.manager, e.time, e.fieldsV1]), [
    ['beta', undefined, { 'f:data': { 'f:x': {} } }],
    ['alpha', T1, { 'f:data': { 'f:x': {}, 'f:y': {} } }],
  ]);
});

test('fields an applier stops applying are removed unless another manager owns them', () => {
  const a = ok(apply(undefined, cm({ x: '1', y: '2' }), 'alpha'));
  const dropped = ok(apply(stored(a), cm({ x: '1' }), 'alpha'));
  assert.deepEqual(dropped.data, { x: '1' });
  const sharedY = ok(apply(stored(a), cm({ y: '2' }), 'beta'));
  const alphaDrops = ok(apply(stored(sharedY), cm({ x: '1' }), 'alpha'));
  assert.deepEqual(alphaDrops.data, { x: '1', y: '2' });
});

test('associative lists: containers by name keep order, removal of a container the applier owned', () => {
  const dep = (containers: Obj[], replicas?: number): Obj => ({
    apiVersion: 'apps/v1',
    kind: 'Deployment',
    metadata: { name: 'd', namespace: 'default' },
    spec: {
      ...(replicas === undefined ? {} : { replicas }),
      selector: { matchLabels: { app: 'd' } },
      template: { metadata: { labels: { app: 'd' } }, spec: { containers } },
    },
  });
  const a = ok(apply(undefined, dep([{ name: 'a', image: 'a:1' }, { name: 'b', image: 'b:1', ports: [{ containerPort: 80 }] }], 2), 'kubectl', false, depSchema));
  const fv1 = mf(a)[0].fieldsV1 as Obj;
  assert.deepEqual(Object.keys(fv1['f:spec']['f:template']['f:spec']['f:containers']), ['k:{"name":"a"}', 'k:{"name":"b"}']);
  assert.deepEqual(fv1['f:spec']['f:template']['f:spec']['f:containers']['k:{"name":"b"}'], {
    '.': {},
    'f:image': {},
    'f:name': {},
    'f:ports': { 'k:{"containerPort":80,"protocol":"TCP"}': { '.': {}, 'f:containerPort': {} } },
  });
  assert.deepEqual(fv1['f:spec']['f:selector'], {}, 'atomic struct: the selector is owned as a whole');
  const b = ok(apply(stored(a), dep([{ name: 'b', image: 'b:2', ports: [{ containerPort: 80 }] }], 2), 'kubectl', false, depSchema));
  assert.deepEqual(b.spec.template.spec.containers, [{ name: 'b', image: 'b:2', ports: [{ containerPort: 80 }] }]);
  // The HPA-style manager owns replicas through an update; the applier omitting replicas keeps them.
  const scaled = trackUpdate(stored(b), { ...b, spec: { ...b.spec, replicas: 5 } }, { manager: 'hpa', schema: depSchema, apiVersion: 'apps/v1', now: T2 }) as Obj;
  const c = ok(apply(stored(scaled), dep([{ name: 'b', image: 'b:2', ports: [{ containerPort: 80 }] }]), 'kubectl', false, depSchema));
  assert.equal(c.spec.replicas, 5);
});

test('before-first-apply: applying to an untracked object conflicts with its existing fields', () => {
  const live = stored(cm({ key: 'v' }));
  const r = apply(live, cm({ key: 'w' }), 'kubectl');
  assert.equal(r.ok, false);
  if (!r.ok) assert.equal(r.message, 'Apply failed with 1 conflict: conflict with "before-first-apply" using v1: .data.key');
});

test('apply errors: wrong version, managedFields in the patch, unknown fields, duplicate keys', () => {
  assert.throws(
    () => serverSideApply(undefined, cm({}), { manager: 'm', force: false, schema: cmSchema, apiVersion: 'v2', now: T1 }),
    (e) => isPatchError(e, 'BadRequest') && e.message === 'Incorrect version specified in apply patch. Specified patch version: v1, expected: v2',
  );
  assert.throws(() => apply(undefined, cm({}, { managedFields: [] }), 'm'), (e) => isPatchError(e, 'BadRequest') && e.message === 'metadata.managedFields must be nil');
  assert.throws(
    () => apply(undefined, { ...cm({}), spec: { a: 1 } }, 'm'),
    (e) => isPatchError(e, 'Unknown') && e.message === 'failed to create typed patch object (default/c; /v1, Kind=ConfigMap): .spec: field not declared in schema',
  );
  assert.throws(
    () => apply(undefined, { apiVersion: 'apps/v1', kind: 'Deployment', metadata: { name: 'd' }, spec: { template: { spec: { containers: [{ name: 'a' }, { name: 'a' }] } } } }, 'm', false, depSchema),
    (e) => isPatchError(e, 'Unknown') && e.message.endsWith('.spec.template.spec.containers: duplicate entries for key [name="a"]'),
  );
});

test('status subresource: status writes are owned with subresource, spec is reset', () => {
  const crdSchema: JSONSchemaProps = {
    type: 'object',
    properties: { spec: { type: 'object', properties: { a: { type: 'string' } } }, status: { type: 'object', properties: { ready: { type: 'boolean' } } } },
  };
  const o = { apiVersion: 'example.com/v1', kind: 'W', metadata: { name: 'w', namespace: 'default' }, spec: { a: 'x' } };
  const created = ok(serverSideApply(undefined, o, { manager: 'kubectl', force: false, schema: crdSchema, apiVersion: 'example.com/v1', now: T1, resetFields: ['status'] }));
  const st = trackUpdate(stored(created), { ...created, status: { ready: true } }, { manager: 'ctrl', schema: crdSchema, apiVersion: 'example.com/v1', now: T2, subresource: 'status' }) as Obj;
  assert.deepEqual(
    mf(st).map((e) => [e.manager, e.operation, e.subresource ?? '', e.fieldsV1]),
    [
      ['kubectl', 'Apply', '', { 'f:spec': { 'f:a': {} } }],
      ['ctrl', 'Update', 'status', { 'f:status': { '.': {}, 'f:ready': {} } }],
    ],
  );
});

test('more than ten Update managers: the oldest merge into ancient-changes', () => {
  let o: Obj = trackUpdate(undefined, cm({ k0: '0' }), { manager: 'm0', schema: cmSchema, apiVersion: 'v1', now: '2024-01-01T00:00:00Z' }) as Obj;
  for (let i = 1; i <= 11; i++) {
    o = trackUpdate(stored(o), { ...o, data: { ...o.data, [`k${i}`]: String(i) } }, { manager: `m${i}`, schema: cmSchema, apiVersion: 'v1', now: `2024-01-01T00:00:${String(i).padStart(2, '0')}Z` }) as Obj;
  }
  const names = mf(o).map((e) => e.manager);
  assert.equal(names.length, 10);
  assert.ok(names.includes('ancient-changes'));
  assert.ok(!names.includes('m0') && !names.includes('m1'));
});

test('kubectl server-side apply keeps an existing last-applied annotation in sync', () => {
  const ann = 'kubectl.kubernetes.io/last-applied-configuration';
  const live = ok(apply(undefined, cm({ key: 'v' }, { annotations: { [ann]: '{}' } }), 'kubectl'));
  const out = ok(apply(stored(live), cm({ key: 'w' }, { annotations: { [ann]: '{}' } }), 'kubectl'));
  assert.equal(out.metadata.annotations[ann], '{"apiVersion":"v1","data":{"key":"w"},"kind":"ConfigMap","metadata":{"annotations":{},"name":"c","namespace":"default"}}\n');
});

test('inputs are never mutated', () => {
  const ann = 'kubectl.kubernetes.io/last-applied-configuration';
  const live = stored(ok(apply(undefined, cm({ key: 'v' }, { annotations: { [ann]: '{}' } }), 'kubectl')));
  const snapshot = structuredClone(live);
  const applied = cm({ key: 'v' }, { annotations: { [ann]: '{}' } });
  const appliedSnapshot = structuredClone(applied);
  ok(apply(live, applied, 'kubectl'));
  trackUpdate(live, { ...live, data: { key: 'x' } }, { manager: 'm', schema: cmSchema, apiVersion: 'v1', now: T1 });
  assert.deepEqual(live, snapshot);
  assert.deepEqual(applied, appliedSnapshot);
});

test('update tracking of built-ins compares typed values: by-value structs are never "added"', () => {
  const d = {
    apiVersion: 'apps/v1',
    kind: 'Deployment',
    metadata: { name: 'nginx', namespace: 'default' },
    spec: {
      replicas: 1,
      selector: { matchLabels: { app: 'nginx' } },
      strategy: { type: 'RollingUpdate', rollingUpdate: { maxSurge: '25%' } },
      template: { metadata: { labels: { app: 'nginx' } }, spec: { containers: [{ name: 'nginx', image: 'nginx' }] } },
    },
  };
  const out = trackUpdate(undefined, d, { manager: 'kubectl-create', schema: depSchema, apiVersion: 'apps/v1', now: T1 }) as Obj;
  assert.deepEqual(mf(out)[0].fieldsV1, {
    'f:spec': {
      'f:replicas': {},
      'f:selector': {},
      'f:strategy': { 'f:rollingUpdate': { '.': {}, 'f:maxSurge': {} }, 'f:type': {} },
      'f:template': {
        'f:metadata': { 'f:labels': { '.': {}, 'f:app': {} } },
        'f:spec': { 'f:containers': { 'k:{"name":"nginx"}': { '.': {}, 'f:image': {}, 'f:name': {} } } },
      },
    },
  });
  assert.equal(out.status, undefined, 'the returned object is not padded');
});

test('kubectl server-side apply after client-side apply takes over unchanged last-applied fields', () => {
  const ann = 'kubectl.kubernetes.io/last-applied-configuration';
  const csa = (data: Record<string, string>) => {
    const o = cm(data);
    return cm(data, { annotations: { [ann]: JSON.stringify(o) } });
  };
  const created = stored(trackUpdate(undefined, csa({ key: 'v' }), { manager: 'kubectl-client-side-apply', schema: cmSchema, apiVersion: 'v1', now: T1 }) as Obj);
  const other = apply(created, cm({ key: 'w' }), 'someone');
  assert.equal(other.ok, false);
  if (!other.ok) assert.equal(other.message, 'Apply failed with 1 conflict: conflict with "kubectl-client-side-apply" using v1: .data.key');
  const migrated = ok(apply(created, cm({ key: 'w' }), 'kubectl'));
  assert.equal(migrated.data.key, 'w');
  assert.deepEqual(mf(migrated).find((e) => e.manager === 'kubectl')!.fieldsV1, { 'f:data': { 'f:key': {} } });
  // Once the live value drifted from the annotation (an edit), the takeover is a conflict again.
  const edited = stored(trackUpdate(created, { ...created, data: { key: 'edited' } }, { manager: 'kubectl-client-side-apply', schema: cmSchema, apiVersion: 'v1', now: T2 }) as Obj);
  assert.equal(apply(edited, cm({ key: 'w' }), 'kubectl').ok, false);
});

test('decoded field sets are shared between objects and kept when unchanged: results are the same as without', () => {
  // Two managers on one object, then the same again on a copy whose FieldsV1 are other objects of equal content.
  const first = stored(ok(apply(undefined, cm({ a: '1' }, { labels: { x: 'y' } }), 'one')));
  const second = stored(ok(apply(first, cm({ b: '2' }), 'two')));
  const copy = structuredClone(second);
  const again = ok(apply(second, cm({ b: '2', c: '3' }), 'two', false, cmSchema, T2));
  const againCopy = ok(apply(copy, cm({ b: '2', c: '3' }), 'two', false, cmSchema, T2));
  assert.deepEqual(again, againCopy);
  // The entry of the manager that did not write keeps its FieldsV1 as they were; the result is otherwise a fresh tree.
  assert.deepEqual(mf(again)[0].fieldsV1, { 'f:data': { 'f:a': {} }, 'f:metadata': { 'f:labels': { 'f:x': {} } } });
  assert.equal(mf(again)[0].fieldsV1, mf(second)[0].fieldsV1);
  assert.deepEqual(mf(again)[1].fieldsV1, { 'f:data': { 'f:b': {}, 'f:c': {} } });
  assert.notEqual(again.data, second.data);
  assert.notEqual(again.metadata.labels, second.metadata.labels);
  // Re-applying the same fields keeps them (only the time moves when something changed).
  const same = ok(apply(stored(again), cm({ b: '2', c: '4' }), 'two', false, cmSchema, '2024-05-01T10:01:00Z'));
  assert.deepEqual(mf(same)[1], { ...mf(again)[1], time: '2024-05-01T10:01:00Z' });
  // An update by a third manager moves c to it, on both objects alike.
  const updated = trackUpdate(stored(same), { ...stored(same), data: { ...same.data, c: '5' } }, { manager: 'three', schema: cmSchema, apiVersion: 'v1', now: T2 }) as Obj;
  const updatedCopy = trackUpdate(structuredClone(stored(same)), { ...structuredClone(stored(same)), data: { ...same.data, c: '5' } }, { manager: 'three', schema: cmSchema, apiVersion: 'v1', now: T2 }) as Obj;
  assert.deepEqual(updated, updatedCopy);
  assert.deepEqual(
    mf(updated).map((e) => [e.manager, e.fieldsV1]),
    [
      ['one', { 'f:data': { 'f:a': {} }, 'f:metadata': { 'f:labels': { 'f:x': {} } } }],
      ['two', { 'f:data': { 'f:b': {} } }],
      ['three', { 'f:data': { 'f:c': {} } }],
    ],
  );
});

test('pruning by a status applier: only status fields it stopped applying go, everything else stays as it was', () => {
  const crdSchema: JSONSchemaProps = {
    type: 'object',
    properties: {
      spec: { type: 'object', properties: { a: { type: 'string' }, b: { type: 'string' } } },
      status: {
        type: 'object',
        properties: {
          phase: { type: 'string' },
          note: { type: 'string' },
          extra: { type: 'object', properties: {} , additionalProperties: { type: 'string' } },
          items: { type: 'array', 'x-kubernetes-list-type': 'map', 'x-kubernetes-list-map-keys': ['name'], items: { type: 'object', properties: { name: { type: 'string' }, v: { type: 'string' } } } },
        },
      },
    },
  };
  const av = 'example.com/v1';
  const sa = (live: Obj | undefined, applied: Obj, manager: string, subresource?: string, now = T1) =>
    ok(serverSideApply(live, applied, { manager, force: true, schema: crdSchema, apiVersion: av, now, subresource }));
  const meta = { name: 'w', namespace: 'default' };
  let o = stored(sa(undefined, { apiVersion: av, kind: 'W', metadata: { ...meta, labels: { l: '1' } }, spec: { a: 'x', b: 'y' } }, 'owner'));
  // Another controller writes a status field the applier never applies (an Update, tracked), and one nobody owns.
  o = stored({ ...o, status: { note: 'by-other', extra: { k: 'v' } } });
  o = stored(sa(o, { apiVersion: av, kind: 'W', metadata: meta, status: { phase: 'A', items: [{ name: 'i1', v: '1' }, { name: 'i2', v: '2' }] } }, 'ctrl', 'status'));
  const before = structuredClone(o);
  // The status applier drops phase and item i2: those go; spec, metadata, the unowned note and extra stay.
  const out = sa(o, { apiVersion: av, kind: 'W', metadata: meta, status: { items: [{ name: 'i1', v: '1' }] } }, 'ctrl', 'status', T2);
  assert.deepEqual(out.spec, before.spec);
  assert.deepEqual(out.metadata.labels, { l: '1' });
  assert.deepEqual(out.status, { note: 'by-other', extra: { k: 'v' }, items: [{ name: 'i1', v: '1' }] });
  assert.deepEqual(Object.keys(out), Object.keys(before));
  // The main-resource applier drops spec.b and its label: they go, status stays as it was.
  const out2 = sa(stored(out), { apiVersion: av, kind: 'W', metadata: meta, spec: { a: 'x' } }, 'owner', undefined, T2);
  assert.deepEqual(out2.spec, { a: 'x' });
  assert.equal(out2.metadata.labels, undefined);
  assert.deepEqual(out2.status, out.status);
});

test('objects created with the same fields share one FieldsV1 encoding, equal to what each would get alone', () => {
  const a = trackUpdate(undefined, cm({ x: '1', y: '2' }, { name: 'a' }), { manager: 'm', schema: cmSchema, apiVersion: 'v1', now: T1 }) as Obj;
  const b = trackUpdate(undefined, cm({ x: '3', y: '4' }, { name: 'b' }), { manager: 'm', schema: cmSchema, apiVersion: 'v1', now: T1 }) as Obj;
  const c = trackUpdate(undefined, cm({ x: '5', z: '6' }, { name: 'c' }), { manager: 'm', schema: cmSchema, apiVersion: 'v1', now: T1 }) as Obj;
  assert.deepEqual(mf(a)[0].fieldsV1, { 'f:data': { '.': {}, 'f:x': {}, 'f:y': {} } });
  assert.equal(mf(b)[0].fieldsV1, mf(a)[0].fieldsV1);
  assert.deepEqual(mf(c)[0].fieldsV1, { 'f:data': { '.': {}, 'f:x': {}, 'f:z': {} } });
});

test('apply: stored members of the live object found valid are not walked again; invalid ones fail every time', () => {
  const skipped = () => TYPED_STATS.validMembersSkipped;
  const data = { a: '1', b: '2' };
  const s0 = skipped();
  const first = ok(apply(stored(cm(data)), cm({ c: '3' }), 'one'));
  assert.equal(skipped(), s0);
  // The next apply reads a stored version holding the same data value: not walked again, same result.
  const live = stored({ ...cm(data), metadata: { ...first.metadata } });
  const second = ok(apply(live, cm({ c: '3' }), 'one'));
  assert.equal(skipped(), s0 + 1);
  assert.deepEqual(second.data, { a: '1', b: '2', c: '3' });
  // A live member that is not valid (a number in a map of strings) fails each time, never remembered.
  const badData = { a: 1 } as unknown as Record<string, string>;
  for (let i = 0; i < 2; i++) {
    assert.throws(
      () => apply(stored(cm(badData)), cm({ c: '3' }), 'one'),
      (e: unknown) => isPatchError(e) && /failed to create typed live object/.test((e as Error).message) && /expected string/.test((e as Error).message),
    );
  }
  assert.equal(skipped(), s0 + 1);
});
