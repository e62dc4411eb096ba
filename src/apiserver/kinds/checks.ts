// Small builders for the field errors kube's Go validation produces (field.Required, field.NotSupported …) and the
// checks many built-in kinds share: non-negative counts, immutable fields, int-or-percent values, label selectors.
// Go: k8s.io/apimachinery/pkg/util/validation/field, pkg/apis/core/validation, pkg/apis/apps/validation
import type { FieldError } from '../schema/index.js';
import { asArray, asRecord } from '../printers.js';
import { labelSelectorFromMatch, SelectorError } from '../selectors.js';
import { goQuote, GoRepr } from '../status.js';
import { deepEqual, isPlainObject } from '../types.js';

/** required is field.Required. */
export function required(field: string, detail = ''): FieldError {
  return { type: 'FieldValueRequired', field, detail };
}

/** invalid is field.Invalid. */
export function invalid(field: string, badValue: unknown, detail: string): FieldError {
  return { type: 'FieldValueInvalid', field, badValue, detail };
}

/** forbidden is field.Forbidden. */
export function forbidden(field: string, detail: string): FieldError {
  return { type: 'FieldValueForbidden', field, detail };
}

/** notSupported is field.NotSupported: `Unsupported value: "x": supported values: "a", "b"`. */
export function notSupported(field: string, badValue: unknown, values: string[]): FieldError {
  return { type: 'FieldValueNotSupported', field, badValue, detail: `supported values: ${values.map((v) => goQuote(v)).join(', ')}` };
}

/** oneOf checks an optional enum field; absent (or empty when allowEmpty) values pass. */
export function oneOf(errs: FieldError[], field: string, v: unknown, values: string[]): void {
  if (v === undefined || v === null) return;
  if (typeof v !== 'string' || !values.includes(v)) errs.push(notSupported(field, v, values));
}

/** nonNegative is ValidateNonnegativeField. */
export function nonNegative(errs: FieldError[], field: string, v: unknown): void {
  if (typeof v === 'number' && v < 0) errs.push(invalid(field, v, 'must be greater than or equal to 0'));
}

/** immutable is ValidateImmutableField: `field is immutable` when the value changed. */
export function immutable(errs: FieldError[], field: string, cur: unknown, old: unknown): void {
  if (!deepEqual(cur ?? null, old ?? null)) errs.push(invalid(field, cur ?? null, 'field is immutable'));
}

/** goStringMap renders a map[string]string like Go's %#v. */
export function goStringMap(m: Record<string, unknown>): GoRepr {
  const keys = Object.keys(m).sort();
  return new GoRepr(`map[string]string{${keys.map((k) => `${goQuote(k)}:${goQuote(String(m[k]))}`).join(', ')}}`);
}

/** goLabelSelector renders a metav1.LabelSelector like Go's %#v of the struct (what field.Invalid prints for it). */
export function goLabelSelector(sel: unknown): GoRepr {
  const s = asRecord(sel);
  const ml = asRecord(s.matchLabels);
  const keys = Object.keys(ml).sort();
  const labels = keys.length === 0 && s.matchLabels === undefined ? 'map[string]string(nil)' : `map[string]string{${keys.map((k) => `${goQuote(k)}:${goQuote(String(ml[k]))}`).join(', ')}}`;
  const exprs = asArray(s.matchExpressions).map(asRecord);
  const req = (e: Record<string, unknown>) => {
    const values = asArray(e.values).map(String);
    const v = e.values === undefined ? '[]string(nil)' : `[]string{${values.map((x) => goQuote(x)).join(', ')}}`;
    return `v1.LabelSelectorRequirement{Key:${goQuote(String(e.key ?? ''))}, Operator:${goQuote(String(e.operator ?? ''))}, Values:${v}}`;
  };
  const expressions = s.matchExpressions === undefined ? '[]v1.LabelSelectorRequirement(nil)' : `[]v1.LabelSelectorRequirement{${exprs.map(req).join(', ')}}`;
  return new GoRepr(`v1.LabelSelector{MatchLabels:${labels}, MatchExpressions:${expressions}}`);
}

/** labelSelectorErrors reports a metav1.LabelSelector that cannot be parsed. */
export function labelSelectorErrors(sel: unknown, field: string): FieldError[] {
  if (!isPlainObject(sel)) return [];
  try {
    labelSelectorFromMatch(sel as never);
    return [];
  } catch (e) {
    if (!(e instanceof SelectorError)) throw e;
    return [invalid(field, sel, e.message)];
  }
}

/**
 * selectorMatchesTemplate is the selector part of ValidateDeploymentSpec and its siblings: a non-empty selector that
 * matches the template's labels.
 */
export function selectorMatchesTemplate(spec: Record<string, unknown>, kind: string, path = 'spec'): FieldError[] {
  const sel = spec.selector;
  if (!isPlainObject(sel)) return [required(`${path}.selector`)];
  if (Object.keys(asRecord(sel.matchLabels)).length === 0 && asArray(sel.matchExpressions).length === 0) {
    // field.Invalid dereferences the *metav1.LabelSelector and prints the struct with %#v.
    return [invalid(`${path}.selector`, goLabelSelector(sel), `empty selector is invalid for ${kind}`)];
  }
  const labels = asRecord(asRecord(asRecord(spec.template).metadata).labels);
  try {
    if (!labelSelectorFromMatch(sel as never).matches(labels as Record<string, string>)) {
      return [invalid(`${path}.template.metadata.labels`, goStringMap(labels), '`selector` does not match template `labels`')];
    }
  } catch (e) {
    if (!(e instanceof SelectorError)) throw e;
    return [invalid(`${path}.selector`, sel, e.message)];
  }
  return [];
}

const PERCENT = /^[0-9]+%$/;

/** intOrPercent is ValidatePositiveIntOrPercent plus IsNotMoreThan100Percent (PDB minAvailable, maxUnavailable …). */
export function intOrPercent(errs: FieldError[], field: string, v: unknown): void {
  if (v === undefined || v === null) return;
  if (typeof v === 'number') {
    if (v < 0) errs.push(invalid(field, v, 'must be greater than or equal to 0'));
    return;
  }
  if (typeof v !== 'string' || !PERCENT.test(v)) {
    errs.push(invalid(field, v, "a valid percent string must be a numeric string followed by an ending '%' (e.g. '1%',  or '93%', regex used for validation is '[0-9]+%')"));
    return;
  }
  if (Number(v.slice(0, -1)) > 100) errs.push(invalid(field, v, 'must not be greater than 100%'));
}

/** restartPolicyIn checks a pod template's restartPolicy against what a controller supports. */
export function restartPolicyIn(errs: FieldError[], podSpecPath: string, podSpec: unknown, allowed: string[]): void {
  const policy = asRecord(podSpec).restartPolicy;
  if (policy === undefined || policy === '') return;
  if (!allowed.includes(String(policy))) errs.push(notSupported(`${podSpecPath}.restartPolicy`, policy, allowed));
}
