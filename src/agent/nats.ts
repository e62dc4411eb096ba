// nats: the agent's CloudEvent subscriber for one cluster, as sveltos-agent's NATS evaluation — reads Secret
// projectsveltos/sveltos-nats (key sveltos-nats) in the cluster it watches, connects to NATS (core subscriptions on
// the configured subjects) and/or JetStream (durable consumer `sveltos-agent` of each configured stream), decodes
// CloudEvents (cloudevents.ts) and hands them to the caller. A change of the Secret reconnects with the new settings.
//
// Failures are state, not crashes: a missing or invalid Secret, an unreachable server, bad credentials, a missing
// stream or consumer become the subscriber's failure (the caller puts it into the EventReports of the EventSources
// with messagingMatchCriteria, and so into the EventTrigger's status, plus Events). Each connection retries with
// capped exponential backoff; nothing polls while connected. JetStream messages are acked once the caller stored
// them and nak'ed with a 1 s delay otherwise (as sveltos-agent), so nothing is lost while the management cluster
// is unreachable.
import { connect, headers, type ConnectionOptions, type Msg, type NatsConnection } from '@nats-io/transport-node';
import { jetstream, type JsMsg } from '@nats-io/jetstream';
import { Backoff, errorMessage, type InformerFactory, type KubeObject, type Subscription } from '../kube/index.js';
import type { Logger } from '../obs/index.js';
import type { AgentMetrics } from './metrics.js';
import {
  JETSTREAM_CONSUMER,
  NATS_SECRET,
  decodeCloudEvent,
  firstSubscription,
  parseNatsSettings,
  type CloudEvent,
  type NatsConnectionConfig,
  type NatsSettings,
} from './cloudevents.js';

/** CloudEventSubscriberOptions configures a CloudEventSubscriber. */
export interface CloudEventSubscriberOptions {
  /** Informers of the cluster whose Secret projectsveltos/sveltos-nats holds the settings. */
  informers: InformerFactory;
  /** Cluster key (logs). */
  cluster: string;
  logger: Logger;
  /** Called for every CloudEvent; JetStream messages are acked when it resolves, nak'ed when it rejects. */
  onEvent(natsSubject: string, event: CloudEvent): Promise<void>;
  /** Called when the failure changes (undefined: connected as configured). */
  onState(failure: string | undefined): void;
  /** Reconnect backoff (default 500 ms doubling up to 30 s). */
  backoff?: { initialMs?: number; maxMs?: number };
  /** Connect timeout, ms (default 5 s). */
  connectTimeoutMs?: number;
  metrics?: AgentMetrics;
}

type Section = 'nats' | 'jetstream';

interface Link {
  section: Section;
  config: NatsConnectionConfig;
  nc?: NatsConnection;
  backoff: Backoff;
  timer?: NodeJS.Timeout;
  wake?: () => void;
  closed: boolean;
}

/** CloudEventSubscriber follows the Secret and keeps one connection per configured section. */
export class CloudEventSubscriber {
  private readonly log: Logger;
  private sub: Subscription<KubeObject> | undefined;
  private settingsText: string | undefined;
  private links: Link[] = [];
  private readonly failures = new Map<string, string>();
  /** Sections connecting for the first time since the settings changed: not a failure (yet), but not subscribed. */
  private readonly pending = new Set<Section>();
  private lastState: string | undefined | null = null;
  private stopped = false;

  constructor(private readonly o: CloudEventSubscriberOptions) {
    this.log = o.logger.child({ component: 'agent-cloudevents', cluster: o.cluster });
  }

  start(): void {
    const onChange = () => this.onSecret();
    this.sub = this.o.informers.subscribe<KubeObject>(
      { apiVersion: 'v1', kind: 'Secret', namespace: NATS_SECRET.namespace },
      { onAdd: onChange, onUpdate: onChange, onDelete: onChange },
    );
    void this.sub.informer.waitForSync({ timeoutMs: 60_000 }).then(
      () => this.onSecret(),
      () => undefined,
    );
  }

  /** failure is the current failure ('' pieces joined), undefined when every configured connection is up. */
  failure(): string | undefined {
    return this.failures.size === 0 ? undefined : [...this.failures.values()].join('; ');
  }

  async stop(): Promise<void> {
    this.stopped = true;
    await this.closeLinks();
    await this.sub?.unsubscribe();
    for (const section of ['nats', 'jetstream']) this.o.metrics?.natsDown.remove({ cluster: this.o.cluster, section });
  }

  private onSecret(): void {
    if (this.stopped || !this.sub?.informer.hasSynced()) return;
    const secret = this.sub.informer.cache.get(NATS_SECRET.namespace, NATS_SECRET.name) as (KubeObject & { data?: Record<string, string>; stringData?: Record<string, string> }) | undefined;
    const where = `Secret ${NATS_SECRET.namespace}/${NATS_SECRET.name}`;
    let text: string | undefined;
    let problem: string | undefined;
    if (!secret) problem = `${where} does not exist in the cluster: create it with key ${NATS_SECRET.key} holding the NATS/JetStream settings as JSON, e.g. {"nats":{"configuration":{"url":"nats://nats.nats:4222","subjects":["orders.>"]}}} (a "jetstream" section takes stream names)`;
    else if (secret.data?.[NATS_SECRET.key] === undefined) problem = `${where} has no key ${NATS_SECRET.key}`;
    else text = Buffer.from(secret.data[NATS_SECRET.key], 'base64').toString('utf8');
    if (text !== undefined && text === this.settingsText) return;
    this.settingsText = text;
    let settings: NatsSettings | undefined;
    if (text !== undefined) {
      try {
        settings = parseNatsSettings(text);
      } catch (e) {
        problem = `${where}: ${(e as Error).message}`;
      }
    }
    void this.closeLinks().then(() => {
      if (this.stopped) return;
      this.failures.clear();
      this.pending.clear();
      if (problem !== undefined) this.failures.set('secret', problem);
      if (!settings) {
        this.emit();
        return;
      }
      this.log.info({ nats: settings.nats?.url, jetstream: settings.jetstream?.url }, 'CloudEvent settings loaded, connecting');
      for (const section of ['nats', 'jetstream'] as const) {
        const config = settings[section];
        if (!config) continue;
        const link: Link = { section, config, backoff: new Backoff({ initialMs: this.o.backoff?.initialMs ?? 500, maxMs: this.o.backoff?.maxMs ?? 30_000 }), closed: false };
        this.links.push(link);
        // Not subscribed yet (core NATS keeps nothing for absent subscribers): the metric says so; it is not a failure.
        this.pending.add(section);
        void this.run(link);
      }
      this.emit();
    });
  }

  private emit(): void {
    for (const section of ['nats', 'jetstream'] as const) {
      const labels = { cluster: this.o.cluster, section };
      if (this.links.some((l) => l.section === section)) this.o.metrics?.natsDown.set(labels, this.failures.has(section) || this.pending.has(section) ? 1 : 0);
      else this.o.metrics?.natsDown.remove(labels);
    }
    const f = this.failure();
    if (f === this.lastState) return;
    this.lastState = f;
    this.o.onState(f);
  }

  private async closeLinks(): Promise<void> {
    const links = this.links;
    this.links = [];
    for (const l of links) {
      l.closed = true;
      if (l.timer) clearTimeout(l.timer);
      l.wake?.();
    }
    await Promise.all(links.map((l) => l.nc?.close().catch(() => undefined)));
  }

  // run keeps one section connected: connect, subscribe, wait for the connection to close, back off, repeat.
  private async run(l: Link): Promise<void> {
    const key = l.section;
    while (!l.closed && !this.stopped) {
      let failure: string;
      try {
        const nc = await connect(connectionOptions(l.config, this.o.connectTimeoutMs ?? 5000));
        l.nc = nc;
        if (l.closed) {
          await nc.close();
          return;
        }
        if (l.section === 'nats') this.subscribeCore(nc, l.config.subjects);
        else await this.consumeStreams(nc, l.config.subjects);
        l.backoff.reset();
        this.failures.delete(key);
        this.pending.delete(key);
        this.emit();
        this.log.info({ section: l.section, url: l.config.url, subjects: l.config.subjects }, 'subscribed to CloudEvents');
        const err = await nc.closed();
        if (l.closed || this.stopped) return;
        failure = `connection lost${err ? `: ${errorMessage(err)}` : ''}`;
      } catch (e) {
        await l.nc?.close().catch(() => undefined);
        failure = errorMessage(e);
      }
      l.nc = undefined;
      if (l.closed || this.stopped) return;
      const delay = l.backoff.next();
      const message = `${l.section === 'nats' ? 'NATS' : 'JetStream'} ${l.config.url}: ${explain(failure)}`;
      this.log.warn({ section: l.section, url: l.config.url, retryInMs: delay }, message);
      this.failures.set(key, message);
      this.pending.delete(key);
      this.emit();
      await new Promise<void>((resolve) => {
        l.wake = resolve;
        l.timer = setTimeout(resolve, delay);
        l.timer.unref?.();
      });
    }
  }

  private subscribeCore(nc: NatsConnection, subjects: readonly string[]): void {
    subjects.forEach((s, i) => {
      nc.subscribe(s, {
        callback: (err, msg) => {
          if (err) {
            this.log.warn({ subject: s }, `NATS subscription ${s}: ${errorMessage(err)}`);
            return;
          }
          // Overlapping subscriptions deliver a message once each: the first matching subject handles it.
          if (firstSubscription(subjects, msg.subject) !== i) return;
          void this.handle(msg).catch((e) => this.log.warn({ subject: msg.subject }, `CloudEvent not stored: ${errorMessage(e)}`));
        },
      });
    });
  }

  private async consumeStreams(nc: NatsConnection, streams: readonly string[]): Promise<void> {
    const js = jetstream(nc);
    for (const stream of streams) {
      let consumer;
      try {
        consumer = await js.consumers.get(stream, JETSTREAM_CONSUMER);
        await consumer.info();
      } catch (e) {
        throw new Error(`stream ${stream}, durable consumer ${JETSTREAM_CONSUMER}: ${errorMessage(e)} (create the stream and a pull consumer named ${JETSTREAM_CONSUMER})`, { cause: e });
      }
      const messages = await consumer.consume();
      void (async () => {
        for await (const m of messages) {
          try {
            await this.handle(m);
            m.ack();
          } catch (e) {
            this.log.warn({ stream, subject: m.subject }, `CloudEvent not stored, redelivery in 1 s: ${errorMessage(e)}`);
            m.nak(1000);
          }
        }
      })().catch((e) => this.log.warn({ stream }, `JetStream consumer stopped: ${errorMessage(e)}`));
    }
  }

  private async handle(m: Msg | JsMsg): Promise<void> {
    const headers = new Map<string, string>();
    if (m.headers) for (const [k, v] of m.headers) if (v.length > 0) headers.set(k.toLowerCase(), v[0]);
    const r = decodeCloudEvent({ subject: m.subject, data: m.data, headers });
    if (!r.ok) {
      // The publisher's mistake, not ours: say why and drop it (a JetStream message is acked, redelivery would not help).
      this.log.warn({ subject: m.subject }, `ignored: ${r.reason}`);
      this.o.metrics?.cloudEvents.inc({ result: 'ignored' });
      return;
    }
    this.log.debug({ subject: m.subject, id: r.event.id, mode: r.mode }, 'CloudEvent received');
    try {
      await this.o.onEvent(m.subject, r.event);
    } catch (e) {
      this.o.metrics?.cloudEvents.inc({ result: 'failed' });
      throw e;
    }
  }
}

function connectionOptions(c: NatsConnectionConfig, timeout: number): ConnectionOptions {
  const o: ConnectionOptions = { servers: c.url, name: 'ripple-agent', reconnect: false, timeout };
  const a = c.authorization;
  if (a?.user) {
    o.user = a.user.user;
    o.pass = a.user.password;
  }
  if (a?.token) o.token = a.token;
  if (a?.clientCert || a?.rootCA) {
    o.tls = {};
    if (a.clientCert) {
      o.tls.cert = a.clientCert.certPem;
      o.tls.key = a.clientCert.keyPem;
    }
    if (a.rootCA) o.tls.ca = a.rootCA;
  }
  return o;
}

// explain adds what to do to the client's terse errors.
function explain(message: string): string {
  if (/authorization|authentication|auth/i.test(message)) return `${message}: the credentials in Secret ${NATS_SECRET.namespace}/${NATS_SECRET.name} are not accepted`;
  if (/ECONNREFUSED|refused|ENOTFOUND|EHOSTUNREACH|timeout|timed out/i.test(message)) return `${message}: the server is unreachable; check the url in Secret ${NATS_SECRET.namespace}/${NATS_SECRET.name}`;
  return message;
}

/** PublishTarget is where publishCloudEvent sends: a server URL and optional credentials. */
export interface PublishTarget {
  url: string;
  user?: string;
  password?: string;
  token?: string;
}

/**
 * publishCloudEvent publishes one CloudEvent — structured (the JSON envelope as the body) or binary (attributes as
 * `ce-` headers, datacontenttype as `content-type`, the data as the body) — on a NATS subject, or into a JetStream
 * stream (acknowledged by the server). What `ripple publish-cloudevent` and the cloudevent demo use.
 */
export async function publishCloudEvent(
  target: PublishTarget,
  subject: string,
  event: CloudEvent,
  o: { mode?: 'structured' | 'binary'; jetstream?: boolean; timeoutMs?: number } = {},
): Promise<void> {
  const nc = await connect({
    servers: target.url,
    name: 'ripple-publish',
    reconnect: false,
    timeout: o.timeoutMs ?? 5000,
    ...(target.user !== undefined ? { user: target.user, pass: target.password ?? '' } : {}),
    ...(target.token !== undefined ? { token: target.token } : {}),
  });
  try {
    let body: Uint8Array;
    let hdrs: ReturnType<typeof headers> | undefined;
    if (o.mode === 'binary') {
      hdrs = headers();
      for (const [k, v] of Object.entries(event)) {
        if (k === 'data' || v === undefined) continue;
        if (k === 'datacontenttype') hdrs.set('content-type', String(v));
        else hdrs.set(`ce-${k}`, typeof v === 'string' ? v : JSON.stringify(v));
      }
      body = new TextEncoder().encode(event.data === undefined ? '' : JSON.stringify(event.data));
    } else {
      body = new TextEncoder().encode(JSON.stringify(event));
    }
    if (o.jetstream) {
      await jetstream(nc).publish(subject, body, hdrs ? { headers: hdrs } : undefined);
    } else {
      nc.publish(subject, body, hdrs ? { headers: hdrs } : undefined);
      await nc.flush();
    }
  } finally {
    await nc.close();
  }
}
