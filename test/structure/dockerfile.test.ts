// The Dockerfile, linted: no image can be built here, so the rules hadolint would apply (its DL codes are cited) and
// the image's own promises — multi-stage, non-root, the compiled build only — are checked on the parsed file.
import { strict as assert } from 'node:assert';
import { existsSync, readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { test } from 'node:test';

const root = resolve(import.meta.dirname, '..', '..');

/** Instruction is one Dockerfile instruction with its continuation lines joined. */
interface Instruction {
  op: string;
  args: string;
  line: number;
}

/** parseDockerfile splits a Dockerfile into instructions grouped by build stage. */
function parseDockerfile(text: string): Instruction[][] {
  const stages: Instruction[][] = [];
  const lines = text.split('\n');
  for (let i = 0; i < lines.length; i++) {
    const start = i;
    let l = lines[i];
    if (/^\s*(#|$)/.test(l)) continue;
    while (l.endsWith('\\') && i + 1 < lines.length) l = l.slice(0, -1) + ' ' + lines[++i].trim();
    const m = /^\s*([A-Za-z]+)\s+(.*)$/.exec(l);
    assert.ok(m, `line ${start + 1}: not an instruction: ${l}`);
    const ins = { op: m[1].toUpperCase(), args: m[2].trim(), line: start + 1 };
    if (ins.op === 'FROM') stages.push([]);
    assert.ok(stages.length > 0, `line ${ins.line}: ${ins.op} before FROM`);
    stages[stages.length - 1].push(ins);
  }
  return stages;
}

const stages = parseDockerfile(readFileSync(join(root, 'Dockerfile'), 'utf8'));
const all = stages.flat();
const final = stages[stages.length - 1];

test('hadolint rules: pinned bases, clean apt, COPY not ADD, exec-form ENTRYPOINT, no cd/sudo, pipefail', () => {
  for (const f of all.filter((i) => i.op === 'FROM')) {
    const image = f.args.split(/\s+/)[0];
    assert.match(image, /^[^:@\s]+[:@]\S+$/, `DL3006 line ${f.line}: tag the image`);
    assert.doesNotMatch(image, /:latest$/, `DL3007 line ${f.line}: not latest`);
  }
  for (const r of all.filter((i) => i.op === 'RUN')) {
    if (/apt-get install/.test(r.args)) {
      assert.match(r.args, /--no-install-recommends/, `DL3015 line ${r.line}`);
      assert.match(r.args, /-y\b/, `DL3014 line ${r.line}`);
      assert.match(r.args, /rm -rf \/var\/lib\/apt\/lists\/\*/, `DL3009 line ${r.line}`);
    }
    assert.doesNotMatch(r.args, /(^|[;&|]\s*)cd\s/, `DL3003 line ${r.line}: use WORKDIR`);
    assert.doesNotMatch(r.args, /\bsudo\b/, `DL3004 line ${r.line}`);
    assert.doesNotMatch(r.args, /\bapt-get upgrade\b/, `DL3005 line ${r.line}`);
  }
  assert.equal(all.filter((i) => i.op === 'ADD').length, 0, 'DL3020: COPY, not ADD');
  for (const w of all.filter((i) => i.op === 'WORKDIR')) assert.match(w.args, /^\//, `DL3000 line ${w.line}: absolute WORKDIR`);
  for (const c of all.filter((i) => i.op === 'ENTRYPOINT' || i.op === 'CMD')) assert.doesNotThrow(() => JSON.parse(c.args), `DL3025 line ${c.line}: JSON form`);
  for (const s of stages) {
    const pipes = s.some((i) => i.op === 'RUN' && /[^|]\|[^|]/.test(i.args));
    if (pipes) assert.ok(s.some((i) => i.op === 'SHELL' && /pipefail/.test(i.args)), 'DL4006: set -o pipefail where RUN pipes');
  }
  assert.ok(existsSync(join(root, '.dockerignore')), 'a .dockerignore keeps node_modules and dist out of the context');
  assert.match(readFileSync(join(root, '.dockerignore'), 'utf8'), /^node_modules$/m);
});

test('multi-stage, non-root, the compiled build only', () => {
  assert.ok(stages.length >= 2, 'a build stage and a runtime stage');
  const users = final.filter((i) => i.op === 'USER');
  assert.ok(users.length > 0, 'DL3002: the final stage sets USER');
  assert.doesNotMatch(users[users.length - 1].args, /^(root|0)(:|$)/, 'DL3002: not root');
  // The runtime stage takes the build from the build stage, and never the sources or a compiler.
  assert.ok(final.some((i) => i.op === 'COPY' && /--from=\S+ \S*\/dist\/? /.test(i.args)), 'dist/ comes from the build stage');
  for (const i of final) {
    if (i.op === 'COPY') assert.doesNotMatch(i.args, /(^|\s|\/)src\/?(\s|$)/, `line ${i.line}: no sources in the image`);
    assert.notEqual(i.op, 'RUN', `line ${i.line}: nothing is built or installed in the runtime stage`);
  }
  const build = stages[0].map((i) => i.args).join('\n');
  assert.match(build, /npm ci\b/, 'the build stage installs with npm ci (prepare builds dist/)');
  assert.match(build, /npm prune --omit=dev/, 'and drops the dev dependencies');
  const entry = JSON.parse(final.find((i) => i.op === 'ENTRYPOINT')!.args) as string[];
  assert.deepEqual(entry.slice(-1), ['/app/bin/ripple.js']);
});
