// kustomization-schema.ts: the Go types a kustomization file is decoded into (types.Kustomization and the structs it
// holds), as far as encoding/json checks them: DisallowUnknownFields and type mismatches, with encoding/json's
// messages (`json: unknown field "x"`, `json: cannot unmarshal bool into Go struct field Image.images.newTag of type
// string`). Go: kustomize api/types/*.go, encoding/json decode.go.
import { KustomizeError } from './errors.js';

type T =
  | { t: 'string' | 'bool' | 'int64' | 'int' | 'any' }
  | { t: 'map'; elem: T }
  | { t: 'list'; elem: T }
  | { t: 'struct'; name: string; fields: Record<string, T> };

const str: T = { t: 'string' };
const bool: T = { t: 'bool' };
const any: T = { t: 'any' };
const strings: T = { t: 'list', elem: str };
const stringMap: T = { t: 'map', elem: str };
const struct = (name: string, fields: Record<string, T>): T => ({ t: 'struct', name, fields });
const list = (elem: T): T => ({ t: 'list', elem });

const gvk = { group: str, version: str, kind: str };
const selector = struct('Selector', { ...gvk, name: str, namespace: str, labelSelector: str, annotationSelector: str });
const fieldSpec = struct('FieldSpec', { ...gvk, path: str, create: bool });
const fieldOptions = struct('FieldOptions', { delimiter: str, index: { t: 'int' }, encoding: str, create: bool });
const generatorOptions = struct('GeneratorOptions', { labels: stringMap, annotations: stringMap, disableNameSuffixHash: bool, immutable: bool });
const generatorArgs = {
  namespace: str,
  name: str,
  behavior: str,
  literals: strings,
  files: strings,
  envs: strings,
  env: str,
  options: generatorOptions,
};
const patch = struct('Patch', { path: str, patch: str, target: selector, options: { t: 'map', elem: bool } });

const KUSTOMIZATION = struct('Kustomization', {
  apiVersion: str,
  kind: str,
  metadata: any,
  openapi: stringMap,
  namePrefix: str,
  nameSuffix: str,
  namespace: str,
  commonLabels: stringMap,
  labels: list(struct('Label', { pairs: stringMap, includeSelectors: bool, includeTemplates: bool, fields: list(fieldSpec) })),
  commonAnnotations: stringMap,
  patchesStrategicMerge: strings,
  patchesJson6902: list(patch),
  patches: list(patch),
  images: list(struct('Image', { name: str, newName: str, newTag: str, digest: str, tagSuffix: str })),
  imageTags: list(struct('Image', { name: str, newName: str, newTag: str, digest: str, tagSuffix: str })),
  replacements: list(
    struct('ReplacementField', {
      path: str,
      source: struct('SourceSelector', { ...gvk, name: str, namespace: str, fieldPath: str, options: fieldOptions }),
      targets: list(struct('TargetSelector', { select: selector, reject: list(selector), fieldPaths: strings, options: fieldOptions })),
    }),
  ),
  replicas: list(struct('Replica', { name: str, count: { t: 'int64' } })),
  vars: list(
    struct('Var', {
      name: str,
      objref: struct('Target', { ...gvk, apiVersion: str, name: str, namespace: str }),
      fieldref: struct('FieldSelector', { fieldpath: str }),
    }),
  ),
  sortOptions: struct('SortOptions', { order: str, legacySortOptions: struct('LegacySortOptions', { orderFirst: strings, orderLast: strings }) }),
  resources: strings,
  components: strings,
  crds: strings,
  bases: strings,
  configMapGenerator: list(struct('ConfigMapArgs', generatorArgs)),
  secretGenerator: list(struct('SecretArgs', { ...generatorArgs, type: str })),
  helmGlobals: any,
  helmCharts: list(any),
  helmChartInflationGenerator: list(any),
  generatorOptions,
  configurations: strings,
  generators: strings,
  transformers: strings,
  validators: strings,
  buildMetadata: strings,
});

const jsonType = (v: unknown): string =>
  Array.isArray(v) ? 'array' : v !== null && typeof v === 'object' ? 'object' : typeof v === 'boolean' ? 'bool' : typeof v === 'string' ? 'string' : 'number';

const goTypeName = (t: T): string => {
  switch (t.t) {
    case 'string':
    case 'bool':
    case 'int64':
    case 'int':
      return t.t;
    case 'map':
      return `map[string]${goTypeName(t.elem)}`;
    case 'list':
      return `[]${goTypeName(t.elem)}`;
    case 'struct':
      return `types.${t.name}`;
    default:
      return 'interface {}';
  }
};

function fail(v: unknown, t: T, structName: string, path: string): never {
  const where = structName ? `Go struct field ${structName}.${path}` : 'Go value';
  const num = jsonType(v) === 'number' && (t.t === 'int' || t.t === 'int64') ? `number ${String(v)}` : jsonType(v);
  throw new KustomizeError('Invalid', `invalid Kustomization: json: cannot unmarshal ${num} into ${where} of type ${goTypeName(t)}`);
}

function check(v: unknown, t: T, structName: string, path: string): void {
  if (v === null || v === undefined || t.t === 'any') return;
  switch (t.t) {
    case 'string':
      if (typeof v !== 'string') fail(v, t, structName, path);
      return;
    case 'bool':
      if (typeof v !== 'boolean') fail(v, t, structName, path);
      return;
    case 'int':
    case 'int64':
      if ((typeof v !== 'number' && typeof v !== 'bigint') || (typeof v === 'number' && !Number.isInteger(v))) fail(v, t, structName, path);
      return;
    case 'list':
      if (!Array.isArray(v)) fail(v, t, structName, path);
      for (const e of v) check(e, t.elem, structName, path);
      return;
    case 'map':
      if (jsonType(v) !== 'object') fail(v, t, structName, path);
      for (const e of Object.values(v as object)) check(e, t.elem, structName, path);
      return;
    case 'struct': {
      if (jsonType(v) !== 'object') fail(v, t, structName, path);
      for (const [k, e] of Object.entries(v as object)) {
        const ft = t.fields[k] ?? Object.entries(t.fields).find(([n]) => n.toLowerCase() === k.toLowerCase())?.[1];
        if (!ft) throw new KustomizeError('Invalid', `invalid Kustomization: json: unknown field ${JSON.stringify(k)}`);
        check(e, ft, t.name, path ? `${path}.${k}` : k);
      }
      return;
    }
  }
}

/** checkKustomization validates a decoded kustomization file as encoding/json decoding into types.Kustomization does. */
export function checkKustomization(v: unknown): void {
  check(v, KUSTOMIZATION, '', '');
}
