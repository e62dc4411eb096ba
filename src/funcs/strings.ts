// strings.ts: Sprig's string functions (strings.go and the string entries of functions.go genericMap).
// Go strings are bytes: trunc, substr, abbrev, wrap, initials and nospace work on UTF-8 bytes like Go does.
import type { GoFunc, GoValue } from '../gotemplate/index.js';
import { formatValue, quote } from '../gotemplate/index.js';
import { strslice, strval } from './cast.js';
import { defineFunc, goError } from './define.js';
import { checkStringLength, randomInt, type ResolvedOptions } from './options.js';
import { intValue, stringSlice, typedMap } from './reflect.js';
import { isAscii, isDigit, isLetter, isSpace, mapRunes, toLower, toTitle, toUpper, utf8Bytes, utf8String } from './unicode.js';
import { shuffleRunes, swapCase, toKebabCase, toPascalCase, toSnakeCase, uncapitalize } from './xstrings.js';

// A "byte string" holds one UTF-16 unit per UTF-8 byte, so Go's byte indexing maps onto JavaScript slicing.
function toByteString(s: string): string {
  return isAscii(s) ? s : String.fromCharCode(...utf8Bytes(s));
}
function fromByteString(b: string): string {
  return isAscii(b) ? b : utf8String(Uint8Array.from(b, (c) => c.charCodeAt(0)));
}

/** sliceBoundsError is the panic Go raises for s[a:b] out of range (runtime boundsError texts). */
export function sliceBoundsError(len: number, a: number | undefined, b: number | undefined): string | undefined {
  const hi = b ?? len;
  if (b !== undefined && b < 0) return `runtime error: slice bounds out of range [:${b}]`;
  if (b !== undefined && b > len) return `runtime error: slice bounds out of range [:${b}] with length ${len}`;
  const lo = a ?? 0;
  if (lo < 0) return `runtime error: slice bounds out of range [${lo}:]`;
  if (lo > hi) return `runtime error: slice bounds out of range [${lo}:${hi}]`;
  return undefined;
}

function goSliceString(s: string, a: number | undefined, b: number | undefined): string {
  const bs = toByteString(s);
  const err = sliceBoundsError(bs.length, a, b);
  if (err) throw goError(err);
  return fromByteString(bs.slice(a ?? 0, b ?? bs.length));
}

/** repeatString is strings.Repeat with its panics. */
export function repeatString(s: string, count: number): string {
  if (count < 0) throw goError('strings: negative Repeat count');
  if (s.length * count > 1 << 28) throw goError('strings: Repeat output length overflow');
  return s.repeat(count);
}

/** replaceAll is strings.Replace(s, old, new, -1): an empty `old` matches before every rune and at the end. */
export function replaceAll(s: string, old: string, nw: string): string {
  if (old === '') {
    let out = nw;
    for (const ch of s) out += ch + nw;
    return out;
  }
  return s.split(old).join(nw);
}

/** splitGo is strings.SplitN(s, sep, n): an empty sep splits into runes; n < 0 means all, n == 0 nothing. */
export function splitGo(s: string, sep: string, n = -1): string[] {
  if (n === 0) return [];
  if (sep === '') {
    const runes = [...s];
    if (n < 0 || n >= runes.length) return runes;
    return [...runes.slice(0, n - 1), runes.slice(n - 1).join('')];
  }
  const parts = s.split(sep);
  if (n < 0 || n >= parts.length) return parts;
  return [...parts.slice(0, n - 1), parts.slice(n - 1).join(sep)];
}

/** trimCutset is strings.Trim(s, cutset). */
export function trimCutset(s: string, cutset: string): string {
  const set = new Set(cutset);
  const runes = [...s];
  let i = 0;
  let j = runes.length;
  while (i < j && set.has(runes[i])) i++;
  while (j > i && set.has(runes[j - 1])) j--;
  return runes.slice(i, j).join('');
}

/** trimSpace is strings.TrimSpace (unicode.IsSpace on both ends). */
export function trimSpace(s: string): string {
  const runes = [...s];
  let i = 0;
  let j = runes.length;
  while (i < j && isSpace(runes[i])) i++;
  while (j > i && isSpace(runes[j - 1])) j--;
  return runes.slice(i, j).join('');
}

/** title is strings.Title: title-cases the first letter after each separator. Go: strings.go isSeparator */
export function title(s: string): string {
  let prev = ' ';
  return mapRunes(s, (r) => {
    const sep = isTitleSeparator(prev);
    prev = r;
    return sep ? toTitle(r) : r;
  });
}

function isTitleSeparator(r: string): boolean {
  if (r.length === 1 && r.charCodeAt(0) <= 0x7f) return !/[0-9a-zA-Z_]/.test(r);
  if (isLetter(r) || isDigit(r)) return false;
  return isSpace(r);
}

/** abbreviateFull is goutils.AbbreviateFull on bytes (errors as empty results, as Sprig ignores them). */
function abbreviateFull(str: string, offset: number, maxWidth: number): string {
  if (str === '') return '';
  if (maxWidth < 4) return '';
  if (str.length <= maxWidth) return str;
  if (offset > str.length) offset = str.length;
  if (str.length - offset < maxWidth - 3) offset = str.length - (maxWidth - 3);
  const marker = '...';
  if (offset <= 4) return str.slice(0, maxWidth - 3) + marker;
  if (maxWidth < 7) return '';
  if (offset + maxWidth - 3 < str.length) return marker + abbreviateFull(str.slice(offset), 0, maxWidth - 3);
  return marker + str.slice(str.length - (maxWidth - 3));
}

/** wrapCustom is goutils.WrapCustom on bytes. */
export function wrapCustom(str: string, wrapLength: number, newLine: string, wrapLongWords: boolean): string {
  if (str === '') return '';
  if (newLine === '') newLine = '\n';
  if (wrapLength < 1) wrapLength = 1;
  const s = toByteString(str);
  const nl = toByteString(newLine);
  let offset = 0;
  let out = '';
  while (s.length - offset > wrapLength) {
    if (s[offset] === ' ') {
      offset++;
      continue;
    }
    const end = wrapLength + offset + 1;
    const spaceToWrapAt = s.slice(offset, end).lastIndexOf(' ') + offset;
    if (spaceToWrapAt >= offset) {
      out += s.slice(offset, spaceToWrapAt) + nl;
      offset = spaceToWrapAt + 1;
    } else if (wrapLongWords) {
      out += s.slice(offset, wrapLength + offset) + nl;
      offset += wrapLength;
    } else {
      const e = wrapLength + offset;
      const index = s.slice(e).indexOf(' ');
      if (index === -1) {
        out += s.slice(offset);
        offset = s.length;
      } else {
        out += s.slice(offset, index + e) + nl;
        offset = index + e + 1;
      }
    }
  }
  return fromByteString(out + s.slice(offset));
}

const LATIN1_SPACE = (b: number): boolean => (b >= 9 && b <= 13) || b === 32 || b === 0x85 || b === 0xa0;

/** deleteWhiteSpace is goutils.DeleteWhiteSpace: byte-wise, so non-ASCII text is re-encoded byte by byte once any space is removed. */
function deleteWhiteSpace(str: string): string {
  const bytes = utf8Bytes(str);
  if (!bytes.some(LATIN1_SPACE)) return str;
  let out = '';
  for (const b of bytes) if (!LATIN1_SPACE(b)) out += String.fromCharCode(b);
  return out;
}

/** initials is goutils.Initials: the first byte (as a rune) after each white-space gap. */
function initials(str: string): string {
  let out = '';
  let gap = true;
  for (const b of utf8Bytes(str)) {
    if (LATIN1_SPACE(b)) gap = true;
    else if (gap) {
      out += String.fromCharCode(b);
      gap = false;
    }
  }
  return out;
}

const ALPHA = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz';
const DIGITS = '0123456789';
const ASCII_PRINTABLE = Array.from({ length: 95 }, (_, i) => String.fromCharCode(32 + i)).join('');

/** randomString draws count characters uniformly from charset (goutils.CryptoRandom with Sprig's sets). */
function randomString(o: ResolvedOptions, count: number, charset: string): string {
  if (count <= 0) return ''; // a negative count is an error Sprig discards
  checkStringLength(o, 'rand', count);
  let out = '';
  for (let i = 0; i < count; i++) out += charset[randomInt(o, charset.length)];
  return out;
}

/** stringFuncs returns Sprig's string functions. */
export function stringFuncs(o: ResolvedOptions): GoFunc[] {
  return [
    defineFunc('hello', '() string', () => 'Hello!'),
    defineFunc('abbrev', '(int, string) string', (w: GoValue, s: string) => {
      const width = intValue(w);
      if (width < 4) return s;
      return fromByteString(abbreviateFull(toByteString(s), 0, width));
    }),
    defineFunc('abbrevboth', '(int, int, string) string', (l: GoValue, r: GoValue, s: string) => {
      const left = intValue(l);
      const right = intValue(r);
      if (right < 4 || (left > 0 && right < 7)) return s;
      return fromByteString(abbreviateFull(toByteString(s), left, right));
    }),
    defineFunc('trunc', '(int, string) string', (n: GoValue, s: string) => {
      const c = intValue(n);
      const b = toByteString(s);
      if (c < 0 && b.length + c > 0) return fromByteString(b.slice(b.length + c));
      if (c >= 0 && b.length > c) return fromByteString(b.slice(0, c));
      return s;
    }),
    defineFunc('trim', '(string) string', trimSpace),
    defineFunc('upper', '(string) string', (s: string) => mapRunes(s, toUpper)),
    defineFunc('lower', '(string) string', (s: string) => mapRunes(s, toLower)),
    defineFunc('title', '(string) string', title),
    defineFunc('untitle', '(string) string', uncapitalize),
    defineFunc('substr', '(int, int, string) string', (a: GoValue, b: GoValue, s: string) => {
      // Go: strings.go substring — out-of-range indices panic exactly like Go's slicing.
      const start = intValue(a);
      const end = intValue(b);
      const len = toByteString(s).length;
      if (start < 0) return goSliceString(s, undefined, end);
      if (end < 0 || end > len) return goSliceString(s, start, undefined);
      return goSliceString(s, start, end);
    }),
    defineFunc('repeat', '(int, string) string', (n: GoValue, s: string) => {
      const count = intValue(n);
      checkStringLength(o, 'repeat', s.length * Math.max(count, 0));
      return repeatString(s, count);
    }),
    defineFunc('trimall', '(string, string) string', (a: string, b: string) => trimCutset(b, a)),
    defineFunc('trimAll', '(string, string) string', (a: string, b: string) => trimCutset(b, a)),
    defineFunc('trimSuffix', '(string, string) string', (a: string, b: string) =>
      a !== '' && b.endsWith(a) ? b.slice(0, b.length - a.length) : b,
    ),
    defineFunc('trimPrefix', '(string, string) string', (a: string, b: string) => (b.startsWith(a) ? b.slice(a.length) : b)),
    defineFunc('nospace', '(string) string', deleteWhiteSpace),
    defineFunc('initials', '(string) string', initials),
    defineFunc('randAlphaNum', '(int) string', (n: GoValue) => randomString(o, intValue(n), ALPHA + DIGITS)),
    defineFunc('randAlpha', '(int) string', (n: GoValue) => randomString(o, intValue(n), ALPHA)),
    defineFunc('randAscii', '(int) string', (n: GoValue) => randomString(o, intValue(n), ASCII_PRINTABLE)),
    defineFunc('randNumeric', '(int) string', (n: GoValue) => randomString(o, intValue(n), DIGITS)),
    defineFunc('swapcase', '(string) string', swapCase),
    defineFunc('shuffle', '(string) string', (s: string) => shuffleRunes(s, (n) => randomInt(o, n))),
    defineFunc('snakecase', '(string) string', toSnakeCase),
    defineFunc('camelcase', '(string) string', toPascalCase),
    defineFunc('kebabcase', '(string) string', toKebabCase),
    defineFunc('wrap', '(int, string) string', (n: GoValue, s: string) => wrapCustom(s, intValue(n), '', false)),
    defineFunc('wrapWith', '(int, string, string) string', (n: GoValue, sep: string, s: string) =>
      wrapCustom(s, intValue(n), sep, true),
    ),
    defineFunc('contains', '(string, string) bool', (sub: string, s: string) => s.includes(sub)),
    defineFunc('hasPrefix', '(string, string) bool', (p: string, s: string) => s.startsWith(p)),
    defineFunc('hasSuffix', '(string, string) bool', (p: string, s: string) => s.endsWith(p)),
    defineFunc('quote', '(...interface {}) string', (...args: GoValue[]) =>
      args
        .filter((a) => a !== null && a !== undefined)
        .map((a) => quote(strval(a)))
        .join(' '),
    ),
    defineFunc('squote', '(...interface {}) string', (...args: GoValue[]) =>
      args
        .filter((a) => a !== null && a !== undefined)
        .map((a) => `'${formatValue(a)}'`)
        .join(' '),
    ),
    defineFunc('cat', '(...interface {}) string', (...args: GoValue[]) =>
      args
        .filter((a) => a !== null && a !== undefined)
        .map((a) => formatValue(a))
        .join(' '),
    ),
    defineFunc('indent', '(int, string) string', (n: GoValue, s: string) => indent(o, 'indent', intValue(n), s)),
    defineFunc('nindent', '(int, string) string', (n: GoValue, s: string) => '\n' + indent(o, 'nindent', intValue(n), s)),
    defineFunc('replace', '(string, string, string) string', (old: string, nw: string, src: string) =>
      replaceAll(src, old, nw),
    ),
    defineFunc('plural', '(string, string, int) string', (one: string, many: string, n: GoValue) =>
      intValue(n) === 1 ? one : many,
    ),
    defineFunc('toString', '(interface {}) string', strval),
    defineFunc('split', '(string, string) map[string]string', (sep: string, s: string) => indexedParts(splitGo(s, sep))),
    defineFunc('splitList', '(string, string) []string', (sep: string, s: string) => stringSlice(splitGo(s, sep))),
    defineFunc('splitn', '(string, int, string) map[string]string', (sep: string, n: GoValue, s: string) =>
      indexedParts(splitGo(s, sep, intValue(n))),
    ),
    defineFunc('toStrings', '(interface {}) []string', strslice),
    defineFunc('join', '(string, interface {}) string', (sep: string, v: GoValue) => strslice(v).join(sep)),
  ];
}

function indent(o: ResolvedOptions, fn: string, spaces: number, v: string): string {
  // Every line gets the padding: the result grows with spaces × lines.
  if (spaces > 0) checkStringLength(o, fn, v.length + spaces * (1 + countLines(v)));
  const pad = repeatString(' ', spaces);
  return pad + v.split('\n').join('\n' + pad);
}

/** indexedParts builds Sprig's split result: map[string]string with keys _0, _1, …. */
function indexedParts(parts: string[]): Record<string, string> {
  const m: Record<string, string> = Object.create(null);
  parts.forEach((p, i) => (m[`_${i}`] = p));
  return typedMap(m, 'map[string]string');
}


function countLines(s: string): number {
  let n = 0;
  for (let i = s.indexOf('\n'); i >= 0; i = s.indexOf('\n', i + 1)) n++;
  return n;
}
