// normalize: turns any accepted shape of a Sveltos object (v1alpha1 flat EventSource, resourceSelectors[].script,
// string selectors, EventBasedAddOn, v1alpha1 EventReport) into the v1beta1 object the controllers work with,
// with the API server's pruning and defaulting applied. Controllers call it on every object they read.
import type { RoleRequest } from './tenancy-types.js';
import type { ClusterSet, SveltosCluster, SveltosSet } from './cluster-types.js';
import type { EventReport, EventSource, EventTrigger } from './event-types.js';
import { isPlainObject, type Issue } from './issues.js';
import { EVENT_SOURCE_FLAT_FIELDS } from './kind-rules.js';
import { kindDescriptor, lookupKind, storageSchema, type KindDescriptor, type KindName } from './kinds.js';
import { parseLabelSelector, type LabelSelector } from './label-selector.js';
import type { ClusterProfile, ClusterReport, ClusterSummary, Profile, ResourceSummary } from './profile-types.js';
import type { ConfigurationBundle, ConfigurationGroup } from './pullmode-types.js';
import { applyDefaults, dropNulls, jsonCopy, pruneUnknownFields } from './schema-ops.js';
import { validateAgainstSchema } from './schema-validate.js';
import { validate } from './validate.js';

/** SveltosObjectByKind maps each normalized kind to its TypeScript type (EventBasedAddOn becomes EventTrigger). */
export interface SveltosObjectByKind {
  EventSource: EventSource;
  EventReport: EventReport;
  EventTrigger: EventTrigger;
  ClusterProfile: ClusterProfile;
  Profile: Profile;
  ClusterSummary: ClusterSummary;
  ClusterReport: ClusterReport;
  SveltosCluster: SveltosCluster;
  ClusterSet: ClusterSet;
  Set: SveltosSet;
  ResourceSummary: ResourceSummary;
  ConfigurationGroup: ConfigurationGroup;
  ConfigurationBundle: ConfigurationBundle;
  RoleRequest: RoleRequest;
}

/** NormalizedKind is a kind normalize can produce. */
export type NormalizedKind = keyof SveltosObjectByKind;

/** SveltosObject is any normalized v1beta1 Sveltos object (discriminated on `kind`). */
export type SveltosObject = SveltosObjectByKind[NormalizedKind];

/** NormalizeResult is a normalized object with notes on what was converted, or the issues that prevent it. */
export type NormalizeResult<T extends SveltosObject = SveltosObject> =
  | {
      ok: true;
      object: T;
      /** apiVersion and kind of the input (e.g. lib.projectsveltos.io/v1alpha1 EventBasedAddOn). */
      from: { apiVersion: string; kind: string };
      /** What was converted, pruned or ignored, in words (for Events and `ripple validate --normalize`). */
      warnings: string[];
    }
  | { ok: false; issues: Issue[]; warnings: string[] };

/**
 * normalize converts any accepted shape of a Sveltos object into its v1beta1 form, keeping metadata, and applies
 * what the API server would (dropping nulls, pruning undeclared fields — with a warning — and schema defaults
 * such as syncMode Continuous, tier 100, stopMatchingBehavior WithdrawPolicies). The input is not modified.
 */
export function normalize(obj: unknown): NormalizeResult {
  const v = validate(obj, { unknownFields: false });
  if (!v.lookup || v.lookup.status !== 'served') {
    const issues = v.issues.length > 0 ? v.issues : [{ path: 'kind', code: 'unknownKind' as const, message: 'not a Sveltos kind: nothing to normalize' }];
    return { ok: false, issues, warnings: v.warnings };
  }
  const input = obj as Record<string, unknown>;
  const lookup = v.lookup;
  if (!v.valid) {
    // With conversion None, apiVersion does not tell the shape: an EventTrigger written through v1alpha1 with
    // string selectors reads back from the v1beta1 endpoint unchanged. Accept it if another served version of the
    // kind validates it, and convert from that shape.
    const group = lookup.descriptor.group;
    const alt = lookup.descriptor.versions.find(
      (x) => x.served && x !== lookup.version && validate({ ...input, apiVersion: `${group}/${x.name}` }, { unknownFields: false }).valid,
    );
    if (!alt) return { ok: false, issues: v.issues, warnings: v.warnings };
    const r = normalize({ ...input, apiVersion: `${group}/${alt.name}` });
    if (r.ok) {
      r.from = { apiVersion: String(input.apiVersion), kind: String(input.kind) };
      r.warnings.unshift(`read as ${input.apiVersion} but stored in the ${alt.name} shape (written through ${group}/${alt.name})`);
    }
    return r;
  }
  const { descriptor, version } = lookup;
  const out = jsonCopy(input);
  // The version's deprecation notice is replaced by the precise conversion messages below.
  const warnings = v.warnings.filter((w) => w !== version.deprecationWarning);

  dropNulls(out, version.schema);
  const pruned = pruneUnknownFields(out, version.schema, true);
  if (pruned.length > 0) warnings.push(`pruned fields the API does not declare: ${pruned.join(', ')}`);

  const target = CONVERTERS[descriptor.kind](out, warnings);
  // The API server clears metadata.namespace of cluster-scoped objects (validate() already warned).
  if (descriptor.scope === 'Cluster' && isPlainObject(out.metadata) && out.metadata.namespace !== undefined) {
    delete out.metadata.namespace;
  }
  const targetDescriptor = kindDescriptor(target);
  out.apiVersion = `${targetDescriptor.group}/v1beta1`;
  out.kind = target;
  const schema = storageSchema(targetDescriptor);
  applyDefaults(out, schema);

  // Safety net: a conversion bug must surface as issues, not as a malformed object handed to a controller. An object
  // already in the storage version's shape of a kind without conversion (EventReports, profiles …) was validated
  // against that very schema above and only pruned and defaulted since: checking it again would double the cost of
  // reading every report.
  const unconverted = CONVERTERS[descriptor.kind] === SAME[descriptor.kind] && version.name === targetDescriptor.storageVersion && target === descriptor.kind;
  const check = unconverted ? [] : validateAgainstSchema(out, schema, '', { skipRootFields: ['metadata'] });
  if (check.length > 0) {
    return { ok: false, issues: check.map((i) => ({ ...i, message: `after conversion to v1beta1: ${i.message}` })), warnings };
  }
  return { ok: true, object: out as unknown as SveltosObject, from: { apiVersion: String(input.apiVersion), kind: String(input.kind) }, warnings };
}

/**
 * normalizeAs normalizes an object that must end up as the given kind (EventBasedAddOn is accepted for
 * EventTrigger) and returns it typed.
 */
export function normalizeAs<K extends NormalizedKind>(kind: K, obj: unknown): NormalizeResult<SveltosObjectByKind[K]> {
  const r = normalize(obj);
  if (r.ok && r.object.kind !== kind) {
    return { ok: false, issues: [{ path: 'kind', code: 'invalidValue', message: `Invalid value: "${r.from.kind}": expected ${kind}` }], warnings: r.warnings };
  }
  return r as NormalizeResult<SveltosObjectByKind[K]>;
}

/**
 * oneShape says whether a kind's storage version is served and every served version has the same schema
 * (EventReport, EventSource, the v1beta1-only kinds): then every version validates an object alike, and writeVersion
 * answers the storage version without walking the object. Computed once per kind.
 */
const oneShapeMemo = new WeakMap<KindDescriptor, boolean>();
function oneShape(d: KindDescriptor): boolean {
  let r = oneShapeMemo.get(d);
  if (r === undefined) {
    const served = d.versions.filter((x) => x.served);
    const first = JSON.stringify(served[0]?.schema);
    r = served.some((x) => x.name === d.storageVersion) && served.every((x) => JSON.stringify(x.schema) === first);
    oneShapeMemo.set(d, r);
  }
  return r;
}

/**
 * writeVersion returns the apiVersion through which a stored object can be written back (status, finalizers,
 * labels). With conversion strategy None a v1alpha1-shaped object (e.g. an EventTrigger whose
 * sourceClusterSelector is the string "env=fv") is stored as-is; the v1beta1 schema would reject an update of it,
 * the v1alpha1 schema accepts it. Prefers the storage version; undefined for foreign kinds.
 */
export function writeVersion(obj: unknown): string | undefined {
  if (!isPlainObject(obj) || typeof obj.apiVersion !== 'string' || typeof obj.kind !== 'string') return undefined;
  const l = lookupKind(obj.apiVersion, obj.kind);
  const d: KindDescriptor | undefined = l.status === 'served' || l.status === 'unknownVersion' ? l.descriptor : undefined;
  if (!d) return undefined;
  // Valid or not, the loop below would answer the storage version: no schema walk of the whole object.
  if (oneShape(d)) return `${d.group}/${d.storageVersion}`;
  const ordered = [...d.versions].filter((x) => x.served).sort((a, b) => Number(b.storage) - Number(a.storage));
  for (const ver of ordered) {
    if (validateAgainstSchema(obj, ver.schema, '', { unknownFields: false, skipRootFields: ['metadata'] }).length === 0) {
      return `${d.group}/${ver.name}`;
    }
  }
  return `${d.group}/${d.storageVersion}`;
}

// ---- per-kind converters: mutate the (validated, pruned) copy and return the target kind ----

type Converter = (o: Record<string, unknown>, warnings: string[]) => NormalizedKind;

const same =
  (kind: NormalizedKind): Converter =>
  (o, warnings) => {
    if (typeof o.apiVersion === 'string' && o.apiVersion.endsWith('/v1alpha1')) {
      warnings.push(`${o.apiVersion} ${kind} has the v1beta1 shape: converted by rewriting apiVersion`);
    }
    return kind;
  };

function convertEventSource(o: Record<string, unknown>, warnings: string[]): NormalizedKind {
  const spec = isPlainObject(o.spec) ? o.spec : (o.spec = {});
  const flat = EVENT_SOURCE_FLAT_FIELDS.filter((f) => spec[f] !== undefined);
  if (flat.length > 0) {
    const selector: Record<string, unknown> = { group: spec.group ?? '', version: spec.version, kind: spec.kind };
    const filters = spec.labelFilters ?? spec.labelsFilters;
    if (filters !== undefined) selector.labelFilters = filters;
    if (spec.namespace !== undefined) selector.namespace = spec.namespace;
    if (spec.script !== undefined) selector.evaluate = spec.script;
    for (const f of flat) delete spec[f];
    spec.resourceSelectors = [selector];
    const renamed = [
      ...(flat.includes('labelsFilters') ? ['labelsFilters→labelFilters'] : []),
      ...(flat.includes('script') ? ['script→evaluate'] : []),
    ];
    warnings.push(
      `v1alpha1 flat EventSource converted: spec.{${flat.join(',')}} → spec.resourceSelectors[0]${renamed.length ? ` (${renamed.join(', ')})` : ''}`,
    );
  }
  if (Array.isArray(spec.resourceSelectors)) {
    spec.resourceSelectors.forEach((sel, i) => {
      if (isPlainObject(sel) && sel.script !== undefined) {
        if (sel.evaluate === undefined) sel.evaluate = sel.script;
        delete sel.script;
        warnings.push(`spec.resourceSelectors[${i}].script converted to evaluate`);
      }
    });
  }
  if (typeof o.apiVersion === 'string' && o.apiVersion.endsWith('/v1alpha1') && flat.length === 0) {
    warnings.push('lib.projectsveltos.io/v1alpha1 EventSource converted to v1beta1');
  }
  return 'EventSource';
}

function toSelector(v: unknown): LabelSelector | unknown {
  if (typeof v !== 'string') return v;
  const r = parseLabelSelector(v);
  // validate() already rejected unparsable strings; keep the value if that invariant is ever broken.
  return r.ok ? r.selector : v;
}

function convertSelectors(spec: Record<string, unknown>, warnings: string[]): void {
  for (const field of ['sourceClusterSelector', 'destinationClusterSelector']) {
    const v = spec[field];
    if (typeof v === 'string') {
      spec[field] = toSelector(v);
      warnings.push(`spec.${field} ${JSON.stringify(v)} converted to ${JSON.stringify(spec[field])}`);
    }
  }
}

function convertEventTrigger(o: Record<string, unknown>, warnings: string[]): NormalizedKind {
  const spec = isPlainObject(o.spec) ? o.spec : (o.spec = {});
  if (typeof o.apiVersion === 'string' && o.apiVersion.endsWith('/v1alpha1')) {
    warnings.push('lib.projectsveltos.io/v1alpha1 EventTrigger converted to v1beta1');
  }
  convertSelectors(spec, warnings);
  return 'EventTrigger';
}

function convertEventBasedAddOn(o: Record<string, unknown>, warnings: string[]): NormalizedKind {
  const spec = isPlainObject(o.spec) ? o.spec : (o.spec = {});
  warnings.push('EventBasedAddOn is deprecated; converted to EventTrigger');
  if (spec.clusterSelector !== undefined) {
    spec.sourceClusterSelector = spec.clusterSelector;
    delete spec.clusterSelector;
    warnings.push('spec.clusterSelector (first EventBasedAddOn shape) renamed spec.sourceClusterSelector');
  }
  convertSelectors(spec, warnings);
  return 'EventTrigger';
}

const SAME: Partial<Record<KindName, Converter>> = {};
const same_ = (k: Parameters<typeof same>[0]): Converter => (SAME[k] = same(k));

const CONVERTERS: Readonly<Record<KindName, Converter>> = {
  EventSource: convertEventSource,
  EventReport: same_('EventReport'),
  EventTrigger: convertEventTrigger,
  EventBasedAddOn: convertEventBasedAddOn,
  ClusterProfile: same_('ClusterProfile'),
  Profile: same_('Profile'),
  ClusterSummary: same_('ClusterSummary'),
  ClusterReport: same_('ClusterReport'),
  SveltosCluster: same_('SveltosCluster'),
  ClusterSet: same_('ClusterSet'),
  Set: same_('Set'),
  ResourceSummary: same_('ResourceSummary'),
  ConfigurationGroup: same_('ConfigurationGroup'),
  ConfigurationBundle: same_('ConfigurationBundle'),
  RoleRequest: same_('RoleRequest'),
};
