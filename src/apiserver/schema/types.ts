// Types shared by the schema modules: OpenAPI v3 schema nodes, field errors, managedFields entries, served resources.

/** JSONSchemaProps is an OpenAPI v3 schema node with the Kubernetes extensions (apiextensions.k8s.io/v1 JSONSchemaProps). */
export interface JSONSchemaProps {
  type?: 'object' | 'array' | 'string' | 'integer' | 'number' | 'boolean';
  format?: string;
  description?: string;
  title?: string;
  default?: unknown;
  nullable?: boolean;
  enum?: unknown[];
  pattern?: string;
  minimum?: number;
  maximum?: number;
  exclusiveMinimum?: boolean;
  exclusiveMaximum?: boolean;
  multipleOf?: number;
  minLength?: number;
  maxLength?: number;
  minItems?: number;
  maxItems?: number;
  uniqueItems?: boolean;
  minProperties?: number;
  maxProperties?: number;
  required?: string[];
  properties?: Record<string, JSONSchemaProps>;
  additionalProperties?: JSONSchemaProps | boolean;
  items?: JSONSchemaProps;
  allOf?: JSONSchemaProps[];
  anyOf?: JSONSchemaProps[];
  oneOf?: JSONSchemaProps[];
  not?: JSONSchemaProps;
  example?: unknown;
  externalDocs?: { description?: string; url?: string };
  $ref?: string;
  'x-kubernetes-preserve-unknown-fields'?: boolean;
  'x-kubernetes-embedded-resource'?: boolean;
  'x-kubernetes-int-or-string'?: boolean;
  'x-kubernetes-list-type'?: 'atomic' | 'set' | 'map';
  'x-kubernetes-list-map-keys'?: string[];
  'x-kubernetes-map-type'?: 'atomic' | 'granular';
  'x-kubernetes-patch-merge-key'?: string;
  'x-kubernetes-patch-strategy'?: string;
  'x-kubernetes-validations'?: { rule: string; message?: string; messageExpression?: string; reason?: string; fieldPath?: string; optionalOldSelf?: boolean }[];
  'x-kubernetes-group-version-kind'?: { group: string; version: string; kind: string }[];
  /** Any other extension (x-*) is carried through untouched. */
  [extension: `x-${string}`]: unknown;
}

/** FieldErrorType is the closed set of field.ErrorType values we report (apimachinery pkg/util/validation/field). */
export type FieldErrorType =
  | 'FieldValueRequired'
  | 'FieldValueInvalid'
  | 'FieldValueNotSupported'
  | 'FieldValueTypeInvalid'
  | 'FieldValueDuplicate'
  | 'FieldValueForbidden'
  | 'FieldValueTooLong'
  | 'FieldValueTooMany'
  | 'UnknownField';

/** FieldError is one validation problem at a field path, shaped like apimachinery's field.Error. */
export interface FieldError {
  type: FieldErrorType;
  /** Dotted path with indices, e.g. spec.ports[0].port. */
  field: string;
  detail: string;
  badValue?: unknown;
}

/** ManagedFieldsEntry is one element of metadata.managedFields. */
export interface ManagedFieldsEntry {
  manager: string;
  operation: 'Apply' | 'Update';
  apiVersion: string;
  time: string;
  fieldsType: 'FieldsV1';
  fieldsV1: object;
  subresource?: string;
}

/** Conflict is one field another manager owns with a different value than the applier asks for. */
export interface Conflict {
  /** The other manager's name (as in its managedFields entry). */
  manager: string;
  /** The field in structured-merge-diff notation, e.g. .data.key or .spec.containers[name="c"].image. */
  field: string;
  operation: 'Apply' | 'Update';
  apiVersion: string;
  subresource?: string;
}

/** ApplyResult is the outcome of serverSideApply: the merged object, or the conflicts that block it. */
export type ApplyResult =
  | { ok: true; object: object }
  | { ok: false; conflicts: Conflict[]; message: string };

/** ApplyOptions configures one server-side apply. */
export interface ApplyOptions {
  manager: string;
  force: boolean;
  schema: JSONSchemaProps;
  apiVersion: string;
  /** RFC 3339 timestamp stored in the managedFields entry. */
  now: string;
  subresource?: string;
  /**
   * Top-level fields the write's strategy resets, whose ownership is never recorded (GetResetFields): pass
   * ['status'] for the main resource of a kind with a status subresource. Default: ['spec'] for subresource
   * 'status', none otherwise.
   */
  resetFields?: string[];
  /**
   * shareUnchanged lets the answer share values with live and applied below its top level and metadata (which are
   * always its own); the caller copies what it changes. Default: the answer is a fresh tree.
   */
  shareUnchanged?: boolean;
}

/** UpdateOptions configures managedFields tracking for a non-apply write. */
export interface UpdateOptions {
  manager: string;
  schema: JSONSchemaProps;
  apiVersion: string;
  now: string;
  subresource?: string;
  /** As ApplyOptions.resetFields. */
  resetFields?: string[];
}

/** CompiledSchema validates, defaults, prunes and inspects objects against one structural schema. */
export interface CompiledSchema {
  /** validate reports every schema violation of obj (old enables ratcheting-free update checks; reserved). */
  validate(obj: object, old?: object): FieldError[];
  /** applyDefaults returns a copy of obj with structural defaults filled in. */
  applyDefaults(obj: object): object;
  /** prune returns a copy of obj without fields the schema does not know, and the dropped paths. */
  prune(obj: object): { object: object; pruned: string[] };
  /** defaultAndPrune is prune(applyDefaults(obj)) with one copy. */
  defaultAndPrune(obj: object): { object: object; pruned: string[] };
  /** unknownFields lists the paths of fields the schema does not know (for fieldValidation=Strict/Warn). */
  unknownFields(obj: object): string[];
}

/** ServedResource describes one served group/version/kind for the OpenAPI documents. */
export interface ServedResource {
  group: string;
  version: string;
  kind: string;
  plural: string;
  namespaced: boolean;
  verbs: string[];
  subresources: string[];
  schema: JSONSchemaProps;
}
