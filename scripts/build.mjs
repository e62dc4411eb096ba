#!/usr/bin/env node
// build.mjs: compiles the `ripple` command to plain ESM JavaScript in dist/ — what bin/ripple.js runs, so a command
// starts without the tsx loader. `npm ci` runs it through the `prepare` script; `npm run build` by hand.
//
// esbuild bundles the CLI (src/cli/main.ts and one entry per file in src/cli/commands/) together with its pure-JS
// dependencies, splitting shared code into chunks: a command loads only its own entry and the chunks it needs, from a
// handful of files. Unbundled, `ripple get` read ~1,300 module files (826 of them @kubernetes/client-node's, 373
// typebox's) and spent over a second resolving and compiling them. esbuild only strips types; `npm run typecheck`
// (tsc) is the type check, which would cost ~30 s on every `npm ci`.
//
// Layout: dist/cli/main.js and dist/cli/commands/<name>.js (main discovers commands by listing that folder, as it does
// in the sources), dist/chunks/*.js, dist/BUILD.json (the build stamp bin/ripple.js compares with the sources).
// Usage: node scripts/build.mjs [--outdir DIR] [--entry FILE ...]
//   --entry builds the given source files (plus the API server's worker entry) instead of the CLI: `npm run bench`
//   compiles the benches that measure `ripple up` as users run it this way (see scripts/bench.ts).
import { build } from 'esbuild';
import { readdirSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { join, relative, resolve } from 'node:path';

const root = resolve(import.meta.dirname, '..');
const args = process.argv.slice(2);
let outdir = resolve(root, 'dist');
const extraEntries = [];
for (let i = 0; i < args.length; i++) {
  if ((args[i] === '--outdir' || args[i] === '--entry') && args[i + 1]) {
    if (args[i] === '--outdir') outdir = resolve(root, args[i + 1]);
    else extraEntries.push(resolve(root, args[i + 1]));
    i++;
  } else {
    console.error(`build: unknown argument ${args[i]} (usage: node scripts/build.mjs [--outdir DIR] [--entry FILE ...])`);
    process.exit(2);
  }
}

// Packages that must stay files in node_modules: a native addon (better-sqlite3 finds its .node file relative to
// itself), a WASM runtime that loads its .wasm the same way (wasmoon), and pino, whose transports start worker
// threads from file paths; esbuild (the dashboard bundles its client at start) runs its own native binary, and
// playwright-core drives a browser from its package files.
const EXTERNAL = ['better-sqlite3', 'wasmoon', 'pino', 'esbuild', 'playwright-core'];

const commandsDir = join(root, 'src', 'cli', 'commands');
// The API server's worker thread starts from a file of its own (src/apiserver/thread.ts finds it).
const threadWorker = join(root, 'src', 'apiserver', 'thread-worker.ts');
const entryPoints =
  extraEntries.length > 0
    ? [...extraEntries, threadWorker]
    : [
        join(root, 'src', 'cli', 'main.ts'),
        threadWorker,
        ...readdirSync(commandsDir)
          .filter((f) => f.endsWith('.ts') && !/\.(test|bench|d)\.ts$/.test(f))
          .sort()
          .map((f) => join(commandsDir, f)),
      ];

const started = Date.now();
// Build into a sibling directory and swap it in, so a `ripple` started during a rebuild never sees half a tree.
const tmp = `${outdir}.tmp-${process.pid}`;
rmSync(tmp, { recursive: true, force: true });
try {
  const result = await build({
    entryPoints,
    outdir: tmp,
    outbase: join(root, 'src'),
    entryNames: '[dir]/[name]',
    chunkNames: 'chunks/[name]-[hash]',
    bundle: true,
    splitting: true,
    format: 'esm',
    platform: 'node',
    target: 'node20',
    external: EXTERNAL,
    // Bundled CommonJS dependencies call require() for Node built-ins; ESM output has no require of its own.
    banner: { js: "import { createRequire as __rippleCreateRequire } from 'node:module'; const require = __rippleCreateRequire(import.meta.url);" },
    metafile: true,
    logLevel: 'warning',
  });
  const inputs = Object.keys(result.metafile.inputs).filter((f) => f.startsWith('src/')).length;
  // The stamp records when the sources were read: bin/ripple.js treats dist/ as stale if a source file is newer.
  writeFileSync(join(tmp, 'BUILD.json'), JSON.stringify({ builtAt: started, entries: entryPoints.length, sources: inputs }) + '\n');
  rmSync(outdir, { recursive: true, force: true });
  renameSync(tmp, outdir);
} catch (err) {
  rmSync(tmp, { recursive: true, force: true });
  throw err;
}
console.error(`build: ${entryPoints.length} entry points → ${relative(root, outdir) || '.'} in ${Date.now() - started} ms`);
