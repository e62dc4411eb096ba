import { strict as assert } from 'node:assert';
import { spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { test } from 'node:test';
import { runCli } from '../../test/support/run-cli.js';
import { findCommand, type Command } from './index.js';

test('ripple --help lists commands and exits 0', async () => {
  const r = await runCli(['--help']);
  assert.equal(r.code, 0);
  assert.match(r.stdout, /Usage: ripple <command>/);
});

test('unknown command exits 2 and says what to do', async () => {
  const r = await runCli(['frobnicate']);
  assert.equal(r.code, 2);
  assert.match(r.stderr, /unknown command "frobnicate".*ripple --help/);
});

test('findCommand picks the longest matching path', () => {
  const mk = (...path: string[]): Command => ({ path, summary: '', usage: '', run: async () => 0 });
  const cmds = [mk('test'), mk('test', 'events')];
  assert.deepEqual(findCommand(cmds, ['test', 'events', 'dir'])?.command.path, ['test', 'events']);
  assert.deepEqual(findCommand(cmds, ['test', 'x'])?.rest, ['x']);
  assert.equal(findCommand(cmds, ['nope']), undefined);
});

test('bin/ripple.js runs from source', () => {
  const root = join(import.meta.dirname, '..', '..');
  const r = spawnSync(process.execPath, [join(root, 'bin', 'ripple.js'), '--version'], { encoding: 'utf8' });
  assert.equal(r.status, 0, r.stderr);
  assert.match(r.stdout, /^ripple \d+\.\d+\.\d+/);
});

test('a command group: --help lists its subcommands (exit 0); alone or with an unknown word it exits 2', async () => {
  const help = await runCli(['get', '--help']);
  assert.equal(help.code, 0);
  assert.match(help.stdout, /^Usage: ripple get <subcommand>/);
  assert.match(help.stdout, /ripple get addons {9}List what is deployed where/);
  const alone = await runCli(['show']);
  assert.equal(alone.code, 2);
  assert.match(alone.stderr, /"ripple show" needs a subcommand:\n {2}ripple show addons/);
  const unknown = await runCli(['get', 'pods']);
  assert.equal(unknown.code, 2);
  assert.match(unknown.stderr, /"ripple get" has no subcommand "pods"/);
});
