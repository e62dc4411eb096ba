// desired.ts: the deploy stage of one (profile, cluster) as functions of data — resolve the policyRefs against the
// management cluster's ConfigMaps/Secrets, render the templateResourceRefs names, and turn the resolved references
// into the stamped objects to apply (templates, document splitting, the profile's patches, namespace defaulting,
// Sveltos' stamps). Reads come through lookups and the API scope of a kind through a port, so the ClusterSummary
// reconciler (informer caches, discovery) and `ripple render` (files, no server) run the very same code.
// Go: addon-controller controllers/handlers_resources.go deployResources, handlers_utils.go collectContent /
// deployContent, template_instantiation.go; libsveltos lib/deployer adjustNamespace, addStaleResourceScopingAnnotations
import { Annotations, CLUSTER_PROFILE_SECRET_TYPE, type ClusterProfileSpec, type ClusterType, type PolicyRef, type TemplateResourceRef } from '../api/index.js';
import type { FuncOptions } from '../funcs/index.js';
import type { KubeObject } from '../kube/index.js';
import { decodeSecretData, splitPolicyText } from './content.js';
import type { ProfileKind } from './names.js';
import { applyPatches, selectorMatches } from './patches.js';
import { groupOf, type DesiredObject, type Target } from './plan.js';
import { renderReferenceName, type ClusterNames, type PolicyRenderer } from './render.js';
import { stampObject } from './stamp.js';
import type { LuaPolicyRunner } from './lua-policy.js';
import { posix } from 'node:path';

/** FeatureFailure is a failure of the Resources feature: retriable (backoff) or not (wait for an input change). */
export interface FeatureFailure {
  message: string;
  /** The Event reason / status failureReason: InvalidReference, ReferenceNotFound, TemplateError, NotSupported, … */
  reason: string;
  nonRetriable: boolean;
}

/** ResolvedRef is one policyRef with its content read from the management cluster. */
export interface ResolvedRef {
  ref: PolicyRef;
  /** ConfigMap, Secret, or the Flux source kind (GitRepository, OCIRepository, Bucket) of a path in an artifact. */
  kind: 'ConfigMap' | 'Secret' | 'GitRepository' | 'OCIRepository' | 'Bucket';
  namespace: string;
  name: string;
  /** The data keys (Secret values base64-decoded). */
  data: Record<string, string>;
  /** `projectsveltos.io/template` is set: every data value is a template. */
  template: boolean;
  /** `projectsveltos.io/lua` is set: every data value is Lua returning the YAML to deploy (lua-policy.ts). */
  lua: boolean;
  subresources: string[];
  annotations: Record<string, string>;
}

/** ProfileIdentity names the profile a deployment belongs to; `namespace` is a Profile's own namespace. */
export interface ProfileIdentity {
  kind: ProfileKind;
  name: string;
  /** Profiles only: their namespace (that of their clusters and ClusterSummaries). */
  namespace?: string;
}

/** ReferenceRead names a ConfigMap/Secret a resolution looked up (present or not): its change matters. */
export interface ReferenceRead {
  kind: 'ConfigMap' | 'Secret';
  namespace: string;
  name: string;
}

/** PolicySourceLookup returns a management-cluster ConfigMap or Secret, or undefined when it does not exist. */
export type PolicySourceLookup = (kind: 'ConfigMap' | 'Secret', namespace: string, name: string) => KubeObject | undefined;

/**
 * FluxPolicyLookup returns a Flux source (GitRepository, OCIRepository, Bucket) and its artifact's files (relative
 * POSIX paths → text), undefined when the source does not exist, or why its files cannot be had (not ready,
 * unreachable, digest mismatch: `failure`). The controller downloads first and answers from memory; `ripple render`
 * reads local directories.
 */
export type FluxPolicyLookup = (
  kind: 'GitRepository' | 'OCIRepository' | 'Bucket',
  namespace: string,
  name: string,
) => { object: KubeObject; files?: ReadonlyMap<string, string>; failure?: FeatureFailure } | undefined;

/**
 * filesUnder returns the files of an artifact below `path` as Sveltos reads a Flux policyRef path (readFiles: every
 * regular file under the directory, recursively in lexical order, keyed by its base name — a later file of the same
 * name wins), or undefined when the path is not a directory of the artifact. Pure.
 */
export function filesUnder(files: ReadonlyMap<string, string>, path: string): Record<string, string> | undefined {
  const dir = posix.normalize(`/${path}`).replace(/\/+$/, '');
  const prefix = dir === '' || dir === '/' ? '/' : `${dir}/`;
  const hits = [...files.keys()].map((k) => ({ k, abs: posix.normalize(`/${k}`) })).filter((f) => f.abs.startsWith(prefix)).sort((a, b) => (a.abs < b.abs ? -1 : a.abs > b.abs ? 1 : 0));
  if (hits.length === 0) return undefined;
  const out: Record<string, string> = {};
  for (const h of hits) out[posix.basename(h.abs)] = files.get(h.k)!;
  return out;
}

/** PolicyRefsResult is the outcome of resolvePolicyRefs; `reads` lists what was looked up either way. */
export type PolicyRefsResult = ({ ok: true; refs: ResolvedRef[]; warnings: string[] } | { ok: false; failure: FeatureFailure }) & { reads: ReferenceRead[] };

/** parseSubresources reads the comma-separated subresources annotation (and the seed's misspelling). */
export function parseSubresources(anns: Readonly<Record<string, string>>): { subresources: string[]; misspelled: boolean } {
  const correct = anns[Annotations.subresources];
  const misspelled = anns[Annotations.subresourcesMisspelled];
  const value = correct ?? misspelled;
  if (value === undefined) return { subresources: [], misspelled: false };
  const subresources = [
    ...new Set(
      value
        .split(',')
        .map((s) => s.trim())
        .filter((s) => s !== ''),
    ),
  ];
  return { subresources, misspelled: correct === undefined };
}

/**
 * resolvePolicyRefs reads every policyRef of a profile spec for one cluster: names/namespaces rendered with the
 * cluster's data (empty namespace = the cluster's namespace), Secrets checked for Sveltos' type and decoded,
 * `optional` honoured. The first problem fails the whole feature, as in Sveltos.
 */
export function resolvePolicyRefs(spec: ClusterProfileSpec, profile: ProfileIdentity, names: ClusterNames, lookup: PolicySourceLookup, funcOptions: FuncOptions, flux?: FluxPolicyLookup): PolicyRefsResult {
  const reads: ReferenceRead[] = [];
  const warnings: string[] = [];
  const refs: ResolvedRef[] = [];
  const fail = (message: string, nonRetriable = true, reason = 'InvalidReference'): PolicyRefsResult => ({ ok: false, failure: { message, reason, nonRetriable }, reads });
  for (const [i, ref] of (spec.policyRefs ?? []).entries()) {
    const fluxKind = ref.kind === 'GitRepository' || ref.kind === 'OCIRepository' || ref.kind === 'Bucket' ? ref.kind : undefined;
    if ((ref.kind !== 'ConfigMap' && ref.kind !== 'Secret' && !(fluxKind && flux)) || ref.remoteURL) {
      return fail(`policyRefs[${i}]: ${ref.remoteURL ? `remoteURL ${ref.remoteURL.url}` : `kind ${ref.kind}`} is not supported by Ripple yet (ConfigMap, Secret, GitRepository, OCIRepository, Bucket); nothing of this profile was deployed`, true, 'NotSupported');
    }
    const ns = renderReferenceName(`policyRefs[${i}].namespace`, ref.namespace ?? '', names, funcOptions);
    const nm = renderReferenceName(`policyRefs[${i}].name`, ref.name ?? '', names, funcOptions);
    if (!ns.ok) return fail(`policyRefs[${i}].namespace: ${ns.message}`, true, 'TemplateError');
    if (!nm.ok) return fail(`policyRefs[${i}].name: ${nm.message}`, true, 'TemplateError');
    if (profile.kind === 'Profile' && ns.text !== profile.namespace) {
      return fail(`policyRefs[${i}]: a Profile can only reference ${ref.kind}s in its own namespace ${profile.namespace}, not ${ns.text}`);
    }
    if (fluxKind) {
      const src = flux!(fluxKind, ns.text, nm.text);
      if (!src) {
        if (ref.optional) continue;
        return fail(`referenced ${fluxKind} ${ns.text}/${nm.text} does not exist (policyRefs[${i}]); it will be deployed as soon as it is created`, true, 'ReferenceNotFound');
      }
      if (src.failure) return { ok: false, failure: { ...src.failure, message: `policyRefs[${i}] (${fluxKind} ${ns.text}/${nm.text}): ${src.failure.message}` }, reads };
      const path = renderReferenceName(`policyRefs[${i}].path`, ref.path || '.', names, funcOptions);
      if (!path.ok) return fail(`policyRefs[${i}].path: ${path.message}`, true, 'TemplateError');
      const data = filesUnder(src.files ?? new Map(), path.text);
      if (!data) return fail(`policyRefs[${i}] (${fluxKind} ${ns.text}/${nm.text}): path ${path.text} not found in the artifact`, true, 'InvalidReference');
      const annotations = src.object.metadata.annotations ?? {};
      if (annotations[Annotations.lua] !== undefined) {
        return fail(`referenced ${fluxKind} ${ns.text}/${nm.text} is a Lua policy (${Annotations.lua}), which Ripple deploys from ConfigMaps and Secrets only, not yet from Flux sources; nothing of this profile was deployed`, true, 'NotSupported');
      }
      refs.push({ ref, kind: fluxKind, namespace: ns.text, name: nm.text, data, template: annotations[Annotations.template] !== undefined, lua: false, subresources: parseSubresources(annotations).subresources, annotations });
      continue;
    }
    const cmKind = ref.kind as 'ConfigMap' | 'Secret';
    reads.push({ kind: cmKind, namespace: ns.text, name: nm.text });
    const obj = lookup(cmKind, ns.text, nm.text);
    if (!obj) {
      if (ref.optional) continue;
      return fail(`referenced ${ref.kind} ${ns.text}/${nm.text} does not exist (policyRefs[${i}]); it will be deployed as soon as it is created`, true, 'ReferenceNotFound');
    }
    let data: Record<string, string>;
    if (ref.kind === 'Secret') {
      const type = (obj as { type?: string }).type;
      if (type !== CLUSTER_PROFILE_SECRET_TYPE) {
        return fail(`referenced Secret ${ns.text}/${nm.text} has type ${JSON.stringify(type ?? '')}; profiles deploy only Secrets of type ${CLUSTER_PROFILE_SECRET_TYPE}`);
      }
      const d = decodeSecretData((obj as { data?: Record<string, string> }).data);
      if (!d.ok) return fail(`referenced Secret ${ns.text}/${nm.text}: ${d.message}`);
      data = d.data;
    } else {
      data = { ...((obj as { data?: Record<string, string> }).data ?? {}) };
    }
    const annotations = obj.metadata.annotations ?? {};
    const sub = parseSubresources(annotations);
    if (sub.misspelled) {
      warnings.push(`${ref.kind} ${ns.text}/${nm.text} uses the misspelled annotation ${Annotations.subresourcesMisspelled}; it is honoured as ${Annotations.subresources} — please rename it`);
    }
    refs.push({ ref, kind: cmKind, namespace: ns.text, name: nm.text, data, template: annotations[Annotations.template] !== undefined, lua: annotations[Annotations.lua] !== undefined, subresources: sub.subresources, annotations });
  }
  return { ok: true, refs, warnings, reads };
}

/** ResolvedTemplateResourceRef is a templateResourceRef with its namespace (`ns`) and name (`nm`) rendered. */
export type ResolvedTemplateResourceRef = TemplateResourceRef & { resource: { apiVersion: string; kind: string }; ns: string; nm: string };

/** resolveTemplateResourceRefs renders the names of the templateResourceRefs with the cluster's data. */
export function resolveTemplateResourceRefs(
  spec: ClusterProfileSpec,
  names: ClusterNames,
  funcOptions: FuncOptions,
): { ok: true; refs: ResolvedTemplateResourceRef[] } | { ok: false; failure: FeatureFailure } {
  const refs: ResolvedTemplateResourceRef[] = [];
  const fail = (message: string, reason = 'InvalidReference') => ({ ok: false as const, failure: { message, reason, nonRetriable: true } });
  for (const [i, t] of (spec.templateResourceRefs ?? []).entries()) {
    const r = t.resource ?? {};
    if (!r.apiVersion || !r.kind) return fail(`templateResourceRefs[${i}] (${t.identifier}): resource.apiVersion and resource.kind are required`);
    const ns = renderReferenceName(`templateResourceRefs[${i}].namespace`, r.namespace ?? '', names, funcOptions);
    const nm = renderReferenceName(`templateResourceRefs[${i}].name`, r.name ?? '', names, funcOptions);
    if (!ns.ok) return fail(`templateResourceRefs[${i}] (${t.identifier}).namespace: ${ns.message}`, 'TemplateError');
    if (!nm.ok) return fail(`templateResourceRefs[${i}] (${t.identifier}).name: ${nm.message}`, 'TemplateError');
    refs.push({ ...t, resource: { ...r, apiVersion: r.apiVersion, kind: r.kind }, ns: ns.text, nm: nm.text });
  }
  return { ok: true, refs };
}

/** missingTemplateResource is the failure of a non-optional templateResourceRef whose object does not exist. */
export function missingTemplateResource(t: ResolvedTemplateResourceRef): FeatureFailure {
  return {
    message: `templateResourceRefs ${t.identifier}: ${t.resource.kind} ${t.ns}/${t.nm} does not exist in the management cluster; it will be deployed as soon as it is created`,
    reason: 'ReferenceNotFound',
    nonRetriable: true,
  };
}

/** needsTemplateData reports whether rendering reads cluster data (a template reference or patches). */
export function needsTemplateData(refs: readonly ResolvedRef[], spec: ClusterProfileSpec): boolean {
  return refs.some((r) => r.template) || (spec.patches ?? []).length > 0;
}

/** DesiredInput is what renderDesired turns into objects: the resolved inputs of one (profile, cluster). */
export interface DesiredInput {
  spec: ClusterProfileSpec;
  profile: ProfileIdentity;
  cluster: { type: ClusterType; namespace: string; name: string; object: unknown };
  refs: readonly ResolvedRef[];
  /** templateResourceRefs identifier → management-cluster object. */
  mgmtResources: Readonly<Record<string, unknown>>;
  /** Runs Lua policies; without it a Lua policy fails the feature (NotSupported). */
  lua?: LuaPolicyRunner;
  /** The feature deploying (the `projectsveltos.io/reason` stamp): Resources unless said otherwise (Kustomize). */
  reason?: string;
}

/**
 * ScopeResolver answers whether a kind is namespaced in the target cluster, or undefined when the cluster does
 * not serve it (the controller asks discovery; `ripple render` a table and the CRDs it was given).
 */
export type ScopeResolver = (target: Target, apiVersion: string, kind: string) => Promise<boolean | undefined>;

/** CapiObjects are the control plane and infrastructure objects a Cluster API cluster's templates may read. */
export interface CapiObjects {
  kubeadmControlPlane?: unknown;
  infrastructureProvider?: unknown;
}

/** DesiredResult is the stamped objects to apply (plus per-object failures under continueOnError), or the failure. */
export type DesiredResult = { ok: true; desired: DesiredObject[]; failures: string[] } | { ok: false; failure: FeatureFailure };

/**
 * renderDesired turns resolved references into stamped desired objects: template keys rendered in sorted key
 * order with one data object, documents split, the profile's patches applied, namespaces defaulted (namespaced
 * kinds) or cleared (cluster-scoped), Sveltos' stamps and extraLabels/extraAnnotations added. `capi` is called only
 * for templates of Cluster API clusters.
 */
export async function renderDesired(input: DesiredInput, renderer: PolicyRenderer, scope: ScopeResolver, capi?: () => Promise<CapiObjects>): Promise<DesiredResult> {
  const { spec, profile, cluster } = input;
  const templated = needsTemplateData(input.refs, spec);
  const capiObjects = templated && cluster.type === 'Capi' && capi ? await capi() : {};
  const data = templated ? renderer.dataFor({ cluster: cluster.object, mgmtResources: input.mgmtResources, ...capiObjects }) : undefined;
  const raws: { obj: KubeObject; r: ResolvedRef; source: string }[] = [];
  for (const r of input.refs) {
    for (const k of Object.keys(r.data).sort()) {
      const where = `${r.kind} ${r.namespace}/${r.name} key ${k}`;
      let text = r.data[k];
      if (r.template) {
        const out = renderer.render(`${cluster.namespace}-${cluster.name}-${r.name}/${k}`, text, data!);
        if (!out.ok) return { ok: false, failure: { message: `rendering ${where}: ${out.message}`, reason: 'TemplateError', nonRetriable: true } };
        text = out.text;
      }
      if (r.lua) {
        if (!input.lua) return { ok: false, failure: { message: `${where} is a Lua policy (${Annotations.lua}), which is not evaluated here; nothing of this profile was deployed`, reason: 'NotSupported', nonRetriable: true } };
        const out = input.lua(text, input.mgmtResources);
        if (!out.ok) return { ok: false, failure: { message: `${where} (Lua policy): ${out.message}`, reason: 'LuaError', nonRetriable: true } };
        text = out.text;
      }
      const split = splitPolicyText(text);
      if (!split.ok) return { ok: false, failure: { message: `${where}${r.template ? ' (after rendering)' : ''}${r.lua ? ' (Lua output)' : ''}: ${split.message}`, reason: 'InvalidPolicy', nonRetriable: true } };
      for (const obj of split.objects) raws.push({ obj, r, source: `${r.kind} ${r.namespace}/${r.name}` });
    }
  }
  // Go: applyPatches — the profile's patches (templates too) on everything the references hold.
  if ((spec.patches ?? []).length > 0) {
    const rendered: { patch: string; target?: NonNullable<ClusterProfileSpec['patches']>[number]['target'] }[] = [];
    for (const [i, p] of spec.patches!.entries()) {
      const out = renderer.render(`${cluster.namespace}-${cluster.name}-patch-${i}`, p.patch, data!);
      if (!out.ok) return { ok: false, failure: { message: `rendering patches[${i}]: ${out.message}`, reason: 'TemplateError', nonRetriable: true } };
      rendered.push({ patch: out.text, target: p.target });
    }
    const patched = applyPatches(
      raws.map((r) => r.obj),
      rendered,
    );
    if (!patched.ok) return { ok: false, failure: { message: patched.message, reason: 'InvalidPatch', nonRetriable: true } };
    patched.objects.forEach((o, i) => (raws[i].obj = o));
  }
  // Scopes of kinds defined by CRDs in this very deployment (not served yet on first deploy).
  const crdScopes = new Map<string, boolean>();
  for (const { obj } of raws) {
    if (obj.kind === 'CustomResourceDefinition' && groupOf(obj.apiVersion) === 'apiextensions.k8s.io') {
      const s = (obj.spec ?? {}) as { group?: string; scope?: string; names?: { kind?: string } };
      if (s.group && s.names?.kind) crdScopes.set(`${s.group}/${s.names.kind}`, s.scope !== 'Cluster');
    }
  }
  const desired: DesiredObject[] = [];
  const failures: string[] = [];
  const exclusions = spec.driftExclusions ?? [];
  for (const { obj: o, r, source } of raws) {
    const target: Target = (r.ref.deploymentType ?? 'Remote') === 'Local' ? 'Local' : 'Remote';
    let namespaced = await scope(target, o.apiVersion, o.kind);
    if (namespaced === undefined) {
      namespaced = crdScopes.get(`${groupOf(o.apiVersion)}/${o.kind}`);
      if (namespaced === undefined) {
        const message = `${source}: ${o.kind} ${o.metadata.name}: the ${target === 'Local' ? 'management' : 'managed'} cluster does not serve ${o.apiVersion} ${o.kind}`;
        if (!spec.continueOnError) return { ok: false, failure: { message, reason: 'KindNotInstalled', nonRetriable: false } };
        failures.push(message);
        continue;
      }
    }
    const md = { ...o.metadata };
    delete (md as Record<string, unknown>).creationTimestamp;
    delete (md as Record<string, unknown>).resourceVersion;
    delete (md as Record<string, unknown>).uid;
    delete (md as Record<string, unknown>).managedFields;
    // Go: adjustNamespace — namespaced objects default to `default`, cluster-scoped ones lose any namespace.
    if (namespaced) md.namespace = md.namespace || 'default';
    else delete md.namespace;
    const obj: KubeObject = { ...o, metadata: md };
    if (profile.kind === 'Profile' && target === 'Local' && md.namespace !== profile.namespace) {
      return { ok: false, failure: { message: `${source}: ${o.kind} ${md.namespace ?? ''}/${md.name}: a Profile can only deploy resources in its own namespace ${profile.namespace} of the management cluster`, reason: 'InvalidPolicy', nonRetriable: true } };
    }
    const stamped = stampObject(obj, {
      reference: { kind: r.kind, namespace: r.namespace, name: r.name, tier: r.ref.tier ?? 100 },
      profile: { kind: profile.kind, name: profile.name, tier: spec.tier ?? 100 },
      cluster: { type: cluster.type, namespace: cluster.namespace, name: cluster.name },
      deploymentType: target,
      extraLabels: spec.extraLabels,
      extraAnnotations: spec.extraAnnotations,
      reason: input.reason,
    });
    const paths = exclusions.filter((e) => selectorMatches(e.target, stamped.object)).flatMap((e) => e.paths);
    desired.push({
      object: stamped.object,
      hash: stamped.hash,
      target,
      subresources: r.subresources,
      claim: { reference: { kind: r.kind, namespace: r.namespace, name: r.name, tier: r.ref.tier ?? 100 }, profile: { kind: profile.kind, name: profile.name, tier: spec.tier ?? 100 } },
      skipNamespaceCreation: r.ref.skipNamespaceCreation === true,
      forceRecreate: r.ref.force === true || o.metadata.annotations?.[Annotations.forceRecreate] !== undefined,
      driftExclusions: spec.syncMode === 'ContinuousWithDriftDetection' ? paths : [],
      source,
    });
  }
  return { ok: true, desired, failures };
}
