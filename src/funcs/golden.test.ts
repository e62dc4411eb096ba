// golden.test.ts: every case in testdata/funcs/*.jsonl and testdata/gotemplate/*.jsonl runs through renderCaseLine
// — the code path of `ripple template --jsonl`, with the real Sprig and Sveltos function maps — and must give exactly
// what /work/shared/oracles/bin/gotemplate-oracle gave (the *.expected.jsonl files). Deliberate differences are
// pinned in each folder's differences.json (our exact answer plus the reason) and explained in DIFFERENCES.md.
//
// UPDATE_GOLDEN=1 regenerates testdata/funcs/*.expected.jsonl from the oracle (skipped, with a message, when the
// oracle is absent); testdata/gotemplate belongs to the gotemplate tests, which regenerate it.
import { strict as assert } from 'node:assert';
import { spawnSync } from 'node:child_process';
import { existsSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { test } from 'node:test';
import { renderCaseLine, type CaseResult } from './oracle-case.js';

const root = resolve(import.meta.dirname, '..', '..');
const ORACLE = process.env.GOTEMPLATE_ORACLE ?? '/work/shared/oracles/bin/gotemplate-oracle';
// A fixed clock: time-dependent cases are written to check shapes, so any instant works; a fixed one keeps runs alike.
const clock = { now: () => Date.UTC(2024, 5, 1, 12, 0, 0) };

type Result = { id: string; output?: string; error?: string; stage?: string };

function readLines(path: string): string[] {
  return readFileSync(path, 'utf8')
    .split('\n')
    .filter((l) => l.trim() !== '');
}

function caseFiles(dir: string): string[] {
  return readdirSync(dir)
    .filter((f) => f.endsWith('.jsonl') && !f.endsWith('.expected.jsonl'))
    .sort();
}

const funcsDir = join(root, 'testdata', 'funcs');
if (process.env.UPDATE_GOLDEN === '1') {
  if (!existsSync(ORACLE)) {
    console.log(`UPDATE_GOLDEN=1: oracle ${ORACLE} not found; expected files left as they are (build it with /work/shared/oracles/setup.sh)`);
  } else {
    for (const f of caseFiles(funcsDir)) {
      // An empty environment, as the oracle's examples/run.sh uses: env cases carry their own "env".
      const r = spawnSync(ORACLE, [], { input: readFileSync(join(funcsDir, f)), encoding: 'utf8', env: {} });
      assert.equal(r.status, 0, `oracle failed on ${f}: ${r.stderr}`);
      writeFileSync(join(funcsDir, f.replace(/\.jsonl$/, '.expected.jsonl')), r.stdout);
    }
  }
}

function strip(r: Result): Omit<Result, 'id'> {
  const out: Omit<Result, 'id'> = {};
  if (r.output !== undefined) out.output = r.output;
  if (r.error !== undefined) out.error = r.error;
  if (r.stage !== undefined) out.stage = r.stage;
  return out;
}

const same = (a: Result, b: Result) => a.output === b.output && a.error === b.error && a.stage === b.stage;

const counts: Record<string, number> = {};
for (const component of ['funcs', 'gotemplate']) {
  const dir = join(root, 'testdata', component);
  const differences = JSON.parse(readFileSync(join(dir, 'differences.json'), 'utf8')) as Record<string, { ours: Omit<Result, 'id'> }>;
  const used = new Set<string>();
  counts[component] = 0;
  for (const f of caseFiles(dir)) {
    const lines = readLines(join(dir, f));
    const expected = readLines(join(dir, f.replace(/\.jsonl$/, '.expected.jsonl'))).map((l) => JSON.parse(l) as Result);
    counts[component] += lines.length;
    test(`golden ${component}/${f}: ${lines.length} cases match Go`, () => {
      assert.equal(expected.length, lines.length, `${f}: expected file has ${expected.length} answers for ${lines.length} cases (UPDATE_GOLDEN=1)`);
      const failures: string[] = [];
      lines.forEach((line, i) => {
        const want = expected[i];
        const got: CaseResult = renderCaseLine(line, i + 1, { clock });
        assert.equal(got.id, want.id, `${f} line ${i + 1}: answers out of order`);
        const diff = Object.hasOwn(differences, want.id) ? differences[want.id] : undefined;
        if (diff !== undefined) {
          used.add(want.id);
          // A deliberate difference: Go's answer stays in the expected file, ours is pinned in differences.json.
          assert.notDeepEqual(strip(want), diff.ours, `${want.id} is listed as a difference but matches Go now`);
          if (!same(got, { id: want.id, ...diff.ours })) failures.push(describe(line, { id: want.id, ...diff.ours }, got));
          return;
        }
        if (!same(got, want)) failures.push(describe(line, want, got));
      });
      assert.deepEqual(failures, [], `${failures.length} of ${lines.length} cases differ:\n${failures.join('\n')}`);
    });
  }
  test(`golden ${component}: differences.json names only existing cases`, () => {
    for (const id of Object.keys(differences)) assert.ok(used.has(id), `differences.json names a case that did not run: ${id}`);
  });
}

test('golden corpus size', () => {
  assert.ok(counts.funcs >= 250, `expected at least 250 function cases, found ${counts.funcs}`);
});

function describe(line: string, want: Result, got: Result): string {
  const c = JSON.parse(line) as { id: string; template: string };
  return `  ${c.id}: ${JSON.stringify(c.template).slice(0, 200)}\n    want ${JSON.stringify(strip(want))}\n    got  ${JSON.stringify(strip(got))}`;
}
