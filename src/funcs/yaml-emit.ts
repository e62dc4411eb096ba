// yaml-emit.ts: a port of the libyaml emitter as go-yaml uses it, for the documents templates produce (block
// mappings and sequences, empty flow collections, scalars in every style). Two flavours:
//   v2 — gopkg.in/yaml.v2, behind sigs.k8s.io/yaml (toYaml): 2-space indent, sequences in mappings not indented,
//        long lines folded at 80 columns, YAML 1.1 resolution (yes/no/on/off are booleans).
//   v3 — gopkg.in/yaml.v3 (event-manager copy/setField/removeField): 4-space indent, sequences indented, no
//        folding, YAML 1.2 resolution but YAML 1.1 booleans still quoted.
// Go: gopkg.in/yaml.v{2,3} emitterc.go, encode.go (stringv), resolve.go, sorter.go.
import { parseFloat64, parseInt64 } from '../gotemplate/index.js';
import { isLetter, isDigit } from './unicode.js';
import { parseTime, UTC } from './date.js';

/** YamlFlavor selects the go-yaml version whose output is reproduced. */
export type YamlFlavor = 'v2' | 'v3';

/** YamlNode is the document tree the emitter writes. */
export type YamlNode =
  | { kind: 'scalar'; value: string; style: 'plain' | 'double' | 'literal' }
  | { kind: 'seq'; items: YamlNode[] }
  | { kind: 'map'; pairs: [YamlNode, YamlNode][] };

// ---------------------------------------------------------------------------------------------------------------
// Scalar resolution and string styles. Go: resolve.go resolve, encode.go stringv

const V2_BOOLS = new Set(['y', 'Y', 'yes', 'Yes', 'YES', 'true', 'True', 'TRUE', 'on', 'On', 'ON', 'n', 'N', 'no', 'No', 'NO', 'false', 'False', 'FALSE', 'off', 'Off', 'OFF']);
const V3_BOOLS = new Set(['true', 'True', 'TRUE', 'false', 'False', 'FALSE']);
const OLD_BOOLS = new Set(['y', 'Y', 'yes', 'Yes', 'YES', 'on', 'On', 'ON', 'n', 'N', 'no', 'No', 'NO', 'off', 'Off', 'OFF']);
const NULLS = new Set(['', '~', 'null', 'Null', 'NULL']);
const SPECIAL_FLOATS = new Set(['.nan', '.NaN', '.NAN', '.inf', '.Inf', '.INF', '+.inf', '+.Inf', '+.INF', '-.inf', '-.Inf', '-.INF']);
const YAML_STYLE_FLOAT = /^[-+]?(\.[0-9]+|[0-9]+(\.[0-9]*)?)([eE][-+]?[0-9]+)?$/;
const BASE60_FLOAT = /^[-+]?[0-9][0-9_]*(?::[0-5]?[0-9])+(?:\.[0-9_]*)?$/;
const TIMESTAMP_LAYOUTS = ['2006-1-2T15:4:5.999999999Z07:00', '2006-1-2t15:4:5.999999999Z07:00', '2006-1-2 15:4:5.999999999', '2006-1-2'];

/** ResolvedScalar is what a plain scalar means to go-yaml. */
export type ResolvedScalar =
  | { tag: 'str'; value: string }
  | { tag: 'bool'; value: boolean }
  | { tag: 'null' }
  | { tag: 'int'; value: bigint; unsigned?: boolean }
  | { tag: 'float'; value: number }
  | { tag: 'timestamp'; value: string }
  | { tag: 'merge' };

function isTimestamp(s: string): boolean {
  const m = /^[0-9]*/.exec(s)![0];
  if (m.length !== 4 || m.length === s.length || s[4] !== '-') return false;
  for (const layout of TIMESTAMP_LAYOUTS) {
    try {
      parseTime(layout, s, UTC);
      return true;
    } catch {
      /* try the next layout */
    }
  }
  return false;
}

/** resolvePlain is go-yaml's resolve("", s): the tag a plain scalar would get. */
export function resolvePlain(s: string, flavor: YamlFlavor): ResolvedScalar {
  const c = s[0];
  const hint = s === '' ? 'N' : c === '+' || c === '-' ? 'S' : c >= '0' && c <= '9' ? 'D' : 'yYnNtTfFoO~'.includes(c) ? 'M' : c === '.' ? '.' : undefined;
  if (hint === undefined) return { tag: 'str', value: s };
  if ((flavor === 'v2' ? V2_BOOLS : V3_BOOLS).has(s)) return { tag: 'bool', value: /^(y|yes|true|on)$/i.test(s) };
  if (NULLS.has(s)) return { tag: 'null' };
  if (SPECIAL_FLOATS.has(s)) return { tag: 'float', value: s.toLowerCase().includes('nan') ? NaN : s.startsWith('-') ? -Infinity : Infinity };
  if (s === '<<') return { tag: 'merge' };
  if (hint === '.') {
    const f = parseFloat64(s);
    if (f.ok) return { tag: 'float', value: f.value };
  }
  if (hint === 'D' || hint === 'S') {
    if (isTimestamp(s)) return { tag: 'timestamp', value: s };
    const plain = s.replace(/_/g, '');
    const i = parseInt64(plain, 0);
    if (i.ok) return { tag: 'int', value: i.value };
    if (!plain.startsWith('-')) {
      const u = parseInt64(plain.startsWith('+') ? plain.slice(1) : plain, 0, 'ParseUint', 65);
      if (u.ok && u.value >= 0n && u.value < 1n << 64n) return { tag: 'int', value: u.value, unsigned: true };
    }
    if (YAML_STYLE_FLOAT.test(plain)) {
      const f = parseFloat64(plain);
      if (f.ok) return { tag: 'float', value: f.value };
    }
    const binOct: [string, number][] = flavor === 'v2' ? [['0b', 2]] : [['0b', 2], ['0o', 8]];
    for (const [prefix, base] of binOct) {
      if (plain.startsWith(prefix)) {
        const r = parseInt64(plain.slice(2), base);
        if (r.ok) return { tag: 'int', value: r.value };
      } else if (plain.startsWith('-' + prefix)) {
        const r = parseInt64('-' + plain.slice(3), base);
        if (r.ok) return { tag: 'int', value: r.value };
      }
    }
  }
  return { tag: 'str', value: s };
}

/** stringNode is go-yaml's stringv: plain when it reads back as the same string, literal when multi-line, else quoted. */
export function stringNode(s: string, flavor: YamlFlavor): YamlNode {
  const canUsePlain = resolvePlain(s, flavor).tag === 'str' && !BASE60_FLOAT.test(s) && !(flavor === 'v3' && OLD_BOOLS.has(s));
  const style = s.includes('\n') ? 'literal' : canUsePlain ? 'plain' : 'double';
  return { kind: 'scalar', value: s, style };
}

/** plainNode is a scalar written as is (numbers, booleans, null). */
export function plainNode(s: string): YamlNode {
  return { kind: 'scalar', value: s, style: 'plain' };
}

/** compareYamlKeys is go-yaml's keyList.Less for string keys: runs of digits compare numerically. Go: sorter.go */
export function compareYamlKeys(a: string, b: string, flavor: YamlFlavor): number {
  const ar = [...a];
  const br = [...b];
  let digits = false;
  for (let i = 0; i < ar.length && i < br.length; i++) {
    if (ar[i] === br[i]) {
      digits = isDigit(ar[i]);
      continue;
    }
    const al = isLetter(ar[i]);
    const bl = isLetter(br[i]);
    if (al && bl) return ar[i] < br[i] ? -1 : 1;
    if (al || bl) {
      const aFirst = flavor === 'v3' && digits ? al : bl;
      return aFirst ? -1 : 1;
    }
    let an = 0n;
    let bn = 0n;
    if (ar[i] === '0' || br[i] === '0') {
      for (let j = i - 1; j >= 0 && isDigit(ar[j]); j--) {
        if (ar[j] !== '0') {
          an = 1n;
          bn = 1n;
          break;
        }
      }
    }
    let ai = i;
    let bi = i;
    for (; ai < ar.length && isDigit(ar[ai]); ai++) an = an * 10n + BigInt(ar[ai].charCodeAt(0) - 48);
    for (; bi < br.length && isDigit(br[bi]); bi++) bn = bn * 10n + BigInt(br[bi].charCodeAt(0) - 48);
    if (an !== bn) return an < bn ? -1 : 1;
    if (ai !== bi) return ai < bi ? -1 : 1;
    return ar[i] < br[i] ? -1 : 1;
  }
  return ar.length - br.length;
}

// ---------------------------------------------------------------------------------------------------------------
// The emitter. Go: emitterc.go

interface ScalarAnalysis {
  multiline: boolean;
  flowPlainAllowed: boolean;
  blockPlainAllowed: boolean;
  singleQuotedAllowed: boolean;
  blockAllowed: boolean;
}

const isBreak = (c: string | undefined) => c === '\r' || c === '\n' || c === '\u0085' || c === '\u2028' || c === '\u2029';
const isSpaceCh = (c: string | undefined) => c === ' ';
const isBlankZ = (c: string | undefined) => c === undefined || c === ' ' || c === '\t' || isBreak(c) || c === '\0';

/** isPrintable is libyaml's is_printable on the code point. */
function isPrintable(c: string): boolean {
  const cp = c.codePointAt(0)!;
  return cp === 0x0a || (cp >= 0x20 && cp <= 0x7e) || (cp >= 0xa0 && cp <= 0xd7ff) || (cp >= 0xe000 && cp <= 0xfffd && cp !== 0xfeff);
}

/** analyzeScalar is yaml_emitter_analyze_scalar. */
function analyzeScalar(value: string, flavor: YamlFlavor): ScalarAnalysis {
  if (value.length === 0) {
    return { multiline: false, flowPlainAllowed: false, blockPlainAllowed: true, singleQuotedAllowed: true, blockAllowed: false };
  }
  const chars = [...value];
  let blockIndicators = false;
  let flowIndicators = false;
  let lineBreaks = false;
  let specialCharacters = false;
  let tabCharacters = false;
  let leadingSpace = false;
  let leadingBreak = false;
  let trailingSpace = false;
  let trailingBreak = false;
  let breakSpace = false;
  let spaceBreak = false;
  let previousSpace = false;
  let previousBreak = false;
  if (value.startsWith('---') || value.startsWith('...')) {
    blockIndicators = true;
    flowIndicators = true;
  }
  let precededByWhitespace = true;
  for (let i = 0; i < chars.length; i++) {
    const c = chars[i];
    const followedByWhitespace = i + 1 >= chars.length || chars[i + 1] === ' ' || chars[i + 1] === '\t' || isBreak(chars[i + 1]);
    if (i === 0) {
      if ('#,[]{}&*!|>\'"%@`'.includes(c)) {
        flowIndicators = true;
        blockIndicators = true;
      } else if (c === '?' || c === ':') {
        flowIndicators = true;
        if (followedByWhitespace) blockIndicators = true;
      } else if (c === '-' && followedByWhitespace) {
        flowIndicators = true;
        blockIndicators = true;
      }
    } else if (',?[]{}'.includes(c)) {
      flowIndicators = true;
    } else if (c === ':') {
      flowIndicators = true;
      if (followedByWhitespace) blockIndicators = true;
    } else if (c === '#' && precededByWhitespace) {
      flowIndicators = true;
      blockIndicators = true;
    }
    if (flavor === 'v3' && c === '\t') tabCharacters = true;
    else if (!isPrintable(c)) specialCharacters = true;
    if (isSpaceCh(c)) {
      if (i === 0) leadingSpace = true;
      if (i === chars.length - 1) trailingSpace = true;
      if (previousBreak) breakSpace = true;
      previousSpace = true;
      previousBreak = false;
    } else if (isBreak(c)) {
      lineBreaks = true;
      if (i === 0) leadingBreak = true;
      if (i === chars.length - 1) trailingBreak = true;
      if (previousSpace) spaceBreak = true;
      previousSpace = false;
      previousBreak = true;
    } else {
      previousSpace = false;
      previousBreak = false;
    }
    precededByWhitespace = isBlankZ(c);
  }
  const a: ScalarAnalysis = { multiline: lineBreaks, flowPlainAllowed: true, blockPlainAllowed: true, singleQuotedAllowed: true, blockAllowed: true };
  if (leadingSpace || leadingBreak || trailingSpace || trailingBreak) {
    a.flowPlainAllowed = false;
    a.blockPlainAllowed = false;
  }
  if (trailingSpace) a.blockAllowed = false;
  if (breakSpace) {
    a.flowPlainAllowed = false;
    a.blockPlainAllowed = false;
    a.singleQuotedAllowed = false;
  }
  if (spaceBreak || tabCharacters || specialCharacters) {
    a.flowPlainAllowed = false;
    a.blockPlainAllowed = false;
    a.singleQuotedAllowed = false;
  }
  if (spaceBreak || specialCharacters) a.blockAllowed = false;
  if (lineBreaks) {
    a.flowPlainAllowed = false;
    a.blockPlainAllowed = false;
  }
  if (flowIndicators) a.flowPlainAllowed = false;
  if (blockIndicators) a.blockPlainAllowed = false;
  return a;
}

class Emitter {
  out = '';
  column = 0;
  whitespace = true;
  indention = true;
  indent = -1;
  indents: number[] = [];
  flowLevel = 0;
  readonly bestIndent: number;
  readonly bestWidth: number;

  constructor(
    readonly flavor: YamlFlavor,
    indent?: number,
  ) {
    this.bestIndent = indent ?? (flavor === 'v2' ? 2 : 4);
    this.bestWidth = flavor === 'v2' ? 80 : Number.MAX_SAFE_INTEGER;
  }

  put(s: string): void {
    this.out += s;
    this.column++;
  }

  putBreak(): void {
    this.out += '\n';
    this.column = 0;
    this.indention = true;
  }

  writeChar(c: string): void {
    this.out += c;
    this.column++;
  }

  writeBreak(c: string): void {
    if (c === '\n') this.putBreak();
    else {
      this.out += c;
      this.column = 0;
      this.indention = true;
    }
  }

  writeIndent(): void {
    const indent = Math.max(this.indent, 0);
    if (!this.indention || this.column > indent || (this.column === indent && !this.whitespace)) this.putBreak();
    while (this.column < indent) this.put(' ');
    this.whitespace = true;
    if (this.flavor === 'v2') this.indention = true; // yaml.v3 leaves this to put_break
  }

  writeIndicator(indicator: string, needWhitespace: boolean, isWhitespace: boolean, isIndention: boolean): void {
    if (needWhitespace && !this.whitespace) this.put(' ');
    this.out += indicator;
    this.column += [...indicator].length;
    this.whitespace = isWhitespace;
    this.indention = this.indention && isIndention;
  }

  increaseIndent(flow: boolean, indentless: boolean, parentIsSeqItem: boolean): void {
    this.indents.push(this.indent);
    if (this.indent < 0) this.indent = flow ? this.bestIndent : 0;
    else if (!indentless) {
      if (this.flavor === 'v2') this.indent += this.bestIndent;
      else if (parentIsSeqItem) this.indent += 2;
      else this.indent = this.bestIndent * Math.floor((this.indent + this.bestIndent) / this.bestIndent);
    }
  }

  popIndent(): void {
    this.indent = this.indents.pop()!;
  }

  emitNode(node: YamlNode, ctx: { mapping: boolean; simpleKey: boolean; parentIsSeqItem: boolean }): void {
    switch (node.kind) {
      case 'scalar':
        return this.emitScalar(node, ctx);
      case 'seq':
        if (this.flowLevel > 0 || node.items.length === 0) return this.emitEmptyFlow('[', ']', ctx.parentIsSeqItem);
        return this.emitBlockSequence(node.items, ctx);
      case 'map':
        if (this.flowLevel > 0 || node.pairs.length === 0) return this.emitEmptyFlow('{', '}', ctx.parentIsSeqItem);
        return this.emitBlockMapping(node.pairs, ctx.parentIsSeqItem);
    }
  }

  emitEmptyFlow(open: string, close: string, parentIsSeqItem: boolean): void {
    this.writeIndicator(open, true, true, false);
    this.increaseIndent(true, false, parentIsSeqItem);
    this.flowLevel++;
    this.flowLevel--;
    this.popIndent();
    this.writeIndicator(close, false, false, false);
  }

  emitBlockSequence(items: YamlNode[], ctx: { mapping: boolean; parentIsSeqItem: boolean }): void {
    const indentless = this.flavor === 'v2' ? ctx.mapping && !this.indention : false;
    this.increaseIndent(false, indentless, ctx.parentIsSeqItem);
    for (const item of items) {
      this.writeIndent();
      this.writeIndicator('-', true, false, true);
      this.emitNode(item, { mapping: false, simpleKey: false, parentIsSeqItem: true });
    }
    this.popIndent();
  }

  emitBlockMapping(pairs: [YamlNode, YamlNode][], parentIsSeqItem: boolean): void {
    this.increaseIndent(false, false, parentIsSeqItem);
    for (const [k, v] of pairs) {
      this.writeIndent();
      if (this.isSimpleKey(k)) {
        this.emitNode(k, { mapping: true, simpleKey: true, parentIsSeqItem: false });
        this.writeIndicator(':', false, false, false);
      } else {
        this.writeIndicator('?', true, false, true);
        this.emitNode(k, { mapping: true, simpleKey: false, parentIsSeqItem: false });
        this.writeIndent();
        this.writeIndicator(':', true, false, true);
      }
      this.emitNode(v, { mapping: true, simpleKey: false, parentIsSeqItem: false });
    }
    this.popIndent();
  }

  isSimpleKey(k: YamlNode): boolean {
    if (k.kind === 'scalar') {
      if (analyzeScalar(k.value, this.flavor).multiline) return false;
      return Buffer.byteLength(k.value, 'utf8') <= 128;
    }
    if (k.kind === 'seq') return k.items.length === 0;
    return k.pairs.length === 0;
  }

  emitScalar(node: Extract<YamlNode, { kind: 'scalar' }>, ctx: { simpleKey: boolean; parentIsSeqItem: boolean }): void {
    const a = analyzeScalar(node.value, this.flavor);
    // Go: yaml_emitter_select_scalar_style
    let style: 'plain' | 'single' | 'double' | 'literal' = node.style;
    if (ctx.simpleKey && a.multiline) style = 'double';
    if (style === 'plain') {
      if ((this.flowLevel > 0 && !a.flowPlainAllowed) || (this.flowLevel === 0 && !a.blockPlainAllowed)) style = 'single';
      if (node.value.length === 0 && (this.flowLevel > 0 || ctx.simpleKey)) style = 'single';
    }
    if (style === 'single' && !a.singleQuotedAllowed) style = 'double';
    if (style === 'literal' && (!a.blockAllowed || this.flowLevel > 0 || ctx.simpleKey)) style = 'double';
    this.increaseIndent(true, false, ctx.parentIsSeqItem);
    const allowBreaks = !ctx.simpleKey;
    switch (style) {
      case 'plain':
        this.writePlain(node.value, allowBreaks);
        break;
      case 'single':
        this.writeSingleQuoted(node.value, allowBreaks);
        break;
      case 'double':
        this.writeDoubleQuoted(node.value, allowBreaks);
        break;
      case 'literal':
        this.writeLiteral(node.value);
        break;
    }
    this.popIndent();
  }

  writePlain(value: string, allowBreaks: boolean): void {
    if (this.flavor === 'v2' || value.length > 0) {
      if (!this.whitespace) this.put(' ');
    }
    const chars = [...value];
    let spaces = false;
    let breaks = false;
    for (let i = 0; i < chars.length; i++) {
      const c = chars[i];
      if (isSpaceCh(c)) {
        if (allowBreaks && !spaces && this.column > this.bestWidth && !isSpaceCh(chars[i + 1])) this.writeIndent();
        else this.writeChar(c);
        spaces = true;
      } else if (isBreak(c)) {
        if (!breaks && c === '\n') this.putBreak();
        this.writeBreak(c);
        this.indention = true;
        breaks = true;
      } else {
        if (breaks) this.writeIndent();
        this.writeChar(c);
        this.indention = false;
        spaces = false;
        breaks = false;
      }
    }
    if (this.flavor === 'v2' || value.length > 0) this.whitespace = false;
    this.indention = false;
  }

  writeSingleQuoted(value: string, allowBreaks: boolean): void {
    this.writeIndicator("'", true, false, false);
    const chars = [...value];
    let spaces = false;
    let breaks = false;
    for (let i = 0; i < chars.length; i++) {
      const c = chars[i];
      if (isSpaceCh(c)) {
        if (allowBreaks && !spaces && this.column > this.bestWidth && i > 0 && i < chars.length - 1 && !isSpaceCh(chars[i + 1])) {
          this.writeIndent();
        } else this.writeChar(c);
        spaces = true;
      } else if (isBreak(c)) {
        if (!breaks && c === '\n') this.putBreak();
        this.writeBreak(c);
        this.indention = true;
        breaks = true;
      } else {
        if (breaks) this.writeIndent();
        if (c === "'") this.put("'");
        this.writeChar(c);
        this.indention = false;
        spaces = false;
        breaks = false;
      }
    }
    this.writeIndicator("'", false, false, false);
    this.whitespace = false;
    this.indention = false;
  }

  writeDoubleQuoted(value: string, allowBreaks: boolean): void {
    this.writeIndicator('"', true, false, false);
    const chars = [...value];
    // libyaml's is_bom looks at the start of the value, not at position i: after a leading BOM every character
    // is escaped (a go-yaml quirk, reproduced).
    const startsWithBom = chars[0] === '\ufeff';
    let spaces = false;
    for (let i = 0; i < chars.length; i++) {
      const c = chars[i];
      const cp = c.codePointAt(0)!;
      if (!isPrintable(c) || startsWithBom || isBreak(c) || c === '"' || c === '\\') {
        this.put('\\');
        const simple: Record<number, string> = {
          0x00: '0', 0x07: 'a', 0x08: 'b', 0x09: 't', 0x0a: 'n', 0x0b: 'v', 0x0c: 'f', 0x0d: 'r', 0x1b: 'e',
          0x22: '"', 0x5c: '\\', 0x85: 'N', 0xa0: '_', 0x2028: 'L', 0x2029: 'P',
        };
        if (simple[cp] !== undefined) this.put(simple[cp]);
        else {
          const [prefix, width] = cp <= 0xff ? ['x', 2] : cp <= 0xffff ? ['u', 4] : ['U', 8];
          this.put(prefix);
          for (const d of cp.toString(16).toUpperCase().padStart(width, '0')) this.put(d);
        }
        spaces = false;
      } else if (isSpaceCh(c)) {
        if (allowBreaks && !spaces && this.column > this.bestWidth && i > 0 && i < chars.length - 1) {
          this.writeIndent();
          if (isSpaceCh(chars[i + 1])) this.put('\\');
        } else this.writeChar(c);
        spaces = true;
      } else {
        this.writeChar(c);
        spaces = false;
      }
    }
    this.writeIndicator('"', false, false, false);
    this.whitespace = false;
    this.indention = false;
  }

  writeLiteral(value: string): void {
    this.writeIndicator('|', true, false, false);
    // Go: yaml_emitter_write_block_scalar_hints
    const chars = [...value];
    if (isSpaceCh(chars[0]) || isBreak(chars[0])) this.writeIndicator(String(this.bestIndent), false, false, false);
    let chomp = '';
    if (chars.length === 0) chomp = '-';
    else if (!isBreak(chars[chars.length - 1])) chomp = '-';
    else if (chars.length === 1) chomp = '+';
    else if (isBreak(chars[chars.length - 2])) chomp = '+';
    if (chomp) this.writeIndicator(chomp, false, false, false);
    // yaml.v2 breaks the line after the header; yaml.v3 leaves that to the first line break of the content, so a
    // leading empty line disappears in v3 output (reproduced).
    if (this.flavor === 'v2') {
      this.putBreak();
      this.indention = true;
    }
    this.whitespace = true;
    let breaks = true;
    for (const c of chars) {
      if (isBreak(c)) {
        this.writeBreak(c);
        this.indention = true;
        breaks = true;
      } else {
        if (breaks) this.writeIndent();
        this.writeChar(c);
        this.indention = false;
        breaks = false;
      }
    }
  }
}

/** emitYaml writes one document the way go-yaml's Marshal does (always ending in a line break). */
export function emitYaml(root: YamlNode, flavor: YamlFlavor, indent?: number): string {
  const e = new Emitter(flavor, indent);
  e.emitNode(root, { mapping: false, simpleKey: false, parentIsSeqItem: false });
  // Document end: an implicit end only breaks the last line.
  e.writeIndent();
  return e.out;
}
