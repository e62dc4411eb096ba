// The Lua modules scripts load with require (projectsveltos/lua-utils semantics): json, strings, runes, and sprig
// backed by an injected provider.
import { strict as assert } from 'node:assert';
import { before, test } from 'node:test';
import { createLuaRuntime, type LuaRuntime, type LuaSprigProvider } from '../index.js';

// A small provider standing in for src/funcs: a few Sprig functions with Sprig's behaviour.
const provider: LuaSprigProvider = {
  sprigFunction(name) {
    const fns: Record<string, (...a: unknown[]) => unknown> = {
      upper: (s) => String(s).toUpperCase(),
      trunc: (n, s) => String(s).slice(0, Number(n)),
      regexMatch: (re, s) => {
        try {
          return new RegExp(String(re)).test(String(s));
        } catch {
          throw new Error(`error parsing regexp: ${String(re)}`);
        }
      },
      semverCompare: (c, v) => {
        if (!/^\d+\.\d+\.\d+$/.test(String(v))) throw new Error('Invalid Semantic Version');
        return String(c).replace(/^>=/, '') <= String(v);
      },
      quote: (...xs) => xs.map((x) => JSON.stringify(String(x))).join(' '),
      b64enc: (s) => Buffer.from(String(s)).toString('base64'),
    };
    return fns[name];
  },
};

let rt: LuaRuntime;
let plain: LuaRuntime;
before(async () => {
  rt = await createLuaRuntime({ sprig: provider });
  plain = await createLuaRuntime({ sprig: false });
});

function run(body: string, obj: Record<string, unknown> = {}, runtime = rt): string {
  const r = runtime.evaluate(`function evaluate()\n${body}\nend`, obj);
  assert.ok(r.ok, r.ok ? '' : `${r.failure.stage}: ${r.failure.message}`);
  return r.message;
}
const msg = (expr: string, obj?: Record<string, unknown>) => run(`return {matching = true, message = ${expr}}`, obj);

test('json.encode: Go encoding (sorted keys, [] for empty tables), errors as nil + message', () => {
  assert.equal(msg('require("json").encode({b = 1, a = {true, 1.5, "x<y"}, c = {}})'), '{"a":[true,1.5,"x\\u003cy"],"b":1,"c":[]}');
  assert.equal(msg('require("json").encode(obj.spec)', { spec: { z: 1, a: [1, null, 2], n: null } }), '{"a":[1,2],"z":1}');
  assert.equal(msg('select(2, require("json").encode({1, 2, nil, 4}))'), 'json: error calling MarshalJSON for type json.jsonValue: cannot encode sparse array');
  assert.equal(msg('select(2, require("json").encode({1, a = 2}))'), 'json: error calling MarshalJSON for type json.jsonValue: cannot encode mixed or invalid key types');
  assert.match(msg('select(2, require("json").encode({f = print}))'), /cannot encode function to JSON$/);
  assert.match(msg('(function() local t = {} t.t = t return select(2, require("json").encode(t)) end)()'), /recursively nested/);
});

test('json.decode, fromYAML, toYAML', () => {
  assert.equal(msg('(function() local v = require("json").decode(\'{"a":[1,2,{"b":"c"}],"n":null}\') return v.a[3].b .. #v.a .. tostring(v.n) .. math.type(v.a[1]) end)()'), 'c3nilinteger');
  assert.equal(msg('tostring(select(2, require("json").decode("{bad")) ~= nil)'), 'true');
  assert.equal(msg('(function() local v = require("json").fromYAML("a: 1\\nb: [x, z]\\nc: yes") return v.a .. v.b[2] .. tostring(v.c) end)()'), '1ztrue');
  assert.equal(msg('require("json").toYAML({name = "web", ports = {80, 443}})'), 'name: web\nports:\n- 80\n- 443\n');
});

test('strings: Go strings functions with Go indexes', () => {
  const s = 'local strings = require("strings")\n';
  assert.equal(run(s + 'return {message = tostring(strings.Contains("kubernetes", "net")) .. strings.ToUpper("a") .. strings.Index("héllo", "l") .. strings.Index("x", "y")}'), 'trueA3-1');
  assert.equal(run(s + 'return {message = table.concat(strings.Split("a,b,,c", ","), "|") .. " " .. #strings.Split("", ",") .. " " .. table.concat(strings.SplitN("a,b,c", ",", 2), "|")}'), 'a|b||c 1 a|b,c');
  assert.equal(run(s + 'return {message = strings.Replace("aaaa", "a", "b", 2) .. strings.ReplaceAll("aaaa", "a", "b") .. strings.TrimSpace("  x  ") .. strings.Trim("xxhixx", "x") .. strings.TrimPrefix("v1.2", "v")}'), 'bbaabbbbxhi1.2');
  assert.equal(run(s + 'return {message = table.concat(strings.Fields("  a b\\tc  "), ",") .. strings.Join({"a", "b", 3}, "-") .. strings.Title("hello world") .. strings.Repeat("ab", 2)}'), 'a,b,ca-bHello Worldabab');
  assert.equal(run(s + 'local c = strings.Cut("k=v", "=") return {message = c.before .. c.after .. tostring(c.found) .. tostring(strings.HasPrefix("abc", "ab")) .. tostring(strings.EqualFold("Go", "GO"))}'), 'kvtruetruetrue');
  assert.equal(run(s + 'return {message = strings.TrimFunc("123abc456", function(r) return r >= 48 and r <= 57 end) .. strings.Map(function(r) if r == 97 then return -1 end return r end, "banana")}'), 'abcbnn');
  const bad = rt.evaluate('function evaluate() return {message = require("strings").Repeat("x", -1)} end', {});
  assert.equal(bad.ok ? 'ok' : bad.failure.stage, 'call');
});

test('runes: code point helpers with 1-based positions', () => {
  const r = 'local runes = require("runes")\n';
  assert.equal(run(r + 'return {message = runes.runecount("héllo") .. " " .. runes.runeat("héllo", 2) .. " " .. tostring(runes.isdigit(55)) .. tostring(runes.isupper(97)) .. " " .. runes.reverserunes("abc")}'), '5 233 truefalse cba');
  assert.equal(run(r + 'return {message = runes.runerange("héllo", 2, 4) .. runes.runestring(72, 105) .. table.concat(runes.runesplit("a-b-c", 45), ",") .. tostring(runes.runeindex("abc", 99)) .. tostring(runes.runewidth(233))}'), 'élHia,b,c32');
  assert.equal(run(r + 'return {message = table.concat(runes.stringtobytes("hé"), ",") .. runes.bytetostring({104, 105}) .. tostring(runes.isvalidutf8("ok")) .. runes.toupper(97)}'), '104,195,169hitrue65');
});

test('sprig: provider-backed functions with lua-utils conventions, native Lua-value functions', () => {
  const s = 'local sprig = require("sprig")\n';
  assert.equal(run(s + 'return {message = sprig.trunc(3, "kubernetes") .. sprig.b64enc("fv") .. sprig.quote({"a", 1})}'), 'kubZnY="a" "1"');
  assert.equal(run(s + 'local ok, err = sprig.regexMatch("^web-", "web-1") return {message = tostring(ok) .. tostring(err)}'), 'truenil');
  assert.equal(run(s + 'local ok, err = sprig.semverCompare(">=1.2.0", "bad") return {message = tostring(ok) .. " " .. err}'), 'nil Invalid Semantic Version');
  assert.equal(run(s + 'return {message = tostring(sprig.empty("")) .. tostring(sprig.empty({})) .. tostring(sprig.empty(0)) .. tostring(sprig.empty("x")) .. sprig.coalesce(nil, "", "first", "second") .. sprig.ternary("y", "n", true) .. sprig.cat("a", nil, 1, 2.5)}'), 'truetruetruefalsefirstya 1 2.5');
  assert.equal(run(s + 'return {message = table.concat(sprig.compact({"a", "", "b"}), ",") .. table.concat(sprig.uniq({"a", "b", "a"}), ",") .. tostring(sprig.all({1, "x"})) .. tostring(sprig.any({0, ""}))}'), 'a,ba,btruefalse');
  assert.equal(run(s + 'return {message = tostring(sprig.nindent)}'), 'nil', 'functions the provider lacks are absent');
  const bad = rt.evaluate('function evaluate() return {message = require("sprig").trunc("x")} end', {});
  assert.equal(bad.ok ? 'ok' : bad.failure.stage, 'call');
});

test('without a provider, require("sprig") fails like an unknown module', () => {
  const r = plain.evaluate('function evaluate() return {message = select(2, pcall(require, "sprig"))} end', {});
  assert.ok(r.ok);
  assert.match(r.ok ? r.message : '', /module 'sprig' not found/);
});

test('modules are shared read-only views: writes never leak between evaluations', () => {
  run('local json = require("json") json.encode = nil json.extra = 1 return {}');
  assert.equal(msg('type(require("json").encode) .. tostring(require("json").extra)'), 'functionnil');
});

test('helpers read lazy objects without converting them, with the libsveltos messages', () => {
  const obj = { metadata: { labels: { app: 'web' }, annotations: { note: 'n' } } };
  assert.equal(msg('getLabel(obj, "app") .. getAnnotation(obj, "note") .. tostring(getLabel(obj, "x")) .. select(2, getLabel(obj))', obj), 'webnnilexpected 2 arguments (table, key)');
  assert.equal(msg('base64Decode(base64Encode("sveltos")) .. select(2, base64Decode("@@")) .. select(2, base64Encode(""))'), 'sveltosdeconding failedprovided string is empty');
});

test('module functions see the fields of lazily converted objects', () => {
  const obj = { spec: { args: ['a', 'b', 'c', 'd', 'e', 'f', 'g', 'h', 'i', 'j'], bytes: [104, 105, 104, 105, 104, 105, 104, 105, 104, 105] } };
  assert.equal(msg('require("strings").Join(obj.spec.args, "") .. require("runes").bytetostring(obj.spec.bytes)', obj), 'abcdefghijhihihihihi');
});
