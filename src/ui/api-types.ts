// api-types.ts: the dashboard's JSON API, shared by the server (server.ts, model.ts) and the browser code
// (client/*.tsx, bundled by esbuild): one set of types, so both ends are checked by the compiler. Types only — the
// browser bundle must not pull in Node code.

/** ObjRef names an object in a cluster (`cluster` is the cluster's id, see ClusterRow.id; MGMT_ID for mgmt). */
export interface ObjRef {
  cluster: string;
  apiVersion: string;
  kind: string;
  namespace?: string;
  name: string;
}

/** MGMT_ID is the cluster id of the management cluster itself (where Local add-ons and Sveltos objects live). */
export const MGMT_ID = '@management';

/** Page is one page of rows after server-side filtering: `total` before, `matched` after the filter. */
export interface Page<T> {
  total: number;
  matched: number;
  rows: T[];
}

/** Summary is the header of every page: counts and the model's version (bumped on every change). */
export interface Summary {
  version: number;
  clusters: number;
  ready: number;
  paused: number;
  eventSources: number;
  eventTriggers: number;
  profiles: number;
  deployedObjects: number;
  failures: number;
  /** True once every informer listed its kind (before: the numbers may still grow). */
  synced: boolean;
}

/** ClusterRow is one cluster of the fleet. */
export interface ClusterRow {
  /** `namespace/name`, or `name` when both are equal (ripple up's convention). */
  id: string;
  type: 'Sveltos' | 'Capi';
  namespace: string;
  name: string;
  labels: Record<string, string>;
  ready: boolean;
  paused: boolean;
  connection?: 'Healthy' | 'Down';
  /** sharding.projectsveltos.io/key, when set. */
  shard?: string;
  failureMessage?: string;
  /** ClusterSummaries targeting it and how many of them failed. */
  profiles: number;
  failedProfiles: number;
}

/** ReportMatch is what an EventSource matches in one cluster (its EventReport). */
export interface ReportMatch {
  cluster: string;
  report: string;
  resources: ObjRef[];
  phase?: string;
  failureMessage?: string;
}

/** SourceRow is one EventSource with its matches per cluster. */
export interface SourceRow {
  name: string;
  /** `kind.group` of every resource selector, and whether Lua / CEL evaluation is used. */
  selects: string[];
  aggregated: boolean;
  matches: ReportMatch[];
}

/** GeneratedRef is an object an EventTrigger generated for one event. */
export interface GeneratedRef {
  kind: 'ClusterProfile' | 'ConfigMap' | 'Secret';
  name: string;
  namespace?: string;
  cluster: string;
  /** The event it stands for: `resource:<group>/<kind>/<ns>/<name>` (or a CloudEvent id). */
  event?: string;
  deleting: boolean;
}

/** TriggerRow is one EventTrigger (or EventBasedAddOn) with what it generated. */
export interface TriggerRow {
  kind: 'EventTrigger' | 'EventBasedAddOn';
  name: string;
  eventSource: string;
  sourceClusters: string;
  oneForEvent: boolean;
  matchingClusters: number;
  clusterInfo: { cluster: string; status?: string; failureMessage?: string }[];
  generated: GeneratedRef[];
}

/** FeatureRow is one feature (Resources, Helm, Kustomize) of a ClusterSummary. */
export interface FeatureRow {
  featureID: string;
  status?: string;
  failureMessage?: string;
  lastAppliedTime?: string;
  deployedKinds: string[];
}

/** DeployedObject is an object the deployer put into a cluster (read from the cluster, stamps included). */
export interface DeployedObject extends ObjRef {
  /** Local (in the management cluster) or Remote (in the target cluster). */
  deploymentType: 'Local' | 'Remote';
  /** The ConfigMap/Secret it was rendered from (projectsveltos.io/reference-*). */
  source?: { kind: string; namespace?: string; name: string };
  /** `status` when Ripple adopted an existing object and writes only that part. */
  adopted?: string;
  /** What the object is, briefly (a Service's type, port, load-balancer address …). */
  detail?: string;
}

/** AddonRow is one ClusterSummary: a profile's add-ons in one cluster. */
export interface AddonRow {
  cluster: string;
  summary: { namespace: string; name: string };
  profileKind: string;
  profile: string;
  features: FeatureRow[];
  policyRefs: { kind: string; namespace?: string; name: string; deploymentType?: string }[];
  helmReleases: { releaseNamespace?: string; releaseName?: string; chart?: string; version?: string; status?: string }[];
  kustomizationRefs: { kind?: string; namespace?: string; name?: string; path?: string }[];
  objects: DeployedObject[];
  failed: boolean;
}

/** FailureRow is one failure: the exact message and where it was raised. */
export interface FailureRow {
  /** `status`: a failureMessage in an object's status; `event`: a Warning Kubernetes Event. */
  source: 'status' | 'event';
  /** The object whose status (or Event) says so. */
  where: ObjRef;
  /** The field or Event reason: `status.featureSummaries[Resources]`, `status.clusterInfo[cluster-a]`, `Event BadTemplate`. */
  field: string;
  cluster?: string;
  message: string;
  time?: string;
  count?: number;
}

/** LineageRole is what a node of a lineage graph is. */
export type LineageRole = 'event' | 'report' | 'source' | 'trigger' | 'instantiated' | 'config' | 'profile' | 'summary' | 'object';

/** LineageNode is one object of an event's lineage. */
export interface LineageNode {
  id: string;
  role: LineageRole;
  ref: ObjRef;
  /** When this hop happened: ms since the epoch. */
  time?: number;
  /** `observed`: seen by the dashboard's watches at ms precision; `api`: from the object (seconds). */
  timeSource?: 'observed' | 'api';
  status?: string;
  message?: string;
  detail?: string;
  /** Gone: withdrawn (deleted) after the event went away or changed. */
  withdrawn?: boolean;
  /** The node is a deployed object a lineage can start from. */
  deployed?: boolean;
}

/** LineageEdge links two nodes in causal order (from → to); latencyMs = to.time − from.time when both are known. */
export interface LineageEdge {
  from: string;
  to: string;
  latencyMs?: number;
  /** One of the two times comes from the objects (second precision), not from the dashboard's watches. */
  approx?: boolean;
}

/** LineageGraph is an event's lineage: upstream of a deployed object, or downstream of an event. */
export interface LineageGraph {
  direction: 'upstream' | 'downstream';
  root: string;
  nodes: LineageNode[];
  edges: LineageEdge[];
  /** What could not be found (a missing hop): empty when the chain is complete. */
  missing: string[];
}

/** EventRow is one event: a resource an EventSource matches in a cluster (the start of downstream lineages). */
export interface EventRow extends ObjRef {
  eventSource: string;
  report: string;
  time?: number;
}

/** MetricSample is one point of the time series the dashboard samples from the Prometheus registry. */
export interface MetricSample {
  /** ms since the epoch. */
  t: number;
  /** Matching EventSource evaluations per second (ripple_agent_evaluations_total{result="match"}). */
  eventsPerSecond: number;
  /** Failed deployment passes + failed instantiations per second. */
  failuresPerSecond: number;
  /** Event → add-on latency quantiles of the interval (s), from ripple_event_to_addon_seconds; undefined: none. */
  p50?: number;
  p90?: number;
  p99?: number;
  count: number;
}

/** HistogramView is a Prometheus histogram's cumulative buckets as they are now. */
export interface HistogramView {
  name: string;
  help: string;
  buckets: { le: number; count: number }[];
  count: number;
  sum: number;
}

/** MetricsView is what the plots page draws. */
export interface MetricsView {
  intervalMs: number;
  samples: MetricSample[];
  histograms: HistogramView[];
}

/** StreamMessage is one server-sent event of /api/stream: which topics changed (refetch them). */
export interface StreamMessage {
  version: number;
  topics: Topic[];
}

/** Topic is a part of the model that can change. */
export type Topic = 'clusters' | 'sources' | 'triggers' | 'addons' | 'failures' | 'lineage' | 'metrics';
