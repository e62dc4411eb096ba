// Server-side apply and managedFields tracking, as kube-apiserver's field manager does them: the structured-merge-diff
// Updater (Apply: merge, prune fields the applier stopped applying unless others own them, conflicts, force;
// Update: ownership of changed fields) wrapped in the apiserver's managers (strip meta fields, per-manager times,
// manager identity, cap of 10 Update managers into "ancient-changes", "before-first-apply", kubectl's
// client-side-apply takeover and last-applied annotation sync).
// Go: sigs.k8s.io/structured-merge-diff merge/update.go, merge/conflict.go; k8s.io/apimachinery/pkg/util/managedfields
// (fieldmanager.go, internal/{structuredmerge,stripmeta,managedfieldsupdater,buildmanagerinfo,capmanagers,
// skipnonapplied,lastappliedmanager,lastappliedupdater,managedfields,conflict}.go).
import { typedSkeleton } from './builtin.js';
import { PatchError } from './errors.js';
import { cleanSchema } from './schema-shape.js';
import { field, FieldSet, goJSON, pathString, type Path } from './fieldpath.js';
import { cloneJSON, deepEqualJSON, goQuote, hasKey, identity, isObject, setKey, type JSONObject } from './json.js';
import {
  compareTyped,
  ensureNamedFieldsAreMembers,
  mergeTyped,
  removeItems,
  toFieldSet,
  typedErrorsString,
  validateTyped,
  type Comparison,
  type TypeRef,
} from './typed.js';
import type { ApplyOptions, ApplyResult, Conflict, ManagedFieldsEntry, UpdateOptions } from './types.js';

/** MAX_UPDATE_MANAGERS is DefaultMaxUpdateManagers: older Update entries merge into "ancient-changes". */
export const MAX_UPDATE_MANAGERS = 10;
const ANCIENT_CHANGES = 'ancient-changes';
const BEFORE_FIRST_APPLY = 'before-first-apply';
const CURRENT_OPERATION = 'current-operation';
const LAST_APPLIED = 'kubectl.kubernetes.io/last-applied-configuration';

interface VersionedSet {
  set: FieldSet;
  apiVersion: string;
  applied: boolean;
}

/** Managed is the decoded managedFields: field sets and times keyed by manager identifier. */
interface Managed {
  fields: Map<string, VersionedSet>;
  times: Map<string, string | undefined>;
}

interface ManagerInfo {
  manager: string;
  operation: 'Apply' | 'Update';
  apiVersion?: string;
  subresource?: string;
}

// Go: internal/managedfields.go BuildManagerIdentifier — JSON of the entry without fields, type and time
// (and without apiVersion for appliers), in ManagedFieldsEntry field order.
function managerIdentifier(m: ManagerInfo): string {
  const o: JSONObject = { manager: m.manager, operation: m.operation };
  if (m.operation === 'Update' && m.apiVersion) o.apiVersion = m.apiVersion;
  if (m.subresource) o.subresource = m.subresource;
  const id = JSON.stringify(o);
  if (!parsedIds.has(id)) parsedIds.set(id, { manager: m.manager, operation: m.operation, apiVersion: o.apiVersion as string | undefined, subresource: m.subresource || undefined });
  return id;
}

// parsedIds remembers identifiers built here so encoding does not re-parse them (bounded: managers are few).
const parsedIds = new Map<string, ManagerInfo>();

function parseIdentifier(id: string): ManagerInfo {
  const known = parsedIds.get(id);
  if (known) return known;
  try {
    const o = JSON.parse(id) as ManagerInfo;
    if (isObject(o) && typeof o.manager === 'string') return o;
  } catch {
    // A bare name (before BuildManagerInfo runs) is its own manager name.
  }
  return { manager: id, operation: 'Update' };
}

// Times are stored at second precision in UTC, like metav1.Time.
let lastNow = '';
let lastSeconds = '';
function toSeconds(now: string): string {
  if (now === lastNow) return lastSeconds;
  const t = Date.parse(now);
  const out = Number.isNaN(t) ? now : new Date(Math.floor(t / 1000) * 1000).toISOString().replace('.000Z', 'Z');
  lastNow = now;
  lastSeconds = out;
  return out;
}

// ---- FieldSet caches. FieldSets are never changed once built (every operation returns a new set), so a decoded
// set can be shared by every object whose managedFields carry the same FieldsV1, and a set that an operation left
// as it was encodes to the FieldsV1 it came from. Encoded FieldsV1 objects are shared in turn by the objects that
// carry them, which are never changed in place once stored.

// decodedByObject: a FieldsV1 object already decoded (most often the live object's own entry).
const decodedByObject = new WeakMap<object, FieldSet>();
// decodedByText: the same FieldsV1 content met in another object (objects of a kind written by one controller
// share their field sets). Bounded; the oldest entry goes first.
const decodedByText = new Map<string, FieldSet>();
const DECODED_BY_TEXT_MAX = 2048;
// The FieldsV1 a set was decoded from or last encoded to is kept on the set itself (FieldSet.encoded): a WeakMap from
// set to FieldsV1, itself reached through decodedByObject's values, made a chain of ephemerons for every full garbage
// collection to iterate over.

function decodeFieldsV1(v: unknown): FieldSet {
  if (!isObject(v)) return FieldSet.fromFieldsV1(v);
  const known = decodedByObject.get(v);
  if (known) return known;
  const text = JSON.stringify(v);
  let set = decodedByText.get(text);
  if (!set) {
    set = FieldSet.fromFieldsV1(v);
    if (decodedByText.size >= DECODED_BY_TEXT_MAX) decodedByText.delete(decodedByText.keys().next().value!);
    decodedByText.set(text, set);
    set.encoded = v;
  }
  decodedByObject.set(v, set);
  return set;
}

// encodedByShape: recently encoded sets by their top-level shape, for a new set equal to one of them (the objects one
// controller creates often have the same fields: Events, the ConfigMaps of an add-on). Bounded.
const encodedByShape = new Map<string, FieldSet[]>();
const ENCODED_SHAPES_MAX = 1024;
const ENCODED_PER_SHAPE = 8;

function shapeKey(set: FieldSet): string {
  let key = String(set.members.length);
  for (const c of set.children) key += c.pe.kind === 'field' ? `|${c.pe.name}` : '|*';
  return key;
}

function encodeFieldsV1(set: FieldSet): JSONObject {
  const known = set.encoded;
  if (known) return known;
  const key = shapeKey(set);
  let same = encodedByShape.get(key);
  const twin = same?.find((s) => s.sameAs(set));
  const out = twin ? twin.encoded! : set.toFieldsV1();
  set.encoded = out;
  if (!twin) {
    decodedByObject.set(out, set);
    if (!same) {
      if (encodedByShape.size >= ENCODED_SHAPES_MAX) encodedByShape.clear();
      encodedByShape.set(key, (same = []));
    }
    same.unshift(set);
    if (same.length > ENCODED_PER_SHAPE) same.pop();
  }
  return out;
}

// validLive remembers the live objects that passed typed validation, and the schema they passed (by identity, see
// json.ts): a stored object is not changed in place, so a second apply to it need not walk it again.
const validLive = new WeakMap<object, number>();
const liveValid = (live: object, ref: TypeRef) => ref.s !== undefined && validLive.get(live) === identity(ref.s);
function markLiveValid(live: object, ref: TypeRef): void {
  if (ref.s) validLive.set(live, identity(ref.s));
}

// Go: internal/managedfields.go DecodeManagedFields (throws on malformed entries).
function decodeManagedFields(entries: unknown): Managed {
  const managed: Managed = { fields: new Map(), times: new Map() };
  if (entries === undefined || entries === null) return managed;
  if (!Array.isArray(entries)) throw new Error('managedFields must be a list');
  for (const raw of entries) {
    if (!isObject(raw)) throw new Error('managedFields entries must be objects');
    const e = raw as Partial<ManagedFieldsEntry>;
    if (e.fieldsType !== 'FieldsV1') throw new Error(`error decoding fields of type ${JSON.stringify(e.fieldsType ?? '')}: invalid fieldsType`);
    if (e.operation !== 'Apply' && e.operation !== 'Update') throw new Error(`invalid operation ${JSON.stringify(e.operation ?? '')}`);
    const id = managerIdentifier({ manager: e.manager ?? '', operation: e.operation, apiVersion: e.apiVersion, subresource: e.subresource });
    managed.fields.set(id, { set: decodeFieldsV1(e.fieldsV1 ?? {}), apiVersion: e.apiVersion ?? '', applied: e.operation === 'Apply' });
    managed.times.set(id, e.time ?? undefined);
  }
  return managed;
}

// Go: internal/managedfields.go encodeManagedFields + sortEncodedManagedFields.
function encodeManagedFields(managed: Managed): ManagedFieldsEntry[] {
  const entries: ManagedFieldsEntry[] = [];
  for (const [id, vs] of managed.fields) {
    const info = parseIdentifier(id);
    const e: Partial<ManagedFieldsEntry> = { manager: info.manager, operation: info.operation, apiVersion: vs.apiVersion };
    const time = managed.times.get(id);
    if (time) e.time = time;
    e.fieldsType = 'FieldsV1';
    e.fieldsV1 = encodeFieldsV1(vs.set);
    if (info.subresource) e.subresource = info.subresource;
    entries.push(e as ManagedFieldsEntry);
  }
  const secs = new Map(entries.map((e) => [e, e.time ? Math.floor(Date.parse(e.time) / 1000) : 0]));
  const c = <T>(a: T, b: T) => (a < b ? -1 : a > b ? 1 : 0);
  entries.sort(
    (p, q) =>
      c(p.operation, q.operation) ||
      c(secs.get(p)!, secs.get(q)!) ||
      c(p.manager, q.manager) ||
      c(p.apiVersion, q.apiVersion) ||
      c(p.subresource ?? '', q.subresource ?? ''),
  );
  return entries;
}

// isResetManagedFields: a non-nil empty list, or a list with one empty entry, clears managedFields.
function isResetManagedFields(v: unknown): boolean {
  if (!Array.isArray(v)) return false;
  if (v.length === 0) return true;
  return v.length === 1 && isObject(v[0]) && Object.keys(v[0]).length === 0;
}

const metadataOf = (o: unknown): JSONObject => (isObject(o) && isObject(o.metadata) ? o.metadata : {});

// withoutManagedFields copies only the top level and metadata: nothing below is ever mutated here.
function withoutManagedFields(o: object): JSONObject {
  const copy: JSONObject = { ...(o as JSONObject) };
  if (isObject(copy.metadata)) {
    const meta = { ...copy.metadata };
    delete meta.managedFields;
    copy.metadata = meta;
  }
  return copy;
}

function setManagedFields(o: JSONObject, entries: ManagedFieldsEntry[]): JSONObject {
  if (entries.length === 0) {
    if (isObject(o.metadata)) delete o.metadata.managedFields;
    return o;
  }
  if (!isObject(o.metadata)) o.metadata = {};
  (o.metadata as JSONObject).managedFields = entries;
  return o;
}

// fillSkeleton returns obj with every skeleton map present (absent or null ones become the skeleton's {}).
function fillSkeleton(obj: JSONObject, skeleton: Record<string, unknown>): JSONObject {
  const out: JSONObject = { ...obj };
  for (const [k, sub] of Object.entries(skeleton)) {
    const cur = out[k];
    if (sub === null) {
      if (cur === undefined) out[k] = null;
    } else if (cur === undefined || cur === null) out[k] = fillSkeleton({}, sub as Record<string, unknown>);
    else if (isObject(cur)) out[k] = fillSkeleton(cur, sub as Record<string, unknown>);
  }
  return out;
}

// ---- the structured-merge-diff Updater. Go: merge/update.go ----

class Updater {
  constructor(
    private readonly ref: TypeRef,
    private readonly ignored: FieldSet,
  ) {}

  private compare(live: unknown, next: unknown): Comparison {
    const c = compareTyped(live, next, this.ref);
    if (this.ignored.empty()) return c;
    return {
      added: c.added.recursiveDifference(this.ignored),
      removed: c.removed.recursiveDifference(this.ignored),
      modified: c.modified.recursiveDifference(this.ignored),
    };
  }

  private update(live: unknown, next: unknown, managers: Map<string, VersionedSet>, workflow: string, force: boolean): Comparison {
    const compare = this.compare(live, next);
    const conflicts = new Map<string, FieldSet>();
    const removed = new Map<string, FieldSet>();
    const changed = compare.modified.union(compare.added);
    for (const [manager, vs] of managers) {
      if (manager === workflow) continue;
      const conflictSet = vs.set.intersection(changed);
      if (!conflictSet.empty()) conflicts.set(manager, conflictSet);
      if (!compare.removed.empty()) removed.set(manager, compare.removed);
    }
    if (!force && conflicts.size > 0) throw new ConflictsError(conflicts, managers);
    for (const [manager, set] of conflicts) {
      const vs = managers.get(manager)!;
      managers.set(manager, { ...vs, set: vs.set.difference(set) });
    }
    for (const [manager, set] of removed) {
      const vs = managers.get(manager)!;
      managers.set(manager, { ...vs, set: vs.set.difference(set) });
    }
    for (const [manager, vs] of [...managers]) if (vs.set.empty()) managers.delete(manager);
    return compare;
  }

  /** Update records manager as the owner of what changed from live to next. */
  updateOp(live: unknown, next: unknown, version: string, managers: Map<string, VersionedSet>, manager: string): void {
    const compare = this.update(live, next, managers, manager, true);
    const prev = managers.get(manager)?.set ?? new FieldSet();
    let set = prev.difference(compare.removed).union(compare.modified).union(compare.added);
    set = set.recursiveDifference(this.ignored);
    if (set.empty()) managers.delete(manager);
    else managers.set(manager, { set, apiVersion: version, applied: false });
  }

  /** Apply merges config into live for manager; returns the new object, or undefined when nothing changed. */
  applyOp(live: unknown, config: unknown, version: string, managers: Map<string, VersionedSet>, manager: string, force: boolean): unknown {
    let next = mergeTyped(live, config, this.ref);
    const lastSet = managers.get(manager);
    const set = toFieldSet(config, this.ref).recursiveDifference(this.ignored);
    managers.set(manager, { set, apiVersion: version, applied: true });
    next = this.prune(next, managers, manager, lastSet);
    this.update(live, next, managers, manager, force);
    return deepEqualJSON(live, next) ? undefined : next;
  }

  private prune(merged: unknown, managers: Map<string, VersionedSet>, manager: string, lastSet: VersionedSet | undefined): unknown {
    if (!lastSet || lastSet.set.empty()) return merged;
    const last = ensureNamedFieldsAreMembers(lastSet.set, this.ref);
    // Only the top-level fields the applier's last set reaches can change: each step removes or adds back within
    // the subtrees of its members, and every other top-level field has the same fields before and after. Those
    // are left out of the walks (a status apply would walk a whole spec three times) and kept as they are.
    const names = topLevelNames(last);
    if (!names || !isObject(merged)) return this.pruneWalk(merged, managers, last);
    const part: JSONObject = {};
    for (const k of Object.keys(merged)) if (names.has(k)) setKey(part, k, merged[k]);
    if (Object.keys(part).length === 0) return merged;
    const pruned = (this.pruneWalk(part, managers, last) ?? {}) as JSONObject;
    const out: JSONObject = {};
    for (const k of Object.keys(merged)) {
      if (!names.has(k)) setKey(out, k, merged[k]);
      else if (hasKey(pruned, k)) setKey(out, k, pruned[k]);
    }
    return Object.keys(out).length > 0 ? out : undefined;
  }

  private pruneWalk(merged: unknown, managers: Map<string, VersionedSet>, last: FieldSet): unknown {
    const ens = (s: FieldSet) => ensureNamedFieldsAreMembers(s, this.ref);
    let pruned = removeItems(merged, last, this.ref);
    // addBackOwnedItems: everything still owned by some manager (including the applier's new set) comes back.
    let managed = new FieldSet();
    for (const vs of managers.values()) managed = managed.union(vs.set);
    const mergedSet = ens(toFieldSet(merged, this.ref));
    const prunedSet = ens(toFieldSet(pruned, this.ref));
    pruned = removeItems(merged, mergedSet.difference(prunedSet.union(ens(managed))), this.ref);
    // addBackDanglingItems: fields the applier had never owned come back too.
    const prunedSet2 = ens(toFieldSet(pruned, this.ref));
    return removeItems(merged, mergedSet.difference(prunedSet2).intersection(last), this.ref);
  }
}

// topLevelNames lists the top-level field names a set reaches (undefined if it has other elements at the top).
function topLevelNames(set: FieldSet): Set<string> | undefined {
  const names = new Set<string>();
  for (const pe of [...set.members, ...set.children.map((c) => c.pe)]) {
    if (pe.kind !== 'field') return undefined;
    names.add(pe.name);
  }
  return names;
}

class ConflictsError extends Error {
  constructor(
    readonly conflicts: Map<string, FieldSet>,
    readonly managers: Map<string, VersionedSet>,
  ) {
    super('conflicts');
  }
}

// ---- the apiserver's manager chain ----

const STRIP_PATHS: Path[] = [
  ['apiVersion'],
  ['kind'],
  ['metadata'],
  ['metadata', 'name'],
  ['metadata', 'namespace'],
  ['metadata', 'creationTimestamp'],
  ['metadata', 'selfLink'],
  ['metadata', 'uid'],
  ['metadata', 'clusterName'],
  ['metadata', 'generation'],
  ['metadata', 'managedFields'],
  ['metadata', 'resourceVersion'],
].map((p) => p.map(field));
const STRIP_SET = (() => {
  const s = new FieldSet();
  for (const p of STRIP_PATHS) s.insert(p);
  return s;
})();

// Go: internal/stripmeta.go stripFields (a plain difference: children of metadata.labels etc. stay).
function stripMeta(managers: Map<string, VersionedSet>, manager: string): void {
  const vs = managers.get(manager);
  if (!vs) return;
  const set = vs.set.difference(STRIP_SET);
  if (set.empty()) managers.delete(manager);
  else managers.set(manager, { ...vs, set });
}

// Go: internal/capmanagers.go capUpdateManagers
function capUpdateManagers(managed: Managed): void {
  const updaters = [...managed.fields].filter(([, vs]) => !vs.applied).map(([id]) => id);
  if (updaters.length <= MAX_UPDATE_MANAGERS) return;
  const secs = (id: string) => {
    const t = managed.times.get(id);
    return t ? Math.floor(Date.parse(t) / 1000) : 0;
  };
  updaters.sort((a, b) => secs(a) - secs(b) || (a < b ? -1 : a > b ? 1 : 0));
  const firstByVersion = new Map<string, string>();
  let length = updaters.length;
  for (let i = 0; i < updaters.length && length > MAX_UPDATE_MANAGERS; i++) {
    const id = updaters[i];
    const vs = managed.fields.get(id)!;
    const time = managed.times.get(id);
    const bucket = managerIdentifier({ manager: ANCIENT_CHANGES, operation: 'Update', apiVersion: vs.apiVersion });
    const first = firstByVersion.get(vs.apiVersion);
    if (first !== undefined) {
      if (!managed.fields.has(bucket)) {
        const s = managed.fields.get(first)!;
        managed.fields.delete(first);
        managed.times.delete(first);
        managed.fields.set(bucket, s);
      }
      managed.fields.set(bucket, { set: vs.set.union(managed.fields.get(bucket)!.set), apiVersion: vs.apiVersion, applied: vs.applied });
      managed.fields.delete(id);
      managed.times.delete(id);
      length--;
      managed.times.set(bucket, time);
    } else {
      firstByVersion.set(vs.apiVersion, id);
    }
  }
}

/** resetFieldSet builds the ignored set: top-level fields a strategy resets (status on the main resource, spec on /status). */
function resetFieldSet(o: { subresource?: string; resetFields?: string[] }): FieldSet {
  const fields = o.resetFields ?? (o.subresource === 'status' ? ['spec'] : []);
  const s = new FieldSet();
  for (const f of fields) s.insert([field(f)]);
  return s;
}

function typedError(what: string, obj: unknown, apiVersion: string, errs: string): Error {
  const meta = metadataOf(obj);
  const gvk = gvkString(apiVersion, isObject(obj) && typeof obj.kind === 'string' ? obj.kind : '');
  return new Error(`failed to create typed ${what} object (${String(meta.namespace ?? '')}/${String(meta.name ?? '')}; ${gvk}): ${errs}`);
}

// schema.GroupVersionKind.String(): "apps/v1, Kind=Deployment", "/v1, Kind=ConfigMap".
function gvkString(apiVersion: string, kind: string): string {
  const gv = apiVersion.includes('/') ? apiVersion : `/${apiVersion}`;
  return `${gv}, Kind=${kind}`;
}

// Go: internal/structuredmerge.go Update, wrapped by managedfieldsupdater.go (current-operation) and stripmeta.go.
// The live object was validated when it was written, so only the new one is checked here.
function runUpdate(updater: Updater, ref: TypeRef, live: unknown, next: unknown, managed: Managed, id: string, version: string, now: string): void {
  const newErrs = validateTyped(next, ref, true);
  if (newErrs.length > 0) throw new Error(`failed to convert new object to smd typed: ${typedErrorsString(newErrs)}`);
  updater.updateOp(live, next, version, managed.fields, CURRENT_OPERATION);
  stripMeta(managed.fields, CURRENT_OPERATION);
  const vs = managed.fields.get(CURRENT_OPERATION);
  if (vs) {
    managed.fields.delete(CURRENT_OPERATION);
    const prev = managed.fields.get(id);
    managed.fields.set(id, prev ? { ...vs, set: vs.set.union(prev.set) } : vs);
    managed.times.set(id, toSeconds(now));
  }
  capUpdateManagers(managed);
}

/**
 * trackUpdate returns updated with metadata.managedFields maintained for a non-apply write (create, update, any
 * patch type but apply) by o.manager: ownership of every field that changed moves to that manager. Like the
 * apiserver, an existing object that has no managedFields stays untracked, a request may replace managedFields
 * (a list with one empty entry, or an empty list, clears them), and any failure returns updated with
 * managedFields removed instead of failing the write.
 */
export function trackUpdate(old: object | undefined, updated: object, o: UpdateOptions): object {
  const ref: TypeRef = { s: cleanSchema(o.schema), resource: true };
  try {
    // Go: fieldmanager.go decodeManagedFields
    let managed: Managed;
    const requested = metadataOf(updated).managedFields;
    const decodeLive = () => {
      try {
        return decodeManagedFields(old ? metadataOf(old).managedFields : undefined);
      } catch {
        return { fields: new Map(), times: new Map() } as Managed;
      }
    };
    if (o.subresource) managed = decodeLive();
    else if (isResetManagedFields(requested)) managed = { fields: new Map(), times: new Map() };
    else {
      try {
        managed = decodeManagedFields(requested);
        if (managed.fields.size === 0) managed = decodeLive();
      } catch {
        managed = decodeLive();
      }
    }
    const live = old ? withoutManagedFields(old) : {};
    const next = withoutManagedFields(updated);
    // Go: skipnonapplied.go — updates of objects that are not tracked yet stay untracked.
    if (managed.fields.size === 0 && old && metadataOf(old).uid) return next;
    const id = managerIdentifier({ manager: o.manager, operation: 'Update', apiVersion: o.apiVersion, subresource: o.subresource });
    // Built-ins are compared as typed Go values: by-value structs exist even when the JSON omits them.
    const skeleton = typedSkeleton(o.schema);
    const typedLive = skeleton ? fillSkeleton(live, skeleton) : live;
    const typedNext = skeleton ? fillSkeleton(next, skeleton) : next;
    runUpdate(new Updater(ref, resetFieldSet(o)), ref, typedLive, typedNext, managed, id, o.apiVersion, o.now);
    return setManagedFields(next, encodeManagedFields(managed));
  } catch {
    return withoutManagedFields(updated);
  }
}

/**
 * serverSideApply merges applied into live (undefined for a create) for one field manager. It returns the new
 * object with metadata.managedFields updated, or the conflicts with other managers (with the apiserver's
 * message) when force is off. Malformed applied configurations throw PatchError with the apiserver's status:
 * BadRequest for a wrong apiVersion or managedFields in the patch, Unknown (500) for what structured-merge-diff
 * rejects (e.g. `.spec.foo: field not declared in schema`, duplicate keys).
 */
export function serverSideApply(live: object | undefined, applied: object, o: ApplyOptions): ApplyResult {
  if (!isObject(applied)) throw new PatchError('BadRequest', 'the applied configuration must be an object');
  const patchVersion = typeof applied.apiVersion === 'string' ? applied.apiVersion : '';
  if (patchVersion !== o.apiVersion) {
    throw new PatchError('BadRequest', `Incorrect version specified in apply patch. Specified patch version: ${patchVersion}, expected: ${o.apiVersion}`);
  }
  if (metadataOf(applied).managedFields !== undefined && metadataOf(applied).managedFields !== null) {
    throw new PatchError('BadRequest', 'metadata.managedFields must be nil');
  }
  const ref: TypeRef = { s: cleanSchema(o.schema), resource: true };
  let managed: Managed;
  try {
    managed = decodeManagedFields(live ? metadataOf(live).managedFields : undefined);
  } catch (e) {
    throw new PatchError('Unknown', `failed to decode managed fields: ${(e as Error).message}`);
  }
  let liveObj: JSONObject = live ? withoutManagedFields(live) : {};
  // Nothing below changes the applied configuration (the result is a copy).
  const config = applied;
  const patchErrs = validateTyped(config, ref, false);
  if (patchErrs.length > 0) throw new PatchError('Unknown', typedError('patch', config, o.apiVersion, typedErrorsString(patchErrs)).message);
  if (!live || !liveValid(live, ref)) {
    // liveObj shares the stored object's members (withoutManagedFields copies only the top level and metadata).
    const liveErrs = validateTyped(liveObj, ref, true, true);
    if (liveErrs.length > 0) throw new PatchError('Unknown', typedError('live', liveObj, o.apiVersion, typedErrorsString(liveErrs)).message);
    if (live) markLiveValid(live, ref);
  }

  const updater = new Updater(ref, resetFieldSet(o));
  // Go: skipnonapplied.go — the first apply to an object nobody tracks yet records its fields as "before-first-apply".
  if (managed.fields.size === 0 && live) {
    const id = managerIdentifier({ manager: BEFORE_FIRST_APPLY, operation: 'Update', apiVersion: o.apiVersion, subresource: o.subresource });
    runUpdate(updater, ref, {}, liveObj, managed, id, o.apiVersion, o.now);
  }
  const id = managerIdentifier({ manager: o.manager, operation: 'Apply', subresource: o.subresource });
  let result: unknown;
  const before = new Map(managed.fields);
  const lastSet = managed.fields.get(id)?.set;
  try {
    result = updater.applyOp(liveObj, config, o.apiVersion, managed.fields, id, o.force);
  } catch (e) {
    if (!(e instanceof ConflictsError)) throw new PatchError('Unknown', (e as Error).message, { cause: e });
    // Go: lastappliedmanager.go — kubectl's server-side apply may take over what client-side apply last applied,
    // as long as nobody changed those fields since.
    const allowed = o.manager === 'kubectl' ? allowedFromLastApplied(liveObj, ref) : undefined;
    let remaining = e.conflicts;
    if (allowed) {
      remaining = new Map();
      for (const [m, set] of e.conflicts) {
        const left = set.difference(allowed);
        if (!left.empty()) remaining.set(m, left);
      }
    }
    if (remaining.size > 0) {
      const conflicts = conflictList(remaining, e.managers);
      return { ok: false, conflicts, message: conflictMessage(conflicts) };
    }
    managed.fields = before;
    result = updater.applyOp(liveObj, config, o.apiVersion, managed.fields, id, true);
  }
  stripMeta(managed.fields, id);
  // The same fields as last time keep the same set, whose encoding is known.
  const now = managed.fields.get(id);
  if (now && lastSet && now.set !== lastSet && now.set.sameAs(lastSet)) managed.fields.set(id, { ...now, set: lastSet });
  capUpdateManagers(managed);
  if (result !== undefined) managed.times.set(id, toSeconds(o.now));
  // A fresh tree unless asked otherwise: merged values may share subtrees with the caller's live object. The top
  // level and metadata are new objects either way (withoutManagedFields copies them, a merge builds them).
  const kept = (result === undefined ? liveObj : result) as JSONObject;
  const out = o.shareUnchanged ? kept : cloneJSON(kept);
  liveObj = out;
  // Go: lastappliedupdater.go — kubectl's server-side apply keeps a client-side apply annotation in sync.
  if (o.manager === 'kubectl' && typeof (metadataOf(out).annotations as JSONObject | undefined)?.[LAST_APPLIED] === 'string') {
    const lastApplied = cloneJSON(config);
    const ann = metadataOf(lastApplied).annotations;
    if (isObject(ann)) delete ann[LAST_APPLIED];
    // Copy before writing: unchanged values may still be shared with the caller's live object.
    const meta = { ...metadataOf(out) };
    meta.annotations = { ...(meta.annotations as JSONObject), [LAST_APPLIED]: `${goJSON(lastApplied)}\n` };
    out.metadata = meta;
  }
  return { ok: true, object: setManagedFields(liveObj, encodeManagedFields(managed)) };
}

// allowedFromLastApplied: the fields of the client-side apply annotation whose live values still match it.
function allowedFromLastApplied(live: JSONObject, ref: TypeRef): FieldSet | undefined {
  const annotation = (metadataOf(live).annotations as JSONObject | undefined)?.[LAST_APPLIED];
  if (typeof annotation !== 'string' || annotation === '') return undefined;
  let lastApplied: unknown;
  try {
    lastApplied = JSON.parse(annotation);
  } catch {
    return undefined;
  }
  if (!isObject(lastApplied) || validateTyped(lastApplied, ref, true).length > 0) return undefined;
  try {
    const lastSet = toFieldSet(lastApplied, ref);
    return lastSet.difference(compareTyped(lastApplied, live, ref).modified);
  } catch {
    return undefined;
  }
}

function conflictList(conflicts: Map<string, FieldSet>, managers: Map<string, VersionedSet>): Conflict[] {
  const out: Conflict[] = [];
  const ids = [...conflicts.keys()].sort();
  for (const id of ids) {
    const info = parseIdentifier(id);
    for (const p of conflicts.get(id)!.paths()) {
      const c: Conflict = { manager: info.manager, field: pathString(p), operation: info.operation, apiVersion: managers.get(id)?.apiVersion ?? info.apiVersion ?? '' };
      if (info.subresource) c.subresource = info.subresource;
      out.push(c);
    }
  }
  return out;
}

// Go: internal/conflict.go printManager
function printManager(c: Conflict): string {
  let s = goQuote(c.manager);
  if (c.subresource) s += ` with subresource ${goQuote(c.subresource)}`;
  if (c.operation === 'Update') s += ` using ${c.apiVersion}`;
  return s;
}

/** conflictMessage renders the Status message of an apply conflict. Go: internal/conflict.go getConflictMessage */
export function conflictMessage(conflicts: Conflict[]): string {
  if (conflicts.length === 1) return `Apply failed with 1 conflict: conflict with ${printManager(conflicts[0])}: ${conflicts[0].field}`;
  // Grouped by manager identifier (sorted), each printed like printManager.
  const byManager = new Map<string, Conflict[]>();
  for (const c of conflicts) {
    const key = managerIdentifier({ manager: c.manager, operation: c.operation, apiVersion: c.apiVersion, subresource: c.subresource });
    byManager.set(key, [...(byManager.get(key) ?? []), c]);
  }
  const keys = [...byManager.keys()].sort();
  const lines: string[] = [];
  for (const k of keys) {
    const group = byManager.get(k)!;
    lines.push(`conflicts with ${printManager(group[0])}:`);
    for (const c of group) lines.push(`- ${c.field}`);
  }
  return `Apply failed with ${conflicts.length} conflicts: ${lines.join('\n')}`;
}

/** conflictCauses renders Status.details.causes for an apply conflict (type FieldManagerConflict). */
export function conflictCauses(conflicts: Conflict[]): { type: 'FieldManagerConflict'; message: string; field: string }[] {
  return conflicts.map((c) => ({ type: 'FieldManagerConflict', message: `conflict with ${printManager(c)}`, field: c.field }));
}

/** managedFieldPaths exposes the decoded field set of one managedFields entry (for tests and diagnostics). */
export function managedFieldPaths(entry: ManagedFieldsEntry): string[] {
  return FieldSet.fromFieldsV1(entry.fieldsV1).paths().map(pathString);
}

