// match.ts: the two pattern languages charts use — Go's path/filepath.Match (`.helmignore`) and gobwas/glob with
// '/' as separator (`.Files.Glob`) — compiled to regular expressions.

// Outside a class only syntax characters may be escaped in a /u regexp; inside one, '-' too.
const reEscape = (c: string) => c.replace(/[\\^$.*+?()[\]{}|/]/g, '\\$&');
const classEscape = (c: string) => c.replace(/[\\^$.*+?()[\]{}|/-]/g, '\\$&');

/** ErrBadPattern is Go's filepath.ErrBadPattern text. */
export const ERR_BAD_PATTERN = 'syntax error in pattern';

const matchCache = new Map<string, RegExp | null>();

/** compileGoMatch turns a filepath.Match pattern into a RegExp, or null when Go reports ErrBadPattern. */
export function compileGoMatch(pattern: string): RegExp | null {
  const hit = matchCache.get(pattern);
  if (hit !== undefined) return hit;
  let re = '^';
  let ok = true;
  const p = [...pattern];
  for (let i = 0; i < p.length && ok; i++) {
    const c = p[i];
    if (c === '*') re += '[^/]*';
    else if (c === '?') re += '[^/]';
    else if (c === '\\') {
      if (i + 1 >= p.length) ok = false;
      else re += reEscape(p[++i]);
    } else if (c === '[') {
      let j = i + 1;
      let cls = '[';
      if (p[j] === '^') {
        cls += '^';
        j++;
      }
      let n = 0;
      for (;;) {
        if (j >= p.length) {
          ok = false;
          break;
        }
        if (p[j] === ']' && n > 0) break;
        let lo = p[j];
        if (lo === '\\') lo = p[++j] ?? '';
        if (lo === '' || lo === '-' || (lo === ']' && n === 0)) {
          ok = false;
          break;
        }
        j++;
        cls += classEscape(lo);
        if (p[j] === '-') {
          let hi = p[++j];
          if (hi === '\\') hi = p[++j];
          if (hi === undefined || hi === ']') {
            ok = false;
            break;
          }
          cls += '-' + classEscape(hi);
          j++;
        }
        n++;
      }
      if (cls.startsWith('[^')) cls += '/';
      re += cls + ']';
      i = j;
    } else re += reEscape(c);
  }
  const out = ok ? new RegExp(re + '$', 'u') : null;
  matchCache.set(pattern, out);
  return out;
}

/** goMatch is filepath.Match: true/false, or an Error(ERR_BAD_PATTERN) thrown for a malformed pattern. */
export function goMatch(pattern: string, name: string): boolean {
  const re = compileGoMatch(pattern);
  if (re === null) throw new Error(ERR_BAD_PATTERN);
  return re.test(name);
}

const globCache = new Map<string, RegExp | null>();

/**
 * compileGlob is gobwas/glob.Compile(pattern, '/'): `*` (no '/'), `**` (anything), `?`, `[abc]`, `[!a-z]`,
 * `{a,b}` and `\` escapes; null when the pattern does not compile.
 */
export function compileGlob(pattern: string): RegExp | null {
  const hit = globCache.get(pattern);
  if (hit !== undefined) return hit;
  const p = [...pattern];
  let i = 0;
  let ok = true;
  const parse = (inAlt: boolean): string => {
    let re = '';
    while (i < p.length && ok) {
      const c = p[i];
      if (inAlt && (c === ',' || c === '}')) return re;
      i++;
      if (c === '*') {
        if (p[i] === '*') {
          i++;
          re += '.*';
        } else re += '[^/]*';
      } else if (c === '?') re += '[^/]';
      else if (c === '\\') {
        if (i >= p.length) {
          ok = false;
          return re;
        }
        re += reEscape(p[i++]);
      } else if (c === '[') {
        let cls = '[';
        if (p[i] === '!') {
          cls += '^';
          i++;
        }
        let closed = false;
        while (i < p.length) {
          const d = p[i++];
          if (d === ']') {
            closed = true;
            break;
          }
          if (p[i] === '-' && p[i + 1] !== undefined && p[i + 1] !== ']') {
            cls += classEscape(d) + '-' + classEscape(p[i + 1]);
            i += 2;
          } else cls += classEscape(d);
        }
        if (!closed || cls === '[' || cls === '[^') {
          ok = false;
          return re;
        }
        re += cls + ']';
      } else if (c === '{') {
        const alts: string[] = [];
        for (;;) {
          alts.push(parse(true));
          if (!ok) return re;
          if (i >= p.length) {
            ok = false;
            return re;
          }
          if (p[i++] === '}') break;
        }
        re += '(?:' + alts.join('|') + ')';
      } else re += reEscape(c);
    }
    if (inAlt) ok = false;
    return re;
  };
  const body = parse(false);
  const out = ok ? new RegExp('^' + body + '$', 'su') : null;
  globCache.set(pattern, out);
  return out;
}
