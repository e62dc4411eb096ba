// bench-child.mjs: runs one compiled bench module (scripts/bench.ts starts it with plain node, without tsx) and writes
// its result to stdout as JSON. Usage: node scripts/bench-child.mjs FILE_URL
const url = process.argv[2];
if (!url) {
  console.error('usage: node scripts/bench-child.mjs FILE_URL');
  process.exit(2);
}
const mod = await import(url);
const result = await mod.bench();
process.stdout.write(JSON.stringify(result));
process.exit(0);
