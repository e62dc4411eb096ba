// manifests.ts: splitting rendered templates into manifests, recognising hooks and sorting in install order.
// Go: pkg/releaseutil (manifest.go SplitManifests, manifest_sorter.go SortManifests, kind_sorter.go InstallOrder).
import { isGoMap, type GoValue } from '../gotemplate/index.js';
import { parseYamlSigs, YAMLError } from '../funcs/index.js';
import { baseName, scalarAsString } from './chart.js';
import { HelmError } from './errors.js';

/** HookEvent is a value of the helm.sh/hook annotation. */
export type HookEvent =
  | 'pre-install'
  | 'post-install'
  | 'pre-delete'
  | 'post-delete'
  | 'pre-upgrade'
  | 'post-upgrade'
  | 'pre-rollback'
  | 'post-rollback'
  | 'test';

const EVENTS: Record<string, HookEvent> = {
  'pre-install': 'pre-install',
  'post-install': 'post-install',
  'pre-delete': 'pre-delete',
  'post-delete': 'post-delete',
  'pre-upgrade': 'pre-upgrade',
  'post-upgrade': 'post-upgrade',
  'pre-rollback': 'pre-rollback',
  'post-rollback': 'post-rollback',
  test: 'test',
  'test-success': 'test',
};

/** HOOK_ANNOTATION and friends are the annotations Helm reads on hooks. */
export const HOOK_ANNOTATION = 'helm.sh/hook';
export const HOOK_WEIGHT_ANNOTATION = 'helm.sh/hook-weight';
export const HOOK_DELETE_ANNOTATION = 'helm.sh/hook-delete-policy';

/** SimpleHead is the part of a manifest Helm reads to sort it. */
export interface SimpleHead {
  apiVersion: string;
  kind: string;
  metadata: { name: string; annotations: Record<string, string> | null } | null;
}

/** Manifest is one rendered document (Go: releaseutil.Manifest). */
export interface Manifest {
  /** name is the template path it came from. */
  name: string;
  content: string;
  head: SimpleHead;
}

/** Hook is a manifest annotated with helm.sh/hook (Go: release.Hook). */
export interface Hook {
  name: string;
  kind: string;
  path: string;
  manifest: string;
  events: HookEvent[];
  weight: number;
  deletePolicies: string[];
}

/** INSTALL_ORDER is releaseutil.InstallOrder. */
export const INSTALL_ORDER: readonly string[] = [
  'PriorityClass', 'Namespace', 'NetworkPolicy', 'ResourceQuota', 'LimitRange', 'PodSecurityPolicy', 'PodDisruptionBudget',
  'ServiceAccount', 'Secret', 'SecretList', 'ConfigMap', 'StorageClass', 'PersistentVolume', 'PersistentVolumeClaim',
  'CustomResourceDefinition', 'ClusterRole', 'ClusterRoleList', 'ClusterRoleBinding', 'ClusterRoleBindingList', 'Role',
  'RoleList', 'RoleBinding', 'RoleBindingList', 'Service', 'DaemonSet', 'Pod', 'ReplicationController', 'ReplicaSet',
  'Deployment', 'HorizontalPodAutoscaler', 'StatefulSet', 'Job', 'CronJob', 'IngressClass', 'Ingress', 'APIService',
];

/** UNINSTALL_ORDER is releaseutil.UninstallOrder. */
export const UNINSTALL_ORDER: readonly string[] = [...INSTALL_ORDER].reverse();

/** splitManifests is releaseutil.SplitManifests: documents separated by `---` lines, trimmed, empties dropped. */
export function splitManifests(bigFile: string): string[] {
  const docs = bigFile.trim().split(/(?:^|\s*\n)---\s*/);
  const out: string[] = [];
  for (const d of docs) {
    if (d === '') continue;
    out.push(d.trim());
  }
  return out;
}

function jsonKind(v: GoValue): string {
  if (Array.isArray(v)) return 'array';
  if (isGoMap(v)) return 'object';
  if (typeof v === 'string') return 'string';
  if (typeof v === 'boolean') return 'bool';
  return 'number';
}

// Rendering the same chart for many clusters or events yields the same documents again and again; parsing YAML
// is most of a render's cost, so heads are memoised by document text (bounded, least recently used first).
const HEAD_CACHE_LIMIT = 4096;
const headCache = new Map<string, SimpleHead | string>();

/** parseHead is yaml.Unmarshal into SimpleHead; it returns Go's error text on failure. Results are shared: read-only. */
function parseHead(doc: string): SimpleHead | string {
  const hit = headCache.get(doc);
  if (hit !== undefined) {
    headCache.delete(doc);
    headCache.set(doc, hit);
    return hit;
  }
  const h = parseHeadUncached(doc);
  headCache.set(doc, h);
  if (headCache.size > HEAD_CACHE_LIMIT) headCache.delete(headCache.keys().next().value as string);
  return h;
}

function parseHeadUncached(doc: string): SimpleHead | string {
  let v: GoValue;
  try {
    v = parseYamlSigs(doc);
  } catch (e) {
    if (e instanceof YAMLError) return e.message;
    throw e;
  }
  const head: SimpleHead = { apiVersion: '', kind: '', metadata: null };
  if (v === null) return head;
  const pre = 'error unmarshaling JSON: while decoding JSON: json: cannot unmarshal ';
  if (!isGoMap(v)) return `${pre}${jsonKind(v)} into Go value of type releaseutil.SimpleHead`;
  let err: string | null = null;
  const str = (x: GoValue, field: string): string => {
    if (x === null || x === undefined) return '';
    if (typeof x === 'string') return x;
    const s = scalarAsString(x);
    if (s !== undefined) return s;
    err ??= `${pre}${jsonKind(x)} into Go struct field ${field} of type string`;
    return '';
  };
  head.apiVersion = str(v.apiVersion, 'SimpleHead.apiVersion');
  head.kind = str(v.kind, 'SimpleHead.kind');
  const md = v.metadata;
  if (md !== undefined && md !== null) {
    if (!isGoMap(md)) err ??= `${pre}${jsonKind(md)} into Go struct field SimpleHead.metadata of type struct { Name string "json:\\"name\\""; Annotations map[string]string "json:\\"annotations\\"" }`;
    else {
      const ann = md.annotations;
      let annotations: Record<string, string> | null = null;
      if (ann !== undefined && ann !== null) {
        if (!isGoMap(ann)) err ??= `${pre}${jsonKind(ann)} into Go struct field .metadata.annotations of type map[string]string`;
        else {
          annotations = {};
          for (const k of Object.keys(ann)) annotations[k] = str(ann[k], '.metadata.annotations');
        }
      }
      head.metadata = { name: str(md.name, '.metadata.name'), annotations };
    }
  }
  return err ?? head;
}

function lessByKind(a: string, b: string, order: Map<string, number>): boolean {
  const first = order.get(a);
  const second = order.get(b);
  if (first === undefined && second === undefined) {
    if (a !== b) return a < b;
    return false;
  }
  if (first === undefined) return false;
  if (second === undefined) return true;
  return first < second;
}

/** sortByKind is a stable sort by kind in the given order (unknown kinds last, alphabetically). */
export function sortByKind<T>(items: T[], kindOf: (t: T) => string, ordering: readonly string[] = INSTALL_ORDER): T[] {
  const order = new Map(ordering.map((k, i) => [k, i]));
  return items
    .map((item, i) => ({ item, i }))
    .sort((x, y) => {
      const ka = kindOf(x.item);
      const kb = kindOf(y.item);
      if (lessByKind(ka, kb, order)) return -1;
      if (lessByKind(kb, ka, order)) return 1;
      return x.i - y.i;
    })
    .map((e) => e.item);
}

/**
 * sortManifests is releaseutil.SortManifests: files (path → rendered text) split into documents, hooks separated
 * out, both sorted by kind in install order. Throws HelmError('manifest') for a document that is not valid YAML.
 * `warn` receives "info: skipping unknown hook" messages.
 */
export function sortManifests(files: ReadonlyMap<string, string>, warn: (m: string) => void = () => {}): { hooks: Hook[]; manifests: Manifest[] } {
  const hooks: Hook[] = [];
  const generic: Manifest[] = [];
  const paths = [...files.keys()].sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
  for (const path of paths) {
    const content = files.get(path)!;
    if (baseName(path).startsWith('_')) continue;
    if (content.trim() === '') continue;
    for (const m of splitManifests(content)) {
      const head = parseHead(m);
      if (typeof head === 'string') throw new HelmError('manifest', `YAML parse error on ${path}: ${head}`, true);
      const annotations = head.metadata?.annotations;
      if (!annotations || Object.keys(annotations).length === 0 || !Object.prototype.hasOwnProperty.call(annotations, HOOK_ANNOTATION)) {
        generic.push({ name: path, content: m, head });
        continue;
      }
      const hookTypes = annotations[HOOK_ANNOTATION];
      const ws = annotations[HOOK_WEIGHT_ANNOTATION] ?? '';
      const weight = /^[+-]?[0-9]+$/.test(ws) && Math.abs(Number(ws)) < 2 ** 63 ? Number(ws) : 0;
      const h: Hook = { name: head.metadata!.name, kind: head.kind, path, manifest: m, events: [], weight, deletePolicies: [] };
      let unknown = false;
      for (const t of hookTypes.split(',')) {
        const e = EVENTS[t.trim().toLowerCase()];
        if (e === undefined) {
          unknown = true;
          break;
        }
        h.events.push(e);
      }
      if (unknown) {
        warn(`info: skipping unknown hook: ${JSON.stringify(hookTypes)}`);
        continue;
      }
      hooks.push(h);
      const dps = annotations[HOOK_DELETE_ANNOTATION];
      if (dps !== undefined) for (const dp of dps.split(',')) h.deletePolicies.push(dp.trim().toLowerCase());
    }
  }
  return { hooks: sortByKind(hooks, (h) => h.kind), manifests: sortByKind(generic, (m) => m.head.kind) };
}
