// chart.ts: the chart model and its loader from an in-memory file list. Go: pkg/chart (chart.go, metadata.go,
// dependency.go) and pkg/chart/loader (load.go LoadFiles, archive.go LoadArchiveFiles). Pure: the caller reads
// the directory or archive and hands in the files.
import { formatFloat, isGoMap, type GoMap, type GoValue } from '../gotemplate/index.js';
import { parseYamlSigs, YAMLError } from '../funcs/index.js';
import { readTarGz } from './archive.js';
import { HelmError } from './errors.js';
import { isValidSemver } from '../funcs/index.js';

/** ChartFile is one file of a chart, named relative to the chart's root with '/' separators. */
export interface ChartFile {
  name: string;
  data: Uint8Array;
}

/** Maintainer is a Chart.yaml maintainers entry. */
export interface Maintainer {
  name: string;
  email: string;
  url: string;
}

/** Dependency is a Chart.yaml (v2) or requirements.yaml (v1) dependency. */
export interface Dependency {
  name: string;
  version: string;
  repository: string;
  condition: string;
  tags: string[] | null;
  enabled: boolean;
  importValues: GoValue[] | null;
  alias: string;
}

/** Metadata is Chart.yaml. Slices and maps are null where Go's would be nil. */
export interface Metadata {
  name: string;
  home: string;
  sources: string[] | null;
  version: string;
  description: string;
  keywords: string[] | null;
  maintainers: (Maintainer | null)[] | null;
  icon: string;
  apiVersion: string;
  condition: string;
  tags: string;
  appVersion: string;
  deprecated: boolean;
  annotations: Record<string, string> | null;
  kubeVersion: string;
  dependencies: (Dependency | null)[] | null;
  type: string;
}

/** Chart is a loaded chart with its subcharts. Go: chart.Chart. */
export class Chart {
  raw: ChartFile[] = [];
  metadata: Metadata | null = null;
  /** lock is Chart.lock / requirements.lock as decoded YAML (only kept for packaging). */
  lock: GoValue = null;
  templates: ChartFile[] = [];
  values: GoMap | null = null;
  schema: Uint8Array | null = null;
  files: ChartFile[] = [];
  parent: Chart | null = null;
  dependencies: Chart[] = [];

  /** name is the chart's name (its alias once dependencies are processed). */
  name(): string {
    return this.metadata?.name ?? '';
  }

  /** isRoot is true for the top chart. */
  isRoot(): boolean {
    return this.parent === null;
  }

  /** setDependencies replaces the subcharts. */
  setDependencies(charts: Chart[]): void {
    this.dependencies = [];
    this.addDependency(charts);
  }

  /** addDependency appends subcharts and makes this chart their parent. */
  addDependency(charts: Chart[]): void {
    for (const c of charts) {
      c.parent = this;
      this.dependencies.push(c);
    }
  }

  /** chartPath is the dotted path from the root ("parent.sub"). */
  chartPath(): string {
    return this.parent === null ? this.name() : this.parent.chartPath() + '.' + this.name();
  }

  /** chartFullPath is the template path prefix ("parent/charts/sub"). */
  chartFullPath(): string {
    return this.parent === null ? this.name() : this.parent.chartFullPath() + '/charts/' + this.name();
  }

  /** crdObjects lists crds/*.{yaml,yml,json} of this chart and its subcharts, depth first. Go: CRDObjects. */
  crdObjects(): { name: string; filename: string; file: ChartFile }[] {
    const out: { name: string; filename: string; file: ChartFile }[] = [];
    for (const f of this.files) {
      if (f.name.startsWith('crds/') && hasManifestExtension(f.name)) out.push({ name: f.name, filename: joinPath(this.chartFullPath(), f.name), file: f });
    }
    for (const d of this.dependencies) out.push(...d.crdObjects());
    return out;
  }

  /** copyTree returns a copy whose metadata and dependency lists can be changed without touching this chart. */
  copyTree(): Chart {
    const c = this.shallowCopy();
    c.setDependencies(this.dependencies.map((d) => d.copyTree()));
    return c;
  }

  /** shallowCopy copies the chart and its metadata (Go: `out := *c; md := *c.Metadata`), sharing files. */
  shallowCopy(): Chart {
    const c = new Chart();
    Object.assign(c, this);
    c.parent = null;
    c.dependencies = [...this.dependencies];
    if (this.metadata) {
      c.metadata = { ...this.metadata, dependencies: this.metadata.dependencies === null ? null : this.metadata.dependencies.map((d) => (d === null ? null : { ...d })) };
    }
    return c;
  }
}

function hasManifestExtension(name: string): boolean {
  const ext = extname(name).toLowerCase();
  return ext === '.yaml' || ext === '.yml' || ext === '.json';
}

/** extname is Go's path.Ext. */
export function extname(p: string): string {
  for (let i = p.length - 1; i >= 0 && p[i] !== '/'; i--) if (p[i] === '.') return p.slice(i);
  return '';
}

/** joinPath is Go's path.Join for relative, clean parts. */
export function joinPath(...parts: string[]): string {
  return cleanPath(parts.filter((p) => p !== '').join('/'));
}

/** cleanPath is Go's path.Clean. */
export function cleanPath(p: string): string {
  if (p === '') return '.';
  const rooted = p.startsWith('/');
  const out: string[] = [];
  for (const seg of p.split('/')) {
    if (seg === '' || seg === '.') continue;
    if (seg === '..') {
      if (out.length > 0 && out[out.length - 1] !== '..') out.pop();
      else if (!rooted) out.push('..');
      continue;
    }
    out.push(seg);
  }
  const s = (rooted ? '/' : '') + out.join('/');
  return s === '' ? '.' : s;
}

/** baseName is Go's path.Base. */
export function baseName(p: string): string {
  if (p === '') return '.';
  while (p.length > 1 && p.endsWith('/')) p = p.slice(0, -1);
  const i = p.lastIndexOf('/');
  const b = i >= 0 ? p.slice(i + 1) : p;
  return b === '' ? '/' : b;
}

// ---------------------------------------------------------------------------------------------------------------
// Decoding YAML into Go structs the way sigs.k8s.io/yaml + encoding/json do (type errors name the field).

const utf8 = new TextDecoder();

/** decodeText decodes file bytes as Go strings do (invalid UTF-8 replaced). */
export function decodeText(b: Uint8Array): string {
  return utf8.decode(b);
}

function jsonKind(v: GoValue): string {
  if (Array.isArray(v)) return 'array';
  if (isGoMap(v)) return 'object';
  if (typeof v === 'string') return 'string';
  if (typeof v === 'boolean') return 'bool';
  return 'number';
}

/**
 * scalarAsString is what sigs.k8s.io/yaml does with a YAML number or bool decoded into a Go string field: it
 * writes the scalar as a string (ints in decimal, floats with strconv's 'g' at float32 precision) instead of
 * failing, so `version: 1.0` reads as "1".
 */
export function scalarAsString(v: GoValue): string | undefined {
  if (typeof v === 'boolean') return v ? 'true' : 'false';
  if (typeof v === 'bigint') return v.toString();
  if (typeof v === 'number') return Number.isInteger(v) && Math.abs(v) < 2 ** 63 ? BigInt(v).toString() : formatFloat(v, 'g', -1, 32);
  return undefined;
}

class DecodeState {
  err: string | null = null;
  fail(v: GoValue, struct: string, field: string, type: string): void {
    this.err ??= `error unmarshaling JSON: while decoding JSON: json: cannot unmarshal ${jsonKind(v)} into Go struct field ${struct}.${field} of type ${type}`;
  }
  str(v: GoValue, struct: string, field: string): string {
    if (v === null || v === undefined) return '';
    if (typeof v === 'string') return v;
    const s = scalarAsString(v);
    if (s !== undefined) return s;
    this.fail(v, struct, field, 'string');
    return '';
  }
  bool(v: GoValue, struct: string, field: string): boolean {
    if (v === null || v === undefined) return false;
    if (typeof v === 'boolean') return v;
    this.fail(v, struct, field, 'bool');
    return false;
  }
  strs(v: GoValue, struct: string, field: string): string[] | null {
    if (v === null || v === undefined) return null;
    if (!Array.isArray(v)) {
      this.fail(v, struct, field, '[]string');
      return null;
    }
    return v.map((e) => this.str(e, struct, field));
  }
}

function decodeMaintainer(v: GoValue, st: DecodeState): Maintainer | null {
  if (v === null) return null;
  if (!isGoMap(v)) {
    st.fail(v, 'Metadata', 'maintainers', 'chart.Maintainer');
    return null;
  }
  return { name: st.str(v.name, 'Maintainer', 'maintainers.name'), email: st.str(v.email, 'Maintainer', 'maintainers.email'), url: st.str(v.url, 'Maintainer', 'maintainers.url') };
}

function decodeDependency(v: GoValue, st: DecodeState): Dependency | null {
  if (v === null) return null;
  if (!isGoMap(v)) {
    st.fail(v, 'Metadata', 'dependencies', 'chart.Dependency');
    return null;
  }
  const iv = v['import-values'];
  let importValues: GoValue[] | null = null;
  if (iv !== undefined && iv !== null) {
    if (Array.isArray(iv)) importValues = iv;
    else st.fail(iv, 'Dependency', 'dependencies.import-values', '[]interface {}');
  }
  return {
    name: st.str(v.name, 'Dependency', 'dependencies.name'),
    version: st.str(v.version, 'Dependency', 'dependencies.version'),
    repository: st.str(v.repository, 'Dependency', 'dependencies.repository'),
    condition: st.str(v.condition, 'Dependency', 'dependencies.condition'),
    tags: st.strs(v.tags, 'Dependency', 'dependencies.tags'),
    enabled: st.bool(v.enabled, 'Dependency', 'dependencies.enabled'),
    importValues,
    alias: st.str(v.alias, 'Dependency', 'dependencies.alias'),
  };
}

/** emptyMetadata is a zero chart.Metadata. */
export function emptyMetadata(): Metadata {
  return {
    name: '',
    home: '',
    sources: null,
    version: '',
    description: '',
    keywords: null,
    maintainers: null,
    icon: '',
    apiVersion: '',
    condition: '',
    tags: '',
    appVersion: '',
    deprecated: false,
    annotations: null,
    kubeVersion: '',
    dependencies: null,
    type: '',
  };
}

function parseYamlDoc(text: string): GoValue {
  try {
    return parseYamlSigs(text);
  } catch (e) {
    if (e instanceof YAMLError) throw new YAMLError(e.message);
    throw e;
  }
}

/** decodeMetadataInto is yaml.Unmarshal(data, md): present keys overwrite fields. Returns Go's error text or null. */
function decodeMetadataInto(md: Metadata, text: string, onlyDeps = false): string | null {
  let v: GoValue;
  try {
    v = parseYamlDoc(text);
  } catch (e) {
    if (e instanceof YAMLError) return e.message;
    throw e;
  }
  if (v === null) return null;
  if (!isGoMap(v)) return `error unmarshaling JSON: while decoding JSON: json: cannot unmarshal ${jsonKind(v)} into Go value of type chart.Metadata`;
  const st = new DecodeState();
  const S = 'Metadata';
  const has = (k: string) => Object.prototype.hasOwnProperty.call(v, k);
  const m = v;
  if (!onlyDeps) {
    if (has('name')) md.name = st.str(m.name, S, 'name');
    if (has('home')) md.home = st.str(m.home, S, 'home');
    if (has('sources')) md.sources = st.strs(m.sources, S, 'sources');
    if (has('version')) md.version = st.str(m.version, S, 'version');
    if (has('description')) md.description = st.str(m.description, S, 'description');
    if (has('keywords')) md.keywords = st.strs(m.keywords, S, 'keywords');
    if (has('icon')) md.icon = st.str(m.icon, S, 'icon');
    if (has('apiVersion')) md.apiVersion = st.str(m.apiVersion, S, 'apiVersion');
    if (has('condition')) md.condition = st.str(m.condition, S, 'condition');
    if (has('tags')) md.tags = st.str(m.tags, S, 'tags');
    if (has('appVersion')) md.appVersion = st.str(m.appVersion, S, 'appVersion');
    if (has('deprecated')) md.deprecated = st.bool(m.deprecated, S, 'deprecated');
    if (has('kubeVersion')) md.kubeVersion = st.str(m.kubeVersion, S, 'kubeVersion');
    if (has('type')) md.type = st.str(m.type, S, 'type');
    if (has('maintainers')) {
      const mv = m.maintainers;
      if (mv === null) md.maintainers = null;
      else if (!Array.isArray(mv)) st.fail(mv, S, 'maintainers', '[]*chart.Maintainer');
      else md.maintainers = mv.map((e) => decodeMaintainer(e, st));
    }
    if (has('annotations')) {
      const av = m.annotations;
      if (av === null) md.annotations = null;
      else if (!isGoMap(av)) st.fail(av, S, 'annotations', 'map[string]string');
      else {
        const a: Record<string, string> = md.annotations ?? {};
        for (const k of Object.keys(av)) a[k] = st.str(av[k], S, 'annotations');
        md.annotations = a;
      }
    }
  }
  if (has('dependencies')) {
    const dv = m.dependencies;
    if (dv === null) md.dependencies = null;
    else if (!Array.isArray(dv)) st.fail(dv, S, 'dependencies', '[]*chart.Dependency');
    else md.dependencies = dv.map((e) => decodeDependency(e, st));
  }
  if (onlyDeps) {
    // requirements.yaml decodes into the whole Metadata too; its other keys are rare and ignored here.
  }
  return st.err;
}

/** parseValues is chartutil.ReadValues / yaml.Unmarshal into map[string]interface{}: Go's error text on failure. */
export function parseValuesYaml(text: string): { values: GoMap | null; error?: string } {
  let v: GoValue;
  try {
    v = parseYamlDoc(text);
  } catch (e) {
    if (e instanceof YAMLError) return { values: null, error: e.message };
    throw e;
  }
  if (v === null) return { values: null };
  if (!isGoMap(v)) return { values: null, error: `error unmarshaling JSON: while decoding JSON: json: cannot unmarshal ${jsonKind(v)} into Go value of type map[string]interface {}` };
  return { values: v };
}

// ---------------------------------------------------------------------------------------------------------------
// Validation. Go: chart/metadata.go Validate.

const aliasNameFormat = /^[a-zA-Z0-9_-]+$/;

function sanitizeString(s: string): string {
  let out = '';
  for (const ch of s) {
    if (/\s/u.test(ch)) out += ' ';
    else if (/[\p{L}\p{M}\p{N}\p{P}\p{S} ]/u.test(ch)) out += ch;
  }
  return out;
}

/** validateMetadata is Metadata.Validate: it sanitizes strings in place and returns Helm's error text or null. */
export function validateMetadata(md: Metadata | null): string | null {
  if (md === null) return 'validation: chart.metadata is required';
  md.name = sanitizeString(md.name);
  md.description = sanitizeString(md.description);
  md.home = sanitizeString(md.home);
  md.icon = sanitizeString(md.icon);
  md.condition = sanitizeString(md.condition);
  md.tags = sanitizeString(md.tags);
  md.appVersion = sanitizeString(md.appVersion);
  md.kubeVersion = sanitizeString(md.kubeVersion);
  if (md.sources) md.sources = md.sources.map(sanitizeString);
  if (md.keywords) md.keywords = md.keywords.map(sanitizeString);
  if (md.apiVersion === '') return 'validation: chart.metadata.apiVersion is required';
  if (md.name === '') return 'validation: chart.metadata.name is required';
  if (md.name !== baseName(md.name)) return `validation: chart.metadata.name ${JSON.stringify(md.name)} is invalid`;
  if (md.version === '') return 'validation: chart.metadata.version is required';
  if (!isValidSemver(md.version)) return `validation: chart.metadata.version ${JSON.stringify(md.version)} is invalid`;
  if (md.type !== '' && md.type !== 'application' && md.type !== 'library') return 'validation: chart.metadata.type must be application or library';
  for (const m of md.maintainers ?? []) {
    if (m === null) return 'validation: maintainers must not contain empty or null nodes';
    m.name = sanitizeString(m.name);
    m.email = sanitizeString(m.email);
    m.url = sanitizeString(m.url);
  }
  const seen = new Set<string>();
  for (const d of md.dependencies ?? []) {
    if (d === null) return 'validation: dependencies must not contain empty or null nodes';
    d.name = sanitizeString(d.name);
    d.version = sanitizeString(d.version);
    d.repository = sanitizeString(d.repository);
    d.condition = sanitizeString(d.condition);
    if (d.tags) d.tags = d.tags.map(sanitizeString);
    if (d.alias !== '' && !aliasNameFormat.test(d.alias)) return `validation: dependency ${JSON.stringify(d.name)} has disallowed characters in the alias`;
    const key = d.alias !== '' ? d.alias : d.name;
    if (seen.has(key)) return `validation: more than one dependency with name or alias ${JSON.stringify(key)}`;
    seen.add(key);
  }
  return null;
}

// ---------------------------------------------------------------------------------------------------------------
// Loading. Go: loader.LoadFiles.

const UTF8_BOM = [0xef, 0xbb, 0xbf];

function trimBOM(b: Uint8Array): Uint8Array {
  return b.length >= 3 && b[0] === UTF8_BOM[0] && b[1] === UTF8_BOM[1] && b[2] === UTF8_BOM[2] ? b.subarray(3) : b;
}

/** Warn receives the warnings Helm logs while loading (log.Printf); they never change the result. */
export type Warn = (message: string) => void;

/**
 * loadChartFiles builds a chart from its files (names relative to the chart root, '/' separators), loading
 * subcharts found under charts/ (directories or .tgz). Throws HelmError('load') with Helm's message.
 */
export function loadChartFiles(files: readonly ChartFile[], warn: Warn = () => {}): Chart {
  const c = new Chart();
  const subcharts = new Map<string, ChartFile[]>();
  for (const f of files) {
    c.raw.push({ name: f.name, data: f.data });
    if (f.name === 'Chart.yaml') {
      c.metadata ??= emptyMetadata();
      const err = decodeMetadataInto(c.metadata, decodeText(f.data));
      if (err !== null) throw new HelmError('load', 'cannot load Chart.yaml: ' + err);
      if (c.metadata.apiVersion === '') c.metadata.apiVersion = 'v1';
    }
  }
  for (const f of files) {
    const name = f.name;
    if (name === 'Chart.yaml') continue;
    if (name === 'Chart.lock' || name === 'requirements.lock') {
      const r = parseValuesYaml(decodeText(f.data));
      if (r.error !== undefined) throw new HelmError('load', `cannot load ${name}: ${r.error}`);
      c.lock = r.values;
      if (name === 'requirements.lock') {
        c.metadata ??= emptyMetadata();
        if (c.metadata.apiVersion !== 'v1') warn('Warning: Dependency locking is handled in Chart.lock since apiVersion "v2". We recommend migrating to Chart.lock.');
        if (c.metadata.apiVersion === 'v1') c.files.push({ name, data: f.data });
      }
    } else if (name === 'values.yaml') {
      const r = parseValuesYaml(decodeText(f.data));
      if (r.error !== undefined) throw new HelmError('load', 'cannot load values.yaml: ' + r.error);
      c.values = r.values ?? Object.create(null);
    } else if (name === 'values.schema.json') {
      c.schema = f.data;
    } else if (name === 'requirements.yaml') {
      c.metadata ??= emptyMetadata();
      if (c.metadata.apiVersion !== 'v1') warn('Warning: Dependencies are handled in Chart.yaml since apiVersion "v2". We recommend migrating dependencies to Chart.yaml.');
      const err = decodeMetadataInto(c.metadata, decodeText(f.data), true);
      if (err !== null) throw new HelmError('load', 'cannot load requirements.yaml: ' + err);
      if (c.metadata.apiVersion === 'v1') c.files.push({ name, data: f.data });
    } else if (name.startsWith('templates/')) {
      c.templates.push({ name, data: f.data });
    } else if (name.startsWith('charts/')) {
      if (extname(name) === '.prov') {
        c.files.push({ name, data: f.data });
        continue;
      }
      const fname = name.slice('charts/'.length);
      const cname = fname.split('/')[0];
      let list = subcharts.get(cname);
      if (list === undefined) subcharts.set(cname, (list = []));
      list.push({ name: fname, data: f.data });
    } else {
      c.files.push({ name, data: f.data });
    }
  }
  if (c.metadata === null) throw new HelmError('load', 'Chart.yaml file is missing');
  const verr = validateMetadata(c.metadata);
  if (verr !== null) throw new HelmError('load', verr);

  // Go ranges over a map here, so the order of subcharts is unspecified; we keep the order of first appearance.
  for (const [n, list] of subcharts) {
    if (n.startsWith('_') || n.startsWith('.')) continue;
    let sc: Chart;
    try {
      if (extname(n) === '.tgz') {
        const file = list[0];
        if (file.name !== n) throw new HelmError('load', `error unpacking subchart tar in ${c.name()}: expected ${n}, got ${file.name}`);
        sc = loadChartArchive(file.data, warn);
      } else {
        const buff: ChartFile[] = [];
        for (const f of list) {
          const i = f.name.indexOf('/');
          if (i < 0) continue;
          buff.push({ name: f.name.slice(i + 1), data: f.data });
        }
        sc = loadChartFiles(buff, warn);
      }
    } catch (e) {
      if (e instanceof HelmError && !e.message.startsWith('error unpacking subchart tar')) {
        throw new HelmError('load', `error unpacking subchart ${n} in ${c.name()}: ${e.message}`, false, { cause: e });
      }
      throw e;
    }
    c.addDependency([sc]);
  }
  return c;
}

/** archiveFiles is LoadArchiveFiles: the files of a .tgz with the top directory stripped, checked like Helm. */
export function archiveFiles(bytes: Uint8Array): ChartFile[] {
  const entries = readTarGz(bytes);
  const files: ChartFile[] = [];
  for (const e of entries) {
    const delim = e.name.includes('\\') ? '\\' : '/';
    const parts = e.name.split(delim);
    let n = parts.slice(1).join(delim).split(delim).join('/');
    if (n.startsWith('/')) throw new HelmError('load', 'chart illegally contains absolute paths');
    n = cleanPath(n);
    if (n === '.') throw new HelmError('load', `chart illegally contains content outside the base directory: ${JSON.stringify(e.name)}`);
    if (n.startsWith('..')) throw new HelmError('load', 'chart illegally references parent directory');
    if (/^[a-zA-Z]:\//.test(n)) throw new HelmError('load', 'chart contains illegally named files');
    if (parts[0] === 'Chart.yaml') throw new HelmError('load', 'chart yaml not in base directory');
    files.push({ name: n, data: trimBOM(e.data) });
  }
  if (files.length === 0) throw new HelmError('load', 'no files in chart archive');
  return files;
}

/** loadChartArchive loads a packaged chart (.tgz bytes). */
export function loadChartArchive(bytes: Uint8Array, warn: Warn = () => {}): Chart {
  return loadChartFiles(archiveFiles(bytes), warn);
}

/** trimFileBOM drops a UTF-8 byte order mark, as Helm does for every file it loads. */
export function trimFileBOM(b: Uint8Array): Uint8Array {
  return trimBOM(b);
}
