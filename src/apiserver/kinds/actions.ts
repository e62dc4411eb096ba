// Action subresources: pods/eviction (honouring PodDisruptionBudgets), pods/binding, pods/log, the streaming pod
// subresources (exec, attach, portforward, proxy — refused: no process runs here) and certificatesigningrequests/approval.
// Go: pkg/registry/core/pod/storage/eviction.go, BindingREST, pkg/registry/certificates/certificates (approval)
import { asArray, asRecord } from '../printers.js';
import { internalWrite, mutate, remove, scopeFor } from '../registry.js';
import type { ActionContext, ActionResult, SubresourceAction } from '../resource.js';
import { labelSelectorFromMatch, SelectorError } from '../selectors.js';
import { StatusError, badRequest, conflict, invalid, notFound, tooManyRequests } from '../status.js';
import { isPlainObject, type KubeObject, type Stored } from '../types.js';

const PODS = { group: '', resource: 'pods' };
const SUCCESS = (code: number) => ({ kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Success', code });

function podOf(ctx: ActionContext): Stored {
  const pod = ctx.cluster.get('/pods', ctx.namespace, ctx.name);
  if (!pod) throw notFound(PODS, ctx.name);
  return pod;
}

function selects(selector: unknown, labels: Record<string, string>): boolean {
  if (!isPlainObject(selector)) return false;
  try {
    return labelSelectorFromMatch(selector as never).matches(labels);
  } catch (e) {
    if (e instanceof SelectorError) return false;
    throw e;
  }
}

const EVICTION_BLOCKED = "Cannot evict pod as it would violate the pod's disruption budget.";

// Go: EvictionREST.Create — a terminal pod goes at once; otherwise the one matching budget must allow a disruption,
// which the eviction consumes.
function evict(ctx: ActionContext): { code: number; obj: object } {
  if (!isPlainObject(ctx.body) || (ctx.body.kind !== undefined && ctx.body.kind !== 'Eviction')) throw badRequest(`the body is not an Eviction`);
  const pod = podOf(ctx);
  const podDesc = ctx.cluster.registry.lookup('', 'v1', 'pods')!;
  const phase = asRecord(pod.obj.status).phase;
  const labels = (pod.obj.metadata.labels ?? {}) as Record<string, string>;
  const pdbDesc = ctx.cluster.registry.lookup('policy', 'v1', 'poddisruptionbudgets');
  const budgets = phase === 'Succeeded' || phase === 'Failed' || !pdbDesc
    ? []
    : [...(ctx.cluster.tables.get(pdbDesc.storage)?.objects.values() ?? [])].filter((s) => s.obj.metadata.namespace === ctx.namespace && selects(asRecord(s.obj.spec).selector, labels));
  if (budgets.length > 1) {
    throw new StatusError({ kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Failure', message: 'This pod has more than one PodDisruptionBudget, which the eviction subresource does not support.', reason: 'InternalError', code: 500 } as never);
  }
  const pdb = budgets[0]?.obj;
  if (pdb) {
    const st = asRecord(pdb.status);
    const ready = asArray(asRecord(pod.obj.status).conditions).some((c) => asRecord(c).type === 'Ready' && asRecord(c).status === 'True');
    const unhealthyMayGo = !ready && asRecord(pdb.spec).unhealthyPodEvictionPolicy === 'AlwaysAllow';
    if (!unhealthyMayGo) {
      const name = pdb.metadata?.name;
      if (Number(st.observedGeneration ?? 0) < Number(pdb.metadata?.generation ?? 0)) {
        throw tooManyRequests(EVICTION_BLOCKED, [{ reason: 'DisruptionBudget', message: `The disruption budget ${name} is still being processed by the server.` }]);
      }
      if (Number(st.disruptionsAllowed ?? 0) <= 0) {
        throw tooManyRequests(EVICTION_BLOCKED, [{ reason: 'DisruptionBudget', message: `The disruption budget ${name} needs ${st.desiredHealthy ?? 0} healthy pods and has ${st.currentHealthy ?? 0} currently` }]);
      }
      if (!ctx.dryRun) {
        mutate(scopeFor(ctx.cluster, pdbDesc!, ctx.namespace, 'status'), name!, (o) => {
          const s = asRecord(o.status);
          o.status = { ...s, disruptionsAllowed: Number(s.disruptionsAllowed ?? 0) - 1, disruptedPods: { ...asRecord(s.disruptedPods), [ctx.name]: new Date().toISOString().replace(/\.\d{3}Z$/, 'Z') } };
        }, internalWrite(ctx.fieldManager));
      }
    }
  }
  const opts = isPlainObject(asRecord(ctx.body).deleteOptions) ? (asRecord(ctx.body).deleteOptions as Record<string, unknown>) : {};
  if (!ctx.dryRun) remove(scopeFor(ctx.cluster, podDesc, ctx.namespace), ctx.name, { preconditions: opts.preconditions as never });
  return { code: 201, obj: SUCCESS(201) };
}

/** evictionAction is pods/eviction. */
export const evictionAction: SubresourceAction = { name: 'eviction', verbs: ['create'], kind: { group: 'policy', version: 'v1', kind: 'Eviction' }, run: evict };

// Go: BindingREST.Create → assignPod.
function bind(ctx: ActionContext): { code: number; obj: object } {
  const body = asRecord(ctx.body);
  const target = asRecord(body.target);
  if (!target.name) throw invalid({ group: '', kind: 'Binding' }, ctx.name, [{ type: 'FieldValueRequired', field: 'target.name', detail: '' }]);
  const pod = podOf(ctx);
  const bound = asRecord(pod.obj.spec).nodeName;
  if (bound) throw conflict({ group: '', resource: 'pods/binding' }, ctx.name, `pod ${ctx.name} is already assigned to node "${String(bound)}"`);
  if (!ctx.dryRun) {
    const podDesc = ctx.cluster.registry.lookup('', 'v1', 'pods')!;
    mutate(scopeFor(ctx.cluster, podDesc, ctx.namespace, 'binding'), ctx.name, (p) => {
      p.spec = { ...asRecord(p.spec), nodeName: String(target.name) };
    }, internalWrite(ctx.fieldManager));
  }
  return { code: 201, obj: SUCCESS(201) };
}

/** bindingAction is pods/binding. */
export const bindingAction: SubresourceAction = { name: 'binding', verbs: ['create'], kind: { group: '', version: 'v1', kind: 'Binding' }, run: bind };

// Go: csr approvalStrategy — only status.conditions of type Approved/Denied change; both at once is invalid.
function approve(ctx: ActionContext): { code: number; obj: object } {
  const desc = ctx.cluster.registry.lookup('certificates.k8s.io', 'v1', 'certificatesigningrequests')!;
  const cur = ctx.cluster.get(desc.storage, undefined, ctx.name);
  if (!cur) throw notFound({ group: 'certificates.k8s.io', resource: 'certificatesigningrequests' }, ctx.name);
  if (ctx.verb === 'get') return { code: 200, obj: cur.obj };
  const conditions = asArray(asRecord(asRecord(ctx.body).status).conditions).map(asRecord);
  const types = new Set(conditions.map((c) => String(c.type)));
  if (types.has('Approved') && types.has('Denied')) {
    throw invalid({ group: 'certificates.k8s.io', kind: 'CertificateSigningRequest' }, ctx.name, [{ type: 'FieldValueInvalid', field: 'status.conditions', badValue: 'Approved', detail: 'Approved and Denied conditions are mutually exclusive' }]);
  }
  const now = new Date().toISOString().replace(/\.\d{3}Z$/, 'Z');
  let out: KubeObject = cur.obj;
  const r = mutate(scopeFor(ctx.cluster, desc, '', 'status'), ctx.name, (o) => {
    const st = asRecord(o.status);
    const others = asArray(st.conditions).map(asRecord).filter((c) => c.type !== 'Approved' && c.type !== 'Denied');
    const next = conditions.filter((c) => c.type === 'Approved' || c.type === 'Denied').map((c) => ({ ...c, lastUpdateTime: c.lastUpdateTime ?? now, lastTransitionTime: c.lastTransitionTime ?? now }));
    o.status = { ...st, conditions: [...others, ...next] };
  }, { dryRun: ctx.dryRun, fieldManager: ctx.fieldManager, fieldValidation: 'Ignore', warnings: [] });
  if (r) out = r.obj;
  return { code: 200, obj: out };
}

/** approvalAction is certificatesigningrequests/approval. */
export const approvalAction: SubresourceAction = {
  name: 'approval',
  verbs: ['get', 'update'],
  kind: { group: 'certificates.k8s.io', version: 'v1', kind: 'CertificateSigningRequest' },
  run: approve,
};

// ----------------------------------------------------------------------------- pods/log and streams

const SIMULATED = (ns: string, name: string) => `pod ${ns}/${name} is simulated by the embedded API server: its containers run no process`;

function containerNames(pod: KubeObject, key: string): string[] {
  return asArray(asRecord(pod.spec)[key]).map((c) => String(asRecord(c).name ?? ''));
}

// Go: pod.LogLocation / validateContainer — the container must be named when the pod has several, and exist.
function logContainer(pod: KubeObject, requested: string | null): string {
  const name = pod.metadata!.name!;
  const main = containerNames(pod, 'containers');
  if (!requested) {
    if (main.length === 1) return main[0]!;
    const init = containerNames(pod, 'initContainers');
    const eph = containerNames(pod, 'ephemeralContainers');
    let msg = `a container name must be specified for pod ${name}, choose one of: [${main.join(' ')}]`;
    if (init.length > 0) msg += ` or one of the init containers: [${init.join(' ')}]`;
    if (eph.length > 0) msg += ` or one of the ephemeral containers: [${eph.join(' ')}]`;
    throw badRequest(msg);
  }
  const valid = [...main, ...containerNames(pod, 'initContainers'), ...containerNames(pod, 'ephemeralContainers')];
  if (!valid.includes(requested)) throw badRequest(`container ${requested} is not valid for pod ${name}`);
  return requested;
}

function waitingReason(pod: KubeObject, container: string): string | undefined {
  const st = asRecord(pod.status);
  const statuses = [...asArray(st.containerStatuses), ...asArray(st.initContainerStatuses), ...asArray(st.ephemeralContainerStatuses)].map(asRecord);
  const cs = statuses.find((c) => c.name === container);
  if (!cs) return st.phase === 'Running' || st.phase === 'Succeeded' || st.phase === 'Failed' ? undefined : 'ContainerCreating';
  const waiting = asRecord(asRecord(cs.state).waiting);
  return cs.state && Object.keys(asRecord(cs.state)).length > 0 && !('waiting' in asRecord(cs.state)) ? undefined : String(waiting.reason ?? 'ContainerCreating');
}

// Go: LogREST.Get — answered with the container's log; a simulated container has written none (said in a warning).
function podLog(ctx: ActionContext): ActionResult {
  const pod = podOf(ctx).obj;
  const container = logContainer(pod, ctx.query.get('container'));
  const waiting = waitingReason(pod, container);
  if (waiting) throw badRequest(`container "${container}" in pod "${ctx.name}" is waiting to start: ${waiting}`);
  return { code: 200, obj: {}, text: '', warnings: [`${SIMULATED(ctx.namespace, ctx.name)} and writes no log`] };
}

/** logAction is pods/log. */
export const logAction: SubresourceAction = { name: 'log', verbs: ['get'], kind: { group: '', version: 'v1', kind: 'Pod' }, run: podLog };

function streamAction(name: string, verbs: string[], what: string): SubresourceAction {
  return {
    name,
    verbs,
    kind: { group: '', version: 'v1', kind: name === 'proxy' ? 'Pod' : name === 'portforward' ? 'PodPortForwardOptions' : name === 'exec' ? 'PodExecOptions' : 'PodAttachOptions' },
    stream: true,
    run(ctx) {
      podOf(ctx);
      throw badRequest(`${SIMULATED(ctx.namespace, ctx.name)}: ${what} is not available on an embedded cluster; use a real cluster for it`);
    },
  };
}

/** The streaming pod subresources, served (discovery and RBAC see them) and refused with the reason. */
export const podStreamActions: SubresourceAction[] = [
  streamAction('attach', ['create', 'get'], 'attach'),
  streamAction('exec', ['create', 'get'], 'exec'),
  streamAction('portforward', ['create', 'get'], 'port-forward'),
  streamAction('proxy', ['create', 'delete', 'get', 'patch', 'update'], 'proxy'),
];
