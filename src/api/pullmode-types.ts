// Pull-mode types: ConfigurationGroup and ConfigurationBundle (lib.projectsveltos.io/v1beta1, namespaced, in the
// cluster's namespace of the management cluster). Shapes follow projectsveltos/libsveltos api/v1beta1
// (configurationgroup_type.go, configurationbundle_type.go): the management side writes what to deploy, the agent in
// the managed cluster pulls it, applies it and reports status back.
import { celRuleSchema, labelFilterSchema, objectReferenceSchema, type KubeObject } from './common-types.js';
import { driftExclusionSchema } from './profile-types.js';
import { bool, bytes, dateTime, int, int32, list, obj, opt, str, strEnum, strList, type Static } from './schema-dsl.js';

const pullCheckSchema = () =>
  obj({
    evaluateCEL: opt(list(celRuleSchema())),
    featureID: strEnum(['Resources', 'Helm', 'Kustomize']),
    group: str(),
    kind: str({ minLength: 1 }),
    labelFilters: opt(list(labelFilterSchema())),
    name: str(),
    namespace: opt(str()),
    script: opt(str()),
    version: str(),
  });

/** configurationGroupSpecSchema is ConfigurationGroup spec. */
export const configurationGroupSpecSchema = () =>
  obj({
    action: opt(strEnum(['Deploy', 'Remove'], { default: 'Deploy' })),
    configurationItem: opt(
      list(obj({ contentRef: opt(objectReferenceSchema({ 'x-kubernetes-map-type': 'atomic' })), hash: opt(bytes()) }), { 'x-kubernetes-list-type': 'atomic' }),
    ),
    continueOnConflict: opt(bool({ default: false })),
    continueOnError: opt(bool({ default: false })),
    deployedGroupVersionKind: opt(strList()),
    driftDetection: opt(bool({ default: false })),
    driftExclusions: opt(list(driftExclusionSchema(), { 'x-kubernetes-list-type': 'atomic' })),
    dryRun: opt(bool({ default: false })),
    leavePolicies: opt(bool({ default: false })),
    maxConsecutiveFailures: opt(int()),
    postDeleteChecks: opt(list(pullCheckSchema(), { 'x-kubernetes-list-type': 'atomic' })),
    preDeleteChecks: opt(list(pullCheckSchema(), { 'x-kubernetes-list-type': 'atomic' })),
    preDeployChecks: opt(list(pullCheckSchema(), { 'x-kubernetes-list-type': 'atomic' })),
    reloader: opt(bool({ default: false })),
    requestorHash: opt(bytes()),
    serviceAccountName: opt(str()),
    serviceAccountNamespace: opt(str()),
    sourceRef: opt(objectReferenceSchema({ 'x-kubernetes-map-type': 'atomic' })),
    sourceStatus: opt(strEnum(['Active', 'Deleted'], { default: 'Active' })),
    tier: opt(int32({ default: 100, minimum: 1 })),
    updatePhase: opt(strEnum(['Ready', 'Preparing'], { default: 'Ready' })),
    validateHealths: opt(list(pullCheckSchema(), { 'x-kubernetes-list-type': 'atomic' })),
  });
/** ConfigurationGroupSpec is what the management side asks the pulling agent to deploy (or remove). */
export type ConfigurationGroupSpec = Static<ReturnType<typeof configurationGroupSpecSchema>>;

/** configurationGroupStatusSchema is ConfigurationGroup status (written by the agent). */
export const configurationGroupStatusSchema = () =>
  obj({
    deployedGroupVersionKind: opt(strList()),
    failureMessage: opt(str()),
    lastAppliedTime: opt(dateTime()),
    observedGeneration: opt(int({ format: 'int64' })),
    observedRequestorHash: opt(bytes()),
    status: opt(strEnum(['Provisioning', 'Provisioned', 'Failed', 'FailedNonRetriable', 'Removing', 'Removed', 'AgentRemoving'])),
  });
/** ConfigurationGroupStatus is what the agent reports back. */
export type ConfigurationGroupStatus = Static<ReturnType<typeof configurationGroupStatusSchema>>;

/** configurationBundleSpecSchema is ConfigurationBundle spec. */
export const configurationBundleSpecSchema = () =>
  obj({
    helmChartVersion: opt(str()),
    helmIcon: opt(str()),
    helmReleaseName: opt(str()),
    helmReleaseNamespace: opt(str()),
    helmReleaseUninstall: opt(bool({ default: false })),
    helmRepoURL: opt(str()),
    isLastHelmReleaseBundle: opt(bool({ default: false })),
    notTracked: opt(bool()),
    referenceTier: opt(int32()),
    referencedObjectKind: opt(str()),
    referencedObjectName: opt(str()),
    referencedObjectNamespace: opt(str()),
    resources: opt(strList({ 'x-kubernetes-list-type': 'atomic' })),
    timeout: opt(str()),
  });
/** ConfigurationBundleSpec holds the resources (YAML or JSON documents) of one bundle. */
export type ConfigurationBundleSpec = Static<ReturnType<typeof configurationBundleSpecSchema>>;

/** configurationBundleStatusSchema is ConfigurationBundle status. */
export const configurationBundleStatusSchema = () => obj({ hash: opt(bytes()) });

/** ConfigurationGroup is a lib.projectsveltos.io/v1beta1 ConfigurationGroup. */
export interface ConfigurationGroup extends KubeObject<'lib.projectsveltos.io/v1beta1', 'ConfigurationGroup'> {
  spec?: ConfigurationGroupSpec;
  status?: ConfigurationGroupStatus;
}

/** ConfigurationBundle is a lib.projectsveltos.io/v1beta1 ConfigurationBundle. */
export interface ConfigurationBundle extends KubeObject<'lib.projectsveltos.io/v1beta1', 'ConfigurationBundle'> {
  spec?: ConfigurationBundleSpec;
  status?: { hash?: string };
}

/** PullMode holds the labels/annotations of libsveltos lib/pullmode, spelled as Sveltos spells them. */
export const PullMode = {
  /** Label: the SveltosCluster name a ConfigurationGroup/Bundle is for (the agent watches on it, in the cluster namespace). */
  clusterNameLabel: 'pullmode.projectsveltos.io/clustername',
  /** Label: the kind of the management component that asked (e.g. ClusterSummary). */
  requestorKindLabel: 'pullmode.projectsveltos.io/requestorkind',
  /** Label: which feature of the requestor (e.g. Resources). */
  requestorFeatureLabel: 'pullmode.projectsveltos.io/requestorfeature',
  /** Annotation: the requestor's name (an annotation: names may exceed 63 characters). */
  requestorNameAnnotation: 'pullmode.projectsveltos.io/requestorname',
  /** Annotation on bundles: the bundle's key within its requestor (e.g. one referenced ConfigMap). */
  indexAnnotation: 'pullmode.projectsveltos.io/index',
  /** Label Ripple's pulling agent puts on what it applied: the ConfigurationGroup name (finds stale objects). */
  appliedByGroupLabel: 'pullmode.ripple.dev/configuration-group',
  /** Finalizer the pulling agent puts on ConfigurationGroups, so that it sees their deletion and withdraws. */
  agentFinalizer: 'pullmode.ripple.dev/agent',
} as const;
