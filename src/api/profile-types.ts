// Add-on deployment types shared by ClusterProfile/Profile/ClusterSummary (addon-controller) and EventTrigger
// (event-manager), plus ClusterReport and ResourceSummary. Shapes follow projectsveltos/addon-controller
// api/v1beta1 (spec_types.go, clusterprofile_types.go, clustersummary_types.go, clusterreport_types.go) and
// projectsveltos/libsveltos api/v1beta1 (resourcesummary_type.go, common_types.go).
import {
  labelFilterSchema,
  labelSelectorSchema,
  objectReferenceSchema,
  secretRefSchema,
  celRuleSchema,
  type KubeObject,
} from './common-types.js';
import {
  bool,
  bytes,
  dateTime,
  int,
  int32,
  intOrString,
  list,
  obj,
  opt,
  str,
  strEnum,
  strList,
  strMap,
  type Static,
} from './schema-dsl.js';

/**
 * ProfileVariant selects which controller's copy of the shared types to build. event-manager vendors an older
 * libsveltos/addon-controller API than addon-controller itself, so EventTrigger lacks a few newer fields
 * (ValidateHealth.jobCheck, RemoteURL TLS flags, Helm recoverAfterConsecutiveFailures, the templateResourceRefs
 * list-map). Keeping both copies exact keeps defaulting and pruning identical to Sveltos.
 */
export type ProfileVariant = 'addon' | 'event';

/** DEPLOYMENT_TYPES are where a policy is applied: the management cluster (Local) or the managed one (Remote). */
export const DEPLOYMENT_TYPES = ['Local', 'Remote'] as const;
/** SYNC_MODES are the ClusterProfile/EventTrigger syncMode values. */
export const SYNC_MODES = ['OneTime', 'Continuous', 'ContinuousWithDriftDetection', 'DryRun'] as const;
/** STOP_MATCHING_BEHAVIORS are what happens to deployed add-ons when a cluster stops matching. */
export const STOP_MATCHING_BEHAVIORS = ['WithdrawPolicies', 'LeavePolicies'] as const;
/** FEATURE_IDS are the addon-controller features (policyRefs, helmCharts, kustomizationRefs). */
export const FEATURE_IDS = ['Resources', 'Helm', 'Kustomize'] as const;
/** REFERENCE_KINDS are the source kinds a policyRef / kustomizationRef may name. */
export const REFERENCE_KINDS = ['GitRepository', 'OCIRepository', 'Bucket', 'ConfigMap', 'Secret'] as const;
/** FEATURE_STATUSES are ClusterSummary featureSummaries[].status values. */
export const FEATURE_STATUSES = [
  'Provisioning',
  'Provisioned',
  'Failed',
  'FailedNonRetriable',
  'Removing',
  'Removed',
  'AgentRemoving',
] as const;

const remoteOrKind = {
  rule: 'has(self.remoteURL) != has(self.kind)',
  message: 'either remoteURL or kind must be set, but not both',
};

const remoteURLSchema = (variant: ProfileVariant, withTemplate: boolean) =>
  obj({
    ...(variant === 'addon' ? { insecureSkipTLSVerify: opt(bool({ default: false })) } : {}),
    interval: opt(str()),
    ...(variant === 'addon' ? { plainHTTP: opt(bool({ default: false })) } : {}),
    secretRef: opt(secretRefSchema()),
    ...(withTemplate ? { template: opt(bool()) } : {}),
    url: str({ pattern: '^(https?|oci)://' }),
  });

/** valueFromSchema is a reference to a ConfigMap/Secret holding values or patches (ValueFrom). */
export const valueFromSchema = () =>
  obj({
    kind: strEnum(['ConfigMap', 'Secret']),
    name: str({ minLength: 1 }),
    namespace: opt(str()),
    optional: opt(bool({ default: false })),
  });

/** policyRefSchema is a PolicyRef: a ConfigMap/Secret/Flux source whose content is deployed. */
export const policyRefSchema = (variant: ProfileVariant) =>
  obj(
    {
      deploymentType: opt(strEnum(DEPLOYMENT_TYPES, { default: 'Remote' })),
      force: opt(bool({ default: false })),
      kind: opt(strEnum(REFERENCE_KINDS)),
      name: opt(str()),
      namespace: opt(str()),
      optional: opt(bool({ default: false })),
      path: opt(str()),
      remoteURL: opt(remoteURLSchema(variant, true)),
      skipNamespaceCreation: opt(bool({ default: false })),
      tier: opt(int32({ default: 100, minimum: 1 })),
    },
    { 'x-kubernetes-validations': [remoteOrKind] },
  );
/** PolicyRef references the content a profile deploys (kind/name/namespace, Local or Remote, tier). */
export type PolicyRef = Static<ReturnType<typeof policyRefSchema>>;

/** kustomizationRefSchema is a KustomizationRef. */
export const kustomizationRefSchema = (variant: ProfileVariant) =>
  obj(
    {
      components: opt(strList()),
      deploymentType: opt(strEnum(DEPLOYMENT_TYPES, { default: 'Remote' })),
      force: opt(bool({ default: false })),
      kind: opt(strEnum(REFERENCE_KINDS)),
      name: opt(str()),
      namespace: opt(str()),
      optional: opt(bool({ default: false })),
      path: opt(str()),
      remoteURL: opt(remoteURLSchema(variant, false)),
      skipNamespaceCreation: opt(bool({ default: false })),
      targetNamespace: opt(str({ minLength: 1, maxLength: 63 })),
      tier: opt(int32({ default: 100, minimum: 1 })),
      values: opt(strMap()),
      valuesFrom: opt(list(valueFromSchema())),
    },
    { 'x-kubernetes-validations': [remoteOrKind] },
  );
/** KustomizationRef references a kustomization deployed by a profile. */
export type KustomizationRef = Static<ReturnType<typeof kustomizationRefSchema>>;

const helmRequires = (field: string, prefix: 'http' | 'oci', label: string) => ({
  rule: `self.repositoryURL.startsWith('${prefix}') ? size(self.${field}) >= 1 : true`,
  message: `${label} must be defined`,
});

/** helmChartSchema is a HelmChart entry of a profile / EventTrigger. */
export const helmChartSchema = (variant: ProfileVariant) =>
  obj(
    {
      chartName: opt(str()),
      chartVersion: opt(str()),
      helmChartAction: opt(strEnum(['Install', 'Uninstall'], { default: 'Install' })),
      options: opt(
        obj({
          atomic: opt(bool({ default: false })),
          dependencyUpdate: opt(bool({ default: false })),
          description: opt(str()),
          disableHooks: opt(bool({ default: false })),
          disableOpenAPIValidation: opt(bool({ default: false })),
          enableClientCache: opt(bool({ default: false })),
          installOptions: opt(
            obj({
              createNamespace: opt(bool({ default: true })),
              disableHooks: opt(bool({ default: false })),
              ...(variant === 'addon' ? { recoverAfterConsecutiveFailures: opt(int({ default: 5 })) } : {}),
              replace: opt(bool({ default: true })),
              takeOwnership: opt(bool({ default: false })),
            }),
          ),
          labels: opt(strMap()),
          passCredentialsAll: opt(bool()),
          postRenderStrategy: opt(strEnum(['combined', 'separate', 'nohooks'])),
          runTests: opt(bool({ default: false })),
          skipCRDs: opt(bool({ default: false })),
          skipSchemaValidation: opt(bool({ default: false })),
          timeout: opt(str()),
          uninstallOptions: opt(
            obj({
              deletionPropagation: opt(strEnum(['orphan', 'foreground', 'background'])),
              disableHooks: opt(bool({ default: false })),
              keepHistory: opt(bool()),
            }),
          ),
          upgradeOptions: opt(
            obj({
              cleanupOnFail: opt(bool({ default: false })),
              disableHooks: opt(bool({ default: false })),
              force: opt(bool({ default: false })),
              maxHistory: opt(int({ default: 2 })),
              recreate: opt(bool({ default: false })),
              resetThenReuseValues: opt(bool({ default: false })),
              resetValues: opt(bool({ default: false })),
              reuseValues: opt(bool({ default: false })),
              subNotes: opt(bool({ default: false })),
              takeOwnership: opt(bool({ default: false })),
              upgradeCRDs: opt(bool({ default: false })),
            }),
          ),
          wait: opt(bool({ default: false })),
          waitForJobs: opt(bool({ default: false })),
        }),
      ),
      provenanceVerification: opt(obj({ keyringSecretRef: secretRefSchema() })),
      registryCredentialsConfig: opt(
        obj({
          ca: opt(secretRefSchema()),
          credentials: opt(secretRefSchema()),
          insecureSkipTLSVerify: opt(bool()),
          key: opt(str()),
          plainHTTP: opt(bool()),
        }),
      ),
      releaseName: str({ minLength: 1 }),
      releaseNamespace: str({ minLength: 1 }),
      repositoryName: opt(str()),
      repositoryURL: str({ minLength: 1 }),
      signatureVerification: opt(
        obj({
          matchOIDCIdentity: opt(list(obj({ issuer: str({ minLength: 1 }), subject: str({ minLength: 1 }) }))),
          provider: strEnum(['PublicKey', 'Keyless']),
          secretRef: opt(secretRefSchema()),
        }),
      ),
      values: opt(str()),
      valuesFrom: opt(list(valueFromSchema())),
    },
    {
      'x-kubernetes-validations': [
        helmRequires('chartName', 'http', 'ChartName'),
        helmRequires('chartName', 'oci', 'ChartName'),
        helmRequires('chartVersion', 'http', 'ChartVersion'),
        helmRequires('chartVersion', 'oci', 'ChartVersion'),
        helmRequires('repositoryName', 'http', 'RepositoryName'),
        helmRequires('repositoryName', 'oci', 'RepositoryName'),
      ],
    },
  );
/** HelmChart is one Helm release a profile installs. */
export type HelmChart = Static<ReturnType<typeof helmChartSchema>>;

/** validateHealthSchema is a ValidateHealth check (preDeployChecks, validateHealths, pre/postDeleteChecks). */
export const validateHealthSchema = (variant: ProfileVariant) =>
  obj(
    {
      evaluateCEL: opt(list(celRuleSchema())),
      featureID: strEnum(FEATURE_IDS),
      group: opt(str()),
      ...(variant === 'addon'
        ? {
            jobCheck: opt(
              obj({
                jobRef: obj({ kind: strEnum(['Secret', 'ConfigMap']), name: str({ minLength: 1 }), namespace: str() }),
                timeout: opt(str()),
              }),
            ),
          }
        : {}),
      kind: opt(str()),
      labelFilters: opt(list(labelFilterSchema())),
      metricQueries: opt(list(obj({ name: str({ minLength: 1 }), query: str({ minLength: 1 }) }))),
      metricSource: opt(obj({ path: opt(str()), secretRef: opt(secretRefSchema()), url: str({ minLength: 1 }) })),
      name: str(),
      namespace: opt(str()),
      script: opt(str()),
      version: opt(str()),
    },
    variant === 'addon'
      ? {
          'x-kubernetes-validations': [
            {
              rule: '!has(self.jobCheck) || (!has(self.script) && !has(self.evaluateCEL))',
              message: 'jobCheck cannot be set together with script or evaluateCEL',
            },
          ],
        }
      : {},
  );
/** ValidateHealth is a health/readiness check run around a deployment. */
export type ValidateHealth = Static<ReturnType<typeof validateHealthSchema>>;

const patchSelectorSchema = () =>
  obj({
    annotationSelector: opt(str()),
    group: opt(str()),
    kind: opt(str()),
    labelSelector: opt(str()),
    name: opt(str()),
    namespace: opt(str()),
    version: opt(str()),
  });

/** patchSchema is a Kustomize-style patch with an optional target selector. */
export const patchSchema = () => obj({ patch: str(), target: opt(patchSelectorSchema()) });
/** Patch is a strategic-merge or JSON6902 patch applied to deployed objects. */
export type Patch = Static<ReturnType<typeof patchSchema>>;

/** driftExclusionSchema lists JSON-pointer paths ignored by drift detection. */
export const driftExclusionSchema = () => obj({ paths: strList(), target: opt(patchSelectorSchema()) });
/** DriftExclusion says which fields drift detection ignores, for which objects. */
export type DriftExclusion = Static<ReturnType<typeof driftExclusionSchema>>;

/** templateResourceRefSchema names a management-cluster object templates can read (`getResource "id"`). */
export const templateResourceRefSchema = () =>
  obj({
    identifier: str({ description: 'Identifier used by templates: getResource "<identifier>", .MgmtResources.<identifier>.' }),
    ignoreStatusChanges: opt(bool({ default: false })),
    optional: opt(bool({ default: false })),
    resource: objectReferenceSchema(),
    watchFields: opt(strList()),
  });
/** TemplateResourceRef makes a management-cluster object available to templates under an identifier. */
export type TemplateResourceRef = Static<ReturnType<typeof templateResourceRefSchema>>;

/**
 * deploymentFields are the spec fields ClusterProfile/Profile and EventTrigger share (EventTrigger copies them
 * into the ClusterProfiles it generates).
 */
export const deploymentFields = (variant: ProfileVariant) => ({
  continueOnConflict: opt(bool({ default: false })),
  dependsOn: opt(strList()),
  driftExclusions: opt(list(driftExclusionSchema(), { 'x-kubernetes-list-type': 'atomic' })),
  extraAnnotations: opt(strMap()),
  extraLabels: opt(strMap()),
  helmCharts: opt(list(helmChartSchema(variant), { 'x-kubernetes-list-type': 'atomic' })),
  kustomizationRefs: opt(list(kustomizationRefSchema(variant), { 'x-kubernetes-list-type': 'atomic' })),
  maxUpdate: opt(intOrString({ pattern: '^((100|[0-9]{1,2})%|[0-9]+)$' })),
  patches: opt(list(patchSchema(), { 'x-kubernetes-list-type': 'atomic' })),
  patchesFrom: opt(list(valueFromSchema(), { 'x-kubernetes-list-type': 'atomic' })),
  policyRefs: opt(list(policyRefSchema(variant), { 'x-kubernetes-list-type': 'atomic' })),
  postDeleteChecks: opt(list(validateHealthSchema(variant), { 'x-kubernetes-list-type': 'atomic' })),
  preDeleteChecks: opt(list(validateHealthSchema(variant), { 'x-kubernetes-list-type': 'atomic' })),
  preDeployChecks: opt(list(validateHealthSchema(variant), { 'x-kubernetes-list-type': 'atomic' })),
  reloader: opt(bool({ default: false })),
  stopMatchingBehavior: opt(strEnum(STOP_MATCHING_BEHAVIORS, { default: 'WithdrawPolicies' })),
  syncMode: opt(strEnum(SYNC_MODES, { default: 'Continuous' })),
  templateResourceRefs: opt(
    list(
      templateResourceRefSchema(),
      variant === 'addon' ? { 'x-kubernetes-list-type': 'map', 'x-kubernetes-list-map-keys': ['identifier'] } : {},
    ),
  ),
  tier: opt(int32({ default: 100, minimum: 1 })),
  validateHealths: opt(list(validateHealthSchema(variant), { 'x-kubernetes-list-type': 'atomic' })),
});

/** clusterProfileSpecSchema is the spec of ClusterProfile and Profile (and ClusterSummary.spec.clusterProfileSpec). */
export const clusterProfileSpecSchema = () =>
  obj({
    clusterRefs: opt(list(objectReferenceSchema(), { description: 'ClusterRefs identifies clusters to deploy to.' })),
    clusterSelector: opt(labelSelectorSchema({ description: 'ClusterSelector identifies clusters to deploy to.' })),
    continueOnError: opt(bool({ default: false })),
    maxConsecutiveFailures: opt(int()),
    setRefs: opt(strList()),
    ...deploymentFields('addon'),
  });
/** ClusterProfileSpec is the desired add-ons of a ClusterProfile/Profile and the clusters they go to. */
export type ClusterProfileSpec = Static<ReturnType<typeof clusterProfileSpecSchema>>;

/** clusterProfileStatusSchema is ClusterProfile/Profile status. */
export const clusterProfileStatusSchema = () => {
  const refs = () => opt(list(objectReferenceSchema()));
  const clusterHash = () => opt(obj({ clusters: refs(), hash: opt(bytes()) }));
  return obj({
    dependenciesHash: opt(bytes()),
    failedClusters: opt(
      list(obj({ clusterRef: objectReferenceSchema(), failureMessage: str(), lastFailureTime: opt(dateTime()) })),
    ),
    matchingClusters: refs(),
    reconciliationSuspended: opt(bool()),
    suspensionReason: opt(str()),
    updatedClusters: clusterHash(),
    updatingClusters: clusterHash(),
  });
};
/** ClusterProfileStatus is the observed state of a ClusterProfile/Profile. */
export type ClusterProfileStatus = Static<ReturnType<typeof clusterProfileStatusSchema>>;

/** clusterSummarySpecSchema is ClusterSummary spec: one (profile, cluster) pair. */
export const clusterSummarySpecSchema = () =>
  obj({
    clusterName: str(),
    clusterNamespace: str(),
    clusterProfileSpec: opt(clusterProfileSpecSchema()),
    clusterType: str(),
  });
/** ClusterSummarySpec names the cluster and carries a copy of the profile spec deployed to it. */
export type ClusterSummarySpec = Static<ReturnType<typeof clusterSummarySpecSchema>>;

/** clusterSummaryStatusSchema is ClusterSummary status. */
export const clusterSummaryStatusSchema = () =>
  obj({
    dependencies: opt(str()),
    deployedGVKs: opt(
      list(obj({ deployedGroupVersionKind: opt(strList()), featureID: strEnum(FEATURE_IDS) }), {
        'x-kubernetes-list-type': 'map',
        'x-kubernetes-list-map-keys': ['featureID'],
      }),
    ),
    failureMessage: opt(str()),
    featureSummaries: opt(
      list(
        obj({
          consecutiveFailures: opt(int()),
          deployedGroupVersionKind: opt(strList()),
          failureMessage: opt(str()),
          failureReason: opt(str()),
          featureID: strEnum(FEATURE_IDS),
          hash: opt(bytes()),
          lastAppliedTime: opt(dateTime()),
          resourceSummaryDeployed: opt(bool()),
          status: opt(strEnum(FEATURE_STATUSES)),
        }),
        { 'x-kubernetes-list-type': 'map', 'x-kubernetes-list-map-keys': ['featureID'] },
      ),
    ),
    helmReleaseSummaries: opt(
      list(
        obj({
          chartName: opt(str()),
          chartVersion: opt(str()),
          conflictMessage: opt(str()),
          credentialsSecretRef: opt(secretRefSchema()),
          failureMessage: opt(str()),
          lastCheckedTime: opt(dateTime()),
          latestPatchVersion: opt(str()),
          latestVersion: opt(str()),
          needsRedeploy: opt(bool()),
          patchesHash: opt(bytes()),
          releaseName: str({ minLength: 1 }),
          releaseNamespace: str({ minLength: 1 }),
          repoURL: opt(str()),
          repositoryName: opt(str()),
          status: strEnum(['Managing', 'Conflict']),
          valuesHash: opt(bytes()),
        }),
        { 'x-kubernetes-list-type': 'atomic' },
      ),
    ),
    nextReconcileTime: opt(dateTime()),
    reconciliationSuspended: opt(bool()),
    suspensionReason: opt(str()),
  });
/** ClusterSummaryStatus is per-feature deployment state of one (profile, cluster). */
export type ClusterSummaryStatus = Static<ReturnType<typeof clusterSummaryStatusSchema>>;

/** resourceSchema is libsveltos Resource: one deployed object (GVK, namespace, name). */
export const resourceSchema = () =>
  obj({
    group: str(),
    ignoreForConfigurationDrift: opt(bool({ default: false })),
    kind: str({ minLength: 1 }),
    lastAppliedTime: opt(dateTime()),
    name: str({ minLength: 1 }),
    namespace: opt(str()),
    version: str({ minLength: 1 }),
  });
/** Resource identifies one object deployed by Sveltos. */
export type Resource = Static<ReturnType<typeof resourceSchema>>;

const REPORT_ACTIONS = ['No Action', 'Create', 'Update', 'Delete', 'Conflict', 'Error'] as const;

/** clusterReportSpecSchema / status: DryRun results per (profile, cluster). */
export const clusterReportSpecSchema = () => obj({ clusterName: str(), clusterNamespace: str() });
/** clusterReportStatusSchema is ClusterReport status: what a DryRun would do. */
export const clusterReportStatusSchema = () => {
  const report = () => opt(list(obj({ action: opt(strEnum(REPORT_ACTIONS)), message: opt(str()), resource: resourceSchema() })));
  return obj({
    helmResourceReports: report(),
    kustomizeResourceReports: report(),
    releaseReports: opt(
      list(
        obj({
          action: opt(strEnum(['No Action', 'Install', 'Upgrade', 'Delete', 'Conflict', 'Update Values'])),
          chartName: str({ minLength: 1 }),
          chartVersion: str(),
          message: opt(str()),
          releaseNamespace: str({ minLength: 1 }),
        }),
      ),
    ),
    resourceReports: report(),
  });
};

const resourceHashSchema = () =>
  obj({
    group: str(),
    hash: opt(str()),
    helmChartRef: opt(obj({ chartName: str(), releaseName: str(), releaseNamespace: str() })),
    ignoreForConfigurationDrift: opt(bool({ default: false })),
    kind: str({ minLength: 1 }),
    lastAppliedTime: opt(dateTime()),
    name: str({ minLength: 1 }),
    namespace: opt(str()),
    version: str({ minLength: 1 }),
  });

/** resourceSummarySpecSchema is ResourceSummary spec: what drift detection watches in a managed cluster. */
export const resourceSummarySpecSchema = () =>
  obj({
    chartResources: opt(
      list(
        obj({
          chartName: str({ minLength: 1 }),
          group: opt(
            list(
              obj({
                group: str(),
                ignoreForConfigurationDrift: bool({ default: false }),
                kind: str({ minLength: 1 }),
                name: str({ minLength: 1 }),
                namespace: opt(str()),
                version: str(),
              }),
            ),
          ),
          releaseName: str({ minLength: 1 }),
          releaseNamespace: str({ minLength: 1 }),
        }),
      ),
    ),
    kustomizeResources: opt(list(resourceSchema())),
    patches: opt(list(patchSchema())),
    resources: opt(list(resourceSchema())),
  });
/** ResourceSummarySpec lists the deployed resources (and patches) drift detection must watch. */
export type ResourceSummarySpec = Static<ReturnType<typeof resourceSummarySpecSchema>>;

/** resourceSummaryStatusSchema is ResourceSummary status: hashes and the "changed" flags addon-controller reads. */
export const resourceSummaryStatusSchema = () =>
  obj({
    driftedHelmCharts: opt(list(obj({ chartName: str(), releaseName: str(), releaseNamespace: str() }))),
    helmResourceHashes: opt(list(resourceHashSchema())),
    helmResourcesChanged: opt(bool()),
    kustomizeResourceHashes: opt(list(resourceHashSchema())),
    kustomizeResourcesChanged: opt(bool()),
    resourceHashes: opt(list(resourceHashSchema())),
    resourcesChanged: opt(bool()),
  });
/** ResourceSummaryStatus reports drift: per-resource hashes and whether anything changed. */
export type ResourceSummaryStatus = Static<ReturnType<typeof resourceSummaryStatusSchema>>;

/** ClusterProfile is a config.projectsveltos.io/v1beta1 ClusterProfile (cluster-scoped). */
export interface ClusterProfile extends KubeObject<'config.projectsveltos.io/v1beta1', 'ClusterProfile'> {
  spec: ClusterProfileSpec;
  status?: ClusterProfileStatus;
}
/** Profile is a config.projectsveltos.io/v1beta1 Profile (namespaced ClusterProfile). */
export interface Profile extends KubeObject<'config.projectsveltos.io/v1beta1', 'Profile'> {
  spec: ClusterProfileSpec;
  status?: ClusterProfileStatus;
}
/** ClusterSummary is a config.projectsveltos.io/v1beta1 ClusterSummary: one profile deployed to one cluster. */
export interface ClusterSummary extends KubeObject<'config.projectsveltos.io/v1beta1', 'ClusterSummary'> {
  spec: ClusterSummarySpec;
  status?: ClusterSummaryStatus;
}
/** ClusterReport is a config.projectsveltos.io/v1beta1 ClusterReport (DryRun outcome). */
export interface ClusterReport extends KubeObject<'config.projectsveltos.io/v1beta1', 'ClusterReport'> {
  spec: Static<ReturnType<typeof clusterReportSpecSchema>>;
  status?: Static<ReturnType<typeof clusterReportStatusSchema>>;
}
/** ResourceSummary is a lib.projectsveltos.io/v1beta1 ResourceSummary (drift detection input/output). */
export interface ResourceSummary extends KubeObject<'lib.projectsveltos.io/v1beta1', 'ResourceSummary'> {
  spec: ResourceSummarySpec;
  status?: ResourceSummaryStatus;
}
