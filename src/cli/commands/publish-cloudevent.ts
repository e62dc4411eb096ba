// publish-cloudevent: publishes one CloudEvent on a NATS subject (or into a JetStream stream) with the NATS client
// Ripple's agent uses — the `nats pub` of EventSources with messagingMatchCriteria, without installing the nats CLI.
import { randomUUID } from 'node:crypto';
import { publishCloudEvent, type CloudEvent } from '../../agent/index.js';
import { errorMessage } from '../../kube/index.js';
import { ExitCode, UsageError, parseFlags, type Command } from '../command.js';

const USAGE = `Usage:
  ripple publish-cloudevent --subject SUBJECT --type TYPE --source SOURCE [--ce-subject S] [--id ID]
                            [--data JSON] [--binary] [--jetstream] [--server URL] [--user U --password P | --token T]

Publishes one CloudEvent (specversion 1.0, datacontenttype application/json — the only data Sveltos considers) on a
NATS subject. EventSources with spec.messagingMatchCriteria select it by NATS subject and CloudEvent type, source and
subject (regexes); the agent reads its NATS settings from Secret projectsveltos/sveltos-nats in the managed cluster.

Flags:
  --subject SUBJECT   NATS subject to publish on (e.g. orders.eu)
  --type TYPE         CloudEvent type (e.g. com.example.order.created)
  --source SOURCE     CloudEvent source (e.g. shop/eu)
  --ce-subject S      CloudEvent subject: with source, what identifies the entity (Create, then Delete)
  --id ID             CloudEvent id (default: a random UUID)
  --data JSON         the event's data, JSON (default {})
  --binary            binary content mode: attributes as ce- headers, data as the body (default: structured, the
                      JSON envelope as the body)
  --jetstream         publish into the JetStream stream bound to SUBJECT and wait for the server's acknowledgement
  --server URL        NATS server (default $RIPPLE_NATS_URL, else nats://127.0.0.1:4222); \`ripple up --demo
                      cloudevent\` prints its own
  --user U, --password P, --token T   credentials, if the server requires them

Examples:
  ripple publish-cloudevent --server nats://127.0.0.1:4222 --subject orders.eu \\
      --type com.example.order.created --source shop/eu --ce-subject order-7 --data '{"replicas": 2}'
  ripple publish-cloudevent --subject orders.eu --type com.example.order.deleted --source shop/eu --ce-subject order-7
`;

export const commands: Command[] = [
  {
    path: ['publish-cloudevent'],
    summary: 'Publish a CloudEvent on a NATS subject (for EventSources with messagingMatchCriteria)',
    usage: USAGE,
    async run(args, io) {
      const { values, positionals } = parseFlags(args, {
        subject: { type: 'string' },
        type: { type: 'string' },
        source: { type: 'string' },
        'ce-subject': { type: 'string' },
        id: { type: 'string' },
        data: { type: 'string' },
        binary: { type: 'boolean' },
        jetstream: { type: 'boolean' },
        server: { type: 'string' },
        user: { type: 'string' },
        password: { type: 'string' },
        token: { type: 'string' },
      });
      if (positionals.length > 0) throw new UsageError(`unexpected argument ${JSON.stringify(positionals[0])}`);
      const missing = (['subject', 'type', 'source'] as const).filter((f) => !values[f]);
      if (missing.length > 0) throw new UsageError(`missing ${missing.map((f) => `--${f}`).join(', ')}`);
      if (values.user !== undefined && values.password === undefined) throw new UsageError('--user needs --password');
      let data: unknown = {};
      if (values.data !== undefined) {
        try {
          data = JSON.parse(values.data);
        } catch (e) {
          throw new UsageError(`--data must be JSON: ${errorMessage(e)}`);
        }
      }
      const event: CloudEvent = { specversion: '1.0', id: values.id ?? randomUUID(), source: values.source!, type: values.type!, datacontenttype: 'application/json' };
      if (values['ce-subject']) event.subject = values['ce-subject'];
      event.time = new Date().toISOString();
      event.data = data;
      const url = values.server ?? process.env.RIPPLE_NATS_URL ?? 'nats://127.0.0.1:4222';
      try {
        await publishCloudEvent({ url, user: values.user, password: values.password, token: values.token }, values.subject!, event, {
          mode: values.binary ? 'binary' : 'structured',
          jetstream: values.jetstream,
        });
      } catch (e) {
        io.stderr.write(`ripple publish-cloudevent: cannot publish to ${url}: ${errorMessage(e)}; check --server (ripple up --demo cloudevent prints its URL) and the credentials\n`);
        return ExitCode.Unavailable;
      }
      io.stdout.write(`published CloudEvent ${event.id} (type ${event.type}, source ${event.source}${event.subject ? `, subject ${event.subject}` : ''}) on ${values.subject}${values.jetstream ? ' (JetStream, acknowledged)' : ''} to ${url}\n`);
      return ExitCode.Ok;
    },
  },
];
