// get: what runs in a management cluster, as tables — like `kubectl get` for Ripple's (and Sveltos') objects and
// like `sveltosctl show addons` for what was deployed where: clusters (readiness, version, connection), EventSources
// (what they watch, how much matches), EventTriggers (clusters, failures, generated profiles), EventReports
// (matching resources, phase), profiles (clusters, progress, the trigger that generated them) and add-ons (every
// deployed object, by which profile/trigger, when — read from the ClusterSummaries and the objects' own stamps).
// `ripple show addons` is `ripple get addons --features` under its old name.
import { homedir } from 'node:os';
import { join } from 'node:path';
import { stringify } from 'yaml';
import { Annotations, EventBasedAddOnLabels, EventTriggerLabels, Labels, normalize, type ClusterType } from '../../api/index.js';
import { FIELD_MANAGER, clusterSummaryAnnotationValue, parseGvkString } from '../../addons/index.js';
import { K8S_VERSION_LABEL, clusterTypeOf, kubeconfigFromSecret, kubeconfigLocation, toEntry } from '../../clusters/index.js';
import { KubeClient, KubeConfigError, errorMessage, isKindNotInstalled, isStatusError, isUnreachable, loadKubeConfig, type KubeObject } from '../../kube/index.js';
import { ExitCode, UsageError, oneOf, parseFlags, type Command, type CommandIO } from '../command.js';
import { onStopSignal } from '../runtime.js';
import { table } from '../table.js';
import { watchTable, type LiveTable } from '../watch.js';

const LIB = 'lib.projectsveltos.io/v1beta1';
const CONFIG = 'config.projectsveltos.io/v1beta1';

/** Output is how `get` prints: aligned columns (wide: more of them), or the rows as YAML/JSON. */
export type Output = 'table' | 'wide' | 'yaml' | 'json';

/** GetContext is what loading a resource needs: the management client, the namespace filter and the time. */
export interface GetContext {
  client: KubeClient;
  /** Only this namespace (for namespaced kinds, and the cluster namespace of add-ons); undefined: all. */
  namespace?: string;
  /** Add-ons: only this cluster (`namespace/name`) and profile. */
  cluster?: { namespace: string; name: string };
  profile?: string;
  io: CommandIO;
  now: number;
}

/** Column is one table column; `wide` columns appear only with -o wide. */
interface Column<R> {
  header: string;
  wide?: boolean;
  cell(r: R): string;
}

/** Resource describes one `ripple get` subcommand: how to load its rows and how to print them. */
interface Resource<R> {
  name: string;
  summary: string;
  description: string;
  example: string;
  namespaced: boolean;
  load(c: GetContext): Promise<R[] | number>;
  /** The kinds the rows are computed from: what `-w` watches. */
  watches: readonly { apiVersion: string; kind: string }[];
  /** key identifies a row across loads, for `-w`. */
  key(r: R): string;
  columns: Column<R>[];
  empty: string;
}

/** ListFailed carries an exit code after its message was printed. */
class ListFailed extends Error {
  constructor(readonly code: number) {
    super(`exit ${code}`);
  }
}

const COMMON_FLAGS = `  --kubeconfig FILE     kubeconfig of the management cluster (default: $KUBECONFIG, else ~/.kube/config)
  --context CTX         context to use from the kubeconfig
  -o, --output FORMAT   table (default), wide (more columns), yaml or json (the rows, with every field)
  -w, --watch           after the listing, print every row that appears, changes or goes (in its last state) as it
                        happens, until Ctrl-C (-o json: one row per line)`;

const EXIT_CODES = `Exit codes: 0 listed (also when nothing matches), or -w stopped by SIGTERM; 2 bad command line; 3 unusable kubeconfig;
            4 management cluster unreachable, Sveltos CRDs missing, or the request was refused.`;

/** connect builds the management client from --kubeconfig/--context, or prints why it cannot. */
export function connect(values: { kubeconfig?: string; context?: string }, io: CommandIO): KubeClient | number {
  const file = values.kubeconfig ?? process.env.KUBECONFIG?.split(':')[0] ?? join(homedir(), '.kube', 'config');
  try {
    return new KubeClient(loadKubeConfig({ file, context: values.context }));
  } catch (err) {
    if (!(err instanceof KubeConfigError)) throw err;
    io.stderr.write(`ripple: management kubeconfig ${file}: ${err.message}\nPass --kubeconfig FILE (and --context CTX) for the management cluster.\n`);
    return ExitCode.BadInput;
  }
}

/**
 * listKind lists a kind of the management cluster. A kind that is not served is an error (exit 4, with how to
 * install the CRDs) unless `optional` (Cluster API clusters, EventBasedAddOns): then there are none.
 */
export async function listKind<T extends KubeObject = KubeObject>(
  client: KubeClient,
  io: CommandIO,
  gvk: { apiVersion: string; kind: string },
  opts: { namespace?: string; labelSelector?: string; optional?: boolean } = {},
): Promise<T[]> {
  try {
    return (await client.list<T>(gvk, { namespace: opts.namespace, labelSelector: opts.labelSelector })).items;
  } catch (err) {
    if (opts.optional && isKindNotInstalled(err)) return [];
    const where = `the management cluster (${client.server})`;
    if (isKindNotInstalled(err)) io.stderr.write(`ripple: ${where} does not serve ${gvk.kind} (${gvk.apiVersion}).\nInstall the CRDs first:  ripple manifests crds | kubectl apply -f -\n`);
    else if (isUnreachable(err)) io.stderr.write(`ripple: cannot reach ${where}: ${err.message}\nCheck --kubeconfig / --context.\n`);
    else if (isStatusError(err)) io.stderr.write(`ripple: ${where} refused to list ${gvk.kind} (${err.code} ${err.reason}): ${err.message}\n`);
    else throw err;
    throw new ListFailed(ExitCode.Unavailable);
  }
}

/** age prints how long ago a timestamp was, like kubectl (45s, 12m, 5h, 3d). */
export function age(timestamp: string | undefined, now: number): string {
  const t = timestamp ? Date.parse(timestamp) : NaN;
  if (Number.isNaN(t)) return '';
  const s = Math.max(0, Math.floor((now - t) / 1000));
  if (s < 120) return `${s}s`;
  if (s < 2 * 3600) return `${Math.floor(s / 60)}m`;
  if (s < 48 * 3600) return `${Math.floor(s / 3600)}h`;
  return `${Math.floor(s / 86400)}d`;
}

/** firstLine is the first line of a message, cut to max characters. */
export function firstLine(s: string | undefined, max = 100): string {
  const l = (s ?? '').split('\n')[0];
  return l.length > max ? `${l.slice(0, max - 1)}…` : l;
}
const nsName = (namespace: string | undefined, name: string) => (namespace ? `${namespace}/${name}` : name);
const count = (n: number | undefined) => String(n ?? 0);
const byKey = <T>(key: (x: T) => string) => (a: T, b: T) => (key(a) < key(b) ? -1 : key(a) > key(b) ? 1 : 0);

/** kindLabel prints a kind with its group: `Service`, `Deployment.apps`. */
function kindLabel(apiVersion: string, kind: string): string {
  const slash = apiVersion.indexOf('/');
  return slash < 0 ? kind : `${kind}.${apiVersion.slice(0, slash)}`;
}

/** triggerOf names the EventTrigger (or EventBasedAddOn) that generated an object, from its labels. */
function triggerOf(labels: Record<string, string> | undefined): string {
  const t = labels?.[EventTriggerLabels.eventTriggerName];
  if (t) return `EventTrigger/${t}`;
  const e = labels?.[EventBasedAddOnLabels.eventBasedAddOnName];
  return e ? `EventBasedAddOn/${e}` : '';
}

// ---- clusters ------------------------------------------------------------------------------------------------

interface ClusterRow {
  namespace: string;
  name: string;
  kind: string;
  ready: boolean;
  version: string;
  connection: string;
  connectionFailures: number;
  paused: boolean;
  labels: Record<string, string>;
  message: string;
  created?: string;
  age: string;
}

const clusters: Resource<ClusterRow> = {
  name: 'clusters',
  summary: 'List the clusters (SveltosClusters and Cluster API Clusters): ready, version, connection, labels',
  description: `Lists SveltosClusters and Cluster API Clusters of the management cluster with what the controllers see:
READY (only ready clusters are selected), VERSION (reported by the readiness probe), CONNECTION (Healthy / Down),
and the labels selectors match against.`,
  example: 'ripple get clusters -o wide',
  namespaced: true,
  async load(c) {
    const sveltos = await listKind(c.client, c.io, { apiVersion: LIB, kind: 'SveltosCluster' }, { namespace: c.namespace });
    let capi = await listKind(c.client, c.io, { apiVersion: 'cluster.x-k8s.io/v1beta2', kind: 'Cluster' }, { namespace: c.namespace, optional: true });
    if (capi.length === 0) capi = await listKind(c.client, c.io, { apiVersion: 'cluster.x-k8s.io/v1beta1', kind: 'Cluster' }, { namespace: c.namespace, optional: true });
    return [...sveltos, ...capi]
      .map((o): ClusterRow => {
        const type = clusterTypeOf(o.apiVersion) ?? 'Sveltos';
        const e = toEntry(o, type);
        const status = (o.status ?? {}) as { version?: string; connectionStatus?: string; connectionFailures?: number; failureMessage?: string };
        return {
          namespace: e.ref.namespace,
          name: e.ref.name,
          kind: o.kind,
          ready: e.ready,
          version: status.version ?? o.metadata.labels?.[K8S_VERSION_LABEL] ?? '',
          connection: status.connectionStatus ?? '',
          connectionFailures: status.connectionFailures ?? 0,
          paused: e.paused,
          labels: { ...e.labels },
          message: status.failureMessage ?? '',
          created: o.metadata.creationTimestamp,
          age: age(o.metadata.creationTimestamp, c.now),
        };
      })
      .sort(byKey((r) => `${r.namespace}/${r.name}/${r.kind}`));
  },
  columns: [
    { header: 'NAMESPACE', cell: (r) => r.namespace },
    { header: 'NAME', cell: (r) => r.name },
    { header: 'KIND', wide: true, cell: (r) => r.kind },
    { header: 'READY', cell: (r) => String(r.ready) },
    { header: 'VERSION', cell: (r) => r.version },
    { header: 'CONNECTION', cell: (r) => r.connection },
    { header: 'PAUSED', wide: true, cell: (r) => String(r.paused) },
    { header: 'FAILURES', wide: true, cell: (r) => count(r.connectionFailures) },
    { header: 'AGE', cell: (r) => r.age },
    { header: 'LABELS', cell: (r) => Object.entries(r.labels).map(([k, v]) => `${k}=${v}`).join(',') },
    { header: 'MESSAGE', wide: true, cell: (r) => firstLine(r.message) },
  ],
  watches: [
    { apiVersion: LIB, kind: 'SveltosCluster' },
    { apiVersion: 'cluster.x-k8s.io/v1beta1', kind: 'Cluster' },
  ],
  key: (r) => `${r.kind}/${r.namespace}/${r.name}`,
  empty: 'No clusters: register one with `ripple register cluster` (or create a SveltosCluster)',
};

// ---- eventsources --------------------------------------------------------------------------------------------

interface EventSourceRow {
  name: string;
  resources: string[];
  collectResources: boolean;
  evaluation: string[];
  clusters: number;
  matching: number;
  failing: number;
  created?: string;
  age: string;
}

type ReportObject = KubeObject & {
  spec?: { clusterNamespace?: string; clusterName?: string; clusterType?: string; eventSourceName?: string; matchingResources?: unknown[] };
  status?: { phase?: string; failureMessage?: string };
};

/** reportFailure is the agent's evaluation failure (annotation) or the event manager's status failure. */
function reportFailure(r: ReportObject): string {
  return [r.metadata.annotations?.['agent.ripple.dev/evaluation-failure'], r.status?.failureMessage].filter((m): m is string => Boolean(m)).join('; ');
}

const eventsources: Resource<EventSourceRow> = {
  name: 'eventsources',
  summary: 'List the EventSources: what they watch, in how many clusters, how many resources match',
  description: `Lists the EventSources with the kinds they watch, how they evaluate (labels, Lua, CEL, aggregatedSelection),
and from their EventReports in the management cluster: in how many clusters they are reported, how many resources
match in total, and how many reports carry an evaluation failure.`,
  example: 'ripple get eventsources',
  namespaced: false,
  async load(c) {
    const sources = await listKind(c.client, c.io, { apiVersion: LIB, kind: 'EventSource' });
    const reports = await listKind<ReportObject>(c.client, c.io, { apiVersion: LIB, kind: 'EventReport' }, { namespace: c.namespace });
    return sources
      .map((raw): EventSourceRow => {
        const n = normalize(raw);
        const spec = (n.ok ? n.object.spec : raw.spec) as {
          collectResources?: boolean;
          aggregatedSelection?: string;
          resourceSelectors?: { group?: string; version?: string; kind?: string; evaluate?: string; evaluateCEL?: unknown[]; labelFilters?: unknown[]; namespace?: string }[];
        };
        const sels = spec?.resourceSelectors ?? [];
        const evaluation = new Set<string>();
        for (const s of sels) {
          if (s.labelFilters?.length) evaluation.add('labels');
          if (s.evaluate?.trim()) evaluation.add('lua');
          if (s.evaluateCEL?.length) evaluation.add('cel');
        }
        if (spec?.aggregatedSelection?.trim()) evaluation.add('aggregated');
        const mine = reports.filter((r) => (r.spec?.eventSourceName ?? r.metadata.labels?.[Labels.eventSourceName]) === raw.metadata.name);
        return {
          name: raw.metadata.name,
          resources: sels.map((s) => kindLabel(s.group ? `${s.group}/${s.version}` : (s.version ?? ''), s.kind ?? '?') + (s.namespace ? ` in ${s.namespace}` : '')),
          collectResources: spec?.collectResources === true,
          evaluation: [...evaluation],
          clusters: mine.length,
          matching: mine.reduce((n, r) => n + (r.spec?.matchingResources?.length ?? 0), 0),
          failing: mine.filter((r) => reportFailure(r) !== '').length,
          created: raw.metadata.creationTimestamp,
          age: age(raw.metadata.creationTimestamp, c.now),
        };
      })
      .sort(byKey((r) => r.name));
  },
  columns: [
    { header: 'NAME', cell: (r) => r.name },
    { header: 'RESOURCES', cell: (r) => r.resources.join(', ') },
    { header: 'EVALUATION', wide: true, cell: (r) => r.evaluation.join(',') || '-' },
    { header: 'COLLECT', wide: true, cell: (r) => String(r.collectResources) },
    { header: 'CLUSTERS', cell: (r) => count(r.clusters) },
    { header: 'MATCHING', cell: (r) => count(r.matching) },
    { header: 'FAILING', cell: (r) => count(r.failing) },
    { header: 'AGE', cell: (r) => r.age },
  ],
  watches: [
    { apiVersion: LIB, kind: 'EventSource' },
    { apiVersion: LIB, kind: 'EventReport' },
  ],
  key: (r) => r.name,
  empty: 'No EventSources',
};

// ---- eventtriggers -------------------------------------------------------------------------------------------

interface TriggerRow {
  name: string;
  kind: string;
  eventSource: string;
  oneForEvent: boolean;
  clusters: number;
  provisioned: number;
  failed: number;
  profiles: number;
  failures: { cluster: string; message: string }[];
  created?: string;
  age: string;
}

const eventtriggers: Resource<TriggerRow> = {
  name: 'eventtriggers',
  summary: 'List the EventTriggers (and EventBasedAddOns): matching clusters, failures, generated profiles',
  description: `Lists EventTriggers and EventBasedAddOns with their EventSource and, from their status, the clusters their
sourceClusterSelector matches, how many are Provisioned or Failed (-o wide: the first failure), and how many
ClusterProfiles they generated.`,
  example: 'ripple get eventtriggers -o wide',
  namespaced: false,
  async load(c) {
    const triggers = [
      ...(await listKind(c.client, c.io, { apiVersion: LIB, kind: 'EventTrigger' })),
      ...(await listKind(c.client, c.io, { apiVersion: 'lib.projectsveltos.io/v1alpha1', kind: 'EventBasedAddOn' }, { optional: true })),
    ];
    const profiles = await listKind(c.client, c.io, { apiVersion: CONFIG, kind: 'ClusterProfile' });
    return triggers
      .map((raw): TriggerRow => {
        const n = normalize(raw);
        const spec = (n.ok ? n.object.spec : raw.spec) as { eventSourceName?: string; oneForEvent?: boolean };
        const status = (raw.status ?? {}) as { matchingClusters?: unknown[]; clusterInfo?: { cluster?: { namespace?: string; name?: string }; status?: string; failureMessage?: string }[] };
        const info = status.clusterInfo ?? [];
        const generated = profiles.filter((p) => triggerOf(p.metadata.labels) === `${raw.kind === 'EventBasedAddOn' ? 'EventBasedAddOn' : 'EventTrigger'}/${raw.metadata.name}` || triggerOf(p.metadata.labels) === `EventTrigger/${raw.metadata.name}`);
        return {
          name: raw.metadata.name,
          kind: raw.kind,
          eventSource: spec?.eventSourceName ?? '',
          oneForEvent: spec?.oneForEvent === true,
          clusters: status.matchingClusters?.length ?? 0,
          provisioned: info.filter((i) => i.status === 'Provisioned').length,
          failed: info.filter((i) => i.status === 'Failed').length,
          profiles: generated.length,
          failures: info.filter((i) => i.failureMessage).map((i) => ({ cluster: nsName(i.cluster?.namespace, i.cluster?.name ?? ''), message: i.failureMessage! })),
          created: raw.metadata.creationTimestamp,
          age: age(raw.metadata.creationTimestamp, c.now),
        };
      })
      .sort(byKey((r) => `${r.name}/${r.kind}`));
  },
  columns: [
    { header: 'NAME', cell: (r) => r.name },
    { header: 'KIND', wide: true, cell: (r) => r.kind },
    { header: 'EVENTSOURCE', cell: (r) => r.eventSource },
    { header: 'ONE-FOR-EVENT', wide: true, cell: (r) => String(r.oneForEvent) },
    { header: 'CLUSTERS', cell: (r) => count(r.clusters) },
    { header: 'PROVISIONED', cell: (r) => count(r.provisioned) },
    { header: 'FAILED', cell: (r) => count(r.failed) },
    { header: 'PROFILES', cell: (r) => count(r.profiles) },
    { header: 'AGE', cell: (r) => r.age },
    { header: 'MESSAGE', cell: (r) => (r.failures[0] ? firstLine(`${r.failures[0].cluster}: ${r.failures[0].message}`) : '') },
  ],
  watches: [
    { apiVersion: LIB, kind: 'EventTrigger' },
    { apiVersion: 'lib.projectsveltos.io/v1alpha1', kind: 'EventBasedAddOn' },
    { apiVersion: CONFIG, kind: 'ClusterProfile' },
  ],
  key: (r) => `${r.kind}/${r.name}`,
  empty: 'No EventTriggers',
};

// ---- eventreports --------------------------------------------------------------------------------------------

interface ReportRow {
  namespace: string;
  name: string;
  cluster: string;
  clusterType: string;
  eventSource: string;
  resources: number;
  phase: string;
  failure: string;
  created?: string;
  age: string;
}

const eventreports: Resource<ReportRow> = {
  name: 'eventreports',
  summary: 'List the EventReports in the management cluster: matching resources per cluster and phase',
  description: `Lists the EventReports the agents delivered to the management cluster: the cluster and EventSource, how many
resources match, the phase (WaitingForDelivery, Delivered, Processed) and -o wide the evaluation or processing
failure.`,
  example: 'ripple get eventreports -n cluster-a',
  namespaced: true,
  async load(c) {
    const reports = await listKind<ReportObject>(c.client, c.io, { apiVersion: LIB, kind: 'EventReport' }, { namespace: c.namespace });
    return reports
      .map(
        (r): ReportRow => ({
          namespace: r.metadata.namespace ?? '',
          name: r.metadata.name,
          cluster: nsName(r.spec?.clusterNamespace, r.spec?.clusterName ?? ''),
          clusterType: r.spec?.clusterType ?? '',
          eventSource: r.spec?.eventSourceName ?? '',
          resources: r.spec?.matchingResources?.length ?? 0,
          phase: r.status?.phase ?? '',
          failure: reportFailure(r),
          created: r.metadata.creationTimestamp,
          age: age(r.metadata.creationTimestamp, c.now),
        }),
      )
      .sort(byKey((r) => `${r.namespace}/${r.name}`));
  },
  columns: [
    { header: 'NAMESPACE', cell: (r) => r.namespace },
    { header: 'NAME', cell: (r) => r.name },
    { header: 'CLUSTER', cell: (r) => r.cluster },
    { header: 'TYPE', wide: true, cell: (r) => r.clusterType },
    { header: 'EVENTSOURCE', cell: (r) => r.eventSource },
    { header: 'RESOURCES', cell: (r) => count(r.resources) },
    { header: 'PHASE', cell: (r) => r.phase },
    { header: 'AGE', cell: (r) => r.age },
    { header: 'FAILURE', wide: true, cell: (r) => firstLine(r.failure) },
  ],
  watches: [{ apiVersion: LIB, kind: 'EventReport' }],
  key: (r) => `${r.namespace}/${r.name}`,
  empty: 'No EventReports: no EventSource matches anything yet (or no agent delivered)',
};

// ---- profiles ------------------------------------------------------------------------------------------------

interface ProfileRow {
  kind: string;
  namespace?: string;
  name: string;
  clusters: number;
  updated: number;
  failed: number;
  trigger: string;
  syncMode: string;
  suspended: boolean;
  failures: { cluster: string; message: string }[];
  created?: string;
  age: string;
}

const profilesResource: Resource<ProfileRow> = {
  name: 'profiles',
  summary: 'List ClusterProfiles and Profiles: matching clusters, how many are up to date or failed, generating trigger',
  description: `Lists ClusterProfiles and Profiles with, from their status, how many clusters they match, how many are
updated (every ClusterSummary Provisioned with the current spec) and failed, and the EventTrigger that generated
them (empty for profiles written by hand).`,
  example: 'ripple get profiles -o wide',
  namespaced: true,
  async load(c) {
    const items = [
      ...(c.namespace === undefined ? await listKind(c.client, c.io, { apiVersion: CONFIG, kind: 'ClusterProfile' }) : []),
      ...(await listKind(c.client, c.io, { apiVersion: CONFIG, kind: 'Profile' }, { namespace: c.namespace })),
    ];
    return items
      .map((p): ProfileRow => {
        const status = (p.status ?? {}) as {
          matchingClusters?: unknown[];
          updatedClusters?: { clusters?: unknown[] };
          failedClusters?: { clusterRef?: { namespace?: string; name?: string }; failureMessage?: string }[];
          reconciliationSuspended?: boolean;
        };
        return {
          kind: p.kind,
          namespace: p.metadata.namespace,
          name: p.metadata.name,
          clusters: status.matchingClusters?.length ?? 0,
          updated: status.updatedClusters?.clusters?.length ?? 0,
          failed: status.failedClusters?.length ?? 0,
          trigger: triggerOf(p.metadata.labels),
          syncMode: ((p.spec ?? {}) as { syncMode?: string }).syncMode ?? 'Continuous',
          suspended: status.reconciliationSuspended === true,
          failures: (status.failedClusters ?? []).map((f) => ({ cluster: nsName(f.clusterRef?.namespace, f.clusterRef?.name ?? ''), message: f.failureMessage ?? '' })),
          created: p.metadata.creationTimestamp,
          age: age(p.metadata.creationTimestamp, c.now),
        };
      })
      .sort(byKey((r) => `${r.kind}/${r.namespace ?? ''}/${r.name}`));
  },
  columns: [
    { header: 'KIND', cell: (r) => r.kind },
    { header: 'NAME', cell: (r) => nsName(r.namespace, r.name) },
    { header: 'CLUSTERS', cell: (r) => count(r.clusters) },
    { header: 'UPDATED', cell: (r) => count(r.updated) },
    { header: 'FAILED', cell: (r) => count(r.failed) },
    { header: 'SYNCMODE', wide: true, cell: (r) => r.syncMode + (r.suspended ? ' (paused)' : '') },
    { header: 'TRIGGER', cell: (r) => r.trigger },
    { header: 'AGE', cell: (r) => r.age },
    { header: 'MESSAGE', wide: true, cell: (r) => (r.failures[0] ? firstLine(`${r.failures[0].cluster}: ${r.failures[0].message}`) : '') },
  ],
  watches: [
    { apiVersion: CONFIG, kind: 'ClusterProfile' },
    { apiVersion: CONFIG, kind: 'Profile' },
  ],
  key: (r) => `${r.kind}/${r.namespace ?? ''}/${r.name}`,
  empty: 'No ClusterProfiles or Profiles',
};

// ---- addons --------------------------------------------------------------------------------------------------

type Feature = { featureID: string; status?: string; failureMessage?: string; lastAppliedTime?: string; deployedGroupVersionKind?: string[] };
/** SummaryObject is a ClusterSummary as `get addons` reads it. */
export type SummaryObject = KubeObject & {
  spec?: { clusterNamespace?: string; clusterName?: string; clusterType?: string };
  status?: {
    dependencies?: string;
    featureSummaries?: Feature[];
    deployedGVKs?: { featureID?: string; deployedGroupVersionKind?: string[] }[];
    helmReleaseSummaries?: { releaseName?: string; releaseNamespace?: string; chartName?: string; chartVersion?: string; status?: string; failureMessage?: string }[];
  };
};

interface AddonRow {
  cluster: string;
  clusterType: string;
  target: 'Local' | 'Remote' | '';
  apiVersion: string;
  kind: string;
  namespace: string;
  name: string;
  profile: string;
  trigger: string;
  feature: string;
  status: string;
  lastApplied: string;
  message: string;
  /** VERSION column when it is not the apiVersion: a Helm release's chart and version. */
  version?: string;
}

/** profileOf names a ClusterSummary's (or ClusterReport's) profile from its labels. */
export function profileOf(o: KubeObject): { kind: 'ClusterProfile' | 'Profile'; name: string } {
  const l = o.metadata.labels ?? {};
  const cp = l['projectsveltos.io/cluster-profile-name'];
  return cp !== undefined ? { kind: 'ClusterProfile', name: cp } : { kind: 'Profile', name: l['projectsveltos.io/profile-name'] ?? '' };
}

/** listSummaries lists the ClusterSummaries, filtered by cluster namespace/name and profile, sorted by cluster and profile. */
export async function listSummaries<T extends SummaryObject>(c: Pick<GetContext, 'client' | 'io' | 'namespace' | 'cluster' | 'profile'>, kind = 'ClusterSummary'): Promise<T[]> {
  const items = await listKind<T>(c.client, c.io, { apiVersion: CONFIG, kind }, { namespace: c.cluster?.namespace ?? c.namespace });
  const key = (o: T) => `${o.spec?.clusterNamespace}/${o.spec?.clusterName}|${profileOf(o).name}`;
  return items
    .filter((x) => !c.cluster || x.spec?.clusterName === c.cluster.name)
    .filter((x) => !c.profile || profileOf(x).name === c.profile)
    .sort(byKey(key));
}

/** clusterClient builds a client for a managed cluster from its kubeconfig Secret (as the controllers do). */
export async function clusterClient(mgmt: KubeClient, type: ClusterType, namespace: string, name: string): Promise<KubeClient> {
  const apiVersion = type === 'Capi' ? 'cluster.x-k8s.io/v1beta1' : LIB;
  const kind = type === 'Capi' ? 'Cluster' : 'SveltosCluster';
  const obj = await mgmt.getIfExists<KubeObject>({ apiVersion, kind, namespace, name });
  if (!obj) throw new Error(`${kind} ${namespace}/${name} does not exist`);
  const loc = kubeconfigLocation(toEntry(obj, type));
  const secret = await mgmt.getIfExists<KubeObject & { data?: Record<string, string> }>({ apiVersion: 'v1', kind: 'Secret', namespace: loc.namespace, name: loc.secretName });
  const kc = kubeconfigFromSecret(secret, loc);
  if (!kc.ok) throw new Error(kc.message);
  return new KubeClient(loadKubeConfig({ yaml: kc.kubeconfig }));
}

const addons: Resource<AddonRow> = {
  name: 'addons',
  summary: 'List what is deployed where: every object per cluster, by which profile/trigger, when (like sveltosctl show addons)',
  description: `Lists every object the add-on deployer applied, per cluster: kind, namespace, name, the profile that deployed it
and the EventTrigger that generated that profile, the feature status and when it was last applied (the time of the
deployer's own field manager on the object). Read from the ClusterSummaries of the management cluster and from the
objects themselves (their Sveltos stamps), in the management cluster (Local) and in each cluster (Remote, through
its kubeconfig Secret). A feature that is not Provisioned, or a cluster that cannot be read, shows as one line with
the reason. --features lists one line per feature instead (\`ripple show addons\`).

Flags (besides the common ones):
  --cluster NS/NAME     only this cluster (namespace/name of its SveltosCluster or CAPI Cluster)
  --profile NAME        only this ClusterProfile (or Profile)
  --features            one line per (cluster, profile, feature) with its state instead of one per object`,
  example: 'ripple get addons --cluster cluster-a/cluster-a',
  namespaced: true,
  async load(c) {
    const summaries = await listSummaries(c);
    const rows: AddonRow[] = [];
    const clients = new Map<string, Promise<KubeClient>>();
    const lists = new Map<string, Promise<KubeObject[]>>();
    try {
      for (const s of summaries) {
        const type: ClusterType = s.spec?.clusterType === 'Capi' ? 'Capi' : 'Sveltos';
        const cns = s.spec?.clusterNamespace ?? '';
        const cname = s.spec?.clusterName ?? '';
        const cluster = `${cns}/${cname}`;
        const profile = profileOf(s);
        const features = s.status?.featureSummaries ?? [];
        const resources = features.find((f) => f.featureID === 'Resources');
        const gvks = [...new Set([...(s.status?.deployedGVKs ?? []).flatMap((g) => g.deployedGroupVersionKind ?? []), ...features.flatMap((f) => f.deployedGroupVersionKind ?? [])])].sort();
        const base = { cluster, clusterType: type, profile: `${profile.kind}/${profile.name}`, trigger: triggerOf(s.metadata.labels) };
        const stamp = clusterSummaryAnnotationValue(type, cns, cname);
        let readError = '';
        let found = 0;
        for (const target of ['Local', 'Remote'] as const) {
          if (gvks.length === 0) break;
          const key = target === 'Local' ? 'mgmt' : `${type}:${cluster}`;
          let client: KubeClient;
          try {
            if (target === 'Local') client = c.client;
            else {
              if (!clients.has(key)) clients.set(key, clusterClient(c.client, type, cns, cname));
              client = await clients.get(key)!;
            }
          } catch (err) {
            readError = `cannot read cluster ${cluster}: ${errorMessage(err)}`;
            continue;
          }
          for (const g of gvks) {
            const gvk = parseGvkString(g);
            if (!gvk) continue;
            const lk = `${key}|${g}`;
            if (!lists.has(lk)) {
              lists.set(
                lk,
                client
                  .list<KubeObject>(gvk, { labelSelector: `${Labels.reason}=Resources` })
                  .then((l) => l.items)
                  .catch((err: unknown) => {
                    if (isKindNotInstalled(err)) return [];
                    throw err;
                  }),
              );
            }
            let objects: KubeObject[];
            try {
              objects = await lists.get(lk)!;
            } catch (err) {
              readError = `cannot list ${gvk.kind} in ${target === 'Local' ? 'the management cluster' : `cluster ${cluster}`}: ${errorMessage(err)}`;
              continue;
            }
            for (const o of objects) {
              const a = o.metadata.annotations ?? {};
              if (a[Annotations.clusterSummary] !== stamp || a[Annotations.deploymentType] !== target) continue;
              if (a[Annotations.ownerKind] !== profile.kind || a[Annotations.ownerName] !== profile.name) continue;
              found++;
              const fields = (o.metadata.managedFields ?? []) as { manager?: string; time?: string }[];
              const applied = fields
                .filter((m) => m.manager === FIELD_MANAGER && m.time)
                .map((m) => m.time!)
                .sort()
                .pop();
              rows.push({
                ...base,
                target,
                apiVersion: o.apiVersion,
                kind: o.kind,
                namespace: o.metadata.namespace ?? '',
                name: o.metadata.name,
                feature: 'Resources',
                status: resources?.status ?? '',
                lastApplied: applied ?? resources?.lastAppliedTime ?? '',
                message: '',
              });
            }
          }
        }
        // Helm releases, one line each (like sveltosctl's "helm chart" rows), from the ClusterSummary's status.
        const helm = features.find((f) => f.featureID === 'Helm');
        const releases = helm?.status === 'Provisioned' ? (s.status?.helmReleaseSummaries ?? []) : [];
        for (const h of releases) {
          rows.push({
            ...base,
            target: 'Remote',
            apiVersion: '',
            kind: 'HelmRelease',
            namespace: h.releaseNamespace ?? '',
            name: h.releaseName ?? '',
            feature: 'Helm',
            status: helm?.status ?? '',
            lastApplied: helm?.lastAppliedTime ?? '',
            message: h.failureMessage ?? '',
            version: [h.chartName, h.chartVersion].filter((x) => x).join(' '),
          });
        }
        // Features with nothing to show per object: not provisioned, failed, or a cluster that could not be read.
        for (const f of features.length > 0 ? features : [{ featureID: 'Resources', status: 'Provisioning' } as Feature]) {
          const objectsShown = (f.featureID === 'Resources' && found > 0 && f.status === 'Provisioned' && !readError) || (f.featureID === 'Helm' && releases.length > 0);
          if (objectsShown) continue;
          if (f.status === 'Provisioned' && !readError && gvks.length === 0) continue;
          const message = [f.failureMessage, f.featureID === 'Resources' ? readError : '', s.status?.dependencies?.includes('not') ? s.status.dependencies : ''].filter((m) => m).join('; ');
          rows.push({ ...base, target: '', apiVersion: '', kind: '-', namespace: '', name: '-', feature: f.featureID, status: f.status ?? '', lastApplied: f.lastAppliedTime ?? '', message });
        }
      }
    } finally {
      for (const p of clients.values()) void p.then((cl) => cl.close()).catch(() => undefined);
    }
    return rows;
  },
  columns: [
    { header: 'CLUSTER', cell: (r) => r.cluster },
    { header: 'TARGET', wide: true, cell: (r) => r.target },
    { header: 'KIND', cell: (r) => (r.apiVersion ? kindLabel(r.apiVersion, r.kind) : r.kind) },
    { header: 'VERSION', wide: true, cell: (r) => r.version ?? r.apiVersion },
    { header: 'NAMESPACE', cell: (r) => r.namespace },
    { header: 'NAME', cell: (r) => r.name },
    { header: 'PROFILE', cell: (r) => r.profile },
    { header: 'TRIGGER', cell: (r) => r.trigger },
    { header: 'STATUS', cell: (r) => (r.feature !== 'Resources' ? `${r.feature} ${r.status}` : r.status) },
    { header: 'LAST APPLIED', cell: (r) => r.lastApplied },
    { header: 'MESSAGE', wide: true, cell: (r) => firstLine(r.message) },
  ],
  watches: [{ apiVersion: CONFIG, kind: 'ClusterSummary' }],
  key: (r) => [r.cluster, r.target, r.apiVersion, r.kind, r.namespace, r.name, r.profile, r.feature].join('|'),
  empty: 'No add-ons: no ClusterSummary matches (is a ClusterProfile selecting any ready cluster?)',
};

// ---- feature view (ripple show addons) -----------------------------------------------------------------------

/** FeatureRow is one feature of one ClusterSummary (the `show addons` / `get addons --features` view). */
export interface FeatureRow {
  cluster: string;
  profile: string;
  feature: string;
  status: string;
  lastApplied: string;
  deployed: string[];
  message: string;
}

/** featureRows lists, per ClusterSummary, each feature's state (a summary without features is Pending). */
export function featureRows(items: readonly SummaryObject[]): FeatureRow[] {
  return items.flatMap((s) =>
    (s.status?.featureSummaries?.length ? s.status.featureSummaries : [{ featureID: '-', status: 'Pending' } as Feature]).map((f) => ({
      cluster: `${s.spec?.clusterNamespace}/${s.spec?.clusterName}`,
      profile: `${profileOf(s).kind}/${profileOf(s).name}`,
      feature: f.featureID,
      status: f.status ?? '',
      lastApplied: f.lastAppliedTime ?? '',
      deployed: f.deployedGroupVersionKind ?? [],
      message: f.failureMessage ?? (s.status?.dependencies?.includes('not') ? s.status.dependencies : ''),
    })),
  );
}

/** FEATURE_TABLE is how feature rows print and are identified (for -w). */
export const FEATURE_TABLE = {
  key: (r: FeatureRow) => `${r.cluster}|${r.profile}|${r.feature}`,
  header: ['CLUSTER', 'PROFILE', 'FEATURE', 'STATUS', 'LAST APPLIED', 'KINDS', 'MESSAGE'],
  cells: (r: FeatureRow) => [r.cluster, r.profile, r.feature, r.status, r.lastApplied, String(r.deployed.length), firstLine(r.message)],
};

/** printFeatures prints feature rows as a table (or JSON/YAML). */
export function printFeatures(rows: readonly FeatureRow[], output: Output, io: CommandIO): void {
  if (output === 'json' || output === 'yaml') {
    io.stdout.write(output === 'json' ? JSON.stringify(rows, null, 2) + '\n' : stringify(rows, { lineWidth: 0 }));
    return;
  }
  if (rows.length === 0) {
    io.stdout.write(`${addons.empty}\n`);
    return;
  }
  io.stdout.write(table(FEATURE_TABLE.header, rows.map(FEATURE_TABLE.cells)));
}

/** runGuarded runs a listing, turning a ListFailed into its exit code and closing the client. */
export async function runGuarded(client: KubeClient, fn: () => Promise<number>): Promise<number> {
  try {
    return await fn();
  } catch (err) {
    if (err instanceof ListFailed) return err.code;
    throw err;
  } finally {
    client.close();
  }
}

/** parseClusterRef reads `--cluster NAMESPACE/NAME`. */
export function parseClusterRef(s: string | undefined): { namespace: string; name: string } | undefined {
  if (s === undefined) return undefined;
  const m = /^([^/]+)\/([^/]+)$/.exec(s);
  if (!m) throw new UsageError(`--cluster must be NAMESPACE/NAME, not ${JSON.stringify(s)}`);
  return { namespace: m[1], name: m[2] };
}

// ---- the commands --------------------------------------------------------------------------------------------

const RESOURCES = [clusters, eventsources, eventtriggers, eventreports, profilesResource, addons] as Resource<unknown>[];

function usage(r: Resource<unknown>): string {
  const ns = r.namespaced ? ' [-n NAMESPACE | -A]' : '';
  const extra = r.name === 'addons' ? ' [--cluster NS/NAME] [--profile NAME] [--features]' : '';
  return `Usage: ripple get ${r.name}${ns}${extra} [--kubeconfig FILE] [--context CTX] [-o table|wide|yaml|json] [-w]

${r.description}

Flags:
${COMMON_FLAGS}
${r.namespaced ? `  -n, --namespace NS    only this namespace${r.name === 'addons' ? ' (of the clusters)' : ''}\n  -A, --all-namespaces  every namespace (the default)\n` : ''}
${EXIT_CODES}

Example:
  ${r.example}
`;
}

function command(r: Resource<unknown>): Command {
  const text = usage(r);
  return {
    path: ['get', r.name],
    summary: r.summary,
    usage: text,
    async run(args, io) {
      const { values, positionals } = parseFlags(args, {
        kubeconfig: { type: 'string' },
        context: { type: 'string' },
        namespace: { type: 'string', short: 'n' },
        'all-namespaces': { type: 'boolean', short: 'A' },
        output: { type: 'string', short: 'o' },
        cluster: { type: 'string' },
        profile: { type: 'string' },
        features: { type: 'boolean' },
        watch: { type: 'boolean', short: 'w' },
      });
      if (r.name !== 'addons') {
        const only = (['cluster', 'profile', 'features'] as const).find((k) => values[k] !== undefined);
        if (only) throw new UsageError(`--${only} applies to \`ripple get addons\` only`);
      }
      if (positionals.length > 0) throw new UsageError(`unexpected argument ${JSON.stringify(positionals[0])}`);
      const output = oneOf<Output>('--output', values.output ?? 'table', ['table', 'wide', 'yaml', 'json']);
      if (values.namespace !== undefined && values['all-namespaces']) throw new UsageError('-n and -A exclude each other');
      if (values.namespace !== undefined && !r.namespaced) throw new UsageError(`${r.name} are cluster-scoped: -n does not apply`);
      const v = values;
      const cluster = parseClusterRef(v.cluster);
      const client = connect(v, io);
      if (typeof client === 'number') return client;
      const ctx: GetContext = { client, namespace: values.namespace, cluster, profile: v.profile, io, now: Date.now() };
      if (v.watch) {
        const features = v.features === true;
        return runGuarded(client, () =>
          watchRows(client, io, {
            kinds: features ? [{ apiVersion: CONFIG, kind: 'ClusterSummary' }] : r.watches,
            output,
            ...(features
              ? { ...FEATURE_TABLE, load: async () => featureRows(await listSummaries(ctx)) }
              : {
                  load: async () => {
                    const rows = await r.load({ ...ctx, now: Date.now() });
                    if (typeof rows === 'number') throw new ListFailed(rows);
                    return rows as unknown[];
                  },
                  key: r.key,
                  header: r.columns.filter((col) => output === 'wide' || !col.wide).map((col) => col.header),
                  cells: (row: unknown) => r.columns.filter((col) => output === 'wide' || !col.wide).map((col) => col.cell(row)),
                  empty: r.empty,
                }),
          } as WatchRows<unknown>),
        );
      }
      return runGuarded(client, async () => {
        if (v.features) {
          printFeatures(featureRows(await listSummaries(ctx)), output, io);
          return ExitCode.Ok;
        }
        const rows = (await r.load(ctx)) as unknown[];
        if (output === 'json') io.stdout.write(JSON.stringify(rows, null, 2) + '\n');
        else if (output === 'yaml') io.stdout.write(stringify(rows, { lineWidth: 0 }));
        else if (rows.length === 0) io.stdout.write(`${r.empty}\n`);
        else {
          const cols = r.columns.filter((col) => output === 'wide' || !col.wide);
          io.stdout.write(
            table(
              cols.map((col) => col.header),
              rows.map((row) => cols.map((col) => col.cell(row))),
            ),
          );
        }
        return ExitCode.Ok;
      });
    },
  };
}

/** WatchRows is a listing for watchRows: LiveTable without the plumbing every listing shares. */
export type WatchRows<R> = Omit<LiveTable<R>, 'client' | 'io' | 'signal' | 'output'> & { output: Output };

/** watchRows runs a listing with -w until SIGINT (exit 130) or SIGTERM (exit 0). A listing that fails after the
 * first (the server went away: the message is printed) keeps watching; the informers reconnect. */
export async function watchRows<R>(client: KubeClient, io: CommandIO, w: WatchRows<R>): Promise<number> {
  const stop = onStopSignal();
  try {
    await watchTable({ ...w, client, io, signal: stop.abort.signal, output: w.output === 'wide' ? 'table' : w.output }, (err) => {
      if (!(err instanceof ListFailed)) throw err;
    });
    return (await stop.signal) === 'SIGINT' ? ExitCode.Interrupted : ExitCode.Ok;
  } finally {
    stop.dispose();
  }
}

export const commands: Command[] = RESOURCES.map(command);
