// semver.ts: Masterminds/semver v3.3.0 as Sprig's `semver` and `semverCompare` use it: loose version parsing
// (v prefix, missing minor/patch), constraint syntax (comma or space = AND, `||`, hyphen ranges, x/*
// wildcards, ~, ^, !=) and its exact matching rules. The parsing regexes are Masterminds' own, run by the same
// RE2 engine as Sprig's regex functions. Go: semver version.go, constraints.go.
import type { RE2JS } from 're2js';
import { GoInt, type GoFunc, type GoValue } from '../gotemplate/index.js';
import { defineFunc, goError } from './define.js';
import { compileRegexp } from './regex.js';

const semVerRegex =
  String.raw`v?([0-9]+)(\.[0-9]+)?(\.[0-9]+)?` +
  String.raw`(-([0-9A-Za-z\-]+(\.[0-9A-Za-z\-]+)*))?` +
  String.raw`(\+([0-9A-Za-z\-]+(\.[0-9A-Za-z\-]+)*))?`;
const cvRegex =
  String.raw`v?([0-9|x|X|\*]+)(\.[0-9|x|X|\*]+)?(\.[0-9|x|X|\*]+)?` +
  String.raw`(-([0-9A-Za-z\-]+(\.[0-9A-Za-z\-]+)*))?` +
  String.raw`(\+([0-9A-Za-z\-]+(\.[0-9A-Za-z\-]+)*))?`;
const ops = String.raw`=||!=|>|<|>=|=>|<=|=<|~|~>|\^`;

let regexes: { version: RE2JS; constraint: RE2JS; range: RE2JS; find: RE2JS; valid: RE2JS } | undefined;
function re() {
  regexes ??= {
    version: compileRegexp(`^${semVerRegex}$`),
    constraint: compileRegexp(String.raw`^\s*(${ops})\s*(${cvRegex})\s*$`),
    range: compileRegexp(String.raw`\s*(${cvRegex})\s+-\s+(${cvRegex})\s*`),
    find: compileRegexp(String.raw`(${ops})\s*(${cvRegex})`),
    valid: compileRegexp(String.raw`^(\s*(${ops})\s*(${cvRegex})\s*)((?:\s+|,\s*)(${ops})\s*(${cvRegex})\s*)*$`),
  };
  return regexes;
}

/** submatches is Regexp.FindStringSubmatch ("" for groups that did not participate). */
function submatches(r: RE2JS, s: string, from = 0): { groups: string[]; start: number; end: number } | undefined {
  const m = r.matcher(s);
  if (!m.find(from)) return undefined;
  const groups: string[] = [];
  for (let g = 0; g <= r.groupCount(); g++) groups.push(m.start(g) < 0 ? '' : s.slice(m.start(g), m.end(g)));
  return { groups, start: m.start(0), end: m.end(0) };
}

function findAll(r: RE2JS, s: string): { groups: string[]; start: number; end: number }[] {
  const out = [];
  let pos = 0;
  let prevEnd = -1;
  while (pos <= s.length) {
    const m = submatches(r, s, pos);
    if (!m) break;
    if (m.end === pos) {
      pos++;
      if (m.start === prevEnd) continue;
    } else pos = m.end;
    prevEnd = m.end;
    out.push(m);
  }
  return out;
}

const NUM = /^[0-9]*$/;
const ALLOWED = /^[0-9A-Za-z-]*$/;
const U64_MAX = (1n << 64n) - 1n;

function parseU64(s: string): bigint {
  const v = BigInt(s);
  if (v > U64_MAX) throw goError(`Error parsing version segment: strconv.ParseUint: parsing "${s}": value out of range`);
  return v;
}

/** SEMVER_FIELDS are semver.Version's (unexported) struct fields, for Go's "unexported field" error. */
const SEMVER_FIELDS: readonly string[] = ['major', 'minor', 'patch', 'pre', 'metadata', 'original'];

/**
 * SemverVersion is *semver.Version (or, with byValue, the semver.Version a method such as IncMajor returns): prints
 * as its normalized String(), exposes Go's methods to templates (`(semver "1.2.3").Major`) through goMethod.
 */
export class SemverVersion {
  constructor(
    readonly major: bigint,
    readonly minor: bigint,
    readonly patch: bigint,
    readonly pre: string,
    readonly metadata: string,
    readonly original: string,
    /** byValue: a semver.Version value, whose method set lacks the pointer-receiver methods (Go: method sets). */
    readonly byValue = false,
  ) {}

  goString(): string {
    let s = `${this.major}.${this.minor}.${this.patch}`;
    if (this.pre !== '') s += `-${this.pre}`;
    if (this.metadata !== '') s += `+${this.metadata}`;
    return s;
  }

  goTypeName(): string {
    return this.byValue ? 'semver.Version' : '*semver.Version';
  }

  goKind(): string {
    return this.byValue ? 'struct' : 'ptr';
  }

  goMarshalJSON(): string {
    return JSON.stringify(this.goString());
  }

  goEqual(o: unknown): boolean {
    return this.byValue ? o instanceof SemverVersion && o.byValue && o.goString() === this.goString() && o.original === this.original : o === this;
  }

  goFieldNames(): readonly string[] {
    return SEMVER_FIELDS;
  }

  /**
   * goMethod exposes semver.Version's exported methods: value receivers (Major, Minor, Patch, Prerelease, Metadata,
   * String, IncPatch, IncMinor, IncMajor, SetPrerelease, SetMetadata) on both forms, pointer receivers (Original,
   * LessThan, LessThanEqual, GreaterThan, GreaterThanEqual, Equal, Compare) on *semver.Version only.
   * Go: Masterminds/semver v3.3.0 version.go
   */
  goMethod(name: string): GoValue | undefined {
    switch (name) {
      case 'Major':
        return new GoInt('uint64', this.major);
      case 'Minor':
        return new GoInt('uint64', this.minor);
      case 'Patch':
        return new GoInt('uint64', this.patch);
      case 'Prerelease':
        return this.pre;
      case 'Metadata':
        return this.metadata;
      case 'String':
        return this.goString();
      case 'IncPatch':
        // A prerelease is dropped without bumping the patch (it precedes the release).
        return this.pre !== '' ? this.next(this.major, this.minor, this.patch) : this.next(this.major, this.minor, wrapU64(this.patch + 1n));
      case 'IncMinor':
        return this.next(this.major, wrapU64(this.minor + 1n), 0n);
      case 'IncMajor':
        return this.next(wrapU64(this.major + 1n), 0n, 0n);
      case 'SetPrerelease':
        return defineFunc('SetPrerelease', '(string) (semver.Version, error)', (pre: string) => {
          if (pre !== '') validatePrerelease(pre);
          return this.next(this.major, this.minor, this.patch, pre, this.metadata);
        });
      case 'SetMetadata':
        return defineFunc('SetMetadata', '(string) (semver.Version, error)', (meta: string) => {
          if (meta !== '') validateMetadata(meta);
          return this.next(this.major, this.minor, this.patch, this.pre, meta);
        });
    }
    if (this.byValue) return undefined;
    const compareWith = (method: string, test: (d: number) => boolean) =>
      defineFunc(method, '(*semver.Version) bool', (o: SemverVersion | null) => test(this.compare(nonNil(o))));
    switch (name) {
      case 'Original':
        return this.original;
      case 'LessThan':
        return compareWith(name, (d) => d < 0);
      case 'LessThanEqual':
        return compareWith(name, (d) => d <= 0);
      case 'GreaterThan':
        return compareWith(name, (d) => d > 0);
      case 'GreaterThanEqual':
        return compareWith(name, (d) => d >= 0);
      case 'Equal':
        // Go: Equal compares pointers first, so a nil argument is false rather than a panic.
        return defineFunc(name, '(*semver.Version) bool', (o: SemverVersion | null) => o === this || (o !== null && this.compare(o) === 0));
      case 'Compare':
        return defineFunc(name, '(*semver.Version) int', (o: SemverVersion | null) => new GoInt('int', BigInt(this.compare(nonNil(o)))));
    }
    return undefined;
  }

  // next is the semver.Version a method derives from this one; its original text keeps a "v" prefix.
  private next(major: bigint, minor: bigint, patch: bigint, pre = '', metadata = ''): SemverVersion {
    const text = `${major}.${minor}.${patch}${pre !== '' ? `-${pre}` : ''}${metadata !== '' ? `+${metadata}` : ''}`;
    return new SemverVersion(major, minor, patch, pre, metadata, (this.original.startsWith('v') ? 'v' : '') + text, true);
  }

  compare(o: SemverVersion): number {
    // Go: version.go Compare
    for (const [a, b] of [
      [this.major, o.major],
      [this.minor, o.minor],
      [this.patch, o.patch],
    ] as const) {
      if (a !== b) return a < b ? -1 : 1;
    }
    if (this.pre === '' && o.pre === '') return 0;
    if (this.pre === '') return 1;
    if (o.pre === '') return -1;
    return comparePrerelease(this.pre, o.pre);
  }
}

function comparePrerelease(v: string, o: string): number {
  const sp = v.split('.');
  const op = o.split('.');
  for (let i = 0; i < Math.max(sp.length, op.length); i++) {
    const d = comparePrePart(sp[i] ?? '', op[i] ?? '');
    if (d !== 0) return d;
  }
  return 0;
}

function comparePrePart(s: string, o: string): number {
  if (s === o) return 0;
  if (s === '') return -1;
  if (o === '') return 1;
  const oi = /^[0-9]+$/.test(o) && BigInt(o) <= U64_MAX ? BigInt(o) : undefined;
  const si = /^[0-9]+$/.test(s) && BigInt(s) <= U64_MAX ? BigInt(s) : undefined;
  if (oi === undefined && si === undefined) return s > o ? 1 : -1;
  if (oi === undefined) return -1;
  if (si === undefined) return 1;
  return si > oi ? 1 : -1;
}

function validatePrerelease(p: string): void {
  for (const part of p.split('.')) {
    if (NUM.test(part)) {
      if (part.length > 1 && part[0] === '0') throw goError('Version segment starts with 0');
    } else if (!ALLOWED.test(part)) throw goError('Invalid Prerelease string');
  }
}

function validateMetadata(m: string): void {
  for (const part of m.split('.')) if (!ALLOWED.test(part)) throw goError('Invalid Metadata string');
}

// wrapU64 is uint64 arithmetic: v3.3.0's Inc* wrap around instead of panicking.
const wrapU64 = (n: bigint) => BigInt.asUintN(64, n);

// nonNil is Go dereferencing a *semver.Version argument: nil panics, which text/template reports as the call's error.
function nonNil(o: SemverVersion | null): SemverVersion {
  if (o === null) throw goError('runtime error: invalid memory address or nil pointer dereference');
  return o;
}

/** newVersion is semver.NewVersion. */
export function newVersion(v: string): SemverVersion {
  const m = submatches(re().version, v);
  if (!m) throw goError('Invalid Semantic Version');
  const g = m.groups;
  const major = parseU64(g[1]);
  const minor = g[2] !== '' ? parseU64(g[2].slice(1)) : 0n;
  const patch = g[3] !== '' ? parseU64(g[3].slice(1)) : 0n;
  if (g[5] !== '') validatePrerelease(g[5]);
  if (g[8] !== '') validateMetadata(g[8]);
  return new SemverVersion(major, minor, patch, g[5], g[8], v);
}

interface Constraint {
  con: SemverVersion;
  orig: string;
  op: string;
  minorDirty: boolean;
  patchDirty: boolean;
  dirty: boolean;
}

const isX = (x: string) => x === 'x' || x === '*' || x === 'X';

function parseConstraint(c: string): Constraint {
  if (c.length === 0) {
    return { con: new SemverVersion(0n, 0n, 0n, '', '', '0.0.0'), orig: c, op: '', minorDirty: false, patchDirty: false, dirty: true };
  }
  const m = submatches(re().constraint, c);
  if (!m) throw goError(`improper constraint: ${c}`);
  const g = m.groups;
  let ver = g[2];
  let minorDirty = false;
  let patchDirty = false;
  let dirty = false;
  if (isX(g[3]) || g[3] === '') {
    ver = `0.0.0${g[6]}`;
    dirty = true;
  } else if (isX(g[4].replace(/^\./, '')) || g[4] === '') {
    minorDirty = true;
    dirty = true;
    ver = `${g[3]}.0.0${g[6]}`;
  } else if (isX(g[5].replace(/^\./, '')) || g[5] === '') {
    dirty = true;
    patchDirty = true;
    ver = `${g[3]}${g[4]}.0${g[6]}`;
  }
  let con: SemverVersion;
  try {
    con = newVersion(ver);
  } catch {
    throw goError('constraint Parser Error');
  }
  return { con, orig: g[2], op: g[1], minorDirty, patchDirty, dirty };
}

function rewriteRange(i: string): string {
  let o = i;
  for (const m of findAll(re().range, i)) {
    o = o.replace(m.groups[0], `>= ${m.groups[1]}, <= ${m.groups[11]} `);
  }
  return o;
}

/** newConstraint is semver.NewConstraint: OR groups of AND-ed constraints. */
export function newConstraint(c: string): Constraint[][] {
  c = rewriteRange(c);
  return c.split('||').map((v) => {
    if (!submatches(re().valid, v)) throw goError(`improper constraint: ${v}`);
    const cs = findAll(re().find, v).map((m) => m.groups[0]);
    return (cs.length === 0 ? [v] : cs).map(parseConstraint);
  });
}

function check(v: SemverVersion, c: Constraint): boolean {
  // Go: constraints.go constraint* functions (only the boolean, Sprig ignores the reasons).
  const preBlocked = v.pre !== '' && c.con.pre === '';
  switch (c.op) {
    case '':
    case '=':
      if (preBlocked) return false;
      return c.dirty ? tilde(v, c) : v.compare(c.con) === 0;
    case '!=':
      if (c.dirty) {
        if (preBlocked) return false;
        if (c.con.major !== v.major) return true;
        if (c.con.minor !== v.minor && !c.minorDirty) return true;
        if (c.minorDirty) return false;
        if (c.con.patch !== v.patch && !c.patchDirty) return true;
        if (c.patchDirty) {
          if (v.pre !== '' || c.con.pre !== '') return comparePrerelease(v.pre, c.con.pre) !== 0;
          return false;
        }
      }
      return v.compare(c.con) !== 0;
    case '>':
      if (preBlocked) return false;
      if (!c.dirty) return v.compare(c.con) === 1;
      if (v.major > c.con.major) return true;
      if (v.major < c.con.major) return false;
      if (c.minorDirty) return false;
      if (c.patchDirty) return v.minor > c.con.minor;
      return v.compare(c.con) === 1;
    case '<':
      if (preBlocked) return false;
      return v.compare(c.con) < 0;
    case '>=':
    case '=>':
      if (preBlocked) return false;
      return v.compare(c.con) >= 0;
    case '<=':
    case '=<':
      if (preBlocked) return false;
      if (!c.dirty) return v.compare(c.con) <= 0;
      if (v.major > c.con.major) return false;
      if (v.major === c.con.major && v.minor > c.con.minor && !c.minorDirty) return false;
      return true;
    case '~':
    case '~>':
      if (preBlocked) return false;
      return tilde(v, c);
    case '^':
      if (preBlocked) return false;
      if (v.compare(c.con) < 0) return false;
      if (c.con.major > 0n || c.minorDirty) return v.major === c.con.major;
      if (c.con.major === 0n && v.major > 0n) return false;
      if (c.con.minor > 0n || c.patchDirty) return v.minor === c.con.minor;
      if (c.con.minor === 0n && v.minor > 0n) return false;
      return c.con.patch === v.patch;
  }
  return false;
}

function tilde(v: SemverVersion, c: Constraint): boolean {
  if (v.pre !== '' && c.con.pre === '') return false;
  if (v.compare(c.con) < 0) return false;
  if (c.con.major === 0n && c.con.minor === 0n && c.con.patch === 0n && !c.minorDirty && !c.patchDirty) return true;
  if (v.major !== c.con.major) return false;
  if (v.minor !== c.con.minor && !c.minorDirty) return false;
  return true;
}

/**
 * parseSemverConstraint is semver.NewConstraint returning Constraints.Check: Helm resolves chart versions (index.yaml
 * entries, OCI tags) with it. Throws a GoFuncError with Masterminds' message for an invalid constraint.
 */
export function parseSemverConstraint(constraint: string): (v: SemverVersion) => boolean {
  const cs = newConstraint(constraint);
  return (v) => cs.some((and) => and.every((c) => check(v, c)));
}

/** semverFuncs returns Sprig's semver and semverCompare. Go: semver.go */
export function semverFuncs(): GoFunc[] {
  return [
    defineFunc('semver', '(string) (*semver.Version, error)', newVersion as (s: string) => GoValue),
    defineFunc('semverCompare', '(string, string) (bool, error)', (constraint: string, version: string) => {
      const cs = newConstraint(constraint);
      const v = newVersion(version);
      return cs.some((and) => and.every((c) => check(v, c)));
    }),
  ];
}

/** isValidSemver reports whether semver.NewVersion accepts v. */
export function isValidSemver(v: string): boolean {
  try {
    newVersion(v);
    return true;
  } catch {
    return false;
  }
}

/** isCompatibleRange is Helm's chartutil.IsCompatibleRange: the version satisfies the constraint (false on errors). */
export function isCompatibleRange(constraint: string, version: string): boolean {
  let v: SemverVersion;
  let cs: Constraint[][];
  try {
    v = newVersion(version);
    cs = newConstraint(constraint);
  } catch {
    return false;
  }
  return cs.some((and) => and.every((c) => check(v, c)));
}
