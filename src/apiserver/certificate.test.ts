import { strict as assert } from 'node:assert';
import { X509Certificate } from 'node:crypto';
import { createServer, get } from 'node:https';
import { test } from 'node:test';
import { generateServingCertificate } from './certificate.js';

test('the serving certificate is a valid self-signed CA for 127.0.0.1 that TLS clients accept', async () => {
  const c = generateServingCertificate();
  const x = new X509Certificate(c.cert);
  assert.equal(x.ca, true);
  assert.match(x.subjectAltName ?? '', /IP Address:127\.0\.0\.1/);
  assert.ok(x.checkIssued(x), 'self-issued');
  assert.ok(x.verify(x.publicKey), 'self-signed');
  assert.ok(new Date(x.validTo).getTime() > Date.now() + 300 * 86400_000);
  const server = createServer({ cert: c.cert, key: c.key }, (_req, res) => res.end('ok'));
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  try {
    const port = (server.address() as { port: number }).port;
    const body = await new Promise<string>((resolve, reject) => {
      get({ host: '127.0.0.1', port, path: '/', ca: c.cert }, (res) => {
        let b = '';
        res.on('data', (d) => (b += d));
        res.on('end', () => resolve(b));
      }).on('error', reject);
    });
    assert.equal(body, 'ok');
  } finally {
    server.close();
  }
});
