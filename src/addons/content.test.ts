// content.test.ts: ConfigMap/Secret data → objects, as addon-controller's CustomSplit reads it.
import { strict as assert } from 'node:assert';
import { test } from 'node:test';
import { decodeSecretData, splitPolicyText } from './content.js';

const ns = (name: string) => `apiVersion: v1\nkind: Namespace\nmetadata:\n  name: ${name}\n`;

test('several documents, comments and empty documents', () => {
  const r = splitPolicyText(`# header\n---\n${ns('a')}---\n# nothing here\n---\n\n---\n${ns('b')}`);
  assert.ok(r.ok);
  assert.deepEqual(r.objects.map((o) => o.metadata.name), ['a', 'b']);
});

test('a YAML list of strings holds one object per string', () => {
  const r = splitPolicyText(`- |\n  ${ns('a').trimEnd().replace(/\n/g, '\n  ')}\n- |\n  ${ns('b').trimEnd().replace(/\n/g, '\n  ')}\n`);
  assert.ok(r.ok, JSON.stringify(r));
  assert.deepEqual(r.objects.map((o) => o.metadata.name), ['a', 'b']);
});

test('JSON and YAML 1.1 scalars decode like sigs.k8s.io/yaml', () => {
  const r = splitPolicyText('{"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "j"}, "data": {"x": "1"}}');
  assert.ok(r.ok && r.objects[0].metadata.name === 'j');
  const y = splitPolicyText('apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: yy\ndata:\n  on: yes\n  num: 010\n');
  assert.ok(y.ok);
  // yaml.v2: `on`/`yes` are booleans (the key becomes "true"), 010 is octal 8.
  assert.equal(JSON.stringify(y.objects[0].data), '{"true":true,"num":8}');
});

test('nothing but comments deploys nothing', () => {
  assert.deepEqual(splitPolicyText('# only\n\n   # comments\n'), { ok: true, objects: [] });
  assert.deepEqual(splitPolicyText(''), { ok: true, objects: [] });
});

test('broken input is reported with what is wrong', () => {
  const bad = splitPolicyText('apiVersion: v1\nkind: [\n');
  assert.ok(!bad.ok && /invalid YAML at line \d+/.test(bad.message), JSON.stringify(bad));
  const noKind = splitPolicyText('apiVersion: v1\nmetadata:\n  name: x\n');
  assert.deepEqual(noKind, { ok: false, message: "Object 'Kind' is missing" });
  const noName = splitPolicyText(`${ns('a')}---\napiVersion: v1\nkind: Namespace\nmetadata: {}\n`);
  assert.deepEqual(noName, { ok: false, message: 'object 2: Namespace: metadata.name is missing' });
  const boolName = splitPolicyText('apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: y\n');
  assert.ok(!boolName.ok && /metadata.name must be a string, got true/.test(boolName.message));
  const list = splitPolicyText('- a: 1\n- b: 2\n');
  assert.ok(!list.ok && /got a list/.test(list.message));
  const scalar = splitPolicyText('just text');
  assert.ok(!scalar.ok && /got a string/.test(scalar.message));
});

test('Secret data is base64 text', () => {
  assert.deepEqual(decodeSecretData({ a: Buffer.from(ns('s')).toString('base64') }), { ok: true, data: { a: ns('s') } });
  assert.deepEqual(decodeSecretData({ a: '***' }), { ok: false, message: 'key a: data is not base64' });
  assert.deepEqual(decodeSecretData(undefined), { ok: true, data: {} });
});
