// prelude: the Lua code that builds the sandbox once per state — the safe global table scripts see, Lua 5.1
// compatibility shims, lazy-table-aware versions of the raw functions, and copy-on-write guards on library tables.
//
// It runs once in the host state (which has the libraries opened) and returns the sandbox globals plus a cleanup
// function. Scripts never see the host globals: each evaluation gets a fresh environment whose __index is the
// sandbox table returned here, and whose metatable is protected.

import { PATTERNS } from './patterns.js';

/**
 * PRELUDE is called with (LAZY sentinel, materialize, goTostring, print, requireModule, requireNone, currentEnv,
 * markDirty, clockNow, helpers, upper, lower) and returns (G without helpers, G with helpers and modules, cleanup, guard).
 */
export const PRELUDE = String.raw`
local LAZY, materialize, gotostring, jsprint, requiremod, requirenone, currentenv, markdirty, clocknow, helpers, unicodeupper, unicodelower = ...
local getmt, setmt, rawnext, rawget_, rawset_, rawlen_, rawequal_ = getmetatable, setmetatable, next, rawget, rawset, rawlen, rawequal
local type, select, tostring, mtype, floor, ceil, huge = type, select, tostring, math.type, math.floor, math.ceil, math.huge
local load_, pack, unpack_ = load, table.pack, table.unpack


local function mat(t) if getmt(t) == LAZY then materialize(t) end return t end

local G = {}
for _, k in ipairs({"assert", "error", "ipairs", "pairs", "pcall", "select", "tonumber", "type", "xpcall", "_VERSION"}) do
  G[k] = _G[k]
end
G.next = function(t, k) return rawnext(mat(t), k) end
G.rawget = function(t, k) return rawget_(mat(t), k) end
G.rawset = function(t, k, v) return rawset_(mat(t), k, v) end
G.rawlen = function(t) return rawlen_(mat(t)) end
G.rawequal = rawequal_
G.getmetatable = function(v)
  local m = getmt(v)
  if m == LAZY then return nil end
  return m
end
G.setmetatable = function(t, m) return setmt(mat(t), m) end
-- tostring prints numbers the way gopher-lua does (Go's formatting: 10/2 -> "5", 1e15 -> "1000000000000000").
G.tostring = function(...)
  if select("#", ...) == 0 then error("bad argument #1 to 'tostring' (value expected)", 2) end
  local v = ...
  if mtype(v) == "float" then return gotostring(v) end
  return tostring(v)
end
G.print = jsprint
G.collectgarbage = function(opt)
  if opt == "count" then return collectgarbage("count") end
  return 0
end
-- load/loadstring compile text only (never bytecode) and default to the evaluation's environment.
G.load = function(chunk, name, mode, env)
  if env == nil then env = currentenv() end
  return load_(chunk, name or "=(load)", "t", env)
end
G.loadstring = function(s, name) return load_(s, name or s, "t", currentenv()) end
G.unpack = unpack_

local guarded = {}
-- guard returns a copy-on-write view of a library table: reads fall through to the real table, writes land in the
-- view and are wiped after the evaluation, so a script that patches string.trim never affects another evaluation.
local function guard(lib)
  local view = {}
  guarded[#guarded + 1] = view
  setmt(view, {
    __index = lib,
    __newindex = function(t, k, v) rawset_(t, k, v); markdirty() end,
    __pairs = function(t)
      local merged = {}
      for k, v in rawnext, lib do merged[k] = v end
      for k, v in rawnext, t do merged[k] = v end
      return rawnext, merged, nil
    end,
    __metatable = false,
  })
  return view
end

local function copy(t) local c = {} for k, v in pairs(t) do c[k] = v end return c end

-- Lua 5.1 names that 5.4 dropped, so scripts written for gopher-lua keep working.
local tablelib = copy(table)
tablelib.getn = function(t) return #t end
tablelib.maxn = function(t)
  local n = 0
  for k in pairs(mat(t)) do if mtype(k) and k > n then n = k end end
  return n
end
tablelib.foreach = function(t, f) for k, v in pairs(t) do local r = f(k, v) if r ~= nil then return r end end end
tablelib.foreachi = function(t, f) for i = 1, #t do local r = f(i, t[i]) if r ~= nil then return r end end end
tablelib.setn = function() error("'setn' is obsolete", 2) end

local mathlib = copy(math)
mathlib.mod = math.fmod
mathlib.pow = function(a, b) return a ^ b end
mathlib.log10 = function(x) return math.log(x, 10) end
mathlib.atan2 = function(y, x) return math.atan(y, x) end
mathlib.ldexp = function(m, e) return m * 2.0 ^ e end
mathlib.frexp = function(x)
  if x == 0 or x ~= x or x == huge or x == -huge then return x, 0 end
  local e = floor(math.log(math.abs(x), 2)) + 1
  local m = x / 2.0 ^ e
  if math.abs(m) >= 1 then m = m / 2; e = e + 1 elseif math.abs(m) < 0.5 then m = m * 2; e = e - 1 end
  return m, e
end
mathlib.cosh = function(x) return (math.exp(x) + math.exp(-x)) / 2 end
mathlib.sinh = function(x) return (math.exp(x) - math.exp(-x)) / 2 end
mathlib.tanh = function(x) local a, b = math.exp(x), math.exp(-x) return (a - b) / (a + b) end
-- gopher-lua's math.huge is the largest float64, not infinity (so tostring(math.huge) prints 1.797...e+308).
mathlib.huge = 1.7976931348623157e308

local stringlib = copy(string)
local cfind = string.find
-- find, match, gmatch, gsub (and 5.1's gfind) in Lua, under the instruction budget (src/lua/patterns.ts).
local patterns_all_lua = false
${PATTERNS}
-- gopher-lua upper/lower are Go's Unicode-aware strings.ToUpper/ToLower; Lua's are byte-wise in the C locale.
stringlib.upper = unicodeupper
stringlib.lower = unicodelower
stringlib.dump = nil
-- string.format: Lua 5.1 truncates a float for %d/%x/%c and prints numbers for %s like tostring.
local sformat = string.format
local intspec = { d = true, i = true, c = true, o = true, x = true, X = true }
stringlib.format = function(fmt, ...)
  local n = select("#", ...)
  if n == 0 or type(fmt) ~= "string" then return sformat(fmt, ...) end
  local args = pack(...)
  local i = 0
  local pos = 1
  while true do
    local s, e, conv = cfind(fmt, "%%[-+ #0]*%d*%.?%d*(.)", pos)
    if not s then break end
    pos = e + 1
    if conv ~= "%" then
      i = i + 1
      local v = args[i]
      if intspec[conv] and mtype(v) == "float" and v == v and v ~= huge and v ~= -huge then
        args[i] = v >= 0 and floor(v) or ceil(v)
      elseif conv == "s" and mtype(v) == "float" then
        args[i] = gotostring(v)
      end
    end
  end
  return sformat(fmt, unpack_(args, 1, args.n))
end

-- os: only the clock functions (no execute, exit, getenv, remove, rename, tmpname); os.time() reads the injected clock.
local ostime_ = os.time
local function ostime(t)
  if t == nil then
    local now = clocknow()
    if now then return now end
  end
  return ostime_(t)
end
local oslib = { time = ostime, clock = os.clock, date = os.date, difftime = os.difftime }

G.string = guard(stringlib)
G.table = guard(tablelib)
G.math = guard(mathlib)
G.utf8 = guard(utf8)
G.coroutine = guard(coroutine)
G.os = guard(oslib)
G._VERSION = "Lua 5.1"

-- Methods on strings ("x"):upper() use the guarded view, and the string metatable is not reachable.
local smt = getmt("")
smt.__index = G.string
smt.__metatable = false

local function cleanup()
  for _, view in ipairs(guarded) do
    for k in rawnext, view do rawset_(view, k, nil) end
  end
end

local GH = {}
for k, v in rawnext, G do GH[k] = v end
for k, v in rawnext, helpers do GH[k] = v end
G.require = requirenone
GH.require = requiremod

return G, GH, cleanup, guard
`;

/** CHUNKNAME makes error positions read `<string>:LINE:` like gopher-lua's. */
export const CHUNKNAME = '=<string>';
