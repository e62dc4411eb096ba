// lex.ts: the template lexer, a port of Go's text/template/parse/lex.go (Go ≥ 1.20: no goroutine; nextItem runs
// the state machine until a state emits an item). Positions are UTF-16 indexes into the input; error messages
// convert them to Go's byte columns.
import { quote } from './strconv.js';
import { isDigit, isLetter, isPrint, runeAt } from './utf8.js';

/** ItemType identifies the type of lex items. Go: lex.go itemType. */
export const enum ItemType {
  Error, // error occurred; value is text of error
  Bool, // boolean constant
  Char, // printable ASCII character; grab bag for comma etc.
  CharConstant, // character constant
  Comment, // comment text
  Complex, // complex constant (1+2i); imaginary is just a number
  Assign, // equals ('=') introducing an assignment
  Declare, // colon-equals (':=') introducing a declaration
  EOF,
  Field, // alphanumeric identifier starting with '.'
  Identifier, // alphanumeric identifier not starting with '.'
  LeftDelim, // left action delimiter
  LeftParen, // '(' inside action
  Number, // simple number, including imaginary
  Pipe, // pipe symbol
  RawString, // raw quoted string (includes quotes)
  RightDelim, // right action delimiter
  RightParen, // ')' inside action
  Space, // run of spaces separating arguments
  String, // quoted string (includes quotes)
  Text, // plain text
  Variable, // variable starting with '$', such as '$' or  '$1' or '$hello'
  // Keywords appear after all the rest.
  Keyword, // used only to delimit the keywords
  Block, // block keyword
  Break, // break keyword
  Continue, // continue keyword
  Dot, // the cursor, spelled '.'
  Define, // define keyword
  Else, // else keyword
  End, // end keyword
  If, // if keyword
  Nil, // the untyped nil constant, easiest to treat as a keyword
  Range, // range keyword
  Template, // template keyword
  With, // with keyword
}

/** Item is a token or text string returned from the scanner. Go: lex.go item. */
export interface Item {
  typ: ItemType;
  /** The starting position, in UTF-16 units, of this item in the input string. */
  pos: number;
  val: string;
  /** The line number at the start of this item. */
  line: number;
}

const key: Readonly<Record<string, ItemType>> = {
  '.': ItemType.Dot,
  block: ItemType.Block,
  break: ItemType.Break,
  continue: ItemType.Continue,
  define: ItemType.Define,
  else: ItemType.Else,
  end: ItemType.End,
  if: ItemType.If,
  range: ItemType.Range,
  nil: ItemType.Nil,
  template: ItemType.Template,
  with: ItemType.With,
};

/** itemString is item.String() in Go, used in "unexpected X in Y" errors. */
export function itemString(i: Item): string {
  switch (true) {
    case i.typ === ItemType.EOF:
      return 'EOF';
    case i.typ === ItemType.Error:
      return i.val;
    case i.typ > ItemType.Keyword:
      return `<${i.val}>`;
  }
  const runes = Array.from(i.val);
  if (runes.length > 10) return quote(runes.slice(0, 10).join('')) + '...';
  return quote(i.val);
}

const EOF_RUNE = -1;
const spaceChars = ' \t\r\n';
const trimMarker = '-';
const trimMarkerLen = 2; // marker plus space before or after
const leftComment = '/*';
const rightComment = '*/';

/** StateFn represents the state of the scanner as a function that returns the next state. */
type StateFn = ((l: Lexer) => StateFn) | null;

/** LexOptions control what the lexer emits. Go: lex.go lexOptions. */
export interface LexOptions {
  emitComment: boolean; // emit itemComment tokens.
  breakOK: boolean; // break keyword allowed
  continueOK: boolean; // continue keyword allowed
}

/** Lexer holds the state of the scanner. Go: lex.go lexer. */
export class Lexer {
  input: string;
  pos = 0; // current position in the input
  start = 0; // start position of this item
  atEOF = false; // we have hit the end of input and returned eof
  parenDepth = 0; // nesting depth of ( ) exprs
  line = 1; // 1+number of newlines seen
  startLine = 1; // start line of this item
  item: Item = { typ: ItemType.EOF, pos: 0, val: 'EOF', line: 1 };
  insideAction = false; // are we inside an action?
  options: LexOptions = { emitComment: false, breakOK: true, continueOK: true };

  constructor(
    readonly name: string,
    input: string,
    readonly leftDelim: string,
    readonly rightDelim: string,
  ) {
    this.input = input;
  }

  /** next returns the next rune in the input, or EOF_RUNE. */
  next(): number {
    if (this.pos >= this.input.length) {
      this.atEOF = true;
      return EOF_RUNE;
    }
    const [r, w] = runeAt(this.input, this.pos);
    this.pos += w;
    if (r === 0x0a) this.line++;
    return r;
  }

  /** peek returns but does not consume the next rune in the input. */
  peek(): number {
    const r = this.next();
    this.backup();
    return r;
  }

  /** backup steps back one rune. Can only be called once per call of next. */
  backup(): void {
    if (!this.atEOF && this.pos > 0) {
      const c = this.input.charCodeAt(this.pos - 1);
      const w = c >= 0xdc00 && c <= 0xdfff && this.pos > 1 && this.input.charCodeAt(this.pos - 2) >= 0xd800 && this.input.charCodeAt(this.pos - 2) <= 0xdbff ? 2 : 1;
      this.pos -= w;
      if (c === 0x0a) this.line--;
    }
  }

  /** thisItem returns the item at the current input point with the specified type and advances the input. */
  thisItem(t: ItemType): Item {
    const i: Item = { typ: t, pos: this.start, val: this.input.slice(this.start, this.pos), line: this.startLine };
    this.start = this.pos;
    this.startLine = this.line;
    return i;
  }

  /** emit passes the trailing text as an item back to the parser. */
  emit(t: ItemType): StateFn {
    return this.emitItem(this.thisItem(t));
  }

  /** emitItem passes the specified item to the parser. */
  emitItem(i: Item): StateFn {
    this.item = i;
    return null;
  }

  /** ignore skips over the pending input before this point. */
  ignore(): void {
    this.line += countNewlines(this.input, this.start, this.pos);
    this.start = this.pos;
    this.startLine = this.line;
  }

  /** accept consumes the next rune if it's from the valid set. */
  accept(valid: string): boolean {
    const r = this.next();
    if (r !== EOF_RUNE && valid.includes(String.fromCodePoint(r))) return true;
    this.backup();
    return false;
  }

  /** acceptRun consumes a run of runes from the valid set. */
  acceptRun(valid: string): void {
    for (;;) {
      const r = this.next();
      if (r === EOF_RUNE || !valid.includes(String.fromCodePoint(r))) break;
    }
    this.backup();
  }

  /** errorf returns an error token and empties the input, terminating the scan. */
  errorf(message: string): StateFn {
    this.item = { typ: ItemType.Error, pos: this.start, val: message, line: this.startLine };
    this.start = 0;
    this.pos = 0;
    this.input = '';
    return null;
  }

  /** nextItem returns the next item from the input. Called by the parser, not in the lexing goroutine. */
  nextItem(): Item {
    this.item = { typ: ItemType.EOF, pos: this.pos, val: 'EOF', line: this.startLine };
    let state: StateFn = this.insideAction ? lexInsideAction : lexText;
    while (state !== null) state = state(this);
    return this.item;
  }

  /** atRightDelim reports whether the lexer is at a right delimiter, possibly preceded by a trim marker. */
  atRightDelim(): [delim: boolean, trimSpaces: boolean] {
    if (hasRightTrimMarker(this.input, this.pos) && this.input.startsWith(this.rightDelim, this.pos + trimMarkerLen)) {
      return [true, true];
    }
    if (this.input.startsWith(this.rightDelim, this.pos)) return [true, false];
    return [false, false];
  }

  /** atTerminator reports whether the input is at valid termination character to appear after an identifier. */
  atTerminator(): boolean {
    const r = this.peek();
    if (isSpace(r)) return true;
    switch (r) {
      case EOF_RUNE:
      case 0x2e: // .
      case 0x2c: // ,
      case 0x7c: // |
      case 0x3a: // :
      case 0x29: // )
      case 0x28: // (
        return true;
    }
    return this.input.startsWith(this.rightDelim, this.pos);
  }

  /** scanNumber scans a Go number literal (the parser validates it). */
  scanNumber(): boolean {
    // Optional leading sign.
    this.accept('+-');
    // Is it hex?
    let digits = '0123456789_';
    if (this.accept('0')) {
      // Note: Leading 0 does not mean octal in floats.
      if (this.accept('xX')) digits = '0123456789abcdefABCDEF_';
      else if (this.accept('oO')) digits = '01234567_';
      else if (this.accept('bB')) digits = '01_';
    }
    this.acceptRun(digits);
    if (this.accept('.')) this.acceptRun(digits);
    if (digits.length === 10 + 1 && this.accept('eE')) {
      this.accept('+-');
      this.acceptRun('0123456789_');
    }
    if (digits.length === 16 + 6 + 1 && this.accept('pP')) {
      this.accept('+-');
      this.acceptRun('0123456789_');
    }
    // Is it imaginary?
    this.accept('i');
    // Next thing mustn't be alphanumeric.
    if (isAlphaNumeric(this.peek())) {
      this.next();
      return false;
    }
    return true;
  }
}

function countNewlines(s: string, from: number, to: number): number {
  let n = 0;
  for (let i = s.indexOf('\n', from); i !== -1 && i < to; i = s.indexOf('\n', i + 1)) n++;
  return n;
}

/** lex creates a new scanner for the input string. */
export function lex(name: string, input: string, left: string, right: string): Lexer {
  return new Lexer(name, input, left === '' ? '{{' : left, right === '' ? '}}' : right);
}

// State functions. Go: lex.go

/** lexText scans until an opening action delimiter, "{{". */
function lexText(l: Lexer): StateFn {
  const x = l.input.indexOf(l.leftDelim, l.pos);
  if (x >= 0) {
    if (x > l.pos) {
      l.pos = x;
      let trimLength = 0;
      const delimEnd = l.pos + l.leftDelim.length;
      if (hasLeftTrimMarker(l.input, delimEnd)) trimLength = rightTrimLength(l.input, l.start, l.pos);
      l.pos -= trimLength;
      l.line += countNewlines(l.input, l.start, l.pos);
      const i = l.thisItem(ItemType.Text);
      l.pos += trimLength;
      l.ignore();
      if (i.val.length > 0) return l.emitItem(i);
    }
    return lexLeftDelim;
  }
  l.pos = l.input.length;
  // Correctly reached EOF.
  if (l.pos > l.start) {
    l.line += countNewlines(l.input, l.start, l.pos);
    return l.emit(ItemType.Text);
  }
  return l.emit(ItemType.EOF);
}

/** rightTrimLength returns the length of the spaces at the end of s[from:to]. */
function rightTrimLength(s: string, from: number, to: number): number {
  let i = to;
  while (i > from && spaceChars.includes(s[i - 1])) i--;
  return to - i;
}

/** leftTrimLength returns the length of the spaces at the beginning of s[from:]. */
function leftTrimLength(s: string, from: number): number {
  let i = from;
  while (i < s.length && spaceChars.includes(s[i])) i++;
  return i - from;
}

/** lexLeftDelim scans the left delimiter, which is known to be present, possibly with a trim marker. */
function lexLeftDelim(l: Lexer): StateFn {
  l.pos += l.leftDelim.length;
  const trimSpace = hasLeftTrimMarker(l.input, l.pos);
  const afterMarker = trimSpace ? trimMarkerLen : 0;
  if (l.input.startsWith(leftComment, l.pos + afterMarker)) {
    l.pos += afterMarker;
    l.ignore();
    return lexComment;
  }
  const i = l.thisItem(ItemType.LeftDelim);
  l.insideAction = true;
  l.pos += afterMarker;
  l.ignore();
  l.parenDepth = 0;
  return l.emitItem(i);
}

/** lexComment scans a comment. The left comment marker is known to be present. */
function lexComment(l: Lexer): StateFn {
  l.pos += leftComment.length;
  const x = l.input.indexOf(rightComment, l.pos);
  if (x < 0) return l.errorf('unclosed comment');
  l.pos = x + rightComment.length;
  const [delim, trimSpace] = l.atRightDelim();
  if (!delim) return l.errorf('comment ends before closing delimiter');
  const i = l.thisItem(ItemType.Comment);
  if (trimSpace) l.pos += trimMarkerLen;
  l.pos += l.rightDelim.length;
  if (trimSpace) l.pos += leftTrimLength(l.input, l.pos);
  l.ignore();
  if (l.options.emitComment) return l.emitItem(i);
  return lexText;
}

/** lexRightDelim scans the right delimiter, which is known to be present, possibly with a trim marker. */
function lexRightDelim(l: Lexer): StateFn {
  const [, trimSpace] = l.atRightDelim();
  if (trimSpace) {
    l.pos += trimMarkerLen;
    l.ignore();
  }
  l.pos += l.rightDelim.length;
  const i = l.thisItem(ItemType.RightDelim);
  if (trimSpace) {
    l.pos += leftTrimLength(l.input, l.pos);
    l.ignore();
  }
  l.insideAction = false;
  return l.emitItem(i);
}

/** lexInsideAction scans the elements inside action delimiters. */
function lexInsideAction(l: Lexer): StateFn {
  // Either number, quoted string, or identifier.
  // Spaces separate arguments; runs of spaces turn into itemSpace.
  // Pipe symbols separate and are emitted.
  const [delim] = l.atRightDelim();
  if (delim) {
    if (l.parenDepth === 0) return lexRightDelim;
    return l.errorf('unclosed left paren');
  }
  const r = l.next();
  switch (true) {
    case r === EOF_RUNE:
      return l.errorf('unclosed action');
    case isSpace(r):
      l.backup(); // Put space back in case we have " -}}".
      return lexSpace;
    case r === 0x3d: // =
      return l.emit(ItemType.Assign);
    case r === 0x3a: // :
      if (l.next() !== 0x3d) return l.errorf('expected :=');
      return l.emit(ItemType.Declare);
    case r === 0x7c: // |
      return l.emit(ItemType.Pipe);
    case r === 0x22: // "
      return lexQuote;
    case r === 0x60: // `
      return lexRawQuote;
    case r === 0x24: // $
      return lexVariable;
    case r === 0x27: // '
      return lexChar;
    case r === 0x2e: // .
      // special look-ahead for ".field" so we don't break l.backup().
      if (l.pos < l.input.length) {
        const c = l.input.charCodeAt(l.pos);
        if (c < 0x30 || c > 0x39) return lexField;
      }
      // '.' can start a number.
      l.backup();
      return lexNumber;
    case r === 0x2b || r === 0x2d || (r >= 0x30 && r <= 0x39):
      l.backup();
      return lexNumber;
    case isAlphaNumeric(r):
      l.backup();
      return lexIdentifier;
    case r === 0x28: // (
      l.parenDepth++;
      return l.emit(ItemType.LeftParen);
    case r === 0x29: // )
      l.parenDepth--;
      if (l.parenDepth < 0) return l.errorf('unexpected right paren');
      return l.emit(ItemType.RightParen);
    case r <= 0x7f && isPrint(r):
      return l.emit(ItemType.Char);
    default:
      return l.errorf(`unrecognized character in action: ${formatRuneU(r)}`);
  }
}

/** lexSpace scans a run of space characters. We have not consumed the first space, which is known to be present. */
function lexSpace(l: Lexer): StateFn {
  let numSpaces = 0;
  for (;;) {
    const r = l.peek();
    if (!isSpace(r)) break;
    l.next();
    numSpaces++;
  }
  // Be careful about a trim-marked closing delimiter, which has a minus after a space. We know there is a space,
  // so check for the '-' that might follow.
  if (hasRightTrimMarker(l.input, l.pos - 1) && l.input.startsWith(l.rightDelim, l.pos - 1 + trimMarkerLen)) {
    l.backup(); // Before the space.
    if (numSpaces === 1) return lexRightDelim; // On the delim, so go right to that.
  }
  return l.emit(ItemType.Space);
}

/** lexIdentifier scans an alphanumeric. */
function lexIdentifier(l: Lexer): StateFn {
  for (;;) {
    const r = l.next();
    if (isAlphaNumeric(r)) continue;
    l.backup();
    const word = l.input.slice(l.start, l.pos);
    if (!l.atTerminator()) return l.errorf(`bad character ${formatRuneU(r)}`);
    const k = Object.prototype.hasOwnProperty.call(key, word) ? key[word] : undefined;
    if (k !== undefined && k > ItemType.Keyword) {
      if ((k === ItemType.Break && !l.options.breakOK) || (k === ItemType.Continue && !l.options.continueOK)) {
        return l.emit(ItemType.Identifier);
      }
      return l.emit(k);
    }
    if (word[0] === '.') return l.emit(ItemType.Field);
    if (word === 'true' || word === 'false') return l.emit(ItemType.Bool);
    return l.emit(ItemType.Identifier);
  }
}

/** lexField scans a field: .Alphanumeric. The . has been scanned. */
function lexField(l: Lexer): StateFn {
  return lexFieldOrVariable(l, ItemType.Field);
}

/** lexVariable scans a Variable: $Alphanumeric. The $ has been scanned. */
function lexVariable(l: Lexer): StateFn {
  if (l.atTerminator()) return l.emit(ItemType.Variable); // Nothing interesting follows -> "$".
  return lexFieldOrVariable(l, ItemType.Variable);
}

/** lexFieldOrVariable scans a field or variable: [.$]Alphanumeric. The . or $ has been scanned. */
function lexFieldOrVariable(l: Lexer, typ: ItemType): StateFn {
  if (l.atTerminator()) {
    // Nothing interesting follows -> "." or "$".
    return l.emit(typ === ItemType.Variable ? ItemType.Variable : ItemType.Dot);
  }
  let r: number;
  for (;;) {
    r = l.next();
    if (!isAlphaNumeric(r)) {
      l.backup();
      break;
    }
  }
  if (!l.atTerminator()) return l.errorf(`bad character ${formatRuneU(r)}`);
  return l.emit(typ);
}

/** lexChar scans a character constant. The initial quote is already scanned. Syntax checking is done by the parser. */
function lexChar(l: Lexer): StateFn {
  for (;;) {
    const r = l.next();
    if (r === 0x5c) {
      const e = l.next();
      if (e !== EOF_RUNE && e !== 0x0a) continue;
      return l.errorf('unterminated character constant');
    }
    if (r === EOF_RUNE || r === 0x0a) return l.errorf('unterminated character constant');
    if (r === 0x27) break;
  }
  return l.emit(ItemType.CharConstant);
}

/**
 * lexNumber scans a number: decimal, octal, hex, float, or imaginary. This isn't a perfect number scanner - for
 * instance it accepts "." and "0x0.2" and "089" - but when it's wrong the input is invalid and the parser (via
 * strconv) will notice.
 */
function lexNumber(l: Lexer): StateFn {
  if (!l.scanNumber()) return l.errorf(`bad number syntax: ${quote(l.input.slice(l.start, l.pos))}`);
  const sign = l.peek();
  if (sign === 0x2b || sign === 0x2d) {
    // Complex: 1+2i. No spaces, must end in 'i'.
    if (!l.scanNumber() || l.input[l.pos - 1] !== 'i') {
      return l.errorf(`bad number syntax: ${quote(l.input.slice(l.start, l.pos))}`);
    }
    return l.emit(ItemType.Complex);
  }
  return l.emit(ItemType.Number);
}

/** lexQuote scans a quoted string. */
function lexQuote(l: Lexer): StateFn {
  for (;;) {
    const r = l.next();
    if (r === 0x5c) {
      const e = l.next();
      if (e !== EOF_RUNE && e !== 0x0a) continue;
      return l.errorf('unterminated quoted string');
    }
    if (r === EOF_RUNE || r === 0x0a) return l.errorf('unterminated quoted string');
    if (r === 0x22) break;
  }
  return l.emit(ItemType.String);
}

/** lexRawQuote scans a raw quoted string. */
function lexRawQuote(l: Lexer): StateFn {
  for (;;) {
    const r = l.next();
    if (r === EOF_RUNE) return l.errorf('unterminated raw quoted string');
    if (r === 0x60) break;
  }
  return l.emit(ItemType.RawString);
}

/** isSpace reports whether r is a space character. */
function isSpace(r: number): boolean {
  return r === 0x20 || r === 0x09 || r === 0x0d || r === 0x0a;
}

/** isAlphaNumeric reports whether r is an alphabetic, digit, or underscore. */
function isAlphaNumeric(r: number): boolean {
  if (r < 0) return false;
  return r === 0x5f || isLetter(r) || isDigit(r);
}

function hasLeftTrimMarker(s: string, at: number): boolean {
  return s.length - at >= 2 && s[at] === trimMarker && isSpace(s.charCodeAt(at + 1));
}

function hasRightTrimMarker(s: string, at: number): boolean {
  return s.length - at >= 2 && isSpace(s.charCodeAt(at)) && s[at + 1] === trimMarker;
}

/** formatRuneU is fmt's %#U of a rune: U+0023 '#'. */
export function formatRuneU(r: number): string {
  if (r < 0) return 'U+FFFFFFFFFFFFFFFF'; // EOF (-1) printed as an unsigned 64-bit value
  let hex = r.toString(16).toUpperCase();
  if (hex.length < 4) hex = '0'.repeat(4 - hex.length) + hex;
  const s = 'U+' + hex;
  return isPrint(r) ? `${s} '${String.fromCodePoint(r)}'` : s;
}
