// compileSchema: validation, defaulting, pruning and unknown-field detection against a structural schema, with
// the messages and paths of kube-apiserver. Validation ports the kube-openapi validator as apiextensions uses it
// (Go: k8s.io/kube-openapi/pkg/validation/validate, apiextensions-apiserver pkg/apiserver/validation
// kubeOpenAPIResultToFieldErrors); defaulting and pruning port apiextensions-apiserver pkg/apiserver/schema
// {defaulting,pruning}; list invariants port pkg/apiserver/schema/listtype. CEL rules (x-kubernetes-validations)
// are not evaluated.
import { RE2JS } from 're2js';
import { isPlainBase64 } from '../../api/index.js';
import { objectMetaSchema } from './builtin.js';
import { cleanSchema } from './schema-shape.js';
import { cloneJSON, deepEqualJSON, formatGoNumber, goQuote, hasKey, identity, isObject, setKey, type JSONObject } from './json.js';
import type { CompiledSchema, FieldError, JSONSchemaProps } from './types.js';

const cache = new WeakMap<JSONSchemaProps, { crd?: CompiledSchema; builtin?: CompiledSchema }>();

/**
 * compileSchema prepares a schema for repeated validate/applyDefaults/prune/unknownFields calls (cached by
 * identity). A custom resource schema (the default) is a resource root: apiVersion, kind and metadata are implicit
 * and metadata follows ObjectMeta; list-type set/map invariants are checked. With isBuiltin the schema is a
 * built-in kind's full schema (builtinSchema) and is taken literally.
 */
export function compileSchema(rawSchema: JSONSchemaProps, o?: { isBuiltin?: boolean }): CompiledSchema {
  const schema = cleanSchema(rawSchema);
  const slot = cache.get(schema) ?? {};
  cache.set(schema, slot);
  const builtin = o?.isBuiltin === true;
  const existing = builtin ? slot.builtin : slot.crd;
  if (existing) return existing;
  const compiled = makeCompiled(schema, builtin);
  if (builtin) slot.builtin = compiled;
  else slot.crd = compiled;
  return compiled;
}

function makeCompiled(schema: JSONSchemaProps, builtin: boolean): CompiledSchema {
  const pruneOwned = (copy: object): { object: object; pruned: string[] } => {
    const pruned: string[] = [];
    walkUnknown(copy, schema, '', builtin ? 'plain' : 'root', pruned, true);
    return { object: copy, pruned: builtin ? pruned : pruned.sort() };
  };
  return {
    validate(obj: object, old?: object): FieldError[] {
      const errs: FieldError[] = [];
      validateNode(schema, obj, '', errs, old === undefined ? NO_OLD : { value: old });
      if (!builtin) validateWholeObject(schema, obj, errs);
      return errs;
    },
    applyDefaults(obj: object): object {
      const copy = cloneJSON(obj);
      pruneNonNullableNulls(copy, schema);
      applyDefaultsTo(copy, schema);
      return copy;
    },
    prune(obj: object): { object: object; pruned: string[] } {
      return pruneOwned(cloneJSON(obj));
    },
    defaultAndPrune(obj: object): { object: object; pruned: string[] } {
      const copy = cloneJSON(obj);
      pruneNonNullableNulls(copy, schema);
      applyDefaultsTo(copy, schema);
      return pruneOwned(copy);
    },
    // Built-ins report in document order (Go's strict JSON decoder); custom resources sorted (pruning's order).
    unknownFields(obj: object): string[] {
      const found: string[] = [];
      walkUnknown(obj, schema, '', builtin ? 'plain' : 'root', found, false);
      return builtin ? found : found.sort();
    },
  };
}

// ---------------------------------------------------------------------------------------------------------------
// Validation. Go: kube-openapi validate/schema.go SchemaValidator.Validate runs, per node, the type, schema-props
// (allOf/anyOf/oneOf/not), string, format, number, slice, common (enum) and object validators.

type Old = { value: unknown } | undefined;
const NO_OLD: Old = undefined;

const child = (path: string, key: string) => (path === '' ? key : `${path}.${key}`);
const index = (path: string, i: number) => `${path}[${i}]`;

// jsonType names a value's JSON schema type as kube-openapi's schemaInfoForType does for decoded JSON.
function jsonType(v: unknown): string {
  if (Array.isArray(v)) return 'array';
  if (isObject(v)) return 'object';
  if (typeof v === 'string') return 'string';
  if (typeof v === 'boolean') return 'boolean';
  if (typeof v === 'number') return Number.isInteger(v) ? 'integer' : 'number';
  return 'null';
}

function schemaTypes(s: JSONSchemaProps): string[] {
  if (s['x-kubernetes-int-or-string']) return ['integer', 'string'];
  return s.type ? [s.type] : [];
}

// The last large strings found to be base64: each write of an object with a collected-resources blob (an EventReport's
// status updates, its next version) usually carries the same blob, and comparing equal strings is far cheaper than
// scanning hundreds of KB again.
const validBase64 = new Set<string>();
const REMEMBER_BASE64_FROM = 4096;

function isBase64(s: string): boolean {
  if (s.length >= REMEMBER_BASE64_FROM && validBase64.has(s)) return true;
  const ok = isPlainBase64(s);
  if (ok && s.length >= REMEMBER_BASE64_FROM) {
    if (validBase64.size >= 4) validBase64.clear();
    validBase64.add(s);
  }
  return ok;
}

// Formats apiextensions keeps (StripUnsupportedFormatsPostProcess drops every other format before validating).
const FORMAT_CHECKS: Record<string, (s: string) => boolean> = {
  'date-time': isDateTime,
  datetime: isDateTime,
  date: (s) => /^\d{4}-\d{2}-\d{2}$/.test(s) && !Number.isNaN(Date.parse(`${s}T00:00:00Z`)),
  duration: (s) => /^[-+]?((\d+(\.\d*)?|\.\d+)(ns|us|µs|μs|ms|s|m|h))+$|^0$/.test(s) || /^\d+\s*(ns|us|ms|s|m|h|d|w|nanoseconds?|microseconds?|milliseconds?|seconds?|minutes?|hours?|days?|weeks?)$/i.test(s),
  byte: isBase64,
  uuid: (s) => /^[0-9a-f]{8}-?[0-9a-f]{4}-?[0-9a-f]{4}-?[0-9a-f]{4}-?[0-9a-f]{12}$/i.test(s),
  uuid3: (s) => /^[0-9a-f]{8}-?[0-9a-f]{4}-?3[0-9a-f]{3}-?[0-9a-f]{4}-?[0-9a-f]{12}$/i.test(s),
  uuid4: (s) => /^[0-9a-f]{8}-?[0-9a-f]{4}-?4[0-9a-f]{3}-?[89ab][0-9a-f]{3}-?[0-9a-f]{12}$/i.test(s),
  uuid5: (s) => /^[0-9a-f]{8}-?[0-9a-f]{4}-?5[0-9a-f]{3}-?[89ab][0-9a-f]{3}-?[0-9a-f]{12}$/i.test(s),
  ipv4: isIPv4,
  ipv6: isIPv6,
  cidr: (s) => {
    const m = /^(.+)\/(\d{1,3})$/.exec(s);
    if (!m) return false;
    const bits = Number(m[2]);
    return (isIPv4(m[1]) && bits <= 32) || (isIPv6(m[1]) && bits <= 128);
  },
  mac: (s) => /^([0-9a-f]{2}[:-]){5}[0-9a-f]{2}$|^([0-9a-f]{2}[:-]){7}[0-9a-f]{2}$|^([0-9a-f]{2}[:-]){19}[0-9a-f]{2}$|^([0-9a-f]{4}\.){2}[0-9a-f]{4}$/i.test(s),
  hostname: (s) => s.length <= 255 && /^[a-zA-Z0-9]([-a-zA-Z0-9]{0,61}[a-zA-Z0-9])?(\.[a-zA-Z0-9]([-a-zA-Z0-9]{0,61}[a-zA-Z0-9])?)*\.?$/.test(s),
  email: (s) => /^[^\s@<>]+@[^\s@<>]+$/.test(s),
  uri: (s) => /^[a-zA-Z][a-zA-Z0-9+.-]*:\S*$|^\/\S*$/.test(s),
  bsonobjectid: (s) => /^[0-9a-f]{24}$/i.test(s),
  hexcolor: (s) => /^#?([0-9a-f]{3}|[0-9a-f]{6})$/i.test(s),
  rgbcolor: (s) => /^rgb\(\s*\d{1,3}\s*,\s*\d{1,3}\s*,\s*\d{1,3}\s*\)$/.test(s),
  password: () => true,
};

function isDateTime(s: string): boolean {
  const m = /^(\d{4})-(\d{2})-(\d{2})[Tt ](\d{2}):(\d{2}):(\d{2})(\.\d+)?([Zz]|[+-]\d{2}:?\d{2})?$/.exec(s);
  if (!m) return false;
  const [mo, d, h, mi, se] = [m[2], m[3], m[4], m[5], m[6]].map(Number);
  return mo >= 1 && mo <= 12 && d >= 1 && d <= 31 && h <= 23 && mi <= 59 && se <= 60;
}

function isIPv4(s: string): boolean {
  const parts = s.split('.');
  return parts.length === 4 && parts.every((p) => /^\d{1,3}$/.test(p) && Number(p) <= 255);
}

function isIPv6(s: string): boolean {
  if (!/^[0-9a-fA-F:.]+$/.test(s) || !s.includes(':')) return false;
  let body = s;
  let groups = 8;
  const lastColon = s.lastIndexOf(':');
  if (s.slice(lastColon + 1).includes('.')) {
    if (!isIPv4(s.slice(lastColon + 1))) return false;
    body = s.slice(0, lastColon + 1) + '0';
    groups = 7;
  }
  const halves = body.split('::');
  if (halves.length > 2) return false;
  const count = (h: string) => (h === '' ? 0 : h.split(':').length);
  const ok = (h: string) => h === '' || h.split(':').every((g) => /^[0-9a-fA-F]{1,4}$/.test(g));
  if (!halves.every(ok)) return false;
  return halves.length === 2 ? count(halves[0]) + count(halves[1]) < groups : count(halves[0]) === groups;
}

function typeError(path: string, types: string[], actual: string, badValue: unknown, errs: FieldError[]): void {
  errs.push({
    type: 'FieldValueTypeInvalid',
    field: path,
    badValue,
    detail: `${path} in body must be of type ${types.join(',')}: ${goQuote(actual)}`,
  });
}

function invalid(path: string, badValue: unknown, detail: string, errs: FieldError[]): void {
  errs.push({ type: 'FieldValueInvalid', field: path, badValue, detail });
}

// correlate finds the old value at the same place (objects by key, list-type map items by their keys): unchanged
// values are not revalidated (CRD validation ratcheting, on by default since 1.30).
function correlateItem(s: JSONSchemaProps, old: Old, item: unknown, i: number): Old {
  if (!old || !Array.isArray(old.value)) return undefined;
  const keys = s['x-kubernetes-list-map-keys'];
  if (s['x-kubernetes-list-type'] === 'map' && keys && isObject(item)) {
    const match = old.value.find((o) => isObject(o) && keys.every((k) => deepEqualJSON(o[k], item[k])));
    return match === undefined ? undefined : { value: match };
  }
  if (s['x-kubernetes-list-type'] === 'set') {
    return old.value.some((o) => deepEqualJSON(o, item)) ? { value: item } : undefined;
  }
  void i;
  return undefined;
}

function validateNode(s: JSONSchemaProps, v: unknown, path: string, errs: FieldError[], old: Old): void {
  if (old && deepEqualJSON(old.value, v)) return;
  const types = schemaTypes(s);
  // Go: type.go typeValidator.Validate
  if (v === null || v === undefined) {
    if (types.length > 0 && !s.nullable) typeError(path, types, 'null', 'null', errs);
    validateEnum(s, v, path, errs);
    return;
  }
  const actual = jsonType(v);
  if (types.length > 0) {
    const ok = types.includes(actual) || (actual === 'integer' && types.includes('number'));
    if (!ok) {
      typeError(path, types, actual, actual, errs);
      return;
    }
  }
  // Go: schema_props.go (allOf/anyOf/oneOf/not): value validations only, in structural schemas.
  validateSchemaProps(s, v, path, errs);
  if (typeof v === 'string') validateString(s, v, path, errs);
  if (typeof v === 'number') validateNumber(s, v, path, errs);
  if (Array.isArray(v)) validateSlice(s, v, path, errs, old);
  validateEnum(s, v, path, errs);
  if (isObject(v)) validateObject(s, v, path, errs, old);
}

function validateSchemaProps(s: JSONSchemaProps, v: unknown, path: string, errs: FieldError[]): void {
  if (s.allOf) for (const sub of s.allOf) validateNode(sub, v, path, errs, NO_OLD);
  if (s.anyOf && s.anyOf.length > 0) {
    const results = s.anyOf.map((sub) => {
      const e: FieldError[] = [];
      validateNode(sub, v, path, e, NO_OLD);
      return e;
    });
    if (!results.some((r) => r.length === 0)) {
      invalid(path, '', `${path} in body must validate at least one schema (anyOf)`, errs);
      errs.push(...results[0]);
    }
  }
  if (s.oneOf && s.oneOf.length > 0) {
    const valid = s.oneOf.filter((sub) => {
      const e: FieldError[] = [];
      validateNode(sub, v, path, e, NO_OLD);
      return e.length === 0;
    }).length;
    if (valid !== 1) invalid(path, '', `${path} in body must validate one and only one schema (oneOf)`, errs);
  }
  if (s.not) {
    const e: FieldError[] = [];
    validateNode(s.not, v, path, e, NO_OLD);
    if (e.length === 0) invalid(path, '', `${path} in body should not validate the schema (not)`, errs);
  }
}

// Go: validator.go stringValidator (first failure only) and formatValidator.
function validateString(s: JSONSchemaProps, v: string, path: string, errs: FieldError[]): void {
  if (s.maxLength !== undefined && runeCountAbove(v, s.maxLength)) {
    errs.push({ type: 'FieldValueTooLong', field: path, badValue: v, detail: `may not be longer than ${s.maxLength}` });
  } else if (s.minLength !== undefined && !runeCountAbove(v, s.minLength - 1)) {
    invalid(path, v, `${path} in body should be at least ${s.minLength} chars long`, errs);
  } else if (s.pattern !== undefined && !matchPattern(s.pattern, v)) {
    invalid(path, v, `${path} in body should match '${s.pattern}'`, errs);
  }
  const check = s.format ? FORMAT_CHECKS[s.format] : undefined;
  if (check && !check(v)) {
    errs.push({ type: 'FieldValueTypeInvalid', field: path, badValue: v, detail: `${path} in body must be of type ${s.format}: ${goQuote(v)}` });
  }
}

/**
 * runeCountAbove says whether v has more than n characters counted as Go counts runes ([...v].length: a surrogate
 * pair is one), without building an array of them: most strings have no length limit, but a limited one may be a
 * large blob, and most answers follow from v.length (UTF-16 units ≥ code points ≥ half of them).
 */
function runeCountAbove(v: string, n: number): boolean {
  if (v.length <= n) return false;
  if (v.length > 2 * n + 1) return true;
  let count = 0;
  for (let i = 0; i < v.length; i++) {
    const c = v.charCodeAt(i);
    if (c >= 0xd800 && c <= 0xdbff && i + 1 < v.length) {
      const d = v.charCodeAt(i + 1);
      if (d >= 0xdc00 && d <= 0xdfff) i++;
    }
    if (++count > n) return true;
  }
  return false;
}

// Patterns are Go regexps run by RE2 (kube-openapi: regexp.MatchString), in time linear in the value: a pattern such
// as ^(a+)+$ cannot stall the server as a backtracking engine would. The cache is bounded (CRDs come and go).
const patternCache = new Map<string, RE2JS | null>();
function matchPattern(pattern: string, v: string): boolean {
  let re = patternCache.get(pattern);
  if (re === undefined) {
    try {
      re = RE2JS.compile(pattern);
    } catch {
      re = null;
    }
    if (patternCache.size >= 1024) patternCache.delete(patternCache.keys().next().value!);
    patternCache.set(pattern, re);
  }
  return re === null ? true : re.test(v);
}

// Go: validator.go numberValidator (multipleOf, maximum, minimum; all reported).
function validateNumber(s: JSONSchemaProps, v: number, path: string, errs: FieldError[]): void {
  if (s.multipleOf !== undefined && s.multipleOf > 0) {
    const q = v / s.multipleOf;
    if (Math.abs(q - Math.round(q)) > 1e-9) invalid(path, v, `${path} in body should be a multiple of ${formatGoNumber(s.multipleOf)}`, errs);
  }
  if (s.maximum !== undefined && (s.exclusiveMaximum ? v >= s.maximum : v > s.maximum)) {
    const rel = s.exclusiveMaximum ? 'less than' : 'less than or equal to';
    invalid(path, v, `${path} in body should be ${rel} ${formatGoNumber(s.maximum)}`, errs);
  }
  if (s.minimum !== undefined && (s.exclusiveMinimum ? v <= s.minimum : v < s.minimum)) {
    const rel = s.exclusiveMinimum ? 'greater than' : 'greater than or equal to';
    invalid(path, v, `${path} in body should be ${rel} ${formatGoNumber(s.minimum)}`, errs);
  }
}

// Go: slice_validator.go — items, then minItems, maxItems, uniqueItems.
function validateSlice(s: JSONSchemaProps, v: unknown[], path: string, errs: FieldError[], old: Old): void {
  if (s.items) for (let i = 0; i < v.length; i++) validateNode(s.items, v[i], index(path, i), errs, correlateItem(s, old, v[i], i));
  if (s.minItems !== undefined && v.length < s.minItems) invalid(path, v.length, `${path} in body should have at least ${s.minItems} items`, errs);
  if (s.maxItems !== undefined && v.length > s.maxItems) {
    errs.push({ type: 'FieldValueTooMany', field: path, badValue: v.length, detail: `must have at most ${s.maxItems} items` });
  }
  if (s.uniqueItems) {
    const dup = v.some((x, i) => v.slice(0, i).some((y) => deepEqualJSON(x, y)));
    if (dup) invalid(path, '', `${path} in body shouldn't contain duplicates`, errs);
  }
}

// Go: validator.go basicCommonValidator (enum), converted to field.NotSupported.
function validateEnum(s: JSONSchemaProps, v: unknown, path: string, errs: FieldError[]): void {
  if (!s.enum || s.enum.length === 0) return;
  if (s.enum.some((e) => deepEqualJSON(e, v ?? null))) return;
  const values = s.enum.map((e) => (typeof e === 'string' ? e : JSON.stringify(e)));
  errs.push({
    type: 'FieldValueNotSupported',
    field: path,
    badValue: v ?? null,
    detail: `supported values: ${values.map(goQuote).join(', ')}`,
  });
}

// Go: object_validator.go — min/maxProperties, additionalProperties, properties, required.
function validateObject(s: JSONSchemaProps, v: JSONObject, path: string, errs: FieldError[], old: Old): void {
  const n = Object.keys(v).length;
  if (s.minProperties !== undefined && n < s.minProperties) invalid(path, n, `${path} in body should have at least ${s.minProperties} properties`, errs);
  if (s.maxProperties !== undefined && n > s.maxProperties) {
    errs.push({ type: 'FieldValueTooMany', field: path, badValue: n, detail: `must have at most ${s.maxProperties} items` });
  }
  const oldObj = old && isObject(old.value) ? old.value : undefined;
  const oldAt = (k: string): Old => (oldObj && hasKey(oldObj, k) ? { value: oldObj[k] } : undefined);
  const props = s.properties ?? {};
  if (s.additionalProperties === false) {
    for (const k of Object.keys(v)) {
      if (!hasKey(props, k)) invalid(child(path, k), '', `${path}.${k} in body is a forbidden property`, errs);
    }
  } else if (isObject(s.additionalProperties)) {
    const ap = s.additionalProperties as JSONSchemaProps;
    for (const k of Object.keys(v)) if (!hasKey(props, k)) validateNode(ap, v[k], child(path, k), errs, oldAt(k));
  }
  for (const k of Object.keys(props).sort()) if (hasKey(v, k)) validateNode(props[k], v[k], child(path, k), errs, oldAt(k));
  for (const k of s.required ?? []) if (!hasKey(v, k)) errs.push({ type: 'FieldValueRequired', field: child(path, k), detail: '', badValue: '' });
}

// The checks validateNode leaves out (list invariants, embedded resources) walk the whole object. A status write of
// an EventReport carrying a hundred resources would walk its unchanged spec again on every write, so the members of
// an object found free of these errors are remembered per schema node: a member that is the very same value next time
// (the registry keeps the stored version's values in an object a status write makes) is not walked again. Both checks
// are pure functions of the value and the schema node, and a changed CRD compiles new schema nodes. Values written
// into the store are never changed in place, and nothing changes a custom resource's members after its validation
// but metadata, which is always walked. The memo names the schema node by its identity (see json.ts): a member
// checked under another schema node since (another CRD version) is walked again.
const cleanMembers = new WeakMap<object, number>();

/** VALIDATION_STATS counts members whose whole-object checks were skipped as already clean (diagnostics, tests). */
export const VALIDATION_STATS = { cleanMembersSkipped: 0 };

function validateWholeObject(schema: JSONSchemaProps, obj: object, errs: FieldError[]): void {
  if (!isObject(obj)) {
    validateListInvariants(schema, obj, '', errs);
    validateEmbedded(schema, obj, '', errs, true);
    return;
  }
  // Members to walk, with their schema; list invariants of all of them come first, then embedded resources.
  const props = schema.properties ?? {};
  const walk: { k: string; v: unknown; sub: JSONSchemaProps; memo: boolean; clean: boolean }[] = [];
  for (const k of Object.keys(obj)) {
    const sub = hasKey(props, k) ? props[k] : isObject(schema.additionalProperties) ? (schema.additionalProperties as JSONSchemaProps) : undefined;
    if (!sub) continue;
    const v = obj[k];
    const memo = k !== 'metadata' && v !== null && typeof v === 'object';
    if (memo && cleanMembers.get(v as object) === identity(sub)) {
      VALIDATION_STATS.cleanMembersSkipped++;
      continue;
    }
    walk.push({ k, v, sub, memo, clean: true });
  }
  for (const m of walk) {
    const before = errs.length;
    validateListInvariants(m.sub, m.v, m.k, errs);
    if (errs.length > before) m.clean = false;
  }
  for (const m of walk) {
    const before = errs.length;
    validateEmbedded(m.sub, m.v, m.k, errs, false);
    if (errs.length > before) m.clean = false;
    if (m.memo && m.clean) cleanMembers.set(m.v as object, identity(m.sub));
  }
}

// Go: apiextensions pkg/apiserver/schema/listtype/validation.go ValidateListSetsAndMaps.
function validateListInvariants(s: JSONSchemaProps, v: unknown, path: string, errs: FieldError[]): void {
  if (Array.isArray(v)) {
    const lt = s['x-kubernetes-list-type'];
    if (lt === 'set') {
      v.forEach((x, i) => {
        if (v.slice(0, i).some((y) => deepEqualJSON(x, y))) errs.push({ type: 'FieldValueDuplicate', field: index(path, i), badValue: x, detail: '' });
      });
    } else if (lt === 'map') {
      const bad = v.findIndex((x) => x !== null && !isObject(x));
      if (bad >= 0) {
        invalid(index(path, bad), v[bad], 'must be an object for an array of list-type map', errs);
      } else {
        const keys = s['x-kubernetes-list-map-keys'] ?? [];
        if (keys.length > 0) {
          const seen: JSONObject[] = [];
          v.forEach((x, i) => {
            if (!isObject(x)) return;
            const key: JSONObject = {};
            for (const k of keys) {
              const def = s.items?.properties?.[k]?.default;
              if (hasKey(x, k)) key[k] = x[k];
              else if (def !== undefined) key[k] = def;
            }
            if (seen.some((y) => deepEqualJSON(y, key))) errs.push({ type: 'FieldValueDuplicate', field: index(path, i), badValue: key, detail: '' });
            else seen.push(key);
          });
        }
      }
    }
    if (s.items) v.forEach((x, i) => validateListInvariants(s.items!, x, index(path, i), errs));
  } else if (isObject(v)) {
    const props = s.properties ?? {};
    for (const k of Object.keys(v)) {
      const sub = hasKey(props, k) ? props[k] : isObject(s.additionalProperties) ? (s.additionalProperties as JSONSchemaProps) : undefined;
      if (sub) validateListInvariants(sub, v[k], child(path, k), errs);
    }
  }
}

// Go: apiextensions pkg/apiserver/schema/objectmeta/validation.go — embedded resources need apiVersion and kind.
function validateEmbedded(s: JSONSchemaProps, v: unknown, path: string, errs: FieldError[], isRoot: boolean): void {
  if (isObject(v)) {
    if (s['x-kubernetes-embedded-resource'] && !isRoot) {
      if (typeof v.apiVersion !== 'string' || v.apiVersion === '') errs.push({ type: 'FieldValueRequired', field: child(path, 'apiVersion'), detail: 'must not be empty', badValue: '' });
      if (typeof v.kind !== 'string' || v.kind === '') errs.push({ type: 'FieldValueRequired', field: child(path, 'kind'), detail: 'must not be empty', badValue: '' });
    }
    const props = s.properties ?? {};
    for (const k of Object.keys(v)) {
      const sub = hasKey(props, k) ? props[k] : isObject(s.additionalProperties) ? (s.additionalProperties as JSONSchemaProps) : undefined;
      if (sub) validateEmbedded(sub, v[k], child(path, k), errs, false);
    }
  } else if (Array.isArray(v) && s.items) {
    v.forEach((x, i) => validateEmbedded(s.items!, x, index(path, i), errs, false));
  }
}

// ---------------------------------------------------------------------------------------------------------------
// Defaulting. Go: apiextensions pkg/apiserver/schema/defaulting/algorithm.go Default and prunenulls.go.

function propertySchema(s: JSONSchemaProps, k: string): JSONSchemaProps | undefined {
  if (s.properties && hasKey(s.properties, k)) return s.properties[k];
  if (isObject(s.additionalProperties)) return s.additionalProperties as JSONSchemaProps;
  return undefined;
}

const isNonNullableNull = (v: unknown, s: JSONSchemaProps | undefined) => v === null && s !== undefined && !s.nullable;

function pruneNonNullableNulls(v: unknown, s: JSONSchemaProps): void {
  if (isObject(v)) {
    for (const k of Object.keys(v)) {
      const sub = propertySchema(s, k);
      if (sub === undefined) continue;
      if (isNonNullableNull(v[k], sub) && sub.default === undefined) delete v[k];
      else pruneNonNullableNulls(v[k], sub);
    }
  } else if (Array.isArray(v) && s.items) {
    for (const x of v) pruneNonNullableNulls(x, s.items);
  }
}

function applyDefaultsTo(v: unknown, s: JSONSchemaProps): void {
  if (isObject(v)) {
    for (const [k, prop] of Object.entries(s.properties ?? {})) {
      if (prop.default === undefined) continue;
      if (!hasKey(v, k) || isNonNullableNull(v[k], prop)) setKey(v, k, cloneJSON(prop.default));
    }
    for (const k of Object.keys(v)) {
      const sub = propertySchema(s, k);
      if (!sub) continue;
      if (isNonNullableNull(v[k], sub) && sub.default !== undefined) setKey(v, k, cloneJSON(sub.default));
      applyDefaultsTo(v[k], sub);
    }
  } else if (Array.isArray(v) && s.items) {
    const items = s.items;
    for (let i = 0; i < v.length; i++) {
      if (isNonNullableNull(v[i], items) && items.default !== undefined) v[i] = cloneJSON(items.default);
      applyDefaultsTo(v[i], items);
    }
  }
}

// ---------------------------------------------------------------------------------------------------------------
// Pruning and unknown fields. Go: apiextensions pkg/apiserver/schema/pruning/algorithm.go prune/skipPrune.
// Roots and embedded resources keep apiVersion/kind untouched; their metadata follows ObjectMeta (kube drops and
// reports unknown metadata keys while coercing ObjectMeta: pkg/apiserver/schema/objectmeta/coerce.go).

/** Mode says how apiVersion/kind/metadata are treated: custom resource root, embedded resource, or plain object. */
type Mode = 'root' | 'embedded' | 'plain';

const META_FIELDS = new Set(['apiVersion', 'kind', 'metadata']);

function walkUnknown(v: unknown, s: JSONSchemaProps | undefined, path: string, mode: Mode, out: string[], prune: boolean): void {
  if (s?.['x-kubernetes-preserve-unknown-fields'] === true) {
    skipPrune(v, s, path, mode, out, prune);
    return;
  }
  if (isObject(v)) {
    for (const k of Object.keys(v)) {
      const p = child(path, k);
      if (mode !== 'plain' && META_FIELDS.has(k)) {
        metaField(v, k, p, out, prune);
        continue;
      }
      const sub = s === undefined ? undefined : propertySchema(s, k);
      if (sub !== undefined) walkUnknown(v[k], sub, p, embeddedMode(sub), out, prune);
      else if (s !== undefined && s.additionalProperties === true) continue;
      else {
        out.push(p);
        if (prune) delete v[k];
      }
    }
  } else if (Array.isArray(v)) {
    const items = s?.items;
    v.forEach((x, i) => walkUnknown(x, items, index(path, i), items ? embeddedMode(items) : 'plain', out, prune));
  }
}

// skipPrune: inside x-kubernetes-preserve-unknown-fields unknown keys stay, known ones are still pruned below.
function skipPrune(v: unknown, s: JSONSchemaProps, path: string, mode: Mode, out: string[], prune: boolean): void {
  if (isObject(v)) {
    for (const k of Object.keys(v)) {
      const p = child(path, k);
      if (mode !== 'plain' && META_FIELDS.has(k)) {
        metaField(v, k, p, out, prune);
        continue;
      }
      const sub = propertySchema(s, k);
      if (sub !== undefined) walkUnknown(v[k], sub, p, embeddedMode(sub), out, prune);
    }
  } else if (Array.isArray(v) && s.items) {
    const items = s.items;
    v.forEach((x, i) => skipPrune(x, items, index(path, i), embeddedMode(items), out, prune));
  }
}

function metaField(v: JSONObject, k: string, p: string, out: string[], prune: boolean): void {
  if (k === 'metadata') walkUnknown(v[k], objectMetaSchema(), p, 'plain', out, prune);
}

const embeddedMode = (s: JSONSchemaProps): Mode => (s['x-kubernetes-embedded-resource'] ? 'embedded' : 'plain');

/** validateValue runs only the kube-openapi value validation of one schema node (used for CRD default checks). */
export function validateValue(schema: JSONSchemaProps, value: unknown): FieldError[] {
  const errs: FieldError[] = [];
  validateNode(cleanSchema(schema), value, '', errs, NO_OLD);
  return errs;
}

/** unknownPaths lists what pruning would drop from value under schema (embedded: value is an embedded resource). */
export function unknownPaths(schema: JSONSchemaProps, value: unknown, embedded: boolean): string[] {
  const out: string[] = [];
  walkUnknown(value, cleanSchema(schema), '', embedded ? 'embedded' : 'plain', out, false);
  return out;
}
