// Strategic merge patch for built-in kinds. Go: k8s.io/apimachinery/pkg/util/strategicpatch/patch.go
import { PatchError } from './errors.js';
import type { JSONSchemaProps } from './types.js';

/** applyStrategicMergePatch applies a strategic merge patch (with $patch/$retainKeys/... directives) to a copy of target. */
export function applyStrategicMergePatch(target: object, patch: unknown, schema: JSONSchemaProps): object {
  void target; void patch; void schema;
  throw new PatchError('Unknown', 'applyStrategicMergePatch: not implemented yet');
}
