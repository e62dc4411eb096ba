// crypto.ts: Sprig's hashes, passwords, keys, certificates, AES and UUIDs (sprig crypto.go) on node:crypto and
// bcryptjs. Randomness (salts, IVs, serial numbers, UUIDs) comes from the injected source; key pairs come from
// node:crypto's generator, so keys and certificates are pinned by shape, not value.
import bcryptjs from 'bcryptjs';
import { createCipheriv, createDecipheriv, createHash, createHmac, generateKeyPairSync, scryptSync } from 'node:crypto';
import { formatValue, GoInt, GoStruct, type GoFunc, type GoValue } from '../gotemplate/index.js';
import { defineFunc, goError } from './define.js';
import { checkStringLength, randomBytes, type ResolvedOptions } from './options.js';
import { intValue } from './reflect.js';
import { base64Decode } from './encoding.js';
import { bytesToString } from './cast.js';
import { utf8Bytes } from './unicode.js';
import {
  CertError,
  createCertificate,
  KeyError,
  parseCertificateDER,
  parsePrivateKeyPEM,
  pemDecode,
  pemEncode,
  pemForKey,
  readCertInfo,
  type CertInfo,
  type PrivateKey,
} from './x509.js';

/** CERTIFICATE_TYPE is the Go type name of Sprig's certificate struct (what %T prints and genSignedCert accepts). */
export const CERTIFICATE_TYPE = 'sprig.certificate';

function certificate(cert: string, key: string): GoStruct {
  return new GoStruct(CERTIFICATE_TYPE, { Cert: cert, Key: key });
}

const hex = (b: Uint8Array) => Buffer.from(b).toString('hex');

/** adler32 is hash/adler32.Checksum. */
export function adler32(b: Uint8Array): number {
  let a = 1;
  let s = 0;
  for (const x of b) {
    a = (a + x) % 65521;
    s = (s + a) % 65521;
  }
  return ((s << 16) | a) >>> 0;
}

const BCRYPT_ALPHABET = './ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789';

/** bcryptHash is bcrypt.GenerateFromPassword(input, 10): version 2a, a salt from the injected source. */
function bcryptHash(o: ResolvedOptions, input: string): string {
  const pw = utf8Bytes(input);
  if (pw.length > 72) return 'failed to encrypt string with bcrypt: bcrypt: password length exceeds 72 bytes';
  // bcrypt's base64 of 16 salt bytes is 22 characters; encode them here so the salt comes from our source.
  const salt = randomBytes(o, 16);
  let bits = 0;
  let nbits = 0;
  let enc = '';
  for (const byte of salt) {
    bits = (bits << 8) | byte;
    nbits += 8;
    while (nbits >= 6) {
      nbits -= 6;
      enc += BCRYPT_ALPHABET[(bits >> nbits) & 63];
    }
  }
  if (nbits > 0) enc += BCRYPT_ALPHABET[(bits << (6 - nbits)) & 63];
  return bcryptjs.hashSync(input, `$2a$10$${enc.slice(0, 22)}`);
}

const MASTER_PASSWORD_SEED = 'com.lyndir.masterpassword';
const PASSWORD_TEMPLATES: Record<string, string[]> = {
  maximum: ['anoxxxxxxxxxxxxxxxxx', 'axxxxxxxxxxxxxxxxxno'],
  long: [
    'CvcvnoCvcvCvcv', 'CvcvCvcvnoCvcv', 'CvcvCvcvCvcvno', 'CvccnoCvcvCvcv', 'CvccCvcvnoCvcv', 'CvccCvcvCvcvno', 'CvcvnoCvccCvcv',
    'CvcvCvccnoCvcv', 'CvcvCvccCvcvno', 'CvcvnoCvcvCvcc', 'CvcvCvcvnoCvcc', 'CvcvCvcvCvccno', 'CvccnoCvccCvcv', 'CvccCvccnoCvcv',
    'CvccCvccCvcvno', 'CvcvnoCvccCvcc', 'CvcvCvccnoCvcc', 'CvcvCvccCvccno', 'CvccnoCvcvCvcc', 'CvccCvcvnoCvcc', 'CvccCvcvCvccno',
  ],
  medium: ['CvcnoCvc', 'CvcCvcno'],
  short: ['Cvcn'],
  basic: ['aaanaaan', 'aannaaan', 'aaannaaa'],
  pin: ['nnnn'],
};
const TEMPLATE_CHARACTERS: Record<string, string> = {
  V: 'AEIOU',
  C: 'BCDFGHJKLMNPQRSTVWXYZ',
  v: 'aeiou',
  c: 'bcdfghjklmnpqrstvwxyz',
  A: 'AEIOUBCDFGHJKLMNPQRSTVWXYZ',
  a: 'AEIOUaeiouBCDFGHJKLMNPQRSTVWXYZbcdfghjklmnpqrstvwxyz',
  n: '0123456789',
  o: "@&%?,=[]_:-+*$#!'^~;()/.",
  x: 'AEIOUaeiouBCDFGHJKLMNPQRSTVWXYZbcdfghjklmnpqrstvwxyz0123456789!@#$%^&*()',
};

/** derivePassword is Sprig's Master Password algorithm (scrypt key, HMAC-SHA256 seed, template characters). */
function derivePassword(counter: number, passwordType: string, password: string, user: string, site: string): string {
  const templates = PASSWORD_TEMPLATES[passwordType];
  if (!templates) return `cannot find password template ${passwordType}`;
  const u32 = (n: number) => {
    const b = Buffer.alloc(4);
    b.writeUInt32BE(n >>> 0);
    return b;
  };
  const userB = Buffer.from(user, 'utf8');
  const siteB = Buffer.from(site, 'utf8');
  const salt = Buffer.concat([Buffer.from(MASTER_PASSWORD_SEED), u32(userB.length), userB]);
  const key = scryptSync(Buffer.from(password, 'utf8'), salt, 64, { N: 32768, r: 8, p: 2, maxmem: 256 * 1024 * 1024 });
  const seed = createHmac('sha256', key)
    .update(Buffer.concat([Buffer.from(MASTER_PASSWORD_SEED), u32(siteB.length), siteB, u32(counter)]))
    .digest();
  const temp = templates[seed[0] % templates.length];
  let out = '';
  for (let i = 0; i < temp.length; i++) {
    const chars = TEMPLATE_CHARACTERS[temp[i]];
    out += chars[seed[i + 1] % chars.length];
  }
  return out;
}

/** generatePrivateKey is Sprig's genPrivateKey: rsa (4096), dsa (L2048N256), ecdsa (P-256), ed25519. */
function generatePrivateKey(typ: string): string {
  let k: PrivateKey;
  switch (typ) {
    case '':
    case 'rsa':
      k = { key: generateKeyPairSync('rsa', { modulusLength: 4096 }).privateKey, goType: 'rsa' };
      break;
    case 'dsa':
      k = { key: generateKeyPairSync('dsa', { modulusLength: 2048, divisorLength: 256 }).privateKey, goType: 'dsa' };
      break;
    case 'ecdsa':
      k = { key: generateKeyPairSync('ec', { namedCurve: 'P-256' }).privateKey, goType: 'ecdsa' };
      break;
    case 'ed25519':
      k = { key: generateKeyPairSync('ed25519').privateKey, goType: 'ed25519' };
      break;
    default:
      return 'Unknown type ' + typ;
  }
  return pemForKey(k);
}

/** parseIP is net.ParseIP: dotted IPv4 (no leading zeros) or IPv6, returned in the 4- or 16-byte form Go marshals. */
export function parseIP(s: string): Uint8Array | undefined {
  const v4 = (t: string): number[] | undefined => {
    const parts = t.split('.');
    if (parts.length !== 4) return undefined;
    const out: number[] = [];
    for (const p of parts) {
      if (!/^[0-9]{1,3}$/.test(p) || (p.length > 1 && p[0] === '0') || Number(p) > 255) return undefined;
      out.push(Number(p));
    }
    return out;
  };
  const four = v4(s);
  if (four) return Uint8Array.from(four);
  if (!s.includes(':')) return undefined;
  let head = s;
  let tailV4: number[] = [];
  const lastColon = s.lastIndexOf(':');
  if (s.slice(lastColon + 1).includes('.')) {
    const t = v4(s.slice(lastColon + 1));
    if (!t) return undefined;
    tailV4 = t;
    head = s.slice(0, lastColon + 1) + '0:0';
  }
  const halves = head.split('::');
  if (halves.length > 2) return undefined;
  const groups = (h: string) => (h === '' ? [] : h.split(':'));
  const left = groups(halves[0]);
  const right = halves.length === 2 ? groups(halves[1]) : [];
  const total = left.length + right.length;
  if ((halves.length === 1 && total !== 8) || (halves.length === 2 && total > 7)) return undefined;
  const all = [...left, ...Array(8 - total).fill('0'), ...right];
  const out: number[] = [];
  for (const g of all) {
    if (!/^[0-9a-fA-F]{1,4}$/.test(g)) return undefined;
    const v = parseInt(g, 16);
    out.push(v >> 8, v & 0xff);
  }
  if (tailV4.length) out.splice(12, 4, ...tailV4);
  const b = Uint8Array.from(out);
  // net.IP.To4: IPv4-mapped addresses marshal as 4 bytes.
  if (b.slice(0, 10).every((x) => x === 0) && b[10] === 0xff && b[11] === 0xff) return b.slice(12);
  return b;
}

function ipList(ips: GoValue[] | null): Uint8Array[] {
  return (ips ?? []).map((ip) => {
    if (typeof ip !== 'string') throw goError(`error parsing ip: ${formatValue(ip)} is not a string`);
    const b = parseIP(ip);
    if (!b) throw goError(`error parsing ip: ${ip}`);
    return b;
  });
}

function dnsList(names: GoValue[] | null): string[] {
  return (names ?? []).map((n) => {
    if (typeof n !== 'string') throw goError(`error processing alternate dns name: ${formatValue(n)} is not a string`);
    return n;
  });
}

/** cryptoFuncs returns Sprig's crypto, certificate, AES and UUID functions. */
export function cryptoFuncs(o: ResolvedOptions): GoFunc[] {
  const nowSec = (): number => {
    if (!o.clock) throw goError('no clock configured: pass FuncOptions.clock to use now, date, ago and certificates');
    return o.clock.now() / 1000;
  };
  const serial = (): bigint => BigInt('0x' + hex(randomBytes(o, 16)));
  const rsa2048 = (): PrivateKey => ({ key: generateKeyPairSync('rsa', { modulusLength: 2048 }).privateKey, goType: 'rsa' });
  const parseKey = (pem: string): PrivateKey => {
    try {
      return parsePrivateKeyPEM(pem);
    } catch (e) {
      if (e instanceof KeyError) throw goError(`parsing private key: ${e.message}`);
      throw e;
    }
  };
  const make = (cn: string, ips: GoValue[] | null, dns: GoValue[] | null, days: number, isCA: boolean, key: PrivateKey, parent?: { info: CertInfo; key: PrivateKey }) => {
    const ipBytes = ipList(ips);
    const names = dnsList(dns);
    const now = Math.floor(nowSec());
    const tmpl = { serial: serial(), commonName: cn, ips: ipBytes, dnsNames: names, notBefore: now, notAfter: now + 86400 * days, isCA };
    let certDer: Uint8Array;
    try {
      certDer = createCertificate(tmpl, key, parent?.info, parent?.key ?? key);
    } catch (e) {
      if (e instanceof CertError) throw goError(`error creating certificate: ${e.message}`);
      throw e;
    }
    return certificate(pemEncode('CERTIFICATE', certDer), pemForKey(key));
  };
  const signer = (ca: GoStruct): { info: CertInfo; key: PrivateKey } => {
    const block = pemDecode(String(ca.fields.Cert ?? ''));
    if (!block) throw goError('unable to decode certificate');
    let info: CertInfo;
    try {
      parseCertificateDER(block.bytes);
      info = readCertInfo(block.bytes);
    } catch {
      throw goError('error parsing certificate: decodedSignerCert.Bytes: x509: malformed certificate');
    }
    let key: PrivateKey;
    try {
      key = parsePrivateKeyPEM(String(ca.fields.Key ?? ''));
    } catch (e) {
      if (e instanceof KeyError) throw goError(`error parsing private key: ${e.message}`);
      throw e;
    }
    return { info, key };
  };
  const days = (v: GoValue) => intValue(v);
  return [
    defineFunc('sha1sum', '(string) string', (s: string) => createHash('sha1').update(s, 'utf8').digest('hex')),
    defineFunc('sha256sum', '(string) string', (s: string) => createHash('sha256').update(s, 'utf8').digest('hex')),
    defineFunc('sha512sum', '(string) string', (s: string) => createHash('sha512').update(s, 'utf8').digest('hex')),
    defineFunc('adler32sum', '(string) string', (s: string) => String(adler32(utf8Bytes(s)))),
    defineFunc('bcrypt', '(string) string', (s: string) => bcryptHash(o, s)),
    defineFunc('htpasswd', '(string, string) string', (user: string, pass: string) =>
      user.includes(':') ? `invalid username: ${user}` : `${user}:${bcryptHash(o, pass)}`,
    ),
    defineFunc('randBytes', '(int) (string, error)', (n: GoValue) => {
      const count = intValue(n);
      if (count < 0) throw goError('runtime error: makeslice: len out of range');
      checkStringLength(o, 'randBytes', count);
      return Buffer.from(randomBytes(o, count)).toString('base64');
    }),
    defineFunc('uuidv4', '() string', () => {
      const b = randomBytes(o, 16);
      b[6] = (b[6] & 0x0f) | 0x40;
      b[8] = (b[8] & 0x3f) | 0x80;
      const h = hex(b);
      return `${h.slice(0, 8)}-${h.slice(8, 12)}-${h.slice(12, 16)}-${h.slice(16, 20)}-${h.slice(20)}`;
    }),
    defineFunc('derivePassword', '(uint32, string, string, string, string) string', (c: GoValue, t: string, pw: string, user: string, site: string) =>
      derivePassword(c instanceof GoInt ? Number(c.value) : Number(c), t, pw, user, site),
    ),
    defineFunc('genPrivateKey', '(string) string', generatePrivateKey),
    defineFunc('buildCustomCert', `(string, string) (${CERTIFICATE_TYPE}, error)`, (b64cert: string, b64key: string) => {
      const c = base64Decode(b64cert);
      if (c.error) throw goError('unable to decode base64 certificate');
      const k = base64Decode(b64key);
      if (k.error) throw goError('unable to decode base64 private key');
      const certText = bytesToString(c.bytes);
      const keyText = bytesToString(k.bytes);
      const block = pemDecode(certText);
      if (!block) throw goError('unable to decode certificate');
      try {
        parseCertificateDER(block.bytes);
      } catch {
        throw goError('error parsing certificate: decodedCert.Bytes: x509: malformed certificate');
      }
      try {
        parsePrivateKeyPEM(keyText);
      } catch (e) {
        if (e instanceof KeyError) throw goError(`error parsing private key: ${e.message}`);
        throw e;
      }
      return certificate(certText, keyText);
    }),
    defineFunc('genCA', `(string, int) (${CERTIFICATE_TYPE}, error)`, (cn: string, d: GoValue) => make(cn, null, null, days(d), true, rsa2048())),
    defineFunc('genCAWithKey', `(string, int, string) (${CERTIFICATE_TYPE}, error)`, (cn: string, d: GoValue, pem: string) =>
      make(cn, null, null, days(d), true, parseKey(pem)),
    ),
    defineFunc(
      'genSelfSignedCert',
      `(string, []interface {}, []interface {}, int) (${CERTIFICATE_TYPE}, error)`,
      (cn: string, ips: GoValue[] | null, dns: GoValue[] | null, d: GoValue) => make(cn, ips, dns, days(d), false, rsa2048()),
    ),
    defineFunc(
      'genSelfSignedCertWithKey',
      `(string, []interface {}, []interface {}, int, string) (${CERTIFICATE_TYPE}, error)`,
      (cn: string, ips: GoValue[] | null, dns: GoValue[] | null, d: GoValue, pem: string) => make(cn, ips, dns, days(d), false, parseKey(pem)),
    ),
    defineFunc(
      'genSignedCert',
      `(string, []interface {}, []interface {}, int, ${CERTIFICATE_TYPE}) (${CERTIFICATE_TYPE}, error)`,
      (cn: string, ips: GoValue[] | null, dns: GoValue[] | null, d: GoValue, ca: GoStruct) => {
        const key = rsa2048();
        return make(cn, ips, dns, days(d), false, key, signer(ca));
      },
    ),
    defineFunc(
      'genSignedCertWithKey',
      `(string, []interface {}, []interface {}, int, ${CERTIFICATE_TYPE}, string) (${CERTIFICATE_TYPE}, error)`,
      (cn: string, ips: GoValue[] | null, dns: GoValue[] | null, d: GoValue, ca: GoStruct, pem: string) => {
        const key = parseKey(pem);
        return make(cn, ips, dns, days(d), false, key, signer(ca));
      },
    ),
    defineFunc('encryptAES', '(string, string) (string, error)', (password: string, plaintext: string) => {
      if (plaintext === '') return '';
      const key = Buffer.alloc(32);
      Buffer.from(password, 'utf8').copy(key, 0, 0, 32);
      const iv = Buffer.from(randomBytes(o, 16));
      const c = createCipheriv('aes-256-cbc', key, iv); // PKCS#7 padding, as Sprig pads by hand
      return Buffer.concat([iv, c.update(Buffer.from(plaintext, 'utf8')), c.final()]).toString('base64');
    }),
    defineFunc('decryptAES', '(string, string) (string, error)', (password: string, crypt64: string) => {
      if (crypt64 === '') return '';
      const key = Buffer.alloc(32);
      Buffer.from(password, 'utf8').copy(key, 0, 0, 32);
      const r = base64Decode(crypt64);
      if (r.error) throw goError(r.error);
      const crypt = Buffer.from(r.bytes);
      if (crypt.length < 16) throw goError(`runtime error: slice bounds out of range [:16] with capacity ${crypt.length}`);
      const body = crypt.subarray(16);
      if (body.length % 16 !== 0) throw goError('crypto/cipher: input not full blocks');
      const d = createDecipheriv('aes-256-cbc', key, crypt.subarray(0, 16));
      d.setAutoPadding(false);
      const plain = Buffer.concat([d.update(body), d.final()]);
      if (plain.length === 0) throw goError('runtime error: index out of range [-1]');
      const cut = plain.length - plain[plain.length - 1];
      if (cut < 0) throw goError(`runtime error: slice bounds out of range [:${cut}]`);
      return bytesToString(plain.subarray(0, cut));
    }),
  ];
}
