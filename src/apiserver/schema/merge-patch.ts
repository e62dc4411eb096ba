// JSON merge patch (RFC 7396).
import { PatchError } from './errors.js';

/** applyMergePatch applies an RFC 7396 merge patch to a copy of target. */
export function applyMergePatch(target: object, patch: unknown): object {
  void target; void patch;
  throw new PatchError('InternalError', 'applyMergePatch: not implemented yet');
}
