// Errors of the Kubernetes client: StatusError mirrors apimachinery's StatusError (the Status object an API server
// answers with), UnreachableError is a transport failure (the cluster could not be reached at all),
// KindNotInstalledError is a GVK the server does not serve (discovery), KubeConfigError is a bad kubeconfig.
// Go: k8s.io/apimachinery/pkg/api/errors (errors.go), k8s.io/apimachinery/pkg/api/meta (NoKindMatchError)

/** StatusReason is metav1.StatusReason: why a request failed ("" when the server gave none). */
export type StatusReason =
  | ''
  | 'Unauthorized'
  | 'Forbidden'
  | 'NotFound'
  | 'AlreadyExists'
  | 'Conflict'
  | 'Gone'
  | 'Invalid'
  | 'ServerTimeout'
  | 'StoreReadError'
  | 'Timeout'
  | 'TooManyRequests'
  | 'BadRequest'
  | 'MethodNotAllowed'
  | 'NotAcceptable'
  | 'RequestEntityTooLarge'
  | 'UnsupportedMediaType'
  | 'InternalError'
  | 'Expired'
  | 'ServiceUnavailable'
  | (string & {});

/** StatusCause is one entry of Status.details.causes (a field-level reason). */
export interface StatusCause {
  reason?: string;
  message?: string;
  field?: string;
}

/** StatusDetails is Status.details: which object the failure is about and the field causes. */
export interface StatusDetails {
  name?: string;
  group?: string;
  kind?: string;
  uid?: string;
  causes?: StatusCause[];
  retryAfterSeconds?: number;
}

/** Status is metav1.Status as the API server sends it. */
export interface Status {
  kind: 'Status';
  apiVersion: 'v1';
  metadata: { resourceVersion?: string; continue?: string };
  status: 'Failure' | 'Success';
  message: string;
  reason: StatusReason;
  details?: StatusDetails;
  code: number;
}

/** StatusError is an API error: `code`, `reason`, `details` and `message` are those of the server's Status. */
export class StatusError extends Error {
  override readonly name = 'StatusError';
  readonly code: number;
  readonly reason: StatusReason;
  readonly details: StatusDetails | undefined;
  constructor(
    readonly status: Status,
    options?: { cause?: unknown },
  ) {
    super(status.message, options);
    this.code = status.code;
    this.reason = status.reason;
    this.details = status.details;
  }
}

/** UnreachableReason says why a request never got an HTTP answer. */
export type UnreachableReason = 'ConnectionRefused' | 'ConnectionReset' | 'Timeout' | 'DNS' | 'TLS' | 'Closed' | 'Network';

/** FencedError is thrown instead of sending a write once this replica may no longer hold its leader-election Lease. */
export class FencedError extends Error {
  override readonly name = 'FencedError';
}

/** UnreachableError means the cluster could not be reached (refused, reset, timed out, TLS failure): no answer at all. */
export class UnreachableError extends Error {
  override readonly name = 'UnreachableError';
  constructor(
    readonly reason: UnreachableReason,
    /** The server URL the request went to. */
    readonly server: string,
    message: string,
    options?: { cause?: unknown },
  ) {
    super(message, options);
  }
}

/** KindNotInstalledError means the server does not serve apiVersion/kind (no such group/version, or no such kind). */
export class KindNotInstalledError extends Error {
  override readonly name = 'KindNotInstalledError';
  constructor(
    readonly apiVersion: string,
    readonly kind: string,
    readonly server: string,
  ) {
    super(`no matches for kind "${kind}" in version "${apiVersion}" (is the CRD installed on ${server}?)`);
  }
}

/** KubeConfigErrorCode is the closed set of kubeconfig problems. */
export type KubeConfigErrorCode = 'Unreadable' | 'Malformed' | 'NoContext' | 'NoCluster' | 'NoUser' | 'BadServer' | 'Credentials';

/** KubeConfigError is a kubeconfig that cannot be used: unreadable, malformed, or missing its context/cluster/user. */
export class KubeConfigError extends Error {
  override readonly name = 'KubeConfigError';
  constructor(
    readonly code: KubeConfigErrorCode,
    message: string,
    options?: { cause?: unknown },
  ) {
    super(message, options);
  }
}

/** isStatusError reports whether err is a StatusError, optionally with the given reason. */
export function isStatusError(err: unknown, reason?: StatusReason): err is StatusError {
  return err instanceof StatusError && (reason === undefined || err.reason === reason);
}

// Go: errors.go ReasonForError + the code fallback used by IsNotFound & co when the reason is unknown.
function hasReason(err: unknown, reason: StatusReason, code: number): boolean {
  if (!(err instanceof StatusError)) return false;
  if (err.reason === reason) return true;
  return (err.reason === '' || err.reason === 'Unknown') && err.code === code;
}

/** isNotFound reports a 404 NotFound answer (the object, or its namespace, does not exist). */
export function isNotFound(err: unknown): err is StatusError {
  return hasReason(err, 'NotFound', 404);
}
/** isAlreadyExists reports a 409 AlreadyExists answer to a create. */
export function isAlreadyExists(err: unknown): err is StatusError {
  return hasReason(err, 'AlreadyExists', 409);
}
/** isConflict reports a 409 Conflict answer (stale resourceVersion or apply conflict). */
export function isConflict(err: unknown): err is StatusError {
  return hasReason(err, 'Conflict', 409);
}
/** isGone reports 410 Gone/Expired: a resourceVersion or continue token too old to serve. */
export function isGone(err: unknown): err is StatusError {
  return hasReason(err, 'Gone', 410) || hasReason(err, 'Expired', 410);
}
/** isInvalid reports a 422 Invalid answer (validation failed; see details.causes). */
export function isInvalid(err: unknown): err is StatusError {
  return hasReason(err, 'Invalid', 422);
}
/** isForbidden reports a 403 Forbidden answer (RBAC or admission denied). */
export function isForbidden(err: unknown): err is StatusError {
  return hasReason(err, 'Forbidden', 403);
}
/** isUnauthorized reports a 401 Unauthorized answer (bad or expired credentials). */
export function isUnauthorized(err: unknown): err is StatusError {
  return hasReason(err, 'Unauthorized', 401);
}
/** isBadRequest reports a 400 BadRequest answer. */
export function isBadRequest(err: unknown): err is StatusError {
  return hasReason(err, 'BadRequest', 400);
}
/** isTooManyRequests reports 429 (API priority and fairness or rate limiting). */
export function isTooManyRequests(err: unknown): err is StatusError {
  return hasReason(err, 'TooManyRequests', 429);
}

/**
 * isUnavailable reports that the cluster cannot serve the request right now: it was unreachable (UnreachableError) or
 * answered 503 ServiceUnavailable, 504/ServerTimeout/Timeout or 429. Use isUnreachable to single out "no answer".
 */
export function isUnavailable(err: unknown): boolean {
  if (err instanceof UnreachableError) return true;
  if (!(err instanceof StatusError)) return false;
  return (
    hasReason(err, 'ServiceUnavailable', 503) ||
    hasReason(err, 'ServerTimeout', 504) ||
    err.reason === 'Timeout' ||
    isTooManyRequests(err)
  );
}

/** isUnreachable reports a transport failure: the cluster never answered (refused, reset, timed out, TLS). */
export function isUnreachable(err: unknown): err is UnreachableError {
  return err instanceof UnreachableError;
}

/** isKindNotInstalled reports that the server does not serve the requested apiVersion/kind. */
export function isKindNotInstalled(err: unknown): err is KindNotInstalledError {
  return err instanceof KindNotInstalledError;
}

// Go: errors.go NewGenericServerResponse — the reason and message a client derives from a bare HTTP code.
const CODE_REASONS: Record<number, [StatusReason, string]> = {
  400: ['BadRequest', 'the server rejected our request for an unknown reason'],
  401: ['Unauthorized', 'the server has asked for the client to provide credentials'],
  403: ['Forbidden', 'the server does not allow access to the requested resource'],
  404: ['NotFound', 'the server could not find the requested resource'],
  405: ['MethodNotAllowed', 'the server does not allow this method on the requested resource'],
  406: ['NotAcceptable', 'the server was unable to respond with a content type that the client supports'],
  409: ['Conflict', 'the server reported a conflict'],
  410: ['Gone', 'the server has asked for the client to try again later'],
  413: ['RequestEntityTooLarge', 'the server has rejected the request because the entity is too large'],
  415: ['UnsupportedMediaType', 'the server was unable to respond with a content type that the client supports'],
  422: ['Invalid', 'the server rejected our request due to an error in our request'],
  429: ['TooManyRequests', 'the server has received too many requests and has asked us to try again later'],
  500: ['InternalError', 'an error on the server has prevented the request from succeeding'],
  503: ['ServiceUnavailable', 'the server is currently unable to handle the request'],
  504: ['Timeout', 'the server was unable to return a response in the time allotted, but may still be processing the request'],
};

/** statusFromResponse builds the Status for an error answer: the server's own Status when it sent one, else one derived from the code. */
export function statusFromResponse(code: number, body: string): Status {
  if (body.length > 0 && body[0] === '{') {
    try {
      const parsed = JSON.parse(body) as Partial<Status>;
      if (parsed && parsed.kind === 'Status' && typeof parsed.code === 'number') {
        return {
          kind: 'Status',
          apiVersion: 'v1',
          metadata: parsed.metadata ?? {},
          status: parsed.status === 'Success' ? 'Success' : 'Failure',
          message: parsed.message ?? '',
          reason: parsed.reason ?? '',
          ...(parsed.details ? { details: parsed.details } : {}),
          code: parsed.code || code,
        };
      }
    } catch {
      // Not JSON after all: fall through to the generic Status, keeping the body as the message.
    }
  }
  const [reason, generic] = CODE_REASONS[code] ?? ['', `the server responded with the status code ${code} but did not return more information`];
  const text = body.trim();
  return { kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Failure', message: text ? `${generic} (${text.slice(0, 500)})` : generic, reason, code };
}

/** errorMessage renders any thrown value as one line for logs and status fields. */
export function errorMessage(err: unknown): string {
  return err instanceof Error ? err.message : String(err);
}
