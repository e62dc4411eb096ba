// EventRecorder writes core/v1 Events about objects, the way client-go's recorder does: repeats of the same event
// patch `count`/`lastTimestamp` of the existing Event instead of creating new ones; more than 10 different messages
// for the same object+reason within 10 minutes collapse into one "(combined from similar events)" Event; a token
// bucket per object drops floods. Recording never blocks and never throws: writes are queued and failures logged.
// Go: client-go tools/record (event.go, events_cache.go EventCorrelator, EventAggregator, EventLogger, spam filter)
import { hostname } from 'node:os';
import { silentLogger, type Logger } from '../obs/index.js';
import type { KubeClient } from './client.js';
import { errorMessage, isNotFound } from './errors.js';

/** EventType is the type of a Kubernetes Event. */
export type EventType = 'Normal' | 'Warning';

/** InvolvedObject is the object an Event is about (any Kubernetes object has these fields). */
export interface InvolvedObject {
  apiVersion: string;
  kind: string;
  metadata: { name: string; namespace?: string; uid?: string; resourceVersion?: string };
}

/** EventRecorderOptions configures an EventRecorder. */
export interface EventRecorderOptions {
  /** source.component and reportingComponent (default `ripple`). */
  component?: string;
  /** source.host and reportingInstance (default: the host name). */
  instance?: string;
  logger?: Logger;
  /** Events queued for writing before new ones are dropped (default 1000). */
  maxPending?: number;
  /** Spam filter: events one object may burst (default 25) and the refill period of one token (default 5 min). */
  burst?: number;
  refillMs?: number;
  /** Distinct messages per object+reason within aggregateWindowMs before they are combined (default 10 / 10 min). */
  aggregateThreshold?: number;
  aggregateWindowMs?: number;
  /** Clock (default: real time). */
  now?: () => Date;
}

interface Seen {
  name: string;
  namespace: string;
  count: number;
  firstTimestamp: string;
}

interface Aggregate {
  messages: Set<string>;
  startedAt: number;
}

interface Bucket {
  tokens: number;
  updatedAt: number;
}

const CACHE_SIZE = 4096;
const MAX_MESSAGE = 1024;

/** LruMap is a Map that forgets its least recently used entries beyond a size. */
class LruMap<K, V> {
  private readonly map = new Map<K, V>();
  constructor(private readonly max: number) {}
  get(k: K): V | undefined {
    const v = this.map.get(k);
    if (v !== undefined) {
      this.map.delete(k);
      this.map.set(k, v);
    }
    return v;
  }
  set(k: K, v: V): void {
    this.map.delete(k);
    this.map.set(k, v);
    if (this.map.size > this.max) this.map.delete(this.map.keys().next().value as K);
  }
  delete(k: K): void {
    this.map.delete(k);
  }
}

/** EventRecorder records Kubernetes Events; see the file comment for aggregation and flood control. */
export class EventRecorder {
  private readonly component: string;
  private readonly instance: string;
  private readonly log: Logger;
  private readonly maxPending: number;
  private readonly burst: number;
  private readonly refillMs: number;
  private readonly aggregateThreshold: number;
  private readonly aggregateWindowMs: number;
  private readonly now: () => Date;
  private readonly seen = new LruMap<string, Seen>(CACHE_SIZE);
  private readonly aggregates = new LruMap<string, Aggregate>(CACHE_SIZE);
  private readonly buckets = new LruMap<string, Bucket>(CACHE_SIZE);
  private chain: Promise<void> = Promise.resolve();
  private pending = 0;
  private counter = 0;
  private closed = false;
  /** dropped counts events not written (flood control, full queue, write failures). */
  dropped = 0;

  constructor(
    private readonly client: KubeClient,
    options: EventRecorderOptions = {},
  ) {
    this.component = options.component ?? 'ripple';
    this.instance = options.instance ?? hostname();
    this.log = options.logger ?? silentLogger();
    this.maxPending = options.maxPending ?? 1000;
    this.burst = options.burst ?? 25;
    this.refillMs = options.refillMs ?? 300_000;
    this.aggregateThreshold = options.aggregateThreshold ?? 10;
    this.aggregateWindowMs = options.aggregateWindowMs ?? 600_000;
    this.now = options.now ?? (() => new Date());
  }

  /** event records an Event about obj. It returns at once; the write happens in the background. */
  event(obj: InvolvedObject, type: EventType, reason: string, message: string): void {
    if (this.closed) return;
    try {
      this.record(obj, type, reason, message);
    } catch (err) {
      // Recording must never fail the caller (a malformed object, say): log and move on.
      this.dropped++;
      this.log.warn({ err: errorMessage(err), reason }, 'could not record event');
    }
  }

  private record(obj: InvolvedObject, type: EventType, reason: string, message: string): void {
    const now = this.now();
    const t = now.getTime();
    const meta = obj.metadata ?? ({} as InvolvedObject['metadata']);
    const involved = {
      apiVersion: obj.apiVersion,
      kind: obj.kind,
      name: meta.name,
      ...(meta.namespace ? { namespace: meta.namespace } : {}),
      ...(meta.uid ? { uid: meta.uid } : {}),
      ...(meta.resourceVersion ? { resourceVersion: meta.resourceVersion } : {}),
    };
    const objectId = [obj.apiVersion, obj.kind, meta.namespace ?? '', meta.name, meta.uid ?? ''].join('\u0000');
    // Spam filter: a token bucket per object. Go: events_cache.go EventSourceObjectSpamFilter
    const bucket = this.buckets.get(objectId) ?? { tokens: this.burst, updatedAt: t };
    bucket.tokens = Math.min(this.burst, bucket.tokens + (t - bucket.updatedAt) / this.refillMs);
    bucket.updatedAt = t;
    this.buckets.set(objectId, bucket);
    if (bucket.tokens < 1) {
      this.dropped++;
      return;
    }
    bucket.tokens -= 1;
    // Aggregation: many distinct messages for the same object+type+reason become one combined event.
    // Go: events_cache.go EventAggregate
    const aggKey = [objectId, type, reason].join('\u0001');
    let agg = this.aggregates.get(aggKey);
    if (!agg || t - agg.startedAt > this.aggregateWindowMs) agg = { messages: new Set(), startedAt: t };
    agg.messages.add(message);
    this.aggregates.set(aggKey, agg);
    let key = `${aggKey}\u0002${message}`;
    let text = message;
    if (agg.messages.size >= this.aggregateThreshold) {
      key = aggKey;
      text = `(combined from similar events): ${message}`;
    }
    if (text.length > MAX_MESSAGE) text = text.slice(0, MAX_MESSAGE - 3) + '...';
    const ts = new Date(Math.floor(t / 1000) * 1000).toISOString().replace(/\.\d{3}Z$/, 'Z');
    const prev = this.seen.get(key);
    const namespace = meta.namespace || 'default';
    if (prev) {
      prev.count++;
      const count = prev.count;
      this.enqueue(async () => {
        try {
          await this.client.patch(
            { apiVersion: 'v1', kind: 'Event', namespace: prev.namespace, name: prev.name },
            'merge',
            { count, lastTimestamp: ts, message: text },
          );
        } catch (err) {
          if (!isNotFound(err)) throw err;
          // The Event expired (kube keeps them ~1 h): start a new one.
          const fresh = this.body(involved, namespace, type, reason, text, ts, ts, 1, t);
          this.seen.set(key, { name: fresh.metadata.name, namespace, count: 1, firstTimestamp: ts });
          await this.client.create(fresh);
        }
      });
      return;
    }
    const body = this.body(involved, namespace, type, reason, text, ts, ts, 1, t);
    this.seen.set(key, { name: body.metadata.name, namespace, count: 1, firstTimestamp: ts });
    this.enqueue(async () => {
      await this.client.create(body);
    });
  }

  private body(
    involved: Record<string, string>,
    namespace: string,
    type: EventType,
    reason: string,
    message: string,
    first: string,
    last: string,
    count: number,
    t: number,
  ) {
    // Go: event.go makeEvent — name is <object>.<unix nanos in hex>; a counter keeps same-millisecond names apart.
    const nanos = BigInt(t) * 1_000_000n + BigInt(this.counter++ % 1_000_000);
    return {
      apiVersion: 'v1',
      kind: 'Event',
      metadata: { name: `${involved.name}.${nanos.toString(16)}`, namespace },
      involvedObject: involved,
      reason,
      message,
      source: { component: this.component, host: this.instance },
      firstTimestamp: first,
      lastTimestamp: last,
      count,
      type,
      reportingComponent: this.component,
      reportingInstance: this.instance,
    };
  }

  private enqueue(write: () => Promise<void>): void {
    if (this.pending >= this.maxPending) {
      this.dropped++;
      return;
    }
    this.pending++;
    this.chain = this.chain.then(async () => {
      try {
        await write();
      } catch (err) {
        this.dropped++;
        this.log.warn({ err: errorMessage(err) }, 'writing event failed');
      } finally {
        this.pending--;
      }
    });
  }

  /** flush resolves when every event recorded so far has been written (or has failed). */
  flush(): Promise<void> {
    return this.chain;
  }

  /** close stops accepting events and waits for the queued writes. */
  async close(): Promise<void> {
    this.closed = true;
    await this.chain;
  }
}
