// report-resources.ts: EventReport `spec.resources` as template data. The blob format (`{json}\n---` per object,
// base64 in the API) is the agent's (src/agent encodeEventReportResources / splitEventReportResources): one format,
// one place. The event manager decodes each document into Go values with integral numbers as int64 — as
// Kubernetes' own unstructured decoding does — so `{{ if eq .port 443 }}` works on collected objects.
// Go: event-manager eventtrigger_deployer.go getResources (which decodes float64; see the pinned difference in
// golden.test.ts)
import { parse as parseYaml } from 'yaml';
import { splitEventReportText } from '../agent/index.js';
import { decodeStdBase64 } from '../api/index.js';
import { decodeJSON, isGoMap, TemplateError, type GoMap, type GoValue } from '../gotemplate/index.js';
import { EventError, issue } from './errors.js';

/**
 * decodeResourcesForTemplates decodes `spec.resources` into Go maps for templates (int64 integers, float64 others).
 * JSON documents are what the agent writes; a hand-written YAML document is accepted too. Throws
 * EventError('InvalidReport') naming the document that cannot be read.
 */
export function decodeResourcesForTemplates(resources: string | undefined | null): GoMap[] {
  return decodeResourceDocs(resources).map((d) => d.value);
}

/**
 * decodeBlob decodes `spec.resources`, refusing what is not standard base64 (EventError InvalidReport) by the same
 * check as the schema's `format: byte` (decodeStdBase64: the decoded length tells invalid input, no scan of its own).
 */
export function decodeBlob(resources: string): string {
  const buf = decodeStdBase64(resources);
  if (!buf) {
    throw new EventError([issue('InvalidReport', 'EventReport spec.resources is not base64 (standard alphabet, padded): the agent writes it so; rewrite or delete the report')]);
  }
  return buf.toString('utf8');
}

/**
 * KnownDocuments are the documents of an earlier version of the same report, in order, with their decoded values.
 * Decoded values are shared, never modified: renderers copy them before templates run.
 */
export interface KnownDocuments {
  texts: readonly string[];
  values: readonly GoMap[];
}

/**
 * decodeResourceDocs is decodeResourcesForTemplates keeping each object's document text (its identity for memos).
 * `known`: the documents of an earlier version of the same report. An unchanged document is not decoded again (one
 * Service changing in a report of hundreds decodes one document), and keeps its earlier text object, so later
 * comparisons of it are identity checks. Documents are matched by position first (a report keeps its order; one
 * inserted or removed shifts the rest by one), then by text.
 */
export function decodeResourceDocs(resources: string | undefined | null, known?: KnownDocuments): { doc: string; value: GoMap }[] {
  const texts = known?.texts ?? [];
  let byText: Map<string, number> | undefined;
  let j = 0;
  const text = resources ? decodeBlob(resources) : '';
  return (text === '' ? [] : splitEventReportText(text)).map((doc, i) => {
    let k = -1;
    if (j < texts.length && texts[j] === doc) k = j;
    else if (j + 1 < texts.length && texts[j + 1] === doc) k = j + 1;
    else if (texts.length > 0) {
      if (!byText) byText = new Map(texts.map((t, x) => [t, x]));
      k = byText.get(doc) ?? -1;
    }
    if (k >= 0) {
      j = k + 1;
      return { doc: texts[k], value: known!.values[k] };
    }
    let v: GoValue;
    try {
      v = decodeJSON(doc.startsWith('{') ? doc : JSON.stringify(parseYaml(doc) ?? null), { numbers: 'int64' });
    } catch (e) {
      if (e instanceof TemplateError || (e instanceof Error && e.name === 'YAMLParseError')) {
        throw new EventError([issue('InvalidReport', `EventReport spec.resources document ${i + 1}: ${e.message}`)], { cause: e });
      }
      throw e;
    }
    if (!isGoMap(v)) throw new EventError([issue('InvalidReport', `EventReport spec.resources document ${i + 1} is not an object`)]);
    return { doc, value: v };
  });
}
