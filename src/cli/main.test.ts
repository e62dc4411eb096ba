import { strict as assert } from 'node:assert';
import { spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { test } from 'node:test';
import { runCli } from '../../test/support/run-cli.js';
import { findCommand, type Command } from './index.js';
import { commandFiles, definesWord, importCommands } from './main.js';

test('ripple --help lists commands and exits 0', async () => {
  const r = await runCli(['--help']);
  assert.equal(r.code, 0);
  assert.match(r.stdout, /Usage: ripple <command>/);
});

test('ripple --help documents the exit codes', async () => {
  const r = await runCli(['--help']);
  assert.match(r.stdout, /Exit codes:\n {2}0 {4}success\n/);
  assert.match(r.stdout, /\n {2}4 {4}unavailable: .*data directory in use/);
});

test('unknown command exits 2 and says what to do', async () => {
  const r = await runCli(['frobnicate']);
  assert.equal(r.code, 2);
  assert.match(r.stderr, /unknown command "frobnicate"\nRun `ripple --help`/);
});

test('did you mean: mistyped commands, subcommands, flags and flag values', async () => {
  const cases: [string[], RegExp][] = [
    [['gte', 'clusters'], /unknown command "gte"; did you mean "get"\?/],
    [['tempalte'], /unknown command "tempalte"; did you mean "template"\?/],
    [['get', 'clustrs'], /"ripple get" has no subcommand "clustrs"; did you mean "clusters"\?\nSubcommands:\n/],
    [['up', '--demoo', 'loadbalancer'], /ripple up: unknown flag --demoo; did you mean --demo\?/],
    [['up', '--demo', 'loadbalancr'], /unknown demo "loadbalancr"; did you mean "loadbalancer"\?/],
    [['get', 'clusters', '-o', 'yml'], /--output must be table, wide, yaml or json, not "yml"; did you mean "yaml"\?/],
    [['get', 'clusters', '--output'], /flag --output needs a value/],
    [['get', 'clusters', '-x'], /unknown flag -x\b/],
    [['apiserver', '--data-dir', '/tmp/x', '--log-level', 'debgu'], /--log-level must be error, warn, info or debug, not "debgu"; did you mean "debug"\?/],
  ];
  for (const [args, re] of cases) {
    const r = await runCli(args);
    assert.equal(r.code, 2, `${args.join(' ')}: ${r.stderr}`);
    assert.match(r.stderr, re, args.join(' '));
  }
});

test('a usage error prints the synopsis and where to find more, not the whole help', async () => {
  const r = await runCli(['up', '--port', 'http']);
  assert.equal(r.code, 2);
  assert.match(r.stderr, /^ripple up: --port must be a port number, not "http"\n\nUsage: ripple up \[--data-dir DIR\]/);
  assert.match(r.stderr, /Run `ripple up --help` for the flags and examples\.\n$/);
  assert.doesNotMatch(r.stderr, /Flags:|Examples:/);
});

test('every command file defines commands under its own first word, so main imports only that file for a command', async () => {
  for (const f of commandFiles()) {
    const cmds = await importCommands([f]);
    assert.ok(cmds.length > 0, `${f.name} exports no commands`);
    for (const c of cmds) assert.ok(definesWord(f.name, c.path[0]), `${f.name} defines "${c.path.join(' ')}": name the file ${c.path[0]}.ts or ${c.path[0]}-*.ts`);
  }
});

test('findCommand picks the longest matching path', () => {
  const mk = (...path: string[]): Command => ({ path, summary: '', usage: '', run: async () => 0 });
  const cmds = [mk('test'), mk('test', 'events')];
  assert.deepEqual(findCommand(cmds, ['test', 'events', 'dir'])?.command.path, ['test', 'events']);
  assert.deepEqual(findCommand(cmds, ['test', 'x'])?.rest, ['x']);
  assert.equal(findCommand(cmds, ['nope']), undefined);
});

test('bin/ripple.js runs from source with RIPPLE_FROM_SOURCE=1, silently', () => {
  const root = join(import.meta.dirname, '..', '..');
  const r = spawnSync(process.execPath, [join(root, 'bin', 'ripple.js'), '--version'], { encoding: 'utf8', env: { ...process.env, RIPPLE_FROM_SOURCE: '1' } });
  assert.equal(r.status, 0, r.stderr);
  assert.match(r.stdout, /^ripple \d+\.\d+\.\d+/);
  assert.equal(r.stderr, '');
});

test('a command group: --help lists its subcommands (exit 0); alone or with an unknown word it exits 2', async () => {
  const help = await runCli(['get', '--help']);
  assert.equal(help.code, 0);
  assert.match(help.stdout, /^Usage: ripple get <subcommand>/);
  assert.match(help.stdout, /ripple get addons {9}List what is deployed where/);
  const alone = await runCli(['show']);
  assert.equal(alone.code, 2);
  assert.match(alone.stderr, /"ripple show" needs a subcommand\.\nSubcommands:\n {2}ripple show addons/);
  const unknown = await runCli(['get', 'pods']);
  assert.equal(unknown.code, 2);
  assert.match(unknown.stderr, /"ripple get" has no subcommand "pods"/);
});
