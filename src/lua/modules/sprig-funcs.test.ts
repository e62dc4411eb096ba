// The default `sprig` Lua module: src/funcs' Sprig behind lua-utils' calling conventions.
//
// The lua-oracle cannot produce goldens here: projectsveltos/lua-utils is not packaged for it (see
// /work/shared/oracles/README.md). The expectations below are therefore written from the lua-utils sources
// (glua-sprig/sprig.go: which Sprig function each name calls, how arguments are coerced, `value, nil` / `nil, err`
// returns, argument-error texts). Where the value itself is computed by Sprig (derivePassword, abbrev, wrapWith,
// snakecase, sortAlpha, quote, urlJoin, toDecimal, round, durationRound), it was checked against
// /work/shared/oracles/bin/gotemplate-oracle (Go + Sprig) with the same arguments.
import { strict as assert } from 'node:assert';
import { before, test } from 'node:test';
import { createLuaRuntime, createSprigProvider, SPRIG_LUA_FUNCTIONS, type LuaRuntime } from '../index.js';

// 2024-06-01T12:00:00Z = Unix 1717243200.
const clock = { now: () => Date.UTC(2024, 5, 1, 12, 0, 0) };
// A deterministic "random" source: every byte 7 (randInt, salts, IVs).
const random = { fill: (b: Uint8Array) => b.fill(7) };

let rt: LuaRuntime;
let seeded: LuaRuntime;
let noClock: LuaRuntime;
before(async () => {
  rt = await createLuaRuntime({ clock });
  seeded = await createLuaRuntime({ sprig: createSprigProvider({ clock, random }) });
  noClock = await createLuaRuntime();
});

function msg(expr: string, runtime = rt): string {
  const r = runtime.evaluate(`local sprig = require("sprig")\nfunction evaluate()\nreturn {message = ${expr}}\nend`, {});
  assert.ok(r.ok, r.ok ? '' : `${expr}: ${r.failure.stage}: ${r.failure.message}`);
  return r.message;
}
// pair shows a `value, err` return as "value|err" (tostring of each).
const pair = (call: string, runtime = rt) => msg(`(function() local v, e = ${call} return tostring(v) .. "|" .. tostring(e) end)()`, runtime);
// raised shows the message of a raised error, without the position of the calling line.
const raised = (call: string) => msg(`select(2, pcall(function() return ${call} end))`).replace(/^<string>:\d+: /, '');

test('the default runtime has every function lua-utils registers', () => {
  const names = [...Object.keys(SPRIG_LUA_FUNCTIONS), 'all', 'any', 'cat', 'coalesce', 'compact', 'empty', 'ternary', 'uniq'];
  assert.equal(names.length, 68);
  const missing = msg(`(function() local out = {} for _, n in ipairs({${names.map((n) => JSON.stringify(n)).join(', ')}}) do if type(sprig[n]) ~= "function" then out[#out + 1] = n end end return table.concat(out, ",") end)()`);
  assert.equal(missing, '');
});

test('strings: Sprig values with lua-utils argument order', () => {
  assert.equal(msg('sprig.trunc(3, "kubernetes") .. "|" .. sprig.trunc(-3, "kubernetes")'), 'kub|tes');
  assert.equal(msg('sprig.abbrev(5, "hello world") .. "|" .. sprig.abbrevboth(5, 10, "1234 5678 9123")'), 'he...|...5678...');
  assert.equal(msg('sprig.snakecase("FooBar") .. "|" .. sprig.kebabcase("FooBar") .. "|" .. sprig.swapcase("Hello") .. "|" .. sprig.initials("hello big world")'), 'foo_bar|foo-bar|hELLO|hbw');
  // lua-utils: wrapWith(width, text, separator) calls Sprig's wrapWith(width, separator, text).
  assert.equal(msg('sprig.wrapWith(5, "Hello World", "<br>") .. "|" .. sprig.wrap(5, "Hello World")'), 'Hello<br>World|Hello\nWorld');
  assert.equal(msg('sprig.nindent(2, "a\\nb") .. "|" .. sprig.indent(2, "a") .. "|" .. sprig.nospace("a b c") .. "|" .. sprig.untitle("Hello World")'), '\n  a\n  b|  a|abc|hello world');
  // lua-utils clamps substr's indexes to the string's bytes; an empty range is "".
  assert.equal(msg('sprig.substr(1, 100, "hello") .. "|" .. sprig.substr(-2, 2, "hello") .. "|" .. sprig.substr(7, 9, "hello") .. "|" .. sprig.substr(3, 1, "hello")'), 'ello|he||');
  assert.equal(msg('sprig.plural("one", "many", 1) .. sprig.plural("one", "many", 2)'), 'onemany');
  assert.equal(msg('sprig.derivePassword(1, "long", "password", "user", "example.com")'), 'ZedaFaxcZaso9*');
});

test('hashes, encodings, paths', () => {
  assert.equal(msg('sprig.sha256sum("x")'), '2d711642b726b04401627ca9fbac32f5c8530fb1903cc4db02258717921a4881');
  assert.equal(msg('sprig.adler32sum("x") .. "|" .. sprig.sha1sum("") .. "|" .. #sprig.sha512sum("x")'), '7929977|da39a3ee5e6b4b0d3255bfef95601890afd80709|128');
  assert.equal(msg('sprig.b64enc("fv") .. "|" .. sprig.b32enc("hi")'), 'ZnY=|NBUQ====');
  assert.equal(pair('sprig.b64dec("aGVsbG8=")'), 'hello|nil');
  assert.equal(pair('sprig.b32dec("NBUQ====")'), 'hi|nil');
  // Sprig's b64dec returns the error text as its value; lua-utils returns nil and "b64dec: <Go error>".
  assert.equal(pair('sprig.b64dec("@@")'), 'nil|b64dec: illegal base64 data at input byte 0');
  assert.equal(pair('sprig.b32dec("x")'), 'nil|b32dec: illegal base32 data at input byte 0');
  // Decoded data is a Lua byte string: bytes that are not UTF-8 stay as they are.
  assert.equal(msg('(function() local s = sprig.b64dec("AP8=") return #s .. ":" .. string.byte(s, 1) .. "," .. string.byte(s, 2) end)()'), '2:0,255');
  assert.equal(msg('sprig.base("/a/b.txt") .. sprig.dir("/a/b.txt") .. sprig.ext("b.tar.gz") .. sprig.clean("/a/../b") .. tostring(sprig.isAbs("/a")) .. tostring(sprig.osIsAbs("a"))'), 'b.txt/a.gz/btruefalse');
});

test('lists: table arguments, lua-utils coercions, native functions', () => {
  assert.equal(msg('sprig.quote({"a", 1, 2.5, true}) .. "|" .. sprig.squote({"a", 1, 2.5, true})'), `"a" "1" "2.5" "true"|'a' '1' '2.5' 'true'`);
  assert.equal(msg('sprig.seq({1, 5}) .. "|" .. sprig.seq({5, "x", 1}) .. "|" .. sprig.seq({0, 2, 7})'), '1 2 3 4 5|5 4 3 2 1|0 2 4 6');
  // sortAlpha sorts the values as strings (numbers printed as gopher-lua prints them); a lone value is one element.
  assert.equal(msg('table.concat(sprig.sortAlpha({"b", "a", 10, 9, 1.5}), ",") .. "|" .. table.concat(sprig.sortAlpha("x"), ",") .. "|" .. table.concat(sprig.sortAlpha(42), ",")'), '1.5,10,9,a,b|x|42');
  assert.equal(msg('table.concat(sprig.uniq({"a", "b", "a", 1, 1}), ",") .. "|" .. table.concat(sprig.compact({"a", "", 0, false, "b"}), ",")'), 'a,b,1|a,b');
  assert.equal(msg('tostring(sprig.all({1, "x", true})) .. tostring(sprig.all({1, ""})) .. tostring(sprig.any({0, "", "y"})) .. tostring(sprig.empty({}))'), 'truefalsetruetrue');
  assert.equal(msg('sprig.coalesce(nil, "", 0, "first") .. sprig.ternary("y", "n", false) .. sprig.cat("a", nil, 1, 2.5)'), 'firstna 1 2.5');
});

test('regex: Sprig must* semantics, `value, nil` or `nil, err`', () => {
  assert.equal(pair('sprig.regexMatch("^web-[0-9]+$", "web-12")'), 'true|nil');
  assert.equal(pair('sprig.regexMatch("^web-", "api-1")'), 'false|nil');
  assert.equal(pair('sprig.regexMatch("(", "x")'), 'nil|error parsing regexp: missing closing ): `(`');
  assert.equal(pair('sprig.regexFind("[0-9]+", "ab123cd45")'), '123|nil');
  assert.equal(msg('table.concat(sprig.regexFindAll("[0-9]+", "a1b22c333", -1), ",") .. "|" .. #sprig.regexFindAll("[0-9]+", "a1b22c333", 2)'), '1,22,333|2');
  assert.equal(msg('table.concat(sprig.regexSplit(",", "a,b,c", 2), "|")'), 'a|b,c');
  assert.equal(pair('sprig.regexReplaceAll("a(x*)b", "-ab-axxb-", "${1}W")'), '-W-xxW-|nil');
  assert.equal(pair('sprig.regexReplaceAllLiteral("a(x*)b", "-ab-axxb-", "${1}")'), '-${1}-${1}-|nil');
  assert.equal(pair('sprig.regexFindAll("[", "x", -1)'), 'nil|error parsing regexp: missing closing ]: `[`');
  assert.equal(pair('sprig.regexSplit("(?<n>", "x", -1)').startsWith('nil|error parsing regexp'), true);
});

test('semver: semverCompare returns its error as the second value', () => {
  assert.equal(pair('sprig.semverCompare(">=1.2.0", "1.3.0")'), 'true|nil');
  assert.equal(pair('sprig.semverCompare("~1.2", "1.3.0")'), 'false|nil');
  assert.equal(pair('sprig.semverCompare(">=1.2.0", "bad")'), 'nil|Invalid Semantic Version');
  assert.match(pair('sprig.semverCompare("!!", "1.0.0")'), /^nil\|improper constraint: !!$/);
});

test('numbers, durations and time: lua-utils coercions before Sprig', () => {
  // toDecimal parses the octal text of the value; a Lua number is printed first (17 → "17" → 15).
  assert.equal(msg('sprig.toDecimal("777") .. "|" .. sprig.toDecimal(17) .. "|" .. sprig.toDecimal(true) .. "|" .. sprig.toDecimal("9")'), '511|15|1|0');
  assert.equal(msg('tostring(sprig.round(3.14159, 2)) .. "|" .. tostring(sprig.round("2.5", 0)) .. "|" .. tostring(sprig.round(2.5, 0, 0.6))'), '3.14|3|2');
  // duration takes seconds (lua-utils' own implementation: Lua numbers and base-10 strings count).
  assert.equal(msg('sprig.duration(95) .. "|" .. sprig.duration("3600") .. "|" .. sprig.duration("x") .. "|" .. sprig.duration(1.9)'), '1m35s|1h0m0s|0s|1s');
  assert.equal(msg('sprig.durationRound("2h10m") .. "|" .. sprig.durationRound(3700) .. "|" .. sprig.durationRound(nil) .. "|" .. sprig.durationRound("bad")'), '2h|1h|0s|0s');
  assert.equal(msg('sprig.ago(1717243000) .. "|" .. sprig.ago(1717243200)'), '3m20s|0s');
  assert.equal(raised('sprig.ago("yesterday")'), "bad argument #1 to 'ago' (ago requires a number (Unix timestamp))");
  const r = noClock.evaluate('function evaluate() return {message = select(2, pcall(require("sprig").ago, 1))} end', {});
  assert.ok(r.ok);
  assert.match(r.message, /^ago: no clock configured: pass LuaRuntimeOptions\.clock/);
});

test('randomness comes from the injected source; randInt of an empty range is min', () => {
  assert.equal(msg('sprig.randInt(5, 5) .. "|" .. sprig.randInt(9, 3)'), '5|9');
  const v = Number(msg('tostring(sprig.randInt(10, 20))', seeded));
  assert.ok(v >= 10 && v < 20, `randInt(10, 20) = ${v}`);
  assert.equal(msg('tostring(sprig.randInt(10, 20))', seeded), String(v), 'the same random bytes give the same number');
  assert.equal(msg('#sprig.shuffle("abcdef") .. "|" .. tostring(#sprig.bcrypt("pw") == 60)', seeded), '6|true');
  assert.equal(pair('sprig.decryptAES("secret", sprig.encryptAES("secret", "plain text"))', seeded), 'plain text|nil');
  assert.equal(pair('sprig.decryptAES("secret", "@@")'), 'nil|illegal base64 data at input byte 0');
  assert.match(msg('sprig.genPrivateKey("ecdsa")'), /^-----BEGIN EC PRIVATE KEY-----\n/);
});

test('urls: urlJoin reads string keys, urlParse prints every field', () => {
  assert.equal(msg('sprig.urlJoin({scheme = "https", host = "example.com", path = "/a", query = "x=1", port = 1})'), 'https://example.com/a?x=1');
  assert.equal(msg('(function() local u = sprig.urlParse("https://u:p@example.com:8080/p?q=1#f") return u.scheme .. "|" .. u.host .. "|" .. u.hostname .. "|" .. u.path .. "|" .. u.query .. "|" .. u.fragment .. "|" .. u.userinfo .. "|" .. u.opaque .. "|" end)()'), 'https|example.com:8080|example.com|/p|q=1|f|u:p||');
  assert.equal(raised('sprig.urlParse("::")'), 'urlParse: unable to parse url: parse "::": missing protocol scheme');
});

test('argument errors carry lua-utils texts', () => {
  assert.equal(raised('sprig.trunc(3)'), "bad argument #1 to 'trunc' (trunc requires 2 arguments)");
  assert.equal(raised('sprig.b64enc()'), "bad argument #1 to 'b64enc' (b64enc requires 1 arguments)");
  assert.equal(raised('sprig.sortAlpha()'), "bad argument #1 to 'sortAlpha' (sortAlpha requires 1 argument)");
  assert.equal(raised('sprig.round(1)'), "bad argument #1 to 'round' (round requires at least 2 arguments: value and precision)");
  assert.equal(raised('sprig.plural("a", "b")'), "bad argument #1 to 'plural' (plural requires 3 arguments: singular, plural, count)");
  assert.equal(raised('sprig.regexSplit("a", "b")'), "bad argument #1 to 'regexSplit' (mustRegexSplit requires 3 arguments)");
  assert.equal(raised('sprig.coalesce()'), "bad argument #1 to 'coalesce' (coalesce requires at least 1 argument)");
  assert.equal(raised('sprig.all()'), "bad argument #1 to 'all' (all requires 1 arguments)");
  assert.equal(raised('sprig.trunc("x", "y")'), "bad argument #1 to 'trunc' (number expected, got string)");
});

test('an EventSource script can use sprig through the default runtime', async () => {
  const plain = await createLuaRuntime();
  const script = `local sprig = require("sprig")
function evaluate()
  local ok, err = sprig.regexMatch("^web-[0-9]+$", obj.metadata.name)
  if err ~= nil then return {matching = false, message = err} end
  return {matching = ok, message = sprig.trunc(5, obj.metadata.name)}
end`;
  const r = plain.evaluate(script, { metadata: { name: 'web-123' } });
  assert.deepEqual(r.ok ? [r.matching, r.message] : r.failure, [true, 'web-1']);
  plain.close();
});
