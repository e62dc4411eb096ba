// The HTTP layer under KubeClient: client-node's KubeConfig supplies TLS material and credentials (tokens, client
// certificates, exec/auth-provider plugins); requests go through node:http(s) with one keep-alive agent per cluster,
// so a request costs one round trip on a warm socket and no per-request agent or fetch machinery.
import type { KubeConfig } from '@kubernetes/client-node';
import { localEndpoint } from './local-endpoints.js';
import { Agent as HttpAgent, request as httpRequest, type IncomingMessage, type ClientRequest, type OutgoingHttpHeaders } from 'node:http';
import { Agent as HttpsAgent, request as httpsRequest, type RequestOptions } from 'node:https';
import type { Socket } from 'node:net';
import { createSecureContext, type SecureContext } from 'node:tls';
import { FencedError, KubeConfigError, StatusError, UnreachableError, statusFromResponse, type UnreachableReason } from './errors.js';
import { currentServer } from './kubeconfig.js';
import { noteRequest } from './write-accounting.js';

/** TransportOptions tunes the HTTP layer of one cluster. */
export interface TransportOptions {
  /** Idle timeout of a non-watch request, in ms (default 30 s): no byte for this long fails with UnreachableError Timeout. */
  timeoutMs?: number;
  /** Concurrent sockets for ordinary requests (default 32; watches use their own unlimited pool). */
  maxSockets?: number;
  /** User-Agent header (default `ripple/0.1.0`). */
  userAgent?: string;
  /** Called with the text of each `Warning` response header (deprecations, unknown fields). */
  onWarning?: (warning: string) => void;
  /**
   * Called synchronously right before a write (any method but GET) leaves this process; throwing stops it. Leader
   * election uses it as a fence: a replica whose Lease may have passed to another sends nothing more.
   */
  writeGuard?: () => void;
  /** Act as another user (kube's Impersonate-User / -Group / -Uid headers; the credentials need the impersonate verb). */
  impersonate?: Impersonation;
}

/** Impersonation names the user requests are sent as. */
export interface Impersonation {
  user: string;
  groups?: readonly string[];
  uid?: string;
}

/** QueryValue is one query parameter: repeated when an array, omitted when undefined. */
export type QueryValue = string | number | boolean | readonly string[] | undefined;

/** HttpRequest is one API request relative to the cluster's server URL. */
export interface HttpRequest {
  method: 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';
  /** Absolute API path, e.g. /api/v1/namespaces/default/configmaps (the server URL's own path is prefixed). */
  path: string;
  query?: Record<string, QueryValue>;
  /** A string is sent as is; anything else as JSON. */
  body?: unknown;
  /** Content-Type of the body (default application/json). */
  contentType?: string;
  /** Accept header (default application/json). */
  accept?: string;
  timeoutMs?: number;
  signal?: AbortSignal;
}

interface AuthState {
  /** The server is this process' own (local-endpoints.ts): plain HTTP over this Unix socket. */
  socketPath: string | undefined;
  agent: HttpAgent;
  watchAgent: HttpAgent;
  /** Headers that never change (static token, impersonation). */
  headers: OutgoingHttpHeaders;
  /** Exec and auth-provider plugins mint tokens that expire: ask client-node for the header on every request. */
  dynamic: boolean;
  tls: Pick<RequestOptions, 'ca' | 'cert' | 'key' | 'pfx' | 'passphrase' | 'rejectUnauthorized' | 'servername'> & { secureContext?: SecureContext };
}

const TLS_CODES = /^(ERR_TLS|ERR_SSL|CERT_|DEPTH_ZERO_SELF_SIGNED_CERT|SELF_SIGNED_CERT_IN_CHAIN|UNABLE_TO_|ERR_OSSL|HOSTNAME_MISMATCH)/;

/** unreachableReason classifies a socket-level error code. */
function unreachableReason(code: string | undefined, message: string): UnreachableReason {
  switch (code) {
    case 'ECONNREFUSED':
      return 'ConnectionRefused';
    case 'ECONNRESET':
    case 'EPIPE':
    case 'ECONNABORTED':
      return 'ConnectionReset';
    case 'ETIMEDOUT':
    case 'ESOCKETTIMEDOUT':
    case 'UND_ERR_CONNECT_TIMEOUT':
      return 'Timeout';
    case 'ENOTFOUND':
    case 'EAI_AGAIN':
      return 'DNS';
    case 'EHOSTUNREACH':
    case 'ENETUNREACH':
    case 'EHOSTDOWN':
    case 'ENETDOWN':
      return 'Network';
  }
  if (code && TLS_CODES.test(code)) return 'TLS';
  if (/socket hang up/.test(message)) return 'ConnectionReset';
  return 'Network';
}

/**
 * guarded returns the agent with every socket it creates listening for 'error' for its whole life. Node's HTTP client
 * takes its own listener off a keep-alive socket when the response ends and the agent puts one on when it takes the
 * socket back, a tick later; an error landing in between (a write failing because the server closed the connection,
 * as when an API server stops) was an unhandled 'error' event, and the process died with it (Node's own
 * _http_agent.js says so in a TODO on its 'free' handler). A request in flight still gets its error through the
 * client's listener; this one only keeps a stray error of a socket between owners from being fatal — the socket is
 * destroyed either way.
 */
export function guarded<A extends HttpAgent>(agent: A): A {
  const create = agent.createConnection as (...args: unknown[]) => Socket | undefined;
  agent.createConnection = function (this: A, ...args: unknown[]) {
    const socket = create.apply(this, args);
    socket?.on('error', ignoreStrayError);
    return socket;
  } as HttpAgent['createConnection'];
  return agent;
}

function ignoreStrayError(): void {
  // See guarded: the request that owned the socket (if any) has its own error listener.
}

const localAgents = new Map<string, HttpAgent>();

/** sharedLocalAgent is the request pool of every client of one local API server socket (see resolveAuth). */
function sharedLocalAgent(socketPath: string): HttpAgent {
  let a = localAgents.get(socketPath);
  if (!a) {
    a = guarded(new HttpAgent({ keepAlive: true, maxSockets: 128, maxFreeSockets: 32, scheduling: 'lifo' }));
    localAgents.set(socketPath, a);
  }
  return a;
}

class RequestTimeout extends Error {
  readonly code = 'ETIMEDOUT';
}

// TLS contexts by their material (CA, client certificate and key): every client of a cluster — the control plane's
// controllers each hold one — shares one context, held while any of them uses it.
const secureContexts = new Map<string, WeakRef<SecureContext>>();
const secureContextsGone = new FinalizationRegistry<string>((key) => {
  if (secureContexts.get(key)?.deref() === undefined) secureContexts.delete(key);
});

function sharedSecureContext(material: Record<string, unknown>): SecureContext {
  const key = JSON.stringify(Object.entries(material).map(([k, v]) => [k, Buffer.isBuffer(v) ? v.toString('base64') : v]));
  const held = secureContexts.get(key)?.deref();
  if (held) return held;
  const ctx = createSecureContext(material);
  secureContexts.set(key, new WeakRef(ctx));
  secureContextsGone.register(ctx, key);
  return ctx;
}

/** Transport sends requests to one cluster's API server with its kubeconfig's credentials. */
export class Transport {
  /** Server URL of the kubeconfig's current context (without a trailing slash). */
  readonly server: string;
  private readonly base: URL;
  private readonly prefix: string;
  private readonly secure: boolean;
  private auth: Promise<AuthState> | undefined;
  private closed = false;
  private readonly timeoutMs: number;
  private readonly userAgent: string;

  constructor(
    private readonly kc: KubeConfig,
    private readonly options: TransportOptions = {},
  ) {
    this.server = currentServer(kc).replace(/\/+$/, '');
    this.base = new URL(this.server);
    this.prefix = this.base.pathname.replace(/\/+$/, '');
    this.secure = this.base.protocol === 'https:';
    this.timeoutMs = options.timeoutMs ?? 30_000;
    this.userAgent = options.userAgent ?? 'ripple/0.1.0';
  }

  /** resolveAuth asks client-node once for TLS material and headers, and builds the keep-alive agents. */
  private resolveAuth(): Promise<AuthState> {
    this.auth ??= (async () => {
      const opts: RequestOptions = {};
      try {
        await this.authConfig().applyToHTTPSOptions(opts);
      } catch (err) {
        throw new KubeConfigError('Credentials', `cannot build credentials for ${this.server}: ${(err as Error).message}`, { cause: err });
      }
      const user = this.kc.getCurrentUser();
      const dynamic = Boolean(user && (user.exec || user.authProvider));
      const headers: OutgoingHttpHeaders = { ...(opts.headers as OutgoingHttpHeaders | undefined) };
      if (dynamic) delete headers.Authorization;
      if (opts.auth) headers.Authorization = `Basic ${Buffer.from(opts.auth).toString('base64')}`;
      const imp = this.options.impersonate;
      if (imp) {
        // Replaces any `as:` of the kubeconfig: one identity per client.
        for (const h of Object.keys(headers)) if (/^impersonate-/i.test(h)) delete headers[h];
        headers['Impersonate-User'] = imp.user;
        if (imp.groups && imp.groups.length > 0) headers['Impersonate-Group'] = [...imp.groups];
        if (imp.uid) headers['Impersonate-Uid'] = imp.uid;
      }
      const tls: AuthState['tls'] = {};
      for (const k of ['rejectUnauthorized', 'servername'] as const) {
        if (opts[k] !== undefined) (tls as Record<string, unknown>)[k] = opts[k];
      }
      // One TLS context per cluster, built once: given the CA and client certificate instead, every new socket built
      // its own (parsing the CA bundle each time) — a fleet of a thousand clusters reconnects often.
      const material: Record<string, unknown> = {};
      for (const k of ['ca', 'cert', 'key', 'pfx', 'passphrase'] as const) if (opts[k] !== undefined) material[k] = opts[k];
      const cluster = this.kc.getCurrentCluster();
      const socketPath = cluster?.proxyUrl ? undefined : localEndpoint(this.server);
      // A local endpoint speaks plain HTTP over its socket: no TLS context (each is ~20 KiB of OpenSSL memory, and a
      // thousand clusters had four each). Clients of one cluster share theirs.
      if (this.secure && !socketPath && Object.keys(material).length > 0) tls.secureContext = sharedSecureContext(material);
      let agent: HttpAgent;
      let watchAgent: HttpAgent;
      if (socketPath) {
        // Requests of every client of the local server share one pool: its clusters are paths behind one socket, so
        // idle connections need not multiply by the number of clusters (a thousand clusters × a few clients each
        // would hold thousands). Watches keep a connection each, as over TCP.
        agent = sharedLocalAgent(socketPath);
        watchAgent = guarded(new HttpAgent({ keepAlive: true, scheduling: 'lifo' }));
      } else if (cluster?.proxyUrl) {
        // Proxies are rare for API servers; client-node knows how to build the proxy agents.
        agent = opts.agent as HttpAgent;
        watchAgent = agent;
      } else if (this.secure) {
        agent = guarded(new HttpsAgent({ keepAlive: true, maxSockets: this.options.maxSockets ?? 32, scheduling: 'lifo', ...tls }));
        watchAgent = guarded(new HttpsAgent({ keepAlive: true, scheduling: 'lifo', ...tls }));
      } else {
        agent = guarded(new HttpAgent({ keepAlive: true, maxSockets: this.options.maxSockets ?? 32, scheduling: 'lifo' }));
        watchAgent = guarded(new HttpAgent({ keepAlive: true, scheduling: 'lifo' }));
      }
      return { socketPath, agent, watchAgent, headers, dynamic, tls };
    })();
    // A failed resolution must not poison the transport forever (e.g. an exec plugin that was briefly failing).
    this.auth.catch(() => {
      this.auth = undefined;
    });
    return this.auth;
  }

  /**
   * authConfig is the KubeConfig to ask for credentials. client-node refuses plain-HTTP servers unless TLS
   * verification is skipped (there is no TLS to verify); kubectl accepts them, so for http:// we hand client-node a
   * copy with that flag set.
   */
  private authConfig(): KubeConfig {
    if (this.secure) return this.kc;
    const cluster = this.kc.getCurrentCluster();
    if (!cluster || cluster.skipTLSVerify) return this.kc;
    const copy = new (this.kc.constructor as new () => KubeConfig)();
    copy.loadFromOptions({
      clusters: this.kc.clusters.map((c) => (c === cluster ? { ...c, skipTLSVerify: true } : c)),
      users: this.kc.users,
      contexts: this.kc.contexts,
      currentContext: this.kc.currentContext,
    });
    return copy;
  }

  private async headersFor(auth: AuthState, req: HttpRequest, body: Buffer | undefined): Promise<OutgoingHttpHeaders> {
    const headers: OutgoingHttpHeaders = { Accept: req.accept ?? 'application/json', 'User-Agent': this.userAgent, ...auth.headers };
    if (auth.dynamic) {
      const o: RequestOptions = {};
      await this.authConfig().applyToHTTPSOptions(o);
      const h = o.headers as OutgoingHttpHeaders | undefined;
      if (h?.Authorization) headers.Authorization = h.Authorization;
      // applyToHTTPSOptions built a throwaway agent for us; make sure it holds no socket.
      (o.agent as HttpAgent | undefined)?.destroy?.();
    }
    if (body) {
      headers['Content-Type'] = req.contentType ?? 'application/json';
      headers['Content-Length'] = body.length;
    }
    return headers;
  }

  private url(req: HttpRequest): string {
    let path = this.prefix + req.path;
    if (req.query) {
      const q = new URLSearchParams();
      for (const [k, v] of Object.entries(req.query)) {
        if (v === undefined) continue;
        if (Array.isArray(v)) for (const x of v) q.append(k, x);
        else q.append(k, String(v));
      }
      const s = q.toString();
      if (s) path += `?${s}`;
    }
    return path;
  }

  private encode(req: HttpRequest): Buffer | undefined {
    if (req.body === undefined) return undefined;
    return Buffer.from(typeof req.body === 'string' ? req.body : JSON.stringify(req.body));
  }

  private toUnreachable(err: unknown): unknown {
    if (err instanceof StatusError || err instanceof FencedError || (err instanceof Error && err.name === 'AbortError')) return err;
    const e = err as NodeJS.ErrnoException;
    if (this.closed) return new UnreachableError('Closed', this.server, `client for ${this.server} is closed`, { cause: err });
    const reason = unreachableReason(e?.code, String(e?.message ?? e));
    return new UnreachableError(reason, this.server, `cannot reach ${this.server}: ${e?.message ?? String(e)}`, { cause: err });
  }

  /** send performs one request and resolves with the response once its headers arrived. */
  private async send(req: HttpRequest, watch: boolean): Promise<{ res: IncomingMessage; clientReq: ClientRequest }> {
    if (this.closed) throw new UnreachableError('Closed', this.server, `client for ${this.server} is closed`);
    req.signal?.throwIfAborted();
    const auth = await this.resolveAuth();
    const body = this.encode(req);
    const headers = await this.headersFor(auth, req, body);
    const path = this.url(req);
    const timeoutMs = req.timeoutMs ?? this.timeoutMs;
    const attempt = (): Promise<{ res: IncomingMessage; clientReq: ClientRequest }> =>
      new Promise((resolve, reject) => {
        // Checked after every await of this request (credentials, headers), immediately before the bytes go out.
        if (req.method !== 'GET' && this.options.writeGuard) {
          try {
            this.options.writeGuard();
          } catch (err) {
            reject(err);
            return;
          }
        }
        const secure = this.secure && !auth.socketPath;
        const doRequest = secure ? httpsRequest : httpRequest;
        const clientReq = doRequest({
          protocol: secure ? 'https:' : 'http:',
          hostname: this.base.hostname.replace(/^\[|\]$/g, ''),
          port: this.base.port || (this.secure ? 443 : 80),
          ...(auth.socketPath ? { socketPath: auth.socketPath } : {}),
          method: req.method,
          path,
          headers,
          agent: watch ? auth.watchAgent : auth.agent,
          signal: req.signal,
          ...(secure ? auth.tls : {}),
        });
        // Watches get the timeout only until their headers arrive; then the stream may stay quiet for minutes.
        clientReq.setTimeout(timeoutMs, () => clientReq.destroy(new RequestTimeout(`no answer within ${timeoutMs} ms`)));
        clientReq.once('response', (res) => {
          if (watch) clientReq.setTimeout(0);
          resolve({ res, clientReq });
        });
        // `on`, not `once`: a destroyed request can emit a second error, which must not go unhandled.
        clientReq.on('error', (err) => {
          (err as { reusedSocket?: boolean }).reusedSocket = clientReq.reusedSocket;
          reject(err);
        });
        clientReq.end(body);
      });
    try {
      return await attempt();
    } catch (err) {
      // A keep-alive socket the server closed while idle fails the first write with ECONNRESET; the request never
      // reached the server, so sending it again on a fresh socket is safe (Node's documented pattern).
      const e = err as NodeJS.ErrnoException & { reusedSocket?: boolean };
      if (e?.reusedSocket && (e.code === 'ECONNRESET' || e.code === 'EPIPE') && !this.closed) {
        try {
          return await attempt();
        } catch (err2) {
          throw this.toUnreachable(err2);
        }
      }
      throw this.toUnreachable(err);
    }
  }

  private warn(res: IncomingMessage): void {
    const w = res.headers.warning;
    if (!w || !this.options.onWarning) return;
    for (const line of Array.isArray(w) ? w : [w]) this.options.onWarning(line);
  }

  /** requestText performs a request and returns the status code and body; non-2xx answers throw StatusError. */
  async requestText(req: HttpRequest): Promise<{ code: number; body: string }> {
    noteRequest(req.method);
    const { res } = await this.send(req, false);
    let text: string;
    try {
      text = await readBody(res);
    } catch (err) {
      throw this.toUnreachable(err);
    }
    this.warn(res);
    const code = res.statusCode ?? 0;
    if (code < 200 || code > 299) throw new StatusError(statusFromResponse(code, text));
    return { code, body: text };
  }

  /** request performs a request and parses the JSON answer; non-2xx answers throw StatusError. */
  async request<T = unknown>(req: HttpRequest): Promise<T> {
    const { body } = await this.requestText(req);
    if (body.length === 0) return undefined as T;
    try {
      return JSON.parse(body) as T;
    } catch (err) {
      throw new StatusError(statusFromResponse(500, `invalid JSON from ${this.server}${req.path}: ${body.slice(0, 200)}`), { cause: err });
    }
  }

  /**
   * stream opens a long-lived response (watch). Non-2xx answers throw StatusError; the caller reads the response
   * and calls `abort()` to end it.
   */
  async stream(req: HttpRequest): Promise<{ response: IncomingMessage; abort: () => void }> {
    const { res, clientReq } = await this.send(req, true);
    const code = res.statusCode ?? 0;
    if (code < 200 || code > 299) {
      let text = '';
      try {
        text = await readBody(res);
      } catch (err) {
        throw this.toUnreachable(err);
      }
      throw new StatusError(statusFromResponse(code, text));
    }
    this.warn(res);
    return { response: res, abort: () => clientReq.destroy() };
  }

  /** classify turns an error raised while reading a stream into UnreachableError (StatusErrors pass through). */
  classify(err: unknown): unknown {
    return this.toUnreachable(err);
  }

  /** close destroys the keep-alive sockets; later requests fail with UnreachableError Closed. */
  close(): void {
    this.closed = true;
    const auth = this.auth;
    this.auth = undefined;
    void auth?.then(
      (a) => {
        // The local pool is shared with other clients (see resolveAuth); its idle sockets time out on their own.
        if (!a.socketPath) a.agent.destroy();
        a.watchAgent.destroy();
      },
      () => undefined,
    );
  }

  /** isClosed reports whether close() was called. */
  get isClosed(): boolean {
    return this.closed;
  }
}

function readBody(res: IncomingMessage): Promise<string> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    res.on('data', (c: Buffer) => chunks.push(c));
    res.once('end', () => resolve(chunks.length === 1 ? chunks[0].toString('utf8') : Buffer.concat(chunks).toString('utf8')));
    res.on('error', reject);
    res.once('aborted', () => reject(Object.assign(new Error('response aborted'), { code: 'ECONNRESET' })));
  });
}
