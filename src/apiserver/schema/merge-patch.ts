// JSON merge patch (RFC 7396) as kube-apiserver applies it. Go: gopkg.in/evanphx/json-patch.v4 merge.go MergePatch
import { PatchError, invalidPatchResult } from './errors.js';
import { cloneJSON, hasKey, isObject, setKey, type JSONObject } from './json.js';

/** applyMergePatch applies an RFC 7396 merge patch to a copy of target (inputs are never mutated). */
export function applyMergePatch(target: object, patch: unknown): object {
  if (patch === null || patch === undefined) throw new PatchError('BadRequest', 'Invalid JSON Patch');
  if (Array.isArray(patch)) {
    // json-patch returns a non-object patch as the result; the apiserver then fails to decode it as an object.
    const result = JSON.stringify(patch.map(pruneNulls));
    throw invalidPatchResult(
      result,
      `couldn't get version/kind; json parse error: json: cannot unmarshal array into Go value of type struct { APIVersion string "json:\\"apiVersion,omitempty\\""; Kind string "json:\\"kind,omitempty\\"" }`,
    );
  }
  if (!isObject(patch)) throw new PatchError('BadRequest', 'Invalid JSON Patch');
  const doc = cloneJSON(target) as JSONObject;
  mergeDocs(doc, patch);
  return doc;
}

// Go: merge.go mergeDocs — null deletes, objects merge recursively, anything else replaces (with nulls pruned).
function mergeDocs(doc: JSONObject, patch: JSONObject): void {
  for (const k of Object.keys(patch)) {
    const v = patch[k];
    if (v === null) {
      delete doc[k];
      continue;
    }
    const cur = hasKey(doc, k) ? doc[k] : undefined;
    if (cur === undefined || cur === null) {
      setKey(doc, k, pruneNulls(v));
    } else if (isObject(cur) && isObject(v)) {
      mergeDocs(cur, v);
    } else if (isObject(cur)) {
      // Go: merge() returns a non-object patch value as is, without pruning nulls.
      setKey(doc, k, cloneJSON(v));
    } else {
      setKey(doc, k, pruneNulls(v));
    }
  }
}

// Go: merge.go pruneNulls — drops null members of objects (recursively, also inside arrays); array elements stay.
function pruneNulls(v: unknown): unknown {
  if (Array.isArray(v)) return v.map((e) => (e === null ? null : pruneNulls(e)));
  if (isObject(v)) {
    const out: JSONObject = {};
    for (const k of Object.keys(v)) if (v[k] !== null) setKey(out, k, pruneNulls(v[k]));
    return out;
  }
  return v;
}
