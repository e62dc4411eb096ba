// Status errors shaped exactly like apimachinery's (k8s.io/apimachinery/pkg/api/errors). The JSON key order follows
// the Go struct field order so our bodies are byte-compatible with kube-apiserver's.
import type { FieldError } from './schema/index.js';

/** StatusReason is the closed set of Status reasons the embedded server answers with. */
export type StatusReason =
  | 'NotFound'
  | 'AlreadyExists'
  | 'Conflict'
  | 'Invalid'
  | 'BadRequest'
  | 'MethodNotAllowed'
  | 'NotAcceptable'
  | 'Gone'
  | 'Expired'
  | 'RequestEntityTooLarge'
  | 'UnsupportedMediaType'
  | 'Unauthorized'
  | 'Forbidden'
  | 'InternalError'
  | 'Timeout'
  | 'ServiceUnavailable'
  | 'TooManyRequests';

/** StatusCause is one entry of Status.details.causes. */
export interface StatusCause {
  reason?: string;
  message?: string;
  field?: string;
}

/** StatusDetails is Status.details. */
export interface StatusDetails {
  name?: string;
  group?: string;
  kind?: string;
  uid?: string;
  causes?: StatusCause[];
  retryAfterSeconds?: number;
}

/** Status is metav1.Status as JSON. */
export interface Status {
  kind: 'Status';
  apiVersion: 'v1';
  metadata: Record<string, never>;
  status: 'Failure' | 'Success';
  message?: string;
  reason?: string;
  details?: StatusDetails;
  code: number;
}

/** GroupResource names a resource with its API group ("" for core), e.g. { group: 'apps', resource: 'deployments' }. */
export interface GroupResource {
  group: string;
  resource: string;
}

/** GroupKind names a kind with its API group. */
export interface GroupKind {
  group: string;
  kind: string;
}

// Go: schema.GroupResource.String — "configmaps" or "deployments.apps".
function grString(gr: GroupResource): string {
  return gr.group ? `${gr.resource}.${gr.group}` : gr.resource;
}
function gkString(gk: GroupKind): string {
  return gk.group ? `${gk.kind}.${gk.group}` : gk.kind;
}

/** StatusError is an API error carrying the Status object the server answers with. */
export class StatusError extends Error {
  override readonly name = 'StatusError';
  constructor(
    readonly status: Status,
    options?: { cause?: unknown },
  ) {
    super(status.message ?? status.reason ?? `status ${status.code}`, options);
  }
  get code(): number {
    return this.status.code;
  }
  get reason(): string | undefined {
    return this.status.reason;
  }
}

/** isStatusError tells whether e is a StatusError, optionally with the given reason. */
export function isStatusError(e: unknown, reason?: StatusReason): e is StatusError {
  return e instanceof StatusError && (reason === undefined || e.status.reason === reason);
}

// Builds a Status with keys in Go field order and empty fields omitted (omitempty).
function status(code: number, reason: StatusReason | undefined, message: string, details?: StatusDetails): Status {
  // Key order: kind, apiVersion, metadata, status, message, reason, details, code.
  const out: Record<string, unknown> = { kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Failure' };
  if (message) out.message = message;
  if (reason) out.reason = reason;
  if (details) out.details = orderedDetails(details);
  out.code = code;
  return out as unknown as Status;
}

function orderedDetails(d: StatusDetails): StatusDetails {
  const out: StatusDetails = {};
  if (d.name) out.name = d.name;
  if (d.group) out.group = d.group;
  if (d.kind) out.kind = d.kind;
  if (d.uid) out.uid = d.uid;
  if (d.causes && d.causes.length > 0) {
    out.causes = d.causes.map((c) => {
      const o: StatusCause = {};
      if (c.reason) o.reason = c.reason;
      if (c.message) o.message = c.message;
      if (c.field) o.field = c.field;
      return o;
    });
  }
  if (d.retryAfterSeconds) out.retryAfterSeconds = d.retryAfterSeconds;
  return out;
}

/** notFound: `configmaps "x" not found` (404). Go: errors.NewNotFound */
export function notFound(gr: GroupResource, name: string): StatusError {
  return new StatusError(
    status(404, 'NotFound', `${grString(gr)} ${goQuote(name)} not found`, { name, group: gr.group, kind: gr.resource }),
  );
}

/** pathNotFound is the router's 404 for a path that names no resource. */
export function pathNotFound(): StatusError {
  return new StatusError(status(404, 'NotFound', 'the server could not find the requested resource', {}));
}

/** alreadyExists: `configmaps "x" already exists` (409). Go: errors.NewAlreadyExists */
export function alreadyExists(gr: GroupResource, name: string): StatusError {
  return new StatusError(
    status(409, 'AlreadyExists', `${grString(gr)} ${goQuote(name)} already exists`, { name, group: gr.group, kind: gr.resource }),
  );
}

/** OPTIMISTIC_LOCK_MESSAGE is apimachinery's storage.OptimisticLockErrorMsg. */
export const OPTIMISTIC_LOCK_MESSAGE = 'the object has been modified; please apply your changes to the latest version and try again';

/** conflict: `Operation cannot be fulfilled on configmaps "x": <why>` (409). Go: errors.NewConflict */
export function conflict(gr: GroupResource, name: string, why: string): StatusError {
  return new StatusError(
    status(409, 'Conflict', `Operation cannot be fulfilled on ${grString(gr)} ${goQuote(name)}: ${why}`, {
      name,
      group: gr.group,
      kind: gr.resource,
    }),
  );
}

/** applyConflict is the 409 of a server-side apply blocked by other managers. Go: errors.NewApplyConflict */
export function applyConflict(causes: StatusCause[], message: string): StatusError {
  return new StatusError(status(409, 'Conflict', message, { causes }));
}

/** fieldErrorBody renders a field error without its path. Go: field.Error.ErrorBody */
export function fieldErrorBody(e: FieldError): string {
  let s: string;
  const label = FIELD_ERROR_LABEL[e.type];
  switch (e.type) {
    case 'FieldValueRequired':
    case 'FieldValueForbidden':
    case 'FieldValueTooLong':
      s = label;
      break;
    default:
      s = 'badValue' in e ? `${label}: ${goValue(e.badValue)}` : label;
  }
  if (e.detail) s += `: ${e.detail}`;
  return s;
}

const FIELD_ERROR_LABEL: Record<FieldError['type'], string> = {
  FieldValueRequired: 'Required value',
  FieldValueInvalid: 'Invalid value',
  FieldValueNotSupported: 'Unsupported value',
  FieldValueTypeInvalid: 'Invalid value',
  FieldValueDuplicate: 'Duplicate value',
  FieldValueForbidden: 'Forbidden',
  FieldValueTooLong: 'Too long',
  FieldValueTooMany: 'Too many',
  UnknownField: 'Unknown field',
};

/** fieldErrorString renders `path: body`. Go: field.Error.Error */
export function fieldErrorString(e: FieldError): string {
  return `${e.field}: ${fieldErrorBody(e)}`;
}

/** invalid: `ConfigMap "x" is invalid: <errors>` (422) with one cause per field error. Go: errors.NewInvalid */
export function invalid(gk: GroupKind, name: string, errs: FieldError[]): StatusError {
  const causes = errs.map((e) => ({ reason: e.type, message: fieldErrorBody(e), field: e.field }));
  // Go: utilerrors.aggregate.Error — de-duplicated, bracketed when more than one.
  const seen: string[] = [];
  for (const e of errs) {
    const m = fieldErrorString(e);
    if (!seen.includes(m)) seen.push(m);
  }
  const agg = seen.length === 0 ? '' : seen.length === 1 ? seen[0] : `[${seen.join(', ')}]`;
  const message = agg ? `${gkString(gk)} ${goQuote(name)} is invalid: ${agg}` : `${gkString(gk)} ${goQuote(name)} is invalid`;
  return new StatusError(status(422, 'Invalid', message, { name, group: gk.group, kind: gk.kind, causes }));
}

/** badRequest: 400 with the given message. Go: errors.NewBadRequest */
export function badRequest(message: string): StatusError {
  return new StatusError(status(400, 'BadRequest', message));
}

/** methodNotAllowed is the router's 405 for an HTTP method a path does not serve. */
export function methodNotAllowed(): StatusError {
  return new StatusError(status(405, 'MethodNotAllowed', 'the server does not allow this method on the requested resource', {}));
}

/** notAcceptable is the 406 for an Accept header we cannot satisfy. */
export function notAcceptable(message: string): StatusError {
  return new StatusError(status(406, 'NotAcceptable', message));
}

/** unsupportedMediaType is the 415 for a request body in a content type we do not take. */
export function unsupportedMediaType(message: string): StatusError {
  return new StatusError(status(415, 'UnsupportedMediaType', message));
}

/** gone: 410 Gone. Go: errors.NewGone */
export function gone(message: string): StatusError {
  return new StatusError(status(410, 'Gone', message));
}

/** resourceExpired: 410 with reason Expired (too old resource version, expired continue token). Go: errors.NewResourceExpired */
export function resourceExpired(message: string): StatusError {
  return new StatusError(status(410, 'Expired', message));
}

/** tooOldResourceVersion is the 410 a watch or list gets for a resourceVersion older than the event window. */
export function tooOldResourceVersion(requested: number, oldest: number): StatusError {
  return resourceExpired(`too old resource version: ${requested} (${oldest})`);
}

/** requestEntityTooLarge: `Request entity too large: <message>` (413). Go: errors.NewRequestEntityTooLargeError */
export function requestEntityTooLarge(message: string): StatusError {
  return new StatusError(status(413, 'RequestEntityTooLarge', `Request entity too large: ${message}`));
}

/** unauthorized: 401 with message "Unauthorized", as the authentication filter answers. */
export function unauthorized(): StatusError {
  return new StatusError(status(401, 'Unauthorized', 'Unauthorized'));
}

/** tooManyRequests is a 429 with causes (pod eviction blocked by a disruption budget). Go: errors.NewTooManyRequests */
export function tooManyRequests(message: string, causes: StatusCause[] = []): StatusError {
  return new StatusError(status(429, 'TooManyRequests', message, causes.length > 0 ? { causes } : {}));
}

/** forbidden: `configmaps "x" is forbidden: <why>` (403). Go: errors.NewForbidden */
export function forbidden(gr: GroupResource, name: string, why: string, causes?: StatusCause[]): StatusError {
  const what = grString(gr);
  const message = name ? `${what} ${goQuote(name)} is forbidden: ${why}` : `${what} is forbidden: ${why}`;
  return new StatusError(status(403, 'Forbidden', message, { name, group: gr.group, kind: gr.resource, causes }));
}

/** goQuote quotes a string like Go's %q (strconv.Quote): printable runes kept, control characters escaped. */
export function goQuote(s: string): string {
  let out = '"';
  for (const ch of s) {
    const cp = ch.codePointAt(0)!;
    switch (ch) {
      case '"':
        out += '\\"';
        continue;
      case '\\':
        out += '\\\\';
        continue;
      case '\n':
        out += '\\n';
        continue;
      case '\t':
        out += '\\t';
        continue;
      case '\r':
        out += '\\r';
        continue;
      case '\x07':
        out += '\\a';
        continue;
      case '\b':
        out += '\\b';
        continue;
      case '\f':
        out += '\\f';
        continue;
      case '\v':
        out += '\\v';
        continue;
    }
    if (cp < 0x20 || cp === 0x7f) out += `\\x${cp.toString(16).padStart(2, '0')}`;
    else if (cp >= 0x80 && cp < 0xa0) out += `\\u${cp.toString(16).padStart(4, '0')}`;
    else out += ch;
  }
  return out + '"';
}

/** GoRepr is a bad value already rendered the way Go's %#v prints it (e.g. `[]string{"10.96.0.10"}`). */
export class GoRepr {
  constructor(readonly text: string) {}
}

/** goStringSlice renders a string list like Go's %#v of a []string. */
export function goStringSlice(values: string[]): GoRepr {
  return new GoRepr(`[]string{${values.map(goQuote).join(', ')}}`);
}

// Go's %v of a field error's bad value: strings quoted, scalars plain, everything else as JSON.
function goValue(v: unknown): string {
  if (v instanceof GoRepr) return v.text;
  if (v === null || v === undefined) return 'null';
  if (typeof v === 'string') return goQuote(v);
  if (typeof v === 'number' || typeof v === 'boolean') return String(v);
  return JSON.stringify(v);
}
