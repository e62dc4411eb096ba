// match: the pure EventSource matcher — resource selectors, label filters and selectors, evaluateCEL, Lua evaluate
// (through src/lua), aggregatedSelection, and structured diagnostics.
export {
  compileEventSource,
  CompiledEventSource,
  gvkKey,
  apiVersionOf,
  type MatchOptions,
  type ObjectMatch,
  type SelectionResult,
  type ObjectSource,
  type SelectorInfo,
} from './eventsource.js';
export { compileLabelFilters, compileLabelSelector, matchesLabels, type LabelRequirement, type LabelProblem } from './labels.js';
export { compileCelRules, evaluateCelRules, type CompiledCelRule, type CelOutcome } from './cel.js';
export type {
  EventSourceInput,
  ResourceSelectorInput,
  LabelFilterInput,
  LabelSelectorInput,
  LabelSelectorRequirementInput,
  CelRuleInput,
  KubeObject,
  GroupVersionKind,
  ObjectRef,
  MatchDiagnostic,
  MatchDiagnosticCode,
} from './types.js';
export { validateEventCase, type EventCaseInput, type EventCheck } from './validate.js';
