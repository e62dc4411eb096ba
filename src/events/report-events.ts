// report-events.ts: what an EventReport says happened — the events a trigger instantiates for. With
// `oneForEvent: true` every collected resource (or, when nothing was collected, every matchingResources entry) and
// every CloudEvent is one event; with `oneForEvent: false` the whole report is one event. Each event has a stable
// identity, which names its generated objects: a resource's identity includes group and kind (Sveltos keys on
// namespace/name only, so a Service and a Deployment named alike collided there).
// Go: event-manager eventtrigger_deployer.go prepareCurrentObjectList, prepareCurrentObjects, getCloudEvents
import { Buffer } from 'node:buffer';
import type { EventReport } from '../api/index.js';
import { decodeJSON, isGoMap, TemplateError, type GoMap, type GoValue } from '../gotemplate/index.js';
import { EventError, issue } from './errors.js';
import { decodeResourceDocs, type KnownDocuments } from './report-resources.js';
import type { MatchedRef } from './template-data.js';

/** ReportEvent is one event of a report: a matched resource, a CloudEvent, or (oneForEvent false) all of them. */
export interface ReportEvent {
  /** Stable identity: `resource:<group>/<kind>/<namespace>/<name>`, `cloudevent:<source>/<subject>` or `all`. */
  id: string;
  /**
   * What the event's rendering depends on besides the trigger, cluster and referenced objects: the collected object's
   * text, or the id for a bare reference. Absent for CloudEvents and `all` (always rendered again).
   */
  key?: string;
  /** The matched resource (per-resource events). */
  ref?: MatchedRef;
  /** The collected object (undefined when the EventSource does not collect resources). */
  resource?: GoMap;
  /** The CloudEvent (CloudEvent events). */
  cloudEvent?: GoMap;
  /** For `all`: every matched resource, collected object and CloudEvent. */
  refs?: MatchedRef[];
  resources?: GoMap[];
  cloudEvents?: GoMap[];
}

/** ReportEvents is the decoded content of an EventReport. */
export interface ReportEvents {
  events: ReportEvent[];
  /** How many resources matched (metrics, status). */
  matching: number;
  /** The collected documents, decoded (to pass as `known` when decoding the report's next version). */
  documents?: KnownDocuments;
}

/** groupOf returns the API group of an apiVersion (`apps/v1` → `apps`, `v1` → ``). */
export function groupOf(apiVersion: string): string {
  const i = apiVersion.indexOf('/');
  return i < 0 ? '' : apiVersion.slice(0, i);
}

/** resourceEventId is the identity of a matched resource: group, kind, namespace and name. */
export function resourceEventId(r: MatchedRef): string {
  return `resource:${groupOf(r.apiVersion)}/${r.kind}/${r.namespace}/${r.name}`;
}

/** cloudEventId is the identity of a CloudEvent: its source and subject (as in Sveltos). */
export function cloudEventId(ce: GoMap): string {
  return `cloudevent:${str(ce.source)}/${str(ce.subject)}`;
}

const str = (v: GoValue): string => (typeof v === 'string' ? v : '');

function refOfObject(o: GoMap): MatchedRef {
  const meta = isGoMap(o.metadata) ? o.metadata : {};
  return { apiVersion: str(o.apiVersion), kind: str(o.kind), namespace: str(meta.namespace), name: str(meta.name) };
}

// A decoded document is never modified (see decodeResourceDocs): its identity is derived once.
const identities = new WeakMap<GoMap, { ref: MatchedRef; id: string }>();
function identityOf(o: GoMap): { ref: MatchedRef; id: string } {
  let r = identities.get(o);
  if (r === undefined) {
    const ref = refOfObject(o);
    r = { ref, id: resourceEventId(ref) };
    identities.set(o, r);
  }
  return r;
}

function decodeCloudEvents(report: EventReport): GoMap[] {
  return (report.spec.cloudEvents ?? []).map((b64, i) => {
    let v: GoValue;
    try {
      v = decodeJSON(Buffer.from(b64, 'base64').toString('utf8'), { numbers: 'int64' });
    } catch (e) {
      if (e instanceof TemplateError) throw new EventError([issue('InvalidReport', `EventReport spec.cloudEvents[${i}]: ${e.message}`)], { cause: e });
      throw e;
    }
    if (!isGoMap(v)) throw new EventError([issue('InvalidReport', `EventReport spec.cloudEvents[${i}] is not a JSON object`)]);
    return v;
  });
}

/**
 * reportEvents decodes an EventReport into the events a trigger instantiates for. Duplicate resources (selectors
 * are concatenated, so an object can be listed twice) count once. Throws EventError('InvalidReport'). `known`: see
 * decodeResourceDocs (documents decoded from an earlier version of the report).
 */
export function reportEvents(report: EventReport, oneForEvent: boolean, known?: KnownDocuments): ReportEvents {
  const docs = decodeResourceDocs(report.spec.resources, known);
  const resources = docs.map((d) => d.value);
  const documents: KnownDocuments = { texts: docs.map((d) => d.doc), values: resources };
  const cloudEvents = decodeCloudEvents(report);
  const matchingRefs: MatchedRef[] = (report.spec.matchingResources ?? []).map((r) => ({
    apiVersion: r.apiVersion ?? '',
    kind: r.kind ?? '',
    namespace: r.namespace ?? '',
    name: r.name ?? '',
  }));
  const matching = Math.max(resources.length, matchingRefs.length);
  if (!oneForEvent) {
    if (matching === 0 && cloudEvents.length === 0) return { events: [], matching, documents };
    const refs = resources.length > 0 ? resources.map(refOfObject) : matchingRefs;
    return { events: [{ id: 'all', refs, resources, cloudEvents }], matching, documents };
  }
  const events: ReportEvent[] = [];
  const seen = new Set<string>();
  const add = (e: ReportEvent) => {
    if (seen.has(e.id)) return;
    seen.add(e.id);
    events.push(e);
  };
  if (resources.length > 0) {
    for (const { doc, value } of docs) {
      const { ref, id } = identityOf(value);
      add({ id, key: doc, ref, resource: value });
    }
  } else {
    for (const ref of matchingRefs) {
      const id = resourceEventId(ref);
      add({ id, key: id, ref });
    }
  }
  // A later CloudEvent with the same source and subject supersedes an earlier one (Create, then Delete).
  const ces = new Map<string, GoMap>();
  for (const ce of cloudEvents) {
    const id = cloudEventId(ce);
    ces.delete(id);
    ces.set(id, ce);
  }
  for (const [id, ce] of ces) add({ id, cloudEvent: ce });
  return { events, matching, documents };
}
