// Conformance of the built-in API against kube-apiserver 1.32's documented behaviour, through kubectl 1.32 and a
// `ripple apiserver` child process:
// - every manifest under testdata/apiserver/builtins/cases is sent with `kubectl apply --dry-run=server`; its header
//   says whether kube accepts it (`# verdict: accept`, with `# field: PATH = JSON` defaults kube fills in) or rejects
//   it (`# verdict: reject` with kube's exact `# message:`, or `# contains:` where kube prints a Go struct we cannot
//   reproduce byte for byte); a case of two documents is an update of the first by the second;
// - `kubectl api-resources -o wide` lists exactly kube 1.32's built-ins (api-resources.golden);
// - the Table columns `kubectl get` receives are kube's (columns.golden).
import { strict as assert } from 'node:assert';
import { readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import { parse as parseYaml } from 'yaml';
import { kubectlFor, startRipple, tempDataDir, type Kubectl, type RippleUp } from './ripple-up.js';

const DATA = join(import.meta.dirname, '..', '..', 'testdata', 'apiserver', 'builtins');
const CASES = join(DATA, 'cases');
const NS = 'conformance';

let data: ReturnType<typeof tempDataDir>;
let server: RippleUp;
let k: Kubectl;

before(async () => {
  data = tempDataDir();
  server = startRipple(data.dir, ['apiserver', '--data-dir', data.dir, '--cluster', 'kube', '--plain-http']);
  await server.waitFor(/kubectl --context kube get namespaces/);
  k = kubectlFor(server.kubeconfig, data.dir);
  await k.ok(['create', 'namespace', NS]);
});
after(async () => {
  await server?.stop('SIGKILL');
  data?.remove();
});

interface Case {
  file: string;
  verdict: 'accept' | 'reject';
  message?: string;
  contains?: string;
  fields: { path: string; want: unknown }[];
}

function loadCase(file: string): Case {
  const c: Case = { file, verdict: 'accept', fields: [] };
  for (const line of readFileSync(join(CASES, file), 'utf8').split('\n')) {
    const m = /^# (verdict|message|contains|field): (.*)$/.exec(line);
    if (!m) continue;
    if (m[1] === 'verdict') c.verdict = m[2] as Case['verdict'];
    else if (m[1] === 'message') c.message = m[2];
    else if (m[1] === 'contains') c.contains = m[2];
    else {
      const i = m[2].indexOf(' = ');
      c.fields.push({ path: m[2].slice(0, i), want: JSON.parse(m[2].slice(i + 3)) });
    }
  }
  return c;
}

// at reads a path like .spec.template.metadata.labels["job-name"] or .webhooks[0].rules[0].scope.
function at(obj: unknown, path: string): unknown {
  let cur = obj;
  for (const [, name, index, key] of path.matchAll(/\.([A-Za-z0-9_]+)|\[(\d+)\]|\["([^"]+)"\]/g)) {
    if (cur === null || typeof cur !== 'object') return undefined;
    const rec = cur as Record<string, unknown>;
    cur = name !== undefined ? rec[name] : index !== undefined ? (cur as unknown[])[Number(index)] : rec[key];
  }
  return cur;
}

// One case: undefined when kube's verdict (and message, and defaults) are reproduced, else what differs. A case of
// two documents is an update: the first is created for real, the second is judged.
async function check(c: Case): Promise<string | undefined> {
  let file = join(CASES, c.file);
  const docs = readFileSync(file, 'utf8').split(/^---$/m);
  if (docs.length === 2) {
    const created = await k.run(['apply', '-n', NS, '-f', '-'], docs[0]);
    if (created.code !== 0) return `setup failed: ${created.stderr.trim()}`;
    file = join(data.dir, c.file);
    writeFileSync(file, docs[1]);
  }
  const r = await k.run(['apply', '--dry-run=server', '-n', NS, '-o', 'json', '-f', file]);
  if (c.verdict === 'reject') {
    if (r.code === 0) return 'accepted, kube rejects it';
    if (c.message && !r.stderr.includes(c.message)) return `message differs:\n    want ${c.message}\n    got  ${r.stderr.trim()}`;
    if (c.contains && !r.stderr.includes(c.contains)) return `message lacks ${JSON.stringify(c.contains)}: ${r.stderr.trim()}`;
    return undefined;
  }
  if (r.code !== 0) return `rejected, kube accepts it: ${r.stderr.trim()}`;
  const obj = JSON.parse(r.stdout) as unknown;
  for (const f of c.fields) {
    const got = at(obj, f.path);
    try {
      assert.deepEqual(got, f.want);
    } catch {
      return `${f.path}: want ${JSON.stringify(f.want)}, got ${JSON.stringify(got)}`;
    }
  }
  return undefined;
}

test('server-side dry run of the built-in corpus: kube 1.32 verdicts, messages and defaults', { timeout: 240_000 }, async () => {
  const cases = readdirSync(CASES)
    .filter((f) => f.endsWith('.yaml'))
    .sort()
    .map(loadCase);
  assert.ok(cases.length >= 60, `corpus has ${cases.length} cases`);
  const failures: string[] = [];
  // A few kubectl processes at a time: each spends most of its life starting up.
  for (let i = 0; i < cases.length; i += 4) {
    const batch = cases.slice(i, i + 4);
    const results = await Promise.all(batch.map(check));
    results.forEach((why, j) => {
      if (why) failures.push(`${batch[j].file}: ${why}`);
    });
  }
  const accepted = cases.filter((c) => c.verdict === 'accept').length;
  process.stdout.write(`# conformance: ${cases.length - failures.length}/${cases.length} cases as kube (${accepted} valid, ${cases.length - accepted} invalid)\n`);
  assert.deepEqual(failures, []);
});

interface ResourceRow {
  name: string;
  shortNames: string;
  apiVersion: string;
  namespaced: string;
  kind: string;
  verbs: string;
  categories: string;
}

// kubectl prints a table padded to the widest cell; the header's column starts cut every row.
function parseTable(text: string): Record<string, string>[] {
  const [header, ...lines] = text.split('\n').filter((l) => l.trim() !== '');
  const starts = [...header.matchAll(/\S+/g)].map((m) => ({ name: m[0], at: m.index! }));
  return lines.map((line) => Object.fromEntries(starts.map((s, i) => [s.name, line.slice(s.at, starts[i + 1]?.at ?? line.length).trim()])));
}

test('kubectl api-resources lists exactly the built-ins of kube-apiserver 1.32', { timeout: 60_000 }, async () => {
  const golden = readFileSync(join(DATA, 'api-resources.golden'), 'utf8')
    .split('\n')
    .filter((l) => l.trim() !== '' && !l.startsWith('#'))
    .map((l) => {
      const [name, shortNames, apiVersion, namespaced, kind, verbs, categories] = l.split('|').map((x) => x.trim());
      return { name, shortNames, apiVersion, namespaced, kind, verbs, categories } satisfies ResourceRow;
    });
  const rows = parseTable(await k.ok(['api-resources', '-o', 'wide'])).map(
    (r): ResourceRow => ({ name: r.NAME, shortNames: r.SHORTNAMES, apiVersion: r.APIVERSION, namespaced: r.NAMESPACED, kind: r.KIND, verbs: r.VERBS, categories: r.CATEGORIES }),
  );
  assert.equal(golden.length, 58);
  assert.deepEqual(rows, golden);
});

test('kubectl get receives the Table columns of kube-apiserver 1.32 for every new kind', { timeout: 60_000 }, async () => {
  const kc = parseYaml(readFileSync(server.kubeconfig, 'utf8')) as { clusters: { cluster: { server: string } }[]; users: { user: { token: string } }[] };
  // The listener speaks plain HTTP on the same port; the token is the cluster's.
  const base = kc.clusters[0].cluster.server.replace(/^https:/, 'http:');
  const token = kc.users[0].user.token;
  const discovery = parseTable(await k.ok(['api-resources', '-o', 'wide']));
  const failures: string[] = [];
  const lines = readFileSync(join(DATA, 'columns.golden'), 'utf8')
    .split('\n')
    .filter((l) => l.trim() !== '' && !l.startsWith('#'));
  for (const line of lines) {
    const [resource, spec] = line.split(': ');
    const [plural, ...groupParts] = resource.split('.');
    const group = groupParts.join('.');
    const row = discovery.find((r) => r.NAME === plural && (group === '' ? !r.APIVERSION.includes('/') : r.APIVERSION.startsWith(`${group}/`)));
    assert.ok(row, `${resource} is not served`);
    const path = `${group === '' ? '/api' : '/apis'}/${row.APIVERSION}${row.NAMESPACED === 'true' ? `/namespaces/${NS}` : ''}/${plural}`;
    const res = await fetch(`${base}${path}`, { headers: { Authorization: `Bearer ${token}`, Accept: 'application/json;as=Table;v=v1;g=meta.k8s.io' } });
    assert.equal(res.status, 200, `${resource}: ${await res.clone().text()}`);
    const table = (await res.json()) as { columnDefinitions: { name: string; priority: number }[] };
    const [main, wide = ''] = spec.split(' | ');
    const want = { main: main.split(', '), wide: wide ? wide.split(', ') : [] };
    const got = {
      main: table.columnDefinitions.filter((c) => c.priority === 0).map((c) => c.name),
      wide: table.columnDefinitions.filter((c) => c.priority > 0).map((c) => c.name),
    };
    if (JSON.stringify(got) !== JSON.stringify(want)) failures.push(`${resource}: want ${JSON.stringify(want)}, got ${JSON.stringify(got)}`);
  }
  assert.deepEqual(failures, []);
});
