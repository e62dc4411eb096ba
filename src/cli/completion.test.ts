// Completion scripts are checked by the shells themselves: each script is loaded into a real bash, zsh or fish and
// asked for the candidates at a cursor position (zsh's completion builtins are replaced by printers, since widgets
// only run in an interactive editor). zsh and fish tests skip where the shell is not installed.
import { strict as assert } from 'node:assert';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import { runCli } from '../../test/support/run-cli.js';
import { flagsOf } from './completion.js';

const dir = mkdtempSync(join(tmpdir(), 'ripple-completion-'));
const scripts: Record<string, string> = {};
before(async () => {
  for (const shell of ['bash', 'zsh', 'fish']) {
    const r = await runCli(['completion', shell]);
    assert.equal(r.code, 0, r.stderr);
    scripts[shell] = join(dir, `ripple.${shell}`);
    writeFileSync(scripts[shell], r.stdout);
  }
});
after(() => rmSync(dir, { recursive: true, force: true }));

const has = (shell: string) => spawnSync('sh', ['-c', `command -v ${shell}`]).status === 0;

// The cases: the words typed (the last one is the word under the cursor) and candidates that must (not) be offered.
const CASES: { words: string[]; want: string[]; not?: string[] }[] = [
  { words: ['ripple', ''], want: ['get', 'up', 'completion', 'version'], not: ['clusters'] },
  { words: ['ripple', 'get', ''], want: ['clusters', 'addons', 'profiles'], not: ['up'] },
  { words: ['ripple', 'get', 'clusters', '-'], want: ['--output', '-o', '--kubeconfig', '--all-namespaces'], not: ['--demo'] },
  { words: ['ripple', 'get', 'clusters', '-o', ''], want: ['table', 'wide', 'yaml', 'json'], not: ['clusters'] },
  { words: ['ripple', 'up', '--demo', ''], want: ['loadbalancer', 'cross-cluster'] },
  { words: ['ripple', 'apiserver', '--log-level', ''], want: ['debug', 'info'] },
  { words: ['ripple', 'completion', ''], want: ['bash', 'zsh', 'fish'] },
];

const check = (shell: string, out: (words: string[]) => string) => {
  for (const c of CASES) {
    const got = out(c.words).split(/\s+/).filter(Boolean);
    for (const w of c.want) assert.ok(got.includes(w), `${shell} [${c.words.join(' ')}]: ${w} missing from ${got.join(' ')}`);
    for (const w of c.not ?? []) assert.ok(!got.includes(w), `${shell} [${c.words.join(' ')}]: ${w} offered`);
  }
};

test('flagsOf reads flags, short names, values and path arguments from the synopsis and the flag table only', () => {
  const usage = `Usage: ripple x [-o table|json] [--durability process|power] [--once] [--data-dir DIR]

Prose mentions --demo loadbalancer, which is not a flag of this command.

Flags:
  -o, --output FORMAT   how to print
  --kubeconfig FILE     the cluster
  --once                run once
  --log-level LEVEL     level
`;
  const flags = flagsOf(usage, { 'log-level': ['error', 'debug'] });
  const by = Object.fromEntries(flags.map((f) => [f.long, f]));
  assert.deepEqual(Object.keys(by).sort(), ['data-dir', 'durability', 'kubeconfig', 'log-level', 'once', 'output']);
  assert.deepEqual(by.output, { long: 'output', short: 'o', takesValue: true, path: false, values: ['table', 'json'] });
  assert.deepEqual(by.durability.values, ['process', 'power']);
  assert.deepEqual([by.once.takesValue, by.kubeconfig.path, by['data-dir'].path], [false, true, true]);
  assert.deepEqual(by['log-level'].values, ['error', 'debug']);
});

test('ripple completion needs a known shell', async () => {
  const r = await runCli(['completion', 'tcsh']);
  assert.equal(r.code, 2);
  assert.match(r.stderr, /the shell must be bash, zsh or fish, not "tcsh"/);
});

test('bash completes commands, subcommands, flags and flag values', () => {
  check('bash', (words) => {
    const script = `source ${JSON.stringify(scripts.bash)}; COMP_WORDS=(${words.map((w) => `'${w}'`).join(' ')}); COMP_CWORD=${words.length - 1}; _ripple; echo "\${COMPREPLY[*]}"`;
    const r = spawnSync('bash', ['--norc', '-c', script], { encoding: 'utf8' });
    assert.equal(r.status, 0, r.stderr);
    return r.stdout;
  });
});

test('zsh completes commands, subcommands, flags and flag values', { skip: !has('zsh') && 'zsh is not installed' }, () => {
  check('zsh', (words) => {
    const script = [
      'compdef() { :; }',
      'compadd() { local a; for a in "$@"; do [[ $a == -- ]] && continue; print -rn -- "$a "; done; print }',
      '_describe() { local e; for e in "${(P)4[@]}"; do print -rn -- "${e%%:*} "; done; print }',
      '_files() { print }',
      `source ${JSON.stringify(scripts.zsh)}`,
      `words=(${words.map((w) => `'${w}'`).join(' ')}); CURRENT=${words.length}; _ripple`,
    ].join('\n');
    const r = spawnSync('zsh', ['-f', '-c', script], { encoding: 'utf8' });
    assert.equal(r.stderr, '');
    return r.stdout;
  });
});

test('fish completes commands, subcommands, flags and flag values', { skip: !has('fish') && 'fish is not installed' }, () => {
  check('fish', (words) => {
    const r = spawnSync('fish', ['--no-config', '-c', `source ${JSON.stringify(scripts.fish)}; complete -C ${JSON.stringify(words.join(' '))}`], { encoding: 'utf8' });
    assert.equal(r.stderr, '');
    // One candidate per line, a tab before its description.
    return r.stdout
      .split('\n')
      .map((l) => l.split('\t')[0])
      .join(' ');
  });
});
