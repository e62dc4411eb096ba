// report-resources.ts: the encoding of EventReport `spec.resources` — every collected object serialised as JSON
// followed by "\n---", concatenated (`{json}\n---{json}\n---`), carried base64 in the API object (a []byte field).
// The agent writes it, the event manager reads it; both use these two functions so the format lives in one place.
// Go: sveltos-agent eventsource_evaluation.go (MarshalJSON of each object + "---"); event-manager getResources.
import { Buffer } from 'node:buffer';
import { decodeJSON, isGoMap, TemplateError, type GoMap, type GoValue } from '../gotemplate/index.js';
import { EventError, issue } from './errors.js';

const SEPARATOR = '\n---';

/** sortedJSON is JSON.stringify with object keys sorted (Go's encoding/json order), so equal objects encode equally. */
export function sortedJSON(v: unknown): string {
  return JSON.stringify(v, (_k, val: unknown) => {
    if (val === null || typeof val !== 'object' || Array.isArray(val)) return val;
    const out: Record<string, unknown> = {};
    for (const k of Object.keys(val).sort()) out[k] = (val as Record<string, unknown>)[k];
    return out;
  });
}

/**
 * encodeEventReportResources serialises collected objects the way sveltos-agent does (each object's JSON, keys
 * sorted, followed by "\n---") and returns the base64 text for `spec.resources`; undefined when there is nothing to
 * collect (Sveltos leaves the field nil then).
 */
export function encodeEventReportResources(objects: readonly unknown[]): string | undefined {
  if (objects.length === 0) return undefined;
  let text = '';
  for (const o of objects) text += sortedJSON(o) + SEPARATOR;
  return Buffer.from(text, 'utf8').toString('base64');
}

/** splitEventReportResources decodes the base64 `spec.resources` and splits it into one JSON text per object. */
export function splitEventReportResources(resources: string | undefined | null): string[] {
  if (resources === undefined || resources === null || resources === '') return [];
  const text = Buffer.from(resources, 'base64').toString('utf8');
  // JSON text never holds a raw newline inside a string, so "\n---" can only be a separator. A separator may also
  // start the text or stand on a line of its own (YAML-style "---\n"), which older writers produced.
  return text
    .split(/\n---|^---/)
    .map((s) => s.trim())
    .filter((s) => s !== '');
}

/**
 * decodeEventReportResources decodes `spec.resources` into Go values for templates: objects become maps, integral
 * JSON numbers int64 (as Kubernetes' own unstructured decoding does — so `eq .port 443` works), others float64.
 * Throws EventError('InvalidReport') naming the document that is not JSON.
 */
export function decodeEventReportResources(resources: string | undefined | null): GoMap[] {
  const docs = splitEventReportResources(resources);
  return docs.map((doc, i) => {
    let v: GoValue;
    try {
      v = decodeJSON(doc, { numbers: 'int64' });
    } catch (e) {
      if (e instanceof TemplateError) {
        throw new EventError([issue('InvalidReport', `EventReport spec.resources document ${i + 1}: ${e.message}`)], { cause: e });
      }
      throw e;
    }
    if (!isGoMap(v)) {
      throw new EventError([issue('InvalidReport', `EventReport spec.resources document ${i + 1} is not a JSON object`)]);
    }
    return v;
  });
}
