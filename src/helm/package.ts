// package.ts: `helm package` — a chart as a .tgz with Helm's layout: NAME/Chart.yaml (re-marshalled metadata),
// NAME/Chart.lock, NAME/values.yaml, NAME/values.schema.json, templates, other files, then subcharts under
// NAME/charts/. Go: pkg/chartutil/save.go Save/writeTarContents, pkg/action/package.go.
import { isGoMap, type GoMap, type GoValue } from '../gotemplate/index.js';
import { toYamlSigs } from '../funcs/index.js';
import { baseName, joinPath, validateMetadata, type Chart, type Metadata } from './chart.js';
import { writeTarGz, type TarEntry } from './archive.js';
import { checkDependencies } from './dependencies.js';
import { HelmError } from './errors.js';

const enc = new TextEncoder();

function omitEmpty(m: GoMap, k: string, v: GoValue): void {
  if (v === null || v === undefined || v === '' || v === false) return;
  if (Array.isArray(v) && v.length === 0) return;
  if (isGoMap(v) && Object.keys(v).length === 0) return;
  m[k] = v;
}

/** metadataYaml is yaml.Marshal(chart.Metadata): JSON field names, empty fields omitted, keys sorted. */
export function metadataYaml(md: Metadata, withDependencies: boolean): string {
  const m = Object.create(null) as GoMap;
  omitEmpty(m, 'name', md.name);
  omitEmpty(m, 'home', md.home);
  omitEmpty(m, 'sources', md.sources);
  omitEmpty(m, 'version', md.version);
  omitEmpty(m, 'description', md.description);
  omitEmpty(m, 'keywords', md.keywords);
  if (md.maintainers && md.maintainers.length > 0) {
    m.maintainers = md.maintainers.map((x) => {
      const o = Object.create(null) as GoMap;
      if (x) {
        omitEmpty(o, 'name', x.name);
        omitEmpty(o, 'email', x.email);
        omitEmpty(o, 'url', x.url);
      }
      return o;
    });
  }
  omitEmpty(m, 'icon', md.icon);
  omitEmpty(m, 'apiVersion', md.apiVersion);
  omitEmpty(m, 'condition', md.condition);
  omitEmpty(m, 'tags', md.tags);
  omitEmpty(m, 'appVersion', md.appVersion);
  omitEmpty(m, 'deprecated', md.deprecated);
  if (md.annotations) omitEmpty(m, 'annotations', Object.assign(Object.create(null) as GoMap, md.annotations));
  omitEmpty(m, 'kubeVersion', md.kubeVersion);
  if (withDependencies && md.dependencies && md.dependencies.length > 0) {
    m.dependencies = md.dependencies.map((d) => {
      const o = Object.create(null) as GoMap;
      if (d) {
        o.name = d.name;
        omitEmpty(o, 'version', d.version);
        o.repository = d.repository;
        omitEmpty(o, 'condition', d.condition);
        omitEmpty(o, 'tags', d.tags);
        omitEmpty(o, 'enabled', d.enabled);
        omitEmpty(o, 'import-values', d.importValues);
        omitEmpty(o, 'alias', d.alias);
      }
      return o;
    });
  }
  omitEmpty(m, 'type', md.type);
  return toYamlSigs(m);
}

function writeTarContents(out: TarEntry[], c: Chart, prefix: string): void {
  const name = c.name();
  if (baseName(name) !== name) throw new HelmError('load', `"${name}" is not a valid chart name`);
  const base = joinPath(prefix, name);
  const md = c.metadata!;
  out.push({ name: joinPath(base, 'Chart.yaml'), data: enc.encode(metadataYaml(md, md.apiVersion !== 'v1')) });
  if (md.apiVersion === 'v2' && c.lock !== null) out.push({ name: joinPath(base, 'Chart.lock'), data: enc.encode(toYamlSigs(c.lock)) });
  for (const f of c.raw) if (f.name === 'values.yaml') out.push({ name: joinPath(base, 'values.yaml'), data: f.data });
  if (c.schema !== null) {
    try {
      JSON.parse(new TextDecoder().decode(c.schema));
    } catch {
      throw new HelmError('load', 'Invalid JSON in values.schema.json');
    }
    out.push({ name: joinPath(base, 'values.schema.json'), data: c.schema });
  }
  for (const f of c.templates) out.push({ name: joinPath(base, f.name), data: f.data });
  for (const f of c.files) out.push({ name: joinPath(base, f.name), data: f.data });
  for (const d of c.dependencies) writeTarContents(out, d, joinPath(base, 'charts'));
}

/**
 * packageChart is `helm package` for a loaded chart directory: the archive's file name (NAME-VERSION.tgz) and
 * bytes. mtimeSeconds stamps every entry (the caller's clock). Throws HelmError with Helm's message.
 */
export function packageChart(chart: Chart, mtimeSeconds: number): { filename: string; bytes: Uint8Array } {
  checkDependencies(chart);
  const err = validateMetadata(chart.metadata);
  if (err !== null) throw new HelmError('load', `failed to save: chart validation: ${err}`);
  const entries: TarEntry[] = [];
  writeTarContents(entries, chart, '');
  return { filename: `${chart.name()}-${chart.metadata!.version}.tgz`, bytes: writeTarGz(entries, mtimeSeconds) };
}
