// patterns: Lua's pattern matcher (string.find, match, gmatch, gsub) written in Lua, so that it runs under the
// script's instruction budget. The C matcher of the string library backtracks without ever returning to the VM: a
// pattern like ("a"):rep(30) .. "b" against ".-.-.-.-.-c" runs for minutes inside one C call, where no count hook
// fires. Here every step of the matcher is a Lua instruction, so the budget stops it like any other loop.
//
// The C functions still run whenever their worst case is small: backtracking costs at most about
// m × (n+1)^(q+u) × 2^o steps for a pattern of length m with q unbounded items (*, +, -, %b, back-references) and o
// optional ones (?), on a subject of length n, u = 1 unless the pattern is anchored (each start position is tried).
// When that bound is under a million steps (a few milliseconds of C) the call goes to C; otherwise here, where the
// budget applies. Names, labels and short values with a couple of quantifiers stay on the fast path.
//
// Ported from Lua 5.4's lstrlib.c (match, max_expand, min_expand, classEnd, matchbracketclass, str_find_aux,
// gmatch_aux, add_value), with its error messages.

/** PATTERNS is a Lua block that expects locals `stringlib` (the sandbox's string table) and `patterns_all_lua` (true:
 * never use the C matcher; tests compare both) and replaces stringlib's find, match, gmatch, gsub and gfind with
 * budgeted versions. */
export const PATTERNS = String.raw`
do
  local byte, sub, char, cfind, cmatch, cgmatch, cgsub = string.byte, string.sub, string.char, string.find, string.match, string.gmatch, string.gsub
  local type, error, tostring, tonumber, tointeger, concat, setmetatable, getmetatable = type, error, tostring, tonumber, math.tointeger, table.concat, setmetatable, getmetatable
  local MAXCCALLS, MAXCAPTURES = 200, 32
  local pcall, select = pcall, select
  -- Errors of the matcher are tables until they leave it: the entry point re-raises them at the script's call site
  -- (luaL_error's position), wherever inside the matcher they were found. Anything else (the instruction budget, a
  -- replacement function's error) passes through untouched.
  local PERR = {}
  local function perr(msg) error(setmetatable({ msg = msg }, PERR), 0) end
  local function reraise(ok, ...)
    if ok then return ... end
    local e = ...
    if getmetatable(e) == PERR then error(e.msg, 2) end
    error(e, 0)
  end
  local CAP_UNFINISHED, CAP_POSITION = -1, -2

  -- shape(p): unbounded items, optional items and whether p is anchored, cached per pattern (bounded cache).
  local C_STEPS = 1e6
  local shapes, nshapes = {}, 0
  local function shape(p)
    local sh = shapes[p]
    if sh then return sh end
    local q, o, i, m = 0, 0, 1, #p
    if byte(p, 1) == 94 then i = 2 end
    while i <= m do
      local c = byte(p, i)
      if c == 37 then -- %
        local d = byte(p, i + 1)
        if d == 98 then q = q + 1; i = i + 4 -- %bxy
        elseif d and d >= 49 and d <= 57 then q = q + 1; i = i + 2 -- %1-%9
        elseif d == 102 then i = i + 2 -- %f, its [set] follows
        else i = i + 2 end
      elseif c == 91 then -- [set]
        i = i + 1
        if byte(p, i) == 94 then i = i + 1 end
        repeat
          local cc = byte(p, i)
          if cc == nil then q = 1e9; break end -- malformed: let the matcher say so
          i = i + ((cc == 37) and 2 or 1)
        until byte(p, i) == 93
        i = i + 1
      elseif c == 42 or c == 43 or c == 45 then q = q + 1; i = i + 1
      elseif c == 63 then o = o + 1; i = i + 1
      else i = i + 1 end
    end
    sh = { q = q, o = o, m = m, anchored = byte(p, 1) == 94 }
    if nshapes >= 256 then shapes, nshapes = {}, 0 end
    shapes[p] = sh
    nshapes = nshapes + 1
    return sh
  end

  -- cheap: the C matcher's worst case on a subject of length n is small (see the header); honour_anchor is false for
  -- gmatch, which tries every position whatever the pattern starts with.
  local function cheap(p, n, honour_anchor)
    if patterns_all_lua then return false end
    local sh = shape(p)
    local e = sh.q + ((sh.anchored and honour_anchor) and 0 or 1)
    return sh.m * (n + 1) ^ e * 2 ^ sh.o <= C_STEPS
  end

  -- ctype over bytes, C locale (lstrlib uses isalpha & co.).
  local function isalpha(c) return (c >= 65 and c <= 90) or (c >= 97 and c <= 122) end
  local function isdigit(c) return c >= 48 and c <= 57 end
  local function islower(c) return c >= 97 and c <= 122 end
  local function isupper(c) return c >= 65 and c <= 90 end
  local function isspace(c) return c == 32 or (c >= 9 and c <= 13) end
  local function iscntrl(c) return c < 32 or c == 127 end
  local function isgraph(c) return c > 32 and c < 127 end
  local function isalnum(c) return isalpha(c) or isdigit(c) end
  local function ispunct(c) return isgraph(c) and not isalnum(c) end
  local function isxdigit(c) return isdigit(c) or (c >= 97 and c <= 102) or (c >= 65 and c <= 70) end

  local function match_class(c, cl)
    local lower = cl
    if cl >= 65 and cl <= 90 then lower = cl + 32 end
    local res
    if lower == 97 then res = isalpha(c)
    elseif lower == 99 then res = iscntrl(c)
    elseif lower == 100 then res = isdigit(c)
    elseif lower == 103 then res = isgraph(c)
    elseif lower == 108 then res = islower(c)
    elseif lower == 112 then res = ispunct(c)
    elseif lower == 115 then res = isspace(c)
    elseif lower == 117 then res = isupper(c)
    elseif lower == 119 then res = isalnum(c)
    elseif lower == 120 then res = isxdigit(c)
    else return cl == c end
    if isupper(cl) then return not res end
    return res
  end

  -- ms: { src, slen, pat, plen, level, depth, cap_init = {}, cap_len = {} }; positions are 1-based, a pattern
  -- position beyond plen is the end of the pattern and a subject position slen + 1 the end of the subject.
  local match

  local function pbyte(ms, p) return byte(ms.pat, p) or 0 end

  local function class_end(ms, p)
    local c = pbyte(ms, p)
    p = p + 1
    if c == 37 then
      if p > ms.plen then perr("malformed pattern (ends with '%')") end
      return p + 1
    elseif c == 91 then
      if pbyte(ms, p) == 94 then p = p + 1 end
      repeat
        if p > ms.plen then perr("malformed pattern (missing ']')") end
        local cc = pbyte(ms, p)
        p = p + 1
        if cc == 37 and p <= ms.plen then p = p + 1 end
      until pbyte(ms, p) == 93
      return p + 1
    end
    return p
  end

  -- p is at '[', ec at its ']'.
  local function match_bracket(ms, c, p, ec)
    local sig = true
    if pbyte(ms, p + 1) == 94 then
      sig = false
      p = p + 1
    end
    p = p + 1
    while p < ec do
      local pc = pbyte(ms, p)
      if pc == 37 then
        p = p + 1
        if match_class(c, pbyte(ms, p)) then return sig end
      elseif pbyte(ms, p + 1) == 45 and p + 2 < ec then
        p = p + 2
        if pc <= c and c <= pbyte(ms, p) then return sig end
      elseif pc == c then
        return sig
      end
      p = p + 1
    end
    return not sig
  end

  local function single_match(ms, s, p, ep)
    if s > ms.slen then return false end
    local c = byte(ms.src, s)
    local pc = pbyte(ms, p)
    if pc == 46 then return true
    elseif pc == 37 then return match_class(c, pbyte(ms, p + 1))
    elseif pc == 91 then return match_bracket(ms, c, p, ep - 1)
    end
    return pc == c
  end

  local function match_balance(ms, s, p)
    if p >= ms.plen then perr("malformed pattern (missing arguments to '%b')") end
    if s > ms.slen or byte(ms.src, s) ~= pbyte(ms, p) then return nil end
    local b, e = pbyte(ms, p), pbyte(ms, p + 1)
    local cont = 1
    s = s + 1
    while s <= ms.slen do
      local c = byte(ms.src, s)
      if c == e then
        cont = cont - 1
        if cont == 0 then return s + 1 end
      elseif c == b then
        cont = cont + 1
      end
      s = s + 1
    end
    return nil
  end

  local function max_expand(ms, s, p, ep)
    local i = 0
    while single_match(ms, s + i, p, ep) do i = i + 1 end
    while i >= 0 do
      local res = match(ms, s + i, ep + 1)
      if res then return res end
      i = i - 1
    end
    return nil
  end

  local function min_expand(ms, s, p, ep)
    while true do
      local res = match(ms, s, ep + 1)
      if res then return res end
      if single_match(ms, s, p, ep) then s = s + 1 else return nil end
    end
  end

  local function start_capture(ms, s, p, what)
    local level = ms.level
    if level >= MAXCAPTURES then perr("too many captures") end
    ms.cap_init[level + 1] = s
    ms.cap_len[level + 1] = what
    ms.level = level + 1
    local res = match(ms, s, p)
    if not res then ms.level = ms.level - 1 end
    return res
  end

  local function capture_to_close(ms)
    local level = ms.level
    while level > 0 do
      if ms.cap_len[level] == CAP_UNFINISHED then return level end
      level = level - 1
    end
    perr("invalid pattern capture")
  end

  local function end_capture(ms, s, p)
    local l = capture_to_close(ms)
    ms.cap_len[l] = s - ms.cap_init[l]
    local res = match(ms, s, p)
    if not res then ms.cap_len[l] = CAP_UNFINISHED end
    return res
  end

  local function check_capture(ms, l)
    l = l - 48
    if l < 1 or l > ms.level or ms.cap_len[l] == CAP_UNFINISHED then
      perr("invalid capture index %" .. (l) )
    end
    return l
  end

  local function match_capture(ms, s, l)
    l = check_capture(ms, l)
    local len = ms.cap_len[l]
    local init = ms.cap_init[l]
    if ms.slen - s + 1 >= len and sub(ms.src, init, init + len - 1) == sub(ms.src, s, s + len - 1) then
      return s + len
    end
    return nil
  end

  match = function(ms, s, p)
    if ms.depth == 0 then perr("pattern too complex") end
    ms.depth = ms.depth - 1
    while true do
      if p > ms.plen then break end
      local pc = pbyte(ms, p)
      local dflt = false
      if pc == 40 then -- (
        if pbyte(ms, p + 1) == 41 then s = start_capture(ms, s, p + 2, CAP_POSITION)
        else s = start_capture(ms, s, p + 1, CAP_UNFINISHED) end
        break
      elseif pc == 41 then -- )
        s = end_capture(ms, s, p + 1)
        break
      elseif pc == 36 and p == ms.plen then -- $ at the end
        if s ~= ms.slen + 1 then s = nil end
        break
      elseif pc == 37 then -- %
        local nc = pbyte(ms, p + 1)
        if nc == 98 then -- %b
          s = match_balance(ms, s, p + 2)
          if s then p = p + 4 else break end
        elseif nc == 102 then -- %f
          p = p + 2
          if pbyte(ms, p) ~= 91 then perr("missing '[' after '%f' in pattern") end
          local ep = class_end(ms, p)
          local prev = (s == 1) and 0 or byte(ms.src, s - 1)
          local cur = byte(ms.src, s) or 0
          if not match_bracket(ms, prev, p, ep - 1) and match_bracket(ms, cur, p, ep - 1) then
            p = ep
          else
            s = nil
            break
          end
        elseif nc >= 48 and nc <= 57 then -- %0-%9
          s = match_capture(ms, s, nc)
          if s then p = p + 2 else break end
        else
          dflt = true
        end
      else
        dflt = true
      end
      if dflt then
        local ep = class_end(ms, p)
        local epc = pbyte(ms, ep)
        if not single_match(ms, s, p, ep) then
          if epc == 42 or epc == 63 or epc == 45 then -- * ? -
            p = ep + 1
          else
            s = nil
            break
          end
        else
          if epc == 63 then -- ?
            local res = match(ms, s + 1, ep + 1)
            if res then
              s = res
              break
            end
            p = ep + 1
          elseif epc == 43 then -- +
            s = max_expand(ms, s + 1, p, ep)
            break
          elseif epc == 42 then -- *
            s = max_expand(ms, s, p, ep)
            break
          elseif epc == 45 then -- -
            s = min_expand(ms, s, p, ep)
            break
          else
            s = s + 1
            p = ep
          end
        end
      end
    end
    ms.depth = ms.depth + 1
    return s
  end

  local function get_capture(ms, i, s, e)
    if i > ms.level then
      if i ~= 1 then perr("invalid capture index %" .. i) end
      return sub(ms.src, s, e - 1)
    end
    local l = ms.cap_len[i]
    if l == CAP_UNFINISHED then perr("unfinished capture") end
    local init = ms.cap_init[i]
    if l == CAP_POSITION then return init end
    return sub(ms.src, init, init + l - 1)
  end

  -- push_captures: all captures (or the whole match when there are none).
  local function captures(ms, s, e, whole)
    local n = (ms.level == 0 and whole) and 1 or ms.level
    if n == 1 then return get_capture(ms, 1, s, e) end
    local out = {}
    for i = 1, n do out[i] = get_capture(ms, i, s, e) end
    return table.unpack(out, 1, n)
  end

  local function new_state(src, pat)
    return { src = src, slen = #src, pat = pat, plen = #pat, level = 0, depth = MAXCCALLS, cap_init = {}, cap_len = {} }
  end

  local function reprep(ms)
    ms.level = 0
    ms.depth = MAXCCALLS
  end

  local function checkstr(v, n, fname)
    local t = type(v)
    if t == "string" then return v end
    if t == "number" then return tostring(v) end
    perr("bad argument #" .. n .. " to '" .. fname .. "' (string expected, got " .. (v == nil and "no value" or t) .. ")")
  end

  local function checkint(v, n, fname, default)
    if v == nil then return default end
    local i = tointeger(v)
    if i == nil and type(v) == "string" then i = tointeger(tonumber(v)) end
    if i == nil then
      if type(v) == "number" then perr("bad argument #" .. n .. " to '" .. fname .. "' (number has no integer representation)") end
      perr("bad argument #" .. n .. " to '" .. fname .. "' (number expected, got " .. type(v) .. ")")
    end
    return i
  end

  -- Go: lstrlib.c posrelatI
  local function posrelat(pos, len)
    if pos > 0 then return pos
    elseif pos == 0 then return 1
    elseif pos < -len then return 1 end
    return len + pos + 1
  end

  local function find_aux(find, fname, s, p, init, plain)
    s = checkstr(s, 1, fname)
    p = checkstr(p, 2, fname)
    init = posrelat(checkint(init, 3, fname, 1), #s)
    if init > #s + 1 then return nil end
    if (find and plain) or cheap(p, #s - init + 1, true) then
      if find then return cfind(s, p, init, plain) end
      return cmatch(s, p, init)
    end
    local anchor = byte(p, 1) == 94
    local ms = new_state(s, p)
    local sp = 1
    if anchor then sp = 2 end
    local s1 = init
    repeat
      reprep(ms)
      local e = match(ms, s1, sp)
      if e then
        if find then return s1, e - 1, captures(ms, nil, nil, false) end
        return captures(ms, s1, e, true)
      end
      s1 = s1 + 1
    until anchor or s1 > ms.slen + 1
    return nil
  end

  local function lfind(s, p, init, plain) return find_aux(true, "find", s, p, init, plain) end
  local function lmatch(s, p, init) return find_aux(false, "match", s, p, init) end

  local function lgmatch(s, p, init)
    s = checkstr(s, 1, "gmatch")
    p = checkstr(p, 2, "gmatch")
    if cheap(p, #s, false) then return cgmatch(s, p, init) end
    local ls = #s
    init = posrelat(checkint(init, 3, "gmatch", 1), ls)
    if init > ls + 1 then init = ls + 2 end
    local ms = new_state(s, p)
    local src, lastmatch = init, nil
    local function step()
      while src <= ms.slen + 1 do
        reprep(ms)
        local e = match(ms, src, 1)
        if e and e ~= lastmatch then
          local start = src
          src, lastmatch = e, e
          return captures(ms, start, e, true)
        end
        src = src + 1
      end
      return nil
    end
    return function() return reraise(pcall(step)) end
  end

  local function add_s(ms, out, s, e, repl)
    local i, l = 1, #repl
    while i <= l do
      local c = byte(repl, i)
      if c == 37 then
        i = i + 1
        local d = byte(repl, i)
        if d == 37 then
          out[#out + 1] = "%"
        elseif d and d >= 48 and d <= 57 then
          if d == 48 then out[#out + 1] = sub(ms.src, s, e - 1)
          else
            local v = get_capture(ms, d - 48, s, e)
            out[#out + 1] = type(v) == "number" and tostring(v) or v
          end
        else
          perr("invalid use of '%' in replacement string")
        end
        i = i + 1
      else
        local j = cfind(repl, "%", i, true) or (l + 1)
        out[#out + 1] = sub(repl, i, j - 1)
        i = j
      end
    end
  end

  local function add_value(ms, out, s, e, repl, tr)
    local v
    if tr == "function" then
      v = repl(captures(ms, s, e, true))
    elseif tr == "table" then
      v = repl[get_capture(ms, 1, s, e)]
    else
      add_s(ms, out, s, e, repl)
      return
    end
    if v == nil or v == false then
      out[#out + 1] = sub(ms.src, s, e - 1)
    elseif type(v) == "string" or type(v) == "number" then
      out[#out + 1] = type(v) == "number" and tostring(v) or v
    else
      perr("invalid replacement value (a " .. type(v) .. ")")
    end
  end

  local function lgsub(s, p, repl, max_n)
    s = checkstr(s, 1, "gsub")
    p = checkstr(p, 2, "gsub")
    local tr = type(repl)
    if tr == "number" then repl = tostring(repl); tr = "string" end
    if tr ~= "string" and tr ~= "table" and tr ~= "function" then
      perr("bad argument #3 to 'gsub' (string/function/table expected, got " .. (repl == nil and "no value" or tr) .. ")")
    end
    if cheap(p, #s, true) then return cgsub(s, p, repl, max_n) end
    max_n = checkint(max_n, 4, "gsub", #s + 1)
    local anchor = byte(p, 1) == 94
    local pstart = anchor and 2 or 1
    local ms = new_state(s, p)
    local src, lastmatch, n = 1, nil, 0
    local out = {}
    while n < max_n do
      reprep(ms)
      local e = match(ms, src, pstart)
      if e and e ~= lastmatch then
        n = n + 1
        add_value(ms, out, src, e, repl, tr)
        src, lastmatch = e, e
      elseif src <= ms.slen then
        out[#out + 1] = sub(s, src, src)
        src = src + 1
      else
        break
      end
      if anchor then break end
    end
    if src <= ms.slen then out[#out + 1] = sub(s, src) end
    return concat(out), n
  end

  -- The common call (string subject and pattern, cheap in C) goes straight to C; anything else through the checks.
  local mtype = math.type
  stringlib.find = function(s, p, init, plain, ...)
    if type(s) == "string" and type(p) == "string" and (init == nil or mtype(init) == "integer") and (plain or cheap(p, #s, true)) then
      return cfind(s, p, init, plain, ...)
    end
    return reraise(pcall(lfind, s, p, init, plain, ...))
  end
  stringlib.match = function(s, p, init, ...)
    if type(s) == "string" and type(p) == "string" and (init == nil or mtype(init) == "integer") and cheap(p, #s, true) then
      return cmatch(s, p, init, ...)
    end
    return reraise(pcall(lmatch, s, p, init, ...))
  end
  stringlib.gmatch = function(...) return reraise(pcall(lgmatch, ...)) end
  stringlib.gfind = stringlib.gmatch
  stringlib.gsub = function(...) return reraise(pcall(lgsub, ...)) end
end
`;
