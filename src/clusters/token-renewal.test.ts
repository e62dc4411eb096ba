// tokenRequestRenewalOption against the embedded API server with RBAC and the TokenRequest API: a managed cluster
// registered with a ServiceAccount token gets a fresh token through serviceaccounts/token on the timer, written to
// Secret key re-kubeconfig (spec.kubeconfigKeyName switched to it), status.lastReconciledTokenRequestAt and an
// Event; the management cluster's own SveltosCluster renews too; a ServiceAccount without the right to create its
// token and a bad interval are reported on their cluster only.
import { strict as assert } from 'node:assert';
import { after, before, describe, test } from 'node:test';
import { parse as parseYaml } from 'yaml';
import { generateCrds } from '../api/index.js';
import { EventRecorder, InformerFactory, KubeClient, loadKubeConfig, type KubeObject } from '../kube/index.js';
import { eventually } from '../../test/support/eventually.js';
import { startTestApiServer, type TestApiServer } from '../../test/support/apiserver.js';
import {
  ClusterReadinessController,
  ClusterRegistry,
  MANAGEMENT_CLUSTER,
  TokenRenewalController,
  parseGoDuration,
  planRenewal,
  registerCluster,
  serviceAccountOfToken,
  withToken,
} from './index.js';

type SC = KubeObject & { spec?: { kubeconfigKeyName?: string }; status?: { ready?: boolean; failureMessage?: string; lastReconciledTokenRequestAt?: string } };
const SCK = { apiVersion: 'lib.projectsveltos.io/v1beta1', kind: 'SveltosCluster' };

test('Go durations and the renewal plan', () => {
  assert.deepEqual(parseGoDuration('1h30m'), { ok: true, ms: 5_400_000 });
  assert.deepEqual(parseGoDuration('1.5s'), { ok: true, ms: 1500 });
  assert.deepEqual(parseGoDuration('1h0m0s'), { ok: true, ms: 3_600_000 });
  assert.equal(parseGoDuration('1 hour').ok, false);
  const now = Date.parse('2026-01-01T12:00:00Z');
  const p = planRenewal({ renewTokenRequestInterval: '1h', tokenDuration: '3h' }, '2026-01-01T11:30:00Z', undefined, now);
  assert.deepEqual(p, { ok: true, dueInMs: 1_800_000, intervalMs: 3_600_000, expirationSeconds: 10_800 });
  const fromCreation = planRenewal({ renewTokenRequestInterval: '10m' }, undefined, '2026-01-01T10:00:00Z', now);
  assert.ok(fromCreation.ok && fromCreation.dueInMs === 0 && fromCreation.expirationSeconds === 600);
  assert.equal(planRenewal({ renewTokenRequestInterval: 'soon' }, undefined, undefined, now).ok, false);
});

describe('token renewal through TokenRequest', () => {
  let api: TestApiServer;
  let mgmt: KubeClient;
  let edge: KubeClient;
  let informers: InformerFactory;
  let registry: ClusterRegistry;
  let readiness: ClusterReadinessController;
  let tokens: TokenRenewalController;
  let recorder: EventRecorder;

  const sc = (ns: string, name: string) => mgmt.getIfExists<SC>({ ...SCK, namespace: ns, name });
  const events = async (ns: string, name: string) => {
    await recorder.flush();
    return (await mgmt.list<KubeObject & { reason: string; message: string; involvedObject: { name: string } }>({ apiVersion: 'v1', kind: 'Event' }, { namespace: ns })).items.filter((e) => e.involvedObject.name === name);
  };
  const secretKubeconfig = async (ns: string, secret: string, key: string) => {
    const s = await mgmt.getIfExists<KubeObject & { data?: Record<string, string> }>({ apiVersion: 'v1', kind: 'Secret', namespace: ns, name: secret });
    const v = s?.data?.[key];
    return v === undefined ? undefined : Buffer.from(v, 'base64').toString('utf8');
  };
  const tokenOf = (kubeconfig: string) => (parseYaml(kubeconfig) as { users: { user: { token?: string } }[] }).users[0]!.user.token;
  const whoAmI = async (kubeconfig: string) => {
    const c = new KubeClient(loadKubeConfig({ yaml: kubeconfig }));
    try {
      const r = await c.request<{ status: { userInfo: { username: string } } }>({ method: 'POST', path: '/apis/authentication.k8s.io/v1/selfsubjectreviews', body: { apiVersion: 'authentication.k8s.io/v1', kind: 'SelfSubjectReview' } });
      return r.status.userInfo.username;
    } finally {
      c.close();
    }
  };
  /** A ServiceAccount in projectsveltos, optionally allowed to create its own tokens; returns a kubeconfig for it. */
  const serviceAccount = async (client: KubeClient, cluster: string, name: string, mayRenew: boolean) => {
    const ns = 'projectsveltos';
    if (!(await client.getIfExists({ apiVersion: 'v1', kind: 'Namespace', name: ns }))) await client.create({ apiVersion: 'v1', kind: 'Namespace', metadata: { name: ns } });
    await client.create({ apiVersion: 'v1', kind: 'ServiceAccount', metadata: { name, namespace: ns } });
    if (mayRenew) {
      await client.create({ apiVersion: 'rbac.authorization.k8s.io/v1', kind: 'Role', metadata: { name, namespace: ns }, rules: [{ apiGroups: [''], resources: ['serviceaccounts/token'], resourceNames: [name], verbs: ['create'] }] });
      await client.create({ apiVersion: 'rbac.authorization.k8s.io/v1', kind: 'RoleBinding', metadata: { name, namespace: ns }, roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'Role', name }, subjects: [{ kind: 'ServiceAccount', name, namespace: ns }] });
    }
    const tr = await client.request<{ status: { token: string } }>({ method: 'POST', path: `/api/v1/namespaces/${ns}/serviceaccounts/${name}/token`, body: { spec: { expirationSeconds: 3600 } } });
    return withToken(api.server.kubeconfigYaml(cluster), tr.status.token);
  };
  const register = async (ns: string, name: string, kubeconfig: string, option: Record<string, unknown>) => {
    if (!(await mgmt.getIfExists({ apiVersion: 'v1', kind: 'Namespace', name: ns }))) await mgmt.create({ apiVersion: 'v1', kind: 'Namespace', metadata: { name: ns } });
    await mgmt.create({ ...SCK, metadata: { name, namespace: ns }, spec: { tokenRequestRenewalOption: option } });
    await registerCluster(mgmt, { namespace: ns, name, kubeconfig });
  };

  before(async () => {
    api = await startTestApiServer({ clusters: ['mgmt', 'edge'] });
    mgmt = new KubeClient(await api.kubeConfig('mgmt'));
    edge = new KubeClient(await api.kubeConfig('edge'));
    for (const crd of generateCrds()) await mgmt.create(crd as unknown as KubeObject);
    informers = new InformerFactory(mgmt);
    registry = new ClusterRegistry({ informers, kubeconfigTtlMs: 100 });
    registry.start();
    await registry.waitForSync({ timeoutMs: 10_000 });
    recorder = new EventRecorder(mgmt);
    tokens = new TokenRenewalController({ registry, informers, recorder });
    readiness = new ClusterReadinessController({ registry, informers, recorder, probeIntervalMs: 200, failureBackoff: { initialMs: 30, maxMs: 150, jitter: 0 }, extraProblem: (ns, n) => tokens.problem(ns, n) });
    tokens.start();
    readiness.start();
  });
  after(async () => {
    await readiness.stop();
    await tokens.stop();
    await recorder.close();
    await registry.stop();
    await informers.stop();
    mgmt.close();
    edge.close();
    await api.stop();
  });

  test('a ServiceAccount token is renewed on its interval into re-kubeconfig, and the new token works', async () => {
    const initial = await serviceAccount(edge, 'edge', 'sveltos-renew', true);
    await register('fleet', 'edge', initial, { renewTokenRequestInterval: '2s', tokenDuration: '1h' });
    const renewed = await eventually(() => sc('fleet', 'edge'), (o) => !!o?.status?.lastReconciledTokenRequestAt && o.spec?.kubeconfigKeyName === 're-kubeconfig', { message: 'renewed once' });
    const first = await secretKubeconfig('fleet', 'edge-sveltos-kubeconfig', 're-kubeconfig');
    assert.ok(first);
    assert.notEqual(tokenOf(first), tokenOf(initial));
    assert.deepEqual(serviceAccountOfToken(tokenOf(first)), { namespace: 'projectsveltos', name: 'sveltos-renew' }, 'deduced from the current token');
    assert.equal(await whoAmI(first), 'system:serviceaccount:projectsveltos:sveltos-renew');
    assert.equal(await secretKubeconfig('fleet', 'edge-sveltos-kubeconfig', 'kubeconfig'), initial, 'the original key is left as it was');
    await eventually(() => events('fleet', 'edge'), (evs) => evs.some((e) => e.reason === 'TokenRenewed' && /projectsveltos\/sveltos-renew/.test(e.message)), { message: 'Event' });
    // The next renewal comes from the timer, with the renewed kubeconfig's own token.
    await eventually(() => sc('fleet', 'edge'), (o) => o?.status?.lastReconciledTokenRequestAt !== renewed!.status!.lastReconciledTokenRequestAt, { message: 'renewed again', timeoutMs: 20_000 });
    const second = await secretKubeconfig('fleet', 'edge-sveltos-kubeconfig', 're-kubeconfig');
    assert.notEqual(tokenOf(second!), tokenOf(first));
    await eventually(() => sc('fleet', 'edge'), (o) => o?.status?.ready === true, { message: 'the cluster works through the renewed kubeconfig' });
  });

  test("the management cluster's own SveltosCluster renews too (saName/saNamespace given: the admin credential is no ServiceAccount)", async () => {
    await serviceAccount(mgmt, 'mgmt', 'mgmt-renew', true);
    await register(MANAGEMENT_CLUSTER.namespace, MANAGEMENT_CLUSTER.name, api.server.kubeconfigYaml('mgmt'), {
      renewTokenRequestInterval: '2s',
      tokenDuration: '2h',
      saName: 'mgmt-renew',
      saNamespace: 'projectsveltos',
      kubeconfigKeyName: 'kubeconfig',
    });
    const o = await eventually(() => sc(MANAGEMENT_CLUSTER.namespace, MANAGEMENT_CLUSTER.name), (x) => !!x?.status?.lastReconciledTokenRequestAt, { message: 'mgmt renewed' });
    assert.equal(o!.spec!.kubeconfigKeyName, 'kubeconfig', 'a configured key is used as is');
    const kc = await secretKubeconfig(MANAGEMENT_CLUSTER.namespace, `${MANAGEMENT_CLUSTER.name}-sveltos-kubeconfig`, 'kubeconfig');
    assert.equal(await whoAmI(kc!), 'system:serviceaccount:projectsveltos:mgmt-renew', 'written to the configured key');
  });

  test('a ServiceAccount that may not create tokens, and a bad interval, are reported on their cluster only', async () => {
    const kc = await serviceAccount(edge, 'edge', 'no-rights', false);
    await register('fleet', 'norights', kc, { renewTokenRequestInterval: '1s', tokenDuration: '1h' });
    await register('fleet', 'badinterval', api.server.kubeconfigYaml('edge'), { renewTokenRequestInterval: 'daily' });
    const denied = await eventually(() => sc('fleet', 'norights'), (o) => /token renewal: .*forbidden/i.test(o?.status?.failureMessage ?? ''), { message: 'forbidden reported' });
    assert.equal(denied!.status!.ready, true, 'the cluster itself is reachable');
    await eventually(() => events('fleet', 'norights'), (evs) => evs.some((e) => e.reason === 'TokenRenewalFailed'), { message: 'Event' });
    await eventually(() => sc('fleet', 'badinterval'), (o) => /renewTokenRequestInterval: time: invalid duration "daily"/.test(o?.status?.failureMessage ?? ''), { message: 'bad interval reported' });
    const edgeNow = await sc('fleet', 'edge');
    assert.equal(edgeNow!.status!.failureMessage, undefined, 'the healthy cluster is unaffected');
  });

  test('a revoked credential (ServiceAccount deleted: the token no longer authenticates) shows in status and Events', async () => {
    const kc = await serviceAccount(edge, 'edge', 'revoked', true);
    await register('fleet', 'revoked', kc, { renewTokenRequestInterval: '1h', tokenDuration: '2h' });
    await eventually(() => sc('fleet', 'revoked'), (o) => o?.status?.ready === true, { message: 'revoked ready first' });
    await edge.delete({ apiVersion: 'v1', kind: 'ServiceAccount', namespace: 'projectsveltos', name: 'revoked' });
    const down = await eventually(() => sc('fleet', 'revoked'), (o) => (o as { status?: { connectionStatus?: string } } | undefined)?.status?.connectionStatus === 'Down', { message: 'Down', timeoutMs: 20_000 });
    assert.match(down!.status!.failureMessage ?? '', /Unauthorized|401/i);
    await eventually(() => events('fleet', 'revoked'), (evs) => evs.some((e) => e.reason === 'ConnectionDown'), { message: 'ConnectionDown Event' });
    assert.equal((await sc('fleet', 'edge'))!.status!.failureMessage, undefined, 'other clusters unaffected');
  });
});
