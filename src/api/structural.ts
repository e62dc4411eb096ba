// checkCrd: the rules a kube-apiserver (1.32) applies before it accepts a CustomResourceDefinition, as a pure
// function — CRD names and versions, printer columns, and the structural-schema rules (types everywhere,
// properties vs additionalProperties, metadata restrictions, x-kubernetes-* combinations, list-map keys, defaults
// valid and pruning-clean). Used by Ripple's tests on its own CRDs and by the embedded API server on user CRDs.
// Go: k8s.io/apiextensions-apiserver pkg/apis/apiextensions/validation/validation.go,
//     pkg/apiserver/schema/validation.go (ValidateStructural), pkg/apiserver/schema/defaulting/validation.go.
import { RE2JS } from 're2js';
import { childPath, indexPath, isPlainObject, jsonTypeOf, quoteValue, type Issue } from './issues.js';
import { isDNS1035Label, isDNS1123Subdomain } from './name-validation.js';
import { pruneUnknownFields } from './schema-ops.js';
import type { JsonSchema } from './schema-dsl.js';
import { validateAgainstSchema } from './schema-validate.js';

const OPENAPI_TYPES = new Set(['string', 'number', 'integer', 'boolean', 'array', 'object']);
const PRINTER_TYPES = new Set(['integer', 'number', 'string', 'boolean', 'date']);
const PRINTER_FORMATS = new Set(['int32', 'int64', 'float', 'double', 'byte', 'date', 'date-time', 'password']);
// Go: allowedFieldsAtRootSchema (as JSON names) — the root may carry only these when the status subresource is on.
const ROOT_FIELDS_WITH_STATUS = new Set([
  'description', 'type', 'format', 'title', 'maximum', 'exclusiveMaximum', 'minimum', 'exclusiveMinimum', 'maxLength',
  'minLength', 'pattern', 'maxItems', 'minItems', 'uniqueItems', 'multipleOf', 'required', 'items', 'properties',
  'externalDocs', 'example', 'x-kubernetes-preserve-unknown-fields', 'x-kubernetes-validations',
]);
// JSONSchemaProps fields (JSON names): anything else in a schema is an unknown field to the API server.
const SCHEMA_FIELDS = new Set([
  'id', '$schema', '$ref', 'description', 'type', 'format', 'title', 'default', 'maximum', 'exclusiveMaximum', 'minimum',
  'exclusiveMinimum', 'maxLength', 'minLength', 'pattern', 'maxItems', 'minItems', 'uniqueItems', 'multipleOf', 'enum',
  'maxProperties', 'minProperties', 'required', 'items', 'allOf', 'oneOf', 'anyOf', 'not', 'properties',
  'additionalProperties', 'patternProperties', 'dependencies', 'additionalItems', 'definitions', 'externalDocs',
  'example', 'nullable', 'x-kubernetes-preserve-unknown-fields', 'x-kubernetes-embedded-resource',
  'x-kubernetes-int-or-string', 'x-kubernetes-list-map-keys', 'x-kubernetes-list-type', 'x-kubernetes-map-type',
  'x-kubernetes-validations',
]);
const META_FIELDS = new Set(['metadata', 'kind', 'apiVersion']);

type Level = 'root' | 'items' | 'field';

interface Walk {
  issues: Issue[];
}

const invalid = (w: Walk, path: string, message: string): void => {
  w.issues.push({ path, code: 'invalidValue', message });
};
const forbidden = (w: Walk, path: string, message: string): void => {
  w.issues.push({ path, code: 'conflict', message: `Forbidden: ${message}` });
};
const required = (w: Walk, path: string, message: string): void => {
  w.issues.push({ path, code: 'required', message: `Required value: ${message}` });
};

/**
 * checkCrd returns every reason a kube-apiserver would reject this CustomResourceDefinition ([] = accepted).
 * CEL rules are checked for shape only (non-empty, no line breaks in messages), not compiled.
 */
export function checkCrd(crd: unknown): Issue[] {
  const w: Walk = { issues: [] };
  if (!isPlainObject(crd)) {
    invalid(w, '', `Invalid value: ${quoteValue(crd)}: not an object`);
    return w.issues;
  }
  if (crd.apiVersion !== 'apiextensions.k8s.io/v1') invalid(w, 'apiVersion', `Invalid value: ${quoteValue(crd.apiVersion)}: must be apiextensions.k8s.io/v1`);
  if (crd.kind !== 'CustomResourceDefinition') invalid(w, 'kind', `Invalid value: ${quoteValue(crd.kind)}: must be CustomResourceDefinition`);
  const spec = isPlainObject(crd.spec) ? crd.spec : {};
  const names = isPlainObject(spec.names) ? spec.names : {};
  const meta = isPlainObject(crd.metadata) ? crd.metadata : {};
  const group = typeof spec.group === 'string' ? spec.group : '';
  if (meta.name !== `${names.plural}.${group}`) invalid(w, 'metadata.name', `Invalid value: ${quoteValue(meta.name)}: must be spec.names.plural+"."+spec.group`);
  if (!group) required(w, 'spec.group', '');
  else if (isDNS1123Subdomain(group).length) invalid(w, 'spec.group', `Invalid value: ${quoteValue(group)}: ${isDNS1123Subdomain(group).join(',')}`);
  else if (group.split('.').length < 2) invalid(w, 'spec.group', `Invalid value: ${quoteValue(group)}: should be a domain with at least one dot`);
  if (spec.scope !== 'Cluster' && spec.scope !== 'Namespaced') {
    w.issues.push({ path: 'spec.scope', code: 'enum', message: `Unsupported value: ${quoteValue(spec.scope)}: supported values: "Cluster", "Namespaced"` });
  }
  checkNames(w, names);
  if (spec.preserveUnknownFields === true) invalid(w, 'spec.preserveUnknownFields', 'Invalid value: true: cannot set to true, set x-kubernetes-preserve-unknown-fields to true in spec.versions[*].schema instead');
  const conversion = isPlainObject(spec.conversion) ? spec.conversion : { strategy: 'None' };
  if (conversion.strategy !== 'None' && conversion.strategy !== 'Webhook') {
    w.issues.push({ path: 'spec.conversion.strategy', code: 'enum', message: `Unsupported value: ${quoteValue(conversion.strategy)}: supported values: "None", "Webhook"` });
  }
  if (conversion.strategy === 'Webhook' && !isPlainObject(conversion.webhook)) required(w, 'spec.conversion.webhook', 'required when strategy is set to Webhook');

  const versions = Array.isArray(spec.versions) ? spec.versions : [];
  if (versions.length === 0) required(w, 'spec.versions', 'must have at least one version');
  const seen = new Set<string>();
  let storage = 0;
  versions.forEach((raw, i) => {
    const vp = indexPath('spec.versions', i);
    if (!isPlainObject(raw)) return invalid(w, vp, 'Invalid value: must be an object');
    const name = String(raw.name ?? '');
    if (seen.has(name)) invalid(w, 'spec.versions', 'Invalid value: must contain unique version names');
    seen.add(name);
    for (const m of isDNS1035Label(name)) invalid(w, `${vp}.name`, `Invalid value: ${quoteValue(name)}: ${m}`);
    if (raw.storage === true) storage++;
    checkDeprecation(w, vp, raw.deprecated === true, raw.deprecationWarning);
    const statusEnabled = isPlainObject(raw.subresources) && raw.subresources.status !== undefined;
    const schema = isPlainObject(raw.schema) ? raw.schema.openAPIV3Schema : undefined;
    if (!isPlainObject(schema)) {
      if (raw.served !== false) required(w, `${vp}.schema.openAPIV3Schema`, 'because otherwise all fields are pruned');
    } else {
      w.issues.push(...checkStructuralSchema(schema as JsonSchema, { statusEnabled, path: `${vp}.schema.openAPIV3Schema` }));
    }
    (Array.isArray(raw.additionalPrinterColumns) ? raw.additionalPrinterColumns : []).forEach((c, j) => checkColumn(w, `${vp}.additionalPrinterColumns[${j}]`, c));
  });
  if (versions.length > 0 && storage !== 1) invalid(w, 'spec.versions', 'Invalid value: must have exactly one version marked as storage version');
  return w.issues;
}

function checkNames(w: Walk, names: Record<string, unknown>): void {
  for (const f of ['plural', 'singular', 'kind', 'listKind']) if (!names[f]) required(w, `spec.names.${f}`, '');
  for (const f of ['plural', 'singular']) {
    const v = names[f];
    if (typeof v === 'string' && v) for (const m of isDNS1035Label(v)) invalid(w, `spec.names.${f}`, `Invalid value: ${quoteValue(v)}: ${m}`);
  }
  for (const f of ['kind', 'listKind']) {
    const v = names[f];
    if (typeof v === 'string' && v) {
      const errs = isDNS1035Label(v.toLowerCase());
      if (errs.length) invalid(w, `spec.names.${f}`, `Invalid value: ${quoteValue(v)}: may have mixed case, but should otherwise match: ${errs.join(',')}`);
    }
  }
  if (names.kind && names.kind === names.listKind) invalid(w, 'spec.names.listKind', 'Invalid value: kind and listKind may not be the same');
  for (const f of ['shortNames', 'categories']) {
    (Array.isArray(names[f]) ? (names[f] as unknown[]) : []).forEach((v, i) => {
      for (const m of isDNS1035Label(String(v))) invalid(w, `spec.names.${f}[${i}]`, `Invalid value: ${quoteValue(v)}: ${m}`);
    });
  }
}

function checkDeprecation(w: Walk, vp: string, deprecated: boolean, warning: unknown): void {
  if (warning === undefined || warning === null) return;
  const p = `${vp}.deprecationWarning`;
  if (!deprecated) return invalid(w, p, 'Invalid value: can only be set for deprecated versions');
  const s = String(warning);
  if (s.length > 256) invalid(w, p, 'Invalid value: must be <= 256 characters long');
  if (s.length === 0) invalid(w, p, 'Invalid value: must not be an empty string');
  // eslint-disable-next-line no-control-regex
  if (/[\u0000-\u001f\u007f-\u009f]/.test(s)) invalid(w, p, 'Invalid value: must only contain printable UTF-8 characters');
}

function checkColumn(w: Walk, p: string, c: unknown): void {
  if (!isPlainObject(c)) return invalid(w, p, 'Invalid value: must be an object');
  if (!c.name) required(w, `${p}.name`, '');
  if (!c.type) required(w, `${p}.type`, `must be one of ${[...PRINTER_TYPES].sort().join(',')}`);
  else if (!PRINTER_TYPES.has(String(c.type))) invalid(w, `${p}.type`, `Invalid value: ${quoteValue(c.type)}: must be one of ${[...PRINTER_TYPES].sort().join(',')}`);
  if (c.format && !PRINTER_FORMATS.has(String(c.format))) invalid(w, `${p}.format`, `Invalid value: ${quoteValue(c.format)}: must be one of ${[...PRINTER_FORMATS].sort().join(',')}`);
  const jp = c.jsonPath;
  if (!jp) required(w, `${p}.JSONPath`, '');
  else if (typeof jp !== 'string' || !jp.startsWith('.')) invalid(w, `${p}.JSONPath`, `Invalid value: ${quoteValue(jp)}: must be a simple json path starting with .`);
}

/** StructuralCheckOptions: whether the status subresource is enabled, and the path prefix for issues. */
export interface StructuralCheckOptions {
  statusEnabled?: boolean;
  path?: string;
}

/** checkStructuralSchema returns every reason an openAPIV3Schema is not an acceptable structural CRD schema. */
export function checkStructuralSchema(schema: JsonSchema, options: StructuralCheckOptions = {}): Issue[] {
  const w: Walk = { issues: [] };
  const root = options.path ?? 'openAPIV3Schema';
  if (options.statusEnabled) {
    if (schema.type !== undefined && schema.type !== 'object') {
      invalid(w, `${root}.type`, `Invalid value: ${quoteValue(schema.type)}: only "object" is allowed as the type at the root of the schema if the status subresource is enabled`);
    }
    const extra = Object.keys(schema).filter((k) => !ROOT_FIELDS_WITH_STATUS.has(k));
    if (extra.length) invalid(w, root, `Invalid value: only ${[...ROOT_FIELDS_WITH_STATUS].join(', ')} fields are allowed at the root of the schema if the status subresource is enabled (found ${extra.join(', ')})`);
  }
  if (schema.nullable) forbidden(w, `${root}.nullable`, 'nullable cannot be true at the root');
  node(w, schema, root, 'root', { insideMeta: false, defaultsForbidden: undefined });
  return w.issues;
}

interface NodeCtx {
  insideMeta: boolean;
  /** Why defaults are forbidden here (undefined = allowed). */
  defaultsForbidden: string | undefined;
}

function node(w: Walk, s: JsonSchema, p: string, level: Level, ctx: NodeCtx): void {
  if (!isPlainObject(s)) return invalid(w, p, `Invalid value: ${quoteValue(s)}: a schema must be an object`);
  for (const k of Object.keys(s)) if (!SCHEMA_FIELDS.has(k)) w.issues.push({ path: childPath(p, k), code: 'unknownField', message: `unknown field ${quoteValue(k)} in a JSON schema` });

  // --- specStandardValidatorV3.validate ---
  if (s.type !== undefined && !OPENAPI_TYPES.has(String(s.type))) {
    if (s.type === 'null') forbidden(w, `${p}.type`, 'type cannot be set to null, use nullable as an alternative');
    else w.issues.push({ path: `${p}.type`, code: 'enum', message: `Unsupported value: ${quoteValue(s.type)}: supported values: "array", "boolean", "integer", "number", "object", "string"` });
  }
  if (s.default !== undefined && ctx.defaultsForbidden) forbidden(w, `${p}.default`, `must not be set ${ctx.defaultsForbidden}`);
  if (s.id !== undefined) forbidden(w, `${p}.id`, 'id is not supported');
  if (s.additionalItems !== undefined) forbidden(w, `${p}.additionalItems`, 'additionalItems is not supported');
  if (s.patternProperties !== undefined) forbidden(w, `${p}.patternProperties`, 'patternProperties is not supported');
  if (s.definitions !== undefined) forbidden(w, `${p}.definitions`, 'definitions is not supported');
  if (s.dependencies !== undefined) forbidden(w, `${p}.dependencies`, 'dependencies is not supported');
  if (s.$ref !== undefined) forbidden(w, `${p}.$ref`, '$ref is not supported');
  if (Array.isArray(s.items)) forbidden(w, `${p}.items`, 'items must be a schema object and not an array');
  if (ctx.insideMeta && s['x-kubernetes-embedded-resource']) forbidden(w, `${p}.x-kubernetes-embedded-resource`, 'must not be used inside of resource meta');
  if (s.uniqueItems === true) forbidden(w, `${p}.uniqueItems`, 'uniqueItems cannot be set to true since the runtime complexity becomes quadratic');

  const props = s.properties ?? {};
  const hasProps = Object.keys(props).length > 0;
  if (s.additionalProperties !== undefined) {
    if (hasProps && (s.additionalProperties === false || isPlainObject(s.additionalProperties))) {
      forbidden(w, `${p}.additionalProperties`, 'additionalProperties and properties are mutual exclusive');
    }
    if (level === 'root') forbidden(w, `${p}.additionalProperties`, 'must not be used at the root');
    if (s['x-kubernetes-embedded-resource']) forbidden(w, `${p}.additionalProperties`, 'must not be used if x-kubernetes-embedded-resource is set');
  }

  // --- x-kubernetes-* extensions ---
  if (s['x-kubernetes-preserve-unknown-fields'] === false) invalid(w, `${p}.x-kubernetes-preserve-unknown-fields`, 'Invalid value: false: must be true or undefined');
  if (s['x-kubernetes-int-or-string'] && s['x-kubernetes-preserve-unknown-fields']) {
    invalid(w, `${p}.x-kubernetes-preserve-unknown-fields`, 'Invalid value: true: must be false if x-kubernetes-int-or-string is true');
  }
  if (s['x-kubernetes-int-or-string'] && s['x-kubernetes-embedded-resource']) {
    invalid(w, `${p}.x-kubernetes-embedded-resource`, 'Invalid value: true: must be false if x-kubernetes-int-or-string is true');
  }
  const mapType = s['x-kubernetes-map-type'];
  if (mapType !== undefined) {
    if (s.type !== 'object') (s.type ? invalid(w, `${p}.type`, `Invalid value: ${quoteValue(s.type)}: must be object if x-kubernetes-map-type is specified`) : required(w, `${p}.type`, 'must be object if x-kubernetes-map-type is specified'));
    if (mapType !== 'atomic' && mapType !== 'granular') w.issues.push({ path: `${p}.x-kubernetes-map-type`, code: 'enum', message: `Unsupported value: ${quoteValue(mapType)}: supported values: "atomic", "granular"` });
  }
  checkListType(w, s, p);
  (s['x-kubernetes-validations'] ?? []).forEach((r, i) => {
    const rp = `${p}.x-kubernetes-validations[${i}]`;
    const rule = String(r?.rule ?? '').trim();
    const msg = r?.message;
    if (!rule) required(w, `${rp}.rule`, 'rule is not specified');
    else if (typeof msg === 'string' && msg.length > 0 && msg.trim().length === 0) invalid(w, `${rp}.message`, 'Invalid value: must be non-empty if specified');
    else if (typeof msg === 'string' && /[\n\r]/.test(msg.trim())) invalid(w, `${rp}.message`, 'Invalid value: must not contain line breaks');
    else if (/[\n\r]/.test(rule) && !(typeof msg === 'string' && msg.trim())) required(w, `${rp}.message`, 'message must be specified if rule contains line breaks');
  });

  // --- structural invariants ---
  const intOrString = s['x-kubernetes-int-or-string'] === true;
  const preserve = s['x-kubernetes-preserve-unknown-fields'] === true;
  const embedded = s['x-kubernetes-embedded-resource'] === true;
  if (s.type === 'array' && s.items === undefined) required(w, `${p}.items`, 'must be specified');
  if (embedded && s.type !== 'object') {
    if (!s.type) required(w, `${p}.type`, 'must be object if x-kubernetes-embedded-resource is true');
    else invalid(w, `${p}.type`, `Invalid value: ${quoteValue(s.type)}: must be object if x-kubernetes-embedded-resource is true`);
  } else if (!s.type && !intOrString && !preserve) {
    const where = level === 'root' ? 'at the root' : level === 'items' ? 'for specified array items' : 'for specified object fields';
    required(w, `${p}.type`, `must not be empty ${where}`);
  }
  if (level === 'root' && s.type && s.type !== 'object') invalid(w, `${p}.type`, `Invalid value: ${quoteValue(s.type)}: must be object at the root`);
  if (embedded && !preserve && !hasProps) required(w, `${p}.properties`, 'must not be empty if x-kubernetes-embedded-resource is true without x-kubernetes-preserve-unknown-fields');
  const checkMeta = level === 'root' || embedded;
  if (checkMeta) {
    for (const f of ['kind', 'apiVersion']) {
      const c = props[f];
      if (c && c.type !== 'string') invalid(w, `${p}.properties[${f}].type`, `Invalid value: ${quoteValue(c.type)}: must be string`);
    }
  }
  if (props.metadata) checkMetadataNode(w, props.metadata, `${p}.properties[metadata]`, checkMeta, level === 'root');
  checkJunctors(w, s, p, intOrString);
  if (typeof s.pattern === 'string') checkPattern(w, s.pattern, `${p}.pattern`);
  checkEnum(w, s, p);
  if (s.default !== undefined && !ctx.defaultsForbidden) checkDefault(w, s, p);

  // --- recurse ---
  for (const [k, c] of Object.entries(props)) {
    const isMeta = (level === 'root' || embedded) && META_FIELDS.has(k);
    node(w, c, `${p}.properties[${k}]`, 'field', {
      insideMeta: ctx.insideMeta || isMeta,
      defaultsForbidden: isMeta && level === 'root' ? `in top-level ${k}` : ctx.defaultsForbidden,
    });
  }
  if (isPlainObject(s.additionalProperties)) {
    node(w, s.additionalProperties as JsonSchema, `${p}.additionalProperties`, 'field', {
      insideMeta: ctx.insideMeta,
      defaultsForbidden: ctx.insideMeta ? 'inside additionalProperties applying to object metadata' : ctx.defaultsForbidden,
    });
  }
  if (isPlainObject(s.items)) node(w, s.items as JsonSchema, `${p}.items`, 'items', ctx);
}

function checkMetadataNode(w: Walk, m: JsonSchema, p: string, checkMeta: boolean, atRoot: boolean): void {
  if (checkMeta && m.type !== 'object') invalid(w, `${p}.type`, `Invalid value: ${quoteValue(m.type)}: must be object`);
  if (!atRoot) return;
  // Go: validateStructuralMetadataInvariants — only name/generateName may be restricted at the root.
  const allowed = new Set(['type', 'properties']);
  const props = Object.keys(m.properties ?? {});
  const onlyNames = props.every((k) => k === 'name' || k === 'generateName');
  if (Object.keys(m).some((k) => !allowed.has(k)) || !onlyNames) {
    forbidden(w, p, 'must not specify anything other than name and generateName, but metadata is implicitly specified');
  }
}

// Junctors (anyOf/allOf/oneOf/not) may not carry types or most keywords, except the int-or-string patterns.
function checkJunctors(w: Walk, s: JsonSchema, p: string, intOrString: boolean): void {
  const isIntOrStringAnyOf = (list: unknown) =>
    Array.isArray(list) && list.length === 2 && list[0]?.type === 'integer' && list[1]?.type === 'string' &&
    Object.keys(list[0]).length === 1 && Object.keys(list[1]).length === 1;
  if (intOrString && s.type) invalid(w, `${p}.type`, `Invalid value: ${quoteValue(s.type)}: must be empty if x-kubernetes-int-or-string is true`);
  const nested = (j: unknown, jp: string, allowTypePattern: boolean) => {
    if (!isPlainObject(j)) return;
    if (allowTypePattern) return;
    const js = j as JsonSchema;
    if (js.type) forbidden(w, `${jp}.type`, 'must be empty to be structural');
    if (js.additionalProperties !== undefined) forbidden(w, `${jp}.additionalProperties`, 'must be undefined to be structural');
    if (js.default !== undefined) forbidden(w, `${jp}.default`, 'must be undefined to be structural');
    if (js.description) forbidden(w, `${jp}.description`, 'must be empty to be structural');
    if (js.title) forbidden(w, `${jp}.title`, 'must be empty to be structural');
    if (js.nullable) forbidden(w, `${jp}.nullable`, 'must be false to be structural');
    for (const x of ['x-kubernetes-preserve-unknown-fields', 'x-kubernetes-embedded-resource', 'x-kubernetes-int-or-string', 'x-kubernetes-list-map-keys', 'x-kubernetes-list-type', 'x-kubernetes-map-type', 'x-kubernetes-validations']) {
      if (js[x] !== undefined) forbidden(w, `${jp}.${x}`, 'must be undefined to be structural');
    }
    if (js.properties?.metadata) forbidden(w, `${jp}.properties[metadata]`, 'must not be specified in a nested context');
    // Structural completeness: a junctor may only restrict fields the spine declares.
    for (const k of Object.keys(js.properties ?? {})) {
      if (!s.properties?.[k]) required(w, `${jp}.properties[${k}]`, `must be specified in the structural schema too (properties[${k}])`);
    }
  };
  const anyOfIsPattern = intOrString && isIntOrStringAnyOf(s.anyOf);
  (s.anyOf ?? []).forEach((j, i) => nested(j, `${p}.anyOf[${i}]`, anyOfIsPattern));
  (s.allOf ?? []).forEach((j, i) => nested(j, `${p}.allOf[${i}]`, intOrString && i === 0 && isIntOrStringAnyOf((j as JsonSchema).anyOf)));
  (s.oneOf ?? []).forEach((j, i) => nested(j, `${p}.oneOf[${i}]`, false));
  if (s.not) nested(s.not, `${p}.not`, false);
}

// Go: listtype rules in ValidateCustomResourceDefinitionOpenAPISchema + validateMapListKeysMapSet.
function checkListType(w: Walk, s: JsonSchema, p: string): void {
  const lt = s['x-kubernetes-list-type'];
  const keys = s['x-kubernetes-list-map-keys'];
  if (lt !== undefined) {
    if (s.type !== 'array') (s.type ? invalid(w, `${p}.type`, `Invalid value: ${quoteValue(s.type)}: must be array if x-kubernetes-list-type is specified`) : required(w, `${p}.type`, 'must be array if x-kubernetes-list-type is specified'));
    if (lt !== 'atomic' && lt !== 'set' && lt !== 'map') w.issues.push({ path: `${p}.x-kubernetes-list-type`, code: 'enum', message: `Unsupported value: ${quoteValue(lt)}: supported values: "atomic", "set", "map"` });
  }
  if (Array.isArray(keys) && keys.length > 0 && lt !== 'map') {
    if (lt === undefined) required(w, `${p}.x-kubernetes-list-type`, 'must be map if x-kubernetes-list-map-keys is non-empty');
    else invalid(w, `${p}.x-kubernetes-list-type`, `Invalid value: ${quoteValue(lt)}: must be map if x-kubernetes-list-map-keys is non-empty`);
  }
  const items = isPlainObject(s.items) ? (s.items as JsonSchema) : undefined;
  if (lt === 'set' && items) {
    if (items.type === 'array' && items['x-kubernetes-list-type'] && items['x-kubernetes-list-type'] !== 'atomic') {
      invalid(w, `${p}.items.x-kubernetes-list-type`, 'Invalid value: must be atomic as item of a list with x-kubernetes-list-type=set');
    }
    if (items.type === 'object' && items['x-kubernetes-map-type'] !== 'atomic') {
      invalid(w, `${p}.items.x-kubernetes-map-type`, 'Invalid value: must be atomic as item of a list with x-kubernetes-list-type=set');
    }
    if (items.nullable) forbidden(w, `${p}.items.nullable`, 'cannot be nullable when x-kubernetes-list-type is set');
  }
  if (lt === 'map') {
    if (!Array.isArray(keys) || keys.length === 0) required(w, `${p}.x-kubernetes-list-map-keys`, 'must not be empty if x-kubernetes-list-type is map');
    if (!items) return required(w, `${p}.items`, 'must have a schema if x-kubernetes-list-type is map');
    if (items.type !== 'object') return invalid(w, `${p}.items.type`, `Invalid value: ${quoteValue(items.type)}: must be object if parent array's x-kubernetes-list-type is map`);
    if (items.nullable) forbidden(w, `${p}.items.nullable`, 'cannot be nullable when x-kubernetes-list-type is map');
    const seenKeys = new Set<string>();
    for (const k of Array.isArray(keys) ? keys : []) {
      const ks = items.properties?.[k];
      if (!ks) invalid(w, `${p}.x-kubernetes-list-map-keys`, 'Invalid value: entries must all be names of item properties');
      else {
        if (ks.type === 'array' || ks.type === 'object') invalid(w, `${p}.items.properties[${k}].type`, "Invalid value: must be a scalar type if parent array's x-kubernetes-list-type is map");
        if (!(items.required ?? []).includes(k) && ks.default === undefined) {
          required(w, `${p}.items.properties[${k}].default`, 'this property is in x-kubernetes-list-map-keys, so it must have a default or be a required property');
        }
        if (ks.nullable) forbidden(w, `${p}.items.properties[${k}].nullable`, 'this property is in x-kubernetes-list-map-keys, so it cannot be nullable');
      }
      if (seenKeys.has(k)) invalid(w, `${p}.x-kubernetes-list-map-keys`, 'Invalid value: must not contain duplicate entries');
      seenKeys.add(k);
    }
  }
}

// Patterns are Go RE2 (no lookaround, no backreferences): compiled by re2js, with Go's error text.
function checkPattern(w: Walk, pattern: string, p: string): void {
  try {
    RE2JS.compile(pattern);
  } catch (e) {
    invalid(w, p, `Invalid value: ${quoteValue(pattern)}: must be a valid regular expression, but isn't: ${(e as Error).message}`);
  }
}

function checkEnum(w: Walk, s: JsonSchema, p: string): void {
  if (!Array.isArray(s.enum) || !s.type) return;
  s.enum.forEach((v, i) => {
    const t = jsonTypeOf(v);
    const ok = t === s.type || (s.type === 'number' && t === 'integer') || (v === null && s.nullable);
    if (!ok) invalid(w, `${p}.enum[${i}]`, `Invalid value: ${quoteValue(v)}: enum value must be of type ${s.type}`);
  });
}

// Go: defaulting/validation.go — a default must validate against its own schema and survive pruning unchanged.
function checkDefault(w: Walk, s: JsonSchema, p: string): void {
  const dp = `${p}.default`;
  for (const i of validateAgainstSchema(s.default, s, '', { unknownFields: false })) {
    invalid(w, i.path ? `${dp}.${i.path}` : dp, i.message);
  }
  const copy = JSON.parse(JSON.stringify(s.default));
  if (pruneUnknownFields(copy, s, false).length > 0) invalid(w, dp, `Invalid value: ${quoteValue(s.default)}: must not have unknown fields`);
}
