// xstrings.ts: huandu/xstrings v1.5.0 case conversions as Sprig v3.3.0 uses them — `camelcase` is ToPascalCase,
// `snakecase` ToSnakeCase, `kebabcase` ToKebabCase — plus the Apache-commons-style helpers of Masterminds/goutils.
// Go: xstrings convert.go (toCamelCase, camelCaseToLowerCase, nextWord), goutils wordutils.go/stringutils.go.
import { isLetter, isNumber, isPunct, isSpace, isTitle, isUpper, isLower, toLower, toTitle, toUpper } from './unicode.js';

const isConnector = (r: string): boolean => r === '-' || r === '_' || isSpace(r);

/** isAlphabet is xstrings' letter test: a letter that is not a CJK ideograph. */
function isAlphabet(r: string): boolean {
  if (!isLetter(r)) return false;
  const c = r.codePointAt(0)!;
  if (c < 0x3400) return true;
  if (c >= 0x4e00 && c <= 0x9fcc) return false;
  if (c >= 0x3400 && c <= 0x4d85) return false;
  if (c >= 0x20000 && c <= 0x2b81d) return false;
  return true;
}

/** toPascalCase is xstrings.ToPascalCase (Sprig's `camelcase`). */
export function toPascalCase(str: string): string {
  return toCamelCase(str, true);
}

/** toCamelCase is xstrings' shared camel/pascal conversion: connectors drop, the rune after one is upper-cased. */
export function toCamelCase(str: string, isBig: boolean): string {
  const runes = [...str];
  if (runes.length === 0) return '';
  let buf = '';
  let i = 0;
  let isFirstRuneUpper = false;
  let r0 = '';
  let r1: string;
  // Leading connectors appear in the output.
  while (i < runes.length) {
    r0 = runes[i++];
    if (!isConnector(r0)) {
      isFirstRuneUpper = isUpper(r0);
      r0 = isBig ? toUpper(r0) : toLower(r0);
      break;
    }
    buf += r0;
  }
  if (i >= runes.length) {
    // A string of one rune — or of connectors only, where Go writes the last connector twice.
    buf += r0;
    return buf;
  }
  while (i < runes.length) {
    r1 = r0;
    r0 = runes[i++];
    if (isConnector(r0) && isConnector(r1)) {
      buf += r1;
      continue;
    }
    if (isConnector(r1)) {
      isFirstRuneUpper = isUpper(r0);
      r0 = toUpper(r0);
    } else {
      if (isFirstRuneUpper) {
        if (isUpper(r0)) r0 = toLower(r0);
        else isFirstRuneUpper = false;
      }
      buf += r1;
    }
  }
  if (isFirstRuneUpper && !isBig) r0 = toLower(r0);
  return buf + r0;
}

/** toSnakeCase is xstrings.ToSnakeCase. */
export function toSnakeCase(str: string): string {
  return camelCaseToLowerCase(str, '_');
}

/** toKebabCase is xstrings.ToKebabCase. */
export function toKebabCase(str: string): string {
  return camelCaseToLowerCase(str, '-');
}

const enum WordType {
  invalid,
  number,
  upperCase,
  alphabet,
  connector,
  punct,
  other,
}

type Word = [WordType, string[], number]; // type, runes, index after the word

function nextWord(runes: string[], start: number): Word {
  if (start >= runes.length) return [WordType.invalid, [], start];
  let i = start;
  let r = runes[i++];
  let wt: WordType;
  if (isConnector(r)) {
    wt = WordType.connector;
    while (i < runes.length && isConnector(runes[i])) i++;
  } else if (isPunct(r)) {
    wt = WordType.punct;
    while (i < runes.length && isPunct(runes[i])) i++;
  } else if (isUpper(r)) {
    wt = WordType.upperCase;
    if (i < runes.length) {
      r = runes[i];
      if (isUpper(r)) {
        i++;
        while (i < runes.length && isUpper(runes[i])) i++;
        // "HTTPStatus" splits into "HTTP" and "Status": the last upper-case rune starts the next word.
        if (i < runes.length && isAlphabet(runes[i])) i--;
      } else if (isAlphabet(r)) {
        i++;
        while (i < runes.length && isAlphabet(runes[i]) && !isUpper(runes[i])) i++;
      }
    }
  } else if (isAlphabet(r)) {
    wt = WordType.alphabet;
    while (i < runes.length && isAlphabet(runes[i]) && !isUpper(runes[i])) i++;
  } else if (isNumber(r)) {
    wt = WordType.number;
    while (i < runes.length && isNumber(runes[i])) i++;
  } else {
    wt = WordType.other;
    while (i < runes.length) {
      const c = runes[i];
      if (isConnector(c) || isAlphabet(c) || isNumber(c) || isPunct(c)) break;
      i++;
    }
  }
  return [wt, runes.slice(start, i), i];
}

function lowerWord(wt: WordType, word: string[], connector: string): string {
  if (wt !== WordType.upperCase && wt !== WordType.connector) return word.join('');
  let out = '';
  for (const r of word) out += isConnector(r) ? connector : isUpper(r) ? toLower(r) : r;
  return out;
}

/** camelCaseToLowerCase splits words at case changes, numbers and connectors. Go: convert.go camelCaseToLowerCase */
function camelCaseToLowerCase(str: string, connector: string): string {
  const runes = [...str];
  if (runes.length === 0) return '';
  let buf = '';
  let [wt, word, pos]: Word = nextWord(runes, 0);
  while (pos < runes.length) {
    if (wt !== WordType.connector) buf += lowerWord(wt, word, connector);
    const prev = wt;
    let last = word;
    [wt, word, pos] = nextWord(runes, pos);
    switch (prev) {
      case WordType.number:
        while (wt === WordType.alphabet || wt === WordType.number) {
          buf += lowerWord(wt, word, connector);
          [wt, word, pos] = nextWord(runes, pos);
        }
        if (wt !== WordType.invalid && wt !== WordType.punct && wt !== WordType.connector) buf += connector;
        break;
      case WordType.connector:
        buf += lowerWord(prev, last, connector);
        break;
      case WordType.punct:
        break;
      default:
        if (wt !== WordType.number) {
          if (wt !== WordType.connector && wt !== WordType.punct) buf += connector;
          break;
        }
        if (pos >= runes.length) break;
        last = word;
        [wt, word, pos] = nextWord(runes, pos);
        // A number belongs to the previous word ("Bld4Floor" → "bld4_floor") unless letters follow it.
        if (wt !== WordType.alphabet) {
          buf += lowerWord(WordType.number, last, connector);
          if (wt !== WordType.connector && wt !== WordType.punct) buf += connector;
          break;
        }
        buf += connector + lowerWord(WordType.number, last, connector);
        while (wt === WordType.alphabet || wt === WordType.number) {
          buf += lowerWord(wt, word, connector);
          [wt, word, pos] = nextWord(runes, pos);
        }
        if (wt !== WordType.invalid && wt !== WordType.connector && wt !== WordType.punct) buf += connector;
    }
  }
  return buf + lowerWord(wt, word, connector);
}

/** swapCase is goutils.SwapCase (Sprig's `swapcase`): lower → upper (title case after white space), upper → lower. */
export function swapCase(str: string): string {
  let out = '';
  let whitespace = true;
  for (const ch of str) {
    if (isUpper(ch) || isTitle(ch)) {
      out += toLower(ch);
      whitespace = false;
    } else if (isLower(ch)) {
      out += whitespace ? toTitle(ch) : toUpper(ch);
      whitespace = false;
    } else {
      out += ch;
      whitespace = isSpace(ch);
    }
  }
  return out;
}

/** uncapitalize is goutils.Uncapitalize (Sprig's `untitle`): lower-cases the first rune of each space-separated word. */
export function uncapitalize(str: string): string {
  let out = '';
  let next = true;
  for (const ch of str) {
    if (isSpace(ch)) {
      next = true;
      out += ch;
    } else if (next) {
      out += toLower(ch);
      next = false;
    } else out += ch;
  }
  return out;
}

/** shuffleRunes is xstrings.Shuffle with an injected integer source (Fisher–Yates from the end). */
export function shuffleRunes(str: string, intn: (n: number) => number): string {
  const runes = [...str];
  for (let i = runes.length - 1; i > 0; i--) {
    const j = intn(i + 1);
    if (i !== j) [runes[i], runes[j]] = [runes[j], runes[i]];
  }
  return runes.join('');
}
