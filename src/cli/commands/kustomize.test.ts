// Golden conformance of `ripple kustomize build` against `kubectl kustomize` (kubectl 1.32, Kustomize v5.5.0): every
// testdata/kustomize/<case>/ has an input tree (`input/`, built at `input/<target>` when a `target` file names a
// subdirectory) and kubectl's answer in expected.stdout, expected.stderr and expected.exit. stdout must be
// byte-identical. stderr holds Kustomize's warnings and, on failure, `error: MESSAGE` with MESSAGE taken from kubectl's
// klog line (kubectl 1.32 prints `E1125 hh:mm:ss.micros PID run.go:72] "command failed" err="MESSAGE"`, a
// timestamp and pid no golden can pin: that framing is the one deliberate difference for every error case), with the
// case's absolute input path written as $INPUT. Cases listed in testdata/kustomize/differences.json differ on
// purpose; the file gives the reason and pins our output instead.
// UPDATE_GOLDEN=1 regenerates the expected files by running kubectl; CI never runs kubectl for this.
import { strict as assert } from 'node:assert';
import { spawnSync } from 'node:child_process';
import { existsSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { PassThrough } from 'node:stream';
import { test } from 'node:test';
import { commands } from './kustomize.js';

const root = resolve(import.meta.dirname, '..', '..', '..');
const dir = join(root, 'testdata', 'kustomize');
const update = process.env.UPDATE_GOLDEN === '1';
const cases = existsSync(dir)
  ? readdirSync(dir, { withFileTypes: true })
      .filter((d) => d.isDirectory())
      .map((d) => d.name)
      .sort()
  : [];
const differences = existsSync(join(dir, 'differences.json'))
  ? (JSON.parse(readFileSync(join(dir, 'differences.json'), 'utf8')) as Record<string, { why: string; stdout?: string; stderr?: string; exit?: number }>)
  : {};

const build = commands.find((c) => c.path.join(' ') === 'kustomize build')!;

function collect(s: PassThrough): () => string {
  const chunks: Buffer[] = [];
  s.on('data', (c: Buffer) => chunks.push(c));
  return () => Buffer.concat(chunks).toString('utf8');
}

async function runOurs(target: string): Promise<{ stdout: string; stderr: string; exit: number }> {
  const stdout = new PassThrough();
  const stderr = new PassThrough();
  const out = collect(stdout);
  const err = collect(stderr);
  const exit = await build.run([target], { stdin: new PassThrough(), stdout, stderr });
  return { stdout: out(), stderr: err(), exit };
}

// klogMessage extracts err="..." (Go-quoted) or err=< ... > (tab-indented block) from kubectl's klog error line.
function klogMessage(line: string): string {
  const q = /"command failed" err=("(?:[^"\\]|\\.)*")/.exec(line);
  if (q) return JSON.parse(q[1].replace(/\\x([0-9a-f]{2})/g, '\\u00$1')) as string;
  const b = /"command failed" err=<\n([\s\S]*?)\n >/.exec(line);
  if (b) return b[1].split('\n').map((l) => l.replace(/^\t/, '')).join('\n');
  return line;
}

function runKubectl(target: string, input: string): { stdout: string; stderr: string; exit: number } {
  const r = spawnSync('kubectl', ['kustomize', target], { encoding: 'utf8' });
  let stderr = r.stderr;
  const at = stderr.search(/^E\d{4} /m);
  if (at >= 0) stderr = `${stderr.slice(0, at)}error: ${klogMessage(stderr.slice(at))}\n`;
  return { stdout: r.stdout, stderr: stderr.split(input).join('$INPUT'), exit: r.status ?? 1 };
}

for (const name of cases) {
  test(`kustomize golden ${name}`, async () => {
    const caseDir = join(dir, name);
    const input = join(caseDir, 'input');
    const sub = existsSync(join(caseDir, 'target')) ? readFileSync(join(caseDir, 'target'), 'utf8').trim() : '.';
    const target = resolve(input, sub);
    if (update) {
      const k = runKubectl(target, input);
      writeFileSync(join(caseDir, 'expected.stdout'), k.stdout);
      writeFileSync(join(caseDir, 'expected.stderr'), k.stderr);
      writeFileSync(join(caseDir, 'expected.exit'), `${k.exit}\n`);
    }
    const ours = await runOurs(target);
    ours.stderr = ours.stderr.split(input).join('$INPUT');
    const pinned = differences[name];
    const want = {
      stdout: pinned?.stdout ?? readFileSync(join(caseDir, 'expected.stdout'), 'utf8'),
      stderr: pinned?.stderr ?? readFileSync(join(caseDir, 'expected.stderr'), 'utf8'),
      exit: pinned?.exit ?? Number(readFileSync(join(caseDir, 'expected.exit'), 'utf8').trim()),
    };
    assert.equal(ours.stdout, want.stdout, `${name}: stdout`);
    assert.equal(ours.stderr, want.stderr, `${name}: stderr`);
    assert.equal(ours.exit, want.exit, `${name}: exit code`);
  });
}


test('the ripple binary prints the build on stdout and exits 0, an error as `error: ...` on stderr with exit 1', () => {
  const bin = join(root, 'bin', 'ripple.js');
  const ok = spawnSync(process.execPath, [bin, 'kustomize', 'build', join(dir, 'overlay-base', 'input', 'overlay')], { encoding: 'utf8' });
  assert.equal(ok.status, 0, ok.stderr);
  assert.equal(ok.stdout, readFileSync(join(dir, 'overlay-base', 'expected.stdout'), 'utf8'));
  const bad = spawnSync(process.execPath, [bin, 'kustomize', 'build', join(dir, 'missing-resource', 'input')], { encoding: 'utf8' });
  assert.equal(bad.status, 1);
  assert.equal(bad.stdout, '');
  assert.equal(bad.stderr.split(join(dir, 'missing-resource', 'input')).join('$INPUT'), readFileSync(join(dir, 'missing-resource', 'expected.stderr'), 'utf8'));
});
