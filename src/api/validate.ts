// validate: the entry point that checks any object Ripple may be handed — a Sveltos kind in any served version,
// or a foreign Kubernetes object (ConfigMap, Service…) for which only the envelope is checked.
import { formatIssue, isPlainObject, quoteValue, type Issue } from './issues.js';
import { KIND_RULES } from './kind-rules.js';
import { lookupKind, kindDescriptor, type KindName, type LookupResult } from './kinds.js';
import { Annotations } from './keys.js';
import { OBJECT_META_FIELDS, validateObjectMeta } from './object-meta.js';
import { validateAgainstSchema, validateTransitions } from './schema-validate.js';

/** ValidateOptions tunes validate. */
export interface ValidateOptions {
  /** Report fields the schema does not declare as `unknownField` issues (default true). */
  unknownFields?: boolean;
}

/** ValidationResult is everything validate found about one object. */
export interface ValidationResult {
  /** True when there are no issues (warnings do not make an object invalid). */
  valid: boolean;
  issues: Issue[];
  /** Legal but noteworthy: deprecated versions, ignored fields, selectors that match nothing. */
  warnings: string[];
  /** Old shapes normalize() converts (v1alpha1 flat EventSource, string selectors, EventBasedAddOn…). */
  notes: string[];
  /** What apiVersion/kind resolved to; undefined when the input is not an object with apiVersion and kind. */
  lookup?: LookupResult;
}

const result = (issues: Issue[], warnings: string[], lookup?: LookupResult, notes: string[] = []): ValidationResult => ({
  valid: issues.length === 0,
  issues,
  warnings,
  notes,
  lookup,
});

/**
 * validate checks an object against the schema of its kind and version, the API server's metadata rules, the
 * kind's CEL rules and Ripple's semantic checks (selector strings, old-vs-new field conflicts). It lists every
 * problem and never throws. Objects of foreign kinds (not lib/config.projectsveltos.io) get the envelope check only
 * (apiVersion, kind, metadata.name).
 */
export function validate(obj: unknown, options: ValidateOptions = {}): ValidationResult {
  if (!isPlainObject(obj)) {
    return result([{ path: '', code: 'notAnObject', message: `not a Kubernetes object: expected a mapping, got ${quoteValue(obj)}` }], []);
  }
  const issues: Issue[] = [];
  const apiVersion = obj.apiVersion;
  const kind = obj.kind;
  if (typeof apiVersion !== 'string' || apiVersion === '') {
    issues.push({ path: 'apiVersion', code: 'required', message: 'Required value: every Kubernetes object needs apiVersion' });
  }
  if (typeof kind !== 'string' || kind === '') {
    issues.push({ path: 'kind', code: 'required', message: 'Required value: every Kubernetes object needs kind' });
  }
  if (issues.length > 0) {
    issues.push(...validateObjectMeta(obj.metadata, 'unknown', String(kind ?? 'object')).issues.filter((i) => i.code !== 'unknownField'));
    return result(issues, []);
  }
  const lookup = lookupKind(apiVersion as string, kind as string);
  switch (lookup.status) {
    case 'foreign':
      return validateForeign(obj, lookup);
    case 'unknownKind':
      return result(
        [{ path: 'kind', code: 'unknownKind', message: `${quoteValue(kind)} is not a kind Ripple serves in ${lookup.group}` }],
        [],
        lookup,
      );
    case 'unknownVersion': {
      const served = lookup.descriptor.versions.filter((v) => v.served).map((v) => `${lookup.descriptor.group}/${v.name}`);
      return result(
        [{ path: 'apiVersion', code: 'unknownVersion', message: `${kind} is not served as ${quoteValue(apiVersion)}; served versions: ${served.join(', ')}` }],
        [],
        lookup,
      );
    }
    case 'served':
      break;
  }
  const { descriptor, version } = lookup;
  const warnings: string[] = [];
  if (version.deprecated && version.deprecationWarning) warnings.push(version.deprecationWarning);
  const meta = validateObjectMeta(obj.metadata, descriptor.scope, descriptor.kind);
  issues.push(...meta.issues);
  warnings.push(...meta.warnings);
  const schemaIssues = validateAgainstSchema(obj, version.schema, '', {
    unknownFields: options.unknownFields ?? true,
    skipRootFields: ['metadata'],
  });
  issues.push(...schemaIssues.map((i) => withRootHint(i, obj, descriptor.kind)));
  const semantic = KIND_RULES[descriptor.kind](obj, version.name);
  issues.push(...semantic.issues);
  warnings.push(...semantic.warnings);
  return result(dedupe(issues), warnings, lookup, semantic.notes ?? []);
}

/**
 * validateKind validates an object that must be of the given kind (any served version); an object of another kind
 * yields an `invalidValue` issue on `kind`.
 */
export function validateKind(kind: KindName, obj: unknown): ValidationResult {
  const r = validate(obj);
  if (isPlainObject(obj) && obj.kind !== kind) {
    const accepted = kind === 'EventTrigger' && obj.kind === 'EventBasedAddOn';
    if (!accepted) {
      return { ...r, valid: false, issues: [{ path: 'kind', code: 'invalidValue', message: `Invalid value: ${quoteValue(obj.kind)}: expected ${kind}` }, ...r.issues] };
    }
  }
  return r;
}

/**
 * validateUpdate validates newObj and checks the transition rules between oldObj and newObj (immutable fields such
 * as EventTrigger spec.oneForEvent and SveltosCluster spec.pullMode).
 */
export function validateUpdate(oldObj: unknown, newObj: unknown, options: ValidateOptions = {}): ValidationResult {
  const r = validate(newObj, options);
  if (r.lookup?.status !== 'served' || !isPlainObject(oldObj)) return r;
  const issues = [...r.issues, ...validateTransitions(oldObj, newObj, r.lookup.version.schema)];
  return { ...r, valid: issues.length === 0, issues };
}

function validateForeign(obj: Record<string, unknown>, lookup: LookupResult): ValidationResult {
  const meta = validateObjectMeta(obj.metadata, 'unknown', String(obj.kind));
  const warnings: string[] = [];
  const annotations = isPlainObject(obj.metadata) && isPlainObject(obj.metadata.annotations) ? obj.metadata.annotations : {};
  if (Annotations.subresourcesMisspelled in annotations && !(Annotations.subresources in annotations)) {
    warnings.push(
      `metadata.annotations: ${Annotations.subresourcesMisspelled} is a misspelling of ${Annotations.subresources}; Ripple accepts it (Sveltos ignores it)`,
    );
  }
  // Unknown metadata fields on foreign kinds are the API server's business, not ours.
  return result(meta.issues.filter((i) => i.code !== 'unknownField'), [...meta.warnings, ...warnings], lookup);
}

// A root-level unknown field that is really a metadata or spec field usually means lost indentation (YAML copied
// out of a rendered web page); say so.
function withRootHint(issue: Issue, obj: Record<string, unknown>, kind: KindName): Issue {
  if (issue.code !== 'unknownField' || issue.path.includes('.') || issue.path.includes('[')) return issue;
  const key = issue.path;
  const specProps = Object.keys(kindDescriptor(kind).versions[0].schema.properties?.spec?.properties ?? {});
  let where: string | undefined;
  if (OBJECT_META_FIELDS.includes(key)) where = 'metadata';
  else if (specProps.includes(key)) where = 'spec';
  if (!where) return issue;
  const empty = obj[where] === undefined || obj[where] === null;
  return {
    ...issue,
    message: `${issue.message}: it belongs under ${where}${empty ? ` (and ${where} is empty: was the indentation lost?)` : ''}`,
  };
}

function dedupe(issues: Issue[]): Issue[] {
  const seen = new Set<string>();
  return issues.filter((i) => {
    const k = `${i.path}\0${i.code}\0${i.message}`;
    if (seen.has(k)) return false;
    seen.add(k);
    return true;
  });
}

/** formatValidation renders a validation result as lines (`error: spec.x: …`, `warning: …`, `note: …`) for humans. */
export function formatValidation(r: ValidationResult): string[] {
  return [
    ...r.issues.map((i) => `error: ${formatIssue(i)}`),
    ...r.warnings.map((w) => `warning: ${w}`),
    ...r.notes.map((n) => `note: ${n}`),
  ];
}

