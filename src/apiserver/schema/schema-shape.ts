// cleanSchema: schemas reach this component from stored CRDs, already checked by validateCRD, but the walkers
// must never crash on a malformed node. cleanSchema returns a copy keeping only well-typed keywords (memoised by
// identity, cycle-safe); built-in kind schemas are generated and returned as they are.
import { isBuiltinSchema } from './builtin.js';
import { isObject, type JSONObject } from './json.js';
import type { JSONSchemaProps } from './types.js';

const cleaned = new WeakMap<object, JSONSchemaProps>();

const SCHEMA_LISTS = new Set(['allOf', 'anyOf', 'oneOf']);
const SCHEMA_ONE = new Set(['items', 'not']);
const NUMBERS = new Set(['minimum', 'maximum', 'multipleOf', 'minLength', 'maxLength', 'minItems', 'maxItems', 'minProperties', 'maxProperties']);
const STRINGS = new Set(['type', 'format', 'pattern', 'description', 'title', 'x-kubernetes-list-type', 'x-kubernetes-map-type', 'x-kubernetes-patch-merge-key', 'x-kubernetes-patch-strategy', '$ref']);
const BOOLEANS = new Set(['nullable', 'uniqueItems', 'exclusiveMinimum', 'exclusiveMaximum', 'x-kubernetes-preserve-unknown-fields', 'x-kubernetes-embedded-resource', 'x-kubernetes-int-or-string']);
const STRING_LISTS = new Set(['required', 'x-kubernetes-list-map-keys']);

/** cleanSchema returns a well-shaped version of s (s itself for built-in kinds). */
export function cleanSchema(s: JSONSchemaProps): JSONSchemaProps {
  if (isBuiltinSchema(s)) return s;
  return clean(s) ?? {};
}

function clean(v: unknown): JSONSchemaProps | undefined {
  if (!isObject(v)) return undefined;
  const hit = cleaned.get(v);
  if (hit) return hit;
  const out: JSONObject = {};
  cleaned.set(v, out as JSONSchemaProps);
  for (const [k, x] of Object.entries(v)) {
    if (k === 'properties') {
      if (!isObject(x)) continue;
      const props: JSONObject = {};
      for (const [name, p] of Object.entries(x)) {
        const c = clean(p);
        if (c) props[name] = c;
      }
      out.properties = props;
    } else if (k === 'additionalProperties') {
      if (typeof x === 'boolean') out[k] = x;
      else if (isObject(x)) out[k] = clean(x);
    } else if (SCHEMA_ONE.has(k)) {
      if (isObject(x)) out[k] = clean(x);
    } else if (SCHEMA_LISTS.has(k)) {
      if (Array.isArray(x)) out[k] = x.map(clean).filter((c) => c !== undefined);
    } else if (NUMBERS.has(k)) {
      if (typeof x === 'number') out[k] = x;
    } else if (STRINGS.has(k)) {
      if (typeof x === 'string') out[k] = x;
    } else if (BOOLEANS.has(k)) {
      if (typeof x === 'boolean') out[k] = x;
    } else if (STRING_LISTS.has(k)) {
      if (Array.isArray(x)) out[k] = x.filter((e) => typeof e === 'string');
    } else if (k === 'enum') {
      if (Array.isArray(x)) out[k] = x;
    } else {
      out[k] = x;
    }
  }
  return out as JSONSchemaProps;
}
