// template.test.ts: `ripple template` renders files (JSON or YAML data), reports template errors with exit code 3,
// and answers oracle JSON Lines exactly as the oracle does.
import { strict as assert } from 'node:assert';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { after, test } from 'node:test';
import { runCli } from '../../../test/support/run-cli.js';

const root = resolve(import.meta.dirname, '..', '..', '..');
const dir = mkdtempSync(join(tmpdir(), 'ripple-template-'));
after(() => rmSync(dir, { recursive: true, force: true }));

function file(name: string, text: string): string {
  const p = join(dir, name);
  writeFileSync(p, text);
  return p;
}

test('renders the seed load-balancer template with JSON data', async () => {
  const data = {
    Resource: JSON.parse(readFileSync(join(root, 'testdata/funcs/bench/service.json'), 'utf8')),
    Cluster: JSON.parse(readFileSync(join(root, 'testdata/funcs/bench/cluster.json'), 'utf8')),
  };
  const r = await runCli(['template', join(root, 'testdata/funcs/bench/lb.tmpl'), '--data', file('lb.json', JSON.stringify(data))]);
  assert.equal(r.code, 0, r.stderr);
  assert.match(r.stdout, /^name: "lb-0be1bf5950be71d6686bca19c00cc6f204fcb3f4"\n/);
  assert.match(r.stdout, /ip: 203\.0\.113\.10\n?$/);
});

test('YAML data, int64 numbers and the addon function map', async () => {
  const tmpl = file('addon.tmpl', '{{ (getResource "Cfg").data.replicas }} {{ printf "%T" (getResource "Cfg").data.replicas }}');
  const data = file('mgmt.yaml', 'MgmtResources:\n  Cfg:\n    data:\n      replicas: 3\n');
  const r = await runCli(['template', tmpl, '--data', data, '--funcs', 'sveltos-addon', '--numbers', 'int64']);
  assert.equal(r.code, 0, r.stderr);
  assert.equal(r.stdout, '3 int64');
  const f = await runCli(['template', tmpl, '--data', data, '--funcs', 'sveltos-addon']);
  assert.equal(f.stdout, '3 float64');
});

test('template errors go to stderr with exit code 3; bad flags are usage errors', async () => {
  const bad = await runCli(['template', file('bad.tmpl', 'x: {{ .missing }}'), '--data', file('empty.json', '{}')]);
  assert.equal(bad.code, 3);
  assert.equal(bad.stdout, '');
  assert.match(bad.stderr, /bad\.tmpl:1:6: executing ".*bad\.tmpl" at <\.missing>: map has no entry for key "missing"/);
  const parse = await runCli(['template', file('parse.tmpl', '{{ if }}')]);
  assert.equal(parse.code, 3);
  assert.match(parse.stderr, /missing value for if/);
  const missing = await runCli(['template', join(dir, 'nope.tmpl')]);
  assert.equal(missing.code, 3);
  assert.match(missing.stderr, /nope\.tmpl: no such file/);
  const usage = await runCli(['template', file('x.tmpl', 'x'), '--funcs', 'helm']);
  assert.equal(usage.code, 2);
  assert.match(usage.stderr, /--funcs must be one of sveltos-event, sveltos-addon, sveltos, sprig, none/);
});

test('env is disabled unless asked for; --env provides variables', async () => {
  const tmpl = file('env.tmpl', '{{ env "GREETING" }}');
  const off = await runCli(['template', tmpl]);
  assert.equal(off.code, 3);
  assert.match(off.stderr, /env is disabled: .*FuncOptions\.env.*--env NAME=VALUE or --allow-env/);
  const on = await runCli(['template', tmpl, '--env', 'GREETING=hi']);
  assert.equal(on.stdout, 'hi');
});

test('--jsonl answers exactly like the oracle, bad lines included', async () => {
  const input = readFileSync(join(root, 'testdata/funcs/examples-templates.jsonl'), 'utf8');
  const want = readFileSync(join(root, 'testdata/funcs/examples-templates.expected.jsonl'), 'utf8');
  const r = await runCli(['template', '--jsonl'], input);
  assert.equal(r.code, 0);
  assert.equal(r.stdout, want);
  const odd = await runCli(['template', '--jsonl'], '{"id":"a","template":"{{ 1 }}","bogus":1}\nnot json\n\n{"id":"u","template":"\\u2028<&>"}\n');
  assert.equal(
    odd.stdout,
    '{"id":"a","error":"line 1: invalid case: json: unknown field \\"bogus\\"","stage":"input"}\n' +
      '{"id":"","error":"line 2: invalid case: invalid character \'o\' in literal null (expecting \'u\')","stage":"input"}\n' +
      '{"id":"u","output":"\\u2028<&>"}\n',
  );
});

test('--help prints the usage', async () => {
  const r = await runCli(['template', '--help']);
  assert.equal(r.code, 0);
  assert.match(r.stdout, /ripple template FILE \[--data DATA\.yaml\|DATA\.json\]/);
  assert.match(r.stdout, /--jsonl/);
});
