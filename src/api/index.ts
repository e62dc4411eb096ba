// api: Sveltos API types, schemas, validation, conversion to v1beta1, CRD generation and label selectors.
// Pure: no I/O. See README.md in this folder for how old shapes are served and converted.
export {
  ISSUE_CODES,
  formatIssue,
  type Issue,
  type IssueCode,
} from './issues.js';
export {
  CompiledLabelSelector,
  compileLabelSelector,
  formatLabelSelector,
  labelFiltersAsSelector,
  matchesLabelSelector,
  parseLabelSelector,
  validateLabelFilters,
  validateLabelSelector,
  type LabelRequirement,
  type LabelSelector,
  type LabelSelectorOperator,
  type LabelSelectorRequirement,
  type MatchOptions,
  type ParseSelectorResult,
} from './label-selector.js';
export { isDNS1035Label, isDNS1123Label, isDNS1123Subdomain, isQualifiedName, isValidLabelValue } from './name-validation.js';
export {
  LABEL_FILTER_OPERATIONS,
  type KubeObject,
  type LabelFilter,
  type ObjectMeta,
  type ObjectReference,
  type OwnerReference,
  type ResourceSelector,
} from './common-types.js';
export {
  CLUSTER_INFO_STATUSES,
  CLUSTER_TYPES,
  EVENT_REPORT_PHASES,
  type ClusterType,
  type EventReport,
  type EventReportSpec,
  type EventReportStatus,
  type EventSource,
  type EventSourceSpec,
  type EventTrigger,
  type EventTriggerSpec,
  type EventTriggerStatus,
  type NormalizedEventSourceSpec,
  type SelectorOrString,
} from './event-types.js';
export {
  DEPLOYMENT_TYPES,
  FEATURE_IDS,
  FEATURE_STATUSES,
  REFERENCE_KINDS,
  STOP_MATCHING_BEHAVIORS,
  SYNC_MODES,
  type ClusterProfile,
  type ClusterProfileSpec,
  type ClusterProfileStatus,
  type ClusterReport,
  type ClusterSummary,
  type ClusterSummarySpec,
  type ClusterSummaryStatus,
  type DriftExclusion,
  type HelmChart,
  type KustomizationRef,
  type Patch,
  type PolicyRef,
  type Profile,
  type Resource,
  type ResourceSummary,
  type ResourceSummarySpec,
  type ResourceSummaryStatus,
  type TemplateResourceRef,
  type ValidateHealth,
} from './profile-types.js';
export {
  type ClusterSet,
  type ClusterSetSpec,
  type ClusterSetStatus,
  type SveltosCluster,
  type SveltosClusterSpec,
  type SveltosClusterStatus,
  type SveltosSet,
} from './cluster-types.js';
export {
  ROLE_REQUEST_CLUSTER_STATUSES,
  type RoleRequest,
  type RoleRequestSpec,
  type RoleRequestStatus,
} from './tenancy-types.js';
export {
  Annotations,
  CLUSTER_PROFILE_SECRET_TYPE,
  EventBasedAddOnLabels,
  EventTriggerLabels,
  Finalizers,
  Labels,
  SVELTOS_NAMESPACE,
  ZERO_MATCH_THRESHOLD,
  eventReportName,
} from './keys.js';
export {
  CONFIG_GROUP,
  KINDS,
  LIB_GROUP,
  SVELTOS_GROUPS,
  kindByResource,
  kindDescriptor,
  lookupKind,
  splitApiVersion,
  storageSchema,
  type KindDescriptor,
  type KindName,
  type LookupResult,
  type PrinterColumn,
  type VersionDescriptor,
} from './kinds.js';
export type { JsonSchema } from './schema-dsl.js';
export { applyDefaults, dropNulls, jsonCopy, pruneUnknownFields, schemaPaths, type SchemaPathInfo } from './schema-ops.js';
export { decodeStdBase64, isPlainBase64, validateAgainstSchema, validateTransitions, type SchemaValidateOptions } from './schema-validate.js';
export { validateObjectMeta } from './object-meta.js';
export { formatValidation, validate, validateKind, validateUpdate, type ValidateOptions, type ValidationResult } from './validate.js';
export {
  normalize,
  normalizeAs,
  writeVersion,
  type NormalizeResult,
  type NormalizedKind,
  type SveltosObject,
  type SveltosObjectByKind,
} from './normalize.js';
export { fluxSourceCrds, FLUX_SOURCE_GROUP } from './flux-crds.js';
export { crdFor, crdsToYaml, generateCrds, type CustomResourceDefinition, type CustomResourceDefinitionVersion } from './crd.js';
export { checkCrd, checkStructuralSchema, type StructuralCheckOptions } from './structural.js';
export { admitWrite, readAs, type StorageWrite } from './storage-pipeline.js';
export { extractYamlBlocks, recoverYaml, type RecoverOptions, type RecoverResult, type YamlBlock } from './doc-yaml.js';
export {
  SEED_BLOCKS,
  recoverSeedBlocks,
  recoverSeedObjects,
  type RecoveredBlock,
  type SeedBlockNote,
  type SeedDocument,
  type SeedObject,
  type SeedRole,
} from './seeds.js';
export {
  configurationBundleSpecSchema,
  configurationGroupSpecSchema,
  configurationGroupStatusSchema,
  PullMode,
  type ConfigurationBundle,
  type ConfigurationBundleSpec,
  type ConfigurationGroup,
  type ConfigurationGroupSpec,
  type ConfigurationGroupStatus,
} from './pullmode-types.js';
export {
  PLATFORM_ADMIN,
  managedServiceAccount,
  managedUser,
  managementUser,
  serviceAccountOfUser,
  tenantLabels,
  tenantOf,
  type RoleRequestLike,
  type Tenant,
  type TenantResolution,
} from './tenant-identity.js';
export { TENANT_KINDS, TENANT_RESOURCES, tenantLabelDecision, type LabelDecision } from './tenant-labels.js';
