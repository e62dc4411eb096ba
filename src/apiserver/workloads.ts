// The workload simulator of one virtual cluster: what kube-controller-manager, the scheduler and a kubelet would do for
// workloads, minus running containers. Deployments roll out ReplicaSets; ReplicaSets, ReplicationControllers,
// StatefulSets (with their PVCs), DaemonSets and Jobs get Pods; Pods are bound to the cluster's node and report
// Running and Ready at once; Job pods finish after a short one-shot delay (the annotation ripple.dev/simulate-job:
// fail makes them fail); CronJobs create Jobs on schedule; owners report the status `kubectl rollout status` and
// `kubectl wait` look at. Everything reacts to committed changes; timers are one-shot (a pod's finish, a CronJob's
// next run). Go: pkg/controller/{deployment,replicaset,statefulset,daemon,job,cronjob}, the scheduler and the kubelet.
import { createHash, randomBytes } from 'node:crypto';
import type { Cluster, Logger } from './cluster.js';
import { asArray, asRecord } from './printers.js';
import { create, internalWrite, mutate, remove, scopeFor, type Subresource, type WriteOptions } from './registry.js';
import type { ResourceDescriptor } from './resource.js';
import { isStatusError } from './status.js';
import { deepEqual, isPlainObject, type KubeObject, type Stored } from './types.js';
import { labelSelectorFromMatch, SelectorError } from './selectors.js';
import type { ChangeEvent } from './watch.js';

/** SIMULATE_JOB_ANNOTATION set to "fail" on a Job makes its pods fail. */
export const SIMULATE_JOB_ANNOTATION = 'ripple.dev/simulate-job';

/** WorkloadOptions configures the simulator of one cluster. */
export interface WorkloadOptions {
  /** nodeName is the node pods are scheduled to. */
  nodeName: string;
  /** nodeLabels are that node's labels (DaemonSet node selectors are matched against them). */
  nodeLabels: Record<string, string>;
  /** jobPodMs is how long a Job's pod "runs" before it succeeds or fails (default 1000). */
  jobPodMs?: number;
  logger: Logger;
}

type Key = string; // storage \0 namespace/name

const POD = '/pods';
const RS = 'apps/replicasets';
const DEPLOY = 'apps/deployments';
const STS = 'apps/statefulsets';
const DS = 'apps/daemonsets';
const RC = '/replicationcontrollers';
const JOB = 'batch/jobs';
const CRONJOB = 'batch/cronjobs';
const PVC = '/persistentvolumeclaims';
const REVISIONS = 'apps/controllerrevisions';
const PDB = 'policy/poddisruptionbudgets';
const POD_OWNERS = new Set([RS, STS, DS, RC, JOB]);
const WATCHED = new Set([POD, RS, DEPLOY, STS, DS, RC, JOB, CRONJOB, PDB]);

const SAFE = 'bcdfghjklmnpqrstvwxz2456789';
// Go: rand.SafeEncodeString of a hash — what pod-template-hash and controller-revision-hash look like.
function templateHash(template: unknown, n = 10): string {
  const digest = createHash('sha256').update(JSON.stringify(template ?? null)).digest();
  let s = '';
  for (let i = 0; i < n; i++) s += SAFE[digest[i] % SAFE.length];
  return s;
}

function randomSuffix(): string {
  const b = randomBytes(5);
  let s = '';
  for (const x of b) s += SAFE[x % SAFE.length];
  return s;
}

const controllerRef = (o: KubeObject) => (o.metadata?.ownerReferences ?? []).find((r) => r?.controller === true);
const isTerminating = (o: KubeObject) => !!o.metadata?.deletionTimestamp;
const phase = (o: KubeObject) => String(asRecord(o.status).phase ?? '');
const isReadyPod = (p: KubeObject) => asArray(asRecord(p.status).conditions).some((c) => asRecord(c).type === 'Ready' && asRecord(c).status === 'True');

/** WorkloadSimulator runs the workload controllers of one cluster. */
export class WorkloadSimulator {
  private readonly pending = new Set<Key>();
  private scheduled: NodeJS.Immediate | undefined;
  private readonly timers = new Map<string, NodeJS.Timeout>();
  private stopped = false;
  private nextIP = 2;
  private readonly write: WriteOptions;
  private readonly kubelet: WriteOptions = internalWrite('kubelet');

  constructor(
    private readonly cluster: Cluster,
    private readonly o: WorkloadOptions,
  ) {
    this.write = internalWrite('kube-controller-manager');
    cluster.hub.listen((ev) => this.observe(ev));
    for (const storage of WATCHED) for (const key of cluster.table(storage).objects.keys()) this.enqueue(`${storage}\0${key}`);
  }

  /** stop ends the simulator and cancels its timers. */
  stop(): void {
    this.stopped = true;
    if (this.scheduled) clearImmediate(this.scheduled);
    for (const t of this.timers.values()) clearTimeout(t);
    this.timers.clear();
  }

  private observe(ev: ChangeEvent): void {
    if (!WATCHED.has(ev.storage)) return;
    const s = ev.cur ?? ev.prev!;
    const m = s.obj.metadata;
    if (ev.type !== 'DELETED') this.enqueue(`${ev.storage}\0${m.namespace ?? ''}/${m.name}`);
    // A dependent changed: its controller recounts.
    const ref = controllerRef(s.obj);
    if (ref?.uid) this.enqueueUid(ref.uid);
    if (ev.type === 'DELETED' && ev.storage === POD) this.clearTimer(`pod\0${m.uid}`);
    // Pods come and go: the disruption budgets of their namespace recount.
    if (ev.storage === POD) for (const key of this.cluster.table(PDB).objects.keys()) if (key.startsWith(`${m.namespace}/`)) this.enqueue(`${PDB}\0${key}`);
    if (ev.type === 'DELETED' && ev.storage === CRONJOB) this.clearTimer(`cron\0${m.uid}`);
  }

  private enqueueUid(uid: string): void {
    const owner = this.cluster.byUid(uid);
    if (!owner) return;
    const desc = this.cluster.registry.forKind(owner.obj.apiVersion ?? '', owner.obj.kind ?? '');
    if (desc) this.enqueue(`${desc.storage}\0${owner.obj.metadata.namespace ?? ''}/${owner.obj.metadata.name}`);
  }

  private enqueue(key: Key): void {
    if (this.stopped) return;
    this.pending.add(key);
    if (!this.scheduled) this.scheduled = setImmediate(() => this.drain());
  }

  private drain(): void {
    this.scheduled = undefined;
    const keys = [...this.pending];
    this.pending.clear();
    for (const key of keys) {
      if (this.stopped) return;
      const [storage, id] = key.split('\0');
      const s = this.cluster.tables.get(storage)?.objects.get(id);
      if (!s) continue;
      try {
        this.sync(storage, s);
      } catch (e) {
        // A simulator must never take the server down; the next change of the object retries it.
        this.o.logger.warn({ err: e instanceof Error ? e.message : String(e), object: `${storage} ${id}` }, 'workload simulation failed');
      }
    }
  }

  private sync(storage: string, s: Stored): void {
    switch (storage) {
      case POD:
        return this.runPod(s.obj);
      case DEPLOY:
        return this.syncDeployment(s.obj);
      case RS:
      case RC:
        return this.syncReplicas(storage, s.obj);
      case STS:
        return this.syncStatefulSet(s.obj);
      case DS:
        return this.syncDaemonSet(s.obj);
      case JOB:
        return this.syncJob(s.obj);
      case CRONJOB:
        return this.syncCronJob(s.obj);
      case PDB:
        return this.syncDisruptionBudget(s.obj);
    }
  }

  // ------------------------------------------------------------------ helpers

  private desc(storage: string): ResourceDescriptor {
    const d = this.cluster.registry.forStorage(storage);
    if (!d) throw new Error(`no descriptor for ${storage}`);
    return d;
  }

  private now(): string {
    return new Date().toISOString().replace(/\.\d{3}Z$/, 'Z');
  }

  private mutate(storage: string, obj: KubeObject, fn: (o: KubeObject) => boolean | void, sub?: Subresource, o = this.write): void {
    try {
      mutate(scopeFor(this.cluster, this.desc(storage), obj.metadata?.namespace ?? '', sub), obj.metadata!.name!, fn as never, o);
    } catch (e) {
      // Someone else wrote first: their change brings us back here.
      if (isStatusError(e, 'Conflict') || isStatusError(e, 'NotFound')) return;
      throw e;
    }
  }

  private setStatus(storage: string, obj: KubeObject, status: Record<string, unknown>): void {
    if (deepEqual(asRecord(obj.status), status)) return;
    this.mutate(storage, obj, (o) => {
      if (deepEqual(asRecord(o.status), status)) return false;
      o.status = status;
    }, 'status');
  }

  private create(storage: string, namespace: string, obj: KubeObject): void {
    try {
      create(scopeFor(this.cluster, this.desc(storage), namespace), obj, this.write);
    } catch (e) {
      if (isStatusError(e, 'AlreadyExists')) return;
      throw e;
    }
  }

  private delete(storage: string, obj: KubeObject): void {
    try {
      remove(scopeFor(this.cluster, this.desc(storage), obj.metadata?.namespace ?? ''), obj.metadata!.name!, { propagationPolicy: 'Background', preconditions: { uid: obj.metadata?.uid } });
    } catch (e) {
      if (isStatusError(e, 'NotFound') || isStatusError(e, 'Conflict')) return;
      throw e;
    }
  }

  /** dependents lists the objects of a storage table whose controller is owner. */
  private dependents(owner: KubeObject, storage: string): KubeObject[] {
    const uid = owner.metadata?.uid;
    if (!uid) return [];
    const out: KubeObject[] = [];
    for (const d of this.cluster.dependentsOf(uid)) {
      if (d.storage !== storage) continue;
      const s = this.cluster.tables.get(storage)?.objects.get(d.key);
      if (s && controllerRef(s.obj)?.uid === uid) out.push(s.obj);
    }
    return out;
  }

  private ownerRef(owner: KubeObject): Record<string, unknown> {
    return { apiVersion: owner.apiVersion, kind: owner.kind, name: owner.metadata?.name, uid: owner.metadata?.uid, controller: true, blockOwnerDeletion: true };
  }

  private newPod(owner: KubeObject, template: Record<string, unknown>, name: string, extra: { labels?: Record<string, string>; nodeName?: string; hostname?: string; volumes?: unknown[] } = {}): KubeObject {
    const tmeta = asRecord(template.metadata);
    const spec: Record<string, unknown> = { ...asRecord(template.spec) };
    if (extra.nodeName) spec.nodeName = extra.nodeName;
    if (extra.hostname) spec.hostname = extra.hostname;
    if (extra.volumes) spec.volumes = [...asArray(spec.volumes), ...extra.volumes];
    if (owner.kind === 'StatefulSet' && asRecord(owner.spec).serviceName) spec.subdomain = asRecord(owner.spec).serviceName;
    return {
      apiVersion: 'v1',
      kind: 'Pod',
      metadata: {
        name,
        namespace: owner.metadata?.namespace,
        labels: { ...(asRecord(tmeta.labels) as Record<string, string>), ...(extra.labels ?? {}) },
        ...(tmeta.annotations ? { annotations: tmeta.annotations as Record<string, string> } : {}),
        ownerReferences: [this.ownerRef(owner) as never],
      },
      spec,
    };
  }

  // ------------------------------------------------------------------ pods: scheduler + kubelet

  private podIP(): string {
    const n = this.nextIP++;
    return `10.244.${Math.floor(n / 254) % 256}.${(n % 254) + 1}`;
  }

  // Go: the scheduler binds, the kubelet starts the containers and reports them ready; Job pods then finish.
  private runPod(pod: KubeObject): void {
    if (isTerminating(pod)) return;
    const spec = asRecord(pod.spec);
    if (!spec.nodeName) {
      if (!this.schedulable(spec)) {
        this.markUnschedulable(pod);
        return;
      }
      this.mutate(POD, pod, (p) => {
        if (asRecord(p.spec).nodeName) return false;
        p.spec = { ...asRecord(p.spec), nodeName: this.o.nodeName };
      }, 'binding', internalWrite('default-scheduler'));
      return;
    }
    if (spec.nodeName !== this.o.nodeName) return;
    const p = phase(pod);
    if (p === 'Succeeded' || p === 'Failed') return;
    if (p !== 'Running') {
      this.startPod(pod);
      return;
    }
    this.startEphemeral(pod);
    const job = this.jobOf(pod);
    if (job && !this.timers.has(`pod\0${pod.metadata?.uid}`)) {
      const fail = job.metadata?.annotations?.[SIMULATE_JOB_ANNOTATION] === 'fail';
      this.later(`pod\0${pod.metadata?.uid}`, this.o.jobPodMs ?? 1000, () => this.finishPod(pod, fail));
    }
  }

  // The one node fits unless the pod's nodeSelector or required node affinity names labels it lacks.
  private schedulable(spec: Record<string, unknown>): boolean {
    const labels = this.o.nodeLabels;
    if (!Object.entries(asRecord(spec.nodeSelector)).every(([k, v]) => labels[k] === v)) return false;
    const terms = asArray(asRecord(asRecord(asRecord(asRecord(spec.affinity).nodeAffinity).requiredDuringSchedulingIgnoredDuringExecution)).nodeSelectorTerms).map(asRecord);
    if (terms.length === 0) return true;
    return terms.some((t) =>
      asArray(t.matchExpressions).map(asRecord).every((e) => {
        const v = labels[String(e.key)];
        const values = asArray(e.values).map(String);
        switch (e.operator) {
          case 'In':
            return v !== undefined && values.includes(v);
          case 'NotIn':
            return v === undefined || !values.includes(v);
          case 'Exists':
            return v !== undefined;
          case 'DoesNotExist':
            return v === undefined;
          default:
            return false;
        }
      }),
    );
  }

  // Go: the scheduler's FailedScheduling status for a pod no node fits.
  private markUnschedulable(pod: KubeObject): void {
    const message = "0/1 nodes are available: 1 node(s) didn't match Pod's node affinity/selector. preemption: 0/1 nodes are available: 1 Preemption is not helpful for scheduling.";
    this.mutate(POD, pod, (p) => {
      const st = asRecord(p.status);
      if (asArray(st.conditions).some((c) => asRecord(c).reason === 'Unschedulable')) return false;
      p.status = { ...st, phase: 'Pending', conditions: [{ type: 'PodScheduled', status: 'False', lastProbeTime: null, lastTransitionTime: this.now(), reason: 'Unschedulable', message }] };
    }, 'status', internalWrite('default-scheduler'));
  }

  private containerStatuses(pod: KubeObject, state: Record<string, unknown>, ready: boolean): unknown[] {
    return asArray(asRecord(pod.spec).containers).map((c) => {
      const cc = asRecord(c);
      const image = String(cc.image ?? '');
      return {
        name: cc.name,
        image,
        imageID: `${image.includes(':') || image.includes('@') ? image.split(/[:@]/)[0] : image}@sha256:${createHash('sha256').update(image).digest('hex')}`,
        containerID: `ripple://${createHash('sha256').update(`${pod.metadata?.uid}/${String(cc.name)}`).digest('hex').slice(0, 32)}`,
        ready,
        restartCount: 0,
        started: 'running' in state,
        state,
      };
    });
  }

  // Go: the kubelet starts ephemeral containers added to a running pod (kubectl debug).
  private startEphemeral(pod: KubeObject): void {
    const wanted = asArray(asRecord(pod.spec).ephemeralContainers).map(asRecord);
    const have = new Set(asArray(asRecord(pod.status).ephemeralContainerStatuses).map((c) => asRecord(c).name));
    if (wanted.every((c) => have.has(c.name))) return;
    const now = this.now();
    this.mutate(POD, pod, (p) => {
      const st = asRecord(p.status);
      const spec = { ...asRecord(p.spec), containers: asRecord(p.spec).ephemeralContainers };
      p.status = { ...st, ephemeralContainerStatuses: this.containerStatuses({ ...p, spec }, { running: { startedAt: now } }, false) };
    }, 'status', this.kubelet);
  }

  private startPod(pod: KubeObject): void {
    const now = this.now();
    const ip = asRecord(pod.status).podIP ?? (asRecord(pod.spec).hostNetwork === true ? '172.18.0.2' : this.podIP());
    const cond = (type: string) => ({ type, status: 'True', lastProbeTime: null, lastTransitionTime: now });
    this.mutate(POD, pod, (p) => {
      const st = asRecord(p.status);
      p.status = {
        ...st,
        phase: 'Running',
        conditions: [cond('PodReadyToStartContainers'), cond('Initialized'), cond('Ready'), cond('ContainersReady'), cond('PodScheduled')],
        hostIP: '172.18.0.2',
        hostIPs: [{ ip: '172.18.0.2' }],
        podIP: ip,
        podIPs: [{ ip }],
        startTime: st.startTime ?? now,
        containerStatuses: this.containerStatuses(p, { running: { startedAt: now } }, true),
      };
    }, 'status', this.kubelet);
  }

  private finishPod(pod: KubeObject, fail: boolean): void {
    const cur = this.cluster.get(POD, pod.metadata?.namespace, pod.metadata!.name!);
    if (!cur || cur.obj.metadata.uid !== pod.metadata?.uid || phase(cur.obj) !== 'Running') return;
    const now = this.now();
    const started = String(asRecord(asRecord(asRecord(asArray(asRecord(cur.obj.status).containerStatuses)[0]).state).running).startedAt ?? now);
    const terminated = { terminated: { exitCode: fail ? 1 : 0, reason: fail ? 'Error' : 'Completed', startedAt: started, finishedAt: now } };
    this.mutate(POD, cur.obj, (p) => {
      const st = asRecord(p.status);
      const conditions = asArray(st.conditions).map((c) => {
        const cc = asRecord(c);
        return cc.type === 'Ready' || cc.type === 'ContainersReady' ? { ...cc, status: 'False', reason: 'PodCompleted', lastTransitionTime: now } : cc;
      });
      p.status = { ...st, phase: fail ? 'Failed' : 'Succeeded', conditions, containerStatuses: this.containerStatuses(p, terminated, false) };
    }, 'status', this.kubelet);
  }

  private later(id: string, ms: number, fn: () => void): void {
    this.clearTimer(id);
    const t = setTimeout(() => {
      this.timers.delete(id);
      if (this.stopped) return;
      try {
        fn();
      } catch (e) {
        this.o.logger.warn({ err: e instanceof Error ? e.message : String(e), timer: id }, 'workload simulation failed');
      }
    }, ms);
    t.unref();
    this.timers.set(id, t);
  }

  private clearTimer(id: string): void {
    const t = this.timers.get(id);
    if (t) clearTimeout(t);
    this.timers.delete(id);
  }

  private jobOf(pod: KubeObject): KubeObject | undefined {
    const ref = controllerRef(pod);
    if (ref?.kind !== 'Job' || !ref.uid) return undefined;
    return this.cluster.byUid(ref.uid)?.obj;
  }

  // ------------------------------------------------------------------ Deployment

  // Go: deployment controller — one ReplicaSet per pod template (named by its hash), the others scaled to zero.
  private syncDeployment(d: KubeObject): void {
    if (isTerminating(d)) return;
    const spec = asRecord(d.spec);
    const replicas = typeof spec.replicas === 'number' ? spec.replicas : 1;
    const template = asRecord(spec.template);
    const hash = templateHash(template);
    const name = `${d.metadata?.name}-${hash}`;
    const owned = this.dependents(d, RS);
    const revisionOf = (rs: KubeObject) => Number(rs.metadata?.annotations?.['deployment.kubernetes.io/revision'] ?? 0);
    const current = owned.find((rs) => rs.metadata?.name === name);
    const paused = spec.paused === true;
    if (!current && !paused) {
      const revision = Math.max(0, ...owned.map(revisionOf)) + 1;
      const labels = { ...(asRecord(asRecord(template.metadata).labels) as Record<string, string>), 'pod-template-hash': hash };
      const sel = asRecord(spec.selector);
      this.create(RS, d.metadata?.namespace ?? '', {
        apiVersion: 'apps/v1',
        kind: 'ReplicaSet',
        metadata: {
          name,
          namespace: d.metadata?.namespace,
          labels,
          annotations: { 'deployment.kubernetes.io/desired-replicas': String(replicas), 'deployment.kubernetes.io/max-replicas': String(replicas + 1), 'deployment.kubernetes.io/revision': String(revision) },
          ownerReferences: [this.ownerRef(d) as never],
        },
        spec: {
          replicas,
          selector: { ...sel, matchLabels: { ...asRecord(sel.matchLabels), 'pod-template-hash': hash } },
          template: { ...template, metadata: { ...asRecord(template.metadata), labels } },
          ...(spec.minReadySeconds ? { minReadySeconds: spec.minReadySeconds } : {}),
        },
      });
      return;
    }
    if (current && !paused && asRecord(current.spec).replicas !== replicas) {
      this.mutate(RS, current, (rs) => {
        rs.spec = { ...asRecord(rs.spec), replicas };
        rs.metadata!.annotations = { ...(rs.metadata!.annotations ?? {}), 'deployment.kubernetes.io/desired-replicas': String(replicas), 'deployment.kubernetes.io/max-replicas': String(replicas + 1) };
      });
    }
    if (!paused) {
      for (const old of owned) if (old !== current && asRecord(old.spec).replicas !== 0) this.mutate(RS, old, (rs) => void (rs.spec = { ...asRecord(rs.spec), replicas: 0 }));
      // Go: cleanupDeployment — only revisionHistoryLimit old, empty ReplicaSets are kept.
      const limit = typeof spec.revisionHistoryLimit === 'number' ? spec.revisionHistoryLimit : 10;
      const idle = owned.filter((rs) => rs !== current && asRecord(rs.status).replicas === 0 && asRecord(rs.spec).replicas === 0).sort((a, b) => revisionOf(a) - revisionOf(b));
      for (const rs of idle.slice(0, Math.max(0, idle.length - limit))) this.delete(RS, rs);
    }
    const sum = (f: string) => owned.reduce((n, rs) => n + Number(asRecord(rs.status)[f] ?? 0), 0);
    const updated = Number(asRecord(current?.status).replicas ?? 0);
    const available = sum('availableReplicas');
    const total = sum('replicas');
    const complete = !!current && updated === replicas && total === replicas && available === replicas;
    const prev = new Map(asArray(asRecord(d.status).conditions).map((c) => [String(asRecord(c).type), asRecord(c)]));
    const now = this.now();
    const condition = (type: string, reason: string, message: string) => {
      const p = prev.get(type);
      const same = p && p.status === 'True' && p.reason === reason;
      return { type, status: 'True', lastUpdateTime: same ? p.lastUpdateTime : now, lastTransitionTime: p?.status === 'True' ? p.lastTransitionTime : now, reason, message };
    };
    const conditions = [];
    if (available >= replicas - Math.floor(replicas * 0.25)) conditions.push(condition('Available', 'MinimumReplicasAvailable', 'Deployment has minimum availability.'));
    else conditions.push({ type: 'Available', status: 'False', lastUpdateTime: now, lastTransitionTime: now, reason: 'MinimumReplicasUnavailable', message: 'Deployment does not have minimum availability.' });
    if (current) {
      conditions.push(
        complete
          ? condition('Progressing', 'NewReplicaSetAvailable', `ReplicaSet "${name}" has successfully progressed.`)
          : condition('Progressing', 'ReplicaSetUpdated', `ReplicaSet "${name}" is progressing.`),
      );
    }
    const status: Record<string, unknown> = {
      observedGeneration: d.metadata?.generation,
      replicas: total,
      updatedReplicas: updated,
      readyReplicas: sum('readyReplicas'),
      availableReplicas: available,
      conditions,
    };
    if (replicas - available > 0) status.unavailableReplicas = replicas - available;
    for (const k of ['replicas', 'updatedReplicas', 'readyReplicas', 'availableReplicas']) if (status[k] === 0) delete status[k];
    this.setStatus(DEPLOY, d, status);
  }

  // ------------------------------------------------------------------ ReplicaSet, ReplicationController

  private syncReplicas(storage: string, owner: KubeObject): void {
    if (isTerminating(owner)) return;
    const spec = asRecord(owner.spec);
    const want = typeof spec.replicas === 'number' ? spec.replicas : 1;
    const pods = this.dependents(owner, POD).filter((p) => !isTerminating(p) && phase(p) !== 'Failed' && phase(p) !== 'Succeeded');
    const template = asRecord(spec.template);
    for (let i = pods.length; i < want; i++) this.create(POD, owner.metadata?.namespace ?? '', this.newPod(owner, template, `${owner.metadata?.name}-${randomSuffix()}`));
    // Go: getPodsToDelete — not-ready and newest pods go first.
    const extra = [...pods].sort((a, b) => Number(isReadyPod(a)) - Number(isReadyPod(b)) || String(b.metadata?.creationTimestamp).localeCompare(String(a.metadata?.creationTimestamp)));
    for (const p of extra.slice(0, Math.max(0, pods.length - want))) this.delete(POD, p);
    const live = pods.slice(0, Math.min(pods.length, want));
    const ready = live.filter(isReadyPod).length;
    const status: Record<string, unknown> = { replicas: live.length, observedGeneration: owner.metadata?.generation };
    if (storage === RC) status.fullyLabeledReplicas = live.length;
    else status.fullyLabeledReplicas = live.length;
    if (ready > 0) {
      status.readyReplicas = ready;
      status.availableReplicas = ready;
    }
    if (status.fullyLabeledReplicas === 0) delete status.fullyLabeledReplicas;
    this.setStatus(storage, owner, status);
  }

  // ------------------------------------------------------------------ StatefulSet

  private ensureRevision(owner: KubeObject, hash: string, template: unknown): string {
    const name = `${owner.metadata?.name}-${hash}`;
    if (!this.cluster.get(REVISIONS, owner.metadata?.namespace, name)) {
      const revisions = this.dependents(owner, REVISIONS).map((r) => Number(r.revision ?? 0));
      this.create(REVISIONS, owner.metadata?.namespace ?? '', {
        apiVersion: 'apps/v1',
        kind: 'ControllerRevision',
        metadata: { name, namespace: owner.metadata?.namespace, labels: { ...(asRecord(asRecord(asRecord(template).metadata).labels) as Record<string, string>), 'controller-revision-hash': hash }, ownerReferences: [this.ownerRef(owner) as never] },
        data: { spec: { template: { ...asRecord(template), $patch: 'replace' } } },
        revision: Math.max(0, ...revisions) + 1,
      });
    }
    return name;
  }

  // Go: statefulset controller — ordinal pods with stable names and their claims from volumeClaimTemplates.
  private syncStatefulSet(sts: KubeObject): void {
    if (isTerminating(sts)) return;
    const spec = asRecord(sts.spec);
    const ns = sts.metadata?.namespace ?? '';
    const name = sts.metadata?.name ?? '';
    const want = typeof spec.replicas === 'number' ? spec.replicas : 1;
    const template = asRecord(spec.template);
    const revision = this.ensureRevision(sts, templateHash(template), template);
    const start = Number(asRecord(spec.ordinals).start ?? 0);
    const pods = this.dependents(sts, POD).filter((p) => !isTerminating(p));
    const byName = new Map(pods.map((p) => [p.metadata?.name, p]));
    const claims = asArray(spec.volumeClaimTemplates).map(asRecord);
    const selectorLabels = asRecord(asRecord(spec.selector).matchLabels) as Record<string, string>;
    for (let i = start; i < start + want; i++) {
      const podName = `${name}-${i}`;
      const volumes: unknown[] = [];
      for (const c of claims) {
        const claimName = `${String(asRecord(c.metadata).name)}-${podName}`;
        volumes.push({ name: asRecord(c.metadata).name, persistentVolumeClaim: { claimName } });
        if (!this.cluster.get(PVC, ns, claimName)) {
          const retention = asRecord(spec.persistentVolumeClaimRetentionPolicy);
          const owned = retention.whenDeleted === 'Delete';
          this.create(PVC, ns, {
            apiVersion: 'v1',
            kind: 'PersistentVolumeClaim',
            metadata: { name: claimName, namespace: ns, labels: { ...(asRecord(asRecord(c.metadata).labels) as Record<string, string>), ...selectorLabels }, ...(owned ? { ownerReferences: [{ ...this.ownerRef(sts), controller: true } as never] } : {}) },
            spec: c.spec,
          });
        }
      }
      const existing = byName.get(podName);
      if (existing && existing.metadata?.labels?.['controller-revision-hash'] !== revision && spec.updateStrategy && asRecord(spec.updateStrategy).type !== 'OnDelete') {
        this.delete(POD, existing);
        continue;
      }
      if (!existing) {
        const labels = { 'controller-revision-hash': revision, 'statefulset.kubernetes.io/pod-name': podName, 'apps.kubernetes.io/pod-index': String(i) };
        this.create(POD, ns, this.newPod(sts, template, podName, { labels, hostname: podName, volumes }));
      }
    }
    for (const p of pods) {
      const ordinal = Number(p.metadata?.name?.slice(name.length + 1));
      if (!(ordinal >= start && ordinal < start + want)) this.delete(POD, p);
    }
    const live = pods.filter((p) => {
      const ordinal = Number(p.metadata?.name?.slice(name.length + 1));
      return ordinal >= start && ordinal < start + want;
    });
    const ready = live.filter(isReadyPod).length;
    const updated = live.filter((p) => p.metadata?.labels?.['controller-revision-hash'] === revision).length;
    const status: Record<string, unknown> = {
      observedGeneration: sts.metadata?.generation,
      replicas: live.length,
      availableReplicas: ready,
      currentReplicas: updated,
      updatedReplicas: updated,
      currentRevision: revision,
      updateRevision: revision,
      collisionCount: 0,
    };
    if (ready > 0) status.readyReplicas = ready;
    for (const k of ['currentReplicas', 'updatedReplicas']) if (status[k] === 0) delete status[k];
    this.setStatus(STS, sts, status);
  }

  // ------------------------------------------------------------------ DaemonSet

  private nodeMatches(template: Record<string, unknown>): boolean {
    const selector = asRecord(asRecord(template.spec).nodeSelector);
    return Object.entries(selector).every(([k, v]) => this.o.nodeLabels[k] === v);
  }

  // Go: daemon controller — one pod on every node whose labels match the template's nodeSelector.
  private syncDaemonSet(ds: KubeObject): void {
    if (isTerminating(ds)) return;
    const spec = asRecord(ds.spec);
    const template = asRecord(spec.template);
    const hash = templateHash(template);
    this.ensureRevision(ds, hash, template);
    const desired = this.nodeMatches(template) ? 1 : 0;
    const pods = this.dependents(ds, POD).filter((p) => !isTerminating(p));
    const stale = pods.filter((p) => p.metadata?.labels?.['controller-revision-hash'] !== hash);
    const onDelete = asRecord(spec.updateStrategy).type === 'OnDelete';
    if (!onDelete) for (const p of stale) this.delete(POD, p);
    const live = onDelete ? pods : pods.filter((p) => !stale.includes(p));
    if (live.length < desired) {
      const labels = { 'controller-revision-hash': hash, 'pod-template-generation': String(ds.metadata?.generation ?? 1) };
      this.create(POD, ds.metadata?.namespace ?? '', this.newPod(ds, template, `${ds.metadata?.name}-${randomSuffix()}`, { labels, nodeName: this.o.nodeName }));
    }
    for (const p of live.slice(desired)) this.delete(POD, p);
    const current = Math.min(live.length, desired);
    const ready = live.slice(0, desired).filter(isReadyPod).length;
    const updated = live.slice(0, desired).filter((p) => p.metadata?.labels?.['controller-revision-hash'] === hash).length;
    const status: Record<string, unknown> = {
      currentNumberScheduled: current,
      numberMisscheduled: 0,
      desiredNumberScheduled: desired,
      numberReady: ready,
      observedGeneration: ds.metadata?.generation,
    };
    if (updated > 0) status.updatedNumberScheduled = updated;
    if (ready > 0) status.numberAvailable = ready;
    if (desired - ready > 0) status.numberUnavailable = desired - ready;
    this.setStatus(DS, ds, status);
  }

  // ------------------------------------------------------------------ PodDisruptionBudget

  // Go: disruption controller — healthy (ready) pods the selector picks against what the budget requires.
  private syncDisruptionBudget(pdb: KubeObject): void {
    if (isTerminating(pdb)) return;
    const spec = asRecord(pdb.spec);
    const ns = pdb.metadata?.namespace ?? '';
    const pods: KubeObject[] = [];
    for (const [key, s] of this.cluster.table(POD).objects) {
      if (key.startsWith(`${ns}/`) && !isTerminating(s.obj) && selects(spec.selector, (s.obj.metadata.labels ?? {}) as Record<string, string>)) pods.push(s.obj);
    }
    const expected = pods.length;
    const healthy = pods.filter(isReadyPod).length;
    const scaled = (v: unknown) => (typeof v === 'string' && v.endsWith('%') ? Math.ceil((Number(v.slice(0, -1)) * expected) / 100) : Number(v ?? 0));
    let desired = expected;
    if (spec.minAvailable != null) desired = scaled(spec.minAvailable);
    else if (spec.maxUnavailable != null) desired = Math.max(0, expected - scaled(spec.maxUnavailable));
    const allowed = Math.max(0, healthy - desired);
    const st = asRecord(pdb.status);
    const prev = asArray(st.conditions).map(asRecord).find((c) => c.type === 'DisruptionAllowed');
    const condStatus = allowed > 0 ? 'True' : 'False';
    const condition = {
      type: 'DisruptionAllowed',
      status: condStatus,
      observedGeneration: pdb.metadata?.generation,
      lastTransitionTime: prev?.status === condStatus ? prev.lastTransitionTime : this.now(),
      reason: allowed > 0 ? 'SufficientPods' : 'InsufficientPods',
      message: '',
    };
    const status: Record<string, unknown> = {
      observedGeneration: pdb.metadata?.generation,
      disruptionsAllowed: allowed,
      currentHealthy: healthy,
      desiredHealthy: desired,
      expectedPods: expected,
      conditions: [condition],
    };
    this.setStatus(PDB, pdb, status);
  }

  // ------------------------------------------------------------------ Job

  // Go: job controller — parallelism pods at a time until completions succeed or failures pass backoffLimit.
  private syncJob(job: KubeObject): void {
    if (isTerminating(job)) return;
    const spec = asRecord(job.spec);
    const st = asRecord(job.status);
    const conditions = asArray(st.conditions).map(asRecord);
    if (conditions.some((c) => (c.type === 'Complete' || c.type === 'Failed') && c.status === 'True')) {
      this.scheduleTtl(job, st);
      return;
    }
    const pods = this.dependents(job, POD);
    const succeeded = pods.filter((p) => phase(p) === 'Succeeded').length;
    const failed = pods.filter((p) => phase(p) === 'Failed').length;
    const active = pods.filter((p) => !isTerminating(p) && phase(p) !== 'Succeeded' && phase(p) !== 'Failed');
    const completions = typeof spec.completions === 'number' ? spec.completions : null;
    const parallelism = typeof spec.parallelism === 'number' ? spec.parallelism : 1;
    const backoffLimit = typeof spec.backoffLimit === 'number' ? spec.backoffLimit : 6;
    const now = this.now();
    const done = completions === null ? succeeded > 0 : succeeded >= completions;
    const exhausted = failed > backoffLimit;
    const status: Record<string, unknown> = { ...st, startTime: st.startTime ?? now, uncountedTerminatedPods: {} };
    if (done || exhausted) {
      for (const p of active) this.delete(POD, p);
      const [target, final, reason, message] = done
        ? ['SuccessCriteriaMet', 'Complete', 'CompletionsReached', 'Reached expected number of succeeded pods']
        : ['FailureTarget', 'Failed', 'BackoffLimitExceeded', 'Job has reached the specified backoff limit'];
      status.conditions = [
        { type: target, status: 'True', lastProbeTime: now, lastTransitionTime: now, reason, message },
        { type: final, status: 'True', lastProbeTime: now, lastTransitionTime: now, reason, message },
      ];
      if (done) status.completionTime = now;
      delete status.active;
    } else if (spec.suspend !== true) {
      const remaining = completions === null ? (succeeded > 0 ? 0 : parallelism) : Math.min(parallelism, completions - succeeded);
      const template = asRecord(spec.template);
      for (let i = active.length; i < remaining; i++) this.create(POD, job.metadata?.namespace ?? '', this.newPod(job, template, `${job.metadata?.name}-${randomSuffix()}`));
      if (active.length > 0) status.active = active.length;
      else delete status.active;
    }
    const ready = active.filter(isReadyPod).length;
    status.ready = ready;
    status.terminating = 0;
    if (succeeded > 0) status.succeeded = succeeded;
    if (failed > 0) status.failed = failed;
    this.setStatus(JOB, job, status);
  }

  // Go: ttlafterfinished controller — delete a finished job ttlSecondsAfterFinished later (one-shot timer).
  private scheduleTtl(job: KubeObject, st: Record<string, unknown>): void {
    const ttl = asRecord(job.spec).ttlSecondsAfterFinished;
    if (typeof ttl !== 'number' || this.timers.has(`ttl\0${job.metadata?.uid}`)) return;
    const finished = Date.parse(String(st.completionTime ?? asArray(st.conditions).map(asRecord).find((c) => c.type === 'Failed')?.lastTransitionTime ?? this.now()));
    const delay = Math.max(0, finished + ttl * 1000 - Date.now());
    this.later(`ttl\0${job.metadata?.uid}`, delay, () => {
      const cur = this.cluster.get(JOB, job.metadata?.namespace, job.metadata!.name!);
      if (cur && cur.obj.metadata.uid === job.metadata?.uid) this.delete(JOB, cur.obj);
    });
  }

  // ------------------------------------------------------------------ CronJob

  // Go: cronjob controller v2 — at each scheduled time create a Job named <cronjob>-<minutes since epoch>.
  private syncCronJob(cj: KubeObject): void {
    if (isTerminating(cj)) return;
    const spec = asRecord(cj.spec);
    const st = asRecord(cj.status);
    const jobs = this.dependents(cj, JOB);
    const finished = (j: KubeObject) => asArray(asRecord(j.status).conditions).map(asRecord).find((c) => (c.type === 'Complete' || c.type === 'Failed') && c.status === 'True');
    const activeJobs = jobs.filter((j) => !finished(j));
    // History limits: the oldest finished jobs go.
    for (const [type, limit] of [['Complete', spec.successfulJobsHistoryLimit ?? 3], ['Failed', spec.failedJobsHistoryLimit ?? 1]] as const) {
      const list = jobs.filter((j) => finished(j)?.type === type).sort((a, b) => String(a.metadata?.creationTimestamp).localeCompare(String(b.metadata?.creationTimestamp)));
      for (const j of list.slice(0, Math.max(0, list.length - Number(limit)))) this.delete(JOB, j);
    }
    const lastSuccess = jobs.map((j) => asRecord(j.status).completionTime).filter((t): t is string => typeof t === 'string').sort().pop();
    const status: Record<string, unknown> = { ...st };
    const active = activeJobs.map((j) => ({ kind: 'Job', namespace: j.metadata?.namespace, name: j.metadata?.name, uid: j.metadata?.uid, apiVersion: 'batch/v1', resourceVersion: j.metadata?.resourceVersion }));
    if (active.length > 0) status.active = active;
    else delete status.active;
    if (lastSuccess && (!st.lastSuccessfulTime || lastSuccess > String(st.lastSuccessfulTime))) status.lastSuccessfulTime = lastSuccess;
    this.setStatus(CRONJOB, cj, status);
    if (spec.suspend === true) {
      this.clearTimer(`cron\0${cj.metadata?.uid}`);
      return;
    }
    const from = Date.parse(String(st.lastScheduleTime ?? cj.metadata?.creationTimestamp ?? this.now()));
    const next = nextCronTime(String(spec.schedule ?? ''), from, typeof spec.timeZone === 'string' ? spec.timeZone : 'UTC');
    if (next === undefined) return;
    this.later(`cron\0${cj.metadata?.uid}`, Math.max(0, next - Date.now()), () => this.fireCronJob(cj.metadata!.uid!, next));
  }

  private fireCronJob(uid: string, at: number): void {
    const cur = this.cluster.byUid(uid);
    if (!cur || isTerminating(cur.obj)) return;
    const cj = cur.obj;
    const spec = asRecord(cj.spec);
    const activeJobs = this.dependents(cj, JOB).filter((j) => !asArray(asRecord(j.status).conditions).some((c) => ['Complete', 'Failed'].includes(String(asRecord(c).type))));
    const policy = spec.concurrencyPolicy ?? 'Allow';
    const scheduled = new Date(at).toISOString().replace(/\.\d{3}Z$/, 'Z');
    const skip = policy === 'Forbid' && activeJobs.length > 0;
    if (policy === 'Replace') for (const j of activeJobs) this.delete(JOB, j);
    if (!skip) {
      const tmpl = asRecord(spec.jobTemplate);
      const tmeta = asRecord(tmpl.metadata);
      this.create(JOB, cj.metadata?.namespace ?? '', {
        apiVersion: 'batch/v1',
        kind: 'Job',
        metadata: {
          name: `${cj.metadata?.name}-${Math.floor(at / 60000)}`,
          namespace: cj.metadata?.namespace,
          labels: tmeta.labels as Record<string, string> | undefined,
          annotations: { ...(asRecord(tmeta.annotations) as Record<string, string>), 'batch.kubernetes.io/cronjob-scheduled-timestamp': scheduled },
          ownerReferences: [this.ownerRef(cj) as never],
        },
        spec: tmpl.spec,
      });
    }
    this.mutate(CRONJOB, cj, (o) => {
      o.status = { ...asRecord(o.status), lastScheduleTime: scheduled };
    }, 'status');
  }
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

// ------------------------------------------------------------------ cron schedules

const MACROS: Record<string, string> = {
  '@yearly': '0 0 1 1 *',
  '@annually': '0 0 1 1 *',
  '@monthly': '0 0 1 * *',
  '@weekly': '0 0 * * 0',
  '@daily': '0 0 * * *',
  '@midnight': '0 0 * * *',
  '@hourly': '0 * * * *',
};
const RANGES: [number, number][] = [
  [0, 59],
  [0, 23],
  [1, 31],
  [1, 12],
  [0, 6],
];
const NAMES = [[], [], [], ['jan', 'feb', 'mar', 'apr', 'may', 'jun', 'jul', 'aug', 'sep', 'oct', 'nov', 'dec'], ['sun', 'mon', 'tue', 'wed', 'thu', 'fri', 'sat']];

function parseField(field: string, i: number): Set<number> | undefined {
  const [min, max] = RANGES[i];
  const out = new Set<number>();
  const num = (s: string) => {
    const n = NAMES[i].indexOf(s.toLowerCase());
    if (n >= 0) return i === 3 ? n + 1 : n;
    return /^\d+$/.test(s) ? Number(s) : NaN;
  };
  for (const term of field.split(',')) {
    const [range, stepText] = term.split('/');
    const step = stepText === undefined ? 1 : Number(stepText);
    let lo = min;
    let hi = max;
    if (range !== '*' && range !== '?') {
      const [a, b] = range.split('-');
      lo = num(a);
      hi = b === undefined ? (stepText === undefined ? lo : max) : num(b);
    }
    if (Number.isNaN(lo) || Number.isNaN(hi) || !(step > 0)) return undefined;
    for (let v = lo; v <= hi; v += step) out.add(i === 4 && v === 7 ? 0 : v);
  }
  return out;
}

// The wall-clock fields of an instant in a time zone.
function fieldsIn(ms: number, tz: string): { minute: number; hour: number; day: number; month: number; weekday: number } {
  const parts = new Intl.DateTimeFormat('en-US', { timeZone: tz, hourCycle: 'h23', minute: 'numeric', hour: 'numeric', day: 'numeric', month: 'numeric', weekday: 'short' }).formatToParts(new Date(ms));
  const get = (t: string) => parts.find((p) => p.type === t)?.value ?? '';
  return { minute: Number(get('minute')), hour: Number(get('hour')), day: Number(get('day')), month: Number(get('month')), weekday: ['Sun', 'Mon', 'Tue', 'Wed', 'Thu', 'Fri', 'Sat'].indexOf(get('weekday')) };
}

/** nextCronTime returns the first minute strictly after `after` (ms) that a standard cron schedule names, or undefined. */
export function nextCronTime(schedule: string, after: number, tz = 'UTC'): number | undefined {
  const s = schedule.trim();
  const every = /^@every\s+(\d+)(s|m|h)$/.exec(s);
  if (every) return after + Number(every[1]) * { s: 1000, m: 60_000, h: 3_600_000 }[every[2] as 's' | 'm' | 'h'];
  const fields = (MACROS[s] ?? s).split(/\s+/);
  if (fields.length !== 5) return undefined;
  const sets = fields.map(parseField);
  if (sets.some((x) => x === undefined)) return undefined;
  const [minutes, hours, days, months, weekdays] = sets as Set<number>[];
  // Go: robfig/cron — when both day fields are restricted, either may match.
  const dayStar = fields[2] === '*' || fields[2] === '?';
  const weekStar = fields[4] === '*' || fields[4] === '?';
  let t = Math.floor(after / 60_000) * 60_000 + 60_000;
  const end = t + 5 * 366 * 86_400_000;
  while (t < end) {
    const f = fieldsIn(t, tz);
    const dayOk = dayStar || weekStar ? days.has(f.day) && weekdays.has(f.weekday) : days.has(f.day) || weekdays.has(f.weekday);
    // A wrong month, day or hour skips to the next hour; only a matching hour is searched minute by minute.
    if (!months.has(f.month) || !dayOk || !hours.has(f.hour)) t += (60 - f.minute) * 60_000;
    else if (!minutes.has(f.minute)) t += 60_000;
    else return t;
  }
  return undefined;
}
