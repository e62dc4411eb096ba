// runes: the `runes` Lua module — rune (code point) helpers with lowercase names.
// Go: projectsveltos/lua-utils glua-runes/runes.go. Positions are 1-based rune indexes.
import { LuaType } from '../constants.js';
import type { Converter } from '../convert.js';
import { checkTable, type HelperTable } from '../helpers.js';
import type { LuaVM } from '../vm.js';
import { checkInt, checkString, fromRunes, mapRune, optInt, pushBool, pushInt, pushStr, runesOf, unicodeIs, validRune } from './text.js';

// tableNumbers collects the number values of a table in array order (gopher-lua ForEach visits the array part first).
function tableNumbers(vm: LuaVM, conv: Converter): number[] {
  conv.materialize(1);
  const out: number[] = [];
  const n = vm.x.lua_rawlen(vm.L, 1);
  for (let i = 1; i <= n; i++) {
    if (vm.x.lua_rawgeti(vm.L, 1, BigInt(i)) === LuaType.Number) out.push(Math.trunc(vm.x.lua_tonumberx(vm.L, -1, 0)));
    vm.pop();
  }
  return out;
}

function pushNumberList(vm: LuaVM, list: readonly number[]): number {
  vm.x.lua_createtable(vm.L, list.length, 0);
  list.forEach((v, i) => {
    vm.x.lua_pushinteger(vm.L, BigInt(v));
    vm.x.lua_rawseti(vm.L, -2, BigInt(i + 1));
  });
  return 1;
}

function pushNil(vm: LuaVM): number {
  vm.x.lua_pushnil(vm.L);
  return 1;
}

/** decodeFirstRune is utf8.DecodeRune: the first code point of bytes, or undefined for RuneError. */
function decodeFirstRune(bytes: Uint8Array): number | undefined {
  if (bytes.length === 0) return undefined;
  const s = new TextDecoder('utf-8').decode(bytes.subarray(0, Math.min(4, bytes.length)));
  const r = s.codePointAt(0)!;
  return r === 0xfffd ? undefined : r;
}

/** runesModule returns the functions of the `runes` module. */
export function runesModule(conv: Converter): HelperTable {
  const pred = (cls: Parameters<typeof unicodeIs>[0], fname: string) => (vm: LuaVM) => pushBool(vm, unicodeIs(cls, checkInt(vm, 1, fname)));
  const mapper = (f: (s: string) => string, fname: string) => (vm: LuaVM) => pushInt(vm, mapRune(checkInt(vm, 1, fname), f));
  return {
    bytestorune: (vm) => {
      checkTable(vm, 1, 'bytestorune');
      const r = decodeFirstRune(Uint8Array.from(tableNumbers(vm, conv), (b) => b & 0xff));
      return r === undefined ? pushNil(vm) : pushInt(vm, r);
    },
    bytetostring: (vm) => {
      checkTable(vm, 1, 'bytetostring');
      vm.pushBytes(Uint8Array.from(tableNumbers(vm, conv), (b) => b & 0xff));
      return 1;
    },
    containsrune: (vm) => {
      const s = checkString(vm, 1, 'containsrune');
      return pushBool(vm, runesOf(s).includes(checkInt(vm, 2, 'containsrune')));
    },
    iscontrol: pred('control', 'iscontrol'),
    isdigit: pred('digit', 'isdigit'),
    isgraphic: pred('graphic', 'isgraphic'),
    isinrange: (vm) => {
      const r = checkInt(vm, 1, 'isinrange');
      return pushBool(vm, r >= checkInt(vm, 2, 'isinrange') && r <= checkInt(vm, 3, 'isinrange'));
    },
    isletter: pred('letter', 'isletter'),
    islower: pred('lower', 'islower'),
    ismark: pred('mark', 'ismark'),
    isnumber: pred('number', 'isnumber'),
    isprint: pred('print', 'isprint'),
    ispunct: pred('punct', 'ispunct'),
    isspace: pred('space', 'isspace'),
    issymbol: pred('symbol', 'issymbol'),
    istitle: pred('title', 'istitle'),
    isupper: pred('upper', 'isupper'),
    isvalidutf8: (vm) => {
      const b = vm.toBytes(1);
      if (b === undefined) checkString(vm, 1, 'isvalidutf8');
      try {
        new TextDecoder('utf-8', { fatal: true }).decode(b);
        return pushBool(vm, true);
      } catch {
        // TextDecoder with fatal: true throws exactly when the bytes are not valid UTF-8.
        return pushBool(vm, false);
      }
    },
    reverserunes: (vm) => pushStr(vm, fromRunes(runesOf(checkString(vm, 1, 'reverserunes')).reverse())),
    runeat: (vm) => {
      const b = vm.toBytes(1) ?? new TextEncoder().encode(checkString(vm, 1, 'runeat'));
      const pos = checkInt(vm, 2, 'runeat') - 1;
      if (pos < 0 || pos >= b.length) return pushNil(vm);
      const r = decodeFirstRune(b.subarray(pos));
      return r === undefined ? pushNil(vm) : pushInt(vm, r);
    },
    runecount: (vm) => pushInt(vm, runesOf(checkString(vm, 1, 'runecount')).length),
    runeindex: (vm) => {
      const rs = runesOf(checkString(vm, 1, 'runeindex'));
      const search = checkInt(vm, 2, 'runeindex');
      const pos = Math.max(0, optInt(vm, 3, 'runeindex', 1) - 1);
      for (let i = pos; i < rs.length; i++) if (rs[i] === search) return pushInt(vm, i + 1);
      return pushNil(vm);
    },
    runerange: (vm) => {
      const rs = runesOf(checkString(vm, 1, 'runerange'));
      let start = optInt(vm, 2, 'runerange', 1) - 1;
      let end = optInt(vm, 3, 'runerange', -1);
      start = Math.min(Math.max(start, 0), rs.length);
      if (end < 0) end = rs.length;
      else end = Math.max(0, Math.min(end - 1, rs.length));
      // Go slices runes[start:end] and panics when start > end; report that as an empty result instead of a crash.
      return pushStr(vm, start <= end ? fromRunes(rs.slice(start, end)) : '');
    },
    runeslice: (vm) => pushNumberList(vm, runesOf(checkString(vm, 1, 'runeslice'))),
    runesplit: (vm) => {
      const rs = runesOf(checkString(vm, 1, 'runesplit'));
      const sep = checkInt(vm, 2, 'runesplit');
      const parts: string[] = [];
      let last = 0;
      rs.forEach((r, i) => {
        if (r === sep) {
          parts.push(fromRunes(rs.slice(last, i)));
          last = i + 1;
        }
      });
      parts.push(fromRunes(rs.slice(last)));
      vm.x.lua_createtable(vm.L, parts.length, 0);
      parts.forEach((p, i) => {
        vm.pushString(p);
        vm.x.lua_rawseti(vm.L, -2, BigInt(i + 1));
      });
      return 1;
    },
    runestring: (vm, nargs) => {
      const rs: number[] = [];
      for (let i = 1; i <= nargs; i++) rs.push(checkInt(vm, i, 'runestring'));
      return pushStr(vm, fromRunes(rs));
    },
    runetobytes: (vm) => {
      checkTable(vm, 1, 'runetobytes');
      const bytes = new TextEncoder().encode(fromRunes(tableNumbers(vm, conv)));
      return pushNumberList(vm, [...bytes]);
    },
    runewidth: (vm) => {
      const r = checkInt(vm, 1, 'runewidth');
      if (!validRune(r)) return pushNil(vm);
      return pushInt(vm, r < 0x80 ? 1 : r < 0x800 ? 2 : r < 0x10000 ? 3 : 4);
    },
    stringtobytes: (vm) => {
      const b = vm.toBytes(1) ?? new TextEncoder().encode(checkString(vm, 1, 'stringtobytes'));
      return pushNumberList(vm, [...b]);
    },
    tolower: mapper((c) => c.toLowerCase(), 'tolower'),
    totitle: mapper((c) => c.toUpperCase(), 'totitle'),
    toupper: mapper((c) => c.toUpperCase(), 'toupper'),
    validrune: (vm) => pushBool(vm, validRune(checkInt(vm, 1, 'validrune'))),
  };
}
