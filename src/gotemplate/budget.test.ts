import { strict as assert } from 'node:assert';
import { test } from 'node:test';
import { Template, TemplateError, type GoValue } from './index.js';

const exec = (text: string, budget?: Parameters<Template['execute']>[1], data: GoValue = null) => new Template('t').parse(text).execute(data, budget);

function budgetError(f: () => unknown): TemplateError {
  try {
    f();
  } catch (e) {
    if (e instanceof TemplateError && e.code === 'budget') return e;
    throw e;
  }
  assert.fail('expected a budget error');
}

test('a range beyond the step budget fails with a budget error naming where', () => {
  const e = budgetError(() => exec('{{range 100000000}}x{{end}}', { maxSteps: 10_000 }));
  assert.match(e.message, /^template: t:1:\d+: executing "t" at <.*>: render budget exceeded: more than 10000 steps$/);
  // The default budget stops it too (no option needed).
  assert.equal(budgetError(() => exec('{{range 100000000}}{{end}}')).code, 'budget');
  assert.equal(exec('{{range 3}}{{.}}{{end}}', { maxSteps: 100 }), '012');
});

test('output beyond the output budget fails', () => {
  const e = budgetError(() => exec('{{range 100000}}0123456789{{end}}', { maxOutputBytes: 1000 }));
  assert.match(e.message, /render budget exceeded: output larger than 1000 bytes$/);
});

test('wall time beyond the budget fails, measured with the injected clock', () => {
  let now = 0;
  const clock = () => (now += 1); // every reading advances 1 ms
  const e = budgetError(() => exec('{{range 100000000}}{{end}}', { maxMillis: 50, clock }));
  assert.match(e.message, /render budget exceeded: running longer than 50 ms$/);
});

test('recursive templates share one budget', () => {
  const t = new Template('t').parse('{{define "r"}}{{template "r" .}}{{template "r" .}}{{end}}{{template "r" .}}');
  const err = (() => {
    try {
      t.execute(null, { maxSteps: 5000 });
    } catch (e) {
      return e as TemplateError;
    }
    return undefined;
  })();
  assert.ok(err instanceof TemplateError);
  // Either bound may come first; both are a clean TemplateError, never a crash.
  assert.ok(err.code === 'budget' || /exceeded maximum template depth/.test(err.message), err.message);
});

test('templates nested deeper than the stack allows fail to parse with a TemplateError, never a RangeError', () => {
  for (const text of ['{{if true}}'.repeat(20000) + '{{end}}'.repeat(20000), `{{${'('.repeat(20000)}1${')'.repeat(20000)}}}`]) {
    assert.throws(() => new Template('deep').parse(text), (e: unknown) => e instanceof TemplateError && e.code === 'parse' && e.message === 'template: deep: max expression depth exceeded');
  }
});
