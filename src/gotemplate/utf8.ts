// utf8.ts: the pieces of Go's unicode and unicode/utf8 packages the template engine and fmt need. Go strings are
// UTF-8 byte sequences while ours are UTF-16; every place where Go counts bytes (error columns, %x of a string,
// string length and indexing) converts through these helpers.

/** RUNE_ERROR is utf8.RuneError, the replacement character U+FFFD. */
export const RUNE_ERROR = 0xfffd;
/** MAX_RUNE is utf8.MaxRune. */
export const MAX_RUNE = 0x10ffff;

const encoder = new TextEncoder();
const decoder = new TextDecoder('utf-8', { fatal: false });

/** encodeUTF8 returns the UTF-8 bytes of s (lone surrogates become U+FFFD, as Go would have them). */
export function encodeUTF8(s: string): Uint8Array {
  return encoder.encode(s);
}

/** decodeUTF8 turns bytes into a string, replacing invalid sequences with U+FFFD like Go's range over a string. */
export function decodeUTF8(b: Uint8Array): string {
  return decoder.decode(b);
}

/** utf8Len is len(s) in Go: the number of UTF-8 bytes of s. */
export function utf8Len(s: string): number {
  let n = 0;
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    if (c < 0x80) n += 1;
    else if (c < 0x800) n += 2;
    else if (c >= 0xd800 && c <= 0xdbff && i + 1 < s.length && isLowSurrogate(s.charCodeAt(i + 1))) {
      n += 4;
      i++;
    } else n += 3; // BMP character, or a lone surrogate (encoded as U+FFFD, 3 bytes)
  }
  return n;
}

function isLowSurrogate(c: number): boolean {
  return c >= 0xdc00 && c <= 0xdfff;
}

/** runeCount is utf8.RuneCountInString. */
export function runeCount(s: string): number {
  let n = 0;
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    if (c >= 0xd800 && c <= 0xdbff && i + 1 < s.length && isLowSurrogate(s.charCodeAt(i + 1))) i++;
    n++;
  }
  return n;
}

/** runeAt decodes the code point at UTF-16 index i; lone surrogates decode as RUNE_ERROR. Returns [rune, width]. */
export function runeAt(s: string, i: number): [number, number] {
  const c = s.charCodeAt(i);
  if (c >= 0xd800 && c <= 0xdbff) {
    if (i + 1 < s.length && isLowSurrogate(s.charCodeAt(i + 1))) {
      return [((c - 0xd800) << 10) + (s.charCodeAt(i + 1) - 0xdc00) + 0x10000, 2];
    }
    return [RUNE_ERROR, 1];
  }
  if (isLowSurrogate(c)) return [RUNE_ERROR, 1];
  return [c, 1];
}

/** runeString is string(r) in Go: invalid code points (surrogates, beyond MaxRune) become U+FFFD. */
export function runeString(r: number): string {
  if (r < 0 || r > MAX_RUNE || (r >= 0xd800 && r <= 0xdfff)) return '\ufffd';
  return String.fromCodePoint(r);
}

const letterRe = /\p{L}/u;
const digitRe = /\p{Nd}/u;
const printRe = /[\p{L}\p{M}\p{N}\p{P}\p{S}]/u;
const graphicRe = /[\p{L}\p{M}\p{N}\p{P}\p{S}\p{Zs}]/u;

/** isLetter is unicode.IsLetter. */
export function isLetter(r: number): boolean {
  if (r < 0x80) return (r >= 0x61 && r <= 0x7a) || (r >= 0x41 && r <= 0x5a);
  return letterRe.test(runeString(r));
}

/** isDigit is unicode.IsDigit (decimal digits, category Nd). */
export function isDigit(r: number): boolean {
  if (r < 0x80) return r >= 0x30 && r <= 0x39;
  return digitRe.test(runeString(r));
}

/** isPrint is strconv.IsPrint / unicode.IsPrint: letters, marks, numbers, punctuation, symbols and the ASCII space. */
export function isPrint(r: number): boolean {
  if (r < 0x80) return r >= 0x20 && r < 0x7f;
  if (r > MAX_RUNE || (r >= 0xd800 && r <= 0xdfff)) return false;
  return printRe.test(String.fromCodePoint(r));
}

/** isGraphic is strconv.IsGraphic: isPrint plus the other Unicode space separators. */
export function isGraphic(r: number): boolean {
  if (r < 0x80) return r >= 0x20 && r < 0x7f;
  if (r > MAX_RUNE || (r >= 0xd800 && r <= 0xdfff)) return false;
  return graphicRe.test(String.fromCodePoint(r));
}

/** compareStrings orders strings by their UTF-8 bytes (Go's string <), which is code point order. */
export function compareStrings(a: string, b: string): number {
  const n = Math.min(a.length, b.length);
  for (let i = 0; i < n; i++) {
    let x = a.charCodeAt(i);
    let y = b.charCodeAt(i);
    if (x === y) continue;
    // UTF-16 order differs from code point order only between surrogates and U+E000..U+FFFF.
    if (x >= 0xd800 && y >= 0xd800) {
      if (x >= 0xe000) x -= 0x800;
      else x += 0x2000;
      if (y >= 0xe000) y -= 0x800;
      else y += 0x2000;
    }
    return x < y ? -1 : 1;
  }
  return a.length - b.length;
}
