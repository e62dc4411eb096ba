// Schemas of the built-in kinds the embedded apiserver serves.
import type { JSONSchemaProps } from './types.js';

/** builtinSchema returns the OpenAPI v3 schema of a built-in kind, or undefined when the kind is not built in. */
export function builtinSchema(group: string, version: string, kind: string): JSONSchemaProps | undefined {
  void group; void version; void kind;
  return undefined;
}

/** supportsStrategicMergePatch tells whether PATCH with application/strategic-merge-patch+json is allowed (built-ins only; 415 otherwise). */
export function supportsStrategicMergePatch(group: string, version: string, kind: string): boolean {
  return builtinSchema(group, version, kind) !== undefined;
}
