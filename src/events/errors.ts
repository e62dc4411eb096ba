// errors.ts: the one error class of the event manager. Expected failures inside the pure core (a template that does
// not render, a missing ConfigMap, a name collision) are values (`EventIssue`); EventError carries one across an API
// edge (the CLI, a thrown reconcile).

/** EventIssueCode is the closed set of reasons an instantiation fails; each lands in status with this code's text. */
export type EventIssueCode =
  | 'TemplateParse' // a template does not parse (name, line and column in the message)
  | 'TemplateExec' // a template fails while rendering (name, line and column in the message)
  | 'InvalidYAML' // rendered ConfigMap/Secret content or Helm values are not YAML
  | 'MissingReference' // a referenced ConfigMap/Secret does not exist (and is not optional)
  | 'InvalidSecretType' // a referenced Secret is not of type addons.projectsveltos.io/cluster-profile
  | 'UnsupportedReference' // a reference kind the event stage cannot handle (remoteURL, Flux source to instantiate)
  | 'NameCollision' // two events (or an unrelated object) claim the same generated name
  | 'InvalidName' // a rendered name / label value is not valid for Kubernetes
  | 'InvalidReport' // the EventReport's resources cannot be decoded
  | 'MissingEventSource' // spec.eventSourceName names an EventSource that does not exist
  | 'EvaluationFailed' // the agent could not evaluate the EventSource in that cluster (its Lua/CEL failed)
  | 'ImmutableField' // oneForEvent changed after outputs were generated
  | 'InvalidSpec' // the trigger cannot be read (normalisation failed)
  | 'Forbidden'; // a tenant's trigger references a ConfigMap/Secret the tenant may not read

/** EventIssue is one failure of one (EventTrigger, cluster) instantiation, with its exact cause. */
export interface EventIssue {
  code: EventIssueCode;
  message: string;
}

/** EventError is thrown at the component's edge for an EventIssue (or several). */
export class EventError extends Error {
  override readonly name = 'EventError';
  constructor(
    readonly issues: readonly EventIssue[],
    options?: { cause?: unknown },
  ) {
    super(issues.map((i) => i.message).join('; '), options);
  }
  /** code is the first issue's code. */
  get code(): EventIssueCode {
    return this.issues[0]?.code ?? 'InvalidSpec';
  }
}

/** issue builds an EventIssue. */
export function issue(code: EventIssueCode, message: string): EventIssue {
  return { code, message };
}
