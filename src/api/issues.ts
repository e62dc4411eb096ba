// Structured validation issues: every check in src/api reports problems as values, never by throwing.

/**
 * IssueCode is the closed set of codes a validation issue carries. Codes are stable: tools and tests match on
 * them, never on message text.
 */
export type IssueCode =
  /** A required field is missing (or null). */
  | 'required'
  /** A value has the wrong JSON type (string where an integer is expected, …). */
  | 'type'
  /** A string is not one of the allowed values. */
  | 'enum'
  /** A string does not match the pattern the API demands. */
  | 'pattern'
  /** A string or list is shorter than allowed. */
  | 'minLength'
  /** A string or list is longer than allowed. */
  | 'maxLength'
  /** A number is below the allowed minimum. */
  | 'minimum'
  /** A number is above the allowed maximum. */
  | 'maximum'
  /** A string is not in the declared format (base64 for `byte`, RFC 3339 for `date-time`, …). */
  | 'format'
  /** A field the API does not declare (a kube-apiserver would prune it silently). */
  | 'unknownField'
  /** A label selector (string or matchLabels/matchExpressions) is malformed. */
  | 'invalidSelector'
  /** A name, label key/value or annotation key breaks Kubernetes naming rules. */
  | 'invalidName'
  /** Two fields that exclude each other are both set (or neither of a required pair). */
  | 'conflict'
  /** A field that cannot change after creation was changed. */
  | 'immutable'
  /** A value is well-typed but not acceptable (a rule of the API rejects it). */
  | 'invalidValue'
  /** The document is not a Kubernetes object (not a mapping, or apiVersion/kind missing). */
  | 'notAnObject'
  /** apiVersion/kind name a Sveltos API group but a kind Ripple does not serve. */
  | 'unknownKind'
  /** The kind is known but this API version of it is not served. */
  | 'unknownVersion'
  /** The YAML text could not be parsed. */
  | 'parse';

/** ISSUE_CODES lists every IssueCode (the closed set, for documentation and exhaustiveness tests). */
export const ISSUE_CODES: readonly IssueCode[] = [
  'required',
  'type',
  'enum',
  'pattern',
  'minLength',
  'maxLength',
  'minimum',
  'maximum',
  'format',
  'unknownField',
  'invalidSelector',
  'invalidName',
  'conflict',
  'immutable',
  'invalidValue',
  'notAnObject',
  'unknownKind',
  'unknownVersion',
  'parse',
];

/** Issue is one problem found in an object: where (`spec.resourceSelectors[0].kind`), what (code) and why. */
export interface Issue {
  /** Field path in kubectl/apimachinery notation: `spec.policyRefs[1].kind`, `metadata.labels[env]`; "" = the object. */
  readonly path: string;
  readonly code: IssueCode;
  /** A readable sentence, apiserver-style where one exists (`Unsupported value: "Foo": supported values: …`). */
  readonly message: string;
}

/** formatIssue renders an issue as one line: `spec.tier: Invalid value: …` (or just the message at the root). */
export function formatIssue(issue: Issue): string {
  return issue.path ? `${issue.path}: ${issue.message}` : issue.message;
}

/** childPath appends a property name to a field path, using `[key]` for keys that are not plain identifiers. */
export function childPath(parent: string, key: string): string {
  if (/^[A-Za-z_$][A-Za-z0-9_$-]*$/.test(key)) return parent ? `${parent}.${key}` : key;
  return `${parent}[${key}]`;
}

/** indexPath appends a list index to a field path: `spec.resourceSelectors` → `spec.resourceSelectors[0]`. */
export function indexPath(parent: string, index: number): string {
  return `${parent}[${index}]`;
}

/** quoteValue renders a value the way apimachinery's field errors do (`"text"`, `42`, `true`, `null`, `{…}`). */
export function quoteValue(value: unknown): string {
  if (typeof value === 'string') return JSON.stringify(value);
  if (value === undefined) return 'null';
  if (typeof value === 'object' && value !== null) {
    const text = JSON.stringify(value);
    return text.length > 80 ? text.slice(0, 77) + '...' : text;
  }
  return String(value);
}

/** jsonTypeOf names the JSON type of a value the way OpenAPI does: object, array, string, integer, number, boolean, null. */
export function jsonTypeOf(value: unknown): string {
  if (value === null || value === undefined) return 'null';
  if (Array.isArray(value)) return 'array';
  if (typeof value === 'number') return Number.isInteger(value) ? 'integer' : 'number';
  if (typeof value === 'object') return 'object';
  return typeof value;
}

/** isPlainObject reports whether a value is a JSON object (not null, not an array). */
export function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
