// oci-registry: a REAL OCI registry for tests — Debian's docker-registry package (CNCF Distribution 2.8), started
// on a random loopback port with a throw-away config and storage directory, optionally behind htpasswd basic auth.
// Tests skip (with the reason) when the binary is not installed: `.ci/run` installs it.
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { createPrivateKey, sign as cryptoSign, X509Certificate } from 'node:crypto';
import { existsSync, readFileSync } from 'node:fs';
import { createServer as createHttpServer } from 'node:http';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import bcrypt from 'bcryptjs';

/** REGISTRY_BIN is the registry binary the Debian package installs. */
export const REGISTRY_BIN = process.env.RIPPLE_REGISTRY_BIN ?? '/usr/bin/docker-registry';

/** registryMissing is the skip reason when the registry (or, for token mode, openssl) is not installed, or undefined. */
export function registryMissing(mode: 'basic' | 'token' = 'basic'): string | undefined {
  if (!existsSync(REGISTRY_BIN)) return `${REGISTRY_BIN} not found: install Debian's docker-registry package (apt-get install docker-registry) to run the OCI tests`;
  if (mode === 'token' && spawnSync('openssl', ['version']).status !== 0) return 'openssl not found: the token-auth registry test signs its tokens with a certificate openssl makes';
  return undefined;
}

/** Registry is a running registry: `host` is HOST:PORT for oci:// references (plain HTTP). */
export interface Registry {
  host: string;
  /** dataDir is the registry's filesystem storage root (tests may tamper with it). */
  dataDir: string;
  /** tokensIssued counts the Bearer tokens the token service issued (token mode; 0 otherwise). */
  tokensIssued(): number;
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

/**
 * startRegistry runs the registry until stop(). With auth, it demands those credentials: by default through htpasswd
 * (Basic auth, bcrypt); with mode 'token', through the distribution token flow — the registry answers 401 with a
 * Bearer challenge naming a token service this helper runs on loopback, which checks the credentials and issues a
 * JWT signed with a throw-away RSA key whose certificate is the registry's rootcertbundle.
 */
export async function startRegistry(auth?: { username: string; password: string; mode?: 'basic' | 'token' }): Promise<Registry> {
  const dir = await mkdtemp(join(tmpdir(), 'ripple-registry-'));
  const tokens = auth?.mode === 'token' ? await startTokenService(dir, auth) : undefined;
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
    if (tokens) {
      lines.push('auth:', '  token:', `    realm: ${tokens.realm}`, `    service: ${TOKEN_SERVICE}`, `    issuer: ${TOKEN_ISSUER}`, `    rootcertbundle: ${tokens.certPath}`);
    } else if (auth) {
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
        tokensIssued: () => tokens?.issued() ?? 0,
        logs: () => out,
        stop: async () => {
          if (child.exitCode === null && child.signalCode === null) {
            child.kill('SIGTERM');
            await exited;
          }
          await tokens?.stop();
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
  await tokens?.stop();
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

const TOKEN_SERVICE = 'ripple-test-registry';
const TOKEN_ISSUER = 'ripple-test-token-issuer';

/** TokenService is the loopback token endpoint of a token-auth registry; `issued` counts the tokens it gave out. */
interface TokenService {
  realm: string;
  certPath: string;
  issued: () => number;
  stop(): Promise<void>;
}

const b64url = (b: Buffer | string) => Buffer.from(b).toString('base64url');

// startTokenService makes a key and self-signed certificate with openssl and serves GET /token?service=&scope=.
async function startTokenService(dir: string, auth: { username: string; password: string }): Promise<TokenService> {
  const keyPath = join(dir, 'token-key.pem');
  const certPath = join(dir, 'token-cert.pem');
  const r = spawnSync('openssl', ['req', '-x509', '-newkey', 'rsa:2048', '-nodes', '-days', '1', '-subj', '/CN=ripple-token', '-keyout', keyPath, '-out', certPath], { encoding: 'utf8' });
  if (r.status !== 0) throw new Error(`openssl could not make the token signing certificate: ${r.stderr}`);
  const key = createPrivateKey(readFileSync(keyPath));
  const der = new X509Certificate(readFileSync(certPath)).raw;
  const expected = `Basic ${Buffer.from(`${auth.username}:${auth.password}`).toString('base64')}`;
  let issued = 0;
  const server = createHttpServer((req, res) => {
    const u = new URL(req.url ?? '/', 'http://x');
    if (u.pathname !== '/token') return void res.writeHead(404).end();
    if (req.headers.authorization !== expected) return void res.writeHead(401, { 'content-type': 'application/json' }).end('{"details":"bad credentials"}');
    const access = u.searchParams.getAll('scope').map((sc) => {
      const [type, name, actions] = sc.split(':');
      return { type, name, actions: actions.split(',') };
    });
    const now = Math.floor(Date.now() / 1000);
    const header = { typ: 'JWT', alg: 'RS256', x5c: [der.toString('base64')] };
    const claims = { iss: TOKEN_ISSUER, sub: auth.username, aud: u.searchParams.get('service'), exp: now + 300, nbf: now - 10, iat: now, jti: String(++issued), access };
    const signingInput = `${b64url(JSON.stringify(header))}.${b64url(JSON.stringify(claims))}`;
    const signature = cryptoSign('RSA-SHA256', Buffer.from(signingInput), key);
    res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ token: `${signingInput}.${b64url(signature)}`, expires_in: 300 }));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as { port: number }).port;
  return {
    realm: `http://127.0.0.1:${port}/token`,
    certPath,
    issued: () => issued,
    stop: () => new Promise((resolve) => server.close(() => resolve())),
  };
}
