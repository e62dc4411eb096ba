// content.ts: turns the text of one ConfigMap/Secret data key into Kubernetes objects the way addon-controller does:
// several `---` documents, or a YAML list whose items are strings each holding one object; comments and empty
// documents ignored; YAML 1.1 scalars decoded like sigs.k8s.io/yaml. Pure.
// Go: libsveltos lib/deployer/applier.go CustomSplit, GetUnstructured
import { parseAllDocuments } from 'yaml';
import { parseYamlSigs, sigsDocumentValue, SIGS_YAML_OPTIONS, YAMLError } from '../funcs/index.js';
import type { KubeObject } from '../kube/index.js';

/** SplitResult is the objects of one text, or why it cannot be read (invalidYAML: the text is not YAML at all). */
export type SplitResult = { ok: true; objects: KubeObject[] } | { ok: false; message: string; invalidYAML?: true };

const isRecord = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

/** parseOne decodes a single YAML document (sigs.k8s.io/yaml semantics); throws YAMLError. */
function parseOne(text: string): unknown {
  return parseYamlSigs(text);
}

/** checkObject reports what is missing for a value to be a deployable Kubernetes object. */
function checkObject(v: unknown): string | undefined {
  if (!isRecord(v)) return `expected a Kubernetes object, got ${Array.isArray(v) ? 'a list' : typeof v === 'string' ? 'a string' : JSON.stringify(v)}`;
  if (typeof v.apiVersion !== 'string' || v.apiVersion === '') return 'Object \'apiVersion\' is missing';
  if (typeof v.kind !== 'string' || v.kind === '') return 'Object \'Kind\' is missing';
  const md = v.metadata;
  if (!isRecord(md) || md.name === undefined || md.name === null || md.name === '') return `${v.kind}: metadata.name is missing`;
  if (typeof md.name !== 'string') return `${v.kind}: metadata.name must be a string, got ${JSON.stringify(md.name)} (quote it: YAML reads y/n/yes/no/on/off as booleans)`;
  if (md.namespace !== undefined && md.namespace !== null && typeof md.namespace !== 'string') return `${v.kind} ${md.name}: metadata.namespace must be a string`;
  return undefined;
}

const CACHE_LIMIT = 512;
const cache = new Map<string, SplitResult>();

function deepFreeze<T>(v: T): T {
  if (v !== null && typeof v === 'object' && !Object.isFrozen(v)) {
    Object.freeze(v);
    for (const x of Object.values(v as object)) deepFreeze(x);
  }
  return v;
}

/**
 * splitPolicyText returns the objects held by one data value. A document that is a YAML list of strings contributes
 * one object per string (addon-controller's CustomSplit); anything else must be a single object. Results are
 * cached by text (the same ConfigMap goes to every cluster) and deeply frozen: copy before changing anything.
 */
export function splitPolicyText(text: string): SplitResult {
  const hit = cache.get(text);
  if (hit) {
    cache.delete(text);
    cache.set(text, hit);
    return hit;
  }
  const r = deepFreeze(splitUncached(text));
  cache.set(text, r);
  if (cache.size > CACHE_LIMIT) cache.delete(cache.keys().next().value as string);
  return r;
}

function splitUncached(text: string): SplitResult {
  // Go: removeCommentsAndEmptyLines — nothing but comments means nothing to deploy.
  if (text.split('\n').every((l) => /^\s*(#.*)?$/.test(l))) return { ok: true, objects: [] };
  // One parse of the stream gives each document's value (what parseOne would give for its text). A stream with
  // errors takes the document-by-document path, whose messages name them the way addon-controller's do.
  const docs = parseAllDocuments(text, SIGS_YAML_OPTIONS);
  const list = Array.isArray(docs) ? docs : [docs];
  if (list.some((d) => d.errors.length > 0)) return splitByDocument(text);
  try {
    return objectsOf(list.map((doc) => sigsDocumentValue(doc)));
  } catch (err) {
    return yamlFailure(err);
  }
}

// yamlFailure is the result for a YAMLError (a value YAML cannot give as JSON); anything else is rethrown.
function yamlFailure(err: unknown): SplitResult {
  if (err instanceof YAMLError) return { ok: false, message: `invalid YAML: ${err.message}`, invalidYAML: true };
  throw err;
}

/** splitByDocumentForTests is the document-by-document reading, which the one-parse reading must equal. */
export const splitByDocumentForTests = (text: string): SplitResult => splitByDocument(text);

function splitByDocument(text: string): SplitResult {
  const values: unknown[] = [];
  try {
    const docs = parseAllDocuments(text, { version: '1.1', uniqueKeys: false, prettyErrors: false });
    const list = Array.isArray(docs) ? docs : [docs];
    for (let i = 0; i < list.length; i++) {
      const doc = list[i];
      if (doc.errors.length > 0) {
        const err = doc.errors[0];
        const line = text.slice(0, err.pos[0]).split('\n').length;
        return { ok: false, message: `invalid YAML at line ${line}: ${err.message.split('\n')[0]}`, invalidYAML: true };
      }
      const [start, , end] = doc.range;
      values.push(parseOne(text.slice(start, end)));
    }
    return objectsOf(values);
  } catch (err) {
    return yamlFailure(err);
  }
}

// objectsOf checks the documents' values: a YAML list of strings holds one object per string; empty documents are
// skipped; anything else must be a Kubernetes object. Throws YAMLError (a string that is not YAML).
function objectsOf(docValues: unknown[]): SplitResult {
  const values: unknown[] = [];
  for (const value of docValues) {
    if (value === null || value === undefined) continue;
    if (Array.isArray(value) && value.length > 0 && value.every((x) => typeof x === 'string')) {
      // A YAML list of strings, each string one resource.
      for (const s of value as string[]) {
        const v = parseOne(s);
        if (v !== null && v !== undefined) values.push(v);
      }
      continue;
    }
    values.push(value);
  }
  const objects: KubeObject[] = [];
  for (let i = 0; i < values.length; i++) {
    const problem = checkObject(values[i]);
    if (problem) return { ok: false, message: values.length > 1 ? `object ${i + 1}: ${problem}` : problem };
    objects.push(values[i] as KubeObject);
  }
  return { ok: true, objects };
}

/**
 * decodeSecretData turns Secret `data` (base64) into text values; `stringData` is not stored by the API server so
 * only `data` is read. Undecodable values are reported by key.
 */
export function decodeSecretData(data: Record<string, string> | undefined): { ok: true; data: Record<string, string> } | { ok: false; message: string } {
  const out: Record<string, string> = {};
  for (const [k, v] of Object.entries(data ?? {})) {
    if (typeof v !== 'string' || !/^[A-Za-z0-9+/]*={0,2}$/.test(v)) return { ok: false, message: `key ${k}: data is not base64` };
    out[k] = Buffer.from(v, 'base64').toString('utf8');
  }
  return { ok: true, data: out };
}
