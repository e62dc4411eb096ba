// types: the minimal structural shape of an EventSource this matcher needs (normalised v1beta1), the objects it
// looks at, and the diagnostics it returns. src/api owns the real types; these are structurally compatible with them.

/** LabelFilterInput is one EventSource labelFilters entry. */
export interface LabelFilterInput {
  key: string;
  /** Equal, Different, Has or DoesNotHave. */
  operation: string;
  value?: string;
}

/** LabelSelectorRequirementInput is one metav1.LabelSelector matchExpressions entry. */
export interface LabelSelectorRequirementInput {
  key: string;
  /** In, NotIn, Exists or DoesNotExist. */
  operator: string;
  values?: string[];
}

/** LabelSelectorInput is a metav1.LabelSelector. */
export interface LabelSelectorInput {
  matchLabels?: Record<string, string>;
  matchExpressions?: LabelSelectorRequirementInput[];
}

/** CelRuleInput is one evaluateCEL rule. */
export interface CelRuleInput {
  name: string;
  rule: string;
}

/** ResourceSelectorInput is one spec.resourceSelectors entry. */
export interface ResourceSelectorInput {
  group: string;
  version: string;
  kind: string;
  namespace?: string;
  name?: string;
  labelFilters?: LabelFilterInput[];
  selector?: LabelSelectorInput;
  evaluate?: string;
  evaluateCEL?: CelRuleInput[];
}

/** EventSourceInput is the normalised v1beta1 EventSource (metadata.name is used in diagnostics only). */
export interface EventSourceInput {
  metadata?: { name?: string };
  spec: {
    resourceSelectors?: ResourceSelectorInput[];
    aggregatedSelection?: string;
    collectResources?: boolean;
  };
}

/** KubeObject is a Kubernetes object as plain JSON. */
export type KubeObject = Record<string, unknown>;

/** GroupVersionKind names a resource type. */
export interface GroupVersionKind {
  group: string;
  version: string;
  kind: string;
}

/** ObjectRef identifies an object in diagnostics. */
export interface ObjectRef {
  apiVersion?: string;
  kind?: string;
  namespace?: string;
  name?: string;
}

/** MatchDiagnosticCode is the closed set of problems the matcher reports. */
export type MatchDiagnosticCode =
  | 'lua-syntax'
  | 'lua-runtime'
  | 'lua-timeout'
  | 'lua-memory'
  | 'lua-result'
  | 'cel-compile'
  | 'cel-evaluate'
  | 'label-filter'
  | 'label-selector'
  | 'selector';

/** MatchDiagnostic is one structured failure: where (EventSource, selector, field, line), on what object, and why. */
export interface MatchDiagnostic {
  code: MatchDiagnosticCode;
  eventSource: string;
  /** selectorIndex is the spec.resourceSelectors index; absent for aggregatedSelection. */
  selectorIndex?: number;
  /** field is the path of the offending field, e.g. spec.resourceSelectors[0].evaluate. */
  field: string;
  object?: ObjectRef;
  /** line is the Lua script line, when the failure has one. */
  line?: number;
  /** rule is the evaluateCEL rule name, for CEL problems. */
  rule?: string;
  message: string;
}
