// kustomize-feature.ts: the Kustomize feature of a ClusterSummary — each `kustomizationRefs` item built with
// src/kustomize (Kustomize v5, as `kubectl kustomize` prints it) and deployed like the Resources feature: the same
// rendering tail (patches, namespace defaulting, Sveltos' stamps with `projectsveltos.io/reason: Kustomize`), the
// same plan (ownership and tier conflicts), executor, drift detection, DryRun report and withdrawal.
//
// Sources, as Sveltos reads them: a ConfigMap (`binaryData["kustomize.tar.gz"]`) or Secret (`data[...]`) holding a
// gzipped tarball of the kustomization tree, or a Flux GitRepository / OCIRepository / Bucket whose
// `status.artifact` is downloaded and verified (flux-source.ts). `path` and `components` are templates over the
// cluster's data; components are appended to the kustomization's own. `values` (always templates) and `valuesFrom`
// ConfigMaps/Secrets (templates when annotated `projectsveltos.io/template`) make a string map with which every
// built object is rendered as a Go template (missingkey=error) when the map is not empty. `targetNamespace` then
// overrides every object's namespace.
//
// A failure at any step before the apply (missing or unready source, unreachable artifact, digest mismatch, broken
// kustomization, template error) is a status failure + Event and leaves what was deployed before untouched.
// The sources are watched (ConfigMaps, Secrets and the Flux kinds through on-demand informers): a new artifact
// revision re-queues exactly the ClusterSummaries that read the source.
// Go: addon-controller controllers/handlers_kustomize.go, flux_source.go, handlers_utils.go
import { parseAllDocuments, parseDocument, stringify } from 'yaml';
import { posix } from 'node:path';
import { Annotations, Labels, type ClusterProfileSpec, type ClusterSummary, type ClusterSummaryStatus, type ClusterType, type KustomizationRef, type PolicyRef } from '../api/index.js';
import type { ClusterEntry } from '../clusters/index.js';
import { errorMessage, isKindNotInstalled, isNotFound, type KubeClient, type KubeObject } from '../kube/index.js';
import { buildKustomization, KustomizeError, mapFileTree, readTarball } from '../kustomize/index.js';
import { record, rfc3339, type AddonContext } from './context.js';
import { decodeSecretData } from './content.js';
import { renderDesired, type FeatureFailure, type ProfileIdentity, type ResolvedRef } from './desired.js';
import { DriftWatcher, LOCAL, type TrackedObject } from './drift.js';
import { execute, refOf, type ExecuteOutcome, type ObjectResult } from './execute.js';
import { FluxPolicySources } from './flux-policies.js';
import { ArtifactError, ArtifactFetcher, artifactOf, FLUX_SOURCE_VERSIONS, isFluxKind } from './flux-source.js';
import { clusterReportName, clusterSummaryAnnotationValue, clusterSummaryName, gvkString, parseGvkString, profileLabelKey, AddonLabels, type ProfileKind } from './names.js';
import { comparable, identityKey, identityOf, plan, planWithdrawal, type Target } from './plan.js';
import { KindWatcher, ReferenceIndex, refKey, type RefEntry } from './refs.js';
import { renderReferenceName, renderWithValues, type ClusterNames, type PolicyRenderer } from './render.js';
import type { FuncOptions } from '../funcs/index.js';
import type { GoStruct } from '../gotemplate/index.js';
import { goJSON, sha256Hex, STAMP_ANNOTATIONS } from './stamp.js';

/** KUSTOMIZE_FEATURE is the featureID (and `projectsveltos.io/reason` stamp) of the Kustomize feature. */
export const KUSTOMIZE_FEATURE = 'Kustomize' as const;
/** TARBALL_KEY is the ConfigMap binaryData / Secret data key holding a kustomization tarball (Sveltos'). */
export const TARBALL_KEY = 'kustomize.tar.gz';

type Feature = NonNullable<ClusterSummaryStatus['featureSummaries']>[number];
type Json = Record<string, unknown>;

/** KustomizePass is what one pass of the feature needs to know about its ClusterSummary. */
export interface KustomizePass {
  key: string;
  raw: KubeObject;
  cs: ClusterSummary;
  spec: ClusterProfileSpec;
  profile: ProfileIdentity;
  type: ClusterType;
  entry: ClusterEntry;
  status: ClusterSummaryStatus;
  signal?: AbortSignal;
  /** Take the full path even when nothing changed (ownership moved, a competitor withdrew). */
  forced?: boolean;
  /** Writes status.deployedGVKs (Kustomize entry) before objects of new kinds are created: withdrawal lists them. */
  recordKinds(gvks: string[]): Promise<void>;
}

/** KustomizeOutcome is a pass' verdict: the feature entry (absent: nothing to report), the kinds deployed. */
export interface KustomizeOutcome {
  feature?: Feature;
  gvks?: string[];
  requeue: boolean;
}

/** ResolvedSource is one kustomizationRef with its source object read (not yet its files). */
type ResolvedSource = KustomizeSource & { object: KubeObject };

const hexToBase64 = (hex: string) => Buffer.from(hex, 'hex').toString('base64');

class FeatureFailed extends Error {
  constructor(readonly failure: FeatureFailure & { transient?: boolean }) {
    super(failure.message);
  }
}

/**
 * withComponents returns the file tree with `components` appended to the kustomization in dir (Sveltos rewrites
 * kustomization.yaml the same way). Pure.
 */
export function withComponents(files: ReadonlyMap<string, string | Uint8Array>, dir: string, components: readonly string[]): Map<string, string | Uint8Array> {
  const out = new Map(files);
  if (components.length === 0) return out;
  const root = posix.resolve('/', dir);
  const file = ['kustomization.yaml', 'kustomization.yml', 'Kustomization'].map((f) => posix.join(root, f)).find((f) => out.has(f) || out.has(f.slice(1)));
  if (!file) throw new KustomizeError('NotFound', `failed to read kustomization.yaml: no kustomization file in ${dir}`);
  const key = out.has(file) ? file : file.slice(1);
  const content = out.get(key)!;
  const doc = parseDocument(typeof content === 'string' ? content : Buffer.from(content).toString('utf8'));
  const k = (doc.toJS() ?? {}) as Json;
  k.components = [...(Array.isArray(k.components) ? k.components : []), ...components];
  out.set(key, stringify(k));
  return out;
}

/**
 * kustomizeObjects builds the kustomization at `path` of a file tree (relative POSIX paths), substitutes `values`
 * (every object rendered as a Go template with the values as data, when there are any) and applies
 * `targetNamespace`. Pure but for the renderer it is handed. Throws KustomizeError / FeatureFailed.
 */
export function kustomizeObjects(
  files: ReadonlyMap<string, string | Uint8Array>,
  o: { path: string; components?: readonly string[]; values?: Readonly<Record<string, string>>; targetNamespace?: string; templateName: string; renderer: PolicyRenderer },
): KubeObject[] {
  const dir = posix.resolve('/', o.path || '.');
  const tree = mapFileTree(withComponents(files, dir, o.components ?? []));
  if (!tree.isDir(dir)) throw new KustomizeError('NotFound', `kustomization path not found: ${o.path || '.'}`);
  const built = buildKustomization(tree, dir);
  const values = o.values ?? {};
  const out: KubeObject[] = [];
  for (const r of built.resources) {
    let obj = r as unknown as KubeObject;
    if (Object.keys(values).length > 0) {
      const text = stringify(r);
      const rendered = renderWithValues(o.renderer, o.templateName, text, values);
      if (!rendered.ok) throw new FeatureFailed({ message: `substituting values: ${rendered.message}`, reason: 'TemplateError', nonRetriable: true });
      const docs = parseAllDocuments(rendered.text);
      const first = docs[0];
      if (!first || first.errors.length > 0) throw new FeatureFailed({ message: `substituting values: the rendered object is not valid YAML: ${first?.errors[0]?.message ?? 'empty'}`, reason: 'TemplateError', nonRetriable: true });
      obj = first.toJS() as KubeObject;
    }
    if (o.targetNamespace) obj = { ...obj, metadata: { ...obj.metadata, namespace: o.targetNamespace } };
    out.push(obj);
  }
  return out;
}

/** KustomizeSource is a kustomizationRef with its source named and its substitution values read. */
export interface KustomizeSource {
  index: number;
  ref: KustomizationRef;
  kind: string;
  namespace: string;
  name: string;
  values: { templated: Record<string, string>; plain: Record<string, string> };
}

/**
 * buildKustomizationRef builds one kustomizationRef from its source's files: `path`, `components` and the
 * templated values rendered with the cluster's data, then kustomizeObjects. Throws FeatureFailed (status failure).
 * The controller and `ripple render` share it.
 */
export function buildKustomizationRef(
  s: KustomizeSource,
  files: ReadonlyMap<string, string | Uint8Array>,
  o: { renderer: PolicyRenderer; data: GoStruct; clusterNamespace: string; clusterName: string; summaryName: string },
): KubeObject[] {
  const where = `kustomizationRefs[${s.index}] (${s.kind} ${s.namespace}/${s.name})`;
  const render = (what: string, text: string): string => {
    if (!text.includes('{{')) return text;
    const r = o.renderer.render(`${o.clusterNamespace}-${o.clusterName}-${what}`, text, o.data);
    if (!r.ok) throw new FeatureFailed({ message: `rendering ${what}: ${r.message}`, reason: 'TemplateError', nonRetriable: true });
    return r.text;
  };
  const values: Record<string, string> = {};
  for (const [k, v] of Object.entries(s.values.templated)) values[k] = render(`kustomizationRefs[${s.index}].values.${k}`, v);
  Object.assign(values, s.values.plain);
  try {
    return kustomizeObjects(files, {
      path: render(`kustomizationRefs[${s.index}].path`, s.ref.path ?? ''),
      components: (s.ref.components ?? []).map((c, j) => render(`kustomizationRefs[${s.index}].components[${j}]`, c)),
      values,
      targetNamespace: s.ref.targetNamespace,
      templateName: `${o.summaryName}-substitutevalues`,
      renderer: o.renderer,
    });
  } catch (err) {
    if (err instanceof KustomizeError) throw new FeatureFailed({ message: `${where}: kustomize build: ${err.message}`, reason: 'KustomizeBuildFailed', nonRetriable: true });
    if (err instanceof FeatureFailed) throw new FeatureFailed({ ...err.failure, message: `${where}: ${err.failure.message}` });
    throw err;
  }
}

/** kustomizeResolvedRef presents built objects as a resolved reference, for renderDesired's rendering tail. */
export function kustomizeResolvedRef(s: Pick<KustomizeSource, 'ref' | 'kind' | 'namespace' | 'name'>, objects: readonly KubeObject[]): ResolvedRef {
  return {
    ref: s.ref as PolicyRef,
    kind: s.kind as ResolvedRef['kind'],
    namespace: s.namespace,
    name: s.name,
    // goJSON: a build's integers may be bigints (yaml.v3 reads them as int64).
    data: { kustomize: objects.map((o) => goJSON(o)).join('\n---\n') },
    template: false,
    lua: false,
    subresources: [],
    annotations: {},
  };
}

/** featureFailureOf returns the status failure a build threw (FeatureFailed), or undefined for other errors. */
export function featureFailureOf(err: unknown): FeatureFailure | undefined {
  if (err instanceof FeatureFailed) return err.failure;
  if (err instanceof KustomizeError) return { message: `kustomize build: ${err.message}`, reason: 'KustomizeBuildFailed', nonRetriable: true };
  return undefined;
}

/**
 * readKustomizeValues returns a kustomizationRef's substitution values: `values` (templates) and each valuesFrom
 * ConfigMap/Secret's data (templates when annotated projectsveltos.io/template). Throws FeatureFailed.
 */
export function readKustomizeValues(
  ref: KustomizationRef,
  where: string,
  names: ClusterNames,
  lookup: (kind: 'ConfigMap' | 'Secret', namespace: string, name: string) => KubeObject | undefined,
  funcOptions: FuncOptions,
  onRead?: (kind: 'ConfigMap' | 'Secret', namespace: string, name: string) => void,
): KustomizeSource['values'] {
  const templated: Record<string, string> = { ...(ref.values ?? {}) };
  const plain: Record<string, string> = {};
  for (const [j, v] of (ref.valuesFrom ?? []).entries()) {
    const ns = renderReferenceName(`${where}.valuesFrom[${j}].namespace`, v.namespace ?? '', names, funcOptions);
    const nm = renderReferenceName(`${where}.valuesFrom[${j}].name`, v.name, names, funcOptions);
    if (!ns.ok || !nm.ok) throw new FeatureFailed({ message: `${where}.valuesFrom[${j}]: ${!ns.ok ? ns.message : !nm.ok ? nm.message : ''}`, reason: 'TemplateError', nonRetriable: true });
    onRead?.(v.kind, ns.text, nm.text);
    const o = lookup(v.kind, ns.text, nm.text);
    if (!o) {
      if (v.optional) continue;
      throw new FeatureFailed({ message: `${where}.valuesFrom[${j}]: ${v.kind} ${ns.text}/${nm.text} does not exist; it will be used as soon as it is created`, reason: 'ReferenceNotFound', nonRetriable: true });
    }
    let data: Record<string, string>;
    if (v.kind === 'Secret') {
      const d = decodeSecretData((o as { data?: Record<string, string> }).data);
      if (!d.ok) throw new FeatureFailed({ message: `${where}.valuesFrom[${j}]: Secret ${ns.text}/${nm.text}: ${d.message}`, reason: 'InvalidReference', nonRetriable: true });
      data = d.data;
    } else {
      data = { ...((o as { data?: Record<string, string> }).data ?? {}) };
    }
    Object.assign(o.metadata.annotations?.[Annotations.template] !== undefined ? templated : plain, data);
  }
  return { templated, plain };
}

/** tarballOf reads the kustomization tarball a ConfigMap (binaryData) or Secret (data) holds. Throws FeatureFailed. */
export function tarballOf(kind: string, o: KubeObject, where: string): Map<string, Uint8Array> {
  const x = o as { data?: Record<string, string>; binaryData?: Record<string, string> };
  const b64 = kind === 'ConfigMap' ? x.binaryData?.[TARBALL_KEY] : x.data?.[TARBALL_KEY];
  if (b64 === undefined) throw new FeatureFailed({ message: `${where}: ${TARBALL_KEY} missing (expected in ${kind === 'ConfigMap' ? 'binaryData' : 'data'}: a gzipped tarball of the kustomization)`, reason: 'InvalidReference', nonRetriable: true });
  try {
    return readTarball(Buffer.from(b64, 'base64'));
  } catch (err) {
    if (err instanceof KustomizeError) throw new FeatureFailed({ message: `${where}: ${TARBALL_KEY}: ${err.message}`, reason: 'InvalidReference', nonRetriable: true });
    throw err;
  }
}

/** KustomizeFeature deploys and withdraws the kustomizationRefs of ClusterSummaries. */
export class KustomizeFeature {
  private readonly index = new ReferenceIndex();
  private readonly kinds: KindWatcher;
  readonly drift: DriftWatcher;
  /** The artifact downloader (shared with the Flux policyRefs of the Resources feature). */
  readonly fetcher = new ArtifactFetcher();
  private readonly driftPending = new Set<string>();
  /** Per cluster key: ClusterSummaries whose Kustomize feature reports a conflict (woken when objects go away). */
  private readonly conflicted = new Map<string, Set<string>>();
  /** ClusterSummaries that must take the full path once (a competitor withdrew). */
  private readonly forced = new Set<string>();
  /** The Flux-sourced policyRefs of the Resources feature (watched and downloaded like kustomization sources). */
  readonly fluxPolicies: FluxPolicySources;

  constructor(
    private readonly c: AddonContext,
    private readonly renderer: PolicyRenderer,
    private readonly enqueue: (key: string) => void,
    /** Called with the ClusterSummary key of a profile that lost an object to this one (lower tier): it must re-evaluate. */
    private readonly ownershipMoved: (key: string) => void = enqueue,
    /** Called when a pass removed objects from a cluster: ClusterSummaries that lost a conflict there try again. */
    private readonly removedObjects: (cluster: string, key: string) => void = () => undefined,
  ) {
    this.kinds = new KindWatcher(c.mgmtInformers, this.index, enqueue);
    this.fluxPolicies = new FluxPolicySources(c.mgmtInformers, enqueue, this.fetcher);
    this.drift = new DriftWatcher(
      c.registry,
      c.mgmtInformers,
      (summary) => {
        this.driftPending.add(summary);
        enqueue(summary);
      },
      c.log,
    );
  }

  /** recordedGvks is what the status says the Kustomize feature deployed. */
  static recordedGvks(cs: ClusterSummary): string[] {
    const a = cs.status?.deployedGVKs?.find((g) => g.featureID === KUSTOMIZE_FEATURE)?.deployedGroupVersionKind ?? [];
    const b = cs.status?.featureSummaries?.find((f) => f.featureID === KUSTOMIZE_FEATURE)?.deployedGroupVersionKind ?? [];
    return [...new Set([...a, ...b])];
  }

  /** wanted tells whether a ClusterSummary has Kustomize work (refs, or objects deployed by refs since removed). */
  static wanted(cs: ClusterSummary): boolean {
    return (cs.spec.clusterProfileSpec?.kustomizationRefs ?? []).length > 0 || KustomizeFeature.recordedGvks(cs).length > 0;
  }

  /** reconcile runs one pass; see the file comment. Never throws for bad input: the failure is in the feature. */
  async reconcile(p: KustomizePass): Promise<KustomizeOutcome> {
    const prev = p.status.featureSummaries?.find((f) => f.featureID === KUSTOMIZE_FEATURE);
    if (p.spec.syncMode === 'OneTime' && prev?.status === 'Provisioned') return { feature: prev, requeue: false };
    let hash: string | undefined;
    try {
      const sources = await this.resolve(p);
      hash = this.inputsHash(p, sources);
      const drifting = p.spec.syncMode === 'ContinuousWithDriftDetection';
      const refs = p.spec.kustomizationRefs ?? [];
      if (refs.length > 0 && prev?.hash === hexToBase64(hash) && prev.status === 'Provisioned' && !this.driftPending.has(p.key) && !p.forced && !this.forced.has(p.key) && (!drifting || this.drift.trackedHash(p.key) === hash)) {
        return { feature: prev, requeue: false };
      }
      this.driftPending.delete(p.key);
      this.forced.delete(p.key);
      const objects = await this.build(p, sources);
      return await this.deploy(p, objects, hash, prev);
    } catch (err) {
      const failure = this.failureOf(err, p);
      record(this.c, p.raw, 'Warning', failure.reason, failure.message);
      this.c.metrics?.outcomes.inc({ feature: KUSTOMIZE_FEATURE, outcome: 'failed' });
      const same = prev?.failureMessage === failure.message && (prev.status === 'Failed' || prev.status === 'FailedNonRetriable');
      return {
        feature: {
          featureID: KUSTOMIZE_FEATURE,
          status: failure.nonRetriable ? 'FailedNonRetriable' : 'Failed',
          failureReason: failure.reason,
          failureMessage: failure.message,
          consecutiveFailures: same ? (prev.consecutiveFailures ?? 1) : (prev?.consecutiveFailures ?? 0) + 1,
          hash: hash ? hexToBase64(hash) : prev?.hash,
          lastAppliedTime: prev?.lastAppliedTime,
          deployedGroupVersionKind: prev?.deployedGroupVersionKind,
        },
        requeue: !failure.nonRetriable,
      };
    }
  }

  private failureOf(err: unknown, p: KustomizePass): FeatureFailure {
    if (err instanceof ArtifactError) return { message: err.message, reason: 'ArtifactFailed', nonRetriable: !err.transient };
    const f = featureFailureOf(err);
    if (f) return f;
    return { message: `cluster ${p.entry.key}: ${errorMessage(err)}`, reason: 'DeploymentFailed', nonRetriable: false };
  }

  /** resolve reads every kustomizationRef's source object and valuesFrom from the management caches. */
  private async resolve(p: KustomizePass): Promise<ResolvedSource[]> {
    const names = { cluster: p.entry.object, clusterNamespace: p.cs.spec.clusterNamespace, clusterName: p.cs.spec.clusterName };
    const entries: RefEntry[] = [];
    const out: ResolvedSource[] = [];
    const fluxKinds = [...new Set((p.spec.kustomizationRefs ?? []).map((r) => r.kind).filter(isFluxKind))].map((k) => ({ apiVersion: FLUX_SOURCE_VERSIONS[k], kind: k }));
    const informers = this.kinds.use(p.key, fluxKinds);
    // A kind seen for the first time: give its first list a moment (a kind that is not served stops waiting).
    await Promise.all([...informers.values()].map((inf) => (inf.hasSynced() ? undefined : inf.waitForSync({ timeoutMs: 1000 }).catch(() => undefined))));
    try {
      for (const [i, ref] of (p.spec.kustomizationRefs ?? []).entries()) {
        const where = `kustomizationRefs[${i}]`;
        const fail = (message: string, reason = 'InvalidReference', nonRetriable = true): never => {
          throw new FeatureFailed({ message, reason, nonRetriable });
        };
        if (ref.remoteURL || !ref.kind) fail(`${where}: ${ref.remoteURL ? `remoteURL ${ref.remoteURL.url}` : 'a reference without kind'} is not supported by Ripple yet (kinds: ConfigMap, Secret, GitRepository, OCIRepository, Bucket)`, 'NotSupported');
        const ns = renderReferenceName(`${where}.namespace`, ref.namespace ?? '', names, this.c.funcOptions);
        const nm = renderReferenceName(`${where}.name`, ref.name ?? '', names, this.c.funcOptions);
        if (!ns.ok) fail(`${where}.namespace: ${ns.ok ? '' : ns.message}`, 'TemplateError');
        if (!nm.ok) fail(`${where}.name: ${nm.ok ? '' : nm.message}`, 'TemplateError');
        const namespace = (ns as { text: string }).text;
        const name = (nm as { text: string }).text;
        if (p.profile.kind === 'Profile' && namespace !== p.profile.namespace) fail(`${where}: a Profile can only reference ${ref.kind}s in its own namespace ${p.profile.namespace}, not ${namespace}`);
        const kind = ref.kind!;
        let object: KubeObject | undefined;
        if (kind === 'ConfigMap' || kind === 'Secret') {
          entries.push({ key: refKey('v1', kind, namespace, name) });
          object = (kind === 'Secret' ? this.c.caches.secrets : this.c.caches.configMaps).cache.get(namespace, name);
        } else if (isFluxKind(kind)) {
          const apiVersion = FLUX_SOURCE_VERSIONS[kind];
          entries.push({ key: refKey(apiVersion, kind, namespace, name) });
          const inf = informers.get(`${apiVersion}|${kind}`)!;
          if (!inf.hasSynced()) {
            const served = inf.state !== 'waiting-for-kind';
            fail(
              served
                ? `${where}: the management cluster's ${kind} objects could not be listed yet; retrying`
                : `${where}: the management cluster does not serve ${apiVersion} ${kind} (install Flux's source-controller CRDs: ripple manifests crds --flux); it will be read as soon as it is installed`,
              'ReferenceNotFound',
              !served,
            );
          }
          object = inf.cache.get(namespace, name);
        } else {
          fail(`${where}: kind ${kind} is not a kustomization source (ConfigMap, Secret, GitRepository, OCIRepository, Bucket)`);
        }
        if (!object) {
          if (ref.optional) continue;
          fail(`${where}: referenced ${kind} ${namespace}/${name} does not exist; it will be deployed as soon as it is created`, 'ReferenceNotFound');
        }
        const values = this.valuesFrom(p, ref, where, entries);
        out.push({ index: i, ref, kind, namespace, name, object: object!, values });
      }
    } finally {
      this.index.set(p.key, entries);
    }
    return out;
  }

  /** valuesFrom reads a ref's values and valuesFrom ConfigMaps/Secrets (registered: their changes re-queue). */
  private valuesFrom(p: KustomizePass, ref: KustomizationRef, where: string, entries: RefEntry[]): ResolvedSource['values'] {
    const names = { cluster: p.entry.object, clusterNamespace: p.cs.spec.clusterNamespace, clusterName: p.cs.spec.clusterName };
    return readKustomizeValues(
      ref,
      where,
      names,
      (kind, ns, name) => (kind === 'Secret' ? this.c.caches.secrets : this.c.caches.configMaps).cache.get(ns, name),
      this.c.funcOptions,
      (kind, ns, name) => entries.push({ key: refKey('v1', kind, ns, name) }),
    );
  }

  /** inputsHash is the feature hash: the spec, the profile, each source's content identity, the values, the cluster when templated. */
  private inputsHash(p: KustomizePass, sources: readonly ResolvedSource[]): string {
    const templated = sources.some((s) => Object.keys(s.values.templated).length > 0 || (s.ref.path ?? '').includes('{{') || (s.ref.components ?? []).some((c) => c.includes('{{'))) || (p.spec.patches ?? []).length > 0;
    let clusterFp: unknown = null;
    if (templated) {
      const { resourceVersion: _rv, managedFields: _mf, generation: _g, ...metadata } = p.entry.object.metadata as unknown as Record<string, unknown>;
      clusterFp = { ...p.entry.object, metadata };
    }
    const content = sources.map((s) => {
      if (isFluxKind(s.kind)) return { kind: s.kind, ns: s.namespace, name: s.name, artifact: artifactOf(s.object) ?? null, annotations: s.object.metadata.annotations ?? {} };
      const o = s.object as { data?: Record<string, string>; binaryData?: Record<string, string> };
      return { kind: s.kind, ns: s.namespace, name: s.name, data: sha256Hex(goJSON({ d: o.data ?? {}, b: o.binaryData ?? {} })) };
    });
    return sha256Hex(goJSON({ spec: p.spec, profile: p.profile, content, values: sources.map((s) => s.values), cluster: clusterFp }));
  }

  /** build turns each resolved source into objects (files → kustomize build → values → targetNamespace). */
  private async build(p: KustomizePass, sources: readonly ResolvedSource[]): Promise<{ source: ResolvedSource; objects: KubeObject[] }[]> {
    const data = this.renderer.dataFor({ cluster: p.entry.object, mgmtResources: {} });
    const out: { source: ResolvedSource; objects: KubeObject[] }[] = [];
    for (const s of sources) {
      const files = await this.files(s, `kustomizationRefs[${s.index}] (${s.kind} ${s.namespace}/${s.name})`, p.signal);
      out.push({ source: s, objects: buildKustomizationRef(s, files, { renderer: this.renderer, data, clusterNamespace: p.cs.spec.clusterNamespace, clusterName: p.cs.spec.clusterName, summaryName: p.raw.metadata.name }) });
    }
    return out;
  }

  /** files reads a source's tree: the tarball in a ConfigMap/Secret, or the Flux artifact. */
  private async files(s: ResolvedSource, where: string, signal: AbortSignal | undefined): Promise<Map<string, Uint8Array>> {
    if (isFluxKind(s.kind)) {
      const a = artifactOf(s.object);
      if (!a) throw new FeatureFailed({ message: `${where}: source is not ready, artifact not found (status.artifact is empty); it will be deployed once source-controller publishes one`, reason: 'ArtifactNotReady', nonRetriable: true });
      try {
        return await this.fetcher.files(a, signal);
      } catch (err) {
        if (err instanceof ArtifactError) throw new ArtifactError(`${where}: ${err.message}`, err.transient);
        throw err;
      }
    }
    return tarballOf(s.kind, s.object, where);
  }

  /** deploy stamps, plans and applies the built objects, removes stale ones, reports. */
  private async deploy(p: KustomizePass, built: { source: ResolvedSource; objects: KubeObject[] }[], hash: string, prev: Feature | undefined): Promise<KustomizeOutcome> {
    const { spec, cs } = p;
    const dryRun = spec.syncMode === 'DryRun';
    const recorded = KustomizeFeature.recordedGvks(cs);
    const needRemote = built.some((b) => (b.source.ref.deploymentType ?? 'Remote') === 'Remote') || recorded.length > 0;
    const clients: Record<Target, KubeClient | undefined> = { Local: this.c.mgmt, Remote: needRemote ? await this.c.registry.client(p.entry.key) : undefined };
    const refs = built.map((b) => kustomizeResolvedRef(b.source, b.objects));
    const rendered = await renderDesired(
      { spec, profile: p.profile, cluster: { type: p.type, namespace: cs.spec.clusterNamespace, name: cs.spec.clusterName, object: p.entry.object }, refs, mgmtResources: {}, reason: KUSTOMIZE_FEATURE },
      this.renderer,
      async (target, apiVersion, kind) => {
        try {
          return (await clients[target]!.resource({ apiVersion, kind })).namespaced;
        } catch (err) {
          if (isKindNotInstalled(err)) return undefined;
          throw err;
        }
      },
    );
    if (!rendered.ok) throw new FeatureFailed(rendered.failure);
    const desired = rendered.desired;
    const newGvks = [...new Set(desired.map((d) => gvkString(d.object.apiVersion, d.object.kind)))].sort();
    const union = [...new Set([...recorded, ...newGvks])].sort();
    if (!dryRun && union.some((g) => !recorded.includes(g))) await p.recordKinds(union);

    const observed = new Map<string, KubeObject | null>();
    for (const d of desired) {
      const id = identityOf(d.target, d.object);
      let o: KubeObject | undefined;
      try {
        o = await clients[d.target]!.getIfExists<KubeObject>(refOf(id));
      } catch (err) {
        if (!isKindNotInstalled(err)) throw err;
      }
      observed.set(identityKey(id), o ?? null);
    }
    const namespaces = new Set<string>();
    for (const d of desired) {
      const ns = d.object.metadata.namespace;
      const k = `${d.target}:${ns}`;
      if (!ns || namespaces.has(k)) continue;
      if (dryRun || (await clients[d.target]!.getIfExists({ apiVersion: 'v1', kind: 'Namespace', name: ns }))) namespaces.add(k);
    }
    const deployed = await this.scanDeployed(p, union, clients);
    const actions = plan({ desired, observed, deployed, namespaces });
    const drifting = spec.syncMode === 'ContinuousWithDriftDetection';
    if (drifting && !dryRun) {
      const csValue = clusterSummaryAnnotationValue(p.type, cs.spec.clusterNamespace, cs.spec.clusterName);
      const tracked: TrackedObject[] = desired
        .filter((d) => d.object.metadata.annotations?.[Annotations.driftDetectionIgnore] === undefined)
        .map((d) => ({ cluster: d.target === 'Local' ? LOCAL : p.entry.key, apiVersion: d.object.apiVersion, kind: d.object.kind, namespace: d.object.metadata.namespace, name: d.object.metadata.name, expected: comparable(d), clusterSummary: csValue }));
      const writes = actions.some((a) => a.type !== 'unchanged' && a.type !== 'conflict');
      await this.drift.track(p.key, hash, tracked, !writes);
    } else {
      this.drift.untrack(p.key);
    }
    const outcome = await execute(actions, clients, {
      fieldManager: this.c.fieldManager,
      dryRun,
      continueOnConflict: spec.continueOnConflict === true,
      continueOnError: spec.continueOnError === true,
      signal: p.signal,
    });
    if (dryRun) await this.writeReport(p, outcome.results);
    let set = this.conflicted.get(p.entry.key);
    if (outcome.conflicts.length > 0) {
      if (!set) this.conflicted.set(p.entry.key, (set = new Set()));
      set.add(p.key);
    } else {
      set?.delete(p.key);
    }
    if (outcome.results.some((r) => r.action === 'Delete' && r.wrote)) this.removedObjects(p.entry.key, p.key);
    for (const a of actions) {
      // Go: requeueAllOldOwners — the old owner must notice it lost the object (it will now report a conflict).
      if (a.type === 'apply' && a.previousOwner && (a.previousOwner.kind === 'ClusterProfile' || a.previousOwner.kind === 'Profile')) {
        const old = `${cs.spec.clusterNamespace}/${clusterSummaryName(a.previousOwner.kind, a.previousOwner.name, p.type, cs.spec.clusterName)}`;
        if (old !== p.key) this.ownershipMoved(old);
      }
    }
    const hashB64 = hexToBase64(hash);
    const now = rfc3339(this.c.clock.now());
    const problems = [...rendered.failures, ...outcome.errors];
    if (!dryRun && (outcome.conflicts.length > 0 || problems.length > 0)) {
      const conflict = outcome.conflicts.length > 0;
      const message = [...outcome.conflicts, ...problems].join('\n').trim();
      record(this.c, p.raw, 'Warning', conflict ? 'Conflict' : 'DeploymentFailed', message);
      this.c.metrics?.outcomes.inc({ feature: KUSTOMIZE_FEATURE, outcome: conflict ? 'conflict' : 'failed' });
      const same = prev?.failureMessage === message;
      return {
        feature: {
          featureID: KUSTOMIZE_FEATURE,
          status: 'Failed',
          failureReason: conflict ? 'ConflictError' : 'DeploymentFailed',
          failureMessage: message,
          consecutiveFailures: same ? (prev?.consecutiveFailures ?? 1) : (prev?.consecutiveFailures ?? 0) + 1,
          hash: hashB64,
          lastAppliedTime: outcome.writes > 0 ? now : prev?.lastAppliedTime,
          deployedGroupVersionKind: union,
        },
        gvks: union,
        // Conflicts wait for the owner to go away (wakeConflicted) or for an input change; errors retry with backoff.
        requeue: problems.length > 0,
      };
    }
    if (outcome.writes > 0) {
      const count = (a: string) => outcome.results.filter((r) => r.wrote && r.action === a).length;
      record(this.c, p.raw, 'Normal', 'KustomizeDeployed', `kustomizationRefs deployed to cluster ${cs.spec.clusterNamespace}/${cs.spec.clusterName}: ${count('Create')} created, ${count('Update')} updated, ${count('Delete')} removed`);
    }
    this.c.metrics?.outcomes.inc({ feature: KUSTOMIZE_FEATURE, outcome: 'provisioned' });
    if ((spec.kustomizationRefs ?? []).length === 0) return { feature: undefined, gvks: [], requeue: false };
    return {
      feature: {
        featureID: KUSTOMIZE_FEATURE,
        status: 'Provisioned',
        hash: hashB64,
        lastAppliedTime: outcome.writes > 0 || !prev?.lastAppliedTime ? now : prev.lastAppliedTime,
        deployedGroupVersionKind: dryRun ? prev?.deployedGroupVersionKind : newGvks,
      },
      gvks: dryRun ? undefined : newGvks,
      requeue: false,
    };
  }

  /** withdraw removes (or, with LeavePolicies, un-stamps) every object the Kustomize feature deployed. */
  async withdraw(p: Omit<KustomizePass, 'entry' | 'status' | 'recordKinds'> & { entry?: ClusterEntry }, clients: Record<Target, KubeClient | undefined>, leave: boolean): Promise<ExecuteOutcome> {
    this.drift.untrack(p.key);
    const deployed = await this.scanDeployed(p, KustomizeFeature.recordedGvks(p.cs), clients);
    return execute(planWithdrawal(deployed, leave, STAMP_ANNOTATIONS, [Labels.reason]), clients, { fieldManager: this.c.fieldManager, dryRun: false, continueOnConflict: true, continueOnError: true, signal: p.signal });
  }

  /** scanDeployed lists the objects of the given kinds carrying this ClusterSummary's Kustomize stamps. */
  private async scanDeployed(p: { cs: ClusterSummary; type: ClusterType; profile: ProfileIdentity }, gvks: readonly string[], clients: Record<Target, KubeClient | undefined>): Promise<{ target: Target; object: KubeObject }[]> {
    const csValue = clusterSummaryAnnotationValue(p.type, p.cs.spec.clusterNamespace, p.cs.spec.clusterName);
    const out: { target: Target; object: KubeObject }[] = [];
    for (const target of ['Local', 'Remote'] as const) {
      const client = clients[target];
      if (!client) continue;
      for (const g of gvks) {
        const gvk = parseGvkString(g);
        if (!gvk) continue;
        let items: KubeObject[];
        try {
          items = (await client.list<KubeObject>(gvk, { labelSelector: `${Labels.reason}=${KUSTOMIZE_FEATURE}` })).items;
        } catch (err) {
          if (isKindNotInstalled(err) || isNotFound(err)) continue;
          throw err;
        }
        for (const o of items) {
          const a = o.metadata.annotations ?? {};
          if (a[Annotations.clusterSummary] === csValue && (a[Annotations.deploymentType] ?? 'Remote') === target && a[Annotations.ownerName] === p.profile.name && a[Annotations.ownerKind] === p.profile.kind) out.push({ target, object: o });
        }
      }
    }
    return out;
  }

  /** writeReport records what DryRun would do in the ClusterReport's kustomizeResourceReports. */
  private async writeReport(p: KustomizePass, results: readonly ObjectResult[]): Promise<void> {
    const { cs, type } = p;
    const kind = p.profile.kind as ProfileKind;
    const name = clusterReportName(kind, p.profile.name, type, cs.spec.clusterName);
    const base = { apiVersion: 'config.projectsveltos.io/v1beta1', kind: 'ClusterReport' };
    const manager = `${this.c.fieldManager}-kustomize`;
    const labels = { [AddonLabels.clusterName]: cs.spec.clusterName, [AddonLabels.clusterType]: type, [profileLabelKey(kind)]: p.profile.name };
    await this.c.mgmt.apply({ ...base, metadata: { name, namespace: cs.spec.clusterNamespace, labels }, spec: { clusterNamespace: cs.spec.clusterNamespace, clusterName: cs.spec.clusterName } }, { fieldManager: manager, force: true });
    const kustomizeResourceReports = results
      .filter((r) => r.id.name !== '')
      .map((r) => {
        const slash = r.id.apiVersion.indexOf('/');
        return {
          action: r.action,
          ...(r.message ? { message: r.message } : {}),
          resource: {
            group: slash < 0 ? '' : r.id.apiVersion.slice(0, slash),
            version: slash < 0 ? r.id.apiVersion : r.id.apiVersion.slice(slash + 1),
            kind: r.id.kind,
            name: r.id.name,
            ...(r.id.namespace ? { namespace: r.id.namespace } : {}),
          },
        };
      });
    await this.c.mgmt.apply({ ...base, metadata: { name, namespace: cs.spec.clusterNamespace }, status: { kustomizeResourceReports } }, { fieldManager: manager, force: true, subresource: 'status' });
  }

  /** wakeConflicted re-queues the ClusterSummaries of a cluster whose Kustomize feature lost a conflict. */
  wakeConflicted(cluster: string, except: string): void {
    for (const s of this.conflicted.get(cluster) ?? []) {
      if (s === except) continue;
      this.forced.add(s);
      this.enqueue(s);
    }
  }

  /** affected returns the ClusterSummaries reading a changed ConfigMap/Secret (kustomization tarball or valuesFrom). */
  affected(o: KubeObject | undefined, n: KubeObject | undefined): string[] {
    const obj = (n ?? o)!;
    return this.index.affected(refKey('v1', obj.kind, obj.metadata.namespace, obj.metadata.name), o, n);
  }

  /** onClusterGone drops drift watches of a cluster whose client changed or that left. */
  dropCluster(cluster: string): string[] {
    return this.drift.dropCluster(cluster);
  }

  /** forget drops what is known about a ClusterSummary that no longer exists. */
  forget(key: string): void {
    this.index.forget(key);
    this.kinds.forget(key);
    this.fluxPolicies.forget(key);
    this.drift.untrack(key);
    this.driftPending.delete(key);
    this.forced.delete(key);
    for (const s of this.conflicted.values()) s.delete(key);
  }

  async stop(): Promise<void> {
    await this.fluxPolicies.stop();
    await this.drift.stop();
    await this.kinds.stop();
  }
}

type DeployedGVKs = NonNullable<ClusterSummaryStatus['deployedGVKs']>;

/** setFeatureGvks returns status.deployedGVKs with one feature's entry replaced (dropped when gvks is empty). */
export function setFeatureGvks(list: DeployedGVKs | undefined, featureID: string, gvks: readonly string[]): DeployedGVKs | undefined {
  const rest = (list ?? []).filter((g) => g.featureID !== featureID);
  const out = gvks.length > 0 ? [...rest, { featureID, deployedGroupVersionKind: [...gvks] }] : rest;
  return out.length > 0 ? (out as DeployedGVKs) : undefined;
}
