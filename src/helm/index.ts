// helm: Helm v3 charts — load (directory files or .tgz), values (coalescing, --set, schema), render with gotemplate
// and Helm's functions, hooks and install order — output identical to `helm template`; package and lint.
export { HelmError, type HelmErrorCode } from './errors.js';
export {
  Chart,
  loadChartFiles,
  loadChartArchive,
  archiveFiles,
  trimFileBOM,
  type ChartFile,
  type Metadata,
  type Dependency,
  type Maintainer,
  type Warn,
} from './chart.js';
export { IgnoreRules, IGNORE_FILE } from './ignore.js';
export { readTarGz, writeTarGz, type TarEntry } from './archive.js';
export { coalesceValues, mergeValues, type Printf } from './values.js';
export { parseSetInto, StrvalsError } from './strvals.js';
export { renderTemplates, type Capabilities, type KubeVersion, type HelmVersion, type ReleaseOptions, type LookupPort, type EngineOptions } from './engine.js';
export { sortManifests, splitManifests, sortByKind, INSTALL_ORDER, UNINSTALL_ORDER, HOOK_ANNOTATION, HOOK_WEIGHT_ANNOTATION, HOOK_DELETE_ANNOTATION, type Hook, type HookEvent, type Manifest } from './manifests.js';
export {
  renderChart,
  formatTemplateOutput,
  formatHelmError,
  mergeUserValues,
  defaultCapabilities,
  parseKubeVersion,
  validateReleaseName,
  HELM_VERSION,
  DEFAULT_API_VERSIONS,
  type RenderOptions,
  type RenderedChart,
  type CRD,
  type ValuesFile,
  type TemplateOutputOptions,
} from './action.js';
export { packageChart, metadataYaml } from './package.js';
export { lintChart, type LintMessage, type LintSeverity } from './lint.js';
// Release records in Helm 3's storage format (names that clash with the chart model carry a Release prefix; the
// release module's own validateReleaseName is the same rule as action.ts's).
export {
  RELEASE_STATUSES,
  HELM_STORAGE_TYPE,
  RELEASE_SECRET_TYPE,
  SYSTEM_LABELS,
  ReleaseFormatError,
  isPendingStatus,
  goJSONString,
  goJSONValue,
  marshalChartMetadata,
  unmarshalChartMetadata,
  marshalRelease,
  unmarshalRelease,
  encodeRelease,
  decodeRelease,
  releaseSecretName,
  releaseSelector,
  releaseSecret,
  releaseFromSecret,
  filterSystemLabels,
  sortByRevision,
  lastRelease,
  deployedRelease,
  nextRevision,
  pendingOperation,
  planHistoryPruning,
  formatHelmTime,
  newRelease,
  type ReleaseStatus,
  type HelmTime,
  type HookDeletePolicy,
  type HookPhase,
  type HookExecution,
  type Hook as ReleaseHook,
  type ReleaseInfo,
  type Maintainer as ReleaseMaintainer,
  type ChartDependency,
  type ChartMetadata,
  type ChartLock,
  type ChartFile as ReleaseChartFile,
  type ReleaseChart,
  type Release,
  type ReleaseSecret,
  type SecretWrite,
  type SecretLike,
} from './release.js';
