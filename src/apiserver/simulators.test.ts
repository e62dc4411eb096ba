// The simulators (workloads, volumes, node, rootca) driven by kubectl 1.32 against the embedded server: what a user
// of a real cluster waits for (rollout status, wait --for=condition) happens, and what controllers clean up goes.
import { strict as assert } from 'node:assert';
import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import { eventually } from '../../test/support/eventually.js';
import { SIMULATORS, startApiServer, type ApiServer } from './index.js';

let server: ApiServer;
let dir: string;
let n = 0;

function kubectl(args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    execFile('/usr/bin/kubectl', ['--cache-dir', join(dir, 'cache'), ...args], { env: { ...process.env, KUBECONFIG: server.kubeconfigPath, HOME: dir }, timeout: 60_000 }, (err, stdout, stderr) =>
      resolve({ code: err ? (typeof err.code === 'number' ? err.code : 1) : 0, stdout, stderr }),
    );
  });
}

async function ok(...args: string[]): Promise<string> {
  const r = await kubectl(args);
  assert.equal(r.code, 0, `kubectl ${args.join(' ')}: ${r.stderr}${r.stdout}`);
  return r.stdout;
}

async function apply(yaml: string): Promise<void> {
  const file = join(dir, `m${++n}.yaml`);
  writeFileSync(file, yaml);
  await ok('apply', '-f', file);
}

async function json<T = Record<string, unknown>>(...args: string[]): Promise<T> {
  return JSON.parse(await ok(...args, '-o', 'json')) as T;
}

// kubectl is the reader: poll it at kubectl's own pace.
const soon = <T>(read: () => Promise<T>, ok: (v: T) => boolean) => eventually(read, ok, { timeoutMs: 30_000, intervalMs: 250 });

const names = async (...args: string[]) => (await json<{ items: { metadata: { name: string } }[] }>('get', ...args)).items.map((i) => i.metadata.name).sort();

before(async () => {
  dir = mkdtempSync(join(tmpdir(), 'ripple-sim-'));
  server = await startApiServer({ dataDir: dir, port: 0, clusters: ['sim'], simulators: [...SIMULATORS], plainHttp: true });
});
after(async () => {
  await server.stop();
  rmSync(dir, { recursive: true, force: true });
});

test('a pod whose nodeSelector the node does not satisfy stays Pending, Unschedulable', { timeout: 60_000 }, async () => {
  await ok('create', 'namespace', 'sched');
  await ok('run', 'picky', '--image=nginx:1.27', '-n', 'sched', '--overrides={"spec":{"nodeSelector":{"disktype":"ssd"}}}');
  await ok('run', 'easy', '--image=nginx:1.27', '-n', 'sched', '--overrides={"spec":{"nodeSelector":{"kubernetes.io/os":"linux"}}}');
  await ok('wait', '--for=condition=Ready', 'pod/easy', '-n', 'sched', '--timeout=30s');
  const picky = await soon(
    () => json<{ status: { phase: string; conditions?: { reason?: string }[] } }>('get', 'pod', 'picky', '-n', 'sched'),
    (p) => p.status.conditions?.some((c) => c.reason === 'Unschedulable') === true,
  );
  assert.equal(picky.status.phase, 'Pending');
});

test('one Ready node, and kube-root-ca.crt with the server CA in every namespace (new ones too)', { timeout: 60_000 }, async () => {
  assert.match(await ok('get', 'nodes'), /^NAME\s+STATUS\s+ROLES\s+AGE\s+VERSION\nsim-control-plane\s+Ready\s+control-plane\s+\S+\s+v1\.32\.0\n$/);
  await ok('create', 'namespace', 'fresh');
  const cm = await soon(() => kubectl(['get', 'configmap', 'kube-root-ca.crt', '-n', 'fresh', '-o', 'jsonpath={.data.ca\\.crt}']), (r) => r.code === 0);
  assert.equal(cm.stdout, server.caCertificate);
});

test('Deployment, StatefulSet and DaemonSet roll out with running pods; scaling and PVCs follow', { timeout: 120_000 }, async () => {
  await ok('create', 'namespace', 'apps');
  await apply(`apiVersion: apps/v1
kind: Deployment
metadata: {name: web, namespace: apps}
spec:
  replicas: 2
  selector: {matchLabels: {app: web}}
  template:
    metadata: {labels: {app: web}}
    spec: {containers: [{name: nginx, image: nginx:1.27}]}
---
apiVersion: apps/v1
kind: StatefulSet
metadata: {name: db, namespace: apps}
spec:
  replicas: 2
  serviceName: db
  selector: {matchLabels: {app: db}}
  template:
    metadata: {labels: {app: db}}
    spec: {containers: [{name: pg, image: postgres:16}]}
  volumeClaimTemplates:
  - metadata: {name: data}
    spec: {accessModes: [ReadWriteOnce], resources: {requests: {storage: 2Gi}}}
---
apiVersion: apps/v1
kind: DaemonSet
metadata: {name: agent, namespace: apps}
spec:
  selector: {matchLabels: {app: agent}}
  template:
    metadata: {labels: {app: agent}}
    spec: {containers: [{name: agent, image: busybox:1.36}]}
`);
  assert.match(await ok('rollout', 'status', 'deployment/web', '-n', 'apps', '--timeout=30s'), /deployment "web" successfully rolled out/);
  assert.match(await ok('rollout', 'status', 'statefulset/db', '-n', 'apps', '--timeout=30s'), /roll out complete/);
  assert.match(await ok('rollout', 'status', 'daemonset/agent', '-n', 'apps', '--timeout=30s'), /daemon set "agent" successfully rolled out/);
  const pods = await json<{ items: { metadata: { name: string }; spec: { nodeName: string }; status: { phase: string } }[] }>('get', 'pods', '-n', 'apps');
  assert.equal(pods.items.length, 5);
  for (const p of pods.items) {
    assert.equal(p.status.phase, 'Running', p.metadata.name);
    assert.equal(p.spec.nodeName, 'sim-control-plane');
  }
  assert.deepEqual(pods.items.map((p) => p.metadata.name).filter((x) => x.startsWith('db-')), ['db-0', 'db-1']);
  assert.match(await ok('get', 'pvc', '-n', 'apps'), /data-db-0\s+Bound\s+pvc-\S+\s+2Gi\s+RWO/);
  // A new template is a new ReplicaSet; the old one is scaled to zero.
  await ok('set', 'image', 'deployment/web', 'nginx=nginx:1.28', '-n', 'apps');
  assert.match(await ok('rollout', 'status', 'deployment/web', '-n', 'apps', '--timeout=30s'), /successfully rolled out/);
  await soon(() => json<{ items: { spec: { replicas: number } }[] }>('get', 'rs', '-n', 'apps'), (l) => l.items.length === 2 && l.items.some((rs) => rs.spec.replicas === 0));
  await ok('scale', 'statefulset/db', '--replicas=1', '-n', 'apps');
  await soon(() => names('pods', '-n', 'apps', '-l', 'app=db'), (l) => l.join() === 'db-0');
  assert.match(await ok('get', 'sts', 'db', '-n', 'apps'), /db\s+1\/1/);
});

test('Jobs complete (or fail when annotated), CronJobs create Jobs, TTL cleans up', { timeout: 120_000 }, async () => {
  await ok('create', 'namespace', 'batch');
  await apply(`apiVersion: batch/v1
kind: Job
metadata: {name: ok, namespace: batch}
spec:
  completions: 2
  ttlSecondsAfterFinished: 3
  template:
    spec: {restartPolicy: Never, containers: [{name: a, image: busybox:1.36}]}
---
apiVersion: batch/v1
kind: Job
metadata: {name: bad, namespace: batch, annotations: {ripple.dev/simulate-job: fail}}
spec:
  backoffLimit: 0
  template:
    spec: {restartPolicy: Never, containers: [{name: a, image: busybox:1.36}]}
---
apiVersion: batch/v1
kind: CronJob
metadata: {name: tick, namespace: batch}
spec:
  schedule: "@every 1s"
  jobTemplate:
    spec:
      template:
        spec: {restartPolicy: Never, containers: [{name: a, image: busybox:1.36}]}
`);
  assert.match(await ok('wait', '--for=condition=complete', 'job/ok', '-n', 'batch', '--timeout=30s'), /condition met/);
  assert.match(await ok('get', 'job', 'ok', '-n', 'batch'), /ok\s+Complete\s+2\/2/);
  assert.match(await ok('wait', '--for=condition=failed', 'job/bad', '-n', 'batch', '--timeout=30s'), /condition met/);
  const bad = await json<{ status: { failed: number; conditions: { type: string; reason: string }[] } }>('get', 'job', 'bad', '-n', 'batch');
  assert.equal(bad.status.failed, 1);
  assert.ok(bad.status.conditions.some((c) => c.type === 'Failed' && c.reason === 'BackoffLimitExceeded'));
  const jobs = await soon(() => names('jobs', '-n', 'batch'), (l) => l.some((x) => x.startsWith('tick-')));
  assert.ok(jobs.some((x) => /^tick-\d+$/.test(x)));
  await soon(() => names('jobs', '-n', 'batch'), (l) => !l.includes('ok'));
});

test('deleting a namespace empties it and finalizes; cascading deletes follow ownerReferences', { timeout: 120_000 }, async () => {
  await ok('create', 'namespace', 'gone');
  await ok('create', 'deployment', 'x', '--image=nginx:1.27', '--replicas=2', '-n', 'gone');
  await ok('rollout', 'status', 'deployment/x', '-n', 'gone', '--timeout=30s');
  await ok('delete', 'deployment', 'x', '-n', 'gone', '--cascade=foreground', '--timeout=30s');
  await soon(() => names('pods,rs', '-n', 'gone'), (l) => l.length === 0);
  await ok('create', 'deployment', 'y', '--image=nginx:1.27', '-n', 'gone');
  await ok('rollout', 'status', 'deployment/y', '-n', 'gone', '--timeout=30s');
  await ok('delete', 'namespace', 'gone', '--timeout=30s');
  const r = await kubectl(['get', 'namespace', 'gone']);
  assert.notEqual(r.code, 0);
  assert.match(r.stderr, /namespaces "gone" not found/);
});

test('pods/eviction honours PodDisruptionBudgets; certificatesigningrequests/approval; cordon', { timeout: 120_000 }, async () => {
  await ok('create', 'namespace', 'guard');
  await apply(`apiVersion: apps/v1
kind: Deployment
metadata: {name: guarded, namespace: guard}
spec:
  replicas: 2
  selector: {matchLabels: {app: guarded}}
  template:
    metadata: {labels: {app: guarded}}
    spec: {containers: [{name: c, image: nginx:1.27}]}
---
apiVersion: policy/v1
kind: PodDisruptionBudget
metadata: {name: guarded, namespace: guard}
spec:
  minAvailable: 2
  selector: {matchLabels: {app: guarded}}
`);
  await ok('rollout', 'status', 'deployment/guarded', '-n', 'guard', '--timeout=30s');
  await soon(() => json<{ status: { currentHealthy?: number } }>('get', 'pdb', 'guarded', '-n', 'guard'), (p) => p.status.currentHealthy === 2);
  assert.match(await ok('get', 'pdb', 'guarded', '-n', 'guard'), /guarded\s+2\s+N\/A\s+0\s+/);
  const [victim] = await names('pods', '-n', 'guard');
  const eviction = join(dir, 'eviction.json');
  writeFileSync(eviction, JSON.stringify({ apiVersion: 'policy/v1', kind: 'Eviction', metadata: { name: victim, namespace: 'guard' } }));
  const blocked = await kubectl(['create', '--raw', `/clusters/sim/api/v1/namespaces/guard/pods/${victim}/eviction`, '-f', eviction]);
  assert.notEqual(blocked.code, 0);
  assert.match(blocked.stderr, /Cannot evict pod as it would violate the pod's disruption budget/);
  await ok('patch', 'pdb', 'guarded', '-n', 'guard', '--type=merge', '-p', '{"spec":{"minAvailable":1}}');
  await soon(() => json<{ status: { disruptionsAllowed?: number; observedGeneration?: number } }>('get', 'pdb', 'guarded', '-n', 'guard'), (p) => p.status.disruptionsAllowed === 1 && p.status.observedGeneration === 2);
  await ok('create', '--raw', `/clusters/sim/api/v1/namespaces/guard/pods/${victim}/eviction`, '-f', eviction);
  await soon(() => names('pods', '-n', 'guard'), (l) => l.length === 2 && !l.includes(victim));

  const request = Buffer.from('-----BEGIN CERTIFICATE REQUEST-----\nMIIB\n-----END CERTIFICATE REQUEST-----\n').toString('base64');
  await apply(`apiVersion: certificates.k8s.io/v1
kind: CertificateSigningRequest
metadata: {name: alice}
spec: {request: ${request}, signerName: kubernetes.io/kube-apiserver-client, usages: [client auth]}
`);
  assert.match(await ok('get', 'csr', 'alice'), /alice\s+\S+\s+kubernetes\.io\/kube-apiserver-client\s+ripple:sim:admin\s+<none>\s+Pending/);
  assert.match(await ok('certificate', 'approve', 'alice'), /certificatesigningrequest\.certificates\.k8s\.io\/alice approved/);
  assert.match(await ok('get', 'csr', 'alice'), /alice\s+.*\s+Approved\n/);

  assert.match(await ok('cordon', 'sim-control-plane'), /node\/sim-control-plane cordoned/);
  assert.match(await ok('get', 'node', 'sim-control-plane'), /Ready,SchedulingDisabled/);
  await ok('uncordon', 'sim-control-plane');
});

test('a service account token Secret is filled with a token of its ServiceAccount, the CA and the namespace', { timeout: 60_000 }, async () => {
  await ok('create', 'namespace', 'tok');
  await ok('create', 'serviceaccount', 'robot', '-n', 'tok');
  await apply(`apiVersion: v1
kind: Secret
metadata: {name: robot-token, namespace: tok, annotations: {kubernetes.io/service-account.name: robot}}
type: kubernetes.io/service-account-token
`);
  const secret = await soon(() => json<{ data?: Record<string, string> }>('get', 'secret', 'robot-token', '-n', 'tok'), (s) => !!s.data?.token);
  assert.equal(Buffer.from(secret.data!.namespace, 'base64').toString(), 'tok');
  assert.equal(Buffer.from(secret.data!['ca.crt'], 'base64').toString(), server.caCertificate);
  const info = server.cluster('sim');
  const bearer = { Authorization: `Bearer ${Buffer.from(secret.data!.token, 'base64').toString()}` };
  // The token authenticates as the ServiceAccount (not as the cluster's admin), which RBAC has granted nothing yet.
  const whoami = await fetch(`${info.httpServer}/apis/authentication.k8s.io/v1/selfsubjectreviews`, { method: 'POST', headers: { ...bearer, 'Content-Type': 'application/json' }, body: JSON.stringify({ apiVersion: 'authentication.k8s.io/v1', kind: 'SelfSubjectReview' }) });
  assert.equal(((await whoami.json()) as { status: { userInfo: { username: string } } }).status.userInfo.username, 'system:serviceaccount:tok:robot');
  const res = await fetch(`${info.httpServer}/api/v1/namespaces/tok`, { headers: bearer });
  assert.equal(res.status, 403);
  assert.equal(((await res.json()) as { message: string }).message, 'namespaces "tok" is forbidden: User "system:serviceaccount:tok:robot" cannot get resource "namespaces" in API group "" in the namespace "tok"');
  // Deleting the Secret revokes the token.
  await ok('delete', 'secret', 'robot-token', '-n', 'tok');
  assert.equal((await fetch(`${info.httpServer}/api/v1/namespaces/tok`, { headers: bearer })).status, 401);
});
