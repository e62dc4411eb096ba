// The cache's update filters: which updates a controller may skip (status only; finalizers only, or its own one added).
import { strict as assert } from 'node:assert';
import { test } from 'node:test';
import { onlyFinalizersChanged, onlyStatusChanged } from './index.js';

const obj = (meta: Record<string, unknown>) => ({ metadata: { generation: 1, labels: { a: 'b' }, finalizers: ['x'], ...meta } });

test('onlyStatusChanged and onlyFinalizersChanged', () => {
  const base = obj({});
  assert.equal(onlyStatusChanged(base, obj({})), true);
  assert.equal(onlyStatusChanged(base, obj({ finalizers: ['x', 'mine'] })), false);
  // Any finalizer change, none other.
  assert.equal(onlyFinalizersChanged(base, obj({ finalizers: ['x', 'mine'] })), true);
  assert.equal(onlyFinalizersChanged(base, obj({ finalizers: [] })), true);
  assert.equal(onlyFinalizersChanged(base, obj({ generation: 2, finalizers: ['x', 'mine'] })), false, 'spec changed too');
  assert.equal(onlyFinalizersChanged(base, obj({ labels: { a: 'c' } })), false, 'labels changed');
  assert.equal(onlyFinalizersChanged(base, obj({ deletionTimestamp: '2026-01-01T00:00:00Z' })), false, 'being deleted');
  assert.equal(onlyFinalizersChanged({ metadata: {} }, { metadata: {} }), false, 'no generation: never');
  // Only the named one added.
  assert.equal(onlyFinalizersChanged(base, obj({ finalizers: ['x', 'mine'] }), 'mine'), true);
  assert.equal(onlyFinalizersChanged(base, obj({ finalizers: ['mine'] }), 'mine'), false, 'another one removed');
  assert.equal(onlyFinalizersChanged(base, obj({ finalizers: ['x', 'other'] }), 'mine'), false, 'another one added');
  assert.equal(onlyFinalizersChanged(obj({ finalizers: ['x', 'mine'] }), obj({ finalizers: ['x'] }), 'mine'), false, 'ours removed');
  assert.equal(onlyFinalizersChanged(base, obj({}), 'mine'), false, 'nothing added');
});
