// The embedded API server driven by the reference client, kubectl 1.32 (/usr/bin/kubectl), with default
// client-side settings (validation on). Every test works in its own namespace of one shared server.
import { strict as assert } from 'node:assert';
import { execFile, spawn } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { startTestApiServer, type TestApiServer } from '../support/apiserver.js';
import { eventually } from '../support/eventually.js';

const KUBECTL = '/usr/bin/kubectl';
let srv: TestApiServer;
let work: string;
let n = 0;

interface Run {
  code: number;
  stdout: string;
  stderr: string;
}

function kubectl(args: string[], o: { input?: string; env?: Record<string, string> } = {}): Promise<Run> {
  return new Promise((resolve) => {
    const child = execFile(
      KUBECTL,
      ['--cache-dir', join(work, 'cache'), ...args],
      { env: { ...process.env, KUBECONFIG: srv.kubeconfigPath, HOME: work, ...(o.env ?? {}) }, timeout: 30_000 },
      (err, stdout, stderr) => resolve({ code: err ? (typeof err.code === 'number' ? err.code : 1) : 0, stdout, stderr }),
    );
    if (o.input !== undefined) child.stdin!.end(o.input);
  });
}

async function ok(args: string[], input?: string): Promise<string> {
  const r = await kubectl(args, { input });
  assert.equal(r.code, 0, `kubectl ${args.join(' ')} failed:\n${r.stderr}${r.stdout}`);
  return r.stdout;
}

async function ns(): Promise<string> {
  const name = `k${++n}`;
  await ok(['create', 'namespace', name]);
  return name;
}

before(async () => {
  work = mkdtempSync(join(tmpdir(), 'ripple-kubectl-'));
  srv = await startTestApiServer({ clusters: ['kube', 'other'] });
});
after(async () => {
  await srv.stop();
  rmSync(work, { recursive: true, force: true });
});

const MULTI = (s: string) => `apiVersion: v1
kind: ConfigMap
metadata:
  name: settings
  namespace: ${s}
  labels: {app: web}
data:
  mode: fast
---
apiVersion: v1
kind: Secret
metadata:
  name: creds
  namespace: ${s}
data:
  password: aHVudGVyMg==
---
apiVersion: v1
kind: Service
metadata:
  name: web
  namespace: ${s}
spec:
  selector: {app: web}
  ports:
  - {name: http, port: 80, targetPort: 8080}
---
apiVersion: apps/v1
kind: Deployment
metadata:
  name: web
  namespace: ${s}
spec:
  replicas: 2
  selector: {matchLabels: {app: web}}
  template:
    metadata: {labels: {app: web}}
    spec:
      containers:
      - name: app
        image: nginx:1.27
        env:
        - {name: A, value: "1"}
`;

describe('kubectl', () => {
  test('apply a multi-document file: created, unchanged, configured', async () => {
    const s = await ns();
    const f = join(work, `${s}.yaml`);
    writeFileSync(f, MULTI(s));
    assert.equal(await ok(['apply', '-f', f]), `configmap/settings created\nsecret/creds created\nservice/web created\ndeployment.apps/web created\n`);
    assert.equal(await ok(['apply', '-f', f]), `configmap/settings unchanged\nsecret/creds unchanged\nservice/web unchanged\ndeployment.apps/web unchanged\n`);
    writeFileSync(f, MULTI(s).replace('mode: fast', 'mode: slow'));
    assert.match(await ok(['apply', '-f', f]), /configmap\/settings configured/);
    assert.equal(await ok(['get', 'cm', 'settings', '-n', s, '-o', 'jsonpath={.data.mode}']), 'slow');
    assert.equal(await ok(['get', 'secret', 'creds', '-n', s, '-o', 'jsonpath={.data.password}']), Buffer.from('hunter2').toString('base64'));
  });

  test('get as table, wide, yaml, json, jsonpath and name', async () => {
    const s = await ns();
    await ok(['apply', '-f', '-'], MULTI(s));
    const table = await ok(['get', 'svc', 'web', '-n', s]);
    assert.match(table, /^NAME\s+TYPE\s+CLUSTER-IP\s+EXTERNAL-IP\s+PORT\(S\)\s+AGE\nweb\s+ClusterIP\s+10\.\d+\.\d+\.\d+\s+<none>\s+80\/TCP\s+\d+s\n$/);
    assert.match(await ok(['get', 'deploy', '-n', s, '-o', 'wide']), /^NAME\s+READY\s+UP-TO-DATE\s+AVAILABLE\s+AGE\s+CONTAINERS\s+IMAGES\s+SELECTOR\nweb\s+0\/2\s+0\s+0\s+\d+s\s+app\s+nginx:1\.27\s+app=web\n$/);
    assert.match(await ok(['get', 'cm', 'settings', '-n', s, '-o', 'yaml']), /^apiVersion: v1\ndata:\n  mode: fast\nkind: ConfigMap\n/);
    const json = JSON.parse(await ok(['get', 'cm', '-n', s, '-l', 'app=web', '-o', 'json']));
    assert.equal(json.kind, 'List');
    assert.deepEqual(json.items.map((i: { metadata: { name: string } }) => i.metadata.name), ['settings']);
    assert.equal(await ok(['get', 'deploy,svc', '-n', s, '-o', 'name']), 'deployment.apps/web\nservice/web\n');
    const missing = await kubectl(['get', 'cm', 'nope', '-n', s]);
    assert.equal(missing.code, 1);
    assert.equal(missing.stderr, 'Error from server (NotFound): configmaps "nope" not found\n');
  });

  test('create by generator (protobuf bodies), describe', async () => {
    const s = await ns();
    await ok(['create', 'configmap', 'gen', '-n', s, '--from-literal=a=1']);
    await ok(['create', 'secret', 'generic', 'sec', '-n', s, '--from-literal=b=2']);
    await ok(['create', 'deployment', 'd', '-n', s, '--image=busybox:1.36', '--replicas=0']);
    await ok(['expose', 'deployment', 'd', '-n', s, '--port=80', '--type=NodePort']);
    const d = await ok(['describe', 'cm', 'gen', '-n', s]);
    assert.match(d, /^Name:\s+gen\nNamespace:\s+k\d+\n/);
    assert.match(d, /Data\n====\na:\n----\n1\n/);
    const svc = await ok(['describe', 'svc', 'd', '-n', s]);
    assert.match(svc, /Type:\s+NodePort\n/);
    assert.match(svc, /NodePort:\s+<unset>\s+3\d{4}\/TCP\n/);
    assert.match(await ok(['describe', 'deploy', 'd', '-n', s]), /Replicas:\s+0 desired/);
  });

  test('label and annotate, overwrite and remove', async () => {
    const s = await ns();
    await ok(['create', 'configmap', 'c', '-n', s]);
    assert.equal(await ok(['label', 'cm', 'c', '-n', s, 'team=blue']), 'configmap/c labeled\n');
    const again = await kubectl(['label', 'cm', 'c', '-n', s, 'team=red']);
    assert.notEqual(again.code, 0);
    assert.match(again.stderr, /'team' already has a value \(blue\), and --overwrite is false/);
    await ok(['label', 'cm', 'c', '-n', s, 'team=red', '--overwrite']);
    await ok(['annotate', 'cm', 'c', '-n', s, 'note=hello world']);
    assert.equal(await ok(['get', 'cm', 'c', '-n', s, '-o', 'jsonpath={.metadata.labels.team} {.metadata.annotations.note}']), 'red hello world');
    await ok(['label', 'cm', 'c', '-n', s, 'team-']);
    assert.equal(await ok(['get', 'cm', '-n', s, '-l', 'team', '-o', 'name']), '');
  });

  test('patch: strategic (merge by name), merge and JSON patch', async () => {
    const s = await ns();
    await ok(['apply', '-f', '-'], MULTI(s));
    await ok(['patch', 'deploy', 'web', '-n', s, '-p', '{"spec":{"template":{"spec":{"containers":[{"name":"app","env":[{"name":"B","value":"2"}]}]}}}}']);
    assert.equal(await ok(['get', 'deploy', 'web', '-n', s, '-o', 'jsonpath={.spec.template.spec.containers[0].env[*].name}']), 'B A');
    await ok(['patch', 'cm', 'settings', '-n', s, '--type=merge', '-p', '{"data":{"extra":"x","mode":null}}']);
    assert.equal(await ok(['get', 'cm', 'settings', '-n', s, '-o', 'jsonpath={.data}']), '{"extra":"x"}');
    await ok(['patch', 'cm', 'settings', '-n', s, '--type=json', '-p', '[{"op":"replace","path":"/data/extra","value":"y"}]']);
    assert.equal(await ok(['get', 'cm', 'settings', '-n', s, '-o', 'jsonpath={.data.extra}']), 'y');
    const bad = await kubectl(['patch', 'cm', 'settings', '-n', s, '--type=json', '-p', '[{"op":"test","path":"/data/extra","value":"z"}]']);
    assert.notEqual(bad.code, 0);
    // kube-apiserver answers a failed "test" operation with a bare 422.
    assert.equal(bad.stderr, 'The request is invalid: the server rejected our request due to an error in our request\n');
  });

  test('apply --server-side: field managers, conflicts, --force-conflicts', async () => {
    const s = await ns();
    const doc = (v: string) => `apiVersion: v1\nkind: ConfigMap\nmetadata: {name: ssa, namespace: ${s}}\ndata: {key: "${v}"}\n`;
    assert.equal(await ok(['apply', '--server-side', '-f', '-'], doc('1')), 'configmap/ssa serverside-applied\n');
    const conflict = await kubectl(['apply', '--server-side', '--field-manager=other', '-f', '-'], { input: doc('2') });
    assert.notEqual(conflict.code, 0);
    assert.match(conflict.stderr, /Apply failed with 1 conflict: conflict with "kubectl": \.data\.key/);
    await ok(['apply', '--server-side', '--field-manager=other', '--force-conflicts', '-f', '-'], doc('2'));
    const managers = await ok(['get', 'cm', 'ssa', '-n', s, '--show-managed-fields', '-o', 'jsonpath={.metadata.managedFields[*].manager}']);
    assert.equal(managers, 'other');
  });

  test('edit goes through a patch', async () => {
    const s = await ns();
    await ok(['create', 'configmap', 'ed', '-n', s, '--from-literal=color=red']);
    const editor = join(work, 'editor.sh');
    writeFileSync(editor, '#!/bin/sh\nsed -i "s/color: red/color: green/" "$1"\n', { mode: 0o755 });
    const r = await kubectl(['edit', 'cm', 'ed', '-n', s], { env: { KUBE_EDITOR: editor } });
    assert.equal(r.code, 0, r.stderr);
    assert.equal(r.stdout, 'configmap/ed edited\n');
    assert.equal(await ok(['get', 'cm', 'ed', '-n', s, '-o', 'jsonpath={.data.color}']), 'green');
  });

  test('delete with --cascade=orphan, foreground and background', async () => {
    const s = await ns();
    const owner = async (name: string) => JSON.parse(await ok(['create', 'configmap', name, '-n', s, '-o', 'json'])).metadata.uid as string;
    const dependent = (name: string, ownerName: string, uid: string) =>
      ok(['apply', '-f', '-'], `apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: ${name}\n  namespace: ${s}\n  ownerReferences:\n  - {apiVersion: v1, kind: ConfigMap, name: ${ownerName}, uid: ${uid}, blockOwnerDeletion: true}\n`);
    await dependent('d1', 'o1', await owner('o1'));
    await dependent('d2', 'o2', await owner('o2'));
    await dependent('d3', 'o3', await owner('o3'));
    assert.equal(await ok(['delete', 'cm', 'o1', '-n', s, '--cascade=orphan']), 'configmap "o1" deleted\n');
    assert.equal(await ok(['delete', 'cm', 'o2', '-n', s, '--cascade=foreground']), 'configmap "o2" deleted\n');
    assert.equal(await ok(['delete', 'cm', 'o3', '-n', s, '--cascade=background']), 'configmap "o3" deleted\n');
    await eventually(async () => (await ok(['get', 'cm', '-n', s, '-o', 'name'])).split('\n').filter(Boolean), (l) => l.join() === 'configmap/d1', { message: 'only the orphan left' });
    assert.equal(await ok(['get', 'cm', 'd1', '-n', s, '-o', 'jsonpath={.metadata.ownerReferences}']), '');
  });

  test('CRD, custom resource, status subresource, wait, api-resources and explain', async () => {
    const s = await ns();
    // A CRD and its custom resource in one file: like kube-apiserver, the first apply cannot map the new kind yet.
    const both = `${CRD}---\napiVersion: demo.ripple.dev/v1\nkind: Dial\nmetadata: {name: first, namespace: ${s}}\nspec: {level: 1}\n`;
    const once = await kubectl(['apply', '-f', '-'], { input: both });
    assert.notEqual(once.code, 0);
    assert.match(once.stderr, /no matches for kind "Dial" in version "demo.ripple.dev\/v1"\nensure CRDs are installed first/);
    assert.equal(await ok(['apply', '-f', '-'], both), 'customresourcedefinition.apiextensions.k8s.io/dials.demo.ripple.dev unchanged\ndial.demo.ripple.dev/first created\n');
    assert.match(await ok(['wait', '--for=condition=Established', 'crd/dials.demo.ripple.dev', '--timeout=10s']), /condition met/);
    assert.match(await ok(['api-resources', '--api-group=demo.ripple.dev']), /^NAME\s+SHORTNAMES\s+APIVERSION\s+NAMESPACED\s+KIND\ndials\s+dl\s+demo\.ripple\.dev\/v1\s+true\s+Dial\n$/);
    await ok(['apply', '-f', '-'], `apiVersion: demo.ripple.dev/v1\nkind: Dial\nmetadata: {name: knob, namespace: ${s}}\nspec: {level: 7}\n`);
    await ok(['patch', 'dial', 'knob', '-n', s, '--subresource=status', '--type=merge', '-p', '{"status":{"phase":"Turned"}}']);
    assert.match(await ok(['get', 'dl', '-n', s]), /^NAME\s+LEVEL\s+PHASE\s+AGE\nfirst\s+1\s+\d+s\nknob\s+7\s+Turned\s+\d+s\n$/);
    assert.match(await ok(['wait', 'dial/knob', '-n', s, '--for=jsonpath={.status.phase}=Turned', '--timeout=10s']), /condition met/);
    const invalid = await kubectl(['apply', '-f', '-'], { input: `apiVersion: demo.ripple.dev/v1\nkind: Dial\nmetadata: {name: bad, namespace: ${s}}\nspec: {level: 99}\n` });
    assert.notEqual(invalid.code, 0);
    assert.match(invalid.stderr, /spec\.level: Invalid value: 99: spec\.level in body should be less than or equal to 10/);
    assert.match(await ok(['explain', 'dial.spec']), /FIELD: spec <Object>/);
    assert.match(await ok(['explain', 'configmap.data']), /FIELD: data <map\[string\]string>/);
    assert.equal(await ok(['delete', 'crd', 'dials.demo.ripple.dev']), 'customresourcedefinition.apiextensions.k8s.io "dials.demo.ripple.dev" deleted\n');
    const gone = await kubectl(['get', 'dials', '-n', s]);
    assert.notEqual(gone.code, 0);
  });

  test('wait --for=delete and get -w', async () => {
    const s = await ns();
    await ok(['create', 'configmap', 'w', '-n', s]);
    const watcher = spawn(KUBECTL, ['--cache-dir', join(work, 'cache'), 'get', 'cm', '-n', s, '-w', '--output-watch-events'], {
      env: { ...process.env, KUBECONFIG: srv.kubeconfigPath, HOME: work },
    });
    let out = '';
    watcher.stdout.on('data', (c) => (out += c));
    try {
      await eventually(() => out, (o) => o.includes('ADDED'), { message: 'initial listing' });
      const waiting = kubectl(['wait', '--for=delete', 'cm/w', '-n', s, '--timeout=10s']);
      await ok(['create', 'configmap', 'w2', '-n', s]);
      await ok(['delete', 'cm', 'w', '-n', s]);
      assert.equal((await waiting).code, 0);
      await eventually(() => out, (o) => /DELETED\s+w\s/.test(o), { message: 'watch events' });
      assert.match(out, /^EVENT\s+NAME\s+DATA\s+AGE\nADDED\s+w\s+0\s+\d+s\nADDED\s+w2\s+0\s+\d+s\nDELETED\s+w\s+0\s+\d+s\n/);
    } finally {
      watcher.kill();
    }
  });

  test('auth can-i and whoami: every cluster token is an administrator', async () => {
    assert.equal(await ok(['auth', 'can-i', 'delete', 'secrets', '-n', 'kube-system']), 'yes\n');
    assert.match(await ok(['auth', 'whoami']), /Username\s+ripple:kube:admin\nGroups\s+\[system:masters system:authenticated\]/);
    const get = await kubectl(['get', 'selfsubjectaccessreviews']);
    assert.equal(get.stderr, 'Error from server (MethodNotAllowed): the server does not allow this method on the requested resource\n');
  });

  test('contexts are separate clusters', async () => {
    await ok(['--context', 'other', 'create', 'namespace', 'only-there']);
    assert.equal((await kubectl(['get', 'namespace', 'only-there'])).code, 1);
    assert.match(await ok(['--context', 'other', 'get', 'namespace', 'only-there', '-o', 'name']), /namespace\/only-there/);
  });
});

const CRD = `apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
metadata:
  name: dials.demo.ripple.dev
spec:
  group: demo.ripple.dev
  scope: Namespaced
  names: {kind: Dial, plural: dials, singular: dial, shortNames: [dl]}
  versions:
  - name: v1
    served: true
    storage: true
    subresources: {status: {}}
    additionalPrinterColumns:
    - {name: Level, type: integer, jsonPath: .spec.level}
    - {name: Phase, type: string, jsonPath: .status.phase}
    - {name: Age, type: date, jsonPath: .metadata.creationTimestamp}
    schema:
      openAPIV3Schema:
        type: object
        properties:
          spec:
            type: object
            properties:
              level: {type: integer, minimum: 0, maximum: 10}
          status:
            type: object
            properties:
              phase: {type: string}
`;
