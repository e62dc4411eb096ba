// regex.ts: Sprig's regex functions over Go's RE2 syntax. Patterns compile with re2js (a port of RE2/J, which was
// itself ported from Go's regexp/syntax), so the accepted syntax, leftmost-first semantics and the
// "error parsing regexp: …" messages are Go's; the search loops (FindAll, ReplaceAll, Split, Expand) are ported
// from Go's regexp.go on top of re2js' matcher.
import { RE2JS } from 're2js';
import type { GoFunc, GoValue } from '../gotemplate/index.js';
import { quote } from '../gotemplate/index.js';
import { defineFunc, goError } from './define.js';
import { intValue, stringSlice } from './reflect.js';
import { isDigit, isLetter } from './unicode.js';

const cache = new Map<string, RE2JS>();

/** compileRegexp compiles a Go regexp or throws GoFuncError with Go's Compile error text. */
export function compileRegexp(expr: string): RE2JS {
  let re = cache.get(expr);
  if (re) return re;
  try {
    re = RE2JS.compile(expr);
  } catch (e) {
    // Go's syntax.Error always ends in ": `expr`", even for an empty expr, which re2js then leaves out.
    if (e instanceof Error && e.message.startsWith('error parsing regexp:')) {
      throw goError(/: `[\s\S]*`$/.test(e.message) ? e.message : e.message + ': ``');
    }
    throw e;
  }
  if (cache.size > 256) cache.delete(cache.keys().next().value!);
  cache.set(expr, re);
  return re;
}

/** mustCompile is regexp.MustCompile: its panic text wraps the error with the quoted expression. */
function mustCompile(expr: string): RE2JS {
  try {
    return compileRegexp(expr);
  } catch (e) {
    const q = canBackquote(expr) ? '`' + expr + '`' : quote(expr);
    throw goError(`regexp: Compile(${q}): ${(e as Error).message}`);
  }
}

function canBackquote(s: string): boolean {
  for (const ch of s) {
    const c = ch.codePointAt(0)!;
    if (ch === '`' || ch === '\ufeff' || (c < 0x20 && ch !== '\t') || c === 0x7f) return false;
  }
  return true;
}

type Match = number[]; // [start0, end0, start1, end1, …], -1 for groups that did not participate

function execAt(re: RE2JS, s: string, pos: number): Match | undefined {
  const m = re.matcher(s);
  if (!m.find(pos)) return undefined;
  const out: number[] = [];
  for (let g = 0; g <= re.groupCount(); g++) out.push(m.start(g), m.end(g));
  return out;
}

function runeWidth(s: string, pos: number): number {
  if (pos >= s.length) return 0;
  const c = s.charCodeAt(pos);
  return c >= 0xd800 && c <= 0xdbff && pos + 1 < s.length ? 2 : 1;
}

/** allMatches is Go's Regexp.allMatches: empty matches right after a match are skipped. */
function allMatches(re: RE2JS, s: string, n: number): Match[] {
  const out: Match[] = [];
  if (n < 0) n = s.length + 1;
  for (let pos = 0, i = 0, prevEnd = -1; i < n && pos <= s.length; ) {
    const m = execAt(re, s, pos);
    if (!m) break;
    let accept = true;
    if (m[1] === pos) {
      if (m[0] === prevEnd) accept = false;
      pos += pos < s.length ? runeWidth(s, pos) : 1;
    } else pos = m[1];
    prevEnd = m[1];
    if (accept) {
      out.push(m);
      i++;
    }
  }
  return out;
}

/** expand is Go's Regexp.expand: $1, ${1}, $name, ${name}, $$. */
function expand(re: RE2JS, template: string, src: string, m: Match): string {
  let out = '';
  const names = re.namedGroups() as Record<string, number>;
  for (;;) {
    const k = template.indexOf('$');
    if (k < 0) break;
    out += template.slice(0, k);
    template = template.slice(k + 1);
    if (template[0] === '$') {
      out += '$';
      template = template.slice(1);
      continue;
    }
    const ext = extract(template);
    if (!ext) {
      out += '$';
      continue;
    }
    template = ext.rest;
    let g = ext.num;
    if (g < 0) g = Object.hasOwn(names, ext.name) ? names[ext.name] : -1;
    if (g >= 0 && 2 * g + 1 < m.length && m[2 * g] >= 0) out += src.slice(m[2 * g], m[2 * g + 1]);
  }
  return out + template;
}

function extract(str: string): { name: string; num: number; rest: string } | undefined {
  if (str === '') return undefined;
  let brace = false;
  if (str[0] === '{') {
    brace = true;
    str = str.slice(1);
  }
  let i = 0;
  for (const ch of str) {
    if (!isLetter(ch) && !isDigit(ch) && ch !== '_') break;
    i += ch.length;
  }
  if (i === 0) return undefined;
  const name = str.slice(0, i);
  if (brace) {
    if (i >= str.length || str[i] !== '}') return undefined;
    i++;
  }
  let num = 0;
  for (const c of name) {
    if (c < '0' || c > '9' || num >= 1e8) {
      num = -1;
      break;
    }
    num = num * 10 + (c.charCodeAt(0) - 48);
  }
  if (name[0] === '0' && name.length > 1) num = -1;
  return { name, num, rest: str.slice(i) };
}

/** replaceAll is Go's Regexp.replaceAll loop. */
function replaceAll(re: RE2JS, src: string, repl: (m: Match) => string): string {
  let out = '';
  let lastEnd = 0;
  let searchPos = 0;
  while (searchPos <= src.length) {
    const a = execAt(re, src, searchPos);
    if (!a) break;
    out += src.slice(lastEnd, a[0]);
    if (a[1] > lastEnd || a[0] === 0) out += repl(a);
    lastEnd = a[1];
    const width = runeWidth(src, searchPos);
    if (searchPos + width > a[1]) searchPos += width;
    else if (searchPos + 1 > a[1]) searchPos++;
    else searchPos = a[1];
  }
  return out + src.slice(lastEnd);
}

/** split is Go's Regexp.Split. */
function split(re: RE2JS, expr: string, s: string, n: number): string[] | null {
  if (n === 0) return null;
  if (expr.length > 0 && s.length === 0) return [''];
  const out: string[] = [];
  let beg = 0;
  let end = 0;
  for (const m of allMatches(re, s, n)) {
    if (n > 0 && out.length === n - 1) break;
    end = m[0];
    if (m[1] !== 0) out.push(s.slice(beg, end));
    beg = m[1];
  }
  if (end !== s.length) out.push(s.slice(beg));
  return out;
}

/** quoteMeta is regexp.QuoteMeta. */
export function quoteMeta(s: string): string {
  return s.replace(/[\\.+*?()|[\]{}^$]/g, '\\$&');
}

function strings(v: string[] | null): GoValue {
  return stringSlice(v ?? []);
}

/** regexFuncs returns Sprig's regex functions and their must variants. */
export function regexFuncs(): GoFunc[] {
  const findAll = (re: RE2JS, s: string, n: GoValue) => strings(allMatches(re, s, intValue(n)).map((m) => s.slice(m[0], m[1])));
  const find = (re: RE2JS, s: string) => {
    const m = execAt(re, s, 0);
    return m ? s.slice(m[0], m[1]) : '';
  };
  const replace = (re: RE2JS, s: string, repl: string) => replaceAll(re, s, (m) => expand(re, repl, s, m));
  const literal = (re: RE2JS, s: string, repl: string) => replaceAll(re, s, () => repl);
  return [
    defineFunc('regexMatch', '(string, string) bool', (r: string, s: string) => {
      try {
        return execAt(compileRegexp(r), s, 0) !== undefined;
      } catch {
        return false; // Sprig discards the compile error
      }
    }),
    defineFunc('mustRegexMatch', '(string, string) (bool, error)', (r: string, s: string) => execAt(compileRegexp(r), s, 0) !== undefined),
    defineFunc('regexFindAll', '(string, string, int) []string', (r: string, s: string, n: GoValue) => findAll(mustCompile(r), s, n)),
    defineFunc('mustRegexFindAll', '(string, string, int) ([]string, error)', (r: string, s: string, n: GoValue) =>
      findAll(compileRegexp(r), s, n),
    ),
    defineFunc('regexFind', '(string, string) string', (r: string, s: string) => find(mustCompile(r), s)),
    defineFunc('mustRegexFind', '(string, string) (string, error)', (r: string, s: string) => find(compileRegexp(r), s)),
    defineFunc('regexReplaceAll', '(string, string, string) string', (r: string, s: string, repl: string) =>
      replace(mustCompile(r), s, repl),
    ),
    defineFunc('mustRegexReplaceAll', '(string, string, string) (string, error)', (r: string, s: string, repl: string) =>
      replace(compileRegexp(r), s, repl),
    ),
    defineFunc('regexReplaceAllLiteral', '(string, string, string) string', (r: string, s: string, repl: string) =>
      literal(mustCompile(r), s, repl),
    ),
    defineFunc('mustRegexReplaceAllLiteral', '(string, string, string) (string, error)', (r: string, s: string, repl: string) =>
      literal(compileRegexp(r), s, repl),
    ),
    defineFunc('regexSplit', '(string, string, int) []string', (r: string, s: string, n: GoValue) =>
      strings(split(mustCompile(r), r, s, intValue(n))),
    ),
    defineFunc('mustRegexSplit', '(string, string, int) ([]string, error)', (r: string, s: string, n: GoValue) =>
      strings(split(compileRegexp(r), r, s, intValue(n))),
    ),
    defineFunc('regexQuoteMeta', '(string) string', quoteMeta),
  ];
}
