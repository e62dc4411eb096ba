// PatchError: the one error class of the schema component, with codes the server maps to Status responses.
import { goQuote } from './json.js';

/** PatchErrorCode is the closed set of failure kinds; each maps to one kube-apiserver Status reason and HTTP code. */
export type PatchErrorCode =
  /** 400: the patch document itself is malformed (not JSON, wrong shape, bad directive). */
  | 'BadRequest'
  /** 422: the patch is well-formed but cannot be applied to this object. */
  | 'Invalid'
  /** 415: the patch type is not supported for this resource (strategic merge patch on a custom resource). */
  | 'UnsupportedMediaType'
  /** 413: too many operations (JSON patch over 10,000 operations). */
  | 'RequestEntityTooLarge'
  /** 500 with an empty reason: errors kube-apiserver passes through unconverted (e.g. a list element missing its
   * strategic merge key), which clients print as "Error from server: <message>". */
  | 'Unknown';

const HTTP: Record<PatchErrorCode, number> = {
  BadRequest: 400,
  Invalid: 422,
  UnsupportedMediaType: 415,
  RequestEntityTooLarge: 413,
  Unknown: 500,
};

/** StatusCause is one entry of Status.details.causes. */
export interface StatusCause {
  type: string;
  message: string;
  field: string;
}

/**
 * PatchError is thrown by the patch functions. `message` is exactly the Status message kube-apiserver answers with,
 * `code` the Status reason ('Unknown' means an empty reason), `status` the HTTP code, `causes` the
 * Status.details.causes when the apiserver sends some, and `detail` the underlying library message when the
 * apiserver hides it behind a generic message (kept for logs).
 */
export class PatchError extends Error {
  override readonly name = 'PatchError';
  readonly status: number;
  readonly causes: StatusCause[] | undefined;
  readonly detail: string | undefined;
  constructor(
    readonly code: PatchErrorCode,
    message: string,
    options?: { cause?: unknown; causes?: StatusCause[]; detail?: string },
  ) {
    super(message, options?.cause === undefined ? undefined : { cause: options.cause });
    this.status = HTTP[code];
    this.causes = options?.causes;
    this.detail = options?.detail;
  }
}

/** GENERIC_INVALID is the message of apierrors.NewGenericServerResponse(422, ...), which hides the real cause. */
export const GENERIC_INVALID = 'the server rejected our request due to an error in our request';

/** invalidPatchResult builds the 422 the apiserver answers when a patched document cannot be decoded (NewInvalid on field "patch"). */
export function invalidPatchResult(patched: string, reason: string): PatchError {
  const cause = `Invalid value: ${goQuote(patched)}: ${reason}`;
  return new PatchError('Invalid', ` "" is invalid: patch: ${cause}`, {
    causes: [{ type: 'FieldValueInvalid', message: cause, field: 'patch' }],
  });
}

/** isPatchError tells whether e is a PatchError (optionally with the given code). */
export function isPatchError(e: unknown, code?: PatchErrorCode): e is PatchError {
  return e instanceof PatchError && (code === undefined || e.code === code);
}
