// strings: the `strings` Lua module — Go's strings package with its CamelCase names.
// Go: projectsveltos/lua-utils glua-strings/strings.go. Indexes are Go's: 0-based byte offsets, -1 when absent.
import { LuaType } from '../constants.js';
import type { Converter } from '../convert.js';
import type { HelperTable } from '../helpers.js';
import { LuaRaise, type LuaVM } from '../vm.js';
import {
  callWithRune,
  checkFunction,
  checkInt,
  checkString,
  fromRunes,
  mapRune,
  pushBool,
  pushInt,
  pushStr,
  pushStringList,
  resultBool,
  resultInt,
  runesOf,
  unicodeIs,
  utf8Len,
} from './text.js';

/** byteIndex converts a UTF-16 index into s to Go's byte offset (-1 stays -1). */
function byteIndex(s: string, i: number): number {
  return i < 0 ? -1 : utf8Len(s.slice(0, i));
}

/** goSplit is strings.genSplit: n < 0 all, n == 0 none, sepSave bytes of sep kept (SplitAfter). */
export function goSplit(s: string, sep: string, sepSave: boolean, n: number): string[] {
  if (n === 0) return [];
  if (sep === '') {
    const rs = [...s];
    if (n < 0 || n > rs.length) n = rs.length;
    const out = rs.slice(0, n - 1);
    out.push(rs.slice(n - 1).join(''));
    return rs.length === 0 ? [] : out;
  }
  if (n < 0) n = s.split(sep).length;
  const out: string[] = [];
  let start = 0;
  while (out.length < n - 1) {
    const m = s.indexOf(sep, start);
    if (m < 0) break;
    out.push(s.slice(start, sepSave ? m + sep.length : m));
    start = m + sep.length;
  }
  out.push(s.slice(start));
  return out;
}

/** goReplace is strings.Replace (n < 0: all; an empty old inserts at every rune boundary). */
export function goReplace(s: string, old: string, neu: string, n: number): string {
  if (old === neu || n === 0) return s;
  if (old === '') {
    const rs = [...s];
    const limit = n < 0 ? rs.length + 1 : Math.min(n, rs.length + 1);
    let out = '';
    for (let i = 0; i <= rs.length; i++) {
      if (i < limit) out += neu;
      if (i < rs.length) out += rs[i];
    }
    return out;
  }
  let out = '';
  let start = 0;
  let done = 0;
  while (n < 0 || done < n) {
    const m = s.indexOf(old, start);
    if (m < 0) break;
    out += s.slice(start, m) + neu;
    start = m + old.length;
    done++;
  }
  return out + s.slice(start);
}

function isGoSpace(r: number): boolean {
  return unicodeIs('space', r);
}

function trimFuncs(s: string, left: boolean, right: boolean, f: (r: number) => boolean): string {
  const rs = runesOf(s);
  let a = 0;
  let b = rs.length;
  if (left) while (a < b && f(rs[a])) a++;
  if (right) while (b > a && f(rs[b - 1])) b--;
  return fromRunes(rs.slice(a, b));
}

function inCutset(cutset: string): (r: number) => boolean {
  const set = new Set(runesOf(cutset));
  return (r) => set.has(r);
}

function foldEqual(a: string, b: string): boolean {
  const ra = runesOf(a);
  const rb = runesOf(b);
  if (ra.length !== rb.length) return false;
  for (let i = 0; i < ra.length; i++) {
    if (ra[i] === rb[i]) continue;
    const la = String.fromCodePoint(ra[i]).toLowerCase();
    const lb = String.fromCodePoint(rb[i]).toLowerCase();
    if (la !== lb && String.fromCodePoint(ra[i]).toUpperCase() !== String.fromCodePoint(rb[i]).toUpperCase()) return false;
  }
  return true;
}

function title(s: string): string {
  // Go: strings.Title — uppercase (title case) the first letter of each word; words are separated by runes that are
  // not letters, digits, underscores or marks.
  let prev = 0x20;
  let out = '';
  for (const ch of s) {
    const r = ch.codePointAt(0)!;
    out += isSeparator(prev) ? String.fromCodePoint(mapRune(r, (c) => c.toUpperCase())) : ch;
    prev = r;
  }
  return out;
}

function isSeparator(r: number): boolean {
  if (r <= 0x7f) {
    if ((r >= 0x30 && r <= 0x39) || (r >= 0x61 && r <= 0x7a) || (r >= 0x41 && r <= 0x5a) || r === 0x5f) return false;
    return true;
  }
  if (unicodeIs('letter', r) || unicodeIs('digit', r)) return false;
  return unicodeIs('space', r);
}

function fields(s: string, f: (r: number) => boolean): string[] {
  const out: string[] = [];
  let cur: number[] = [];
  for (const r of runesOf(s)) {
    if (f(r)) {
      if (cur.length) out.push(fromRunes(cur));
      cur = [];
    } else cur.push(r);
  }
  if (cur.length) out.push(fromRunes(cur));
  return out;
}

function runePred(vm: LuaVM, fname: string): (r: number) => boolean {
  return (r) => callWithRune(vm, 2, r, () => resultBool(vm, fname));
}

/** stringsModule returns the functions of the `strings` module. */
export function stringsModule(conv: Converter): HelperTable {
  const s1 = (vm: LuaVM, f: string) => checkString(vm, 1, f);
  const s2 = (vm: LuaVM, f: string) => checkString(vm, 2, f);
  const indexFuncs = (last: boolean) => (vm: LuaVM) => {
    const fname = last ? 'LastIndexFunc' : 'IndexFunc';
    const s = s1(vm, fname);
    checkFunction(vm, 2, fname);
    const pred = runePred(vm, fname);
    const rs = [...s];
    let off = 0;
    let found = -1;
    for (const ch of rs) {
      if (pred(ch.codePointAt(0)!)) {
        found = off;
        if (!last) break;
      }
      off += utf8Len(ch);
    }
    return pushInt(vm, found);
  };
  return {
    Compare: (vm) => {
      const a = Buffer.from(s1(vm, 'Compare'));
      const b = Buffer.from(s2(vm, 'Compare'));
      return pushInt(vm, Buffer.compare(a, b));
    },
    Contains: (vm) => pushBool(vm, s1(vm, 'Contains').includes(s2(vm, 'Contains'))),
    ContainsAny: (vm) => {
      const s = s1(vm, 'ContainsAny');
      const set = inCutset(s2(vm, 'ContainsAny'));
      return pushBool(vm, runesOf(s).some(set));
    },
    ContainsFunc: (vm) => {
      const s = s1(vm, 'ContainsFunc');
      checkFunction(vm, 2, 'ContainsFunc');
      return pushBool(vm, runesOf(s).some(runePred(vm, 'ContainsFunc')));
    },
    ContainsRune: (vm) => {
      const s = s1(vm, 'ContainsRune');
      const r = checkInt(vm, 2, 'ContainsRune');
      return pushBool(vm, runesOf(s).includes(r));
    },
    Count: (vm) => {
      const s = s1(vm, 'Count');
      const sub = s2(vm, 'Count');
      if (sub === '') return pushInt(vm, runesOf(s).length + 1);
      return pushInt(vm, s.split(sub).length - 1);
    },
    Cut: (vm) => {
      const s = s1(vm, 'Cut');
      const sep = s2(vm, 'Cut');
      const i = s.indexOf(sep);
      return pushRecord(vm, i < 0 ? { before: s, after: '', found: false } : { before: s.slice(0, i), after: s.slice(i + sep.length), found: true });
    },
    CutPrefix: (vm) => {
      const s = s1(vm, 'CutPrefix');
      const p = s2(vm, 'CutPrefix');
      return pushRecord(vm, s.startsWith(p) ? { after: s.slice(p.length), found: true } : { after: s, found: false });
    },
    CutSuffix: (vm) => {
      const s = s1(vm, 'CutSuffix');
      const p = s2(vm, 'CutSuffix');
      return pushRecord(vm, s.endsWith(p) ? { before: s.slice(0, s.length - p.length), found: true } : { before: s, found: false });
    },
    EqualFold: (vm) => pushBool(vm, foldEqual(s1(vm, 'EqualFold'), s2(vm, 'EqualFold'))),
    Fields: (vm) => pushStringList(vm, fields(s1(vm, 'Fields'), isGoSpace)),
    FieldsFunc: (vm) => {
      const s = s1(vm, 'FieldsFunc');
      checkFunction(vm, 2, 'FieldsFunc');
      return pushStringList(vm, fields(s, runePred(vm, 'FieldsFunc')));
    },
    HasPrefix: (vm) => pushBool(vm, s1(vm, 'HasPrefix').startsWith(s2(vm, 'HasPrefix'))),
    HasSuffix: (vm) => pushBool(vm, s1(vm, 'HasSuffix').endsWith(s2(vm, 'HasSuffix'))),
    Index: (vm) => {
      const s = s1(vm, 'Index');
      return pushInt(vm, byteIndex(s, s.indexOf(s2(vm, 'Index'))));
    },
    IndexAny: (vm) => {
      const s = s1(vm, 'IndexAny');
      const set = inCutset(s2(vm, 'IndexAny'));
      let off = 0;
      for (const ch of s) {
        if (set(ch.codePointAt(0)!)) return pushInt(vm, off);
        off += utf8Len(ch);
      }
      return pushInt(vm, -1);
    },
    IndexByte: (vm) => {
      const b = Buffer.from(s1(vm, 'IndexByte'));
      return pushInt(vm, b.indexOf(checkInt(vm, 2, 'IndexByte') & 0xff));
    },
    IndexFunc: indexFuncs(false),
    IndexRune: (vm) => {
      const s = s1(vm, 'IndexRune');
      const r = checkInt(vm, 2, 'IndexRune');
      let off = 0;
      for (const ch of s) {
        if (ch.codePointAt(0) === r) return pushInt(vm, off);
        off += utf8Len(ch);
      }
      return pushInt(vm, -1);
    },
    Join: (vm) => {
      if (vm.type(1) !== LuaType.Table) throw new LuaRaise(`bad argument #1 to 'Join' (table expected)`);
      const sep = s2(vm, 'Join');
      conv.materialize(1);
      // Go: only string values are joined, in table order (array part first).
      const parts: string[] = [];
      const n = vm.x.lua_rawlen(vm.L, 1);
      for (let i = 1; i <= n; i++) {
        if (vm.x.lua_rawgeti(vm.L, 1, BigInt(i)) === LuaType.String) parts.push(vm.readString(-1));
        vm.pop();
      }
      return pushStr(vm, parts.join(sep));
    },
    LastIndex: (vm) => {
      const s = s1(vm, 'LastIndex');
      return pushInt(vm, byteIndex(s, s.lastIndexOf(s2(vm, 'LastIndex'))));
    },
    LastIndexAny: (vm) => {
      const s = s1(vm, 'LastIndexAny');
      const set = inCutset(s2(vm, 'LastIndexAny'));
      let off = 0;
      let found = -1;
      for (const ch of s) {
        if (set(ch.codePointAt(0)!)) found = off;
        off += utf8Len(ch);
      }
      return pushInt(vm, found);
    },
    LastIndexByte: (vm) => {
      const b = Buffer.from(s1(vm, 'LastIndexByte'));
      return pushInt(vm, b.lastIndexOf(checkInt(vm, 2, 'LastIndexByte') & 0xff));
    },
    LastIndexFunc: indexFuncs(true),
    Map: (vm) => {
      checkFunction(vm, 1, 'Map');
      const s = s2(vm, 'Map');
      const out: number[] = [];
      for (const r of runesOf(s)) {
        const m = callWithRune(vm, 1, r, () => resultInt(vm, 'Map'));
        if (m >= 0) out.push(m);
      }
      return pushStr(vm, fromRunes(out));
    },
    Repeat: (vm) => {
      const s = s1(vm, 'Repeat');
      const n = checkInt(vm, 2, 'Repeat');
      if (n < 0) throw new LuaRaise('strings: negative Repeat count');
      if (s.length * n > 64 * 1024 * 1024) throw new LuaRaise('strings: Repeat output length overflow');
      return pushStr(vm, s.repeat(n));
    },
    Replace: (vm) => pushStr(vm, goReplace(s1(vm, 'Replace'), s2(vm, 'Replace'), checkString(vm, 3, 'Replace'), checkInt(vm, 4, 'Replace'))),
    ReplaceAll: (vm) => pushStr(vm, goReplace(s1(vm, 'ReplaceAll'), s2(vm, 'ReplaceAll'), checkString(vm, 3, 'ReplaceAll'), -1)),
    Split: (vm) => pushStringList(vm, goSplit(s1(vm, 'Split'), s2(vm, 'Split'), false, -1)),
    SplitAfter: (vm) => pushStringList(vm, goSplit(s1(vm, 'SplitAfter'), s2(vm, 'SplitAfter'), true, -1)),
    SplitAfterN: (vm) => pushStringList(vm, goSplit(s1(vm, 'SplitAfterN'), s2(vm, 'SplitAfterN'), true, checkInt(vm, 3, 'SplitAfterN'))),
    SplitN: (vm) => pushStringList(vm, goSplit(s1(vm, 'SplitN'), s2(vm, 'SplitN'), false, checkInt(vm, 3, 'SplitN'))),
    Title: (vm) => pushStr(vm, title(s1(vm, 'Title'))),
    ToLower: (vm) => pushStr(vm, s1(vm, 'ToLower').toLowerCase()),
    ToTitle: (vm) => pushStr(vm, s1(vm, 'ToTitle').toUpperCase()),
    ToUpper: (vm) => pushStr(vm, s1(vm, 'ToUpper').toUpperCase()),
    Trim: (vm) => pushStr(vm, trimFuncs(s1(vm, 'Trim'), true, true, inCutset(s2(vm, 'Trim')))),
    TrimFunc: (vm) => {
      const s = s1(vm, 'TrimFunc');
      checkFunction(vm, 2, 'TrimFunc');
      return pushStr(vm, trimFuncs(s, true, true, runePred(vm, 'TrimFunc')));
    },
    TrimLeft: (vm) => pushStr(vm, trimFuncs(s1(vm, 'TrimLeft'), true, false, inCutset(s2(vm, 'TrimLeft')))),
    TrimLeftFunc: (vm) => {
      const s = s1(vm, 'TrimLeftFunc');
      checkFunction(vm, 2, 'TrimLeftFunc');
      return pushStr(vm, trimFuncs(s, true, false, runePred(vm, 'TrimLeftFunc')));
    },
    TrimPrefix: (vm) => {
      const s = s1(vm, 'TrimPrefix');
      const p = s2(vm, 'TrimPrefix');
      return pushStr(vm, s.startsWith(p) ? s.slice(p.length) : s);
    },
    TrimRight: (vm) => pushStr(vm, trimFuncs(s1(vm, 'TrimRight'), false, true, inCutset(s2(vm, 'TrimRight')))),
    TrimRightFunc: (vm) => {
      const s = s1(vm, 'TrimRightFunc');
      checkFunction(vm, 2, 'TrimRightFunc');
      return pushStr(vm, trimFuncs(s, false, true, runePred(vm, 'TrimRightFunc')));
    },
    TrimSpace: (vm) => pushStr(vm, trimFuncs(s1(vm, 'TrimSpace'), true, true, isGoSpace)),
    TrimSuffix: (vm) => {
      const s = s1(vm, 'TrimSuffix');
      const p = s2(vm, 'TrimSuffix');
      return pushStr(vm, p !== '' && s.endsWith(p) ? s.slice(0, s.length - p.length) : s);
    },
  };
}

function pushRecord(vm: LuaVM, rec: Record<string, string | boolean>): number {
  vm.x.lua_createtable(vm.L, 0, 3);
  for (const [k, v] of Object.entries(rec)) {
    if (typeof v === 'string') vm.pushString(v);
    else vm.x.lua_pushboolean(vm.L, v ? 1 : 0);
    vm.rawSetField(-2, k);
  }
  return 1;
}
