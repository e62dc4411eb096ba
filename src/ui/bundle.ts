// bundle.ts: the browser code, bundled in memory with esbuild when the server starts (about 100 ms; esbuild and
// Preact come from node_modules as installed by `npm ci`, nothing is fetched at run time and nothing generated is
// written to disk or committed).
import { existsSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';

/** Bundle is the dashboard's static assets. */
export interface Bundle {
  html: string;
  js: string;
  css: string;
}

// The client sources: beside this module in the sources, found by walking up from a chunk of the compiled build.
const CLIENT = clientDir(import.meta.dirname);

function clientDir(from: string): string {
  for (let dir = from; ; ) {
    if (existsSync(join(dir, 'src', 'ui', 'client', 'main.tsx'))) return join(dir, 'src', 'ui', 'client');
    const up = dirname(dir);
    if (up === dir) return join(from, 'client');
    dir = up;
  }
}

/** buildBundle bundles client/main.tsx (and the CSS it imports) and reads index.html. */
export async function buildBundle(): Promise<Bundle> {
  const { build } = await import('esbuild');
  const result = await build({
    entryPoints: [join(CLIENT, 'main.tsx')],
    bundle: true,
    write: false,
    outdir: 'out',
    format: 'esm',
    platform: 'browser',
    target: 'es2022',
    minify: true,
    jsx: 'automatic',
    jsxImportSource: 'preact',
    legalComments: 'none',
    logLevel: 'silent',
  });
  const js = result.outputFiles.find((f) => f.path.endsWith('.js'))?.text ?? '';
  const css = result.outputFiles.find((f) => f.path.endsWith('.css'))?.text ?? '';
  return { html: readFileSync(join(CLIENT, 'index.html'), 'utf8'), js, css };
}
