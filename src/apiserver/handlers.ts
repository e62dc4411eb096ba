// HTTP handlers of one virtual cluster: routing, REST verbs onto the registry, output rendering (objects, lists,
// meta.k8s.io Tables and PartialObjectMetadata, YAML) and chunked watch streams.
// Go: k8s.io/apiserver pkg/endpoints/handlers (get.go, create.go, update.go, patch.go, delete.go, watch.go)
import type { IncomingMessage, ServerResponse } from 'node:http';
import { stringify as toYaml } from 'yaml';
import { serialize, type Cluster } from './cluster.js';
import {
  aggregatedDiscovery,
  apiGroupDoc,
  apiGroupList,
  apiResourceList,
  apiVersions,
  type OpenAPICache,
} from './discovery.js';
import {
  decodeBody,
  negotiate,
  parseRequestInfo,
  query,
  queryBool,
  readBody,
  sendJsonText,
  sendStatus,
  toStatusError,
  type OutputFormat,
} from './http.js';
import { tableCells } from './printers.js';
import type { ClusterAuth } from './auth/cluster-auth.js';
import { requestUser, setRequestUser } from './auth/lookup.js';
import {
  checkVerb,
  create,
  deleteCollection,
  get,
  getScale,
  list,
  outputObject,
  parseDeleteOptions,
  parseSelection,
  patch,
  patchTypeOf,
  remove,
  update,
  type FieldValidation,
  type ListOptions,
  type ListResult,
  type Scope,
  type Selection,
  type Subresource,
  type WriteOptions,
} from './registry.js';
import { gvString, type SubresourceAction } from './resource.js';
import { badRequest, invalid, methodNotAllowed, pathNotFound, tooOldResourceVersion, StatusError } from './status.js';
import { clone, isPlainObject, type JsonText, type KubeObject, type Stored } from './types.js';
import { runWithWebhooks } from './webhooks.js';
import { filterEvent, type ChangeEvent, type EventLine, type Subscriber, type WatchEventType } from './watch.js';

/** VERSION_INFO is what /version reports (kubectl checks the skew against it). */
export const VERSION_INFO = {
  major: '1',
  minor: '32',
  gitVersion: 'v1.32.0-ripple',
  gitCommit: '0000000000000000000000000000000000000000',
  gitTreeState: 'clean',
  buildDate: '2025-01-01T00:00:00Z',
  goVersion: 'go1.23.4',
  compiler: 'gc',
  platform: 'linux/amd64',
};

/** MAX_WATCH_BUFFER: a watcher that falls this far behind is closed, as kube closes slow watchers. */
const MAX_WATCH_BUFFER = 32 * 1024 * 1024;
/** Objects whose JSON is at least this long are written to watches in pieces (see EventLine). */
const PIECEWISE_LINE_CHARS = 64 * 1024;
/** BOOKMARK_INTERVAL_MS: how often watchers that allow bookmarks get one. */
const BOOKMARK_INTERVAL_MS = 30_000;

/** HandlerEnv is what handlers need besides the cluster. */
export interface HandlerEnv {
  /** Path prefix of the cluster, e.g. /clusters/dev. */
  prefix: string;
  hostPort(): string;
  openapi: OpenAPICache;
  /** Tracks open watch streams so the server can end them on stop. */
  watchers: Set<HttpWatcher>;
  /** Authorizes each request's user (absent: every authenticated request is allowed). */
  auth?: ClusterAuth;
}

// Go: handlers.managerOrUserAgent / prefixFromUserAgent
function defaultManager(req: IncomingMessage): string {
  const ua = req.headers['user-agent'] ?? '';
  const p = ua.split('/')[0];
  return p.length > 128 ? p.slice(0, 128) : p;
}

function warningHeaders(warnings: string[]): Record<string, string[]> {
  if (warnings.length === 0) return {};
  return { Warning: [...new Set(warnings)].map((w) => `299 - ${JSON.stringify(w)}`) };
}

// ------------------------------------------------------------------------------ rendering

/** objectJson renders a stored object in the scope's version (the cached JSON when no conversion is needed). */
function objectJson(scope: Scope, s: Stored): string {
  const out = outputObject(scope, s.obj);
  if (out === s.obj) return s.json ?? (s.json = serialize(s.obj));
  return serialize(out);
}

/** plainPrefix is how a stored JSON text that needs no conversion for the scope starts (serialize puts apiVersion and
 * kind first), or undefined when the descriptor converts more than those. */
function plainPrefix(scope: Scope): string | undefined {
  const d = scope.desc;
  return d.plainConversion ? `{"apiVersion":${JSON.stringify(gvString(d.group, scope.version))},"kind":${JSON.stringify(d.kind)},` : undefined;
}

// Typed lists of built-in kinds carry items without apiVersion/kind, like kube's typed list encoding. With `plain`
// (plainPrefix), an item whose stored text starts with it is sent as stored, without parsing a dropped object.
function listItemJson(scope: Scope, s: Stored, plain?: string): string {
  if (plain !== undefined && s.json !== undefined && s.json.startsWith(plain)) return scope.desc.builtin ? `{${s.json.slice(plain.length)}` : s.json;
  const json = objectJson(scope, s);
  if (!scope.desc.builtin) return json;
  const out = outputObject(scope, s.obj);
  const prefix = `{"apiVersion":${JSON.stringify(out.apiVersion)},"kind":${JSON.stringify(out.kind)},`;
  return json.startsWith(prefix) ? `{${json.slice(prefix.length)}` : json;
}

function partialMeta(obj: KubeObject, version: string): string {
  return JSON.stringify({ kind: 'PartialObjectMetadata', apiVersion: `meta.k8s.io/${version}`, metadata: obj.metadata });
}

function listMeta(r: { resourceVersion: number; continue?: string; remainingItemCount?: number }): string {
  const m: Record<string, unknown> = { resourceVersion: String(r.resourceVersion) };
  if (r.continue) m.continue = r.continue;
  if (r.remainingItemCount !== undefined) m.remainingItemCount = r.remainingItemCount;
  return JSON.stringify(m);
}

function columnDefinitions(scope: Scope): object[] {
  return scope.desc.columns(scope.version).map(({ name, type, format, description, priority }) => ({ name, type, format, description, priority }));
}

function tableRow(scope: Scope, obj: KubeObject, includeObject: string, now: number, tableVersion: string): string {
  const out = outputObject(scope, obj);
  const cells = JSON.stringify(tableCells(scope.desc.columns(scope.version), out, now));
  switch (includeObject) {
    case 'None':
      return `{"cells":${cells}}`;
    case 'Object':
      return `{"cells":${cells},"object":${serialize(out)}}`;
    default:
      return `{"cells":${cells},"object":${partialMeta(out, tableVersion)}}`;
  }
}

function tableJson(scope: Scope, objs: KubeObject[], meta: string, includeObject: string, tableVersion: string, headers = true): string {
  const now = Date.now();
  const rows = objs.map((o) => tableRow(scope, o, includeObject, now, tableVersion)).join(',');
  const cols = headers ? JSON.stringify(columnDefinitions(scope)) : '[]';
  return `{"kind":"Table","apiVersion":"meta.k8s.io/${tableVersion}","metadata":${meta},"columnDefinitions":${cols},"rows":[${rows}]}`;
}

function contentTypeOf(f: OutputFormat): string {
  switch (f.kind) {
    case 'yaml':
      return 'application/yaml';
    case 'table':
      return `application/json;as=Table;v=${f.version};g=meta.k8s.io`;
    case 'partial':
      return `application/json;as=PartialObjectMetadata;v=${f.version};g=meta.k8s.io`;
    default:
      return 'application/json';
  }
}

function send(res: ServerResponse, code: number, f: OutputFormat, json: string, headers: Record<string, string | string[]> = {}): void {
  if (f.kind === 'yaml') sendJsonText(res, code, toYaml(JSON.parse(json)), 'application/yaml', headers);
  else sendJsonText(res, code, json, contentTypeOf(f), headers);
}

/** renderObject renders a single object (the result of get, create, update, patch, delete) in the negotiated format. */
function renderObject(scope: Scope, obj: KubeObject, f: OutputFormat, url: URL, stored?: Stored): string {
  switch (f.kind) {
    case 'table':
      if (obj.kind === 'Status') return JSON.stringify(obj);
      return tableJson(scope, [scope.desc.toStorage(obj, scope.version)], JSON.stringify({ resourceVersion: obj.metadata?.resourceVersion ?? '' }), query(url, 'includeObject') ?? 'Metadata', f.version);
    case 'partial':
      return obj.kind === 'Status' ? JSON.stringify(obj) : partialMeta(obj, f.version);
    default:
      if (stored && obj === stored.obj) return stored.json ?? (stored.json = serialize(stored.obj));
      return serialize(obj);
  }
}

function renderList(scope: Scope, r: ListResult, f: OutputFormat, url: URL): string {
  const meta = listMeta(r);
  switch (f.kind) {
    case 'table':
      return tableJson(scope, r.items.map((s) => s.obj), meta, query(url, 'includeObject') ?? 'Metadata', f.version, query(url, 'noHeaders') !== 'true');
    case 'partial':
      return `{"kind":"PartialObjectMetadataList","apiVersion":"meta.k8s.io/${f.version}","metadata":${meta},"items":[${r.items.map((s) => partialMeta(outputObject(scope, s.obj), f.version)).join(',')}]}`;
    default: {
      const apiVersion = gvString(scope.desc.group, scope.version);
      const plain = plainPrefix(scope);
      const items = r.items.map((s) => listItemJson(scope, s, plain)).join(',');
      return `{"kind":${JSON.stringify(scope.desc.listKind)},"apiVersion":${JSON.stringify(apiVersion)},"metadata":${meta},"items":[${items}]}`;
    }
  }
}

// ------------------------------------------------------------------------------ watch

/** HttpWatcher streams one watch: newline-delimited JSON events over a chunked response. */
export class HttpWatcher implements Subscriber {
  readonly storage: string;
  private ready = false;
  private queue: EventLine[] = [];
  private closed = false;
  private headersDone = false;
  private timers: NodeJS.Timeout[] = [];
  private unsubscribe: () => void = () => {};

  constructor(
    private readonly res: ServerResponse,
    private readonly scope: Scope,
    private readonly sel: Selection,
    private readonly format: OutputFormat,
    private readonly url: URL,
    /** Events at or below this resourceVersion are already in the initial state sent. */
    private readonly skipUpTo: number,
    private readonly onClose: (w: HttpWatcher) => void,
  ) {
    this.storage = scope.desc.storage;
  }

  /** attach subscribes and arms the timeout and bookmarks. */
  attach(unsubscribe: () => void, timeoutMs: number, bookmarks: boolean): void {
    this.unsubscribe = unsubscribe;
    this.timers.push(setTimeout(() => this.close(), timeoutMs));
    if (bookmarks) this.timers.push(setInterval(() => this.bookmark(), BOOKMARK_INTERVAL_MS));
  }

  private line(type: WatchEventType | 'BOOKMARK' | 'ERROR', objJson: string): string {
    return `{"type":"${type}","object":${objJson}}\n`;
  }

  /** eventLine is line() for a stored object's JSON, in pieces when it is large (see EventLine). */
  private eventLine(type: WatchEventType, objJson: JsonText): EventLine {
    if (typeof objJson === 'string' && objJson.length < PIECEWISE_LINE_CHARS) return this.line(type, objJson);
    return [`{"type":"${type}","object":`, ...(typeof objJson === 'string' ? [objJson] : objJson), '}\n'];
  }

  /** render builds the event line for an object (cached per event for the plain JSON format). */
  private render(type: WatchEventType, obj: KubeObject, ev: ChangeEvent | undefined): EventLine {
    const f = this.format;
    if (f.kind === 'table') {
      const includeObject = query(this.url, 'includeObject') ?? 'Metadata';
      const t = tableJson(this.scope, [obj], JSON.stringify({ resourceVersion: obj.metadata?.resourceVersion ?? '' }), includeObject, f.version, !this.headersDone);
      this.headersDone = true;
      return this.line(type, t);
    }
    if (f.kind === 'partial') return this.line(type, partialMeta(outputObject(this.scope, obj), f.version));
    if (!ev) return this.eventLine(type, serialize(outputObject(this.scope, obj)));
    const key = `${type}|${this.scope.desc.group}/${this.scope.version}`;
    const cache = (ev.cache ??= new Map());
    let text = cache.get(key);
    if (text === undefined) {
      const out = outputObject(this.scope, obj);
      const json = ev.cur && out === ev.cur.obj ? (ev.cur.jsonText ?? ev.cur.json ?? (ev.cur.json = serialize(ev.cur.obj))) : serialize(out);
      text = this.eventLine(type, json);
      cache.set(key, text);
    }
    return text;
  }

  private write(text: EventLine): void {
    if (this.closed) return;
    if (!this.ready) {
      this.queue.push(text);
      return;
    }
    if (typeof text === 'string') this.res.write(text);
    else for (const piece of text) this.res.write(piece);
    if (this.res.writableLength > MAX_WATCH_BUFFER) this.close();
  }

  /** initial queues the synthetic ADDED events of the starting state. */
  initial(objs: Stored[]): void {
    for (const s of objs) this.write(this.render('ADDED', s.obj, undefined));
  }

  /** replay queues window events (resuming from a resourceVersion). */
  replay(events: ChangeEvent[]): void {
    for (const ev of events) this.onEvent(ev);
  }

  onEvent(ev: ChangeEvent): void {
    if (ev.rv <= this.skipUpTo) return;
    const r = filterEvent(ev, this.sel.matches);
    if (!r) return;
    if (this.sel.name !== undefined && r.obj.metadata?.name !== this.sel.name) return;
    this.write(this.render(r.type, r.obj, ev));
  }

  /** bookmark sends a BOOKMARK with the latest committed resourceVersion (optionally marking the initial events' end). */
  bookmark(initialEventsEnd = false): void {
    if (this.closed || !this.ready) return;
    const rv = String(this.scope.cluster.ctx.store.lastResourceVersion);
    const metadata: Record<string, unknown> = { resourceVersion: rv };
    if (initialEventsEnd) metadata.annotations = { 'k8s.io/initial-events-end': 'true' };
    const obj = { kind: this.scope.desc.kind, apiVersion: gvString(this.scope.desc.group, this.scope.version), metadata };
    this.res.write(this.line('BOOKMARK', JSON.stringify(obj)));
  }

  /** start flushes what was queued and streams from now on. */
  start(): void {
    if (this.closed) return;
    this.ready = true;
    const queued = this.queue;
    this.queue = [];
    if (queued.length === 0) return;
    // Small lines go out together; a large one's pieces on their own (see EventLine).
    const batch: string[] = [];
    for (const text of queued) {
      if (typeof text === 'string') {
        batch.push(text);
        continue;
      }
      if (batch.length > 0) this.res.write(batch.join(''));
      batch.length = 0;
      for (const piece of text) this.res.write(piece);
    }
    if (batch.length > 0) this.res.write(batch.join(''));
  }

  /** error sends a single ERROR event and ends the stream. */
  error(status: object): void {
    this.ready = true;
    this.res.write(this.line('ERROR', JSON.stringify(status)));
    this.close();
  }

  close(): void {
    if (this.closed) return;
    this.closed = true;
    for (const t of this.timers) clearTimeout(t);
    this.unsubscribe();
    this.onClose(this);
    if (!this.res.writableEnded) this.res.end();
  }
}

// kubectl asks for /openapi/v2 only as protobuf (gnostic openapi_v2.Document), as a fallback for kinds OpenAPI v3
// does not describe (a custom resource whose CRD is in the same file). This document has no definitions, so it
// finds no schema and leaves validation to the server, which checks everything anyway; every served kind is in the
// v3 documents, which kubectl prefers. Encoded: swagger=1 "2.0", info=2 {title=1, version=2}.
const OPENAPI_V2_PROTOBUF = (() => {
  const str = (field: number, s: string) => Buffer.concat([Buffer.from([(field << 3) | 2, Buffer.byteLength(s)]), Buffer.from(s)]);
  const info = Buffer.concat([str(1, 'Kubernetes'), str(2, VERSION_INFO.gitVersion)]);
  return Buffer.concat([str(1, '2.0'), Buffer.from([(2 << 3) | 2, info.length]), info]);
})();

function sendProtobufOpenAPIV2(res: ServerResponse): void {
  res.writeHead(200, { 'Content-Type': 'application/com.github.proto-openapi.spec.v2.v1.0+protobuf', 'Content-Length': OPENAPI_V2_PROTOBUF.length });
  res.end(OPENAPI_V2_PROTOBUF);
}

// ------------------------------------------------------------------------------ the handler

/** ClusterHandler serves every request under one cluster's path prefix. */
export class ClusterHandler {
  constructor(
    private readonly cluster: Cluster,
    private readonly env: HandlerEnv,
  ) {}

  /** handle serves one authenticated request; `path` is below the cluster prefix. */
  async handle(req: IncomingMessage, res: ServerResponse, path: string, url: URL): Promise<void> {
    try {
      const auth = this.env.auth;
      const authenticated = requestUser(req);
      if (auth && authenticated) {
        const user = auth.actAs(req, authenticated);
        if (user !== authenticated) setRequestUser(req, user);
        auth.authorize(user, req.method ?? 'GET', path, url);
      }
      if (await this.nonResource(req, res, path, url)) return;
      await this.resource(req, res, path, url);
    } catch (e) {
      const err = toStatusError(e);
      if (err.status.code >= 500) this.cluster.ctx.logger.error({ err: e instanceof Error ? e.stack : String(e), path }, 'request failed');
      // Never answer before what this request may have written is durable or rolled back.
      await this.cluster.ctx.store.committed().catch(() => undefined);
      sendStatus(res, err.status);
    }
  }

  private async nonResource(req: IncomingMessage, res: ServerResponse, path: string, url: URL): Promise<boolean> {
    const p = path.replace(/\/+$/, '') || '/';
    if (req.method !== 'GET' && req.method !== 'HEAD') {
      if (/^\/(version|healthz|livez|readyz|api|apis|openapi)(\/|$)/.test(p) && !parseRequestInfo(p).isResource) throw methodNotAllowed();
      return false;
    }
    const cluster = this.cluster;
    switch (p) {
      case '/version':
        sendJsonText(res, 200, JSON.stringify(VERSION_INFO, null, 2));
        return true;
      case '/healthz':
      case '/livez':
      case '/readyz':
        res.writeHead(200, { 'Content-Type': 'text/plain; charset=utf-8', 'X-Content-Type-Options': 'nosniff' });
        res.end('ok');
        return true;
      case '/api':
      case '/apis': {
        const f = negotiate(req.headers.accept, { discovery: true });
        if (f.kind === 'discovery') {
          const doc = JSON.stringify(aggregatedDiscovery(cluster, p === '/api', f.version));
          sendJsonText(res, 200, doc, `application/json;g=apidiscovery.k8s.io;v=${f.version};as=APIGroupDiscoveryList`, { Vary: 'Accept' });
        } else {
          const doc = p === '/api' ? apiVersions(this.env.hostPort()) : apiGroupList(cluster);
          send(res, 200, f, JSON.stringify(doc), { Vary: 'Accept' });
        }
        return true;
      }
      case '/openapi/v2':
        if (/application\/json|\*\/\*/.test(req.headers.accept ?? '*/*')) sendJsonText(res, 200, this.env.openapi.openAPIV2());
        else sendProtobufOpenAPIV2(res);
        return true;
      case '/openapi/v3':
        sendJsonText(res, 200, JSON.stringify(this.env.openapi.v3Root(this.env.prefix)));
        return true;
    }
    if (p.startsWith('/openapi/v3/')) {
      const doc = this.env.openapi.v3GroupVersion(p.slice('/openapi/v3/'.length));
      if (!doc) throw pathNotFound();
      const immutable = url.searchParams.get('hash') === doc.hash;
      sendJsonText(res, 200, doc.text, 'application/json', {
        ETag: `"${doc.hash}"`,
        'Cache-Control': immutable ? 'public, immutable' : 'no-cache, private',
        Expires: immutable ? new Date(Date.now() + 365 * 86400_000).toUTCString() : '0',
      });
      return true;
    }
    const info = parseRequestInfo(p);
    if (info.isResource) return false;
    const parts = info.parts;
    if (parts[0] === 'api' && parts.length === 2) {
      const doc = apiResourceList(cluster, '', parts[1]);
      if (!doc) throw pathNotFound();
      send(res, 200, negotiate(req.headers.accept, {}), JSON.stringify(doc));
      return true;
    }
    if (parts[0] === 'apis' && parts.length === 2) {
      const doc = apiGroupDoc(cluster, parts[1]);
      if (!doc) throw pathNotFound();
      send(res, 200, negotiate(req.headers.accept, {}), JSON.stringify(doc));
      return true;
    }
    if (parts[0] === 'apis' && parts.length === 3) {
      const doc = apiResourceList(cluster, parts[1], parts[2]);
      if (!doc) throw pathNotFound();
      send(res, 200, negotiate(req.headers.accept, {}), JSON.stringify(doc));
      return true;
    }
    if (p === '/') {
      sendJsonText(res, 200, JSON.stringify({ paths: ['/api', '/api/v1', '/apis', '/healthz', '/livez', '/openapi/v2', '/openapi/v3', '/readyz', '/version'] }, null, 2));
      return true;
    }
    throw pathNotFound();
  }

  private scopeOf(info: ReturnType<typeof parseRequestInfo>): Scope {
    const desc = this.cluster.registry.lookup(info.group, info.version, info.resource);
    if (!desc) throw pathNotFound();
    let subresource: Subresource;
    switch (info.subresource) {
      case '':
        break;
      case 'status':
        if (!desc.subresources.status) throw pathNotFound();
        subresource = 'status';
        break;
      case 'scale':
        if (!desc.subresources.scale) throw pathNotFound();
        subresource = 'scale';
        break;
      case 'ephemeralcontainers':
        if (!(desc.group === '' && desc.plural === 'pods')) throw pathNotFound();
        subresource = 'ephemeralcontainers';
        break;
      case 'finalize':
        if (!(desc.group === '' && desc.plural === 'namespaces')) throw pathNotFound();
        subresource = 'finalize';
        break;
      default: {
        const action = desc.subresources.actions?.find((a) => a.name === info.subresource);
        if (!action) throw pathNotFound();
        if (!desc.namespaced && info.namespace) throw pathNotFound();
        return { cluster: this.cluster, desc, version: info.version, namespace: info.namespace, action };
      }
    }
    if (!desc.namespaced && info.namespace) throw pathNotFound();
    return { cluster: this.cluster, desc, version: info.version, namespace: info.namespace, subresource };
  }

  private async resource(req: IncomingMessage, res: ServerResponse, path: string, url: URL): Promise<void> {
    const info = parseRequestInfo(path);
    if (!info.resource) throw pathNotFound();
    const scope = this.scopeOf(info);
    const { desc } = scope;
    const method = req.method ?? 'GET';
    const named = info.name !== '';
    // Namespaced resources are addressed by namespace except for cross-namespace list/watch.
    if (desc.namespaced && !info.namespace && (named || method !== 'GET')) throw pathNotFound();
    if ((scope.subresource || scope.action) && !named) throw pathNotFound();
    if (info.legacyWatch && method !== 'GET') throw methodNotAllowed();
    if (scope.action) return this.runAction(req, res, scope, scope.action, info.name, url);
    switch (method) {
      case 'GET':
      case 'HEAD':
        if (named && !info.legacyWatch) return this.get(req, res, scope, info.name, url);
        checkVerb(desc, queryBool(url, 'watch') || info.legacyWatch ? 'watch' : 'list');
        if (queryBool(url, 'watch') || info.legacyWatch) return this.watch(req, res, scope, url, named ? info.name : undefined);
        return this.list(req, res, scope, url);
      case 'POST':
        if (named) throw methodNotAllowed();
        checkVerb(desc, 'create');
        return this.create(req, res, scope, url);
      case 'PUT':
        if (!named) throw methodNotAllowed();
        checkVerb(desc, 'update');
        return this.update(req, res, scope, info.name, url);
      case 'PATCH':
        if (!named) throw methodNotAllowed();
        checkVerb(desc, 'patch');
        return this.patch(req, res, scope, info.name, url);
      case 'DELETE':
        if (scope.subresource) throw methodNotAllowed();
        if (named) {
          checkVerb(desc, 'delete');
          return this.delete(req, res, scope, info.name, url);
        }
        checkVerb(desc, 'deletecollection');
        return this.deleteCollection(req, res, scope, url);
      default:
        throw methodNotAllowed();
    }
  }

  // An action subresource: POST is its create, PUT its update, GET its get (Go: the subresource's REST storage).
  private async runAction(req: IncomingMessage, res: ServerResponse, scope: Scope, action: SubresourceAction, name: string, url: URL): Promise<void> {
    const method = req.method ?? 'GET';
    const verb = method === 'POST' ? 'create' : method === 'PUT' ? 'update' : method === 'GET' || method === 'HEAD' ? 'get' : method === 'PATCH' ? 'patch' : 'delete';
    if (!action.verbs.includes(verb)) throw methodNotAllowed();
    const o = verb === 'get' || action.stream ? undefined : this.writeOptions(req, url, verb === 'create' ? 'CreateOptions' : 'UpdateOptions');
    const body = verb === 'get' || action.stream ? undefined : decodeBody(await readBody(req), req.headers['content-type']);
    const r = action.run({ cluster: this.cluster, namespace: scope.namespace, name, verb, body, dryRun: o?.dryRun ?? false, fieldManager: o?.fieldManager || defaultManager(req), query: url.searchParams });
    const warnings = [...(o?.warnings ?? []), ...(r.warnings ?? [])];
    if (r.text !== undefined) {
      res.writeHead(r.code, { 'Content-Type': 'text/plain', ...warningHeaders(warnings) });
      res.end(r.text);
      return;
    }
    return this.respond(res, r.code, { kind: 'json' }, JSON.stringify(r.obj), warnings);
  }

  private outputFormat(req: IncomingMessage): OutputFormat {
    return negotiate(req.headers.accept, { table: true, partial: true });
  }

  private async respond(res: ServerResponse, code: number, f: OutputFormat, json: string, warnings: string[] = []): Promise<void> {
    await this.cluster.ctx.store.committed();
    send(res, code, f, json, warningHeaders(warnings));
  }

  private async get(req: IncomingMessage, res: ServerResponse, scope: Scope, name: string, url: URL): Promise<void> {
    checkVerb(scope.desc, 'get');
    const f = this.outputFormat(req);
    if (scope.subresource === 'scale') return this.respond(res, 200, f, JSON.stringify(getScale(scope, name)));
    const s = get(scope, name);
    return this.respond(res, 200, f, renderObject(scope, outputObject(scope, s.obj), f, url, s));
  }

  private listOptions(url: URL): ListOptions {
    const limit = query(url, 'limit');
    if (limit !== undefined && !/^-?\d+$/.test(limit)) throw badRequest(`strconv.ParseInt: parsing ${JSON.stringify(limit)}: invalid syntax`);
    return {
      labelSelector: query(url, 'labelSelector'),
      fieldSelector: query(url, 'fieldSelector'),
      limit: limit === undefined ? undefined : Number(limit),
      continue: query(url, 'continue'),
      resourceVersion: query(url, 'resourceVersion'),
      resourceVersionMatch: query(url, 'resourceVersionMatch'),
    };
  }

  private async list(req: IncomingMessage, res: ServerResponse, scope: Scope, url: URL): Promise<void> {
    const f = this.outputFormat(req);
    const r = list(scope, this.listOptions(url));
    return this.respond(res, 200, f, renderList(scope, r, f, url));
  }

  private async watch(req: IncomingMessage, res: ServerResponse, scope: Scope, url: URL, name: string | undefined): Promise<void> {
    const f = this.outputFormat(req);
    const o = this.listOptions(url);
    if (name) o.fieldSelector = o.fieldSelector ? `${o.fieldSelector},metadata.name=${name}` : `metadata.name=${name}`;
    const sel = parseSelection(scope.desc, o);
    const bookmarks = queryBool(url, 'allowWatchBookmarks');
    const sendInitialRaw = query(url, 'sendInitialEvents');
    const sendInitial = sendInitialRaw === 'true' || sendInitialRaw === '1';
    if (sendInitial) {
      const errs = [];
      if (o.resourceVersionMatch !== 'NotOlderThan') errs.push({ type: 'FieldValueForbidden' as const, field: 'resourceVersionMatch', detail: 'sendInitialEvents requires setting resourceVersionMatch to NotOlderThan' });
      if (!bookmarks) errs.push({ type: 'FieldValueForbidden' as const, field: 'allowWatchBookmarks', detail: 'sendInitialEvents requires setting allowWatchBookmarks to true' });
      if (errs.length > 0) throw invalid({ group: 'meta.k8s.io', kind: 'ListOptions' }, '', errs);
    } else if (o.resourceVersionMatch) {
      throw invalid({ group: 'meta.k8s.io', kind: 'ListOptions' }, '', [{ type: 'FieldValueForbidden', field: 'resourceVersionMatch', detail: 'resourceVersionMatch is forbidden for watch unless sendInitialEvents is provided' }]);
    }
    const rvParam = o.resourceVersion ?? '';
    if (rvParam !== '' && !/^\d+$/.test(rvParam)) throw badRequest(`invalid resource version: strconv.ParseUint: parsing ${JSON.stringify(rvParam)}: invalid syntax`);
    const timeoutParam = query(url, 'timeoutSeconds');
    const timeoutMs = timeoutParam && /^\d+$/.test(timeoutParam) ? Number(timeoutParam) * 1000 : (1800 + Math.random() * 1800) * 1000;
    const cluster = this.cluster;
    // Initial state: legacy watches without a resourceVersion (or "0") and sendInitialEvents=true start with it.
    const wantsInitial = sendInitial || ((rvParam === '' || rvParam === '0') && sendInitialRaw !== 'false');
    const startRv = cluster.ctx.currentRv();
    const w = new HttpWatcher(res, scope, sel, f, url, wantsInitial ? startRv : 0, (x) => this.env.watchers.delete(x));
    res.writeHead(200, { 'Content-Type': contentTypeOf(f.kind === 'yaml' ? { kind: 'json' } : f), 'Cache-Control': 'no-cache, private', 'Transfer-Encoding': 'chunked' });
    res.flushHeaders();
    this.env.watchers.add(w);
    req.on('close', () => w.close());
    if (wantsInitial) {
      const page = list(scope, { labelSelector: o.labelSelector, fieldSelector: o.fieldSelector });
      w.initial(page.items);
      w.attach(cluster.hub.subscribe(w), timeoutMs, bookmarks);
      await cluster.ctx.store.committed();
      w.start();
      if (sendInitial) w.bookmark(true);
      return;
    }
    if (rvParam !== '' && rvParam !== '0') {
      const from = Number(rvParam);
      const events = cluster.hub.since(scope.desc.storage, from);
      if (!events) {
        w.error(tooOldResourceVersion(from, cluster.hub.floor).status);
        return;
      }
      w.replay(events);
    }
    w.attach(cluster.hub.subscribe(w), timeoutMs, bookmarks);
    w.start();
  }

  // Writes run under admission webhooks when the cluster has any (see webhooks.ts).
  private admitted<T>(req: IncomingMessage, write: Parameters<typeof runWithWebhooks<T>>[2]): Promise<T> {
    return runWithWebhooks(this.cluster, requestUser(req) ?? { username: `ripple:${this.cluster.name}:admin`, groups: ['system:masters', 'system:authenticated'] }, write);
  }

  private writeOptions(req: IncomingMessage, url: URL, kind: 'CreateOptions' | 'UpdateOptions' | 'PatchOptions'): WriteOptions {
    const errs = [];
    const dryRun = url.searchParams.getAll('dryRun');
    for (const d of dryRun) if (d !== 'All') errs.push({ type: 'FieldValueNotSupported' as const, field: 'dryRun', badValue: dryRun, detail: 'supported values: "All"' });
    const fv = query(url, 'fieldValidation') ?? '';
    const fvNorm = ({ '': 'Warn', Strict: 'Strict', Warn: 'Warn', Ignore: 'Ignore', strict: 'Strict', warn: 'Warn', ignore: 'Ignore' } as Record<string, FieldValidation>)[fv];
    if (!fvNorm) errs.push({ type: 'FieldValueNotSupported' as const, field: 'fieldValidation', badValue: fv, detail: 'supported values: "Ignore", "Strict", "Warn"' });
    const fm = query(url, 'fieldManager');
    if (fm !== undefined && Buffer.byteLength(fm) > 128) errs.push({ type: 'FieldValueTooLong' as const, field: 'fieldManager', detail: 'must have at most 128 bytes' });
    if (errs.length > 0) throw invalid({ group: 'meta.k8s.io', kind }, '', errs);
    return { dryRun: dryRun.length > 0, fieldManager: fm ?? '', fieldValidation: fvNorm!, warnings: [], user: requestUser(req) };
  }

  private async create(req: IncomingMessage, res: ServerResponse, scope: Scope, url: URL): Promise<void> {
    const f = this.outputFormat(req);
    const o = this.writeOptions(req, url, 'CreateOptions');
    o.fieldManager ||= defaultManager(req);
    const body = decodeBody(await readBody(req, this.cluster.limits.maxRequestBodyBytes), req.headers['content-type'], { maxDepth: this.cluster.limits.maxNestingDepth });
    const r = await this.admitted(req, (gate) => create(scope, gate ? clone(body) : body, { ...o, gate }));
    return this.respond(res, 201, f, renderObject(scope, r.obj, f, url, r.stored), o.warnings);
  }

  private async update(req: IncomingMessage, res: ServerResponse, scope: Scope, name: string, url: URL): Promise<void> {
    const f = this.outputFormat(req);
    const o = this.writeOptions(req, url, 'UpdateOptions');
    o.fieldManager ||= defaultManager(req);
    const body = decodeBody(await readBody(req, this.cluster.limits.maxRequestBodyBytes), req.headers['content-type'], { maxDepth: this.cluster.limits.maxNestingDepth });
    const r = await this.admitted(req, (gate) => update(scope, name, gate ? clone(body) : body, { ...o, gate }));
    return this.respond(res, r.created ? 201 : 200, f, renderObject(scope, r.obj, f, url, r.stored), o.warnings);
  }

  private async patch(req: IncomingMessage, res: ServerResponse, scope: Scope, name: string, url: URL): Promise<void> {
    const f = this.outputFormat(req);
    const ct = req.headers['content-type'] ?? '';
    const type = patchTypeOf(ct);
    if (!type) {
      throw new StatusError({
        kind: 'Status',
        apiVersion: 'v1',
        metadata: {},
        status: 'Failure',
        message: `the body of the request was in an unknown format - accepted media types include: application/json-patch+json, application/merge-patch+json, application/apply-patch+yaml, application/strategic-merge-patch+json`,
        reason: 'UnsupportedMediaType',
        code: 415,
      } as never);
    }
    const o = this.writeOptions(req, url, 'PatchOptions');
    const force = query(url, 'force');
    if (type !== 'apply') o.fieldManager ||= defaultManager(req);
    const buf = await readBody(req, this.cluster.limits.maxRequestBodyBytes);
    const body = decodeBody(buf, type === 'apply' ? 'application/apply-patch+yaml' : 'application/json', { maxDepth: this.cluster.limits.maxNestingDepth });
    const r = await this.admitted(req, (gate) => patch(scope, name, type, gate ? clone(body) : body, { ...o, gate, force: force === 'true' || force === '1' }));
    return this.respond(res, r.created ? 201 : 200, f, renderObject(scope, r.obj, f, url, r.stored), o.warnings);
  }

  private async deleteOptions(req: IncomingMessage, url: URL) {
    const buf = await readBody(req, this.cluster.limits.maxRequestBodyBytes);
    let raw: Record<string, unknown> = {};
    if (buf.length > 0 && buf.toString('utf8').trim() !== '') {
      const body = decodeBody(buf, req.headers['content-type'], { maxDepth: this.cluster.limits.maxNestingDepth });
      if (!isPlainObject(body)) throw badRequest('DeleteOptions must be an object');
      raw = body;
    }
    for (const k of ['propagationPolicy', 'gracePeriodSeconds', 'orphanDependents']) {
      const v = query(url, k);
      if (v === undefined) continue;
      raw[k] = k === 'propagationPolicy' ? v : k === 'orphanDependents' ? v === 'true' : Number(v);
    }
    const dry = url.searchParams.getAll('dryRun');
    if (dry.length > 0) raw.dryRun = dry;
    if (Array.isArray(raw.dryRun) && raw.dryRun.some((d) => d !== 'All')) {
      throw invalid({ group: 'meta.k8s.io', kind: 'DeleteOptions' }, '', [{ type: 'FieldValueNotSupported', field: 'dryRun', badValue: raw.dryRun, detail: 'supported values: "All"' }]);
    }
    return parseDeleteOptions(raw);
  }

  private async delete(req: IncomingMessage, res: ServerResponse, scope: Scope, name: string, url: URL): Promise<void> {
    const f = this.outputFormat(req);
    const opts = await this.deleteOptions(req, url);
    const warnings: string[] = [];
    const r = await this.admitted(req, (gate) => remove(scope, name, { ...opts, gate }, warnings));
    // Go: handlers/delete.go — 202 only when the caller asked for cascading deletion that is still pending.
    const code = !r.deleted && opts.orphanDependents === false ? 202 : 200;
    return this.respond(res, code, f, r.obj.kind === 'Status' ? JSON.stringify(r.obj) : renderObject(scope, r.obj, f, url), warnings);
  }

  private async deleteCollection(req: IncomingMessage, res: ServerResponse, scope: Scope, url: URL): Promise<void> {
    const f = this.outputFormat(req);
    const opts = await this.deleteOptions(req, url);
    const lo = this.listOptions(url);
    const items = await this.admitted(req, (gate) => deleteCollection(scope, lo, { ...opts, gate }));
    const apiVersion = gvString(scope.desc.group, scope.version);
    const json = `{"kind":${JSON.stringify(scope.desc.listKind)},"apiVersion":${JSON.stringify(apiVersion)},"metadata":{},"items":[${items.map(serialize).join(',')}]}`;
    return this.respond(res, 200, f.kind === 'table' ? { kind: 'json' } : f, json);
  }
}
