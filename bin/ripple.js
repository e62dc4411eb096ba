#!/usr/bin/env node
// ripple: runs the compiled build in dist/ (made by `npm ci` / `npm run build`, see scripts/build.mjs), which starts
// in a fraction of the time the TypeScript sources take through tsx's loader.
//
// The sources are run instead, through tsx, when they are newer than the build (a checkout edited or pulled since
// the last build: the command must do what the code says, so a stale build is never run) or when there is no build
// (`npm ci --ignore-scripts`); ripple then says so once on stderr, with the fix. RIPPLE_FROM_SOURCE=1 picks the
// sources without the note. An installation without src/ (the container image) always runs dist/.
import { readFileSync, readdirSync, statSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');

/** newestSource returns the newest modification time (ms) of a source file under dir (tests and benchmarks are not
 * in the build), or 0 if there is no such dir. */
function newestSource(dir) {
  let newest = 0;
  let entries;
  try {
    entries = readdirSync(dir, { withFileTypes: true });
  } catch {
    return 0;
  }
  for (const e of entries) {
    const p = join(dir, e.name);
    if (e.isDirectory()) newest = Math.max(newest, newestSource(p));
    else if (e.name.endsWith('.ts') && !/\.(test|bench)\.ts$/.test(e.name)) newest = Math.max(newest, statSync(p).mtimeMs);
  }
  return newest;
}

/** buildProblem says why dist/ cannot be run, or returns undefined when it is current. */
function buildProblem() {
  let stamp;
  try {
    stamp = JSON.parse(readFileSync(join(root, 'dist', 'BUILD.json'), 'utf8'));
  } catch {
    return 'there is no compiled build in dist/';
  }
  return newestSource(join(root, 'src')) > stamp.builtAt ? 'the sources changed since dist/ was built' : undefined;
}

let entry = pathToFileURL(join(root, 'dist', 'cli', 'main.js')).href;
const problem = process.env.RIPPLE_FROM_SOURCE === '1' ? 'RIPPLE_FROM_SOURCE=1' : buildProblem();
if (problem) {
  if (process.env.RIPPLE_FROM_SOURCE !== '1') {
    process.stderr.write(`ripple: ${problem}; running the sources through tsx (slower start). \`npm run build\` compiles them.\n`);
  }
  const { register } = await import('tsx/esm/api');
  register();
  entry = pathToFileURL(join(root, 'src', 'cli', 'main.ts')).href;
}
// A reader that stops early (`ripple manifests all | head`) closes the pipe: stop quietly instead of crashing on EPIPE.
process.stdout.on('error', (err) => {
  if (err.code === 'EPIPE') process.exit(0);
  throw err;
});
const { main } = await import(entry);
process.exitCode = await main(process.argv.slice(2));
