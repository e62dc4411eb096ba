// template.test.ts: the Template API (sets, clone, lookup, funcs, options, delimiters, parseCached) and the parts of
// execution the oracle cannot reach because its data is JSON: Go structs, Stringers, typed function signatures,
// []byte, and functions as values. Template behaviour itself is pinned by golden.test.ts against real Go.
import { strict as assert } from 'node:assert';
import { test } from 'node:test';
import {
  CACHE_LIMIT,
  GoFuncError,
  GoInt,
  GoStruct,
  parseCached,
  Template,
  TemplateError,
  type FuncMap,
  type GoFunc,
  type GoStringer,
  type GoValue,
} from './index.js';

function render(text: string, data: GoValue, funcs: FuncMap = {}, missingKey: 'error' | 'default' | 'zero' = 'error'): string {
  return new Template('t', { funcs, missingKey }).parse(text).execute(data);
}

function execError(text: string, data: GoValue, funcs: FuncMap = {}): string {
  try {
    render(text, data, funcs);
  } catch (e) {
    assert.ok(e instanceof TemplateError, `expected TemplateError, got ${String(e)}`);
    assert.equal(e.code, 'exec');
    return e.message;
  }
  assert.fail('expected an execution error');
}

const fn = (name: string, params: string[], result: string, impl: (...a: GoValue[]) => GoValue, extra: Partial<GoFunc> = {}): GoFunc => ({
  name,
  params,
  result,
  impl,
  ...extra,
});

test('parse errors are TemplateError with code parse and Go text', () => {
  assert.throws(
    () => new Template('bad').parse('a {{ .x '),
    (e: unknown) => e instanceof TemplateError && e.code === 'parse' && e.message === 'template: bad:1: unclosed action',
  );
});

test('an unparsed template reports itself incomplete', () => {
  assert.throws(() => new Template('x').execute(null), { message: 'template: x: "x" is an incomplete or empty template' });
});

test('template sets: define, lookup, executeTemplate, definedTemplates', () => {
  const t = new Template('main').parse('{{ define "a" }}A{{ .}}{{ end }}main:{{ template "a" 1 }}');
  assert.equal(t.execute(null), 'main:A1');
  assert.equal(t.lookup('a')?.name(), 'a');
  assert.equal(t.lookup('zz'), undefined);
  assert.equal(t.executeTemplate('a', 'x'), 'Ax');
  assert.match(t.definedTemplates(), /^; defined templates are: /);
  assert.deepEqual(t.templates().map((x) => x.name()).sort(), ['a', 'main']);
  assert.throws(() => t.executeTemplate('nope', null), (e: unknown) => e instanceof TemplateError && e.code === 'no_template' && e.message === 'template: no template "nope" associated with template "main"');
});

test('a later parse redefines a template; an empty definition does not replace a full one', () => {
  const t = new Template('main').parse('{{ define "a" }}one{{ end }}{{ template "a" }}');
  t.parse('{{ define "a" }}two{{ end }}');
  assert.equal(t.execute(null), 'two');
  t.parse('{{ define "a" }}   {{ end }}');
  assert.equal(t.execute(null), 'two');
});

test('newTemplate shares definitions; clone copies the name space', () => {
  const t = new Template('main').parse('{{ define "a" }}A{{ end }}');
  const u = t.newTemplate('other').parse('other:{{ template "a" }}');
  assert.equal(u.execute(null), 'other:A');
  assert.equal(t.lookup('other'), u);
  const c = t.clone();
  c.parse('{{ define "a" }}cloned{{ end }}');
  assert.equal(c.lookup('other')!.execute(null), 'other:cloned');
  assert.equal(u.execute(null), 'other:A');
});

test('delims, option and funcs validation', () => {
  assert.equal(new Template('d').delims('[[', ']]').parse('{{ x }} [[ .a ]]').execute({ a: 1 }), '{{ x }} 1');
  assert.equal(new Template('o').option('missingkey=zero').parse('{{ .a }}').execute({}), '<no value>');
  assert.throws(() => new Template('o').option('missingkey=maybe'), (e: unknown) => e instanceof TemplateError && e.code === 'invalid_option' && e.message === 'unrecognized option: missingkey=maybe');
  assert.throws(() => new Template('o', { missingKey: 'nope' as 'error' }), { name: 'TemplateError' });
  assert.throws(() => new Template('f', { funcs: { 'bad-name': fn('x', [], 'string', () => '') } }), (e: unknown) => e instanceof TemplateError && e.code === 'invalid_func');
  assert.throws(() => new Template('f', { funcs: { ok: 'not a function' as unknown as GoFunc } }), { message: 'value for ok not a function' });
});

test('parseCached shares frozen templates per (name, text, options, funcs) and stays bounded', () => {
  const a = parseCached('c', '{{ .x }}', { missingKey: 'error' });
  assert.equal(parseCached('c', '{{ .x }}', { missingKey: 'error' }), a);
  assert.notEqual(parseCached('c', '{{ .x }}', { missingKey: 'zero' }), a);
  assert.notEqual(parseCached('c2', '{{ .x }}', { missingKey: 'error' }), a);
  assert.equal(a.execute({ x: 5 }), '5');
  assert.throws(() => a.parse('more'), (e: unknown) => e instanceof TemplateError && e.code === 'frozen');
  assert.throws(() => parseCached('c', '{{ bad'), { name: 'TemplateError' });
  const funcs: FuncMap = {};
  const first = parseCached('lru', 'text 0', { funcs });
  for (let i = 1; i <= CACHE_LIMIT; i++) parseCached('lru', `text ${i}`, { funcs });
  assert.notEqual(parseCached('lru', 'text 0', { funcs }), first, 'the least recently used text was evicted');
  assert.equal(parseCached('lru', `text ${CACHE_LIMIT}`, { funcs }), parseCached('lru', `text ${CACHE_LIMIT}`, { funcs }));
  assert.equal(a.clone().parse('{{ define "z" }}{{ end }}').execute({ x: 1 }), '1', 'clones of cached templates are mutable');
});

test('executions do not share state', () => {
  const t = new Template('s').parse('{{ $x := . }}{{ range .l }}{{ $x.n }}{{ end }}');
  assert.equal(t.execute({ n: 1, l: [1, 2] }), '11');
  assert.equal(t.execute({ n: 2, l: [1] }), '2');
});

test('arguments are checked and converted against typed signatures', () => {
  const seen: GoValue[] = [];
  const funcs: FuncMap = {
    takeInt: fn('takeInt', ['int'], 'string', (v) => (seen.push(v), 'ok')),
    takeInt64: fn('takeInt64', ['int64'], 'string', (v) => (seen.push(v), 'ok')),
    takeUint8: fn('takeUint8', ['uint8'], 'string', (v) => (seen.push(v), 'ok')),
    takeFloat: fn('takeFloat', ['float64'], 'string', (v) => (seen.push(v), 'ok')),
    takeStrings: fn('takeStrings', ['[]string'], 'string', () => 'ok'),
    takeMap: fn('takeMap', ['map[string]interface {}'], 'string', () => 'ok'),
    raw: fn('raw', ['reflect.Value'], 'string', (v) => (seen.push(v), 'ok')),
  };
  assert.equal(render('{{ takeInt 7 }}{{ takeInt64 7 }}{{ takeUint8 300 }}{{ takeFloat 1 }}{{ raw .missing }}', {}, funcs, 'default'), 'okokokokok');
  assert.deepEqual(seen, [new GoInt('int', 7n), 7n, new GoInt('uint8', 44n), 1, undefined]);
  assert.equal(render('{{ takeMap . }}', { a: 1 }, funcs), 'ok');
  assert.match(execError('{{ takeInt .n }}', { n: 5n }, funcs), /wrong type for value; expected int; got int64$/);
  assert.match(execError('{{ takeStrings .l }}', { l: ['a'] }, funcs), /wrong type for value; expected \[\]string; got \[\]interface \{\}$/);
  assert.match(execError('{{ takeUint8 -1 }}', {}, funcs), /expected unsigned integer; found -1$/);
  assert.match(execError('{{ takeInt 1.5 }}', {}, funcs), /expected integer; found 1.5$/);
});

test('function errors and panics become "error calling"', () => {
  const funcs: FuncMap = {
    bad: fn('bad', [], 'string', () => {
      throw new GoFuncError('it failed');
    }, { returnsError: true }),
    crash: fn('crash', [], 'string', () => {
      throw new TypeError('boom');
    }),
  };
  assert.equal(execError('{{ bad }}', null, funcs), 'template: t:1:3: executing "t" at <bad>: error calling bad: it failed');
  assert.equal(execError('{{ crash }}', null, funcs), 'template: t:1:3: executing "t" at <crash>: error calling crash: boom');
});

test('results take the declared Go type', () => {
  const funcs: FuncMap = {
    n: fn('n', [], 'int', () => 3),
    big: fn('big', [], 'int64', () => 3),
    strs: fn('strs', [], '[]string', () => ['a', 'b']),
    nothing: fn('nothing', [], '[]string', () => null),
    any: fn('any', [], 'interface {}', () => undefined),
  };
  assert.equal(render('{{ printf "%T %T %T %#v %#v %v" n big strs strs nothing any }}', null, funcs), 'int int64 []string []string{"a", "b"} []string{} <nil>');
});

test('Go structs: exported fields, errors as exec.go words them, printing', () => {
  const ref = new GoStruct('corev1.ObjectReference', { Kind: 'Service', Name: 'svc', Namespace: 'ns', hidden: 'x', Owner: null });
  assert.equal(render('{{ .Kind }}/{{ .Namespace }}/{{ .Name }}', ref), 'Service/ns/svc');
  assert.equal(render('{{ . }}|{{ printf "%+v" . }}|{{ printf "%T" . }}', new GoStruct('x.T', { A: 1n, B: 'b' })), '{1 b}|{A:1 B:b}|x.T');
  assert.equal(render('{{ printf "%#v" . }}', new GoStruct('x.T', { A: 1n, B: 'b' })), 'x.T{A:1, B:"b"}');
  assert.match(execError('{{ .Missing }}', ref), /at <\.Missing>: can't evaluate field Missing in type corev1\.ObjectReference$/);
  assert.match(execError('{{ .hidden }}', ref), /hidden is an unexported field of struct type corev1\.ObjectReference$/);
  assert.match(execError('{{ .Owner.Name }}', ref), /nil pointer evaluating interface \{\}\.Name$/);
  assert.match(execError('{{ .Kind 1 }}', ref), /Kind has arguments but cannot be invoked as function$/);
});

test('Stringers print through String(); []byte prints as bytes', () => {
  const when: GoStringer = { goString: () => '2024-01-02 03:04:05 +0000 UTC', goTypeName: () => 'time.Time' };
  assert.equal(render('{{ . }}|{{ printf "%s|%q|%T" . . . }}', when), '2024-01-02 03:04:05 +0000 UTC|2024-01-02 03:04:05 +0000 UTC|"2024-01-02 03:04:05 +0000 UTC"|time.Time');
  assert.match(execError('{{ .Year }}', when), /can't evaluate field Year in type time\.Time$/);
  const b = new Uint8Array([104, 105]);
  assert.equal(render('{{ . }}|{{ printf "%s %x %q %T" . . . . }}|{{ len . }}|{{ index . 1 }}', b), '[104 105]|hi 6869 "hi" []uint8|2|105');
});

test('functions as values: call, and printing them is an error', () => {
  const add = fn('add', ['int', 'int'], 'int', (a, b) => new GoInt('int', (a as GoInt).value + (b as GoInt).value));
  const data = { add, js: (...a: GoValue[]) => a.length };
  assert.equal(render('{{ call .add 1 2 }}|{{ call .js 1 2 3 }}', data), '3|3');
  assert.match(execError('{{ call .add 1 }}', data), /error calling call: wrong number of args for \.add: got 1 want 2$/);
  assert.match(execError('{{ call .add "a" 2 }}', data), /error calling call: arg 0: value has type string; should be int$/);
  assert.match(execError('{{ .add }}', data), /at <\{\{\.add\}\}>: can't print \{\{\.add\}\} of type func\(int, int\) int$/);
});

test('recursive templates stop at the maximum depth', () => {
  const msg = execError('{{ define "r" }}{{ template "r" . }}{{ end }}{{ template "r" . }}', null);
  assert.match(msg, /exceeded maximum template depth \(1000\)$/);
  // Heavier nesting per level can exhaust the JavaScript stack first: still an execution error, never a crash.
  const deep = execError('{{ define "r" }}{{ range .l }}{{ if . }}{{ with . }}{{ template "r" $ }}{{ end }}{{ end }}{{ end }}{{ end }}{{ template "r" . }}', { l: [1] });
  assert.match(deep, /^template: t:1:\d+: executing "r" at <.*>: exceeded maximum template depth \(\d+\)/);
});

// A value with Go methods, as src/funcs' semver and time values are: `.Name` consults goMethod before anything else.
class Counter implements GoStringer {
  constructor(readonly n: number) {}
  goString(): string {
    return `counter(${this.n})`;
  }
  goTypeName(): string {
    return '*pkg.Counter';
  }
  goFieldNames(): readonly string[] {
    return ['n'];
  }
  goMethod(name: string): GoValue | undefined {
    switch (name) {
      case 'Value':
        return new GoInt('int', BigInt(this.n));
      case 'Next':
        return new Counter(this.n + 1);
      case 'Add':
        return fn('Add', ['int'], '*pkg.Counter', (d) => new Counter(this.n + Number((d as GoInt).value)));
      case 'Fail':
        return fn('Fail', [], 'string', () => {
          throw new GoFuncError('no luck');
        }, { returnsError: true });
    }
    return undefined;
  }
}

test('methods: niladic results, methods with arguments, chains, pipelines and Go error texts', () => {
  const c = new Counter(1);
  assert.equal(render('{{ .c.Value }}|{{ .c.Next.Next.Value }}|{{ (.c.Add 5).Value }}|{{ 2 | .c.Add }}|{{ printf "%T" .c.Value }}', { c }), '1|3|6|counter(3)|int');
  assert.equal(render('{{ $c := .c }}{{ $c.Next }}|{{ with .c }}{{ .Value }}{{ end }}', { c }), 'counter(2)|1');
  assert.match(execError('{{ .c.Value 1 }}', { c }), /wrong number of args for Value: want 0 got 1$/);
  assert.match(execError('{{ 1 | .c.Next }}', { c }), /wrong number of args for Next: want 0 got 1$/);
  assert.match(execError('{{ .c.Add }}', { c }), /wrong number of args for Add: want 1 got 0$/);
  assert.match(execError('{{ .c.Add "x" }}', { c }), /expected integer; found "x"$/);
  assert.match(execError('{{ .c.Fail }}', { c }), /at <\.c\.Fail>: error calling Fail: no luck$/);
  // Missing methods and unexported fields: the concrete type, or interface {} for a value read from a map.
  assert.match(execError('{{ .c.Missing }}', { c }), /can't evaluate field Missing in type interface \{\}$/);
  assert.match(execError('{{ $c := .c }}{{ $c.Next.Missing }}', { c }), /can't evaluate field Missing in type \*pkg\.Counter$/);
  assert.match(execError('{{ .c.n }}', { c }), /n is an unexported field of struct type interface \{\}$/);
  assert.match(execError('{{ .c.Next.n }}', { c }), /n is an unexported field of struct type \*pkg\.Counter$/);
  // Plain maps have no methods: a key named like a method is just a key.
  assert.equal(render('{{ .m.Value }}', { m: { Value: 'v' } }), 'v');
});
