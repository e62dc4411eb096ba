// files.ts: `.Files` — a chart's non-template files with Get, GetBytes, Glob, Lines, AsConfig and AsSecrets.
// Go: pkg/engine/files.go. The value is a Go map (name → []byte, so `range` works) with the `files` method set.
import { withGoMethods, withGoType, type GoMap, type GoValue } from '../gotemplate/index.js';
import { defineFunc, toYamlSigs } from '../funcs/index.js';
import { baseName, type ChartFile } from './chart.js';
import { compileGlob } from './match.js';

const utf8 = new TextDecoder();

function toYAMLString(m: GoMap): string {
  try {
    return toYamlSigs(m).replace(/\n$/, '');
  } catch {
    return '';
  }
}

function base64(b: Uint8Array): string {
  return Buffer.from(b.buffer, b.byteOffset, b.byteLength).toString('base64');
}

/** newFiles builds the `.Files` value from chart files (later duplicates win, as in Go's map). */
export function newFiles(from: readonly ChartFile[]): GoMap {
  const m = Object.create(null) as Record<string, Uint8Array>;
  for (const f of from) m[f.name] = f.data;
  return filesValue(m);
}

function filesValue(m: Record<string, Uint8Array>): GoMap {
  const get = (name: string): Uint8Array => (Object.prototype.hasOwnProperty.call(m, name) ? m[name] : new Uint8Array(0));
  const methods: Record<string, GoValue> = {
    GetBytes: defineFunc('GetBytes', '(string) []uint8', (name: string) => get(name)),
    Get: defineFunc('Get', '(string) string', (name: string) => utf8.decode(get(name))),
    Glob: defineFunc('Glob', '(string) engine.files', (pattern: string) => {
      const re = compileGlob(pattern) ?? /^.*$/s;
      const nf = Object.create(null) as Record<string, Uint8Array>;
      for (const name of Object.keys(m)) if (re.test(name)) nf[name] = m[name];
      return filesValue(nf);
    }),
    Lines: defineFunc('Lines', '(string) []string', (path: string) => {
      if (!Object.prototype.hasOwnProperty.call(m, path)) return withGoType([], '[]string');
      let s = utf8.decode(m[path]);
      if (s.length === 0) throw new Error('runtime error: index out of range [-1]');
      if (s.endsWith('\n')) s = s.slice(0, -1);
      return withGoType(s.split('\n'), '[]string');
    }),
  };
  const v = withGoType(m as unknown as GoMap, 'engine.files');
  return withGoMethods(v, (name) => {
    if (name === 'AsConfig') {
      const out = withGoType(Object.create(null) as GoMap, 'map[string]string');
      for (const k of Object.keys(m)) out[baseName(k)] = utf8.decode(m[k]);
      return toYAMLString(out);
    }
    if (name === 'AsSecrets') {
      const out = withGoType(Object.create(null) as GoMap, 'map[string]string');
      for (const k of Object.keys(m)) out[baseName(k)] = base64(m[k]);
      return toYAMLString(out);
    }
    return methods[name];
  });
}
