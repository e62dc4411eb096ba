// PatchError: the one error class of the schema component, with codes the server maps to Status responses.

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
  /** 500: the apiserver returns such errors unwrapped (e.g. a list element missing its merge key). */
  | 'InternalError';

const HTTP: Record<PatchErrorCode, number> = {
  BadRequest: 400,
  Invalid: 422,
  UnsupportedMediaType: 415,
  RequestEntityTooLarge: 413,
  InternalError: 500,
};

/** PatchError is thrown by the patch functions; `code` is the Status reason to answer with, `status` its HTTP code. */
export class PatchError extends Error {
  override readonly name = 'PatchError';
  readonly status: number;
  constructor(
    readonly code: PatchErrorCode,
    message: string,
    options?: { cause?: unknown },
  ) {
    super(message, options);
    this.status = HTTP[code];
  }
}

/** isPatchError tells whether e is a PatchError (optionally with the given code). */
export function isPatchError(e: unknown, code?: PatchErrorCode): e is PatchError {
  return e instanceof PatchError && (code === undefined || e.code === code);
}
