// types: what the matcher reads of an EventSource (src/api's normalised v1beta1 types), the objects it looks at, and
// the diagnostics it returns.
import type { EventSource, ObjectMeta } from '../api/index.js';

/**
 * EventSourceInput is what compileEventSource reads of a normalised v1beta1 EventSource (src/api `normalize()`):
 * its spec, and metadata.name for diagnostics. Every api `EventSource` is one.
 */
export type EventSourceInput = Pick<EventSource, 'spec'> & { metadata?: Partial<Pick<ObjectMeta, 'name'>> };

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
