// vars.ts: the deprecated `vars` — $(NAME) in the varReference fields replaced by a field of a named resource,
// resolved after name references are fixed. Go: kustomize api/internal/accumulator/resaccumulator.go (MergeVars,
// ResolveVars), refvartransformer.go, api/filters/refvar/expand.go.
import { KustomizeError } from './errors.js';
import { applyFieldSpec, NO_CHANGE } from './fieldspec.js';
import { findFields, smarterPathSplit } from './replacements.js';
import { effectiveNamespace, gvkString, isClusterScoped, parseGroupVersion, type ResId } from './resource.js';
import type { JSONValue } from './yaml.js';
import type { Accumulator } from './build.js';

/** Var is types.Var. */
export interface Var {
  name: string;
  objref?: { kind?: string; name?: string; namespace?: string; apiVersion?: string; group?: string; version?: string };
  fieldref?: { fieldpath?: string };
}

// varString is Go's %v of a types.Var: the objref prints as its Gvk (resid.Gvk's String method is promoted), the
// field path defaults to metadata.name.
function varString(v: Var): string {
  const o = v.objref ?? {};
  const gv = o.apiVersion ? parseGroupVersion(o.apiVersion) : { group: o.group ?? '', version: o.version ?? '' };
  return `{${v.name} ${gvkString({ ...gv, kind: o.kind ?? '' })} {${v.fieldref?.fieldpath || 'metadata.name'}}}`;
}

/** mergeVars is ResAccumulator.MergeVars: each var remembered by the resource its objref names. */
export function mergeVars(ra: Accumulator, incoming: Var[]): void {
  for (const v of incoming) {
    const o = v.objref ?? {};
    const gv = o.apiVersion ? parseGroupVersion(o.apiVersion) : { group: o.group ?? '', version: o.version ?? '' };
    const target: ResId = { ...gv, kind: o.kind ?? '', name: o.name ?? '', namespace: o.namespace ?? '' };
    const strict = target.namespace !== '' || isClusterScoped(target);
    const matched = ra.resMap.list.filter((r) =>
      r.allIds().some(
        (id) =>
          id.group === target.group &&
          id.version === target.version &&
          id.kind === target.kind &&
          id.name === target.name &&
          (!strict || effectiveNamespace(id) === effectiveNamespace(target)),
      ),
    );
    if (matched.length > 1) throw new KustomizeError('Conflict', `found ${matched.length} resId matches for var ${varString(v)} (unable to disambiguate)`);
    if (matched.length === 1) matched[0].refVarNames.push(v.name);
    if (ra.vars.some((x) => x.name === v.name)) throw new KustomizeError('Conflict', `var '${v.name}' already encountered`);
    ra.vars.push(v);
  }
}

// Go: refvar.DoReplacements / expand.go — $(NAME) expands, $$ escapes, unknown names stay as written.
function expand(s: string, values: Map<string, JSONValue>, used: Set<string>): string {
  let out = '';
  for (let i = 0; i < s.length; i++) {
    if (s[i] !== '$' || i + 1 >= s.length) {
      out += s[i];
      continue;
    }
    const next = s[i + 1];
    if (next === '$') {
      out += '$';
      i++;
      continue;
    }
    if (next === '(') {
      const end = s.indexOf(')', i + 2);
      if (end < 0) {
        out += s.slice(i);
        break;
      }
      const name = s.slice(i + 2, end);
      if (values.has(name)) {
        used.add(name);
        const v = values.get(name)!;
        out += typeof v === 'string' ? v : String(v);
      } else out += `$(${name})`;
      i = end;
      continue;
    }
    out += s[i];
  }
  return out;
}

/** resolveVars is ResAccumulator.ResolveVars. */
export function resolveVars(ra: Accumulator): void {
  if (ra.vars.length === 0) return;
  const values = new Map<string, JSONValue>();
  for (const v of ra.vars) {
    const res = ra.resMap.list.find((r) => r.refVarNames.includes(v.name));
    if (!res) throw new KustomizeError('NotFound', `var '${varString(v)}' cannot be mapped to a field in the set of known resources`);
    const path = v.fieldref?.fieldpath || 'metadata.name';
    // Go: RNode.GetFieldValue converts `name[i]` into the field and the index.
    const parts = smarterPathSplit(path).flatMap((p) => {
      const m = /^(.+)\[(\d+)\]$/.exec(p);
      return m ? [m[1], m[2]] : [p];
    });
    const slots = findFields(res.obj, parts, undefined);
    const val = slots.length > 0 ? (Array.isArray(slots[0].parent) ? slots[0].parent[slots[0].key as number] : slots[0].parent[slots[0].key as string]) : undefined;
    if (val === undefined) throw new KustomizeError('NotFound', `field specified in var '${varString(v)}' not found in corresponding resource`);
    values.set(v.name, val);
  }
  const used = new Set<string>();
  const sub = (v: JSONValue): JSONValue | typeof NO_CHANGE => {
    if (typeof v === 'string') {
      const m = /^\$\(([^)]*)\)$/.exec(v);
      if (m && values.has(m[1])) {
        used.add(m[1]);
        return values.get(m[1])!;
      }
      return expand(v, values, used);
    }
    if (Array.isArray(v)) return v.map((e) => (typeof e === 'string' ? expand(e, values, used) : e));
    if (v !== null && typeof v === 'object') {
      for (const [k, e] of Object.entries(v)) if (typeof e === 'string') v[k] = expand(e, values, used);
      return v;
    }
    return NO_CHANGE;
  };
  for (const r of ra.resMap.list) for (const fs of ra.config.varReference) applyFieldSpec(r.obj, fs, sub);
}
