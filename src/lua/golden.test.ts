// Golden conformance against gopher-lua: every testdata/lua/*.jsonl case runs through the same path as
// `ripple lua --jsonl` and must give the oracle's line from *.expected.jsonl, except
//  - errors, where the stage and the `<string>:LINE:` position must agree but the wording may differ, and
//  - the deliberate differences pinned in testdata/lua/differences.json (our exact output line, with the reason).
// UPDATE_GOLDEN=1 regenerates the expected files with the oracle (RIPPLE_LUA_ORACLE or ../shared/oracles/bin/lua-oracle)
// and re-pins our output for the listed differences; CI never runs the oracle.
import { strict as assert } from 'node:assert';
import { spawnSync } from 'node:child_process';
import { existsSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { before, test } from 'node:test';
import { createLuaRuntime, formatLuaCaseOutput, runLuaCases, type LuaRuntime } from './index.js';

const root = resolve(import.meta.dirname, '..', '..');
const dir = join(root, 'testdata', 'lua');
const update = process.env.UPDATE_GOLDEN === '1';
const inputs = readdirSync(dir)
  .filter((f) => f.endsWith('.jsonl') && !f.endsWith('.expected.jsonl'))
  .sort();

interface Pinned {
  why: string;
  ours: string;
}
const differencesFile = join(dir, 'differences.json');
const differences = JSON.parse(readFileSync(differencesFile, 'utf8')) as Record<string, Pinned>;

function oraclePath(): string {
  const candidates = [process.env.RIPPLE_LUA_ORACLE, join(root, '..', 'shared', 'oracles', 'bin', 'lua-oracle'), '/work/shared/oracles/bin/lua-oracle'];
  const found = candidates.find((p) => p && existsSync(p));
  if (!found) throw new Error('UPDATE_GOLDEN=1 needs the lua-oracle: set RIPPLE_LUA_ORACLE');
  return found;
}

// position is the script line an error names: `<string>:N:` (runtime, ours and gopher-lua), `<string> line:N(` (gopher-lua
// syntax errors); undefined when the message has none (gopher-lua's "<string> at EOF", errors outside the script).
const position = (s: string) => {
  const m = /^<string>(?::(\d+):| line:(\d+)\()/.exec(s);
  return m ? (m[1] ?? m[2]) : undefined;
};

let runtime: LuaRuntime;
before(async () => {
  runtime = await createLuaRuntime();
});

for (const file of inputs) {
  test(`lua golden ${file}`, () => {
    const input = readFileSync(join(dir, file), 'utf8');
    const expectedFile = join(dir, file.replace(/\.jsonl$/, '.expected.jsonl'));
    if (update) {
      const r = spawnSync(oraclePath(), [], { input, encoding: 'utf8' });
      assert.equal(r.status, 0, `lua-oracle failed: ${r.stderr}`);
      writeFileSync(expectedFile, r.stdout);
    }
    const expected = readFileSync(expectedFile, 'utf8').split('\n').filter((l) => l.trim() !== '');
    const ours = runLuaCases(runtime, input).map(formatLuaCaseOutput);
    assert.equal(ours.length, expected.length, `${file}: number of output lines`);
    const problems: string[] = [];
    ours.forEach((line, i) => {
      const exp = JSON.parse(expected[i]) as { id: string; error?: string; stage?: string };
      const got = JSON.parse(line) as { id: string; error?: string; stage?: string };
      const key = `${file}#${exp.id}`;
      const pinned = differences[key];
      if (pinned) {
        if (update) pinned.ours = line;
        if (line !== pinned.ours) problems.push(`${key}: pinned difference changed\n  pinned: ${pinned.ours}\n  ours:   ${line}`);
        if (line === expected[i]) problems.push(`${key}: now agrees with the oracle; remove it from differences.json`);
        return;
      }
      if (line === expected[i]) return;
      if (exp.error !== undefined && got.error !== undefined && exp.stage === got.stage) {
        const want = position(exp.error);
        if (want === undefined || want === position(got.error)) return;
      }
      problems.push(`${key}:\n  oracle: ${expected[i]}\n  ours:   ${line}`);
    });
    assert.deepEqual(problems, [], problems.join('\n'));
  });
}

test('lua golden: every pinned difference names an existing case', () => {
  const ids = new Set<string>();
  for (const file of inputs) {
    for (const line of readFileSync(join(dir, file), 'utf8').split('\n')) {
      if (line.trim() !== '') ids.add(`${file}#${(JSON.parse(line) as { id: string }).id}`);
    }
  }
  for (const key of Object.keys(differences)) assert.ok(ids.has(key), `differences.json names unknown case ${key}`);
  for (const [key, d] of Object.entries(differences)) assert.ok(d.why.length > 10, `${key}: explain why`);
  if (update) writeFileSync(differencesFile, JSON.stringify(differences, null, 2) + '\n');
});

test('lua golden: at least 150 cases', () => {
  let n = 0;
  for (const file of inputs) n += readFileSync(join(dir, file), 'utf8').split('\n').filter((l) => l.trim() !== '').length;
  assert.ok(n >= 150, `only ${n} cases`);
});
