// unicode.ts: Go's unicode predicates and simple case mappings, and UTF-8 byte views of strings. Go strings are
// byte strings, so functions that index or measure them (trunc, substr, abbrev, wrap) work on UTF-8 bytes.

const reUpper = /^\p{Lu}$/u;
const reLower = /^\p{Ll}$/u;
const reTitle = /^\p{Lt}$/u;
const reLetter = /^\p{L}$/u;
const reDigit = /^\p{Nd}$/u;
const reNumber = /^\p{N}$/u;
const rePunct = /^\p{P}$/u;
const reSpace = /^\p{White_Space}$/u;

/** isUpper is unicode.IsUpper. */
export const isUpper = (ch: string): boolean => (ch >= 'A' && ch <= 'Z') || (ch > '\x7f' && reUpper.test(ch));
/** isLower is unicode.IsLower. */
export const isLower = (ch: string): boolean => (ch >= 'a' && ch <= 'z') || (ch > '\x7f' && reLower.test(ch));
/** isTitle is unicode.IsTitle. */
export const isTitle = (ch: string): boolean => ch > '\x7f' && reTitle.test(ch);
/** isLetter is unicode.IsLetter. */
export const isLetter = (ch: string): boolean =>
  (ch >= 'a' && ch <= 'z') || (ch >= 'A' && ch <= 'Z') || (ch > '\x7f' && reLetter.test(ch));
/** isDigit is unicode.IsDigit. */
export const isDigit = (ch: string): boolean => (ch >= '0' && ch <= '9') || (ch > '\x7f' && reDigit.test(ch));
/** isNumber is unicode.IsNumber. */
export const isNumber = (ch: string): boolean => (ch >= '0' && ch <= '9') || (ch > '\x7f' && reNumber.test(ch));
/** isPunct is unicode.IsPunct. */
export const isPunct = (ch: string): boolean => rePunct.test(ch);
/** isSpace is unicode.IsSpace: the Latin-1 spaces incl. U+0085 and U+00A0, then the White_Space property. */
export const isSpace = (ch: string): boolean => reSpace.test(ch);

/** toUpper is unicode.ToUpper: a one-to-one mapping (JavaScript's multi-character expansions such as ß → SS are skipped). */
export function toUpper(ch: string): string {
  const u = ch.toUpperCase();
  return u.length === ch.length || [...u].length === 1 ? u : ch;
}

/** toLower is unicode.ToLower (one-to-one). */
export function toLower(ch: string): string {
  if (ch === '\u0130') return 'i'; // Go maps İ to i (simple mapping); JavaScript gives i + combining dot
  const l = ch.toLowerCase();
  return [...l].length === 1 ? l : ch;
}

const TITLE: Record<string, string> = {
  '\u01c4': '\u01c5',
  '\u01c5': '\u01c5',
  '\u01c6': '\u01c5',
  '\u01c7': '\u01c8',
  '\u01c8': '\u01c8',
  '\u01c9': '\u01c8',
  '\u01ca': '\u01cb',
  '\u01cb': '\u01cb',
  '\u01cc': '\u01cb',
  '\u01f1': '\u01f2',
  '\u01f2': '\u01f2',
  '\u01f3': '\u01f2',
};

/** toTitle is unicode.ToTitle: upper case except for the Latin digraphs, which have their own title forms. */
export function toTitle(ch: string): string {
  return TITLE[ch] ?? toUpper(ch);
}

/** mapRunes applies f to each code point (Go's strings.Map without the drop case). */
export function mapRunes(s: string, f: (ch: string) => string): string {
  let out = '';
  for (const ch of s) out += f(ch);
  return out;
}

const enc = new TextEncoder();
const dec = new TextDecoder('utf-8');

/** isAscii is true when the UTF-16 and UTF-8 views of s coincide, so byte offsets are string offsets. */
export function isAscii(s: string): boolean {
  // eslint-disable-next-line no-control-regex
  return /^[\x00-\x7f]*$/.test(s);
}

/** utf8Bytes encodes s as UTF-8. */
export function utf8Bytes(s: string): Uint8Array {
  return enc.encode(s);
}

/** utf8String decodes UTF-8 (invalid sequences become U+FFFD). */
export function utf8String(b: Uint8Array): string {
  return dec.decode(b);
}

/** byteLen is Go's len(s). */
export function byteLen(s: string): number {
  return isAscii(s) ? s.length : enc.encode(s).length;
}

/** byteSlice is Go's s[start:end] on byte offsets (callers check bounds). */
export function byteSlice(s: string, start: number, end?: number): string {
  if (isAscii(s)) return s.slice(start, end);
  return dec.decode(enc.encode(s).subarray(start, end));
}

/** latin1Runes turns each UTF-8 byte into the rune of the same value, as Go's `rune(str[i])` loops do. */
export function bytesAsRunes(s: string): string[] {
  if (isAscii(s)) return s.split('');
  return Array.from(enc.encode(s), (b) => String.fromCharCode(b));
}
