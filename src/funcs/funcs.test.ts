// funcs.test.ts: what the oracle goldens cannot pin by value — functions driven by the injected clock and random
// source, generated keys and certificates (checked by parsing them), the disabled-by-default environment, the
// function maps' shape, and the exported YAML encoders.
import { strict as assert } from 'node:assert';
import { createPrivateKey, X509Certificate } from 'node:crypto';
import { test } from 'node:test';
import bcryptjs from 'bcryptjs';
import { GoStruct, Template, TemplateError, type FuncMap, type GoValue } from '../gotemplate/index.js';
import { addonFuncMap, eventFuncMap, sprigFuncMap, sveltosFuncMap, toYamlSigs, toYamlV3, type FuncOptions } from './index.js';

const fixedClock = { now: () => Date.UTC(2024, 0, 15, 10, 30, 0) + 0.25 };
/** counter is a deterministic "random" source: 0, 1, 2, … */
function counter(): FuncOptions['random'] {
  let n = 0;
  return { fill: (b) => b.forEach((_, i) => (b[i] = n++ & 0xff)) };
}

function render(src: string, data: GoValue = null, funcs: FuncMap = sprigFuncMap({ clock: fixedClock })): string {
  const t = new Template('t', { funcs, missingKey: 'error' });
  t.parse(src);
  return t.execute(data);
}

test('now, date and ago follow the injected clock and local zone', () => {
  assert.equal(render('{{ now }}'), '2024-01-15 10:30:00.00025 +0000 UTC');
  assert.equal(render('{{ now | date "2006-01-02T15:04:05.000Z07:00" }}'), '2024-01-15T10:30:00.000Z');
  assert.equal(render('{{ now | unixEpoch }}'), '1705314600');
  assert.equal(render('{{ ago (toDate "2006-01-02" "2024-01-14") }}'), '34h30m0s');
  const berlin = sprigFuncMap({ clock: fixedClock, localZone: 'Europe/Berlin' });
  assert.equal(render('{{ now | date "15:04 MST" }}', null, berlin), '11:30 CET');
  assert.equal(render('{{ toDate "2006-01-02 15:04" "2024-07-01 12:00" | unixEpoch }}', null, berlin), '1719828000');
});

test('without a clock, time functions fail with an error naming the option', () => {
  assert.throws(
    () => render('{{ now }}', null, sprigFuncMap()),
    (e: unknown) => e instanceof TemplateError && /no clock configured: pass FuncOptions\.clock/.test(e.message),
  );
});

test('random functions draw from the injected source', () => {
  const funcs = sprigFuncMap({ clock: fixedClock, random: counter() });
  assert.equal(render('{{ uuidv4 }}', null, funcs), '00010203-0405-4607-8809-0a0b0c0d0e0f');
  assert.equal(render('{{ randBytes 3 }}', null, funcs), Buffer.from([16, 17, 18]).toString('base64'));
  const again = sprigFuncMap({ clock: fixedClock, random: counter() });
  assert.equal(render('{{ randAlphaNum 8 }}|{{ shuffle "abcdef" }}', null, again), render('{{ randAlphaNum 8 }}|{{ shuffle "abcdef" }}', null, sprigFuncMap({ clock: fixedClock, random: counter() })));
});

test('bcrypt and htpasswd produce $2a$10$ hashes that verify', () => {
  const out = render('{{ bcrypt "s3cret" }}|{{ htpasswd "admin" "pw" }}');
  const [hash, htpasswd] = out.split('|');
  assert.match(hash, /^\$2a\$10\$[./A-Za-z0-9]{53}$/);
  assert.ok(bcryptjs.compareSync('s3cret', hash));
  assert.ok(htpasswd.startsWith('admin:'));
  assert.ok(bcryptjs.compareSync('pw', htpasswd.slice('admin:'.length)));
  assert.equal(render(`{{ bcrypt "${'x'.repeat(73)}" }}`), 'failed to encrypt string with bcrypt: bcrypt: password length exceeds 72 bytes');
});

test('encryptAES output decrypts with the same key and uses the injected IV', () => {
  const funcs = sprigFuncMap({ clock: fixedClock, random: counter() });
  const enc = render('{{ encryptAES "key" "hello world" }}', null, funcs);
  assert.deepEqual([...Buffer.from(enc, 'base64').subarray(0, 16)], [...Array(16).keys()]);
  assert.equal(render(`{{ decryptAES "key" "${enc}" }}`, null, funcs), 'hello world');
});

test('genCA, genSelfSignedCert and genSignedCert build certificates Go would build', () => {
  const funcs = sprigFuncMap({ clock: fixedClock });
  const t = new Template('certs', { funcs, missingKey: 'error' });
  t.parse(
    '{{ $ca := genCA "ripple-ca" 365 }}{{ $leaf := genSignedCert "svc.ns" (list "10.0.0.1" "::1") (list "svc.ns.svc" "svc") 30 $ca }}' +
      '{{ $self := genSelfSignedCert "self" nil nil 1 }}{{ $ca.Cert }}@@{{ $ca.Key }}@@{{ $leaf.Cert }}@@{{ $leaf.Key }}@@{{ $self.Cert }}',
  );
  const [caCert, caKey, leafCert, leafKey, selfCert] = t.execute(null).split('@@');
  const ca = new X509Certificate(caCert);
  const leaf = new X509Certificate(leafCert);
  const self = new X509Certificate(selfCert);
  assert.equal(ca.subject, 'CN=ripple-ca');
  assert.equal(ca.issuer, 'CN=ripple-ca');
  assert.equal(ca.ca, true);
  assert.equal(new Date(ca.validFrom).toISOString(), '2024-01-15T10:30:00.000Z');
  assert.equal(new Date(ca.validTo).toISOString(), '2025-01-14T10:30:00.000Z');
  assert.ok(ca.verify(ca.publicKey));
  assert.equal(leaf.subject, 'CN=svc.ns');
  assert.equal(leaf.issuer, 'CN=ripple-ca');
  assert.equal(leaf.ca, false);
  assert.equal(leaf.subjectAltName, 'DNS:svc.ns.svc, DNS:svc, IP Address:10.0.0.1, IP Address:0:0:0:0:0:0:0:1');
  assert.ok(leaf.verify(ca.publicKey), 'the leaf is signed by the CA');
  assert.ok(leaf.checkIssued(ca));
  assert.deepEqual(leaf.keyUsage?.sort(), ['1.3.6.1.5.5.7.3.1', '1.3.6.1.5.5.7.3.2']);
  assert.equal(createPrivateKey(caKey).asymmetricKeyDetails?.modulusLength, 2048);
  assert.match(caKey, /^-----BEGIN RSA PRIVATE KEY-----\n/);
  assert.ok(leaf.checkPrivateKey(createPrivateKey(leafKey)));
  assert.equal(self.subject, self.issuer);
  assert.ok(self.verify(self.publicKey));
});

test('genPrivateKey writes each key type in the PEM format Sprig uses', () => {
  const out = render('{{ genPrivateKey "ecdsa" }}@@{{ genPrivateKey "ed25519" }}');
  const [ec, ed] = out.split('@@');
  assert.match(ec, /^-----BEGIN EC PRIVATE KEY-----\n[A-Za-z0-9+/=\n]+-----END EC PRIVATE KEY-----\n$/);
  assert.equal(createPrivateKey(ec).asymmetricKeyDetails?.namedCurve, 'prime256v1');
  assert.match(ed, /^-----BEGIN PRIVATE KEY-----\n/);
  assert.equal(createPrivateKey(ed).asymmetricKeyType, 'ed25519');
});

test('env, expandenv and getHostByName are off unless options enable them', () => {
  assert.throws(() => render('{{ env "HOME" }}'), /error calling env: env is disabled: .*FuncOptions\.env/);
  assert.throws(() => render('{{ expandenv "$HOME" }}'), /error calling expandenv: expandenv is disabled/);
  assert.throws(() => render('{{ getHostByName "example.com" }}'), /getHostByName is disabled: .*FuncOptions\.resolveHost/);
  const on = sprigFuncMap({ clock: fixedClock, env: { HOME: '/home/r' }, resolveHost: (n) => (n === 'db' ? ['10.1.2.3'] : []) });
  assert.equal(render('{{ env "HOME" }} {{ expandenv "${HOME}/x" }} {{ getHostByName "db" }}', null, on), '/home/r /home/r/x 10.1.2.3');
});

test('function maps: Sprig names, Sveltos overrides, event and addon helpers', () => {
  const sprig = sprigFuncMap({ clock: fixedClock });
  const sveltos = sveltosFuncMap({ clock: fixedClock });
  const opts = { clock: fixedClock };
  assert.equal(eventFuncMap(opts), eventFuncMap(opts), 'maps are cached per options object');
  assert.ok(Object.keys(sprig).length >= 200, `sprig has ${Object.keys(sprig).length} functions`);
  for (const name of ['sha512sum', 'camelcase', 'mustMergeOverwrite', 'semverCompare', 'date_in_zone', 'dig', 'fail']) assert.ok(sprig[name], name);
  assert.equal(sprig.getResource, undefined);
  assert.equal(sprig.toJson.params[0], 'interface {}');
  assert.notEqual(sveltos.fromJson, sprig.fromJson);
  assert.equal(sveltos.fromJson.result, 'map[string]interface {}');
  assert.equal(eventFuncMap(opts).getResource.params[0], 'map[string]interface {}');
  const addon = addonFuncMap(opts, { Cfg: { data: { k: 'v' } } });
  assert.equal(addon.getResource.params[0], 'string');
  assert.equal(render('{{ (getResource "Cfg").data.k }}', null, addon), 'v');
});

test('exported YAML encoders match go-yaml conventions', () => {
  const v: GoValue = { b: [1n, 'x'], a: { 'k2': 2, 'k10': 10 }, s: 'yes', m: 'a\nb' };
  assert.equal(toYamlSigs(v), 'a:\n  k2: 2\n  k10: 10\nb:\n- 1\n- x\nm: |-\n  a\n  b\ns: "yes"\n');
  assert.equal(toYamlV3(v), 'a:\n    k2: 2\n    k10: 10\nb:\n    - 1\n    - x\nm: |-\n    a\n    b\ns: "yes"\n');
  assert.equal(toYamlV3(new GoStruct('x.T', { Name: 'web', hidden: 1 })), 'name: web\n');
});
