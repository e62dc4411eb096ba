// isPlainBase64: the decoding check for long strings accepts exactly what the alphabet regex does.
import { strict as assert } from 'node:assert';
import { test } from 'node:test';
import { isPlainBase64 } from './index.js';

const REGEX = (s: string) => s.length % 4 === 0 && /^[A-Za-z0-9+/]*={0,2}$/.test(s);

test('isPlainBase64 agrees with the alphabet regex on long strings, valid and broken', () => {
  const valid = Buffer.from(Array.from({ length: 3000 }, (_, i) => (i * 7919) % 256)).toString('base64');
  const cases = [valid, `${valid}AB==`, `${valid}ABC=`, `${valid.slice(0, -4)}A===`, `${valid.slice(0, -4)}====`];
  // One character replaced, at the start, the middle and the end, by characters outside the alphabet (URL-safe,
  // whitespace, '=', '.', non-ASCII, a NUL).
  for (const bad of ['-', '_', ' ', '\n', '=', '.', 'é', '€', '\u0000', '"']) {
    for (const at of [0, 1, 1500, valid.length - 2, valid.length - 1]) cases.push(valid.slice(0, at) + bad + valid.slice(at + 1));
  }
  // Lengths not divisible by four, and a random sample of strings over the alphabet plus a few others.
  cases.push(valid.slice(1), `${valid}=`, `${valid}A`);
  let seed = 42;
  const rnd = () => (seed = (seed * 1103515245 + 12345) % 2 ** 31) / 2 ** 31;
  const chars = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/';
  for (let n = 0; n < 300; n++) {
    let s = '';
    const len = 256 + 4 * Math.floor(rnd() * 64);
    for (let i = 0; i < len; i++) s += rnd() < 0.002 ? '=-_ é'[Math.floor(rnd() * 5)] : chars[Math.floor(rnd() * 64)];
    if (rnd() < 0.3) s = `${s.slice(0, -2)}==`;
    else if (rnd() < 0.3) s = `${s.slice(0, -1)}=`;
    cases.push(s);
  }
  let accepted = 0;
  for (const s of cases) {
    assert.equal(isPlainBase64(s), REGEX(s), `${JSON.stringify(s.slice(0, 20))}… (${s.length} chars)`);
    if (REGEX(s)) accepted++;
  }
  assert.ok(accepted > 100 && accepted < cases.length - 50, `a mix of valid and invalid cases (${accepted}/${cases.length})`);
  // Short strings take the regex itself.
  for (const s of ['', 'QQ==', 'QUI=', 'QUJD', 'QQ=', 'Q===', 'QU-D', 'QU D']) assert.equal(isPlainBase64(s), REGEX(s), s);
});
