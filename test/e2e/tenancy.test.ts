// Multi-tenancy under attack, through kubectl as the tenant: `ripple up --tenant eng:env=prod --tenant ops:env=dev`
// onboards two tenant admins, and eng tries everything it must not be able to do — read ops' objects and the
// EventReports, deploy into a cluster or namespace it was not granted, grant itself a role, impersonate the admin,
// forge the tenant label or take over ops' profile, read a Secret through a template, use its token on another
// cluster. Every attempt is refused with the expected message and nothing of the Secret leaks into status or Events;
// what it was granted works.
import { strict as assert } from 'node:assert';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import { parse } from 'yaml';
import { eventually } from '../support/eventually.js';
import { kubectl, startRippleUp, tempDataDir, type RippleUp } from './ripple-up.js';

const SECRET = 's3cr3t-platform-password';
let up: RippleUp;
let data: { dir: string; remove(): void };
let eng: string;
let ops: string;

const admin = (args: string[], stdin?: string) => kubectl(up.kubeconfig, args, stdin);
const as = (kc: string) => (args: string[], stdin?: string) => kubectl(kc, args, stdin);

async function ok(r: Promise<{ code: number | null; stdout: string; stderr: string }>, what: string): Promise<string> {
  const x = await r;
  assert.equal(x.code, 0, `${what} failed:\n${x.stderr}${x.stdout}`);
  return x.stdout;
}

async function refused(r: Promise<{ code: number | null; stdout: string; stderr: string }>, re: RegExp, what: string): Promise<void> {
  const x = await r;
  assert.notEqual(x.code, 0, `${what} should have been refused:\n${x.stdout}`);
  assert.match(x.stderr, re, what);
}

const profile = (name: string, selector: string, policy: string, extra = '', labels = '') => `apiVersion: config.projectsveltos.io/v1beta1
kind: ClusterProfile
metadata:
  name: ${name}
${labels}spec:
  clusterSelector:
    matchLabels:
      env: ${selector}
  policyRefs:
  - kind: ConfigMap
    name: ${policy}
    namespace: eng
${extra}`;

const policy = (name: string, ns: string, template = false, body = '') => `apiVersion: v1
kind: ConfigMap
metadata:
  name: ${name}
  namespace: eng
${template ? '  annotations:\n    projectsveltos.io/template: "ok"\n' : ''}data:
  cm.yaml: |
    apiVersion: v1
    kind: ConfigMap
    metadata:
      name: ${name}-out
      namespace: ${ns}
    data:
      from: eng${body}
`;

type Summary = { status?: { featureSummaries?: { featureID: string; status?: string; failureMessage?: string }[] } };
const feature = async (cluster: string, name: string) => {
  const r = await admin(['--context', cluster === 'edge1' || cluster === 'edge2' ? 'mgmt' : cluster, 'get', 'clustersummary', '-n', cluster, `${name}-sveltos-${cluster}`, '-o', 'json']);
  if (r.code !== 0) return undefined;
  return (JSON.parse(r.stdout) as Summary).status?.featureSummaries?.find((f) => f.featureID === 'Resources');
};

before(async () => {
  data = tempDataDir();
  up = startRippleUp(data.dir, ['--cluster', 'edge1:env=prod', '--cluster', 'edge2:env=dev', '--tenant', 'eng:env=prod', '--tenant', 'ops:env=dev', '--no-ui', '--port', '0']);
  await up.waitFor(/Ripple is running/, { timeoutMs: 90_000 });
  eng = join(data.dir, 'tenant-eng.kubeconfig');
  ops = join(data.dir, 'tenant-ops.kubeconfig');
  // The platform admin's Secret the tenant must never see.
  await ok(admin(['--context', 'mgmt', 'create', 'namespace', 'platform']), 'namespace');
  await ok(admin(['--context', 'mgmt', 'create', 'secret', 'generic', 'db', '-n', 'platform', `--from-literal=password=${SECRET}`]), 'secret');
  // Each tenant's RoleRequest is provisioned in its cluster.
  for (const t of ['eng', 'ops']) {
    await eventually(
      () => admin(['--context', 'mgmt', 'get', 'rolerequest', t, '-o', 'jsonpath={.status.clusterInfo[0].status}']).then((r) => r.stdout),
      (s) => s === 'Provisioned',
      { timeoutMs: 30_000, message: `RoleRequest ${t} provisioned` },
    );
  }
});

after(async () => {
  await up?.stop();
  data?.remove();
});

test('the tenant kubeconfig holds only the tenant: whoami, no admin token', async () => {
  const who = await ok(as(eng)(['auth', 'whoami', '-o', 'jsonpath={.status.userInfo.username}']), 'whoami');
  assert.equal(who, 'system:serviceaccount:eng:eng');
  const text = readFileSync(eng, 'utf8');
  const adminToken = (parse(readFileSync(up.kubeconfig, 'utf8')) as { users: { user: { token: string } }[] }).users.map((u) => u.user.token);
  for (const t of adminToken) assert.ok(!text.includes(t), 'no admin token in the tenant kubeconfig');
});

test('what was granted works: a stamped ClusterProfile deploys into namespace eng of edge1 as the tenant', async () => {
  await ok(as(eng)(['apply', '-f', '-'], policy('app', 'eng')), 'policy');
  await ok(as(eng)(['apply', '-f', '-'], profile('eng-app', 'prod', 'app')), 'profile');
  const labels = await ok(as(eng)(['get', 'clusterprofile', 'eng-app', '-o', 'jsonpath={.metadata.labels}']), 'labels');
  assert.deepEqual(JSON.parse(labels), { 'projectsveltos.io/serviceaccount-name': 'eng', 'projectsveltos.io/serviceaccount-namespace': 'eng' });
  await eventually(() => admin(['--context', 'edge1', 'get', 'configmap', 'app-out', '-n', 'eng', '-o', 'jsonpath={.data.from}']).then((r) => r.stdout), (s) => s === 'eng', { timeoutMs: 30_000, message: 'deployed in edge1' });
});

test('deploying where the RoleRequest does not reach is refused in status, naming the forbidden object', async () => {
  await ok(as(eng)(['apply', '-f', '-'], policy('sys', 'kube-system')), 'policy');
  await ok(as(eng)(['apply', '-f', '-'], profile('eng-sys', 'prod', 'sys')), 'profile');
  const f = await eventually(() => feature('edge1', 'eng-sys'), (x) => x?.status === 'Failed', { timeoutMs: 30_000, message: 'eng-sys failed' });
  assert.match(f!.failureMessage!, /configmaps "sys-out" is forbidden: User "system:serviceaccount:projectsveltos:eng--eng" cannot (get|patch|create) resource "configmaps" in API group "" in the namespace "kube-system"/);
  assert.equal((await admin(['--context', 'edge1', 'get', 'configmap', 'sys-out', '-n', 'kube-system'])).code, 1);
  const evs = await eventually(
    () => admin(['--context', 'mgmt', 'get', 'events', '-n', 'edge1', '--field-selector', 'involvedObject.name=eng-sys-sveltos-edge1', '-o', 'jsonpath={range .items[*]}{.reason}: {.message}{"\\n"}{end}']).then((r) => r.stdout),
    (t) => /DeploymentFailed: .*configmaps "sys-out" is forbidden/.test(t),
    { timeoutMs: 15_000, message: 'a DeploymentFailed Event naming the forbidden object' },
  );
  assert.match(evs, /system:serviceaccount:projectsveltos:eng--eng/);
  // edge2 is ops' cluster: eng was granted nothing there.
  await ok(as(eng)(['apply', '-f', '-'], profile('eng-steal', 'dev', 'app')), 'profile');
  const g = await eventually(() => feature('edge2', 'eng-steal'), (x) => x?.status === 'Failed', { timeoutMs: 30_000, message: 'eng-steal failed' });
  assert.match(g!.failureMessage!, /forbidden: User "system:serviceaccount:projectsveltos:eng--eng" cannot/);
  assert.equal((await admin(['--context', 'edge2', 'get', 'configmap', 'app-out', '-n', 'eng'])).code, 1);
  // The other tenant is unaffected: ops deploys into its own cluster.
  await ok(as(ops)(['apply', '-f', '-'], policy('ops-app', 'ops').replaceAll('namespace: eng', 'namespace: ops').replace('from: eng', 'from: ops')), 'ops policy');
  await ok(as(ops)(['apply', '-f', '-'], profile('ops-app', 'dev', 'ops-app').replace('namespace: eng', 'namespace: ops')), 'ops profile');
  await eventually(() => admin(['--context', 'edge2', 'get', 'configmap', 'ops-app-out', '-n', 'ops', '-o', 'jsonpath={.data.from}']).then((r) => r.stdout), (s) => s === 'ops', { timeoutMs: 30_000, message: 'ops deployed' });
});

test('reading a Secret through a template is refused without leaking it', async () => {
  await ok(as(eng)(['apply', '-f', '-'], policy('leak', 'eng', true, '\n      p: "{{ (getResource \\"DB\\").data.password }}"')), 'policy');
  const extra = `  templateResourceRefs:
  - identifier: DB
    resource:
      apiVersion: v1
      kind: Secret
      name: db
      namespace: platform
`;
  await ok(as(eng)(['apply', '-f', '-'], profile('eng-leak', 'prod', 'leak', extra)), 'profile');
  const f = await eventually(() => feature('edge1', 'eng-leak'), (x) => x?.status === 'Failed', { timeoutMs: 30_000, message: 'eng-leak failed' });
  assert.match(f!.failureMessage!, /templateResourceRefs DB: tenant eng\/eng may not read Secret "db" in the namespace "platform" of the management cluster/);
  const everything = (await admin(['--context', 'mgmt', 'get', 'clustersummaries,clusterprofiles,events', '-A', '-o', 'json'])).stdout;
  const b64 = Buffer.from(SECRET).toString('base64');
  assert.ok(!everything.includes(SECRET) && !everything.includes(b64), 'the Secret leaks nowhere in status or Events');
  assert.equal((await admin(['--context', 'edge1', 'get', 'configmap', 'leak-out', '-n', 'eng'])).code, 1);
  await refused(as(eng)(['get', 'secret', 'db', '-n', 'platform']), /secrets "db" is forbidden: User "system:serviceaccount:eng:eng" cannot get resource "secrets" in API group "" in the namespace "platform"/, 'direct read');
});

test("reading the other tenant's objects and the EventReports is forbidden", async () => {
  await refused(as(eng)(['get', 'configmaps', '-n', 'ops']), /configmaps is forbidden: User "system:serviceaccount:eng:eng" cannot list resource "configmaps" in API group "" in the namespace "ops"/, 'ops configmaps');
  await refused(as(eng)(['get', 'eventreports', '-A']), /eventreports.lib.projectsveltos.io is forbidden: User "system:serviceaccount:eng:eng" cannot list resource "eventreports" in API group "lib.projectsveltos.io" at the cluster scope/, 'eventreports');
  await refused(as(eng)(['get', 'profiles', '-n', 'ops']), /cannot list resource "profiles" in API group "config.projectsveltos.io" in the namespace "ops"/, 'ops profiles');
});

test('forging the tenant label, or taking over the other tenant\'s profile, is refused', async () => {
  const forged = profile('eng-forged', 'dev', 'app', '', '  labels:\n    projectsveltos.io/serviceaccount-name: ops\n    projectsveltos.io/serviceaccount-namespace: ops\n');
  await refused(as(eng)(['apply', '-f', '-'], forged), /label projectsveltos.io\/serviceaccount-name is set from the requesting ServiceAccount eng\/eng: it may be "eng" or absent, not "ops"/, 'forged serviceaccount label');
  const admin2 = profile('eng-admin', 'dev', 'app', '', '  labels:\n    projectsveltos.io/admin-name: kubernetes-admin\n');
  await refused(as(eng)(['apply', '-f', '-'], admin2), /label projectsveltos.io\/admin-name is set from the requesting ServiceAccount eng\/eng/, 'forged admin-name');
  await refused(as(eng)(['label', 'clusterprofile', 'ops-app', 'stolen=yes']), /this ClusterProfile belongs to tenant ops\/ops; ServiceAccount eng\/eng may change only its own/, 'take over');
});

test('granting itself a role, or impersonating the admin, is forbidden', async () => {
  await refused(as(eng)(['create', 'clusterrolebinding', 'self', '--clusterrole=cluster-admin', '--serviceaccount=eng:eng']), /cannot create resource "clusterrolebindings" in API group "rbac.authorization.k8s.io" at the cluster scope/, 'clusterrolebinding');
  const rr = 'apiVersion: lib.projectsveltos.io/v1beta1\nkind: RoleRequest\nmetadata:\n  name: more\nspec:\n  clusterSelector:\n    matchLabels:\n      env: dev\n  serviceAccountName: eng\n  serviceAccountNamespace: eng\n';
  await refused(as(eng)(['apply', '-f', '-'], rr), /cannot (get|patch|create) resource "rolerequests" in API group "lib.projectsveltos.io" at the cluster scope/, 'rolerequest');
  await refused(as(eng)(['edit', 'configmap', 'tenant-eng-roles', '-n', 'projectsveltos']), /cannot get resource "configmaps" in API group "" in the namespace "projectsveltos"/, 'edit its roles');
  await refused(as(eng)(['--as', 'kubernetes-admin', 'get', 'namespaces']), /users "kubernetes-admin" is forbidden: User "system:serviceaccount:eng:eng" cannot impersonate resource "users" in API group "" at the cluster scope/, 'impersonation');
});

test("a token of the management cluster is worthless on a managed cluster", async () => {
  const cfg = parse(readFileSync(eng, 'utf8')) as { clusters: { cluster: { server: string } }[] };
  cfg.clusters[0]!.cluster.server = cfg.clusters[0]!.cluster.server.replace(/\/clusters\/mgmt$/, '/clusters/edge1');
  const other = join(data.dir, 'eng-on-edge1.kubeconfig');
  writeFileSync(other, JSON.stringify(cfg), { mode: 0o600 });
  await refused(as(other)(['get', 'namespaces']), /Unauthorized|must be logged in/, 'cross-cluster token');
});

test("a tenant's EventSource only sees what the tenant may list in the cluster", async () => {
  await ok(admin(['--context', 'edge1', 'create', 'configmap', 'visible', '-n', 'eng']), 'visible');
  await ok(admin(['--context', 'edge1', 'label', 'configmap', 'visible', '-n', 'eng', 'watch=me']), 'label');
  await ok(admin(['--context', 'edge1', 'create', 'configmap', 'hidden', '-n', 'kube-system']), 'hidden');
  await ok(admin(['--context', 'edge1', 'label', 'configmap', 'hidden', '-n', 'kube-system', 'watch=me']), 'label');
  const yaml = `apiVersion: lib.projectsveltos.io/v1beta1
kind: EventSource
metadata:
  name: eng-cms
spec:
  resourceSelectors:
  - group: ""
    version: v1
    kind: ConfigMap
    labelFilters:
    - key: watch
      operation: Equal
      value: me
---
apiVersion: lib.projectsveltos.io/v1beta1
kind: EventTrigger
metadata:
  name: eng-watch
spec:
  sourceClusterSelector:
    matchLabels:
      env: prod
  eventSourceName: eng-cms
`;
  await ok(as(eng)(['apply', '-f', '-'], yaml), 'event source');
  const seen = await eventually(
    () => admin(['--context', 'mgmt', 'get', 'eventreport', '-n', 'edge1', 'sveltos--eng-cms--edge1', '-o', 'jsonpath={.spec.matchingResources}']).then((r) => r.stdout),
    (s) => s.includes('visible'),
    { timeoutMs: 30_000, message: 'EventReport of eng-cms' },
  );
  assert.ok(!seen.includes('hidden'), `kube-system is not the tenant's: ${seen}`);
});

test("a tenant's EventTrigger cannot instantiate a Secret the tenant may not read", async () => {
  const yaml = `apiVersion: lib.projectsveltos.io/v1beta1
kind: EventTrigger
metadata:
  name: eng-steal-secret
spec:
  sourceClusterSelector:
    matchLabels:
      env: prod
  eventSourceName: eng-cms
  oneForEvent: true
  policyRefs:
  - kind: Secret
    name: db
    namespace: platform
`;
  await ok(as(eng)(['apply', '-f', '-'], yaml), 'trigger');
  const status = await eventually(
    () => admin(['--context', 'mgmt', 'get', 'eventtrigger', 'eng-steal-secret', '-o', 'json']).then((r) => r.stdout),
    (s) => s.includes('may not read Secret'),
    { timeoutMs: 30_000, message: 'refusal in the EventTrigger status' },
  );
  assert.match(status, /tenant eng\/eng may not read Secret \\"db\\" in the namespace \\"platform\\" of the management cluster/);
  const b64 = Buffer.from(SECRET).toString('base64');
  const all = JSON.parse((await admin(['--context', 'mgmt', 'get', 'secrets,configmaps,clusterprofiles,events', '-A', '-o', 'json'])).stdout) as { items: { metadata: { namespace?: string; name: string } }[] };
  const generated = JSON.stringify(all.items.filter((o) => !(o.metadata.namespace === 'platform' && o.metadata.name === 'db')));
  assert.ok(!generated.includes(SECRET) && !generated.includes(b64), 'the Secret was not copied anywhere');
});

test("a tenant's Profile reaches only clusters of its own namespace", async () => {
  const yaml = `apiVersion: config.projectsveltos.io/v1beta1
kind: Profile
metadata:
  name: eng-everywhere
  namespace: eng
spec:
  clusterSelector:
    matchLabels:
      env: prod
  policyRefs:
  - kind: ConfigMap
    name: app
    namespace: eng
`;
  await ok(as(eng)(['apply', '-f', '-'], yaml), 'profile');
  // edge1 (env=prod) lives in namespace edge1, not eng: the Profile selects nothing and no ClusterSummary appears.
  await eventually(() => as(eng)(['get', 'profile', 'eng-everywhere', '-n', 'eng', '-o', 'json']).then((r) => r.stdout), (s) => s.includes('"status"'), { timeoutMs: 30_000, message: 'profile status' });
  const p = JSON.parse(await ok(as(eng)(['get', 'profile', 'eng-everywhere', '-n', 'eng', '-o', 'json']), 'get')) as { status?: { matchingClusters?: unknown[] } };
  assert.deepEqual(p.status?.matchingClusters ?? [], []);
  const cs = await ok(admin(['--context', 'mgmt', 'get', 'clustersummaries', '-A', '-o', 'name']), 'summaries');
  assert.ok(!cs.includes('eng-everywhere'), cs);
});
