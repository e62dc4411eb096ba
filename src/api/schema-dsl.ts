// Schema builders: thin wrappers over typebox that emit JSON Schema already in the Kubernetes structural dialect
// (additionalProperties for maps, enum instead of const, x-kubernetes-* extensions), so one definition gives
// the TypeScript type (Static), the validator's rules and the CRD's openAPIV3Schema.
import { Type, type Static, type TSchema } from 'typebox';

export { Type, type Static, type TSchema };

/** Opts are the JSON Schema / Kubernetes keywords a leaf may carry. */
export interface Opts {
  description?: string;
  default?: unknown;
  minLength?: number;
  maxLength?: number;
  pattern?: string;
  format?: string;
  minimum?: number;
  maximum?: number;
  minItems?: number;
  maxItems?: number;
  'x-kubernetes-list-type'?: 'atomic' | 'set' | 'map';
  'x-kubernetes-list-map-keys'?: string[];
  'x-kubernetes-map-type'?: 'atomic' | 'granular';
  'x-kubernetes-validations'?: { rule: string; message: string }[];
  'x-kubernetes-preserve-unknown-fields'?: true;
  [key: string | symbol]: unknown;
}

/** str is a string field. */
export const str = (o: Opts = {}) => Type.String(o);
/** int32 is an integer field with format int32 (Go int32). */
export const int32 = (o: Opts = {}) => Type.Integer({ format: 'int32', ...o });
/** int64 is an integer field with no format (Go int / int64 as controller-gen emits it). */
export const int = (o: Opts = {}) => Type.Integer(o);
/** bool is a boolean field. */
export const bool = (o: Opts = {}) => Type.Boolean(o);
/** bytes is a Go []byte field: base64 text in JSON/YAML (`format: byte`). */
export const bytes = (o: Opts = {}) => Type.String({ format: 'byte', ...o });
/** dateTime is a metav1.Time field (RFC 3339 text). */
export const dateTime = (o: Opts = {}) => Type.String({ format: 'date-time', ...o });
/** strEnum is a string restricted to a closed set of values. */
export const strEnum = <const T extends string>(values: readonly T[], o: Opts = {}) =>
  Type.Unsafe<T>({ type: 'string', enum: [...values], ...o });
/** strMap is a map[string]string field (labels, annotations, values). */
export const strMap = (o: Opts = {}) =>
  Type.Unsafe<Record<string, string>>({ type: 'object', additionalProperties: { type: 'string' }, ...o });
/** strList is a []string field. */
export const strList = (o: Opts = {}) => Type.Array(Type.String(), o);
/** intOrString is an IntOrString field (`x-kubernetes-int-or-string`). */
export const intOrString = (o: Opts = {}) =>
  Type.Unsafe<number | string>({ anyOf: [{ type: 'integer' }, { type: 'string' }], 'x-kubernetes-int-or-string': true, ...o });
/**
 * anyValue is an untyped node that keeps whatever it holds (`x-kubernetes-preserve-unknown-fields` without a type):
 * used only by the v1alpha1 schemas for fields whose old shape had a different type (string selectors).
 */
export const anyValue = <T = unknown>(o: Opts = {}) => Type.Unsafe<T>({ 'x-kubernetes-preserve-unknown-fields': true, ...o });
/** obj is an object with declared properties. */
export const obj = <P extends Record<string, TSchema>>(props: P, o: Opts = {}) => Type.Object(props, o);
/** list is an array field. */
export const list = <T extends TSchema>(items: T, o: Opts = {}) => Type.Array(items, o);
/** opt marks a property optional (absent from `required`). */
export const opt = <T extends TSchema>(t: T) => Type.Optional(t);

/** JsonSchema is a plain JSON Schema node as found in a CRD (no typebox internals). */
export interface JsonSchema {
  type?: string;
  description?: string;
  properties?: Record<string, JsonSchema>;
  additionalProperties?: JsonSchema | boolean;
  items?: JsonSchema;
  required?: string[];
  enum?: unknown[];
  default?: unknown;
  format?: string;
  pattern?: string;
  minLength?: number;
  maxLength?: number;
  minimum?: number;
  maximum?: number;
  minItems?: number;
  maxItems?: number;
  anyOf?: JsonSchema[];
  allOf?: JsonSchema[];
  oneOf?: JsonSchema[];
  not?: JsonSchema;
  nullable?: boolean;
  'x-kubernetes-preserve-unknown-fields'?: boolean;
  'x-kubernetes-int-or-string'?: boolean;
  'x-kubernetes-embedded-resource'?: boolean;
  'x-kubernetes-list-type'?: string;
  'x-kubernetes-list-map-keys'?: string[];
  'x-kubernetes-map-type'?: string;
  'x-kubernetes-validations'?: { rule: string; message?: string; messageExpression?: string; reason?: string; fieldPath?: string }[];
  [key: string | symbol]: unknown;
}

/** toJsonSchema returns a deep, plain-JSON copy of a typebox schema (what a CRD carries). */
export function toJsonSchema(schema: TSchema): JsonSchema {
  return JSON.parse(JSON.stringify(schema)) as JsonSchema;
}
