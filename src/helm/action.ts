// action.ts: what `helm template` / `helm install` do with a loaded chart — user values, dependency processing,
// render values and schema validation, rendering, notes, hooks, install order, CRDs — and the text `helm template`
// prints. Go: pkg/cli/values/options.go MergeValues, pkg/action/install.go RunWithContext, action.go
// renderResources, cmd/helm/template.go.
import { type GoMap } from '../gotemplate/index.js';
import { isCompatibleRange, newSemver } from '../funcs/index.js';
import { decodeText, joinPath, parseValuesYaml, type Chart } from './chart.js';
import { checkDependencies, processDependencies } from './dependencies.js';
import { renderTemplates, type Capabilities, type EngineOptions, type KubeVersion, type LookupPort, type ReleaseOptions } from './engine.js';
import { HelmError } from './errors.js';
import { sortManifests, type Hook, type Manifest } from './manifests.js';
import { SchemaError, validateAgainstSingleSchema } from './schema.js';
import { parseSetInto, StrvalsError } from './strvals.js';
import { coalesceValues, mergeMaps, newMap, ValuesError } from './values.js';

/** HELM_VERSION is what .Capabilities.HelmVersion reports: the Helm release Ripple renders like. */
export const HELM_VERSION = { version: 'v3.17.4', gitCommit: '595a05da6166037d0abebaa27ac8a498fa4d7ed2', gitTreeState: 'clean', goVersion: 'go1.23.5' } as const;

/** DEFAULT_API_VERSIONS is chartutil.DefaultVersionSet of Helm v3.17.4 (client-go v0.32's scheme, in its order). */
export const DEFAULT_API_VERSIONS: readonly string[] = [
  'v1', 'admissionregistration.k8s.io/v1', 'admissionregistration.k8s.io/v1alpha1', 'admissionregistration.k8s.io/v1beta1',
  'internal.apiserver.k8s.io/v1alpha1', 'apps/v1', 'apps/v1beta1', 'apps/v1beta2', 'authentication.k8s.io/v1',
  'authentication.k8s.io/v1alpha1', 'authentication.k8s.io/v1beta1', 'authorization.k8s.io/v1', 'authorization.k8s.io/v1beta1',
  'autoscaling/v1', 'autoscaling/v2', 'autoscaling/v2beta1', 'autoscaling/v2beta2', 'batch/v1', 'batch/v1beta1',
  'certificates.k8s.io/v1', 'certificates.k8s.io/v1beta1', 'certificates.k8s.io/v1alpha1', 'coordination.k8s.io/v1alpha2',
  'coordination.k8s.io/v1beta1', 'coordination.k8s.io/v1', 'discovery.k8s.io/v1', 'discovery.k8s.io/v1beta1', 'events.k8s.io/v1',
  'events.k8s.io/v1beta1', 'extensions/v1beta1', 'flowcontrol.apiserver.k8s.io/v1', 'flowcontrol.apiserver.k8s.io/v1beta1',
  'flowcontrol.apiserver.k8s.io/v1beta2', 'flowcontrol.apiserver.k8s.io/v1beta3', 'networking.k8s.io/v1',
  'networking.k8s.io/v1alpha1', 'networking.k8s.io/v1beta1', 'node.k8s.io/v1', 'node.k8s.io/v1alpha1', 'node.k8s.io/v1beta1',
  'policy/v1', 'policy/v1beta1', 'rbac.authorization.k8s.io/v1', 'rbac.authorization.k8s.io/v1beta1',
  'rbac.authorization.k8s.io/v1alpha1', 'resource.k8s.io/v1beta1', 'resource.k8s.io/v1alpha3', 'scheduling.k8s.io/v1alpha1',
  'scheduling.k8s.io/v1beta1', 'scheduling.k8s.io/v1', 'storage.k8s.io/v1beta1', 'storage.k8s.io/v1', 'storage.k8s.io/v1alpha1',
  'storagemigration.k8s.io/v1alpha1', 'apiextensions.k8s.io/v1beta1', 'apiextensions.k8s.io/v1',
];

/** parseKubeVersion is chartutil.ParseKubeVersion; throws HelmError with helm template's message. */
export function parseKubeVersion(v: string): KubeVersion {
  let sv;
  try {
    sv = newSemver(v);
  } catch (e) {
    throw new HelmError('install', `invalid kube version '${v}': ${(e as Error).message}`);
  }
  return { version: 'v' + sv.goString(), major: String(sv.major), minor: String(sv.minor) };
}

/** defaultCapabilities is helm template's client-only Capabilities, with optional overrides. */
export function defaultCapabilities(kubeVersion?: KubeVersion, extraAPIVersions: readonly string[] = []): Capabilities {
  return {
    kubeVersion: kubeVersion ?? { version: 'v1.32.0', major: '1', minor: '32' },
    apiVersions: [...DEFAULT_API_VERSIONS, ...extraAPIVersions],
    helmVersion: { ...HELM_VERSION },
  };
}

/** ValuesFile is a user values file (`-f`): its name as given and its text. */
export interface ValuesFile {
  name: string;
  text: string;
}

/** mergeUserValues is values.Options.MergeValues: files in order, then --set, then --set-string. */
export function mergeUserValues(files: readonly ValuesFile[], set: readonly string[] = [], setString: readonly string[] = []): GoMap {
  let base = newMap();
  for (const f of files) {
    const r = parseValuesYaml(f.text);
    if (r.error !== undefined) throw new HelmError('values', `failed to parse ${f.name}: ${r.error}`);
    base = mergeMaps(base, r.values ?? newMap());
  }
  for (const v of set) {
    try {
      parseSetInto(v, base, false);
    } catch (e) {
      if (e instanceof StrvalsError) throw new HelmError('values', `failed parsing --set data: ${e.message}`);
      throw e;
    }
  }
  for (const v of setString) {
    try {
      parseSetInto(v, base, true);
    } catch (e) {
      if (e instanceof StrvalsError) throw new HelmError('values', `failed parsing --set-string data: ${e.message}`);
      throw e;
    }
  }
  return base;
}

const validName = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$/;

/** validateReleaseName is chartutil.ValidateReleaseName wrapped as install does; throws HelmError. */
export function validateReleaseName(name: string): void {
  if (name === '') throw new HelmError('install', `release name "": no name provided`);
  if (name.length > 53 || !validName.test(name)) {
    throw new HelmError('install', `release name ${JSON.stringify(name)}: invalid release name, must match regex ${validName.source} and the length must not be longer than 53`);
  }
}

/** validateAgainstSchema is chartutil.ValidateAgainstSchema: the parent's and every subchart's schema. */
export function validateAgainstSchema(chart: Chart, values: GoMap): string {
  let sb = '';
  if (chart.schema !== null) {
    let err: string;
    try {
      err = validateAgainstSingleSchema(values, decodeText(chart.schema));
    } catch (e) {
      if (e instanceof SchemaError) err = e.message;
      else throw e;
    }
    if (err !== '') sb += `${chart.name()}:\n${err}`;
  }
  for (const sub of chart.dependencies) {
    const sv = values[sub.name()];
    sb += validateAgainstSchema(sub, (sv ?? newMap()) as GoMap);
  }
  return sb;
}

/** RenderOptions describe one render of a chart. */
export interface RenderOptions {
  /** values are the user's values (mergeUserValues), coalesced over the chart's defaults. */
  values?: GoMap;
  release: ReleaseOptions;
  capabilities?: Capabilities;
  /** lookup serves the `lookup` function; absent, it returns empty maps (template mode). */
  lookup?: LookupPort;
  /** skipSchemaValidation skips values.schema.json (helm --skip-schema-validation). */
  skipSchemaValidation?: boolean;
  /** warn receives Helm's log warnings (coalescing, unknown hooks, deprecated chart). */
  warn?: (message: string) => void;
  /** engine: lint mode and info sink. */
  engine?: Pick<EngineOptions, 'lintMode' | 'info' | 'funcs'>;
}

/** CRD is a file from a crds/ directory (never templated). */
export interface CRD {
  /** filename is the output path, e.g. "chart/charts/sub/crds/x.yaml". */
  filename: string;
  content: string;
}

/** RenderedChart is what rendering a chart produces: what to install, in order, and what to show. */
export interface RenderedChart {
  /** manifests are the non-hook documents in install order. */
  manifests: Manifest[];
  /** hooks are the hook documents, sorted by kind (sort by weight yourself when running them). */
  hooks: Hook[];
  /** notes is the rendered templates/NOTES.txt of the top chart ("" when there is none). */
  notes: string;
  crds: CRD[];
  /** values are the coalesced values the templates saw (.Values). */
  values: GoMap;
  /** chart is the processed copy (aliases applied, disabled dependencies removed). */
  chart: Chart;
}

/**
 * renderChart renders a loaded chart as `helm install`/`helm template` do: dependencies checked and processed,
 * values coalesced and validated against every values.schema.json, templates rendered, NOTES.txt separated, hooks
 * separated, manifests sorted in install order. The chart is not modified. Throws HelmError with Helm's message.
 */
export function renderChart(loaded: Chart, opts: RenderOptions): RenderedChart {
  const warn = opts.warn ?? (() => {});
  const type = loaded.metadata!.type;
  if (type !== '' && type !== 'application') throw new HelmError('install', `${type} charts are not installable`);
  if (loaded.metadata!.deprecated) warn('WARNING: This chart is deprecated');
  checkDependencies(loaded);
  validateReleaseName(opts.release.name);
  const chart = loaded.copyTree();
  const userVals = opts.values ?? newMap();
  const caps = opts.capabilities ?? defaultCapabilities();
  let values: GoMap;
  try {
    processDependencies(chart, userVals, warn);
    values = coalesceValues(chart, userVals, warn);
  } catch (e) {
    if (e instanceof ValuesError) throw new HelmError('values', e.message);
    throw e;
  }
  if (opts.skipSchemaValidation !== true) {
    const err = validateAgainstSchema(chart, values);
    if (err !== '') throw new HelmError('schema', `values don't meet the specifications of the schema(s) in the following chart(s):\n${err}`);
  }
  const kv = chart.metadata!.kubeVersion;
  if (kv !== '' && !isCompatibleRange(kv, caps.kubeVersion.version)) {
    throw new HelmError('install', `chart requires kubeVersion: ${kv} which is incompatible with Kubernetes ${caps.kubeVersion.version}`, true);
  }
  const files = renderTemplates(chart, { values, release: opts.release, capabilities: caps }, { ...opts.engine, lookup: opts.lookup });
  let notes = '';
  const topNotes = joinPath(chart.name(), 'templates', 'NOTES.txt');
  for (const [k, v] of [...files]) {
    if (k.endsWith('NOTES.txt')) {
      if (k === topNotes) notes = v;
      files.delete(k);
    }
  }
  const { hooks, manifests } = sortManifests(files, warn);
  const crds = chart.crdObjects().map((c) => ({ filename: c.filename, content: decodeText(c.file.data) }));
  return { manifests, hooks, notes, crds, values, chart };
}

/** TemplateOutputOptions are `helm template`'s output flags. */
export interface TemplateOutputOptions {
  includeCrds?: boolean;
  skipTests?: boolean;
}

/** formatTemplateOutput prints a rendered chart exactly as `helm template` does. */
export function formatTemplateOutput(r: RenderedChart, opts: TemplateOutputOptions = {}): string {
  let b = '';
  if (opts.includeCrds === true) for (const c of r.crds) b += `---\n# Source: ${c.filename}\n${c.content}\n`;
  for (const m of r.manifests) b += `---\n# Source: ${m.name}\n${m.content}\n`;
  let out = b.trim() + '\n';
  for (const h of r.hooks) {
    if (opts.skipTests === true && h.events.includes('test')) continue;
    out += `---\n# Source: ${h.path}\n${h.manifest}\n`;
  }
  return out;
}

/** formatHelmError is the text helm prints for an error (without the "Error: " prefix). */
export function formatHelmError(e: HelmError): string {
  return e.rendered ? `${e.message}\n\nUse --debug flag to render out invalid YAML` : e.message;
}
