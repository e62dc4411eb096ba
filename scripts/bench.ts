// bench.ts: `npm run bench [-- NAME...]` runs every src/**/*.bench.ts and prints one JSON document.
// A bench module exports `bench(): Promise<Record<string, unknown>>`; its result lands under the module's name
// (the file name without `.bench.ts`). Progress goes to stderr, the JSON to stdout.
//
// Benches that measure `ripple up` as users run it (FROM_BUILD) run compiled code, not the sources through tsx: they are
// built first with scripts/build.mjs (esbuild, the same bundling as dist/) into node_modules/.cache/ripple-bench/ and
// run in a child process of plain node, so what they measure is the code a user runs — without tsx's loader thread and
// the transformed sources it holds on each thread (~170 MiB of RSS in the fleet bench). RIPPLE_BENCH_FROM=sources runs
// them from the sources in this process instead, e.g. for CPU profiles whose frames name src/ files.
import { spawnSync } from 'node:child_process';
import { readdirSync, statSync } from 'node:fs';
import { cpus } from 'node:os';
import { basename, join, relative } from 'node:path';
import { pathToFileURL } from 'node:url';

const root = new URL('..', import.meta.url).pathname;
function walk(dir: string, out: string[]): string[] {
  for (const name of readdirSync(dir)) {
    if (name === 'node_modules' || name.startsWith('.')) continue;
    const p = join(dir, name);
    if (statSync(p).isDirectory()) walk(p, out);
    else if (name.endsWith('.bench.ts')) out.push(p);
  }
  return out;
}

const FROM_BUILD = new Set(['src/manager/fleet.bench.ts']);
const fromSources = process.env.RIPPLE_BENCH_FROM === 'sources';
if (process.env.RIPPLE_BENCH_FROM !== undefined && !['sources', 'build'].includes(process.env.RIPPLE_BENCH_FROM)) {
  process.stderr.write(`bench: RIPPLE_BENCH_FROM=${process.env.RIPPLE_BENCH_FROM}: want "build" (default) or "sources"\n`);
  process.exit(2);
}

/** builtBench compiles a FROM_BUILD bench and runs it in a child process without tsx (whose loader would otherwise stay
 * resident beside it), returning its result. */
function builtBench(file: string): Record<string, unknown> {
  const rel = relative(root, file);
  const outdir = join(root, 'node_modules', '.cache', 'ripple-bench');
  const b = spawnSync(process.execPath, [join(root, 'scripts', 'build.mjs'), '--outdir', outdir, '--entry', rel], { cwd: root, stdio: ['ignore', 'ignore', 'inherit'] });
  if (b.status !== 0) throw new Error(`building ${rel} failed (exit ${b.status}); RIPPLE_BENCH_FROM=sources runs it from the sources`);
  const url = pathToFileURL(join(outdir, rel.replace(/^src\//, '').replace(/\.ts$/, '.js'))).href;
  const run = spawnSync(process.execPath, [join(root, 'scripts', 'bench-child.mjs'), url], { cwd: root, stdio: ['ignore', 'pipe', 'inherit'], maxBuffer: 256 * 2 ** 20 });
  if (run.status !== 0) throw new Error(`${rel} (compiled) exited with ${run.status ?? run.signal}`);
  return JSON.parse(run.stdout.toString('utf8')) as Record<string, unknown>;
}

const only = process.argv.slice(2);
const files = walk(join(root, 'src'), [])
  .concat(walk(join(root, 'test'), []))
  .filter((f) => only.length === 0 || only.some((s) => basename(f, '.bench.ts') === s || relative(root, f).includes(s)))
  .sort();
const result: Record<string, unknown> = {
  machine: { node: process.version, cpus: cpus().length, cpu: cpus()[0]?.model, date: new Date().toISOString() },
};
let failed = false;
for (const f of files) {
  const name = basename(f, '.bench.ts');
  process.stderr.write(`bench: ${name} …\n`);
  const t0 = performance.now();
  try {
    if (!fromSources && FROM_BUILD.has(relative(root, f))) result[name] = builtBench(f);
    else result[name] = await ((await import(pathToFileURL(f).href)) as { bench: () => Promise<Record<string, unknown>> }).bench();
  } catch (err) {
    failed = true;
    result[name] = { error: err instanceof Error ? err.message : String(err) };
  }
  process.stderr.write(`bench: ${name} done in ${((performance.now() - t0) / 1000).toFixed(1)} s\n`);
}
process.stdout.write(JSON.stringify(result, null, 2) + '\n');
process.exit(failed ? 1 : 0);
