// The Lua-written pattern matcher agrees with Lua 5.4's C matcher (compared in one bare wasmoon state), and a
// catastrophic pattern stops at the script's instruction budget instead of stalling the process.
import { strict as assert } from 'node:assert';
import { before, test } from 'node:test';
import { LuaFactory } from 'wasmoon';
import { createLuaRuntime, type LuaRuntime } from './index.js';
import { PATTERNS } from './patterns.js';

// Each case is `fn|subject|pattern|more args`; results (or error messages) of both matchers are
// compared as strings.
const CASES: string[] = [
  'find|hello world|o w', 'find|hello world|l+', 'find|hello world|(l+)(o)', 'find|hello|l*', 'find|hello|x*', 'find|hello|^h.-o',
  'find|hello|h?ello', 'find|hello|%a+$', 'find|  key = value  |^%s*(.-)%s*=%s*(.-)%s*$', 'find|hello|()ll()', 'find|hello|l+|-2',
  'find|hello|l+|10', 'find|hello|l+|-10', 'find|a.b|.|1,true', 'find|f(a(b)c)d|%b()', 'find|THE (quick) fox|%f[%a]%a+',
  'find|THE (quick) fox|%f[%a]%a+|5', 'find|abcabc|(a)(b)c%1%2', 'find|x=1, y=22|(%w+)=(%d+)', 'find|[x]|[%]]+', 'find|a-b|[a%-]+',
  'find|0x1F|%x+', 'find|tab\there|%c', 'find|ABCdef|%u+', 'find|ABCdef|%l+', 'find|a,b;c|%p', 'find|a1 b2|%W+', 'find|abc|[^b]+',
  'find|abc|[a-b]+', 'find||a*', 'find||^$', 'find|abc|$', 'find|a$b|$b', 'find|aaa|a-$', 'find|hello|(h)(e)(l)(l)(o)',
  'match|hello world|(%w+) (%w+)', 'match|2024-01-05|(%d+)-(%d+)-(%d+)', 'match|key=val|^(%w+)=(%w*)$', 'match|abc|()b()', 'match|abc|.-',
  'match|abc|b*', 'match|  trim  |^%s*(.-)%s*$', 'match|abc|x+', 'match|hello|l+|4',
  'gsub|hello world|o|0', 'gsub|hello world|(%w+)|<%1>', 'gsub|hello world|%w+|%0 %0|1', 'gsub|abc|%w|%%', 'gsub|hello|l*|-',
  'gsub|abc||-', 'gsub|hello world|(%w+) (%w+)|%2 %1', 'gsub|a.b.c|%.|/', 'gsub|$x and $y|%$(%w+)|{x="1"}', 'gsub|abc|%w|function(c) return c:upper() .. "." end',
  'gsub|abc|%w|function(c) return nil end', 'gsub|abc|%w|function(c) return false end', 'gsub|abc|^a|X', 'gsub|abc|()|[%1]', 'gsub|hello|l+|%2',
  'gsub|hello|l+|%x', 'gsub|abc|(|x', 'gsub|abc|%|x', 'gsub|abc|[a|x', 'gsub|abc|%f|x', 'gsub|abc|%b|x', 'gsub|aaa|a|b|2', 'gsub|abc|b+|{}',
  'gsub|abc|b+|function() return {} end', 'gsub|abc|(b)%2|x', 'gsub|abc|a)|x',
  'gmatch|one two  three|%a+', 'gmatch|k1=v1, k2=v2|(%w+)=(%w+)', 'gmatch|abc|()', 'gmatch|hello|l*', 'gmatch|a,b,,c|([^,]*)', 'gmatch|abc|.|2',
];

// gsub's fourth field is the replacement: a Lua expression when it starts with { or function, else a string; any
// other extra field is a Lua expression.
function luaCase(c: string): string {
  const [fn, subject, pattern, ...extra] = c.split('|');
  const lit = (x: string) => (fn === 'gsub' && x === extra[0] && !/^(\{|function)/.test(x) ? JSON.stringify(x) : x);
  const args = [JSON.stringify(subject), JSON.stringify(pattern), ...extra.map(lit)].join(', ');
  // Not a tail call: the error position (the caller's line) must survive, as in a script.
  return `{ ${JSON.stringify(fn)}, function(lib) local r = table.pack(lib.${fn}(${args})) return table.unpack(r, 1, r.n) end }`;
}

const COMPARE = `
local stringlib = {}
local patterns_all_lua = true
${PATTERNS}
local function run(lib, fn, call)
  local r = table.pack(pcall(call, lib))
  if fn == "gmatch" and r[1] then
    local out, it = {}, r[2]
    for i = 1, 50 do
      local m = table.pack(pcall(it))
      if not m[1] then out[#out + 1] = "error: " .. tostring(m[2]) break end
      if m[2] == nil then break end
      local parts = {}
      for j = 2, m.n do parts[#parts + 1] = tostring(m[j]) end
      out[#out + 1] = "(" .. table.concat(parts, ",") .. ")"
    end
    return table.concat(out, " ")
  end
  if not r[1] then return "error: " .. tostring(r[2]) end
  local parts = {}
  for j = 2, r.n do parts[#parts + 1] = tostring(r[j]) end
  return table.concat(parts, ",")
end
local mismatches = {}
for _, c in ipairs(CASES) do
  local want = run(string, c[1], c[2])
  local got = run(stringlib, c[1], c[2])
  if want ~= got then mismatches[#mismatches + 1] = c[1] .. ": C " .. want .. " | Lua " .. got end
end
return table.concat(mismatches, "\\n")
`;

test('the Lua matcher gives the C matcher\'s results and error messages', async () => {
  const engine = await new LuaFactory().createEngine();
  try {
    const cases = CASES.map((c, i) => `CASES[${i + 1}] = ${luaCase(c)} -- ${c.replace(/\n/g, ' ')}`).join('\n');
    const mismatches = (await engine.doString(`CASES = {}\n${cases}\n${COMPARE}`)) as string;
    assert.equal(mismatches, '');
  } finally {
    engine.global.close();
  }
});

let rt: LuaRuntime;
before(async () => {
  rt = await createLuaRuntime({ instructionLimit: 2_000_000 });
});

const svc = { apiVersion: 'v1', kind: 'Service', metadata: { name: 's', namespace: 'default' } };

test('catastrophic patterns in find, match, gmatch and gsub stop at the instruction budget', () => {
  const subject = `("a"):rep(40)`;
  const calls = [
    `string.find(${subject}, ".-.-.-.-.-.-b")`,
    `(${subject}):match("a*a*a*a*a*a*a*b")`,
    `(function() for m in string.gmatch(${subject}, "a-a-a-a-a-a-b") do end end)()`,
    `string.gsub(${subject}, "a*a*a*a*a*a*b", "x")`,
    `pcall(string.find, ${subject}, ".-.-.-.-.-.-b")`,
    // One quantifier is quadratic on a long enough subject: it leaves C too.
    `string.find(("a"):rep(200000), "a*b")`,
  ];
  for (const call of calls) {
    const r = rt.evaluate(`function evaluate() local x = ${call} return {matching = true} end`, svc);
    assert.equal(r.ok ? 'ok' : r.failure.stage, 'timeout', call);
    if (!r.ok) assert.match(r.failure.message, /instruction budget exceeded/);
  }
  const fine = rt.evaluate('function evaluate() return {matching = ("name-123"):match("^name%-(%d+)$") == "123", message = ("a,b"):gsub(",", ";")} end', svc);
  assert.deepEqual(fine.ok && [fine.matching, fine.message], [true, 'a;b']);
});
