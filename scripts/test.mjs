#!/usr/bin/env node
// test.mjs: runs every *.test.ts under src/ and test/ with node:test through tsx.
// Usage: npm test [-- PATH_SUBSTRING...]   (only test files whose path contains one of the substrings)
import { spawn, spawnSync } from 'node:child_process';
import { readdirSync, statSync } from 'node:fs';
import { availableParallelism } from 'node:os';
import { join, relative } from 'node:path';

const root = new URL('..', import.meta.url).pathname;
function walk(dir, out) {
  for (const name of readdirSync(dir)) {
    if (name === 'node_modules' || name.startsWith('.')) continue;
    const p = join(dir, name);
    if (statSync(p).isDirectory()) walk(p, out);
    else if (name.endsWith('.test.ts')) out.push(relative(root, p));
  }
  return out;
}
const filters = process.argv.slice(2);
const files = ['src', 'test']
  .flatMap((d) => walk(join(root, d), []))
  .filter((f) => filters.length === 0 || filters.some((s) => f.includes(s)))
  .sort();
if (files.length === 0) {
  console.error(`no test files match ${filters.join(' ')}`);
  process.exit(2);
}
// The e2e tests run bin/ripple.js, which runs the compiled build when it is current: rebuild it first (about a
// second with esbuild) so they exercise the code as it is now, compiled — a stale build would make bin/ripple.js
// fall back to the sources with a note on stderr that output-comparing tests would trip on.
const build = spawnSync(process.execPath, [join(root, 'scripts', 'build.mjs')], { cwd: root, stdio: ['ignore', 'ignore', 'inherit'] });
if (build.status !== 0) {
  console.error('test: the compiled build failed (npm run build); the e2e tests would run a stale one');
  process.exit(1);
}
const concurrency = process.env.RIPPLE_TEST_CONCURRENCY ?? String(Math.max(2, availableParallelism()));
const child = spawn(
  process.execPath,
  ['--import', 'tsx', '--test', `--test-concurrency=${concurrency}`, ...files],
  { cwd: root, stdio: 'inherit', env: { ...process.env, NODE_ENV: 'test' } },
);
child.on('exit', (code, signal) => process.exit(signal ? 1 : (code ?? 1)));
