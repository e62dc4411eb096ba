// JSON patch (RFC 6902) as kube-apiserver applies it. Go: gopkg.in/evanphx/json-patch.v4 patch.go, and
// k8s.io/apiserver/pkg/endpoints/handlers/patch.go applyJSPatch for how failures become Status errors.
import { GENERIC_INVALID, PatchError } from './errors.js';
import { cloneJSON, deepEqualJSON, hasKey, isObject, jsonTypeName, setKey, type JSONObject } from './json.js';

/** MAX_JSON_PATCH_OPERATIONS is kube-apiserver's limit on operations in one JSON patch. */
export const MAX_JSON_PATCH_OPERATIONS = 10000;

type Container = JSONObject | unknown[];

/**
 * applyJsonPatch applies an RFC 6902 operation list to a copy of target. A patch that does not decode as an
 * operation list is a BadRequest; an operation that cannot be applied is the apiserver's generic 422 (the
 * json-patch message is kept in PatchError.detail). `null` is an empty patch, as in Go.
 */
export function applyJsonPatch(target: object, ops: unknown): object {
  if (ops === null || ops === undefined) return cloneJSON(target);
  if (!Array.isArray(ops)) {
    throw new PatchError('BadRequest', `json: cannot unmarshal ${jsonTypeName(ops)} into Go value of type jsonpatch.Patch`);
  }
  for (const op of ops) {
    if (op !== null && !isObject(op)) {
      throw new PatchError('BadRequest', `json: cannot unmarshal ${jsonTypeName(op)} into Go value of type jsonpatch.Operation`);
    }
  }
  if (ops.length > MAX_JSON_PATCH_OPERATIONS) {
    throw new PatchError(
      'RequestEntityTooLarge',
      `Request entity too large: The allowed maximum operations in a JSON patch is ${MAX_JSON_PATCH_OPERATIONS}, got ${ops.length}`,
    );
  }
  const doc = { root: cloneJSON(target) as unknown };
  for (const op of ops as (JSONObject | null)[]) {
    const problem = applyOne(doc, op ?? {});
    if (problem !== undefined) throw new PatchError('Invalid', GENERIC_INVALID, { detail: problem });
  }
  return doc.root as object;
}

// applyOne applies one operation to doc.root and returns the json-patch error text, if any. Go: patch.go ApplyIndent
function applyOne(doc: { root: unknown }, op: JSONObject): string | undefined {
  const kind = typeof op.op === 'string' ? op.op : 'unknown';
  const value = hasKey(op, 'value') ? op.value : null;
  switch (kind) {
    case 'add': {
      const path = stringField(op, 'path');
      if (path === undefined) return 'add operation failed to decode path: operation missing path field';
      return add(doc, path, cloneJSON(value), 'add');
    }
    case 'remove': {
      const path = stringField(op, 'path');
      if (path === undefined) return 'remove operation failed to decode path: operation missing path field';
      const r = remove(doc, path);
      return typeof r === 'string' ? r : undefined;
    }
    case 'replace': {
      const path = stringField(op, 'path');
      if (path === undefined) return 'replace operation failed to decode path: operation missing path field';
      const found = locate(doc, path);
      if (found === undefined) return `replace operation does not apply: doc is missing path: ${path}: missing value`;
      if (found.container === undefined) {
        doc.root = cloneJSON(value);
        return undefined;
      }
      if (Array.isArray(found.container)) {
        const i = arrayIndex(found.key, found.container.length, false);
        if (i === undefined) return `replace operation does not apply: doc is missing key: ${path}: missing value`;
        found.container[i] = cloneJSON(value);
      } else {
        if (!hasKey(found.container, found.key)) {
          return `replace operation does not apply: doc is missing key: ${path}: missing value`;
        }
        setKey(found.container, found.key, cloneJSON(value));
      }
      return undefined;
    }
    case 'move': {
      const from = stringField(op, 'from');
      const path = stringField(op, 'path');
      if (from === undefined) return 'move operation failed to decode from: operation missing from field';
      if (path === undefined) return 'move operation failed to decode path: operation missing path field';
      const removed = remove(doc, from);
      if (typeof removed === 'string') return `move operation does not apply: doc is missing from path: ${from}: missing value`;
      return add(doc, path, removed.value, 'move');
    }
    case 'copy': {
      const from = stringField(op, 'from');
      const path = stringField(op, 'path');
      if (from === undefined) return 'copy operation failed to decode from: operation missing from field';
      if (path === undefined) return 'copy operation failed to decode path: operation missing path field';
      const got = get(doc, from);
      if (got === undefined) return `copy operation does not apply: doc is missing from path: ${from}: missing value`;
      return add(doc, path, cloneJSON(got.value), 'copy');
    }
    case 'test': {
      const path = stringField(op, 'path');
      if (path === undefined) return 'test operation failed to decode path: operation missing path field';
      const got = get(doc, path);
      const actual = got === undefined ? null : got.value;
      if (actual === null && value === null) return undefined;
      if (got === undefined && value !== null) return `testing value ${path} failed: test failed`;
      return deepEqualJSON(actual, value) ? undefined : `testing value ${path} failed: test failed`;
    }
    default:
      return `Unexpected kind: ${kind}`;
  }
}

function stringField(op: JSONObject, name: string): string | undefined {
  return typeof op[name] === 'string' ? (op[name] as string) : undefined;
}

// decodeKey turns one JSON pointer segment into a member name (RFC 6901: ~1 is "/", ~0 is "~").
function decodeKey(segment: string): string {
  return segment.replace(/~1/g, '/').replace(/~0/g, '~');
}

// arrayIndex parses an array index; json-patch v4 accepts negative indices counting from the end.
function arrayIndex(key: string, length: number, forInsert: boolean): number | undefined {
  if (!/^-?\d+$/.test(key)) return undefined;
  let i = Number(key);
  if (i < 0) {
    if (i < -length) return undefined;
    i += length;
  }
  if (forInsert ? i > length : i >= length) return undefined;
  return i;
}

// locate finds the container of the last pointer segment; container undefined means the whole document ("").
function locate(doc: { root: unknown }, path: string): { container: Container | undefined; key: string } | undefined {
  if (path === '') return { container: undefined, key: '' };
  if (!path.startsWith('/')) return undefined;
  const parts = path.slice(1).split('/').map(decodeKey);
  let cur: unknown = doc.root;
  for (const part of parts.slice(0, -1)) {
    if (Array.isArray(cur)) {
      const i = arrayIndex(part, cur.length, false);
      if (i === undefined) return undefined;
      cur = cur[i];
    } else if (isObject(cur)) {
      if (!hasKey(cur, part)) return undefined;
      cur = cur[part];
    } else {
      return undefined;
    }
  }
  if (!Array.isArray(cur) && !isObject(cur)) return undefined;
  return { container: cur, key: parts[parts.length - 1] };
}

function get(doc: { root: unknown }, path: string): { value: unknown } | undefined {
  const found = locate(doc, path);
  if (found === undefined) return undefined;
  const c = found.container;
  if (c === undefined) return { value: doc.root };
  if (Array.isArray(c)) {
    const i = arrayIndex(found.key, c.length, false);
    return i === undefined ? undefined : { value: c[i] };
  }
  return hasKey(c, found.key) ? { value: c[found.key] } : undefined;
}

function add(doc: { root: unknown }, path: string, value: unknown, verb: string): string | undefined {
  const found = locate(doc, path);
  if (found === undefined) return `${verb} operation does not apply: doc is missing path: "${path}": missing value`;
  const c = found.container;
  if (c === undefined) {
    doc.root = value;
    return undefined;
  }
  if (Array.isArray(c)) {
    if (found.key === '-') {
      c.push(value);
      return undefined;
    }
    const i = arrayIndex(found.key, c.length, true);
    if (i === undefined) return `Unable to access invalid index: ${found.key}: invalid index referenced`;
    c.splice(i, 0, value);
    return undefined;
  }
  setKey(c, found.key, value);
  return undefined;
}

function remove(doc: { root: unknown }, path: string): { value: unknown } | string {
  const found = locate(doc, path);
  if (found === undefined || found.container === undefined) {
    return `remove operation does not apply: doc is missing path: "${path}": missing value`;
  }
  const c = found.container;
  if (Array.isArray(c)) {
    const i = arrayIndex(found.key, c.length, false);
    if (i === undefined) return `Unable to access invalid index: ${found.key}: invalid index referenced`;
    return { value: c.splice(i, 1)[0] };
  }
  if (!hasKey(c, found.key)) return `Unable to remove nonexistent key: ${found.key}: missing value`;
  const value = c[found.key];
  delete c[found.key];
  return { value };
}
