// Strategic merge patch for built-in kinds, as kube-apiserver applies it (StrategicMergeMapPatch with
// MergeParallelList and IgnoreUnmatchedNulls). The patch metadata Go reads from struct tags comes from the schema's
// x-kubernetes-patch-strategy / x-kubernetes-patch-merge-key. Directives: $patch (replace, delete, merge in lists
// is rejected like upstream), $retainKeys, $setElementOrder/<list>, $deleteFromPrimitiveList/<list>.
// Go: k8s.io/apimachinery/pkg/util/strategicpatch/patch.go (mergeMap, mergeSlice, normalizeElementOrder, ...) and
// k8s.io/apiserver/pkg/endpoints/handlers/patch.go interpretStrategicMergePatchError for the Status mapping.
import { GENERIC_INVALID, PatchError } from './errors.js';
import { cleanSchema } from './schema-shape.js';
import { cloneJSON, formatGo, goTypeOf, hasKey, isObject, jsonTypeName, setKey, type JSONObject } from './json.js';
import type { JSONSchemaProps } from './types.js';

const DIRECTIVE = '$patch';
const REPLACE = 'replace';
const DELETE = 'delete';
const MERGE = 'merge';
const RETAIN_KEYS = '$retainKeys';
const DELETE_FROM_PRIMITIVE_LIST = '$deleteFromPrimitiveList';
const SET_ELEMENT_ORDER = '$setElementOrder';

// The errors interpretStrategicMergePatchError recognises, by Status mapping.
const badRequest = (msg: string) => new PatchError('BadRequest', msg);
const ERR_PRIMITIVE_LIST = () => badRequest('invalid patch format of primitive list');
const ERR_RETAIN_KEYS = () => badRequest('invalid patch format of retainKeys');
const ERR_SET_ELEMENT_ORDER = () => badRequest('invalid patch format of setElementOrder list');
const ERR_NO_LIST_OF_LISTS = () => new PatchError('Invalid', GENERIC_INVALID, { detail: 'lists of lists are not supported' });
// Everything else is returned unconverted: 500 with an empty reason and the library's message.
const unknown = (msg: string) => new PatchError('Unknown', msg);
const errNoMergeKey = (m: JSONObject, k: string) => unknown(`map: ${formatGo(m)} does not contain declared merge key: ${k}`);
const errBadArgType = (expected: string, actual: unknown) => unknown(`expected a ${expected}, but received a ${goTypeOf(actual)}`);
const errBadPatchType = (t: unknown, m: JSONObject) => unknown(`unknown patch type: ${formatGo(t)} in map: ${formatGo(m)}`);

type Kind = 'map' | 'scalar';

/**
 * applyStrategicMergePatch applies a strategic merge patch to a copy of target using the list/map metadata of the
 * kind's schema (builtinSchema). Inputs are never mutated. Errors carry the Status kube-apiserver answers with.
 */
export function applyStrategicMergePatch(target: object, patch: unknown, schema: JSONSchemaProps): object {
  if (patch === null || patch === undefined) return cloneJSON(target);
  if (!isObject(patch)) throw badRequest(`json: cannot unmarshal ${jsonTypeName(patch)} into Go value of type map[string]interface {}`);
  const merged = mergeMap(cloneJSON(target) as JSONObject, cloneJSON(patch), cleanSchema(schema));
  stripDirectives(merged);
  return merged;
}

// The apiserver decodes the merged map into the typed object, which drops directive keys that stayed in values
// the patch added wholesale; we drop them here instead.
function stripDirectives(v: unknown): void {
  if (Array.isArray(v)) for (const x of v) stripDirectives(x);
  else if (isObject(v)) {
    for (const k of Object.keys(v)) {
      if (k === DIRECTIVE || k === RETAIN_KEYS || k.startsWith(`${SET_ELEMENT_ORDER}/`) || k.startsWith(`${DELETE_FROM_PRIMITIVE_LIST}/`)) delete v[k];
      else stripDirectives(v[k]);
    }
  }
}

// fieldSchema is LookupPatchMetadata: the schema of key k inside an object schema (properties, then map values).
function fieldSchema(s: JSONSchemaProps | undefined, k: string): JSONSchemaProps | undefined {
  if (!s) return undefined;
  if (s.properties && hasKey(s.properties, k)) return s.properties[k];
  if (isObject(s.additionalProperties)) return s.additionalProperties as JSONSchemaProps;
  return undefined;
}

// patchStrategy splits "merge,retainKeys" like extractRetainKeysPatchStrategy and returns the non-retainKeys part.
function patchStrategy(s: JSONSchemaProps | undefined): string {
  const raw = s?.['x-kubernetes-patch-strategy'];
  if (!raw) return '';
  return raw
    .split(',')
    .map((x) => x.trim())
    .filter((x) => x !== 'retainKeys')
    .join(',');
}

const mergeKeyOf = (s: JSONSchemaProps | undefined) => s?.['x-kubernetes-patch-merge-key'] ?? '';

// Go's reflect type of a decoded JSON value, used where upstream compares reflect.TypeOf results.
function goKind(v: unknown): string {
  if (Array.isArray(v)) return 'slice';
  if (isObject(v)) return 'map';
  return goTypeOf(v);
}

// Go: patch.go mergeMap
function mergeMap(original: JSONObject | null, patch: JSONObject, s: JSONSchemaProps | undefined): JSONObject {
  if (hasKey(patch, DIRECTIVE)) return handleDirectiveInMergeMap(patch[DIRECTIVE], patch);
  const orig = original ?? {};
  applyRetainKeysDirective(orig, patch);
  mergePatchIntoOriginal(orig, patch, s);

  for (const rawKey of Object.keys(patch)) {
    const patchV = patch[rawKey];
    let k = rawKey;
    let isDeleteList = false;
    if (rawKey.startsWith(DELETE_FROM_PRIMITIVE_LIST)) {
      k = extractKey(rawKey, DELETE_FROM_PRIMITIVE_LIST);
      isDeleteList = true;
    }
    if (patchV === null) {
      delete orig[k];
      continue;
    }
    if (!hasKey(orig, k)) {
      setKey(orig, k, patchV);
      continue;
    }
    const origV = orig[k];
    if (goKind(origV) !== goKind(patchV)) {
      setKey(orig, k, patchV);
      continue;
    }
    const fs = fieldSchema(s, k);
    const strategy = patchStrategy(fs);
    if (isObject(origV)) {
      setKey(orig, k, strategy === REPLACE ? (patchV as JSONObject) : mergeMap(origV, patchV as JSONObject, fs));
    } else if (Array.isArray(origV)) {
      setKey(orig, k, strategy === MERGE ? mergeSlice(origV, patchV as unknown[], fs?.items, mergeKeyOf(fs), isDeleteList) : (patchV as unknown[]));
    } else {
      setKey(orig, k, patchV);
    }
  }
  return orig;
}

// Go: patch.go handleDirectiveInMergeMap
function handleDirectiveInMergeMap(directive: unknown, patch: JSONObject): JSONObject {
  if (directive === REPLACE) {
    delete patch[DIRECTIVE];
    return patch;
  }
  if (directive === DELETE) return {};
  throw errBadPatchType(directive, patch);
}

// Go: patch.go extractKey
function extractKey(s: string, prefix: string): string {
  const i = s.indexOf('/');
  if (i < 0 || s.slice(0, i) !== prefix) {
    if (prefix === DELETE_FROM_PRIMITIVE_LIST) throw ERR_PRIMITIVE_LIST();
    throw ERR_SET_ELEMENT_ORDER();
  }
  return s.slice(i + 1);
}

// Go: patch.go applyRetainKeysDirective (MergeParallelList)
function applyRetainKeysDirective(original: JSONObject, patch: JSONObject): void {
  if (!hasKey(patch, RETAIN_KEYS)) return;
  const list = patch[RETAIN_KEYS];
  delete patch[RETAIN_KEYS];
  if (!Array.isArray(list)) throw ERR_RETAIN_KEYS();
  const keep = new Set(list);
  for (const k of Object.keys(patch)) {
    if (patch[k] === null || k.startsWith(DELETE_FROM_PRIMITIVE_LIST) || k.startsWith(SET_ELEMENT_ORDER)) continue;
    if (!keep.has(k)) throw ERR_RETAIN_KEYS();
  }
  for (const k of Object.keys(original)) if (!keep.has(k)) delete original[k];
}

// Go: patch.go mergePatchIntoOriginal — the $setElementOrder directives.
function mergePatchIntoOriginal(original: JSONObject, patch: JSONObject, s: JSONSchemaProps | undefined): void {
  for (const key of Object.keys(patch)) {
    if (!key.startsWith(SET_ELEMENT_ORDER)) continue;
    const order = patch[key];
    delete patch[key];
    if (!Array.isArray(order)) throw errBadArgType('[]interface {}', order);
    const originalKey = extractKey(key, SET_ELEMENT_ORDER);
    const foundOriginal = hasKey(original, originalKey);
    const foundPatch = hasKey(patch, originalKey);
    let originalList: unknown[] = [];
    let patchList: unknown[] = [];
    if (foundOriginal) {
      if (!Array.isArray(original[originalKey])) throw errBadArgType('[]interface {}', original[originalKey]);
      originalList = original[originalKey] as unknown[];
    }
    if (foundPatch) {
      if (!Array.isArray(patch[originalKey])) throw errBadArgType('[]interface {}', patch[originalKey]);
      patchList = patch[originalKey] as unknown[];
    }
    const fs = fieldSchema(s, originalKey);
    const mergeKey = mergeKeyOf(fs);
    validatePatchWithSetOrderList(patchList, order, mergeKey);
    let merged: unknown[];
    if (foundOriginal && !foundPatch) merged = originalList;
    else if (!foundOriginal && foundPatch) merged = patchList;
    else if (foundOriginal && foundPatch) merged = patchStrategy(fs) === MERGE ? mergeSlice(originalList, patchList, fs?.items, mergeKey, false) : patchList;
    else continue;

    const [patchItems, serverOnly] = mergeKey === '' ? partitionPrimitives(merged, order) : partitionMaps(merged, order, mergeKey);
    const kind = sliceElementKind(originalList, patchList);
    setKey(original, originalKey, normalizeElementOrder(patchItems, serverOnly, order, originalList, mergeKey, kind));
    delete patch[originalKey];
  }
}

// Go: patch.go validatePatchWithSetOrderList
function validatePatchWithSetOrderList(patchList: unknown[], order: unknown[], mergeKey: string): void {
  if (order.length === 0 || patchList.length === 0) return;
  let nonDelete = patchList;
  if (mergeKey !== '') nonDelete = extractToDeleteItems(patchList)[0];
  let p = 0;
  let o = 0;
  while (p < nonDelete.length && o < order.length) {
    if (isObject(nonDelete[p]) && hasKey(nonDelete[p] as JSONObject, DIRECTIVE)) {
      p++;
      continue;
    }
    if (mergeKeyValueEqual(nonDelete[p], order[o], mergeKey)) p++;
    o++;
  }
  if (p < nonDelete.length && o >= order.length) {
    throw unknown(`The order in patch list:\n${formatGo(patchList)}\n doesn't match ${SET_ELEMENT_ORDER} list:\n${formatGo(order)}\n`);
  }
}

function mergeKeyValueEqual(left: unknown, right: unknown, mergeKey: string): boolean {
  if (mergeKey === '') return left === right;
  if (!isObject(left)) throw errBadArgType('map[string]interface {}', left);
  if (!isObject(right)) throw errBadArgType('map[string]interface {}', right);
  if (!hasKey(left, mergeKey)) throw errNoMergeKey(left, mergeKey);
  if (!hasKey(right, mergeKey)) throw errNoMergeKey(right, mergeKey);
  return left[mergeKey] === right[mergeKey];
}

// Go: patch.go sliceElementType — every element must have the same dynamic type, and no lists of lists.
function sliceElementKind(...slices: unknown[][]): Kind {
  let prev: string | undefined;
  for (const s of slices) {
    for (const v of s) {
      const t = goTypeOf(v);
      if (prev === undefined) {
        prev = t;
        if (Array.isArray(v)) throw ERR_NO_LIST_OF_LISTS();
      } else if (prev !== t) {
        throw unknown(`list element types are not identical: ${formatGo(slices)}`);
      }
    }
  }
  if (prev === undefined) throw unknown('no elements in any of the given slices');
  return prev === 'map[string]interface {}' ? 'map' : 'scalar';
}

// Go: patch.go mergeSlice
function mergeSlice(original: unknown[], patch: unknown[], elem: JSONSchemaProps | undefined, mergeKey: string, isDeleteList: boolean): unknown[] {
  if (original.length === 0 && patch.length === 0) return original;
  const kind = sliceElementKind(original, patch);
  let merged: unknown[];
  let orig = original;
  let pat = patch;
  if (kind !== 'map') {
    if (isDeleteList) return deleteFromSlice(original, patch);
    merged = deduplicateScalars([...original, ...patch]);
  } else {
    if (mergeKey === '') throw unknown('cannot merge lists without merge key for type struct');
    [orig, pat] = mergeSliceWithSpecialElements(original, patch, mergeKey);
    merged = mergeSliceWithoutSpecialElements(orig, pat, mergeKey, elem);
  }
  const [patchItems, serverOnly] = mergeKey === '' ? partitionPrimitives(merged, pat) : partitionMaps(merged, pat, mergeKey);
  return normalizeElementOrder(patchItems, serverOnly, pat, orig, mergeKey, kind);
}

// Go: patch.go mergeSliceWithSpecialElements — $patch: delete / replace elements; merge is not supported.
function mergeSliceWithSpecialElements(original: unknown[], patch: unknown[], mergeKey: string): [unknown[], unknown[]] {
  const rest: unknown[] = [];
  let replace = false;
  let orig = original;
  for (const v of patch) {
    const m = v as JSONObject;
    if (!hasKey(m, DIRECTIVE)) {
      rest.push(v);
      continue;
    }
    const directive = m[DIRECTIVE];
    if (directive === DELETE) {
      if (!hasKey(m, mergeKey)) throw errNoMergeKey(m, mergeKey);
      orig = deleteMatchingEntries(orig, mergeKey, m[mergeKey]);
    } else if (directive === REPLACE) {
      replace = true;
    } else if (directive === MERGE) {
      throw unknown('merging lists cannot yet be specified in the patch');
    } else {
      throw errBadPatchType(directive, m);
    }
  }
  return replace ? [rest, []] : [orig, rest];
}

function deleteMatchingEntries(original: unknown[], mergeKey: string, value: unknown): unknown[] {
  const out = [...original];
  for (;;) {
    const [, i, found] = findMapInSlice(out, mergeKey, value);
    if (!found) return out;
    out.splice(i, 1);
  }
}

// Go: patch.go findMapInSliceBasedOnKeyValue
function findMapInSlice(list: unknown[], key: string, value: unknown): [JSONObject | undefined, number, boolean] {
  for (let i = 0; i < list.length; i++) {
    const v = list[i];
    if (!isObject(v)) throw unknown(`value for key ${i} is not a map.`);
    if (hasKey(v, key) && v[key] === value) return [v, i, true];
  }
  return [undefined, 0, false];
}

// Go: patch.go mergeSliceWithoutSpecialElements
function mergeSliceWithoutSpecialElements(original: unknown[], patch: unknown[], mergeKey: string, elem: JSONSchemaProps | undefined): unknown[] {
  const out = [...original];
  for (const v of patch) {
    const m = v as JSONObject;
    if (!hasKey(m, mergeKey)) throw errNoMergeKey(m, mergeKey);
    const [found, i, ok] = findMapInSlice(out, mergeKey, m[mergeKey]);
    if (ok) out[i] = mergeMap(found!, m, elem);
    else out.push(v);
  }
  return out;
}

// Go: patch.go deleteFromSlice
function deleteFromSlice(current: unknown[], toDelete: unknown[]): unknown[] {
  const del = new Set(toDelete);
  return current.filter((v) => !del.has(v));
}

// Go: patch.go deduplicateScalars — the in-place swap-with-last algorithm, whose output order callers observe.
function deduplicateScalars(s: unknown[]): unknown[] {
  let length = s.length - 1;
  for (let i = 0; i < length; i++) {
    for (let j = i + 1; j <= length; j++) {
      if (s[i] === s[j]) {
        s[j] = s[length];
        s.length = length;
        length--;
        j--;
      }
    }
  }
  return s;
}

// Go: patch.go partitionPrimitivesByPresentInList
function partitionPrimitives(original: unknown[], by: unknown[]): [unknown[], unknown[]] {
  const inPatch = new Set(by);
  const patch: unknown[] = [];
  const serverOnly: unknown[] = [];
  for (const v of original) (inPatch.has(v) ? patch : serverOnly).push(v);
  return [patch, serverOnly];
}

// Go: patch.go partitionMapsByPresentInList
function partitionMaps(original: unknown[], by: unknown[], mergeKey: string): [unknown[], unknown[]] {
  const patch: unknown[] = [];
  const serverOnly: unknown[] = [];
  for (const v of original) {
    if (!isObject(v)) throw errBadArgType('map[string]interface {}', v);
    if (!hasKey(v, mergeKey)) throw errNoMergeKey(v, mergeKey);
    const [, , found] = findMapInSlice(by, mergeKey, v[mergeKey]);
    (found ? patch : serverOnly).push(v);
  }
  return [patch, serverOnly];
}

// Go: patch.go extractToDeleteItems
function extractToDeleteItems(l: unknown[]): [unknown[], unknown[]] {
  const nonDelete: unknown[] = [];
  const toDelete: unknown[] = [];
  for (const v of l) {
    if (!isObject(v)) throw errBadArgType('map[string]interface {}', v);
    (hasKey(v, DIRECTIVE) && v[DIRECTIVE] === DELETE ? toDelete : nonDelete).push(v);
  }
  return [nonDelete, toDelete];
}

// Go: patch.go index
function indexIn(l: unknown[], v: unknown, mergeKey: string, kind: Kind): number {
  const get = kind === 'map' ? (x: unknown) => (isObject(x) ? x[mergeKey] : undefined) : (x: unknown) => x;
  const want = get(v);
  for (let i = 0; i < l.length; i++) if (get(l[i]) === want) return i;
  return -1;
}

// Go: patch.go normalizeElementOrder
function normalizeElementOrder(patch: unknown[], serverOnly: unknown[], patchOrder: unknown[], serverOrder: unknown[], mergeKey: string, kind: Kind): unknown[] {
  const p = normalizeSliceOrder(patch, patchOrder, mergeKey, kind);
  const s = normalizeSliceOrder(serverOnly, serverOrder, mergeKey, kind);
  return mergeSortedSlice(s, p, serverOrder, mergeKey, kind);
}

// Go: patch.go normalizeSliceOrder (sort.SliceStable with upstream's non-strict comparator, hence the exact port
// of Go's stable sort below).
function normalizeSliceOrder(toSort: unknown[], order: unknown[], mergeKey: string, kind: Kind): unknown[] {
  let items = [...toSort];
  let toDelete: unknown[] = [];
  if (kind === 'map') {
    for (const list of [items, order]) {
      for (const item of list) {
        if (!isObject(item)) throw errBadArgType('map[string]interface {}', item);
        if (!hasKey(item, mergeKey)) throw errNoMergeKey(item, mergeKey);
      }
    }
    [items, toDelete] = extractToDeleteItems(items);
  }
  goSliceStable(items, (a, b) => {
    const ia = indexIn(order, a, mergeKey, kind);
    if (ia >= 0) {
      const ib = indexIn(order, b, mergeKey, kind);
      if (ib >= 0) return ia < ib;
    }
    return true;
  });
  return [...items, ...toDelete];
}

// Go: patch.go mergeSortedSlice
function mergeSortedSlice(left: unknown[], right: unknown[], serverOrder: unknown[], mergeKey: string, kind: Kind): unknown[] {
  const out: unknown[] = [];
  let i = 0;
  let j = 0;
  const size = left.length + right.length;
  for (let k = 0; k < size; k++) {
    if (i >= left.length && j < right.length) out.push(right[j++]);
    else if (j >= right.length && i < left.length) out.push(left[i++]);
    else {
      const li = indexIn(serverOrder, left[i], mergeKey, kind);
      const ri = indexIn(serverOrder, right[j], mergeKey, kind);
      if (li >= 0 && ri >= 0 && li < ri) out.push(left[i++]);
      else out.push(right[j++]);
    }
  }
  return out;
}

// goSliceStable is Go's sort.SliceStable (insertion sort on blocks of 20, then symMerge), ported exactly because
// normalizeSliceOrder's comparator is not a strict weak order and other algorithms would order differently.
// Go: sort/zsortfunc.go stable_func, insertionSort_func, symMerge_func, rotate_func
function goSliceStable(data: unknown[], lessVals: (a: unknown, b: unknown) => boolean): void {
  const less = (i: number, j: number) => lessVals(data[i], data[j]);
  const swap = (i: number, j: number) => {
    const t = data[i];
    data[i] = data[j];
    data[j] = t;
  };
  const insertion = (a: number, b: number) => {
    for (let i = a + 1; i < b; i++) for (let j = i; j > a && less(j, j - 1); j--) swap(j, j - 1);
  };
  const swapRange = (a: number, b: number, n: number) => {
    for (let i = 0; i < n; i++) swap(a + i, b + i);
  };
  const rotate = (a: number, m: number, b: number) => {
    let i = m - a;
    let j = b - m;
    while (i !== j) {
      if (i > j) {
        swapRange(m - i, m, j);
        i -= j;
      } else {
        swapRange(m - i, m + j - i, i);
        j -= i;
      }
    }
    swapRange(m - i, m, i);
  };
  const symMerge = (a: number, m: number, b: number): void => {
    if (m - a === 1) {
      let i = m;
      let j = b;
      while (i < j) {
        const h = (i + j) >>> 1;
        if (less(h, a)) i = h + 1;
        else j = h;
      }
      for (let k = a; k < i - 1; k++) swap(k, k + 1);
      return;
    }
    if (b - m === 1) {
      let i = a;
      let j = m;
      while (i < j) {
        const h = (i + j) >>> 1;
        if (!less(m, h)) i = h + 1;
        else j = h;
      }
      for (let k = m; k > i; k--) swap(k, k - 1);
      return;
    }
    const mid = (a + b) >>> 1;
    const n = mid + m;
    let start: number;
    let r: number;
    if (m > mid) {
      start = n - b;
      r = mid;
    } else {
      start = a;
      r = m;
    }
    const p = n - 1;
    while (start < r) {
      const c = (start + r) >>> 1;
      if (!less(p - c, c)) start = c + 1;
      else r = c;
    }
    const end = n - start;
    if (start < m && m < end) rotate(start, m, end);
    if (a < start && start < mid) symMerge(a, start, mid);
    if (mid < end && end < b) symMerge(mid, end, b);
  };
  const n = data.length;
  let blockSize = 20;
  let a = 0;
  let b = blockSize;
  while (b <= n) {
    insertion(a, b);
    a = b;
    b += blockSize;
  }
  insertion(a, n);
  while (blockSize < n) {
    a = 0;
    b = 2 * blockSize;
    while (b <= n) {
      symMerge(a, a + blockSize, b);
      a = b;
      b += 2 * blockSize;
    }
    const m = a + blockSize;
    if (m < n) symMerge(a, m, n);
    blockSize *= 2;
  }
}
