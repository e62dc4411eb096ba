// Resource descriptors: one table entry per served resource (STYLE rule 5). Shared code reads behaviour from the
// descriptor's hooks and flags; it never branches on the kind.
import type { FieldError, JSONSchemaProps } from './schema/index.js';
import type { NameRule } from './validation.js';
import type { KubeObject } from './types.js';
import type { Cluster } from './cluster.js';
import type { UserInfo } from './auth/rules.js';

/** ColumnDefinition is one column of a meta.k8s.io Table. */
export interface ColumnDefinition {
  name: string;
  type: 'string' | 'integer' | 'number' | 'boolean' | 'date';
  format: string;
  description: string;
  priority: number;
}

/** PrinterColumn is a column plus the function computing its cell from an object. */
export interface PrinterColumn extends ColumnDefinition {
  cell(obj: KubeObject, now: number): unknown;
}

/** ScaleSpec locates the replica fields of a resource with a /scale subresource (JSON paths like .spec.replicas). */
export interface ScaleSpec {
  specReplicasPath: string;
  statusReplicasPath: string;
  labelSelectorPath?: string;
}

/** HookContext is what behaviour hooks may use: the clock, the cluster (allocators, other objects) and a warning sink. */
export interface HookContext {
  /** now is the RFC 3339 time of the request (seconds precision). */
  now: string;
  cluster: Cluster;
  warnings: string[];
  dryRun: boolean;
  /** subresource the write addresses ('status', 'binding' …), undefined for the main resource. */
  subresource?: string;
  /** user the request acts as; undefined for the server's own controllers. */
  user?: UserInfo;
}

/** Allocator hands out unique values (IPs, ports) and remembers who holds them. */
export interface Allocator {
  /** allocate returns a free value, or undefined when the range is full. */
  allocateNext(owner: string): string | undefined;
  /** allocateSpecific claims value for owner; false when taken by another owner or out of range. */
  allocateSpecific(value: string, owner: string): 'ok' | 'taken' | 'outOfRange';
  release(value: string, owner: string): void;
  holder(value: string): string | undefined;
  /** describe names the range, for error messages ("10.96.0.0/12", "30000-32767"). */
  readonly range: string;
}

/** KindHooks are the per-kind behaviours a strategy has in kube-apiserver (pkg/registry/<group>/<kind>/strategy.go). */
export interface KindHooks {
  /** decode turns a request body into the stored shape (Secret stringData folding) or throws a decode error message. */
  decode?(obj: KubeObject): KubeObject;
  /** default fills in defaults on create and update (kube runs defaulting at decode time). */
  default?(obj: KubeObject): void;
  /** prepareForCreate resets fields users may not set on create (status…). Mutates obj. */
  prepareForCreate?(obj: KubeObject, ctx: HookContext): void;
  /** prepareForUpdate carries over fields users may not change on the main resource. Mutates obj. */
  prepareForUpdate?(obj: KubeObject, old: KubeObject, ctx: HookContext): void;
  /** authorizeWrite refuses (throws a StatusError) a create or update its author may not make beyond the request's own
   * authorization: RBAC escalation prevention. Runs before validation, on the main resource only. */
  authorizeWrite?(obj: KubeObject, old: KubeObject | undefined, ctx: HookContext): void;
  validate?(obj: KubeObject, ctx: HookContext): FieldError[];
  validateUpdate?(obj: KubeObject, old: KubeObject, ctx: HookContext): FieldError[];
  /** allocate claims cluster resources (IPs, ports) after validation and fills them into obj; may throw StatusError.
   * Returns the undo that gives back what this call claimed (used for dry runs and failed writes). */
  allocate?(obj: KubeObject, old: KubeObject | undefined, ctx: HookContext): () => void;
  /** release frees what obj holds (on delete, or on a failed/rolled-back write). */
  release?(obj: KubeObject, ctx: HookContext): void;
  /** review makes a create-only kind answer with a computed status instead of storing anything (access reviews). */
  review?(obj: KubeObject, ctx: HookContext): KubeObject;
  /** validateDelete may refuse a deletion (Namespace: the system namespaces); throws a StatusError. */
  validateDelete?(obj: KubeObject, ctx: HookContext): void;
  /** beginDelete adjusts the object when its deletion starts (Namespace phase Terminating, CRD cleanup finalizer). */
  beginDelete?(obj: KubeObject, ctx: HookContext): void;
  /** deleteAgain runs when DELETE hits an object already being deleted; may throw (Namespace: 409). */
  deleteAgain?(obj: KubeObject, ctx: HookContext): void;
  /** blocksDeletion tells whether something besides metadata.finalizers holds the object (Namespace spec.finalizers). */
  blocksDeletion?(obj: KubeObject): boolean;
  /** fields returns the kind-specific selectable fields beyond metadata.name/namespace. */
  fields?(obj: KubeObject): Record<string, string>;
}

/** ActionContext is what an action subresource gets: the addressed object, the request body and options. */
export interface ActionContext {
  cluster: Cluster;
  /** namespace of the request ("" for cluster-scoped resources). */
  namespace: string;
  name: string;
  /** verb of the request: create (POST), update (PUT) or get. */
  verb: string;
  body: unknown;
  dryRun: boolean;
  fieldManager: string;
  /** The request's query parameters. */
  query: URLSearchParams;
}

/** ActionResult is an action's answer: an object (or a Status), or plain text (pods/log), with warnings. */
export interface ActionResult {
  code: number;
  obj: object;
  text?: string;
  warnings?: string[];
}

/** SubresourceAction is a subresource beyond status and scale (pods/eviction, pods/binding,
 * certificatesigningrequests/approval): its verbs, the kind it takes and answers with, and what it does. */
export interface SubresourceAction {
  name: string;
  verbs: string[];
  kind: { group: string; version: string; kind: string };
  /** run performs the request; returns the HTTP code and the answer (an object or a Status); may throw StatusError. */
  run(ctx: ActionContext): ActionResult;
  /** A streaming subresource (exec, attach, portforward, proxy): the request body is not an object to decode. */
  stream?: boolean;
}

/** ResourceDescriptor describes one resource (one group + plural) with all its served versions. */
export interface ResourceDescriptor {
  group: string;
  /** Served versions, the preferred one first. */
  versions: string[];
  /** The version objects are stored in. */
  storageVersion: string;
  kind: string;
  listKind: string;
  plural: string;
  singular: string;
  shortNames: string[];
  categories: string[];
  namespaced: boolean;
  verbs: string[];
  subresources: { status: boolean; scale?: ScaleSpec; actions?: SubresourceAction[] };
  nameRule: NameRule;
  /** Key of the table objects are kept in; two descriptors may share one (core and events.k8s.io Events). */
  storage: string;
  builtin: boolean;
  /** metadata.generation is set to 1 on create and bumped when anything but metadata (and status) changes. */
  tracksGeneration: boolean;
  allowCreateOnUpdate: boolean;
  allowUnconditionalUpdate: boolean;
  /** DELETE answers with the deleted object instead of a Success Status. */
  returnDeletedObject: boolean;
  /** Default propagation policy of DELETE (kube: background for nearly everything). */
  schema(version: string): JSONSchemaProps | undefined;
  columns(version: string): PrinterColumn[];
  /** convert turns a stored object into the given served version (and back with toStorage). */
  fromStorage(obj: KubeObject, version: string): KubeObject;
  toStorage(obj: KubeObject, version: string): KubeObject;
  /** fromStorage only sets apiVersion and kind (withApiVersion): a stored JSON text that starts with the served ones
   * is the answer as it is, without parsing the object (lists of cold objects, parsed.ts). */
  plainConversion?: boolean;
  /** selectable fields beyond metadata.*; the names a field selector may use. */
  fieldNames: string[];
  hooks: KindHooks;
  /** The CRD a custom resource comes from (its name), for lifecycle handling. */
  crd?: string;
}

/** gvString renders group/version ("v1" for core). */
export function gvString(group: string, version: string): string {
  return group ? `${group}/${version}` : version;
}

/** ALL_VERBS are the verbs of an ordinary resource. */
export const ALL_VERBS = ['create', 'delete', 'deletecollection', 'get', 'list', 'patch', 'update', 'watch'];

/** metaFields are the selectable fields every namespaced (or cluster-scoped) object has. */
export function metaFields(obj: KubeObject, namespaced: boolean): Record<string, string> {
  const m = obj.metadata ?? {};
  return namespaced ? { 'metadata.name': m.name ?? '', 'metadata.namespace': m.namespace ?? '' } : { 'metadata.name': m.name ?? '' };
}

/** selectableFields computes every field a field selector may test on obj. */
export function selectableFields(desc: ResourceDescriptor, obj: KubeObject): Record<string, string> {
  const base = metaFields(obj, desc.namespaced);
  return desc.hooks.fields ? { ...base, ...desc.hooks.fields(obj) } : base;
}

/** withApiVersion returns obj with apiVersion/kind set for the given version (the conversion of "None" strategy). */
export function withApiVersion(obj: KubeObject, apiVersion: string, kind: string): KubeObject {
  if (obj.apiVersion === apiVersion && obj.kind === kind) return obj;
  const { apiVersion: _a, kind: _k, ...rest } = obj;
  return { apiVersion, kind, ...rest };
}

/** getPath reads a dotted JSON path like .spec.replicas from obj. */
export function getPath(obj: unknown, path: string): unknown {
  let cur: unknown = obj;
  for (const part of path.replace(/^\./, '').split('.')) {
    if (part === '') continue;
    if (cur === null || typeof cur !== 'object') return undefined;
    cur = (cur as Record<string, unknown>)[part];
  }
  return cur;
}

/** setPath writes value at a dotted JSON path, creating objects on the way. */
export function setPath(obj: Record<string, unknown>, path: string, value: unknown): void {
  const parts = path.replace(/^\./, '').split('.').filter((p) => p !== '');
  let cur = obj;
  for (let i = 0; i < parts.length - 1; i++) {
    const next = cur[parts[i]];
    if (next === null || typeof next !== 'object' || Array.isArray(next)) cur[parts[i]] = {};
    cur = cur[parts[i]] as Record<string, unknown>;
  }
  cur[parts[parts.length - 1]] = value;
}

/** DecodeError is a body that cannot be turned into the kind (wrong JSON types, bad base64); the handler answers
 * 400 `<Kind> in version "<v>" cannot be handled as a <Kind>: <message>` like kube's transformDecodeError. */
export class DecodeError extends Error {
  override readonly name = 'DecodeError';
}

/** goJsonType names a JSON value the way Go's encoding/json does in UnmarshalTypeError ("number", "string"…). */
export function goJsonType(v: unknown): string {
  if (v === null) return 'null';
  if (Array.isArray(v)) return 'array';
  switch (typeof v) {
    case 'string':
      return 'string';
    case 'number':
      return 'number';
    case 'boolean':
      return 'bool';
    default:
      return 'object';
  }
}

/** requireStringMap checks that obj[field] is a map of strings, as a typed Go decode would. */
export function requireStringMap(obj: KubeObject, field: string, goStruct: string): void {
  const v = obj[field];
  if (v === undefined || v === null) return;
  if (typeof v !== 'object' || Array.isArray(v)) {
    throw new DecodeError(`json: cannot unmarshal ${goJsonType(v)} into Go struct field ${goStruct}.${field} of type map[string]string`);
  }
  for (const x of Object.values(v as Record<string, unknown>)) {
    if (typeof x !== 'string') throw new DecodeError(`json: cannot unmarshal ${goJsonType(x)} into Go struct field ${goStruct}.${field} of type string`);
  }
}
