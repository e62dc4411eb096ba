// encoding.ts: Sprig's base64/base32 functions (strings.go) and the path/filepath functions (functions.go).
// Decoding errors are returned as the result text, as Sprig does, with Go's CorruptInputError offsets.
import type { GoFunc } from '../gotemplate/index.js';
import { bytesToString } from './cast.js';
import { defineFunc } from './define.js';
import { utf8Bytes } from './unicode.js';

const B64 = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/';
const B32 = 'ABCDEFGHIJKLMNOPQRSTUVWXYZ234567';

function corrupt(n: number): string {
  return `illegal base64 data at input byte ${n}`;
}

/** base64Decode is base64.StdEncoding.DecodeString: '\r' and '\n' are skipped, padding required. Go: base64.go decodeQuantum */
export function base64Decode(s: string): { bytes: Uint8Array; error?: string } {
  const src = utf8Bytes(s);
  const out: number[] = [];
  let si = 0;
  const isNL = (b: number) => b === 10 || b === 13;
  while (si < src.length) {
    const dbuf = [0, 0, 0, 0];
    let dlen = 4;
    let j = 0;
    let done = false;
    for (; j < 4; j++) {
      if (si === src.length) {
        if (j === 0) return { bytes: Uint8Array.from(out) };
        return { bytes: Uint8Array.from(out), error: corrupt(si - j) };
      }
      const ch = src[si++];
      const v = ch < 128 ? B64.indexOf(String.fromCharCode(ch)) : -1;
      if (v >= 0) {
        dbuf[j] = v;
        continue;
      }
      if (isNL(ch)) {
        j--;
        continue;
      }
      if (ch !== 61 /* = */) return { bytes: Uint8Array.from(out), error: corrupt(si - 1) };
      if (j === 0 || j === 1) return { bytes: Uint8Array.from(out), error: corrupt(si - 1) };
      if (j === 2) {
        while (si < src.length && isNL(src[si])) si++;
        if (si === src.length) return { bytes: Uint8Array.from(out), error: corrupt(src.length) };
        if (src[si] !== 61) return { bytes: Uint8Array.from(out), error: corrupt(si - 1) };
        si++;
      }
      while (si < src.length && isNL(src[si])) si++;
      dlen = j;
      done = true;
      if (si < src.length) {
        pushQuantum(out, dbuf, dlen);
        return { bytes: Uint8Array.from(out), error: corrupt(si) };
      }
      break;
    }
    pushQuantum(out, dbuf, dlen);
    if (done) break;
  }
  return { bytes: Uint8Array.from(out) };
}

function pushQuantum(out: number[], d: number[], dlen: number): void {
  const val = (d[0] << 18) | (d[1] << 12) | (d[2] << 6) | d[3];
  const b = [(val >> 16) & 0xff, (val >> 8) & 0xff, val & 0xff];
  for (let k = 0; k < dlen - 1; k++) out.push(b[k]);
}

/** base32Encode is base32.StdEncoding.EncodeToString. */
export function base32Encode(bytes: Uint8Array): string {
  let out = '';
  for (let i = 0; i < bytes.length; i += 5) {
    const chunk = bytes.subarray(i, i + 5);
    let bits = 0n;
    for (let k = 0; k < 5; k++) bits = (bits << 8n) | BigInt(chunk[k] ?? 0);
    const chars = [2, 4, 5, 7, 8][chunk.length - 1];
    for (let k = 0; k < 8; k++) out += k < chars ? B32[Number((bits >> BigInt(35 - 5 * k)) & 31n)] : '=';
  }
  return out;
}

/** base32Decode is base32.StdEncoding.DecodeString (newlines stripped first). Go: base32.go decode */
export function base32Decode(s: string): { bytes: Uint8Array; error?: string } {
  const src = Array.from(utf8Bytes(s)).filter((b) => b !== 10 && b !== 13);
  const olen = src.length;
  const out: number[] = [];
  const err = (n: number) => ({ bytes: Uint8Array.from(out), error: `illegal base32 data at input byte ${n}` });
  let p = 0;
  let end = false;
  while (p < src.length && !end) {
    const dbuf = [0, 0, 0, 0, 0, 0, 0, 0];
    let dlen = 8;
    for (let j = 0; j < 8; ) {
      if (p >= src.length) return err(olen - (src.length - p) - j);
      const ch = src[p++];
      const rest = src.length - p;
      if (ch === 61 && j >= 2 && rest < 8) {
        if (rest + j < 8 - 1) return err(olen);
        for (let k = 0; k < 8 - 1 - j; k++) {
          if (rest > k && src[p + k] !== 61) return err(olen - rest + k - 1);
        }
        dlen = j;
        end = true;
        if (dlen === 1 || dlen === 3 || dlen === 6) return err(olen - rest - 1);
        break;
      }
      const v = ch < 128 ? B32.indexOf(String.fromCharCode(ch)) : -1;
      if (v < 0) return err(olen - rest - 1);
      dbuf[j++] = v;
    }
    let bits = 0n;
    for (let k = 0; k < 8; k++) bits = (bits << 5n) | BigInt(dbuf[k]);
    const nbytes = [0, 0, 1, 1, 2, 3, 3, 4, 5][dlen];
    for (let k = 0; k < nbytes; k++) out.push(Number((bits >> BigInt(32 - 8 * k)) & 0xffn));
  }
  return { bytes: Uint8Array.from(out) };
}

// Go's path package (filepath is the same on Linux, where Sprig's os* functions run).

/** cleanPath is path.Clean. Go: path.go Clean */
export function cleanPath(p: string): string {
  if (p === '') return '.';
  const rooted = p[0] === '/';
  const parts: string[] = [];
  for (const seg of p.split('/')) {
    if (seg === '' || seg === '.') continue;
    if (seg === '..') {
      if (parts.length > 0 && parts[parts.length - 1] !== '..') parts.pop();
      else if (!rooted) parts.push('..');
      continue;
    }
    parts.push(seg);
  }
  const out = (rooted ? '/' : '') + parts.join('/');
  return out === '' ? '.' : out;
}

/** basePath is path.Base. */
export function basePath(p: string): string {
  if (p === '') return '.';
  p = p.replace(/\/+$/, '');
  if (p === '') return '/';
  return p.slice(p.lastIndexOf('/') + 1);
}

/** dirPath is path.Dir. */
export function dirPath(p: string): string {
  return cleanPath(p.slice(0, p.lastIndexOf('/') + 1));
}

/** extPath is path.Ext. */
export function extPath(p: string): string {
  for (let i = p.length - 1; i >= 0 && p[i] !== '/'; i--) if (p[i] === '.') return p.slice(i);
  return '';
}

/** encodingFuncs returns Sprig's base64/base32 and path functions. */
export function encodingFuncs(): GoFunc[] {
  const pathFns = (prefix: string): GoFunc[] => [
    defineFunc(prefix ? 'osBase' : 'base', '(string) string', basePath),
    defineFunc(prefix ? 'osDir' : 'dir', '(string) string', dirPath),
    defineFunc(prefix ? 'osClean' : 'clean', '(string) string', cleanPath),
    defineFunc(prefix ? 'osExt' : 'ext', '(string) string', extPath),
    defineFunc(prefix ? 'osIsAbs' : 'isAbs', '(string) bool', (p: string) => p.startsWith('/')),
  ];
  return [
    defineFunc('b64enc', '(string) string', (s: string) => Buffer.from(utf8Bytes(s)).toString('base64')),
    defineFunc('b64dec', '(string) string', (s: string) => {
      const r = base64Decode(s);
      return r.error ?? bytesToString(r.bytes);
    }),
    defineFunc('b32enc', '(string) string', (s: string) => base32Encode(utf8Bytes(s))),
    defineFunc('b32dec', '(string) string', (s: string) => {
      const r = base32Decode(s);
      return r.error ?? bytesToString(r.bytes);
    }),
    ...pathFns(''),
    ...pathFns('os'),
  ];
}
