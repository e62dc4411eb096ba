// strvals.ts: `--set` and `--set-string` parsing. Go: pkg/strvals/parser.go (Helm v3.17), error texts included.
import { isGoMap, type GoMap, type GoValue } from '../gotemplate/index.js';
import { newMap } from './values.js';

/** StrvalsError is a parse failure with Helm's message. */
export class StrvalsError extends Error {}

const EOF = Symbol('EOF');
const NOT_LIST = Symbol('not a list');
type Sentinel = typeof EOF | typeof NOT_LIST;

const MAX_INDEX = 65536;
const MAX_NESTED_NAME_LEVEL = 30;

class Scanner {
  private i = 0;
  constructor(private readonly runes: string[]) {}
  read(): string | typeof EOF {
    return this.i < this.runes.length ? this.runes[this.i++] : EOF;
  }
  unread(): void {
    this.i--;
  }
}

/** runesUntil reads up to a stop rune (backslash escapes the next rune). */
function runesUntil(sc: Scanner, stop: string): { v: string; last: string | typeof EOF; eof: boolean } {
  let v = '';
  for (;;) {
    const r = sc.read();
    if (r === EOF) return { v, last: EOF, eof: true };
    if (stop.includes(r)) return { v, last: r, eof: false };
    if (r === '\\') {
      const next = sc.read();
      if (next === EOF) return { v, last: EOF, eof: true };
      v += next;
    } else v += r;
  }
}

/** typedVal is strvals.typedVal: --set's type inference (true/false/null, int64 without leading zero). */
export function typedVal(val: string, st: boolean): GoValue {
  if (st) return val;
  const lower = val.toLowerCase();
  if (lower === 'true') return true;
  if (lower === 'false') return false;
  if (lower === 'null') return null;
  if (val === '0') return 0n;
  if (val.length !== 0 && val[0] !== '0' && /^[+-]?[0-9]+$/.test(val)) {
    const n = BigInt(val);
    if (n >= -(2n ** 63n) && n < 2n ** 63n) return n;
  }
  return val;
}

class Parser {
  constructor(
    private readonly sc: Scanner,
    private readonly data: GoMap,
    private readonly stringBool: boolean,
  ) {}

  parse(): void {
    for (;;) {
      const err = this.key(this.data, 0);
      if (err === null) continue;
      if (err === EOF) return;
      throw new StrvalsError(err as string);
    }
  }

  private reader(rs: string): GoValue {
    return typedVal(rs, this.stringBool);
  }

  // key returns null (continue), EOF, or an error text.
  key(data: GoMap, nested: number): string | Sentinel | null {
    for (;;) {
      const { v: k, last, eof } = runesUntil(this.sc, '=[,.');
      if (eof) {
        if (k.length === 0) return EOF;
        return `key ${JSON.stringify(k)} has no value`;
      }
      if (last === '[') {
        const idx = this.keyIndex();
        if (typeof idx === 'string') return `error parsing index: ${idx}`;
        let list: GoValue[] = [];
        if (Object.prototype.hasOwnProperty.call(data, k)) {
          const cur = data[k];
          if (!Array.isArray(cur)) return `unable to parse key: interface conversion: interface {} is ${goTypeName(cur)}, not []interface {}`;
          list = cur;
        }
        const r = this.listItem(list, idx, nested);
        set(data, k, r.list);
        return r.err;
      }
      if (last === '=') {
        const vl = this.valList();
        if (Array.isArray(vl)) {
          set(data, k, vl);
          return null;
        }
        if (vl === EOF) {
          set(data, k, '');
          return EOF;
        }
        if (vl === NOT_LIST) {
          const { v: rs } = this.val();
          set(data, k, this.reader(rs));
          return null;
        }
        return vl;
      }
      if (last === ',') {
        set(data, k, '');
        return `key ${JSON.stringify(k)} has no value (cannot end with ,)`;
      }
      if (last === '.') {
        nested++;
        if (nested > MAX_NESTED_NAME_LEVEL) return `value name nested level is greater than maximum supported nested level of ${MAX_NESTED_NAME_LEVEL}`;
        let inner = newMap();
        if (Object.prototype.hasOwnProperty.call(data, k)) {
          const cur = data[k];
          if (!isGoMap(cur)) return `unable to parse key: interface conversion: interface {} is ${goTypeName(cur)}, not map[string]interface {}`;
          inner = cur;
        }
        const e = this.key(inner, nested);
        if (e === null && Object.keys(inner).length === 0) return `key map ${JSON.stringify(k)} has no value`;
        if (Object.keys(inner).length !== 0) set(data, k, inner);
        return e;
      }
    }
  }

  private keyIndex(): number | string {
    const { v, eof } = runesUntil(this.sc, ']');
    if (eof) return 'EOF';
    if (!/^[+-]?[0-9]+$/.test(v)) return `strconv.Atoi: parsing ${JSON.stringify(v)}: invalid syntax`;
    return Number(v);
  }

  private listItem(list: GoValue[], i: number, nested: number): { list: GoValue[]; err: string | Sentinel | null } {
    if (i < 0) return { list, err: `negative ${i} index not allowed` };
    const { v: k, last, eof } = runesUntil(this.sc, '[.=');
    if (k.length > 0) return { list, err: `unexpected data at end of array index: ${JSON.stringify(k)}` };
    if (eof) return { list, err: EOF };
    if (last === '=') {
      const vl = this.valList();
      if (Array.isArray(vl)) return setIndex(list, i, vl);
      if (vl === EOF) return setIndex(list, i, '');
      if (vl === NOT_LIST) {
        const { v: rs } = this.val();
        return setIndex(list, i, this.reader(rs));
      }
      return { list, err: vl };
    }
    if (last === '[') {
      const nextI = this.keyIndex();
      if (typeof nextI === 'string') return { list, err: `error parsing index: ${nextI}` };
      let crt: GoValue[] = [];
      if (list.length > i && list[i] !== null && list[i] !== undefined) {
        if (!Array.isArray(list[i])) return { list, err: `unable to parse key: interface conversion: interface {} is ${goTypeName(list[i])}, not []interface {}` };
        crt = list[i] as GoValue[];
      }
      const r = this.listItem(crt, nextI, nested);
      if (r.err !== null) return { list, err: r.err };
      return setIndex(list, i, r.list);
    }
    if (last === '.') {
      let inner = newMap();
      if (list.length > i) {
        const cur = list[i];
        if (isGoMap(cur)) inner = cur;
        else list[i] = inner;
      }
      const e = this.key(inner, nested);
      if (e !== null) return { list, err: e };
      return setIndex(list, i, inner);
    }
    return { list: [], err: `parse error: unexpected token ${String(last)}` };
  }

  private val(): { v: string } {
    return { v: runesUntil(this.sc, ',').v };
  }

  private valList(): GoValue[] | Sentinel | string {
    const r = this.sc.read();
    if (r === EOF) return EOF;
    if (r !== '{') {
      this.sc.unread();
      return NOT_LIST;
    }
    const list: GoValue[] = [];
    for (;;) {
      const { v: rs, last, eof } = runesUntil(this.sc, ',}');
      if (eof) return "list must terminate with '}'";
      if (last === '}') {
        const n = this.sc.read();
        if (n !== EOF && n !== ',') this.sc.unread();
        list.push(this.reader(rs));
        return list;
      }
      list.push(this.reader(rs));
    }
  }
}

function goTypeName(v: GoValue): string {
  if (v === null || v === undefined) return 'nil';
  if (typeof v === 'string') return 'string';
  if (typeof v === 'bigint') return 'int64';
  if (typeof v === 'boolean') return 'bool';
  if (typeof v === 'number') return 'float64';
  if (Array.isArray(v)) return '[]interface {}';
  return 'map[string]interface {}';
}

function set(data: GoMap, key: string, val: GoValue): void {
  if (key.length === 0) return;
  data[key] = val;
}

function setIndex(list: GoValue[], index: number, val: GoValue): { list: GoValue[]; err: string | null } {
  if (index < 0) return { list, err: `negative ${index} index not allowed` };
  if (index > MAX_INDEX) return { list, err: `index of ${index} is greater than maximum supported index of ${MAX_INDEX}` };
  if (list.length <= index) {
    const nl: GoValue[] = new Array(index + 1).fill(null);
    for (let j = 0; j < list.length; j++) nl[j] = list[j];
    list = nl;
  }
  list[index] = val;
  return { list, err: null };
}

/** parseSetInto is strvals.ParseInto (`--set`; stringOnly for `--set-string`); throws StrvalsError. */
export function parseSetInto(s: string, dest: GoMap, stringOnly = false): void {
  new Parser(new Scanner([...s]), dest, stringOnly).parse();
}
