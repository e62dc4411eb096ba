// cloudevents: the pure part of CloudEvents over NATS/JetStream, as sveltos-agent does it — the connection settings
// in Secret projectsveltos/sveltos-nats (key sveltos-nats), CloudEvents decoded from NATS messages (structured and
// binary content modes of the CloudEvents NATS protocol binding), NATS subject wildcards, and EventSource
// `messagingMatchCriteria` (Go RE2 regexes, unanchored). No I/O: nats.ts connects and subscribes.
// Go: sveltos-agent pkg/evaluation/nats_evaluation.go; libsveltos api/v1beta1 eventsource_type.go.

/** NATS_SECRET names the Secret sveltos-agent reads its NATS/JetStream settings from (in the cluster it watches). */
export const NATS_SECRET = { namespace: 'projectsveltos', name: 'sveltos-nats', key: 'sveltos-nats' } as const;

/** JETSTREAM_CONSUMER is the durable consumer sveltos-agent consumes from each configured stream. */
export const JETSTREAM_CONSUMER = 'sveltos-agent';

/** NatsConnectionConfig is one `configuration` section of the Secret (for `nats` or `jetstream`). */
export interface NatsConnectionConfig {
  url: string;
  /** NATS subjects (core NATS, wildcards allowed) or stream names (JetStream). */
  subjects: string[];
  authorization?: {
    user?: { user: string; password: string };
    token?: string;
    clientCert?: { certPem: string; keyPem: string };
    rootCA?: string;
  };
}

/** NatsSettings is the parsed Secret: either section may be absent. */
export interface NatsSettings {
  nats?: NatsConnectionConfig;
  jetstream?: NatsConnectionConfig;
}

/** parseNatsSettings reads the JSON of key `sveltos-nats`; throws an Error naming the bad field. */
export function parseNatsSettings(text: string): NatsSettings {
  let raw: unknown;
  try {
    raw = JSON.parse(text);
  } catch (e) {
    throw new Error(`key ${NATS_SECRET.key} is not valid JSON: ${(e as Error).message}`);
  }
  if (!isObject(raw)) throw new Error(`key ${NATS_SECRET.key} must be a JSON object with "nats" and/or "jetstream"`);
  const out: NatsSettings = {};
  for (const section of ['nats', 'jetstream'] as const) {
    const s = raw[section];
    if (s === undefined || s === null) continue;
    if (!isObject(s) || !isObject(s.configuration)) throw new Error(`${section}.configuration must be an object`);
    out[section] = parseConnection(section, s.configuration);
  }
  for (const k of Object.keys(raw)) {
    if (k !== 'nats' && k !== 'jetstream') throw new Error(`unknown field ${JSON.stringify(k)} (expected "nats" and/or "jetstream")`);
  }
  if (!out.nats && !out.jetstream) throw new Error(`neither "nats" nor "jetstream" is configured`);
  return out;
}

function parseConnection(section: string, c: Record<string, unknown>): NatsConnectionConfig {
  const at = `${section}.configuration`;
  if (typeof c.url !== 'string' || c.url === '') throw new Error(`${at}.url must be a non-empty string (e.g. nats://nats.nats:4222)`);
  const subjects = c.subjects ?? [];
  if (!Array.isArray(subjects) || subjects.some((s) => typeof s !== 'string' || s === '')) throw new Error(`${at}.subjects must be a list of non-empty strings`);
  for (const s of subjects as string[]) {
    const problem = section === 'jetstream' ? streamNameProblem(s) : subjectProblem(s, true);
    if (problem) throw new Error(`${at}.subjects: ${JSON.stringify(s)}: ${problem}`);
  }
  const out: NatsConnectionConfig = { url: c.url, subjects: subjects as string[] };
  const a = c.authorization;
  if (a !== undefined && a !== null) {
    if (!isObject(a)) throw new Error(`${at}.authorization must be an object`);
    const auth: NonNullable<NatsConnectionConfig['authorization']> = {};
    if (a.user !== undefined && a.user !== null) {
      if (!isObject(a.user) || typeof a.user.user !== 'string' || typeof a.user.password !== 'string') {
        throw new Error(`${at}.authorization.user must be {"user": "...", "password": "..."}`);
      }
      auth.user = { user: a.user.user, password: a.user.password };
    }
    if (a.token !== undefined && a.token !== null && a.token !== '') {
      if (typeof a.token !== 'string') throw new Error(`${at}.authorization.token must be a string`);
      auth.token = a.token;
    }
    if (a.clientCert !== undefined && a.clientCert !== null) {
      if (!isObject(a.clientCert) || typeof a.clientCert.certPem !== 'string' || typeof a.clientCert.keyPem !== 'string') {
        throw new Error(`${at}.authorization.clientCert must be {"certPem": "...", "keyPem": "..."}`);
      }
      auth.clientCert = { certPem: a.clientCert.certPem, keyPem: a.clientCert.keyPem };
    }
    if (a.rootCA !== undefined && a.rootCA !== null && a.rootCA !== '') {
      if (typeof a.rootCA !== 'string') throw new Error(`${at}.authorization.rootCA must be a PEM string`);
      auth.rootCA = a.rootCA;
    }
    out.authorization = auth;
  }
  return out;
}

/**
 * subjectProblem says why a NATS subject is invalid ('' when valid): tokens separated by `.`, none empty, no
 * whitespace; with wildcards allowed, `*` matches exactly one token and `>` one or more and only as the last token.
 */
export function subjectProblem(subject: string, wildcards: boolean): string {
  if (subject === '') return 'empty subject';
  if (/\s/.test(subject)) return 'a subject contains no whitespace';
  const tokens = subject.split('.');
  for (let i = 0; i < tokens.length; i++) {
    const t = tokens[i];
    if (t === '') return 'empty token (subjects are tokens separated by single dots)';
    if (t === '*' || t === '>') {
      if (!wildcards) return `wildcard ${t} is not allowed here`;
      if (t === '>' && i !== tokens.length - 1) return 'the wildcard > must be the last token';
      continue;
    }
    if (t.includes('*') || t.includes('>')) return `a wildcard must be a whole token (${JSON.stringify(t)})`;
  }
  return '';
}

function streamNameProblem(s: string): string {
  return /[\s.*>/\\]/.test(s) ? 'a JetStream stream name cannot contain whitespace, ".", "*", ">", "/" or "\\"' : '';
}

/**
 * subjectMatches says whether a message subject (no wildcards) matches a subscription subject as the NATS server
 * routes it: tokens compared one by one, `*` matches any one token, a trailing `>` matches one or more tokens.
 */
export function subjectMatches(pattern: string, subject: string): boolean {
  const p = pattern.split('.');
  const s = subject.split('.');
  for (let i = 0; i < p.length; i++) {
    if (p[i] === '>') return i === p.length - 1 && s.length > i;
    if (i >= s.length) return false;
    if (p[i] !== '*' && p[i] !== s[i]) return false;
  }
  return p.length === s.length;
}

/**
 * firstSubscription returns the index of the first configured subject a message subject matches (-1 for none). With
 * overlapping subscriptions (`orders.*` and `orders.>`) the server delivers a message once per subscription; only the
 * first matching one processes it, so an event is never appended twice.
 */
export function firstSubscription(subjects: readonly string[], subject: string): number {
  return subjects.findIndex((p) => subjectMatches(p, subject));
}

// ---- CloudEvents ------------------------------------------------------------------------------------------------

/** CloudEvent is a decoded CloudEvent in its JSON (structured) form, what EventReport.spec.cloudEvents carries. */
export type CloudEvent = Record<string, unknown> & { specversion: string; id: string; source: string; type: string; subject?: string; datacontenttype?: string };

/** NatsMessage is what decodeCloudEvent needs of a NATS message. */
export interface NatsMessage {
  subject: string;
  data: Uint8Array;
  /** Header values by lowercased name (first value). */
  headers?: ReadonlyMap<string, string>;
}

/** DecodeResult is a CloudEvent, or why the message is not one Sveltos considers. */
export type DecodeResult = { ok: true; event: CloudEvent; mode: 'structured' | 'binary' } | { ok: false; reason: string };

const CONTEXT_ATTRIBUTES = ['specversion', 'id', 'source', 'type', 'datacontenttype', 'dataschema', 'subject', 'time'];

/**
 * decodeCloudEvent turns a NATS message into a CloudEvent. Binary content mode: the attributes are `ce-` headers
 * (`ce-specversion`, `ce-id`, …; `content-type` is datacontenttype) and the body is the data. Structured mode: the
 * body is the JSON envelope. Like sveltos-agent, only events whose datacontenttype contains `application/json` are
 * considered (their data must be JSON); anything else is refused with the reason.
 */
export function decodeCloudEvent(m: NatsMessage): DecodeResult {
  const text = new TextDecoder().decode(m.data);
  const h = m.headers;
  if (h?.has('ce-specversion')) {
    const ev: Record<string, unknown> = {};
    for (const [k, v] of h) {
      if (!k.startsWith('ce-')) continue;
      ev[k.slice(3)] = v;
    }
    const ct = h.get('content-type');
    if (ct !== undefined && ev.datacontenttype === undefined) ev.datacontenttype = ct;
    if (text.trim() !== '') {
      try {
        ev.data = JSON.parse(text);
      } catch (e) {
        return { ok: false, reason: `binary-mode CloudEvent on ${m.subject}: the body is not JSON (${(e as Error).message})` };
      }
    }
    return finish(ev, 'binary', m.subject);
  }
  let body: unknown;
  try {
    body = JSON.parse(text);
  } catch {
    return { ok: false, reason: `message on ${m.subject} is not a CloudEvent: no ce-specversion header and the body is not a JSON envelope` };
  }
  if (!isObject(body)) return { ok: false, reason: `message on ${m.subject} is not a CloudEvent: the body is not a JSON object` };
  if (body.data_base64 !== undefined) return { ok: false, reason: `CloudEvent on ${m.subject} carries data_base64: only application/json data is considered` };
  return finish({ ...body }, 'structured', m.subject);
}

function finish(ev: Record<string, unknown>, mode: 'structured' | 'binary', subject: string): DecodeResult {
  for (const a of ['specversion', 'id', 'source', 'type']) {
    if (typeof ev[a] !== 'string' || ev[a] === '') return { ok: false, reason: `CloudEvent on ${subject} lacks the required attribute ${a}` };
  }
  if (!String(ev.specversion).startsWith('1.')) return { ok: false, reason: `CloudEvent on ${subject}: specversion ${String(ev.specversion)} is not supported (1.0 is)` };
  const ct = ev.datacontenttype;
  if (typeof ct !== 'string' || !ct.includes('application/json')) {
    return { ok: false, reason: `CloudEvent ${String(ev.id)} on ${subject}: datacontenttype ${ct === undefined ? '(absent)' : JSON.stringify(ct)} does not contain application/json; set datacontenttype: application/json` };
  }
  // Context attributes first in the CloudEvents SDK's order, then extensions (sorted), then data.
  const out: Record<string, unknown> = {};
  for (const a of CONTEXT_ATTRIBUTES) if (ev[a] !== undefined) out[a] = ev[a];
  for (const k of Object.keys(ev).sort()) if (!CONTEXT_ATTRIBUTES.includes(k) && k !== 'data') out[k] = ev[k];
  if (ev.data !== undefined) out.data = ev.data;
  return { ok: true, event: out as CloudEvent, mode };
}

/** encodeCloudEvent is the EventReport `spec.cloudEvents` entry for an event: its JSON, base64 (a Go []byte). */
export function encodeCloudEvent(ev: CloudEvent): string {
  return Buffer.from(JSON.stringify(ev)).toString('base64');
}

// ---- messagingMatchCriteria ---------------------------------------------------------------------------------------

/** MessagingMatchCriteria is one entry of EventSource `spec.messagingMatchCriteria`. */
export interface MessagingMatchCriteria {
  subject?: string;
  cloudEventSource?: string;
  cloudEventType?: string;
  cloudEventSubject?: string;
}

const FIELDS = ['subject', 'cloudEventSource', 'cloudEventType', 'cloudEventSubject'] as const;

/** CompiledCriteria is a list of criteria with their regexes compiled. */
export interface CompiledCriteria {
  criteria: { [K in (typeof FIELDS)[number]]?: RegExp }[];
}

/**
 * compileRE2 compiles a Go RE2 regex into a JavaScript RegExp with the same meaning for RE2 syntax: leading flag
 * groups `(?i)`, `(?s)`, `(?m)` become flags, `(?P<name>` named groups are accepted, and what RE2 does not have
 * (lookaround, backreferences) is refused as Go's regexp.Compile refuses it. Throws an Error with the reason.
 */
export function compileRE2(re: string): RegExp {
  let src = re;
  let flags = '';
  const lead = /^\(\?([imsU]+)\)/.exec(src);
  if (lead) {
    if (lead[1].includes('U')) throw new Error('the (?U) flag (ungreedy) is not supported');
    flags = [...new Set(lead[1])].join('');
    src = src.slice(lead[0].length);
  }
  if (/\(\?<?[=!]/.test(src)) throw new Error('lookaround (?=, (?!, (?<=, (?<! is not RE2 syntax');
  if (/(^|[^\\])(\\\\)*\\[1-9]/.test(src)) throw new Error('backreferences (\\1…) are not RE2 syntax');
  if (/\(\?[a-zA-Z]/.test(src.replace(/\(\?P?</g, ''))) throw new Error('inline flags are supported only at the start of the expression');
  src = src.replace(/\(\?P</g, '(?<').replace(/\\z/g, '$(?![\\s\\S])').replace(/\\A/g, '^');
  try {
    return new RegExp(src, flags);
  } catch (e) {
    throw new Error((e as Error).message.replace(/^Invalid regular expression: /, ''));
  }
}

/** compileCriteria compiles every non-empty regex; throws an Error naming the field (`messagingMatchCriteria[i].x`). */
export function compileCriteria(list: readonly MessagingMatchCriteria[] | undefined): CompiledCriteria {
  const out: CompiledCriteria = { criteria: [] };
  (list ?? []).forEach((c, i) => {
    const compiled: CompiledCriteria['criteria'][number] = {};
    for (const f of FIELDS) {
      const v = c[f];
      if (v === undefined || v === '') continue;
      try {
        compiled[f] = compileRE2(v);
      } catch (e) {
        throw new Error(`spec.messagingMatchCriteria[${i}].${f}: invalid regular expression ${JSON.stringify(v)}: ${(e as Error).message}`);
      }
    }
    out.criteria.push(compiled);
  });
  return out;
}

/**
 * matchesCriteria says whether a CloudEvent received on a NATS subject matches an EventSource: any criteria
 * matches when every regex it sets finds a match (unanchored, as Go's MatchString) in the NATS subject, the
 * CloudEvent's source, type and subject (an absent attribute is ""). No criteria at all matches nothing.
 */
export function matchesCriteria(c: CompiledCriteria, natsSubject: string, ev: CloudEvent): boolean {
  const values = { subject: natsSubject, cloudEventSource: ev.source, cloudEventType: ev.type, cloudEventSubject: typeof ev.subject === 'string' ? ev.subject : '' };
  return c.criteria.some((crit) => FIELDS.every((f) => crit[f] === undefined || crit[f]!.test(values[f])));
}

function isObject(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}
