// CustomResourceDefinitions: the CRD kind itself (validated by the schema component), turning a CRD into a served
// resource descriptor, and its lifecycle (names accepted + established at once, instances removed before the CRD).
// Go: k8s.io/apiextensions-apiserver pkg/registry/customresourcedefinition, pkg/controller/{establish,finalizer,status},
// pkg/registry/customresource/tableconvertor
import { compileSchema, validateCRD, type FieldError, type JSONSchemaProps } from './schema/index.js';
import type { Cluster } from './cluster.js';
import { ageColumn, asArray, asRecord, column, createdAtColumn, nameColumn, sinceTimestamp } from './printers.js';
import { ALL_VERBS, gvString, withApiVersion, type PrinterColumn, type ResourceDescriptor, type ScaleSpec } from './resource.js';
import { defineBuiltin } from './kinds/define.js';
import { isPlainObject, type KubeObject, type Stored } from './types.js';

/** CRD_STORAGE is the storage key of CustomResourceDefinitions. */
export const CRD_STORAGE = 'apiextensions.k8s.io/customresourcedefinitions';
/** CRD_CLEANUP_FINALIZER holds a CRD until its instances are gone. */
export const CRD_CLEANUP_FINALIZER = 'customresourcecleanup.apiextensions.k8s.io';

interface CrdNames {
  plural: string;
  singular: string;
  kind: string;
  listKind: string;
  shortNames?: string[];
  categories?: string[];
}

function namesOf(crd: KubeObject): CrdNames {
  const n = asRecord(asRecord(crd.spec).names);
  const kind = String(n.kind ?? '');
  const out: CrdNames = {
    plural: String(n.plural ?? ''),
    singular: String(n.singular || kind.toLowerCase()),
    kind,
    listKind: String(n.listKind || `${kind}List`),
  };
  if (asArray(n.shortNames).length > 0) out.shortNames = asArray(n.shortNames).map(String);
  if (asArray(n.categories).length > 0) out.categories = asArray(n.categories).map(String);
  return out;
}

// Go: version.CompareKubeAwareVersionStrings — GA before beta before alpha, higher numbers first, others last.
function versionPriority(v: string): [number, number, number, string] {
  const m = /^v(\d+)(?:(alpha|beta)(\d+))?$/.exec(v);
  if (!m) return [0, 0, 0, v];
  const stage = m[2] === undefined ? 3 : m[2] === 'beta' ? 2 : 1;
  return [stage, Number(m[1]), Number(m[3] ?? 0), v];
}

/** sortVersions orders versions by kube's priority (the preferred version first). */
export function sortVersions(versions: string[]): string[] {
  return [...versions].sort((a, b) => {
    const pa = versionPriority(a);
    const pb = versionPriority(b);
    for (let i = 0; i < 3; i++) if (pa[i] !== pb[i]) return (pb[i] as number) - (pa[i] as number);
    return pa[3] < pb[3] ? -1 : pa[3] > pb[3] ? 1 : 0;
  });
}

// ---------------------------------------------------------------------------- JSONPath for printer columns

type PathStep = { field: string } | { index: number } | { all: true } | { filter: string[]; op: '==' | '!='; value: string };

function parseJsonPath(path: string): PathStep[] {
  const steps: PathStep[] = [];
  let p = path.trim();
  if (p.startsWith('{') && p.endsWith('}')) p = p.slice(1, -1);
  let i = 0;
  while (i < p.length) {
    if (p[i] === '.') {
      i++;
      let name = '';
      while (i < p.length && p[i] !== '.' && p[i] !== '[') name += p[i++];
      if (name) steps.push({ field: name });
    } else if (p[i] === '[') {
      const end = p.indexOf(']', i);
      if (end < 0) throw new Error(`unterminated [ in ${path}`);
      const inner = p.slice(i + 1, end).trim();
      i = end + 1;
      if (inner === '*') steps.push({ all: true });
      else if (/^-?\d+$/.test(inner)) steps.push({ index: Number(inner) });
      else if (/^'.*'$|^".*"$/.test(inner)) steps.push({ field: inner.slice(1, -1) });
      else {
        const f = /^\?\(@((?:\.[\w-]+)+)\s*(==|!=)\s*(['"]?)(.*?)\3\)$/.exec(inner);
        if (!f) throw new Error(`unsupported JSONPath ${path}`);
        steps.push({ filter: f[1].slice(1).split('.'), op: f[2] as '==' | '!=', value: f[4] });
      }
    } else {
      let name = '';
      while (i < p.length && p[i] !== '.' && p[i] !== '[') name += p[i++];
      if (name) steps.push({ field: name });
    }
  }
  return steps;
}

/** evalJsonPath evaluates the JSONPath subset printer columns and selectable fields use. */
export function evalJsonPath(obj: unknown, path: string): unknown[] {
  let cur: unknown[] = [obj];
  for (const step of parseJsonPath(path)) {
    const next: unknown[] = [];
    for (const v of cur) {
      if ('field' in step) {
        if (isPlainObject(v) && step.field in v) next.push(v[step.field]);
      } else if ('index' in step) {
        if (Array.isArray(v)) {
          const idx = step.index < 0 ? v.length + step.index : step.index;
          if (idx >= 0 && idx < v.length) next.push(v[idx]);
        }
      } else if ('all' in step) {
        if (Array.isArray(v)) next.push(...v);
        else if (isPlainObject(v)) next.push(...Object.values(v));
      } else if (Array.isArray(v)) {
        for (const e of v) {
          let x: unknown = e;
          for (const f of step.filter) x = isPlainObject(x) ? x[f] : undefined;
          const eq = x !== undefined && String(x) === step.value;
          if (step.op === '==' ? eq : x !== undefined && !eq) next.push(e);
        }
      }
    }
    cur = next;
  }
  return cur;
}

function printerColumns(version: Record<string, unknown>): PrinterColumn[] {
  const cols = asArray(version.additionalPrinterColumns).map(asRecord);
  if (cols.length === 0) return [nameColumn, ageColumn];
  return [
    nameColumn,
    ...cols.map((c) => {
      const type = (['integer', 'number', 'boolean', 'date'].includes(String(c.type)) ? c.type : 'string') as PrinterColumn['type'];
      const jsonPath = String(c.jsonPath ?? '');
      // Go: tableconvertor — no result prints as <none>; a string column renders the value with %v.
      return column(String(c.name ?? ''), type, (o, now) => {
        let results: unknown[];
        try {
          results = evalJsonPath(o, jsonPath);
        } catch {
          return null;
        }
        if (results.length === 0) return null;
        if (results.length > 1) return results.map((r) => (typeof r === 'object' ? JSON.stringify(r) : String(r))).join(',');
        const v = results[0];
        // Go: ConvertToHumanReadableDateType — date columns print as an age.
        if (type === 'date') return typeof v === 'string' ? sinceTimestamp(v, now) : v;
        if (type === 'string') return typeof v === 'object' && v !== null ? JSON.stringify(v) : String(v);
        return v;
      }, { priority: Number(c.priority ?? 0), description: String(c.description ?? ''), format: String(c.format ?? '') });
    }),
  ];
}

/** crdDescriptor turns an established CRD into the descriptor its custom resources are served with. */
export function crdDescriptor(crd: KubeObject): ResourceDescriptor {
  const spec = asRecord(crd.spec);
  const group = String(spec.group ?? '');
  const names = namesOf(crd);
  const versions = asArray(spec.versions).map(asRecord);
  const served = sortVersions(versions.filter((v) => v.served !== false).map((v) => String(v.name)));
  const storage = String(versions.find((v) => v.storage === true)?.name ?? served[0]);
  const byName = new Map(versions.map((v) => [String(v.name), v]));
  const preferred = byName.get(served[0]) ?? {};
  const sub = asRecord(preferred.subresources);
  const scaleRaw = isPlainObject(sub.scale) ? sub.scale : undefined;
  const scale: ScaleSpec | undefined = scaleRaw
    ? { specReplicasPath: String(scaleRaw.specReplicasPath), statusReplicasPath: String(scaleRaw.statusReplicasPath), labelSelectorPath: scaleRaw.labelSelectorPath ? String(scaleRaw.labelSelectorPath) : undefined }
    : undefined;
  const schemaOf = (version: string): JSONSchemaProps | undefined => {
    const s = asRecord(byName.get(version)?.schema).openAPIV3Schema;
    return isPlainObject(s) ? (s as JSONSchemaProps) : undefined;
  };
  const selectable = asArray(preferred.selectableFields).map((f) => String(asRecord(f).jsonPath ?? '').replace(/^\./, ''));
  const kind = names.kind;
  return {
    group,
    versions: served,
    storageVersion: storage,
    kind,
    listKind: names.listKind,
    plural: names.plural,
    singular: names.singular,
    shortNames: names.shortNames ?? [],
    categories: names.categories ?? [],
    namespaced: spec.scope === 'Namespaced',
    verbs: ALL_VERBS,
    subresources: { status: isPlainObject(sub.status), scale },
    nameRule: 'dns1123Subdomain',
    storage: `${group}/${names.plural}`,
    builtin: false,
    tracksGeneration: true,
    allowCreateOnUpdate: false,
    allowUnconditionalUpdate: false,
    returnDeletedObject: false,
    schema: schemaOf,
    columns: (version) => printerColumns(byName.get(version) ?? preferred),
    fromStorage: (obj, version) => withApiVersion(obj, gvString(group, version), kind),
    toStorage: (obj) => withApiVersion(obj, gvString(group, storage), kind),
    plainConversion: true,
    fieldNames: selectable,
    crd: String(crd.metadata?.name ?? ''),
    hooks: {
      decode(obj) {
        // Go: the CR decoder — defaults of the request version, then structural pruning of unknown fields.
        const version = String(obj.apiVersion ?? '').split('/').pop() ?? storage;
        const schema = schemaOf(version);
        if (!schema) return obj;
        const compiled = compileSchema(schema);
        return compiled.defaultAndPrune(obj).object as KubeObject;
      },
      fields(obj) {
        const out: Record<string, string> = {};
        for (const f of selectable) {
          const v = evalJsonPath(obj, `.${f}`)[0];
          out[f] = v === undefined || v === null ? '' : String(v);
        }
        return out;
      },
    },
  };
}

// ---------------------------------------------------------------------------- the CRD kind

function condition(type: string, status: 'True' | 'False', reason: string, message: string, now: string, old: KubeObject | undefined): Record<string, unknown> {
  const prev = asArray(asRecord(old?.status).conditions).map(asRecord).find((c) => c.type === type);
  return { type, status, lastTransitionTime: prev && prev.status === status ? prev.lastTransitionTime : now, reason, message };
}

// Go: pkg/controller/status NamingConditionController — names must not clash with another CRD of the group.
function namesConflict(crd: KubeObject, cluster: Cluster): { reason: string; message: string } | undefined {
  const names = namesOf(crd);
  const group = asRecord(crd.spec).group;
  for (const s of cluster.table(CRD_STORAGE).objects.values()) {
    const other = s.obj;
    if (other.metadata.name === crd.metadata?.name || asRecord(other.spec).group !== group) continue;
    const on = asRecord(asRecord(other.status).acceptedNames);
    if (on.kind === names.kind) return { reason: 'KindConflict', message: `${JSON.stringify(names.kind)} is already in use` };
    if (on.listKind === names.listKind) return { reason: 'ListKindConflict', message: `${JSON.stringify(names.listKind)} is already in use` };
    if (on.singular === names.singular) return { reason: 'SingularConflict', message: `${JSON.stringify(names.singular)} is already in use` };
    const shorts = asArray(on.shortNames).map(String);
    const clash = (names.shortNames ?? []).find((n) => shorts.includes(n));
    if (clash) return { reason: 'ShortNamesConflict', message: `${JSON.stringify(clash)} is already in use` };
  }
  return undefined;
}

// The status the establishing controllers would converge to, computed at write time so the resource is served as
// soon as the CRD write is answered.
function crdStatus(crd: KubeObject, old: KubeObject | undefined, cluster: Cluster, now: string): Record<string, unknown> {
  const status: Record<string, unknown> = { ...asRecord(old?.status) };
  const spec = asRecord(crd.spec);
  const storage = asArray(spec.versions).map(asRecord).find((v) => v.storage === true)?.name;
  const stored = asArray(status.storedVersions).map(String);
  if (storage && !stored.includes(String(storage))) stored.push(String(storage));
  status.storedVersions = stored;
  const clash = namesConflict(crd, cluster);
  const conditions = asArray(status.conditions).map(asRecord).filter((c) => c.type !== 'NamesAccepted' && c.type !== 'Established');
  if (clash) {
    conditions.unshift(condition('NamesAccepted', 'False', clash.reason, clash.message, now, old));
    const wasEstablished = asArray(asRecord(old?.status).conditions).map(asRecord).find((c) => c.type === 'Established' && c.status === 'True');
    if (wasEstablished) conditions.push(wasEstablished);
    status.acceptedNames = status.acceptedNames ?? {};
  } else {
    conditions.unshift(condition('NamesAccepted', 'True', 'NoConflicts', 'no conflicts found', now, old));
    conditions.push(condition('Established', 'True', 'InitialNamesAccepted', 'the initial names have been accepted', now, old));
    status.acceptedNames = namesOf(crd);
  }
  status.conditions = conditions;
  return status;
}

/** isEstablished tells whether a CRD's Established condition is True. */
export function isEstablished(crd: KubeObject): boolean {
  return asArray(asRecord(crd.status).conditions).some((c) => asRecord(c).type === 'Established' && asRecord(c).status === 'True');
}

/** crdKindDescriptor is apiextensions.k8s.io/v1 CustomResourceDefinition. */
export const crdKindDescriptor = defineBuiltin({
  group: 'apiextensions.k8s.io',
  version: 'v1',
  kind: 'CustomResourceDefinition',
  plural: 'customresourcedefinitions',
  namespaced: false,
  shortNames: ['crd', 'crds'],
  categories: ['api-extensions'],
  status: true,
  tracksGeneration: true,
  columns: [nameColumn, createdAtColumn],
  hooks: {
    default(obj) {
      // Go: SetDefaults_CustomResourceDefinitionSpec
      if (!isPlainObject(obj.spec)) return;
      const spec = { ...obj.spec };
      const names = { ...asRecord(spec.names) };
      if (names.kind && !names.singular) names.singular = String(names.kind).toLowerCase();
      if (names.kind && !names.listKind) names.listKind = `${String(names.kind)}List`;
      spec.names = names;
      if (!isPlainObject(spec.conversion)) spec.conversion = { strategy: 'None' };
      obj.spec = spec;
    },
    prepareForCreate(obj, ctx) {
      obj.status = crdStatus(obj, undefined, ctx.cluster, ctx.now);
    },
    prepareForUpdate(obj, old, ctx) {
      obj.status = crdStatus(obj, old, ctx.cluster, ctx.now);
    },
    validate: (obj): FieldError[] => validateCRD(obj),
    validateUpdate: (obj, old): FieldError[] => validateCRD(obj, old),
    beginDelete(obj, ctx) {
      // Go: customresourcedefinition REST.Delete — the cleanup finalizer and the Terminating condition.
      const fin = obj.metadata!.finalizers ?? [];
      if (!fin.includes(CRD_CLEANUP_FINALIZER)) obj.metadata!.finalizers = [...fin, CRD_CLEANUP_FINALIZER];
      const status = asRecord(obj.status);
      const conditions = asArray(status.conditions).map(asRecord).filter((c) => c.type !== 'Terminating');
      conditions.push(condition('Terminating', 'True', 'InstanceDeletionPending', 'CustomResourceDefinition marked for deletion; CustomResource deletion will begin soon', ctx.now, undefined));
      obj.status = { ...status, conditions };
    },
  },
});

/** watchCrds keeps a cluster's registry in step with its CRDs: a CRD write (re)registers its resource at once. */
export function watchCrds(cluster: Cluster, onRemoved: (desc: ResourceDescriptor) => void): void {
  const sync = (cur: Stored | undefined, prev: Stored | undefined) => {
    const obj = cur?.obj;
    if (obj && isEstablished(obj)) {
      cluster.registry.add(crdDescriptor(obj));
      return;
    }
    const gone = obj ?? prev?.obj;
    if (!gone) return;
    const spec = asRecord(gone.spec);
    const plural = String(asRecord(spec.names).plural ?? '');
    const desc = cluster.registry.forGroupResource(String(spec.group ?? ''), plural);
    if (desc && desc.crd === gone.metadata?.name && (!obj || !isEstablished(obj))) {
      cluster.registry.remove(desc.group, desc.plural);
      onRemoved(desc);
    }
  };
  for (const s of cluster.table(CRD_STORAGE).objects.values()) sync(s, undefined);
  cluster.onWrite((storage, cur, prev) => {
    if (storage === CRD_STORAGE) sync(cur, prev);
  });
}

/** cleanupTarget finds the descriptor of the custom resources a CRD defines. */
export function cleanupTarget(cluster: Cluster, crd: KubeObject): ResourceDescriptor | undefined {
  const spec = asRecord(crd.spec);
  return cluster.registry.forGroupResource(String(spec.group ?? ''), String(asRecord(spec.names).plural ?? ''));
}
