// schema: built-in kind schemas, JSON/merge/strategic patches, server-side apply with managedFields, CRD validation,
// structural-schema validation/defaulting/pruning and OpenAPI documents. Pure: no I/O, no clock (callers pass `now`).
export type {
  ApplyOptions,
  ApplyResult,
  CompiledSchema,
  Conflict,
  FieldError,
  FieldErrorType,
  JSONSchemaProps,
  ManagedFieldsEntry,
  ServedResource,
  UpdateOptions,
} from './types.js';
export { GENERIC_INVALID, PatchError, isPatchError, type PatchErrorCode, type StatusCause } from './errors.js';
export { builtinKinds, builtinSchema, objectMetaSchema, supportsStrategicMergePatch, walkBuiltin, type ClassVisitor } from './builtin.js';
export { MAX_JSON_PATCH_OPERATIONS, applyJsonPatch } from './json-patch.js';
export { applyMergePatch } from './merge-patch.js';
export { applyStrategicMergePatch } from './strategic-merge-patch.js';
export { MAX_UPDATE_MANAGERS, conflictCauses, conflictMessage, serverSideApply, trackUpdate } from './managed-fields.js';
export { applyCRDDefaults, crdStoredVersions, isDNS1035Label, isDNS1123Subdomain, validateCRD } from './crd-validation.js';
export { compileSchema } from './compile.js';
export { OMIT_VALUE, fieldErrorBody, fieldErrorString, invalidMessage } from './field-errors.js';
export { groupVersionPath, openAPIV2, openAPIV3GroupVersion, openAPIV3Root } from './openapi.js';
export { builtinDecodeError } from './go-decode.js';
