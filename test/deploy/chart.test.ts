// Ripple's own Helm chart (deploy/helm/ripple): it renders byte-identically with `ripple helm template`, with Helm
// v3.17.4 (the oracle, when installed) and with `ripple manifests all`; its crds/ are the CRDs Ripple serves; its
// values.schema.json refuses bad values; and the embedded API server accepts every rendered object under server-side
// dry-run (CRDs applied first), through kubectl.
import { strict as assert } from 'node:assert';
import { execFile, execFileSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { after, before, test } from 'node:test';
import { parseAllDocuments } from 'yaml';
import { KINDS, crdsToYaml, generateCrds } from '../../src/api/index.js';
import { runHelmTemplate } from '../../src/cli/commands/helm.js';
import { runCli } from '../support/run-cli.js';
import { startTestApiServer, type TestApiServer } from '../support/apiserver.js';

const root = resolve(import.meta.dirname, '..', '..');
const CHART = join(root, 'deploy', 'helm', 'ripple');
const GOLDEN = join(root, 'testdata', 'deploy', 'helm');
const ORACLE = '/work/tools/helm-oracle';
const KUBECTL = '/usr/bin/kubectl';
const CASES = readdirSync(GOLDEN).filter((f) => f.endsWith('.values.yaml')).map((f) => f.slice(0, -'.values.yaml'.length)).sort();

/** helmArgs are the `helm template` arguments of one golden case (CRDs only in the default case). */
function helmArgs(c: string): { args: string[]; includeCrds: boolean } {
  return { args: ['ripple', CHART, '-n', 'projectsveltos', '-f', join(GOLDEN, `${c}.values.yaml`)], includeCrds: c === 'default' };
}

function ripple(c: string): string {
  const { args, includeCrds } = helmArgs(c);
  const r = runHelmTemplate([...args, ...(includeCrds ? ['--include-crds'] : [])]);
  assert.equal(r.code, 0, `ripple helm template (${c}) failed: ${r.stderr}`);
  return r.stdout;
}

test('the golden cases exist', () => {
  assert.deepEqual(CASES, ['all-features', 'default', 'shard-controller']);
});

for (const c of CASES) {
  test(`chart case ${c}: ripple helm template matches the golden (and Helm's own output)`, () => {
    const ours = ripple(c);
    const file = join(GOLDEN, `${c}.yaml`);
    if (existsSync(ORACLE)) {
      const { args, includeCrds } = helmArgs(c);
      const theirs = execFileSync(ORACLE, [`-include-crds=${includeCrds}`, '-n', 'projectsveltos', '-f', args[5], 'ripple', CHART], { encoding: 'utf8', maxBuffer: 64 << 20 });
      if (process.env.UPDATE_GOLDEN) writeFileSync(file, theirs);
      assert.equal(ours, theirs, `ripple helm template differs from helm template for ${c}`);
    }
    assert.equal(ours, readFileSync(file, 'utf8'), `${c}: differs from testdata/deploy/helm/${c}.yaml (see its README to regenerate)`);
  });
}

test('ripple manifests all prints the chart rendered with its defaults, CRDs included', async () => {
  const r = await runCli(['manifests', 'all']);
  assert.equal(r.code, 0, r.stderr);
  assert.equal(r.stdout, readFileSync(join(GOLDEN, 'default.yaml'), 'utf8'));
  const noCrds = await runCli(['manifests', 'all', '--no-crds', '-n', 'ripple-system', '--release-name', 'r', '--set', 'manager.replicas=3']);
  assert.equal(noCrds.code, 0, noCrds.stderr);
  assert.doesNotMatch(noCrds.stdout, /kind: CustomResourceDefinition/);
  assert.match(noCrds.stdout, /name: r-ripple-manager\n  namespace: ripple-system/);
  assert.match(noCrds.stdout, /replicas: 3/);
  const bad = await runCli(['manifests', 'all', '--set', 'manager.agentMode=sometimes']);
  assert.equal(bad.code, 3);
  assert.match(bad.stderr, /manager\.agentMode must be one of the following: "agentless", "collect"/);
});

test("the chart's crds/ are exactly the CRDs Ripple serves (ripple manifests crds)", () => {
  const files = readdirSync(join(CHART, 'crds'));
  assert.deepEqual(files, ['ripple.yaml']);
  assert.equal(readFileSync(join(CHART, 'crds', 'ripple.yaml'), 'utf8'), crdsToYaml(generateCrds(KINDS)), 'regenerate: ripple manifests crds > deploy/helm/ripple/crds/ripple.yaml');
});

test('values.schema.json refuses unknown keys, bad enums and invalid shard keys', () => {
  for (const [set, message] of [
    ['manager.replica=2', /additional properties 'replica' not allowed|Additional property replica is not allowed/],
    ['manager.logLevel=verbose', /manager\.logLevel must be one of the following/],
    ['sharding.keys[0]=EU_West', /sharding\.keys\.0: Does not match pattern/],
    ['metrics.port=0', /metrics\.port: Must be greater than or equal to 1/],
    ['agent.deploy=true', /agent\.deploy needs manager\.agentMode=collect/],
    ['rbac.extraRules[0].apiGroups[0]=apps', /verbs is required|missing properties 'verbs'/],
  ] as const) {
    const r = runHelmTemplate(['ripple', CHART, '--set', set]);
    assert.equal(r.code, 1, `--set ${set} was accepted`);
    assert.match(r.stderr, message, `--set ${set}: ${r.stderr}`);
  }
});

// ---- server-side dry-run against the embedded API server, through kubectl ----

let srv: TestApiServer;
let work: string;

before(async () => {
  srv = await startTestApiServer({ clusters: ['mgmt'] });
  work = mkdtempSync(join(tmpdir(), 'ripple-chart-'));
});
after(async () => {
  await srv?.stop();
  if (work) rmSync(work, { recursive: true, force: true });
});

function kubectl(args: string[], input?: string): Promise<{ code: number; stdout: string; stderr: string }> {
  return new Promise((done) => {
    const child = execFile(KUBECTL, ['--cache-dir', join(work, 'cache'), ...args], { env: { ...process.env, KUBECONFIG: srv.kubeconfigPath, HOME: work }, timeout: 60_000, maxBuffer: 64 << 20 }, (err, stdout, stderr) =>
      done({ code: err ? (typeof err.code === 'number' ? err.code : 1) : 0, stdout, stderr }),
    );
    if (input !== undefined) child.stdin!.end(input);
  });
}

/** split separates the CRDs of a render from the other objects. */
function split(yaml: string): { crds: string; rest: string; kinds: string[] } {
  const crds: string[] = [];
  const rest: string[] = [];
  const kinds: string[] = [];
  for (const d of parseAllDocuments(yaml)) {
    const o = d.toJS() as { kind?: string } | null;
    if (!o) continue;
    (o.kind === 'CustomResourceDefinition' ? crds : rest).push(d.toString());
    if (o.kind !== 'CustomResourceDefinition') kinds.push(o.kind ?? '');
  }
  return { crds: crds.join('---\n'), rest: rest.join('---\n'), kinds };
}

test('every object of every case is accepted by the embedded API server under server-side dry-run', async () => {
  const { crds } = split(readFileSync(join(GOLDEN, 'default.yaml'), 'utf8'));
  let r = await kubectl(['apply', '--server-side', '-f', '-'], crds + '---\n' + readFileSync(join(root, 'testdata', 'deploy', 'servicemonitor-crd.yaml'), 'utf8'));
  assert.equal(r.code, 0, r.stderr);
  r = await kubectl(['create', 'namespace', 'projectsveltos']);
  assert.equal(r.code, 0, r.stderr);
  for (const c of CASES) {
    const { rest, kinds } = split(readFileSync(join(GOLDEN, `${c}.yaml`), 'utf8'));
    r = await kubectl(['apply', '--dry-run=server', '-o', 'name', '-f', '-'], rest);
    assert.equal(r.code, 0, `${c}: ${r.stderr}`);
    assert.equal(r.stdout.trim().split('\n').length, kinds.length, `${c}: ${r.stdout}`);
  }
  // Dry-run wrote nothing.
  r = await kubectl(['get', 'deployments,serviceaccounts', '-n', 'projectsveltos', '-o', 'name']);
  assert.equal(r.code, 0, r.stderr);
  assert.doesNotMatch(r.stdout, /ripple/);
  // A broken object is refused: the check can fail.
  const broken = split(readFileSync(join(GOLDEN, 'default.yaml'), 'utf8')).rest.replace('  replicas: 2', '  replicas: -2');
  r = await kubectl(['apply', '--dry-run=server', '-f', '-'], broken);
  assert.notEqual(r.code, 0);
  assert.match(r.stderr, /replicas/);
});

test("every container command line of the chart is one `ripple` accepts (it gets as far as dialling the cluster)", async () => {
  const dir = mkdtempSync(join(tmpdir(), 'ripple-chart-args-'));
  const kubeconfig = join(dir, 'kubeconfig');
  // A management cluster nobody listens on: parsing passes, connecting fails with exit code 4.
  writeFileSync(kubeconfig, 'apiVersion: v1\nkind: Config\nclusters: [{name: x, cluster: {server: "https://127.0.0.1:1"}}]\nusers: [{name: x, user: {token: t}}]\ncontexts: [{name: x, context: {cluster: x, user: x}}]\ncurrent-context: x\n');
  const saved = process.env.KUBECONFIG;
  process.env.KUBECONFIG = kubeconfig;
  try {
    let n = 0;
    for (const c of CASES) {
      for (const d of parseAllDocuments(readFileSync(join(GOLDEN, `${c}.yaml`), 'utf8'))) {
        const o = d.toJS() as { kind?: string; spec?: { template: { spec: { containers: { args: string[] }[] } } } } | null;
        if (o?.kind !== 'Deployment') continue;
        const args = o.spec!.template.spec.containers[0].args;
        const r = await runCli(args);
        assert.equal(r.code, 4, `${c}: ripple ${args.join(' ')}\n${r.stderr}`);
        assert.match(r.stderr, /cannot reach the management cluster/);
        n++;
      }
    }
    assert.equal(n, 6);
  } finally {
    if (saved === undefined) delete process.env.KUBECONFIG;
    else process.env.KUBECONFIG = saved;
    rmSync(dir, { recursive: true, force: true });
  }
});

test('ripple helm lint passes on the chart (NOTES.txt included)', async () => {
  const r = await runCli(['helm', 'lint', CHART]);
  assert.equal(r.code, 0, r.stdout + r.stderr);
  assert.match(r.stdout, /1 chart\(s\) linted, 0 chart\(s\) failed/);
  assert.doesNotMatch(r.stdout, /\[(ERROR|WARNING)\]/);
});

test("the chart's copy of the Grafana dashboard is deploy/grafana/ripple.json", () => {
  assert.equal(readFileSync(join(CHART, 'dashboards', 'ripple.json'), 'utf8'), readFileSync(join(root, 'deploy', 'grafana', 'ripple.json'), 'utf8'), 'cp deploy/grafana/ripple.json deploy/helm/ripple/dashboards/');
  const cm = parseAllDocuments(readFileSync(join(GOLDEN, 'all-features.yaml'), 'utf8')).map((d) => d.toJS()).find((o) => o?.kind === 'ConfigMap' && o.metadata.name === 'ripple-dashboard');
  assert.ok(cm, 'metrics.grafanaDashboard.enabled renders the dashboard ConfigMap');
  assert.equal(cm.metadata.labels.grafana_dashboard, '1');
  assert.deepEqual(JSON.parse(cm.data['ripple.json']), JSON.parse(readFileSync(join(root, 'deploy', 'grafana', 'ripple.json'), 'utf8')));
});
