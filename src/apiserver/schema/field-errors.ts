// Rendering of FieldErrors exactly like apimachinery's field.Error (pkg/util/validation/field/errors.go), so the
// server can build Status messages and causes without knowing the formatting rules.
import { formatGoNumber, goQuote, isObject } from './json.js';
import type { FieldError, FieldErrorType } from './types.js';

const TYPE_TEXT: Record<FieldErrorType, string> = {
  FieldValueRequired: 'Required value',
  FieldValueInvalid: 'Invalid value',
  FieldValueNotSupported: 'Unsupported value',
  FieldValueTypeInvalid: 'Invalid value',
  FieldValueDuplicate: 'Duplicate value',
  FieldValueForbidden: 'Forbidden',
  FieldValueTooLong: 'Too long',
  FieldValueTooMany: 'Too many',
  UnknownField: 'Unknown field',
};

/** OMIT_VALUE as a badValue makes the body print only the error type (field.omitValue). */
export const OMIT_VALUE = Symbol('omitValue');

// goValue prints a bad value like ErrorBody: %v for numbers and bools, %q for strings, %#v for the rest.
function goValue(v: unknown): string {
  if (v === null || v === undefined) return 'null';
  if (typeof v === 'string') return goQuote(v);
  if (typeof v === 'number') return formatGoNumber(v);
  if (typeof v === 'boolean') return String(v);
  return goSyntax(v);
}

// goSyntax approximates Go's %#v for decoded JSON (map[string]interface {}{"k":"v"}, []interface {}{...}).
function goSyntax(v: unknown): string {
  if (v === null || v === undefined) return 'interface {}(nil)';
  if (typeof v === 'string') return goQuote(v);
  if (typeof v === 'number') return Number.isInteger(v) ? `${v}` : formatGoNumber(v);
  if (typeof v === 'boolean') return String(v);
  if (Array.isArray(v)) return `[]interface {}{${v.map(goSyntax).join(', ')}}`;
  if (isObject(v)) {
    const keys = Object.keys(v).sort();
    return `map[string]interface {}{${keys.map((k) => `${goQuote(k)}:${goSyntax(v[k])}`).join(', ')}}`;
  }
  return String(v);
}

/** fieldErrorBody renders the part after "field: " (field.Error.ErrorBody). */
export function fieldErrorBody(e: FieldError): string {
  let s: string;
  switch (e.type) {
    case 'FieldValueRequired':
    case 'FieldValueForbidden':
    case 'FieldValueTooLong':
    case 'UnknownField':
      s = TYPE_TEXT[e.type];
      break;
    default:
      s = (e.badValue as unknown) === OMIT_VALUE ? TYPE_TEXT[e.type] : `${TYPE_TEXT[e.type]}: ${goValue(e.badValue)}`;
  }
  return e.detail ? `${s}: ${e.detail}` : s;
}

/** fieldErrorString renders one error as "field: body" (field.Error.Error). */
export function fieldErrorString(e: FieldError): string {
  return `${e.field}: ${fieldErrorBody(e)}`;
}

/**
 * invalidMessage renders the message of apierrors.NewInvalid: `Kind.group "name" is invalid: <aggregate>`, where
 * one error prints bare and several print as "[a, b]" (duplicates dropped, like ErrorList.ToAggregate).
 */
export function invalidMessage(qualifiedKind: string, name: string, errors: FieldError[]): string {
  const msgs = [...new Set(errors.map(fieldErrorString))];
  const agg = msgs.length === 1 ? msgs[0] : `[${msgs.join(', ')}]`;
  return `${qualifiedKind} ${goQuote(name)} is invalid: ${agg}`;
}
