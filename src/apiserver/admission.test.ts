// ValidatingAdmissionPolicies through kubectl 1.32: CEL validations deny (or warn about) matching writes.
import { strict as assert } from 'node:assert';
import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import { startApiServer, type ApiServer } from './index.js';

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

async function apply(yaml: string): Promise<{ code: number; stdout: string; stderr: string }> {
  const file = join(dir, `m${++n}.yaml`);
  writeFileSync(file, yaml);
  return kubectl(['apply', '-f', file]);
}

before(async () => {
  dir = mkdtempSync(join(tmpdir(), 'ripple-vap-'));
  server = await startApiServer({ dataDir: dir, port: 0, clusters: ['vap'] });
});
after(async () => {
  await server.stop();
  rmSync(dir, { recursive: true, force: true });
});

const deployment = (name: string, ns: string, replicas: number) => `apiVersion: apps/v1
kind: Deployment
metadata: {name: ${name}, namespace: ${ns}}
spec:
  replicas: ${replicas}
  selector: {matchLabels: {app: ${name}}}
  template:
    metadata: {labels: {app: ${name}}}
    spec: {containers: [{name: c, image: nginx:1.27}]}
`;

test('a Deny binding refuses what the CEL validation rejects, with kube message; Warn only warns', { timeout: 90_000 }, async () => {
  const setup = await apply(`apiVersion: admissionregistration.k8s.io/v1
kind: ValidatingAdmissionPolicy
metadata: {name: replica-limit.example.com}
spec:
  failurePolicy: Fail
  matchConstraints:
    resourceRules:
    - {apiGroups: [apps], apiVersions: [v1], operations: [CREATE, UPDATE], resources: [deployments]}
  variables:
  - {name: replicas, expression: "object.spec.replicas"}
  validations:
  - expression: "variables.replicas <= 5"
  - expression: "object.metadata.name != 'forbidden'"
    messageExpression: "'the name ' + object.metadata.name + ' is reserved'"
---
apiVersion: admissionregistration.k8s.io/v1
kind: ValidatingAdmissionPolicyBinding
metadata: {name: replica-limit-binding.example.com}
spec:
  policyName: replica-limit.example.com
  validationActions: [Deny]
  matchResources:
    namespaceSelector: {matchLabels: {environment: test}}
---
apiVersion: v1
kind: Namespace
metadata: {name: guarded, labels: {environment: test}}
---
apiVersion: v1
kind: Namespace
metadata: {name: free}
`);
  assert.equal(setup.code, 0, setup.stderr);
  const big = await apply(deployment('nginx', 'guarded', 6));
  assert.notEqual(big.code, 0);
  assert.match(
    big.stderr,
    /The deployments\.apps "nginx" is invalid: : ValidatingAdmissionPolicy 'replica-limit\.example\.com' with binding 'replica-limit-binding\.example\.com' denied request: failed expression: variables\.replicas <= 5/,
  );
  const named = await apply(deployment('forbidden', 'guarded', 1));
  assert.match(named.stderr, /denied request: the name forbidden is reserved/);
  assert.equal((await apply(deployment('nginx', 'guarded', 3))).code, 0);
  // The binding's namespaceSelector leaves other namespaces alone.
  assert.equal((await apply(deployment('nginx', 'free', 6))).code, 0);
  // Updates are checked too; the scale subresource is another resource (deployments/scale), which the rule does not name.
  const edited = await kubectl(['patch', 'deployment/nginx', '-n', 'guarded', '--type=merge', '-p', '{"spec":{"replicas":7}}']);
  assert.notEqual(edited.code, 0);
  assert.match(edited.stderr, /denied request: failed expression/);
  assert.equal((await kubectl(['scale', 'deployment/nginx', '-n', 'guarded', '--replicas=7'])).code, 0);
  await apply(`apiVersion: admissionregistration.k8s.io/v1
kind: ValidatingAdmissionPolicyBinding
metadata: {name: replica-limit-binding.example.com}
spec:
  policyName: replica-limit.example.com
  validationActions: [Warn]
  matchResources:
    namespaceSelector: {matchLabels: {environment: test}}
`);
  const warned = await apply(deployment('nginx', 'guarded', 8));
  assert.equal(warned.code, 0, warned.stderr);
  assert.match(warned.stderr, /Warning: Validation failed for ValidatingAdmissionPolicy 'replica-limit\.example\.com' with binding 'replica-limit-binding\.example\.com': failed expression: variables\.replicas <= 5/);
});

test('paramKind: the binding paramRef supplies params per object; none found denies with Deny, skips with Allow', { timeout: 90_000 }, async () => {
  const setup = await apply(`apiVersion: admissionregistration.k8s.io/v1
kind: ValidatingAdmissionPolicy
metadata: {name: max-replicas.example.com}
spec:
  failurePolicy: Fail
  paramKind: {apiVersion: v1, kind: ConfigMap}
  matchConstraints:
    resourceRules:
    - {apiGroups: [apps], apiVersions: [v1], operations: [CREATE, UPDATE], resources: [deployments]}
  validations:
  - expression: "object.spec.replicas <= int(params.data.max)"
    messageExpression: "'at most ' + params.data.max + ' replicas (from ' + params.metadata.name + ')'"
---
apiVersion: admissionregistration.k8s.io/v1
kind: ValidatingAdmissionPolicyBinding
metadata: {name: max-replicas-binding}
spec:
  policyName: max-replicas.example.com
  validationActions: [Deny]
  paramRef: {name: replica-limits, parameterNotFoundAction: Deny}
  matchResources:
    namespaceSelector: {matchLabels: {params: "yes"}}
`);
  assert.equal(setup.code, 0, setup.stderr);
  assert.equal((await kubectl(['create', 'namespace', 'pk'])).code, 0);
  assert.equal((await kubectl(['label', 'namespace', 'pk', 'params=yes'])).code, 0);
  // No ConfigMap named replica-limits in the request's namespace: Deny.
  const none = await apply(deployment('p0', 'pk', 1));
  assert.match(none.stderr, /ValidatingAdmissionPolicy 'max-replicas\.example\.com' with binding 'max-replicas-binding' denied request: failed to configure binding: no params found for policy binding with `Deny` parameterNotFoundAction/);
  assert.equal((await kubectl(['-n', 'pk', 'create', 'configmap', 'replica-limits', '--from-literal=max=3'])).code, 0);
  assert.equal((await apply(deployment('p1', 'pk', 3))).code, 0);
  const over = await apply(deployment('p2', 'pk', 4));
  assert.match(over.stderr, /denied request: at most 3 replicas \(from replica-limits\)/);
  // Allow: with no params the policy does not apply.
  assert.equal((await kubectl(['patch', 'validatingadmissionpolicybinding', 'max-replicas-binding', '--type=merge', '-p', '{"spec":{"paramRef":{"parameterNotFoundAction":"Allow","name":"absent"}}}'])).code, 0);
  assert.equal((await apply(deployment('p3', 'pk', 9))).code, 0);
  // A selector picks several param objects: each is evaluated and any failure denies.
  assert.equal((await kubectl(['patch', 'validatingadmissionpolicybinding', 'max-replicas-binding', '--type=json', '-p', '[{"op":"replace","path":"/spec/paramRef","value":{"selector":{"matchLabels":{"limits":"on"}},"parameterNotFoundAction":"Allow"}}]'])).code, 0);
  assert.equal((await kubectl(['-n', 'pk', 'create', 'configmap', 'loose', '--from-literal=max=10'])).code, 0);
  assert.equal((await kubectl(['-n', 'pk', 'create', 'configmap', 'strict', '--from-literal=max=2'])).code, 0);
  assert.equal((await kubectl(['-n', 'pk', 'label', 'configmap', 'loose', 'strict', 'limits=on'])).code, 0);
  const strict = await apply(deployment('p4', 'pk', 5));
  assert.match(strict.stderr, /at most 2 replicas \(from strict\)/);
  assert.equal((await apply(deployment('p5', 'pk', 2))).code, 0);
  assert.equal((await kubectl(['delete', 'validatingadmissionpolicybinding', 'max-replicas-binding'])).code, 0);
});
