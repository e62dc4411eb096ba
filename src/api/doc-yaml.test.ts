import { strict as assert } from 'node:assert';
import { test } from 'node:test';
import { extractYamlBlocks, recoverYaml } from './doc-yaml.js';

const generic = () => ['apiVersion', 'kind', 'metadata', 'spec', 'status', 'data'];
const recover = (raw: string, reference?: string[]) => recoverYaml(raw, { topLevelFields: generic, reference, referenceName: 'the reference' });

test('extractYamlBlocks: Markdown fences (yaml, untagged, indented in admonitions); shell is not YAML', () => {
  const md = ['# T', '```yaml', 'a: 1', '```', '```bash', 'ls', '```', '!!! example', '    ```', '    b: 2', '    ```'].join('\n');
  const blocks = extractYamlBlocks(md);
  assert.deepEqual(blocks.map((b) => [b.index, b.line, b.info, b.raw]), [
    [1, 3, 'yaml', 'a: 1'],
    [2, 10, '', '    b: 2'],
  ]);
});

test('extractYamlBlocks: flat text runs from apiVersion: to the next prose line; folded scalars may hold prose', () => {
  const flat = [
    'Some introduction text that is prose.',
    'apiVersion: v1',
    'kind: ConfigMap',
    'metadata:',
    'annotations:',
    'description: >-',
    'This long description is folded text inside the example.',
    'name: x',
    'data:',
    'script: |',
    'function evaluate()',
    'return hs',
    'end',
    'In general, this sentence is prose again.',
  ].join('\n');
  const blocks = extractYamlBlocks(flat);
  assert.equal(blocks.length, 1);
  assert.equal(blocks[0].line, 2);
  assert.equal(blocks[0].raw.split('\n').at(-1), 'end');
});

test('recoverYaml: admonition indentation and heredoc wrapper', () => {
  const r = recover('    cat > x.yaml <<EOF\n    apiVersion: v1\n    kind: ConfigMap\n    metadata:\n      name: a\n    EOF');
  assert.ok(r.ok);
  assert.equal(r.text, 'apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: a\n');
  assert.equal(r.steps.length, 2);
});

test('recoverYaml: metadata/spec content that lost one level goes back under its parent', () => {
  const r = recover('apiVersion: v1\nkind: X\nmetadata:\nname: a\nspec:\nreplicas: 1\nitems:\n- a: 1\n  b: 2\n');
  assert.ok(r.ok);
  assert.equal(r.text, 'apiVersion: v1\nkind: X\nmetadata:\n  name: a\nspec:\n  replicas: 1\n  items:\n  - a: 1\n    b: 2\n');
  assert.match(r.steps[0], /re-indented metadata\.name, spec\.replicas, spec\.items/);
});

test('recoverYaml: elisions, missing separators, indented body, over-indented siblings', () => {
  const el = recover('apiVersion: v1\nkind: Service\nmetadata:\n  name: a\n  ...\nspec:\n  ...\n');
  assert.ok(el.ok);
  assert.equal(el.text, 'apiVersion: v1\nkind: Service\nmetadata:\n  name: a\nspec:\n');
  const sep = recover('apiVersion: v1\nkind: A\nmetadata:\n name: a\napiVersion: v1\nkind: B\nmetadata:\n name: b\n');
  assert.ok(sep.ok);
  assert.match(sep.text, /name: a\n---\napiVersion: v1\nkind: B/);
  const body = recover('apiVersion: v1\n  kind: R\n  metadata:\n    name: r\n');
  assert.ok(body.ok);
  assert.equal(body.text, 'apiVersion: v1\nkind: R\nmetadata:\n  name: r\n');
  const over = recover('apiVersion: v1\nkind: S\nmetadata:\n  name: s\nspec:\n  ports:\n  - name: a\n      port: 1\n      protocol: TCP\n');
  assert.ok(over.ok);
  assert.match(over.text, /  - name: a\n    port: 1\n    protocol: TCP\n/);
  // Valid YAML is left alone.
  const fine = recover('apiVersion: v1\nkind: S\nmetadata:\n  name: s\n');
  assert.deepEqual(fine.ok && fine.steps, []);
});

test('recoverYaml: flattened blocks take indentation from the reference, line for line', () => {
  const reference = ['apiVersion: v1\nkind: X\nmetadata:\n  name: a\nspec:\n  clusterSelector: env=fv\n  list:\n  - k: v\n    w: z\n'];
  const r = recover('apiVersion: v1\nkind: X\nmetadata:\nname: a\nspec:\nsourceClusterSelector: env=fv\nlist:\n- k: v\nw: z', reference);
  assert.ok(r.ok, r.ok ? '' : r.reason);
  assert.equal(r.text, 'apiVersion: v1\nkind: X\nmetadata:\n  name: a\nspec:\n  sourceClusterSelector: env=fv\n  list:\n  - k: v\n    w: z\n');
  assert.match(r.steps.join('\n'), /1 differing line took the indentation of the line it replaces/);
  const inserted = recover('apiVersion: v1\nkind: X\nmetadata:\nname: a\nextra: 1\nmore: 2\nspec:\nlist:\n- k: v\nw: z', reference);
  assert.equal(inserted.ok, false);
  assert.match(inserted.ok ? '' : inserted.reason, /differs from the reference around "extra: 1"/);
  const none = recover('apiVersion: v1\nkind: X\nmetadata:\nname: a\nspec:\nx: 1');
  assert.equal(none.ok, false);
  assert.match(none.ok ? '' : none.reason, /indentation lost entirely/);
});

test('recoverYaml: reports YAML that stays broken', () => {
  const r = recover('a: [1, 2\nb: 3\n');
  assert.equal(r.ok, false);
  assert.match(r.ok ? '' : r.reason, /not valid YAML after recovery/);
});
