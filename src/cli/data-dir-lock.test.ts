import { strict as assert } from 'node:assert';
import { spawn, spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { hostname, tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, test } from 'node:test';
import { runCli } from '../../test/support/run-cli.js';
import { DataDirLockedError, LOCK_FILE, lockDataDir } from './data-dir-lock.js';

const dirs: string[] = [];
const tempDir = () => {
  const d = mkdtempSync(join(tmpdir(), 'ripple-lock-'));
  dirs.push(d);
  return d;
};
after(() => {
  for (const d of dirs) rmSync(d, { recursive: true, force: true });
});

// deadPid is the pid of a process that has exited.
function deadPid(): number {
  const r = spawnSync(process.execPath, ['-e', 'process.stdout.write(String(process.pid))'], { encoding: 'utf8' });
  return Number(r.stdout);
}

test('lockDataDir: one holder at a time, released on release()', () => {
  const dir = join(tempDir(), 'nested', 'data');
  const lock = lockDataDir(dir, 'ripple test');
  const owner = JSON.parse(readFileSync(join(dir, LOCK_FILE), 'utf8')) as { pid: number; command: string };
  assert.deepEqual([owner.pid, owner.command], [process.pid, 'ripple test']);
  assert.throws(
    () => lockDataDir(dir, 'ripple other'),
    (e: unknown) => e instanceof DataDirLockedError && e.owner.pid === process.pid && new RegExp(`in use by ripple test \\(pid ${process.pid}, since `).test(e.message),
  );
  lock.release();
  assert.equal(existsSync(join(dir, LOCK_FILE)), false);
  lockDataDir(dir, 'ripple again').release();
});

test('lockDataDir takes over a stale lock: a dead pid, a reused pid, or an unreadable file', () => {
  const dir = tempDir();
  const path = join(dir, LOCK_FILE);
  const stale = [
    JSON.stringify({ pid: deadPid(), host: hostname(), command: 'ripple up', since: 'then' }),
    // Our own pid, but a process start time that is not ours: the pid was reused since the holder died.
    JSON.stringify({ pid: process.pid, start: '1', host: hostname(), command: 'ripple up', since: 'then' }),
    'garbage',
  ];
  for (const text of stale) {
    writeFileSync(path, text);
    const lock = lockDataDir(dir, 'ripple test');
    assert.equal((JSON.parse(readFileSync(path, 'utf8')) as { pid: number }).pid, process.pid, text);
    lock.release();
  }
});

test('a second ripple up / ripple apiserver on a data directory in use exits 4 naming the pid, touching nothing', { timeout: 120_000 }, async () => {
  const dir = tempDir();
  const bin = join(import.meta.dirname, '..', '..', 'bin', 'ripple.js');
  const child = spawn(process.execPath, [bin, 'apiserver', '--data-dir', dir, '--cluster', 'mgmt', '--log-level', 'error'], { stdio: ['ignore', 'pipe', 'pipe'] });
  const exited = new Promise((resolve) => child.once('exit', resolve));
  try {
    let out = '';
    await new Promise<void>((resolve, reject) => {
      child.stdout.on('data', (c: Buffer) => {
        out += c.toString();
        if (/kubeconfig: /.test(out)) resolve();
      });
      child.once('exit', (code) => reject(new Error(`ripple apiserver exited ${code} before listening: ${out}`)));
    });
    const files = ['kubeconfig', 'state.db', 'state.db-wal'].filter((f) => existsSync(join(dir, f)));
    const before = files.map((f) => [f, statSync(join(dir, f)).mtimeMs, readFileSync(join(dir, f)).toString('base64')]);

    for (const argv of [
      ['up', '--data-dir', dir],
      ['apiserver', '--data-dir', dir, '--cluster', 'other'],
    ]) {
      const r = await runCli(argv);
      assert.equal(r.code, 4, `${argv[0]}: ${r.stderr}`);
      assert.match(r.stderr, new RegExp(`^ripple ${argv[0]}: data directory .* is in use by ripple apiserver \\(pid ${child.pid}, since .*\\); stop it or pass another --data-dir\\n$`));
      assert.equal(r.stdout, '', 'nothing announced');
    }
    const now = files.map((f) => [f, statSync(join(dir, f)).mtimeMs, readFileSync(join(dir, f)).toString('base64')]);
    assert.deepEqual(now, before, 'kubeconfig and database untouched');
    assert.equal(existsSync(join(dir, 'ripple.log')), false, 'ripple up wrote no log either');

    // Killed without a chance to clean up, the holder leaves a stale lock, which the next process takes over.
    child.kill('SIGKILL');
    await exited;
    assert.equal(existsSync(join(dir, LOCK_FILE)), true);
    lockDataDir(dir, 'ripple test').release();
  } finally {
    child.kill('SIGKILL');
  }
});
