// funcs: the Sprig v3.3.0 function library and Sveltos' template functions, as GoFuncs for ../gotemplate.
export { helmFuncMap, sprigFuncMap, sveltosFuncMap, eventFuncMap, addonFuncMap, funcMapByName, FUNC_MAP_NAMES, type FuncMapName } from './funcmap.js';
export type { FuncOptions, Clock, RandomSource, HostResolver } from './options.js';
export { DEFAULT_MAX_LIST_LENGTH, DEFAULT_MAX_STRING_LENGTH } from './options.js';
export { base64Decode, base32Decode } from './encoding.js';
export { toYamlSigs, toYamlV3, parseYamlSigs, sigsDocumentValue, SIGS_YAML_OPTIONS, YAMLError } from './yaml.js';
export { renderClusterTemplate, type ClusterTemplateData } from './cluster-template.js';
export { renderCaseLine, renderCase, formatCaseResult, type CaseResult, type CaseRunOptions, type OracleCase } from './oracle-case.js';
export { defineFunc, goError } from './define.js';
export { jsonString, marshalJSON, unmarshalJSON, JSONError } from './json.js';
export { isValidSemver, isCompatibleRange, newVersion, newVersion as newSemver, parseSemverConstraint, SemverVersion } from './semver.js';
