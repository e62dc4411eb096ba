// match: the pure EventSource matcher — resource selectors, label filters and selectors (src/api's label semantics),
// evaluateCEL, Lua evaluate (through src/lua), aggregatedSelection, and structured diagnostics. It reads src/api's
// normalised v1beta1 EventSource.
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
export { compileSelectorLabels, type LabelProblem, type SelectorLabels } from './labels.js';
export { compileCelRules, evaluateCelRules, type CelRule, type CompiledCelRule, type CelOutcome } from './cel.js';
export type {
  EventSourceInput,
  KubeObject,
  GroupVersionKind,
  ObjectRef,
  MatchDiagnostic,
  MatchDiagnosticCode,
} from './types.js';
export { validateEventCase, type EventCaseInput, type EventCheck } from './validate.js';
