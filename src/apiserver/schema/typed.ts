// typed: structured-merge-diff's typed-value walkers over decoded JSON, driven by an OpenAPI schema converted the
// way kube-openapi's schemaconv does (lists: x-kubernetes-list-type, else patch strategy merge → associative,
// else atomic; maps: x-kubernetes-map-type; unknown shapes: the "deduced" type). Walkers: validation (as
// ObjectToTyped does), field-set extraction, comparison, apply merge and item removal.
// Go: sigs.k8s.io/structured-merge-diff typed/{validate,tofieldset,compare,merge,remove,helpers}.go,
// k8s.io/kube-openapi pkg/schemaconv.
import { objectMetaSchema } from './builtin.js';
import { comparePE, field, FieldSet, pathString, peString, type KeyField, type Path, type PathElement } from './fieldpath.js';
import { deepEqualJSON, hasKey, identity, isObject, setKey, type JSONObject } from './json.js';
import type { JSONSchemaProps } from './types.js';

/** TypeRef points at a schema node; s undefined is the deduced (untyped) type; resource adds implicit apiVersion/kind/metadata. */
export interface TypeRef {
  s?: JSONSchemaProps;
  resource?: boolean;
}

const DEDUCED: TypeRef = {};
const STRING: JSONSchemaProps = { type: 'string' };

type ListAtom = { t: 'list'; elem: TypeRef; associative: boolean; keys: string[]; defaults: Record<string, unknown> };
type MapAtom = { t: 'map'; fields: Record<string, TypeRef> | undefined; elem: TypeRef | undefined; atomic: boolean };
type ScalarAtom = { t: 'scalar'; scalar: 'numeric' | 'string' | 'boolean' | 'untyped' };
type Atom = ListAtom | MapAtom | ScalarAtom | { t: 'deduced' };

const atomCache = new WeakMap<JSONSchemaProps, Atom>();
const resourceAtomCache = new WeakMap<JSONSchemaProps, Atom>();

/** resolve converts a schema node into its structured-merge-diff atom (kube-openapi schemaconv rules). */
export function resolve(ref: TypeRef): Atom {
  const s = ref.s;
  if (!s) return { t: 'deduced' };
  const cache = ref.resource ? resourceAtomCache : atomCache;
  const hit = cache.get(s);
  if (hit) return hit;
  const atom = convert(s, ref.resource === true);
  cache.set(s, atom);
  return atom;
}

function convert(s: JSONSchemaProps, resource: boolean): Atom {
  if (s['x-kubernetes-int-or-string']) return { t: 'scalar', scalar: 'untyped' };
  const embedded = resource || s['x-kubernetes-embedded-resource'] === true;
  switch (s.type) {
    case 'array': {
      const items = s.items;
      const elem: TypeRef = items ? { s: items, resource: items['x-kubernetes-embedded-resource'] === true } : DEDUCED;
      let lt = s['x-kubernetes-list-type'];
      let keys = s['x-kubernetes-list-map-keys'] ?? [];
      if (lt === undefined) {
        const strategy = (s['x-kubernetes-patch-strategy'] ?? '').split(',');
        if (strategy.includes('merge')) {
          const mk = s['x-kubernetes-patch-merge-key'];
          lt = mk ? 'map' : 'set';
          keys = mk ? [mk] : [];
        }
      }
      const defaults: Record<string, unknown> = {};
      for (const k of keys) {
        const d = items?.properties?.[k]?.default;
        if (d !== undefined) defaults[k] = d;
      }
      return { t: 'list', elem, associative: lt === 'map' || lt === 'set', keys: lt === 'map' ? [...keys] : [], defaults };
    }
    case 'string':
      return { t: 'scalar', scalar: 'string' };
    case 'integer':
    case 'number':
      return { t: 'scalar', scalar: 'numeric' };
    case 'boolean':
      return { t: 'scalar', scalar: 'boolean' };
    default:
      break;
  }
  const hasStruct = s.type === 'object' || s.properties !== undefined || s.additionalProperties !== undefined || embedded;
  if (!hasStruct) return { t: 'deduced' };
  let fields: Record<string, TypeRef> | undefined;
  if (s.properties || embedded) {
    fields = {};
    for (const [k, v] of Object.entries(s.properties ?? {})) fields[k] = { s: v, resource: v['x-kubernetes-embedded-resource'] === true };
    if (embedded) {
      fields.apiVersion ??= { s: STRING };
      fields.kind ??= { s: STRING };
      if (!s.properties?.metadata?.properties) fields.metadata = { s: objectMetaSchema() };
    }
  }
  let elem: TypeRef | undefined;
  if (isObject(s.additionalProperties)) {
    const ap = s.additionalProperties as JSONSchemaProps;
    elem = { s: ap, resource: ap['x-kubernetes-embedded-resource'] === true };
  } else if (s.additionalProperties === true || s['x-kubernetes-preserve-unknown-fields'] === true || !fields) {
    elem = DEDUCED;
  }
  return { t: 'map', fields, elem, atomic: s['x-kubernetes-map-type'] === 'atomic' };
}

// deduceAtom picks the atom for a value; the deduced type is a map (granular), an atomic list or a scalar by value.
function deduce(atom: Atom, v: unknown): Atom {
  if (atom.t !== 'deduced') return atom;
  if (Array.isArray(v)) return { t: 'list', elem: DEDUCED, associative: false, keys: [], defaults: {} };
  if (isObject(v)) return { t: 'map', fields: undefined, elem: DEDUCED, atomic: false };
  return { t: 'scalar', scalar: 'untyped' };
}

function fieldType(m: MapAtom, key: string): TypeRef | undefined {
  if (m.fields && hasKey(m.fields, key)) return m.fields[key];
  return m.elem;
}

// ---- list item path elements. Go: helpers.go listItemToPathElement ----

/** listItemPE computes the path element of one list item, or throws with structured-merge-diff's message. */
function listItemPE(l: ListAtom, item: unknown): PathElement {
  if (!l.associative) throw new Error('invalid indexing of non-associative list');
  if (l.keys.length > 0) {
    if (item === null) throw new Error('associative list with keys may not have a null element');
    if (!isObject(item)) throw new Error('associative list with keys may not have non-map elements');
    const fields: KeyField[] = [];
    for (const k of l.keys) {
      if (hasKey(item, k)) fields.push({ name: k, value: item[k] });
      else if (hasKey(l.defaults, k)) fields.push({ name: k, value: l.defaults[k] });
    }
    if (fields.length === 0) {
      throw new Error(`associative list with keys has an element that omits all key fields [${l.keys.map((k) => JSON.stringify(k)).join(' ')}] (and doesn't have default values for any key fields)`);
    }
    fields.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
    return { kind: 'key', fields };
  }
  if (isObject(item)) throw new Error("associative list without keys has an element that's a map type");
  if (Array.isArray(item)) throw new Error('not supported: associative list with lists as elements');
  if (item === null) throw new Error("associative list without keys has an element that's an explicit null");
  return { kind: 'value', value: item };
}

// PEMap is a small ordered map keyed by path element.
class PEMap<T> {
  private entries: { pe: PathElement; v: T }[] = [];
  get(pe: PathElement): T | undefined {
    for (const e of this.entries) if (comparePE(e.pe, pe) === 0) return e.v;
    return undefined;
  }
  has(pe: PathElement): boolean {
    return this.entries.some((e) => comparePE(e.pe, pe) === 0);
  }
  set(pe: PathElement, v: T): void {
    for (const e of this.entries) {
      if (comparePE(e.pe, pe) === 0) {
        e.v = v;
        return;
      }
    }
    this.entries.push({ pe, v });
  }
}

// ---- validation (ObjectToTyped). Go: validate.go ----

/** TypedError is one validation problem: a structured-merge-diff path string and message. */
export interface TypedError {
  path: string;
  message: string;
}

/** typedErrorsString renders errors like ValidationErrors.Error(). */
export function typedErrorsString(errs: TypedError[]): string {
  const one = (e: TypedError) => (e.path === '' ? e.message : `${e.path}: ${e.message}`);
  if (errs.length === 1) return one(errs[0]);
  return ['errors:', ...errs.map((e) => `  ${one(e)}`)].join('\n');
}

function goValueSyntax(v: unknown): string {
  if (typeof v === 'string') return `&value.valueUnstructured{Value:${JSON.stringify(v)}}`;
  if (isObject(v)) return '&value.valueUnstructured{Value:map[string]interface {}{...}}';
  if (Array.isArray(v)) return '&value.valueUnstructured{Value:[]interface {}{...}}';
  return `&value.valueUnstructured{Value:${String(v)}}`;
}

function goTypeName(v: unknown): string {
  if (typeof v === 'string') return 'string';
  if (typeof v === 'boolean') return 'bool';
  if (Array.isArray(v)) return '[]interface {}';
  if (isObject(v)) return 'map[string]interface {}';
  return Number.isInteger(v) ? 'int64' : 'float64';
}

/**
 * validateTyped checks a value against the schema like ObjectToTyped (unknown fields, types, list keys). With
 * `storedMembers` (allowing duplicates) the value's top-level members but metadata are values of a stored object,
 * never changed in place: those found valid are remembered per type and not walked again — an apply to the status of
 * an object keeps its stored spec, however large. The errors are the same either way.
 */
export function validateTyped(v: unknown, ref: TypeRef, allowDuplicates: boolean, storedMembers = false): TypedError[] {
  const errs: TypedError[] = [];
  walkValidate(v, ref, '', allowDuplicates, errs, storedMembers && allowDuplicates);
  return errs;
}

// Stored values found valid with duplicates allowed, and the type they were found valid as (a cached atom's field
// type, by identity: see json.ts).
const validMembers = new WeakMap<object, number>();

/** TYPED_STATS counts stored members not walked again (diagnostics, tests). */
export const TYPED_STATS = { validMembersSkipped: 0 };

function walkValidate(v: unknown, ref: TypeRef, path: string, allowDup: boolean, errs: TypedError[], storedMembers = false): void {
  const atom = deduce(resolve(ref), v);
  switch (atom.t) {
    case 'scalar': {
      if (v === null || v === undefined) return;
      const ok =
        atom.scalar === 'numeric' ? typeof v === 'number' : atom.scalar === 'string' ? typeof v === 'string' : atom.scalar === 'boolean' ? typeof v === 'boolean' : !isObject(v) && !Array.isArray(v);
      if (ok) return;
      if (atom.scalar === 'numeric') errs.push({ path, message: `expected numeric (int or float), got ${goTypeName(v)}` });
      else if (atom.scalar === 'string') errs.push({ path, message: `expected string, got ${goValueSyntax(v)}` });
      else if (atom.scalar === 'boolean') errs.push({ path, message: `expected boolean, got &{${String(v)}}` });
      else errs.push({ path, message: `expected any scalar, got ${goValueSyntax(v)}` });
      return;
    }
    case 'list': {
      if (v === null || v === undefined) return;
      if (!Array.isArray(v)) {
        errs.push({ path, message: `expected list, got ${goValueSyntax(v)}` });
        return;
      }
      const seen = new PEMap<true>();
      for (let i = 0; i < v.length; i++) {
        let pe: PathElement = { kind: 'index', index: i };
        if (atom.associative) {
          try {
            pe = listItemPE(atom, v[i]);
          } catch (e) {
            errs.push({ path, message: `element ${i}: ${(e as Error).message}` });
            return;
          }
          if (seen.has(pe) && !allowDup) errs.push({ path, message: `duplicate entries for key ${peString(pe)}` });
          seen.set(pe, true);
        }
        walkValidate(v[i], atom.elem, path + peString(pe), allowDup, errs);
      }
      return;
    }
    case 'map': {
      if (v === null || v === undefined) return;
      if (!isObject(v)) {
        errs.push({ path, message: `expected map, got ${goValueSyntax(v)}` });
        return;
      }
      for (const k of Object.keys(v)) {
        const pe = peString(field(k));
        const tr = fieldType(atom, k);
        if (!tr) {
          errs.push({ path: path + pe, message: 'field not declared in schema' });
          return;
        }
        const x = v[k];
        const memo = storedMembers && k !== 'metadata' && x !== null && typeof x === 'object';
        if (memo && validMembers.get(x as object) === identity(tr)) {
          TYPED_STATS.validMembersSkipped++;
          continue;
        }
        const before = errs.length;
        walkValidate(x, tr, path + pe, allowDup, errs);
        if (memo && errs.length === before) validMembers.set(x as object, identity(tr));
      }
      return;
    }
    default:
      return;
  }
}

// ---- field sets. Go: tofieldset.go ----

/** toFieldSet lists the fields a value sets, as structured-merge-diff's ToFieldSet does. */
export function toFieldSet(v: unknown, ref: TypeRef): FieldSet {
  const set = new FieldSet();
  walkFieldSet(v, ref, new Cursor(undefined, undefined, set));
  return set;
}

// Cursor is a path being walked: its set (the trie node below the path) is made only when something is added
// below it, as insert would make it, without copying and re-walking the path from the root for every field.
class Cursor {
  constructor(
    private readonly up: Cursor | undefined,
    private readonly pe: PathElement | undefined,
    private node?: FieldSet,
  ) {}

  /** below returns the set under this path (made on first use). */
  below(): FieldSet {
    return (this.node ??= this.up!.below().descend(this.pe!));
  }

  /** addSelf inserts this path (nothing for the root, like inserting the empty path). */
  addSelf(): void {
    if (this.up) this.up.below().addMember(this.pe!);
  }

  child(pe: PathElement): Cursor {
    return new Cursor(this, pe);
  }
}

function walkFieldSet(v: unknown, ref: TypeRef, at: Cursor): void {
  const atom = deduce(resolve(ref), v);
  switch (atom.t) {
    case 'scalar':
      at.addSelf();
      return;
    case 'list': {
      if (!atom.associative) {
        at.addSelf();
        return;
      }
      if (!Array.isArray(v)) return;
      const seen = new PEMap<true>();
      const dups = new PEMap<true>();
      const pes: PathElement[] = [];
      for (const item of v) pes.push(listItemPE(atom, item));
      for (const pe of pes) {
        if (seen.has(pe)) {
          if (!dups.has(pe)) {
            at.below().addMember(pe);
            dups.set(pe, true);
          }
        } else seen.set(pe, true);
      }
      for (let i = 0; i < v.length; i++) {
        if (dups.has(pes[i])) continue;
        walkFieldSet(v[i], atom.elem, at.child(pes[i]));
        at.below().addMember(pes[i]);
      }
      return;
    }
    case 'map': {
      if (atom.atomic) {
        at.addSelf();
        return;
      }
      if (!isObject(v)) return;
      for (const k of Object.keys(v)) {
        const pe = field(k);
        const val = v[k];
        walkFieldSet(val, fieldType(atom, k) ?? DEDUCED, at.child(pe));
        if (val === null || (isObject(val) && Object.keys(val).length === 0)) at.below().addMember(pe);
        else if (!(atom.fields && hasKey(atom.fields, k))) at.below().addMember(pe);
      }
      return;
    }
    default:
      return;
  }
}

// ---- comparison. Go: compare.go ----

/** Comparison lists the fields added, removed and modified between two values. */
export interface Comparison {
  added: FieldSet;
  removed: FieldSet;
  modified: FieldSet;
}

type Opt = { v: unknown } | undefined;
const some = (v: unknown): Opt => ({ v });

/** compareValues computes the field-level difference from lhs to rhs (undefined = absent). */
export function compareTyped(lhs: unknown, rhs: unknown, ref: TypeRef): Comparison {
  const c: Comparison = { added: new FieldSet(), removed: new FieldSet(), modified: new FieldSet() };
  walkCompare(lhs === undefined ? undefined : some(lhs), rhs === undefined ? undefined : some(rhs), ref, [], c, { inLeaf: false });
  return c;
}

function walkCompare(lhs: Opt, rhs: Opt, ref: TypeRef, path: Path, c: Comparison, st: { inLeaf: boolean }): void {
  // The same value on both sides (a subtree a merge kept as it was) has no differences.
  if (lhs && rhs && lhs.v === rhs.v) return;
  const base = resolve(ref);
  const al = lhs ? deduce(base, lhs.v) : base;
  const ar = rhs ? deduce(base, rhs.v) : base;
  if (!rhs) handleCompare(al, lhs, rhs, path, c, st);
  else if (!lhs || sameAtom(al, ar)) handleCompare(ar, lhs, rhs, path, c, st);
  else {
    handleCompare(al, lhs, rhs, path, c, { ...st });
    handleCompare(ar, lhs, rhs, path, c, st);
  }
  if (!st.inLeaf) {
    if (!lhs) c.added.insert(path);
    else if (!rhs) c.removed.insert(path);
  }
}

function sameAtom(a: Atom, b: Atom): boolean {
  return a.t === b.t;
}

function compareLeaf(lhs: Opt, rhs: Opt, path: Path, c: Comparison, st: { inLeaf: boolean }): void {
  if (st.inLeaf) return;
  st.inLeaf = true;
  if (!lhs) c.added.insert(path);
  else if (!rhs) c.removed.insert(path);
  else if (!deepEqualJSON(lhs.v, rhs.v)) c.modified.insert(path);
}

const asList = (o: Opt): unknown[] | undefined => (o && Array.isArray(o.v) ? o.v : undefined);
const asMap = (o: Opt): JSONObject | undefined => (o && isObject(o.v) ? o.v : undefined);

function handleCompare(atom: Atom, lhs: Opt, rhs: Opt, path: Path, c: Comparison, st: { inLeaf: boolean }): void {
  switch (atom.t) {
    case 'scalar':
    case 'deduced':
      compareLeaf(lhs, rhs, path, c, st);
      return;
    case 'list': {
      const l = asList(lhs);
      const r = asList(rhs);
      if (!atom.associative || ((!l || l.length === 0) && (!r || r.length === 0))) {
        compareLeaf(lhs, rhs, path, c, st);
        return;
      }
      if (!l && !r) return;
      compareListItems(atom, l ?? [], r ?? [], path, c);
      return;
    }
    case 'map': {
      const l = asMap(lhs);
      const r = asMap(rhs);
      const emptyBoth = (!l || Object.keys(l).length === 0) && (!r || Object.keys(r).length === 0);
      if (atom.atomic || emptyBoth) {
        compareLeaf(lhs, rhs, path, c, st);
        return;
      }
      if (!l && !r) return;
      if (l) for (const k of Object.keys(l)) compareField(atom, l, r, k, path, c);
      if (r) for (const k of Object.keys(r)) if (!l || !hasKey(l, k)) compareField(atom, l, r, k, path, c);
      return;
    }
  }
}

// compareField compares the values of one key of two maps; path is extended for the walk and restored after (the
// sets copy the elements of the paths inserted into them).
function compareField(atom: MapAtom, l: JSONObject | undefined, r: JSONObject | undefined, k: string, path: Path, c: Comparison): void {
  const lv = l && hasKey(l, k) ? some(l[k]) : undefined;
  const rv = r && hasKey(r, k) ? some(r[k]) : undefined;
  if (lv && rv && lv.v === rv.v) return;
  path.push(field(k));
  walkCompare(lv, rv, fieldType(atom, k) ?? DEDUCED, path, c, { inLeaf: false });
  path.pop();
}

// Go: compare.go visitListItems — items matched by path element; duplicated keys compare as whole lists.
function compareListItems(atom: ListAtom, l: unknown[], r: unknown[], path: Path, c: Comparison): void {
  const all: PathElement[] = [];
  const lv = new PEMap<unknown[]>();
  for (const item of l) {
    const pe = listItemPE(atom, item);
    const got = lv.get(pe);
    if (got) got.push(item);
    else {
      lv.set(pe, [item]);
      all.push(pe);
    }
  }
  const rv = new PEMap<unknown[]>();
  for (const item of r) {
    const pe = listItemPE(atom, item);
    const got = rv.get(pe);
    if (got) got.push(item);
    else {
      rv.set(pe, [item]);
      if (!lv.has(pe)) all.push(pe);
    }
  }
  for (const pe of all) {
    const ll = lv.get(pe) ?? [];
    const rl = rv.get(pe) ?? [];
    const p = [...path, pe];
    if (ll.length === 0 && rl.length === 0) return;
    if (ll.length <= 1 && rl.length <= 1) {
      walkCompare(ll.length ? some(ll[0]) : undefined, rl.length ? some(rl[0]) : undefined, atom.elem, p, c, { inLeaf: false });
    } else if (ll.length >= 2 && rl.length >= 2) {
      if (!deepEqualJSON(ll, rl)) c.modified.insert(p);
    } else if (ll.length >= 2) {
      if (rl.length !== 0) walkCompare(undefined, some(rl[0]), atom.elem, p, c, { inLeaf: false });
      c.removed.insert(p);
    } else {
      if (ll.length !== 0) walkCompare(some(ll[0]), undefined, atom.elem, p, c, { inLeaf: false });
      c.added.insert(p);
    }
  }
}

// ---- apply merge. Go: merge.go (rule: keep RHS) ----

/** mergeTyped merges an applied configuration (rhs) into a live value (lhs); undefined means absent. */
export function mergeTyped(lhs: unknown, rhs: unknown, ref: TypeRef): unknown {
  const out = walkMerge(lhs === undefined ? undefined : some(lhs), rhs === undefined ? undefined : some(rhs), ref, { inLeaf: false });
  return out === undefined ? undefined : out.v;
}

function walkMerge(lhs: Opt, rhs: Opt, ref: TypeRef, st: { inLeaf: boolean }): Opt {
  // Nothing applied here: the live value stays as it is (the walk below would rebuild an equal copy of it).
  if (!rhs) return lhs;
  const base = resolve(ref);
  const al = lhs ? deduce(base, lhs.v) : base;
  const ar = rhs ? deduce(base, rhs.v) : base;
  if (!rhs) return handleMerge(al, lhs, rhs, st);
  if (!lhs || sameAtom(al, ar)) return handleMerge(ar, lhs, rhs, st);
  handleMerge(al, lhs, rhs, { ...st });
  return handleMerge(ar, lhs, rhs, st);
}

function mergeLeaf(lhs: Opt, rhs: Opt, st: { inLeaf: boolean }): Opt {
  if (st.inLeaf) return undefined;
  st.inLeaf = true;
  return rhs ?? lhs;
}

function handleMerge(atom: Atom, lhs: Opt, rhs: Opt, st: { inLeaf: boolean }): Opt {
  switch (atom.t) {
    case 'scalar':
    case 'deduced':
      return mergeLeaf(lhs, rhs, st);
    case 'list': {
      const l = asList(lhs);
      const r = asList(rhs);
      if (!atom.associative || ((!l || l.length === 0) && (!r || r.length === 0))) return mergeLeaf(lhs, rhs, st);
      if (!l && !r) return undefined;
      const out = mergeListItems(atom, l ?? [], r ?? []);
      return out.length > 0 ? some(out) : undefined;
    }
    case 'map': {
      const l = asMap(lhs);
      const r = asMap(rhs);
      const emptyBoth = (!l || Object.keys(l).length === 0) && (!r || Object.keys(r).length === 0);
      if (atom.atomic || emptyBoth) return mergeLeaf(lhs, rhs, st);
      if (!l && !r) return undefined;
      const out: JSONObject = {};
      const keys = [...new Set([...Object.keys(l ?? {}), ...Object.keys(r ?? {})])];
      for (const k of keys) {
        const lv = l && hasKey(l, k) ? some(l[k]) : undefined;
        const rv = r && hasKey(r, k) ? some(r[k]) : undefined;
        const m = walkMerge(lv, rv, fieldType(atom, k) ?? DEDUCED, { inLeaf: false });
        if (m !== undefined) setKey(out, k, m.v);
      }
      return Object.keys(out).length > 0 ? some(out) : undefined;
    }
  }
}

// Go: merge.go visitListItems — keeps the live order and inserts applied items where the applied order says.
function mergeListItems(atom: ListAtom, lhs: unknown[], rhs: unknown[]): unknown[] {
  const index = (list: unknown[], allowDup: boolean): [PathElement[], PEMap<Opt>] => {
    const pes: PathElement[] = [];
    const observed = new PEMap<Opt>();
    for (const item of list) {
      const pe = listItemPE(atom, item);
      if (observed.has(pe)) {
        if (!allowDup) throw new Error(`duplicate entries for key ${peString(pe)}`);
        observed.set(pe, some(null));
      } else observed.set(pe, some(item));
      pes.push(pe);
    }
    return [pes, observed];
  };
  const [rhsPEs, obsR] = index(rhs, false);
  const [lhsPEs, obsL] = index(lhs, true);
  const sharedOrder = rhsPEs.filter((pe) => obsL.has(pe));
  let nextShared: PathElement | undefined = sharedOrder.shift();
  const mergedRHS = new PEMap<true>();
  const out: unknown[] = [];
  const item = (l: Opt, r: Opt) => {
    const m = walkMerge(l, r, atom.elem, { inLeaf: false });
    if (m !== undefined) out.push(m.v);
  };
  const eq = (a: PathElement, b: PathElement) => comparePE(a, b) === 0;
  let lI = 0;
  let rI = 0;
  while (lI < lhsPEs.length || rI < rhsPEs.length) {
    if (lI < lhsPEs.length && rI < rhsPEs.length) {
      const pe = lhsPEs[lI];
      if (eq(pe, rhsPEs[rI])) {
        mergedRHS.set(pe, true);
        item(obsL.get(pe), obsR.get(pe));
        lI++;
        rI++;
        nextShared = sharedOrder.shift();
        continue;
      }
      if (obsR.has(pe) && nextShared !== undefined && !eq(nextShared, lhsPEs[lI])) {
        lI++;
        continue;
      }
    }
    if (lI < lhsPEs.length) {
      const pe = lhsPEs[lI];
      if (!obsR.has(pe)) {
        item(some(lhs[lI]), undefined);
        lI++;
        continue;
      } else if (mergedRHS.has(pe)) {
        lI++;
      }
    }
    if (rI < rhsPEs.length) {
      const pe = rhsPEs[rI];
      mergedRHS.set(pe, true);
      item(obsL.get(pe), obsR.get(pe));
      rI++;
      if (nextShared !== undefined && eq(nextShared, pe)) nextShared = sharedOrder.shift();
    }
  }
  return out;
}

// ---- removal. Go: remove.go (RemoveItems) ----

/** removeItems returns v without the fields in set (members remove whole subtrees). */
export function removeItems(v: unknown, set: FieldSet, ref: TypeRef): unknown {
  return walkRemove(v, set, ref);
}

function walkRemove(v: unknown, toRemove: FieldSet, ref: TypeRef): unknown {
  const atom = deduce(resolve(ref), v);
  switch (atom.t) {
    case 'list': {
      if (!Array.isArray(v)) return undefined;
      if (v.length === 0 || !atom.associative) return undefined;
      const out: unknown[] = [];
      for (const it of v) {
        const pe = listItemPE(atom, it);
        if (toRemove.has([pe])) continue;
        const sub = toRemove.withPrefix(pe);
        out.push(sub.empty() ? it : walkRemove(it, sub, atom.elem));
      }
      return out.length > 0 ? out : undefined;
    }
    case 'map': {
      if (!isObject(v)) return undefined;
      if (Object.keys(v).length === 0 || atom.atomic) return undefined;
      const out: JSONObject = {};
      for (const k of Object.keys(v)) {
        const pe = field(k);
        if (toRemove.has([pe])) continue;
        const sub = toRemove.withPrefix(pe);
        setKey(out, k, sub.empty() ? v[k] : walkRemove(v[k], sub, fieldType(atom, k) ?? DEDUCED));
      }
      return Object.keys(out).length > 0 ? out : undefined;
    }
    default:
      return v;
  }
}

// ---- EnsureNamedFieldsAreMembers. Go: set.go ----

/** ensureNamedFieldsAreMembers adds, at every level, the declared struct fields that have children as members. */
export function ensureNamedFieldsAreMembers(set: FieldSet, ref: TypeRef): FieldSet {
  const out = new FieldSet();
  const atom = resolve(ref);
  out.members = [...set.members];
  for (const n of set.children) {
    if (n.pe.kind === 'field' && atom.t === 'map' && atom.fields && hasKey(atom.fields, n.pe.name)) out.insert([n.pe]);
  }
  for (const n of set.children) {
    let tr: TypeRef = DEDUCED;
    if (n.pe.kind === 'field' && atom.t === 'map') tr = fieldType(atom, n.pe.name) ?? DEDUCED;
    else if (n.pe.kind === 'key' && atom.t === 'list') tr = atom.elem;
    out.children.push({ pe: n.pe, set: ensureNamedFieldsAreMembers(n.set, tr) });
  }
  return out;
}

export { pathString };
