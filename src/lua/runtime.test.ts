// Behaviour of the sandboxed runtime that the oracle cannot show: isolation between evaluations, limits and recovery,
// the sandbox, the lazy converter's view of objects, and aggregatedSelection decoding.
import { strict as assert } from 'node:assert';
import { before, test } from 'node:test';
import { createLuaRuntime, type LuaMatchResult, type LuaRuntime } from './index.js';

let rt: LuaRuntime;
before(async () => {
  rt = await createLuaRuntime({ instructionLimit: 200_000, memoryLimitBytes: 4 * 1024 * 1024, clock: { now: () => 1_700_000_000_123 } });
});

const svc = () => ({
  apiVersion: 'v1',
  kind: 'Service',
  metadata: {
    name: 'web',
    namespace: 'default',
    labels: { app: 'web' },
    managedFields: [{ manager: 'kubectl', operation: 'Apply', fieldsV1: { 'f:spec': {} } }],
  },
  spec: { ports: [{ name: 'http', port: 80 }, { name: 'https', port: 443 }], selector: { app: 'web' }, clusterIP: null },
});

function ok(r: LuaMatchResult): { matching: boolean; message: string } {
  assert.ok(r.ok, r.ok ? '' : `${r.failure.stage}: ${r.failure.message}`);
  return { matching: r.matching, message: r.message };
}

function message(script: string, obj: Record<string, unknown> = svc()): string {
  return ok(rt.evaluate(`function evaluate() return {matching = true, message = ${script}} end`, obj)).message;
}

test('globals set by one evaluation are not visible to the next', () => {
  ok(rt.evaluate('leaked = "yes"; function evaluate() seen = true return {matching = true} end', svc()));
  assert.equal(message('tostring(leaked) .. tostring(seen)'), 'nilnil');
});

test('a script that mutates obj never affects another evaluation of the same object', () => {
  const obj = svc();
  ok(rt.evaluate('function evaluate() obj.metadata.name = "changed"; obj.spec.ports[1] = nil; obj.metadata.labels.x = "y" return {matching = true} end', obj));
  assert.equal(message('obj.metadata.name .. #obj.spec.ports .. tostring(obj.metadata.labels.x)', obj), 'web2nil');
  assert.equal(obj.metadata.name, 'web', 'the JS object is never written');
});

test('patching a library table is undone after the evaluation', () => {
  ok(rt.evaluate('string.upper = function() return "patched" end; function string.trim(s) return s end; function evaluate() return {matching = string.upper("a") == "patched"} end', svc()));
  assert.equal(message('string.upper("a") .. tostring(string.trim) .. ("b"):upper()'), 'AnilB');
});

test('library and environment metatables cannot be reached', () => {
  assert.equal(message('tostring(getmetatable(_G)) .. tostring(getmetatable(string)) .. tostring(getmetatable(""))'), 'falsefalsefalse');
  const r = rt.evaluate('function evaluate() setmetatable(_G, {}) return {matching = true} end', svc());
  assert.equal(r.ok, false);
});

test('the sandbox has no io, debug, os.execute, file loading or binary chunks', () => {
  assert.equal(message('type(io) .. type(debug) .. type(os.execute) .. type(os.exit) .. type(os.getenv) .. type(dofile) .. type(loadfile)'), 'nilnilnilnilnilnilnil');
  assert.equal(message('tostring(select(2, load("\\27Lua")) ~= nil)'), 'true');
  assert.match(message('select(2, pcall(require, "os"))'), /module 'os' not found/);
  const noHelpers = rt.evaluate('function evaluate() return {matching = true, message = select(2, pcall(require, "json"))} end', svc(), { helpers: false });
  assert.match(ok(noHelpers).message, /module 'json' not found/);
});

test('helpers and modules are available by default', () => {
  const r = ok(rt.evaluate('function evaluate() local json = require("json") return {matching = getLabel(obj, "app") == "web", message = json.encode(obj.spec.selector)} end', svc()));
  assert.deepEqual(r, { matching: true, message: '{"app":"web"}' });
  const plain = rt.evaluate('function evaluate() return {matching = getLabel == nil} end', svc(), { helpers: false });
  assert.deepEqual(ok(plain).matching, true);
});

test('os.time() reads the injected clock', () => {
  assert.equal(message('tostring(os.time())'), '1700000000');
});

test('an infinite loop stops at the instruction budget and the runtime stays usable', () => {
  const r = rt.evaluate('function evaluate() local i = 0 while true do i = i + 1 end end', svc());
  assert.equal(r.ok, false);
  if (!r.ok) {
    assert.equal(r.failure.stage, 'timeout');
    assert.equal(r.failure.line, 1);
  }
  const caught = rt.evaluate('function evaluate() while true do pcall(function() while true do end end) end end', svc());
  assert.equal(caught.ok ? 'ok' : caught.failure.stage, 'timeout', 'pcall cannot swallow the budget');
  assert.equal(message('"still " .. "alive"'), 'still alive');
});

test('memory exhaustion is a "memory" failure and the runtime stays usable', () => {
  const r = rt.evaluate('function evaluate() local t = {} for i = 1, 1e7 do t[i] = ("x"):rep(10000) .. i end end', svc());
  assert.equal(r.ok ? 'ok' : r.failure.stage, 'memory');
  const big = rt.evaluate('function evaluate() return {message = ("x"):rep(1e9)} end', svc());
  assert.equal(big.ok ? 'ok' : big.failure.stage, 'memory');
  assert.equal(message('"fine"'), 'fine');
});

test('syntax and runtime errors carry the script line', () => {
  const syntax = rt.evaluate('function evaluate()\n  return {matching = true\nend', svc());
  assert.equal(syntax.ok, false);
  if (!syntax.ok) assert.deepEqual([syntax.failure.stage, syntax.failure.line], ['load', 3]);
  const runtime = rt.evaluate('function evaluate()\n  local x = 1\n  return obj.status.loadBalancer\nend', svc());
  assert.equal(runtime.ok, false);
  if (!runtime.ok) {
    assert.deepEqual([runtime.failure.stage, runtime.failure.line], ['call', 3]);
    assert.match(runtime.failure.message, /^<string>:3: attempt to index a nil value \(field 'status'\)/);
  }
});

test('wrong result types are "result" failures', () => {
  for (const [script, pattern] of [
    ['return "true"', /not a lua table/],
    ['return {matching = "true"}', /cannot unmarshal string into Go struct field eventMatchStatus.matching of type bool/],
    ['return {true}', /cannot unmarshal array/],
    ['return {matching = true, message = 5}', /message of type string/],
    ['return {matching = true, f = print}', /unsupported type/],
    ['local t = {} t.self = t return {matching = true, t = t}', /nesting too deep/],
  ] as const) {
    const r = rt.evaluate(`function evaluate() ${script} end`, svc());
    assert.equal(r.ok, false, script);
    if (!r.ok) {
      assert.equal(r.failure.stage, 'result', script);
      assert.match(r.failure.message, pattern, script);
    }
  }
});

test('integers stay integers, floats print the gopher-lua way', () => {
  assert.equal(message('tostring(obj.spec.ports[2].port) .. " " .. math.type(obj.spec.ports[2].port) .. " " .. tostring(obj.spec.ports[2].port == 443)'), '443 integer true');
  assert.equal(message('tostring(10/2) .. " " .. tostring(0.1) .. " " .. string.format("%s %d", 7/2, 7.9)'), '5 0.1 3.5 7');
});

test('managedFields and null fields are absent; arrays keep integers', () => {
  assert.equal(message('tostring(obj.metadata.managedFields) .. tostring(obj.spec.clusterIP)'), 'nilnil');
  assert.equal(message('#obj.spec.v .. ":" .. obj.spec.v[1] .. "," .. obj.spec.v[2] .. "," .. type(obj.spec.v[3]) .. obj.spec.v[3][1]', { spec: { v: [80, null, 443, [1]] } }), '3:80,443,table1');
});

test('lazy tables behave like ordinary tables for next, rawget, #, pairs, ipairs and table functions', () => {
  assert.equal(message('tostring(next(obj.spec.selector)) .. tostring(rawget(obj.metadata, "name")) .. #obj.spec.ports .. tostring(rawlen(obj.spec.ports))'), 'appweb22');
  assert.equal(message('(function() local n = 0 for _, p in ipairs(obj.spec.ports) do n = n + p.port end return tostring(n) end)()'), '523');
  assert.equal(message('(function() local t = {} for _, p in pairs(obj.spec.ports) do t[#t+1] = p.name end table.sort(t) return table.concat(t, ",") end)()'), 'http,https');
  assert.equal(message('(function() table.insert(obj.spec.ports, {name = "x"}) return tostring(#obj.spec.ports) .. obj.spec.ports[3].name end)()'), '3x');
  assert.equal(message('tostring(getmetatable(obj.spec))'), 'nil');
  assert.equal(message('(function() setmetatable(obj.spec, {__index = function() return "dflt" end}) return obj.spec.nothing .. obj.spec.selector.app end)()'), 'dfltweb');
});

test('evaluate receives obj as its parameter too, and top-level code runs before obj exists', () => {
  assert.deepEqual(ok(rt.evaluate('local early = obj == nil\nfunction evaluate(o) return {matching = early and o == obj, message = o.metadata.name} end', svc())), { matching: true, message: 'web' });
});

test('print output is captured per evaluation', () => {
  const r = rt.evaluate('function evaluate() print("hello", 1, 2.5, nil, true) return {matching = true} end', svc());
  assert.ok(r.ok);
  assert.deepEqual(r.output, ['hello\t1\t2.5\tnil\ttrue']);
  const next = rt.evaluate('function evaluate() return {matching = true} end', svc());
  assert.deepEqual(next.output, []);
});

test('aggregate returns the objects the script selects, whole (including fields scripts never see)', () => {
  const a = { ...svc(), metadata: { ...svc().metadata, name: 'a' } };
  const b = { ...svc(), metadata: { ...svc().metadata, name: 'b' } };
  const r = rt.aggregate('function evaluate() local hs = {resources = {}} for _, o in ipairs(resources) do if o.metadata.name == "b" then table.insert(hs.resources, o) end end hs.message = "one" return hs end', [a, b]);
  assert.ok(r.ok, r.ok ? '' : r.failure.message);
  assert.equal(r.resources.length, 1);
  assert.equal((r.resources[0].metadata as { name: string }).name, 'b');
  assert.ok(Array.isArray((r.resources[0].metadata as { managedFields?: unknown[] }).managedFields), 'untouched objects come back whole');
  assert.equal(r.message, 'one');
  const empty = rt.aggregate('function evaluate() return {resources = {}} end', [a]);
  assert.equal(empty.ok ? 'ok' : empty.failure.stage, 'result', 'an empty table is an object, as in Sveltos');
  const none = rt.aggregate('function evaluate() return {} end', [a]);
  assert.deepEqual(none.ok ? none.resources : none.failure, []);
  const built = rt.aggregate('function evaluate() return {resources = {{apiVersion = "v1", kind = "ConfigMap", metadata = {name = "x"}}}} end', []);
  assert.deepEqual(built.ok ? built.resources : built.failure, [{ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'x' } }]);
});

test('compiled scripts are cached by source', () => {
  const before = rt.stats().compiledScripts;
  const c1 = rt.compile('function evaluate() return {matching = true} end -- cache probe');
  const c2 = rt.compile('function evaluate() return {matching = true} end -- cache probe');
  assert.ok(c1.ok && c2.ok);
  assert.equal(c1.script, c2.script);
  assert.equal(rt.stats().compiledScripts, before + 1);
});

test('5.1 shims', () => {
  assert.equal(message('tostring(select("#", unpack({1, 2, 3}))) .. table.getn({1, 2}) .. math.mod(7, 3) .. tostring(math.pow(2, 3))'), '3218');
  assert.equal(message('tostring(loadstring("return 40 + 2")()) .. string.gsub("a b", "%a", string.upper)'), '42A B');
  assert.equal(message('(function() local t = {} for w in string.gfind("x y", "%a") do t[#t+1] = w end return table.concat(t) end)()'), 'xy');
});

test('fields converted one at a time keep script writes when the rest of the level is converted', () => {
  assert.equal(
    message('(function() local s = obj.spec local p = s.ports s.ports = nil s.extra = 1 s.clusterIP = "set" local keys = {} for k in pairs(s) do keys[#keys + 1] = k end table.sort(keys) return table.concat(keys, ",") .. " " .. tostring(s.ports) .. " " .. #p end)()'),
    'clusterIP,extra,selector nil 2',
  );
  assert.equal(message('(function() local m = obj.metadata local n = m.name m.name = "x" return require("json").encode({name = m.name, ns = m.namespace, was = n}) end)()'), '{"name":"x","ns":"default","was":"web"}');
  assert.equal(message('(function() obj.metadata.labels.app = "changed" return require("json").encode(obj.metadata.labels) end)()'), '{"app":"changed"}');
});
