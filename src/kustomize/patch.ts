// patch.ts: strategic merge patches as kyaml's merge2 applies them (the walker Kustomize uses, not apimachinery's),
// RFC 6902 JSON patches, and `target` selectors. merge2 takes list merge keys from kyaml's built-in OpenAPI schema
// (Kubernetes 1.21) and, for kinds it has no schema for (custom resources), replaces lists; new elements of a
// merged list go first (ListIncreaseDirection: Prepend).
// Go: kustomize kyaml/yaml/merge2, kyaml/yaml/walk, api/filters/patchjson6902, api/resmap Select, api/types/selector.go.
import { matchesLabelSelector, parseLabelSelector } from '../api/index.js';
import { KustomizeError } from './errors.js';
import { effectiveNamespace, type Resource } from './resource.js';
import { cloneValue, isObject, type JSONObject, type JSONValue } from './yaml.js';

// List fields kyaml's schema gives a merge strategy, by field name, for built-in kinds. `ports` depends on where it
// is: containerPort in containers, port in a Service spec. An empty key merges a list of scalars as a set.
const MERGE_KEYS: Record<string, string> = {
  containers: 'name',
  initContainers: 'name',
  ephemeralContainers: 'name',
  volumes: 'name',
  imagePullSecrets: 'name',
  env: 'name',
  volumeMounts: 'mountPath',
  volumeDevices: 'devicePath',
  hostAliases: 'ip',
  topologySpreadConstraints: 'topologyKey',
  ownerReferences: 'uid',
  finalizers: '',
  conditions: 'type',
};

// The apiVersion/kind pairs kyaml's built-in schema (Kubernetes 1.21) knows; any other kind has no schema, so its
// lists are replaced. Go: kyaml/openapi precomputedIsNamespaceScoped (the schema's resource kinds).
const SCHEMA_KINDS = new Set([
  'admissionregistration.k8s.io/v1 MutatingWebhookConfiguration',
  'admissionregistration.k8s.io/v1 ValidatingWebhookConfiguration',
  'admissionregistration.k8s.io/v1beta1 MutatingWebhookConfiguration',
  'admissionregistration.k8s.io/v1beta1 ValidatingWebhookConfiguration',
  'apiextensions.k8s.io/v1 CustomResourceDefinition', 'apiextensions.k8s.io/v1beta1 CustomResourceDefinition',
  'apiregistration.k8s.io/v1 APIService', 'apiregistration.k8s.io/v1beta1 APIService', 'apps/v1 ControllerRevision',
  'apps/v1 DaemonSet', 'apps/v1 Deployment', 'apps/v1 ReplicaSet', 'apps/v1 StatefulSet',
  'autoscaling/v1 HorizontalPodAutoscaler', 'autoscaling/v1 Scale', 'autoscaling/v2beta1 HorizontalPodAutoscaler',
  'autoscaling/v2beta2 HorizontalPodAutoscaler', 'batch/v1 CronJob', 'batch/v1 Job', 'batch/v1beta1 CronJob',
  'certificates.k8s.io/v1 CertificateSigningRequest', 'certificates.k8s.io/v1beta1 CertificateSigningRequest',
  'coordination.k8s.io/v1 Lease', 'coordination.k8s.io/v1beta1 Lease', 'discovery.k8s.io/v1 EndpointSlice',
  'discovery.k8s.io/v1beta1 EndpointSlice', 'events.k8s.io/v1 Event', 'events.k8s.io/v1beta1 Event',
  'extensions/v1beta1 Ingress', 'flowcontrol.apiserver.k8s.io/v1beta1 FlowSchema',
  'flowcontrol.apiserver.k8s.io/v1beta1 PriorityLevelConfiguration', 'networking.k8s.io/v1 Ingress',
  'networking.k8s.io/v1 IngressClass', 'networking.k8s.io/v1 NetworkPolicy', 'networking.k8s.io/v1beta1 Ingress',
  'networking.k8s.io/v1beta1 IngressClass', 'node.k8s.io/v1 RuntimeClass', 'node.k8s.io/v1beta1 RuntimeClass',
  'policy/v1 PodDisruptionBudget', 'policy/v1beta1 PodDisruptionBudget', 'policy/v1beta1 PodSecurityPolicy',
  'rbac.authorization.k8s.io/v1 ClusterRole', 'rbac.authorization.k8s.io/v1 ClusterRoleBinding',
  'rbac.authorization.k8s.io/v1 Role', 'rbac.authorization.k8s.io/v1 RoleBinding',
  'rbac.authorization.k8s.io/v1beta1 ClusterRole', 'rbac.authorization.k8s.io/v1beta1 ClusterRoleBinding',
  'rbac.authorization.k8s.io/v1beta1 Role', 'rbac.authorization.k8s.io/v1beta1 RoleBinding',
  'scheduling.k8s.io/v1 PriorityClass', 'scheduling.k8s.io/v1beta1 PriorityClass', 'storage.k8s.io/v1 CSIDriver',
  'storage.k8s.io/v1 CSINode', 'storage.k8s.io/v1 StorageClass', 'storage.k8s.io/v1 VolumeAttachment',
  'storage.k8s.io/v1beta1 CSIDriver', 'storage.k8s.io/v1beta1 CSINode', 'storage.k8s.io/v1beta1 CSIStorageCapacity',
  'storage.k8s.io/v1beta1 StorageClass', 'storage.k8s.io/v1beta1 VolumeAttachment', 'v1 ComponentStatus',
  'v1 ConfigMap', 'v1 Endpoints', 'v1 Event', 'v1 LimitRange', 'v1 Namespace', 'v1 Node', 'v1 NodeProxyOptions',
  'v1 PersistentVolume', 'v1 PersistentVolumeClaim', 'v1 Pod', 'v1 PodAttachOptions', 'v1 PodExecOptions',
  'v1 PodPortForwardOptions', 'v1 PodProxyOptions', 'v1 PodTemplate', 'v1 ReplicationController', 'v1 ResourceQuota',
  'v1 Secret', 'v1 Service', 'v1 ServiceAccount', 'v1 ServiceProxyOptions',
]);

/** hasBuiltinSchema tells whether kyaml has a schema for the object's kind (so lists merge by key). */
function hasBuiltinSchema(apiVersion: string, kind: string): boolean {
  return SCHEMA_KINDS.has(`${apiVersion} ${kind}`);
}

function mergeKeyFor(path: string[], kind: string): string | undefined {
  const field = path[path.length - 1];
  if (field === 'ports') {
    if (kind === 'Service' && path.length === 2 && path[0] === 'spec') return 'port';
    const parent = path[path.length - 2];
    if (parent === 'containers' || parent === 'initContainers' || parent === 'ephemeralContainers') return 'containerPort';
    return undefined;
  }
  return field in MERGE_KEYS ? MERGE_KEYS[field] : undefined;
}

const DIRECTIVE = '$patch';
const DELETE = Symbol('delete');

function directive(v: JSONValue): string | undefined {
  if (!isObject(v)) return undefined;
  const d = v[DIRECTIVE];
  if (d === undefined) return undefined;
  if (d !== 'delete' && d !== 'replace' && d !== 'merge') throw new KustomizeError('Invalid', `unknown patch strategy ${String(d)}`);
  return d;
}

// stripDirectives drops $patch/$setElementOrder/$retainKeys/$deleteFromPrimitiveList keys in a value taken wholesale.
function stripDirectives(v: JSONValue): JSONValue {
  if (Array.isArray(v)) return v.filter((e) => !(isObject(e) && directive(e) === 'delete' && Object.keys(e).length === 1)).map(stripDirectives);
  if (!isObject(v)) return v;
  const o: JSONObject = {};
  for (const [k, e] of Object.entries(v)) {
    if (k === DIRECTIVE || k === '$retainKeys' || k.startsWith('$setElementOrder/') || k.startsWith('$deleteFromPrimitiveList/')) continue;
    if (e === null) continue;
    o[k] = stripDirectives(e);
  }
  return o;
}

interface Ctx {
  schema: boolean;
  kind: string;
  /** custom is the definition of the object's kind in a kustomization's `openapi` schema (which replaces kyaml's). */
  custom?: { root: JSONObject | undefined; defs: JSONObject };
}

// resolveRef follows a `$ref: #/definitions/NAME`.
function resolveRef(s: JSONValue | undefined, defs: JSONObject): JSONObject | undefined {
  for (let i = 0; i < 16 && isObject(s); i++) {
    if (typeof s.$ref !== 'string') return s;
    s = defs[s.$ref.replace(/^#\/definitions\//, '')];
  }
  return isObject(s) ? s : undefined;
}

// customMergeKey walks the custom schema along the path (descending into `items` where a list sits) and returns the
// list's merge key when its patch strategy says merge.
function customMergeKey(path: string[], c: NonNullable<Ctx['custom']>): string | undefined {
  let s = resolveRef(c.root, c.defs);
  for (const p of path) {
    if (!s) return undefined;
    if (s.items !== undefined && !isObject(s.properties)) s = resolveRef(s.items, c.defs);
    const props = s && isObject(s.properties) ? s.properties : undefined;
    s = props ? resolveRef(props[p], c.defs) : undefined;
  }
  if (!s) return undefined;
  const strategy = typeof s['x-kubernetes-patch-strategy'] === 'string' ? s['x-kubernetes-patch-strategy'] : '';
  if (!strategy.split(',').includes('merge')) return undefined;
  return typeof s['x-kubernetes-patch-merge-key'] === 'string' ? s['x-kubernetes-patch-merge-key'] : '';
}

function customRoot(obj: JSONObject, schema: JSONObject): NonNullable<Ctx['custom']> {
  const defs = isObject(schema.definitions) ? schema.definitions : {};
  const av = typeof obj.apiVersion === 'string' ? obj.apiVersion : '';
  const i = av.lastIndexOf('/');
  const group = i < 0 ? '' : av.slice(0, i);
  const version = i < 0 ? av : av.slice(i + 1);
  for (const d of Object.values(defs)) {
    if (!isObject(d) || !Array.isArray(d['x-kubernetes-group-version-kind'])) continue;
    for (const g of d['x-kubernetes-group-version-kind']) {
      if (isObject(g) && (g.group ?? '') === group && g.version === version && g.kind === obj.kind) return { root: d, defs };
    }
  }
  return { root: undefined, defs };
}

function mergeMap(dest: JSONValue | undefined, patch: JSONObject, path: string[], ctx: Ctx): JSONValue | typeof DELETE {
  const d = directive(patch);
  if (d === 'delete') return DELETE;
  if (dest === undefined || dest === null || !isObject(dest)) {
    return stripDirectives(patch);
  }
  if (d === 'replace') return stripDirectives(patch);
  const out = dest;
  for (const [k, pv] of Object.entries(patch)) {
    if (k === DIRECTIVE || k === '$retainKeys' || k.startsWith('$setElementOrder/') || k.startsWith('$deleteFromPrimitiveList/')) continue;
    if (pv === null) {
      delete out[k];
      continue;
    }
    const r = mergeValue(out[k], pv, [...path, k], ctx);
    if (r === DELETE) delete out[k];
    else out[k] = r;
  }
  return out;
}

function mergeValue(dest: JSONValue | undefined, patch: JSONValue, path: string[], ctx: Ctx): JSONValue | typeof DELETE {
  if (isObject(patch)) return mergeMap(dest, patch, path, ctx);
  if (Array.isArray(patch)) return mergeList(dest, patch, path, ctx);
  return patch;
}

// mergeList is walkAssociativeSequence with ListIncreaseDirection Prepend: the merged list holds the patch's elements
// in patch order (merged with the original's of the same key), then the original's other elements in their order;
// `$patch: delete` elements remove theirs. Elements without the key stay (original) or are dropped (patch).
function mergeList(dest: JSONValue | undefined, patch: JSONValue[], path: string[], ctx: Ctx): JSONValue | typeof DELETE {
  const key = ctx.custom ? customMergeKey(path, ctx.custom) : ctx.schema ? mergeKeyFor(path, ctx.kind) : undefined;
  if (key === undefined || !Array.isArray(dest)) return stripDirectives(patch);
  if (patch.some((e) => isObject(e) && directive(e) === 'replace')) {
    return stripDirectives(patch.filter((e) => !(isObject(e) && directive(e) === 'replace')));
  }
  if (key === '') {
    const seen = new Set<string>();
    const out: JSONValue[] = [];
    for (const e of [...patch, ...dest]) {
      const k = String(e);
      if (seen.has(k)) continue;
      seen.add(k);
      out.push(e);
    }
    return out;
  }
  const keyOf = (e: JSONValue) => (isObject(e) && e[key] !== undefined && e[key] !== null ? String(e[key]) : undefined);
  const order: string[] = [];
  for (const e of [...patch, ...dest]) {
    const k = keyOf(e);
    if (k !== undefined && !order.includes(k)) order.push(k);
  }
  const merged = new Map<string, JSONValue>();
  for (const k of order) {
    const d = dest.find((e) => keyOf(e) === k);
    const p = patch.find((e) => keyOf(e) === k);
    if (p === undefined) {
      merged.set(k, d!);
      continue;
    }
    const r = mergeMap(d, p as JSONObject, path, ctx);
    if (r !== DELETE) merged.set(k, r);
  }
  const out = [...merged.values()];
  for (const e of dest) if (keyOf(e) === undefined) out.push(e);
  return out;
}

/** applyStrategicMerge merges patch into a copy of obj as kyaml merge2 does; undefined means the patch deleted it. */
export function applyStrategicMerge(obj: JSONObject, patch: JSONObject, schema?: JSONObject): JSONObject | undefined {
  const ctx: Ctx = {
    schema: hasBuiltinSchema(typeof obj.apiVersion === 'string' ? obj.apiVersion : '', typeof obj.kind === 'string' ? obj.kind : ''),
    kind: typeof obj.kind === 'string' ? obj.kind : '',
    custom: schema ? customRoot(obj, schema) : undefined,
  };
  const r = mergeMap(cloneValue(obj), cloneValue(patch), [], ctx);
  if (r === DELETE || !isObject(r)) return undefined;
  return r;
}

// ---------------------------------------------------------------------------------------------------------------
// RFC 6902. Go: github.com/evanphx/json-patch v5 (the error texts it answers with).

/** JsonOp is one RFC 6902 operation. */
export interface JsonOp {
  op: string;
  path: string;
  value?: JSONValue;
  from?: string;
}

function unescape(t: string): string {
  return t.replace(/~1/g, '/').replace(/~0/g, '~');
}

function parsePointer(p: string): string[] {
  if (p === '') return [];
  return p.split('/').slice(1).map(unescape);
}

// evanphx/json-patch quotes the path in these messages for every operation but replace.
const missingPath = (op: string, path: string) =>
  new KustomizeError('Invalid', `${op} operation does not apply: doc is missing path: ${op === 'replace' ? path : `"${path}"`}: missing value`);

// container finds the parent of the pointer's last token. Kustomize applies patches with EnsurePathExistsOnAdd: an
// `add` creates missing parents (a list where the next token is an index, an object otherwise).
function container(doc: JSONValue, parts: string[], op: string, path: string): { parent: JSONValue; key: string } {
  let cur: JSONValue = doc;
  for (let i = 0; i < parts.length - 1; i++) {
    const p = parts[i];
    let next: JSONValue | undefined;
    if (Array.isArray(cur)) next = /^\d+$/.test(p) ? cur[Number(p)] : undefined;
    else if (isObject(cur)) next = cur[p];
    if ((next === undefined || next === null) && op === 'add' && isObject(cur)) {
      next = /^(\d+|-)$/.test(parts[i + 1]) ? [] : {};
      cur[p] = next;
    }
    if (next === undefined || next === null) throw missingPath(op, path);
    cur = next;
  }
  return { parent: cur, key: parts[parts.length - 1] };
}

function getAt(doc: JSONValue, path: string, op: string): JSONValue {
  const parts = parsePointer(path);
  if (parts.length === 0) return doc;
  const { parent, key } = container(doc, parts, op, path);
  const v = Array.isArray(parent) ? parent[Number(key)] : isObject(parent) ? parent[key] : undefined;
  if (v === undefined) throw new KustomizeError('Invalid', `${op} operation does not apply: doc is missing key: ${path}: missing value`);
  return v;
}

function addAt(doc: JSONValue, path: string, value: JSONValue, op: string): void {
  const parts = parsePointer(path);
  const { parent, key } = container(doc, parts, op, path);
  if (Array.isArray(parent)) {
    const i = key === '-' ? parent.length : Number(key);
    if (!/^(-|\d+)$/.test(key) || i > parent.length) throw missingPath(op, path);
    parent.splice(i, 0, value);
  } else if (isObject(parent)) parent[key] = value;
  else throw missingPath(op, path);
}

function removeAt(doc: JSONValue, path: string, op: string): JSONValue {
  const parts = parsePointer(path);
  const { parent, key } = container(doc, parts, op, path);
  if (Array.isArray(parent)) {
    const i = Number(key);
    if (!/^\d+$/.test(key) || i >= parent.length) throw new KustomizeError('Invalid', `Unable to remove nonexistent key: ${key}: missing value`);
    return parent.splice(i, 1)[0];
  }
  if (isObject(parent) && key in parent) {
    const v = parent[key];
    delete parent[key];
    return v;
  }
  throw new KustomizeError('Invalid', `Unable to remove nonexistent key: ${key}: missing value`);
}

/** applyJsonPatch applies RFC 6902 operations to a copy of obj. */
export function applyJsonPatch(obj: JSONObject, ops: JsonOp[]): JSONObject {
  const doc = cloneValue(obj);
  for (const o of ops) {
    switch (o.op) {
      case 'add':
        addAt(doc, o.path, cloneValue(o.value ?? null), 'add');
        break;
      case 'remove':
        removeAt(doc, o.path, 'remove');
        break;
      case 'replace': {
        getAt(doc, o.path, 'replace');
        const parts = parsePointer(o.path);
        const { parent, key } = container(doc, parts, 'replace', o.path);
        if (Array.isArray(parent)) parent[Number(key)] = cloneValue(o.value ?? null);
        else (parent as JSONObject)[key] = cloneValue(o.value ?? null);
        break;
      }
      case 'move': {
        const v = removeAt(doc, o.from ?? '', 'move');
        addAt(doc, o.path, v, 'move');
        break;
      }
      case 'copy':
        addAt(doc, o.path, cloneValue(getAt(doc, o.from ?? '', 'copy')), 'copy');
        break;
      case 'test': {
        const v = getAt(doc, o.path, 'test');
        if (JSON.stringify(v, bigintJSON) !== JSON.stringify(o.value ?? null, bigintJSON)) throw new KustomizeError('Invalid', `testing value ${o.path} failed: test failed`);
        break;
      }
      default:
        throw new KustomizeError('Invalid', `Unexpected kind: ${o.op}`);
    }
  }
  return doc as JSONObject;
}

const bigintJSON = (_k: string, v: unknown) => (typeof v === 'bigint' ? Number(v) : v);

// ---------------------------------------------------------------------------------------------------------------
// Selectors. Go: api/types/selector.go (anchored regexes), resWrangler.Select.

/** Selector is types.Selector (a patch or replacement target). */
export interface Selector {
  group?: string;
  version?: string;
  kind?: string;
  name?: string;
  namespace?: string;
  labelSelector?: string;
  annotationSelector?: string;
}

function anchored(p: string | undefined): RegExp | undefined {
  if (!p) return undefined;
  try {
    return new RegExp(`^(?:${p})$`);
  } catch (e) {
    throw new KustomizeError('Invalid', `error parsing regexp: ${(e as Error).message}`, { cause: e });
  }
}

function matchesMapSelector(text: string | undefined, m: Record<string, string>): boolean {
  if (!text) return true;
  const r = parseLabelSelector(text);
  if (!r.ok) throw new KustomizeError('Invalid', r.error);
  return matchesLabelSelector(r.selector, m);
}

/** selectResources is ResMap.Select: regex gvk/name/namespace (original or current), label and annotation selectors. */
export function selectResources(list: Resource[], s: Selector): Resource[] {
  const g = anchored(s.group);
  const v = anchored(s.version);
  const k = anchored(s.kind);
  const n = anchored(s.name);
  const ns = anchored(s.namespace);
  return list.filter((r) => {
    const cur = r.curId();
    const org = r.orgId();
    if (ns && !ns.test(effectiveNamespace(org)) && !ns.test(effectiveNamespace(cur))) return false;
    if (n && !n.test(org.name) && !n.test(cur.name)) return false;
    const gvk = r.gvk;
    if (g && !g.test(gvk.group)) return false;
    if (v && !v.test(gvk.version)) return false;
    if (k && !k.test(gvk.kind)) return false;
    if (!matchesMapSelector(s.labelSelector, r.stringMap('labels'))) return false;
    if (!matchesMapSelector(s.annotationSelector, r.stringMap('annotations'))) return false;
    return true;
  });
}
