// Label, annotation, finalizer and other well-known keys Sveltos components use, spelled exactly as Sveltos spells
// them (see the Sveltos API reference §1–§9). Every component reads them from here.

/** Annotations on ConfigMaps/Secrets referenced by policyRefs and on deployed objects. */
export const Annotations = {
  /** Rendered by the event manager with event data (`.Resource`, `.Cluster`, …) into a new object. */
  instantiate: 'projectsveltos.io/instantiate',
  /** Rendered by the add-on deployer with cluster/management data (`.Cluster`, `getResource "id"`). */
  template: 'projectsveltos.io/template',
  /** Content is a Lua script producing the objects to deploy. */
  lua: 'projectsveltos.io/lua',
  /** Comma-separated subresources (e.g. `status`) applied after the main apply. */
  subresources: 'projectsveltos.io/subresources',
  /** The misspelling used in the load-balancer seed document; Ripple accepts it with a warning. */
  subresourcesMisspelled: 'projectsveltos.io/subressources',
  /** Switches Sprig's func map variant on ClusterProfile/Profile/EventTrigger; no observable effect (sic "tex"). */
  texTemplate: 'projectsveltos.io/tex-template',
  /** Marks an EventSource copied into a managed cluster by the event manager; agents evaluate only these. */
  deployedBySveltos: 'projectsveltos.io/deployed-by-sveltos',
  // Deployer stamps (libsveltos lib/deployer) on every object it applies.
  referenceKind: 'projectsveltos.io/reference-kind',
  referenceName: 'projectsveltos.io/reference-name',
  referenceNamespace: 'projectsveltos.io/reference-namespace',
  referenceTier: 'projectsveltos.io/reference-tier',
  /** `sha256:<hex>` of the key-sorted JSON of the object before stamping. */
  hash: 'projectsveltos.io/hash',
  ownerTier: 'projectsveltos.io/owner-tier',
  ownerName: 'projectsveltos.io/owner-name',
  ownerKind: 'projectsveltos.io/owner-kind',
  /** `<capi|sveltos>-<clusterNamespace>-<clusterName>` of the ClusterSummary that deployed the object. */
  clusterSummary: 'projectsveltos.io/clustersummary',
  /** `Local` or `Remote`. */
  deploymentType: 'projectsveltos.io/deploymenttype',
  /** Per-object opt-out of drift detection. */
  driftDetectionIgnore: 'projectsveltos.io/driftDetectionIgnore',
  /** Delete and recreate on immutable-field errors. */
  forceRecreate: 'projectsveltos.io/forceRecreate',
  /** Pauses reconciliation of a ClusterProfile/Profile. */
  profilePaused: 'profile.projectsveltos.io/paused',
  /** Cluster API pause annotation, honoured on EventTriggers and clusters. */
  capiPaused: 'cluster.x-k8s.io/paused',
  /** Shard a cluster is handled by (`--shard-key`). */
  shardKey: 'sharding.projectsveltos.io/key',
  reloaderResourceKind: 'reloaderreport.projectsveltos.io/resource-kind',
  reloaderResourceNamespace: 'reloaderreport.projectsveltos.io/resource-namespace',
  reloaderResourceName: 'reloaderreport.projectsveltos.io/resource-name',
} as const;

/** Labels Sveltos components set and select on. */
export const Labels = {
  /** Deployed objects: why they exist (`Resources` | `Kustomize` | `Helm`). */
  reason: 'projectsveltos.io/reason',
  // Tenant identity (§9).
  serviceAccountName: 'projectsveltos.io/serviceaccount-name',
  serviceAccountNamespace: 'projectsveltos.io/serviceaccount-namespace',
  /** Old (2023) tenant labels, still shown by old docs. */
  adminName: 'projectsveltos.io/admin-name',
  adminNamespace: 'projectsveltos.io/admin-namespace',
  // EventReports.
  eventSourceName: 'projectsveltos.io/eventsource-name',
  eventReportClusterName: 'eventreport.projectsveltos.io/cluster-name',
  /** Lower-cased cluster type: `capi` / `sveltos`. */
  eventReportClusterType: 'eventreport.projectsveltos.io/cluster-type',
  // ClusterSummaries.
  clusterProfileName: 'projectsveltos.io/cluster-profile-name',
  clusterName: 'projectsveltos.io/cluster-name',
  clusterType: 'projectsveltos.io/cluster-type',
  // RoleRequest kubeconfig Secrets.
  roleCluster: 'projectsveltos.io/role-cluster',
  roleServiceAccountName: 'projectsveltos.io/role-service-account-name',
  roleServiceAccountNamespace: 'projectsveltos.io/role-service-account-namespace',
} as const;

/** EventTriggerLabels are the `eventtrigger.lib.projectsveltos.io/*` labels on generated ClusterProfiles/ConfigMaps/Secrets. */
export const EventTriggerLabels = {
  eventTriggerName: 'eventtrigger.lib.projectsveltos.io/eventtriggername',
  /** Note the capital N: Sveltos spells this key `clusterNamespace`. */
  clusterNamespace: 'eventtrigger.lib.projectsveltos.io/clusterNamespace',
  clusterName: 'eventtrigger.lib.projectsveltos.io/clustername',
  /** `Capi` or `Sveltos` (not lower-cased). */
  clusterType: 'eventtrigger.lib.projectsveltos.io/clustertype',
  /** Legacy key: the EventSource name taken from the report's eventsource-name label. */
  eventReportName: 'eventtrigger.lib.projectsveltos.io/eventreportname',
  eventSourceName: 'eventtrigger.lib.projectsveltos.io/eventsourcename',
  resourceName: 'eventtrigger.lib.projectsveltos.io/resourcename',
  resourceNamespace: 'eventtrigger.lib.projectsveltos.io/resourcenamespace',
  ceSource: 'eventtrigger.lib.projectsveltos.io/cesource',
  ceSubject: 'eventtrigger.lib.projectsveltos.io/cesubject',
  refNamespace: 'eventtrigger.lib.projectsveltos.io/refnamespace',
  refName: 'eventtrigger.lib.projectsveltos.io/refname',
  /** Value `ok` on objects produced by configMapGenerator/secretGenerator. */
  fromGenerator: 'eventtrigger.lib.projectsveltos.io/fromgenerator',
} as const;

/** EventBasedAddOnLabels are the pre-2024 `eventbasedaddon.lib.projectsveltos.io/*` equivalents of EventTriggerLabels. */
export const EventBasedAddOnLabels = {
  eventBasedAddOnName: 'eventbasedaddon.lib.projectsveltos.io/eventbasedaddonname',
  clusterNamespace: 'eventbasedaddon.lib.projectsveltos.io/clusterNamespace',
  clusterName: 'eventbasedaddon.lib.projectsveltos.io/clustername',
  clusterType: 'eventbasedaddon.lib.projectsveltos.io/clustertype',
  refNamespace: 'eventbasedaddon.lib.projectsveltos.io/refnamespace',
  refName: 'eventbasedaddon.lib.projectsveltos.io/refname',
  resourceName: 'eventbasedaddon.lib.projectsveltos.io/resourcename',
  resourceNamespace: 'eventbasedaddon.lib.projectsveltos.io/resourcenamespace',
} as const;

/** Finalizers Sveltos components put on their objects. */
export const Finalizers = {
  eventSource: 'eventsource.finalizer.projectsveltos.io',
  eventReport: 'eventreport.finalizer.projectsveltos.io',
  eventTrigger: 'eventtrigger.finalizer.projectsveltos.io',
  eventBasedAddOn: 'eventbasedaddon.finalizer.projectsveltos.io',
} as const;

/** SVELTOS_NAMESPACE is where agents write EventReports and the event manager writes instantiated ConfigMaps/Secrets. */
export const SVELTOS_NAMESPACE = 'projectsveltos';
/** CLUSTER_PROFILE_SECRET_TYPE is the Secret type Sveltos requires for Secrets referenced by profiles. */
export const CLUSTER_PROFILE_SECRET_TYPE = 'addons.projectsveltos.io/cluster-profile';
/** ZERO_MATCH_THRESHOLD is how many consecutive empty EventReports Sveltos waits for before withdrawing. */
export const ZERO_MATCH_THRESHOLD = 3;

/** eventReportName is the management-cluster EventReport name: `<clustertype lowercased>--<eventSource>--<cluster>`. */
export function eventReportName(clusterType: 'Capi' | 'Sveltos', eventSourceName: string, clusterName: string): string {
  return `${clusterType.toLowerCase()}--${eventSourceName}--${clusterName}`;
}
