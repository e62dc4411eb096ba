// fieldpath: structured-merge-diff's field paths and field sets, and their FieldsV1 encoding ("f:name",
// "k:{...}", "v:...", "i:N", "." for a member that also has children), as stored in metadata.managedFields.
// Go: sigs.k8s.io/structured-merge-diff fieldpath/{element,path,set,serialize,serialize-pe}.go,
// value/{value,fields}.go (Compare, ToString).
import { formatGoNumber, goQuote, isObject, type JSONObject } from './json.js';

/** KeyField is one name=value pair of an associative-list key. */
export interface KeyField {
  name: string;
  value: unknown;
}

/** PathElement is one step of a field path: a field name, a list-item key, a set value, or an index. */
export type PathElement =
  | { kind: 'field'; name: string }
  | { kind: 'key'; fields: KeyField[] }
  | { kind: 'value'; value: unknown }
  | { kind: 'index'; index: number };

/** Path is a sequence of path elements from the object root. */
export type Path = PathElement[];

// Path elements are never changed once made, and field names are a small vocabulary (schema fields, label and
// annotation keys): one shared, frozen element per name keeps the FieldSets of thousands of stored objects from
// holding hundreds of thousands of equal objects (163,000 at 20 clusters x 100 Services), and the sets built for every
// apply from allocating them again. Bounded, so that arbitrary map keys cannot grow it without limit.
const fieldElements = new Map<string, PathElement>();
const FIELD_ELEMENTS_MAX = 16384;

/** field returns the path element of a field name (shared: never modify a path element). */
export function field(name: string): PathElement {
  let pe = fieldElements.get(name);
  if (pe === undefined) {
    pe = Object.freeze({ kind: 'field', name }) as PathElement;
    if (fieldElements.size < FIELD_ELEMENTS_MAX) fieldElements.set(name, pe);
  }
  return pe;
}

const RANK = { field: 0, key: 1, value: 2, index: 3 } as const;

// Go: value.Compare — a total order over JSON values: numbers < strings < booleans < lists < maps < null.
function valueRank(v: unknown): number {
  if (typeof v === 'number') return 0;
  if (typeof v === 'string') return 1;
  if (typeof v === 'boolean') return 2;
  if (Array.isArray(v)) return 3;
  if (isObject(v)) return 4;
  return 5;
}

const cmp = <T>(a: T, b: T) => (a < b ? -1 : a > b ? 1 : 0);

/** compareValues orders two JSON values like structured-merge-diff's value.Compare. */
export function compareValues(a: unknown, b: unknown): number {
  const ra = valueRank(a);
  const rb = valueRank(b);
  if (ra !== rb) return cmp(ra, rb);
  switch (ra) {
    case 0:
    case 1:
      return cmp(a as number | string, b as number | string);
    case 2:
      return a === b ? 0 : a === false ? -1 : 1;
    case 3: {
      const la = a as unknown[];
      const lb = b as unknown[];
      for (let i = 0; ; i++) {
        if (i >= la.length && i >= lb.length) return 0;
        if (i >= la.length) return -1;
        if (i >= lb.length) return 1;
        const c = compareValues(la[i], lb[i]);
        if (c !== 0) return c;
      }
    }
    case 4: {
      const ka = Object.keys(a as JSONObject).sort();
      const kb = Object.keys(b as JSONObject).sort();
      for (let i = 0; ; i++) {
        if (i >= ka.length && i >= kb.length) return 0;
        if (i >= ka.length) return -1;
        if (i >= kb.length) return 1;
        const c = cmp(ka[i], kb[i]);
        if (c !== 0) return c;
        const cv = compareValues((a as JSONObject)[ka[i]], (b as JSONObject)[kb[i]]);
        if (cv !== 0) return cv;
      }
    }
    default:
      return 0;
  }
}

/** comparePE orders path elements: fields < keys < values < indices, then by content. Go: element.go Compare */
export function comparePE(a: PathElement, b: PathElement): number {
  if (a.kind !== b.kind) return cmp(RANK[a.kind], RANK[b.kind]);
  switch (a.kind) {
    case 'field':
      return cmp(a.name, (b as typeof a).name);
    case 'key': {
      const fa = a.fields;
      const fb = (b as typeof a).fields;
      for (let i = 0; ; i++) {
        if (i >= fa.length && i >= fb.length) return 0;
        if (i >= fa.length) return -1;
        if (i >= fb.length) return 1;
        const c = cmp(fa[i].name, fb[i].name);
        if (c !== 0) return c;
        const cv = compareValues(fa[i].value, fb[i].value);
        if (cv !== 0) return cv;
      }
    }
    case 'value':
      return compareValues(a.value, (b as typeof a).value);
    case 'index':
      return cmp(a.index, (b as typeof a).index);
  }
}

/** valueToString prints a value like value.ToString: quoted strings, Go numbers, lists in brackets. */
export function valueToString(v: unknown): string {
  if (v === null || v === undefined) return 'null';
  if (typeof v === 'number') return formatGoNumber(v);
  if (typeof v === 'string') return goQuote(v);
  if (typeof v === 'boolean') return String(v);
  if (Array.isArray(v)) return `[${v.map(valueToString).join(',')}]`;
  const o = v as JSONObject;
  return Object.keys(o)
    .map((k) => `${k}=${valueToString(o[k])}`)
    .join('');
}

/** peString prints a path element like PathElement.String (".name", "[k=v]", "[=v]", "[0]"). */
export function peString(pe: PathElement): string {
  switch (pe.kind) {
    case 'field':
      return `.${pe.name}`;
    case 'key':
      return `[${pe.fields.map((f) => `${f.name}=${valueToString(f.value)}`).join(',')}]`;
    case 'value':
      return `[=${valueToString(pe.value)}]`;
    case 'index':
      return `[${pe.index}]`;
  }
}

/** pathString prints a path like Path.String, e.g. .spec.containers[name="c"].image */
export function pathString(p: Path): string {
  return p.map(peString).join('');
}

// ---- Go encoding/json (as jsoniter's standard-library config writes it): sorted keys, HTML-safe escapes ----

/** goJSON renders a JSON value the way Go's encoding/json marshals decoded JSON (sorted map keys, \u003c for <). */
export function goJSON(v: unknown): string {
  if (v === null || v === undefined) return 'null';
  if (typeof v === 'string') return JSON.stringify(v).replace(/</g, '\\u003c').replace(/>/g, '\\u003e').replace(/&/g, '\\u0026').replace(/\u2028/g, '\\u2028').replace(/\u2029/g, '\\u2029');
  if (typeof v === 'number') return Number.isInteger(v) ? String(v) : goFloatJSON(v);
  if (typeof v === 'boolean') return String(v);
  if (Array.isArray(v)) return `[${v.map(goJSON).join(',')}]`;
  const o = v as JSONObject;
  return `{${Object.keys(o)
    .sort()
    .map((k) => `${goJSON(k)}:${goJSON(o[k])}`)
    .join(',')}}`;
}

// Go's encoding/json float format matches JavaScript's: plain digits, exponent form below 1e-6 and from 1e21.
const goFloatJSON = (n: number) => String(n);

/** serializePE renders one path element as a FieldsV1 key. Go: serialize-pe.go SerializePathElement */
export function serializePE(pe: PathElement): string {
  switch (pe.kind) {
    case 'field':
      return `f:${pe.name}`;
    case 'key':
      return `k:{${pe.fields.map((f) => `${goJSON(f.name)}:${goJSON(f.value)}`).join(',')}}`;
    case 'value':
      return `v:${goJSON(pe.value)}`;
    case 'index':
      return `i:${pe.index}`;
  }
}

/** deserializePE parses a FieldsV1 key; undefined for unknown element types (skipped like upstream). */
export function deserializePE(s: string): PathElement | undefined {
  if (s.length < 2 || s[1] !== ':') throw new Error(`invalid path element ${JSON.stringify(s)}`);
  const rest = s.slice(2);
  switch (s[0]) {
    case 'f':
      return field(rest);
    case 'v':
      return { kind: 'value', value: JSON.parse(rest) as unknown };
    case 'k': {
      const o = JSON.parse(rest) as unknown;
      if (!isObject(o)) throw new Error(`invalid key ${JSON.stringify(s)}`);
      const fields = Object.keys(o).map((name) => ({ name, value: o[name] }));
      fields.sort((a, b) => cmp(a.name, b.name));
      return { kind: 'key', fields };
    }
    case 'i': {
      if (!/^-?\d+$/.test(rest)) throw new Error(`invalid index ${JSON.stringify(s)}`);
      return { kind: 'index', index: Number(rest) };
    }
    default:
      return undefined;
  }
}

// ---- sets ----

interface Node {
  pe: PathElement;
  set: FieldSet;
}

function search<T>(list: T[], pe: PathElement, get: (t: T) => PathElement): [number, boolean] {
  let lo = 0;
  let hi = list.length;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    const c = comparePE(get(list[mid]), pe);
    if (c === 0) return [mid, true];
    if (c < 0) lo = mid + 1;
    else hi = mid;
  }
  return [lo, false];
}
const self = (pe: PathElement) => pe;
const nodePE = (n: Node) => n.pe;

/**
 * FieldSet is a set of field paths stored as a trie: members end here, children continue. Go: fieldpath.Set
 * A set is built with insert/descend and never changed after: the set operations return new sets that share
 * unchanged subtrees (or the set itself when nothing changed), and decoded sets are cached and shared.
 */
export class FieldSet {
  members: PathElement[] = [];
  children: Node[] = [];
  /** The FieldsV1 this set was decoded from or last encoded to (managed-fields' cache: a set built is never changed). */
  encoded: JSONObject | undefined = undefined;

  /** insert adds one path. */
  insert(p: Path): void {
    if (p.length === 0) return;
    let s: FieldSet = this;
    for (let i = 0; i < p.length - 1; i++) s = s.descend(p[i]);
    s.addMember(p[p.length - 1]);
  }

  /** addMember inserts the one-element path pe (while the set is being built). */
  addMember(pe: PathElement): void {
    const [i, found] = search(this.members, pe, self);
    if (!found) this.members.splice(i, 0, pe);
  }

  /** descend returns (creating it if needed) the child set under pe. */
  descend(pe: PathElement): FieldSet {
    const [i, found] = search(this.children, pe, nodePE);
    if (found) return this.children[i].set;
    const s = new FieldSet();
    this.children.splice(i, 0, { pe, set: s });
    return s;
  }

  /** hasMember tells whether pe is a member at this level. */
  hasMember(pe: PathElement): boolean {
    return search(this.members, pe, self)[1];
  }

  /** child returns the child set under pe, if any. */
  child(pe: PathElement): FieldSet | undefined {
    const [i, found] = search(this.children, pe, nodePE);
    return found ? this.children[i].set : undefined;
  }

  /** withPrefix returns the set under pe (empty when absent). */
  withPrefix(pe: PathElement): FieldSet {
    return this.child(pe) ?? new FieldSet();
  }

  /** has tells whether the exact path is a member. */
  has(p: Path): boolean {
    if (p.length === 0) return false;
    let s: FieldSet | undefined = this;
    for (let i = 0; i < p.length - 1; i++) {
      s = s.child(p[i]);
      if (!s) return false;
    }
    return s.hasMember(p[p.length - 1]);
  }

  /** empty tells whether the set has no member at any depth. */
  empty(): boolean {
    return this.members.length === 0 && this.children.every((c) => c.set.empty());
  }

  /** union returns this ∪ other. */
  union(o: FieldSet): FieldSet {
    if (o.members.length === 0 && o.children.length === 0) return this;
    if (this.members.length === 0 && this.children.length === 0) return o;
    const out = new FieldSet();
    out.members = mergeSorted(this.members, o.members);
    const a = this.children;
    const b = o.children;
    let i = 0;
    let j = 0;
    while (i < a.length && j < b.length) {
      const c = comparePE(a[i].pe, b[j].pe);
      if (c < 0) out.children.push(a[i++]);
      else if (c > 0) out.children.push(b[j++]);
      else {
        out.children.push({ pe: a[i].pe, set: a[i].set.union(b[j].set) });
        i++;
        j++;
      }
    }
    out.children.push(...a.slice(i), ...b.slice(j));
    return out;
  }

  /** intersection returns this ∩ other. */
  intersection(o: FieldSet): FieldSet {
    const out = new FieldSet();
    out.members = this.members.filter((m) => o.hasMember(m));
    for (const n of this.children) {
      const other = o.child(n.pe);
      if (!other) continue;
      const res = n.set.intersection(other);
      if (!res.empty()) out.children.push({ pe: n.pe, set: res });
    }
    return out;
  }

  /** difference returns this minus other, path by path (a member removes only itself). */
  difference(o: FieldSet): FieldSet {
    return this.minus(o, false);
  }

  /** recursiveDifference is difference where a member of other also removes everything below it. */
  recursiveDifference(o: FieldSet): FieldSet {
    return this.minus(o, true);
  }

  // minus is difference (recursive: a member of other also removes the child set below it). It returns this set
  // itself when nothing is removed, and shares the child sets that lose nothing.
  private minus(o: FieldSet, recursive: boolean): FieldSet {
    if (o.members.length === 0 && o.children.length === 0) return this;
    const out = new FieldSet();
    out.members = this.members.filter((m) => !o.hasMember(m));
    let same = out.members.length === this.members.length;
    for (const n of this.children) {
      if (recursive && o.hasMember(n.pe)) {
        same = false;
        continue;
      }
      const other = o.child(n.pe);
      if (!other) {
        out.children.push(n);
        continue;
      }
      const diff = n.set.minus(other, recursive);
      if (diff.empty()) same = false;
      else if (diff === n.set) out.children.push(n);
      else {
        same = false;
        out.children.push({ pe: n.pe, set: diff });
      }
    }
    return same && out.children.length === this.children.length ? this : out;
  }

  /** equals compares two sets structurally. */
  equals(o: FieldSet): boolean {
    return this.difference(o).empty() && o.difference(this).empty();
  }

  /** sameAs tells whether o has exactly this trie (same members and children, empty children included): such
   * sets are equal and encode alike. False does not mean unequal. */
  sameAs(o: FieldSet): boolean {
    if (this === o) return true;
    if (this.members.length !== o.members.length || this.children.length !== o.children.length) return false;
    for (let i = 0; i < this.members.length; i++) if (comparePE(this.members[i], o.members[i]) !== 0) return false;
    for (let i = 0; i < this.children.length; i++) {
      const a = this.children[i];
      const b = o.children[i];
      if (comparePE(a.pe, b.pe) !== 0 || !a.set.sameAs(b.set)) return false;
    }
    return true;
  }

  /** paths lists every member path (members first, then children, each in order). */
  paths(prefix: Path = []): Path[] {
    const out: Path[] = this.members.map((m) => [...prefix, m]);
    for (const n of this.children) out.push(...n.set.paths([...prefix, n.pe]));
    return out;
  }

  /** toFieldsV1 renders the set as a FieldsV1 object. Go: serialize.go emitContentsV1 */
  toFieldsV1(): JSONObject {
    return this.emit(false);
  }

  private emit(includeSelf: boolean): JSONObject {
    const out: JSONObject = {};
    if (includeSelf && !(this.members.length === 0 && this.children.length === 0)) out['.'] = {};
    let mi = 0;
    let ci = 0;
    const m = this.members;
    const c = this.children;
    while (mi < m.length && ci < c.length) {
      const d = comparePE(m[mi], c[ci].pe);
      if (d < 0) out[serializePE(m[mi++])] = {};
      else if (d > 0) {
        out[serializePE(c[ci].pe)] = c[ci].set.emit(false);
        ci++;
      } else {
        out[serializePE(c[ci].pe)] = c[ci].set.emit(true);
        mi++;
        ci++;
      }
    }
    while (mi < m.length) out[serializePE(m[mi++])] = {};
    while (ci < c.length) {
      out[serializePE(c[ci].pe)] = c[ci].set.emit(false);
      ci++;
    }
    return out;
  }

  /** fromFieldsV1 parses a FieldsV1 object (throws on malformed keys). Go: serialize.go readIterV1 */
  static fromFieldsV1(v: unknown): FieldSet {
    const [set] = readV1(v);
    return set ?? new FieldSet();
  }
}

function mergeSorted(a: PathElement[], b: PathElement[]): PathElement[] {
  const out: PathElement[] = [];
  let i = 0;
  let j = 0;
  while (i < a.length && j < b.length) {
    const c = comparePE(a[i], b[j]);
    if (c < 0) out.push(a[i++]);
    else if (c > 0) out.push(b[j++]);
    else {
      out.push(a[i++]);
      j++;
    }
  }
  return [...out, ...a.slice(i), ...b.slice(j)];
}

function readV1(v: unknown): [FieldSet | undefined, boolean] {
  if (!isObject(v)) throw new Error('FieldsV1 must be an object');
  let children: FieldSet | undefined;
  let isMember = false;
  for (const key of Object.keys(v)) {
    if (key === '.') {
      isMember = true;
      continue;
    }
    const pe = deserializePE(key);
    if (!pe) continue;
    const [grand, childIsMember] = readV1(v[key]);
    if (childIsMember) {
      children ??= new FieldSet();
      children.insert([pe]);
    }
    if (grand) {
      children ??= new FieldSet();
      const target = children.descend(pe);
      const merged = target.union(grand);
      target.members = merged.members;
      target.children = merged.children;
    }
  }
  if (!children) isMember = true;
  return [children, isMember];
}
