// report-cycle bench: what one event costs the EventReport protocol alone, on the embedded API server in this
// process — the agent's server-side apply of the whole report (RIPPLE_REPORT_CYCLE_RESOURCES collected Services,
// default 100, one of them changed), its status apply (WaitingForDelivery) and the event manager's (Processed), with
// one informer-style watch parsing every version. Process CPU per cycle (robust to other load on the machine), and
// the same split by step. This is the floor the Sveltos report format sets on per-event CPU: every event moves the
// whole report three times through validation, storage, watch fan-out and responses.
import { generateCrds } from '../api/index.js';
import { KubeClient, type KubeObject } from '../kube/index.js';
import { startTestApiServer } from '../../test/support/apiserver.js';
import { buildManagementReport, encodeResourceDocument, joinEncodedDocuments, objectReferenceOf } from './report.js';
import { FIELD_MANAGER, PHASE_WAITING } from './writer.js';

const ER = { apiVersion: 'lib.projectsveltos.io/v1beta1', kind: 'EventReport' } as const;
const cpuMs = (since: NodeJS.CpuUsage) => {
  const u = process.cpuUsage(since);
  return (u.user + u.system) / 1000;
};
const r2 = (x: number) => Math.round(x * 100) / 100;

export async function bench(): Promise<Record<string, unknown>> {
  const resources = Number(process.env.RIPPLE_REPORT_CYCLE_RESOURCES ?? 100);
  const cycles = Number(process.env.RIPPLE_REPORT_CYCLE_SAMPLES ?? 300);
  // The agent and the event manager ask for metadata-only answers to these writes; RIPPLE_REPORT_CYCLE_FULL=1 asks
  // for the whole report back, as before (for comparison).
  const metadataOnly = process.env.RIPPLE_REPORT_CYCLE_FULL !== '1';
  const api = await startTestApiServer({ clusters: ['mgmt'] });
  const c = new KubeClient(await api.kubeConfig('mgmt'));
  try {
    await Promise.all(generateCrds().map((crd) => c.create(crd as unknown as KubeObject)));
    for (const name of ['ns1', 'bench']) await c.create({ apiVersion: 'v1', kind: 'Namespace', metadata: { name } } as KubeObject);
    const svcs: KubeObject[] = [];
    for (let i = 0; i < resources; i++) {
      const svc = { apiVersion: 'v1', kind: 'Service', metadata: { namespace: 'bench', name: `svc-${i}`, labels: { bench: 'yes' } }, spec: { type: 'ClusterIP', ports: [{ name: 'http', port: 1000 + i, protocol: 'TCP' }] } };
      svcs.push(await c.create(svc as unknown as KubeObject));
    }
    const docs = svcs.map((s) => encodeResourceDocument(s));
    const cluster = { clusterNamespace: 'ns1', clusterName: 'c1', clusterType: 'Sveltos' as const };
    let versions = 0;
    const w = await c.watch(ER, { namespace: 'ns1' }, () => void versions++);
    const steps = { specApply: 0, agentStatus: 0, managerStatus: 0 };
    let bytes = 0;
    const cycle = async (i: number, measure: boolean) => {
      const k = i % svcs.length;
      const s = svcs[k] as KubeObject & { spec: { ports: object[] } };
      docs[k] = encodeResourceDocument({ ...s, spec: { ...s.spec, ports: [{ name: 'http', port: 2000 + (i % 30000), protocol: 'TCP' }] } });
      const r = buildManagementReport(cluster, { eventSourceName: 'es', matchingResources: svcs.map(objectReferenceOf), resources: joinEncodedDocuments(docs) });
      const body = { apiVersion: r.apiVersion, kind: r.kind, metadata: { name: r.metadata.name, namespace: r.metadata.namespace, labels: r.metadata.labels }, spec: r.spec };
      const status = (phase: string) => ({ ...ER, metadata: { name: r.metadata.name, namespace: 'ns1' }, status: { phase } }) as KubeObject;
      let t = process.cpuUsage();
      await c.apply(body as unknown as KubeObject, { fieldManager: FIELD_MANAGER, force: true, metadataOnly });
      if (measure) (steps.specApply += cpuMs(t)), (t = process.cpuUsage());
      await c.apply(status(PHASE_WAITING), { fieldManager: FIELD_MANAGER, force: true, subresource: 'status', metadataOnly });
      if (measure) (steps.agentStatus += cpuMs(t)), (t = process.cpuUsage());
      await c.apply(status('Processed'), { fieldManager: 'ripple-event-manager', force: true, subresource: 'status', metadataOnly });
      if (measure) steps.managerStatus += cpuMs(t);
      bytes = JSON.stringify(body).length;
    };
    for (let i = 0; i < 30; i++) await cycle(i, false);
    const v0 = versions;
    const t0 = process.cpuUsage();
    for (let i = 0; i < cycles; i++) await cycle(i, true);
    const total = cpuMs(t0);
    w.stop();
    return {
      resources,
      cycles,
      reportBytes: bytes,
      metadataOnlyAnswers: metadataOnly,
      versionsPerCycle: r2((versions - v0) / cycles),
      cpuMsPerCycle: r2(total / cycles),
      cpuMsPerStep: { specApply: r2(steps.specApply / cycles), agentStatus: r2(steps.agentStatus / cycles), managerStatus: r2(steps.managerStatus / cycles) },
    };
  } finally {
    c.close();
    await api.stop();
  }
}
