// flux-source.ts: reading what a Flux source (GitRepository, OCIRepository, Bucket) holds, the way Sveltos does it
// with source-controller: the artifact tarball is downloaded from `status.artifact.url` (the host replaced by
// $SOURCE_CONTROLLER_LOCALHOST when set, as fluxcd/pkg/http/fetch does), its `status.artifact.digest`
// (`<algorithm>:<hex>`; the older `checksum`, plain sha256 hex, when there is no digest) verified, and unpacked
// into memory. Downloads are cached by url + digest, so a redeploy of an unchanged revision reads nothing.
// Go: addon-controller controllers/flux_source.go; fluxcd/pkg/http/fetch ArchiveFetcher.Fetch
import { createHash } from 'node:crypto';
import type { KubeObject } from '../kube/index.js';
import { KustomizeError, readTarball } from '../kustomize/index.js';

/** FLUX_SOURCE_VERSIONS are the apiVersions Ripple reads each Flux source kind at (those Sveltos reads). */
export const FLUX_SOURCE_VERSIONS: Readonly<Record<string, string>> = {
  GitRepository: 'source.toolkit.fluxcd.io/v1',
  OCIRepository: 'source.toolkit.fluxcd.io/v1beta2',
  Bucket: 'source.toolkit.fluxcd.io/v1beta2',
};

/** isFluxKind tells whether a reference kind is a Flux source. */
export function isFluxKind(kind: string | undefined): kind is 'GitRepository' | 'OCIRepository' | 'Bucket' {
  return kind === 'GitRepository' || kind === 'OCIRepository' || kind === 'Bucket';
}

/** FluxArtifact is a source's `status.artifact` (the fields a consumer needs). */
export interface FluxArtifact {
  url: string;
  revision: string;
  digest?: string;
  checksum?: string;
}

/** artifactOf reads a source's current artifact, or undefined when source-controller has not produced one. */
export function artifactOf(source: KubeObject): FluxArtifact | undefined {
  const a = (source as { status?: { artifact?: Partial<FluxArtifact> } }).status?.artifact;
  if (!a || typeof a.url !== 'string' || a.url === '') return undefined;
  return { url: a.url, revision: String(a.revision ?? ''), digest: a.digest, checksum: a.checksum };
}

/** ArtifactError is a failure to obtain an artifact; `transient` ones are worth a retry with backoff. */
export class ArtifactError extends Error {
  override readonly name = 'ArtifactError';
  constructor(
    message: string,
    readonly transient: boolean,
  ) {
    super(message);
  }
}

const ALGORITHMS: Readonly<Record<string, string>> = { sha256: 'sha256', sha384: 'sha384', sha512: 'sha512' };

/** verifyDigest checks bytes against an artifact digest; returns why they do not match, or undefined. Pure. */
export function verifyDigest(bytes: Uint8Array, a: Pick<FluxArtifact, 'digest' | 'checksum'>): string | undefined {
  let algorithm: string;
  let expected: string;
  if (a.digest) {
    const colon = a.digest.indexOf(':');
    algorithm = ALGORITHMS[a.digest.slice(0, colon)] ?? '';
    expected = a.digest.slice(colon + 1);
    if (colon < 0 || !algorithm || !/^[0-9a-f]+$/.test(expected)) return `failed to verify artifact: invalid digest '${a.digest}' (want <sha256|sha384|sha512>:<hex>)`;
  } else if (a.checksum) {
    algorithm = 'sha256';
    expected = a.checksum;
  } else {
    return 'failed to verify artifact: the source status gives no digest';
  }
  const actual = createHash(algorithm).update(bytes).digest('hex');
  if (actual !== expected) return `failed to verify artifact: computed digest ${algorithm}:${actual} doesn't match '${a.digest ?? a.checksum}'`;
  return undefined;
}

/** artifactURL applies $SOURCE_CONTROLLER_LOCALHOST (host[:port]) to an artifact URL, as Flux consumers do. */
export function artifactURL(url: string, hostOverride: string | undefined): string {
  if (!hostOverride) return url;
  try {
    const u = new URL(url);
    u.host = hostOverride;
    return u.toString();
  } catch {
    return url;
  }
}

/** ArtifactFetcherOptions tunes downloads. */
export interface ArtifactFetcherOptions {
  /** Largest archive accepted (default 64 MiB). */
  maxBytes?: number;
  /** Per-download timeout (default 60 s). */
  timeoutMs?: number;
  /** Cached archives kept (default 16). */
  cacheEntries?: number;
  /** Host override (default: $SOURCE_CONTROLLER_LOCALHOST). */
  hostOverride?: string;
}

/** ArtifactFetcher downloads, verifies and unpacks artifacts, caching the unpacked trees by url + digest. */
export class ArtifactFetcher {
  private readonly cache = new Map<string, Map<string, Uint8Array>>();

  constructor(private readonly o: ArtifactFetcherOptions = {}) {}

  /** files returns the artifact's files (relative POSIX paths → bytes); ArtifactError when it cannot. */
  async files(a: FluxArtifact, signal?: AbortSignal): Promise<Map<string, Uint8Array>> {
    const cacheKey = `${a.url}|${a.digest ?? a.checksum ?? ''}`;
    const hit = this.cache.get(cacheKey);
    if (hit) {
      this.cache.delete(cacheKey);
      this.cache.set(cacheKey, hit);
      return hit;
    }
    const bytes = await this.download(a, signal);
    const bad = verifyDigest(bytes, a);
    // A mismatch is the server's or the status' fault: retried with backoff (a new status re-queues at once).
    if (bad) throw new ArtifactError(`artifact ${a.url} (revision ${a.revision}): ${bad}`, true);
    let files: Map<string, Uint8Array>;
    try {
      files = readTarball(bytes);
    } catch (err) {
      if (err instanceof KustomizeError) throw new ArtifactError(`artifact ${a.url} (revision ${a.revision}): ${err.message}`, false);
      throw err;
    }
    this.cache.set(cacheKey, files);
    while (this.cache.size > (this.o.cacheEntries ?? 16)) this.cache.delete(this.cache.keys().next().value!);
    return files;
  }

  private async download(a: FluxArtifact, signal: AbortSignal | undefined): Promise<Uint8Array> {
    const url = artifactURL(a.url, this.o.hostOverride ?? process.env.SOURCE_CONTROLLER_LOCALHOST);
    const max = this.o.maxBytes ?? 64 << 20;
    const timeout = AbortSignal.timeout(this.o.timeoutMs ?? 60_000);
    let res: Response;
    try {
      res = await fetch(url, { signal: signal ? AbortSignal.any([signal, timeout]) : timeout });
    } catch (err) {
      const cause = (err as { cause?: { code?: string; message?: string } }).cause;
      throw new ArtifactError(`failed to download artifact from ${url}: ${cause?.code ?? cause?.message ?? (err as Error).message}`, true);
    }
    if (res.status !== 200) {
      await res.body?.cancel();
      throw new ArtifactError(`failed to download artifact from ${url}: HTTP ${res.status} ${res.statusText}`.trim(), true);
    }
    const declared = Number(res.headers.get('content-length') ?? '0');
    if (declared > max) {
      await res.body?.cancel();
      throw new ArtifactError(`artifact ${url} is ${declared} bytes, more than the ${max} bytes accepted`, false);
    }
    const chunks: Uint8Array[] = [];
    let size = 0;
    try {
      for await (const chunk of res.body as unknown as AsyncIterable<Uint8Array>) {
        size += chunk.length;
        if (size > max) throw new ArtifactError(`artifact ${url} is larger than the ${max} bytes accepted`, false);
        chunks.push(chunk);
      }
    } catch (err) {
      if (err instanceof ArtifactError) throw err;
      throw new ArtifactError(`failed to download artifact from ${url}: ${(err as Error).message}`, true);
    }
    return Buffer.concat(chunks);
  }
}
