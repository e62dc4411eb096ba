// yaml.ts: reading resource files the way kyaml does (yaml.v3, YAML 1.2 core schema: `yes` is a string, integers
// stay integers) and writing a resource the way `kubectl kustomize` prints it: Resource.AsYAML is JSON first, then
// sigs.k8s.io/yaml JSONToYAML (yaml.v2: keys sorted, 2-space indent, sequences not indented, long lines folded).
// Go: kustomize api/resource/resource.go AsYAML, kyaml/yaml/rnode.go MarshalJSON.
import { parseAllDocuments } from 'yaml';
import { parseYamlSigs, toYamlSigs, YAMLError } from '../funcs/index.js';
import { KustomizeError } from './errors.js';

/** JSONValue is a decoded YAML value: integers are bigint, floats number. */
export type JSONValue = null | boolean | number | bigint | string | JSONValue[] | JSONObject;
/** JSONObject is a decoded YAML mapping. */
export interface JSONObject {
  [k: string]: JSONValue;
}

/** isObject tells a mapping from every other value. */
export const isObject = (v: unknown): v is JSONObject => typeof v === 'object' && v !== null && !Array.isArray(v) && !(v instanceof Uint8Array);

/** parseDocuments decodes every non-empty document of a YAML stream as yaml.v3 would (YAML 1.2, ints as bigint). */
export function parseDocuments(text: string, file: string): JSONValue[] {
  const docs = parseAllDocuments(text, { version: '1.2', schema: 'core', intAsBigInt: true, merge: true, uniqueKeys: false, prettyErrors: false });
  const out: JSONValue[] = [];
  for (const d of Array.isArray(docs) ? docs : [docs]) {
    if (d.errors.length > 0) {
      const err = d.errors[0];
      const line = err.linePos?.[0]?.line ?? text.slice(0, err.pos[0]).split('\n').length;
      const msg = err.message.split('\n')[0].replace(/ at line \d+, column \d+:?$/, '');
      throw new KustomizeError('Invalid', `MalformedYAMLError: yaml: line ${line}: ${msg} in File: ${file}`);
    }
    const v = d.toJS({ maxAliasCount: -1 }) as JSONValue | undefined;
    if (v === null || v === undefined) continue;
    out.push(normalize(v));
  }
  return out;
}

// normalize turns the yaml library's values into JSONValue: Dates (the library's !!timestamp) back to text, Maps to
// objects. yaml.v3 decodes an untagged timestamp into interface{} as its string.
function normalize(v: unknown): JSONValue {
  if (v === null || v === undefined) return null;
  if (Array.isArray(v)) return v.map(normalize);
  if (v instanceof Map) {
    const o: JSONObject = {};
    for (const [k, e] of v) o[String(k)] = normalize(e);
    return o;
  }
  if (typeof v === 'object') {
    const o: JSONObject = {};
    for (const [k, e] of Object.entries(v)) o[k] = normalize(e);
    return o;
  }
  if (typeof v === 'number' && Number.isInteger(v) && !Number.isSafeInteger(v)) return v;
  return v as JSONValue;
}

/** parseKustomizationYaml decodes a kustomization file as sigs.k8s.io/yaml YAMLToJSON does (YAML 1.1). */
export function parseKustomizationYaml(text: string): unknown {
  try {
    return parseYamlSigs(text);
  } catch (e) {
    if (e instanceof YAMLError) throw new KustomizeError('Invalid', `invalid Kustomization: ${e.message}`, { cause: e });
    throw e;
  }
}

/** resourceYaml prints one resource as Resource.AsYAML does. */
export function resourceYaml(obj: JSONObject): string {
  return toYamlSigs(obj as never);
}

/** cloneValue deep-copies a JSONValue. */
export function cloneValue<T extends JSONValue>(v: T): T {
  if (Array.isArray(v)) return v.map(cloneValue) as T;
  if (isObject(v)) {
    const o: JSONObject = {};
    for (const [k, e] of Object.entries(v)) o[k] = cloneValue(e);
    return o as T;
  }
  return v;
}

/** scalarString is a scalar's text as kyaml's node Value holds it. */
export function scalarString(v: JSONValue): string {
  if (v === null) return 'null';
  if (typeof v === 'string') return v;
  if (typeof v === 'bigint' || typeof v === 'boolean') return String(v);
  if (typeof v === 'number') return Number.isInteger(v) ? String(v) : String(v);
  return JSON.stringify(v);
}
