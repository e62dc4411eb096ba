// patches.ts: a profile's `patches` applied to the objects it deploys, Kustomize style. A patch whose YAML is a list
// is a JSON 6902 patch (RFC 6902 operations) for the objects its `target` selects; one that is an object is a
// strategic merge patch, for the target's objects or, without a target, the object with the patch's kind and name.
// Strategic merge is approximated without OpenAPI schemas (Kustomize uses Kubernetes' built-in ones): maps merge,
// `null` deletes, `$patch: delete|replace` directives work, and lists of objects merge by `name` when every element
// has one (containers, env, volumes, volumeMounts…); any other list is replaced (like a JSON merge patch, which is
// also what strategic merge does for custom resources). Also: the target selectors of patches and driftExclusions.
// Pure. Go: libsveltos lib/patcher (CustomPatchPostRenderer on sigs.k8s.io/kustomize/api/filters/patchjson6902,
// patchstrategicmerge), kustomize types.Selector
import jsonpatch from 'fast-json-patch';
import { RE2JS } from 're2js';
import { matchesLabelSelector, parseLabelSelector, type Patch } from '../api/index.js';
import type { KubeObject } from '../kube/index.js';
import { parseYamlSigs, YAMLError } from '../funcs/index.js';

type Selector = NonNullable<Patch['target']>;

const isRecord = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

/** selectorMatches is Kustomize's target selection: group/version/kind exact, name/namespace anchored regexes, label and annotation selectors. */
export function selectorMatches(t: Selector | undefined, o: KubeObject): boolean {
  if (!t) return true;
  const slash = o.apiVersion.indexOf('/');
  const group = slash < 0 ? '' : o.apiVersion.slice(0, slash);
  const version = slash < 0 ? o.apiVersion : o.apiVersion.slice(slash + 1);
  const re = (p: string | undefined, v: string) => {
    if (!p) return true;
    try {
      // RE2, as Kustomize's Go regexp: a patch target cannot make matching backtrack for ever.
      return RE2JS.compile(`^(?:${p})$`).test(v);
    } catch {
      return p === v;
    }
  };
  if (t.group && t.group !== group) return false;
  if (t.version && t.version !== version) return false;
  if (t.kind && t.kind !== o.kind) return false;
  if (!re(t.name, o.metadata.name)) return false;
  if (!re(t.namespace, o.metadata.namespace ?? '')) return false;
  const sel = (text: string | undefined, labels: Record<string, string> | undefined) => {
    if (!text) return true;
    const r = parseLabelSelector(text);
    return r.ok && matchesLabelSelector(r.selector, labels ?? {});
  };
  return sel(t.labelSelector, o.metadata.labels) && sel(t.annotationSelector, o.metadata.annotations);
}

/** strategicMerge merges a strategic-merge patch into a value (see the file comment for what is approximated). */
export function strategicMerge(target: unknown, patch: unknown): unknown {
  if (!isRecord(patch)) return patch;
  if (patch.$patch === 'replace') {
    const { $patch: _p, ...rest } = patch;
    return rest;
  }
  if (patch.$patch === 'delete') return undefined;
  const out: Record<string, unknown> = isRecord(target) ? { ...target } : {};
  for (const [k, v] of Object.entries(patch)) {
    if (k === '$patch' || k.startsWith('$setElementOrder/') || k.startsWith('$deleteFromPrimitiveList/') || k === '$retainKeys') continue;
    if (v === null) {
      delete out[k];
      continue;
    }
    const cur = out[k];
    if (Array.isArray(v)) {
      out[k] = mergeList(Array.isArray(cur) ? cur : undefined, v);
      continue;
    }
    const merged = strategicMerge(cur, v);
    if (merged === undefined) delete out[k];
    else out[k] = merged;
  }
  return out;
}

function mergeList(cur: unknown[] | undefined, patch: unknown[]): unknown[] {
  const named = (l: unknown[]) => l.length > 0 && l.every((x) => isRecord(x) && typeof x.name === 'string');
  if (!cur || !named(patch) || (cur.length > 0 && !named(cur))) {
    // Not a list Kustomize would merge by key here: replaced (directive-only elements dropped).
    return patch.filter((x) => !(isRecord(x) && x.$patch === 'delete'));
  }
  const out = [...cur];
  for (const p of patch as Record<string, unknown>[]) {
    const i = out.findIndex((x) => (x as Record<string, unknown>).name === p.name);
    if (p.$patch === 'delete') {
      if (i >= 0) out.splice(i, 1);
      continue;
    }
    if (i >= 0) out[i] = strategicMerge(out[i], p);
    else out.push(strategicMerge(undefined, p));
  }
  return out;
}

/** PatchResult is the patched objects, or the first patch that could not be read or applied. */
export type PatchResult = { ok: true; objects: KubeObject[] } | { ok: false; message: string };

/**
 * applyPatches applies rendered patch texts, in order, to every object they select. Objects are copied, never
 * changed in place. `patches[i].patch` must already be rendered (patches are templates too).
 */
export function applyPatches(objects: readonly KubeObject[], patches: readonly { patch: string; target?: Selector }[]): PatchResult {
  let out = [...objects];
  for (const [i, p] of patches.entries()) {
    const where = `patches[${i}]`;
    let doc: unknown;
    try {
      doc = JSON.parse(JSON.stringify(parseYamlSigs(p.patch)));
    } catch (err) {
      if (err instanceof YAMLError || err instanceof SyntaxError) return { ok: false, message: `${where}: invalid YAML: ${err.message}` };
      throw err;
    }
    if (Array.isArray(doc)) {
      // JSON 6902: a list of operations, for the objects the target selects.
      if (!p.target) return { ok: false, message: `${where}: a JSON 6902 patch needs a target` };
      const invalid = jsonpatch.validate(doc as jsonpatch.Operation[]);
      if (invalid) return { ok: false, message: `${where}: invalid JSON 6902 patch: ${invalid.message.split('\n')[0]}` };
      for (let j = 0; j < out.length; j++) {
        if (!selectorMatches(p.target, out[j])) continue;
        try {
          out[j] = jsonpatch.applyPatch(structuredClone(out[j]), structuredClone(doc) as jsonpatch.Operation[], true, false).newDocument;
        } catch (err) {
          return { ok: false, message: `${where} on ${out[j].kind} ${out[j].metadata.namespace ?? ''}/${out[j].metadata.name}: ${err instanceof Error ? err.message.split('\n')[0] : String(err)}` };
        }
      }
      continue;
    }
    if (!isRecord(doc)) return { ok: false, message: `${where}: a patch must be a YAML object (strategic merge) or a list (JSON 6902)` };
    const md = isRecord(doc.metadata) ? doc.metadata : {};
    const target: Selector | undefined =
      p.target ??
      (typeof doc.kind === 'string' && typeof md.name === 'string'
        ? { kind: doc.kind, name: md.name, ...(typeof md.namespace === 'string' ? { namespace: md.namespace } : {}) }
        : undefined);
    if (!target) return { ok: false, message: `${where}: a strategic merge patch needs a target, or kind and metadata.name` };
    const body = p.target ? doc : withoutIdentity(doc);
    out = out.map((o) => (selectorMatches(target, o) ? (strategicMerge(o, body) as KubeObject) : o));
  }
  return { ok: true, objects: out };
}

/** withoutIdentity keeps a patch that selects by its own kind and name from renaming anything. */
function withoutIdentity(doc: Record<string, unknown>): Record<string, unknown> {
  const { apiVersion: _a, kind: _k, ...rest } = doc;
  if (isRecord(rest.metadata)) {
    const { name: _n, namespace: _ns, ...md } = rest.metadata;
    return { ...rest, metadata: md };
  }
  return rest;
}
