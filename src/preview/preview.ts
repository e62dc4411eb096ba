// preview.ts: the offline preview — given the management cluster's objects, clusters and sample resources, run the
// three stages the controllers run, through their own functions, against simulated clusters:
//   match     (the agent)         src/match compiles each EventSource and selects the sample resources of a cluster;
//                                  src/agent builds the EventReport from the selection
//   generate  (the event manager) src/events reportEvents → renderEvents → findCollisions: instantiated
//                                  ConfigMaps/Secrets and ClusterProfiles, written into the simulated management cluster
//   deploy    (the deployer)      for every ClusterProfile/Profile (given, generated, or deployed Local by another
//                                  one): src/clusters selection, src/addons resolvePolicyRefs → renderDesired → plan,
//                                  applied to the simulated target clusters
// Nothing is contacted. What the controllers would report as a failure is a PreviewProblem with the exact message.
import {
  Annotations,
  SVELTOS_NAMESPACE,
  normalizeAs,
  splitApiVersion,
  type ClusterProfile,
  type ClusterProfileSpec,
  type EventReport,
  type EventSource,
  type EventTrigger,
  type LabelSelector,
  type ObjectReference,
  type Profile,
} from '../api/index.js';
import {
  ADOPTED_ANNOTATION,
  FLUX_SOURCE_VERSIONS,
  KUSTOMIZE_FEATURE,
  PolicyRenderer,
  buildKustomizationRef,
  featureFailureOf,
  isFluxKind,
  kustomizeResolvedRef,
  readKustomizeValues,
  renderReferenceName,
  tarballOf,
  type FluxPolicyLookup,
  type ResolvedRef,
  clusterSummaryName,
  identityKey,
  identityOf,
  luaPolicyRunner,
  type ObjectIdentity,
  missingTemplateResource,
  plan,
  renderDesired,
  resolvePolicyRefs,
  resolveTemplateResourceRefs,
  type DesiredObject,
  type FeatureFailure,
  type ProfileKind,
  type Target,
} from '../addons/index.js';
import { buildManagementReport, encodeEventReportResources, formatDiagnostic, objectReferenceOf } from '../agent/index.js';
import { MANAGEMENT_CLUSTER, clusterTypeOf, matchClusterEntries, selectClusters, toEntry, type ClusterEntry, type ClusterRefLike } from '../clusters/index.js';
import { EventError, findCollisions, renderEvents, reportEvents, type GeneratedObject, type ReportEvents, type SourceObject } from '../events/index.js';
import { eventFuncMap, renderClusterTemplate } from '../funcs/index.js';
import { decodeJSON, TemplateError, type FuncMap, type GoValue } from '../gotemplate/index.js';
import type { KubeObject } from '../kube/index.js';
import { apiVersionOf, compileEventSource, type CompiledEventSource, type GroupVersionKind } from '../match/index.js';
import { crdScope } from './scopes.js';
import type {
  ClusterView,
  DeployAction,
  DeploymentView,
  PreviewInput,
  PreviewOptions,
  PreviewProblem,
  PreviewResult,
  PreviewSource,
  PreviewStage,
  ProfileView,
} from './types.js';
import { SimCluster } from './world.js';

const CONFIG_GROUP = 'config.projectsveltos.io';
const CLUSTER_PROFILE_API = `${CONFIG_GROUP}/v1beta1`;

/** runPreview runs the match, generate and deploy stages over the input; see the file comment. */
export async function runPreview(input: PreviewInput, options: PreviewOptions): Promise<PreviewResult> {
  const p = new Preview(options);
  p.load(input);
  p.generate();
  await p.deploy();
  return p.result;
}

interface TriggerItem {
  trigger: EventTrigger;
  kind: 'EventTrigger' | 'EventBasedAddOn';
}

interface ProfileItem {
  kind: ProfileKind;
  profile: ClusterProfile | Profile;
  view: ProfileView;
  depth: number;
}

/** Preview holds the simulated clusters and the result while the stages run. */
class Preview {
  readonly result: PreviewResult = { clusters: [], matches: [], generated: [], deployments: [], problems: [], notes: [] };
  private readonly namespace: string;
  private readonly maxChain: number;
  private mgmt!: SimCluster;
  private readonly stores = new Map<string, SimCluster>();
  private readonly entries = new Map<string, ClusterEntry>();
  private readonly triggers: TriggerItem[] = [];
  private readonly eventSources = new Map<string, EventSource>();
  private readonly compiled = new Map<string, CompiledEventSource>();
  private readonly queue: ProfileItem[] = [];
  /** Deployed profiles already queued, by identity → content, so one deployed to several clusters runs once. */
  private readonly queuedDeployed = new Map<string, string>();
  private readonly crds: KubeObject[] = [];
  private readonly renderer: PolicyRenderer;
  private readonly eventFuncs: FuncMap;
  private sources: readonly PreviewSource[] = [];

  constructor(private readonly options: PreviewOptions) {
    this.namespace = options.namespace ?? SVELTOS_NAMESPACE;
    this.maxChain = options.maxChain ?? 8;
    this.renderer = new PolicyRenderer(options.funcOptions);
    this.eventFuncs = eventFuncMap(options.funcOptions);
  }

  private problem(stage: PreviewStage, code: string, where: string, message: string): void {
    this.result.problems.push({ stage, code, where, message });
  }

  private note(stage: PreviewStage, where: string, message: string): void {
    this.result.notes.push({ stage, where, message });
  }

  // ---- input -------------------------------------------------------------------------------------------------

  /** load sorts the input into the simulated management cluster, the clusters and their stores. */
  load(input: PreviewInput): void {
    this.sources = input.sources ?? [];
    for (const o of [...input.management, ...(input.live ?? []), ...input.clusters, ...input.resources]) if (crdScope(o)) this.crds.push(o);
    this.mgmt = this.newStore('mgmt', [this.namespace]);
    const clusterObjects = new Map<string, KubeObject>();
    const profiles: ProfileItem[] = [];
    const byTrigger = new Map<string, TriggerItem>();
    for (const raw of input.management) {
      const o = this.withNamespace(raw);
      this.mgmt.put(o, 'input');
      const where = `${o.kind} ${o.metadata.namespace ? `${o.metadata.namespace}/` : ''}${o.metadata.name}`;
      const group = splitApiVersion(o.apiVersion).group;
      if ((o.kind === 'EventTrigger' || o.kind === 'EventBasedAddOn') && group === 'lib.projectsveltos.io') {
        const n = normalizeAs('EventTrigger', o);
        if (!n.ok) {
          this.problem('input', 'Invalid', where, n.issues.map((i) => `${i.path}: ${i.message}`).join('; '));
          continue;
        }
        const item: TriggerItem = { trigger: n.object as EventTrigger, kind: o.kind };
        const prev = byTrigger.get(o.metadata.name);
        // Identity is the name: an EventTrigger wins over an EventBasedAddOn of the same name (the event manager).
        if (prev && prev.kind !== item.kind) {
          const loser = prev.kind === 'EventBasedAddOn' ? prev : item;
          this.note('input', `EventBasedAddOn ${o.metadata.name}`, 'an EventTrigger of the same name exists: it wins, this EventBasedAddOn generates nothing (NameCollision)');
          if (loser === item) continue;
        }
        byTrigger.set(o.metadata.name, item);
      } else if (o.kind === 'EventSource' && group === 'lib.projectsveltos.io') {
        const n = normalizeAs('EventSource', o);
        if (!n.ok) this.problem('input', 'Invalid', where, n.issues.map((i) => `${i.path}: ${i.message}`).join('; '));
        else this.eventSources.set(o.metadata.name, n.object as EventSource);
      } else if ((o.kind === 'ClusterProfile' || o.kind === 'Profile') && group === CONFIG_GROUP) {
        const item = this.profileItem(o, { kind: o.kind, name: o.metadata.name, namespace: o.metadata.namespace, origin: 'input' }, 0);
        if (item) profiles.push(item);
      } else if (isClusterObject(o)) {
        clusterObjects.set(clusterId(o), o);
      }
    }
    for (const raw of input.live ?? []) this.mgmt.put(this.withNamespace(raw), 'live');
    for (const raw of input.clusters) {
      const o = this.withNamespace(raw);
      if (!isClusterObject(o)) {
        this.problem('input', 'Invalid', `${o.kind} ${o.metadata.name}`, 'a cluster must be a SveltosCluster (lib.projectsveltos.io) or a Cluster API Cluster (cluster.x-k8s.io)');
        continue;
      }
      clusterObjects.set(clusterId(o), o);
      this.mgmt.put(o, 'input');
    }
    for (const o of clusterObjects.values()) this.addCluster(o);
    this.result.clusters.sort((a, b) => (a.key < b.key ? -1 : a.key > b.key ? 1 : 0));
    this.triggers.push(...[...byTrigger.values()].sort((a, b) => (a.trigger.metadata.name < b.trigger.metadata.name ? -1 : 1)));
    this.queue.push(...profiles);
    if (this.triggers.length === 0 && profiles.length === 0) {
      this.problem('input', 'NothingToPreview', 'input', 'no EventTrigger, EventBasedAddOn, ClusterProfile or Profile was given: nothing to preview');
    }

    // Sample resources exist in every cluster an EventTrigger watches.
    const watched = new Set<string>();
    for (const t of this.triggers) for (const e of this.sourceClusters(t.trigger)) watched.add(e.key);
    if (input.resources.length > 0 && watched.size === 0) {
      this.note('input', '--resource', 'no EventTrigger selects any of the clusters: the sample resources are in no cluster');
    }
    for (const key of watched) {
      const store = this.stores.get(key)!;
      for (const raw of input.resources) store.put(this.withNamespace(raw), 'resource');
    }
  }

  private newStore(display: string, namespaces: string[] = []): SimCluster {
    const s = new SimCluster(display, namespaces);
    for (const c of this.crds) s.scopes.learn(c);
    return s;
  }

  /** withNamespace defaults the namespace of a namespaced object to `default` (kubectl apply) and drops a cluster-scoped one's. */
  private withNamespace(o: KubeObject): KubeObject {
    const namespaced = this.mgmt.scopes.namespaced(o.apiVersion, o.kind);
    if (namespaced === true && !o.metadata.namespace) return { ...o, metadata: { ...o.metadata, namespace: 'default' } };
    if (namespaced === false && o.metadata.namespace !== undefined) {
      const { namespace: _ns, ...metadata } = o.metadata;
      return { ...o, metadata: metadata as KubeObject['metadata'] };
    }
    return o;
  }

  private addCluster(o: KubeObject): void {
    const type = clusterTypeOf(o.apiVersion)!;
    let entry = toEntry(o, type);
    const assumedReady = o.status === undefined;
    // Offline there is no readiness probe: a cluster object without status is taken as ready (and said so).
    if (assumedReady) entry = { ...entry, ready: true };
    this.entries.set(entry.key, entry);
    const isMgmt = type === 'Sveltos' && entry.ref.namespace === MANAGEMENT_CLUSTER.namespace && entry.ref.name === MANAGEMENT_CLUSTER.name;
    this.stores.set(entry.key, isMgmt ? this.mgmt : this.newStore(`${entry.ref.namespace}/${entry.ref.name}`));
    this.result.clusters.push({
      key: entry.key,
      type,
      namespace: entry.ref.namespace,
      name: entry.ref.name,
      labels: { ...entry.labels },
      ready: entry.ready,
      paused: entry.paused,
      assumedReady,
    });
    const where = `cluster ${entry.ref.namespace}/${entry.ref.name}`;
    if (!entry.ready) this.note('input', where, 'not ready (status): the controllers select only ready clusters, so nothing is previewed for it');
    if (entry.paused) this.note('input', where, 'paused (spec.paused): it stays selected but nothing is generated or deployed for it');
  }

  private profileItem(o: KubeObject, view: ProfileView, depth: number): ProfileItem | undefined {
    const kind = o.kind as ProfileKind;
    const n = normalizeAs(kind, o);
    if (!n.ok) {
      this.problem('deploy', 'Invalid', profileWhere(view), n.issues.map((i) => `${i.path}: ${i.message}`).join('; '));
      return undefined;
    }
    return { kind, profile: n.object as ClusterProfile | Profile, view, depth };
  }

  /** setSelection is status.selectedClusterRefs of a ClusterSet/Set, or what the ClusterSet controller would select. */
  private readonly setSelection = (kind: 'ClusterSet' | 'Set', namespace: string, name: string): readonly ClusterRefLike[] => {
    const set = this.mgmt.get('lib.projectsveltos.io/v1beta1', kind, kind === 'Set' ? namespace : undefined, name);
    if (!set) return [];
    const status = set.status as { selectedClusterRefs?: ClusterRefLike[] } | undefined;
    if (status?.selectedClusterRefs) return status.selectedClusterRefs;
    const spec = (set.spec ?? {}) as { clusterSelector?: LabelSelector; clusterRefs?: ClusterRefLike[]; maxReplicas?: number };
    const matching = matchClusterEntries(this.entries, { clusterSelector: spec.clusterSelector, clusterRefs: spec.clusterRefs, namespace: kind === 'Set' ? namespace : undefined });
    return selectClusters(
      [],
      matching.filter((e) => e.connectionStatus !== 'Down'),
      spec.maxReplicas,
    ).map((e) => e.ref);
  };

  private sourceClusters(t: EventTrigger): ClusterEntry[] {
    return matchClusterEntries(this.entries, { clusterSelector: t.spec.sourceClusterSelector, clusterSetRefs: t.spec.clusterSetRefs }, { includePaused: true }, this.setSelection);
  }

  private clusterList(): string {
    const list = this.result.clusters.map((c) => `${c.namespace}/${c.name} ${JSON.stringify(c.labels)}`);
    return list.length > 0 ? list.join(', ') : 'none';
  }

  // ---- match + generate ---------------------------------------------------------------------------------------

  /** generate runs the agent's matching and the event manager's rendering for every (trigger, source cluster). */
  generate(): void {
    for (const item of this.triggers) {
      const t = item.trigger;
      const tWhere = `${item.kind} ${t.metadata.name}`;
      if (t.metadata.annotations?.[Annotations.capiPaused] !== undefined) {
        this.note('generate', tWhere, `paused (${Annotations.capiPaused}): the event manager keeps its outputs and writes nothing`);
        continue;
      }
      const clusters = this.sourceClusters(t);
      if (clusters.length === 0) {
        this.problem(
          'match',
          'NoMatchingCluster',
          tWhere,
          `sourceClusterSelector ${JSON.stringify(t.spec.sourceClusterSelector ?? {})}${t.spec.clusterSetRefs?.length ? ` / clusterSetRefs ${t.spec.clusterSetRefs.join(',')}` : ''} selects none of the clusters (${this.clusterList()}); add one with --cluster NAME:KEY=VALUE,… or --cluster-object FILE`,
        );
        continue;
      }
      for (const e of clusters) this.generateFor(item, e);
    }
  }

  private generateFor(item: TriggerItem, e: ClusterEntry): void {
    const t = item.trigger;
    const cluster = `${e.ref.namespace}/${e.ref.name}`;
    const where = `${item.kind} ${t.metadata.name}, cluster ${cluster}`;
    if (e.paused) {
      this.note('generate', where, 'the cluster is paused: nothing is generated for it');
      return;
    }
    const clusterJSON = JSON.stringify(e.object);
    // Go: libsveltos GetEventSourceName — html/template with the cluster's data (as the event manager renders it).
    let es = t.spec.eventSourceName ?? '';
    if (es.includes('{{') || es === '') {
      try {
        es = renderClusterTemplate(t.metadata.name, es, { Cluster: decodeJSON(clusterJSON, { numbers: 'int64' }) as GoValue, ClusterNamespace: e.ref.namespace, ClusterName: e.ref.name }, this.options.funcOptions);
      } catch (err) {
        if (!(err instanceof TemplateError)) throw err;
        this.problem('generate', err.code === 'parse' ? 'TemplateParse' : 'TemplateExec', where, `eventSourceName: ${err.message}`);
        return;
      }
    }
    const source = this.eventSources.get(es);
    if (!source) {
      this.problem('match', 'EventSourceNotFound', where, `EventSource ${es} does not exist in the management cluster: the agent reports EventSourceNotFound and nothing is generated. Add it to the -f files`);
      return;
    }
    const compiled = this.compile(source);
    const store = this.stores.get(e.key)!;
    const all = store.list().map((s) => s.object);
    const watched: KubeObject[] = [];
    const objectsOf = (gvk: GroupVersionKind): KubeObject[] => {
      const apiVersion = apiVersionOf(gvk.group, gvk.version);
      const out = all.filter((o) => o.kind === gvk.kind && o.apiVersion === apiVersion).sort((a, b) => compareKeys(nsName(a), nsName(b)));
      for (const o of all) {
        if (o.kind === gvk.kind && o.apiVersion !== apiVersion && splitApiVersion(o.apiVersion).group === gvk.group) {
          this.note('match', where, `${o.kind} ${nsName(o)} is ${o.apiVersion} but EventSource ${es} watches ${apiVersion}: not evaluated (offline there is no version conversion)`);
        }
      }
      for (const o of out) if (!watched.includes(o)) watched.push(o);
      return out;
    };
    const sel = compiled.select((gvk) => objectsOf(gvk) as unknown as Record<string, unknown>[]);
    const compileProblems = new Set(compiled.diagnostics.map((d) => `${d.field}|${d.message}`));
    for (const d of sel.diagnostics) {
      if (compileProblems.has(`${d.field}|${d.message}`)) continue;
      // A failing evaluateCEL rule is not a failure while another rule or the Lua script decides (the agent).
      if (d.code === 'cel-evaluate') this.note('match', where, `EventSource ${es}: ${formatDiagnostic(d)}`);
      else this.problem('match', 'EvaluationFailed', where, `EventSource ${es}: ${formatDiagnostic(d)}`);
    }
    const matchedObjects = sel.resources as unknown as KubeObject[];
    const matched = matchedObjects.map((o) => objectReferenceOf(o));
    const unmatched = watched.filter((o) => !matchedObjects.includes(o)).map((o) => objectReferenceOf(o));
    const collect = compiled.collectResources;
    const report = buildManagementReport(
      { clusterNamespace: e.ref.namespace, clusterName: e.ref.name, clusterType: e.type },
      { eventSourceName: es, matchingResources: matched, ...(collect ? { resources: encodeEventReportResources(matchedObjects) } : {}) },
    ) as unknown as EventReport;
    this.result.matches.push({ trigger: t.metadata.name, triggerKind: item.kind, cluster, eventSource: es, eventReport: report.metadata.name, matched, unmatched });
    if (matched.length === 0) {
      this.note('match', where, `no resource matches EventSource ${es}${watched.length === 0 ? ' (no sample resource of a kind it watches: pass some with --resource FILE)' : ''}: nothing is generated`);
      return;
    }

    const oneForEvent = t.spec.oneForEvent === true;
    let events: ReportEvents;
    try {
      events = reportEvents(report, oneForEvent);
    } catch (err) {
      if (!(err instanceof EventError)) throw err;
      for (const i of err.issues) this.problem('generate', i.code, where, i.message);
      return;
    }
    const id = { type: e.type, namespace: e.ref.namespace, name: e.ref.name };
    const rendered = renderEvents(
      {
        trigger: { name: t.metadata.name, kind: item.kind, spec: t.spec, labels: t.metadata.labels ?? {}, annotations: t.metadata.annotations ?? {} },
        cluster: { ...id, apiVersion: e.ref.apiVersion, kind: e.ref.kind },
        clusterJSON,
        eventSourceName: es,
        funcs: this.eventFuncs,
        lookup: (kind, ns, name) => this.mgmt.get('v1', kind, ns, name) as SourceObject | undefined,
        namespace: this.namespace,
      },
      events.events,
    );
    for (const l of rendered.legacy) {
      this.note('generate', where, `${l.kind} ${l.namespace}/${l.name} reads ${l.fields.join(', ')} without ${Annotations.instantiate}: instantiated as older Sveltos releases did (add the annotation)`);
    }
    const collisions = findCollisions(
      rendered.events,
      (kind, ns, name) => this.mgmt.get(kind === 'ClusterProfile' ? CLUSTER_PROFILE_API : 'v1', kind, ns, name) as GeneratedObject | undefined,
      { trigger: t.metadata.name, cluster: id },
    );
    for (const r of rendered.events) {
      const c = collisions.get(r.id);
      if (c) r.issues.push(c);
      const ew = `${where}, event ${r.id}`;
      if (r.issues.length > 0) {
        for (const i of r.issues) this.problem('generate', i.code, ew, i.message);
        continue;
      }
      if (r.action === 'delete') {
        this.note('generate', ew, 'cloudEventAction Delete: what this event generated would be removed');
        continue;
      }
      for (const o of [...r.objects, ...(r.profile ? [r.profile] : [])]) {
        this.mgmt.put(o, 'generated');
        this.result.generated.push({ trigger: t.metadata.name, triggerKind: item.kind, cluster, event: r.id, object: o });
      }
      if (r.profile) {
        const p = this.profileItem(r.profile, { kind: 'ClusterProfile', name: r.profile.metadata.name, origin: 'generated', by: `${item.kind}/${t.metadata.name}` }, 0);
        if (p) this.queue.push(p);
      }
    }
  }

  private compile(source: EventSource): CompiledEventSource {
    let c = this.compiled.get(source.metadata.name);
    if (!c) {
      c = compileEventSource(source, this.options.runtime);
      this.compiled.set(source.metadata.name, c);
      for (const d of c.diagnostics) {
        if (d.code === 'cel-compile') this.note('match', `EventSource ${source.metadata.name}`, formatDiagnostic(d));
        else this.problem('match', 'InvalidEventSource', `EventSource ${source.metadata.name}`, formatDiagnostic(d));
      }
    }
    return c;
  }

  // ---- deploy ------------------------------------------------------------------------------------------------

  /** deploy previews every queued profile in order; profiles deployed Local by one are queued after it. */
  async deploy(): Promise<void> {
    for (let item = this.queue.shift(); item; item = this.queue.shift()) await this.deployProfile(item);
  }

  private async deployProfile(item: ProfileItem): Promise<void> {
    const { kind, profile, view } = item;
    const spec: ClusterProfileSpec = profile.spec ?? ({} as ClusterProfileSpec);
    const pWhere = profileWhere(view);
    if (profile.metadata.annotations?.[Annotations.profilePaused] !== undefined) {
      this.note('deploy', pWhere, `paused (${Annotations.profilePaused}): nothing is deployed`);
      return;
    }
    const namespace = kind === 'Profile' ? profile.metadata.namespace : undefined;
    const clusters = matchClusterEntries(
      this.entries,
      { clusterSelector: spec.clusterSelector, clusterRefs: spec.clusterRefs, clusterSetRefs: spec.setRefs, namespace },
      { includePaused: true },
      this.setSelection,
    );
    if (clusters.length === 0) {
      const sel = [
        spec.clusterSelector ? `clusterSelector ${JSON.stringify(spec.clusterSelector)}` : '',
        spec.clusterRefs?.length ? `clusterRefs ${spec.clusterRefs.map((r) => `${r.kind ?? ''} ${r.namespace ?? ''}/${r.name ?? ''}`).join(', ')}` : '',
        spec.setRefs?.length ? `setRefs ${spec.setRefs.join(', ')}` : '',
      ].filter((s) => s !== '');
      this.problem(
        'deploy',
        'NoMatchingCluster',
        pWhere,
        `${sel.length > 0 ? sel.join('; ') : 'no clusterSelector, clusterRefs or setRefs'} selects none of the clusters (${this.clusterList()}): nothing would be deployed; add the cluster with --cluster NAME:KEY=VALUE,… or --cluster-object FILE`,
      );
      return;
    }
    const unsupported = [['helmCharts', (spec.helmCharts ?? []).length]] as const;
    for (const [what, count] of unsupported) {
      if (count > 0) this.problem('deploy', 'NotSupported', pWhere, `${what} are not supported by Ripple yet: ${count} ${what} of this profile would NOT be deployed (the feature is reported FailedNonRetriable)`);
    }
    const ignored = (['patchesFrom'] as const).filter((k) => (spec[k] ?? []).length > 0) as string[];
    const live = [...(['preDeployChecks', 'validateHealths', 'preDeleteChecks', 'postDeleteChecks'] as const).filter((k) => (spec[k] ?? []).length > 0), ...(spec.reloader ? ['reloader'] : [])];
    if (live.length > 0) this.note('deploy', pWhere, `${live.join(', ')}: acted on by the deployer in the live cluster (health gating, rolling restarts), not simulated offline`);
    if (ignored.length > 0) this.note('deploy', pWhere, `${ignored.join(', ')} ${ignored.length > 1 ? 'are' : 'is'} not evaluated by Ripple yet`);
    if ((spec.dependsOn ?? []).length > 0) {
      this.note('deploy', pWhere, `dependsOn ${spec.dependsOn!.join(', ')}: deployed only once those profiles are Provisioned in the same cluster (not simulated: their own previews are shown if they were given)`);
    }
    for (const e of clusters) await this.deployTo(item, spec, e);
  }

  private async deployTo(item: ProfileItem, spec: ClusterProfileSpec, e: ClusterEntry): Promise<void> {
    const { kind, profile, view } = item;
    const cluster = `${e.ref.namespace}/${e.ref.name}`;
    const where = `${profileWhere(view)}, cluster ${cluster}`;
    if (e.paused) {
      this.note('deploy', where, 'the cluster is paused: nothing is deployed to it');
      return;
    }
    const dryRun = spec.syncMode === 'DryRun';
    const dv: DeploymentView = {
      profile: view,
      cluster,
      clusterType: e.type,
      clusterSummary: clusterSummaryName(kind, profile.metadata.name, e.type, e.ref.name),
      syncMode: spec.syncMode ?? 'Continuous',
      actions: [],
    };
    this.result.deployments.push(dv);
    if (dryRun) this.note('deploy', where, 'syncMode DryRun: nothing is applied; the actions below are what the ClusterReport would list');
    const fail = (f: FeatureFailure, hint = '') => {
      dv.failure = { reason: f.reason, message: f.message };
      this.problem('deploy', f.reason, where, f.message + hint);
    };
    const names = { cluster: e.object, clusterNamespace: e.ref.namespace, clusterName: e.ref.name };
    const profileId = { kind, name: profile.metadata.name, namespace: profile.metadata.namespace };
    const policies = resolvePolicyRefs(spec, profileId, names, (k, ns, name) => this.mgmt.get('v1', k, ns, name), this.options.funcOptions, this.fluxLookup);
    if (!policies.ok) return fail(policies.failure, policies.failure.reason === 'ReferenceNotFound' ? ' (pass it with -f FILE, or a Flux source\'s files with --source KIND/NAMESPACE/NAME=DIR)' : '');
    for (const w of policies.warnings) this.note('deploy', where, w);
    const trrs = resolveTemplateResourceRefs(spec, names, this.options.funcOptions);
    if (!trrs.ok) return fail(trrs.failure);
    const mgmtResources: Record<string, KubeObject> = {};
    for (const t of trrs.refs) {
      const stored = this.mgmt.getStored(t.resource.apiVersion, t.resource.kind, t.ns, t.nm) ?? this.mgmt.getStored(t.resource.apiVersion, t.resource.kind, undefined, t.nm);
      if (!stored) {
        if (t.optional) continue;
        return fail(missingTemplateResource(t), ' (pass the management cluster\'s object with --mgmt-resource FILE)');
      }
      if (stored.from === 'deployed' || stored.from === 'generated') {
        this.note('deploy', where, `templateResourceRefs ${t.identifier} reads ${t.resource.kind} ${t.ns}/${t.nm} as this preview ${stored.from} it (fields other controllers write, such as status, are missing: pass the live object with --mgmt-resource FILE)`);
      }
      mgmtResources[t.identifier] = stored.object;
    }
    const remote = this.stores.get(e.key)!;
    const storeOf = (target: Target) => (target === 'Local' ? this.mgmt : remote);
    const rendered = await renderDesired(
      { spec, profile: profileId, cluster: { type: e.type, namespace: e.ref.namespace, name: e.ref.name, object: e.object }, refs: policies.refs, mgmtResources, lua: luaPolicyRunner(this.options.runtime) },
      this.renderer,
      async (target, apiVersion, k) => storeOf(target).scopes.namespaced(apiVersion, k),
      async () => this.capiObjects(e),
    );
    if (!rendered.ok) {
      return fail(
        rendered.failure,
        rendered.failure.reason === 'KindNotInstalled' ? ' (offline, the built-in kinds, Sveltos\' kinds and the CustomResourceDefinitions given or deployed are known: pass its CRD with -f FILE)' : '',
      );
    }
    for (const m of rendered.failures) this.problem('deploy', 'KindNotInstalled', where, m);
    // kustomizationRefs: built from the sources given (--source, or a ConfigMap/Secret tarball given with -f), through
    // the same rendering tail with the Kustomize stamps; planned together with the policyRefs' objects.
    if ((spec.kustomizationRefs ?? []).length > 0) {
      const k = await this.kustomizeDesired(spec, profileId, e, names, dv.clusterSummary, storeOf);
      if (!k.ok) {
        dv.failure = { reason: k.failure.reason, message: k.failure.message };
        this.problem('deploy', k.failure.reason, where, k.failure.message);
      } else {
        for (const m of k.failures) this.problem('deploy', 'KindNotInstalled', where, m);
        rendered.desired.push(...k.desired);
      }
    }
    const observed = new Map<string, KubeObject | null>();
    for (const d of rendered.desired) {
      const o = d.object;
      const stored = storeOf(d.target).getStored(o.apiVersion, o.kind, o.metadata.namespace, o.metadata.name);
      // A live object without stamps is the live state of this very object (see PreviewInput.live), not a stranger's.
      const live = stored?.from === 'live' && stored.object.metadata.annotations?.[Annotations.clusterSummary] === undefined;
      observed.set(identityKey(identityOf(d.target, o)), stored && !live ? stored.object : null);
    }
    const namespaces = new Set<string>();
    for (const n of this.mgmt.namespaces()) namespaces.add(`Local:${n}`);
    for (const n of remote.namespaces()) namespaces.add(`Remote:${n}`);
    const actions = plan({ desired: rendered.desired, observed, deployed: [], namespaces });
    const byKey = new Map<string, DesiredObject>(rendered.desired.map((d) => [identityKey(identityOf(d.target, d.object)), d]));
    let conflicted = false;
    // Where an action's object goes and what it is.
    const about = (id: ObjectIdentity) => ({
      target: id.target,
      targetCluster: storeOf(id.target).display,
      apiVersion: id.apiVersion,
      kind: id.kind,
      namespace: id.namespace,
      name: id.name,
    });
    for (const a of actions) {
      switch (a.type) {
        case 'createNamespace': {
          const ns: KubeObject = { apiVersion: 'v1', kind: 'Namespace', metadata: { name: a.name } };
          dv.actions.push({ type: 'createNamespace', target: a.target, targetCluster: storeOf(a.target).display, apiVersion: 'v1', kind: 'Namespace', name: a.name, object: ns, subresources: [] });
          if (!dryRun) storeOf(a.target).put(ns, 'deployed');
          break;
        }
        case 'apply':
        case 'unchanged': {
          const d = byKey.get(identityKey(a.id));
          const current = observed.get(identityKey(a.id));
          const adopting = a.type === 'apply' && a.object.metadata.annotations?.[ADOPTED_ANNOTATION] !== undefined && current?.metadata.annotations?.[ADOPTED_ANNOTATION] === undefined;
          const type = a.type === 'unchanged' ? 'unchanged' : adopting ? 'adopt' : a.op;
          const action: DeployAction = { type, ...about(a.id), object: a.object, subresources: [...(d?.subresources ?? [])], source: d?.source };
          if (adopting) action.message = 'exists without Sveltos stamps: adopted (Ripple releases it on withdrawal instead of deleting it)';
          dv.actions.push(action);
          if (!dryRun && a.type === 'apply') {
            storeOf(a.id.target).apply(a.object);
            if (a.id.target === 'Local') this.follow(item, a.object, where);
          }
          break;
        }
        case 'conflict': {
          conflicted = true;
          dv.actions.push({ type: 'conflict', ...about(a.id), subresources: [], source: byKey.get(identityKey(a.id))?.source, message: a.message.trim() });
          this.problem('deploy', 'Conflict', where, a.message.trim());
          break;
        }
        case 'delete':
        case 'release':
        case 'strip':
          // A preview deploys for the first time: nothing was deployed before, so nothing is stale.
          break;
      }
    }
    if (conflicted && !spec.continueOnConflict) {
      dv.failure = { reason: 'ConflictError', message: 'a conflict stops the deployment: objects after it in the list are not applied (continueOnConflict: true goes on)' };
    }
  }

  /** sourceFor finds the local copy (--source) of a source; kind undefined in the copy matches any Flux kind. */
  private sourceFor(kind: string, namespace: string, name: string): PreviewSource | undefined {
    return this.sources.find((s) => s.namespace === namespace && s.name === name && (s.kind === kind || (s.kind === undefined && isFluxKind(kind))));
  }

  /** fluxLookup answers Flux policyRefs from --source directories (the artifact's files). */
  private readonly fluxLookup: FluxPolicyLookup = (kind, namespace, name) => {
    const given = this.sourceFor(kind, namespace, name);
    const apiVersion = FLUX_SOURCE_VERSIONS[kind];
    const stored = this.mgmt.get(apiVersion, kind, namespace, name);
    const object = stored ?? { apiVersion, kind, metadata: { name, namespace } };
    if (given) return { object, files: new Map([...given.files].map(([k, v]) => [k, typeof v === 'string' ? v : Buffer.from(v).toString('utf8')])) };
    if (stored) return { object, failure: { message: `offline, its artifact cannot be downloaded: pass a local copy with --source ${kind}/${namespace}/${name}=DIR`, reason: 'SourceNotGiven', nonRetriable: true } };
    return undefined;
  };

  /** kustomizeDesired builds a profile's kustomizationRefs for one cluster into stamped desired objects. */
  private async kustomizeDesired(
    spec: ClusterProfileSpec,
    profileId: { kind: ProfileKind; name: string; namespace?: string },
    e: ClusterEntry,
    names: { cluster: unknown; clusterNamespace: string; clusterName: string },
    summaryName: string,
    storeOf: (t: Target) => SimCluster,
  ): Promise<{ ok: true; desired: DesiredObject[]; failures: string[] } | { ok: false; failure: FeatureFailure }> {
    const fo = this.options.funcOptions;
    const refs: ResolvedRef[] = [];
    const data = this.renderer.dataFor({ cluster: e.object, mgmtResources: {} });
    for (const [i, ref] of (spec.kustomizationRefs ?? []).entries()) {
      const where = `kustomizationRefs[${i}]`;
      const fail = (message: string, reason = 'InvalidReference') => ({ ok: false as const, failure: { message, reason, nonRetriable: true } });
      if (ref.remoteURL || !ref.kind) return fail(`${where}: ${ref.remoteURL ? `remoteURL ${ref.remoteURL.url}` : 'a reference without kind'} is not supported by Ripple yet`, 'NotSupported');
      const ns = renderReferenceName(`${where}.namespace`, ref.namespace ?? '', names, fo);
      const nm = renderReferenceName(`${where}.name`, ref.name ?? '', names, fo);
      if (!ns.ok || !nm.ok) return fail(`${where}: ${!ns.ok ? ns.message : !nm.ok ? nm.message : ''}`, 'TemplateError');
      const kind = ref.kind;
      const given = this.sourceFor(kind, ns.text, nm.text);
      let files: ReadonlyMap<string, string | Uint8Array> | undefined = given?.files;
      try {
        if (!files && (kind === 'ConfigMap' || kind === 'Secret')) {
          const o = this.mgmt.get('v1', kind, ns.text, nm.text);
          if (o) files = tarballOf(kind, o, `${where} (${kind} ${ns.text}/${nm.text})`);
        }
        if (!files) {
          if (ref.optional) continue;
          const flux = isFluxKind(kind);
          return fail(
            `${where}: referenced ${kind} ${ns.text}/${nm.text} ${flux ? 'has no local copy' : 'does not exist'}: pass its files with --source ${kind}/${ns.text}/${nm.text}=DIR${flux ? '' : ' (or the object with -f FILE)'}`,
            'ReferenceNotFound',
          );
        }
        const values = readKustomizeValues(ref, where, names, (k, n, m) => this.mgmt.get('v1', k, n, m), fo);
        const source = { index: i, ref, kind, namespace: ns.text, name: nm.text, values };
        const objects = buildKustomizationRef(source, files, { renderer: this.renderer, data, clusterNamespace: e.ref.namespace, clusterName: e.ref.name, summaryName });
        refs.push(kustomizeResolvedRef(source, objects));
      } catch (err) {
        const f = featureFailureOf(err);
        if (!f) throw err;
        return { ok: false, failure: f };
      }
    }
    const rendered = await renderDesired(
      { spec, profile: profileId, cluster: { type: e.type, namespace: e.ref.namespace, name: e.ref.name, object: e.object }, refs, mgmtResources: {}, reason: KUSTOMIZE_FEATURE },
      this.renderer,
      async (target, apiVersion, k) => storeOf(target).scopes.namespaced(apiVersion, k),
    );
    return rendered;
  }

  /** follow queues a ClusterProfile/Profile this deployment put into the management cluster (seed 000's chain). */
  private follow(parent: ProfileItem, o: KubeObject, where: string): void {
    if ((o.kind !== 'ClusterProfile' && o.kind !== 'Profile') || splitApiVersion(o.apiVersion).group !== CONFIG_GROUP) {
      if (o.kind === 'EventTrigger' && splitApiVersion(o.apiVersion).group === 'lib.projectsveltos.io') {
        this.note('deploy', where, `deploys EventTrigger ${o.metadata.name} to the management cluster: not previewed (pass it with -f to preview it)`);
      }
      return;
    }
    const id = `${o.kind}|${o.metadata.namespace ?? ''}|${o.metadata.name}`;
    const content = JSON.stringify({ spec: o.spec, labels: o.metadata.labels, annotations: o.metadata.annotations });
    if (this.queuedDeployed.get(id) === content) return;
    this.queuedDeployed.set(id, content);
    const view: ProfileView = { kind: o.kind, namespace: o.metadata.namespace, name: o.metadata.name, origin: 'deployed', by: `${parent.view.kind}/${parent.view.name}` };
    if (parent.depth + 1 > this.maxChain) {
      this.problem('deploy', 'ChainTooDeep', profileWhere(view), `more than ${this.maxChain} profiles deploy one another: not followed further`);
      return;
    }
    const item = this.profileItem(o, view, parent.depth + 1);
    if (item) this.queue.push(item);
  }

  /** capiObjects finds a Cluster API cluster's control plane and infrastructure objects in the management cluster. */
  private capiObjects(e: ClusterEntry): { kubeadmControlPlane?: unknown; infrastructureProvider?: unknown } {
    const spec = (e.object.spec ?? {}) as Record<string, { apiVersion?: string; apiGroup?: string; kind?: string; name?: string; namespace?: string } | undefined>;
    const read = (ref: (typeof spec)[string]) => {
      if (!ref?.kind || !ref.name) return undefined;
      const apiVersion = ref.apiVersion ?? (ref.apiGroup ? `${ref.apiGroup}/any` : undefined);
      return apiVersion ? this.mgmt.get(apiVersion, ref.kind, ref.namespace ?? e.ref.namespace, ref.name) : undefined;
    };
    return { kubeadmControlPlane: read(spec.controlPlaneRef), infrastructureProvider: read(spec.infrastructureRef) };
  }
}

function isClusterObject(o: KubeObject): boolean {
  const type = clusterTypeOf(o.apiVersion);
  return (type === 'Sveltos' && o.kind === 'SveltosCluster') || (type === 'Capi' && o.kind === 'Cluster');
}

function clusterId(o: KubeObject): string {
  return `${o.kind}|${o.metadata.namespace ?? ''}|${o.metadata.name}`;
}

function nsName(o: { metadata: { namespace?: string; name: string } }): string {
  return o.metadata.namespace ? `${o.metadata.namespace}/${o.metadata.name}` : o.metadata.name;
}

function compareKeys(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

function profileWhere(v: ProfileView): string {
  const by = v.origin === 'generated' ? ` (generated by ${v.by})` : v.origin === 'deployed' ? ` (deployed by ${v.by})` : '';
  return `${v.kind} ${v.namespace ? `${v.namespace}/` : ''}${v.name}${by}`;
}

/** describeRef names an object reference as `Kind namespace/name`. */
export function describeRef(r: ObjectReference): string {
  return `${r.kind ?? '?'} ${r.namespace ? `${r.namespace}/` : ''}${r.name ?? ''}`;
}
