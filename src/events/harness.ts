// harness.ts: the event manager against the embedded API server, for tests and the bench — a management cluster with
// Ripple's CRDs, SveltosClusters marked ready (no agent, no readiness probing), EventReports written the way the
// agent writes them, and a manager that can be stopped and started again (restart tests).
import { Registry } from 'prom-client';
import { eventReportName, generateCrds } from '../api/index.js';
import { buildManagementReport, encodeEventReportResources, FIELD_MANAGER as AGENT_FIELD_MANAGER, objectReferenceOf, PHASE_WAITING } from '../agent/index.js';
import { ClusterRegistry, clusterKey } from '../clusters/index.js';
import { EventRecorder, InformerFactory, KubeClient, isAlreadyExists, type KubeObject } from '../kube/index.js';
import { startTestApiServer, type TestApiServer } from '../../test/support/apiserver.js';
import { startEventManager, type EventManager, type EventManagerOptions } from './manager.js';

/** HarnessCluster is a managed cluster known only as a SveltosCluster in the management cluster. */
export interface HarnessCluster {
  namespace: string;
  name: string;
  labels?: Record<string, string>;
}

/** Harness is a management cluster with a fleet registry and a restartable event manager. */
export interface Harness {
  api: TestApiServer;
  mgmt: KubeClient;
  informers: InformerFactory;
  registry: ClusterRegistry;
  recorder: EventRecorder;
  metrics: Registry;
  manager: EventManager | undefined;
  startManager(o?: Partial<EventManagerOptions>): Promise<EventManager>;
  stopManager(): Promise<void>;
  ensureNamespace(ns: string): Promise<void>;
  addCluster(c: HarnessCluster): Promise<void>;
  setClusterLabels(namespace: string, name: string, labels: Record<string, string>): Promise<void>;
  /** putReport creates or updates the management-cluster EventReport as the agent writes it. */
  putReport(c: { namespace: string; name: string }, eventSource: string, resources: KubeObject[], o?: { collect?: boolean; failure?: string }): Promise<void>;
  deleteReport(c: { namespace: string; name: string }, eventSource: string): Promise<void>;
  apply(obj: KubeObject): Promise<KubeObject>;
  stop(): Promise<void>;
}

const SC = { apiVersion: 'lib.projectsveltos.io/v1beta1', kind: 'SveltosCluster' } as const;

/** startHarness starts the API server, installs the CRDs and the fleet registry (the manager is started separately). */
export async function startHarness(o: { clusters?: HarnessCluster[]; watchWindow?: number } = {}): Promise<Harness> {
  const api = await startTestApiServer({ clusters: ['mgmt'], watchWindow: o.watchWindow });
  const mgmt = new KubeClient(await api.kubeConfig('mgmt'));
  await Promise.all(generateCrds().map((crd) => mgmt.create(crd as unknown as KubeObject)));
  const informers = new InformerFactory(mgmt);
  const registry = new ClusterRegistry({ informers });
  registry.start();
  const recorder = new EventRecorder(mgmt, { component: 'ripple-event-manager' });
  const metrics = new Registry();
  const namespaces = new Set<string>();

  const h: Harness = {
    api,
    mgmt,
    informers,
    registry,
    recorder,
    metrics,
    manager: undefined,
    async ensureNamespace(ns) {
      if (namespaces.has(ns)) return;
      try {
        await mgmt.create({ apiVersion: 'v1', kind: 'Namespace', metadata: { name: ns } });
      } catch (e) {
        if (!isAlreadyExists(e)) throw e;
      }
      namespaces.add(ns);
    },
    async addCluster(c) {
      await h.ensureNamespace(c.namespace);
      await mgmt.create({ ...SC, metadata: { namespace: c.namespace, name: c.name, labels: c.labels ?? {} }, spec: {} });
      await mgmt.apply(
        { ...SC, metadata: { namespace: c.namespace, name: c.name }, status: { ready: true, connectionStatus: 'Healthy', version: 'v1.32.0' } },
        { fieldManager: 'harness-readiness', force: true, subresource: 'status' },
      );
    },
    async setClusterLabels(namespace, name, labels) {
      await mgmt.patch({ ...SC, namespace, name }, 'merge', { metadata: { labels } });
    },
    async putReport(c, es, resources, ro = {}) {
      // Exactly what the agent writes: its report builder and encoding, its field manager, then the phase.
      const report = buildManagementReport(
        { clusterNamespace: c.namespace, clusterName: c.name, clusterType: 'Sveltos' },
        {
          eventSourceName: es,
          matchingResources: resources.map((r) => objectReferenceOf(r)),
          resources: ro.collect === false ? undefined : encodeEventReportResources(resources),
          failureMessage: ro.failure,
        },
      );
      await mgmt.apply(report as unknown as KubeObject, { fieldManager: AGENT_FIELD_MANAGER, force: true });
      await mgmt.apply(
        { apiVersion: report.apiVersion, kind: report.kind, metadata: { name: report.metadata.name, namespace: c.namespace }, status: { phase: PHASE_WAITING } },
        { fieldManager: AGENT_FIELD_MANAGER, force: true, subresource: 'status' },
      );
    },
    async deleteReport(c, es) {
      await mgmt.delete({ apiVersion: 'lib.projectsveltos.io/v1beta1', kind: 'EventReport', namespace: c.namespace, name: eventReportName('Sveltos', es, c.name) });
    },
    async apply(obj) {
      if (obj.metadata.namespace) await h.ensureNamespace(obj.metadata.namespace);
      return mgmt.apply(obj, { fieldManager: 'test-user', force: true });
    },
    async startManager(mo = {}) {
      if (h.manager) throw new Error('manager already running');
      h.manager = startEventManager({ client: mgmt, informers, registry, recorder, metrics, coalesceMs: 2, statusDelayMs: 50, ...mo });
      await h.manager.ready;
      return h.manager;
    },
    async stopManager() {
      const m = h.manager;
      h.manager = undefined;
      await m?.stop();
    },
    async stop() {
      await h.stopManager();
      await recorder.close();
      await registry.stop();
      await informers.stop();
      mgmt.close();
      await api.stop();
    },
  };
  await h.ensureNamespace('projectsveltos');
  for (const c of o.clusters ?? []) await h.addCluster(c);
  await registry.waitForSync();
  if ((o.clusters ?? []).length > 0) {
    // Wait until the registry sees every cluster ready.
    const keys = (o.clusters ?? []).map((c) => clusterKey('Sveltos', c.namespace, c.name));
    for (let i = 0; i < 500 && !keys.every((k) => registry.get(k)?.ready); i++) await new Promise((r) => setTimeout(r, 10));
  }
  return h;
}
