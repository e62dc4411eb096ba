// Layout rules from STYLE.md, enforced: components import each other only through index.ts, pure cores do no I/O,
// and the whole tree type-checks.
import { strict as assert } from 'node:assert';
import { spawnSync } from 'node:child_process';
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, relative, resolve, sep } from 'node:path';
import { test } from 'node:test';

const root = resolve(import.meta.dirname, '..', '..');
const src = join(root, 'src');
const PURE = new Set(['api', 'gotemplate', 'funcs', 'lua', 'match', 'helm', 'kustomize']);
const IO_MODULES = /^(node:)?(fs|fs\/promises|net|http|https|http2|child_process|dgram|dns|tls|worker_threads|cluster)$|^better-sqlite3$|^@kubernetes\/client-node$/;

function sourceFiles(dir: string, out: string[] = []): string[] {
  for (const name of readdirSync(dir)) {
    const p = join(dir, name);
    if (statSync(p).isDirectory()) sourceFiles(p, out);
    else if (p.endsWith('.ts')) out.push(p);
  }
  return out;
}
const importRe = /(?:^|\n)\s*(?:import|export)\s[^'"]*?from\s*['"]([^'"]+)['"]|import\(\s*['"]([^'"]+)['"]\s*\)/g;
function imports(file: string): string[] {
  const text = readFileSync(file, 'utf8');
  return [...text.matchAll(importRe)].map((m) => m[1] ?? m[2]);
}
const componentOf = (file: string) => relative(src, file).split(sep)[0];
const isTest = (f: string) => /\.(test|bench)\.ts$/.test(f);

test('components import each other only through index.ts', () => {
  const bad: string[] = [];
  for (const file of sourceFiles(src)) {
    const from = componentOf(file);
    for (const spec of imports(file)) {
      if (!spec.startsWith('.')) continue;
      const target = resolve(dirname(file), spec);
      if (!target.startsWith(src + sep)) continue;
      const to = componentOf(target);
      if (to === from) continue;
      const rel = relative(join(src, to), target);
      if (rel !== 'index.js' && rel !== 'index.ts') bad.push(`${relative(root, file)} imports ${spec}`);
    }
  }
  assert.deepEqual(bad, [], 'import another component only through its index.ts');
});

test('pure cores do no I/O', () => {
  const bad: string[] = [];
  for (const file of sourceFiles(src)) {
    if (!PURE.has(componentOf(file)) || isTest(file)) continue;
    for (const spec of imports(file)) if (IO_MODULES.test(spec)) bad.push(`${relative(root, file)} imports ${spec}`);
    if (/\bprocess\.env\b/.test(readFileSync(file, 'utf8'))) bad.push(`${relative(root, file)} reads process.env`);
  }
  assert.deepEqual(bad, [], 'pure cores take data and injected ports; move I/O to the edge');
});

test('the tree type-checks (tsc --noEmit)', { timeout: 600_000 }, () => {
  const tsc = join(root, 'node_modules', 'typescript', 'bin', 'tsc');
  const r = spawnSync(process.execPath, [tsc, '--noEmit', '-p', root], { encoding: 'utf8' });
  assert.equal(r.status, 0, `tsc reported errors:\n${r.stdout}${r.stderr}`);
});
