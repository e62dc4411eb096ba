// filesys.ts: the file tree a build reads, as an injected port (the core does no I/O), and the root-restricted
// loader Kustomize gives each kustomization directory. Messages are kustomize's (api/internal/loader/fileloader.go).
import { posix } from 'node:path';
import { KustomizeError } from './errors.js';

/** FileTree is what a build reads: absolute POSIX paths to file contents, and which paths are directories. */
export interface FileTree {
  /** readFile returns the file's content, or undefined when there is no regular file at the path. */
  readFile(path: string): Uint8Array | string | undefined;
  /** isDir tells whether a directory exists at the path. */
  isDir(path: string): boolean;
}

/** mapFileTree makes a FileTree of a Map from paths (relative ones are taken from `/`) to contents. */
export function mapFileTree(files: ReadonlyMap<string, string | Uint8Array>): FileTree {
  const norm = new Map<string, string | Uint8Array>();
  const dirs = new Set<string>(['/']);
  for (const [p, c] of files) {
    const abs = posix.resolve('/', p);
    norm.set(abs, c);
    for (let d = posix.dirname(abs); ; d = posix.dirname(d)) {
      dirs.add(d);
      if (d === '/') break;
    }
  }
  return {
    readFile: (p) => norm.get(posix.resolve('/', p)),
    isDir: (p) => dirs.has(posix.resolve('/', p)),
  };
}

/** toBytes turns a file's content into bytes. */
export const toBytes = (c: Uint8Array | string): Uint8Array => (typeof c === 'string' ? new TextEncoder().encode(c) : c);

/** isRemote tells whether a resource/base path is a URL or git spec Kustomize would fetch over the network. */
export function isRemote(p: string): boolean {
  return /^(https?|ssh|git|file|s3|gs):\/\//.test(p) || /^git@/.test(p) || /^(github\.com|gitlab\.com|bitbucket\.org)\//.test(p) || p.startsWith('git::');
}

/** Loader is a kustomization root: files load only from within it (RestrictionRootOnly). */
export class Loader {
  constructor(
    readonly fs: FileTree,
    readonly root: string,
    /** referrer is the loader of the kustomization that referred to this one (for cycle detection). */
    readonly referrer?: Loader,
  ) {}

  /** load reads a file relative to the root, refusing paths that leave it. */
  load(rel: string): Uint8Array {
    // Go: fileLoader.Load — symlinks resolved first (a missing path fails there), then directories and paths outside
    // the root are refused.
    const abs = posix.resolve(this.root, rel);
    const c = this.fs.readFile(abs);
    if (c === undefined && !this.fs.isDir(abs)) {
      throw new KustomizeError('NotFound', `evalsymlink failure on '${abs}' : lstat ${abs}: no such file or directory`);
    }
    if (c === undefined) throw new KustomizeError('Invalid', `'${abs}' must resolve to a file`);
    if (abs !== this.root && !abs.startsWith(this.root === '/' ? '/' : this.root + '/')) {
      throw new KustomizeError('Invalid', `security; file '${abs}' is not in or below '${this.root}'`);
    }
    return toBytes(c);
  }

  /** tryLoad is load for probing kustomization file names: undefined when absent. */
  tryLoad(rel: string): Uint8Array | undefined {
    const c = this.fs.readFile(posix.resolve(this.root, rel));
    return c === undefined ? undefined : toBytes(c);
  }

  /** child is loader.New: the loader of a base or component directory. */
  child(rel: string): Loader {
    if (isRemote(rel)) {
      throw new KustomizeError('Remote', `remote resource '${rel}' is not supported: Ripple builds kustomizations offline, without fetching URLs`);
    }
    const abs = posix.resolve(this.root, rel);
    if (!this.fs.isDir(abs)) {
      if (this.fs.readFile(abs) !== undefined) throw new KustomizeError('Invalid', `must build at directory: '${abs}': file is not directory`);
      throw new KustomizeError('NotFound', `must build at directory: not a valid directory: evalsymlink failure on '${abs}' : lstat ${abs}: no such file or directory`);
    }
    // Go: fileLoader.errIfArgEqualOrHigher — a root at or above any root visited on the way here is a cycle.
    for (let l: Loader | undefined = this; l; l = l.referrer) {
      if (abs === '/' || l.root === abs || l.root.startsWith(abs + '/')) {
        throw new KustomizeError('Invalid', `cycle detected: candidate root '${abs}' contains visited root '${l.root}'`);
      }
    }
    return new Loader(this.fs, abs, this);
  }
}
