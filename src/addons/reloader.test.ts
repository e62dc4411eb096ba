// reloader: true against the embedded API server with the workload simulator — a profile changes a ConfigMap/Secret
// it deploys; the Deployments/StatefulSets/DaemonSets of that profile consuming it (volume, envFrom, env valueFrom)
// get kubectl.kubernetes.io/restartedAt on their pod template and roll (a new ReplicaSet), the others are untouched;
// without reloader nothing restarts. Plus the pure consumedBy.
import { strict as assert } from 'node:assert';
import { after, before, describe, test } from 'node:test';
import { eventually } from '../../test/support/eventually.js';
import type { KubeObject } from '../kube/index.js';
import { startAddonTestEnv, type AddonTestEnv } from '../../test/support/addon-env.js';
import { consumedBy, RESTARTED_AT } from './reloader.js';

const CP = { apiVersion: 'config.projectsveltos.io/v1beta1', kind: 'ClusterProfile' } as const;
const CS = { apiVersion: 'config.projectsveltos.io/v1beta1', kind: 'ClusterSummary' } as const;
const CM = { apiVersion: 'v1', kind: 'ConfigMap' } as const;
type Obj = KubeObject & { spec?: { template?: { metadata?: { annotations?: Record<string, string> } } }; status?: Record<string, unknown>; reason?: string; message?: string };

const podSpec = (extra: string) => `  selector:\n    matchLabels: {app: APP}\n  template:\n    metadata:\n      labels: {app: APP}\n    spec:\n${extra}`;
const workloads = (ns: string, cmValue: string) => `apiVersion: v1
kind: ConfigMap
metadata:
  name: conf
  namespace: ${ns}
data:
  value: "${cmValue}"
---
apiVersion: v1
kind: Secret
metadata:
  name: creds
  namespace: ${ns}
stringData:
  password: "${cmValue}"
---
apiVersion: apps/v1
kind: Deployment
metadata:
  name: mounts
  namespace: ${ns}
spec:
  replicas: 1
${podSpec('      containers:\n      - name: c\n        image: nginx\n        volumeMounts: [{name: conf, mountPath: /etc/conf}]\n      volumes:\n      - name: conf\n        configMap: {name: conf}\n').replaceAll('APP', 'mounts')}
---
apiVersion: apps/v1
kind: StatefulSet
metadata:
  name: envfrom
  namespace: ${ns}
spec:
  replicas: 1
  serviceName: envfrom
${podSpec('      containers:\n      - name: c\n        image: nginx\n        envFrom: [{configMapRef: {name: conf}}]\n').replaceAll('APP', 'envfrom')}
---
apiVersion: apps/v1
kind: DaemonSet
metadata:
  name: secretenv
  namespace: ${ns}
spec:
${podSpec('      containers:\n      - name: c\n        image: nginx\n        env:\n        - name: P\n          valueFrom: {secretKeyRef: {name: creds, key: password}}\n').replaceAll('APP', 'secretenv')}
---
apiVersion: apps/v1
kind: Deployment
metadata:
  name: unrelated
  namespace: ${ns}
spec:
  replicas: 1
${podSpec('      containers:\n      - name: c\n        image: nginx\n').replaceAll('APP', 'unrelated')}
`;

describe('reloader', () => {
  test('consumedBy: volumes, projected volumes, envFrom and env valueFrom of containers and initContainers', () => {
    const w = {
      apiVersion: 'apps/v1',
      kind: 'Deployment',
      metadata: { name: 'w' },
      spec: {
        template: {
          spec: {
            volumes: [{ configMap: { name: 'a' } }, { secret: { secretName: 'b' } }, { projected: { sources: [{ configMap: { name: 'c' } }, { secret: { name: 'd' } }] } }],
            initContainers: [{ envFrom: [{ secretRef: { name: 'e' } }] }],
            containers: [{ env: [{ name: 'x', valueFrom: { configMapKeyRef: { name: 'f', key: 'k' } } }, { name: 'y', value: 'plain' }] }],
          },
        },
      },
    } as unknown as KubeObject;
    assert.deepEqual([...consumedBy(w)].sort(), ['ConfigMap/a', 'ConfigMap/c', 'ConfigMap/f', 'Secret/b', 'Secret/d', 'Secret/e']);
  });

  describe('against the embedded API server', () => {
    let env: AddonTestEnv;
    before(async () => {
      env = await startAddonTestEnv({ clusters: [{ name: 'r1', labels: { env: 'reload' } }], simulators: ['workloads'] });
    });
    after(async () => env?.stop());
    const put = (o: object) => env.mgmt.apply(o as KubeObject, { fieldManager: 'test', force: true });
    const get = (kind: string, ns: string, name: string) => env.clusters.r1.getIfExists<Obj>({ apiVersion: kind === 'ConfigMap' ? 'v1' : 'apps/v1', kind, namespace: ns, name });
    const restartedAt = (o: Obj | undefined) => o?.spec?.template?.metadata?.annotations?.[RESTARTED_AT];
    const provisioned = (name: string) =>
      eventually(() => env.mgmt.getIfExists<Obj>({ ...CS, namespace: 'r1', name }), (o) => ((o?.status?.featureSummaries ?? []) as { status?: string }[])[0]?.status === 'Provisioned', { message: `${name} Provisioned` });

    test('a changed ConfigMap/Secret restarts exactly the workloads of the profile that consume it', async () => {
      await put({ ...CM, metadata: { name: 'reload', namespace: 'default' }, data: { 'all.yaml': workloads('rl', 'one') } });
      await put({ ...CP, metadata: { name: 'reload' }, spec: { clusterSelector: { matchLabels: { env: 'reload' } }, reloader: true, policyRefs: [{ kind: 'ConfigMap', name: 'reload', namespace: 'default' }] } });
      await provisioned('reload-sveltos-r1');
      for (const [k, n] of [['Deployment', 'mounts'], ['StatefulSet', 'envfrom'], ['DaemonSet', 'secretenv']]) assert.equal(restartedAt(await get(k, 'rl', n)), undefined, `${n}: no restart on first deploy`);
      const rsBefore = (await env.clusters.r1.list({ apiVersion: 'apps/v1', kind: 'ReplicaSet' }, { namespace: 'rl', labelSelector: 'app=mounts' })).items.length;

      await put({ ...CM, metadata: { name: 'reload', namespace: 'default' }, data: { 'all.yaml': workloads('rl', 'two') } });
      await eventually(() => get('ConfigMap', 'rl', 'conf'), (o) => (o as { data?: { value?: string } } | undefined)?.data?.value === 'two', { message: 'ConfigMap updated' });
      const d = await eventually(() => get('Deployment', 'rl', 'mounts'), (o) => restartedAt(o) !== undefined, { message: 'Deployment (volume) restarted' });
      assert.ok(!Number.isNaN(Date.parse(restartedAt(d)!)), 'restartedAt is a timestamp');
      await eventually(() => get('StatefulSet', 'rl', 'envfrom'), (o) => restartedAt(o) !== undefined, { message: 'StatefulSet (envFrom) restarted' });
      await eventually(() => get('DaemonSet', 'rl', 'secretenv'), (o) => restartedAt(o) !== undefined, { message: 'DaemonSet (Secret env) restarted' });
      assert.equal(restartedAt(await get('Deployment', 'rl', 'unrelated')), undefined, 'a workload consuming nothing that changed is not restarted');
      // The simulator rolls the Deployment: a new ReplicaSet for the new template.
      await eventually(() => env.clusters.r1.list({ apiVersion: 'apps/v1', kind: 'ReplicaSet' }, { namespace: 'rl', labelSelector: 'app=mounts' }), (l) => l.items.length === rsBefore + 1, { message: 'new ReplicaSet' });
      await env.recorder.flush();
      const ev = (await env.mgmt.list<Obj & { involvedObject: { name: string } }>({ apiVersion: 'v1', kind: 'Event' }, { namespace: 'r1' })).items.filter((e) => e.involvedObject.name === 'reload-sveltos-r1' && e.reason === 'RollingRestart');
      assert.ok(ev.some((e) => /restarted Deployment rl\/mounts .* because ConfigMap rl\/conf changed/.test(e.message!)), JSON.stringify(ev.map((e) => e.message)));
      await provisioned('reload-sveltos-r1');
    });

    test('without reloader nothing restarts', async () => {
      await put({ ...CM, metadata: { name: 'noreload', namespace: 'default' }, data: { 'all.yaml': workloads('nrl', 'one') } });
      await put({ ...CP, metadata: { name: 'noreload' }, spec: { clusterSelector: { matchLabels: { env: 'reload' } }, policyRefs: [{ kind: 'ConfigMap', name: 'noreload', namespace: 'default' }] } });
      await provisioned('noreload-sveltos-r1');
      await put({ ...CM, metadata: { name: 'noreload', namespace: 'default' }, data: { 'all.yaml': workloads('nrl', 'two') } });
      await eventually(() => get('ConfigMap', 'nrl', 'conf'), (o) => (o as { data?: { value?: string } } | undefined)?.data?.value === 'two', { message: 'ConfigMap updated' });
      await provisioned('noreload-sveltos-r1');
      assert.equal(restartedAt(await get('Deployment', 'nrl', 'mounts')), undefined);
    });
  });
});
