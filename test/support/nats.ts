// nats: a REAL NATS server for tests — Debian's nats-server package, started on loopback on a port the OS picks
// (`-p -1`), JetStream enabled with a throw-away store directory, optionally requiring a user and password. CloudEvents
// are published with the maintained NATS client from npm (@nats-io/transport-node, @nats-io/jetstream). Tests skip
// (with the reason) when the binary is not installed: `.ci/run` installs it.
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { connect, headers, type NatsConnection } from '@nats-io/transport-node';
import { AckPolicy, jetstreamManager, jetstream } from '@nats-io/jetstream';

/** NATS_BIN is the server binary the Debian package installs. */
export const NATS_BIN = process.env.RIPPLE_NATS_BIN ?? (existsSync('/usr/sbin/nats-server') ? '/usr/sbin/nats-server' : '/usr/bin/nats-server');

/** natsMissing is the skip reason when nats-server is not installed, or undefined. */
export function natsMissing(): string | undefined {
  return existsSync(NATS_BIN) ? undefined : `${NATS_BIN} not found: install Debian's nats-server package (apt-get install nats-server) to run the CloudEvent tests`;
}

/** NatsServer is a running server: `url` is nats://127.0.0.1:PORT. */
export interface NatsServer {
  url: string;
  port: number;
  auth?: { user: string; password: string };
  /** publish sends a CloudEvent in structured (JSON envelope) or binary (ce- headers) content mode on core NATS. */
  publish(subject: string, event: Record<string, unknown>, mode?: 'structured' | 'binary'): Promise<void>;
  /** publishJetStream publishes into a stream (acknowledged by the server). */
  publishJetStream(subject: string, event: Record<string, unknown>): Promise<void>;
  /** addStream creates a stream named `name` over `subjects` with the durable pull consumer sveltos-agent. */
  addStream(name: string, subjects: string[]): Promise<void>;
  stop(): Promise<void>;
  logs(): string;
}

/** startNats runs nats-server until stop(). */
export async function startNats(o: { auth?: { user: string; password: string } } = {}): Promise<NatsServer> {
  const dir = await mkdtemp(join(tmpdir(), 'ripple-nats-'));
  const args = ['-a', '127.0.0.1', '-p', '-1', '-js', '-sd', dir, '-m', '0'];
  if (o.auth) args.push('--user', o.auth.user, '--pass', o.auth.password);
  const child: ChildProcess = spawn(NATS_BIN, args, { stdio: ['ignore', 'pipe', 'pipe'] });
  let out = '';
  const port = await new Promise<number>((resolve, reject) => {
    const onData = (c: Buffer) => {
      out += c;
      const m = /Listening for client connections on [^\s:]+:(\d+)/.exec(out);
      if (m) resolve(Number(m[1]));
    };
    child.stdout!.on('data', onData);
    child.stderr!.on('data', onData);
    child.once('exit', (code) => reject(new Error(`nats-server exited (${code}): ${out}`)));
    setTimeout(() => reject(new Error(`nats-server did not start: ${out}`)), 20_000).unref();
  });
  // Wait for "Server is ready".
  for (let i = 0; i < 200 && !out.includes('Server is ready'); i++) await new Promise((r) => setTimeout(r, 25));
  const url = `nats://127.0.0.1:${port}`;
  let nc: NatsConnection | undefined;
  const client = async () => (nc ??= await connect({ servers: url, ...(o.auth ? { user: o.auth.user, pass: o.auth.password } : {}) }));
  const body = (e: Record<string, unknown>) => new TextEncoder().encode(JSON.stringify(e));
  return {
    url,
    port,
    auth: o.auth,
    logs: () => out,
    async publish(subject, event, mode = 'structured') {
      const c = await client();
      if (mode === 'structured') {
        c.publish(subject, body(event));
      } else {
        const h = headers();
        for (const [k, v] of Object.entries(event)) {
          if (k === 'data') continue;
          if (k === 'datacontenttype') h.set('content-type', String(v));
          else h.set(`ce-${k}`, String(v));
        }
        c.publish(subject, new TextEncoder().encode(JSON.stringify(event.data ?? null)), { headers: h });
      }
      await c.flush();
    },
    async publishJetStream(subject, event) {
      await jetstream(await client()).publish(subject, body(event));
    },
    async addStream(name, subjects) {
      const jsm = await jetstreamManager(await client());
      await jsm.streams.add({ name, subjects });
      await jsm.consumers.add(name, { durable_name: 'sveltos-agent', ack_policy: AckPolicy.Explicit });
    },
    async stop() {
      await nc?.close().catch(() => undefined);
      if (child.exitCode === null && child.signalCode === null) {
        const exited = new Promise((r) => child.once('exit', r));
        child.kill('SIGTERM');
        await exited;
      }
      await rm(dir, { recursive: true, force: true });
    },
  };
}

/** natsSecret is Secret projectsveltos/sveltos-nats as sveltos-agent reads it, for a server (or any url). */
export function natsSecret(settings: { url: string; subjects?: string[]; streams?: string[]; auth?: { user: string; password: string } }): Record<string, unknown> {
  const authorization = settings.auth ? { user: { user: settings.auth.user, password: settings.auth.password } } : undefined;
  const value: Record<string, unknown> = {};
  if (settings.subjects) value.nats = { configuration: { url: settings.url, subjects: settings.subjects, ...(authorization ? { authorization } : {}) } };
  if (settings.streams) value.jetstream = { configuration: { url: settings.url, subjects: settings.streams, ...(authorization ? { authorization } : {}) } };
  return {
    apiVersion: 'v1',
    kind: 'Secret',
    metadata: { name: 'sveltos-nats', namespace: 'projectsveltos' },
    type: 'Opaque',
    data: { 'sveltos-nats': Buffer.from(JSON.stringify(value)).toString('base64') },
  };
}
