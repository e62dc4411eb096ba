// http.ts: the one HTTP client of the charts component, on node:http/https so that a CA bundle and
// insecureSkipTLSVerify (Sveltos' registryCredentialsConfig) apply per request. Redirects are followed (registries
// send blob downloads to storage), dropping credentials when the redirect leaves the host, as Go's net/http does.
import { request as httpRequest, type IncomingHttpHeaders } from 'node:http';
import type { Socket } from 'node:net';
import { request as httpsRequest } from 'node:https';
import { ChartSourceError } from './errors.js';

/** TLSOptions are the transport settings of a repository or registry. */
export interface TLSOptions {
  /** ca is a PEM bundle trusted in addition to nothing else (as Helm's --ca-file). */
  ca?: string;
  insecureSkipTLSVerify?: boolean;
}

/** HttpRequest is one request; body is sent as is. */
export interface HttpRequest extends TLSOptions {
  method: string;
  url: string;
  headers?: Record<string, string>;
  body?: Uint8Array;
  /** maxBytes caps the response body; a larger answer fails instead of filling memory. */
  maxBytes?: number;
  /** timeoutMs aborts a request whose socket stays idle that long (default 60 s). */
  timeoutMs?: number;
  /** what names the request in errors, e.g. `chart repository https://… index`. */
  what: string;
}

/** HttpResponse is a buffered answer; `url` is the final URL after redirects. */
export interface HttpResponse {
  status: number;
  headers: IncomingHttpHeaders;
  body: Buffer;
  url: string;
}

const DEFAULT_MAX = 512 * 1024 * 1024;
const REDIRECTS = 10;

/** send performs req, following up to 10 redirects; network failures become ChartSourceError Unreachable. */
export async function send(req: HttpRequest): Promise<HttpResponse> {
  let url = new URL(req.url);
  let headers = { ...(req.headers ?? {}) };
  let method = req.method;
  let body = req.body;
  for (let hop = 0; ; hop++) {
    const res = await once({ ...req, method, url: url.href, headers, body });
    const location = res.headers.location;
    if (![301, 302, 303, 307, 308].includes(res.status) || location === undefined) return res;
    if (hop >= REDIRECTS) throw new ChartSourceError('Unreachable', `${req.what}: stopped after ${REDIRECTS} redirects`);
    const next = new URL(location, url);
    if (next.origin !== url.origin) headers = Object.fromEntries(Object.entries(headers).filter(([k]) => k.toLowerCase() !== 'authorization'));
    if (res.status === 303 || ((res.status === 301 || res.status === 302) && method === 'POST')) {
      method = 'GET';
      body = undefined;
    }
    url = next;
  }
}

function once(req: HttpRequest): Promise<HttpResponse> {
  const url = new URL(req.url);
  const isHttps = url.protocol === 'https:';
  if (!isHttps && url.protocol !== 'http:') {
    return Promise.reject(new ChartSourceError('Unreachable', `${req.what}: unsupported URL scheme ${url.protocol} in ${req.url}`));
  }
  const max = req.maxBytes ?? DEFAULT_MAX;
  return new Promise((resolve, reject) => {
    const headers: Record<string, string> = { 'user-agent': 'ripple', ...(req.headers ?? {}) };
    if (req.body) headers['content-length'] = String(req.body.length);
    const options = { method: req.method, headers, ...(isHttps ? { ca: req.ca, rejectUnauthorized: !req.insecureSkipTLSVerify } : {}) };
    const r = (isHttps ? httpsRequest : httpRequest)(url, options, (res) => {
      const chunks: Buffer[] = [];
      let size = 0;
      res.on('data', (c: Buffer) => {
        size += c.length;
        if (size > max) {
          res.destroy();
          reject(new ChartSourceError('BadChart', `${req.what}: response from ${redact(url)} is larger than ${max} bytes`));
          return;
        }
        chunks.push(c);
      });
      res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body: Buffer.concat(chunks), url: url.href }));
      res.on('error', (e) => reject(unreachable(req, url, e)));
    });
    r.on('socket', guardSocket);
    r.setTimeout(req.timeoutMs ?? 60_000, () => r.destroy(new Error(`no answer within ${req.timeoutMs ?? 60_000} ms`)));
    r.on('error', (e) => reject(unreachable(req, url, e)));
    r.end(req.body);
  });
}

// Node's keep-alive agent (the default since Node 19) takes the client's 'error' listener off a socket when a response
// ends and puts its own on a tick later; a socket error in between is an unhandled 'error' event that ends the
// process. Every socket keeps a listener of ours for its whole life (once: sockets are reused).
const guarded = new WeakSet<object>();
function guardSocket(s: Socket): void {
  if (guarded.has(s)) return;
  guarded.add(s);
  s.on('error', () => {
    // The request that owned the socket, if any, got the error through its own listener.
  });
}

function unreachable(req: HttpRequest, url: URL, e: Error): ChartSourceError {
  const code = (e as NodeJS.ErrnoException).code;
  return new ChartSourceError('Unreachable', `${req.what}: cannot reach ${redact(url)}: ${code ? `${code} ` : ''}${e.message}`, { cause: e });
}

/** redact drops credentials embedded in a URL before it goes into a message. */
export function redact(url: URL | string): string {
  const u = new URL(String(url));
  u.username = '';
  u.password = '';
  return u.href;
}

/** basicAuth is the Authorization header value for a username and password. */
export function basicAuth(username: string, password: string): string {
  return `Basic ${Buffer.from(`${username}:${password}`).toString('base64')}`;
}

/** statusText describes a non-success answer briefly: `404 Not Found` plus the start of its body when it is text. */
export function statusText(res: HttpResponse): string {
  const text = res.body.subarray(0, 300).toString('utf8').trim();
  const printable = /^[\x20-\x7e\s]*$/.test(text) ? text : '';
  return `${res.status}${printable ? `: ${printable.replace(/\s+/g, ' ')}` : ''}`;
}
