// replacements.ts: `replacements` — copy a field of one resource into fields of others — and the field-path syntax
// they share (`spec.template.spec.containers.[name=app].image`, `*`, list indexes). Go: kustomize
// api/filters/replacement/replacement.go, kyaml/yaml PathMatcher, kyaml/utils SmarterPathSplitter.
import { parseAllDocuments } from 'yaml';
import { matchesLabelSelector, parseLabelSelector } from '../api/index.js';
import { KustomizeError } from './errors.js';
import { effectiveNamespace, gvkString, type ResId, type Resource } from './resource.js';
import { isObject, type JSONObject, type JSONValue } from './yaml.js';

/** ReplacementSelector is types.Selector as replacements use it (exact match, not regex). */
export interface ReplacementSelector {
  group?: string;
  version?: string;
  kind?: string;
  name?: string;
  namespace?: string;
  labelSelector?: string;
  annotationSelector?: string;
}

/** FieldOptions is types.FieldOptions. */
export interface FieldOptions {
  delimiter?: string;
  index?: number;
  create?: boolean;
}

/** Replacement is one `replacements` entry. */
export interface Replacement {
  source?: ReplacementSelector & { fieldPath?: string; options?: FieldOptions };
  targets?: { select?: ReplacementSelector; reject?: ReplacementSelector[]; fieldPaths?: string[]; options?: FieldOptions }[];
}

/** smarterPathSplit is kyaml SmarterPathSplitter: split on '.', keeping `[a.b=c]` together. */
export function smarterPathSplit(path: string): string[] {
  const parts = path.split('.');
  const out: string[] = [];
  for (let i = 0; i < parts.length; i++) {
    const e = parts[i];
    if (e.startsWith('[') && !e.endsWith(']')) {
      const b = [e];
      while (i < parts.length - 1) {
        i++;
        b.push(parts[i]);
        if (parts[i].endsWith(']')) break;
      }
      const s = b.join('.');
      out.push(s.includes('=') ? s : s.replace(/^\[+|\]+$/g, ''));
    } else out.push(e);
  }
  return out;
}

function selectorIdString(s: ReplacementSelector): string {
  const gvk = gvkString({ group: s.group ?? '', version: s.version ?? '', kind: s.kind ?? '' });
  return `${gvk}/${s.name || '[noName]'}.${s.namespace || '[noNs]'}`;
}

function idSelectedBy(id: ResId, s: ReplacementSelector): boolean {
  if (s.name && s.name !== id.name) return false;
  if (s.namespace && effectiveNamespace({ ...id, namespace: s.namespace }) !== effectiveNamespace(id)) return false;
  if (s.group && s.group !== id.group) return false;
  if (s.version && s.version !== id.version) return false;
  if (s.kind && s.kind !== id.kind) return false;
  return true;
}

function matchesSel(text: string | undefined, m: Record<string, string>): boolean {
  if (!text) return true;
  const r = parseLabelSelector(text);
  if (!r.ok) throw new KustomizeError('Invalid', r.error);
  return matchesLabelSelector(r.selector, m);
}

// A located field: the container holding it and its key, so scalars can be replaced in place.
interface Slot {
  parent: JSONObject | JSONValue[];
  key: string | number;
}

const slotValue = (s: Slot): JSONValue | undefined => (Array.isArray(s.parent) ? s.parent[s.key as number] : (s.parent as JSONObject)[s.key as string]);

function parseSelectorPart(p: string): { key: string; value: string } | undefined {
  const m = /^\[([^=]*)=(.*)\]$/.exec(p);
  return m ? { key: m[1], value: m[2] } : undefined;
}

/** findFields is kyaml PathMatcher: every field the path names, created along the way when create is set. */
export function findFields(root: JSONObject, path: string[], create: 'map' | 'seq' | 'scalar' | undefined): Slot[] {
  let slots: Slot[] = [{ parent: [root], key: 0 }];
  path.forEach((p, idx) => {
    const last = idx === path.length - 1;
    const next: Slot[] = [];
    for (const s of slots) {
      let cur = slotValue(s);
      const sel = parseSelectorPart(p);
      if (sel) {
        if (cur === undefined || cur === null) {
          if (!create) continue;
          cur = [];
          (s.parent as JSONObject)[s.key as string] = cur;
        }
        if (!Array.isArray(cur)) continue;
        let found = false;
        cur.forEach((e, i) => {
          if (sel.key === '' ? String(e) === sel.value : isObject(e) && e[sel.key] !== undefined && String(e[sel.key]) === sel.value) {
            next.push({ parent: cur as JSONValue[], key: i });
            found = true;
          }
        });
        if (!found && create && sel.key !== '') {
          cur.push({ [sel.key]: sel.value });
          next.push({ parent: cur, key: cur.length - 1 });
        }
        continue;
      }
      if (p === '*' || p === '-') {
        if (Array.isArray(cur)) cur.forEach((_e, i) => next.push({ parent: cur as JSONValue[], key: i }));
        continue;
      }
      if (Array.isArray(cur)) {
        if (/^\d+$/.test(p) && Number(p) < cur.length) next.push({ parent: cur, key: Number(p) });
        continue;
      }
      if (cur === undefined || cur === null) continue;
      if (!isObject(cur)) continue;
      if (!(p in cur) || cur[p] === null) {
        if (!create) continue;
        cur[p] = last ? (create === 'map' ? {} : create === 'seq' ? [] : '') : {};
      }
      next.push({ parent: cur, key: p });
    }
    slots = next;
  });
  return slots;
}

function resolveScalar(text: string): JSONValue {
  const d = parseAllDocuments(text, { version: '1.2', schema: 'core', intAsBigInt: true });
  const doc = Array.isArray(d) ? d[0] : d;
  const v = doc?.toJS() as unknown;
  return typeof v === 'string' || typeof v === 'number' || typeof v === 'bigint' || typeof v === 'boolean' || v === null ? (v as JSONValue) : text;
}

const scalarText = (v: JSONValue): string => (typeof v === 'string' ? v : v === null ? '' : String(v));

function setField(slot: Slot, value: JSONValue, options: FieldOptions | undefined, created: boolean): void {
  let v = structuredClone(value) as JSONValue;
  const target = slotValue(slot);
  const targetScalar = target === undefined || target === null || typeof target !== 'object';
  if (options?.delimiter) {
    if (!targetScalar) throw new KustomizeError('Invalid', 'delimiter option can only be used with scalar nodes');
    const tv = scalarText(target ?? '').split(options.delimiter);
    const sv = scalarText(v);
    const i = options.index ?? 0;
    if (i < 0) tv.unshift(sv);
    else if (i >= tv.length) tv.push(sv);
    else tv[i] = sv;
    v = tv.join(options.delimiter);
  }
  if (targetScalar && !created && target !== '' && target !== undefined && target !== null && (typeof v !== 'object' || v === null)) {
    // kyaml replaces only the node's text: the target keeps its tag (a quoted string stays a string).
    const text = scalarText(v);
    v = typeof target === 'string' ? text : resolveScalar(text);
  }
  if (Array.isArray(slot.parent)) slot.parent[slot.key as number] = v;
  else slot.parent[slot.key as string] = v;
}

function allIds(r: Resource): ResId[] {
  return [r.curId(), ...r.prev];
}

/** applyReplacements runs the replacements in order over the resources. */
export function applyReplacements(resources: Resource[], replacements: Replacement[]): void {
  for (const rep of replacements) {
    if (!rep.source || !rep.targets) throw new KustomizeError('Invalid', 'replacements must specify a source and at least one target');
    const src = rep.source;
    const matches = resources.filter((r) => allIds(r).some((id) => idSelectedBy(id, src)));
    const srcDesc = `${selectorIdString(src)}`;
    if (matches.length > 1) throw new KustomizeError('Invalid', `multiple matches for selector ${srcDesc}`);
    if (matches.length === 0) throw new KustomizeError('NotFound', `nothing selected by ${srcDesc}`);
    const fieldPath = src.fieldPath || 'metadata.name';
    const found = findFields(matches[0].obj, smarterPathSplit(fieldPath), undefined);
    let value = found.length > 0 ? slotValue(found[0]) : undefined;
    if (value === undefined || value === null || value === '' || (isObject(value) && Object.keys(value).length === 0) || (Array.isArray(value) && value.length === 0)) {
      throw new KustomizeError('NotFound', `fieldPath \`${fieldPath}\` is missing for replacement source ${srcDesc}`);
    }
    if (src.options?.delimiter) {
      if (typeof value === 'object') throw new KustomizeError('Invalid', 'delimiter option can only be used with scalar nodes');
      const parts = scalarText(value).split(src.options.delimiter);
      const i = src.options.index ?? 0;
      if (i >= parts.length || i < 0) throw new KustomizeError('Invalid', `options.index ${i} is out of bounds for value ${scalarText(value)}`);
      value = parts[i];
    }
    for (const t of rep.targets) {
      if (!t.select) throw new KustomizeError('Invalid', 'target must specify resources to select');
      const fieldPaths = t.fieldPaths && t.fieldPaths.length > 0 ? t.fieldPaths : ['metadata.name'];
      for (const r of resources) {
        const labels = r.stringMap('labels');
        const annos = r.stringMap('annotations');
        if (!matchesSel(t.select.labelSelector, labels) || !matchesSel(t.select.annotationSelector, annos)) continue;
        if ((t.reject ?? []).some((rj) => (rj.labelSelector || rj.annotationSelector) && matchesSel(rj.labelSelector, labels) && matchesSel(rj.annotationSelector, annos))) continue;
        const ids = allIds(r);
        const sel = t.select;
        if (!ids.some((id) => idSelectedBy(id, sel))) continue;
        const rejected = (t.reject ?? []).some((rj) => (rj.group || rj.version || rj.kind || rj.name || rj.namespace) && ids.some((id) => idSelectedBy(id, rj)));
        if (rejected) continue;
        for (const fp of fieldPaths) {
          const kind = t.options?.create ? (Array.isArray(value) ? 'seq' : isObject(value) ? 'map' : 'scalar') : undefined;
          const slots = findFields(r.obj, smarterPathSplit(fp), kind);
          if (slots.length === 0) {
            throw new KustomizeError('NotFound', kind ? `unable to find or create field ${JSON.stringify(fp)} in replacement target` : `unable to find field ${JSON.stringify(fp)} in replacement target`);
          }
          for (const s of slots) setField(s, value, t.options, false);
        }
      }
    }
  }
}
