// RawClient speaks plain HTTP to one virtual cluster of the embedded server, for tests that check status codes,
// headers and exact bodies.
import type { ClusterInfo } from '../../src/apiserver/index.js';

/** RawResponse is a response with its body as text and parsed JSON (when it is JSON). */
export interface RawResponse {
  status: number;
  headers: Headers;
  text: string;
  // eslint-disable-next-line @typescript-eslint/no-explicit-any
  json: any;
}

/** RawClient sends requests with the cluster's bearer token. */
export class RawClient {
  constructor(
    readonly info: ClusterInfo,
    private readonly token: string | undefined = info.token,
  ) {}

  async req(
    method: string,
    path: string,
    body?: unknown,
    o: { contentType?: string; accept?: string; headers?: Record<string, string> } = {},
  ): Promise<RawResponse> {
    const headers: Record<string, string> = { ...(o.headers ?? {}) };
    if (this.token) headers.authorization = `Bearer ${this.token}`;
    if (o.accept) headers.accept = o.accept;
    let payload: string | Buffer | undefined;
    if (body !== undefined) {
      payload = typeof body === 'string' || Buffer.isBuffer(body) ? body : JSON.stringify(body);
      headers['content-type'] = o.contentType ?? 'application/json';
    }
    let res: Response;
    try {
      res = await fetch(this.info.httpServer + path, { method, headers, body: payload });
    } catch (e) {
      throw new Error(`${method} ${path}: ${(e as Error).message}: ${String((e as Error).cause)}`, { cause: e });
    }
    const text = await res.text();
    let json: unknown;
    try {
      json = JSON.parse(text);
    } catch {
      json = undefined;
    }
    return { status: res.status, headers: res.headers, text, json };
  }

  get(path: string, accept?: string) {
    return this.req('GET', path, undefined, { accept });
  }
  post(path: string, body: unknown, contentType?: string) {
    return this.req('POST', path, body, { contentType });
  }
  put(path: string, body: unknown) {
    return this.req('PUT', path, body);
  }
  patch(path: string, body: unknown, contentType: string) {
    return this.req('PATCH', path, body, { contentType });
  }
  delete(path: string, body?: unknown) {
    return this.req('DELETE', path, body);
  }
}
