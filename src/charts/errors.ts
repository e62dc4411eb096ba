// errors.ts: the one error class of the charts component. Every failure names the chart, the repository or
// registry, and the cause, so a ClusterSummary's status can show it as is.

/** ChartSourceErrorCode is the closed set of ways fetching a chart fails. */
export type ChartSourceErrorCode =
  /** The repository index or the registry has no chart of that name. */
  | 'ChartNotFound'
  /** The chart exists but no version matches the requested version or constraint. */
  | 'VersionNotFound'
  /** The repository or registry could not be reached, or answered with a server error. */
  | 'Unreachable'
  /** Downloaded bytes do not have the digest the index or manifest promised. */
  | 'DigestMismatch'
  /** The server refused the credentials (or asked for credentials that were not given). */
  | 'AuthFailed'
  /** The repository index, the manifest or the chart archive is malformed. */
  | 'BadChart';

/** ChartSourceError is a failure to resolve or download a chart; `code` says which kind. */
export class ChartSourceError extends Error {
  override readonly name = 'ChartSourceError';
  constructor(
    readonly code: ChartSourceErrorCode,
    message: string,
    options?: { cause?: unknown },
  ) {
    super(message, options);
  }
}

/** isChartSourceError tells whether e is a ChartSourceError, optionally of one code. */
export function isChartSourceError(e: unknown, code?: ChartSourceErrorCode): e is ChartSourceError {
  return e instanceof ChartSourceError && (code === undefined || e.code === code);
}
