// archive.ts: gzip'd tar archives in memory — the reader behind loading packaged charts (Go: chart/loader/archive.go
// LoadArchiveFiles) and the writer behind `helm package` (Go: chartutil/save.go). Pure: bytes in, bytes out.
import { gunzipSync, gzipSync, constants } from 'node:zlib';
import { HelmError } from './errors.js';

/** TarEntry is one regular file of an archive. */
export interface TarEntry {
  name: string;
  data: Uint8Array;
}

const dec = new TextDecoder();

function cstr(b: Uint8Array, off: number, len: number): string {
  let end = off;
  while (end < off + len && b[end] !== 0) end++;
  return dec.decode(b.subarray(off, end));
}

function octal(b: Uint8Array, off: number, len: number): number {
  // GNU base-256 for big sizes.
  if (b[off] & 0x80) {
    let n = 0;
    for (let i = off + 1; i < off + len; i++) n = n * 256 + b[i];
    return n;
  }
  const s = cstr(b, off, len).trim();
  return s === '' ? 0 : parseInt(s, 8);
}

function parsePax(data: Uint8Array): Record<string, string> {
  // Records are "LEN key=value\n", LEN counting bytes of the whole record.
  const out: Record<string, string> = {};
  let off = 0;
  while (off < data.length) {
    let sp = off;
    while (sp < data.length && data[sp] !== 0x20) sp++;
    const len = parseInt(dec.decode(data.subarray(off, sp)), 10);
    if (!(len > 0)) break;
    const kv = dec.decode(data.subarray(sp + 1, off + len - 1));
    const eq = kv.indexOf('=');
    out[kv.slice(0, eq)] = kv.slice(eq + 1);
    off += len;
  }
  return out;
}

/** readTarGz returns the regular files of a .tgz in archive order; it throws HelmError with Go's gzip/tar texts. */
export function readTarGz(bytes: Uint8Array): TarEntry[] {
  let tar: Uint8Array;
  try {
    tar = gunzipSync(bytes, { finishFlush: constants.Z_SYNC_FLUSH });
  } catch {
    throw new HelmError('load', 'gzip: invalid header');
  }
  const entries: TarEntry[] = [];
  let off = 0;
  let paxName: string | undefined;
  let longName: string | undefined;
  while (off + 512 <= tar.length) {
    const h = tar.subarray(off, off + 512);
    if (h.every((x) => x === 0)) break;
    let name = cstr(h, 0, 100);
    const size = octal(h, 124, 12);
    const type = String.fromCharCode(h[156] || 0x30);
    const magic = cstr(h, 257, 6);
    if (magic === 'ustar') {
      const prefix = cstr(h, 345, 155);
      if (prefix !== '') name = prefix + '/' + name;
    }
    const body = tar.subarray(off + 512, off + 512 + size);
    off += 512 + Math.ceil(size / 512) * 512;
    if (type === 'x') {
      paxName = parsePax(body).path ?? paxName;
      continue;
    }
    if (type === 'g') continue;
    if (type === 'L') {
      longName = cstr(body, 0, body.length);
      continue;
    }
    if (longName !== undefined) name = longName;
    if (paxName !== undefined) name = paxName;
    longName = paxName = undefined;
    if (type !== '0' && type !== '7') continue; // directories, links and devices carry no chart content
    entries.push({ name, data: body.slice() });
  }
  return entries;
}

function putStr(b: Uint8Array, off: number, len: number, s: string): void {
  const e = new TextEncoder().encode(s);
  b.set(e.subarray(0, len), off);
}

function putOctal(b: Uint8Array, off: number, len: number, n: number): void {
  putStr(b, off, len - 1, n.toString(8).padStart(len - 1, '0'));
}

/**
 * writeTarGz packs files the way Go's archive/tar + compress/gzip do for `helm package`: USTAR headers with mode
 * 0644 and the given modification time (seconds), gzip with Helm's extra header field and "Helm" comment left
 * out (node:zlib cannot write them; the content and layout are the same).
 */
export function writeTarGz(files: readonly TarEntry[], mtimeSeconds: number): Uint8Array {
  const parts: Uint8Array[] = [];
  for (const f of files) {
    const h = new Uint8Array(512);
    let name = f.name;
    let prefix = '';
    const enc = new TextEncoder();
    if (enc.encode(name).length > 100) {
      const i = name.lastIndexOf('/', name.length - 1);
      prefix = name.slice(0, i);
      name = name.slice(i + 1);
    }
    putStr(h, 0, 100, name);
    putOctal(h, 100, 8, 0o644);
    putOctal(h, 108, 8, 0);
    putOctal(h, 116, 8, 0);
    putOctal(h, 124, 12, f.data.length);
    putOctal(h, 136, 12, Math.floor(mtimeSeconds));
    h.fill(0x20, 148, 156);
    h[156] = 0x30;
    putStr(h, 257, 6, 'ustar');
    putStr(h, 263, 2, '00');
    putStr(h, 345, 155, prefix);
    let sum = 0;
    for (const x of h) sum += x;
    putStr(h, 148, 8, sum.toString(8).padStart(6, '0') + '\0 ');
    parts.push(h, f.data);
    const pad = (512 - (f.data.length % 512)) % 512;
    if (pad > 0) parts.push(new Uint8Array(pad));
  }
  parts.push(new Uint8Array(1024));
  return gzipSync(Buffer.concat(parts));
}
