// helm-goldens.mjs: regenerates testdata/helm/expected/ by running every case of testdata/helm/cases.jsonl
// through the Helm oracle (Helm v3.17.4's `helm template`, ../shared/oracles/helm). Cases are written with helm's
// flags and defaults (--include-crds off unless given); the oracle defaults -include-crds to true, so it is
// passed explicitly. Each case gets NAME.stdout and NAME.stderr (first line "exit N", then the oracle's stderr).
//   node scripts/helm-goldens.mjs [NAME...]      (HELM_ORACLE overrides /work/tools/helm-oracle)
import { spawnSync } from 'node:child_process';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

const root = new URL('..', import.meta.url).pathname;
const dir = join(root, 'testdata/helm');
const oracle = process.env.HELM_ORACLE ?? '/work/tools/helm-oracle';
const only = process.argv.slice(2);
const cases = readFileSync(join(dir, 'cases.jsonl'), 'utf8')
  .split('\n')
  .filter((l) => l.trim() !== '')
  .map((l) => JSON.parse(l));
mkdirSync(join(dir, 'expected'), { recursive: true });
for (const c of cases) {
  if (only.length > 0 && !only.includes(c.name)) continue;
  const args = c.args.includes('--include-crds') ? [...c.args] : ['-include-crds=false', ...c.args];
  const r = spawnSync(oracle, args, { cwd: dir, encoding: 'utf8' });
  if (r.error) throw r.error;
  // Helm prints absolute paths of local files: the golden says <TESTDATA> for this directory (the test does the same).
  const norm = (t) => t.split(dir).join('<TESTDATA>');
  const [stdout, stderr, code] = [norm(r.stdout), norm(r.stderr), r.status ?? 1];
  writeFileSync(join(dir, 'expected', `${c.name}.stdout`), stdout);
  writeFileSync(join(dir, 'expected', `${c.name}.stderr`), `exit ${code}\n${stderr}`);
  process.stdout.write(`${c.name}: exit ${code}\n`);
}
