// agent.test.ts: `ripple agent`, `ripple agent manager` and `ripple agent rbac` — help, command-line errors with exit
// codes, and the agent running for real against the embedded API server until SIGTERM.
import { strict as assert } from 'node:assert';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import { parseAllDocuments } from 'yaml';
import { generateCrds } from '../../api/index.js';
import { KubeClient, type KubeObject } from '../../kube/index.js';
import { startTestApiServer } from '../../../test/support/apiserver.js';
import { eventually } from '../../../test/support/eventually.js';
import { runCli } from '../../../test/support/run-cli.js';

test('ripple agent --help and subcommand help', async () => {
  for (const args of [['agent', '--help'], ['agent', 'manager', '--help'], ['agent', 'rbac', '--help']]) {
    const r = await runCli(args);
    assert.equal(r.code, 0, args.join(' '));
    assert.match(r.stdout, /^Usage: ripple agent/);
  }
  const r = await runCli(['agent', '--help']);
  assert.match(r.stdout, /send-reports/);
  assert.match(r.stdout, /eventreports\/status get,update,patch/);
});

test('ripple agent: bad command lines exit 2 and say what to fix', async () => {
  const cases: [string[], RegExp][] = [
    [['agent'], /missing --cluster-namespace, --cluster-name/],
    [['agent', '--cluster-namespace', 'fleet', '--cluster-name', 'c1', '--run-mode', 'sometimes'], /--run-mode must be send-reports or do-not-send-reports/],
    [['agent', '--cluster-namespace', 'fleet', '--cluster-name', 'c1', '--run-mode', 'send-reports'], /needs --mgmt-kubeconfig/],
    [['agent', '--cluster-namespace', 'fleet', '--cluster-name', 'c1', '--cluster-type', 'Kind'], /--cluster-type must be Sveltos or Capi/],
    [['agent', '--cluster-namespace', 'Not_A_Namespace', '--cluster-name', 'c1'], /--cluster-namespace "Not_A_Namespace" is not a valid namespace name/],
    [['agent', '--cluster-namespace', 'fleet', '--cluster-name', 'c1', '--coalesce-ms', 'soon'], /--coalesce-ms must be a number/],
    [['agent', '--bogus'], /unknown flag --bogus/],
    [['agent', 'manager', '--mode', 'pull'], /--mode must be agentless, push or collect/],
    [['agent', 'rbac', '--cluster-namespace', 'fleet'], /missing --cluster-name/],
  ];
  for (const [args, msg] of cases) {
    const r = await runCli(args);
    assert.equal(r.code, 2, `${args.join(' ')}: ${r.stderr}`);
    assert.match(r.stderr, msg, args.join(' '));
    assert.doesNotMatch(r.stderr, /\n\s+at /, 'no stack trace');
  }
});

test('ripple agent: an unusable kubeconfig exits 3, an unreachable cluster exits 4', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'ripple-agent-cli-'));
  try {
    const bad = join(dir, 'bad.yaml');
    writeFileSync(bad, 'this: is: not: a kubeconfig');
    let r = await runCli(['agent', '--kubeconfig', bad, '--cluster-namespace', 'fleet', '--cluster-name', 'c1']);
    assert.equal(r.code, 3, r.stderr);
    assert.match(r.stderr, /managed cluster kubeconfig .*bad\.yaml/);
    const srv = createServer();
    await new Promise<void>((res) => srv.listen(0, '127.0.0.1', res));
    const port = (srv.address() as { port: number }).port;
    await new Promise<void>((res) => srv.close(() => res()));
    const dead = join(dir, 'dead.yaml');
    writeFileSync(
      dead,
      `apiVersion: v1\nkind: Config\nclusters:\n- name: d\n  cluster:\n    server: http://127.0.0.1:${port}\ncontexts:\n- name: d\n  context:\n    cluster: d\n    user: u\nusers:\n- name: u\n  user:\n    token: t\ncurrent-context: d\n`,
    );
    r = await runCli(['agent', '--kubeconfig', dead, '--cluster-namespace', 'fleet', '--cluster-name', 'c1']);
    assert.equal(r.code, 4, r.stderr);
    assert.match(r.stderr, /cannot reach the managed cluster at http:\/\/127\.0\.0\.1:\d+/);
    r = await runCli(['agent', 'manager', '--kubeconfig', dead]);
    assert.equal(r.code, 4, r.stderr);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test('ripple agent rbac prints a namespace-scoped Role for EventReports only', async () => {
  const r = await runCli(['agent', 'rbac', '--cluster-namespace', 'fleet', '--cluster-name', 'edge-1']);
  assert.equal(r.code, 0, r.stderr);
  const docs = parseAllDocuments(r.stdout).map((d) => d.toJS() as KubeObject & { rules?: { resources: string[]; verbs: string[] }[] });
  assert.deepEqual(docs.map((d) => `${d.kind}/${d.metadata.namespace}/${d.metadata.name}`), ['ServiceAccount/fleet/ripple-agent-edge-1', 'Role/fleet/ripple-agent-edge-1', 'RoleBinding/fleet/ripple-agent-edge-1']);
  assert.deepEqual(docs[1].rules!.map((x) => x.resources).flat(), ['eventreports', 'eventreports/status']);
});

test('ripple agent runs against the embedded API server, pushes the report, and stops on SIGTERM', async () => {
  const api = await startTestApiServer({ clusters: ['mgmt', 'c1'] });
  const mgmt = new KubeClient(await api.kubeConfig('mgmt'));
  const c1 = new KubeClient(await api.kubeConfig('c1'));
  try {
    for (const c of [mgmt, c1]) for (const crd of generateCrds()) await c.create(crd as unknown as KubeObject);
    await mgmt.create({ apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'fleet' } } as KubeObject);
    await c1.create({
      apiVersion: 'lib.projectsveltos.io/v1beta1',
      kind: 'EventSource',
      metadata: { name: 'svc', annotations: { 'projectsveltos.io/deployed-by-sveltos': 'true' } },
      spec: { resourceSelectors: [{ group: '', version: 'v1', kind: 'Service', namespace: 'default' }] },
    } as KubeObject);
    await c1.create({ apiVersion: 'v1', kind: 'Service', metadata: { name: 'web', namespace: 'default' }, spec: { ports: [{ port: 80 }] } } as KubeObject);
    const running = runCli(['agent', '--kubeconfig', api.kubeconfigPath, '--context', 'c1', '--mgmt-kubeconfig', api.kubeconfigPath, '--mgmt-context', 'mgmt', '--cluster-namespace', 'fleet', '--cluster-name', 'c1', '--log-level', 'error']);
    const report = await eventually(
      () => mgmt.getIfExists<KubeObject & { spec: { matchingResources?: { name: string }[] } }>({ apiVersion: 'lib.projectsveltos.io/v1beta1', kind: 'EventReport', namespace: 'fleet', name: 'sveltos--svc--c1' }),
      (o) => o?.spec.matchingResources?.some((m) => m.name === 'web') === true,
      { message: 'the pushed report' },
    );
    assert.equal(report!.metadata.labels!['eventreport.projectsveltos.io/cluster-name'], 'c1');
    assert.ok(await c1.getIfExists({ apiVersion: 'lib.projectsveltos.io/v1beta1', kind: 'EventReport', namespace: 'projectsveltos', name: 'svc' }), 'the managed copy');
    process.emit('SIGTERM');
    const r = await running;
    assert.equal(r.code, 0, r.stderr);
    assert.match(r.stdout, /ripple agent running for cluster Sveltos:fleet\/c1 \(run mode send-reports\)/);
    assert.match(r.stderr, /stopped \(SIGTERM\)/);
  } finally {
    mgmt.close();
    c1.close();
    await api.stop();
  }
});
