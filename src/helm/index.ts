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
