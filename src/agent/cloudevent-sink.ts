// cloudevent-sink: where CloudEvents from NATS meet the EventSources of one cluster (agentless mode). Every event is
// matched against the messagingMatchCriteria of the EventSources the cluster evaluates, and appended to the
// matching EventSources' management-cluster EventReports (`spec.cloudEvents`, as sveltos-agent appends to its
// report; the event manager clears the list once it processed it). The subscriber's failures (Secret missing or
// invalid, NATS unreachable, credentials refused) and invalid regexes are merged into the reports' evaluation
// failure of exactly the EventSources with messagingMatchCriteria — other EventSources are unaffected.
import type { EventSource } from '../api/index.js';
import { Backoff, errorMessage, isConflict, isNotFound, isStatusError, type InformerFactory, type KubeClient } from '../kube/index.js';
import type { Logger } from '../obs/index.js';
import { compileCriteria, encodeCloudEvent, matchesCriteria, type CloudEvent, type CompiledCriteria, type MessagingMatchCriteria } from './cloudevents.js';
import { CloudEventSubscriber } from './nats.js';
import type { AgentMetrics } from './metrics.js';
import type { ReportContent } from './report.js';

/** CLOUDEVENTS_FIELD_MANAGER owns `spec.cloudEvents` on EventReports (the report writer's apply never touches it). */
export const CLOUDEVENTS_FIELD_MANAGER = 'ripple-agent-cloudevents';

/** SourceCriteria is an EventSource's compiled messagingMatchCriteria, or why they do not compile. */
export type SourceCriteria = { criteria: CompiledCriteria; problem?: undefined } | { criteria?: undefined; problem: string };

/** compileSourceCriteria compiles an EventSource's messagingMatchCriteria. */
export function compileSourceCriteria(es: EventSource): SourceCriteria {
  try {
    return { criteria: compileCriteria(es.spec?.messagingMatchCriteria as MessagingMatchCriteria[] | undefined) };
  } catch (e) {
    return { problem: (e as Error).message };
  }
}

/** CloudEventSinkOptions configures a CloudEventSink. */
export interface CloudEventSinkOptions {
  cluster: string;
  /** Informers of the watched cluster (its Secret projectsveltos/sveltos-nats). */
  informers: InformerFactory;
  /** Management-cluster client (the reports). */
  client: KubeClient;
  logger: Logger;
  /** The management-cluster EventReport of an EventSource. */
  reportOf(es: string): { namespace: string; name: string };
  /** Asks the caller to write an EventSource's report again (its failure changed). */
  republish(es: string): void;
  metrics?: AgentMetrics;
  /** Subscriber backoff (tests). */
  backoff?: { initialMs?: number; maxMs?: number };
}

const REPORT = { apiVersion: 'lib.projectsveltos.io/v1beta1', kind: 'EventReport' } as const;

/** CloudEventSink matches, appends and reports; see the file comment. */
export class CloudEventSink {
  private readonly subscriber: CloudEventSubscriber;
  private sources = new Map<string, SourceCriteria>();
  private readonly chains = new Map<string, Promise<void>>();
  private readonly log: Logger;
  private stopped = false;

  constructor(private readonly o: CloudEventSinkOptions) {
    this.log = o.logger.child({ component: 'agent-cloudevents', cluster: o.cluster });
    this.subscriber = new CloudEventSubscriber({
      informers: o.informers,
      cluster: o.cluster,
      logger: o.logger,
      backoff: o.backoff,
      metrics: o.metrics,
      onEvent: (subject, ev) => this.onEvent(subject, ev),
      onState: () => {
        for (const es of this.sources.keys()) o.republish(es);
      },
    });
  }

  start(): void {
    this.subscriber.start();
  }

  async stop(): Promise<void> {
    this.stopped = true;
    await this.subscriber.stop();
  }

  /** setSources sets the EventSources with messagingMatchCriteria; those whose problem changed are republished. */
  setSources(sources: Map<string, SourceCriteria>): void {
    const old = this.sources;
    this.sources = sources;
    for (const [es, s] of sources) if (old.get(es)?.problem !== s.problem || !old.has(es)) this.o.republish(es);
  }

  /** content returns a report content with the CloudEvent failures of its EventSource merged in. */
  content(c: ReportContent): ReportContent {
    const s = this.sources.get(c.eventSourceName);
    if (!s) return c;
    const problems = [c.failureMessage, s.problem, this.subscriber.failure() && `CloudEvents: ${this.subscriber.failure()}`].filter((x): x is string => Boolean(x));
    if (problems.length === 0) return c;
    return { ...c, failureMessage: problems.join('; ') };
  }

  private async onEvent(subject: string, ev: CloudEvent): Promise<void> {
    const targets = [...this.sources].filter(([, s]) => s.criteria && matchesCriteria(s.criteria, subject, ev)).map(([es]) => es);
    if (targets.length === 0) {
      this.log.debug({ subject, id: ev.id, type: ev.type }, 'CloudEvent matches no EventSource');
      this.o.metrics?.cloudEvents.inc({ result: 'unmatched' });
      return;
    }
    const entry = encodeCloudEvent(ev);
    await Promise.all(targets.map((es) => this.serial(es, () => this.append(es, entry))));
    this.o.metrics?.cloudEvents.inc({ result: 'stored' });
    this.log.info({ subject, id: ev.id, source: ev.source, type: ev.type, eventSources: targets }, 'CloudEvent added to EventReports');
  }

  // serial runs appends to one report one after the other (each reads the list it extends).
  private serial(es: string, f: () => Promise<void>): Promise<void> {
    const prev = this.chains.get(es) ?? Promise.resolve();
    const next = prev.catch(() => undefined).then(f);
    this.chains.set(es, next);
    void next.finally(() => {
      if (this.chains.get(es) === next) this.chains.delete(es);
    }).catch(() => undefined);
    return next;
  }

  // append adds one entry to spec.cloudEvents: a JSON-patch append when the list exists (atomic against the event
  // manager clearing it: the path is gone then and the patch fails), else set under a resourceVersion test. A report
  // not written yet (the EventSource was just added) is waited for with a short backoff.
  private async append(es: string, entry: string): Promise<void> {
    const { namespace, name } = this.o.reportOf(es);
    const ref = { ...REPORT, namespace, name };
    const backoff = new Backoff({ initialMs: 50, maxMs: 2000 });
    for (let attempt = 0; ; attempt++) {
      if (this.stopped) throw new Error('agent stopping');
      try {
        const cur = await this.o.client.get<{ metadata: { resourceVersion?: string }; spec?: { cloudEvents?: string[] } }>(ref);
        const ops =
          cur.spec?.cloudEvents && cur.spec.cloudEvents.length > 0
            ? [{ op: 'add', path: '/spec/cloudEvents/-', value: entry }]
            : [
                { op: 'test', path: '/metadata/resourceVersion', value: cur.metadata.resourceVersion },
                { op: 'add', path: '/spec/cloudEvents', value: [entry] },
              ];
        await this.o.client.patch(ref, 'json', ops, { fieldManager: CLOUDEVENTS_FIELD_MANAGER });
        return;
      } catch (e) {
        const retriable = isNotFound(e) || isConflict(e) || (isStatusError(e) && (e.code === 422 || e.code === 500));
        if (!retriable || attempt >= 20) throw new Error(`appending a CloudEvent to EventReport ${namespace}/${name}: ${errorMessage(e)}`, { cause: e });
        await new Promise((r) => setTimeout(r, backoff.next()));
      }
    }
  }
}
