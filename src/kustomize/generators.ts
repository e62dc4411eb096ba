// generators.ts: configMapGenerator and secretGenerator (literals, files, env files, generatorOptions) and the
// content hash Kustomize appends to generated names. Go: kustomize api/kv/kv.go, api/internal/generators,
// api/hasher/hasher.go.
import { createHash } from 'node:crypto';
import { jsonString } from '../funcs/index.js';
import { KustomizeError } from './errors.js';
import { Resource, type GenerationBehavior } from './resource.js';
import { isObject, type JSONObject, type JSONValue } from './yaml.js';

/** GeneratorOptions is types.GeneratorOptions. */
export interface GeneratorOptions {
  labels?: Record<string, string>;
  annotations?: Record<string, string>;
  disableNameSuffixHash?: boolean;
  immutable?: boolean;
}

/** GeneratorArgs is the common part of configMapGenerator/secretGenerator entries. */
export interface GeneratorArgs {
  name?: string;
  namespace?: string;
  behavior?: string;
  literals?: string[];
  files?: string[];
  envs?: string[];
  env?: string;
  options?: GeneratorOptions;
  type?: string;
}

/** FileLoader reads a file relative to the kustomization root (root-restricted), or throws KustomizeError. */
export type FileLoader = (path: string) => Uint8Array;

/** mergeGlobalOptions is types.MergeGlobalOptionsIntoLocal. */
export function mergeGlobalOptions(local: GeneratorOptions | undefined, global: GeneratorOptions | undefined): GeneratorOptions | undefined {
  if (!global) return local;
  const out: GeneratorOptions = { ...(local ?? {}) };
  const over = (l: Record<string, string> | undefined, g: Record<string, string> | undefined) => {
    if (!l) return g ? { ...g } : undefined;
    const r = { ...l };
    for (const [k, v] of Object.entries(g ?? {})) if (!(k in r)) r[k] = v;
    return r;
  };
  out.labels = over(local?.labels, global.labels);
  out.annotations = over(local?.annotations, global.annotations);
  if (global.disableNameSuffixHash) out.disableNameSuffixHash = true;
  if (global.immutable) out.immutable = true;
  return out;
}

const utf8 = new TextDecoder('utf-8', { fatal: true });
function decodeUtf8(b: Uint8Array): string | undefined {
  try {
    return utf8.decode(b);
  } catch {
    return undefined;
  }
}

interface Pair {
  key: string;
  value: Uint8Array | string;
}

// Go: kv.parseLiteralSource / removeQuotes.
function literalPair(s: string): Pair {
  const i = s.indexOf('=');
  if (i <= 0) throw new KustomizeError('Invalid', `invalid literal source ${s}, expected key=value`);
  let v = s.slice(i + 1);
  if (v.length >= 2 && v[0] === v[v.length - 1] && (v[0] === '"' || v[0] === "'")) v = v.slice(1, -1);
  return { key: s.slice(0, i), value: v };
}

// Go: generators.ParseFileSource.
function fileSource(source: string): { key: string; path: string } {
  const n = source.split('=').length - 1;
  if (n === 0) return { key: source.slice(source.lastIndexOf('/') + 1), path: source };
  if (n === 1 && source.startsWith('=')) throw new KustomizeError('Invalid', `missing key name for file path ${JSON.stringify(source.slice(1))} in source ${JSON.stringify(source)}`);
  if (n === 1 && source.endsWith('=')) throw new KustomizeError('Invalid', `missing file path for key name ${JSON.stringify(source.slice(0, -1))} in source ${JSON.stringify(source)}`);
  if (n > 1) throw new KustomizeError('Invalid', `source ${JSON.stringify(source)} key name or file path contains '='`);
  const [key, path] = source.split('=');
  return { key, path };
}

// kubectl builds with Kustomize's no-op validator: neither data keys nor env-file names are checked.

// Go: kv.keyValuesFromLines — bufio.Scanner lines (a trailing \r dropped), BOM on the first, leading space trimmed.
function envPairs(content: Uint8Array): Pair[] {
  const text = Buffer.from(content).toString('utf8');
  const lines = text.split('\n');
  if (lines[lines.length - 1] === '') lines.pop();
  const out: Pair[] = [];
  lines.forEach((raw, i) => {
    let line = raw.endsWith('\r') ? raw.slice(0, -1) : raw;
    if (i === 0 && line.startsWith('\uFEFF')) line = line.slice(1);
    line = line.replace(/^\s+/u, '');
    if (line === '' || line.startsWith('#')) return;
    const eq = line.indexOf('=');
    const key = eq < 0 ? line : line.slice(0, eq);
    out.push({ key, value: eq < 0 ? '' : line.slice(eq + 1) });
  });
  return out;
}

function loadPairs(args: GeneratorArgs, load: FileLoader): Pair[] {
  const all: Pair[] = [];
  const envs = [...(args.envs ?? []), ...(args.env ? [args.env] : [])];
  for (const p of envs) {
    try {
      all.push(...envPairs(load(p)));
    } catch (e) {
      throw wrap(`env source files: [${envs.join(' ')}]`, e);
    }
  }
  for (const l of args.literals ?? []) {
    try {
      all.push(literalPair(l));
    } catch (e) {
      throw wrap(`literal sources [${(args.literals ?? []).join(' ')}]`, e);
    }
  }
  for (const f of args.files ?? []) {
    try {
      const { key, path } = fileSource(f);
      all.push({ key, value: load(path) });
    } catch (e) {
      throw wrap(`file sources: [${(args.files ?? []).join(' ')}]`, e);
    }
  }
  return all;
}

function wrap(prefix: string, e: unknown): unknown {
  if (e instanceof KustomizeError) return new KustomizeError(e.code, `loading KV pairs: ${prefix}: ${e.message}`, { cause: e });
  return e;
}

function validatedData(name: string, args: GeneratorArgs, load: FileLoader): Map<string, Uint8Array | string> {
  const known = new Map<string, Uint8Array | string>();
  for (const p of loadPairs(args, load)) {
    if (known.has(p.key)) throw new KustomizeError('Invalid', `configmap ${name} illegally repeats the key \`${p.key}\``);
    known.set(p.key, p.value);
  }
  return known;
}

function baseObject(kind: string, args: GeneratorArgs): JSONObject {
  if (!args.name) throw new KustomizeError('Invalid', 'a configmap must have a name');
  const metadata: JSONObject = { name: args.name };
  if (args.namespace) metadata.namespace = args.namespace;
  return { apiVersion: 'v1', kind, metadata };
}

function applyOptions(obj: JSONObject, opts: GeneratorOptions | undefined): void {
  if (!opts) return;
  const meta = obj.metadata as JSONObject;
  if (opts.labels && Object.keys(opts.labels).length > 0) meta.labels = { ...(meta.labels as JSONObject), ...opts.labels };
  if (opts.annotations && Object.keys(opts.annotations).length > 0) meta.annotations = { ...(meta.annotations as JSONObject), ...opts.annotations };
  if (opts.immutable) obj.immutable = true;
}

function makeResource(obj: JSONObject, args: GeneratorArgs): Resource {
  const r = new Resource(obj);
  r.needsHash = !args.options?.disableNameSuffixHash;
  const b = args.behavior ?? '';
  r.behavior = (b === '' ? 'create' : b) as GenerationBehavior;
  if (!['create', 'merge', 'replace'].includes(r.behavior)) r.behavior = 'unspecified';
  return r;
}

const toStr = (v: Uint8Array | string) => (typeof v === 'string' ? v : decodeUtf8(v));
const b64 = (v: Uint8Array | string) => Buffer.from(typeof v === 'string' ? Buffer.from(v, 'utf8') : v).toString('base64');

/** makeConfigMap is generators.MakeConfigMap plus the factory's hash/behaviour flags. */
export function makeConfigMap(args: GeneratorArgs, load: FileLoader): Resource {
  const obj = baseObject('ConfigMap', args);
  const data = validatedData(args.name!, args, load);
  const text: JSONObject = {};
  const bin: JSONObject = {};
  for (const [k, v] of data) {
    const s = toStr(v);
    if (s === undefined) bin[k] = b64(v);
    else text[k] = s;
  }
  if (Object.keys(text).length > 0) obj.data = text;
  if (Object.keys(bin).length > 0) obj.binaryData = bin;
  applyOptions(obj, args.options);
  return makeResource(obj, args);
}

/** makeSecret is generators.MakeSecret: type Opaque unless given, data base64-encoded. */
export function makeSecret(args: GeneratorArgs, load: FileLoader): Resource {
  const obj = baseObject('Secret', args);
  obj.type = args.type || 'Opaque';
  const data = validatedData(args.name!, args, load);
  const enc: JSONObject = {};
  for (const [k, v] of data) enc[k] = b64(v);
  if (Object.keys(enc).length > 0) obj.data = enc;
  applyOptions(obj, args.options);
  return makeResource(obj, args);
}

// ---------------------------------------------------------------------------------------------------------------
// Hash. Go: hasher.go encode, hex256, encodeConfigMap, encodeSecret; encoding/json Marshal (sorted keys, HTML escaped).

/** goJSON is Go's encoding/json Marshal of a generic value (map keys sorted, <, >, & escaped). */
export function goJSON(v: unknown): string {
  if (v === null || v === undefined) return 'null';
  if (typeof v === 'string') return goString(v);
  if (typeof v === 'boolean' || typeof v === 'bigint') return String(v);
  if (typeof v === 'number') return Number.isInteger(v) && Math.abs(v) < 1e21 ? String(v) : String(v);
  if (Array.isArray(v)) return `[${v.map(goJSON).join(',')}]`;
  const o = v as Record<string, unknown>;
  const keys = Object.keys(o).sort((a, b) => (Buffer.compare(Buffer.from(a), Buffer.from(b))));
  return `{${keys.map((k) => `${goString(k)}:${goJSON(o[k])}`).join(',')}}`;
}

// Go's encoding/json string encoding with HTML escaping.
const goString = (s: string): string => jsonString(s, true);

// Kubernetes' hash encoding: the first 10 hex digits of the sha256, with vowels and easily confused digits replaced.
function encodeHash(hex: string): string {
  const map: Record<string, string> = { '0': 'g', '1': 'h', '3': 'k', a: 'm', e: 't' };
  return [...hex.slice(0, 10)].map((c) => map[c] ?? c).join('');
}

const stringOr = (v: JSONValue | undefined): unknown => (v === undefined || v === null ? '' : isObject(v) ? v : typeof v === 'string' ? v : String(v));

/**
 * hashResource is hasher.Hash: ConfigMaps and Secrets hash their kind, data (and type). The name is always "":
 * upstream looks it up as the single field "metadata/name", which never exists, and every hash depends on that.
 */
export function hashResource(r: Resource): string {
  const obj = r.obj;
  let encoded: string;
  if (r.kind === 'ConfigMap') {
    const m: Record<string, unknown> = { kind: 'ConfigMap', name: '', data: stringOr(obj.data) };
    if (isObject(obj.binaryData)) m.binaryData = obj.binaryData;
    encoded = goJSON(m);
  } else if (r.kind === 'Secret') {
    const m: Record<string, unknown> = { kind: 'Secret', type: stringOr(obj.type), name: '', data: stringOr(obj.data) };
    if (isObject(obj.stringData)) m.stringData = obj.stringData;
    encoded = goJSON(m);
  } else {
    encoded = goJSON(obj);
  }
  return encodeHash(createHash('sha256').update(encoded, 'utf8').digest('hex'));
}
