// JSON patch (RFC 6902) with kube-apiserver's error behaviour.
import { PatchError } from './errors.js';

/** applyJsonPatch applies an RFC 6902 operation list to a copy of target. */
export function applyJsonPatch(target: object, ops: unknown): object {
  void target; void ops;
  throw new PatchError('InternalError', 'applyJsonPatch: not implemented yet');
}
