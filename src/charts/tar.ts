// tar.ts: a minimal reader for chart archives (.tgz): gzip via node:zlib, then POSIX ustar with GNU long names and
// PAX path records — what `helm package`, `tar czf` and Go's archive/tar write. Only regular files are returned.
import { gunzipSync } from 'node:zlib';
import { parse as parseYaml } from 'yaml';
import { ChartSourceError } from './errors.js';

/** TarFile is one regular file of an archive. */
export interface TarFile {
  name: string;
  data: Buffer;
}

/** MAX_CHART_BYTES bounds a decompressed chart (Helm's loader caps archives at 100 MiB expanded too). */
export const MAX_CHART_BYTES = 100 * 1024 * 1024;

function field(h: Buffer, start: number, len: number): string {
  const raw = h.subarray(start, start + len);
  const nul = raw.indexOf(0);
  return raw.subarray(0, nul < 0 ? len : nul).toString('utf8');
}

function octal(h: Buffer, start: number, len: number): number {
  if (h[start] & 0x80) {
    // GNU base-256 for sizes beyond 8 GiB: never in a chart, but reject rather than misread.
    throw new Error('base-256 size field');
  }
  const s = field(h, start, len).trim();
  return s === '' ? 0 : parseInt(s, 8);
}

function checksumOk(h: Buffer): boolean {
  let sum = 0;
  for (let i = 0; i < 512; i++) sum += i >= 148 && i < 156 ? 0x20 : h[i];
  return sum === octal(h, 148, 8);
}

// paxPath extracts the `path` record from a PAX extended header ("LEN path=VALUE\n" records).
function paxPath(data: Buffer): string | undefined {
  let off = 0;
  let path: string | undefined;
  while (off < data.length) {
    const sp = data.indexOf(0x20, off);
    if (sp < 0) break;
    const len = parseInt(data.subarray(off, sp).toString(), 10);
    if (!Number.isFinite(len) || len <= 0) break;
    const rec = data.subarray(sp + 1, off + len - 1).toString('utf8');
    const eq = rec.indexOf('=');
    if (rec.slice(0, eq) === 'path') path = rec.slice(eq + 1);
    off += len;
  }
  return path;
}

/** readTar lists the regular files of an uncompressed tar stream; it throws on a malformed header. */
export function readTar(buf: Buffer): TarFile[] {
  const out: TarFile[] = [];
  let off = 0;
  let longName: string | undefined;
  while (off + 512 <= buf.length) {
    const h = buf.subarray(off, off + 512);
    if (h.every((b) => b === 0)) break; // end-of-archive marker
    if (!checksumOk(h)) throw new Error(`bad tar header checksum at offset ${off}`);
    const size = octal(h, 124, 12);
    const type = String.fromCharCode(h[156] || 0x30);
    const dataStart = off + 512;
    if (dataStart + size > buf.length) throw new Error(`truncated tar entry at offset ${off}`);
    const data = buf.subarray(dataStart, dataStart + size);
    off = dataStart + Math.ceil(size / 512) * 512;
    switch (type) {
      case 'L':
        longName = data.toString('utf8').replace(/\0+$/, '');
        continue;
      case 'x':
        longName = paxPath(data) ?? longName;
        continue;
      case 'g':
      case 'K':
        continue;
    }
    const prefix = field(h, 257, 6).startsWith('ustar') ? field(h, 345, 155) : '';
    const name = longName ?? (prefix ? `${prefix}/${field(h, 0, 100)}` : field(h, 0, 100));
    longName = undefined;
    if (type === '0' || type === '7') out.push({ name, data: Buffer.from(data) });
  }
  return out;
}

/** readTgz decompresses and lists a .tgz; what names the archive in the error it throws (BadChart). */
export function readTgz(bytes: Uint8Array, what: string): TarFile[] {
  let tar: Buffer;
  try {
    tar = gunzipSync(bytes, { maxOutputLength: MAX_CHART_BYTES });
  } catch (e) {
    throw new ChartSourceError('BadChart', `${what} is not a gzip archive: ${(e as Error).message}`, { cause: e });
  }
  try {
    return readTar(tar);
  } catch (e) {
    throw new ChartSourceError('BadChart', `${what} is not a valid tar archive: ${(e as Error).message}`, { cause: e });
  }
}

/** ChartYaml is Chart.yaml as parsed YAML, with the chart's top directory in the archive. */
export interface ArchivedChart {
  dir: string;
  chartYaml: Record<string, unknown>;
  name: string;
  version: string;
}

/**
 * readChartYaml finds the top-level `DIR/Chart.yaml` of a chart archive and parses it, checking what Helm's loader
 * needs before anything else: a name and a version.
 */
export function readChartYaml(bytes: Uint8Array, what: string): ArchivedChart {
  const files = readTgz(bytes, what);
  const f = files.find((x) => /^[^/]+\/Chart\.yaml$/.test(x.name.replace(/^\.\//, '')));
  if (!f) throw new ChartSourceError('BadChart', `${what}: no Chart.yaml in the archive's top directory (Chart.yaml file is missing)`);
  let doc: unknown;
  try {
    doc = parseYaml(f.data.toString('utf8'));
  } catch (e) {
    throw new ChartSourceError('BadChart', `${what}: Chart.yaml is not valid YAML: ${(e as Error).message}`, { cause: e });
  }
  if (typeof doc !== 'object' || doc === null || Array.isArray(doc)) throw new ChartSourceError('BadChart', `${what}: Chart.yaml is not a mapping`);
  const y = doc as Record<string, unknown>;
  if (typeof y.name !== 'string' || y.name === '') throw new ChartSourceError('BadChart', `${what}: Chart.yaml has no name`);
  if (typeof y.version !== 'string' || y.version === '') throw new ChartSourceError('BadChart', `${what}: Chart.yaml has no version (a string)`);
  return { dir: f.name.replace(/^\.\//, '').split('/')[0], chartYaml: y, name: y.name, version: y.version };
}
