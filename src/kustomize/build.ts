// build.ts: the kustomization build — KustTarget's accumulate → generate → components → transform recursion, then
// the final hash suffixes, name-reference fixes, vars, local-config drop and sort — and the printed output.
// Go: kustomize api/krusty/kustomizer.go, api/internal/target/kusttarget.go, kusttarget_configplugin.go,
// api/internal/accumulator, api/internal/builtins/SortOrderTransformer.go.
import { posix } from 'node:path';
import { KustomizeError } from './errors.js';
import {
  defaultTransformerConfig,
  fieldSpecFromJSON,
  mergeFieldSpecs,
  mergeTransformerConfig,
  type FieldSpec,
  type TransformerConfig,
} from './fieldspec.js';
import { Loader, isRemote, type FileTree } from './filesys.js';
import { hashResource, makeConfigMap, makeSecret, mergeGlobalOptions, type GeneratorArgs, type GeneratorOptions } from './generators.js';
import { fixNameReferences } from './nameref.js';
import { applyJsonPatch, applyStrategicMerge, selectResources, type JsonOp, type Selector } from './patch.js';
import { applyReplacements, type Replacement } from './replacements.js';
import { ResMap, Resource, idGoString, idString, idEquals, type Gvk, type ResId } from './resource.js';
import { transformImages, transformMapEntries, transformNameAffix, transformNamespace, transformReplicas, type Image } from './transformers.js';
import { resolveVars, mergeVars, type Var } from './vars.js';
import { toYamlV3 } from '../funcs/index.js';
import { checkKustomization } from './kustomization-schema.js';
import { cloneValue, DUPLICATE_KEYS, isObject, parseDocuments, parseKustomizationYaml, resourceYaml, type JSONObject, type JSONValue } from './yaml.js';

/** BuildResult is a build's printed output and the warnings Kustomize writes to stderr. */
export interface BuildResult {
  yaml: string;
  warnings: string[];
  resources: JSONObject[];
}

const KUSTOMIZATION_FILES = ['kustomization.yaml', 'kustomization.yml', 'Kustomization'];

interface Label {
  pairs?: Record<string, string>;
  includeSelectors?: boolean;
  includeTemplates?: boolean;
  fields?: unknown[];
}

interface PatchEntry {
  path?: string;
  patch?: string;
  target?: Selector;
  options?: Record<string, boolean>;
}

/** Kustomization is the part of types.Kustomization Ripple builds. */
interface Kustomization {
  kind: string;
  apiVersion: string;
  namePrefix?: string;
  nameSuffix?: string;
  namespace?: string;
  commonLabels?: Record<string, string>;
  labels?: Label[];
  commonAnnotations?: Record<string, string>;
  patchesStrategicMerge?: string[];
  patchesJson6902?: PatchEntry[];
  patches?: PatchEntry[];
  images?: Image[];
  replacements?: (Replacement & { path?: string })[];
  replicas?: { name: string; count: unknown }[];
  vars?: Var[];
  sortOptions?: { order?: string; legacySortOptions?: { orderFirst?: string[]; orderLast?: string[] } };
  resources?: string[];
  components?: string[];
  crds?: string[];
  configMapGenerator?: GeneratorArgs[];
  secretGenerator?: GeneratorArgs[];
  generatorOptions?: GeneratorOptions;
  configurations?: string[];
  generators?: string[];
  transformers?: string[];
  validators?: string[];
  openapi?: Record<string, string>;
  helmCharts?: unknown[];
  helmChartInflationGenerator?: unknown[];
  buildMetadata?: string[];
}

const goType = (v: unknown): string =>
  v === null ? 'null' : Array.isArray(v) ? 'array' : typeof v === 'object' ? 'object' : typeof v === 'boolean' ? 'bool' : typeof v === 'string' ? 'string' : 'number';

/** KustTarget is one kustomization directory being built. */
class KustTarget {
  k!: Kustomization;
  helmRefusal: JSONValue | undefined;
  kustFileName = 'kustomization.yaml';
  /** originPath is this kustomization's directory relative to the top one (origin annotations). */
  originPath = '';

  constructor(
    readonly ldr: Loader,
    readonly ctx: BuildContext,
  ) {}

  load(): void {
    const found: [string, Uint8Array][] = [];
    for (const f of KUSTOMIZATION_FILES) {
      const c = this.ldr.tryLoad(f);
      if (c !== undefined) found.push([f, c]);
    }
    if (found.length === 0) {
      throw new KustomizeError('NotFound', `unable to find one of 'kustomization.yaml', 'kustomization.yml' or 'Kustomization' in directory '${this.ldr.root}'`);
    }
    if (found.length > 1) throw new KustomizeError('Invalid', `Found multiple kustomization files under: ${this.ldr.root}\n`);
    this.kustFileName = found[0][0];
    const raw = parseKustomizationYaml(Buffer.from(found[0][1]).toString('utf8'));
    if (raw !== null && !isObject(raw)) throw new KustomizeError('Invalid', `invalid Kustomization: json: cannot unmarshal ${goType(raw)} into Go value of type types.Kustomization`);
    const k = (raw ?? {}) as JSONObject;
    checkKustomization(k);
    const warn = (f: string, msg: string) => {
      if (k[f] !== undefined && k[f] !== null) {
        this.ctx.warnings.push(msg);
        this.ctx.onWarning?.(msg);
      }
    };
    const fix = "Run 'kustomize edit fix' to update your Kustomization automatically.";
    warn('bases', `# Warning: 'bases' is deprecated. Please use 'resources' instead. ${fix}`);
    warn('commonLabels', `# Warning: 'commonLabels' is deprecated. Please use 'labels' instead. ${fix}`);
    warn('imageTags', `# Warning: 'imageTags' is deprecated. Please use 'images' instead. ${fix}`);
    warn('patchesJson6902', `# Warning: 'patchesJson6902' is deprecated. Please use 'patches' instead. ${fix}`);
    warn('patchesStrategicMerge', `# Warning: 'patchesStrategicMerge' is deprecated. Please use 'patches' instead. ${fix}`);
    warn('vars', `# Warning: 'vars' is deprecated. Please use 'replacements' instead. [EXPERIMENTAL] ${fix}`);
    const kind = typeof k.kind === 'string' && k.kind ? k.kind : 'Kustomization';
    const apiVersion = typeof k.apiVersion === 'string' && k.apiVersion ? k.apiVersion : kind === 'Component' ? 'kustomize.config.k8s.io/v1alpha1' : 'kustomize.config.k8s.io/v1beta1';
    const kust = { ...(k as unknown as Kustomization), kind, apiVersion };
    kust.resources = [...((k.resources as string[]) ?? []), ...((k.bases as string[]) ?? [])];
    kust.images = [...((k.images as Image[]) ?? []), ...((k.imageTags as Image[]) ?? [])];
    const rest = Object.keys(k).filter((x) => x !== 'kind' && x !== 'apiVersion' && k[x] !== null);
    if (rest.length === 0) throw new KustomizeError('Invalid', 'kustomization.yaml is empty');
    const errs: string[] = [];
    if (kind !== 'Kustomization' && kind !== 'Component') errs.push('kind should be Kustomization or Component');
    const required = kind === 'Component' ? 'kustomize.config.k8s.io/v1alpha1' : 'kustomize.config.k8s.io/v1beta1';
    if (apiVersion !== required) errs.push(`apiVersion for ${kind} should be ${required}`);
    if (errs.length > 0) throw new KustomizeError('Invalid', `Failed to read kustomization file under ${this.ldr.root}:\n${errs.join('\n')}`);
    // kubectl kustomize has no --enable-helm: every chart fails to configure, with this message.
    const charts = [...((k.helmCharts as JSONValue[] | undefined) ?? []), ...((k.helmChartInflationGenerator as JSONValue[] | undefined) ?? [])];
    if (charts.length > 0) this.helmRefusal = charts[0];
    for (const f of ['generators', 'transformers', 'validators']) {
      const v = k[f];
      if (v !== undefined && v !== null && (!Array.isArray(v) || v.length > 0)) {
        throw new KustomizeError('Unsupported', `'${f}' is not supported by Ripple's kustomize builder (plugins and Helm inflation run external programs)`);
      }
    }
    this.k = kust;
  }

  /** accumulateTarget builds this kustomization into ra (a fresh accumulator, or the parent's for a component). */
  accumulateTarget(ra: Accumulator): Accumulator {
    try {
      this.accumulateResources(ra, this.k.resources ?? []);
    } catch (e) {
      throw prefixed('accumulating resources', e);
    }
    ra.config = mergeTransformerConfig(ra.config, this.loadConfigurations());
    ra.config = mergeTransformerConfig(ra.config, this.loadCrdConfig());
    this.runGenerators(ra);
    try {
      for (const c of this.k.components ?? []) ra = this.accumulateComponent(ra, c);
    } catch (e) {
      throw prefixed('accumulating components', e);
    }
    this.runTransformers(ra);
    try {
      mergeVars(ra, this.k.vars ?? []);
    } catch (e) {
      throw prefixed(`merging vars ${goVars(this.k.vars ?? [])}`, e);
    }
    return ra;
  }

  accumulateResources(ra: Accumulator, paths: string[]): void {
    for (const p of paths) {
      if (isRemote(p)) {
        throw new KustomizeError('Remote', `accumulation err='accumulating resources from '${p}': remote resources are not supported': Ripple builds kustomizations offline and does not fetch '${p}'`);
      }
      let fileErr: KustomizeError;
      try {
        this.accumulateFile(ra, p);
        continue;
      } catch (e) {
        if (!(e instanceof KustomizeError)) throw e;
        fileErr = e;
      }
      let child: Loader;
      try {
        child = this.ldr.child(p);
      } catch (e) {
        if (!(e instanceof KustomizeError)) throw e;
        if (fileErr.message.includes('MalformedYAMLError')) throw fileErr;
        throw new KustomizeError(e.code, `accumulation err='${fileErr.message}': ${e.message}`, { cause: e });
      }
      try {
        accumulateDirectory(ra, child, false, this.ctx, posix.join(this.originPath, p));
      } catch (e) {
        throw prefixed(`accumulation err='${fileErr.message}'`, e);
      }
    }
  }

  accumulateFile(ra: Accumulator, p: string): void {
    let resources: Resource[];
    try {
      resources = resourcesFromBytes(this.ldr.load(p), p);
    } catch (e) {
      throw prefixed(`accumulating resources from '${p}'`, e);
    }
    try {
      if (this.ctx.origins) for (const r of resources) setOrigin(r, originText({ path: posix.join(this.originPath, p) }));
      for (const r of resources) ra.resMap.append(r);
    } catch (e) {
      throw prefixed(`merging resources from '${p}'`, e);
    }
  }

  accumulateComponent(ra: Accumulator, p: string): Accumulator {
    let child: Loader;
    try {
      child = this.ldr.child(p);
    } catch (e) {
      if (e instanceof KustomizeError) throw new KustomizeError(e.code, `loader.New ${JSON.stringify(e.message)}`, { cause: e });
      throw e;
    }
    try {
      return accumulateDirectory(ra, child, true, this.ctx, posix.join(this.originPath, p));
    } catch (e) {
      if (e instanceof KustomizeError) throw new KustomizeError(e.code, `accumulateDirectory: ${JSON.stringify(e.message)}`, { cause: e });
      throw e;
    }
  }

  loadConfigurations(): Partial<TransformerConfig> {
    let out: Partial<TransformerConfig> = {};
    for (const c of this.k.configurations ?? []) {
      const docs = parseDocuments(Buffer.from(this.ldr.load(c)).toString('utf8'), c);
      for (const d of docs) {
        if (!isObject(d)) continue;
        const part: Partial<TransformerConfig> = {};
        for (const key of ['namePrefix', 'nameSuffix', 'commonLabels', 'templateLabels', 'commonAnnotations', 'namespace', 'varReference', 'images', 'replicas'] as const) {
          const v = d[key];
          if (Array.isArray(v)) part[key] = v.map(fieldSpecFromJSON);
        }
        if (Array.isArray(d.nameReference)) {
          part.nameReference = d.nameReference.filter(isObject).map((nr) => ({
            gvk: { group: String(nr.group ?? ''), version: String(nr.version ?? ''), kind: String(nr.kind ?? '') },
            referrers: Array.isArray(nr.fieldSpecs) ? nr.fieldSpecs.map(fieldSpecFromJSON) : [],
          }));
        }
        out = mergePartial(out, part);
      }
    }
    return out;
  }

  // Go: accumulator.LoadConfigFromCRDs — a map of OpenAPI definitions ({"pkg.Kind": {"Schema": {...}}}); in the ones
  // that look like Kubernetes types (kind, apiVersion and metadata properties), x-kubernetes-* extensions make field
  // specs: object-ref-* name references, annotation, label-selector and identity (prefix) fields.
  loadCrdConfig(): Partial<TransformerConfig> {
    let out: Partial<TransformerConfig> = {};
    for (const c of this.k.crds ?? []) {
      const text = Buffer.from(this.ldr.load(c)).toString('utf8');
      let defs: unknown;
      try {
        defs = text.startsWith('{') ? JSON.parse(text) : parseDocuments(text, c)[0];
      } catch (e) {
        throw prefixed(`unable to parse open API definition from '${c}'`, e instanceof KustomizeError ? e : new KustomizeError('Invalid', (e as Error).message));
      }
      if (!isObject(defs as JSONValue)) continue;
      const m = defs as JSONObject;
      const schemaOf = (name: string): JSONObject | undefined => {
        const d = m[name];
        if (!isObject(d)) return undefined;
        const sch = d.Schema ?? d.schema;
        return isObject(sch) ? sch : undefined;
      };
      for (const name of Object.keys(m)) {
        const props = schemaOf(name)?.properties;
        if (!isObject(props) || !('kind' in props) || !('apiVersion' in props) || !('metadata' in props)) continue;
        const part: Partial<TransformerConfig> = {};
        walkCrdProps(schemaOf, name, [], { group: '', version: '', kind: name.slice(name.lastIndexOf('.') + 1) }, part, 0);
        out = mergePartial(out, part);
      }
    }
    return out;
  }

  // Go: openapi.SetSchema — the top-level kustomization's `openapi` wins; otherwise the first one loaded that has it.
  loadOpenAPI(): void {
    const p = this.k.openapi?.path;
    if (this.ctx.schema || !p) return;
    const text = Buffer.from(this.ldr.load(p)).toString('utf8');
    const v = text.trimStart().startsWith('{') ? (JSON.parse(text) as JSONValue) : parseDocuments(text, p)[0];
    if (isObject(v)) this.ctx.schema = v;
  }

  runGenerators(ra: Accumulator): void {
    if (this.helmRefusal !== undefined) {
      const chart = isObject(this.helmRefusal) ? { ...this.helmRefusal } : {};
      if (!chart.namespace && this.k.namespace) chart.namespace = this.k.namespace;
      throw new KustomizeError('Unsupported', `trouble configuring builtin HelmChartInflationGenerator with config: \`\n${toYamlV3(chart as never)}\`: must specify --enable-helm`);
    }
    const load = (p: string) => this.ldr.load(p);
    const gens: [() => Resource, string][] = [];
    for (const args of this.k.configMapGenerator ?? []) {
      const a = { ...args, options: mergeGlobalOptions(args.options, this.k.generatorOptions) };
      gens.push([() => makeConfigMap(a, load), 'ConfigMapGenerator']);
    }
    for (const args of this.k.secretGenerator ?? []) {
      const a = { ...args, options: mergeGlobalOptions(args.options, this.k.generatorOptions) };
      gens.push([() => makeSecret(a, load), 'SecretGenerator']);
    }
    for (const [g, by] of gens) {
      const r = g();
      if (this.ctx.origins) setOrigin(r, originText({ configuredIn: posix.join(this.originPath, this.kustFileName), configuredBy: by }));
      try {
        absorb(ra.resMap, r);
      } catch (e) {
        throw prefixed(`merging from generator ${goGenerator(r)}`, e);
      }
    }
  }

  runTransformers(ra: Accumulator): void {
    const tc = ra.config;
    const m = ra.resMap;
    const k = this.k;
    if (k.patchesStrategicMerge && k.patchesStrategicMerge.length > 0) this.patchesStrategicMerge(m, k.patchesStrategicMerge);
    for (const p of k.patches ?? []) this.patch(m, p);
    if (k.namespace) transformNamespace(m, k.namespace, tc.namespace);
    if (k.namePrefix) transformNameAffix(m, k.namePrefix, tc.namePrefix, false);
    if (k.nameSuffix) transformNameAffix(m, k.nameSuffix, tc.nameSuffix, true);
    if ((k.labels && k.labels.length > 0) || (k.commonLabels && Object.keys(k.commonLabels).length > 0)) {
      for (const l of k.labels ?? []) {
        let fss = mergeFieldSpecs((l.fields ?? []).map(fieldSpecFromJSON), []);
        fss = mergeFieldSpecs(fss, tc.commonLabels.filter((f) => f.path === 'metadata/labels' && !f.kind));
        if (l.includeSelectors) fss = mergeFieldSpecs(fss, tc.commonLabels);
        else {
          if (l.includeTemplates) fss = mergeFieldSpecs(fss, tc.templateLabels);
          fss = mergeFieldSpecs(fss, [{ group: '', version: '', kind: '', path: 'metadata/labels', create: true }]);
        }
        transformMapEntries(m, l.pairs ?? {}, fss);
      }
      transformMapEntries(m, k.commonLabels ?? {}, tc.commonLabels);
    }
    if (k.commonAnnotations && Object.keys(k.commonAnnotations).length > 0) transformMapEntries(m, k.commonAnnotations, tc.commonAnnotations);
    for (const p of k.patchesJson6902 ?? []) this.patchJson6902(m, p);
    for (const r of k.replicas ?? []) {
      let count: bigint;
      try {
        count = BigInt(r.count as never);
      } catch {
        count = 0n;
      }
      transformReplicas(m, { name: r.name, count }, tc.replicas);
    }
    for (const img of k.images ?? []) transformImages(m, img, tc.images);
    if (k.replacements && k.replacements.length > 0) {
      const reps: Replacement[] = [];
      for (const r of k.replacements) {
        if (r.path) {
          const docs = parseDocuments(Buffer.from(this.ldr.load(r.path)).toString('utf8'), r.path);
          for (const d of docs) {
            if (Array.isArray(d)) reps.push(...(d as unknown as Replacement[]));
            else reps.push(d as unknown as Replacement);
          }
        } else reps.push(r);
      }
      applyReplacements(m.list, reps);
    }
  }

  patchesStrategicMerge(m: ResMap, entries: string[]): void {
    const patches: Resource[] = [];
    for (const e of entries) {
      let inline: Resource[] | undefined;
      try {
        inline = resourcesFromBytes(new TextEncoder().encode(e), e);
      } catch {
        inline = undefined;
      }
      if (inline && inline.length > 0) {
        patches.push(...inline);
        continue;
      }
      patches.push(...resourcesFromBytes(this.ldr.load(e), e));
    }
    if (patches.length === 0) throw new KustomizeError('Invalid', 'no patches to apply');
    for (const p of patches) {
      const target = getById(m, p.orgId());
      applySmPatchTo(m, [target], p, false, this.ctx.schema);
    }
  }

  patchText(p: PatchEntry): { text: string; source: string } {
    const patch = (p.patch ?? '').trim();
    if (!patch && !p.path) throw new KustomizeError('Invalid', `must specify one of patch and path in\n${patchConfigYaml(p)}`);
    if (patch && p.path) throw new KustomizeError('Invalid', `patch and path can't be set at the same time\n${patchConfigYaml(p)}`);
    if (patch) return { text: patch, source: `[patch: ${goQuote(patch)}]` };
    let loaded: Uint8Array;
    try {
      loaded = this.ldr.load(p.path!);
    } catch (e) {
      throw prefixed(`failed to get the patch file from path(${p.path})`, e);
    }
    return { text: Buffer.from(loaded).toString('utf8'), source: `[path: ${goQuote(p.path!)}]` };
  }

  patch(m: ResMap, p: PatchEntry): void {
    let parsed: { sm?: Resource[]; json?: JsonOp[]; source: string };
    try {
      parsed = this.configurePatch(p);
    } catch (e) {
      throw prefixed(`trouble configuring builtin PatchTransformer with config: \`\n${patchConfigYaml(p)}\``, e);
    }
    const { sm, json, source } = parsed;
    this.applyPatch(m, p, sm, json, source);
  }

  configurePatch(p: PatchEntry): { sm?: Resource[]; json?: JsonOp[]; source: string } {
    const { text, source } = this.patchText(p);
    let sm: Resource[] | undefined;
    let json: JsonOp[] | undefined;
    try {
      sm = resourcesFromBytes(new TextEncoder().encode(text), source);
    } catch {
      sm = undefined;
    }
    try {
      json = jsonOpsFromText(text);
    } catch {
      json = undefined;
    }
    if ((sm !== undefined && json !== undefined) ) throw new KustomizeError('Invalid', `illegally qualifies as both an SM and JSON patch: ${source}`);
    if (sm === undefined && json === undefined) throw new KustomizeError('Invalid', `unable to parse SM or JSON patch from ${source}`);
    return { sm, json, source };
  }

  applyPatch(m: ResMap, p: PatchEntry, sm: Resource[] | undefined, json: JsonOp[] | undefined, source: string): void {
    if (sm) {
      if (p.target) {
        if (sm.length > 1) throw new KustomizeError('Invalid', `Multiple Strategic-Merge Patches in one \`patches\` entry is not allowed to set \`patches.target\` field: ${source}`);
        const selected = selectResources(m.list, p.target);
        const patch = sm[0];
        if (p.options?.allowNameChange) patch.allowNameChange = true;
        if (p.options?.allowKindChange) patch.allowKindChange = true;
        applySmPatchTo(m, selected, patch, true, this.ctx.schema);
        return;
      }
      for (const patch of sm) {
        if (p.options?.allowNameChange) patch.allowNameChange = true;
        if (p.options?.allowKindChange) patch.allowKindChange = true;
        let target: Resource;
        try {
          target = getById(m, patch.orgId());
        } catch (e) {
          throw prefixed(`no resource matches strategic merge patch "${idString(patch.orgId())}"`, e);
        }
        applySmPatchTo(m, [target], patch, false, this.ctx.schema);
      }
      return;
    }
    if (!p.target) throw new KustomizeError('Invalid', `must specify a target for JSON patch ${source}`);
    for (const r of selectResources(m.list, p.target)) {
      r.storePreviousId();
      r.obj = applyJsonPatch(r.obj, json!);
      resetAnnotations(r);
    }
  }

  patchJson6902(m: ResMap, p: PatchEntry): void {
    if (!p.target) throw new KustomizeError('Invalid', 'must specify the target field in patchesJson6902');
    let text: string;
    if (p.path) text = Buffer.from(this.ldr.load(p.path)).toString('utf8');
    else if (p.patch) text = p.patch;
    else throw new KustomizeError('Invalid', 'must specify the path for a json patch file');
    const ops = jsonOpsFromText(text);
    for (const r of selectResources(m.list, p.target)) {
      r.storePreviousId();
      r.obj = applyJsonPatch(r.obj, ops);
      resetAnnotations(r);
    }
  }
}

/** BuildContext is what one build shares across its kustomizations: warnings and the OpenAPI schema in force. */
interface BuildContext {
  warnings: string[];
  /** origins is buildMetadata's originAnnotations: resources carry config.kubernetes.io/origin. */
  origins?: boolean;
  onWarning?: (warning: string) => void;
  /** schema is the custom schema of the first kustomization (top-level first) with `openapi.path`. */
  schema?: JSONObject;
}

/** Accumulator is accumulator.ResAccumulator: resources, transformer config and vars so far. */
export class Accumulator {
  resMap = new ResMap();
  config: TransformerConfig = defaultTransformerConfig();
  vars: Var[] = [];
}

function mergePartial(a: Partial<TransformerConfig>, b: Partial<TransformerConfig>): Partial<TransformerConfig> {
  const out: Partial<TransformerConfig> = { ...a };
  for (const key of Object.keys(b) as (keyof TransformerConfig)[]) {
    if (key === 'nameReference') out.nameReference = [...(a.nameReference ?? []), ...(b.nameReference ?? [])];
    else out[key] = mergeFieldSpecs((a[key] as FieldSpec[] | undefined) ?? [], b[key] as FieldSpec[]);
  }
  return out;
}

function walkCrdProps(schemaOf: (n: string) => JSONObject | undefined, typeName: string, path: string[], gvk: Gvk, out: Partial<TransformerConfig>, depth: number): void {
  const props = schemaOf(typeName)?.properties;
  if (!isObject(props) || depth > 32) return;
  const fs = (p: string[]): FieldSpec => ({ ...gvk, path: p.join('/'), create: false });
  const str = (v: JSONValue | undefined) => (typeof v === 'string' ? v : undefined);
  for (const [name, p] of Object.entries(props)) {
    if (!isObject(p)) continue;
    const here = [...path, name];
    if (str(p['x-kubernetes-annotation']) !== undefined) out.commonAnnotations = mergeFieldSpecs(out.commonAnnotations ?? [], [fs(here)]);
    if (str(p['x-kubernetes-label-selector']) !== undefined) out.commonLabels = mergeFieldSpecs(out.commonLabels ?? [], [fs(here)]);
    if (str(p['x-kubernetes-identity']) !== undefined) out.namePrefix = mergeFieldSpecs(out.namePrefix ?? [], [fs(here)]);
    const version = str(p['x-kubernetes-object-ref-api-version']);
    const kind = str(p['x-kubernetes-object-ref-kind']);
    if (version !== undefined && kind !== undefined) {
      const nameKey = str(p['x-kubernetes-object-ref-name-key']) ?? 'name';
      out.nameReference = [...(out.nameReference ?? []), { gvk: { group: '', version, kind }, referrers: [fs([...here, nameKey])] }];
    }
    const ref = str(p.$ref);
    if (ref) walkCrdProps(schemaOf, ref, here, gvk, out, depth + 1);
  }
}

function goQuote(s: string): string {
  return JSON.stringify(s).replace(/\\u0026/g, '&').replace(/</g, '<');
}

// patchConfigYaml is kyaml's yaml.Marshal (yaml.v3, 4-space indent) of the PatchTransformer config struct: fields in
// declaration order, empty ones omitted.
function patchConfigYaml(p: PatchEntry): string {
  let out = '';
  const scalar = (k: string, v: string, indent: string) => {
    out += toYamlV3({ [k]: v }).split('\n').filter((l) => l !== '').map((l) => indent + l).join('\n') + '\n';
  };
  if (p.path) scalar('path', p.path, '');
  if (p.patch) scalar('patch', p.patch, '');
  if (p.target) {
    out += 'target:\n';
    for (const k of ['group', 'version', 'kind', 'name', 'namespace', 'labelSelector', 'annotationSelector'] as const) {
      const v = p.target[k];
      if (v) scalar(k, v, '    ');
    }
  }
  if (p.options && Object.keys(p.options).length > 0) {
    out += 'options:\n';
    for (const k of Object.keys(p.options).sort()) out += `    ${k}: ${String(p.options[k])}\n`;
  }
  return out;
}

function goVars(vars: Var[]): string {
  return `[${vars.map((v) => `{${v.name} ${JSON.stringify(v.objref ?? {})} ${JSON.stringify(v.fieldref ?? {})}}`).join(' ')}]`;
}

function goGenerator(r: Resource): string {
  return `${r.kind} ${r.name}`;
}

// resetAnnotations is what transformJson6902 does after a JSON patch: it reads the annotations as map[string]string
// and sets them back, so non-string values become their text and an empty or non-map `annotations` disappears.
function resetAnnotations(r: Resource): void {
  if (!isObject(r.obj.metadata)) return;
  r.setStringMap('annotations', isObject(r.metadata.annotations) ? r.stringMap('annotations') : {});
}

const ORIGIN = 'config.kubernetes.io/origin';

// originText is resource.Origin.String: the origin as YAML (path, or configuredIn and configuredBy).
function originText(o: { path?: string; configuredIn?: string; configuredBy?: string }): string {
  const scalar = (k: string, v: string) => toYamlV3({ [k]: v });
  if (o.path !== undefined) return scalar('path', o.path);
  return `${scalar('configuredIn', o.configuredIn ?? '')}configuredBy:\n  apiVersion: builtin\n  kind: ${o.configuredBy}\n`;
}

function setOrigin(r: Resource, text: string): void {
  const a = r.stringMap('annotations');
  a[ORIGIN] = text;
  r.setStringMap('annotations', a);
}

/** prefixed is errors.WrapPrefixf for KustomizeErrors; anything else is rethrown as is. */
function prefixed(prefix: string, e: unknown): unknown {
  if (e instanceof KustomizeError) return new KustomizeError(e.code, `${prefix}: ${e.message}`, { cause: e });
  return e;
}

/** resourceMetaString is Go's %v of kyaml's ResourceMeta, as errors about bad objects print it. */
function resourceMetaString(o: JSONObject): string {
  const meta = isObject(o.metadata) ? o.metadata : {};
  const s = (v: JSONValue | undefined) => (v === undefined || v === null ? '' : typeof v === 'string' ? v : String(v));
  const m = (v: JSONValue | undefined) =>
    `map[${isObject(v) ? Object.keys(v).sort().map((k) => `${k}:${s(v[k])}`).join(' ') : ''}]`;
  return `{{${s(o.apiVersion)} ${s(o.kind)}} {{${s(meta.name)} ${s(meta.namespace)}} ${m(meta.labels)} ${m(meta.annotations)}}}`;
}

/** resourcesFromBytes is Factory.SliceFromBytes: documents, validated, with `*List` objects expanded. */
function resourcesFromBytes(b: Uint8Array, file: string): Resource[] {
  const docs = parseDocuments(Buffer.from(b).toString('utf8'), file);
  const queue: JSONValue[] = [];
  for (const d of docs) {
    if (!isObject(d)) {
      throw new KustomizeError('Invalid', `MalformedYAMLError: yaml: unmarshal errors:\n  line 1: cannot unmarshal !!${Array.isArray(d) ? 'seq' : 'str'} into map[string]interface {} in File: ${file}`);
    }
    if (Object.keys(d).length === 0) continue;
    const kind = typeof d.kind === 'string' ? d.kind : '';
    if (kind === '') throw new KustomizeError('Invalid', `missing kind in object ${resourceMetaString(d)}`);
    if (!kind.endsWith('List')) {
      const meta = isObject(d.metadata) ? d.metadata : {};
      if (meta.name === undefined || meta.name === null || meta.name === '') throw new KustomizeError('Invalid', `missing metadata.name in object ${resourceMetaString(d)}`);
    }
    queue.push(d);
  }
  const out: Resource[] = [];
  while (queue.length > 0) {
    const n = queue.shift()!;
    if (!isObject(n)) continue;
    const kind = typeof n.kind === 'string' ? n.kind : '';
    if (kind.endsWith('List') && 'items' in n) {
      const items = n.items;
      if (items === null) continue;
      if (!Array.isArray(items)) throw new KustomizeError('Invalid', `expected array in ${kind}/items, but found ${goType(items)}`);
      queue.push(...items);
      continue;
    }
    const r = new Resource(n);
    r.decodeErrors = DUPLICATE_KEYS.get(n) ?? [];
    out.push(r);
  }
  return out;
}

function jsonOpsFromText(text: string): JsonOp[] {
  if (text === '') throw new KustomizeError('Invalid', 'empty json patch operations');
  let v: unknown;
  if (text[0] === '[') v = JSON.parse(text);
  else {
    v = parseKustomizationYaml(text);
  }
  if (!Array.isArray(v)) throw new KustomizeError('Invalid', 'json: cannot unmarshal object into Go value of type jsonpatch.Patch');
  return v.map((o) => {
    if (!isObject(o)) throw new KustomizeError('Invalid', 'json: cannot unmarshal into Operation');
    return { op: String(o.op ?? ''), path: String(o.path ?? ''), value: toJSONValue(o.value), from: o.from === undefined ? undefined : String(o.from) };
  });
}

// toJSONValue makes a sigs-decoded value (numbers as float64) a JSONValue with integers as bigint, as JSON → yaml.v3 would.
function toJSONValue(v: unknown): JSONValue {
  if (v === undefined) return null;
  if (typeof v === 'number') return Number.isInteger(v) ? BigInt(v) : v;
  if (Array.isArray(v)) return v.map(toJSONValue);
  if (v !== null && typeof v === 'object') {
    const o: JSONObject = {};
    for (const [k, e] of Object.entries(v)) o[k] = toJSONValue(e);
    return o;
  }
  return v as JSONValue;
}

function getById(m: ResMap, id: ResId): Resource {
  const r = m.byAnyId(id).filter((x) => x.allIds().some((y) => y.group === id.group && y.version === id.version && y.kind === id.kind && idEquals(y, id)));
  if (r.length === 1) return r[0];
  const err = r.length > 1 ? `multiple matches for Id ${idString(id)}` : `no matches for Id ${idString(id)}`;
  throw new KustomizeError('NotFound', `${err}; failed to find unique target for patch ${idString(id)}`);
}

// Go: resWrangler.ApplySmPatch + Resource.ApplySmPatch.
function applySmPatchTo(m: ResMap, targets: Resource[], patch: Resource, retarget: boolean, schema: JSONObject | undefined): void {
  const ids = targets.map((t) => t.curId());
  const keep: Resource[] = [];
  for (const r of m.list) {
    if (ids.some((id) => idEquals(id, r.curId()))) {
      const p = cloneValue(patch.obj);
      if (retarget) {
        p.apiVersion = r.apiVersion;
      }
      const { name, namespace, kind } = { name: r.name, namespace: r.namespace, kind: r.kind };
      if (patch.allowNameChange || patch.allowKindChange) r.storePreviousId();
      const merged = applyStrategicMerge(r.obj, p, schema);
      if (merged === undefined || Object.keys(merged).length === 0) continue;
      r.obj = merged;
      if (!patch.allowKindChange) r.obj.kind = kind;
      if (!patch.allowNameChange) r.name = name;
      r.namespace = namespace;
    }
    keep.push(r);
  }
  m.list = keep;
}

/** absorb is resWrangler.appendReplaceOrMerge for a generated resource. */
function absorb(m: ResMap, r: Resource): void {
  const id = r.curId();
  const matches = m.byAnyId(id);
  if (matches.length === 0) {
    if (r.behavior === 'merge' || r.behavior === 'replace') throw new KustomizeError('NotFound', `id ${idGoString(id)} does not exist; cannot merge or replace`);
    m.append(r);
    return;
  }
  if (matches.length > 1) throw new KustomizeError('Conflict', `found multiple objects ${matches.map((x) => idString(x.curId())).join(' ')} that could accept merge of ${idString(id)}`);
  const old = matches[0];
  const index = m.list.indexOf(old);
  if (r.behavior === 'replace' || r.behavior === 'merge') {
    r.setStringMap('labels', { ...old.stringMap('labels'), ...r.stringMap('labels') });
    const annotations = { ...old.stringMap('annotations'), ...r.stringMap('annotations') };
    // A merge keeps the origin of the object merged into.
    if (r.behavior === 'merge' && old.stringMap('annotations')[ORIGIN] !== undefined) annotations[ORIGIN] = old.stringMap('annotations')[ORIGIN];
    r.setStringMap('annotations', annotations);
    r.name = old.name;
    r.namespace = old.namespace;
    r.prev = old.prev.map((p) => ({ ...p }));
    r.prefixes = [...old.prefixes];
    r.suffixes = [...old.suffixes];
    r.refVarNames = [...old.refVarNames];
    if (r.behavior === 'merge') {
      for (const f of ['data', 'binaryData']) {
        const merged = { ...(isObject(old.obj[f]) ? (old.obj[f] as JSONObject) : {}), ...(isObject(r.obj[f]) ? (r.obj[f] as JSONObject) : {}) };
        if (Object.keys(merged).length > 0) r.obj[f] = merged;
        else delete r.obj[f];
      }
    }
    // The hash flag is the new generator's own (CopyMergeMetaDataFieldsFrom drops the old one's).
    m.list[index] = r;
    return;
  }
  throw new KustomizeError('Conflict', `id ${idGoString(id)} exists; behavior must be merge or replace`);
}

function accumulateDirectory(ra: Accumulator, ldr: Loader, isComponent: boolean, ctx: BuildContext, originPath: string): Accumulator {
  const sub = new KustTarget(ldr, ctx);
  sub.originPath = originPath;
  try {
    sub.load();
  } catch (e) {
    throw prefixed(`couldn't make target for path '${ldr.root}'`, e);
  }
  sub.loadOpenAPI();
  if (isComponent && sub.k.kind !== 'Component') {
    throw new KustomizeError('Invalid', `expected kind 'Component' for path '${ldr.root}' but got '${sub.k.kind}'`);
  }
  if (!isComponent && sub.k.kind === 'Component') throw new KustomizeError('Invalid', `expected kind != 'Component' for path '${ldr.root}'`);
  let subRa: Accumulator;
  try {
    if (isComponent) {
      subRa = sub.accumulateTarget(ra);
      ra = new Accumulator();
    } else subRa = sub.accumulateTarget(new Accumulator());
  } catch (e) {
    throw prefixed(`recursed accumulation of path '${ldr.root}'`, e);
  }
  try {
    ra.resMap.appendAll(subRa.resMap);
    ra.config = mergeTransformerConfig(ra.config, subRa.config);
    mergeVars(ra, subRa.vars);
  } catch (e) {
    throw prefixed(`recursed merging from path '${ldr.root}'`, e);
  }
  return ra;
}

const LEGACY_FIRST = [
  'Namespace', 'ResourceQuota', 'StorageClass', 'CustomResourceDefinition', 'ServiceAccount', 'PodSecurityPolicy', 'Role',
  'ClusterRole', 'RoleBinding', 'ClusterRoleBinding', 'ConfigMap', 'Secret', 'Endpoints', 'Service', 'LimitRange',
  'PriorityClass', 'PersistentVolume', 'PersistentVolumeClaim', 'Deployment', 'StatefulSet', 'CronJob', 'PodDisruptionBudget',
];
const LEGACY_LAST = ['MutatingWebhookConfiguration', 'ValidatingWebhookConfiguration'];

function gvkSortString(g: Gvk): string {
  return `${g.group || '~G'}_${g.version || '~V'}_${g.kind || '~K'}`;
}

const goLess = (a: string, b: string) => Buffer.compare(Buffer.from(a), Buffer.from(b)) < 0;

/** legacySort is SortOrderTransformer's legacy order: kinds by the order lists, then gvk, namespace, name. */
function legacySort(list: Resource[], first: string[], last: string[]): Resource[] {
  const orders = new Map<string, number>();
  first.forEach((k, i) => orders.set(k, -first.length + i));
  last.forEach((k, i) => orders.set(k, 1 + i));
  const keyed = list.map((r) => ({ r, id: r.curId() }));
  keyed.sort((a, b) => {
    const x = a.id;
    const y = b.id;
    if (!(x.group === y.group && x.version === y.version && x.kind === y.kind)) {
      const i = orders.get(x.kind) ?? 0;
      const j = orders.get(y.kind) ?? 0;
      if (i !== j) return i - j;
      const sx = gvkSortString(x);
      const sy = gvkSortString(y);
      if (x.kind === 'Namespace' && y.kind === 'Namespace' && (x.group === '' || y.group === '')) return goLess(sy, sx) ? -1 : goLess(sx, sy) ? 1 : 0;
      return goLess(sx, sy) ? -1 : goLess(sy, sx) ? 1 : 0;
    }
    const ka = `${gvkStringForSort(x)}|${x.namespace || '~X'}|${x.name || '~N'}`;
    const kb = `${gvkStringForSort(y)}|${y.namespace || '~X'}|${y.name || '~N'}`;
    return goLess(ka, kb) ? -1 : goLess(kb, ka) ? 1 : 0;
  });
  return keyed.map((k) => k.r);
}

function gvkStringForSort(g: Gvk): string {
  return `${g.kind || '[noKind]'}.${g.version || '[noVer]'}.${g.group || '[noGrp]'}`;
}

/** BuildOptions tunes a build. */
export interface BuildOptions {
  /** onWarning receives each deprecation warning as Kustomize prints it (to stderr), also when the build fails. */
  onWarning?: (warning: string) => void;
}

/**
 * buildKustomization builds the kustomization in dir (an absolute path in fs) as `kubectl kustomize dir` does and
 * returns the printed YAML. Errors are KustomizeErrors with Kustomize's message.
 */
export function buildKustomization(fs: FileTree, dir: string, opts: BuildOptions = {}): BuildResult {
  const root = posix.resolve('/', dir);
  if (!fs.isDir(root)) {
    if (fs.readFile(root) !== undefined) throw new KustomizeError('Invalid', `must build at directory: '${root}': file is not directory`);
    throw new KustomizeError('NotFound', `must build at directory: not a valid directory: evalsymlink failure on '${root}' : lstat ${root}: no such file or directory`);
  }
  const ctx: BuildContext = { warnings: [], onWarning: opts.onWarning };
  const warnings = ctx.warnings;
  const kt = new KustTarget(new Loader(fs, root), ctx);
  kt.load();
  const buildMetadata = kt.k.buildMetadata ?? [];
  for (const b of buildMetadata) {
    if (b === 'transformerAnnotations') throw new KustomizeError('Unsupported', `buildMetadata '${b}' is not supported by Ripple's kustomize builder`);
  }
  ctx.origins = buildMetadata.includes('originAnnotations');
  kt.loadOpenAPI();
  const ra = kt.accumulateTarget(new Accumulator());
  const m = ra.resMap;
  for (const r of m.list) {
    if (r.needsHash) {
      const h = hashResource(r);
      r.storePreviousId();
      r.name = `${r.name}-${h}`;
    }
  }
  fixNameReferences(m, ra.config.nameReference);
  resolveVars(ra);
  m.list = m.list.filter((r) => {
    const a = r.stringMap('annotations')['config.kubernetes.io/local-config'];
    return a === undefined || a === 'false';
  });
  const so = kt.k.sortOptions;
  if (so) {
    if (so.order !== 'legacy' && so.order !== 'fifo') throw new KustomizeError('Invalid', `the field 'sortOptions.order' must be one of [fifo, legacy]`);
    if (so.order === 'fifo' && so.legacySortOptions) throw new KustomizeError('Invalid', `the field 'sortOptions.legacySortOptions' is set but the selected sort order is 'fifo', not 'legacy'`);
    if (so.order === 'legacy') m.list = legacySort(m.list, so.legacySortOptions?.orderFirst ?? LEGACY_FIRST, so.legacySortOptions?.orderLast ?? LEGACY_LAST);
  } else m.list = legacySort(m.list, LEGACY_FIRST, LEGACY_LAST);
  if (buildMetadata.includes('managedByLabel')) {
    // kubectl's embedded Kustomize reports its version as (devel).
    transformMapEntries(m, { 'app.kubernetes.io/managed-by': 'kustomize-(devel)' }, [{ group: '', version: '', kind: '', path: 'metadata/labels', create: true }]);
  }
  // Go: RemoveOriginAnnotations / RemoveTransformerAnnotations run unless buildMetadata asks to keep them, whoever set them.
  for (const r of m.list) {
    const a = r.metadata.annotations;
    if (!isObject(a)) continue;
    const drop = [...(ctx.origins ? [] : [ORIGIN]), 'alpha.config.kubernetes.io/transformations'].filter((k) => k in a);
    if (drop.length === 0) continue;
    for (const k of drop) delete a[k];
    if (Object.keys(a).length === 0) delete r.metadata.annotations;
  }
  for (const r of m.list) {
    if (r.decodeErrors.length > 0) {
      throw new KustomizeError('Invalid', `map[string]interface {}(nil): yaml: unmarshal errors:\n  ${r.decodeErrors.join('\n  ')}`);
    }
  }
  const resources = m.list.map((r) => r.obj);
  const yaml = resources.map((o) => resourceYaml(o)).join('---\n');
  return { yaml, warnings, resources };
}

