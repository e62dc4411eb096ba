// types.ts: what an offline preview takes and returns.
import type { ClusterType, ObjectReference } from '../api/index.js';
import type { FuncOptions } from '../funcs/index.js';
import type { KubeObject } from '../kube/index.js';
import type { LuaRuntime } from '../lua/index.js';

/** PreviewInput is everything a preview knows: the management cluster's objects, the clusters, sample resources. */
export interface PreviewInput {
  /**
   * Objects of the management cluster: EventTriggers/EventBasedAddOns, EventSources, the ConfigMaps/Secrets they
   * and profiles reference, ClusterProfiles/Profiles, ClusterSets, CRDs, objects templateResourceRefs read —
   * and SveltosClusters / Cluster API Clusters, which are also clusters to preview for.
   */
  management: readonly KubeObject[];
  /**
   * Objects of the management cluster as they are live — typically what a profile deploys there, with the status
   * another controller wrote (a LoadBalancer's IP). The preview's own apply of such an object keeps their fields
   * and is not taken as adopting someone else's object. Optional.
   */
  live?: readonly KubeObject[];
  /** SveltosCluster / Cluster API Cluster objects (they replace a cluster of the same identity in `management`). */
  clusters: readonly KubeObject[];
  /** Sample resources: they exist in every cluster an EventTrigger watches (its sourceClusterSelector selects). */
  resources: readonly KubeObject[];
  /**
   * Local copies of GitOps sources (`ripple render --source NAME=DIR`): the files a Flux GitRepository /
   * OCIRepository / Bucket artifact would hold (kind omitted: any of them), or a kustomization tree standing in for
   * a ConfigMap/Secret tarball. kustomizationRefs and Flux policyRefs read them instead of downloading. Optional.
   */
  sources?: readonly PreviewSource[];
}

/** PreviewSource is a local directory standing in for a source's content. */
export interface PreviewSource {
  /** GitRepository, OCIRepository, Bucket, ConfigMap or Secret; undefined: any Flux kind. */
  kind?: string;
  namespace: string;
  name: string;
  /** Relative POSIX paths → contents. */
  files: ReadonlyMap<string, string | Uint8Array>;
  /** Where the files come from (a directory), for messages. */
  origin: string;
}

/** PreviewOptions are the ports and knobs of a preview. */
export interface PreviewOptions {
  /** The Lua runtime EventSource scripts run in. */
  runtime: LuaRuntime;
  /** ONE FuncOptions object for the whole preview (with a clock: templates may call `now`). */
  funcOptions: FuncOptions;
  /** Where instantiated ConfigMaps/Secrets go (default `projectsveltos`). */
  namespace?: string;
  /** How many times a ClusterProfile deployed by a ClusterProfile is followed (default 8). */
  maxChain?: number;
}

/** PreviewStage is the step a problem or note belongs to. */
export type PreviewStage = 'input' | 'match' | 'generate' | 'deploy';

/** PreviewProblem is something the controllers would report as a failure: the preview exits non-zero. */
export interface PreviewProblem {
  stage: PreviewStage;
  /** A stable code: Invalid, NoMatchingCluster, EventSourceNotFound, TemplateExec, ReferenceNotFound, Conflict, … */
  code: string;
  /** Where: `EventTrigger t, cluster ns/name, event …` or `ClusterProfile p, cluster ns/name`. */
  where: string;
  message: string;
}

/** PreviewNote is information worth knowing that is not a failure (skipped clusters, assumptions, warnings). */
export interface PreviewNote {
  stage: PreviewStage;
  where: string;
  message: string;
}

/** ClusterView is a cluster the preview ran for. */
export interface ClusterView {
  key: string;
  type: ClusterType;
  namespace: string;
  name: string;
  labels: Record<string, string>;
  ready: boolean;
  paused: boolean;
  /** The object carries no status: the preview takes it as ready (the controllers would wait for readiness). */
  assumedReady: boolean;
}

/** MatchView is what the agent would report for one (trigger, source cluster): the EventSource's matches. */
export interface MatchView {
  trigger: string;
  triggerKind: 'EventTrigger' | 'EventBasedAddOn';
  cluster: string;
  eventSource: string;
  eventReport: string;
  /** matchingResources of the EventReport, in its order. */
  matched: ObjectReference[];
  /** Sample resources of a watched kind that do not match. */
  unmatched: ObjectReference[];
}

/** GeneratedView is one object the event manager would write in the management cluster. */
export interface GeneratedView {
  trigger: string;
  triggerKind: 'EventTrigger' | 'EventBasedAddOn';
  /** The source cluster (`namespace/name`). */
  cluster: string;
  /** The event identity (`resource:<group>/<kind>/<namespace>/<name>` or `all`). */
  event: string;
  object: KubeObject;
}

/** ProfileOrigin says where a previewed profile came from. */
export type ProfileOrigin = 'input' | 'generated' | 'deployed';

/** ProfileView names a previewed profile and, when generated, its trigger. */
export interface ProfileView {
  kind: 'ClusterProfile' | 'Profile';
  namespace?: string;
  name: string;
  origin: ProfileOrigin;
  /** Generated: the EventTrigger; deployed: the profile that deployed it. */
  by?: string;
}

/** DeployActionType is what the deployer would do to one object. */
export type DeployActionType = 'createNamespace' | 'create' | 'update' | 'adopt' | 'unchanged' | 'conflict';

/** DeployAction is one step of a deployment to one cluster. */
export interface DeployAction {
  type: DeployActionType;
  target: 'Local' | 'Remote';
  /** Where the object goes: `mgmt` (the management cluster) or the cluster's `namespace/name`. */
  targetCluster: string;
  apiVersion: string;
  kind: string;
  namespace?: string;
  name: string;
  /** The object as it would be applied (stamps included); absent for conflicts. */
  object?: KubeObject;
  subresources: string[];
  /** The ConfigMap/Secret it comes from. */
  source?: string;
  message?: string;
}

/** DeploymentView is the preview of one ClusterSummary: a profile deployed to one cluster. */
export interface DeploymentView {
  profile: ProfileView;
  cluster: string;
  clusterType: ClusterType;
  clusterSummary: string;
  syncMode: string;
  actions: DeployAction[];
  /** The Resources feature would fail (the objects before the failure are not applied). */
  failure?: { reason: string; message: string };
}

/** PreviewResult is everything a preview found, in processing order. */
export interface PreviewResult {
  clusters: ClusterView[];
  matches: MatchView[];
  generated: GeneratedView[];
  deployments: DeploymentView[];
  problems: PreviewProblem[];
  notes: PreviewNote[];
}
