// x509.ts: just enough DER and X.509 to build certificates the way Go's crypto/x509.CreateCertificate does for
// Sprig's genCA/genSelfSignedCert/genSignedCert (same fields, extension order and encodings), plus PEM and key
// parsing with Sprig's error texts. Keys and signatures come from node:crypto. Go: crypto/x509 x509.go,
// encoding/asn1, encoding/pem; sprig crypto.go.
import { createHash, createPrivateKey, createPublicKey, sign, X509Certificate, type KeyObject } from 'node:crypto';

// ---------------------------------------------------------------------------------------------------------------
// DER writer.

function derLength(n: number): number[] {
  if (n < 0x80) return [n];
  const bytes: number[] = [];
  while (n > 0) {
    bytes.unshift(n & 0xff);
    n = Math.floor(n / 256);
  }
  return [0x80 | bytes.length, ...bytes];
}

/** der builds one TLV. */
export function der(tag: number, content: Uint8Array | number[]): Uint8Array {
  const c = content instanceof Uint8Array ? content : Uint8Array.from(content);
  return Uint8Array.from([tag, ...derLength(c.length), ...c]);
}

const concat = (...parts: Uint8Array[]): Uint8Array => {
  const out = new Uint8Array(parts.reduce((n, p) => n + p.length, 0));
  let o = 0;
  for (const p of parts) {
    out.set(p, o);
    o += p.length;
  }
  return out;
};

const seq = (...parts: Uint8Array[]) => der(0x30, concat(...parts));
const set = (...parts: Uint8Array[]) => der(0x31, concat(...parts));
const octets = (b: Uint8Array) => der(0x04, b);
const bool = (v: boolean) => der(0x01, [v ? 0xff : 0]);

/** derInteger encodes a non-negative or negative bigint in minimal two's complement. */
export function derInteger(n: bigint): Uint8Array {
  const bytes: number[] = [];
  let v = n;
  for (;;) {
    bytes.unshift(Number(BigInt.asUintN(8, v)));
    v >>= 8n;
    if ((v === 0n && (bytes[0] & 0x80) === 0) || (v === -1n && (bytes[0] & 0x80) !== 0)) break;
  }
  return der(0x02, bytes);
}

/** derOid encodes a dotted object identifier. */
export function derOid(oid: string): Uint8Array {
  const parts = oid.split('.').map(Number);
  const out = [parts[0] * 40 + parts[1]];
  for (const p of parts.slice(2)) {
    const enc = [p & 0x7f];
    let v = Math.floor(p / 128);
    while (v > 0) {
      enc.unshift((v & 0x7f) | 0x80);
      v = Math.floor(v / 128);
    }
    out.push(...enc);
  }
  return der(0x06, out);
}

function bitString(bytes: Uint8Array, unused = 0): Uint8Array {
  return der(0x03, [unused, ...bytes]);
}

/** derTime is Go's asn1 time choice: UTCTime for 1950–2049, GeneralizedTime otherwise, whole seconds in UTC. */
function derTime(unixSec: number): Uint8Array {
  const d = new Date(Math.floor(unixSec) * 1000);
  const y = d.getUTCFullYear();
  const p2 = (n: number) => String(n).padStart(2, '0');
  const rest = `${p2(d.getUTCMonth() + 1)}${p2(d.getUTCDate())}${p2(d.getUTCHours())}${p2(d.getUTCMinutes())}${p2(d.getUTCSeconds())}Z`;
  if (y >= 1950 && y < 2050) return der(0x17, Array.from(Buffer.from(p2(y % 100) + rest, 'latin1')));
  return der(0x18, Array.from(Buffer.from(String(y).padStart(4, '0') + rest, 'latin1')));
}

/** isPrintable is asn1's PrintableString alphabet (Go also allows '*' when marshalling). */
function isPrintable(s: string): boolean {
  return /^[A-Za-z0-9 '()+,\-./:=?*]*$/.test(s);
}

/** derName encodes a pkix.Name holding only a common name. */
export function derName(cn: string): Uint8Array {
  if (cn === '') return seq();
  const value = isPrintable(cn) ? der(0x13, Buffer.from(cn, 'latin1')) : der(0x0c, Buffer.from(cn, 'utf8'));
  return seq(set(seq(derOid('2.5.4.3'), value)));
}

// ---------------------------------------------------------------------------------------------------------------
// DER reader (for the CA certificate a signed certificate chains to).

interface TLV {
  tag: number;
  start: number; // offset of the tag byte
  contentStart: number;
  end: number;
}

function readTLV(b: Uint8Array, off: number): TLV {
  const tag = b[off];
  let len = b[off + 1];
  let p = off + 2;
  if (len & 0x80) {
    const n = len & 0x7f;
    len = 0;
    for (let i = 0; i < n; i++) len = len * 256 + b[p++];
  }
  if (p + len > b.length) throw new Error('truncated DER');
  return { tag, start: off, contentStart: p, end: p + len };
}

function children(b: Uint8Array, t: TLV): TLV[] {
  const out: TLV[] = [];
  for (let p = t.contentStart; p < t.end; ) {
    const c = readTLV(b, p);
    out.push(c);
    p = c.end;
  }
  return out;
}

/** CertInfo is what signing needs from a parent certificate: its raw subject, SKI and public key. */
export interface CertInfo {
  rawSubject: Uint8Array;
  subjectKeyId?: Uint8Array;
  spki: Uint8Array;
}

/** readCertInfo extracts the parent's subject, subject key id and SubjectPublicKeyInfo from certificate DER. */
export function readCertInfo(certDer: Uint8Array): CertInfo {
  const cert = readTLV(certDer, 0);
  const tbs = children(certDer, cert)[0];
  let fields = children(certDer, tbs);
  if (fields[0].tag === 0xa0) fields = fields.slice(1); // version
  // serial, signature alg, issuer, validity, subject, spki, [extensions]
  const subject = fields[4];
  const spki = fields[5];
  let subjectKeyId: Uint8Array | undefined;
  const extWrap = fields.find((f) => f.tag === 0xa3);
  if (extWrap) {
    const exts = children(certDer, children(certDer, extWrap)[0]);
    for (const e of exts) {
      const parts = children(certDer, e);
      const oid = certDer.slice(parts[0].contentStart, parts[0].end);
      if (Buffer.from(oid).equals(Buffer.from([0x55, 0x1d, 0x0e]))) {
        const value = parts[parts.length - 1];
        const inner = readTLV(certDer, value.contentStart);
        subjectKeyId = certDer.slice(inner.contentStart, inner.end);
      }
    }
  }
  return { rawSubject: certDer.slice(subject.start, subject.end), subjectKeyId, spki: certDer.slice(spki.start, spki.end) };
}

// ---------------------------------------------------------------------------------------------------------------
// PEM.

/** PemBlock is a decoded PEM block. */
export interface PemBlock {
  type: string;
  bytes: Uint8Array;
}

/** pemDecode returns the first PEM block in text, or undefined (Go's pem.Decode returning nil). */
export function pemDecode(text: string): PemBlock | undefined {
  const m = /-----BEGIN ([^\n-]*)-----\r?\n([\s\S]*?)-----END \1-----/.exec(text);
  if (!m) return undefined;
  let body = m[2];
  // Optional RFC 1421 headers end with a blank line.
  if (/^[^\n]*:/.test(body)) {
    const blank = body.search(/\r?\n\r?\n/);
    if (blank >= 0) body = body.slice(blank).trimStart();
  }
  const clean = body.replace(/\s+/g, '');
  if (!/^[A-Za-z0-9+/]*={0,2}$/.test(clean)) return undefined;
  return { type: m[1], bytes: Uint8Array.from(Buffer.from(clean, 'base64')) };
}

/** pemEncode is pem.EncodeToMemory without headers: base64 in 64-character lines. */
export function pemEncode(type: string, bytes: Uint8Array): string {
  const b64 = Buffer.from(bytes).toString('base64');
  let out = `-----BEGIN ${type}-----\n`;
  for (let i = 0; i < b64.length; i += 64) out += b64.slice(i, i + 64) + '\n';
  return out + `-----END ${type}-----\n`;
}

/** PrivateKey is a parsed private key and the Go type it would have after Sprig's parsePrivateKeyPEM. */
export interface PrivateKey {
  key: KeyObject;
  goType: 'rsa' | 'ecdsa' | 'ed25519' | 'dsa';
}

/** KeyError carries the message Sprig's parsePrivateKeyPEM would return. */
export class KeyError extends Error {}

function keyTypeOf(k: KeyObject): PrivateKey['goType'] {
  switch (k.asymmetricKeyType) {
    case 'rsa':
    case 'rsa-pss':
      return 'rsa';
    case 'ec':
      return 'ecdsa';
    case 'ed25519':
      return 'ed25519';
    case 'dsa':
      return 'dsa';
  }
  throw new KeyError(`x509: PKCS#8 wrapping contained private key with unknown algorithm`);
}

/** parsePrivateKeyPEM is Sprig's parsePrivateKeyPEM (PKCS#8, PKCS#1, SEC 1 and the DSA sequence). */
export function parsePrivateKeyPEM(text: string): PrivateKey {
  const block = pemDecode(text);
  if (!block) throw new KeyError('no PEM data in input');
  const der = Buffer.from(block.bytes);
  if (block.type === 'PRIVATE KEY') {
    try {
      const key = createPrivateKey({ key: der, format: 'der', type: 'pkcs8' });
      return { key, goType: keyTypeOf(key) };
    } catch (e) {
      if (e instanceof KeyError) throw new KeyError(`decoding PEM as PKCS#8: ${e.message}`);
      throw new KeyError('decoding PEM as PKCS#8: x509: failed to parse private key');
    }
  }
  if (!block.type.endsWith(' PRIVATE KEY')) throw new KeyError(`no private key data in PEM block of type ${block.type}`);
  const kind = block.type.slice(0, -12);
  try {
    switch (kind) {
      case 'RSA':
        return { key: createPrivateKey({ key: der, format: 'der', type: 'pkcs1' }), goType: 'rsa' };
      case 'EC':
        return { key: createPrivateKey({ key: der, format: 'der', type: 'sec1' }), goType: 'ecdsa' };
      case 'DSA':
        return { key: createPrivateKey({ key: pemEncode('DSA PRIVATE KEY', block.bytes), format: 'pem' }), goType: 'dsa' };
    }
  } catch {
    const what = kind === 'RSA' ? 'RSA' : kind === 'EC' ? 'EC' : 'DSA';
    throw new KeyError(`parsing ${what} private key from PEM: asn1: structure error`);
  }
  throw new KeyError(`invalid private key type ${block.type}`);
}

/** dsaPrivateKeyDER re-encodes a DSA key as Go's DSAKeyFormat sequence {0, P, Q, G, Y, X}. */
function dsaPrivateKeyDER(k: KeyObject): Uint8Array {
  const pkcs8 = new Uint8Array(k.export({ format: 'der', type: 'pkcs8' }));
  const top = children(pkcs8, readTLV(pkcs8, 0));
  const params = children(pkcs8, children(pkcs8, top[1])[1]);
  const int = (t: TLV) => BigInt('0x' + (Buffer.from(pkcs8.slice(t.contentStart, t.end)).toString('hex') || '0'));
  const [p, q, g] = params.map(int);
  const xWrap = readTLV(pkcs8, top[2].contentStart);
  const x = int(xWrap);
  let y = 1n;
  for (let base = g % p, e = x; e > 0n; e >>= 1n, base = (base * base) % p) if (e & 1n) y = (y * base) % p;
  return seq(derInteger(0n), derInteger(p), derInteger(q), derInteger(g), derInteger(y), derInteger(x));
}

/** pemForKey is Sprig's pemBlockForKey: PKCS#1 for RSA, SEC 1 for ECDSA, Go's DSA sequence, PKCS#8 otherwise. */
export function pemForKey(k: PrivateKey): string {
  switch (k.goType) {
    case 'rsa':
      return k.key.export({ format: 'pem', type: 'pkcs1' }) as string;
    case 'ecdsa':
      return k.key.export({ format: 'pem', type: 'sec1' }) as string;
    case 'dsa':
      return pemEncode('DSA PRIVATE KEY', dsaPrivateKeyDER(k.key));
    default:
      return k.key.export({ format: 'pem', type: 'pkcs8' }) as string;
  }
}

/** parseCertificatePEM decodes and validates a certificate; errors carry Sprig's texts. */
export function parseCertificateDER(derBytes: Uint8Array): X509Certificate {
  return new X509Certificate(Buffer.from(derBytes));
}

// ---------------------------------------------------------------------------------------------------------------
// Certificate creation.

/** CertTemplate is the part of x509.Certificate Sprig's getBaseCertTemplate fills in. */
export interface CertTemplate {
  serial: bigint;
  commonName: string;
  ips: Uint8Array[];
  dnsNames: string[];
  notBefore: number; // Unix seconds
  notAfter: number;
  isCA: boolean;
}

/** CertError carries Go's CreateCertificate error text. */
export class CertError extends Error {}

function signingParams(k: PrivateKey): { alg: Uint8Array; hash: string | null } {
  switch (k.goType) {
    case 'rsa':
      return { alg: seq(derOid('1.2.840.113549.1.1.11'), der(0x05, [])), hash: 'sha256' };
    case 'ecdsa': {
      const curve = k.key.asymmetricKeyDetails?.namedCurve;
      if (curve === 'secp384r1') return { alg: seq(derOid('1.2.840.10045.4.3.3')), hash: 'sha384' };
      if (curve === 'secp521r1') return { alg: seq(derOid('1.2.840.10045.4.3.4')), hash: 'sha512' };
      return { alg: seq(derOid('1.2.840.10045.4.3.2')), hash: 'sha256' };
    }
    case 'ed25519':
      return { alg: seq(derOid('1.3.101.112')), hash: null };
    case 'dsa':
      throw new CertError('x509: certificate private key does not implement crypto.Signer');
  }
}

/** createCertificate is x509.CreateCertificate for Sprig's templates: returns the certificate DER. */
export function createCertificate(tmpl: CertTemplate, signee: PrivateKey, parent: CertInfo | undefined, signer: PrivateKey): Uint8Array {
  const { alg, hash } = signingParams(signer);
  if (signee.goType === 'dsa') throw new CertError('x509: unsupported public key type: *dsa.PublicKey');
  const spki = new Uint8Array(createPublicKey(signee.key).export({ format: 'der', type: 'spki' }));
  const spkiParts = children(spki, readTLV(spki, 0));
  const pubBits = spki.slice(spkiParts[1].contentStart + 1, spkiParts[1].end);
  const subject = derName(tmpl.commonName);
  const issuer = parent ? parent.rawSubject : subject;
  if (parent) {
    const signerSpki = new Uint8Array(createPublicKey(signer.key).export({ format: 'der', type: 'spki' }));
    if (!Buffer.from(signerSpki).equals(Buffer.from(parent.spki))) {
      throw new CertError("x509: provided PrivateKey doesn't match parent's PublicKey");
    }
  }
  let authorityKeyId: Uint8Array | undefined;
  if (parent && !Buffer.from(issuer).equals(Buffer.from(subject)) && parent.subjectKeyId?.length) authorityKeyId = parent.subjectKeyId;
  const subjectKeyId = tmpl.isCA ? new Uint8Array(createHash('sha1').update(pubBits).digest()) : undefined;

  const ext = (oid: string, critical: boolean, value: Uint8Array) =>
    critical ? seq(derOid(oid), bool(true), octets(value)) : seq(derOid(oid), octets(value));
  const exts: Uint8Array[] = [];
  // Key usage: digitalSignature | keyEncipherment (| keyCertSign for a CA), bits reversed as Go writes them.
  exts.push(ext('2.5.29.15', true, tmpl.isCA ? bitString(Uint8Array.from([0xa4]), 2) : bitString(Uint8Array.from([0xa0]), 5)));
  exts.push(ext('2.5.29.37', false, seq(derOid('1.3.6.1.5.5.7.3.1'), derOid('1.3.6.1.5.5.7.3.2'))));
  exts.push(ext('2.5.29.19', true, tmpl.isCA ? seq(bool(true)) : seq()));
  if (subjectKeyId) exts.push(ext('2.5.29.14', false, octets(subjectKeyId)));
  if (authorityKeyId) exts.push(ext('2.5.29.35', false, seq(der(0x80, authorityKeyId))));
  if (tmpl.dnsNames.length > 0 || tmpl.ips.length > 0) {
    const names = [
      ...tmpl.dnsNames.map((n) => der(0x82, Buffer.from(n, 'utf8'))),
      ...tmpl.ips.map((ip) => der(0x87, ip)),
    ];
    exts.push(ext('2.5.29.17', subject.length === 2, seq(...names)));
  }
  const tbs = seq(
    der(0xa0, derInteger(2n)),
    derInteger(tmpl.serial),
    alg,
    issuer,
    seq(derTime(tmpl.notBefore), derTime(tmpl.notAfter)),
    subject,
    spki,
    der(0xa3, seq(...exts)),
  );
  const sig = new Uint8Array(
    signer.goType === 'ecdsa' ? sign(hash, tbs, { key: signer.key, dsaEncoding: 'der' }) : sign(hash, tbs, signer.key),
  );
  return seq(tbs, alg, bitString(sig));
}
