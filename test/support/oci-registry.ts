// oci-registry: a REAL OCI registry for tests — Debian's docker-registry package (CNCF Distribution 2.8), started
// on a random loopback port with a throw-away config and storage directory, optionally behind htpasswd basic auth.
// Tests skip (with the reason) when the binary is not installed: `.ci/run` installs it.
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import bcrypt from 'bcryptjs';

/** REGISTRY_BIN is the registry binary the Debian package installs. */
export const REGISTRY_BIN = process.env.RIPPLE_REGISTRY_BIN ?? '/usr/bin/docker-registry';

/** registryMissing is the skip reason when the registry is not installed, or undefined. */
export function registryMissing(): string | undefined {
  return existsSync(REGISTRY_BIN) ? undefined : `${REGISTRY_BIN} not found: install Debian's docker-registry package (apt-get install docker-registry) to run the OCI tests`;
}

/** Registry is a running registry: `host` is HOST:PORT for oci:// references (plain HTTP). */
export interface Registry {
  host: string;
  /** dataDir is the registry's filesystem storage root (tests may tamper with it). */
  dataDir: string;
  stop(): Promise<void>;
  logs(): string;
}

async function freePort(): Promise<number> {
  const s = createServer();
  await new Promise<void>((r) => s.listen(0, '127.0.0.1', r));
  const port = (s.address() as { port: number }).port;
  await new Promise<void>((r) => s.close(() => r()));
  return port;
}

/** startRegistry runs the registry until stop(); with auth, it demands those credentials (htpasswd, bcrypt). */
export async function startRegistry(auth?: { username: string; password: string }): Promise<Registry> {
  const dir = await mkdtemp(join(tmpdir(), 'ripple-registry-'));
  let lastError = '';
  for (let attempt = 0; attempt < 3; attempt++) {
    const port = await freePort();
    const lines = [
      'version: 0.1',
      'log:',
      '  level: warn',
      '  accesslog:',
      '    disabled: true',
      'storage:',
      '  filesystem:',
      `    rootdirectory: ${join(dir, 'data')}`,
      '  delete:',
      '    enabled: true',
      'http:',
      `  addr: 127.0.0.1:${port}`,
      `  secret: ripple-test-${port}`,
    ];
    if (auth) {
      await writeFile(join(dir, 'htpasswd'), `${auth.username}:${bcrypt.hashSync(auth.password, 4)}\n`);
      lines.push('auth:', '  htpasswd:', '    realm: ripple-test', `    path: ${join(dir, 'htpasswd')}`);
    }
    await writeFile(join(dir, 'config.yml'), lines.join('\n') + '\n');
    const child: ChildProcess = spawn(REGISTRY_BIN, ['serve', join(dir, 'config.yml')], { stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    child.stdout!.on('data', (c) => (out += c));
    child.stderr!.on('data', (c) => (out += c));
    const exited = new Promise<number | null>((r) => child.once('exit', (code) => r(code)));
    const host = `127.0.0.1:${port}`;
    if (await ready(host, exited)) {
      return {
        host,
        dataDir: join(dir, 'data'),
        logs: () => out,
        stop: async () => {
          if (child.exitCode === null && child.signalCode === null) {
            child.kill('SIGTERM');
            await exited;
          }
          await rm(dir, { recursive: true, force: true });
        },
      };
    }
    lastError = out;
    if (child.exitCode === null) {
      child.kill('SIGKILL');
      await exited;
    }
  }
  await rm(dir, { recursive: true, force: true });
  throw new Error(`docker-registry did not start: ${lastError}`);
}

// ready waits (with a growing delay, at most ~10 s) until GET /v2/ answers, or the process exits.
async function ready(host: string, exited: Promise<number | null>): Promise<boolean> {
  let gone = false;
  void exited.then(() => (gone = true));
  for (let i = 0, delay = 10; i < 30 && !gone; i++, delay = Math.min(delay * 2, 500)) {
    try {
      const res = await fetch(`http://${host}/v2/`);
      if (res.status === 200 || res.status === 401) return true;
    } catch {
      // not listening yet
    }
    await new Promise((r) => setTimeout(r, delay));
  }
  return false;
}
