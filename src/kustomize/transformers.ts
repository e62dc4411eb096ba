// transformers.ts: the builtin field transformers — namespace, namePrefix/nameSuffix, labels and annotations, images
// and replicas — driven by field specs. Go: kustomize api/internal/builtins/{Namespace,Prefix,Suffix,Label,
// Annotations,ImageTag,ReplicaCount}Transformer.go and api/filters/{namespace,prefix,suffix,labels,annotations,
// imagetag,replicacount}.
import { KustomizeError } from './errors.js';
import { applyFieldSpec, NO_CHANGE, type FieldSpec } from './fieldspec.js';
import { gvkSelected, gvkString, isClusterScoped, type ResMap, type Resource } from './resource.js';
import { isObject, type JSONValue } from './yaml.js';

function considering(fs: FieldSpec, r: Resource, e: unknown): unknown {
  if (e instanceof KustomizeError) {
    const id = r.curId();
    return new KustomizeError(e.code, `considering field '${fs.path}' of object ${gvkString(id)}/${id.name || '[noName]'}.${id.namespace || '[noNs]'}: ${e.message}`, { cause: e });
  }
  return e;
}

function eachSpec(r: Resource, specs: FieldSpec[], fn: (v: JSONValue) => JSONValue | typeof NO_CHANGE, kind: 'map' | 'scalar' | undefined): void {
  for (const fs of specs) {
    try {
      applyFieldSpec(r.obj, fs, fn, kind);
    } catch (e) {
      throw considering(fs, r, e);
    }
  }
}

/** transformNamespace is NamespaceTransformer with Kustomize's defaults (subjects named `default` follow). */
export function transformNamespace(m: ResMap, namespace: string, specs: FieldSpec[]): void {
  if (!namespace) return;
  for (const r of m.list) {
    if (Object.keys(r.obj).length === 0) continue;
    r.storePreviousId();
    const gvk = r.gvk;
    const set = (v: JSONValue) => {
      if (v !== null && typeof v === 'object') throw new KustomizeError('Invalid', 'namespace field specs must target scalar nodes');
      return namespace;
    };
    if (!isClusterScoped(gvk)) r.ensureMetadata().namespace = namespace;
    const rb = gvk.kind === 'RoleBinding' || gvk.kind === 'ClusterRoleBinding';
    let fss = specs.filter((f) => f.path !== 'metadata/namespace' && (r.apiVersion === 'v1' || f.path !== 'metadata/name'));
    if (rb) {
      fss = fss.filter((f) => !(f.path === 'subjects/namespace' && (f.kind === 'RoleBinding' || f.kind === 'ClusterRoleBinding')));
      const subjects = r.obj.subjects;
      if (Array.isArray(subjects)) for (const s of subjects) if (isObject(s) && s.name === 'default') s.namespace = namespace;
    }
    eachSpec(r, fss, set, 'scalar');
    const clash = m.byCurrentId(r.curId());
    if (clash.length !== 1) throw new KustomizeError('Conflict', `namespace transformation produces ID conflict: ${clash.map((c) => c.curId().name).join(', ')}`);
  }
}

const PREFIX_SKIP = [{ kind: 'CustomResourceDefinition' }, { group: 'apiregistration.k8s.io', kind: 'APIService' }, { kind: 'Namespace' }];

/** transformNameAffix is PrefixTransformer (suffix=false) or SuffixTransformer (suffix=true). */
export function transformNameAffix(m: ResMap, affix: string, specs: FieldSpec[], suffix: boolean): void {
  if (!affix) return;
  for (const r of m.list) {
    const org = r.orgId();
    if (PREFIX_SKIP.some((s) => gvkSelected(org, s))) continue;
    for (const fs of specs) {
      if (!gvkSelected(org, fs)) continue;
      if (fs.path === 'metadata/name') {
        if (suffix) r.suffixes.push(affix);
        else r.prefixes.push(affix);
        r.storePreviousId();
      }
      eachSpec(r, [fs], (v) => (typeof v === 'string' ? (suffix ? v + affix : affix + v) : v === null ? NO_CHANGE : suffix ? String(v) + affix : affix + String(v)), 'scalar');
    }
  }
}

/** transformMapEntries is the labels/annotations filter: every pair set in the map at each field spec. */
export function transformMapEntries(m: ResMap, pairs: Record<string, string>, specs: FieldSpec[]): void {
  const keys = Object.keys(pairs);
  if (keys.length === 0) return;
  for (const r of m.list) {
    eachSpec(
      r,
      specs,
      (v) => {
        if (v === null || v === '') v = {};
        if (!isObject(v)) throw new KustomizeError('Invalid', `wrong node kind: expected MappingNode but got ${Array.isArray(v) ? 'SequenceNode' : 'ScalarNode'}: node contents:\n${String(v)}\n`);
        for (const k of keys.sort()) v[k] = pairs[k];
        return v;
      },
      'map',
    );
  }
}

/** Image is one `images` entry. */
export interface Image {
  name?: string;
  newName?: string;
  newTag?: string;
  digest?: string;
  tagSuffix?: string;
}

/** isImageMatched is image.IsImageMatched. */
function isImageMatched(s: string, t: string): boolean {
  try {
    return new RegExp(`^${t}(:[a-zA-Z0-9_.{}-]*)?(@sha256:[a-zA-Z0-9_.{}-]*)?$`).test(s);
  } catch {
    return false;
  }
}

/** splitImage is image.Split: name, tag and digest of an image reference (a registry port is not a tag). */
function splitImage(image: string): [string, string, string] {
  let search = image;
  let slash = image.indexOf('/');
  if (slash > 0) search = image.slice(slash);
  else slash = 0;
  let id = search.indexOf('@');
  let ic = search.indexOf(':');
  if (ic < 0 && id < 0) return [image, '', ''];
  if (id >= 0 && (id < ic || ic < 0)) {
    id += slash;
    return [image.slice(0, id), '', image.slice(id + 1)];
  }
  if (id >= 0 && ic >= 0) {
    id += slash;
    ic += slash;
    return [image.slice(0, ic), image.slice(ic + 1, id), image.slice(id + 1)];
  }
  ic += slash;
  return [image.slice(0, ic), image.slice(ic + 1), ''];
}

function updateImage(value: string, img: Image): string | undefined {
  if (!isImageMatched(value, img.name ?? '')) return undefined;
  let [name, tag, digest] = splitImage(value);
  if (img.newName) name = img.newName;
  if (img.newTag && img.digest) {
    tag = img.newTag;
    digest = img.digest;
  } else if (img.newTag) {
    tag = img.newTag;
    digest = '';
  } else if (img.digest) {
    tag = '';
    digest = img.digest;
  } else if (img.tagSuffix) {
    tag += img.tagSuffix;
    digest = '';
  }
  if (tag) name += ':' + tag;
  if (digest) name += '@' + digest;
  return name;
}

function legacyImages(v: JSONValue, img: Image): void {
  if (Array.isArray(v)) {
    for (const e of v) legacyImages(e, img);
    return;
  }
  if (!isObject(v)) return;
  for (const [k, e] of Object.entries(v)) {
    legacyImages(e, img);
    if ((k === 'containers' || k === 'initContainers') && Array.isArray(e)) {
      for (const c of e) {
        if (isObject(c) && typeof c.image === 'string') {
          const n = updateImage(c.image, img);
          if (n !== undefined) c.image = n;
        }
      }
    }
  }
}

/** transformImages is ImageTagTransformer: the legacy containers walk, then the images field specs. */
export function transformImages(m: ResMap, img: Image, specs: FieldSpec[]): void {
  for (const r of m.list) {
    if (r.kind === 'CustomResourceDefinition') continue;
    legacyImages(r.obj, img);
    eachSpec(
      r,
      specs,
      (v) => {
        if (typeof v !== 'string') return NO_CHANGE;
        const n = updateImage(v, img);
        return n === undefined ? NO_CHANGE : n;
      },
      // The image filter sets no CreateKind: field specs never create fields here, whatever `create` says.
      undefined,
    );
  }
}

/** Replica is one `replicas` entry. */
export interface Replica {
  name: string;
  count: bigint;
}

/** transformReplicas is ReplicaCountTransformer: the count set on every matching resource (by any of its names). */
export function transformReplicas(m: ResMap, rep: Replica, specs: FieldSpec[]): void {
  let found = false;
  for (const fs of specs) {
    const matches = m.list.filter((r) => r.allIds().some((id) => id.name === rep.name && gvkSelected(id, fs)));
    if (matches.length === 0) continue;
    found = true;
    for (const r of matches) eachSpec(r, [fs], () => rep.count, 'scalar');
  }
  if (!found) {
    throw new KustomizeError('NotFound', `resource with name ${rep.name} does not match a config with the following GVK [${specs.map((f) => gvkString(f)).join(' ')}]`);
  }
}
