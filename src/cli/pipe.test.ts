// `ripple … | head`: when the reader closes the pipe early, ripple stops quietly with exit code 0 — no EPIPE stack.
import { strict as assert } from 'node:assert';
import { spawn } from 'node:child_process';
import { join, resolve } from 'node:path';
import { test } from 'node:test';

const BIN = join(resolve(import.meta.dirname, '..', '..'), 'bin', 'ripple.js');

test('a closed stdout pipe ends ripple quietly (exit 0, nothing on stderr but the build note)', async () => {
  // manifests crds prints ~380 KB, far more than a pipe buffers: the write after the reader went fails with EPIPE.
  const child = spawn(process.execPath, [BIN, 'manifests', 'crds'], { stdio: ['ignore', 'pipe', 'pipe'] });
  let stderr = '';
  child.stderr.on('data', (c) => (stderr += c));
  await new Promise<void>((done) => child.stdout.once('data', () => done()));
  child.stdout.destroy();
  const code = await new Promise<number | null>((done) => child.on('exit', (c) => done(c)));
  assert.doesNotMatch(stderr, /EPIPE|Unhandled/, stderr);
  assert.equal(code, 0);
});
