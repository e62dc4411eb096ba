// toml.ts: Sveltos' toToml/fromToml. Encoding ports BurntSushi/toml's Encoder for the values templates hold
// (maps, slices, scalars, time.Time); decoding uses smol-toml and converts to the Go values BurntSushi produces
// (int64, float64, time.Time, []interface{}, map[string]interface{}). Go: BurntSushi/toml encode.go, meta.go.
import { parse as parseToml, TomlDate, TomlError } from 'smol-toml';
import {
  formatFloat,
  GoFloat32,
  GoInt,
  GoStruct,
  goTypeOf,
  isGoMap,
  isGoStringer,
  withGoType,
  type GoMap,
  type GoValue,
} from '../gotemplate/index.js';
import { newGoMap } from './collections.js';
import { dateIn, fixedZone, formatTime, GoTime, UTC, type Location } from './date.js';

/** TOMLError carries BurntSushi's (or, for decoding, an equivalent) error text. */
export class TOMLError extends Error {}

const ERR_ARRAY_NIL = 'toml: cannot encode array with nil element';
const ERR_NO_KEY = 'toml: top-level values must be Go maps or structs';

type TomlKind = 'hash' | 'arrayHash' | 'array' | 'scalar' | 'datetime' | undefined;

function quoteTomlString(s: string): string {
  let out = '"';
  for (const ch of s) {
    const c = ch.codePointAt(0)!;
    if (ch === '"') out += '\\"';
    else if (ch === '\\') out += '\\\\';
    else if (ch === '\b') out += '\\b';
    else if (ch === '\t') out += '\\t';
    else if (ch === '\n') out += '\\n';
    else if (ch === '\f') out += '\\f';
    else if (ch === '\r') out += '\\r';
    else if (c < 0x20 || c === 0x7f) out += '\\u' + c.toString(16).padStart(4, '0');
    else out += ch;
  }
  return out + '"';
}

function quoteKey(k: string): string {
  if (k === '') return '""';
  return /^[A-Za-z0-9_-]+$/.test(k) ? k : quoteTomlString(k);
}

function kindOfToml(v: GoValue): TomlKind {
  if (v === null || v === undefined) return undefined;
  if (v instanceof GoTime) return 'datetime';
  if (v instanceof GoStruct) return 'hash';
  if (Array.isArray(v)) {
    if (v.length === 0) return 'array';
    let allHash = true;
    for (const e of v) {
      const k = kindOfToml(e);
      if (k === undefined) throw new TOMLError(ERR_ARRAY_NIL);
      if (k !== 'hash') allHash = false;
    }
    return allHash ? 'arrayHash' : 'array';
  }
  if (isGoMap(v)) return 'hash';
  return 'scalar';
}

class TomlEncoder {
  out = '';
  hasWritten = false;

  wf(s: string): void {
    this.out += s;
    this.hasWritten = true;
  }

  newline(): void {
    if (this.hasWritten) this.wf('\n');
  }

  indent(key: string[]): string {
    return '  '.repeat(Math.max(key.length - 1, 0));
  }

  keyString(key: string[]): string {
    return key.map(quoteKey).join('.');
  }

  encode(key: string[], v: GoValue): void {
    if (v === null || v === undefined) return;
    const kind = kindOfToml(v);
    if (kind === 'arrayHash') return this.arrayOfTables(key, v as GoValue[]);
    if (kind === 'hash') return this.table(key, v);
    this.keyValue(key, v, false);
  }

  element(v: GoValue): void {
    if (v instanceof GoTime) return this.wf(formatTime(v, '2006-01-02T15:04:05.999999999Z07:00'));
    switch (typeof v) {
      case 'string':
        return this.wf(quoteTomlString(v));
      case 'boolean':
        return this.wf(v ? 'true' : 'false');
      case 'bigint':
        return this.wf(v.toString());
      case 'number':
        return this.wf(tomlFloat(v));
    }
    if (v instanceof GoInt) return this.wf(v.value.toString());
    if (v instanceof GoFloat32) return this.wf(tomlFloat(v.value));
    if (Array.isArray(v)) {
      this.wf('[');
      v.forEach((e, i) => {
        this.element(e);
        if (i !== v.length - 1) this.wf(', ');
      });
      return this.wf(']');
    }
    if (v instanceof GoStruct || isGoMap(v)) return this.map([], v, true);
    if (isGoStringer(v)) return this.wf(quoteTomlString(v.goString())); // encoding.TextMarshaler
    throw new TOMLError(`unexpected type: ${goTypeOf(v)}`);
  }

  keyValue(key: string[], v: GoValue, inline: boolean): void {
    if (key.length === 0) return this.element(v);
    this.wf(`${this.indent(key)}${quoteKey(key[key.length - 1])} = `);
    this.element(v);
    if (!inline) this.newline();
  }

  arrayOfTables(key: string[], arr: GoValue[]): void {
    if (key.length === 0) throw new TOMLError(ERR_NO_KEY);
    for (const t of arr) {
      if (t === null || t === undefined) continue;
      this.newline();
      this.wf(`${this.indent(key)}[[${this.keyString(key)}]]`);
      this.newline();
      this.map(key, t, false);
    }
  }

  table(key: string[], v: GoValue): void {
    if (key.length === 1) this.newline();
    if (key.length > 0) {
      this.wf(`${this.indent(key)}[${this.keyString(key)}]`);
      this.newline();
    }
    this.map(key, v, false);
  }

  map(key: string[], v: GoValue, inline: boolean): void {
    const entries: [string, GoValue][] =
      v instanceof GoStruct ? Object.entries(v.fields).filter(([k]) => /^\p{Lu}/u.test(k)) : Object.keys(v as GoMap).map((k) => [k, (v as GoMap)[k]]);
    const direct: [string, GoValue][] = [];
    const sub: [string, GoValue][] = [];
    for (const e of entries) {
      const k = kindOfToml(e[1]);
      (k === 'hash' || k === 'arrayHash' ? sub : direct).push(e);
    }
    // Structs keep declaration order; maps are sorted (Go's sort.Strings: byte order).
    if (!(v instanceof GoStruct)) {
      const byBytes = (a: [string, GoValue], b: [string, GoValue]) => (Buffer.compare(Buffer.from(a[0]), Buffer.from(b[0])));
      direct.sort(byBytes);
      sub.sort(byBytes);
    }
    const write = (list: [string, GoValue][], trailComma: boolean) => {
      list.forEach(([k, e], i) => {
        if (e === null || e === undefined) return;
        if (inline) {
          this.keyValue([k], e, true);
          if (trailComma || i !== list.length - 1) this.wf(', ');
        } else this.encode([...key, k], e);
      });
    };
    if (inline) this.wf('{');
    write(direct, sub.length > 0);
    write(sub, false);
    if (inline) this.wf('}');
  }
}

function tomlFloat(f: number): string {
  if (Number.isNaN(f)) return 'nan';
  if (!Number.isFinite(f)) return f < 0 ? '-inf' : '+inf';
  const s = formatFloat(f, 'f', -1, 64);
  return s.includes('.') ? s : s + '.0';
}

/** toToml is Sveltos' toToml: BurntSushi's Encoder output, or its error text (Sveltos returns the error as the result). */
export function toToml(v: GoValue): string {
  const enc = new TomlEncoder();
  try {
    enc.encode([], v);
  } catch (e) {
    if (e instanceof TOMLError) return e.message;
    throw e;
  }
  return enc.out;
}

// ---------------------------------------------------------------------------------------------------------------
// Decoding.

const LOCAL_DATETIME: Location = { name: 'datetime-local', lookup: () => ({ abbr: 'datetime-local', offset: 0 }) };
const LOCAL_DATE: Location = { name: 'date-local', lookup: () => ({ abbr: 'date-local', offset: 0 }) };
const LOCAL_TIME: Location = { name: 'time-local', lookup: () => ({ abbr: 'time-local', offset: 0 }) };

function tomlDate(d: TomlDate): GoTime {
  const iso = d.toISOString();
  if (d.isDate()) {
    const [y, m, day] = iso.split('-').map(Number);
    return dateIn(y, m, day, 0, 0, 0, 0, LOCAL_DATE);
  }
  const frac = (s: string) => {
    const m = /\.(\d+)/.exec(s);
    return m ? Number(m[1].padEnd(9, '0').slice(0, 9)) : 0;
  };
  if (d.isTime()) {
    const [h, mi, s] = iso.split(':').map((x) => parseInt(x, 10));
    return dateIn(0, 1, 1, h, mi, s, frac(iso), LOCAL_TIME);
  }
  const m = /^(-?\d+)-(\d+)-(\d+)[T ](\d+):(\d+):(\d+)(\.\d+)?(Z|[+-]\d\d:\d\d)?$/i.exec(iso);
  if (!m) return new GoTime(Math.floor(d.getTime() / 1000), 0, UTC);
  const [, y, mo, day, h, mi, s, , zone] = m;
  const nsec = frac(iso);
  if (d.isLocal()) return dateIn(+y, +mo, +day, +h, +mi, +s, nsec, LOCAL_DATETIME);
  if (zone === undefined || zone.toUpperCase() === 'Z') return dateIn(+y, +mo, +day, +h, +mi, +s, nsec, UTC);
  const sign = zone[0] === '-' ? -1 : 1;
  const offset = sign * (Number(zone.slice(1, 3)) * 3600 + Number(zone.slice(4, 6)) * 60);
  return dateIn(+y, +mo, +day, +h, +mi, +s, nsec, fixedZone('', offset));
}

function fromTomlValue(v: unknown): GoValue {
  if (v instanceof TomlDate) return tomlDate(v);
  if (typeof v === 'bigint' || typeof v === 'number' || typeof v === 'string' || typeof v === 'boolean') return v;
  if (Array.isArray(v)) {
    const out = v.map(fromTomlValue);
    // BurntSushi decodes an array of tables as []map[string]interface {}.
    if (v.length > 0 && v.every((e) => typeof e === 'object' && e !== null && !Array.isArray(e) && !(e instanceof TomlDate))) {
      return withGoType(out, '[]map[string]interface {}');
    }
    return out;
  }
  const m = newGoMap();
  for (const [k, e] of Object.entries(v as Record<string, unknown>)) m[k] = fromTomlValue(e);
  return m;
}

/** parseTomlDoc decodes a TOML document; errors carry a BurntSushi-like `toml: line N: …` text. */
export function parseTomlDoc(text: string): GoMap {
  try {
    return fromTomlValue(parseToml(text, { integersAsBigInt: true })) as GoMap;
  } catch (e) {
    if (e instanceof TomlError) {
      const msg = e.message.split('\n')[0].replace(/^Invalid TOML document: /, '');
      throw new TOMLError(`toml: line ${e.line}: ${msg}`);
    }
    throw e;
  }
}
