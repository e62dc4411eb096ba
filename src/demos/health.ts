// health.ts: the `health` demo — validateHealths gating and dependsOn. ClusterProfile database deploys a Deployment
// and gates on Sveltos' documented Lua health check (available replicas = requested replicas); ClusterProfile
// storefront dependsOn database (and gates on a CEL rule). Staged at zero replicas the database is deployed but not
// healthy: storefront waits, its ClusterSummary naming why. Scaling the database up lets the workload simulator make
// its pods available, the gate passes, database is Provisioned and storefront deploys.
import type { KubeObject } from '../kube/index.js';
import type { Action, Demo, Expectation } from './types.js';

const MGMT = 'mgmt';
const CLUSTER = 'cluster-a';
const CS = { apiVersion: 'config.projectsveltos.io/v1beta1', kind: 'ClusterSummary' } as const;
const DEPLOY = { apiVersion: 'apps/v1', kind: 'Deployment' } as const;
const WHY = 'Sveltos’ documented validateHealths + dependsOn pattern (a profile proceeds only once the one it depends on is healthy)';

type Obj = KubeObject & { spec?: Record<string, unknown>; status?: Record<string, unknown> };
type Feature = { featureID: string; status?: string; failureMessage?: string; failureReason?: string };
const resources = (o: KubeObject | undefined) => ((((o as Obj | undefined)?.status?.featureSummaries ?? []) as Feature[]).find((f) => f.featureID === 'Resources'));

// The Lua of Sveltos' validateHealths documentation.
const DEPLOYMENT_HEALTH = `function evaluate()
  local hs = {healthy = false, message = "available replicas not matching requested replicas"}
  if obj.status and obj.status.availableReplicas ~= nil and obj.status.availableReplicas == obj.spec.replicas then
    hs.healthy = true
  end
  return hs
end
`;

const deployment = (name: string, replicas: number, extra = '') => `apiVersion: apps/v1
kind: Deployment
metadata:
  name: ${name}
  namespace: shop
  labels: {app: ${name}}
spec:
  replicas: ${replicas}
  selector:
    matchLabels: {app: ${name}}
  template:
    metadata:
      labels: {app: ${name}}
    spec:
      containers:
      - name: ${name}
        image: registry.example/${name}:1.0
${extra}`;

const databaseConfigMap = (replicas: number): KubeObject => ({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'database', namespace: 'default' }, data: { 'database.yaml': deployment('db', replicas) } } as KubeObject);

const profiles: KubeObject[] = [
  { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'storefront', namespace: 'default' }, data: { 'storefront.yaml': deployment('storefront', 1) } } as KubeObject,
  {
    apiVersion: 'config.projectsveltos.io/v1beta1',
    kind: 'ClusterProfile',
    metadata: { name: 'database' },
    spec: {
      clusterSelector: { matchLabels: { env: 'prod' } },
      policyRefs: [{ kind: 'ConfigMap', name: 'database', namespace: 'default' }],
      validateHealths: [{ name: 'deployment-health', featureID: 'Resources', group: 'apps', version: 'v1', kind: 'Deployment', namespace: 'shop', labelFilters: [{ key: 'app', operation: 'Equal', value: 'db' }], script: DEPLOYMENT_HEALTH }],
    },
  } as KubeObject,
  {
    apiVersion: 'config.projectsveltos.io/v1beta1',
    kind: 'ClusterProfile',
    metadata: { name: 'storefront' },
    spec: {
      clusterSelector: { matchLabels: { env: 'prod' } },
      dependsOn: ['database'],
      policyRefs: [{ kind: 'ConfigMap', name: 'storefront', namespace: 'default' }],
      validateHealths: [{ name: 'storefront-available', featureID: 'Resources', group: 'apps', version: 'v1', kind: 'Deployment', namespace: 'shop', labelFilters: [{ key: 'app', operation: 'Equal', value: 'storefront' }], evaluateCEL: [{ name: 'available', rule: 'has(resource.status.availableReplicas) && resource.status.availableReplicas == resource.spec.replicas' }] }],
    },
  } as KubeObject,
];

const summary = (profile: string, what: string, check: (o: KubeObject) => string | undefined): Expectation => ({
  what,
  cluster: MGMT,
  find: { ...CS, namespace: CLUSTER, name: `${profile}-sveltos-${CLUSTER}` },
  check: ([o]) => (o ? check(o) : 'no ClusterSummary yet'),
});

const apply = (objects: KubeObject[], why: string): Action => ({ type: 'apply', cluster: MGMT, objects: { inline: objects, why } });

/** healthDemo is `ripple up --demo health`. */
export const healthDemo: Demo = {
  name: 'health',
  title: 'validateHealths gate a profile; a dependent profile (dependsOn) proceeds once it is healthy',
  seeds: [],
  summary:
    'ClusterProfile database deploys Deployment shop/db to cluster-a, gated by Sveltos’ Lua deployment-health check;\n' +
    'ClusterProfile storefront dependsOn database. Staged at 0 replicas, db is deployed but not healthy, so storefront\n' +
    'waits (its ClusterSummary says why); scaled to 2, the simulator makes the pods available, the gate passes and\n' +
    'storefront deploys.',
  clusters: [{ name: CLUSTER, labels: { env: 'prod' } }],
  setup: [],
  steps: [
    {
      title: 'apply ClusterProfiles database (validateHealths, db staged at 0 replicas) and storefront (dependsOn database)',
      explore: true,
      actions: [apply([databaseConfigMap(0), ...profiles], WHY)],
      expect: [
        { what: 'Deployment shop/db deployed in cluster-a', cluster: CLUSTER, find: { ...DEPLOY, namespace: 'shop', name: 'db' } },
        summary('database', 'database stays Provisioning: its health check says why', (o) => {
          const f = resources(o);
          return f?.status === 'Provisioning' && f.failureReason === 'HealthCheckPending' && /deployment-health: Deployment shop\/db is not healthy: available replicas not matching requested replicas/.test(f.failureMessage ?? '') ? undefined : `Resources ${JSON.stringify(f)}`;
        }),
        summary('storefront', 'storefront waits for database, naming the unhealthy dependency', (o) => {
          const d = (o as Obj).status?.dependencies;
          return typeof d === 'string' && d.startsWith('ClusterProfile database is a dependency and it is not healthy yet') ? undefined : `dependencies ${JSON.stringify(d)}`;
        }),
        { what: 'nothing of storefront deployed yet', cluster: CLUSTER, find: { ...DEPLOY, namespace: 'shop', name: 'storefront' }, absent: true },
      ],
    },
    {
      title: 'scale the database up: ConfigMap default/database now says replicas: 2',
      actions: [apply([databaseConfigMap(2)], 'the user edits the policy the database profile deploys')],
      expect: [
        {
          what: 'Deployment shop/db available (the workload simulator made its 2 pods ready)',
          cluster: CLUSTER,
          find: { ...DEPLOY, namespace: 'shop', name: 'db' },
          check: ([d]) => ((d as Obj | undefined)?.status?.availableReplicas === 2 ? undefined : `status ${JSON.stringify((d as Obj | undefined)?.status)}`),
        },
        summary('database', 'database Provisioned: deployment-health passed', (o) => (resources(o)?.status === 'Provisioned' ? undefined : `Resources ${JSON.stringify(resources(o))}`)),
        { what: 'storefront proceeds: Deployment shop/storefront deployed in cluster-a', cluster: CLUSTER, find: { ...DEPLOY, namespace: 'shop', name: 'storefront' } },
        summary('storefront', 'storefront Provisioned once its own CEL health check passes', (o) => {
          const f = resources(o);
          const d = (o as Obj).status?.dependencies;
          return f?.status === 'Provisioned' && d === 'All dependencies deployed' ? undefined : `Resources ${JSON.stringify(f)}, dependencies ${JSON.stringify(d)}`;
        }),
      ],
    },
  ],
  explore: [
    'kubectl --context mgmt -n cluster-a get clustersummaries database-sveltos-cluster-a -o jsonpath=\'{.status.featureSummaries}\'   # Provisioning + the health message',
    'kubectl --context mgmt -n cluster-a get clustersummaries storefront-sveltos-cluster-a -o jsonpath=\'{.status.dependencies}\'   # why storefront waits',
    "kubectl --context mgmt -n default get configmap database -o yaml | sed 's/replicas: 0/replicas: 2/' | kubectl --context mgmt apply -f -   # scale up: the gate passes, storefront deploys",
    'kubectl --context mgmt -n cluster-a get events --field-selector involvedObject.name=database-sveltos-cluster-a   # WaitingForHealth, HealthCheckPassed',
  ],
  notes: ['The gate is watch-driven: a change of the checked Deployments in cluster-a re-evaluates it; once healthy nothing is watched or polled.'],
};
