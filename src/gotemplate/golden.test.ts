// golden.test.ts: every case in testdata/gotemplate/*.jsonl runs through our engine and must give exactly what Go
// gave (the *.expected.jsonl files, written by /work/shared/oracles/bin/gotemplate-oracle). Deliberate differences
// are pinned in testdata/gotemplate/differences.json and explained in DIFFERENCES.md.
//
// UPDATE_GOLDEN=1 regenerates the expected files from the oracle (skipped, with a message, when it is absent).
import { strict as assert } from 'node:assert';
import { spawnSync } from 'node:child_process';
import { existsSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { test } from 'node:test';
import {
  decodeJSON,
  rawTopLevelField,
  GoFuncError,
  GoInt,
  sprintf,
  Template,
  TemplateError,
  withGoType,
  kindOf,
  formatValue,
  type FuncMap,
  type GoFunc,
  type GoValue,
  type NumberModes,
} from './index.js';

const root = resolve(import.meta.dirname, '..', '..');
const dir = join(root, 'testdata', 'gotemplate');
const ORACLE = process.env.GOTEMPLATE_ORACLE ?? '/work/shared/oracles/bin/gotemplate-oracle';

interface Case {
  id: string;
  template: string;
  data?: unknown;
  funcs?: string;
  missingkey?: 'error' | 'default' | 'invalid' | 'zero';
  numbers?: NumberModes;
  engine?: 'text' | 'html';
  name?: string;
  comment?: string;
  /** The case's JSON line as written (not an oracle field). */
  raw?: string;
}
interface Result {
  id: string;
  output?: string;
  error?: string;
  stage?: string;
}

// Test fixtures standing in for the few sprig functions the "sprig" cases use (the oracle runs the real ones).
// They exist to exercise argument checking against typed signatures, typed results and error returns; each has
// sprig's exact Go signature and, for the inputs used, its exact behaviour.
function fn(name: string, params: string[], result: string, impl: (...a: GoValue[]) => GoValue, extra: Partial<GoFunc> = {}): GoFunc {
  return { name, params, result, impl, ...extra };
}
const sprigFixtures: FuncMap = {
  upper: fn('upper', ['string'], 'string', (s) => (s as string).toUpperCase()),
  repeat: fn('repeat', ['int', 'string'], 'string', (n, s) => {
    const c = Number((n as GoInt).value);
    if (c < 0) throw new GoFuncError('strings: negative Repeat count');
    return (s as string).repeat(c);
  }),
  atoi: fn('atoi', ['string'], 'int', (s) => {
    const t = s as string;
    return new GoInt('int', /^[+-]?[0-9]+$/.test(t) ? BigInt(t) : 0n);
  }),
  list: fn('list', [], '[]interface {}', (...a) => a, { variadic: 'interface {}' }),
  dict: fn(
    'dict',
    [],
    'map[string]interface {}',
    (...a) => {
      const m: Record<string, GoValue> = {};
      for (let i = 0; i < a.length; i += 2) m[typeof a[i] === 'string' ? (a[i] as string) : formatValue(a[i])] = i + 1 < a.length ? a[i + 1] : '';
      return m;
    },
    { variadic: 'interface {}' },
  ),
  typeOf: fn('typeOf', ['interface {}'], 'string', (v) => sprintf('%T', v)),
  kindOf: fn('kindOf', ['interface {}'], 'string', (v) => kindOf(v)),
  until: fn('until', ['int'], '[]int', (n) => {
    const c = Number((n as GoInt).value);
    const out: GoValue[] = [];
    if (c >= 0) for (let i = 0; i < c; i++) out.push(new GoInt('int', BigInt(i)));
    else for (let i = 0; i > c; i--) out.push(new GoInt('int', BigInt(i)));
    return withGoType(out, '[]int');
  }),
  splitList: fn('splitList', ['string', 'string'], '[]string', (sep, s) =>
    withGoType(sep === '' ? Array.from(s as string) : (s as string).split(sep as string), '[]string'),
  ),
  fail: fn('fail', ['string'], 'string', (msg) => {
    throw new GoFuncError(msg as string);
  }, { returnsError: true }),
};

function funcsFor(c: Case): FuncMap {
  switch (c.funcs) {
    case 'none':
      return {};
    case 'sprig':
      return sprigFixtures;
  }
  throw new Error(`case ${c.id}: golden cases use "funcs": "none" or "sprig" (got ${String(c.funcs)})`);
}


/** render runs one case through our engine, shaped like the oracle's answer. */
function render(c: Case): Result {
  let data: GoValue;
  try {
    const raw = c.raw !== undefined ? rawTopLevelField(c.raw, 'data') : undefined;
    data = raw === undefined ? null : decodeJSON(raw, { numbers: c.numbers ?? 'float64' });
  } catch (e) {
    return { id: c.id, error: (e as Error).message, stage: 'input' };
  }
  let t: Template;
  try {
    t = new Template(c.name ?? c.id, { funcs: funcsFor(c), missingKey: c.missingkey ?? 'error', escape: c.engine ?? 'text' });
    t.parse(c.template);
  } catch (e) {
    if (e instanceof TemplateError) return { id: c.id, error: e.message, stage: e.code === 'parse' ? 'parse' : 'input' };
    throw e;
  }
  try {
    return { id: c.id, output: t.execute(data) };
  } catch (e) {
    if (e instanceof TemplateError) return { id: c.id, error: e.message, stage: 'exec' };
    throw e;
  }
}

function readJSONL<T>(path: string): T[] {
  return readFileSync(path, 'utf8')
    .split('\n')
    .filter((l) => l.trim() !== '')
    .map((l) => ({ ...(JSON.parse(l) as T), raw: l }));
}

const caseFiles = readdirSync(dir)
  .filter((f) => f.endsWith('.jsonl') && !f.endsWith('.expected.jsonl'))
  .sort();

if (process.env.UPDATE_GOLDEN === '1') {
  if (!existsSync(ORACLE)) {
    console.log(`UPDATE_GOLDEN=1: oracle ${ORACLE} not found; expected files left as they are (build it with /work/shared/oracles/setup.sh)`);
  } else {
    for (const f of caseFiles) {
      const r = spawnSync(ORACLE, [], { input: readFileSync(join(dir, f)), encoding: 'utf8', env: {} });
      assert.equal(r.status, 0, `oracle failed on ${f}: ${r.stderr}`);
      writeFileSync(join(dir, f.replace(/\.jsonl$/, '.expected.jsonl')), r.stdout);
    }
  }
}

const differences = JSON.parse(readFileSync(join(dir, 'differences.json'), 'utf8')) as Record<string, { ours: Omit<Result, 'id'>; why: string }>;

let total = 0;
const seenIds = new Set<string>();
for (const f of caseFiles) {
  const cases = readJSONL<Case>(join(dir, f));
  const expected = new Map(readJSONL<Result>(join(dir, f.replace(/\.jsonl$/, '.expected.jsonl'))).map((r) => [r.id, r]));
  total += cases.length;
  test(`golden ${f}: ${cases.length} cases match Go`, () => {
    const failures: string[] = [];
    for (const c of cases) {
      assert.ok(!seenIds.has(c.id), `duplicate case id ${c.id}`);
      seenIds.add(c.id);
      const want = expected.get(c.id);
      assert.ok(want, `${f}: no expected result for ${c.id} (run UPDATE_GOLDEN=1)`);
      const got = render(c);
      const diff = differences[c.id];
      if (diff !== undefined) {
        // A deliberate difference: Go's answer stays in the expected file, ours is pinned here.
        assert.notDeepEqual(stripId(want), diff.ours, `${c.id} is listed as a difference but matches Go now`);
        if (!sameResult(got, { id: c.id, ...diff.ours })) failures.push(describe(c, { id: c.id, ...diff.ours }, got));
        continue;
      }
      if (!sameResult(got, want)) failures.push(describe(c, want, got));
    }
    assert.deepEqual(failures, [], `${failures.length} of ${cases.length} cases differ:\n${failures.join('\n')}`);
  });
}

test('golden corpus size', () => {
  assert.ok(total >= 220, `expected at least 220 golden cases, found ${total}`);
  for (const id of Object.keys(differences)) assert.ok(seenIds.has(id) || seenIds.size === 0, `differences.json names unknown case ${id}`);
});

function stripId(r: Result): Omit<Result, 'id'> {
  const out: Omit<Result, 'id'> = {};
  if (r.output !== undefined) out.output = r.output;
  if (r.error !== undefined) out.error = r.error;
  if (r.stage !== undefined) out.stage = r.stage;
  return out;
}

function sameResult(a: Result, b: Result): boolean {
  return a.output === b.output && a.error === b.error && a.stage === b.stage;
}

function describe(c: Case, want: Result, got: Result): string {
  return `  ${c.id}: ${JSON.stringify(c.template)}\n    want ${JSON.stringify(stripId(want))}\n    got  ${JSON.stringify(stripId(got))}`;
}
