// fmt.ts: Go's fmt printing (Print, Sprint, Sprintln, Sprintf) for the value model of value.ts. A port of the
// printing half of Go's fmt package: the pp printer (print.go) and its formatter (format.go), verb by verb, with
// Go's error forms (%!verb(type=value), %!(EXTRA …), %!verb(MISSING), %!(BADWIDTH), …).
import { GoFloat32, GoInt, GoStruct, isGoFunc, isGoStringer, type GoValue } from './value.js';
import { GoComplex, goTypeOf, kindOf, sortedKeys } from './reflect.js';
import { canBackquote, formatFloat, formatFloatV, quote, quoteRune, quoteToASCII, type FloatFormat } from './strconv.js';
import { encodeUTF8, isPrint, MAX_RUNE, runeCount, runeString } from './utf8.js';

const ldigits = '0123456789abcdefx';
const udigits = '0123456789ABCDEFX';

const nilAngleString = '<nil>';
const nilParenString = '(nil)';
const percentBangString = '%!';
const missingString = '(MISSING)';
const badIndexString = '(BADINDEX)';
const extraString = '%!(EXTRA ';
const badWidthString = '%!(BADWIDTH)';
const badPrecString = '%!(BADPREC)';
const noVerbString = '%!(NOVERB)';

// Go prints the address of maps, slices and functions for %p; we have no addresses, so each object gets a stable,
// made-up one (an object identity, in Go's usual heap range) for as long as it lives.
const fakeAddresses = new WeakMap<object, bigint>();
let nextFakeAddress = 0xc000010000n;
function fakeAddress(v: object): bigint {
  let a = fakeAddresses.get(v);
  if (a === undefined) {
    a = nextFakeAddress;
    nextFakeAddress += 0x30n;
    fakeAddresses.set(v, a);
  }
  return a;
}

/** Printer is Go's pp: a buffer plus the formatter's flags; one per top-level Sprint/Sprintf call. */
class Printer {
  buf = '';
  // fmt flags (format.go fmtFlags)
  widPresent = false;
  precPresent = false;
  minus = false;
  plus = false;
  sharp = false;
  space = false;
  zero = false;
  plusV = false;
  sharpV = false;
  wid = 0;
  prec = 0;
  // pp state
  arg: GoValue = null;
  hasArg = false;
  reordered = false;
  goodArgNum = true;
  erroring = false;
  panicking = false;

  clearflags(): void {
    this.widPresent = false;
    this.precPresent = false;
    this.minus = false;
    this.plus = false;
    this.sharp = false;
    this.space = false;
    this.zero = false;
    this.plusV = false;
    this.sharpV = false;
    this.wid = 0;
    this.prec = 0;
  }

  // ---- format.go

  writePadding(n: number): void {
    if (n <= 0) return;
    this.buf += (this.zero && !this.minus ? '0' : ' ').repeat(n);
  }

  /** pad appends s padded to the width (counted in runes). */
  pad(s: string): void {
    if (!this.widPresent || this.wid === 0) {
      this.buf += s;
      return;
    }
    const width = this.wid - runeCount(s);
    if (!this.minus) {
      this.writePadding(width);
      this.buf += s;
    } else {
      this.buf += s;
      this.writePadding(width);
    }
  }

  fmtBoolean(v: boolean): void {
    this.pad(v ? 'true' : 'false');
  }

  fmtUnicode(u: bigint): void {
    let prec = 4;
    if (this.precPresent && this.prec > 4) prec = this.prec;
    let hex = u.toString(16).toUpperCase();
    if (hex.length < prec) hex = '0'.repeat(prec - hex.length) + hex;
    let s = 'U+' + hex;
    if (this.sharp && u <= BigInt(MAX_RUNE) && isPrint(Number(u))) s += " '" + runeString(Number(u)) + "'";
    const oldZero = this.zero;
    this.zero = false;
    this.pad(s);
    this.zero = oldZero;
  }

  fmtInteger(v: bigint, base: number, isSigned: boolean, verb: string, digits: string): void {
    const negative = isSigned && v < 0n;
    let u = negative ? -v : v;
    let prec = 0;
    if (this.precPresent) {
      prec = this.prec;
      if (prec === 0 && u === 0n) {
        const oldZero = this.zero;
        this.zero = false;
        this.writePadding(this.wid);
        this.zero = oldZero;
        return;
      }
    } else if (this.zero && !this.minus && this.widPresent) {
      prec = this.wid;
      if (negative || this.plus || this.space) prec--; // leave room for sign
    }
    let s = u === 0n ? '0' : u.toString(base);
    if (digits === udigits) s = s.toUpperCase();
    u = 0n;
    if (s.length < prec) s = '0'.repeat(prec - s.length) + s;
    if (this.sharp) {
      switch (base) {
        case 2:
          s = '0b' + s;
          break;
        case 8:
          if (s[0] !== '0') s = '0' + s;
          break;
        case 16:
          s = '0' + digits[16] + s;
          break;
      }
    }
    if (verb === 'O') s = '0o' + s;
    if (negative) s = '-' + s;
    else if (this.plus) s = '+' + s;
    else if (this.space) s = ' ' + s;
    const oldZero = this.zero;
    this.zero = false;
    this.pad(s);
    this.zero = oldZero;
  }

  truncateString(s: string): string {
    if (this.precPresent) {
      let n = this.prec;
      for (let i = 0; i < s.length; ) {
        n--;
        if (n < 0) return s.slice(0, i);
        const c = s.charCodeAt(i);
        i += c >= 0xd800 && c <= 0xdbff && i + 1 < s.length ? 2 : 1;
      }
    }
    return s;
  }

  fmtS(s: string): void {
    this.pad(this.truncateString(s));
  }

  fmtSbx(bytes: Uint8Array, digits: string): void {
    let length = bytes.length;
    if (this.precPresent && this.prec < length) length = this.prec;
    let width = 2 * length;
    if (width > 0) {
      if (this.space) {
        if (this.sharp) width *= 2;
        width += length - 1;
      } else if (this.sharp) width += 2;
    } else {
      if (this.widPresent) this.writePadding(this.wid);
      return;
    }
    if (this.widPresent && this.wid > width && !this.minus) this.writePadding(this.wid - width);
    let out = '';
    if (this.sharp) out += '0' + digits[16];
    for (let i = 0; i < length; i++) {
      if (this.space && i > 0) {
        out += ' ';
        if (this.sharp) out += '0' + digits[16];
      }
      const c = bytes[i];
      out += digits[c >> 4] + digits[c & 0xf];
    }
    this.buf += out;
    if (this.widPresent && this.wid > width && this.minus) this.writePadding(this.wid - width);
  }

  fmtQ(s: string): void {
    s = this.truncateString(s);
    if (this.sharp && canBackquote(s)) {
      this.pad('`' + s + '`');
      return;
    }
    this.pad(this.plus ? quoteToASCII(s) : quote(s));
  }

  fmtC(c: bigint): void {
    const r = c > BigInt(MAX_RUNE) ? 0xfffd : Number(c);
    this.pad(runeString(r));
  }

  fmtQc(c: bigint): void {
    const r = c > BigInt(MAX_RUNE) ? 0xfffd : Number(c);
    this.pad(quoteRune(r, this.plus));
  }

  fmtFloatF(v: number, size: 32 | 64, verb: string, precIn: number): void {
    const prec = this.precPresent ? this.prec : precIn;
    let num = formatFloat(v, verb as FloatFormat, prec, size);
    if (num[0] === '-' || num[0] === '+') {
      // keep the sign
    } else num = '+' + num;
    if (this.space && num[0] === '+' && !this.plus) num = ' ' + num.slice(1);
    if (num[1] === 'I' || num[1] === 'N') {
      const oldZero = this.zero;
      this.zero = false;
      if (num[1] === 'N' && !this.space && !this.plus) num = num.slice(1);
      this.pad(num);
      this.zero = oldZero;
      return;
    }
    if (this.sharp && verb !== 'b') {
      let digits = 0;
      switch (verb) {
        case 'v':
        case 'g':
        case 'G':
        case 'x':
          digits = prec;
          if (digits === -1) digits = 6;
      }
      let tail = '';
      let body = num;
      let hasDecimalPoint = false;
      let sawNonzeroDigit = false;
      for (let i = 1; i < body.length; i++) {
        const c = body[i];
        if (c === '.') {
          hasDecimalPoint = true;
        } else if (c === 'p' || c === 'P') {
          tail = body.slice(i);
          body = body.slice(0, i);
          break;
        } else if ((c === 'e' || c === 'E') && verb !== 'x' && verb !== 'X') {
          tail = body.slice(i);
          body = body.slice(0, i);
          break;
        } else {
          if (c !== '0') sawNonzeroDigit = true;
          if (sawNonzeroDigit) digits--;
        }
      }
      if (!hasDecimalPoint) {
        if (body.length === 2 && body[1] === '0') digits--;
        body += '.';
      }
      while (digits > 0) {
        body += '0';
        digits--;
      }
      num = body + tail;
    }
    if (this.plus || num[0] !== '+') {
      if (this.zero && !this.minus && this.widPresent && this.wid > num.length) {
        this.buf += num[0];
        this.writePadding(this.wid - num.length);
        this.buf += num.slice(1);
        return;
      }
      this.pad(num);
      return;
    }
    this.pad(num.slice(1));
  }

  // ---- print.go

  badVerb(verb: string, value: GoValue, hasValue: boolean): void {
    this.erroring = true;
    this.buf += percentBangString + verb + '(';
    if (hasValue && value !== null && value !== undefined) {
      this.buf += goTypeOf(value) + '=';
      this.printArg(value, 'v');
    } else {
      this.buf += nilAngleString;
    }
    this.buf += ')';
    this.erroring = false;
  }

  fmtBool(v: boolean, verb: string): void {
    if (verb === 't' || verb === 'v') this.fmtBoolean(v);
    else this.badVerb(verb, v, true);
  }

  fmt0x64(v: bigint, leading0x: boolean): void {
    const sharp = this.sharp;
    this.sharp = leading0x;
    this.fmtInteger(v, 16, false, 'v', ldigits);
    this.sharp = sharp;
  }

  fmtIntegerVerb(v: bigint, isSigned: boolean, verb: string, value: GoValue): void {
    switch (verb) {
      case 'v':
        if (this.sharpV && !isSigned) this.fmt0x64(v, true);
        else this.fmtInteger(v, 10, isSigned, verb, ldigits);
        return;
      case 'd':
        this.fmtInteger(v, 10, isSigned, verb, ldigits);
        return;
      case 'b':
        this.fmtInteger(v, 2, isSigned, verb, ldigits);
        return;
      case 'o':
      case 'O':
        this.fmtInteger(v, 8, isSigned, verb, ldigits);
        return;
      case 'x':
        this.fmtInteger(v, 16, isSigned, verb, ldigits);
        return;
      case 'X':
        this.fmtInteger(v, 16, isSigned, verb, udigits);
        return;
      case 'c':
        this.fmtC(BigInt.asUintN(64, v));
        return;
      case 'q':
        this.fmtQc(BigInt.asUintN(64, v));
        return;
      case 'U':
        this.fmtUnicode(BigInt.asUintN(64, v));
        return;
      default:
        this.badVerb(verb, value, true);
    }
  }

  fmtFloat(v: number, size: 32 | 64, verb: string, value: GoValue): void {
    switch (verb) {
      case 'v':
        this.fmtFloatF(v, size, 'g', -1);
        return;
      case 'b':
      case 'g':
      case 'G':
      case 'x':
      case 'X':
        this.fmtFloatF(v, size, verb, -1);
        return;
      case 'f':
      case 'e':
      case 'E':
        this.fmtFloatF(v, size, verb, 6);
        return;
      case 'F':
        this.fmtFloatF(v, size, 'f', 6);
        return;
      default:
        this.badVerb(verb, value, true);
    }
  }

  fmtComplex(v: GoComplex, verb: string): void {
    switch (verb) {
      case 'v':
      case 'b':
      case 'g':
      case 'G':
      case 'x':
      case 'X':
      case 'f':
      case 'F':
      case 'e':
      case 'E': {
        const oldPlus = this.plus;
        this.buf += '(';
        this.fmtFloat(v.re, 64, verb, v.re);
        this.plus = true;
        this.fmtFloat(v.im, 64, verb, v.im);
        this.buf += 'i)';
        this.plus = oldPlus;
        return;
      }
      default:
        this.badVerb(verb, v as unknown as GoValue, true);
    }
  }

  fmtString(v: string, verb: string): void {
    switch (verb) {
      case 'v':
        if (this.sharpV) this.fmtQ(v);
        else this.fmtS(v);
        return;
      case 's':
        this.fmtS(v);
        return;
      case 'x':
        this.fmtSbx(encodeUTF8(v), ldigits);
        return;
      case 'X':
        this.fmtSbx(encodeUTF8(v), udigits);
        return;
      case 'q':
        this.fmtQ(v);
        return;
      default:
        this.badVerb(verb, v, true);
    }
  }

  fmtBytes(v: Uint8Array, verb: string, typeString: string, depth: number): void {
    switch (verb) {
      case 'v':
      case 'd':
        if (this.sharpV) {
          this.buf += typeString + '{';
          for (let i = 0; i < v.length; i++) {
            if (i > 0) this.buf += ', ';
            this.fmt0x64(BigInt(v[i]), true);
          }
          this.buf += '}';
        } else {
          this.buf += '[';
          for (let i = 0; i < v.length; i++) {
            if (i > 0) this.buf += ' ';
            this.fmtInteger(BigInt(v[i]), 10, false, verb, ldigits);
          }
          this.buf += ']';
        }
        return;
      case 's':
        this.fmtS(new TextDecoder().decode(v));
        return;
      case 'x':
        this.fmtSbx(v, ldigits);
        return;
      case 'X':
        this.fmtSbx(v, udigits);
        return;
      case 'q':
        this.fmtQ(new TextDecoder().decode(v));
        return;
      default: {
        // Go: printValue of the []byte, element by element.
        this.buf += '[';
        for (let i = 0; i < v.length; i++) {
          if (i > 0) this.buf += ' ';
          this.fmtIntegerVerb(BigInt(v[i]), false, verb, new GoInt('uint8', BigInt(v[i])));
        }
        this.buf += ']';
        void depth;
      }
    }
  }

  fmtPointer(value: GoValue, verb: string): void {
    const k = kindOf(value);
    if (k !== 'func' && k !== 'map' && k !== 'slice' && k !== 'ptr') {
      this.badVerb(verb, value, true);
      return;
    }
    const u = fakeAddress(value as object);
    switch (verb) {
      case 'v':
        if (this.sharpV) {
          this.buf += '(' + goTypeOf(value) + ')(';
          this.fmt0x64(u, true);
          this.buf += ')';
        } else {
          this.fmt0x64(u, !this.sharp);
        }
        return;
      case 'p':
        this.fmt0x64(u, !this.sharp);
        return;
      case 'b':
      case 'o':
      case 'd':
      case 'x':
      case 'X':
        this.fmtIntegerVerb(u, false, verb, value);
        return;
      default:
        this.badVerb(verb, value, true);
    }
  }

  /** handleMethods calls String()/Error() for the verbs that use them. */
  handleMethods(arg: GoValue, verb: string): boolean {
    if (this.erroring) return false;
    if (!isGoStringer(arg)) return false;
    if (this.sharpV) return false; // no GoString() in our model
    switch (verb) {
      case 'v':
      case 's':
      case 'x':
      case 'X':
      case 'q': {
        let s: string;
        try {
          s = arg.goString();
        } catch (e) {
          // Go: catchPanic prints %!v(PANIC=String method: msg)
          if (this.panicking) throw e;
          this.buf += percentBangString + verb + '(PANIC=String method: ' + (e instanceof Error ? e.message : String(e)) + ')';
          return true;
        }
        this.fmtString(s, verb);
        return true;
      }
    }
    return false;
  }

  printArg(arg: GoValue, verb: string): void {
    this.arg = arg;
    if (arg === null || arg === undefined) {
      if (verb === 'T' || verb === 'v') this.pad(nilAngleString);
      else this.badVerb(verb, null, false);
      return;
    }
    if (verb === 'T') {
      this.fmtS(goTypeOf(arg));
      return;
    }
    if (verb === 'p') {
      this.fmtPointer(arg, 'p');
      return;
    }
    switch (typeof arg) {
      case 'boolean':
        this.fmtBool(arg, verb);
        return;
      case 'number':
        this.fmtFloat(arg, 64, verb, arg);
        return;
      case 'bigint':
        this.fmtIntegerVerb(arg, true, verb, arg);
        return;
      case 'string':
        this.fmtString(arg, verb);
        return;
    }
    if (arg instanceof GoInt) {
      const k = arg.type;
      this.fmtIntegerVerb(arg.value, !k.startsWith('u'), verb, arg);
      return;
    }
    if (arg instanceof GoFloat32) {
      this.fmtFloat(arg.value, 32, verb, arg);
      return;
    }
    if (arg instanceof Uint8Array) {
      this.fmtBytes(arg, verb, '[]byte', 0);
      return;
    }
    if (!this.handleMethods(arg, verb)) this.printValue(arg, verb, 0);
  }

  /** printValue prints a composite value (or an element of one, at depth > 0). */
  printValue(value: GoValue, verb: string, depth: number): void {
    if (depth > 0 && value !== null && value !== undefined && this.handleMethods(value, verb)) return;
    if (value === null || value === undefined) {
      // An interface element holding nil prints the same for every verb.
      this.buf += this.sharpV ? 'interface {}' + nilParenString : nilAngleString;
      return;
    }
    switch (typeof value) {
      case 'boolean':
        this.fmtBool(value, verb);
        return;
      case 'number':
        this.fmtFloat(value, 64, verb, value);
        return;
      case 'bigint':
        this.fmtIntegerVerb(value, true, verb, value);
        return;
      case 'string':
        this.fmtString(value, verb);
        return;
      case 'function':
        this.fmtPointer(value, verb);
        return;
    }
    if (value instanceof GoInt) {
      this.fmtIntegerVerb(value.value, !value.type.startsWith('u'), verb, value);
      return;
    }
    if (value instanceof GoFloat32) {
      this.fmtFloat(value.value, 32, verb, value);
      return;
    }
    if ((value as unknown) instanceof GoComplex) {
      this.fmtComplex(value as unknown as GoComplex, verb);
      return;
    }
    if (value instanceof Uint8Array) {
      this.fmtBytes(value, verb, '[]uint8', depth);
      return;
    }
    if (Array.isArray(value)) {
      this.printSlice(value, verb, depth);
      return;
    }
    if (value instanceof GoStruct) {
      if (this.sharpV) this.buf += value.typeName;
      this.buf += '{';
      let i = 0;
      for (const name of Object.keys(value.fields)) {
        if (i++ > 0) this.buf += this.sharpV ? ', ' : ' ';
        if (this.plusV || this.sharpV) this.buf += name + ':';
        this.printValue(value.fields[name], verb, depth + 1);
      }
      this.buf += '}';
      return;
    }
    if (isGoFunc(value)) {
      this.fmtPointer(value, verb);
      return;
    }
    if (isGoStringer(value)) {
      // A named basic type (time.Month) prints its underlying value for the verbs String() does not serve (%d).
      const underlying = value.goUnderlying?.();
      if (underlying !== undefined) {
        this.printValue(underlying, verb, depth);
        return;
      }
      // A value with String() reached with a verb String() does not serve: print what we know.
      this.badVerb(verb, value, true);
      return;
    }
    this.printMap(value as Record<string, GoValue>, verb, depth);
  }

  printSlice(value: GoValue[], verb: string, depth: number): void {
    if (this.sharpV) {
      this.buf += goTypeOf(value) + '{';
      for (let i = 0; i < value.length; i++) {
        if (i > 0) this.buf += ', ';
        this.printValue(value[i], verb, depth + 1);
      }
      this.buf += '}';
      return;
    }
    this.buf += '[';
    for (let i = 0; i < value.length; i++) {
      if (i > 0) this.buf += ' ';
      this.printValue(value[i], verb, depth + 1);
    }
    this.buf += ']';
  }

  printMap(m: Record<string, GoValue>, verb: string, depth: number): void {
    if (this.sharpV) this.buf += goTypeOf(m) + '{';
    else this.buf += 'map[';
    const keys = sortedKeys(m);
    for (let i = 0; i < keys.length; i++) {
      if (i > 0) this.buf += this.sharpV ? ', ' : ' ';
      this.printValue(keys[i], verb, depth + 1);
      this.buf += ':';
      this.printValue(m[keys[i]], verb, depth + 1);
    }
    this.buf += this.sharpV ? '}' : ']';
  }

  doPrintf(format: string, a: readonly GoValue[]): void {
    const end = format.length;
    let argNum = 0;
    let afterIndex = false;
    this.reordered = false;
    formatLoop: for (let i = 0; i < end; ) {
      this.goodArgNum = true;
      const lasti = i;
      while (i < end && format.charCodeAt(i) !== 0x25) i++;
      if (i > lasti) this.buf += format.slice(lasti, i);
      if (i >= end) break;
      i++; // skip %
      this.clearflags();
      simpleFormat: for (; i < end; i++) {
        const c = format[i];
        switch (c) {
          case '#':
            this.sharp = true;
            break;
          case '0':
            this.zero = true;
            break;
          case '+':
            this.plus = true;
            break;
          case '-':
            this.minus = true;
            break;
          case ' ':
            this.space = true;
            break;
          default:
            // Fast path for common case of ascii lower case simple verbs without precision or width or arg indices.
            if (c >= 'a' && c <= 'z' && argNum < a.length) {
              if (c === 'v' || c === 'w') {
                this.sharpV = this.sharp;
                this.sharp = false;
                this.plusV = this.plus;
                this.plus = false;
              }
              if (c === 'w') {
                this.badVerb('w', a[argNum], true); // Sprintf has no %w
              } else this.printArg(a[argNum], c);
              argNum++;
              i++;
              continue formatLoop;
            }
            break simpleFormat;
        }
      }
      // Argument index?
      [argNum, i, afterIndex] = this.argNumber(argNum, format, i, a.length);
      // Width
      if (i < end && format[i] === '*') {
        i++;
        [this.wid, this.widPresent, argNum] = intFromArg(a, argNum);
        if (!this.widPresent) this.buf += badWidthString;
        if (this.wid < 0) {
          this.wid = -this.wid;
          this.minus = true;
          this.zero = false;
        }
        afterIndex = false;
      } else {
        [this.wid, this.widPresent, i] = parsenum(format, i, end);
        if (afterIndex && this.widPresent) this.goodArgNum = false;
      }
      // Precision
      if (i + 1 < end && format[i] === '.') {
        i++;
        if (afterIndex) this.goodArgNum = false;
        [argNum, i, afterIndex] = this.argNumber(argNum, format, i, a.length);
        if (i < end && format[i] === '*') {
          i++;
          [this.prec, this.precPresent, argNum] = intFromArg(a, argNum);
          if (this.prec < 0) {
            this.prec = 0;
            this.precPresent = false;
          }
          if (!this.precPresent) this.buf += badPrecString;
          afterIndex = false;
        } else {
          [this.prec, this.precPresent, i] = parsenum(format, i, end);
          if (!this.precPresent) {
            this.prec = 0;
            this.precPresent = true;
          }
        }
      }
      if (!afterIndex) [argNum, i, afterIndex] = this.argNumber(argNum, format, i, a.length);
      if (i >= end) {
        this.buf += noVerbString;
        break;
      }
      const cp = format.codePointAt(i)!;
      const verb = String.fromCodePoint(cp);
      i += verb.length;
      if (verb === '%') {
        this.buf += '%';
      } else if (!this.goodArgNum) {
        this.buf += percentBangString + verb + badIndexString;
      } else if (argNum >= a.length) {
        this.buf += percentBangString + verb + missingString;
      } else {
        if (verb === 'v' || verb === 'w') {
          this.sharpV = this.sharp;
          this.sharp = false;
          this.plusV = this.plus;
          this.plus = false;
        }
        if (verb === 'w') this.badVerb('w', a[argNum], true);
        else this.printArg(a[argNum], verb);
        argNum++;
      }
    }
    if (!this.reordered && argNum < a.length) {
      this.clearflags();
      this.buf += extraString;
      for (let j = argNum; j < a.length; j++) {
        if (j > argNum) this.buf += ', ';
        const arg = a[j];
        if (arg === null || arg === undefined) this.buf += nilAngleString;
        else {
          this.buf += goTypeOf(arg) + '=';
          this.printArg(arg, 'v');
        }
      }
      this.buf += ')';
    }
  }

  argNumber(argNum: number, format: string, i: number, numArgs: number): [number, number, boolean] {
    if (format.length <= i || format[i] !== '[') return [argNum, i, false];
    this.reordered = true;
    const [index, wid, ok] = parseArgNumber(format.slice(i));
    if (ok && index >= 0 && index < numArgs) return [index, i + wid, true];
    this.goodArgNum = false;
    return [argNum, i + wid, ok];
  }
}

function tooLarge(x: number): boolean {
  return x > 1e6 || x < -1e6;
}

function parsenum(s: string, start: number, end: number): [number, boolean, number] {
  if (start >= end) return [0, false, end];
  let num = 0;
  let isnum = false;
  let i = start;
  for (; i < end && s.charCodeAt(i) >= 0x30 && s.charCodeAt(i) <= 0x39; i++) {
    if (tooLarge(num)) return [0, false, end];
    num = num * 10 + (s.charCodeAt(i) - 0x30);
    isnum = true;
  }
  return [num, isnum, i];
}

function parseArgNumber(format: string): [number, number, boolean] {
  if (format.length < 3) return [0, 1, false];
  for (let i = 1; i < format.length; i++) {
    if (format[i] === ']') {
      const [width, ok, newi] = parsenum(format, 1, i);
      if (!ok || newi !== i) return [0, i + 1, false];
      return [width - 1, i + 1, true];
    }
  }
  return [0, 1, false];
}

function intFromArg(a: readonly GoValue[], argNum: number): [number, boolean, number] {
  let num = 0;
  let isInt = false;
  let newArgNum = argNum;
  if (argNum < a.length) {
    const v = a[argNum];
    if (typeof v === 'bigint' || v instanceof GoInt) {
      const n = typeof v === 'bigint' ? v : v.value;
      if (n >= -(2n ** 63n) && n < 2n ** 63n) {
        num = Number(n);
        isInt = true;
      }
    }
    newArgNum = argNum + 1;
    if (tooLarge(num)) {
      num = 0;
      isInt = false;
    }
  }
  return [num, isInt, newArgNum];
}

/** sprintf is fmt.Sprintf. */
export function sprintf(format: string, ...a: GoValue[]): string {
  const p = new Printer();
  p.doPrintf(format, a);
  return p.buf;
}

/** sprintfArgs is fmt.Sprintf with the operands as an array. */
export function sprintfArgs(format: string, a: readonly GoValue[]): string {
  const p = new Printer();
  p.doPrintf(format, a);
  return p.buf;
}

/** sprint is fmt.Sprint: operands printed with %v, a space between two operands when neither is a string. */
export function sprint(...a: GoValue[]): string {
  return sprintArgs(a);
}

/** sprintArgs is fmt.Sprint with the operands as an array. */
export function sprintArgs(a: readonly GoValue[]): string {
  if (a.length === 1) return formatValue(a[0]);
  const p = new Printer();
  let prevString = false;
  for (let i = 0; i < a.length; i++) {
    const arg = a[i];
    const isString = typeof arg === 'string';
    if (i > 0 && !isString && !prevString) p.buf += ' ';
    p.printArg(arg, 'v');
    prevString = isString;
  }
  return p.buf;
}

/** sprintln is fmt.Sprintln: operands printed with %v, always space-separated, with a trailing newline. */
export function sprintln(...a: GoValue[]): string {
  return sprintlnArgs(a);
}

/** sprintlnArgs is fmt.Sprintln with the operands as an array. */
export function sprintlnArgs(a: readonly GoValue[]): string {
  const p = new Printer();
  for (let i = 0; i < a.length; i++) {
    if (i > 0) p.buf += ' ';
    p.printArg(a[i], 'v');
  }
  return p.buf + '\n';
}

/** formatValue is fmt.Sprint(v) of one value (%v), with fast paths for scalars. */
export function formatValue(v: GoValue): string {
  switch (typeof v) {
    case 'string':
      return v;
    case 'bigint':
      return v.toString();
    case 'number':
      return formatFloatV(v);
    case 'boolean':
      return v ? 'true' : 'false';
  }
  if (v === null || v === undefined) return nilAngleString;
  const p = new Printer();
  p.printArg(v, 'v');
  return p.buf;
}
