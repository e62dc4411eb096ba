// Generic REST semantics over a Cluster, after k8s.io/apiserver's genericregistry.Store and the endpoint handlers:
// create / update / patch / delete / get / list with kube's metadata rules, optimistic concurrency, generation,
// finalizers and deletionTimestamp, subresources (status, scale, finalize), dry run and field validation.
// Everything between reading the current object and queuing the write is synchronous, so no two requests race.
import { randomUUID } from 'node:crypto';
import {
  applyJsonPatch,
  applyMergePatch,
  applyStrategicMergePatch,
  compileSchema,
  conflictCauses,
  isPatchError,
  serverSideApply,
  supportsStrategicMergePatch,
  trackUpdate,
  type Conflict,
  type FieldError,
  type JSONSchemaProps,
} from './schema/index.js';
import { admitByPolicies, stampTenantLabels } from './admission.js';
import type { AdmissionAttributes, AdmissionGate, AdmissionOperation } from './webhooks.js';
import { objectKey, type Cluster } from './cluster.js';
import { dropOmitEmpty } from './protobuf/decode.js';
import type { UserInfo } from './auth/rules.js';
import { DecodeError, gvString, selectableFields, setPath, getPath, type HookContext, type ResourceDescriptor, type SubresourceAction } from './resource.js';
import { fieldTermsMatch, parseFieldSelector, parseLabelSelector, SelectorError, type FieldTerm, type LabelSelector } from './selectors.js';
import {
  alreadyExists,
  applyConflict,
  badRequest,
  conflict,
  forbidden,
  GoRepr,
  invalid,
  methodNotAllowed,
  notFound,
  OPTIMISTIC_LOCK_MESSAGE,
  resourceExpired,
  StatusError,
  unsupportedMediaType,
  type GroupResource,
} from './status.js';
import { StoredObject } from './parsed.js';
import { clone, deepEqual, isPlainObject, type KubeObject, type ObjectMeta, type Stored } from './types.js';
import { metadataShapeErrors, validateObjectMeta, validateObjectMetaUpdate } from './validation.js';

/** Subresource is the subresource a request addresses (none for the main resource). */
export type Subresource = 'status' | 'scale' | 'finalize' | 'binding' | 'ephemeralcontainers' | undefined;

/** Scope is what a request addresses: a cluster, a resource in one of its versions, a namespace. */
export interface Scope {
  cluster: Cluster;
  desc: ResourceDescriptor;
  version: string;
  /** Namespace of the request ("" for cluster-scoped resources and all-namespace lists). */
  namespace: string;
  subresource?: Subresource;
  /** action is the addressed action subresource (pods/eviction …), when the request names one. */
  action?: SubresourceAction;
  /** admittedAs names the subresource admission sees when a subresource write runs as a main-resource update (scale). */
  admittedAs?: string;
}

/** FieldValidation is the fieldValidation query parameter. */
export type FieldValidation = 'Strict' | 'Warn' | 'Ignore';

/** WriteOptions are the options of a mutating request. */
export interface WriteOptions {
  dryRun: boolean;
  /** fieldManager of the request, already defaulted from the User-Agent. */
  fieldManager: string;
  fieldValidation: FieldValidation;
  /** Warnings to return in Warning headers. */
  warnings: string[];
  /** Admission webhooks' verdicts for this request (absent: none registered, or an in-process write). */
  gate?: AdmissionGate;
  /** user the request acts as (undefined: the server's own controllers). */
  user?: UserInfo;
}

/** internalWrite are the options in-process controllers use. */
export function internalWrite(manager: string): WriteOptions {
  return { dryRun: false, fieldManager: manager, fieldValidation: 'Ignore', warnings: [] };
}

const PERMISSIVE_SCHEMA: JSONSchemaProps = { type: 'object', 'x-kubernetes-preserve-unknown-fields': true };

/** groupResource of a descriptor, for Status details. */
export function groupResource(desc: ResourceDescriptor): GroupResource {
  return { group: desc.group, resource: desc.plural };
}

let lastSecond = NaN;
let lastRendered = '';
/** rfc3339 renders a date with seconds precision, as metav1.Time marshals (cached per second: it is on every write). */
export function rfc3339(d: Date): string {
  const sec = Math.floor(d.getTime() / 1000);
  if (sec !== lastSecond) {
    lastSecond = sec;
    lastRendered = d.toISOString().replace(/\.\d{3}Z$/, 'Z');
  }
  return lastRendered;
}

function schemaOf(desc: ResourceDescriptor, version: string): JSONSchemaProps {
  return desc.schema(version) ?? PERMISSIVE_SCHEMA;
}

function hookContext(scope: Scope, o: WriteOptions): HookContext {
  return { now: rfc3339(scope.cluster.ctx.now()), cluster: scope.cluster, warnings: o.warnings, dryRun: o.dryRun, subresource: scope.subresource, user: o.user };
}

// Go: names.SimpleNameGenerator — 5 random characters from an alphabet without vowels or confusables.
const GENERATE_ALPHABET = 'bcdfghjklmnpqrstvwxz2456789';
function generateName(base: string): string {
  const prefix = base.length > 58 ? base.slice(0, 58) : base;
  let s = '';
  for (let i = 0; i < 5; i++) s += GENERATE_ALPHABET[Math.floor(Math.random() * GENERATE_ALPHABET.length)];
  return prefix + s;
}

/** outputObject converts a stored object into the request's version. */
export function outputObject(scope: Scope, obj: KubeObject): KubeObject {
  return scope.desc.fromStorage(obj, scope.version);
}

// ----------------------------------------------------------------------------- decoding

/**
 * decodeObject checks a request body the way kube's decoder does (apiVersion/kind, metadata shape, typed fields,
 * unknown fields per fieldValidation) and converts it to the stored shape with defaults applied.
 */
export function decodeObject(scope: Scope, body: unknown, o: WriteOptions, subresource?: Subresource, { owned = false } = {}): KubeObject {
  const { desc, version } = scope;
  const gv = gvString(desc.group, version);
  if (!isPlainObject(body)) {
    throw badRequest(`couldn't get version/kind; json parse error: json: cannot unmarshal ${Array.isArray(body) ? 'array' : typeof body} into Go value of type struct { APIVersion string "json:\\"apiVersion,omitempty\\""; Kind string "json:\\"kind,omitempty\\"" }`);
  }
  // A body parsed for this request is ours to change; anything else (patch results) may share parts with stored objects.
  const obj = (owned ? body : clone(body)) as KubeObject;
  const expectedKind = subresource === 'scale' ? 'Scale' : desc.kind;
  const expectedGv = subresource === 'scale' ? 'autoscaling/v1' : gv;
  if (obj.apiVersion !== undefined && obj.apiVersion !== '' && obj.apiVersion !== expectedGv) {
    throw badRequest(`the API version in the data (${String(obj.apiVersion)}) does not match the expected API version (${expectedGv})`);
  }
  if (obj.kind !== undefined && obj.kind !== '' && obj.kind !== expectedKind) {
    throw badRequest(`${expectedKind} in version "${version}" cannot be handled as a ${expectedKind}: the kind in the data (${String(obj.kind)}) does not match the expected kind (${expectedKind})`);
  }
  obj.apiVersion = expectedGv;
  obj.kind = expectedKind;
  const cannot = (msg: string) => badRequest(`${expectedKind} in version "${version}" cannot be handled as a ${expectedKind}: ${msg}`);
  const shape = metadataShapeErrors(obj);
  if (shape) throw cannot(shape);
  if (obj.metadata === undefined || obj.metadata === null) obj.metadata = {};
  if (subresource === 'scale') return obj;
  // Unknown fields are detected before pruning, as kube's strict decoder does. A built-in kind drops them whatever
  // fieldValidation says (Go: decoding into the typed struct keeps only its fields); custom resources are pruned
  // later, by their structural schema.
  const schema = desc.schema(version);
  let decoded = obj;
  if (schema && (o.fieldValidation !== 'Ignore' || desc.builtin)) {
    const compiled = compileSchema(schema, { isBuiltin: desc.builtin });
    const unknown = compiled.unknownFields(obj);
    if (unknown.length > 0) {
      const msgs = unknown.map((p) => `unknown field "${p}"`);
      if (o.fieldValidation === 'Strict') throw cannot(`strict decoding error: ${msgs.join(', ')}`);
      if (o.fieldValidation === 'Warn') o.warnings.push(...msgs);
      if (desc.builtin) decoded = compiled.prune(obj).object as KubeObject;
    }
  }
  let out = decoded;
  try {
    if (desc.hooks.decode) out = desc.hooks.decode(out);
  } catch (e) {
    if (e instanceof DecodeError) throw cannot(e.message);
    throw e;
  }
  // Go: the typed round trip (decode into the Go struct, encode with omitempty) — `selector: {}` never comes back.
  if (desc.builtin) dropOmitEmpty(expectedGv, expectedKind, out as Record<string, unknown>);
  out = desc.toStorage(out, version);
  if (desc.hooks.default) desc.hooks.default(out);
  return out;
}

// ----------------------------------------------------------------------------- validation helpers

function validateAll(scope: Scope, obj: KubeObject, old: KubeObject | undefined, ctx: HookContext): FieldError[] {
  const { desc } = scope;
  const errs: FieldError[] = [];
  if (old) {
    if (desc.hooks.validateUpdate) errs.push(...desc.hooks.validateUpdate(obj, old, ctx));
  } else if (desc.hooks.validate) errs.push(...desc.hooks.validate(obj, ctx));
  if (!desc.builtin) {
    // Go: apiextensions-apiserver customResourceStrategy.Validate — a custom resource is validated against the schema of
    // the version it was written in (the request's), not the storage version's; with conversion None both shapes can
    // be stored (src/api/README.md relies on that for v1alpha1 string selectors).
    const version = scope.version;
    const schema = desc.schema(version);
    if (schema) {
      errs.push(...compileSchema(schema).validate(desc.fromStorage(obj, version), old && desc.fromStorage(old, version)));
    }
  }
  if (old) errs.push(...validateObjectMetaUpdate(obj.metadata!, old.metadata!));
  else errs.push(...validateObjectMeta(obj.metadata!, desc.namespaced, desc.nameRule));
  return errs;
}

// What admission (policies and webhooks) sees of a write: the objects in the request's version.
function attributesOf(scope: Scope, operation: 'CREATE' | 'UPDATE', obj: KubeObject, old: KubeObject | undefined, o: WriteOptions): AdmissionAttributes & { object: KubeObject } {
  const meta = obj.metadata ?? {};
  return {
    operation,
    desc: scope.desc,
    version: scope.version,
    subresource: scope.admittedAs ?? scope.subresource,
    namespace: meta.namespace ?? '',
    name: meta.name ?? '',
    object: outputObject(scope, obj),
    oldObject: old && outputObject(scope, old),
    dryRun: o.dryRun,
    options: optionsOf(operation, o),
    warnings: o.warnings,
  };
}

// Validating admission runs after the strategy's validation, on the request's version of the object.
function admit(scope: Scope, operation: 'CREATE' | 'UPDATE', obj: KubeObject, old: KubeObject | undefined, o: WriteOptions): void {
  const attrs = attributesOf(scope, operation, obj, old, o);
  admitByPolicies(scope.cluster, { ...attrs, operation, username: o.user?.username ?? `ripple:${scope.cluster.name}:admin`, groups: o.user?.groups });
  o.gate?.validate(attrs);
}

function optionsOf(operation: AdmissionOperation, o: { dryRun?: boolean; fieldManager?: string }): Record<string, unknown> {
  const kind = operation === 'CREATE' ? 'CreateOptions' : operation === 'UPDATE' ? 'UpdateOptions' : 'DeleteOptions';
  const out: Record<string, unknown> = { kind, apiVersion: 'meta.k8s.io/v1' };
  if (o.dryRun) out.dryRun = ['All'];
  if (o.fieldManager) out.fieldManager = o.fieldManager;
  return out;
}

// Mutating admission webhooks (before validation). The object comes back decoded and defaulted again, as kube
// decodes a webhook's patched object.
function mutateByWebhooks(scope: Scope, operation: 'CREATE' | 'UPDATE', obj: KubeObject, old: KubeObject | undefined, o: WriteOptions): KubeObject {
  const attrs = attributesOf(scope, operation, obj, old, o);
  const mutated = o.gate!.mutate(attrs);
  if (mutated === attrs.object || deepEqual(mutated, attrs.object)) return obj;
  return decodeObject(scope, mutated, { ...o, fieldValidation: 'Ignore' }, scope.subresource, { owned: true });
}

function throwInvalid(scope: Scope, name: string, errs: FieldError[]): never {
  throw invalid({ group: scope.desc.group, kind: scope.desc.kind }, name, errs);
}

// Go: rest.EnsureObjectNamespaceMatchesRequestNamespace
function ensureNamespace(scope: Scope, meta: ObjectMeta): void {
  const requestNs = scope.desc.namespaced ? scope.namespace : '';
  const objNs = meta.namespace ?? '';
  if (objNs === requestNs) return;
  if (objNs === '') meta.namespace = requestNs;
  else if (requestNs === '') delete meta.namespace;
  else throw badRequest('the namespace of the provided object does not match the namespace sent on the request');
  if (meta.namespace === '') delete meta.namespace;
}

// Go: plugin/pkg/admission/namespace/lifecycle — the namespace must exist and not be terminating.
function checkNamespaceLifecycle(scope: Scope, name: string): void {
  if (!scope.desc.namespaced) return;
  const ns = scope.cluster.get('/namespaces', '', scope.namespace);
  if (!ns) throw notFound({ group: '', resource: 'namespaces' }, scope.namespace);
  if (ns.obj.metadata.deletionTimestamp) {
    throw forbidden(
      groupResource(scope.desc),
      name,
      `unable to create new content in namespace ${scope.namespace} because it is being terminated`,
      [{ reason: 'NamespaceTerminating', message: `namespace ${scope.namespace} is being terminated`, field: 'metadata.namespace' }],
    );
  }
}

// Everything but metadata (and status when a status subresource exists) — what generation tracks.
function specPart(desc: ResourceDescriptor, obj: KubeObject): Record<string, unknown> {
  const { metadata: _m, apiVersion: _a, kind: _k, ...rest } = obj;
  if (desc.subresources.status) delete (rest as Record<string, unknown>).status;
  return rest;
}

// managedFields compared without timestamps: an update that changes nothing else is a no-op.
function withoutManagedTimes(obj: KubeObject): KubeObject {
  const mf = obj.metadata?.managedFields;
  if (!Array.isArray(mf)) return obj;
  return { ...obj, metadata: { ...obj.metadata, managedFields: mf.map((e) => ({ ...(e as object), time: undefined })) } };
}

// ----------------------------------------------------------------------------- create

/** CreateResult is a created object and whether it was only a dry run. */
export interface WriteResult {
  obj: KubeObject;
  stored?: Stored;
}

/** create handles POST on a collection; it takes ownership of body. Go: genericregistry.Store.Create + handlers.createHandler */
export function create(scope: Scope, body: unknown, o: WriteOptions): WriteResult {
  const obj = decodeObject(scope, body, o, undefined, { owned: true });
  if (scope.desc.hooks.review) {
    if (scope.desc.namespaced) ensureNamespace(scope, obj.metadata!);
    return { obj: outputObject(scope, scope.desc.hooks.review(obj, hookContext(scope, o))) };
  }
  return createObject(scope, obj, o, { trackFields: true });
}

/** createObject runs the create path for an already decoded object in the stored shape. */
export function createObject(scope: Scope, input: KubeObject, o: WriteOptions, { trackFields }: { trackFields: boolean }): WriteResult {
  const { desc, cluster } = scope;
  let obj = input;
  let meta = obj.metadata!;
  // Go: rest.WipeObjectMetaSystemFields
  delete meta.uid;
  delete meta.creationTimestamp;
  delete meta.deletionTimestamp;
  delete meta.deletionGracePeriodSeconds;
  delete meta.selfLink;
  if (meta.resourceVersion) {
    throw new StatusError({ kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Failure', message: 'resourceVersion should not be set on objects to be created', code: 500 });
  }
  delete meta.resourceVersion;
  ensureNamespace(scope, meta);
  if (o.gate) {
    obj = mutateByWebhooks(scope, 'CREATE', obj, undefined, o);
    meta = obj.metadata!;
    ensureNamespace(scope, meta);
  }
  if (!meta.name && meta.generateName) meta.name = generateName(meta.generateName);
  checkNamespaceLifecycle(scope, meta.name ?? '');
  const ctx = hookContext(scope, o);
  if (desc.subresources.status && !desc.builtin) delete obj.status;
  desc.hooks.prepareForCreate?.(obj, ctx);
  if (desc.tracksGeneration) meta.generation = 1;
  meta.uid = randomUUID();
  meta.creationTimestamp = ctx.now;
  stampTenantLabels(desc, obj, undefined, o.user?.username);
  desc.hooks.authorizeWrite?.(obj, undefined, ctx);
  const errs = validateAll(scope, obj, undefined, ctx);
  if (errs.length > 0) throwInvalid(scope, meta.name ?? '', errs);
  admit(scope, 'CREATE', obj, undefined, o);
  // A generated name that collides is regenerated, as kube retries.
  for (let tries = 0; cluster.get(desc.storage, meta.namespace, meta.name!); tries++) {
    if (!meta.generateName || tries >= 8) throw alreadyExists(groupResource(desc), meta.name!);
    meta.name = generateName(meta.generateName);
  }
  let result = obj;
  if (trackFields) {
    result = trackUpdate(undefined, outputObject(scope, obj), { manager: o.fieldManager, schema: schemaOf(desc, scope.version), apiVersion: gvString(desc.group, scope.version), now: ctx.now }) as KubeObject;
    result = desc.toStorage(result, scope.version);
  }
  const undo = desc.hooks.allocate?.(result, undefined, ctx);
  if (o.dryRun) {
    undo?.();
    return { obj: outputObject(scope, result) };
  }
  return store(scope, result, undo);
}

// Queues the write; what the allocate hook claimed is given back if the write fails now or at commit.
function store(scope: Scope, obj: KubeObject, undo: (() => void) | undefined): WriteResult {
  try {
    const stored = scope.cluster.put(scope.desc.storage, obj as KubeObject & { metadata: ObjectMeta }, { onFail: undo });
    return { obj: outputObject(scope, stored.obj), stored };
  } catch (e) {
    undo?.();
    throw e;
  }
}

// ----------------------------------------------------------------------------- update

/** UpdateMode tells how the new object came about, for managedFields and preconditions. */
interface UpdateMode {
  /** The object already carries managedFields for this request (server-side apply). */
  fieldsTracked: boolean;
  /** The caller is a patch: a resourceVersion in the result is a precondition, an absent one means "current". */
  isPatch: boolean;
}

/** update handles PUT on an object or its status/finalize subresource; it takes ownership of body.
 * Go: genericregistry.Store.Update */
export function update(scope: Scope, name: string, body: unknown, o: WriteOptions): WriteResult & { created: boolean } {
  const { desc, cluster } = scope;
  if (scope.subresource === 'scale') return updateScale(scope, name, body, o);
  const obj = decodeObject(scope, body, o, scope.subresource, { owned: true });
  const meta = obj.metadata!;
  if (!meta.name) meta.name = name;
  else if (meta.name !== name) throw badRequest(`the name of the object (${meta.name}) does not match the name on the URL (${name})`);
  ensureNamespace(scope, meta);
  const cur = cluster.get(desc.storage, scope.namespace || undefined, name);
  if (!cur) {
    if (!desc.allowCreateOnUpdate || scope.subresource) throw notFound(groupResource(desc), name);
    delete meta.resourceVersion;
    return { ...createObject(scope, obj, o, { trackFields: true }), created: true };
  }
  return { ...updateObject(scope, cur, obj, o, { fieldsTracked: false, isPatch: false }), created: false };
}

function updateObject(scope: Scope, cur: Stored, incoming: KubeObject, o: WriteOptions, mode: UpdateMode): WriteResult {
  const { desc } = scope;
  const old = cur.obj;
  const name = old.metadata.name!;
  const ctx = hookContext(scope, o);
  let obj: KubeObject;
  // Subresource writes take only their part from the request.
  switch (scope.subresource) {
    case 'status':
      // A custom resource's strategy changes nothing but status and metadata: the rest stays shared with the stored
      // object (which is never changed in place), and its validation ratchets over it at once.
      obj = desc.builtin ? { ...clone(old), status: incoming.status } : { ...old, metadata: clone(old.metadata), status: incoming.status };
      if (incoming.status === undefined) delete obj.status;
      obj.metadata!.resourceVersion = incoming.metadata?.resourceVersion;
      if (mode.fieldsTracked) obj.metadata!.managedFields = incoming.metadata?.managedFields;
      break;
    case 'binding':
      // Go: BindingREST / assignPod — only spec.nodeName changes (in-process scheduler and the Binding kind).
      obj = clone(old);
      obj.spec = { ...(isPlainObject(old.spec) ? old.spec : {}), nodeName: isPlainObject(incoming.spec) ? incoming.spec.nodeName : undefined };
      obj.metadata!.resourceVersion = incoming.metadata?.resourceVersion;
      break;
    case 'ephemeralcontainers':
      // Go: EphemeralContainersREST / podEphemeralContainersStrategy — only spec.ephemeralContainers changes, and
      // only by adding containers.
      obj = clone(old);
      {
        const spec: Record<string, unknown> = { ...(isPlainObject(old.spec) ? old.spec : {}), ephemeralContainers: isPlainObject(incoming.spec) ? incoming.spec.ephemeralContainers : undefined };
        if (asList(spec.ephemeralContainers).length === 0) delete spec.ephemeralContainers;
        obj.spec = spec;
      }
      obj.metadata!.resourceVersion = incoming.metadata?.resourceVersion;
      checkEphemeralContainers(scope, name, old, obj);
      break;
    case 'finalize':
      obj = clone(old);
      obj.spec = { ...(isPlainObject(old.spec) ? old.spec : {}), finalizers: (isPlainObject(incoming.spec) ? incoming.spec.finalizers : undefined) ?? [] };
      obj.metadata!.resourceVersion = incoming.metadata?.resourceVersion;
      break;
    default:
      obj = incoming;
      if (desc.subresources.status) {
        if (old.status === undefined) delete obj.status;
        else obj.status = old.status;
      }
      desc.hooks.prepareForUpdate?.(obj, old, ctx);
  }
  if (o.gate) obj = mutateByWebhooks(scope, 'UPDATE', obj, old, o);
  const meta = obj.metadata!;
  // Optimistic concurrency. Go: genericregistry.Store.Update / etcd3 GuaranteedUpdate preconditions
  const rv = meta.resourceVersion;
  if (rv === undefined || rv === '') {
    if (!desc.allowUnconditionalUpdate && !mode.isPatch) {
      throwInvalid(scope, name, [{ type: 'FieldValueInvalid', field: 'metadata.resourceVersion', badValue: new GoRepr('0x0'), detail: 'must be specified for an update' }]);
    }
  } else {
    if (!/^\d+$/.test(rv)) throw badRequest(`invalid resource version: strconv.ParseUint: parsing ${JSON.stringify(rv)}: invalid syntax`);
    if (Number(rv) !== cur.rv) throw conflict(groupResource(desc), name, OPTIMISTIC_LOCK_MESSAGE);
  }
  // Go: rest.BeforeUpdate — system fields come from the stored object.
  meta.generation = old.metadata.generation;
  if (meta.generation === undefined) delete meta.generation;
  if (!meta.uid) meta.uid = old.metadata.uid;
  meta.creationTimestamp = old.metadata.creationTimestamp;
  if (old.metadata.deletionTimestamp) meta.deletionTimestamp = old.metadata.deletionTimestamp;
  if (old.metadata.deletionGracePeriodSeconds !== undefined && meta.deletionGracePeriodSeconds === undefined) {
    meta.deletionGracePeriodSeconds = old.metadata.deletionGracePeriodSeconds;
  }
  if (desc.tracksGeneration && !deepEqual(specPart(desc, obj), specPart(desc, old))) meta.generation = (old.metadata.generation ?? 0) + 1;
  if (!scope.subresource) stampTenantLabels(desc, obj, old, o.user?.username);
  if (!scope.subresource) desc.hooks.authorizeWrite?.(obj, old, ctx);
  const errs = validateAll(scope, obj, old, ctx);
  if (errs.length > 0) throwInvalid(scope, name, errs);
  admit(scope, 'UPDATE', obj, old, o);
  let result = obj;
  if (!mode.fieldsTracked) {
    result = trackUpdate(outputObject(scope, old), outputObject(scope, obj), {
      manager: o.fieldManager,
      schema: schemaOf(desc, scope.version),
      apiVersion: gvString(desc.group, scope.version),
      now: ctx.now,
      subresource: scope.subresource,
    }) as KubeObject;
    result = desc.toStorage(result, scope.version);
  }
  result.metadata!.resourceVersion = old.metadata.resourceVersion;
  // A write that changes nothing is not a write (no new resourceVersion, no event). Go: etcd3 GuaranteedUpdate
  if (deepEqual(withoutManagedTimes(result), withoutManagedTimes(old))) return { obj: outputObject(scope, old), stored: cur };
  const undo = desc.hooks.allocate?.(result, old, ctx);
  if (o.dryRun) {
    undo?.();
    return { obj: outputObject(scope, result) };
  }
  // Removing the last finalizer of an object being deleted deletes it. Go: genericregistry ShouldDeleteDuringUpdate
  if (result.metadata!.deletionTimestamp && !(result.metadata!.finalizers ?? []).length && !desc.hooks.blocksDeletion?.(result)) {
    undo?.();
    const last = { ...result, metadata: { ...result.metadata!, resourceVersion: String(cur.rv) } };
    finalRemove(scope, cur);
    return { obj: outputObject(scope, last) };
  }
  return store(scope, result, undo);
}

function asList(v: unknown): Record<string, unknown>[] {
  return Array.isArray(v) ? v.filter(isPlainObject) : [];
}

// Go: validation.ValidatePodEphemeralContainersUpdate — existing ephemeral containers stay as they are; names are unique.
function checkEphemeralContainers(scope: Scope, name: string, old: KubeObject, next: KubeObject): void {
  const before = asList(isPlainObject(old.spec) ? old.spec.ephemeralContainers : undefined);
  const after = asList(isPlainObject(next.spec) ? next.spec.ephemeralContainers : undefined);
  const errs: FieldError[] = [];
  for (const b of before) {
    const i = after.findIndex((a) => a.name === b.name);
    if (i < 0) errs.push({ type: 'FieldValueForbidden', field: 'spec.ephemeralContainers', detail: `existing ephemeral containers ${JSON.stringify(String(b.name))} may not be removed` });
    else if (!deepEqual(after[i], b)) errs.push({ type: 'FieldValueForbidden', field: `spec.ephemeralContainers[${i}]`, detail: `existing ephemeral containers ${JSON.stringify(String(b.name))} may not be changed` });
  }
  const spec = isPlainObject(next.spec) ? next.spec : {};
  const taken = new Set([...asList(spec.containers), ...asList(spec.initContainers)].map((c) => String(c.name)));
  after.forEach((c, i) => {
    if (typeof c.name !== 'string' || c.name === '') errs.push({ type: 'FieldValueRequired', field: `spec.ephemeralContainers[${i}].name`, detail: '' });
    else if (taken.has(c.name)) errs.push({ type: 'FieldValueDuplicate', field: `spec.ephemeralContainers[${i}].name`, badValue: c.name, detail: '' });
    else taken.add(c.name);
    if (typeof c.image !== 'string' || c.image === '') errs.push({ type: 'FieldValueRequired', field: `spec.ephemeralContainers[${i}].image`, detail: '' });
  });
  if (errs.length > 0) throwInvalid(scope, name, errs);
}

// ----------------------------------------------------------------------------- scale

function scaleOf(scope: Scope, obj: KubeObject): KubeObject {
  const spec = scope.desc.subresources.scale!;
  const status: Record<string, unknown> = { replicas: Number(getPath(obj, spec.statusReplicasPath) ?? 0) };
  if (spec.labelSelectorPath) {
    const sel = getPath(obj, spec.labelSelectorPath);
    if (typeof sel === 'string') status.selector = sel;
    else if (scope.desc.builtin) {
      const ml = getPath(obj, '.spec.selector.matchLabels');
      if (isPlainObject(ml)) status.selector = Object.entries(ml).map(([k, v]) => `${k}=${String(v)}`).join(',');
    }
  }
  const m = obj.metadata!;
  return {
    kind: 'Scale',
    apiVersion: 'autoscaling/v1',
    metadata: { name: m.name, namespace: m.namespace, uid: m.uid, resourceVersion: m.resourceVersion, creationTimestamp: m.creationTimestamp },
    spec: { replicas: Number(getPath(obj, spec.specReplicasPath) ?? 0) },
    status,
  };
}

/** getScale reads the /scale subresource of an object. */
export function getScale(scope: Scope, name: string): KubeObject {
  const cur = requireObject(scope, name);
  if (!scope.desc.subresources.scale) throw notFound(groupResource(scope.desc), name);
  return scaleOf(scope, cur.obj);
}

function updateScale(scope: Scope, name: string, body: unknown, o: WriteOptions): WriteResult & { created: boolean } {
  const spec = scope.desc.subresources.scale;
  if (!spec) throw notFound(groupResource(scope.desc), name);
  const scale = decodeObject(scope, body, o, 'scale');
  const cur = requireObject(scope, name);
  const replicas = isPlainObject(scale.spec) ? scale.spec.replicas : undefined;
  if (typeof replicas !== 'number' || !Number.isInteger(replicas) || replicas < 0) {
    throw invalid({ group: 'autoscaling', kind: 'Scale' }, name, [{ type: 'FieldValueInvalid', field: 'spec.replicas', badValue: replicas ?? null, detail: 'must be greater than or equal to 0' }]);
  }
  const next = clone(cur.obj);
  setPath(next, spec.specReplicasPath, replicas);
  next.metadata.resourceVersion = scale.metadata?.resourceVersion || String(cur.rv);
  const r = updateObject({ ...scope, subresource: undefined, admittedAs: 'scale' }, cur, next, o, { fieldsTracked: false, isPatch: false });
  const after = r.stored?.obj ?? scope.desc.toStorage(r.obj, scope.version);
  return { obj: scaleOf(scope, after), stored: r.stored, created: false };
}

// ----------------------------------------------------------------------------- patch

/** PatchType is a PATCH content type. */
export type PatchType = 'json' | 'merge' | 'strategic' | 'apply';

/** patchTypeOf maps a Content-Type to a PatchType (undefined for unsupported media types). */
export function patchTypeOf(contentType: string): PatchType | undefined {
  switch (contentType.split(';')[0].trim().toLowerCase()) {
    case 'application/json-patch+json':
      return 'json';
    case 'application/merge-patch+json':
      return 'merge';
    case 'application/strategic-merge-patch+json':
      return 'strategic';
    case 'application/apply-patch+yaml':
    case 'application/apply-patch+json':
      return 'apply';
    default:
      return undefined;
  }
}

// SSA conflicts as Status causes (the schema component names the Go field Type; its JSON key is "reason").
function causesOf(conflicts: Conflict[]): { reason: string; message: string; field: string }[] {
  return conflictCauses(conflicts).map((c) => ({ reason: c.type, message: c.message, field: c.field }));
}

/** patch handles PATCH in its four content types. Go: handlers/patch.go */
export function patch(scope: Scope, name: string, type: PatchType, body: unknown, o: WriteOptions & { force: boolean }): WriteResult & { created: boolean } {
  const { desc, cluster } = scope;
  const gv = gvString(desc.group, scope.version);
  if (type === 'strategic' && !supportsStrategicMergePatch(desc.group, scope.version, desc.kind)) {
    throw unsupportedMediaType(
      'the body of the request was in an unknown format - accepted media types include: application/json-patch+json, application/merge-patch+json, application/apply-patch+yaml',
    );
  }
  if (type === 'apply') {
    if (!o.fieldManager) {
      throw invalid({ group: 'meta.k8s.io', kind: 'PatchOptions' }, '', [{ type: 'FieldValueRequired', field: 'fieldManager', detail: 'is required for apply patch' }]);
    }
    if (!isPlainObject(body)) throw badRequest('error decoding YAML: the applied configuration must be an object');
  } else if (o.force) {
    throw invalid({ group: 'meta.k8s.io', kind: 'PatchOptions' }, '', [{ type: 'FieldValueForbidden', field: 'force', detail: 'may not be specified for non-apply patch' }]);
  }
  const cur = cluster.get(desc.storage, scope.namespace || undefined, name);
  const schema = schemaOf(desc, scope.version);
  const now = rfc3339(cluster.ctx.now());
  if (!cur) {
    if (type !== 'apply' || scope.subresource) throw notFound(groupResource(desc), name);
    // Server-side apply creates the object.
    const applied = body as KubeObject;
    checkAppliedIdentity(scope, applied, name);
    const r = serverSideApply(undefined, applied, { manager: o.fieldManager, force: o.force, schema, apiVersion: gv, now });
    if (!r.ok) throw applyConflict(causesOf(r.conflicts), r.message);
    // serverSideApply answers a fresh object (only its managedFields' FieldsV1 values are shared, and kept as they are).
    const obj = decodeObject(scope, r.object, o, undefined, { owned: true });
    return { ...createObject(scope, obj, o, { trackFields: false }), created: true };
  }
  const original = outputObject(scope, cur.obj);
  const target = scope.subresource === 'scale' ? scaleOf(scope, cur.obj) : original;
  const statusApplyOfCR = type === 'apply' && scope.subresource === 'status' && !desc.builtin;
  let patched: KubeObject;
  try {
    switch (type) {
      case 'json':
        patched = applyJsonPatch(target, body) as KubeObject;
        break;
      case 'merge':
        patched = applyMergePatch(target, body) as KubeObject;
        break;
      case 'strategic':
        patched = applyStrategicMergePatch(target, body, schema) as KubeObject;
        break;
      case 'apply': {
        checkAppliedIdentity(scope, body as KubeObject, name);
        // A status apply to a custom resource copies only the parts it keeps (statusPart, below).
        const shareUnchanged = statusApplyOfCR;
        const r = serverSideApply(target, body as object, { manager: o.fieldManager, force: o.force, schema, apiVersion: gv, now, subresource: scope.subresource, shareUnchanged });
        if (!r.ok) throw applyConflict(causesOf(r.conflicts), r.message);
        patched = r.object as KubeObject;
        break;
      }
    }
  } catch (e) {
    if (isPatchError(e)) {
      throw new StatusError({ kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Failure', message: e.message, reason: e.code, code: e.status } as never);
    }
    throw e;
  }
  if (scope.subresource === 'scale') return updateScale(scope, name, { ...patched, metadata: { ...patched.metadata, resourceVersion: patched.metadata?.resourceVersion ?? String(cur.rv) } }, o);
  const pm = patched.metadata;
  if (isPlainObject(pm)) {
    if (pm.name !== undefined && pm.name !== name) throw badRequest(`the name of the object (${String(pm.name)}) does not match the name on the URL (${name})`);
    // A patch addressing an old resourceVersion is a precondition that fails; none means "the current one".
    if (pm.resourceVersion === undefined || pm.resourceVersion === '') pm.resourceVersion = String(cur.rv);
  }
  // A status apply of a custom resource keeps only status (and resourceVersion, managedFields) of what it decodes
  // (updateObject): defaulting and pruning the rest — an EventReport's 100 KB spec — would be thrown away. Apply
  // only: its typed merge already refused undeclared fields anywhere in the body, whereas a merge or JSON patch of
  // /status may carry unknown spec fields that strict field validation must still report.
  const decodeFrom = statusApplyOfCR ? statusPart(patched) : patched;
  // serverSideApply answers a fresh object (only its managedFields' FieldsV1 values are shared, and kept as they
  // are), except for a status apply to a custom resource, whose kept part is copied here.
  const obj = decodeObject(scope, decodeFrom, o, scope.subresource, { owned: type === 'apply' && !statusApplyOfCR });
  obj.metadata!.name ??= name;
  ensureNamespace(scope, obj.metadata!);
  return { ...updateObject(scope, cur, obj, o, { fieldsTracked: type === 'apply', isPatch: true }), created: false };
}

// statusPart is what a status write of a custom resource takes from the patched object.
function statusPart(o: KubeObject): KubeObject {
  const out: Record<string, unknown> = {};
  for (const k of ['apiVersion', 'kind', 'metadata', 'status']) if (k in o) out[k] = (o as Record<string, unknown>)[k];
  return out as KubeObject;
}

// Go: the apply handler requires the applied object to name the same kind and object.
function checkAppliedIdentity(scope: Scope, applied: KubeObject, name: string): void {
  const gv = gvString(scope.desc.group, scope.version);
  const kind = scope.subresource === 'scale' ? 'Scale' : scope.desc.kind;
  if (applied.apiVersion !== undefined && applied.apiVersion !== gv && scope.subresource !== 'scale') {
    throw badRequest(`the API version in the data (${String(applied.apiVersion)}) does not match the expected API version (${gv})`);
  }
  if (applied.kind !== undefined && applied.kind !== kind) {
    throw badRequest(`${kind} in version "${scope.version}" cannot be handled as a ${kind}: the kind in the data (${String(applied.kind)}) does not match the expected kind (${kind})`);
  }
  const m = applied.metadata;
  if (isPlainObject(m) && m.name !== undefined && m.name !== name) {
    throw badRequest(`the name of the object (${String(m.name)}) does not match the name on the URL (${name})`);
  }
}

// ----------------------------------------------------------------------------- delete

/** DeleteOptions is metav1.DeleteOptions (the parts we honour). */
export interface DeleteOptions {
  propagationPolicy?: 'Orphan' | 'Background' | 'Foreground';
  orphanDependents?: boolean;
  preconditions?: { uid?: string; resourceVersion?: string };
  gracePeriodSeconds?: number;
  dryRun?: boolean;
  /** Admission webhooks' verdicts for this request. */
  gate?: AdmissionGate;
}

/** DeleteResult is the answer to a DELETE: the object (or a Status) and whether it is gone. */
export interface DeleteResult {
  obj: KubeObject;
  deleted: boolean;
}

const ORPHAN = 'orphan';
const FOREGROUND = 'foregroundDeletion';

/** parseDeleteOptions validates a DeleteOptions body/query. */
export function parseDeleteOptions(raw: Record<string, unknown>): DeleteOptions {
  const out: DeleteOptions = {};
  const pp = raw.propagationPolicy;
  if (pp !== undefined && pp !== null && pp !== '') {
    if (pp !== 'Orphan' && pp !== 'Background' && pp !== 'Foreground') {
      throw invalid({ group: 'meta.k8s.io', kind: 'DeleteOptions' }, '', [
        { type: 'FieldValueNotSupported', field: 'propagationPolicy', badValue: pp, detail: 'supported values: "Foreground", "Background", "Orphan", "nil"' },
      ]);
    }
    out.propagationPolicy = pp;
  }
  if (typeof raw.orphanDependents === 'boolean') {
    if (out.propagationPolicy) {
      throw invalid({ group: 'meta.k8s.io', kind: 'DeleteOptions' }, '', [
        { type: 'FieldValueInvalid', field: 'propagationPolicy', badValue: out.propagationPolicy, detail: 'orphanDependents and deletionPropagation cannot be both set' },
      ]);
    }
    out.orphanDependents = raw.orphanDependents;
  }
  if (isPlainObject(raw.preconditions)) {
    const p = raw.preconditions;
    out.preconditions = { uid: typeof p.uid === 'string' ? p.uid : undefined, resourceVersion: typeof p.resourceVersion === 'string' ? p.resourceVersion : undefined };
  }
  if (typeof raw.gracePeriodSeconds === 'number') out.gracePeriodSeconds = raw.gracePeriodSeconds;
  if (Array.isArray(raw.dryRun) ? raw.dryRun.includes('All') : raw.dryRun === 'All') out.dryRun = true;
  return out;
}

// Go: genericregistry deletionFinalizersForGarbageCollection
function gcFinalizers(current: string[], o: DeleteOptions): string[] {
  const orphan = o.propagationPolicy === 'Orphan' || o.orphanDependents === true || (o.propagationPolicy === undefined && o.orphanDependents === undefined && current.includes(ORPHAN));
  const foreground = o.propagationPolicy === 'Foreground' || (o.propagationPolicy === undefined && o.orphanDependents === undefined && current.includes(FOREGROUND) && !orphan);
  const out = current.filter((f) => f !== ORPHAN && f !== FOREGROUND);
  if (orphan) out.push(ORPHAN);
  if (foreground) out.push(FOREGROUND);
  return out;
}

/** remove deletes one object with kube's finalizer and propagation semantics. Go: genericregistry.Store.Delete */
export function remove(scope: Scope, name: string, opts: DeleteOptions, warnings: string[] = []): DeleteResult {
  const { desc, cluster } = scope;
  const cur = requireObject(scope, name);
  const old = cur.obj;
  const p = opts.preconditions;
  if (p?.uid && p.uid !== old.metadata.uid) {
    throw conflict(groupResource(desc), name, `Precondition failed: UID in precondition: ${p.uid}, UID in object meta: ${old.metadata.uid}`);
  }
  if (p?.resourceVersion && p.resourceVersion !== old.metadata.resourceVersion) {
    throw conflict(groupResource(desc), name, `Precondition failed: ResourceVersion in precondition: ${p.resourceVersion}, ResourceVersion in object meta: ${old.metadata.resourceVersion}`);
  }
  const ctx: HookContext = { now: rfc3339(cluster.ctx.now()), cluster, warnings, dryRun: !!opts.dryRun };
  desc.hooks.validateDelete?.(old, ctx);
  opts.gate?.validate({
    operation: 'DELETE',
    desc,
    version: scope.version,
    namespace: old.metadata.namespace ?? '',
    name,
    oldObject: outputObject(scope, old),
    dryRun: !!opts.dryRun,
    options: optionsOf('DELETE', { dryRun: opts.dryRun }),
    warnings,
  });
  const current = old.metadata.finalizers ?? [];
  const finalizers = gcFinalizers(current, opts);
  const finalizersChanged = !deepEqual([...finalizers].sort(), [...current].sort());
  if (old.metadata.deletionTimestamp) {
    desc.hooks.deleteAgain?.(old, ctx);
    if (!finalizersChanged) return { obj: outputObject(scope, old), deleted: false };
  }
  // Most deletions are immediate: copy the object only when it is kept with a deletionTimestamp.
  const keeps = finalizers.length > 0 || !!desc.hooks.beginDelete || !!desc.hooks.blocksDeletion;
  const next = keeps ? clone(old) : old;
  if (keeps) {
    next.metadata.finalizers = finalizers;
    if (finalizers.length === 0) delete next.metadata.finalizers;
    if (!old.metadata.deletionTimestamp) desc.hooks.beginDelete?.(next, ctx);
  }
  const pending = (next.metadata.finalizers ?? []).length > 0 || !!desc.hooks.blocksDeletion?.(next);
  if (pending) {
    // Go: markAsDeleting — deletionTimestamp now, grace period 0, generation bumped when tracked.
    if (!next.metadata.deletionTimestamp) {
      if ((next.metadata.generation ?? 0) > 0) next.metadata.generation = next.metadata.generation! + 1;
      next.metadata.deletionTimestamp = ctx.now;
    }
    next.metadata.deletionGracePeriodSeconds = 0;
    if (opts.dryRun) return { obj: outputObject(scope, next), deleted: false };
    const stored = cluster.put(desc.storage, next);
    return { obj: outputObject(scope, stored.obj), deleted: false };
  }
  if (opts.dryRun) return { obj: deletedAnswer(scope, old), deleted: true };
  const rv = finalRemove(scope, cur);
  const last = { ...old, metadata: { ...old.metadata, resourceVersion: String(rv) } };
  return { obj: deletedAnswer(scope, last), deleted: true };
}

// Go: genericregistry.Store.finalizeDelete — the object itself, or a Success Status naming it.
function deletedAnswer(scope: Scope, obj: KubeObject): KubeObject {
  if (scope.desc.returnDeletedObject) return outputObject(scope, obj);
  const details: Record<string, unknown> = { name: obj.metadata?.name };
  if (scope.desc.group) details.group = scope.desc.group;
  details.kind = scope.desc.plural;
  details.uid = obj.metadata?.uid;
  return { kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Success', details } as KubeObject;
}

// Removes an object for good and frees what it held once the removal is committed.
function finalRemove(scope: Scope, cur: Stored): number {
  const { desc, cluster } = scope;
  const obj = cur.obj;
  return cluster.remove(desc.storage, obj.metadata.namespace, obj.metadata.name!, {
    onCommit: () => desc.hooks.release?.(obj, { now: '', cluster, warnings: [], dryRun: false }),
  });
}

/** requireObject returns the stored object or throws NotFound. */
export function requireObject(scope: Scope, name: string): Stored {
  const cur = scope.cluster.get(scope.desc.storage, scope.desc.namespaced ? scope.namespace : undefined, name);
  if (!cur) throw notFound(groupResource(scope.desc), name);
  return cur;
}

// ----------------------------------------------------------------------------- list

/** ListOptions is metav1.ListOptions as parsed from the query. */
export interface ListOptions {
  labelSelector?: string;
  fieldSelector?: string;
  limit?: number;
  continue?: string;
  resourceVersion?: string;
  resourceVersionMatch?: string;
}

/** Selection is a parsed label + field selector over one descriptor. */
export interface Selection {
  labels?: LabelSelector;
  fields: FieldTerm[];
  /** Name pinned by metadata.name=…, for the fast path. */
  name?: string;
  matches(obj: KubeObject): boolean;
}

/** parseSelection parses and checks the selectors of a list/watch. */
export function parseSelection(desc: ResourceDescriptor, o: ListOptions): Selection {
  let labels: LabelSelector | undefined;
  let fields: FieldTerm[] = [];
  try {
    if (o.labelSelector) labels = parseLabelSelector(o.labelSelector);
    if (o.fieldSelector) fields = parseFieldSelector(o.fieldSelector);
  } catch (e) {
    if (e instanceof SelectorError) throw badRequest(e.message);
    throw e;
  }
  const allowed = new Set(['metadata.name', ...(desc.namespaced ? ['metadata.namespace'] : []), ...desc.fieldNames]);
  for (const t of fields) if (!allowed.has(t.field)) throw badRequest(`field label not supported: ${t.field}`);
  const pinned = fields.find((t) => t.field === 'metadata.name' && !t.negated)?.value;
  const onlyMeta = fields.every((t) => t.field === 'metadata.name' || t.field === 'metadata.namespace');
  const lab = labels && !labels.empty ? labels : undefined;
  return {
    labels: lab,
    fields,
    name: pinned,
    matches(obj) {
      if (lab && !lab.matches(obj.metadata?.labels)) return false;
      if (fields.length === 0) return true;
      const f = onlyMeta ? { 'metadata.name': obj.metadata?.name ?? '', 'metadata.namespace': obj.metadata?.namespace ?? '' } : selectableFields(desc, obj);
      return fieldTermsMatch(fields, f);
    },
  };
}

/** ListResult is a page of stored objects at a resourceVersion. */
export interface ListResult {
  items: Stored[];
  resourceVersion: number;
  continue?: string;
  remainingItemCount?: number;
}

interface ContinueToken {
  v: string;
  rv: number;
  start: string;
}

const EXPIRED_CONTINUE =
  'The provided continue parameter is too old to display a consistent list result. You can start a new list without the continue parameter, or use the continue token in this response to retrieve the remainder of the results. Continuing with the provided token results in an inconsistent list - objects that were created, modified, or deleted between the time the first chunk was returned and now may show up in the list.';

// Go: storage.DecodeContinue
function decodeContinue(token: string, prefix: string): ContinueToken {
  let parsed: unknown;
  try {
    parsed = JSON.parse(Buffer.from(token, 'base64url').toString('utf8'));
  } catch {
    throw badRequest('continue key is not valid: illegal base64 data at input byte 0');
  }
  if (!isPlainObject(parsed) || parsed.v !== 'meta.k8s.io/v1') throw badRequest('continue key is not valid: incorrect encoded start resourceVersion (version meta.k8s.io/v1)');
  if (typeof parsed.rv !== 'number' || parsed.rv <= 0) throw badRequest('continue key is not valid: incorrect encoded start resourceVersion (version meta.k8s.io/v1)');
  if (typeof parsed.start !== 'string' || !parsed.start.startsWith(prefix)) throw badRequest('continue key is not valid: path traversal not allowed');
  return { v: parsed.v, rv: parsed.rv, start: parsed.start };
}

function encodeContinue(rv: number, start: string): string {
  return Buffer.from(JSON.stringify({ v: 'meta.k8s.io/v1', rv, start })).toString('base64url');
}

/** list returns the objects matching the options, paged with limit/continue at a consistent resourceVersion. */
export function list(scope: Scope, o: ListOptions): ListResult {
  const { desc, cluster } = scope;
  const listErrs: FieldError[] = [];
  if (o.resourceVersionMatch && !o.resourceVersion) {
    listErrs.push({ type: 'FieldValueForbidden', field: 'resourceVersionMatch', detail: 'resourceVersionMatch is forbidden unless resourceVersion is provided' });
  }
  if (o.resourceVersionMatch && o.resourceVersionMatch !== 'Exact' && o.resourceVersionMatch !== 'NotOlderThan') {
    listErrs.push({ type: 'FieldValueNotSupported', field: 'resourceVersionMatch', badValue: o.resourceVersionMatch, detail: 'supported values: "Exact", "NotOlderThan", ""' });
  }
  if (o.continue && o.resourceVersion && o.resourceVersion !== '0') {
    listErrs.push({ type: 'FieldValueForbidden', field: 'resourceVersion', detail: 'specifying resource version is not allowed when using continue' });
  }
  if (listErrs.length > 0) throw invalid({ group: 'meta.k8s.io', kind: 'ListOptions' }, '', listErrs);
  const sel = parseSelection(desc, o);
  const prefix = desc.namespaced && scope.namespace ? `${scope.namespace}/` : '';
  const current = cluster.ctx.currentRv();
  let snapshotRv = current;
  let startKey = prefix;
  if (o.continue) {
    const tok = decodeContinue(o.continue, prefix);
    snapshotRv = tok.rv;
    startKey = tok.start;
    if (snapshotRv < cluster.hub.floor) throw resourceExpired(EXPIRED_CONTINUE);
  } else if (o.resourceVersion && o.resourceVersion !== '0') {
    if (!/^\d+$/.test(o.resourceVersion)) throw badRequest(`invalid resource version: strconv.ParseUint: parsing ${JSON.stringify(o.resourceVersion)}: invalid syntax`);
    const want = Number(o.resourceVersion);
    if (want > current) {
      throw new StatusError({
        kind: 'Status',
        apiVersion: 'v1',
        metadata: {},
        status: 'Failure',
        message: `Timeout: Too large resource version: ${want}, current: ${current}`,
        reason: 'Timeout',
        details: { causes: [{ reason: 'ResourceVersionTooLarge', message: `Too large resource version` }], retryAfterSeconds: 1 },
        code: 504,
      } as never);
    }
    if (o.resourceVersionMatch === 'Exact') {
      if (want < cluster.hub.floor) throw resourceExpired(`too old resource version: ${want} (${cluster.hub.floor})`);
      snapshotRv = want;
    }
  }
  // Objects as of snapshotRv: the current table with the changes after snapshotRv undone from the event window.
  const table = cluster.table(desc.storage);
  let keys = table.sortedKeys();
  let view = (k: string): Stored | undefined => table.objects.get(k);
  if (snapshotRv < current) {
    const later = cluster.changesSince(desc.storage, snapshotRv);
    if (!later) throw resourceExpired(o.continue ? EXPIRED_CONTINUE : `too old resource version: ${snapshotRv} (${cluster.hub.floor})`);
    // The first change of each key after snapshotRv tells its state at snapshotRv.
    const undone = new Map<string, Stored | undefined>();
    for (const ev of later) {
      const s = ev.prev ?? ev.cur!;
      const k = objectKey(s.obj.metadata.namespace, s.obj.metadata.name!);
      if (!undone.has(k)) undone.set(k, ev.type === 'ADDED' ? undefined : ev.prev);
    }
    if (undone.size > 0) {
      const all = new Set(keys);
      for (const k of undone.keys()) all.add(k);
      keys = [...all].sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
      view = (k) => (undone.has(k) ? undone.get(k) : table.objects.get(k));
    }
  }
  const items: Stored[] = [];
  const limit = o.limit && o.limit > 0 ? o.limit : 0;
  // Binary search the first key >= startKey.
  let lo = 0;
  let hi = keys.length;
  while (lo < hi) {
    const mid = (lo + hi) >> 1;
    if (keys[mid] < startKey) lo = mid + 1;
    else hi = mid;
  }
  let i = lo;
  let nextKey: string | undefined;
  // Without selectors the objects themselves are not read (a dropped object is not parsed again: parsed.ts).
  const everything = !sel.labels && sel.fields.length === 0;
  const labelsOnly = sel.labels !== undefined && sel.fields.length === 0 ? sel.labels : undefined;
  for (; i < keys.length; i++) {
    const k = keys[i];
    if (prefix && !k.startsWith(prefix)) break;
    const s = view(k);
    if (!s) continue;
    if (sel.name !== undefined && k.slice(k.indexOf('/') + 1) !== sel.name) continue;
    if (labelsOnly) {
      if (!labelsOnly.matches((s instanceof StoredObject ? s.labels : s.obj.metadata.labels) as Record<string, string> | undefined)) continue;
    } else if (!everything && !sel.matches(s.obj)) continue;
    if (limit && items.length === limit) {
      nextKey = k;
      break;
    }
    items.push(s);
  }
  const result: ListResult = { items, resourceVersion: snapshotRv };
  if (nextKey !== undefined) {
    result.continue = encodeContinue(snapshotRv, nextKey);
    if (!sel.labels && sel.fields.length === 0) {
      let remaining = 0;
      for (let j = i; j < keys.length; j++) {
        if (prefix && !keys[j].startsWith(prefix)) break;
        if (view(keys[j])) remaining++;
      }
      result.remainingItemCount = remaining;
    }
  }
  return result;
}

// ----------------------------------------------------------------------------- get

/** get reads one object. */
export function get(scope: Scope, name: string): Stored {
  return requireObject(scope, name);
}

/** deleteCollection deletes every object a list selects and returns them. Go: genericregistry.Store.DeleteCollection */
export function deleteCollection(scope: Scope, lo: ListOptions, opts: DeleteOptions): KubeObject[] {
  const page = list(scope, { labelSelector: lo.labelSelector, fieldSelector: lo.fieldSelector });
  const out: KubeObject[] = [];
  for (const s of page.items) {
    try {
      const r = remove({ ...scope, namespace: s.obj.metadata.namespace ?? '' }, s.obj.metadata.name!, opts);
      out.push(r.deleted && scope.desc.returnDeletedObject ? r.obj : outputObject(scope, s.obj));
    } catch (e) {
      if (e instanceof StatusError && e.status.reason === 'NotFound') continue;
      throw e;
    }
  }
  return out;
}

/** checkVerb answers 405 for a verb the resource does not serve (kube registers no route for it). */
export function checkVerb(desc: ResourceDescriptor, verb: string): void {
  if (!desc.verbs.includes(verb)) throw methodNotAllowed();
}

/** mutate applies fn to a copy of the current object and writes it as an update (for in-process controllers).
 * fn returns false to skip the write. Returns undefined when the object does not exist. */
export function mutate(scope: Scope, name: string, fn: (obj: KubeObject & { metadata: ObjectMeta }) => boolean | void, o: WriteOptions): WriteResult | undefined {
  const cur = scope.cluster.get(scope.desc.storage, scope.desc.namespaced ? scope.namespace : undefined, name);
  if (!cur) return undefined;
  const next = clone(cur.obj);
  if (fn(next) === false) return undefined;
  next.metadata.resourceVersion = String(cur.rv);
  return updateObject(scope, cur, next, o, { fieldsTracked: false, isPatch: true });
}

/** scopeFor builds a Scope in the descriptor's storage version. */
export function scopeFor(cluster: Cluster, desc: ResourceDescriptor, namespace: string, subresource?: Subresource): Scope {
  return { cluster, desc, version: desc.storageVersion, namespace: desc.namespaced ? namespace : '', subresource };
}
