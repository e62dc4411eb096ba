// resource.ts: resources and their identities as Kustomize tracks them during a build — the current id, the ids a
// resource had before prefixes, suffixes, namespaces and hashes changed it (for name-reference fixing), the
// prefixes/suffixes applied, and the generator behaviour and hash flag of generated objects. Kustomize keeps these in
// internal build annotations; here they are fields. Go: kustomize api/resource/resource.go, kyaml/resid.
import { KustomizeError } from './errors.js';
import { cloneValue, isObject, type JSONObject, type JSONValue } from './yaml.js';

/** Gvk is a group/version/kind triple. */
export interface Gvk {
  group: string;
  version: string;
  kind: string;
}

/** ResId identifies a resource: its Gvk, name and namespace. */
export interface ResId extends Gvk {
  name: string;
  namespace: string;
}

// Kinds kyaml's built-in schema says are cluster-scoped (openapi.IsNamespaceScoped false), by apiVersion/kind.
const CLUSTER_SCOPED = new Set(
  [
    'admissionregistration.k8s.io/v1 MutatingWebhookConfiguration',
    'admissionregistration.k8s.io/v1 ValidatingWebhookConfiguration',
    'admissionregistration.k8s.io/v1beta1 MutatingWebhookConfiguration',
    'admissionregistration.k8s.io/v1beta1 ValidatingWebhookConfiguration',
    'admissionregistration.k8s.io/v1 ValidatingAdmissionPolicy',
    'admissionregistration.k8s.io/v1 ValidatingAdmissionPolicyBinding',
    'apiextensions.k8s.io/v1 CustomResourceDefinition',
    'apiextensions.k8s.io/v1beta1 CustomResourceDefinition',
    'apiregistration.k8s.io/v1 APIService',
    'apiregistration.k8s.io/v1beta1 APIService',
    'certificates.k8s.io/v1 CertificateSigningRequest',
    'certificates.k8s.io/v1beta1 CertificateSigningRequest',
    'flowcontrol.apiserver.k8s.io/v1beta1 FlowSchema',
    'flowcontrol.apiserver.k8s.io/v1beta1 PriorityLevelConfiguration',
    'networking.k8s.io/v1 IngressClass',
    'networking.k8s.io/v1beta1 IngressClass',
    'node.k8s.io/v1 RuntimeClass',
    'node.k8s.io/v1beta1 RuntimeClass',
    'policy/v1beta1 PodSecurityPolicy',
    'rbac.authorization.k8s.io/v1 ClusterRole',
    'rbac.authorization.k8s.io/v1 ClusterRoleBinding',
    'rbac.authorization.k8s.io/v1beta1 ClusterRole',
    'rbac.authorization.k8s.io/v1beta1 ClusterRoleBinding',
    'scheduling.k8s.io/v1 PriorityClass',
    'scheduling.k8s.io/v1beta1 PriorityClass',
    'storage.k8s.io/v1 CSIDriver',
    'storage.k8s.io/v1 CSINode',
    'storage.k8s.io/v1 StorageClass',
    'storage.k8s.io/v1 VolumeAttachment',
    'storage.k8s.io/v1beta1 CSIDriver',
    'storage.k8s.io/v1beta1 CSINode',
    'storage.k8s.io/v1beta1 StorageClass',
    'storage.k8s.io/v1beta1 VolumeAttachment',
    'v1 ComponentStatus',
    'v1 Namespace',
    'v1 Node',
    'v1 PersistentVolume',
  ].map((s) => s),
);

/** apiVersionOf joins a Gvk's group and version. */
export const apiVersionOf = (g: Gvk) => (g.group ? `${g.group}/${g.version}` : g.version);

/** parseGroupVersion splits an apiVersion as resid.ParseGroupVersion does. */
export function parseGroupVersion(apiVersion: string): { group: string; version: string } {
  const i = apiVersion.lastIndexOf('/');
  if (i < 0) return { group: '', version: apiVersion };
  return { group: apiVersion.slice(0, i), version: apiVersion.slice(i + 1) };
}

/** isClusterScoped tells whether Kustomize treats the Gvk as cluster-scoped. */
export function isClusterScoped(g: Gvk): boolean {
  return CLUSTER_SCOPED.has(`${apiVersionOf(g)} ${g.kind}`);
}

/** gvkString is resid.Gvk.String: Kind.version.group with placeholders. */
export function gvkString(g: Gvk): string {
  return `${g.kind || '[noKind]'}.${g.version || '[noVer]'}.${g.group || '[noGrp]'}`;
}

/** idString is resid.ResId.String. */
export function idString(id: ResId): string {
  return `${gvkString(id)}/${id.name || '[noName]'}.${id.namespace || '[noNs]'}`;
}

/** idGoString is Go's %#v of a resid.ResId (used in generator-merge errors). */
export function idGoString(id: ResId): string {
  return `resid.ResId{Gvk:resid.Gvk{Group:${JSON.stringify(id.group)}, Version:${JSON.stringify(id.version)}, Kind:${JSON.stringify(id.kind)}, isClusterScoped:${isClusterScoped(id)}}, Name:${JSON.stringify(id.name)}, Namespace:${JSON.stringify(id.namespace)}}`;
}

/** effectiveNamespace is ResId.EffectiveNamespace. */
export function effectiveNamespace(id: ResId): string {
  if (isClusterScoped(id)) return '_non_namespaceable_';
  return id.namespace === '' || id.namespace === 'default' ? 'default' : id.namespace;
}

/** idEquals is ResId.Equals: same gvk, name and effective namespace. */
export const idEquals = (a: ResId, b: ResId) =>
  a.group === b.group && a.version === b.version && a.kind === b.kind && a.name === b.name && effectiveNamespace(a) === effectiveNamespace(b);

/** gvkSelected is Gvk.IsSelected: empty selector fields are wildcards. */
export function gvkSelected(x: Gvk, sel: Partial<Gvk> | undefined): boolean {
  if (!sel) return true;
  if (sel.group && x.group !== sel.group) return false;
  if (sel.version && x.version !== sel.version) return false;
  if (sel.kind && x.kind !== sel.kind) return false;
  return true;
}

/** GenerationBehavior is how a generated object combines with one of the same id. */
export type GenerationBehavior = 'create' | 'merge' | 'replace' | 'unspecified';

/** Resource is one object flowing through a build, with Kustomize's build bookkeeping. */
export class Resource {
  /** prev holds the ids before each rename, oldest first (StorePreviousId). */
  prev: ResId[] = [];
  prefixes: string[] = [];
  suffixes: string[] = [];
  behavior: GenerationBehavior = 'unspecified';
  needsHash = false;
  refVarNames: string[] = [];
  /** allowNameChange/allowKindChange are a patch's options (patches[].options). */
  allowNameChange = false;
  allowKindChange = false;
  /** decodeErrors are yaml.v3's errors for the source document (repeated keys), reported when the object is printed. */
  decodeErrors: string[] = [];

  constructor(public obj: JSONObject) {}

  get apiVersion(): string {
    return typeof this.obj.apiVersion === 'string' ? this.obj.apiVersion : '';
  }
  get kind(): string {
    return typeof this.obj.kind === 'string' ? this.obj.kind : '';
  }
  get gvk(): Gvk {
    return { ...parseGroupVersion(this.apiVersion), kind: this.kind };
  }
  get metadata(): JSONObject {
    return isObject(this.obj.metadata) ? this.obj.metadata : {};
  }
  get name(): string {
    const n = this.metadata.name;
    return typeof n === 'string' ? n : n === undefined || n === null ? '' : String(n);
  }
  set name(v: string) {
    this.ensureMetadata().name = v;
  }
  get namespace(): string {
    const n = this.metadata.namespace;
    return typeof n === 'string' ? n : n === undefined || n === null ? '' : String(n);
  }
  set namespace(v: string) {
    const m = this.ensureMetadata();
    if (v === '') delete m.namespace;
    else m.namespace = v;
  }
  ensureMetadata(): JSONObject {
    if (!isObject(this.obj.metadata)) this.obj.metadata = {};
    return this.obj.metadata as JSONObject;
  }
  stringMap(field: 'labels' | 'annotations'): Record<string, string> {
    const m = this.metadata[field];
    const out: Record<string, string> = {};
    if (isObject(m)) for (const [k, v] of Object.entries(m)) out[k] = typeof v === 'string' ? v : String(v);
    return out;
  }
  setStringMap(field: 'labels' | 'annotations', m: Record<string, string>): void {
    const meta = this.ensureMetadata();
    if (Object.keys(m).length === 0) delete meta[field];
    else meta[field] = { ...m };
  }
  curId(): ResId {
    return { ...this.gvk, name: this.name, namespace: this.namespace };
  }
  /** orgId is the first id the resource had. */
  orgId(): ResId {
    return this.prev[0] ?? this.curId();
  }
  /** storePreviousId records the current id (namespace as EffectiveNamespace, like the csv annotations). */
  storePreviousId(): void {
    const id = this.curId();
    this.prev.push({ ...id, namespace: effectiveNamespace(id) === '_non_namespaceable_' ? '_non_namespaceable_' : effectiveNamespace(id) });
  }
  /** allIds is the previous ids followed by the current id. */
  allIds(): ResId[] {
    return [...this.prev, this.curId()];
  }
  clone(): Resource {
    const r = new Resource(cloneValue(this.obj));
    r.prev = this.prev.map((p) => ({ ...p }));
    r.prefixes = [...this.prefixes];
    r.suffixes = [...this.suffixes];
    r.behavior = this.behavior;
    r.needsHash = this.needsHash;
    r.refVarNames = [...this.refVarNames];
    r.decodeErrors = [...this.decodeErrors];
    return r;
  }
  get(path: string[]): JSONValue | undefined {
    let cur: JSONValue | undefined = this.obj;
    for (const p of path) {
      if (!isObject(cur)) return undefined;
      cur = cur[p];
    }
    return cur;
  }
}

/** ResMap is an ordered list of resources with unique current ids. */
export class ResMap {
  list: Resource[] = [];

  append(r: Resource): void {
    const id = r.curId();
    if (this.list.some((x) => idEquals(x.curId(), id))) {
      throw new KustomizeError('Conflict', `may not add resource with an already registered id: ${idString(id)}`);
    }
    this.list.push(r);
  }
  appendAll(other: ResMap): void {
    for (const r of other.list) this.append(r);
  }
  byCurrentId(id: ResId): Resource[] {
    return this.list.filter((r) => idEquals(r.curId(), id));
  }
  byAnyId(id: ResId): Resource[] {
    return this.list.filter((r) => r.allIds().some((x) => idEquals(x, id)));
  }
}

/** sameEndingSubSlice is kustomize utils.SameEndingSubSlice. */
export function sameEndingSubSlice(a: string[], b: string[]): boolean {
  if (a.length === 0 || b.length === 0) return a.length === 0 && b.length === 0 ? true : false;
  const [short, long] = a.length <= b.length ? [a, b] : [b, a];
  const off = long.length - short.length;
  for (let i = 0; i < short.length; i++) if (short[i] !== long[i + off]) return false;
  return true;
}
