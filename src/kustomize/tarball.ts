// tarball.ts: a kustomization shipped as a gzipped tarball — how Sveltos stores one in a ConfigMap/Secret
// (binaryData) and how Flux source-controller serves artifacts — read into a file tree for buildKustomization.
// POSIX ustar with GNU long names and pax path/size records; regular files and directories only (links and devices
// are skipped, as a build never needs them). Entries that would leave the tree (absolute, `..`) are refused, and the
// unpacked size and entry count are capped: the archive is user input.
import { gunzipSync } from 'node:zlib';
import { posix } from 'node:path';
import { KustomizeError } from './errors.js';

/** TarballLimits caps what readTarball unpacks. */
export interface TarballLimits {
  /** maxBytes bounds the unpacked size of all files together (default 64 MiB). */
  maxBytes?: number;
  /** maxEntries bounds the number of archive entries (default 10,000). */
  maxEntries?: number;
}

const BLOCK = 512;

function field(b: Uint8Array, off: number, len: number): string {
  let end = off;
  while (end < off + len && b[end] !== 0) end++;
  return Buffer.from(b.subarray(off, end)).toString('utf8');
}

function octal(b: Uint8Array, off: number, len: number): number {
  // GNU base-256 for large sizes: high bit of the first byte set.
  if (b[off] & 0x80) {
    let v = 0;
    for (let i = off + 1; i < off + len; i++) v = v * 256 + b[i];
    return v;
  }
  const s = field(b, off, len).trim();
  return s === '' ? 0 : parseInt(s, 8);
}

function paxRecords(data: Uint8Array): Record<string, string> {
  const out: Record<string, string> = {};
  const text = Buffer.from(data).toString('utf8');
  let i = 0;
  while (i < text.length) {
    const sp = text.indexOf(' ', i);
    if (sp < 0) break;
    const len = Number(text.slice(i, sp));
    if (!Number.isFinite(len) || len <= 0) break;
    const rec = text.slice(sp + 1, i + len - 1);
    const eq = rec.indexOf('=');
    if (eq > 0) out[rec.slice(0, eq)] = rec.slice(eq + 1);
    i += len;
  }
  return out;
}

/**
 * readTarball unpacks a tar or tar.gz archive into a map from clean relative paths to contents (directories appear
 * as the parents of their files). Throws KustomizeError on a corrupt archive, an escaping path or a limit exceeded.
 */
export function readTarball(archive: Uint8Array, limits: TarballLimits = {}): Map<string, Uint8Array> {
  const maxBytes = limits.maxBytes ?? 64 << 20;
  const maxEntries = limits.maxEntries ?? 10_000;
  let b: Uint8Array;
  try {
    b = archive[0] === 0x1f && archive[1] === 0x8b ? gunzipSync(archive, { maxOutputLength: maxBytes + (maxEntries + 2) * BLOCK * 2 }) : archive;
  } catch (e) {
    throw new KustomizeError('Invalid', `reading tarball: gzip: ${(e as Error).message}`, { cause: e });
  }
  const files = new Map<string, Uint8Array>();
  let total = 0;
  let entries = 0;
  let longName: string | undefined;
  let pax: Record<string, string> = {};
  for (let off = 0; off + BLOCK <= b.length; ) {
    const h = b.subarray(off, off + BLOCK);
    if (h.every((x) => x === 0)) break;
    if (++entries > maxEntries) throw new KustomizeError('Invalid', `reading tarball: more than ${maxEntries} entries`);
    let sum = 0;
    for (let i = 0; i < BLOCK; i++) sum += i >= 148 && i < 156 ? 32 : h[i];
    if (sum !== octal(h, 148, 8)) throw new KustomizeError('Invalid', `reading tarball: invalid header checksum at offset ${off}`);
    const type = String.fromCharCode(h[156] || 0x30);
    const size = pax.size !== undefined ? Number(pax.size) : octal(h, 124, 12);
    const magic = field(h, 257, 6);
    const prefix = magic.startsWith('ustar') ? field(h, 345, 155) : '';
    let name = longName ?? pax.path ?? (prefix ? `${prefix}/${field(h, 0, 100)}` : field(h, 0, 100));
    const start = off + BLOCK;
    const data = b.subarray(start, start + size);
    if (data.length < size) throw new KustomizeError('Invalid', `reading tarball: ${name}: unexpected end of archive`);
    off = start + Math.ceil(size / BLOCK) * BLOCK;
    if (type === 'L') {
      longName = field(data, 0, data.length);
      continue;
    }
    if (type === 'x') {
      pax = paxRecords(data);
      continue;
    }
    if (type === 'g') continue;
    longName = undefined;
    pax = {};
    if (type !== '0' && type !== '7') continue; // directories, links, devices: nothing to read
    name = name.replace(/^(\.\/)+/, '');
    const clean = posix.normalize(name);
    if (name === '' || posix.isAbsolute(name) || clean === '..' || clean.startsWith('../')) {
      throw new KustomizeError('Invalid', `reading tarball: entry ${JSON.stringify(name)} leaves the archive's tree`);
    }
    total += size;
    if (total > maxBytes) throw new KustomizeError('Invalid', `reading tarball: unpacked content exceeds ${maxBytes} bytes`);
    files.set(clean, Uint8Array.from(data));
  }
  return files;
}
