// End to end, issue 20: hostile input through kubectl against `ripple up` (small limits configured) never stops the
// fleet. Each attack — a template that would allocate gigabytes, a template that spins, a catastrophic regex in a CRD
// pattern, a catastrophic Lua pattern, a body nested too deep, unknown fields, one cluster filling its quota — fails
// alone with its cause in a status or an answer, while another cluster keeps answering (its GET latency during each
// attack is printed, not asserted), the process stays up, and everything acknowledged is still there after a restart.
import { strict as assert } from 'node:assert';
import { execFile } from 'node:child_process';
import { statSync, readFileSync, writeFileSync } from 'node:fs';
import { request } from 'node:https';
import { connect } from 'node:net';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import { parse } from 'yaml';
import { kubectlFor, startRippleUp, tempDataDir, until, type K8sObject, type Kubectl, type RippleUp } from './ripple-up.js';

let data: ReturnType<typeof tempDataDir>;
let up: RippleUp;
let k: Kubectl;
before(() => {
  data = tempDataDir();
});
after(async () => {
  await up?.stop('SIGKILL');
  data.remove();
});

const ARGS = ['--cluster', 'edge:env=prod', '--cluster', 'quiet:env=dev', '--limit', 'bytes=16777216', '--limit', 'nesting=100', '--limit', 'template-steps=100000', '--limit', 'lua-instructions=1000000'];

interface Target {
  server: URL;
  token: string;
  ca: string;
}

function target(kubeconfig: string, name: string): Target {
  const kc = parse(readFileSync(kubeconfig, 'utf8')) as {
    clusters: { name: string; cluster: { server: string; 'certificate-authority-data': string } }[];
    users: { name: string; user: { token: string } }[];
  };
  const c = kc.clusters.find((x) => x.name === name)!;
  return { server: new URL(c.cluster.server), token: kc.users.find((u) => u.name === name)!.user.token, ca: Buffer.from(c.cluster['certificate-authority-data'], 'base64').toString() };
}

function get(t: Target, path: string): Promise<number> {
  return new Promise((resolve, reject) => {
    const req = request(
      { host: t.server.hostname, port: t.server.port, path: t.server.pathname + path, ca: t.ca, headers: { authorization: `Bearer ${t.token}` } },
      (res) => {
        res.resume();
        res.on('end', () => resolve(res.statusCode ?? 0));
      },
    );
    req.on('error', reject);
    req.end();
  });
}

/** probe GETs a namespace of the quiet cluster back to back while attack runs; it returns the latencies (ms) and
 * how many answers were 200. */
async function probe<T>(t: Target, attack: () => Promise<T>): Promise<{ result: T; latencies: number[]; ok: number }> {
  const latencies: number[] = [];
  let ok = 0;
  let done = false;
  const loop = (async () => {
    while (!done) {
      const start = performance.now();
      const code = await get(t, '/api/v1/namespaces/default');
      latencies.push(performance.now() - start);
      if (code === 200) ok++;
      await new Promise((r) => setTimeout(r, 5));
    }
  })();
  try {
    const result = await attack();
    return { result, latencies, ok };
  } finally {
    done = true;
    await loop;
  }
}

const RIPPLE = join(import.meta.dirname, '..', '..', 'bin', 'ripple.js');
function ripple(args: string[]): Promise<string> {
  return new Promise((resolve, reject) => {
    execFile(process.execPath, [RIPPLE, ...args], (err, stdout, stderr) => (err ? reject(new Error(`ripple ${args.join(' ')}: ${stderr}`)) : resolve(stdout)));
  });
}

const measured: string[] = [];
function report(what: string, latencies: number[]): void {
  const s = [...latencies].sort((a, b) => a - b);
  const pct = (p: number) => s[Math.min(s.length - 1, Math.floor((p / 100) * s.length))]?.toFixed(1) ?? '-';
  measured.push(`${what}: ${s.length} GETs of another cluster, p50 ${pct(50)} ms, p99 ${pct(99)} ms, max ${pct(100)} ms`);
}

const triggerStatus = async (name: string) => (await k.json<K8sObject>(['--context', 'mgmt', 'get', 'eventtrigger', name])).status as { clusterInfo?: { status?: string; failureMessage?: string }[] } | undefined;

function eventSource(name: string, evaluate?: string): string {
  return `apiVersion: lib.projectsveltos.io/v1beta1
kind: EventSource
metadata:
  name: ${name}
spec:
  collectResources: true
  resourceSelectors:
  - group: ""
    version: v1
    kind: Service
    namespace: hostile
${evaluate ? `    evaluate: |\n${evaluate.split('\n').map((l) => `      ${l}`).join('\n')}\n` : ''}`;
}

function trigger(name: string, es: string, template: string): string {
  return `apiVersion: v1
kind: ConfigMap
metadata:
  name: ${name}-tpl
  namespace: default
  annotations:
    projectsveltos.io/instantiate: ok
data:
  out.yaml: ${JSON.stringify(template)}
---
apiVersion: lib.projectsveltos.io/v1beta1
kind: EventTrigger
metadata:
  name: ${name}
spec:
  sourceClusterSelector:
    matchLabels:
      env: prod
  eventSourceName: ${es}
  oneForEvent: true
  policyRefs:
  - name: ${name}-tpl
    namespace: default
    kind: ConfigMap
`;
}

test('hostile input fails alone: the process stays up, other clusters answer, causes land in status', { timeout: 240_000 }, async (t) => {
  up = startRippleUp(data.dir, ARGS);
  await up.waitFor(/Ripple is running/);
  k = kubectlFor(up.kubeconfig, data.dir);
  const quiet = target(up.kubeconfig, 'quiet');

  // Data at rest: the directory and what holds tokens are private; the port refuses plain HTTP.
  assert.equal((statSync(data.dir).mode & 0o777).toString(8), '700');
  for (const f of ['state.db', 'state.db-wal', 'ripple.log', 'kubeconfig', 'tls.key']) assert.equal((statSync(join(data.dir, f)).mode & 0o777).toString(8), '600', f);
  const plain = await new Promise<string>((resolve, reject) => {
    const s = connect(Number(quiet.server.port), '127.0.0.1', () => s.end(`GET /clusters/quiet/api HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${quiet.token}\r\n\r\n`));
    let out = '';
    s.on('data', (d) => (out += d));
    s.on('end', () => resolve(out));
    s.on('error', reject);
  });
  assert.equal(plain, 'HTTP/1.0 400 Bad Request\r\n\r\nClient sent an HTTP request to an HTTPS server.\n');
  assert.doesNotMatch(readFileSync(join(data.dir, 'ripple.log'), 'utf8'), new RegExp(quiet.token), 'no token in the log');

  // The source object every trigger below reacts to.
  await k.ok(['--context', 'edge', 'create', 'namespace', 'hostile']);
  await k.ok(['--context', 'edge', '-n', 'hostile', 'create', 'service', 'clusterip', 'web', '--tcp=80:80']);

  // 1. Templates: one would allocate a 100,000,000-element list, one spins; both fail alone, in status.
  const templates = await probe(quiet, async () => {
    await k.applyYaml('mgmt', eventSource('svc'));
    await k.applyYaml('mgmt', trigger('alloc', 'svc', '{{ range until 100000000 }}x{{ end }}'));
    await k.applyYaml('mgmt', trigger('spin', 'svc', '{{ range $i := until 1000 }}{{ range 1000 }}{{ end }}{{ end }}'));
    await until('alloc fails with the list budget', () => triggerStatus('alloc'), (s) => /until: a list of 100000000 elements is more than the render budget allows/.test(s?.clusterInfo?.[0]?.failureMessage ?? ''), 60_000);
    await until('spin fails with the step budget', () => triggerStatus('spin'), (s) => /render budget exceeded: more than 100000 steps/.test(s?.clusterInfo?.[0]?.failureMessage ?? ''), 60_000);
  });
  assert.ok(templates.ok > 0, 'the quiet cluster answered while templates failed');
  report('template budgets', templates.latencies);
  const wide = await ripple(['get', 'eventtriggers', '--kubeconfig', up.kubeconfig, '--context', 'mgmt', '-o', 'wide']);
  // The MESSAGE column (truncated to the terminal's taste) starts with the cluster and where the template failed.
  assert.match(wide, /alloc\s.*\s1\s.*edge\/edge: policyRefs\[0\]: ConfigMap default\/alloc-tpl data "out\.yaml": template: alloc/, 'ripple get shows the cause in MESSAGE');

  // 2. Lua: a catastrophic pattern stops at the instruction budget; the trigger's status names the failure.
  const lua = await probe(quiet, async () => {
    await k.applyYaml('mgmt', eventSource('lua-bomb', 'function evaluate()\n  local hs = {}\n  hs.matching = string.find(("a"):rep(40), ".-.-.-.-.-.-b") ~= nil\n  return hs\nend'));
    await k.applyYaml('mgmt', trigger('lua', 'lua-bomb', 'name: {{ .Resource.metadata.name }}'));
    await until('the Lua failure in status', () => triggerStatus('lua'), (s) => /fails to evaluate in this cluster: .*instruction budget exceeded/.test(s?.clusterInfo?.[0]?.failureMessage ?? ''), 60_000);
  });
  assert.ok(lua.ok > 0);
  report('Lua pattern budget', lua.latencies);

  // 3. A catastrophic CRD pattern is matched by RE2: the write is refused at once.
  const crdFile = join(data.dir, 'evil-crd.yaml');
  writeFileSync(
    crdFile,
    `apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
metadata:
  name: evils.hostile.example.com
spec:
  group: hostile.example.com
  names: {plural: evils, singular: evil, kind: Evil, listKind: EvilList}
  scope: Namespaced
  versions:
  - name: v1
    served: true
    storage: true
    schema:
      openAPIV3Schema:
        type: object
        properties:
          spec:
            type: object
            properties:
              v: {type: string, pattern: '^(a+)+$'}
`,
  );
  await k.ok(['--context', 'edge', 'apply', '-f', crdFile]);
  await until('the Evil resource is served', () => k.run(['--context', 'edge', 'get', 'evils', '-A']), (r) => r.code === 0);
  const evilFile = join(data.dir, 'evil.yaml');
  writeFileSync(evilFile, `apiVersion: hostile.example.com/v1\nkind: Evil\nmetadata: {name: e, namespace: default}\nspec:\n  v: "${'a'.repeat(40_000)}!"\n`);
  const regex = await probe(quiet, () => k.run(['--context', 'edge', 'create', '-f', evilFile]));
  assert.equal(regex.result.code, 1);
  assert.match(regex.result.stderr, /spec\.v in body should match '\^\(a\+\)\+\$'/);
  report('CRD pattern (RE2)', regex.latencies);

  // 4. Bodies: nested deeper than the limit → 400; unknown fields of a built-in kind are dropped with a warning.
  const deepFile = join(data.dir, 'deep.json');
  writeFileSync(deepFile, `{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"deep"},"x":${'{"a":'.repeat(10_000)}1${'}'.repeat(10_000)}}`);
  const deep = await probe(quiet, () => k.run(['--context', 'edge', 'create', '--raw', '/clusters/edge/api/v1/namespaces/default/configmaps', '-f', deepFile]));
  assert.notEqual(deep.result.code, 0);
  assert.match(deep.result.stderr + deep.result.stdout, /exceeded max depth/);
  report('nested body', deep.latencies);
  const unknownFile = join(data.dir, 'unknown.yaml');
  writeFileSync(unknownFile, 'apiVersion: v1\nkind: ConfigMap\nmetadata: {name: unknown, namespace: default}\nfoo: 1\ndata: {a: b}\n');
  const warned = await k.run(['--context', 'edge', 'create', '--validate=warn', '-f', unknownFile]);
  assert.equal(warned.code, 0, warned.stderr);
  assert.match(warned.stderr, /unknown field "foo"/);
  assert.equal((await k.json<K8sObject>(['--context', 'edge', '-n', 'default', 'get', 'configmap', 'unknown'])).foo, undefined);
  const strict = await k.run(['--context', 'edge', 'create', '--validate=strict', '-f', unknownFile.replace('unknown.yaml', 'unknown.yaml')]);
  assert.notEqual(strict.code, 0);

  // 5. One cluster fills its byte quota: 403 for it, the other cluster is unaffected, nothing acknowledged is lost.
  const big = 'x'.repeat(900 * 1024);
  const acked: string[] = [];
  const quota = await probe(quiet, async () => {
    for (let i = 0; i < 40; i++) {
      const file = join(data.dir, `big-${i}.yaml`);
      writeFileSync(file, `apiVersion: v1\nkind: ConfigMap\nmetadata: {name: big-${i}, namespace: default}\ndata:\n  v: ${big}\n`);
      const r = await k.run(['--context', 'edge', 'create', '-f', file]);
      if (r.code === 0) acked.push(`big-${i}`);
      else return r;
    }
    return undefined;
  });
  assert.ok(quota.result, 'the byte quota was reached');
  assert.match(quota.result.stderr, /is forbidden: exceeded quota: cluster-bytes/);
  assert.ok(acked.length > 5);
  await k.ok(['--context', 'quiet', 'create', 'configmap', 'still-fine']);
  report('quota writes', quota.latencies);

  // The process stayed up through all of it; a restart with every poisoned object in the store serves at once and
  // keeps everything acknowledged.
  assert.deepEqual(await up.stop('SIGTERM'), { code: 0, signal: null });
  up = startRippleUp(data.dir, ARGS);
  await up.waitFor(/Ripple is running/);
  const names = (await k.items('edge', ['-n', 'default', 'configmaps'])).map((c) => c.metadata.name);
  for (const n of acked) assert.ok(names.includes(n), `${n} survived`);
  assert.equal(await get(target(up.kubeconfig, 'quiet'), '/api/v1/namespaces/default'), 200);
  await until('alloc still reports its cause after the restart', () => triggerStatus('alloc'), (s) => /until: a list of 100000000 elements/.test(s?.clusterInfo?.[0]?.failureMessage ?? ''), 60_000);
  assert.deepEqual(await up.stop('SIGTERM'), { code: 0, signal: null });
  for (const m of measured) t.diagnostic(m);
});
