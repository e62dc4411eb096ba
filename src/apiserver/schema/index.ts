// schema: built-in kind schemas, JSON/merge/strategic patches, server-side apply with managedFields, CRD validation,
// structural-schema validation/defaulting/pruning and OpenAPI documents. Pure: no I/O, no clock (callers pass `now`).
export * from './types.js';
export * from './errors.js';
export * from './builtin.js';
export * from './json-patch.js';
export * from './merge-patch.js';
export * from './strategic-merge-patch.js';
export * from './managed-fields.js';
export * from './crd-validation.js';
export * from './compile.js';
export * from './openapi.js';
