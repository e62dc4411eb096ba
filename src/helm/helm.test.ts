// helm.test.ts: the pure helm component — --set parsing, coalescing and globals, dependencies, the render API the
// deployer uses (lookup port, notes, hooks, CRDs), schema texts, .helmignore and .Files.Glob patterns, archives.
// Byte-for-byte conformance with Helm is pinned by the goldens in src/cli/commands/helm.test.ts.
import { strict as assert } from 'node:assert';
import { test } from 'node:test';
import type { GoMap, GoValue } from '../gotemplate/index.js';
import {
  archiveFiles,
  formatTemplateOutput,
  HelmError,
  IgnoreRules,
  loadChartArchive,
  loadChartFiles,
  mergeUserValues,
  packageChart,
  parseSetInto,
  readTarGz,
  renderChart,
  StrvalsError,
  writeTarGz,
  type ChartFile,
} from './index.js';
import { compileGlob } from './match.js';
import { validateAgainstSingleSchema } from './schema.js';

const enc = new TextEncoder();
const files = (m: Record<string, string>): ChartFile[] => Object.entries(m).map(([name, text]) => ({ name, data: enc.encode(text) }));
const release = { name: 'rel', namespace: 'ns', revision: 1, isInstall: true, isUpgrade: false };
const plain = (v: GoValue): unknown => JSON.parse(JSON.stringify(v, (_k, x) => (typeof x === 'bigint' ? `${x}n` : x)));

test('--set: Helm types (int64, bool, null), lists, indexes, escapes; --set-string keeps strings', () => {
  const m = Object.create(null) as GoMap;
  parseSetInto('a=1,b=true,c=null,d=007,e={x,2},f.g[1]=h,i\\.j=k,l=9223372036854775808', m);
  assert.deepEqual(plain(m), { a: '1n', b: true, c: null, d: '007', e: ['x', '2n'], f: { g: [null, 'h'] }, 'i.j': 'k', l: '9223372036854775808' });
  const s = Object.create(null) as GoMap;
  parseSetInto('a=1,b=true', s, true);
  assert.deepEqual(plain(s), { a: '1', b: 'true' });
  assert.throws(() => parseSetInto('novalue', Object.create(null) as GoMap), (e: unknown) => e instanceof StrvalsError && e.message === 'key "novalue" has no value');
  assert.throws(() => mergeUserValues([], ['a=1,b']), (e: unknown) => e instanceof HelmError && e.message === 'failed parsing --set data: key "b" has no value');
});

const parentAndSub = files({
  'Chart.yaml': 'apiVersion: v2\nname: parent\nversion: 1.0.0\ndependencies:\n  - name: sub\n    version: 1.0.0\n    condition: sub.enabled\n',
  'values.yaml': 'global:\n  g: parent\nkeep: 1\ndrop: 2\nsub:\n  enabled: true\n  x: from-parent\n',
  'templates/cm.yaml': 'apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: {{ .Release.Name }}\ndata:\n  found: {{ with (lookup "v1" "Secret" .Release.Namespace "s").data }}{{ .k | quote }}{{ else }}"none"{{ end }}\n',
  'templates/hook.yaml':
    'apiVersion: batch/v1\nkind: Job\nmetadata:\n  name: j\n  annotations:\n    helm.sh/hook: pre-install,post-upgrade\n    helm.sh/hook-weight: "-3"\n    helm.sh/hook-delete-policy: before-hook-creation\n',
  'templates/NOTES.txt': 'Installed {{ .Release.Name }} in {{ .Release.Namespace }}.',
  'crds/c.yaml': 'kind: CustomResourceDefinition\n# {{ not templated }}\n',
  'charts/sub/Chart.yaml': 'apiVersion: v2\nname: sub\nversion: 1.0.0\n',
  'charts/sub/values.yaml': 'x: default\nz: sub-default\ny: yaml-1.1-makes-this-key-true\nglobal:\n  g: sub\n',
  'charts/sub/templates/cm.yaml': 'apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: sub\ndata:\n  x: {{ .Values.x }}\n  z: {{ .Values.z }}\n  y: {{ .Values.y }}/{{ index .Values "true" }}\n  g: {{ .Values.global.g }}\n',
});

test('renderChart: values coalesced with globals, lookup through the port, notes, hooks and CRDs separated', () => {
  const chart = loadChartFiles(parentAndSub);
  const seen: string[] = [];
  const r = renderChart(chart, {
    values: mergeUserValues([{ name: 'u.yaml', text: 'drop: null\n' }]),
    release,
    lookup: (apiVersion, kind, namespace, name) => {
      seen.push([apiVersion, kind, namespace, name].join('/'));
      return { data: { k: 'from-cluster' } } as unknown as GoMap;
    },
  });
  assert.deepEqual(seen, ['v1/Secret/ns/s']);
  assert.deepEqual(
    r.manifests.map((m) => [m.name, m.head.kind]),
    [
      ['parent/charts/sub/templates/cm.yaml', 'ConfigMap'],
      ['parent/templates/cm.yaml', 'ConfigMap'],
    ],
  );
  assert.match(r.manifests[0].content, /x: from-parent\n {2}z: sub-default\n {2}y: \/yaml-1.1-makes-this-key-true\n {2}g: parent/);
  assert.match(r.manifests[1].content, /found: "from-cluster"/);
  assert.equal(r.notes, 'Installed rel in ns.');
  assert.deepEqual(r.hooks.map((h) => [h.name, h.events, h.weight, h.deletePolicies]), [['j', ['pre-install', 'post-upgrade'], -3, ['before-hook-creation']]]);
  assert.deepEqual(r.crds, [{ filename: 'parent/crds/c.yaml', content: 'kind: CustomResourceDefinition\n# {{ not templated }}\n' }]);
  assert.equal('drop' in r.values, false, 'a null user value deletes the key');
  assert.equal(r.values.keep, 1);
  // The loaded chart is not modified by rendering: it can be rendered again with other values.
  const again = renderChart(chart, { values: mergeUserValues([], ['sub.enabled=false']), release });
  assert.deepEqual(again.manifests.map((m) => m.name), ['parent/templates/cm.yaml']);
  assert.match(again.manifests[0].content, /found: "none"/, 'without a port, lookup returns an empty map');
  assert.match(formatTemplateOutput(again, { includeCrds: true }), /^---\n# Source: parent\/crds\/c.yaml\n/);
});

test('renderChart errors carry Helm texts: required, schema, missing dependency, library chart', () => {
  const req = loadChartFiles(files({ 'Chart.yaml': 'apiVersion: v2\nname: c\nversion: 1.0.0\n', 'templates/a.yaml': 'x: {{ required "x is required" .Values.x }}\n' }));
  assert.throws(
    () => renderChart(req, { release }),
    (e: unknown) => e instanceof HelmError && e.rendered && e.message === 'execution error at (c/templates/a.yaml:1:6): x is required',
  );
  const lib = loadChartFiles(files({ 'Chart.yaml': 'apiVersion: v2\nname: l\nversion: 1.0.0\ntype: library\n' }));
  assert.throws(() => renderChart(lib, { release }), /library charts are not installable/);
  const missing = loadChartFiles(files({ 'Chart.yaml': 'apiVersion: v2\nname: m\nversion: 1.0.0\ndependencies:\n  - name: gone\n' }));
  assert.throws(() => renderChart(missing, { release }), /missing in charts\/ directory: gone/);
  assert.throws(() => loadChartFiles(files({ 'values.yaml': 'a: 1\n' })), /Chart.yaml file is missing/);
});

test('schema errors read like gojsonschema', () => {
  const schema = JSON.stringify({
    type: 'object',
    required: ['name'],
    additionalProperties: false,
    properties: { name: { type: 'string' }, n: { type: 'integer', minimum: 2 }, e: { enum: ['a', 'b'] } },
  });
  const v = (o: Record<string, unknown>) => validateAgainstSingleSchema(Object.assign(Object.create(null) as GoMap, o) as GoMap, schema);
  assert.equal(v({ name: 'x', n: 3 }), '');
  assert.equal(v({ n: 1.5 }), '- (root): name is required\n- n: Invalid type. Expected: integer, given: number\n');
  assert.equal(v({ name: 'x', n: 1 }), '- n: Must be greater than or equal to 2\n');
  assert.equal(v({ name: 'x', e: 'c' }), '- e: e must be one of the following: "a", "b"\n');
  assert.equal(v({ name: 'x', z: 1 }), '- (root): Additional property z is not allowed\n');
});

test('.helmignore keeps Helm quirks; .Files.Glob follows gobwas/glob', () => {
  const r = IgnoreRules.parse('*.bak\n/top.txt\ndocs/\n').addDefaults();
  assert.equal(r.ignores('a/b.bak', false), true);
  assert.equal(r.ignores('top.txt', false), true);
  assert.equal(r.ignores('sub/top.txt', false), false);
  assert.equal(r.ignores('docs', true), true);
  assert.equal(r.ignores('templates/.hidden.yaml', false), true);
  const neg = IgnoreRules.parse('!keep.txt\n');
  assert.equal(neg.ignores('Chart.yaml', false), true, 'a negated rule ignores every path it does not match');
  assert.equal(compileGlob('files/*.conf')!.test('files/a.conf'), true);
  assert.equal(compileGlob('files/*.conf')!.test('files/x/a.conf'), false);
  assert.equal(compileGlob('files/**.{txt,json}')!.test('files/x/a.json'), true);
  assert.equal(compileGlob('[!a]*')!.test('b'), true);
  assert.equal(compileGlob('[unclosed'), null);
});

test('archives: tar.gz written and read back; packageChart lays out NAME/… and loads again', () => {
  const entries = [
    { name: 'c/a.txt', data: enc.encode('a') },
    { name: 'c/' + 'd/'.repeat(60) + 'long.txt', data: enc.encode('long') },
  ];
  const back = readTarGz(writeTarGz(entries, 1700000000));
  assert.deepEqual(back.map((e) => [e.name, new TextDecoder().decode(e.data)]), [
    ['c/a.txt', 'a'],
    [entries[1].name, 'long'],
  ]);
  const chart = loadChartFiles(parentAndSub);
  const { filename, bytes } = packageChart(chart, 1700000000);
  assert.equal(filename, 'parent-1.0.0.tgz');
  assert.deepEqual(
    archiveFiles(bytes).map((f) => f.name),
    ['Chart.yaml', 'values.yaml', 'templates/cm.yaml', 'templates/hook.yaml', 'templates/NOTES.txt', 'crds/c.yaml', 'charts/sub/Chart.yaml', 'charts/sub/values.yaml', 'charts/sub/templates/cm.yaml'],
  );
  const loaded = loadChartArchive(bytes);
  const a = formatTemplateOutput(renderChart(chart, { release }));
  const b = formatTemplateOutput(renderChart(loaded, { release }));
  assert.equal(b, a);
});
