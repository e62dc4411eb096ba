// content.test.ts: ConfigMap/Secret data → objects, as addon-controller's CustomSplit reads it.
import { strict as assert } from 'node:assert';
import { test } from 'node:test';
import { decodeSecretData, splitByDocumentForTests, splitPolicyText } from './content.js';

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

test('one parse of the stream gives what parsing document by document gives', () => {
  const texts = [
    `${ns('a')}---\n${ns('b')}`,
    '%YAML 1.1\n---\n' + ns('directive'),
    'base: &b\n  apiVersion: v1\n  kind: Namespace\n---\napiVersion: v1\nkind: ConfigMap\nmetadata: {name: m, labels: &l {x: "1"}}\ndata: {<<: *l, y: 0x1F, t: 2001-12-14t21:59:43.10-05:00, f: 1e3, e: e1, k: ~}\n',
    'apiVersion: v1\nkind: ConfigMap\nmetadata: &m\n  name: m2\ndata: {<<: [{a: "1"}, {b: "2"}], c: "3"}\n',
    // An alias to another document's anchor: YAML anchors are per document, so neither reading resolves it.
    'apiVersion: v1\nkind: ConfigMap\nmetadata: &m\n  name: m3\n---\nkind: ConfigMap\napiVersion: v1\nmetadata: *m\n',
    'apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: dup\ndata:\n  a: "1"\n  a: "2"\n',
    `- |\n  ${ns('s').trimEnd().replace(/\n/g, '\n  ')}\n- |\n  not: [valid\n`,
    `- |\n  ${ns('s').trimEnd().replace(/\n/g, '\n  ')}\n`,
    '---\n---\n' + ns('after-empty') + '...\n',
    'replicaCount: 2\n',
    'a: .nan\n',
    `${ns('x')}---\nkind: [\n`,
    'a: b: c\n',
    'apiVersion: v1\nkind: ConfigMap\nmetadata: {name: 1}\n',
  ];
  for (const text of texts) assert.deepEqual(splitPolicyText(text), splitByDocumentForTests(text), text);
  const dup = splitPolicyText(texts.find((t) => t.includes('name: dup'))!);
  assert.ok(dup.ok && (dup.objects[0].data as Record<string, string>).a === '2', 'the last of repeated keys wins, as in yaml.v2');
  const merged = splitPolicyText(texts.find((t) => t.includes('name: m2'))!);
  assert.ok(merged.ok, JSON.stringify(merged));
  assert.deepEqual({ ...(merged.objects[0].data as object) }, { a: '1', b: '2', c: '3' });
});

test('what is not YAML says so (invalidYAML); YAML that is not objects does not', () => {
  for (const bad of ['a: [1, 2\n', 'a: b: c\n', 'x: 1\n---\nkind: [\n', 'a: .nan\n']) {
    const r = splitPolicyText(bad);
    assert.ok(!r.ok && r.invalidYAML === true, `${bad}: ${JSON.stringify(r)}`);
  }
  const values = splitPolicyText('replicaCount: 2\nimage:\n  tag: v1\n');
  assert.ok(!values.ok && values.invalidYAML === undefined, JSON.stringify(values));
});
