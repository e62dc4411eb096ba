// A self-signed serving certificate for the HTTPS side of the listener. client-go (kubectl) only sends bearer tokens
// over TLS, so the kubeconfig points at https:// with this certificate as its CA. Node has no X.509 builder, so the
// certificate is DER-encoded here (RFC 5280) and signed with an ECDSA P-256 key.
import { createHash, generateKeyPairSync, randomBytes, sign, X509Certificate } from 'node:crypto';

// DER: length octets, then tag-length-value.
function derLength(n: number): Buffer {
  if (n < 0x80) return Buffer.from([n]);
  const bytes: number[] = [];
  for (let v = n; v > 0; v >>= 8) bytes.unshift(v & 0xff);
  return Buffer.from([0x80 | bytes.length, ...bytes]);
}
function tlv(tag: number, ...content: Buffer[]): Buffer {
  const body = Buffer.concat(content);
  return Buffer.concat([Buffer.from([tag]), derLength(body.length), body]);
}
const seq = (...c: Buffer[]) => tlv(0x30, ...c);
const set = (...c: Buffer[]) => tlv(0x31, ...c);
const octets = (b: Buffer) => tlv(0x04, b);
const bitString = (b: Buffer, unused = 0) => tlv(0x03, Buffer.from([unused]), b);
const bool = (v: boolean) => tlv(0x01, Buffer.from([v ? 0xff : 0x00]));
const utf8 = (s: string) => tlv(0x0c, Buffer.from(s, 'utf8'));

function oid(dotted: string): Buffer {
  const parts = dotted.split('.').map(Number);
  const out = [40 * parts[0] + parts[1]];
  for (const p of parts.slice(2)) {
    const stack = [p & 0x7f];
    for (let v = p >>> 7; v > 0; v >>>= 7) stack.unshift((v & 0x7f) | 0x80);
    out.push(...stack);
  }
  return tlv(0x06, Buffer.from(out));
}

function integer(b: Buffer): Buffer {
  let i = 0;
  while (i < b.length - 1 && b[i] === 0) i++;
  const v = b.subarray(i);
  return tlv(0x02, v[0] & 0x80 ? Buffer.concat([Buffer.from([0]), v]) : v);
}

// UTCTime before 2050, GeneralizedTime from then on (RFC 5280 4.1.2.5).
function time(d: Date): Buffer {
  const iso = d.toISOString().replace(/[-:T]/g, '').slice(0, 14);
  return d.getUTCFullYear() < 2050 ? tlv(0x17, Buffer.from(`${iso.slice(2)}Z`)) : tlv(0x18, Buffer.from(`${iso}Z`));
}

function extension(id: string, critical: boolean, value: Buffer): Buffer {
  return critical ? seq(oid(id), bool(true), octets(value)) : seq(oid(id), octets(value));
}

/** ServingCertificate is a PEM certificate and its PEM (PKCS#8) private key. */
export interface ServingCertificate {
  cert: string;
  key: string;
}

/** generateServingCertificate creates a self-signed CA-and-server certificate for 127.0.0.1, localhost and dnsNames. */
export function generateServingCertificate(commonName = 'ripple-apiserver', days = 3650, dnsNames: string[] = []): ServingCertificate {
  const { publicKey, privateKey } = generateKeyPairSync('ec', { namedCurve: 'prime256v1' });
  const spki = publicKey.export({ type: 'spki', format: 'der' });
  const ecdsaWithSha256 = seq(oid('1.2.840.10045.4.3.2'));
  const name = seq(set(seq(oid('2.5.4.3'), utf8(commonName))));
  const serial = randomBytes(16);
  serial[0] &= 0x7f;
  const now = new Date();
  const notBefore = new Date(now.getTime() - 60_000);
  const notAfter = new Date(now.getTime() + days * 86_400_000);
  // The public key's SHA-1 is the key identifier, as Go and OpenSSL derive it.
  const keyId = createHash('sha1').update(spki.subarray(spki.length - 65)).digest();
  const san = seq(tlv(0x87, Buffer.from([127, 0, 0, 1])), tlv(0x82, Buffer.from('localhost')), ...dnsNames.map((n) => tlv(0x82, Buffer.from(n))));
  const extensions = tlv(
    0xa3,
    seq(
      extension('2.5.29.15', true, bitString(Buffer.from([0xa4]), 2)), // digitalSignature, keyEncipherment, keyCertSign
      extension('2.5.29.37', false, seq(oid('1.3.6.1.5.5.7.3.1'))), // serverAuth
      extension('2.5.29.19', true, seq(bool(true))), // CA: it is its own trust anchor
      extension('2.5.29.14', false, octets(keyId)),
      extension('2.5.29.17', false, san),
    ),
  );
  const tbs = seq(tlv(0xa0, integer(Buffer.from([2]))), integer(serial), ecdsaWithSha256, name, seq(time(notBefore), time(notAfter)), name, spki, extensions);
  const signature = sign('sha256', tbs, { key: privateKey, dsaEncoding: 'der' });
  const der = seq(tbs, ecdsaWithSha256, bitString(signature));
  const cert = `-----BEGIN CERTIFICATE-----\n${der.toString('base64').replace(/.{1,64}/g, '$&\n')}-----END CERTIFICATE-----\n`;
  // Parse it back: a malformed encoding fails here rather than in a client.
  new X509Certificate(cert);
  return { cert, key: privateKey.export({ type: 'pkcs8', format: 'pem' }) as string };
}
