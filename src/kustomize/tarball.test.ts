// readTarball against archives made by the real tar(1): a golden case packed as Sveltos' users pack one
// (tar -czf … -C DIR .) builds to kubectl's output; escaping entries and oversized archives are refused.
import { strict as assert } from 'node:assert';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync, mkdirSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { test } from 'node:test';
import { buildKustomization, KustomizeError, mapFileTree, readTarball } from './index.js';

const root = resolve(import.meta.dirname, '..', '..');

function tar(args: string[]): Uint8Array {
  const r = spawnSync('tar', args);
  assert.equal(r.status, 0, String(r.stderr));
  return r.stdout;
}

test('a tar.gz of a kustomization tree builds exactly as kubectl kustomize built the directory', () => {
  const cas = join(root, 'testdata', 'kustomize', 'overlay-nameref-through-levels');
  const files = readTarball(tar(['-czf', '-', '-C', join(cas, 'input'), '.']));
  assert.ok(files.has('top/kustomization.yaml'));
  const r = buildKustomization(mapFileTree(files), '/top');
  assert.equal(r.yaml, readFileSync(join(cas, 'expected.stdout'), 'utf8'));
});

test('long names (GNU and pax) and plain tar are read', () => {
  const dir = mkdtempSync(join(tmpdir(), 'ripple-tar-'));
  try {
    const deep = join(dir, 'a'.repeat(60), 'b'.repeat(60));
    mkdirSync(deep, { recursive: true });
    writeFileSync(join(deep, 'f.yaml'), 'x: 1\n');
    for (const format of ['gnu', 'pax']) {
      const files = readTarball(tar([`--format=${format}`, '-cf', '-', '-C', dir, '.']));
      assert.equal(Buffer.from(files.get(`${'a'.repeat(60)}/${'b'.repeat(60)}/f.yaml`)!).toString(), 'x: 1\n', format);
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test('entries escaping the tree, corrupt archives and oversized content are refused', () => {
  const dir = mkdtempSync(join(tmpdir(), 'ripple-tar-'));
  try {
    writeFileSync(join(dir, 'big.txt'), 'y'.repeat(4096));
    const escaping = tar(['-czf', '-', '-P', '--transform', 's,^,../,', '-C', dir, 'big.txt']);
    assert.throws(() => readTarball(escaping), (e: unknown) => e instanceof KustomizeError && /leaves the archive's tree/.test(e.message));
    const ok = tar(['-czf', '-', '-C', dir, 'big.txt']);
    assert.throws(() => readTarball(ok, { maxBytes: 1000 }), /exceeds 1000 bytes/);
    const corrupt = Uint8Array.from(tar(['-cf', '-', '-C', dir, 'big.txt']));
    corrupt[10] ^= 0xff;
    assert.throws(() => readTarball(corrupt), /invalid header checksum/);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
