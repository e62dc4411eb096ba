// preview: the offline preview behind `ripple render` — EventSource matching, EventTrigger generation and profile
// deployment run through the controllers' own functions against simulated clusters, without any server.
// See README.md in this folder.
export { runPreview, describeRef } from './preview.js';
export { PREVIEW_COLUMNS, eventLabel, formatDiagnostics, formatJson, formatSummary, formatYaml, previewRows } from './format.js';
export { KindScopes, crdScope, kindKey } from './scopes.js';
export { SimCluster, objectId, type Provenance, type StoredObject } from './world.js';
export type {
  ClusterView,
  DeployAction,
  DeployActionType,
  DeploymentView,
  GeneratedView,
  MatchView,
  PreviewInput,
  PreviewNote,
  PreviewOptions,
  PreviewProblem,
  PreviewResult,
  PreviewStage,
  PreviewSource,
  ProfileOrigin,
  ProfileView,
} from './types.js';
