// tar: a gzip-compressed tar archive (POSIX ustar) of in-memory files, for `ripple techsupport` — the format every
// `tar` reads, written here in a few lines rather than taking a dependency for it.
import { gzipSync } from 'node:zlib';

/** TarEntry is one regular file of an archive. */
export interface TarEntry {
  /** Path inside the archive (forward slashes; ≤ 255 bytes, split at a '/' into ustar's prefix and name). */
  name: string;
  data: string | Buffer;
  /** Permission bits (default 0o600: support bundles are for their recipient only). */
  mode?: number;
  /** Modification time, seconds since the epoch. */
  mtime: number;
}

function octal(n: number, width: number): string {
  return n.toString(8).padStart(width - 1, '0') + '\0';
}

function header(e: TarEntry, size: number): Buffer {
  const h = Buffer.alloc(512);
  let name = e.name;
  let prefix = '';
  if (Buffer.byteLength(name) > 100) {
    const at = [...name.matchAll(/\//g)].map((m) => m.index!).find((i) => Buffer.byteLength(name.slice(i + 1)) <= 100 && Buffer.byteLength(name.slice(0, i)) <= 155);
    if (at === undefined) throw new Error(`tar: path too long: ${name}`);
    prefix = name.slice(0, at);
    name = name.slice(at + 1);
  }
  h.write(name, 0, 100, 'utf8');
  h.write(octal(e.mode ?? 0o600, 8), 100, 'ascii');
  h.write(octal(0, 8), 108, 'ascii'); // uid
  h.write(octal(0, 8), 116, 'ascii'); // gid
  h.write(octal(size, 12), 124, 'ascii');
  h.write(octal(Math.floor(e.mtime), 12), 136, 'ascii');
  h.write('        ', 148, 'ascii'); // checksum placeholder: eight spaces while summing
  h.write('0', 156, 'ascii'); // regular file
  h.write('ustar\0', 257, 'ascii');
  h.write('00', 263, 'ascii');
  h.write(prefix, 345, 155, 'utf8');
  let sum = 0;
  for (const b of h) sum += b;
  h.write(octal(sum, 7) + ' ', 148, 'ascii');
  return h;
}

/** tarGz returns the gzip-compressed ustar archive of entries. */
export function tarGz(entries: readonly TarEntry[]): Buffer {
  const parts: Buffer[] = [];
  for (const e of entries) {
    const data = typeof e.data === 'string' ? Buffer.from(e.data, 'utf8') : e.data;
    parts.push(header(e, data.length), data, Buffer.alloc((512 - (data.length % 512)) % 512));
  }
  parts.push(Buffer.alloc(1024)); // two zero blocks end the archive
  return gzipSync(Buffer.concat(parts));
}
