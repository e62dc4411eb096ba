// cache.ts: the on-disk chart cache. Chart archives are stored by content (DIR/sha256/<hex>.tgz), so a chart is
// downloaded once however many repositories, versions or clusters name it; repository indexes are kept with their
// ETag (DIR/index/<sha256 of URL>.{yaml,json}) so an unchanged index costs one 304.
import { createHash, randomBytes } from 'node:crypto';
import { mkdir, readFile, rename, stat, writeFile } from 'node:fs/promises';
import { join } from 'node:path';

/** sha256Digest is the OCI digest string of bytes: `sha256:<hex>`. */
export function sha256Digest(bytes: Uint8Array): string {
  return `sha256:${createHash('sha256').update(bytes).digest('hex')}`;
}

const DIGEST = /^sha256:([a-f0-9]{64})$/;

/** CachedIndex is a repository index as last downloaded, with the ETag the server sent for it. */
export interface CachedIndex {
  url: string;
  etag?: string;
  body: Buffer;
}

/** ChartCache is a content-addressed store of chart archives and an ETag store of repository indexes. */
export class ChartCache {
  constructor(readonly dir: string) {}

  /** pathOf is where the archive with this digest lives (whether or not it is there yet). */
  pathOf(digest: string): string {
    const m = DIGEST.exec(digest);
    if (!m) throw new Error(`not a sha256 digest: ${digest}`);
    return join(this.dir, 'sha256', `${m[1]}.tgz`);
  }

  /** has tells whether the archive with this digest is cached. */
  async has(digest: string): Promise<boolean> {
    try {
      return (await stat(this.pathOf(digest))).isFile();
    } catch {
      return false;
    }
  }

  /** read returns the cached archive's bytes. */
  async read(digest: string): Promise<Buffer> {
    return readFile(this.pathOf(digest));
  }

  /** put stores bytes under their own digest (atomically: a crash never leaves a partial archive) and returns it. */
  async put(bytes: Uint8Array): Promise<string> {
    const digest = sha256Digest(bytes);
    const path = this.pathOf(digest);
    if (await this.has(digest)) return digest;
    await mkdir(join(this.dir, 'sha256'), { recursive: true });
    await atomicWrite(path, bytes);
    return digest;
  }

  private indexPaths(url: string): { body: string; meta: string } {
    const key = createHash('sha256').update(url).digest('hex');
    return { body: join(this.dir, 'index', `${key}.yaml`), meta: join(this.dir, 'index', `${key}.json`) };
  }

  /** readIndex returns the cached index of this URL, if any. */
  async readIndex(url: string): Promise<CachedIndex | undefined> {
    const p = this.indexPaths(url);
    try {
      const meta = JSON.parse(await readFile(p.meta, 'utf8')) as { url: string; etag?: string };
      if (meta.url !== url) return undefined;
      return { url, etag: meta.etag, body: await readFile(p.body) };
    } catch {
      return undefined;
    }
  }

  /** writeIndex stores an index and its ETag. */
  async writeIndex(index: CachedIndex): Promise<void> {
    const p = this.indexPaths(index.url);
    await mkdir(join(this.dir, 'index'), { recursive: true });
    await atomicWrite(p.body, index.body);
    await atomicWrite(p.meta, Buffer.from(JSON.stringify({ url: index.url, etag: index.etag })));
  }
}

async function atomicWrite(path: string, bytes: Uint8Array): Promise<void> {
  const tmp = `${path}.${randomBytes(6).toString('hex')}.tmp`;
  await writeFile(tmp, bytes);
  await rename(tmp, path);
}
