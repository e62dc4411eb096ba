// RBAC, ServiceAccount tokens, impersonation and the review APIs of the embedded API server, driven by kubectl 1.32
// as a real client: a ServiceAccount's token is refused what it was not granted (with kube-apiserver's exact message),
// a RoleBinding grants it, `auth can-i`/`can-i --list`/`whoami` tell the truth, `--as` needs the impersonate verb,
// a tenant cannot grant itself more, and a token of one virtual cluster is worthless on another.
import { strict as assert } from 'node:assert';
import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import { startTestApiServer, type TestApiServer } from '../support/apiserver.js';

const KUBECTL = '/usr/bin/kubectl';
let srv: TestApiServer;
let work: string;

interface Run {
  code: number;
  stdout: string;
  stderr: string;
}

function kubectl(args: string[], kubeconfig = srv.kubeconfigPath, input?: string): Promise<Run> {
  return new Promise((resolve) => {
    const child = execFile(KUBECTL, ['--cache-dir', join(work, 'cache'), ...args], { env: { ...process.env, KUBECONFIG: kubeconfig, HOME: work }, timeout: 30_000 }, (err, stdout, stderr) =>
      resolve({ code: err ? (typeof err.code === 'number' ? err.code : 1) : 0, stdout, stderr }),
    );
    if (input !== undefined) child.stdin!.end(input);
  });
}

async function ok(args: string[], kubeconfig?: string, input?: string): Promise<string> {
  const r = await kubectl(args, kubeconfig, input);
  assert.equal(r.code, 0, `kubectl ${args.join(' ')} failed:\n${r.stderr}${r.stdout}`);
  return r.stdout;
}

async function fails(args: string[], kubeconfig?: string, input?: string): Promise<string> {
  const r = await kubectl(args, kubeconfig, input);
  assert.notEqual(r.code, 0, `kubectl ${args.join(' ')} should have failed:\n${r.stdout}`);
  return r.stderr;
}

// A kubeconfig for one cluster of the server with the given token (what a tenant is handed).
function tokenKubeconfig(cluster: string, token: string, file: string): string {
  const admin = srv.server.kubeconfig(cluster);
  const path = join(work, file);
  writeFileSync(path, JSON.stringify({ ...admin, users: [{ name: cluster, user: { token } }] }), { mode: 0o600 });
  return path;
}

let robot: string;

before(async () => {
  work = mkdtempSync(join(tmpdir(), 'ripple-rbac-e2e-'));
  srv = await startTestApiServer({ clusters: ['a', 'b'] });
  await ok(['--context', 'a', 'create', 'namespace', 'team']);
  await ok(['--context', 'a', 'create', 'serviceaccount', 'robot', '-n', 'team']);
  const token = (await ok(['--context', 'a', 'create', 'token', 'robot', '-n', 'team'])).trim();
  assert.match(token, /^[\w-]+\.[\w-]+\.[\w-]+$/, 'a JWT');
  robot = tokenKubeconfig('a', token, 'robot.kubeconfig');
});
after(async () => {
  await srv.stop();
  rmSync(work, { recursive: true, force: true });
});

test('a ServiceAccount token is forbidden what it was not granted, with kube-apiserver\'s message', async () => {
  assert.match(await fails(['get', 'pods', '-n', 'team'], robot), /Error from server \(Forbidden\): pods is forbidden: User "system:serviceaccount:team:robot" cannot list resource "pods" in API group "" in the namespace "team"\n/);
  assert.match(await fails(['get', 'configmap', 'x', '-n', 'default'], robot), /configmaps "x" is forbidden: User "system:serviceaccount:team:robot" cannot get resource "configmaps" in API group "" in the namespace "default"/);
  assert.match(await fails(['get', 'clusterroles'], robot), /clusterroles\.rbac\.authorization\.k8s\.io is forbidden: User "system:serviceaccount:team:robot" cannot list resource "clusterroles" in API group "rbac\.authorization\.k8s\.io" at the cluster scope/);
  // --raw takes the path from the host's root: the cluster's prefix is spelled out.
  assert.match(await fails(['get', '--raw', '/clusters/a/metrics'], robot), /Error from server \(Forbidden\): forbidden: User "system:serviceaccount:team:robot" cannot get path "\/metrics"/);
  assert.match(await fails(['get', 'pods', '-n', 'team', '--watch', '--request-timeout=5s'], robot), /cannot (list|watch) resource "pods"/);
});

test('a RoleBinding grants exactly its role in its namespace; can-i and can-i --list agree', async () => {
  assert.equal((await kubectl(['auth', 'can-i', 'list', 'pods', '-n', 'team'], robot)).stdout, 'no\n');
  await ok(['--context', 'a', 'create', 'rolebinding', 'robot-edit', '--clusterrole', 'edit', '--serviceaccount', 'team:robot', '-n', 'team']);
  assert.match(await ok(['get', 'pods', '-n', 'team'], robot), /^$|No resources/);
  await ok(['create', 'configmap', 'settings', '--from-literal', 'a=b', '-n', 'team'], robot);
  assert.equal((await kubectl(['auth', 'can-i', 'list', 'pods', '-n', 'team'], robot)).stdout, 'yes\n');
  assert.equal((await kubectl(['auth', 'can-i', 'list', 'pods', '-n', 'default'], robot)).stdout, 'no\n');
  assert.equal((await kubectl(['auth', 'can-i', 'create', 'rolebindings', '-n', 'team'], robot)).stdout, 'no\n', 'edit does not manage RBAC');
  assert.match(await fails(['get', 'pods', '-n', 'default'], robot), /cannot list resource "pods" in API group "" in the namespace "default"/);
  const list = await ok(['auth', 'can-i', '--list', '-n', 'team'], robot);
  assert.match(list, /configmaps\s+\[\]\s+\[\]\s+\[create delete deletecollection patch update get list watch\]/);
  assert.match(list, /selfsubjectaccessreviews\.authorization\.k8s\.io\s+\[\]\s+\[\]\s+\[create\]/);
  assert.match(list, /\[\/api\/\*\]\s+\[\]\s+\[get\]/);
  // The admin holds everything.
  assert.match(await ok(['--context', 'a', 'auth', 'can-i', '--list']), /\*\.\*\s+\[\]\s+\[\]\s+\[\*\]/);
});

test('auth whoami names the ServiceAccount and its groups; the admin stays in system:masters', async () => {
  const me = await ok(['auth', 'whoami'], robot);
  assert.match(me, /Username\s+system:serviceaccount:team:robot\n/);
  assert.match(me, /Groups\s+\[system:serviceaccounts system:serviceaccounts:team system:authenticated\]/);
  assert.match(me, /Extra: authentication\.kubernetes\.io\/credential-id\s+\[JTI=[0-9a-f-]+\]/);
  assert.match(await ok(['--context', 'a', 'auth', 'whoami']), /Username\s+ripple:a:admin\nGroups\s+\[system:masters system:authenticated\]/);
});

test('--as needs the impersonate verb; with it the request acts as the impersonated user', async () => {
  // The admin may impersonate anyone; the impersonated user is then subject to RBAC.
  assert.match(await fails(['--context', 'a', 'get', 'secrets', '-n', 'team', '--as', 'alice']), /secrets is forbidden: User "alice" cannot list resource "secrets" in API group "" in the namespace "team"/);
  assert.match(await ok(['--context', 'a', 'auth', 'whoami', '--as', 'alice', '--as-group', 'devs']), /Username\s+alice\nGroups\s+\[devs system:authenticated\]/);
  assert.equal((await kubectl(['--context', 'a', 'auth', 'can-i', 'list', 'pods', '-n', 'team', '--as', 'system:serviceaccount:team:robot'])).stdout, 'yes\n');
  // The robot may not impersonate the admin, nor a group.
  assert.match(await fails(['get', 'pods', '-n', 'team', '--as', 'ripple:a:admin'], robot), /users "ripple:a:admin" is forbidden: User "system:serviceaccount:team:robot" cannot impersonate resource "users" in API group "" at the cluster scope/);
  assert.match(await fails(['get', 'pods', '-n', 'team', '--as', 'x', '--as-group', 'system:masters'], robot), /cannot impersonate resource "users"/);
  // edit lets it impersonate ServiceAccounts of its namespace (kube's aggregate-to-edit), and only as them.
  await ok(['--context', 'a', 'create', 'serviceaccount', 'helper', '-n', 'team']);
  assert.match(await ok(['auth', 'whoami', '--as', 'system:serviceaccount:team:helper'], robot), /Username\s+system:serviceaccount:team:helper\nGroups\s+\[system:serviceaccounts system:serviceaccounts:team system:authenticated\]/);
  assert.match(await fails(['get', 'pods', '-n', 'team', '--as', 'system:serviceaccount:team:helper'], robot), /User "system:serviceaccount:team:helper" cannot list resource "pods"/);
});

test('escalation is refused: a role or binding granting more than the author holds', async () => {
  await ok(['--context', 'a', 'create', 'role', 'rbac-writer', '--verb', 'create,get', '--resource', 'roles,rolebindings', '-n', 'team']);
  await ok(['--context', 'a', 'create', 'rolebinding', 'robot-rbac', '--role', 'rbac-writer', '--serviceaccount', 'team:robot', '-n', 'team']);
  const role = await fails(['create', 'role', 'everything', '--verb', '*', '--resource', 'secrets', '-n', 'team'], robot);
  assert.match(role, /roles\.rbac\.authorization\.k8s\.io "everything" is forbidden: user "system:serviceaccount:team:robot" \(groups=\["system:serviceaccounts" "system:serviceaccounts:team" "system:authenticated"\]\) is attempting to grant RBAC permissions not currently held:\n\{APIGroups:\[""\], Resources:\["secrets"\], Verbs:\["\*"\]\}/);
  const binding = await fails(['create', 'rolebinding', 'self-admin', '--clusterrole', 'admin', '--serviceaccount', 'team:robot', '-n', 'team'], robot);
  assert.match(binding, /rolebindings\.rbac\.authorization\.k8s\.io "self-admin" is forbidden: user "system:serviceaccount:team:robot" .* is attempting to grant RBAC permissions not currently held:\n/);
  assert.match(await fails(['create', 'clusterrolebinding', 'root', '--clusterrole', 'cluster-admin', '--serviceaccount', 'team:robot'], robot), /cannot create resource "clusterrolebindings"/);
  // Within what it holds, it may grant (edit's rights on configmaps to another account).
  await ok(['create', 'role', 'cm-reader', '--verb', 'get', '--resource', 'configmaps', '-n', 'team'], robot);
  await ok(['create', 'rolebinding', 'helper-cm', '--role', 'cm-reader', '--serviceaccount', 'team:helper', '-n', 'team'], robot);
});

test('a token is bound to its cluster, its audience, and its ServiceAccount', async () => {
  // Cluster b has no such account and its own signing key: 401.
  const onB = tokenKubeconfig('b', (await ok(['--context', 'a', 'create', 'token', 'robot', '-n', 'team'])).trim(), 'robot-on-b.kubeconfig');
  await ok(['--context', 'b', 'create', 'namespace', 'team']);
  await ok(['--context', 'b', 'create', 'serviceaccount', 'robot', '-n', 'team']);
  assert.match(await fails(['get', 'pods', '-n', 'team'], onB), /error: You must be logged in to the server \(the server has asked for the client to provide credentials\)/);
  // A token for another audience does not authenticate to the API server, but TokenReview with that audience accepts it.
  const vault = (await ok(['--context', 'a', 'create', 'token', 'robot', '-n', 'team', '--audience', 'vault', '--duration', '15m'])).trim();
  assert.match(await fails(['get', 'pods', '-n', 'team'], tokenKubeconfig('a', vault, 'vault.kubeconfig')), /Unauthorized/);
  const review = JSON.parse(await ok(['--context', 'a', 'create', '-o', 'json', '-f', '-'], undefined, JSON.stringify({ apiVersion: 'authentication.k8s.io/v1', kind: 'TokenReview', spec: { token: vault, audiences: ['vault'] } }))) as { status: { authenticated: boolean; user: { username: string }; audiences: string[] } };
  assert.equal(review.status.authenticated, true);
  assert.equal(review.status.user.username, 'system:serviceaccount:team:robot');
  assert.deepEqual(review.status.audiences, ['vault']);
  assert.match(await fails(['--context', 'a', 'create', 'token', 'robot', '-n', 'team', '--duration', '5m']), /may not specify a duration less than 10 minutes/);
  // Deleting the ServiceAccount revokes its tokens.
  const helperToken = (await ok(['--context', 'a', 'create', 'token', 'helper', '-n', 'team'])).trim();
  const helper = tokenKubeconfig('a', helperToken, 'helper.kubeconfig');
  assert.match(await ok(['auth', 'whoami'], helper), /system:serviceaccount:team:helper/);
  await ok(['--context', 'a', 'delete', 'serviceaccount', 'helper', '-n', 'team']);
  assert.match(await fails(['auth', 'whoami'], helper), /Unauthorized/);
});

test('SubjectAccessReview answers for others; system:masters is always allowed', async () => {
  const sar = (spec: object) => ok(['--context', 'a', 'create', '-o', 'jsonpath={.status.allowed}', '-f', '-'], undefined, JSON.stringify({ apiVersion: 'authorization.k8s.io/v1', kind: 'SubjectAccessReview', spec }));
  assert.equal(await sar({ user: 'system:serviceaccount:team:robot', groups: ['system:serviceaccounts'], resourceAttributes: { namespace: 'team', verb: 'get', resource: 'pods' } }), 'true');
  assert.equal(await sar({ user: 'system:serviceaccount:team:robot', resourceAttributes: { namespace: 'default', verb: 'get', resource: 'pods' } }), 'false');
  assert.equal(await sar({ user: 'anyone', groups: ['system:masters'], nonResourceAttributes: { path: '/metrics', verb: 'get' } }), 'true');
  // The robot itself may not ask about others.
  assert.match(await fails(['create', '-f', '-'], robot, JSON.stringify({ apiVersion: 'authorization.k8s.io/v1', kind: 'SubjectAccessReview', spec: { user: 'x', resourceAttributes: { verb: 'get', resource: 'pods' } } })), /cannot create resource "subjectaccessreviews" in API group "authorization\.k8s\.io" at the cluster scope/);
});
