// What a kube-apiserver does to a custom resource with its structural schema, as pure functions: defaulting,
// pruning of unknown fields, dropping nulls; plus schemaPaths (the flattened list of property paths and types).
// Go: k8s.io/apiextensions-apiserver pkg/apiserver/schema/defaulting/algorithm.go (Default),
//     pkg/apiserver/schema/pruning/algorithm.go (Prune), defaulting/prunenulls.go.
import { isPlainObject } from './issues.js';
import type { JsonSchema } from './schema-dsl.js';

const META_FIELDS = new Set(['apiVersion', 'kind', 'metadata']);

const deepCopy = <T>(v: T): T => (v === undefined ? v : (JSON.parse(JSON.stringify(v)) as T));

/**
 * jsonCopy deep-copies an object or array with JSON.parse(JSON.stringify(v))'s result — undefined members dropped,
 * undefined array entries and non-finite numbers as null, -0 as 0 — without serializing: strings are shared
 * (immutable), so an EventReport's large base64 blob costs nothing to copy. Values with toJSON, class instances and
 * bigint take the JSON round trip itself. The API server's clone is this copy.
 */
export function jsonCopy<T>(v: T): T {
  return copyJSON(v) as T;
}

const roundTrip = (v: unknown): unknown => JSON.parse(JSON.stringify(v)) as unknown;

function copyJSON(v: unknown): unknown {
  switch (typeof v) {
    case 'string':
    case 'boolean':
      return v;
    case 'number':
      return Number.isFinite(v) ? (v === 0 ? 0 : v) : null;
    case 'object':
      break;
    case 'undefined':
    case 'function':
    case 'symbol':
      return undefined;
    default:
      return roundTrip(v); // bigint: throws as JSON.stringify does
  }
  if (v === null) return null;
  if (Array.isArray(v)) {
    const out = new Array<unknown>(v.length);
    for (let i = 0; i < v.length; i++) {
      const c = copyJSON(v[i]);
      out[i] = c === undefined ? null : c;
    }
    return out;
  }
  const proto = Object.getPrototypeOf(v) as unknown;
  if ((proto !== Object.prototype && proto !== null) || typeof (v as { toJSON?: unknown }).toJSON === 'function') return roundTrip(v);
  const src = v as Record<string, unknown>;
  const out: Record<string, unknown> = {};
  for (const k of Object.keys(src)) {
    const c = copyJSON(src[k]);
    if (c === undefined) continue;
    // JSON.parse makes "__proto__" an own property; an assignment would set the prototype instead.
    if (k === '__proto__') Object.defineProperty(out, k, { value: c, enumerable: true, writable: true, configurable: true });
    else out[k] = c;
  }
  return out;
}

function additionalSchema(s: JsonSchema): JsonSchema | undefined {
  return typeof s.additionalProperties === 'object' ? s.additionalProperties : undefined;
}

/**
 * applyDefaults fills in schema defaults in place, exactly where the API server would: a property with a default
 * that is absent (or null and not nullable) in an object that exists. Returns the same value for chaining.
 * Go: defaulting/algorithm.go Default
 */
export function applyDefaults<T>(value: T, schema: JsonSchema | undefined): T {
  if (!schema) return value;
  if (isPlainObject(value)) {
    const o: Record<string, unknown> = value;
    for (const [k, prop] of Object.entries(schema.properties ?? {})) {
      if (prop.default === undefined) continue;
      const v = o[k];
      if (v === undefined || (v === null && !prop.nullable)) o[k] = deepCopy(prop.default);
    }
    for (const [k, v] of Object.entries(o)) {
      const prop = schema.properties?.[k];
      if (prop) applyDefaults(v, prop);
      else {
        const ap = additionalSchema(schema);
        if (ap) applyDefaults(v, ap);
      }
    }
  } else if (Array.isArray(value)) {
    for (const item of value) applyDefaults(item, schema.items);
  }
  return value;
}

/**
 * pruneUnknownFields removes, in place, every field the schema does not declare (unless a node preserves unknown
 * fields), and returns the removed paths. At the resource root (and embedded resources) apiVersion, kind and
 * metadata are kept. Go: pruning/algorithm.go Prune
 */
export function pruneUnknownFields(value: unknown, schema: JsonSchema | undefined, isResourceRoot = true): string[] {
  const pruned: string[] = [];
  prune(value, schema, isResourceRoot, '', pruned);
  return pruned.sort();
}

function prune(x: unknown, s: JsonSchema | undefined, embedded: boolean, path: string, out: string[]): void {
  if (s && s['x-kubernetes-preserve-unknown-fields']) return skipPrune(x, s, embedded, path, out);
  if (isPlainObject(x)) {
    if (!s) {
      for (const k of Object.keys(x)) {
        out.push(join(path, k));
        delete x[k];
      }
      return;
    }
    for (const [k, v] of Object.entries(x)) {
      if ((embedded || s['x-kubernetes-embedded-resource']) && META_FIELDS.has(k)) continue;
      const prop = s.properties?.[k];
      if (prop) prune(v, prop, false, join(path, k), out);
      else if (s.additionalProperties !== undefined && s.additionalProperties !== false) {
        prune(v, additionalSchema(s), false, join(path, k), out);
      } else {
        out.push(join(path, k));
        delete x[k];
      }
    }
  } else if (Array.isArray(x)) {
    x.forEach((v, i) => prune(v, s?.items, false, `${path}[${i}]`, out));
  }
}

function skipPrune(x: unknown, s: JsonSchema, embedded: boolean, path: string, out: string[]): void {
  if (isPlainObject(x)) {
    for (const [k, v] of Object.entries(x)) {
      if ((embedded || s['x-kubernetes-embedded-resource']) && META_FIELDS.has(k)) continue;
      const prop = s.properties?.[k];
      if (prop) prune(v, prop, false, join(path, k), out);
      else {
        const ap = additionalSchema(s);
        if (ap) prune(v, ap, false, join(path, k), out);
      }
    }
  } else if (Array.isArray(x)) {
    x.forEach((v, i) => skipPrune(v, s.items ?? {}, false, `${path}[${i}]`, out));
  }
}

const join = (path: string, k: string) => (path ? `${path}.${k}` : k);

/**
 * dropNulls removes, in place, null values of object fields that are neither nullable nor defaulted — what the API
 * server does before validation (so `spec: null` reads as "no spec"). Go: defaulting/prunenulls.go
 */
export function dropNulls(value: unknown, schema: JsonSchema | undefined): void {
  if (!schema) return;
  if (isPlainObject(value)) {
    for (const [k, v] of Object.entries(value)) {
      const prop = schema.properties?.[k] ?? additionalSchema(schema);
      if (v === null) {
        if (prop && !prop.nullable && prop.default === undefined) delete value[k];
        continue;
      }
      dropNulls(v, prop);
    }
  } else if (Array.isArray(value)) {
    for (const item of value) dropNulls(item, schema.items);
  }
}

/** SchemaPathInfo describes one property path of a schema, for comparing schemas field by field. */
export interface SchemaPathInfo {
  /** `object`, `array`, `string`, `integer`, `number`, `boolean`, `int-or-string`, or `any` (typeless, preserved). */
  type: string;
  required?: string[];
  enum?: unknown[];
  default?: unknown;
  format?: string;
  pattern?: string;
  minLength?: number;
  maxLength?: number;
  minimum?: number;
  maximum?: number;
  listType?: string;
  listMapKeys?: string[];
  mapType?: string;
  /** CEL rules (x-kubernetes-validations[].rule), sorted. */
  rules?: string[];
}

/**
 * schemaPaths flattens a schema into `path → info`, paths written `spec.resourceSelectors[].kind` (`[]` for array
 * items, `{}` for map values). The root is "".
 */
export function schemaPaths(schema: JsonSchema): Map<string, SchemaPathInfo> {
  const out = new Map<string, SchemaPathInfo>();
  const walk = (s: JsonSchema, path: string) => {
    const info: SchemaPathInfo = {
      type: s.type ?? (s['x-kubernetes-int-or-string'] ? 'int-or-string' : s['x-kubernetes-preserve-unknown-fields'] ? 'any' : ''),
    };
    if (s.required?.length) info.required = [...s.required].sort();
    if (s.enum) info.enum = s.enum;
    if (s.default !== undefined) info.default = s.default;
    if (s.format) info.format = s.format;
    if (s.pattern !== undefined) info.pattern = s.pattern;
    if (s.minLength !== undefined) info.minLength = s.minLength;
    if (s.maxLength !== undefined) info.maxLength = s.maxLength;
    if (s.minimum !== undefined) info.minimum = s.minimum;
    if (s.maximum !== undefined) info.maximum = s.maximum;
    if (s['x-kubernetes-list-type']) info.listType = s['x-kubernetes-list-type'];
    if (s['x-kubernetes-list-map-keys']) info.listMapKeys = s['x-kubernetes-list-map-keys'];
    if (s['x-kubernetes-map-type']) info.mapType = s['x-kubernetes-map-type'];
    if (s['x-kubernetes-validations']?.length) info.rules = s['x-kubernetes-validations'].map((r) => r.rule).sort();
    out.set(path, info);
    for (const [k, c] of Object.entries(s.properties ?? {})) walk(c, path ? `${path}.${k}` : k);
    if (s.items) walk(s.items, `${path}[]`);
    const ap = additionalSchema(s);
    if (ap) walk(ap, `${path}{}`);
  };
  walk(schema, '');
  return out;
}
