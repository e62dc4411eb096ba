// Event framework types: EventSource, EventReport, EventTrigger (lib.projectsveltos.io) and the old
// EventBasedAddOn. Shapes follow projectsveltos/libsveltos api/v1beta1 (eventsource_type.go, eventreport_type.go)
// and projectsveltos/event-manager api/v1beta1 (eventtrigger_types.go); v1alpha1 shapes are in §2.7 / §4.6 of
// the Sveltos API reference.
import {
  labelFilterSchema,
  labelSelectorSchema,
  objectReferenceSchema,
  resourceSelectorSchema,
  type KubeObject,
} from './common-types.js';
import type { LabelSelector } from './label-selector.js';
import { deploymentFields } from './profile-types.js';
import { anyValue, bool, bytes, list, obj, opt, str, strEnum, strList, type Static } from './schema-dsl.js';

/** CLUSTER_TYPES are the kinds of cluster Sveltos manages (value of clusterType fields). */
export const CLUSTER_TYPES = ['Capi', 'Sveltos'] as const;
/** ClusterType is `Capi` (Cluster API Cluster) or `Sveltos` (SveltosCluster). */
export type ClusterType = (typeof CLUSTER_TYPES)[number];

/** EVENT_REPORT_PHASES are the delivery phases of an EventReport. */
export const EVENT_REPORT_PHASES = ['WaitingForDelivery', 'Delivering', 'Processed'] as const;
/** CLUSTER_INFO_STATUSES are EventTrigger status.clusterInfo[].status values. */
export const CLUSTER_INFO_STATUSES = ['Provisioning', 'Provisioned', 'Failed', 'FailedNonRetriable', 'Removing', 'Removed'] as const;

const deprecated = (what: string) => `Deprecated (v1alpha1 flat EventSource): ${what}. Ripple converts it into spec.resourceSelectors.`;

/**
 * eventSourceSpecSchema is EventSource spec. Besides the current fields it declares the v1alpha1 flat fields
 * (`group`, `version`, `kind`, `labelFilters`, `labelsFilters`, `namespace`, `script`) and
 * `resourceSelectors[].script`: objects written through lib.projectsveltos.io/v1alpha1 are stored as v1beta1
 * (conversion None) and pruned with the v1beta1 schema, so those fields must be declared here or the API server
 * would silently drop them (see src/api/README.md).
 */
export const eventSourceSpecSchema = () =>
  obj({
    aggregatedSelection: opt(str({ description: 'AggregatedSelection is a Lua script run once over all selected resources.' })),
    collectResources: opt(bool({ default: false, description: 'CollectResources puts full matching objects into the EventReport.' })),
    group: opt(str({ description: deprecated('API group of the resources to watch') })),
    includeDeletingResources: opt(
      bool({
        description:
          'IncludeDeletingResources (Ripple extension) keeps resources that carry a deletionTimestamp (e.g. waiting for finalizers) among the matches; by default they are excluded, as Sveltos does.',
      }),
    ),
    kind: opt(str({ minLength: 1, description: deprecated('kind of the resources to watch') })),
    labelFilters: opt(list(labelFilterSchema(), { description: deprecated('label filters') })),
    labelsFilters: opt(list(labelFilterSchema(), { description: deprecated('label filters (old spelling)') })),
    messagingMatchCriteria: opt(
      list(
        obj({
          cloudEventSource: opt(str()),
          cloudEventSubject: opt(str()),
          cloudEventType: opt(str()),
          subject: opt(str()),
        }),
        { description: 'MessagingMatchCriteria matches CloudEvents received over NATS/JetStream.' },
      ),
    ),
    namespace: opt(str({ description: deprecated('namespace of the resources to watch') })),
    resourceSelectors: opt(list(resourceSelectorSchema('legacy'), { description: 'ResourceSelectors identifies what resources to select.' })),
    script: opt(str({ description: deprecated('Lua script (now resourceSelectors[].evaluate)') })),
    version: opt(str({ description: deprecated('API version of the resources to watch') })),
  });
/** EventSourceSpec is what an EventSource selects (raw, possibly still in a v1alpha1 flat form before normalize). */
export type EventSourceSpec = Static<ReturnType<typeof eventSourceSpecSchema>>;

/** eventReportSpecSchema is EventReport spec. */
export const eventReportSpecSchema = () =>
  obj({
    cloudEvents: opt(list(bytes())),
    clusterName: str(),
    clusterNamespace: str(),
    clusterType: str(),
    eventSourceName: str(),
    matchingResources: opt(list(objectReferenceSchema(), { 'x-kubernetes-list-type': 'atomic' })),
    resources: opt(bytes({ description: 'Resources: matching objects as JSON documents separated by "---" (base64 in YAML).' })),
  });
/** EventReportSpec lists what matched an EventSource in one cluster. */
export type EventReportSpec = Static<ReturnType<typeof eventReportSpecSchema>>;

/** eventReportStatusSchema is EventReport status. */
export const eventReportStatusSchema = () =>
  obj({ failureMessage: opt(str()), phase: opt(strEnum(EVENT_REPORT_PHASES)) });
/** EventReportStatus is the delivery phase of an EventReport. */
export type EventReportStatus = Static<ReturnType<typeof eventReportStatusSchema>>;

const generatorReferenceSchema = () =>
  obj({
    name: str({ minLength: 1 }),
    nameFormat: str({ minLength: 1 }),
    namespace: opt(str()),
    optional: opt(bool({ default: false })),
  });

const eventTriggerOwnFields = () => ({
  cloudEventAction: opt(str({ default: 'Create', description: 'CloudEventAction (Create or Delete), templated with the CloudEvent.' })),
  clusterSetRefs: opt(strList()),
  configMapGenerator: opt(list(generatorReferenceSchema())),
  destinationCluster: opt(objectReferenceSchema({ description: 'DestinationCluster: deploy there instead of the source cluster (templated).' })),
  eventSourceName: str({ minLength: 1, description: 'EventSourceName is the name of the referenced EventSource.' }),
  oneForEvent: opt(
    bool({
      description: 'OneForEvent: one ClusterProfile per matching resource (true) or per cluster (false). Immutable.',
      'x-kubernetes-validations': [{ rule: 'self == oldSelf', message: 'Value is immutable' }],
    }),
  ),
  profileNameFormat: opt(str()),
  secretGenerator: opt(list(generatorReferenceSchema())),
});

/** eventTriggerSpecSchema is EventTrigger spec (v1beta1). */
export const eventTriggerSpecSchema = () =>
  obj({
    ...eventTriggerOwnFields(),
    destinationClusterSelector: opt(labelSelectorSchema({ description: 'DestinationClusterSelector: deploy to these clusters instead of the source cluster.' })),
    sourceClusterSelector: labelSelectorSchema({ description: 'SourceClusterSelector selects the clusters to watch. An empty selector matches no cluster.' }),
    ...deploymentFields('event'),
  });
/** EventTriggerSpec is what an EventTrigger deploys when its EventSource matches in a selected cluster. */
export type EventTriggerSpec = Static<ReturnType<typeof eventTriggerSpecSchema>>;

/** SelectorOrString is a v1alpha1 selector field: a label-selector string (`env=fv`) or a LabelSelector. */
export type SelectorOrString = LabelSelector | string;

const oldSelector = (what: string) =>
  anyValue<SelectorOrString>({ description: `${what}: a label selector string such as "env=fv" (v1alpha1) or matchLabels/matchExpressions.` });

/** eventTriggerV1alpha1SpecSchema is EventTrigger spec served as v1alpha1: selectors may be strings (`env=fv`). */
export const eventTriggerV1alpha1SpecSchema = () =>
  obj({
    ...eventTriggerOwnFields(),
    destinationClusterSelector: opt(oldSelector('DestinationClusterSelector')),
    sourceClusterSelector: oldSelector('SourceClusterSelector'),
    ...deploymentFields('event'),
  });

/** eventBasedAddOnSpecSchema is the old EventBasedAddOn spec (renamed EventTrigger in 2023-12). */
export const eventBasedAddOnSpecSchema = () =>
  obj({
    ...eventTriggerOwnFields(),
    clusterSelector: opt(oldSelector('ClusterSelector (first EventBasedAddOn shape; later sourceClusterSelector)')),
    destinationClusterSelector: opt(oldSelector('DestinationClusterSelector')),
    sourceClusterSelector: opt(oldSelector('SourceClusterSelector')),
    ...deploymentFields('event'),
  });

/** eventTriggerStatusSchema is EventTrigger (and EventBasedAddOn) status. */
export const eventTriggerStatusSchema = () =>
  obj({
    clusterInfo: opt(
      list(
        obj({
          cluster: objectReferenceSchema(),
          failureMessage: opt(str()),
          hash: bytes(),
          status: opt(strEnum(CLUSTER_INFO_STATUSES)),
        }),
      ),
    ),
    destinationMatchingClusterRefs: opt(list(objectReferenceSchema())),
    matchingClusters: opt(list(objectReferenceSchema())),
  });
/** EventTriggerStatus records matching clusters and per-cluster EventSource deployment. */
export type EventTriggerStatus = Static<ReturnType<typeof eventTriggerStatusSchema>>;

/**
 * NormalizedEventSourceSpec is a normalized EventSource spec: the v1alpha1 flat fields are folded into
 * resourceSelectors and no longer appear.
 */
export type NormalizedEventSourceSpec = Omit<
  EventSourceSpec,
  'group' | 'version' | 'kind' | 'labelFilters' | 'labelsFilters' | 'namespace' | 'script' | 'resourceSelectors'
> & { resourceSelectors?: Omit<NonNullable<EventSourceSpec['resourceSelectors']>[number], 'script'>[] };

/** EventSource is a normalized lib.projectsveltos.io/v1beta1 EventSource (cluster-scoped). */
export interface EventSource extends KubeObject<'lib.projectsveltos.io/v1beta1', 'EventSource'> {
  spec: NormalizedEventSourceSpec;
}
/** EventReport is a lib.projectsveltos.io/v1beta1 EventReport (namespaced). */
export interface EventReport extends KubeObject<'lib.projectsveltos.io/v1beta1', 'EventReport'> {
  spec: EventReportSpec;
  status?: EventReportStatus;
}
/** EventTrigger is a normalized lib.projectsveltos.io/v1beta1 EventTrigger (cluster-scoped). */
export interface EventTrigger extends KubeObject<'lib.projectsveltos.io/v1beta1', 'EventTrigger'> {
  spec: EventTriggerSpec;
  status?: EventTriggerStatus;
}
