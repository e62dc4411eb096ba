// The matcher's selection semantics: selectors, label filters (Kubernetes semantics), label selectors, CEL, Lua, how
// they combine, concatenation, aggregatedSelection, and structured diagnostics that never cross EventSources.
import { strict as assert } from 'node:assert';
import { before, test } from 'node:test';
import type { LabelFilter, ResourceSelector } from '../api/index.js';
import { createLuaRuntime, type LuaRuntime } from '../lua/index.js';
import { compileEventSource, gvkKey, type EventSourceInput, type KubeObject } from './index.js';

let rt: LuaRuntime;
before(async () => {
  rt = await createLuaRuntime({ instructionLimit: 100_000 });
});

const SVC = { group: '', version: 'v1', kind: 'Service' };
const DEP = { group: 'apps', version: 'v1', kind: 'Deployment' };

function svc(name: string, ns = 'default', labels?: Record<string, string>, extra: Record<string, unknown> = {}): KubeObject {
  return { apiVersion: 'v1', kind: 'Service', metadata: { name, namespace: ns, ...(labels ? { labels } : {}), ...extra }, spec: { ports: [{ port: 80 }] } };
}
function dep(name: string, replicas: number, labels?: Record<string, string>): KubeObject {
  return { apiVersion: 'apps/v1', kind: 'Deployment', metadata: { name, namespace: 'apps', ...(labels ? { labels } : {}) }, spec: { replicas } };
}
function es(name: string, selectors: ResourceSelector[], spec: Partial<EventSourceInput['spec']> = {}): EventSourceInput {
  return { metadata: { name }, spec: { resourceSelectors: selectors, ...spec } };
}
const names = (objs: KubeObject[]) => objs.map((o) => (o.metadata as { name: string }).name);

test('group/version/kind, namespace and name narrow the selection; deleting objects are skipped', () => {
  const objects = new Map([
    [gvkKey(SVC), [svc('a'), svc('b', 'eng'), svc('c', 'eng'), svc('d', 'eng', undefined, { deletionTimestamp: '2024-01-01T00:00:00Z' })]],
  ]);
  assert.deepEqual(names(compileEventSource(es('all', [SVC]), rt).select(objects).resources), ['a', 'b', 'c']);
  assert.deepEqual(names(compileEventSource(es('ns', [{ ...SVC, namespace: 'eng' }]), rt).select(objects).resources), ['b', 'c']);
  assert.deepEqual(names(compileEventSource(es('name', [{ ...SVC, namespace: 'eng', name: 'c' }]), rt).select(objects).resources), ['c']);
  assert.deepEqual(names(compileEventSource(es('other', [DEP]), rt).select(objects).resources), []);
  const c = compileEventSource(es('kinds', [SVC]), rt);
  assert.equal(c.matchObject(dep('x', 1), 0).matched, false, 'an object of another kind never matches');
});

test('includeDeletingResources: objects with a deletionTimestamp match only when it is set', () => {
  const deleting = svc('d', 'eng', undefined, { deletionTimestamp: '2024-01-01T00:00:00Z' });
  const objects = new Map([[gvkKey(SVC), [svc('a'), deleting]]]);
  assert.deepEqual(names(compileEventSource(es('default', [SVC]), rt).select(objects).resources), ['a']);
  assert.deepEqual(names(compileEventSource(es('off', [SVC], { includeDeletingResources: false }), rt).select(objects).resources), ['a']);
  const on = compileEventSource(es('on', [SVC], { includeDeletingResources: true }), rt);
  assert.deepEqual(names(on.select(objects).resources), ['a', 'd']);
  assert.equal(on.matchObject(deleting, 0).matched, true);
});

test('label filters follow Kubernetes semantics (k!=v also matches objects without k)', () => {
  const objs = [svc('fv', 'default', { sveltos: 'fv' }), svc('prod', 'default', { sveltos: 'prod' }), svc('none')];
  const source = new Map([[gvkKey(SVC), objs]]);
  const run = (operation: LabelFilter['operation'], value?: string) =>
    names(compileEventSource(es(operation, [{ ...SVC, labelFilters: [{ key: 'sveltos', operation, ...(value !== undefined ? { value } : {}) }] }]), rt).select(source).resources);
  assert.deepEqual(run('Equal', 'fv'), ['fv']);
  assert.deepEqual(run('Different', 'fv'), ['prod', 'none']);
  assert.deepEqual(run('Has'), ['fv', 'prod']);
  assert.deepEqual(run('DoesNotHave'), ['none']);
  const both = compileEventSource(
    es('and', [{ ...SVC, labelFilters: [{ key: 'sveltos', operation: 'Has' }, { key: 'sveltos', operation: 'Different', value: 'prod' }] }]),
    rt,
  );
  assert.deepEqual(names(both.select(source).resources), ['fv'], 'filters are ANDed');
});

test('selector: matchLabels and matchExpressions, ANDed with labelFilters', () => {
  const objs = [
    dep('a', 1, { env: 'prod', tier: 'web' }),
    dep('b', 1, { env: 'production' }),
    dep('c', 1, { env: 'staging', tier: 'web' }),
    dep('d', 1, { tier: 'web' }),
  ];
  const source = new Map([[gvkKey(DEP), objs]]);
  const sel = (selector: ResourceSelector['selector'], extra: Partial<ResourceSelector> = {}) =>
    names(compileEventSource(es('s', [{ ...DEP, selector, ...extra }]), rt).select(source).resources);
  assert.deepEqual(sel({ matchLabels: { tier: 'web' } }), ['a', 'c', 'd']);
  assert.deepEqual(sel({ matchExpressions: [{ key: 'env', operator: 'In', values: ['prod', 'production'] }] }), ['a', 'b']);
  assert.deepEqual(sel({ matchExpressions: [{ key: 'env', operator: 'NotIn', values: ['prod'] }] }), ['b', 'c', 'd']);
  assert.deepEqual(sel({ matchExpressions: [{ key: 'env', operator: 'Exists' }] }), ['a', 'b', 'c']);
  assert.deepEqual(sel({ matchExpressions: [{ key: 'env', operator: 'DoesNotExist' }] }), ['d']);
  assert.deepEqual(sel({}), ['a', 'b', 'c', 'd'], 'an empty selector selects everything');
  assert.deepEqual(sel({ matchLabels: { tier: 'web' } }, { labelFilters: [{ key: 'env', operation: 'Equal', value: 'prod' }] }), ['a']);
});

test('invalid filters and selectors are diagnostics, and that selector matches nothing', () => {
  const c = compileEventSource(
    es('bad', [
      { ...SVC, labelFilters: [{ key: 'app', operation: 'Like' as LabelFilter['operation'], value: 'x' }] },
      { ...SVC, selector: { matchExpressions: [{ key: 'env', operator: 'In', values: [] }] } },
      { ...SVC, labelFilters: [{ key: 'bad key!', operation: 'Equal', value: 'x' }] },
      SVC,
    ]),
    rt,
  );
  assert.deepEqual(
    c.diagnostics.map((d) => [d.code, d.selectorIndex, d.field]),
    [
      ['label-filter', 0, 'spec.resourceSelectors[0].labelFilters[0].operation'],
      ['label-selector', 1, 'spec.resourceSelectors[1].selector.matchExpressions[0].values'],
      ['label-filter', 2, 'spec.resourceSelectors[2].labelFilters[0].key'],
    ],
  );
  const r = c.select(new Map([[gvkKey(SVC), [svc('a')]]]));
  assert.deepEqual(names(r.resources), ['a'], 'the valid selector still works');
  assert.equal(r.complete, false);
});

test('selectors are concatenated in order, duplicates kept', () => {
  const c = compileEventSource(es('concat', [DEP, { ...SVC, name: 'b' }, SVC]), rt);
  const r = c.select(new Map([[gvkKey(SVC), [svc('a'), svc('b')]], [gvkKey(DEP), [dep('d', 1)]]]));
  assert.deepEqual(names(r.resources), ['d', 'b', 'a', 'b']);
  assert.deepEqual(c.gvks(), [DEP, SVC]);
  assert.deepEqual(c.selectorsFor(SVC), [1, 2]);
});

test('Lua evaluate filters per resource and reports failures with selector, object and line', () => {
  const c = compileEventSource(
    es('lua', [
      {
        ...SVC,
        evaluate: 'function evaluate()\n  local hs = {matching = obj.metadata.labels.tier == "web"}\n  hs.message = "checked"\n  return hs\nend',
      },
    ]),
    rt,
  );
  const r = c.select(new Map([[gvkKey(SVC), [svc('web', 'default', { tier: 'web' }), svc('nolabels'), svc('db', 'default', { tier: 'db' })]]]));
  assert.deepEqual(names(r.resources), ['web']);
  assert.equal(r.complete, false);
  assert.equal(r.diagnostics.length, 1);
  assert.deepEqual(
    { ...r.diagnostics[0], message: r.diagnostics[0].message.replace(/ \(.*/, '') },
    {
      code: 'lua-runtime',
      eventSource: 'lua',
      selectorIndex: 0,
      field: 'spec.resourceSelectors[0].evaluate',
      object: { apiVersion: 'v1', kind: 'Service', namespace: 'default', name: 'nolabels' },
      line: 2,
      message: '<string>:2: attempt to index a nil value',
    },
  );
  assert.deepEqual(c.matchObject(svc('web', 'default', { tier: 'web' }), 0), { matched: true, message: 'checked', diagnostics: [] });
});

test('a syntax error is a compile diagnostic; the EventSource matches nothing through that selector', () => {
  const c = compileEventSource(es('syntax', [{ ...SVC, evaluate: 'function evaluate(\n  return {}\nend' }]), rt);
  assert.equal(c.diagnostics[0].code, 'lua-syntax');
  assert.equal(c.diagnostics[0].line, 2);
  const m = c.matchObject(svc('a'), 0);
  assert.equal(m.matched, false);
  assert.deepEqual(m.diagnostics[0].object, { apiVersion: 'v1', kind: 'Service', namespace: 'default', name: 'a' });
});

test('timeouts, memory exhaustion and wrong return types are diagnostics too', () => {
  const cases: [string, string][] = [
    ['function evaluate() while true do end end', 'lua-timeout'],
    ['function evaluate() local t = {} for i = 1, 1e6 do t[i] = ("x"):rep(1e4) .. i end end', 'lua-memory'],
    ['function evaluate() return {matching = "yes"} end', 'lua-result'],
  ];
  for (const [script, code] of cases) {
    const c = compileEventSource(es(code, [{ ...SVC, evaluate: script }]), rt);
    const m = c.matchObject(svc('a'), 0);
    assert.equal(m.matched, false, code);
    assert.equal(m.diagnostics[0]?.code, code, code);
  }
});

test('evaluateCEL: rules OR-ed, a failing rule is reported and counts as no match', () => {
  const c = compileEventSource(
    es('cel', [
      {
        ...DEP,
        evaluateCEL: [
          { name: 'broken', rule: 'resource.metadata.annotations.pinned == "true"' },
          { name: 'big', rule: 'resource.spec.replicas >= 3' },
          { name: 'labelled', rule: 'has(resource.metadata.labels) && has(resource.metadata.labels.sveltos) && resource.metadata.labels.sveltos == "fv"' },
        ],
      },
    ]),
    rt,
  );
  const big = c.matchObject(dep('big', 5), 0);
  assert.equal(big.matched, true);
  assert.deepEqual(big.diagnostics.map((d) => [d.code, d.rule, d.field]), [['cel-evaluate', 'broken', 'spec.resourceSelectors[0].evaluateCEL[0]']]);
  assert.equal(c.matchObject(dep('fv', 1, { sveltos: 'fv' }), 0).matched, true);
  assert.equal(c.matchObject(dep('small', 1), 0).matched, false);
  const r = c.select(new Map([[gvkKey(DEP), [dep('big', 5), dep('small', 1)]]]));
  assert.equal(r.complete, true, 'a failing CEL rule is "no match" (Sveltos logs and skips it), not an incomplete selection');
});

test('a CEL rule that does not compile is reported once; the other rules still count', () => {
  const c = compileEventSource(es('celbad', [{ ...DEP, evaluateCEL: [{ name: 'oops', rule: 'resource.spec.replicas >' }, { name: 'ok', rule: 'resource.spec.replicas == 2' }] }]), rt);
  assert.deepEqual(c.diagnostics.map((d) => [d.code, d.rule]), [['cel-compile', 'oops']]);
  assert.equal(c.matchObject(dep('two', 2), 0).matched, true);
  assert.deepEqual(c.matchObject(dep('two', 2), 0).diagnostics, []);
});

test('CEL or Lua: with both, either one matching is a match; CEL alone with no true rule is no match', () => {
  const both = compileEventSource(
    es('both', [{ ...DEP, evaluateCEL: [{ name: 'big', rule: 'resource.spec.replicas > 3' }], evaluate: 'function evaluate() return {matching = obj.metadata.name == "lua"} end' }]),
    rt,
  );
  assert.equal(both.matchObject(dep('big', 5), 0).matched, true);
  assert.equal(both.matchObject(dep('lua', 1), 0).matched, true);
  assert.equal(both.matchObject(dep('neither', 1), 0).matched, false);
});

test('aggregatedSelection replaces the concatenated list with what it returns', () => {
  const c = compileEventSource(
    es('agg', [SVC, DEP], {
      aggregatedSelection:
        'function evaluate()\n  local hs = {}\n  local out = {}\n  for _, r in ipairs(resources) do if r.kind == "Deployment" then table.insert(out, r) end end\n  if #out > 0 then hs.resources = out end\n  hs.message = #resources .. " seen"\n  return hs\nend',
    }),
    rt,
  );
  const d = dep('d', 1);
  const r = c.select(new Map([[gvkKey(SVC), [svc('a')]], [gvkKey(DEP), [d]]]));
  assert.deepEqual(names(r.resources), ['d']);
  assert.equal(r.resources[0], d, 'the selected object itself comes back');
  assert.equal(r.message, '2 seen');
  const broken = compileEventSource(es('aggbad', [SVC], { aggregatedSelection: 'function evaluate() return {resources = {}} end' }), rt);
  const rb = broken.select(new Map([[gvkKey(SVC), [svc('a')]]]));
  assert.deepEqual([rb.resources, rb.complete, rb.diagnostics[0]?.code, rb.diagnostics[0]?.field], [[], false, 'lua-result', 'spec.aggregatedSelection']);
});

test('a broken EventSource never affects another one sharing the runtime', () => {
  const bad = compileEventSource(es('bad', [{ ...SVC, evaluate: 'function evaluate() x = 1 error("boom") end' }]), rt);
  const loop = compileEventSource(es('loop', [{ ...SVC, evaluate: 'function evaluate() while true do end end' }]), rt);
  const good = compileEventSource(es('good', [{ ...SVC, evaluate: 'function evaluate() return {matching = x == nil} end' }]), rt);
  const source = new Map([[gvkKey(SVC), [svc('a'), svc('b')]]]);
  for (const c of [bad, loop, good, bad, good]) c.select(source);
  const r = good.select(source);
  assert.deepEqual([names(r.resources), r.complete, r.diagnostics], [['a', 'b'], true, []]);
  assert.ok(bad.select(source).diagnostics.every((d) => d.eventSource === 'bad'));
});

test('select accepts a lookup function; missing GVKs select nothing', () => {
  const c = compileEventSource(es('fn', [SVC, DEP]), rt);
  const r = c.select((gvk) => (gvk.kind === 'Service' ? [svc('a')] : undefined));
  assert.deepEqual(names(r.resources), ['a']);
});

test('compileEventSource tolerates malformed input without throwing', () => {
  const c = compileEventSource({ spec: { resourceSelectors: [{ group: '', version: '', kind: '' }] } } as EventSourceInput, rt);
  assert.deepEqual(c.diagnostics.map((d) => d.field), ['spec.resourceSelectors[0].kind', 'spec.resourceSelectors[0].version']);
  const empty = compileEventSource({ spec: {} } as EventSourceInput, rt);
  assert.deepEqual(empty.select(new Map()).resources, []);
});

test('CEL library semantics used by rules: has(), macros, string functions, int and double', () => {
  const obj: KubeObject = {
    apiVersion: 'apps/v1',
    kind: 'Deployment',
    metadata: { name: 'web-frontend', labels: { app: 'web' } },
    spec: { replicas: 3, ratio: 0.5, template: { spec: { containers: [{ name: 'a', image: 'registry.example.com/a:1' }, { name: 'b', image: 'docker.io/b:2' }] } } },
  };
  const rule = (r: string) => {
    const c = compileEventSource(es('c', [{ ...DEP, evaluateCEL: [{ name: 'r', rule: r }] }]), rt);
    assert.deepEqual(c.diagnostics, [], r);
    const m = c.matchObject(obj, 0);
    return m.diagnostics.length > 0 ? `error: ${m.diagnostics[0].message}` : m.matched;
  };
  assert.equal(rule('has(resource.metadata.labels.app) && !has(resource.metadata.annotations)'), true);
  assert.equal(rule('resource.spec.template.spec.containers.all(c, c.image.startsWith("registry.example.com/"))'), false);
  assert.equal(rule('resource.spec.template.spec.containers.exists(c, c.image.endsWith(":2"))'), true);
  assert.equal(rule('resource.spec.template.spec.containers.filter(c, c.name == "a").size() == 1'), true);
  assert.equal(rule('resource.metadata.name.matches("^web-") && resource.metadata.name.contains("front")'), true);
  assert.equal(rule('resource.spec.replicas == 3 && resource.spec.replicas > 2.5 && resource.spec.ratio < 1'), true);
  assert.equal(rule('"app" in resource.metadata.labels && size(resource.metadata.labels) == 1'), true);
  assert.match(String(rule('resource.metadata.annotations.x == "y"')), /^error: /);
  const typed = compileEventSource(es('t', [{ ...DEP, evaluateCEL: [{ name: 'str', rule: 'resource.spec.replicas > 1 ? "yes" : "no"' }] }]), rt);
  assert.deepEqual(typed.diagnostics.map((d) => [d.code, d.message]), [['cel-compile', 'rule returns string, not bool']]);
  const dyn = compileEventSource(es('d', [{ ...DEP, evaluateCEL: [{ name: 'dyn', rule: 'resource.metadata.name' }] }]), rt);
  assert.match(dyn.matchObject(obj, 0).diagnostics[0]?.message ?? '', /not a bool/, 'a dyn result is checked when evaluated');
});
