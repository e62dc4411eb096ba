// Schemas of the built-in kinds: the generated client-node type tree (builtin-types.generated.ts) overlaid with
// the struct-tag knowledge in builtin-overlay.ts. Two renderings: inline trees for validation, SMP and SSA
// (builtinSchema), and named definitions with $refs for the OpenAPI documents (builtinDefinitions).
import { ATOMIC_STRUCTS, BUILTIN_KINDS, FIELD_OVERLAY, VALUE_STRUCT_FIELDS, explicitPackage, goTypeNameOf, groupPackage, type BuiltinKind, type FieldOverlay } from './builtin-overlay.js';
import { BUILTIN_TYPES_JSON } from './builtin-types.generated.js';
import type { JSONSchemaProps } from './types.js';

type RawField = [string, string, 0 | 1, string];
type RawType = { d: string; f: RawField[] };

let rawTypes: Record<string, RawType> | undefined;
function types(): Record<string, RawType> {
  rawTypes ??= JSON.parse(BUILTIN_TYPES_JSON) as Record<string, RawType>;
  return rawTypes;
}

let derivedPackages: Map<string, string> | undefined;

// Every class reachable from a served kind belongs to that kind's package unless the overlay names another one or an
// earlier kind (core kinds first) already reached it: kube's types live beside the kind that
// first needs them (PodTemplateSpec in core, StatefulSetSpec in apps).
function packageOf(cls: string): string {
  const explicit = explicitPackage(cls);
  if (explicit) return explicit;
  if (!derivedPackages) {
    const out = new Map<string, string>();
    const ordered = [...BUILTIN_KINDS.filter((k) => k.group === ''), ...BUILTIN_KINDS.filter((k) => k.group !== '')];
    for (const k of ordered) {
      const pkg = groupPackage(k.group, k.version);
      const queue = [k.cls];
      while (queue.length > 0) {
        const c = queue.shift()!;
        if (out.has(c) || explicitPackage(c)) continue;
        out.set(c, pkg);
        for (const [, spec] of types()[c]?.f ?? []) {
          const inner = spec.replace(/^(\[\]|\{\})+/, '');
          if (types()[inner]) queue.push(inner);
        }
      }
    }
    derivedPackages = out;
  }
  return derivedPackages.get(cls) ?? 'io.k8s.api.core.v1';
}

/** definitionName gives the upstream OpenAPI definition name of a model class (io.k8s.api.core.v1.PodSpec). */
export function definitionName(cls: string): string {
  return `${packageOf(cls)}.${goTypeNameOf(cls)}`;
}

/** ClassVisitor sees one object of a built-in model class (v1.PodSpec …) and may change it in place. */
export type ClassVisitor = (cls: string, obj: Record<string, unknown>) => void;

type ChildField = [name: string, cls: string, shape: '' | '[]' | '{}'];
const childFields = new Map<string, ChildField[]>();

function childrenOf(cls: string): ChildField[] {
  let out = childFields.get(cls);
  if (!out) {
    out = [];
    for (const [name, spec] of types()[cls]?.f ?? []) {
      const shape = spec.startsWith('[]') ? '[]' : spec.startsWith('{}') ? '{}' : '';
      const inner = spec.slice(shape.length);
      if (types()[inner] && inner !== 'V1ObjectMeta' && inner !== 'V1ManagedFieldsEntry') out.push([name, inner, shape]);
    }
    childFields.set(cls, out);
  }
  return out;
}

const isRecord = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

function walkClass(cls: string, obj: Record<string, unknown>, visit: ClassVisitor): void {
  visit(cls, obj);
  for (const [name, child, shape] of childrenOf(cls)) {
    const v = obj[name];
    if (shape === '') {
      if (isRecord(v)) walkClass(child, v, visit);
    } else if (shape === '[]') {
      if (Array.isArray(v)) for (const x of v) if (isRecord(x)) walkClass(child, x, visit);
    } else if (isRecord(v)) {
      for (const x of Object.values(v)) if (isRecord(x)) walkClass(child, x, visit);
    }
  }
}

/**
 * walkBuiltin calls visit for a built-in kind's object and, parents first, for every nested object of a model class
 * (metadata excluded) — the traversal kube's generated SetObjectDefaults_<Kind> functions make. False for unknown kinds.
 */
export function walkBuiltin(group: string, version: string, kind: string, obj: Record<string, unknown>, visit: ClassVisitor): boolean {
  const k = KINDS.get(kindKey(group, version, kind));
  if (!k) return false;
  walkClass(k.cls, obj, visit);
  return true;
}

const kindKey = (group: string, version: string, kind: string) => `${group}/${version}/${kind}`;
const KINDS = new Map(BUILTIN_KINDS.map((k) => [kindKey(k.group, k.version, k.kind), k]));

/** RefStyle selects how class-typed fields are rendered: inline nodes (shared, possibly cyclic) or $refs. */
type RefStyle = { kind: 'inline'; memo: Map<string, JSONSchemaProps> } | { kind: 'ref'; prefix: string; v3: boolean };

/** INT_OR_STRING and QUANTITY are the definition names upstream gives the two union scalars. */
export const INT_OR_STRING = 'io.k8s.apimachinery.pkg.util.intstr.IntOrString';
export const QUANTITY = 'io.k8s.apimachinery.pkg.api.resource.Quantity';

// scalarSchema renders the non-class type specs of builtin-types.gen.ts.
function scalarSchema(spec: string, o: FieldOverlay | undefined, style: RefStyle): JSONSchemaProps | undefined {
  switch (spec) {
    case 'string':
      if (o?.quantity) return quantitySchema(style);
      return { type: 'string' };
    case 'string:byte':
      return { type: 'string', format: 'byte' };
    case 'string:date-time':
      return { type: 'string', format: 'date-time' };
    case 'int32':
    case 'int64':
      return { type: 'integer', format: spec };
    case 'double':
      return { type: 'number', format: 'double' };
    case 'boolean':
      return { type: 'boolean' };
    case 'IntOrString':
      return style.kind === 'ref' ? { $ref: `${style.prefix}${INT_OR_STRING}` } : { 'x-kubernetes-int-or-string': true };
    case 'any':
      return { 'x-kubernetes-preserve-unknown-fields': true };
    default:
      return undefined;
  }
}

// Quantities are strings ("500m", "1Gi") or numbers on the wire; structurally that is int-or-string.
function quantitySchema(style: RefStyle): JSONSchemaProps {
  return style.kind === 'ref' ? { $ref: `${style.prefix}${QUANTITY}` } : { 'x-kubernetes-int-or-string': true, 'x-ripple-quantity': true };
}

function typeSchema(spec: string, o: FieldOverlay | undefined, style: RefStyle): JSONSchemaProps {
  if (spec.startsWith('[]')) return { type: 'array', items: typeSchema(spec.slice(2), { ...o, default: undefined }, style) };
  if (spec.startsWith('{}')) return { type: 'object', additionalProperties: typeSchema(spec.slice(2), { ...o, default: undefined }, style) };
  const scalar = scalarSchema(spec, o, style);
  if (scalar) {
    if (o?.enum && scalar.type === 'string') scalar.enum = [...o.enum];
    return scalar;
  }
  return classSchema(spec, style);
}

// classSchema renders one model class. Inline nodes are memoised per class before their properties are filled,
// so recursive types (JSONSchemaProps) become cycles instead of infinite trees.
function classSchema(cls: string, style: RefStyle): JSONSchemaProps {
  if (style.kind === 'ref') return { $ref: `${style.prefix}${definitionName(cls)}` };
  const memo = style.memo.get(cls);
  if (memo) return memo;
  const node = objectShell(cls);
  style.memo.set(cls, node);
  fillProperties(cls, node, style);
  return node;
}

function objectShell(cls: string): JSONSchemaProps {
  const t = types()[cls];
  if (!t) throw new Error(`builtin schema: no generated type ${cls}`);
  const node: JSONSchemaProps = { type: 'object' };
  if (t.d) node.description = t.d;
  const required = t.f.filter((f) => f[2] === 1).map((f) => f[0]);
  if (required.length > 0) node.required = required;
  if (ATOMIC_STRUCTS.has(cls)) node['x-kubernetes-map-type'] = 'atomic';
  return node;
}

// goStructNames maps the properties object of every inline struct node to its Go type name (v1.PodSpec): field
// copies share that object, so the name survives the per-field shallow copies. Used for decoder-style messages.
const goStructNames = new WeakMap<object, string>();

/** goTypeName returns the Go type name of an inline built-in struct node ("v1.PodSpec"), if it is one. */
export function goTypeName(node: JSONSchemaProps): string | undefined {
  return node.properties ? goStructNames.get(node.properties) : undefined;
}

function fillProperties(cls: string, node: JSONSchemaProps, style: RefStyle): void {
  const props: Record<string, JSONSchemaProps> = {};
  node.properties = props;
  if (style.kind === 'inline') goStructNames.set(props, `v1.${definitionName(cls).split('.').pop()}`);
  for (const [name, spec, , desc] of types()[cls].f) props[name] = fieldSchema(cls, name, spec, desc, style);
}

function fieldSchema(cls: string, name: string, spec: string, desc: string, style: RefStyle): JSONSchemaProps {
  const o = FIELD_OVERLAY[`${cls}.${name}`];
  let s = typeSchema(spec, o, style);
  // A class-typed field shares its class node; copy the top level so the field's own description can differ.
  // With $refs, OpenAPI 3.0 ignores siblings of $ref, so v3 wraps the reference in allOf (as kube-openapi does).
  if (s.$ref !== undefined) {
    if (desc && style.kind === 'ref') s = style.v3 ? { allOf: [s], description: desc } : { ...s, description: desc };
  } else if (!spec.startsWith('[]') && !spec.startsWith('{}') && types()[spec]) {
    s = { ...s, ...(desc ? { description: desc } : {}) };
  } else if (desc) {
    s.description = desc;
  }
  if (name === 'fieldsV1' && cls === 'V1ManagedFieldsEntry') s.type = 'object';
  if (o) applyOverlay(s, o);
  return s;
}

function applyOverlay(s: JSONSchemaProps, o: FieldOverlay): void {
  if (o.mergeKey) s['x-kubernetes-patch-merge-key'] = o.mergeKey;
  if (o.strategy) s['x-kubernetes-patch-strategy'] = o.strategy;
  if (o.listType) s['x-kubernetes-list-type'] = o.listType;
  if (o.keys) s['x-kubernetes-list-map-keys'] = [...o.keys];
  if (o.mapType) s['x-kubernetes-map-type'] = o.mapType;
  if (o.default !== undefined) s.default = o.default;
}

const inlineMemo = new Map<string, JSONSchemaProps>();
const kindSchemas = new Map<string, JSONSchemaProps>();

/**
 * builtinSchema returns the OpenAPI v3 schema of a built-in kind, or undefined when the kind is not built in.
 * The tree is inline (no $ref) and shared between calls: treat it as read-only. Recursive types make it cyclic
 * (CustomResourceDefinition's JSONSchemaProps), so do not JSON.stringify it; the OpenAPI builders use named
 * definitions instead.
 */
export function builtinSchema(group: string, version: string, kind: string): JSONSchemaProps | undefined {
  const key = kindKey(group, version, kind);
  const cached = kindSchemas.get(key);
  if (cached) return cached;
  const k = KINDS.get(key);
  if (!k) return undefined;
  const base = classSchema(k.cls, { kind: 'inline', memo: inlineMemo });
  const s: JSONSchemaProps = { ...base, 'x-kubernetes-group-version-kind': [{ group, version, kind }] };
  kindSchemas.set(key, s);
  kindClasses.set(s, k.cls);
  return s;
}

const kindClasses = new WeakMap<JSONSchemaProps, string>();

/** isBuiltinSchema tells whether s is the root schema builtinSchema returned (or one of its inline nodes). */
export function isBuiltinSchema(s: JSONSchemaProps): boolean {
  return kindClasses.has(s) || (s.properties !== undefined && goStructNames.has(s.properties));
}

/**
 * typedSkeleton returns what a built-in kind's zero Go value looks like as JSON for the fields Go holds by value
 * (spec: {}, status: {}, spec.template: {spec: {}} ...), or undefined for schemas that are not built-in kinds.
 * The field manager compares objects with these present, like kube's typed conversion does.
 */
export function typedSkeleton(schema: JSONSchemaProps): Record<string, unknown> | undefined {
  const hit = skeletons.get(schema);
  if (hit) return hit;
  const cls = kindClasses.get(schema);
  if (!cls) return undefined;
  const build = (c: string): Record<string, unknown> => {
    const out: Record<string, unknown> = {};
    const fields = new Map(types()[c].f.map((f) => [f[0], f[1]]));
    for (const entry of VALUE_STRUCT_FIELDS[c] ?? []) {
      if (entry.startsWith('~')) {
        out[entry.slice(1)] = null;
        continue;
      }
      const spec = fields.get(entry);
      if (spec && types()[spec]) out[entry] = build(spec);
    }
    return out;
  };
  const skeleton = build(cls);
  skeletons.set(schema, skeleton);
  return skeleton;
}
const skeletons = new WeakMap<JSONSchemaProps, Record<string, unknown>>();

/** supportsStrategicMergePatch tells whether PATCH with application/strategic-merge-patch+json is allowed (built-ins only; 415 otherwise). */
export function supportsStrategicMergePatch(group: string, version: string, kind: string): boolean {
  return KINDS.has(kindKey(group, version, kind));
}

/** builtinKinds lists the group/version/kinds builtinSchema knows. */
export function builtinKinds(): { group: string; version: string; kind: string }[] {
  return BUILTIN_KINDS.map(({ group, version, kind }) => ({ group, version, kind }));
}

/** builtinKind returns the descriptor of a built-in kind (its model class) or undefined. */
export function builtinKind(group: string, version: string, kind: string): BuiltinKind | undefined {
  return KINDS.get(kindKey(group, version, kind));
}

const INT_OR_STRING_DOC =
  'IntOrString is a type that can hold an int32 or a string.  When used in JSON or YAML marshalling and unmarshalling, it produces or consumes the inner type.  This allows you to have, for example, a JSON field that can accept a name or number.';
const QUANTITY_DOC =
  'Quantity is a fixed-point representation of a number. It provides convenient marshaling/unmarshaling in JSON and YAML, in addition to String() and AsInt64() accessors. The serialization format is: <quantity> ::= <signedNumber><suffix> (e.g. "100m", "1Gi", "500Mi", "2"); a bare number is accepted too.';

/**
 * builtinDefinitions renders the named definitions reachable from the given built-in kinds, with class-typed
 * fields as `$ref: prefix + name` (prefix "#/definitions/" for v2, "#/components/schemas/" for v3). The root
 * definitions carry x-kubernetes-group-version-kind.
 */
export function builtinDefinitions(kinds: BuiltinKind[], prefix: string, o: { v3?: boolean; classes?: string[] } = {}): Record<string, JSONSchemaProps> {
  const out: Record<string, JSONSchemaProps> = {};
  const v3 = o.v3 === true;
  const style: RefStyle = { kind: 'ref', prefix, v3 };
  out[INT_OR_STRING] = v3
    ? { description: INT_OR_STRING_DOC, format: 'int-or-string', oneOf: [{ type: 'integer' }, { type: 'string' }] }
    : { description: INT_OR_STRING_DOC, type: 'string', format: 'int-or-string' };
  out[QUANTITY] = v3 ? { description: QUANTITY_DOC, oneOf: [{ type: 'string' }, { type: 'number' }] } : { description: QUANTITY_DOC, type: 'string' };
  const queue = [...kinds.map((k) => k.cls), ...(o.classes ?? [])];
  while (queue.length > 0) {
    const cls = queue.shift()!;
    const name = definitionName(cls);
    if (out[name]) continue;
    const node = objectShell(cls);
    fillProperties(cls, node, style);
    out[name] = node;
    for (const [, spec] of types()[cls].f) {
      const inner = spec.replace(/^(\[\]|\{\})+/, '');
      if (types()[inner]) queue.push(inner);
    }
  }
  for (const k of kinds) {
    const def = out[definitionName(k.cls)];
    const gvks = (def['x-kubernetes-group-version-kind'] as { group: string; version: string; kind: string }[] | undefined) ?? [];
    gvks.push({ group: k.group, version: k.version, kind: k.kind });
    def['x-kubernetes-group-version-kind'] = gvks;
  }
  return out;
}

/** objectMetaSchema returns the inline schema of meta/v1 ObjectMeta (shared, read-only). */
export function objectMetaSchema(): JSONSchemaProps {
  return classSchema('V1ObjectMeta', { kind: 'inline', memo: inlineMemo });
}
