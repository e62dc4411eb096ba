// addons: the add-on deployer — ClusterProfile/Profile → per-cluster ClusterSummary → objects applied Local
// (management cluster) or Remote (managed cluster), with templates, subresources, Sveltos' stamps and conflict rules,
// drift detection, DryRun reports and withdrawal. See README.md in this folder.
export { startAddonDeployer, type AddonDeployer, type AddonDeployerOptions } from './deployer.js';
export type { Clock } from './context.js';
export {
  ADOPTED_ANNOTATION,
  AddonFinalizers,
  AddonLabels,
  FIELD_MANAGER,
  REASON_RESOURCES,
  clusterReportName,
  clusterSummaryAnnotationValue,
  clusterSummaryName,
  gvkString,
  parseGvkString,
  type ProfileKind,
} from './names.js';
export { splitPolicyText, decodeSecretData, type SplitResult } from './content.js';
export { PolicyRenderer, renderReferenceName, toGoData, type ClusterNames, type PolicyData, type RenderResult } from './render.js';
export {
  missingTemplateResource,
  needsTemplateData,
  parseSubresources,
  renderDesired,
  resolvePolicyRefs,
  resolveTemplateResourceRefs,
  type CapiObjects,
  filesUnder,
  type FluxPolicyLookup,
  type DesiredInput,
  type DesiredResult,
  type FeatureFailure,
  type PolicyRefsResult,
  type PolicySourceLookup,
  type ProfileIdentity,
  type ReferenceRead,
  type ResolvedRef,
  type ResolvedTemplateResourceRef,
  type ScopeResolver,
} from './desired.js';
export { goJSON, policyHash, stampObject, STAMP_ANNOTATIONS, type StampContext } from './stamp.js';
export { decideOwnership, ownerOf, parseTier, type Claim, type Ownership } from './ownership.js';
export { containsDesired, removePaths, unifiedDiff } from './diff.js';
export { plan, planWithdrawal, identityKey, identityOf, rank, type Action, type KnownObject, type DesiredObject, type ObjectIdentity, type PlanInput, type Target } from './plan.js';
export { summaryFor, maxUpdateCount } from './profile-controller.js';
export { isProvisioned } from './summary-controller.js';
export { addonMetrics, type AddonMetrics } from './metrics.js';
export { luaPolicyRunner, type LuaPolicyRunner } from './lua-policy.js';
export { RESTARTED_AT } from './reloader.js';
export { HEALTH_PENDING, HEALTH_FAILED, PRE_DEPLOY_PENDING, PRE_DEPLOY_FAILED } from './health-feature.js';
export {
  KUSTOMIZE_FEATURE,
  buildKustomizationRef,
  featureFailureOf,
  kustomizeResolvedRef,
  readKustomizeValues,
  tarballOf,
  type KustomizeSource,
} from './kustomize-feature.js';
export { isFluxKind, FLUX_SOURCE_VERSIONS } from './flux-source.js';
