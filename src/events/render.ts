// render.ts: the pure heart of the event manager — for one (EventTrigger, cluster) and the events of its EventReport,
// the ClusterProfiles and instantiated ConfigMaps/Secrets that should exist. No I/O: referenced ConfigMaps/Secrets
// come in through a lookup function (the informer caches), and every failure is an EventIssue on the event it
// belongs to, so one bad event never hides the others.
//
// Each string field is rendered as its own template (text/template, missingkey=error, the event-manager function
// map), never a JSON blob, so quotes in templates need no escaping. The same data object serves every template of
// one event, as in Sveltos: getResource/setField… mutate it in place and later templates see the change.
// Go: event-manager controllers/eventtrigger_deployer.go (instantiateClusterProfileForResource,
// instantiateReferencedPolicyRefs, instantiateHelmCharts, instantiateKustomizationRefs, setClusterSelector,
// instantiateTemplateResourceRefs, instantiateResourceFromGenerator, getClusterProfileSpec)
import { Buffer } from 'node:buffer';
import { parseAllDocuments } from 'yaml';
import {
  Annotations,
  CLUSTER_PROFILE_SECRET_TYPE,
  EventTriggerLabels,
  isDNS1123Subdomain,
  type ClusterProfileSpec,
  type EventTriggerSpec,
  type HelmChart,
  type KubeObject,
  type KustomizationRef,
  type ObjectReference,
  type PolicyRef,
  type TemplateResourceRef,
} from '../api/index.js';
import { splitPolicyText } from '../addons/index.js';
import { SIGS_YAML_OPTIONS } from '../funcs/index.js';
import { decodeJSON, isGoMap, parseCached, TemplateError, type ExecBudget, type FuncMap, type GoMap, type GoValue } from '../gotemplate/index.js';
import { EventError, issue, type EventIssue } from './errors.js';
import {
  baseLabels,
  contentHash,
  eventLabels,
  generatedName,
  invalidLabelValues,
  RippleAnnotations,
  serviceAccountLabels,
  type ClusterIdentity,
} from './naming.js';
import type { ReportEvent } from './report-events.js';
import { allEventsData, oneEventData } from './template-data.js';
import { eventDataFields } from './template-uses.js';

/** TriggerView is what rendering needs of an EventTrigger (or an EventBasedAddOn normalised into one). */
export interface TriggerView {
  name: string;
  kind: 'EventTrigger' | 'EventBasedAddOn';
  spec: EventTriggerSpec;
  labels: Readonly<Record<string, string>>;
  annotations: Readonly<Record<string, string>>;
}

/** SourceObject is a referenced ConfigMap or Secret as the API server returns it. */
export interface SourceObject extends KubeObject {
  data?: Record<string, string>;
  type?: string;
}

/** SourceKind is what policyRefs/valuesFrom/generators can point at and the event stage can read. */
export type SourceKind = 'ConfigMap' | 'Secret';

/** SourceLookup returns a ConfigMap/Secret of the management cluster, or undefined when it does not exist. */
export type SourceLookup = (kind: SourceKind, namespace: string, name: string) => SourceObject | undefined;

/** RenderContext is everything rendering reads besides the events. */
export interface RenderContext {
  trigger: TriggerView;
  cluster: ClusterIdentity & { apiVersion: string; kind: string };
  /** The cluster object as JSON text (decoded per event with int64 numbers: templates may mutate it). */
  clusterJSON: string;
  /** The rendered eventSourceName (the EventReport's EventSource). */
  eventSourceName: string;
  /** The event-manager function map (one per component: funcs caches parsed templates per map). */
  funcs: FuncMap;
  lookup: SourceLookup;
  /** Where instantiated ConfigMaps/Secrets go (`projectsveltos`). */
  namespace: string;
  /** The render budget of every template (unset fields: gotemplate's DEFAULT_EXEC_BUDGET); without a clock, steps
   * and output only. */
  budget?: Partial<ExecBudget>;
}

/** GeneratedObject is a ClusterProfile, ConfigMap or Secret the event manager writes. */
export type GeneratedObject = KubeObject & { [field: string]: unknown };

/** RenderedEvent is the desired output of one event. */
export interface RenderedEvent {
  id: string;
  /** `delete`: a CloudEvent whose cloudEventAction rendered to Delete — remove what this event generated. */
  action: 'create' | 'delete';
  profile?: GeneratedObject;
  /** Instantiated ConfigMaps/Secrets (policyRefs, valuesFrom, generators). */
  objects: GeneratedObject[];
  /** Non-empty: the event failed; its existing outputs are kept as they are. */
  issues: EventIssue[];
}

/** LegacyUse records a ConfigMap/Secret instantiated only because its templates read event data. */
export interface LegacyUse {
  kind: SourceKind;
  namespace: string;
  name: string;
  fields: string[];
}

/** RenderResult is the desired state of one (trigger, cluster). */
export interface RenderResult {
  events: RenderedEvent[];
  /** `Kind/namespace/name` of every ConfigMap/Secret read (present or not): a change re-renders this pair. */
  deps: Set<string>;
  legacy: LegacyUse[];
}

/** sourceKey is the dependency key of a referenced ConfigMap/Secret. */
export function sourceKey(kind: string, namespace: string, name: string): string {
  return `${kind}/${namespace}/${name}`;
}

const CLUSTER_PROFILE = { apiVersion: 'config.projectsveltos.io/v1beta1', kind: 'ClusterProfile' } as const;
// Annotations of a referenced object that are not copied to its instantiated copy: kubectl's bookkeeping would make
// the copy look like a kubectl-applied object.
const NOT_COPIED = new Set(['kubectl.kubernetes.io/last-applied-configuration']);

/**
 * renderEvents computes the desired ClusterProfile and instantiated objects for every event of a report. Events
 * fail independently: a failed event carries issues and no objects.
 */
export function renderEvents(ctx: RenderContext, events: readonly ReportEvent[]): RenderResult {
  const result: RenderResult = { events: [], deps: new Set(), legacy: [] };
  const legacySeen = new Set<string>();
  for (const e of events) {
    const r = new EventRenderer(ctx, e, result, legacySeen);
    result.events.push(r.render());
  }
  return result;
}

/** EventRenderer renders everything generated for one event, with one data object for all its templates. */
class EventRenderer {
  private readonly data: GoValue;
  private readonly objects: GeneratedObject[] = [];
  private readonly labels: Record<string, string>;

  constructor(
    private readonly ctx: RenderContext,
    private readonly event: ReportEvent,
    private readonly result: RenderResult,
    private readonly legacySeen: Set<string>,
  ) {
    this.data = newEventData(ctx, event);
    this.labels = {
      ...baseLabels(ctx.trigger.name, ctx.cluster),
      [EventTriggerLabels.eventReportName]: ctx.eventSourceName,
      [EventTriggerLabels.eventSourceName]: ctx.eventSourceName,
      ...eventLabels({ ref: event.ref, cloudEvent: event.cloudEvent as { source?: unknown; subject?: unknown } | undefined }),
      ...serviceAccountLabels(ctx.trigger.labels),
    };
  }

  render(): RenderedEvent {
    const id = this.event.id;
    try {
      const bad = invalidLabelValues(this.labels);
      if (bad.length > 0) throw fail('InvalidName', `generated objects cannot be labelled: ${bad.join('; ')}`);
      if (this.event.cloudEvent && this.cloudEventAction() === 'Delete') {
        return { id, action: 'delete', objects: [], issues: [] };
      }
      const spec = this.profileSpec();
      this.generators();
      const profile = this.profile(spec);
      return { id, action: 'create', profile, objects: this.objects, issues: [] };
    } catch (e) {
      if (e instanceof EventError) return { id, action: 'create', objects: [], issues: [...e.issues] };
      throw e;
    }
  }

  // ---- templates ----

  /** text renders one field; `where` names it in errors. Text without an action is returned as is. */
  private text(where: string, text: string): string {
    if (!text.includes('{{')) return text;
    try {
      const t = parseCached(this.ctx.trigger.name, text, { funcs: this.ctx.funcs, missingKey: 'error' });
      return t.execute(this.data, this.ctx.budget);
    } catch (e) {
      if (e instanceof TemplateError) {
        throw fail(e.code === 'parse' ? 'TemplateParse' : 'TemplateExec', `${where}: ${e.message}${dataShapeHint(e.message)}`, e);
      }
      throw e;
    }
  }

  private optText(where: string, text: string | undefined): string | undefined {
    return text === undefined ? undefined : this.text(where, text);
  }

  private cloudEventAction(): 'Create' | 'Delete' {
    const action = this.text('cloudEventAction', this.ctx.trigger.spec.cloudEventAction ?? 'Create');
    if (action !== 'Create' && action !== 'Delete') {
      throw fail('InvalidSpec', `cloudEventAction rendered to ${JSON.stringify(action)}: it must be Create or Delete`);
    }
    return action;
  }

  // ---- the ClusterProfile ----

  private profileSpec(): ClusterProfileSpec {
    const s = this.ctx.trigger.spec;
    const spec: ClusterProfileSpec = {};
    const copy = <K extends keyof EventTriggerSpec & keyof ClusterProfileSpec>(k: K) => {
      if (s[k] !== undefined) (spec as Record<string, unknown>)[k] = structuredClone(s[k]);
    };
    Object.assign(spec, this.clusterTargeting());
    // Pass-through fields (getClusterProfileSpec), plus the checks and patchesFrom Sveltos forgets to copy.
    for (const k of [
      'syncMode',
      'tier',
      'continueOnConflict',
      'maxUpdate',
      'stopMatchingBehavior',
      'reloader',
      'dependsOn',
      'preDeployChecks',
      'validateHealths',
      'preDeleteChecks',
      'postDeleteChecks',
      'patches',
      'patchesFrom',
      'driftExclusions',
      'extraLabels',
      'extraAnnotations',
    ] as const) {
      copy(k);
    }
    if (s.templateResourceRefs !== undefined) spec.templateResourceRefs = this.templateResourceRefs(s.templateResourceRefs);
    if (s.helmCharts !== undefined) spec.helmCharts = s.helmCharts.map((h, i) => this.helmChart(h, i));
    if (s.kustomizationRefs !== undefined) spec.kustomizationRefs = s.kustomizationRefs.map((k, i) => this.kustomizationRef(k, i));
    if (s.policyRefs !== undefined) spec.policyRefs = this.policyRefs(s.policyRefs);
    return spec;
  }

  /** clusterTargeting: the source cluster by default, else destinationClusterSelector and/or destinationCluster. */
  private clusterTargeting(): Pick<ClusterProfileSpec, 'clusterRefs' | 'clusterSelector'> {
    const s = this.ctx.trigger.spec;
    const sel = s.destinationClusterSelector;
    const hasSelector = sel !== undefined && ((sel.matchLabels && Object.keys(sel.matchLabels).length > 0) || (sel.matchExpressions?.length ?? 0) > 0);
    const out: Pick<ClusterProfileSpec, 'clusterRefs' | 'clusterSelector'> = {};
    if (hasSelector) out.clusterSelector = structuredClone(sel);
    if (s.destinationCluster) {
      const d = s.destinationCluster;
      const ref: ObjectReference = {};
      for (const k of ['apiVersion', 'kind', 'namespace', 'name'] as const) {
        const v = this.optText(`destinationCluster.${k}`, d[k]);
        if (v !== undefined && v !== '') ref[k] = v;
      }
      out.clusterRefs = [ref];
    }
    if (!hasSelector && !s.destinationCluster) {
      const c = this.ctx.cluster;
      out.clusterRefs = [{ apiVersion: c.apiVersion, kind: c.kind, namespace: c.namespace, name: c.name }];
    }
    return out;
  }

  private templateResourceRefs(refs: readonly TemplateResourceRef[]): TemplateResourceRef[] {
    return refs.map((r, i) => {
      const out = structuredClone(r);
      const where = `templateResourceRefs[${i}].resource`;
      if (r.resource.name !== undefined) out.resource.name = this.text(`${where}.name`, r.resource.name);
      if (r.resource.namespace !== undefined) out.resource.namespace = this.text(`${where}.namespace`, r.resource.namespace);
      return out;
    });
  }

  private helmChart(h: HelmChart, i: number): HelmChart {
    const where = `helmCharts[${i}]`;
    const out = structuredClone(h);
    for (const k of ['repositoryURL', 'repositoryName', 'chartName', 'chartVersion', 'releaseName', 'releaseNamespace', 'values'] as const) {
      const v = this.optText(`${where}.${k}`, h[k]);
      if (v !== undefined) (out as Record<string, unknown>)[k] = v;
    }
    if (h.valuesFrom) out.valuesFrom = h.valuesFrom.map((v, j) => ({ ...v, ...this.valuesFrom(`${where}.valuesFrom[${j}]`, v) }));
    return out;
  }

  private kustomizationRef(k: KustomizationRef, i: number): KustomizationRef {
    const where = `kustomizationRefs[${i}]`;
    const out = structuredClone(k);
    for (const f of ['namespace', 'name', 'path', 'targetNamespace'] as const) {
      const v = this.optText(`${where}.${f}`, k[f]);
      if (v !== undefined) out[f] = v;
    }
    if (k.components) out.components = k.components.map((c, j) => this.text(`${where}.components[${j}]`, c));
    if (k.values) {
      out.values = {};
      for (const key of Object.keys(k.values).sort()) out.values[key] = this.text(`${where}.values.${key}`, k.values[key]);
    }
    if (k.valuesFrom) out.valuesFrom = k.valuesFrom.map((v, j) => ({ ...v, ...this.valuesFrom(`${where}.valuesFrom[${j}]`, v) }));
    return out;
  }

  /** valuesFrom renders a ValueFrom's namespace/name; a referenced object that does not exist is kept as is (Sveltos). */
  private valuesFrom(where: string, v: { kind: SourceKind; namespace?: string; name: string }): { namespace: string; name: string } {
    const namespace = v.namespace ? this.text(`${where}.namespace`, v.namespace) : this.ctx.cluster.namespace;
    const name = this.text(`${where}.name`, v.name);
    return this.reference(where, v.kind, namespace, name, { missing: 'keep' });
  }

  /** policyRefs renders each reference; Local references come first, as event-manager orders them. */
  private policyRefs(refs: readonly PolicyRef[]): PolicyRef[] {
    const local: PolicyRef[] = [];
    const remote: PolicyRef[] = [];
    refs.forEach((p, i) => {
      const where = `policyRefs[${i}]`;
      if (p.kind === undefined) {
        throw fail('UnsupportedReference', `${where}: remoteURL references are not supported by EventTrigger (Sveltos drops them); reference a ConfigMap, Secret or Flux source`);
      }
      const namespace = p.namespace ? this.text(`${where}.namespace`, p.namespace) : this.ctx.cluster.namespace;
      const name = this.text(`${where}.name`, p.name ?? '');
      let target = { namespace, name };
      if (p.kind === 'ConfigMap' || p.kind === 'Secret') {
        target = this.reference(where, p.kind, namespace, name, { missing: p.optional ? 'keep' : 'error' });
      }
      const out: PolicyRef = { kind: p.kind, namespace: target.namespace, name: target.name };
      const path = this.optText(`${where}.path`, p.path);
      if (path !== undefined) out.path = path;
      if (p.optional) out.optional = true;
      out.deploymentType = p.deploymentType ?? 'Remote';
      (out.deploymentType === 'Local' ? local : remote).push(out);
    });
    return [...local, ...remote];
  }

  private profile(spec: ClusterProfileSpec): GeneratedObject {
    const ctx = this.ctx;
    const c = ctx.cluster;
    let name: string;
    if (ctx.trigger.spec.profileNameFormat) {
      name = this.text('profileNameFormat', ctx.trigger.spec.profileNameFormat);
      const why = isDNS1123Subdomain(name);
      if (why.length > 0) throw fail('InvalidName', `profileNameFormat rendered to ${JSON.stringify(name)}, not a valid ClusterProfile name: ${why.join('; ')}`);
    } else {
      name = generatedName(['ClusterProfile', ctx.trigger.name, c.type, c.namespace, c.name, this.event.id]);
    }
    const annotations = {
      [RippleAnnotations.event]: this.event.id,
      [RippleAnnotations.oneForEvent]: String(ctx.trigger.spec.oneForEvent === true),
    };
    return withHash({ ...CLUSTER_PROFILE, metadata: { name, labels: { ...this.labels }, annotations }, spec });
  }

  // ---- referenced ConfigMaps/Secrets ----

  /**
   * reference resolves a ConfigMap/Secret reference: instantiated into a new object when it carries the instantiate
   * annotation or its templates read event data (compatibility with older Sveltos), otherwise referenced as is.
   */
  private reference(where: string, kind: SourceKind, namespace: string, name: string, o: { missing: 'keep' | 'error' }): { namespace: string; name: string } {
    this.result.deps.add(sourceKey(kind, namespace, name));
    const src = this.ctx.lookup(kind, namespace, name);
    if (!src) {
      if (o.missing === 'error') throw fail('MissingReference', `${where}: ${kind} ${namespace}/${name} does not exist (create it, or mark the reference optional)`);
      return { namespace, name };
    }
    checkSecretType(where, src);
    const annotations = src.metadata.annotations ?? {};
    let legacy = false;
    if (annotations[Annotations.instantiate] === undefined) {
      const fields = legacyEventFields(src, this.ctx.funcs);
      if (fields.length === 0) return { namespace, name };
      legacy = true;
      const key = sourceKey(kind, namespace, name);
      if (!this.legacySeen.has(key)) {
        this.legacySeen.add(key);
        this.result.legacy.push({ kind, namespace, name, fields });
      }
    }
    const c = this.ctx.cluster;
    const generated = generatedName([kind, this.ctx.trigger.name, c.type, c.namespace, c.name, this.event.id, namespace, name]);
    if (!this.objects.some((x) => x.kind === kind && x.metadata.name === generated)) {
      this.objects.push(this.instantiate(where, src, generated, { legacy }));
    }
    return { namespace: this.ctx.namespace, name: generated };
  }

  /** instantiate renders every data value of src (keys sorted, each its own template) into a new object. */
  private instantiate(where: string, src: SourceObject, name: string, o: { legacy?: boolean; generator?: boolean }): GeneratedObject {
    const kind = src.kind as SourceKind;
    const srcAnn = src.metadata.annotations ?? {};
    const annotations: Record<string, string> = {};
    for (const [k, v] of Object.entries(srcAnn)) if (!NOT_COPIED.has(k)) annotations[k] = v;
    if (o.legacy) {
      // In the Sveltos releases these documents were written for, `projectsveltos.io/template` meant "the event
      // manager renders this". The copy is fully rendered: a second (deploy-time) pass would only re-interpret
      // `{{` that came from event data, so the copy does not ask for one.
      delete annotations[Annotations.template];
      annotations[RippleAnnotations.legacyInstantiated] = 'true';
    }
    annotations[RippleAnnotations.event] = this.event.id;
    const labels: Record<string, string> = { ...this.labels };
    if (o.generator) labels[EventTriggerLabels.fromGenerator] = 'ok';
    for (const [k, v] of [
      [EventTriggerLabels.refNamespace, src.metadata.namespace ?? ''],
      [EventTriggerLabels.refName, src.metadata.name],
    ] as const) {
      if (invalidLabelValues({ [k]: v }).length === 0) labels[k] = v;
    }
    const rendered: Record<string, string> = {};
    const data = src.data ?? {};
    const secondPass = annotations[Annotations.template] !== undefined || annotations[Annotations.lua] !== undefined;
    for (const key of Object.keys(data).sort()) {
      const at = `${where}: ${kind} ${src.metadata.namespace}/${src.metadata.name} data ${JSON.stringify(key)}`;
      const text = kind === 'Secret' ? Buffer.from(data[key], 'base64').toString('utf8') : data[key];
      const out = this.text(at, text);
      if (!secondPass) checkYAML(at, out);
      rendered[key] = kind === 'Secret' ? Buffer.from(out, 'utf8').toString('base64') : out;
    }
    const obj: GeneratedObject = {
      apiVersion: 'v1',
      kind,
      metadata: { name, namespace: this.ctx.namespace, labels, annotations },
      data: rendered,
    };
    if (kind === 'Secret') obj.type = CLUSTER_PROFILE_SECRET_TYPE;
    return withHash(obj);
  }

  /** generators renders configMapGenerator/secretGenerator into `<namespace>/<rendered nameFormat>`. */
  private generators(): void {
    const s = this.ctx.trigger.spec;
    const run = (list: EventTriggerSpec['configMapGenerator'], kind: SourceKind, field: string) => {
      (list ?? []).forEach((g, i) => {
        const where = `${field}[${i}]`;
        const namespace = g.namespace ? this.text(`${where}.namespace`, g.namespace) : this.ctx.cluster.namespace;
        const name = this.text(`${where}.name`, g.name);
        this.result.deps.add(sourceKey(kind, namespace, name));
        const src = this.ctx.lookup(kind, namespace, name);
        if (!src) {
          // Sveltos ignores `optional` here and always fails; Ripple honours it.
          if (g.optional) return;
          throw fail('MissingReference', `${where}: ${kind} ${namespace}/${name} does not exist (create it, or mark the generator optional)`);
        }
        checkSecretType(where, src);
        const outName = this.text(`${where}.nameFormat`, g.nameFormat);
        const why = isDNS1123Subdomain(outName);
        if (why.length > 0) throw fail('InvalidName', `${where}.nameFormat rendered to ${JSON.stringify(outName)}, not a valid ${kind} name: ${why.join('; ')}`);
        if (this.objects.some((x) => x.kind === kind && x.metadata.name === outName)) {
          throw fail('NameCollision', `${where}.nameFormat rendered to ${JSON.stringify(outName)}, already generated for this event`);
        }
        this.objects.push(this.instantiate(where, src, outName, { generator: true }));
      });
    };
    run(s.configMapGenerator, 'ConfigMap', 'configMapGenerator');
    run(s.secretGenerator, 'Secret', 'secretGenerator');
  }
}

// Go's message for a field the dot does not have names the Go struct, not the setting that chose it: name the fix.
// (The message is the only place this surfaces; the hint only adds to it.)
function dataShapeHint(message: string): string {
  const m = /can't evaluate field (\w+) in type controllers\.(currentObjects?)\b/.exec(message);
  if (!m) return '';
  if (m[2] === 'currentObjects' && ['Resource', 'MatchingResource', 'CloudEvent'].includes(m[1])) {
    return `; .${m[1]} is set only for one event at a time: set oneForEvent: true on the EventTrigger, or range over .${m[1] === 'CloudEvent' ? 'CloudEvents' : m[1] + 's'}`;
  }
  if (m[2] === 'currentObject' && ['Resources', 'MatchingResources', 'CloudEvents'].includes(m[1])) {
    return `; .${m[1]} is set only for all events together: set oneForEvent: false on the EventTrigger, or use .${m[1].slice(0, -1)}`;
  }
  return '';
}

function fail(code: EventIssue['code'], message: string, cause?: unknown): EventError {
  return new EventError([issue(code, message)], cause === undefined ? undefined : { cause });
}

function checkSecretType(where: string, src: SourceObject): void {
  if (src.kind === 'Secret' && src.type !== CLUSTER_PROFILE_SECRET_TYPE) {
    throw fail(
      'InvalidSecretType',
      `${where}: Secret ${src.metadata.namespace}/${src.metadata.name} has type ${JSON.stringify(src.type ?? 'Opaque')}; Secrets referenced by an EventTrigger must be of type ${CLUSTER_PROFILE_SECRET_TYPE}`,
    );
  }
}

// Rendered texts already found valid: re-renders of unchanged content (every re-reconcile) skip the YAML parse.
const validYAML = new Set<string>();
const VALID_YAML_LIMIT = 4096;

/**
 * checkYAML fails when rendered content is not YAML (the deployer would fail on it later, far from the cause). It reads
 * the text as the deployer does (splitPolicyText, cached by text: in one process the deployer then parses nothing);
 * content that is YAML but not Kubernetes objects (Helm values) passes.
 */
function checkYAML(where: string, text: string): void {
  if (validYAML.has(text)) return;
  const split = splitPolicyText(text);
  if (!split.ok && split.invalidYAML) {
    // Errors are rare: parse again for the line and column.
    const err = parseAllDocuments(text, { ...SIGS_YAML_OPTIONS, prettyErrors: true }).find((d) => d.errors.length > 0)?.errors[0];
    const pos = err?.linePos?.[0];
    const at = pos ? ` at line ${pos.line}, column ${pos.col}` : '';
    throw fail('InvalidYAML', `${where}: invalid YAML after rendering${at}: ${err ? err.message.split('\n')[0] : split.message}`);
  }
  if (validYAML.size >= VALID_YAML_LIMIT) validYAML.delete(validYAML.values().next().value as string);
  validYAML.add(text);
}

/** withHash stamps the content hash annotation (computed without it). */
function withHash(obj: GeneratedObject): GeneratedObject {
  const h = contentHash(obj);
  obj.metadata.annotations = { ...obj.metadata.annotations, [RippleAnnotations.hash]: h };
  return obj;
}

/** newEventData builds a fresh dot for one event: resource maps are copied because template functions mutate them. */
function newEventData(ctx: RenderContext, e: ReportEvent): GoValue {
  const cluster = decodeJSON(ctx.clusterJSON, { numbers: 'int64' });
  const clusterMap = isGoMap(cluster) ? cluster : {};
  if (e.id === 'all') {
    return allEventsData({
      refs: e.refs ?? [],
      resources: (e.resources ?? []).map(copyMap),
      cloudEvents: (e.cloudEvents ?? []).map(copyMap),
      cluster: clusterMap,
    });
  }
  return oneEventData({
    ref: e.ref,
    resource: e.resource ? copyMap(e.resource) : null,
    cloudEvent: e.cloudEvent ? copyMap(e.cloudEvent) : null,
    cluster: clusterMap,
  });
}

const copyMap = (m: GoMap): GoMap => structuredClone(m);

// legacyEventFields: per source object (the informer hands out a new object per change), which event-data fields
// its templates read. Texts that do not parse with the event function map are not event-stage templates.
const legacyMemo = new WeakMap<object, Map<FuncMap, string[]>>();

/** legacyEventFields returns the event-data fields (`.Resource`, …) the data values of a ConfigMap/Secret read. */
export function legacyEventFields(src: SourceObject, funcs: FuncMap): string[] {
  let byFuncs = legacyMemo.get(src);
  const hit = byFuncs?.get(funcs);
  if (hit) return hit;
  const found = new Set<string>();
  for (const raw of Object.values(src.data ?? {})) {
    const text = src.kind === 'Secret' ? Buffer.from(raw, 'base64').toString('utf8') : raw;
    if (!text.includes('{{')) continue;
    try {
      for (const f of eventDataFields(parseCached('legacy-check', text, { funcs, missingKey: 'error' }))) found.add(f);
    } catch (e) {
      if (!(e instanceof TemplateError)) throw e;
    }
  }
  const fields = [...found].sort();
  if (!byFuncs) legacyMemo.set(src, (byFuncs = new Map()));
  byFuncs.set(funcs, fields);
  return fields;
}
