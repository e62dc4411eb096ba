// KubeClient: one small interface to one cluster for any kind addressed by apiVersion+kind — get, list (paged
// transparently), create, update, status and other subresources, patch (json/merge/strategic), server-side apply,
// delete, watch, plus discovery and /version. Errors are StatusError (server answers), UnreachableError (no answer)
// and KindNotInstalledError (discovery). `get` throws NotFound; `getIfExists` returns undefined instead.
import type { KubeConfig } from '@kubernetes/client-node';
import { formatLabelSelector, type KubeObject as ApiKubeObject, type LabelSelector } from '../api/index.js';
import { Discovery, groupVersionPath, type ResourceInfo } from './discovery.js';
import { StatusError, isGone, isNotFound } from './errors.js';
import { loadKubeConfig, type KubeConfigSource } from './kubeconfig.js';
import { Transport, type Impersonation, type HttpRequest, type TransportOptions } from './transport.js';
import { WatchLineDecoder } from './watch-lines.js';

/** KubeObject is any Kubernetes object: apiVersion, kind, metadata and whatever else its kind has. */
export type KubeObject = ApiKubeObject & { [field: string]: unknown };

/** GVK names a kind by apiVersion (`v1`, `apps/v1`) and kind. */
export interface GVK {
  apiVersion: string;
  kind: string;
}

/** ObjectRef names one object: its kind, namespace (omit for cluster-scoped kinds) and name. */
export interface ObjectRef extends GVK {
  namespace?: string;
  name: string;
}

/** Selector is a label or field selector: the query-string form (`a=b,c in (x)`) or, for labels, a LabelSelector. */
export type Selector = string | LabelSelector;

/** ListOptions filters a list or watch. */
export interface ListOptions {
  /** Namespace to list in; omitted: all namespaces (ignored for cluster-scoped kinds). */
  namespace?: string;
  labelSelector?: Selector;
  fieldSelector?: string;
}

/** ListPageOptions adds paging to ListOptions: `list` follows `continue` tokens itself, pageSize items at a time. */
export interface ListPageOptions extends ListOptions {
  /** Items per request (default 500); 0 asks for everything at once. */
  pageSize?: number;
  signal?: AbortSignal;
  /** Ask for metadata only (kube's PartialObjectMetadataList: items of kind PartialObjectMetadata carrying the objects'
   * metadata), as client-go's metadata informers do — for readers that need names, labels and resourceVersions of
   * objects whose content they must not hold (Secrets) or do not need. */
  metadataOnly?: boolean;
}

/** ObjectList is the result of a list: every item and the collection's resourceVersion (to start a watch from). */
export interface ObjectList<T> {
  items: T[];
  resourceVersion: string;
}

/** FieldValidation is the server-side field validation level of a write. */
export type FieldValidation = 'Strict' | 'Warn' | 'Ignore';

/** WriteOptions are the options every write takes. */
export interface WriteOptions {
  /** Validate and run admission without persisting. */
  dryRun?: boolean;
  fieldManager?: string;
  fieldValidation?: FieldValidation;
  signal?: AbortSignal;
  /** Ask for the written object's metadata only (kube's PartialObjectMetadata: apiVersion meta.k8s.io/v1, kind
   * PartialObjectMetadata), not the whole object: for writers that need only the new resourceVersion/generation of a
   * large object (an EventReport carrying its collected resources). */
  metadataOnly?: boolean;
}

/** PatchType names the patch formats: JSON patch (RFC 6902), JSON merge patch (RFC 7386) or strategic merge patch. */
export type PatchType = 'json' | 'merge' | 'strategic';

/** PatchOptions are WriteOptions plus the subresource to patch. */
export interface PatchOptions extends WriteOptions {
  subresource?: string;
}

/** ApplyOptions configures a server-side apply. */
export interface ApplyOptions {
  /** The field manager that owns the applied fields (required by the API). */
  fieldManager: string;
  /** Take ownership of fields other managers own instead of failing with a Conflict. */
  force?: boolean;
  /** Apply to a subresource, e.g. `status`. */
  subresource?: string;
  dryRun?: boolean;
  fieldValidation?: FieldValidation;
  /** Ask for the written object's metadata only (kube's PartialObjectMetadata: apiVersion meta.k8s.io/v1, kind
   * PartialObjectMetadata), not the whole object: for writers that need only the new resourceVersion/generation of a
   * large object (an EventReport carrying its collected resources). */
  metadataOnly?: boolean;
  signal?: AbortSignal;
}

/** DeleteOptions configures a delete. */
export interface DeleteOptions {
  propagationPolicy?: 'Orphan' | 'Background' | 'Foreground';
  /** Delete only if the object still has this uid / resourceVersion (409 Conflict otherwise). */
  preconditions?: { uid?: string; resourceVersion?: string };
  gracePeriodSeconds?: number;
  dryRun?: boolean;
  signal?: AbortSignal;
}

/** WatchEventType is the type of a watch event (ERROR events end the watch with a StatusError instead). */
export type WatchEventType = 'ADDED' | 'MODIFIED' | 'DELETED' | 'BOOKMARK';

/** WatchEvent is one event of a watch stream. */
export interface WatchEvent<T = KubeObject> {
  type: WatchEventType;
  object: T;
}

/** WatchOptions filters a watch and says where it starts. */
export interface WatchOptions extends ListOptions {
  /** Start after this resourceVersion; omitted or "0": start with synthetic ADDED events for the current state. */
  resourceVersion?: string;
  /** Ask for BOOKMARK events carrying the latest resourceVersion (default true). */
  allowWatchBookmarks?: boolean;
  /** Server-side timeout; the stream ends normally after it. */
  timeoutSeconds?: number;
  /** Aborts opening the watch (use Watch.stop() once it is open). */
  signal?: AbortSignal;
  /** Ask for metadata only (kube's PartialObjectMetadata, as client-go's metadata informers do): events then carry
   * apiVersion meta.k8s.io/v1, kind PartialObjectMetadata and the object's metadata — cheap for large objects. */
  metadataOnly?: boolean;
}

/** Watch is an open watch stream. */
export interface Watch {
  /** stop ends the stream; `done` then resolves. */
  stop(): void;
  /**
   * done settles when the stream ends: resolves when the server closed it normally (timeout) or after stop();
   * rejects with StatusError for an ERROR event (410 Expired: resume from a fresh list), UnreachableError when the
   * connection broke, or whatever the event callback threw.
   */
  readonly done: Promise<void>;
}

/** VersionInfo is the answer of GET /version. */
export interface VersionInfo {
  major: string;
  minor: string;
  gitVersion: string;
  platform?: string;
  [field: string]: unknown;
}

/** KubeClientOptions configures a KubeClient. */
export interface KubeClientOptions extends TransportOptions {
  /** A name for logs and errors (default: the server URL). */
  name?: string;
}

/** labelSelectorString renders a label selector for the query string (undefined: select everything). */
export function labelSelectorString(sel: Selector | undefined): string | undefined {
  if (sel === undefined) return undefined;
  if (typeof sel === 'string') return sel === '' ? undefined : sel;
  const s = formatLabelSelector(sel);
  if (s === '<none>') return undefined;
  if (s === '<error>') throw new StatusError({ kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Failure', message: `invalid label selector ${JSON.stringify(sel)}`, reason: 'BadRequest', code: 400 });
  return s;
}

function badRequest(message: string): StatusError {
  return new StatusError({ kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Failure', message, reason: 'BadRequest', code: 400 });
}

const METADATA_ONLY = 'application/json;as=PartialObjectMetadata;g=meta.k8s.io;v=v1';
const METADATA_ONLY_LIST = 'application/json;as=PartialObjectMetadataList;g=meta.k8s.io;v=v1';

/** acceptFor is the Accept header a write asks for: the whole object (default) or its metadata only. */
function acceptFor(o: { metadataOnly?: boolean }): string | undefined {
  return o.metadataOnly ? METADATA_ONLY : undefined;
}

function writeQuery(o: { dryRun?: boolean; fieldManager?: string; fieldValidation?: FieldValidation }): HttpRequest['query'] {
  return { dryRun: o.dryRun ? 'All' : undefined, fieldManager: o.fieldManager, fieldValidation: o.fieldValidation };
}

const PATCH_CONTENT_TYPES: Record<PatchType, string> = {
  json: 'application/json-patch+json',
  merge: 'application/merge-patch+json',
  strategic: 'application/strategic-merge-patch+json',
};

/** KubeClient talks to one cluster. Create it with createKubeClient; it is cheap until the first request. */
export class KubeClient {
  /** The server URL of the cluster. */
  readonly server: string;
  /** A name for logs (the option, else the server URL). */
  readonly name: string;
  readonly discovery: Discovery;
  private readonly transport: Transport;

  constructor(
    /** The client-node KubeConfig this client was built from (its current context). */
    readonly kubeConfig: KubeConfig,
    private readonly options: KubeClientOptions = {},
  ) {
    this.transport = new Transport(kubeConfig, options);
    this.server = this.transport.server;
    this.name = options.name ?? this.server;
    this.discovery = new Discovery(this.transport);
  }

  /** resource resolves apiVersion/kind through discovery (KindNotInstalledError when not served). */
  resource(gvk: GVK): Promise<ResourceInfo> {
    return this.discovery.resolve(gvk.apiVersion, gvk.kind);
  }

  private path(info: ResourceInfo, namespace: string | undefined, name?: string, subresource?: string): string {
    let p = groupVersionPath(info.apiVersion);
    if (info.namespaced && namespace) p += `/namespaces/${encodeURIComponent(namespace)}`;
    p += `/${info.plural}`;
    if (name !== undefined) {
      if (name === '') throw badRequest(`${info.kind}: name is required`);
      p += `/${encodeURIComponent(name)}`;
    }
    if (subresource) p += `/${subresource}`;
    return p;
  }

  private namespaceOf(info: ResourceInfo, namespace: string | undefined, what: string): string | undefined {
    if (!info.namespaced) return undefined;
    if (!namespace) throw badRequest(`${what}: ${info.kind} is namespaced; metadata.namespace is required`);
    return namespace;
  }

  private async objectPath(obj: { apiVersion?: string; kind?: string; metadata?: { name?: string; namespace?: string } }, what: string, subresource?: string, withName = true): Promise<{ info: ResourceInfo; path: string }> {
    if (!obj || typeof obj.apiVersion !== 'string' || typeof obj.kind !== 'string') throw badRequest(`${what}: apiVersion and kind are required`);
    const info = await this.resource({ apiVersion: obj.apiVersion, kind: obj.kind });
    const ns = this.namespaceOf(info, obj.metadata?.namespace, `${what} ${obj.kind}`);
    const name = withName ? (obj.metadata?.name ?? '') : undefined;
    return { info, path: this.path(info, ns, name, subresource) };
  }

  /** get reads one object; throws StatusError NotFound when it does not exist. */
  async get<T = KubeObject>(ref: ObjectRef, opts: { signal?: AbortSignal } = {}): Promise<T> {
    const info = await this.resource(ref);
    const ns = this.namespaceOf(info, ref.namespace, `get ${ref.kind}`);
    return this.transport.request<T>({ method: 'GET', path: this.path(info, ns, ref.name), signal: opts.signal });
  }

  /** getIfExists reads one object, or returns undefined when it (or its namespace) does not exist. */
  async getIfExists<T = KubeObject>(ref: ObjectRef, opts: { signal?: AbortSignal } = {}): Promise<T | undefined> {
    try {
      return await this.get<T>(ref, opts);
    } catch (err) {
      if (isNotFound(err)) return undefined;
      throw err;
    }
  }

  /**
   * list reads every object of a kind matching the options, following continue tokens. If a continue token expires
   * mid-way (410), the list restarts as one unpaged request, like client-go's pager.
   */
  async list<T = KubeObject>(gvk: GVK, opts: ListPageOptions = {}): Promise<ObjectList<T>> {
    const info = await this.resource(gvk);
    const path = this.path(info, info.namespaced ? opts.namespace : undefined);
    const base = { labelSelector: labelSelectorString(opts.labelSelector), fieldSelector: opts.fieldSelector || undefined };
    const pageSize = opts.pageSize ?? 500;
    const items: T[] = [];
    let cont: string | undefined;
    let rv = '';
    for (;;) {
      let page: { items?: T[]; metadata?: { resourceVersion?: string; continue?: string } };
      try {
        page = await this.transport.request({
          method: 'GET',
          path,
          query: { ...base, limit: pageSize > 0 ? pageSize : undefined, continue: cont },
          accept: opts.metadataOnly ? METADATA_ONLY_LIST : undefined,
          signal: opts.signal,
        });
      } catch (err) {
        if (cont !== undefined && isGone(err)) return this.list<T>(gvk, { ...opts, pageSize: 0 });
        throw err;
      }
      // Items of a list carry no apiVersion/kind; fill them in so every object is self-describing.
      for (const it of page.items ?? []) {
        const o = it as { apiVersion?: string; kind?: string };
        o.apiVersion ??= info.apiVersion;
        o.kind ??= info.kind;
        items.push(it);
      }
      rv = page.metadata?.resourceVersion ?? rv;
      cont = page.metadata?.continue || undefined;
      if (!cont) return { items, resourceVersion: rv };
    }
  }

  /** create creates an object (metadata.namespace required for namespaced kinds); returns what the server stored. */
  async create<T = KubeObject>(obj: ApiKubeObject | KubeObject, opts: WriteOptions = {}): Promise<T> {
    const { path } = await this.objectPath(obj, 'create', undefined, false);
    return this.transport.request<T>({ method: 'POST', path, body: obj, query: writeQuery(opts), accept: acceptFor(opts), signal: opts.signal });
  }

  /** update replaces an object (PUT); metadata.resourceVersion, when set, must be current (409 Conflict otherwise). */
  async update<T = KubeObject>(obj: ApiKubeObject | KubeObject, opts: WriteOptions = {}): Promise<T> {
    const { path } = await this.objectPath(obj, 'update');
    return this.transport.request<T>({ method: 'PUT', path, body: obj, query: writeQuery(opts), accept: acceptFor(opts), signal: opts.signal });
  }

  /** updateStatus replaces the status subresource of an object. */
  updateStatus<T = KubeObject>(obj: ApiKubeObject | KubeObject, opts: WriteOptions = {}): Promise<T> {
    return this.updateSubresource<T>(obj, 'status', opts);
  }

  /** updateSubresource replaces a subresource (`status`, `scale`, …) of an object. */
  async updateSubresource<T = KubeObject>(obj: ApiKubeObject | KubeObject, subresource: string, opts: WriteOptions = {}): Promise<T> {
    const { path } = await this.objectPath(obj, `update ${subresource} of`, subresource);
    return this.transport.request<T>({ method: 'PUT', path, body: obj, query: writeQuery(opts), accept: acceptFor(opts), signal: opts.signal });
  }

  /** patch patches an object (or its subresource) with a JSON patch (array), merge patch or strategic merge patch. */
  async patch<T = KubeObject>(ref: ObjectRef, type: PatchType, patch: unknown, opts: PatchOptions = {}): Promise<T> {
    const info = await this.resource(ref);
    const ns = this.namespaceOf(info, ref.namespace, `patch ${ref.kind}`);
    if (type === 'json' && !Array.isArray(patch)) throw badRequest('a JSON patch must be an array of operations');
    return this.transport.request<T>({
      method: 'PATCH',
      path: this.path(info, ns, ref.name, opts.subresource),
      body: patch,
      contentType: PATCH_CONTENT_TYPES[type],
      query: writeQuery(opts),
      accept: acceptFor(opts),
      signal: opts.signal,
    });
  }

  /**
   * apply server-side applies an object (PATCH application/apply-patch+yaml): creates it if missing, otherwise
   * merges the fields this manager owns. Conflicts with other managers fail with 409 unless `force`.
   */
  async apply<T = KubeObject>(obj: ApiKubeObject | KubeObject, opts: ApplyOptions): Promise<T> {
    if (!opts.fieldManager) throw badRequest('apply: fieldManager is required');
    const { path } = await this.objectPath(obj, 'apply', opts.subresource);
    // The API rejects an apply body carrying managedFields; objects read back from the server do.
    let body: unknown = obj;
    if (obj.metadata && 'managedFields' in obj.metadata) {
      const { managedFields: _drop, ...metadata } = obj.metadata;
      body = { ...obj, metadata };
    }
    return this.transport.request<T>({
      method: 'PATCH',
      path,
      body,
      contentType: 'application/apply-patch+yaml',
      query: { ...writeQuery(opts), force: opts.force ? 'true' : undefined },
      accept: acceptFor(opts),
      signal: opts.signal,
    });
  }

  /**
   * delete deletes an object. Resolves with the object when the server still holds it (finalizers or foreground
   * deletion pending), undefined when it is gone. Throws StatusError NotFound when it did not exist.
   */
  async delete<T = KubeObject>(ref: ObjectRef, opts: DeleteOptions = {}): Promise<T | undefined> {
    const info = await this.resource(ref);
    const ns = this.namespaceOf(info, ref.namespace, `delete ${ref.kind}`);
    const body: Record<string, unknown> = { apiVersion: 'v1', kind: 'DeleteOptions' };
    if (opts.propagationPolicy) body.propagationPolicy = opts.propagationPolicy;
    if (opts.preconditions) body.preconditions = opts.preconditions;
    if (opts.gracePeriodSeconds !== undefined) body.gracePeriodSeconds = opts.gracePeriodSeconds;
    if (opts.dryRun) body.dryRun = ['All'];
    const out = await this.transport.request<{ kind?: string; metadata?: { deletionTimestamp?: string } }>({
      method: 'DELETE',
      path: this.path(info, ns, ref.name),
      body,
      signal: opts.signal,
    });
    if (!out || out.kind === 'Status') return undefined;
    return out.metadata?.deletionTimestamp ? (out as T) : undefined;
  }

  /**
   * watch opens a watch stream and calls onEvent for each event, in order. Resolves once the server accepted the
   * watch (throws StatusError / KindNotInstalledError / UnreachableError otherwise); see Watch.done for how it ends.
   */
  async watch<T = KubeObject>(gvk: GVK, opts: WatchOptions, onEvent: (event: WatchEvent<T>) => void): Promise<Watch> {
    const info = await this.resource(gvk);
    const path = this.path(info, info.namespaced ? opts.namespace : undefined);
    const { response, abort } = await this.transport.stream({
      method: 'GET',
      path,
      query: {
        watch: 'true',
        labelSelector: labelSelectorString(opts.labelSelector),
        fieldSelector: opts.fieldSelector || undefined,
        resourceVersion: opts.resourceVersion || undefined,
        allowWatchBookmarks: opts.allowWatchBookmarks === false ? undefined : 'true',
        timeoutSeconds: opts.timeoutSeconds,
      },
      accept: acceptFor(opts),
      signal: opts.signal,
    });
    let stopped = false;
    let settle!: (err?: unknown) => void;
    const done = new Promise<void>((resolve, reject) => {
      let settled = false;
      settle = (err?: unknown) => {
        if (settled) return;
        settled = true;
        if (err === undefined || stopped) resolve();
        else reject(err);
      };
    });
    // Lines are split and parsed from the bytes (see watch-lines.ts: large objects whose spec did not change are
    // parsed without it).
    const decoder = new WatchLineDecoder();
    const onLine = (ev: { type?: string; object?: unknown }): boolean => {
      if (stopped) return false;
      if (ev.type === 'ERROR') {
        const st = ev.object as { code?: number; reason?: string; message?: string; details?: object };
        abort();
        settle(new StatusError({ kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Failure', message: st?.message ?? 'watch error', reason: st?.reason ?? '', details: st?.details, code: st?.code ?? 500 }));
        return false;
      }
      const obj = ev.object as { apiVersion?: string; kind?: string };
      if (ev.type !== 'BOOKMARK' && obj && typeof obj === 'object') {
        obj.apiVersion ??= info.apiVersion;
        obj.kind ??= info.kind;
      }
      try {
        onEvent({ type: ev.type as WatchEventType, object: obj as T });
      } catch (err) {
        abort();
        settle(err);
        return false;
      }
      return true;
    };
    response.on('data', (chunk: Buffer) => {
      if (stopped) return;
      try {
        decoder.push(chunk, onLine);
      } catch (err) {
        const start = (err as { lineStart?: string }).lineStart ?? '';
        abort();
        settle(new StatusError({ kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Failure', message: `malformed watch event from ${this.server}: ${start}`, reason: 'InternalError', code: 500 }, { cause: err }));
      }
    });
    response.once('end', () => settle());
    response.once('aborted', () => settle(this.transport.classify(Object.assign(new Error('watch connection lost'), { code: 'ECONNRESET' }))));
    response.on('error', (err) => settle(this.transport.classify(err)));
    response.once('close', () => settle(stopped ? undefined : response.complete ? undefined : this.transport.classify(Object.assign(new Error('watch connection closed'), { code: 'ECONNRESET' }))));
    return {
      stop() {
        if (stopped) return;
        stopped = true;
        abort();
        settle();
      },
      done,
    };
  }

  /** version reads GET /version (no RBAC needed: the readiness probe of a cluster). */
  version(opts: { timeoutMs?: number; signal?: AbortSignal } = {}): Promise<VersionInfo> {
    return this.transport.request<VersionInfo>({ method: 'GET', path: '/version', timeoutMs: opts.timeoutMs, signal: opts.signal });
  }

  /** request sends a raw request (path relative to the server URL) and parses the JSON answer. */
  request<T = unknown>(req: HttpRequest): Promise<T> {
    return this.transport.request<T>(req);
  }

  /** close drops the keep-alive sockets; requests afterwards fail with UnreachableError Closed. */
  close(): void {
    this.transport.close();
  }

  /**
   * impersonating returns a new client to the same cluster, with the same credentials, that acts as another user
   * (Impersonate-User / -Group / -Uid). It has its own sockets: cache it, and close it when done.
   */
  impersonating(as: Impersonation): KubeClient {
    return new KubeClient(this.kubeConfig, { ...this.options, impersonate: as, name: `${this.name} as ${as.user}` });
  }

  /** impersonation is the identity this client acts as (undefined: its own credentials). */
  get impersonation(): Impersonation | undefined {
    return this.options.impersonate;
  }

  /** closed reports whether close() was called. */
  get closed(): boolean {
    return this.transport.isClosed;
  }
}

/** createKubeClient builds a client from a kubeconfig (file, YAML, object or client-node KubeConfig, plus context). */
export function createKubeClient(source: KubeConfigSource, options: KubeClientOptions = {}): KubeClient {
  return new KubeClient(loadKubeConfig(source), options);
}
