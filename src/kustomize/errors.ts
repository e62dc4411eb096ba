// errors.ts: the one error class of the kustomize component. Messages are Kustomize's own text, so `ripple kustomize
// build` can print them as `kubectl kustomize` does (`error: <message>`).

/** KustomizeErrorCode is the closed set of failure classes a build reports. */
export type KustomizeErrorCode = 'NotFound' | 'Invalid' | 'Conflict' | 'Remote' | 'Unsupported';

/** KustomizeError is a build failure carrying Kustomize's message text. */
export class KustomizeError extends Error {
  override readonly name = 'KustomizeError';
  constructor(
    readonly code: KustomizeErrorCode,
    message: string,
    options?: { cause?: unknown },
  ) {
    super(message, options);
  }
}
