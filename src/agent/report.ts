// report: what an EventSource evaluation becomes — the EventReport content (matchingResources, the `resources`
// blob encoded exactly like Sveltos, the evaluation failure) and the two EventReport objects built from it: the
// managed-cluster copy (namespace projectsveltos, named after the EventSource) and the management-cluster copy
// (cluster namespace, `<clustertype lowercased>--<eventsource>--<cluster>`, Sveltos' labels). Pure.
// Go: sveltos-agent pkg/evaluation/eventsource_evaluation.go (getEventMatchingResources, marshalSliceOfUnstructured,
// getEventReport, sendEventReport); libsveltos api/v1beta1 eventreport_type.go (GetEventReportName/Labels).
import { parse as parseYaml } from 'yaml';
import { Labels, SVELTOS_NAMESPACE, eventReportName, type ClusterType, type ObjectReference } from '../api/index.js';
import { goJSONMarshal } from './go-json.js';

/** EVENT_REPORT is the apiVersion/kind the agent writes EventReports with. */
export const EVENT_REPORT = { apiVersion: 'lib.projectsveltos.io/v1beta1', kind: 'EventReport' } as const;

/**
 * EVALUATION_FAILURE_ANNOTATION carries the agent's evaluation failure on the management-cluster EventReport.
 * `status.failureMessage` there belongs to the event manager (ClusterProfile generation errors, cleared on
 * success), so the agent does not write it: two writers would erase each other's message.
 */
export const EVALUATION_FAILURE_ANNOTATION = 'agent.ripple.dev/evaluation-failure';

/** MANAGED_FAILURE_FIELD documents where the managed-cluster copy keeps the failure: `status.failureMessage`. */
export const MANAGED_FAILURE_FIELD = 'status.failureMessage';

/** ReportObject is an EventReport as the agent reads and writes it (plain JSON). */
export interface ReportObject {
  apiVersion: string;
  kind: string;
  metadata: {
    name: string;
    namespace: string;
    labels?: Record<string, string>;
    annotations?: Record<string, string>;
    uid?: string;
    resourceVersion?: string;
    deletionTimestamp?: string;
    [k: string]: unknown;
  };
  spec: {
    clusterNamespace: string;
    clusterName: string;
    clusterType: string;
    eventSourceName: string;
    matchingResources?: ObjectReference[];
    resources?: string;
    cloudEvents?: string[];
  };
  status?: { phase?: string; failureMessage?: string };
}

/** ReportContent is the outcome of evaluating one EventSource in one cluster: what both report copies carry. */
export interface ReportContent {
  eventSourceName: string;
  /** matchingResources in selection order (selector order, then namespace/name); duplicates kept as Sveltos does. */
  matchingResources: ObjectReference[];
  /** resources: base64 of the Sveltos blob; only with collectResources and at least one match. */
  resources?: string;
  /**
   * failureMessage is set when evaluation failed for some object or script: the report then keeps the last known
   * outcome for what could not be evaluated (never an empty report because a script broke).
   */
  failureMessage?: string;
}

/** ClusterIdentity names the cluster a report is about. */
export interface ClusterIdentity {
  clusterNamespace: string;
  clusterName: string;
  clusterType: ClusterType;
}

/** objectReferenceOf is the matchingResources entry of an object (apiVersion, kind, namespace, name; empty omitted). */
export function objectReferenceOf(obj: { apiVersion?: unknown; kind?: unknown; metadata?: { namespace?: unknown; name?: unknown } }): ObjectReference {
  const ref: ObjectReference = {};
  if (typeof obj.apiVersion === 'string' && obj.apiVersion) ref.apiVersion = obj.apiVersion;
  if (typeof obj.kind === 'string' && obj.kind) ref.kind = obj.kind;
  const ns = obj.metadata?.namespace;
  if (typeof ns === 'string' && ns) ref.namespace = ns;
  const name = obj.metadata?.name;
  if (typeof name === 'string' && name) ref.name = name;
  return ref;
}

/** encodeResourceDocument is one object as Sveltos writes it into the blob: Go JSON, "\n", then "---". */
export function encodeResourceDocument(obj: unknown): string {
  return goJSONMarshal(obj) + '\n---';
}

/**
 * encodeEventReportResources encodes objects like sveltos-agent's marshalSliceOfUnstructured — each object's
 * unstructured.MarshalJSON (Go JSON + "\n") followed by "---", concatenated — and returns it base64-encoded, as
 * the []byte field appears in the API. No objects → undefined (Sveltos leaves the field nil).
 */
export function encodeEventReportResources(objects: readonly unknown[]): string | undefined {
  if (objects.length === 0) return undefined;
  return Buffer.from(objects.map(encodeResourceDocument).join(''), 'utf8').toString('base64');
}

/** joinEncodedDocuments base64-encodes already encoded documents (encodeResourceDocument outputs). */
export function joinEncodedDocuments(docs: readonly string[]): string | undefined {
  if (docs.length === 0) return undefined;
  return Buffer.from(docs.join(''), 'utf8').toString('base64');
}

/**
 * splitEventReportResources returns the documents of a `spec.resources` value (base64, as in the API) as text:
 * JSON documents as the agent writes them; YAML documents separated by `---` lines are accepted too.
 */
export function splitEventReportResources(resources: string | undefined | null): string[] {
  if (!resources) return [];
  return splitEventReportText(Buffer.from(resources, 'base64').toString('utf8'));
}

/** splitEventReportText is splitEventReportResources on the decoded text of the blob. */
export function splitEventReportText(text: string): string[] {
  // Sveltos' blob is `{json}\n---{json}\n---`: JSON text never holds a raw newline, so "\n---" only separates.
  // YAML input (hand-written reports) uses `---` on its own line; both split the same way here: at every `---` at the
  // start or after a newline, with trailing blanks, followed by a newline, `{` or the end (what
  // `split(/(?:^|\n)---[ \t]*(?=\n|\{|$)/)` does, found with indexOf: blobs run to hundreds of KB).
  const out: string[] = [];
  const push = (from: number, to: number) => {
    const d = text.slice(from, to).trim();
    if (d !== '') out.push(d);
  };
  let p = 0;
  for (let idx = text.indexOf('---'); idx >= 0; idx = text.indexOf('---', idx + 1)) {
    const m = idx === 0 ? 0 : text.charCodeAt(idx - 1) === 10 /* \n */ && idx - 1 >= p ? idx - 1 : -1;
    if (m < 0) continue;
    let e = idx + 3;
    while (e < text.length && (text.charCodeAt(e) === 32 || text.charCodeAt(e) === 9)) e++;
    if (e < text.length && text.charCodeAt(e) !== 10 && text.charCodeAt(e) !== 123 /* { */) continue;
    push(p, m);
    p = e;
    idx = e - 1;
  }
  push(p, text.length);
  return out;
}

/** ResourceDecodeError says which document of a `spec.resources` blob cannot be parsed. */
export class ResourceDecodeError extends Error {
  override readonly name = 'ResourceDecodeError';
  constructor(
    readonly index: number,
    message: string,
    options?: { cause?: unknown },
  ) {
    super(message, options);
  }
}

/**
 * decodeEventReportResources parses the documents of `spec.resources` into objects (JSON numbers become JS
 * numbers; callers needing Go's int64/float64 distinction parse splitEventReportResources' texts themselves).
 * Throws ResourceDecodeError naming the document that does not parse.
 */
export function decodeEventReportResources(resources: string | undefined | null): Record<string, unknown>[] {
  return splitEventReportResources(resources).map((doc, index) => {
    let v: unknown;
    try {
      v = doc.startsWith('{') ? JSON.parse(doc) : parseYaml(doc);
    } catch (err) {
      throw new ResourceDecodeError(index, `spec.resources document ${index}: ${(err as Error).message}`, { cause: err });
    }
    if (v === null || typeof v !== 'object' || Array.isArray(v)) throw new ResourceDecodeError(index, `spec.resources document ${index} is not an object`);
    return v as Record<string, unknown>;
  });
}

/** managementReportName is the management-cluster EventReport name (libsveltos GetEventReportName). */
export function managementReportName(cluster: ClusterIdentity, eventSourceName: string): string {
  return eventReportName(cluster.clusterType, eventSourceName, cluster.clusterName);
}

/** managementReportLabels are libsveltos GetEventReportLabels: eventsource name, cluster name, lowercased type. */
export function managementReportLabels(cluster: ClusterIdentity, eventSourceName: string): Record<string, string> {
  return {
    [Labels.eventSourceName]: eventSourceName,
    [Labels.eventReportClusterName]: cluster.clusterName,
    [Labels.eventReportClusterType]: cluster.clusterType.toLowerCase(),
  };
}

function specOf(content: ReportContent, cluster: ClusterIdentity | undefined): ReportObject['spec'] {
  const spec: ReportObject['spec'] = {
    clusterNamespace: cluster?.clusterNamespace ?? '',
    clusterName: cluster?.clusterName ?? '',
    clusterType: cluster?.clusterType ?? '',
    eventSourceName: content.eventSourceName,
    matchingResources: content.matchingResources,
  };
  if (content.resources) spec.resources = content.resources;
  return spec;
}

/** buildManagementReport is the management-cluster EventReport for content evaluated in cluster. */
export function buildManagementReport(cluster: ClusterIdentity, content: ReportContent): ReportObject {
  const metadata: ReportObject['metadata'] = {
    name: managementReportName(cluster, content.eventSourceName),
    namespace: cluster.clusterNamespace,
    labels: managementReportLabels(cluster, content.eventSourceName),
  };
  if (content.failureMessage) metadata.annotations = { [EVALUATION_FAILURE_ANNOTATION]: content.failureMessage };
  return { ...EVENT_REPORT, metadata, spec: specOf(content, cluster) };
}

/**
 * buildManagedReport is the managed-cluster EventReport (namespace projectsveltos, named after the EventSource,
 * cluster fields empty as sveltos-agent writes them); an evaluation failure goes to status.failureMessage.
 */
export function buildManagedReport(content: ReportContent): ReportObject {
  const r: ReportObject = {
    ...EVENT_REPORT,
    metadata: { name: content.eventSourceName, namespace: SVELTOS_NAMESPACE, labels: { [Labels.eventSourceName]: content.eventSourceName } },
    spec: specOf(content, undefined),
  };
  // The agent owns the managed copy's status: a present `status` tells the writer to keep failureMessage in line.
  r.status = content.failureMessage ? { failureMessage: content.failureMessage } : {};
  return r;
}

/**
 * contentFromManagedReport reads the content back from a managed-cluster copy (what the management-side collector
 * delivers in mode "collect").
 */
export function contentFromManagedReport(r: Pick<ReportObject, 'spec' | 'status' | 'metadata'>): ReportContent {
  const c: ReportContent = {
    eventSourceName: r.spec?.eventSourceName || r.metadata.name,
    matchingResources: Array.isArray(r.spec?.matchingResources) ? r.spec.matchingResources : [],
  };
  if (r.spec?.resources) c.resources = r.spec.resources;
  if (r.status?.failureMessage) c.failureMessage = r.status.failureMessage;
  return c;
}

/**
 * sameContent says whether two contents are equal (what the agent would write for them is the same). Comparing the
 * strings costs a memory compare (hashing them, as before, cost a pass of SHA-256 over the collected resources).
 */
export function sameContent(a: ReportContent, b: ReportContent): boolean {
  if (a === b) return true;
  if (a.eventSourceName !== b.eventSourceName || a.resources !== b.resources || a.failureMessage !== b.failureMessage) return false;
  const ra = a.matchingResources;
  const rb = b.matchingResources;
  if (ra.length !== rb.length) return false;
  for (let i = 0; i < ra.length; i++) {
    const x = ra[i]!;
    const y = rb[i]!;
    if (x === y) continue;
    const kx = Object.keys(x) as (keyof ObjectReference)[];
    if (kx.length !== Object.keys(y).length) return false;
    for (const k of kx) if (x[k] !== y[k]) return false;
  }
  return true;
}
