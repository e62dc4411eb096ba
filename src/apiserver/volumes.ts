// The volume simulator of one virtual cluster (like a dynamic provisioner plus the PV binder): every pending
// PersistentVolumeClaim gets a PersistentVolume of the requested size, both end up Bound; deleting the claim releases
// (Retain) or deletes (Delete) its volume. Reacts to committed changes only.
// Go: pkg/controller/volume/persistentvolume (binder), sig-storage-lib-external-provisioner
import type { Cluster, Logger } from './cluster.js';
import { asArray, asRecord } from './printers.js';
import { create, internalWrite, mutate, remove, scopeFor } from './registry.js';
import { isStatusError } from './status.js';
import type { KubeObject } from './types.js';
import type { ChangeEvent } from './watch.js';

const PVC = '/persistentvolumeclaims';
const PV = '/persistentvolumes';
const SC = 'storage.k8s.io/storageclasses';
const PROVISIONER = 'ripple.dev/simulated';

/** VolumeBinder binds one cluster's claims to volumes it provisions. */
export class VolumeBinder {
  private readonly pending = new Set<string>();
  private scheduled: NodeJS.Immediate | undefined;
  private stopped = false;
  private readonly write = internalWrite('persistentvolume-binder-controller');

  constructor(
    private readonly cluster: Cluster,
    private readonly logger: Logger,
  ) {
    cluster.hub.listen((ev) => this.observe(ev));
    for (const key of cluster.table(PVC).objects.keys()) this.enqueue(key);
  }

  /** stop ends the simulator. */
  stop(): void {
    this.stopped = true;
    if (this.scheduled) clearImmediate(this.scheduled);
  }

  private observe(ev: ChangeEvent): void {
    if (ev.storage === PVC) {
      const m = (ev.cur ?? ev.prev!).obj.metadata;
      if (ev.type === 'DELETED') this.release(ev.prev!.obj);
      else this.enqueue(`${m.namespace}/${m.name}`);
    }
  }

  private enqueue(key: string): void {
    if (this.stopped) return;
    this.pending.add(key);
    if (!this.scheduled) this.scheduled = setImmediate(() => this.drain());
  }

  private drain(): void {
    this.scheduled = undefined;
    const keys = [...this.pending];
    this.pending.clear();
    for (const key of keys) {
      const s = this.cluster.tables.get(PVC)?.objects.get(key);
      if (!s || this.stopped) continue;
      try {
        this.bind(s.obj);
      } catch (e) {
        this.logger.warn({ err: e instanceof Error ? e.message : String(e), claim: key }, 'volume binding failed');
      }
    }
  }

  private reclaimPolicy(claim: KubeObject): string {
    const className = asRecord(claim.spec).storageClassName;
    const sc = typeof className === 'string' ? this.cluster.get(SC, undefined, className) : undefined;
    return String(sc?.obj.reclaimPolicy ?? 'Delete');
  }

  // Go: syncUnboundClaim — provision pvc-<uid> with the claim's size and modes, then bind both ways.
  private bind(claim: KubeObject): void {
    if (claim.metadata?.deletionTimestamp || asRecord(claim.status).phase === 'Bound') return;
    const spec = asRecord(claim.spec);
    const ns = claim.metadata?.namespace ?? '';
    const pvName = typeof spec.volumeName === 'string' && spec.volumeName !== '' ? spec.volumeName : `pvc-${claim.metadata?.uid}`;
    const storage = asRecord(asRecord(spec.resources).requests).storage ?? '1Gi';
    const accessModes = asArray(spec.accessModes);
    const pvDesc = this.cluster.registry.forStorage(PV)!;
    const claimRef = { kind: 'PersistentVolumeClaim', namespace: ns, name: claim.metadata?.name, uid: claim.metadata?.uid, apiVersion: 'v1', resourceVersion: claim.metadata?.resourceVersion };
    if (!this.cluster.get(PV, undefined, pvName)) {
      if (spec.volumeName) return; // a claim naming a volume that does not exist stays Pending, as in kube
      try {
        create(scopeFor(this.cluster, pvDesc, ''), {
          apiVersion: 'v1',
          kind: 'PersistentVolume',
          metadata: { name: pvName, annotations: { 'pv.kubernetes.io/provisioned-by': PROVISIONER } },
          spec: {
            capacity: { storage },
            accessModes,
            persistentVolumeReclaimPolicy: this.reclaimPolicy(claim),
            ...(spec.storageClassName ? { storageClassName: spec.storageClassName } : {}),
            volumeMode: spec.volumeMode ?? 'Filesystem',
            claimRef,
            hostPath: { path: `/var/lib/ripple/volumes/${pvName}`, type: 'DirectoryOrCreate' },
          },
        }, this.write);
      } catch (e) {
        if (!isStatusError(e, 'AlreadyExists')) throw e;
      }
    }
    mutate(scopeFor(this.cluster, pvDesc, '', 'status'), pvName, (pv) => {
      if (asRecord(pv.status).phase === 'Bound') return false;
      pv.status = { phase: 'Bound', lastPhaseTransitionTime: new Date().toISOString().replace(/\.\d{3}Z$/, 'Z') };
    }, this.write);
    const pvcDesc = this.cluster.registry.forStorage(PVC)!;
    mutate(scopeFor(this.cluster, pvcDesc, ns), claim.metadata!.name!, (c) => {
      if (asRecord(c.spec).volumeName === pvName) return false;
      c.spec = { ...asRecord(c.spec), volumeName: pvName };
      c.metadata.annotations = { ...(c.metadata.annotations ?? {}), 'pv.kubernetes.io/bind-completed': 'yes', 'pv.kubernetes.io/bound-by-controller': 'yes' };
    }, this.write);
    mutate(scopeFor(this.cluster, pvcDesc, ns, 'status'), claim.metadata!.name!, (c) => {
      if (asRecord(c.status).phase === 'Bound') return false;
      c.status = { phase: 'Bound', accessModes, capacity: { storage } };
    }, this.write);
  }

  // Go: reclaimVolume — Delete removes the volume, Retain leaves it Released.
  private release(claim: KubeObject): void {
    const pvName = asRecord(claim.spec).volumeName;
    if (typeof pvName !== 'string' || !pvName) return;
    const pv = this.cluster.get(PV, undefined, pvName);
    if (!pv || asRecord(asRecord(pv.obj.spec).claimRef).uid !== claim.metadata?.uid) return;
    const pvDesc = this.cluster.registry.forStorage(PV)!;
    try {
      if (asRecord(pv.obj.spec).persistentVolumeReclaimPolicy === 'Delete') remove(scopeFor(this.cluster, pvDesc, ''), pvName, { propagationPolicy: 'Background' });
      else mutate(scopeFor(this.cluster, pvDesc, '', 'status'), pvName, (o) => void (o.status = { ...asRecord(o.status), phase: 'Released' }), this.write);
    } catch (e) {
      if (!isStatusError(e, 'NotFound') && !isStatusError(e, 'Conflict')) throw e;
    }
  }
}
