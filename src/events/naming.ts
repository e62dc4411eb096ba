// naming.ts: names, labels and annotations of generated objects. Names are deterministic — Sveltos' format
// `sveltos-<20 chars of [0-9a-z]>`, derived from a hash of what the object stands for (trigger, cluster, event,
// source) — so a restart, a crash between two writes or two managers racing never duplicate anything.
import { createHash } from 'node:crypto';
import { EventTriggerLabels, isValidLabelValue, Labels, type ClusterType } from '../api/index.js';

/** RippleAnnotations are Ripple's own keys (Sveltos ignores them). */
export const RippleAnnotations = {
  /** On an EventTrigger: delay withdrawing an event's outputs (Go duration, e.g. `30s`, `2m`) to ride out flapping. */
  withdrawAfter: 'eventtrigger.ripple.dev/withdraw-after',
  /**
   * On an EventTrigger: Sveltos' zero-match debounce, opt-in — withdraw the outputs of a (trigger, cluster) whose
   * report became empty only at the N-th consecutive empty observation (Sveltos hard-codes 3, one per 10 s cycle).
   */
  withdrawAfterEmptyReports: 'eventtrigger.ripple.dev/withdraw-after-empty-reports',
  /** On generated objects: sha256 of the content the event manager applied; equal hash → no write. */
  hash: 'eventtrigger.ripple.dev/hash',
  /** On generated objects: the identity of the event they were generated for (see report-events.ts). */
  event: 'eventtrigger.ripple.dev/event',
  /** On generated ClusterProfiles: the oneForEvent value they were generated with (immutability check). */
  oneForEvent: 'eventtrigger.ripple.dev/one-for-event',
  /** On ConfigMaps/Secrets instantiated without the instantiate annotation because their templates use event data. */
  legacyInstantiated: 'eventtrigger.ripple.dev/instantiated-for-compatibility',
} as const;

const ALPHABET = '0123456789abcdefghijklmnopqrstuvwxyz';
/** NAME_PREFIX is the prefix of generated names, as in Sveltos. */
export const NAME_PREFIX = 'sveltos-';

/** generatedName returns `sveltos-` + 20 characters of [0-9a-z] derived from the parts (sha256). */
export function generatedName(parts: readonly string[]): string {
  const digest = createHash('sha256').update(JSON.stringify(parts)).digest();
  let out = NAME_PREFIX;
  // 20 base-36 digits from 20 bytes; the small modulo bias is irrelevant for names (36^20 ≈ 1.3e31).
  for (let i = 0; i < 20; i++) out += ALPHABET[digest[i] % 36];
  return out;
}

/** sortedJSON is JSON.stringify with object keys sorted, so equal objects serialise equally. */
export function sortedJSON(v: unknown): string {
  return JSON.stringify(v, (_k, val: unknown) => {
    if (val === null || typeof val !== 'object' || Array.isArray(val)) return val;
    const out: Record<string, unknown> = {};
    for (const k of Object.keys(val).sort()) out[k] = (val as Record<string, unknown>)[k];
    return out;
  });
}

/** contentHash is the sha256 (hex) of the key-sorted JSON of a value. */
export function contentHash(v: unknown): string {
  return createHash('sha256').update(sortedJSON(v)).digest('hex');
}

/** ClusterIdentity names the source cluster of an instantiation. */
export interface ClusterIdentity {
  type: ClusterType;
  namespace: string;
  name: string;
}

/** baseLabels are the labels every object generated for (trigger, cluster) carries; they select them for cleanup. */
export function baseLabels(triggerName: string, cluster: ClusterIdentity): Record<string, string> {
  return {
    [EventTriggerLabels.eventTriggerName]: triggerName,
    [EventTriggerLabels.clusterNamespace]: cluster.namespace,
    [EventTriggerLabels.clusterName]: cluster.name,
    [EventTriggerLabels.clusterType]: cluster.type,
  };
}

/** ownerOfLabels reads (trigger name, cluster) back from a generated object's labels; undefined if not ours. */
export function ownerOfLabels(labels: Readonly<Record<string, string>> | undefined): { trigger: string; cluster: ClusterIdentity } | undefined {
  if (!labels) return undefined;
  const trigger = labels[EventTriggerLabels.eventTriggerName];
  const type = labels[EventTriggerLabels.clusterType];
  const namespace = labels[EventTriggerLabels.clusterNamespace];
  const name = labels[EventTriggerLabels.clusterName];
  if (!trigger || !name || namespace === undefined || (type !== 'Capi' && type !== 'Sveltos')) return undefined;
  return { trigger, cluster: { type, namespace, name } };
}

/** invalidLabelValues lists `key: why` for label values Kubernetes would reject. */
export function invalidLabelValues(labels: Readonly<Record<string, string>>): string[] {
  const out: string[] = [];
  for (const [k, v] of Object.entries(labels)) {
    const why = isValidLabelValue(v);
    if (why.length > 0) out.push(`label ${k}=${JSON.stringify(v)}: ${why.join('; ')}`);
  }
  return out;
}

/** serviceAccountLabels copies the tenant labels of the trigger (Sveltos multi-tenancy) onto generated objects. */
export function serviceAccountLabels(triggerLabels: Readonly<Record<string, string>> | undefined): Record<string, string> {
  const out: Record<string, string> = {};
  for (const k of [Labels.serviceAccountName, Labels.serviceAccountNamespace]) {
    const v = triggerLabels?.[k];
    if (v !== undefined) out[k] = v;
  }
  return out;
}

/**
 * eventLabels are the per-event labels Sveltos adds: resource name/namespace for a resource, CloudEvent source and
 * subject (with `/` replaced by `-`) for a CloudEvent. Values Kubernetes would reject are left out — the identity
 * lives in the RippleAnnotations.event annotation — where Sveltos would fail to write the object.
 */
export function eventLabels(e: { ref?: { namespace: string; name: string }; cloudEvent?: { source?: unknown; subject?: unknown } }): Record<string, string> {
  const out: Record<string, string> = {};
  const put = (k: string, v: string) => {
    if (isValidLabelValue(v).length === 0) out[k] = v;
  };
  if (e.ref) {
    put(EventTriggerLabels.resourceName, e.ref.name);
    if (e.ref.namespace !== '') put(EventTriggerLabels.resourceNamespace, e.ref.namespace);
  } else if (e.cloudEvent) {
    put(EventTriggerLabels.ceSource, String(e.cloudEvent.source ?? '').replaceAll('/', '-'));
    put(EventTriggerLabels.ceSubject, String(e.cloudEvent.subject ?? '').replaceAll('/', '-'));
  }
  return out;
}

/** parseGoDuration parses a Go duration (`300ms`, `30s`, `1m30s`, `2h`) into milliseconds; undefined if invalid. */
export function parseGoDuration(s: string): number | undefined {
  const text = s.trim();
  if (text === '0') return 0;
  const re = /(\d+(?:\.\d*)?|\.\d+)(ns|us|µs|ms|s|m|h)/gy;
  const unit: Record<string, number> = { ns: 1e-6, us: 1e-3, µs: 1e-3, ms: 1, s: 1000, m: 60_000, h: 3_600_000 };
  let total = 0;
  let pos = 0;
  for (let m = re.exec(text); m !== null; m = re.exec(text)) {
    total += Number(m[1]) * unit[m[2]];
    pos = re.lastIndex;
  }
  if (pos === 0 || pos !== text.length) return undefined;
  return total;
}
