// oci.ts: a client for OCI registries (the distribution protocol, as `helm push|pull` and oras speak it): manifests,
// blobs, tag lists, monolithic blob uploads; authentication by Basic credentials or by the Bearer token flow the
// registry's WWW-Authenticate challenge names (realm, service, scope). Every blob and manifest is checked against
// its sha256 digest. Helm's chart media types: pkg/registry/constants.go.
import { ChartSourceError } from './errors.js';
import { sha256Digest } from './cache.js';
import { basicAuth, send, statusText, type HttpResponse, type TLSOptions } from './http.js';

/** OCI_MANIFEST_MEDIA_TYPE is the OCI image manifest media type Helm pushes charts with. */
export const OCI_MANIFEST_MEDIA_TYPE = 'application/vnd.oci.image.manifest.v1+json';
/** HELM_CONFIG_MEDIA_TYPE is the media type of a chart's config blob (Chart.yaml as JSON). */
export const HELM_CONFIG_MEDIA_TYPE = 'application/vnd.cncf.helm.config.v1+json';
/** HELM_CHART_MEDIA_TYPE is the media type of the chart archive layer. */
export const HELM_CHART_MEDIA_TYPE = 'application/vnd.cncf.helm.chart.content.v1.tar+gzip';
/** HELM_LEGACY_CHART_MEDIA_TYPE is the chart layer media type of charts pushed by Helm before 3.7. */
export const HELM_LEGACY_CHART_MEDIA_TYPE = 'application/tar+gzip';

/** OciReference is `oci://REGISTRY/REPOSITORY[:TAG]` taken apart. */
export interface OciReference {
  registry: string;
  repository: string;
  tag?: string;
}

/**
 * parseOciReference parses `oci://host[:port]/path[:tag]`; a `+` in the tag becomes `_` (OCI tags cannot hold `+`,
 * Helm's convention for semver build metadata; pkg/registry/reference.go newReference).
 */
export function parseOciReference(ref: string): OciReference {
  const raw = ref.replace(/^oci:\/\//, '');
  const slash = raw.indexOf('/');
  if (slash <= 0) throw new ChartSourceError('ChartNotFound', `invalid OCI reference ${JSON.stringify(ref)}: want oci://HOST/PATH`);
  const registry = raw.slice(0, slash);
  let repository = raw.slice(slash + 1);
  let tag: string | undefined;
  const colon = repository.lastIndexOf(':');
  if (colon >= 0 && !repository.slice(colon).includes('/')) {
    tag = repository.slice(colon + 1).replaceAll('+', '_');
    repository = repository.slice(0, colon);
  }
  if (!/^[a-z0-9]+(?:(?:[._]|__|-+)[a-z0-9]+)*(?:\/[a-z0-9]+(?:(?:[._]|__|-+)[a-z0-9]+)*)*$/.test(repository)) {
    throw new ChartSourceError('ChartNotFound', `invalid OCI reference ${JSON.stringify(ref)}: repository ${JSON.stringify(repository)} must be lowercase path components`);
  }
  return { registry, repository, tag };
}

/** OciDescriptor is an OCI content descriptor. */
export interface OciDescriptor {
  mediaType: string;
  digest: string;
  size: number;
  annotations?: Record<string, string>;
}

/** OciManifest is an OCI image manifest. */
export interface OciManifest {
  schemaVersion: number;
  mediaType?: string;
  config: OciDescriptor;
  layers: OciDescriptor[];
  annotations?: Record<string, string>;
}

/** OciClientOptions configure one registry connection. */
export interface OciClientOptions extends TLSOptions {
  /** plainHTTP talks http:// instead of https:// (Sveltos' registryCredentialsConfig.plainHTTP, Helm's --plain-http). */
  plainHTTP?: boolean;
  username?: string;
  password?: string;
}

interface Challenge {
  scheme: string;
  params: Record<string, string>;
}

/** parseChallenge reads a WWW-Authenticate header: `Bearer realm="…",service="…",scope="…"`. */
export function parseChallenge(header: string): Challenge {
  const m = /^\s*(\S+)\s*(.*)$/.exec(header) ?? ['', '', ''];
  const params: Record<string, string> = {};
  for (const p of m[2].matchAll(/([a-zA-Z_]+)\s*=\s*(?:"((?:[^"\\]|\\.)*)"|([^,\s]*))/g)) params[p[1].toLowerCase()] = p[2] !== undefined ? p[2].replace(/\\(.)/g, '$1') : p[3];
  return { scheme: m[1].toLowerCase(), params };
}

/** OciClient talks to one registry; it remembers Bearer tokens per scope for its lifetime. */
export class OciClient {
  private readonly tokens = new Map<string, string>();
  /** basic is set once the registry asked for Basic auth: later calls send it up front instead of being refused first. */
  private basic = false;

  constructor(
    readonly registry: string,
    private readonly opts: OciClientOptions = {},
  ) {}

  private base(): string {
    return `${this.opts.plainHTTP ? 'http' : 'https'}://${this.registry}`;
  }

  private get creds(): { username: string; password: string } | undefined {
    return this.opts.username !== undefined || this.opts.password !== undefined ? { username: this.opts.username ?? '', password: this.opts.password ?? '' } : undefined;
  }

  /** request sends one registry API call, answering an auth challenge once (Basic, or a Bearer token for the scope). */
  async request(method: string, path: string, scope: string, what: string, headers: Record<string, string> = {}, body?: Uint8Array): Promise<HttpResponse> {
    const url = /^https?:\/\//.test(path) ? path : `${this.base()}${path}`;
    const tls = { ca: this.opts.ca, insecureSkipTLSVerify: this.opts.insecureSkipTLSVerify };
    const token = this.tokens.get(scope);
    const auth: Record<string, string> = token ? { authorization: `Bearer ${token}` } : this.basic && this.creds ? { authorization: basicAuth(this.creds.username, this.creds.password) } : {};
    let res = await send({ method, url, headers: { ...headers, ...auth }, body, what, ...tls });
    if (res.status !== 401) return res;
    const header = res.headers['www-authenticate'];
    const challenge = parseChallenge(Array.isArray(header) ? header[0] : (header ?? ''));
    let authorization: string;
    if (challenge.scheme === 'basic') {
      if (!this.creds) throw new ChartSourceError('AuthFailed', `${what}: registry ${this.registry} requires credentials (basic auth) and none were given`);
      authorization = basicAuth(this.creds.username, this.creds.password);
      this.basic = true;
    } else if (challenge.scheme === 'bearer') {
      const t = await this.fetchToken(challenge, scope, what);
      this.tokens.set(scope, t);
      authorization = `Bearer ${t}`;
    } else {
      throw new ChartSourceError('AuthFailed', `${what}: registry ${this.registry} answered 401 with no usable challenge (${statusText(res)})`);
    }
    res = await send({ method, url, headers: { ...headers, authorization }, body, what, ...tls });
    if (res.status === 401) throw new ChartSourceError('AuthFailed', `${what}: registry ${this.registry} rejected the credentials (${statusText(res)})`);
    return res;
  }

  // fetchToken is the distribution token flow: GET realm?service=…&scope=…, with Basic credentials when we have them.
  private async fetchToken(ch: Challenge, scope: string, what: string): Promise<string> {
    const realm = ch.params.realm;
    if (!realm) throw new ChartSourceError('AuthFailed', `${what}: registry ${this.registry} asked for a Bearer token without a realm`);
    const u = new URL(realm);
    if (ch.params.service) u.searchParams.set('service', ch.params.service);
    // Ask for the scope the whole operation needs (a push needs pull,push even when the first challenge, on a HEAD,
    // named only pull), plus whatever else the challenge named: one token then serves every call of the operation.
    u.searchParams.append('scope', scope);
    if (ch.params.scope && ch.params.scope !== scope) u.searchParams.append('scope', ch.params.scope);
    const headers: Record<string, string> = this.creds ? { authorization: basicAuth(this.creds.username, this.creds.password) } : {};
    const res = await send({ method: 'GET', url: u.href, headers, ca: this.opts.ca, insecureSkipTLSVerify: this.opts.insecureSkipTLSVerify, what: `${what} (token from ${u.origin})` });
    if (res.status === 401 || res.status === 403) throw new ChartSourceError('AuthFailed', `${what}: token service ${u.origin} refused ${this.creds ? 'the credentials' : 'anonymous access'} (${statusText(res)})`);
    if (res.status !== 200) throw new ChartSourceError('Unreachable', `${what}: token service ${u.origin} answered ${statusText(res)}`);
    let body: { token?: string; access_token?: string };
    try {
      body = JSON.parse(res.body.toString('utf8')) as typeof body;
    } catch (e) {
      throw new ChartSourceError('AuthFailed', `${what}: token service ${u.origin} answered with invalid JSON`, { cause: e });
    }
    const token = body.token ?? body.access_token;
    if (!token) throw new ChartSourceError('AuthFailed', `${what}: token service ${u.origin} answered without a token`);
    return token;
  }

  /** tags lists a repository's tags (following `Link: <…>; rel="next"` pages). */
  async tags(repository: string, what: string): Promise<string[]> {
    const out: string[] = [];
    let path: string | undefined = `/v2/${repository}/tags/list`;
    for (let page = 0; path && page < 100; page++) {
      const res = await this.request('GET', path, pullScope(repository), what);
      if (res.status !== 200) throw registryError(res, what, this.registry, 'tags');
      const body = parseJSON(res, what) as { tags?: string[] | null };
      out.push(...(body.tags ?? []));
      const link = res.headers.link;
      const next = typeof link === 'string' ? /<([^>]+)>\s*;\s*rel="?next"?/.exec(link) : null;
      path = next ? new URL(next[1], this.base()).href : undefined;
    }
    return out;
  }

  /** manifest fetches and verifies a manifest by tag or digest; `digest` is the manifest's own digest. */
  async manifest(repository: string, reference: string, what: string): Promise<{ manifest: OciManifest; digest: string; bytes: Buffer }> {
    const res = await this.request('GET', `/v2/${repository}/manifests/${reference}`, pullScope(repository), what, { accept: OCI_MANIFEST_MEDIA_TYPE });
    if (res.status !== 200) throw registryError(res, what, this.registry, 'manifest');
    const digest = sha256Digest(res.body);
    const claimed = res.headers['docker-content-digest'];
    const expected = reference.startsWith('sha256:') ? reference : typeof claimed === 'string' && claimed.startsWith('sha256:') ? claimed : undefined;
    if (expected !== undefined && expected !== digest) throw new ChartSourceError('DigestMismatch', `${what}: manifest has digest ${digest}, expected ${expected}`);
    const m = parseJSON(res, what) as OciManifest;
    if (typeof m !== 'object' || m === null || typeof m.config !== 'object' || !Array.isArray(m.layers)) {
      throw new ChartSourceError('BadChart', `${what}: ${repository}:${reference} is not an OCI image manifest (media type ${String(res.headers['content-type'])})`);
    }
    return { manifest: m, digest, bytes: res.body };
  }

  /** blob downloads a blob and checks its digest (and size, when the descriptor gives one). */
  async blob(repository: string, desc: OciDescriptor, what: string): Promise<Buffer> {
    const res = await this.request('GET', `/v2/${repository}/blobs/${desc.digest}`, pullScope(repository), what);
    if (res.status !== 200) throw registryError(res, what, this.registry, 'blob');
    const digest = sha256Digest(res.body);
    if (digest !== desc.digest) throw new ChartSourceError('DigestMismatch', `${what}: blob has digest ${digest}, the manifest says ${desc.digest}`);
    if (desc.size !== undefined && res.body.length !== desc.size) throw new ChartSourceError('DigestMismatch', `${what}: blob is ${res.body.length} bytes, the manifest says ${desc.size}`);
    return res.body;
  }

  /** pushBlob uploads a blob unless the registry has it: POST an upload session, then one monolithic PUT. */
  async pushBlob(repository: string, bytes: Uint8Array, what: string): Promise<OciDescriptor & { existed: boolean }> {
    const digest = sha256Digest(bytes);
    const scope = pushScope(repository);
    const head = await this.request('HEAD', `/v2/${repository}/blobs/${digest}`, scope, what);
    if (head.status === 200) return { mediaType: '', digest, size: bytes.length, existed: true };
    const start = await this.request('POST', `/v2/${repository}/blobs/uploads/`, scope, what, { 'content-length': '0' });
    if (start.status !== 202) throw registryError(start, what, this.registry, 'upload');
    const location = start.headers.location;
    if (typeof location !== 'string') throw new ChartSourceError('BadChart', `${what}: registry ${this.registry} started an upload without a Location`);
    const put = new URL(location, this.base());
    put.searchParams.set('digest', digest);
    const done = await this.request('PUT', put.href, scope, what, { 'content-type': 'application/octet-stream' }, bytes);
    if (done.status !== 201) throw registryError(done, what, this.registry, 'upload');
    return { mediaType: '', digest, size: bytes.length, existed: false };
  }

  /** pushManifest stores a manifest under a tag and returns the digest the registry reports (checked against ours). */
  async pushManifest(repository: string, tag: string, bytes: Uint8Array, what: string): Promise<string> {
    const res = await this.request('PUT', `/v2/${repository}/manifests/${tag}`, pushScope(repository), what, { 'content-type': OCI_MANIFEST_MEDIA_TYPE }, bytes);
    if (res.status !== 201) throw registryError(res, what, this.registry, 'manifest');
    const digest = sha256Digest(bytes);
    const claimed = res.headers['docker-content-digest'];
    if (typeof claimed === 'string' && claimed !== digest) throw new ChartSourceError('DigestMismatch', `${what}: registry stored the manifest as ${claimed}, expected ${digest}`);
    return digest;
  }
}

const pullScope = (repository: string) => `repository:${repository}:pull`;
const pushScope = (repository: string) => `repository:${repository}:pull,push`;

function parseJSON(res: HttpResponse, what: string): unknown {
  try {
    return JSON.parse(res.body.toString('utf8'));
  } catch (e) {
    throw new ChartSourceError('BadChart', `${what}: registry answered invalid JSON`, { cause: e });
  }
}

/** registryError maps a registry's error answer (with its `errors[].code`) to a ChartSourceError. */
function registryError(res: HttpResponse, what: string, registry: string, on: 'tags' | 'manifest' | 'blob' | 'upload'): ChartSourceError {
  let codes: string[] = [];
  let messages: string[] = [];
  try {
    const body = JSON.parse(res.body.toString('utf8')) as { errors?: { code?: string; message?: string }[] };
    codes = (body.errors ?? []).map((e) => e.code ?? '');
    messages = (body.errors ?? []).map((e) => `${e.code}: ${e.message}`);
  } catch {
    // Not a distribution error body; the status says enough.
  }
  const detail = messages.length > 0 ? messages.join('; ') : statusText(res);
  if (res.status === 401 || res.status === 403 || codes.includes('DENIED') || codes.includes('UNAUTHORIZED')) {
    return new ChartSourceError('AuthFailed', `${what}: registry ${registry} denied access (${res.status} ${detail})`);
  }
  if (res.status === 404) {
    if (codes.includes('NAME_UNKNOWN') || on === 'tags') return new ChartSourceError('ChartNotFound', `${what}: registry ${registry} has no such repository (${detail})`);
    if (on === 'manifest') return new ChartSourceError('VersionNotFound', `${what}: registry ${registry} has no such tag (${detail})`);
    return new ChartSourceError('BadChart', `${what}: registry ${registry} is missing a blob the manifest names (${detail})`);
  }
  if (res.status >= 500 || res.status === 429) return new ChartSourceError('Unreachable', `${what}: registry ${registry} answered ${res.status} (${detail})`);
  return new ChartSourceError('BadChart', `${what}: registry ${registry} answered ${res.status} (${detail})`);
}
