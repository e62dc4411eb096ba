// The chart's RBAC is what the controllers call, no more: every kind named in the controllers' sources (src/manager,
// src/addons, src/events, src/clusters, src/agent, src/kube) plus every kind Ripple serves must be covered by a rule
// of the manager's ServiceAccount with the verbs it needs — or be declared here as reached only in managed clusters
// (through their kubeconfigs, not this ServiceAccount) — and every rule of the chart must be needed by one of them.
// A controller starting to use a new kind fails this test until the kind is added to the chart and the table below.
import { strict as assert } from 'node:assert';
import { readFileSync, readdirSync, statSync } from 'node:fs';
import { join, relative, resolve } from 'node:path';
import { test } from 'node:test';
import { parseAllDocuments } from 'yaml';
import { KINDS } from '../../src/api/index.js';

const root = resolve(import.meta.dirname, '..', '..');
const CONTROLLERS = ['manager', 'addons', 'events', 'clusters', 'agent', 'kube'].map((d) => join(root, 'src', d));
/** Test and benchmark helpers are not controllers. */
const NOT_CONTROLLER = /(\.test|\.bench|\.testkit)\.ts$|\/(fleet-harness|harness)\.ts$/;

const ALL = ['get', 'list', 'watch', 'create', 'update', 'patch', 'delete'];
/** Where a kind is reached: the management cluster through the chart's ServiceAccount (cluster-wide or in the release
 * namespace only), or managed clusters only, through their kubeconfig Secrets. */
type Need =
  | { where: 'cluster' | 'namespace'; group: string; resource: string; verbs: string[]; when?: string }
  | { where: 'managed'; why: string };

const READ = ['get', 'list', 'watch'];

/** NEEDS: what the controllers do with each kind they name (several needs when a kind is reached in several ways). */
const NEEDS: Record<string, Need | Need[]> = {
  ConfigMap: { where: 'cluster', group: '', resource: 'configmaps', verbs: ALL },
  Secret: { where: 'cluster', group: '', resource: 'secrets', verbs: ALL },
  Namespace: { where: 'cluster', group: '', resource: 'namespaces', verbs: ['get', 'list', 'watch', 'create'] },
  Event: { where: 'cluster', group: '', resource: 'events', verbs: ['create', 'patch'] },
  CustomResourceDefinition: { where: 'cluster', group: 'apiextensions.k8s.io', resource: 'customresourcedefinitions', verbs: ['get', 'list', 'watch'] },
  Cluster: { where: 'cluster', group: 'cluster.x-k8s.io', resource: 'clusters', verbs: ['get', 'list', 'watch'] },
  Lease: { where: 'namespace', group: 'coordination.k8s.io', resource: 'leases', verbs: ['get', 'create', 'update'] },
  Deployment: { where: 'namespace', group: 'apps', resource: 'deployments', verbs: ALL, when: 'shard-controller' },
  ServiceAccount: [
    { where: 'managed', why: "the agent's ServiceAccount, installed into managed clusters (agent.deploy); tenants' ServiceAccounts (RoleRequests)" },
    // Tenant add-ons deployed Local (into the management cluster) impersonate the tenant's ServiceAccount and groups.
    { where: 'cluster', group: '', resource: 'serviceaccounts', verbs: ['impersonate'] },
    { where: 'cluster', group: '', resource: 'groups', verbs: ['impersonate'] },
  ],
  // Flux sources feeding kustomizationRefs and policyRefs (GitRepository, OCIRepository, Bucket).
  GitRepository: [
    { where: 'cluster', group: 'source.toolkit.fluxcd.io', resource: 'gitrepositories', verbs: READ },
    { where: 'cluster', group: 'source.toolkit.fluxcd.io', resource: 'ocirepositories', verbs: READ },
    { where: 'cluster', group: 'source.toolkit.fluxcd.io', resource: 'buckets', verbs: READ },
  ],
  SubjectAccessReview: [
    { where: 'managed', why: "a tenant EventSource's agent asks what the tenant may list in its cluster" },
    // Before a tenant's templates read a management-cluster object, the manager asks whether the tenant may.
    { where: 'cluster', group: 'authorization.k8s.io', resource: 'subjectaccessreviews', verbs: ['create'] },
  ],
  TokenRequest: { where: 'managed', why: "tokenRequestRenewalOption renews a cluster's token through that cluster's API" },
  ClusterRole: { where: 'managed', why: "the agent's read-only ClusterRole in managed clusters" },
  ClusterRoleBinding: { where: 'managed', why: "the agent's ClusterRoleBinding in managed clusters" },
};
/** Literal kinds in the sources that are not API resources. */
const NOT_RESOURCES = new Set(['Status', 'Config', 'DeleteOptions', 'List']);

function sources(dir: string): string[] {
  return readdirSync(dir).flatMap((f) => {
    const p = join(dir, f);
    if (statSync(p).isDirectory()) return sources(p);
    return p.endsWith('.ts') && !NOT_CONTROLLER.test(p) ? [p] : [];
  });
}

/** kindsInCode lists the kinds the controllers name as `kind: 'X'`, with one file naming each. */
function kindsInCode(): Map<string, string> {
  const found = new Map<string, string>();
  for (const file of CONTROLLERS.flatMap(sources)) {
    for (const m of readFileSync(file, 'utf8').matchAll(/\bkind: '([A-Z][A-Za-z0-9]*)'/g)) {
      if (!found.has(m[1])) found.set(m[1], relative(root, file));
    }
  }
  return found;
}

interface Rule {
  apiGroups: string[];
  resources: string[];
  verbs: string[];
}

/** rulesOf returns the rules of the chart's manager ServiceAccount in a golden render, by role kind. */
function rulesOf(golden: string): { cluster: Rule[]; namespace: Rule[]; bindings: string[] } {
  const objs = parseAllDocuments(readFileSync(join(root, 'testdata', 'deploy', 'helm', golden), 'utf8')).map((d) => d.toJS()).filter(Boolean);
  const cluster = objs.filter((o) => o.kind === 'ClusterRole').flatMap((o) => o.rules as Rule[]);
  const namespace = objs.filter((o) => o.kind === 'Role').flatMap((o) => o.rules as Rule[]);
  const bindings = objs.filter((o) => o.kind === 'ClusterRoleBinding' || o.kind === 'RoleBinding').map((o) => `${o.kind}->${o.roleRef.name}`);
  return { cluster, namespace, bindings };
}

function covers(rules: Rule[], group: string, resource: string, verb: string): boolean {
  return rules.some((r) => r.apiGroups.includes(group) && r.resources.includes(resource) && r.verbs.includes(verb));
}

/** needed lists every (where, group, resource, verb) the controllers need, the served kinds included. */
function needed(withShardController: boolean): { where: 'cluster' | 'namespace'; group: string; resource: string; verb: string }[] {
  const out: { where: 'cluster' | 'namespace'; group: string; resource: string; verb: string }[] = [];
  for (const d of KINDS) for (const resource of [d.plural, `${d.plural}/status`]) for (const verb of ALL) out.push({ where: 'cluster', group: d.group, resource, verb });
  for (const [kind, ns] of Object.entries(NEEDS)) {
    if (!kindsInCode().has(kind)) continue;
    for (const n of [ns].flat()) {
      if (n.where === 'managed' || (n.when === 'shard-controller' && !withShardController)) continue;
      for (const verb of n.verbs) out.push({ where: n.where, group: n.group, resource: n.resource, verb });
    }
  }
  return out;
}

test('every kind the controllers name is known to this test (add a new one to the chart RBAC and to NEEDS)', () => {
  const served = new Set<string>(KINDS.map((d) => d.kind));
  const unknown = [...kindsInCode()].filter(([k]) => !served.has(k) && !NOT_RESOURCES.has(k) && !(k in NEEDS));
  assert.deepEqual(unknown, [], `kinds used by controllers but not covered by the chart's RBAC: ${unknown.map(([k, f]) => `${k} (${f})`).join(', ')}`);
  // The table is not stale either: every kind it lists is still named by a controller.
  const stale = Object.keys(NEEDS).filter((k) => !kindsInCode().has(k));
  assert.deepEqual(stale, [], 'NEEDS lists kinds no controller uses any more: remove them from the chart and the table');
});

for (const [golden, shardController] of [['default.yaml', false], ['shard-controller.yaml', true]] as const) {
  test(`${golden}: the manager's rules cover every need, and every rule is needed (least privilege)`, () => {
    const rules = rulesOf(golden);
    const needs = needed(shardController);
    const missing = needs.filter((n) => !covers(n.where === 'cluster' ? rules.cluster : rules.namespace, n.group, n.resource, n.verb));
    assert.deepEqual(missing, [], 'needs the chart does not grant');
    for (const [where, list] of [['cluster', rules.cluster], ['namespace', rules.namespace]] as const) {
      for (const r of list) {
        for (const g of r.apiGroups) for (const res of r.resources) for (const v of r.verbs) {
          assert.ok(!g.includes('*') && !res.includes('*') && !v.includes('*'), `wildcard in ${where} rule ${JSON.stringify(r)}`);
          assert.ok(needs.some((n) => n.where === where && n.group === g && n.resource === res && n.verb === v), `${where} rule grants ${v} ${g || 'core'}/${res}, which no controller needs`);
        }
      }
    }
    assert.ok(!rules.bindings.includes('ClusterRoleBinding->cluster-admin'), 'cluster-admin only with manager.registerManagementCluster');
  });
}

test('registerManagementCluster (add-ons deployed into the management cluster itself) binds cluster-admin', () => {
  assert.ok(rulesOf('all-features.yaml').bindings.includes('ClusterRoleBinding->cluster-admin'));
});
