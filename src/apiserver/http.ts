// HTTP plumbing: request paths to request info (Go: k8s.io/apiserver pkg/endpoints/request/requestinfo.go),
// content negotiation, bounded body reading and body decoding (JSON or YAML).
import type { IncomingMessage, ServerResponse } from 'node:http';
import { parse as parseYaml } from 'yaml';
import { decodeProtobufObject, ProtobufError } from './protobuf/decode.js';
import { badRequest, notAcceptable, pathNotFound, requestEntityTooLarge, unsupportedMediaType, type Status, StatusError } from './status.js';

/** MAX_REQUEST_BODY_BYTES is kube-apiserver's default limit on request bodies (3 MiB). */
export const MAX_REQUEST_BODY_BYTES = 3 * 1024 * 1024;

/** MAX_NESTING_DEPTH is Ripple's default limit on how deeply a request body nests objects and arrays. Go's JSON
 * decoder (hence kube-apiserver) stops at 10,000 with the same message; Ripple's decoders, validators and the
 * controllers that later read the object recurse on the JavaScript stack, which overflows near 4,000 levels, so the
 * default is lower. No Kubernetes object nests anywhere near it. */
export const MAX_NESTING_DEPTH = 1000;

/** nestingError finds where text (JSON, or YAML flow collections) nests deeper than max: the bracket that went one
 * level too deep, or undefined. Strings are skipped; text shorter than max cannot nest deeper and is not scanned. */
export function nestingError(text: string, max: number): string | undefined {
  if (text.length <= max) return undefined;
  let depth = 0;
  let inString = false;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (inString) {
      if (c === 92 /* backslash */) i++;
      else if (c === 34 /* " */) inString = false;
      continue;
    }
    if (c === 34) inString = true;
    else if (c === 123 /* { */ || c === 91 /* [ */) {
      if (++depth > max) return text[i];
    } else if (c === 125 /* } */ || c === 93 /* ] */) depth--;
  }
  return undefined;
}

// Go: encoding/json scanner.go pushParseState — `invalid character '{' exceeded max depth`, wrapped by the JSON
// serializer's version/kind sniffing (runtime/serializer/json meta.go Interpret).
function tooDeep(ch: string): StatusError {
  return badRequest(`couldn't get version/kind; json parse error: invalid character '${ch}' exceeded max depth`);
}

/** RequestInfo is what a resource path names. */
export interface RequestInfo {
  /** 'api' for /api and /apis paths, 'other' for /version, /openapi…, 'root' for the bare prefix. */
  isResource: boolean;
  /** The path below the cluster prefix, e.g. /api/v1/namespaces/x/configmaps. */
  path: string;
  parts: string[];
  group: string;
  version: string;
  namespace: string;
  resource: string;
  name: string;
  subresource: string;
  /** The legacy /watch/ path prefix was used. */
  legacyWatch: boolean;
}

const NAMESPACE_SUBRESOURCES = new Set(['status', 'finalize']);

/** parseRequestInfo splits an API path. Go: RequestInfoFactory.NewRequestInfo */
export function parseRequestInfo(path: string): RequestInfo {
  const parts = path.split('/').filter((p) => p !== '');
  if (path.includes('%')) {
    for (let i = 0; i < parts.length; i++) {
      try {
        parts[i] = decodeURIComponent(parts[i]);
      } catch {
        throw pathNotFound();
      }
    }
  }
  const info: RequestInfo = { isResource: false, path, parts, group: '', version: '', namespace: '', resource: '', name: '', subresource: '', legacyWatch: false };
  let rest: string[];
  if (parts[0] === 'api' && parts.length >= 2) {
    info.version = parts[1];
    rest = parts.slice(2);
  } else if (parts[0] === 'apis' && parts.length >= 3) {
    info.group = parts[1];
    info.version = parts[2];
    rest = parts.slice(3);
  } else return info;
  if (rest.length === 0) return info;
  info.isResource = true;
  if (rest[0] === 'watch') {
    info.legacyWatch = true;
    rest = rest.slice(1);
  }
  if (rest[0] === 'namespaces' && rest.length > 1) {
    info.namespace = rest[1];
    if (rest.length > 2 && !NAMESPACE_SUBRESOURCES.has(rest[2])) rest = rest.slice(2);
  }
  info.resource = rest[0] ?? '';
  info.name = rest[1] ?? '';
  info.subresource = rest[2] ?? '';
  if (rest.length > 3) info.resource = '';
  // /api/v1/namespaces/x is the Namespace x itself.
  if (info.resource === 'namespaces' && info.namespace && rest[0] === 'namespaces') {
    info.name = info.namespace;
    info.subresource = rest[2] ?? '';
    info.namespace = '';
  }
  return info;
}

/** OutputFormat is what the client accepts, in order of its preference. */
export type OutputFormat =
  | { kind: 'json' }
  | { kind: 'yaml' }
  | { kind: 'table'; version: 'v1' | 'v1beta1' }
  | { kind: 'partial'; version: 'v1' | 'v1beta1' }
  | { kind: 'discovery'; version: 'v2' | 'v2beta1' };

interface MediaRange {
  type: string;
  params: Record<string, string>;
}

function parseAccept(header: string | undefined): MediaRange[] {
  if (!header) return [{ type: '*/*', params: {} }];
  return header
    .split(',')
    .map((part) => {
      const [type, ...params] = part.split(';').map((s) => s.trim());
      const p: Record<string, string> = {};
      for (const kv of params) {
        const i = kv.indexOf('=');
        if (i > 0) p[kv.slice(0, i).trim().toLowerCase()] = kv.slice(i + 1).trim();
      }
      return { type: type.toLowerCase(), params: p, q: p.q === undefined ? 1 : Number(p.q) };
    })
    .filter((m) => m.type !== '' && m.q > 0)
    .sort((a, b) => b.q - a.q);
}

/** negotiate picks the output format from the Accept header; `allow` lists what this endpoint can produce. */
export function negotiate(accept: string | undefined, allow: { table?: boolean; partial?: boolean; discovery?: boolean }): OutputFormat {
  for (const m of parseAccept(accept)) {
    const as = m.params.as;
    if (m.type === 'application/json' || m.type === 'application/*' || m.type === '*/*') {
      if (as === undefined) return { kind: 'json' };
      if (as === 'Table' && allow.table && m.params.g === 'meta.k8s.io' && (m.params.v === 'v1' || m.params.v === 'v1beta1')) return { kind: 'table', version: m.params.v };
      if ((as === 'PartialObjectMetadata' || as === 'PartialObjectMetadataList') && allow.partial && m.params.g === 'meta.k8s.io' && (m.params.v === 'v1' || m.params.v === 'v1beta1')) {
        return { kind: 'partial', version: m.params.v };
      }
      if (as === 'APIGroupDiscoveryList' && allow.discovery && m.params.g === 'apidiscovery.k8s.io' && (m.params.v === 'v2' || m.params.v === 'v2beta1')) {
        return { kind: 'discovery', version: m.params.v };
      }
      continue;
    }
    if (m.type === 'application/yaml' && as === undefined) return { kind: 'yaml' };
  }
  throw notAcceptable('only the following media types are accepted: application/json, application/yaml');
}

/** readBody reads the request body up to the limit (413 beyond it). */
export function readBody(req: IncomingMessage, limit = MAX_REQUEST_BODY_BYTES): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    let failed = false;
    req.on('data', (c: Buffer) => {
      if (failed) return;
      size += c.length;
      if (size > limit) {
        failed = true;
        reject(requestEntityTooLarge(`limit is ${limit}`));
        req.resume();
        return;
      }
      chunks.push(c);
    });
    req.on('end', () => {
      if (!failed) resolve(chunks.length === 1 ? chunks[0] : Buffer.concat(chunks));
    });
    req.on('error', (e) => {
      if (!failed) {
        failed = true;
        reject(e);
      }
    });
  });
}

/** decodeBody parses a body as JSON or YAML by its Content-Type (JSON by default). */
export function decodeBody(buf: Buffer, contentType: string | undefined, { yamlAllowed = true, maxDepth = MAX_NESTING_DEPTH } = {}): unknown {
  const type = (contentType ?? 'application/json').split(';')[0].trim().toLowerCase();
  const text = buf.toString('utf8');
  const isYaml = type === 'application/yaml' || type === 'application/apply-patch+yaml' || type === 'text/yaml';
  // A JSON object (what clients send, apply bodies included): V8's parser does not recurse, so parse it first and
  // measure the result's depth; the text is scanned for the offending bracket only when the result is too deep. A
  // body that does not parse takes the path below (depth first, then the parse error), as before.
  if (text.charCodeAt(0) === 123 /* { */ && type !== 'application/vnd.kubernetes.protobuf' && type !== 'application/cbor') {
    let doc: unknown;
    let parsed = true;
    try {
      doc = JSON.parse(text);
    } catch {
      parsed = false;
    }
    if (parsed) {
      const d = depthOf(doc, maxDepth);
      if (d !== undefined) throw tooDeep(nestingError(text, maxDepth) ?? d);
      return doc;
    }
  }
  const deep = type === 'application/vnd.kubernetes.protobuf' ? undefined : nestingError(text, maxDepth);
  if (deep !== undefined) throw tooDeep(deep);
  if (isYaml && yamlAllowed) {
    // Clients (client-go, ours) send apply bodies as JSON, which is YAML too: parse it as JSON first, it is far cheaper.
    if (text.charCodeAt(0) === 123 /* { */) {
      try {
        return JSON.parse(text);
      } catch {
        // Not plain JSON after all: fall through to the YAML parser and its error messages.
      }
    }
    let doc: unknown;
    try {
      doc = parseYaml(text, { strict: false, uniqueKeys: false });
    } catch (e) {
      // The YAML parser recurses per block level too (indentation, not brackets): its stack overflow is this
      // request's problem, answered like any other YAML error.
      throw badRequest(`error converting YAML to JSON: yaml: ${(e as Error).message.split('\n')[0]}`);
    }
    const d = depthOf(doc, maxDepth);
    if (d) throw tooDeep(d);
    return doc;
  }
  if (type === 'application/vnd.kubernetes.protobuf') {
    try {
      return decodeProtobufObject(buf);
    } catch (e) {
      if (e instanceof ProtobufError) throw badRequest(e.message);
      throw e;
    }
  }
  if (type === 'application/cbor') {
    throw unsupportedMediaType(`the body of the request was in an unknown format - accepted media types include: application/json, application/yaml`);
  }
  if (text.length < 64 && text.trim() === '') throw badRequest('Object \'Kind\' is missing in \'\'');
  try {
    return JSON.parse(text);
  } catch (e) {
    throw badRequest(`couldn't get version/kind; json parse error: ${(e as Error).message}`);
  }
}

// depthOf walks a decoded value without recursion and returns the opening bracket of the first level beyond max.
function depthOf(v: unknown, max: number): string | undefined {
  const stack: [unknown, number][] = [[v, 0]];
  while (stack.length > 0) {
    const [x, d] = stack.pop()!;
    if (x === null || typeof x !== 'object') continue;
    if (d + 1 > max) return Array.isArray(x) ? '[' : '{';
    for (const c of Array.isArray(x) ? x : Object.values(x)) if (c !== null && typeof c === 'object') stack.push([c, d + 1]);
  }
  return undefined;
}

/** query reads one query parameter (the first value). */
export function query(url: URL, name: string): string | undefined {
  const v = url.searchParams.get(name);
  return v === null ? undefined : v;
}

/** queryBool reads a boolean query parameter ("true", "1"). */
export function queryBool(url: URL, name: string): boolean {
  const v = url.searchParams.get(name);
  return v === 'true' || v === '1';
}

/** sendJsonText writes a JSON body given as text. */
export function sendJsonText(res: ServerResponse, code: number, text: string, contentType = 'application/json', headers: Record<string, string | string[]> = {}): void {
  // Encoded once: Content-Length from the bytes, not from a separate UTF-8 length scan of (often large) text.
  const body = Buffer.from(text, 'utf8');
  res.writeHead(code, { 'Content-Type': contentType, 'Cache-Control': 'no-cache, private', 'Content-Length': body.length, ...headers });
  res.end(body);
}

/** sendStatus writes a Status error. */
export function sendStatus(res: ServerResponse, status: Status, headers: Record<string, string | string[]> = {}): void {
  if (res.headersSent) {
    res.destroy();
    return;
  }
  sendJsonText(res, status.code, JSON.stringify(status), 'application/json', headers);
}

/** toStatusError turns any thrown value into a StatusError (500 for unexpected errors). */
export function toStatusError(e: unknown): StatusError {
  if (e instanceof StatusError) return e;
  const message = e instanceof Error ? e.message : String(e);
  return new StatusError(
    { kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Failure', message: `Internal error occurred: ${message}`, reason: 'InternalError', details: { causes: [{ message }] }, code: 500 },
    { cause: e },
  );
}
