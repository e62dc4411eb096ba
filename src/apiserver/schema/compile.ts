// compileSchema: validation, defaulting, pruning and unknown-field detection against a structural schema.
import type { CompiledSchema, JSONSchemaProps } from './types.js';

/** compileSchema prepares a schema for repeated validate/applyDefaults/prune/unknownFields calls (cached by identity). */
export function compileSchema(schema: JSONSchemaProps, o?: { isBuiltin?: boolean }): CompiledSchema {
  void schema; void o;
  throw new Error('compileSchema: not implemented yet');
}
