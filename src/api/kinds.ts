// The descriptor table: one entry per kind Ripple serves (GVK, resource names, scope, versions with their schemas,
// subresources, printer columns). CRD generation, validation, normalisation and the API server all read it, so
// per-kind facts live here and nowhere else.
import {
  clusterProfileSpecSchema,
  clusterProfileStatusSchema,
  clusterReportSpecSchema,
  clusterReportStatusSchema,
  clusterSummarySpecSchema,
  clusterSummaryStatusSchema,
  resourceSummarySpecSchema,
  resourceSummaryStatusSchema,
} from './profile-types.js';
import { clusterSetSpecSchema, clusterSetStatusSchema, sveltosClusterSpecSchema, sveltosClusterStatusSchema } from './cluster-types.js';
import {
  eventBasedAddOnSpecSchema,
  eventReportSpecSchema,
  eventReportStatusSchema,
  eventSourceSpecSchema,
  eventTriggerSpecSchema,
  eventTriggerStatusSchema,
  eventTriggerV1alpha1SpecSchema,
} from './event-types.js';
import {
  configurationBundleSpecSchema,
  configurationBundleStatusSchema,
  configurationGroupSpecSchema,
  configurationGroupStatusSchema,
} from './pullmode-types.js';
import { roleRequestSpecSchema, roleRequestStatusSchema } from './tenancy-types.js';
import { obj, opt, str, toJsonSchema, type JsonSchema, type TSchema } from './schema-dsl.js';

/** LIB_GROUP is Sveltos' library API group (events, clusters, sets, resource summaries). */
export const LIB_GROUP = 'lib.projectsveltos.io';
/** CONFIG_GROUP is Sveltos' add-on API group (profiles, summaries, reports). */
export const CONFIG_GROUP = 'config.projectsveltos.io';
/** SVELTOS_GROUPS are the API groups whose kinds Ripple owns (an unknown kind there is an error, not "foreign"). */
export const SVELTOS_GROUPS: readonly string[] = [LIB_GROUP, CONFIG_GROUP];

/** KindName names every kind Ripple serves. */
export type KindName =
  | 'EventSource'
  | 'EventReport'
  | 'EventTrigger'
  | 'EventBasedAddOn'
  | 'ClusterProfile'
  | 'Profile'
  | 'ClusterSummary'
  | 'ClusterReport'
  | 'SveltosCluster'
  | 'ClusterSet'
  | 'Set'
  | 'ResourceSummary'
  | 'ConfigurationGroup'
  | 'ConfigurationBundle'
  | 'RoleRequest';

/** PrinterColumn is a CRD additionalPrinterColumns entry (what `kubectl get` shows). */
export interface PrinterColumn {
  name: string;
  type: 'string' | 'integer' | 'number' | 'boolean' | 'date';
  jsonPath: string;
  description?: string;
  priority?: number;
  format?: string;
}

/** VersionDescriptor is one served API version of a kind. */
export interface VersionDescriptor {
  name: string;
  served: boolean;
  storage: boolean;
  /** Set on old versions: kubectl prints deprecationWarning on every request. */
  deprecated?: boolean;
  deprecationWarning?: string;
  /** The openAPIV3Schema of this version (plain JSON). */
  schema: JsonSchema;
  printerColumns: readonly PrinterColumn[];
}

/** KindDescriptor is everything Ripple knows about one kind, independent of any API server. */
export interface KindDescriptor {
  kind: KindName;
  group: string;
  listKind: string;
  plural: string;
  singular: string;
  /** Sveltos defines none; adding any would risk colliding with other operators' short names on real clusters. */
  shortNames: readonly string[];
  categories: readonly string[];
  scope: 'Namespaced' | 'Cluster';
  /** Whether the kind has a status subresource (same for every version). */
  status: boolean;
  /** The version objects are stored in (the API server converts with strategy None). */
  storageVersion: string;
  /** The version Ripple's controllers work with after normalize(); v1beta1 except for EventBasedAddOn's target. */
  preferredVersion: string;
  versions: readonly VersionDescriptor[];
  /** Paths (`spec.group`) that exist only for v1alpha1 compatibility: accepted, but `validate` warns about them. */
  legacyPaths: readonly string[];
}

const CATEGORIES = ['sveltos'];

function rootSchema(description: string, spec: TSchema, status?: TSchema): JsonSchema {
  const apiVersionDoc =
    'APIVersion defines the versioned schema of this representation of an object. Servers should convert recognized schemas to the latest internal value, and may reject unrecognized values.';
  const kindDoc =
    'Kind is a string value representing the REST resource this object represents. Servers may infer this from the endpoint the client submits requests to. In CamelCase.';
  return toJsonSchema(
    obj(
      {
        apiVersion: opt(str({ description: apiVersionDoc })),
        kind: opt(str({ description: kindDoc })),
        metadata: opt(obj({})),
        spec: opt(spec),
        ...(status ? { status: opt(status) } : {}),
      },
      { description },
    ),
  );
}

const ageColumn: PrinterColumn = { name: 'Age', type: 'date', jsonPath: '.metadata.creationTimestamp' };

function v1beta1(schema: JsonSchema, printerColumns: readonly PrinterColumn[] = []): VersionDescriptor {
  return { name: 'v1beta1', served: true, storage: true, schema, printerColumns };
}
function v1alpha1(kind: string, schema: JsonSchema, printerColumns: readonly PrinterColumn[] = [], storage = false): VersionDescriptor {
  const target = kind === 'EventBasedAddOn' ? 'lib.projectsveltos.io/v1beta1 EventTrigger' : `lib.projectsveltos.io/v1beta1 ${kind}`;
  return {
    name: 'v1alpha1',
    served: true,
    storage,
    deprecated: true,
    deprecationWarning: `lib.projectsveltos.io/v1alpha1 ${kind} is deprecated; use ${target} (Ripple converts the old shape)`,
    schema,
    printerColumns,
  };
}

function describe(d: Omit<KindDescriptor, 'listKind' | 'singular' | 'shortNames' | 'categories' | 'preferredVersion' | 'legacyPaths'> & Partial<KindDescriptor>): KindDescriptor {
  return {
    listKind: `${d.kind}List`,
    singular: d.kind.toLowerCase(),
    shortNames: [],
    categories: CATEGORIES,
    preferredVersion: 'v1beta1',
    legacyPaths: [],
    ...d,
  };
}

function buildKinds(): KindDescriptor[] {
  const eventSource = rootSchema('EventSource is the Schema for the EventSource API: what an event is.', eventSourceSpecSchema());
  const eventReport = rootSchema(
    'EventReport is the Schema for the EventReport API: resources matching an EventSource in one cluster.',
    eventReportSpecSchema(),
    eventReportStatusSchema(),
  );
  const eventReportColumns: PrinterColumn[] = [
    { name: 'Cluster', type: 'string', jsonPath: '.spec.clusterName', description: 'Cluster the events come from' },
    { name: 'EventSource', type: 'string', jsonPath: '.spec.eventSourceName', description: 'EventSource that matched' },
    { name: 'Phase', type: 'string', jsonPath: '.status.phase', description: 'Delivery phase' },
    ageColumn,
  ];
  const triggerColumns: PrinterColumn[] = [
    { name: 'EventSource', type: 'string', jsonPath: '.spec.eventSourceName', description: 'Referenced EventSource' },
    { name: 'OneForEvent', type: 'boolean', jsonPath: '.spec.oneForEvent', description: 'One ClusterProfile per matching resource' },
    ageColumn,
  ];
  const profileSpec = clusterProfileSpecSchema();
  const profileStatus = clusterProfileStatusSchema();
  const setSpec = clusterSetSpecSchema();
  const setStatus = clusterSetStatusSchema();
  return [
    describe({
      kind: 'EventSource',
      group: LIB_GROUP,
      plural: 'eventsources',
      scope: 'Cluster',
      status: false,
      storageVersion: 'v1beta1',
      versions: [v1beta1(eventSource), v1alpha1('EventSource', eventSource)],
      legacyPaths: [
        'spec.group',
        'spec.version',
        'spec.kind',
        'spec.labelFilters',
        'spec.labelsFilters',
        'spec.namespace',
        'spec.script',
        'spec.resourceSelectors[].script',
      ],
    }),
    describe({
      kind: 'EventReport',
      group: LIB_GROUP,
      plural: 'eventreports',
      scope: 'Namespaced',
      status: true,
      storageVersion: 'v1beta1',
      versions: [v1beta1(eventReport, eventReportColumns), v1alpha1('EventReport', eventReport, eventReportColumns)],
    }),
    describe({
      kind: 'EventTrigger',
      group: LIB_GROUP,
      plural: 'eventtriggers',
      scope: 'Cluster',
      status: true,
      storageVersion: 'v1beta1',
      versions: [
        v1beta1(
          rootSchema('EventTrigger is the Schema for the EventTrigger API: what to deploy when an event happens.', eventTriggerSpecSchema(), eventTriggerStatusSchema()),
          triggerColumns,
        ),
        v1alpha1(
          'EventTrigger',
          rootSchema('EventTrigger (v1alpha1 shape: selectors may be strings such as "env=fv").', eventTriggerV1alpha1SpecSchema(), eventTriggerStatusSchema()),
          triggerColumns,
        ),
      ],
    }),
    describe({
      kind: 'EventBasedAddOn',
      group: LIB_GROUP,
      plural: 'eventbasedaddons',
      scope: 'Cluster',
      status: true,
      storageVersion: 'v1alpha1',
      preferredVersion: 'v1alpha1',
      versions: [
        v1alpha1(
          'EventBasedAddOn',
          rootSchema('EventBasedAddOn is the former name of EventTrigger; Ripple reads it as an EventTrigger.', eventBasedAddOnSpecSchema(), eventTriggerStatusSchema()),
          triggerColumns,
          true,
        ),
      ],
    }),
    describe({
      kind: 'ClusterProfile',
      group: CONFIG_GROUP,
      plural: 'clusterprofiles',
      scope: 'Cluster',
      status: true,
      storageVersion: 'v1beta1',
      versions: [v1beta1(rootSchema('ClusterProfile is the Schema for the clusterprofiles API.', profileSpec, profileStatus))],
    }),
    describe({
      kind: 'Profile',
      group: CONFIG_GROUP,
      plural: 'profiles',
      scope: 'Namespaced',
      status: true,
      storageVersion: 'v1beta1',
      versions: [v1beta1(rootSchema('Profile is the Schema for the profiles API.', profileSpec, profileStatus))],
    }),
    describe({
      kind: 'ClusterSummary',
      group: CONFIG_GROUP,
      plural: 'clustersummaries',
      scope: 'Namespaced',
      status: true,
      storageVersion: 'v1beta1',
      versions: [
        v1beta1(rootSchema('ClusterSummary is the Schema for the clustersummaries API.', clusterSummarySpecSchema(), clusterSummaryStatusSchema()), [
          { name: 'Age', type: 'date', jsonPath: '.metadata.creationTimestamp', description: 'Time duration since creation of ClusterSummary' },
          {
            name: 'HelmCharts',
            type: 'string',
            jsonPath: '.status.featureSummaries[?(@.featureID=="Helm")].status',
            description: 'Indicates whether HelmCharts are all provisioned',
            priority: 2,
          },
          {
            name: 'KustomizeRefs',
            type: 'string',
            jsonPath: '.status.featureSummaries[?(@.featureID=="Kustomize")].status',
            description: 'Indicates whether KustomizeRefs are all provisioned',
            priority: 2,
          },
          {
            name: 'PolicyRefs',
            type: 'string',
            jsonPath: '.status.featureSummaries[?(@.featureID=="Resources")].status',
            description: 'Indicates whether PolicyRefs are all provisioned',
            priority: 2,
          },
        ]),
      ],
    }),
    describe({
      kind: 'ClusterReport',
      group: CONFIG_GROUP,
      plural: 'clusterreports',
      scope: 'Namespaced',
      status: true,
      storageVersion: 'v1beta1',
      versions: [v1beta1(rootSchema('ClusterReport is the Schema for the clusterreports API.', clusterReportSpecSchema(), clusterReportStatusSchema()))],
    }),
    describe({
      kind: 'SveltosCluster',
      group: LIB_GROUP,
      plural: 'sveltosclusters',
      scope: 'Namespaced',
      status: true,
      storageVersion: 'v1beta1',
      versions: [
        v1beta1(rootSchema('SveltosCluster is the Schema for the SveltosCluster API.', sveltosClusterSpecSchema(), sveltosClusterStatusSchema()), [
          { name: 'Ready', type: 'boolean', jsonPath: '.status.ready', description: 'Indicates whether cluster is ready to be managed by sveltos' },
          { name: 'ConnectionStatus', type: 'string', jsonPath: '.status.connectionStatus', description: 'Whether connection is healthy', priority: 1 },
          { name: 'Version', type: 'string', jsonPath: '.status.version', description: 'Kubernetes version associated with this Cluster' },
          { name: 'Age', type: 'date', jsonPath: '.metadata.creationTimestamp', description: 'Time duration since creation of SveltosCluster' },
          { name: 'Shard', type: 'string', jsonPath: ".metadata.annotations['sharding\\.projectsveltos\\.io/key']", description: 'Cluster Shard' },
        ]),
      ],
    }),
    describe({
      kind: 'ClusterSet',
      group: LIB_GROUP,
      plural: 'clustersets',
      scope: 'Cluster',
      status: true,
      storageVersion: 'v1beta1',
      versions: [v1beta1(rootSchema('ClusterSet is the Schema for the clustersets API.', setSpec, setStatus))],
    }),
    describe({
      kind: 'Set',
      group: LIB_GROUP,
      plural: 'sets',
      scope: 'Namespaced',
      status: true,
      storageVersion: 'v1beta1',
      versions: [v1beta1(rootSchema('Set is the Schema for the sets API.', setSpec, setStatus))],
    }),
    describe({
      kind: 'ResourceSummary',
      group: LIB_GROUP,
      plural: 'resourcesummaries',
      scope: 'Namespaced',
      status: true,
      storageVersion: 'v1beta1',
      versions: [v1beta1(rootSchema('ResourceSummary is the Schema for the ResourceSummary API.', resourceSummarySpecSchema(), resourceSummaryStatusSchema()))],
    }),
    describe({
      kind: 'ConfigurationGroup',
      group: LIB_GROUP,
      plural: 'configurationgroups',
      scope: 'Namespaced',
      status: true,
      storageVersion: 'v1beta1',
      versions: [
        v1beta1(rootSchema('ConfigurationGroup is the Schema for the configurationgroup API', configurationGroupSpecSchema(), configurationGroupStatusSchema()), [
          { name: 'Action', type: 'string', jsonPath: '.spec.action' },
          { name: 'Status', type: 'string', jsonPath: '.status.status' },
          { name: 'Age', type: 'date', jsonPath: '.metadata.creationTimestamp' },
        ]),
      ],
    }),
    describe({
      kind: 'ConfigurationBundle',
      group: LIB_GROUP,
      plural: 'configurationbundles',
      scope: 'Namespaced',
      status: true,
      storageVersion: 'v1beta1',
      versions: [v1beta1(rootSchema('ConfigurationBundle is the Schema for the configurationbundle API', configurationBundleSpecSchema(), configurationBundleStatusSchema()))],
    }),
    describe({
      kind: 'RoleRequest',
      group: LIB_GROUP,
      plural: 'rolerequests',
      scope: 'Cluster',
      status: true,
      storageVersion: 'v1beta1',
      versions: [v1beta1(rootSchema('RoleRequest is the Schema for the rolerequest API: permissions a tenant admin gets in matching clusters.', roleRequestSpecSchema(), roleRequestStatusSchema()))],
    }),
  ];
}

/** KINDS is the descriptor table of every kind Ripple serves, in a stable order. */
export const KINDS: readonly KindDescriptor[] = Object.freeze(buildKinds());

const byKind = new Map(KINDS.map((k) => [k.kind, k]));

/** kindDescriptor returns the descriptor of a served kind. */
export function kindDescriptor(kind: KindName): KindDescriptor {
  const d = byKind.get(kind);
  if (!d) throw new Error(`kindDescriptor: ${kind} is not in KINDS`); // unreachable: KindName is closed
  return d;
}

/** splitApiVersion splits `group/version` (or a core `v1`) into its parts. */
export function splitApiVersion(apiVersion: string): { group: string; version: string } {
  const i = apiVersion.lastIndexOf('/');
  return i < 0 ? { group: '', version: apiVersion } : { group: apiVersion.slice(0, i), version: apiVersion.slice(i + 1) };
}

/** LookupResult says what an apiVersion/kind pair is to Ripple. */
export type LookupResult =
  | { status: 'served'; descriptor: KindDescriptor; version: VersionDescriptor }
  /** The kind is ours but this version is not served. */
  | { status: 'unknownVersion'; descriptor: KindDescriptor; version: string }
  /** The group is a Sveltos group but the kind is not one Ripple serves. */
  | { status: 'unknownKind'; group: string; kind: string }
  /** Not a Sveltos group: a ConfigMap, a Service, someone else's CRD. */
  | { status: 'foreign'; group: string; kind: string };

/** lookupKind finds the descriptor and version for an object's apiVersion and kind. */
export function lookupKind(apiVersion: string, kind: string): LookupResult {
  const { group, version } = splitApiVersion(apiVersion);
  const d = KINDS.find((k) => k.group === group && k.kind === kind);
  if (!d) return SVELTOS_GROUPS.includes(group) ? { status: 'unknownKind', group, kind } : { status: 'foreign', group, kind };
  const v = d.versions.find((x) => x.name === version && x.served);
  return v ? { status: 'served', descriptor: d, version: v } : { status: 'unknownVersion', descriptor: d, version };
}

/** kindByResource finds a kind by its group and plural resource name (`lib.projectsveltos.io`, `eventtriggers`). */
export function kindByResource(group: string, plural: string): KindDescriptor | undefined {
  return KINDS.find((k) => k.group === group && k.plural === plural);
}

/** storageSchema returns the openAPIV3Schema of a kind's storage version. */
export function storageSchema(d: KindDescriptor): JsonSchema {
  const v = d.versions.find((x) => x.storage);
  if (!v) throw new Error(`storageSchema: ${d.kind} has no storage version`); // unreachable: table invariant, tested
  return v.schema;
}
