// bench.ts: `npm run bench [-- NAME...]` runs every src/**/*.bench.ts and prints one JSON document.
// A bench module exports `bench(): Promise<Record<string, unknown>>`; its result lands under the module's name
// (the file name without `.bench.ts`). Progress goes to stderr, the JSON to stdout.
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
    const mod = (await import(pathToFileURL(f).href)) as { bench: () => Promise<Record<string, unknown>> };
    result[name] = await mod.bench();
  } catch (err) {
    failed = true;
    result[name] = { error: err instanceof Error ? err.message : String(err) };
  }
  process.stderr.write(`bench: ${name} done in ${((performance.now() - t0) / 1000).toFixed(1)} s\n`);
}
process.stdout.write(JSON.stringify(result, null, 2) + '\n');
process.exit(failed ? 1 : 0);
