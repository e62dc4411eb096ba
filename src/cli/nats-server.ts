// nats-server: `ripple up` starts a NATS server (Debian's nats-server, JetStream on, store under the data directory)
// on a loopback port the OS picks, for demos that receive CloudEvents. Ripple does not ship a broker: when the
// binary is missing the demo says what to install.
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { AckPolicy, jetstreamManager } from '@nats-io/jetstream';
import { connect } from '@nats-io/transport-node';
import { JETSTREAM_CONSUMER } from '../agent/index.js';

const CANDIDATES = ['/usr/sbin/nats-server', '/usr/bin/nats-server', '/usr/local/bin/nats-server'];

/** natsServerBinary finds nats-server ($RIPPLE_NATS_BIN, then the usual places), or undefined. */
export function natsServerBinary(): string | undefined {
  const env = process.env.RIPPLE_NATS_BIN;
  if (env) return existsSync(env) ? env : undefined;
  return CANDIDATES.find((c) => existsSync(c));
}

/** NATS_MISSING tells what to install. */
export const NATS_MISSING =
  'nats-server is not installed: install it (Debian/Ubuntu: apt-get install nats-server; or from https://github.com/nats-io/nats-server/releases, then set RIPPLE_NATS_BIN=/path/to/nats-server)';

/** RunningNats is a started server. */
export interface RunningNats {
  url: string;
  stop(): Promise<void>;
}

/** startNatsServer runs nats-server with JetStream on 127.0.0.1 (free port) until stop(). */
export async function startNatsServer(o: { bin: string; storeDir: string; log?: (line: string) => void }): Promise<RunningNats> {
  mkdirSync(o.storeDir, { recursive: true, mode: 0o700 });
  const child: ChildProcess = spawn(o.bin, ['-a', '127.0.0.1', '-p', '-1', '-js', '-sd', join(o.storeDir), '-m', '0'], { stdio: ['ignore', 'pipe', 'pipe'] });
  let out = '';
  const port = await new Promise<number>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`nats-server did not report its port within 20 s: ${out.slice(-500)}`)), 20_000);
    const onData = (c: Buffer) => {
      out += c;
      for (const line of c.toString().split('\n')) if (line.trim()) o.log?.(line.trim());
      const m = /Listening for client connections on [^\s:]+:(\d+)/.exec(out);
      if (m && out.includes('Server is ready')) {
        clearTimeout(timer);
        resolve(Number(m[1]));
      }
    };
    child.stdout!.on('data', onData);
    child.stderr!.on('data', onData);
    child.once('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`nats-server exited (code ${code}): ${out.slice(-500)}`));
    });
  });
  return {
    url: `nats://127.0.0.1:${port}`,
    async stop() {
      if (child.exitCode !== null || child.signalCode !== null) return;
      const exited = new Promise((r) => child.once('exit', r));
      child.kill('SIGTERM');
      await exited;
    },
  };
}

/**
 * ensureStream creates a JetStream stream over `subjects` with the durable pull consumer sveltos-agent reads (as a
 * user sets up for Sveltos), unless they exist: events published before the agent subscribed wait in the stream.
 */
export async function ensureStream(url: string, stream: string, subjects: string[]): Promise<void> {
  const nc = await connect({ servers: url, name: 'ripple-up', reconnect: false, timeout: 5000 });
  try {
    const jsm = await jetstreamManager(nc);
    try {
      await jsm.streams.info(stream);
    } catch {
      await jsm.streams.add({ name: stream, subjects });
    }
    try {
      await jsm.consumers.info(stream, JETSTREAM_CONSUMER);
    } catch {
      await jsm.consumers.add(stream, { durable_name: JETSTREAM_CONSUMER, ack_policy: AckPolicy.Explicit });
    }
  } finally {
    await nc.close();
  }
}
