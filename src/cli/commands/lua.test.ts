// `ripple lua --jsonl` and `ripple test events DIR`, run in-process with captured streams.
import { strict as assert } from 'node:assert';
import { mkdtempSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { test } from 'node:test';
import { runCli } from '../../../test/support/run-cli.js';

const root = resolve(import.meta.dirname, '..', '..', '..');

test('ripple lua --jsonl gives the oracle lines for the seed cases', async () => {
  const input = readFileSync(join(root, 'testdata', 'lua', 'seeds.jsonl'), 'utf8');
  const expected = readFileSync(join(root, 'testdata', 'lua', 'seeds.expected.jsonl'), 'utf8').trim().split('\n');
  const r = await runCli(['lua', '--jsonl'], input);
  assert.equal(r.code, 0, r.stderr);
  const got = r.stdout.trim().split('\n');
  assert.equal(got.length, expected.length);
  // Errors agree on the stage (wording differs; see testdata/lua/DIFFERENCES.md); everything else byte for byte.
  got.forEach((line, i) => {
    const e = JSON.parse(expected[i]) as { error?: string; stage?: string };
    if (e.error) assert.equal((JSON.parse(line) as { stage?: string }).stage, e.stage, line);
    else assert.equal(line, expected[i]);
  });
});

test('ripple lua --jsonl reports bad lines as input errors and keeps going', async () => {
  const r = await runCli(['lua', '--jsonl'], 'not json\n\n{"id":"x","script":"","bogus":1}\n{"id":"y","script":""}\n{"id":"z"}\n');
  assert.equal(r.code, 0);
  const lines = r.stdout.trim().split('\n').map((l) => JSON.parse(l) as Record<string, unknown>);
  assert.deepEqual(lines.map((l) => [l.id, l.stage ?? l.matching]), [['', 'input'], ['x', 'input'], ['y', true], ['z', 'input']]);
  assert.match(String(lines[1].error), /unknown field "bogus"/);
});

test('ripple lua without --jsonl is a usage error with the help text', async () => {
  const r = await runCli(['lua']);
  assert.equal(r.code, 2);
  assert.match(r.stderr, /--jsonl is required/);
  assert.match(r.stderr, /Usage: ripple lua --jsonl/);
  const bad = await runCli(['lua', '--jsonl', '--instructions', 'lots']);
  assert.equal(bad.code, 2);
  assert.match(bad.stderr, /--instructions must be a positive integer/);
});

test('ripple test events passes on testdata/events (sveltos-agent cases and every seed EventSource)', async () => {
  const r = await runCli(['test', 'events', join(root, 'testdata', 'events')]);
  assert.equal(r.code, 0, r.stdout + r.stderr);
  assert.match(r.stdout, /^CASE +RESOURCE +EXPECTED +GOT +RESULT +MESSAGE/);
  for (const c of ['sveltos-agent/service/https', 'sveltos-agent/service/labels', 'seeds/000-loadbalancer-class-handler', 'seeds/004-sveltos-service-labelsfilters', 'features/aggregated-selection']) {
    assert.match(r.stdout, new RegExp(`^${c.replace(/[/.]/g, '\\$&')} `, 'm'), c);
  }
  assert.match(r.stdout, /11 cases, \d+ passed, 0 failed/);
});

test('ripple test events exits 1 on a wrong expectation or a broken case, and shows why', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'ripple-events-'));
  try {
    const es = (name: string, script: string) =>
      `apiVersion: lib.projectsveltos.io/v1beta1\nkind: EventSource\nmetadata:\n  name: ${name}\nspec:\n  resourceSelectors:\n  - group: ""\n    version: v1\n    kind: Service\n    evaluate: |\n${script.split('\n').map((l) => '      ' + l).join('\n')}\n`;
    const svc = (name: string) => `apiVersion: v1\nkind: Service\nmetadata:\n  name: ${name}\n  namespace: default\nspec:\n  ports:\n  - port: 80\n`;
    mkdirSync(join(dir, 'wrong'));
    writeFileSync(join(dir, 'wrong', 'eventsource.yaml'), es('wrong', 'function evaluate()\n  return {matching = true, message = "always"}\nend'));
    writeFileSync(join(dir, 'wrong', 'non-matching.yaml'), svc('a'));
    mkdirSync(join(dir, 'crash'));
    writeFileSync(join(dir, 'crash', 'eventsource.yaml'), es('crash', 'function evaluate()\n  return obj.status.x\nend'));
    writeFileSync(join(dir, 'crash', 'matching.yaml'), svc('b'));
    mkdirSync(join(dir, 'badyaml'));
    writeFileSync(join(dir, 'badyaml', 'eventsource.yaml'), 'kind: [unclosed\n');
    const r = await runCli(['test', 'events', dir, '-o', 'json']);
    assert.equal(r.code, 1);
    const out = JSON.parse(r.stdout) as { failed: number; rows: { case: string; got: string; ok: boolean; message: string }[] };
    assert.equal(out.failed, 3);
    const byCase = Object.fromEntries(out.rows.map((row) => [row.case, row]));
    assert.deepEqual([byCase.wrong.got, byCase.wrong.message], ['match', 'always']);
    assert.equal(byCase.crash.got, 'error');
    assert.match(byCase.crash.message, /evaluate line 2: <string>:2: attempt to index a nil value/);
    assert.match(byCase.badyaml.message, /invalid YAML/);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test('ripple test events on a missing directory exits 3 and says what to give', async () => {
  const r = await runCli(['test', 'events', join(root, 'no-such-dir')]);
  assert.equal(r.code, 3);
  assert.match(r.stderr, /cannot read .*no-such-dir/);
  const usage = await runCli(['test', 'events']);
  assert.equal(usage.code, 2);
});
