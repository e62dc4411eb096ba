// ignore.ts: `.helmignore` rules. Go: pkg/ignore/rules.go — including its quirks: a negated rule ignores every
// path it does NOT match, and rules are tried in order with the first hit winning.
import { compileGoMatch, ERR_BAD_PATTERN } from './match.js';

/** IGNORE_FILE is the name of the ignore file at the top of a chart directory. */
export const IGNORE_FILE = '.helmignore';

interface Pattern {
  raw: string;
  negate: boolean;
  mustDir: boolean;
  match: (path: string) => boolean;
}

/** IgnoreRules is a parsed `.helmignore` plus Helm's default rule (`templates/.?*`). */
export class IgnoreRules {
  private readonly patterns: Pattern[] = [];

  /** parse reads a .helmignore text; it throws Error with Go's message for an invalid rule. */
  static parse(text: string): IgnoreRules {
    const r = new IgnoreRules();
    const lines = text.replace(/^\uFEFF/, '').split('\n');
    if (lines.length > 0 && lines[lines.length - 1] === '') lines.pop();
    for (const line of lines) r.parseRule(line.replace(/\r$/, ''));
    return r;
  }

  /** addDefaults adds the rule Helm always applies: dot-files under templates/ are ignored. */
  addDefaults(): this {
    this.parseRule('templates/.?*');
    return this;
  }

  /** ignores reports whether a chart-relative path (slash-separated) is ignored; isDir tells directories apart. */
  ignores(path: string, isDir: boolean): boolean {
    if (path === '' || path === '.' || path === './') return false;
    for (const p of this.patterns) {
      if (p.negate) {
        if (p.mustDir && !isDir) return true;
        if (!p.match(path)) return true;
        continue;
      }
      if (p.mustDir && !isDir) continue;
      if (p.match(path)) return true;
    }
    return false;
  }

  private parseRule(input: string): void {
    let rule = input.trim();
    if (rule === '' || rule.startsWith('#')) return;
    if (rule.includes('**')) throw new Error('double-star (**) syntax is not supported');
    if (compileGoMatch(rule) === null) throw new Error(ERR_BAD_PATTERN);
    const p: Pattern = { raw: rule, negate: false, mustDir: false, match: () => false };
    if (rule.startsWith('!')) {
      p.negate = true;
      rule = rule.slice(1);
    }
    if (rule.endsWith('/')) {
      p.mustDir = true;
      rule = rule.slice(0, -1);
    }
    const test = (pat: string, n: string) => compileGoMatch(pat)?.test(n) ?? false;
    if (rule.startsWith('/')) {
      const r = rule.slice(1);
      p.match = (n) => test(r, n);
    } else if (rule.includes('/')) {
      p.match = (n) => test(rule, n);
    } else {
      p.match = (n) => test(rule, n.slice(n.lastIndexOf('/') + 1));
    }
    this.patterns.push(p);
  }
}
