// The compiled build (scripts/build.mjs) and bin/ripple.js's choice between it and the sources. Builds go under
// node_modules/.cache so the bundle's external packages (better-sqlite3, wasmoon, pino) resolve as they do from dist/.
import { strict as assert } from 'node:assert';
import { spawnSync } from 'node:child_process';
import { copyFileSync, mkdirSync, rmSync, utimesSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import { pathToFileURL } from 'node:url';
import { runCli } from '../../test/support/run-cli.js';
import { loadCommands } from './main.js';

const root = join(import.meta.dirname, '..', '..');
const cache = join(root, 'node_modules', '.cache', `ripple-build-test-${process.pid}`);
const out = join(cache, 'dist');

function runBuilt(args: string[]) {
  const code = `const { main } = await import(${JSON.stringify(pathToFileURL(join(out, 'cli', 'main.js')).href)}); process.exitCode = await main(${JSON.stringify(args)});`;
  return spawnSync(process.execPath, ['--input-type=module', '-e', code], { encoding: 'utf8', cwd: cache });
}

before(() => {
  mkdirSync(cache, { recursive: true });
  const b = spawnSync(process.execPath, [join(root, 'scripts', 'build.mjs'), '--outdir', out], { encoding: 'utf8' });
  assert.equal(b.status, 0, b.stderr);
});
after(() => rmSync(cache, { recursive: true, force: true }));

test('the build runs every command the sources define, with the same help', async () => {
  const r = runBuilt(['--help']);
  assert.equal(r.status, 0, r.stderr);
  const fromSource = await runCli(['--help']);
  assert.equal(r.stdout, fromSource.stdout);
  for (const c of await loadCommands()) {
    const h = runBuilt([...c.path, '--help']);
    assert.equal(h.status, 0, `${c.path.join(' ')}: ${h.stderr}`);
    assert.equal(h.stdout, c.usage.trimEnd() + '\n');
  }
});

test('the build answers --version, usage errors and real work exactly as the sources do', async () => {
  const cases = [['--version'], ['up', '--demo', 'loadbalancr'], ['manifests', 'crds', '-o', 'json'], ['test', 'events', join(root, 'testdata', 'nope')]];
  for (const args of cases) {
    const built = runBuilt(args);
    const src = await runCli(args);
    assert.equal(built.status, src.code, `${args.join(' ')}: ${built.stderr}`);
    assert.equal(built.stdout, src.stdout, args.join(' '));
    assert.equal(built.stderr, src.stderr, args.join(' '));
  }
});

test('bin/ripple.js runs dist/ while it is current, else the sources through tsx with a note', () => {
  // A fake installation: bin/ripple.js next to a src/ and a dist/ whose main() says which one ran.
  const inst = join(cache, 'install');
  for (const d of ['bin', 'src/cli', 'dist/cli']) mkdirSync(join(inst, d), { recursive: true });
  copyFileSync(join(root, 'bin', 'ripple.js'), join(inst, 'bin', 'ripple.js'));
  writeFileSync(join(inst, 'package.json'), '{ "type": "module" }\n');
  const mainOf = (what: string) => `export async function main(argv: string[]) { process.stdout.write('${what} ' + argv.join(' ') + '\\n'); return 3; }\n`;
  writeFileSync(join(inst, 'src', 'cli', 'main.ts'), mainOf('sources'));
  writeFileSync(join(inst, 'dist', 'cli', 'main.js'), mainOf('dist').replace(': string[]', ''));
  const past = new Date(Date.now() - 60_000);
  utimesSync(join(inst, 'src', 'cli', 'main.ts'), past, past);
  const run = (env: Record<string, string> = {}) =>
    spawnSync(process.execPath, [join(inst, 'bin', 'ripple.js'), 'x', 'y'], { encoding: 'utf8', env: { ...process.env, RIPPLE_FROM_SOURCE: '', ...env } });

  let r = run();
  assert.deepEqual([r.status, r.stdout], [3, 'sources x y\n'], r.stderr);
  assert.match(r.stderr, /^ripple: there is no compiled build in dist\/; running the sources through tsx .*`npm run build`/);

  writeFileSync(join(inst, 'dist', 'BUILD.json'), JSON.stringify({ builtAt: Date.now() }));
  r = run();
  assert.deepEqual([r.status, r.stdout, r.stderr], [3, 'dist x y\n', '']);

  // A test file changing does not make the build stale; a source file does.
  writeFileSync(join(inst, 'src', 'cli', 'main.test.ts'), '');
  utimesSync(join(inst, 'src', 'cli', 'main.test.ts'), new Date(Date.now() + 60_000), new Date(Date.now() + 60_000));
  assert.equal(run().stdout, 'dist x y\n');
  utimesSync(join(inst, 'src', 'cli', 'main.ts'), new Date(Date.now() + 60_000), new Date(Date.now() + 60_000));
  r = run();
  assert.equal(r.stdout, 'sources x y\n');
  assert.match(r.stderr, /the sources changed since dist\/ was built/);

  r = run({ RIPPLE_FROM_SOURCE: '1' });
  assert.deepEqual([r.stdout, r.stderr], ['sources x y\n', '']);

  // Without src/ (the container image) dist/ always runs.
  rmSync(join(inst, 'src'), { recursive: true });
  assert.equal(run().stdout, 'dist x y\n');
});
