// Server-side apply and managedFields tracking. Go: sigs.k8s.io/structured-merge-diff/v4/merge, k8s.io/apiserver/pkg/endpoints/handlers/fieldmanager
import type { ApplyOptions, ApplyResult, UpdateOptions } from './types.js';

/** serverSideApply merges applied into live for one field manager, or reports the conflicts with other managers. */
export function serverSideApply(live: object | undefined, applied: object, o: ApplyOptions): ApplyResult {
  void live; void applied; void o;
  throw new Error('serverSideApply: not implemented yet');
}

/** trackUpdate returns updated with metadata.managedFields maintained for an Update operation by o.manager. */
export function trackUpdate(old: object | undefined, updated: object, o: UpdateOptions): object {
  void old; void o;
  return updated;
}
