// In-process controllers of one virtual cluster, reacting to committed changes: the garbage collector
// (ownerReferences, orphan/foreground finalizers), the namespace deleter and the CRD instance cleaner.
// Go: kubernetes/pkg/controller/garbagecollector, pkg/controller/namespace/deletion, apiextensions finalizer controller
import type { Cluster, Logger } from './cluster.js';
import { CRD_CLEANUP_FINALIZER, CRD_STORAGE, cleanupTarget } from './crd.js';
import { create, internalWrite, mutate, remove, scopeFor, type WriteOptions } from './registry.js';
import type { ResourceDescriptor } from './resource.js';
import { isStatusError } from './status.js';
import type { KubeObject, Stored } from './types.js';
import type { ChangeEvent } from './watch.js';

const ORPHAN = 'orphan';
const FOREGROUND = 'foregroundDeletion';
const NAMESPACES = '/namespaces';

type Work =
  | { kind: 'owner'; uid: string }
  | { kind: 'object'; storage: string; key: string }
  | { kind: 'namespace'; name: string }
  | { kind: 'crd'; name: string }
  | { kind: 'serviceaccount'; namespace: string };

/** Controllers runs the garbage collector, namespace deleter and CRD cleaner of one cluster. */
export class Controllers {
  private queue: Work[] = [];
  private queued = new Set<string>();
  private scheduled: NodeJS.Immediate | undefined;
  private stopped = false;
  private readonly gc: WriteOptions = internalWrite('generic-garbage-collector');
  private readonly nsController: WriteOptions = internalWrite('namespace-controller');
  private readonly crdController: WriteOptions = internalWrite('apiextensions-finalizer');
  private readonly saController: WriteOptions = internalWrite('kube-controller-manager');

  constructor(
    private readonly cluster: Cluster,
    private readonly logger: Logger,
  ) {
    cluster.hub.listen((ev) => this.observe(ev));
  }

  /** start re-examines the loaded state (work left over from before a restart). */
  start(): void {
    for (const [storage, table] of this.cluster.tables) {
      for (const [key, s] of table.objects) {
        if (s.obj.metadata.deletionTimestamp || s.obj.metadata.ownerReferences?.length) this.enqueue({ kind: 'object', storage, key });
      }
    }
  }

  /** stop drops pending work (server shutdown). */
  stop(): void {
    this.stopped = true;
    if (this.scheduled) clearImmediate(this.scheduled);
  }

  private enqueue(w: Work): void {
    const id = JSON.stringify(w);
    if (this.stopped || this.queued.has(id)) return;
    this.queued.add(id);
    this.queue.push(w);
    if (!this.scheduled) this.scheduled = setImmediate(() => this.drain());
  }

  private observe(ev: ChangeEvent): void {
    const s = ev.cur ?? ev.prev!;
    const meta = s.obj.metadata;
    const key = `${meta.namespace ?? ''}/${meta.name}`;
    if (ev.type === 'DELETED') {
      if (meta.uid) this.enqueue({ kind: 'owner', uid: meta.uid });
      // An owner waiting in foreground deletion may have lost its last blocking dependent.
      for (const ref of meta.ownerReferences ?? []) if (ref?.uid) this.enqueue({ kind: 'owner', uid: ref.uid });
      if (meta.namespace) this.enqueue({ kind: 'namespace', name: meta.namespace });
      if (ev.storage === NAMESPACES) return;
      const crd = this.crdOfStorage(ev.storage);
      if (crd) this.enqueue({ kind: 'crd', name: crd });
      return;
    }
    if (ev.type === 'ADDED' && ev.storage === NAMESPACES) this.enqueue({ kind: 'serviceaccount', namespace: meta.name! });
    if (meta.deletionTimestamp || meta.ownerReferences?.length) this.enqueue({ kind: 'object', storage: ev.storage, key });
    // An owner's references changed: its dependents may have become dangling or solid.
    if (ev.prev?.obj.metadata.ownerReferences?.length) this.enqueue({ kind: 'object', storage: ev.storage, key });
  }

  private crdOfStorage(storage: string): string | undefined {
    return this.cluster.registry.forStorage(storage)?.crd;
  }

  private drain(): void {
    this.scheduled = undefined;
    const work = this.queue;
    this.queue = [];
    this.queued.clear();
    for (const w of work) {
      if (this.stopped) return;
      try {
        this.process(w);
      } catch (e) {
        // A controller must never take the server down; the next change of the object retries it.
        this.logger.warn({ err: e instanceof Error ? e.message : String(e), work: w }, 'controller step failed');
      }
    }
  }

  private process(w: Work): void {
    switch (w.kind) {
      case 'owner':
        return this.ownerGone(w.uid);
      case 'object':
        return this.examine(w.storage, w.key);
      case 'namespace':
        return this.syncNamespace(w.name);
      case 'crd':
        return this.syncCrd(w.name);
      case 'serviceaccount':
        return this.ensureDefaultServiceAccount(w.namespace);
    }
  }

  private descOf(storage: string): ResourceDescriptor | undefined {
    return this.cluster.registry.forStorage(storage);
  }

  private stored(storage: string, key: string): Stored | undefined {
    return this.cluster.tables.get(storage)?.objects.get(key);
  }

  // One object changed: finish its deletion (finalizers we own), or collect it when all its owners are gone.
  private examine(storage: string, key: string): void {
    const s = this.stored(storage, key);
    if (!s) return;
    const obj = s.obj;
    const meta = obj.metadata;
    if (storage === NAMESPACES && meta.deletionTimestamp) this.enqueue({ kind: 'namespace', name: meta.name! });
    if (storage === CRD_STORAGE && meta.deletionTimestamp) this.enqueue({ kind: 'crd', name: meta.name! });
    const fin = meta.finalizers ?? [];
    if (meta.deletionTimestamp && fin.includes(ORPHAN)) this.orphanDependents(s, storage);
    if (meta.deletionTimestamp && fin.includes(FOREGROUND)) this.deleteDependentsInForeground(s, storage);
    if (meta.ownerReferences?.length && !meta.deletionTimestamp) this.collectIfDangling(s, storage);
    // A dependent going away may unblock an owner waiting in foreground deletion.
    for (const ref of meta.ownerReferences ?? []) {
      const owner = this.cluster.byUid(ref.uid);
      if (owner !== undefined && (owner.deleting ?? Boolean(owner.obj.metadata.deletionTimestamp))) this.enqueue({ kind: 'owner', uid: ref.uid });
    }
  }

  private ownerGone(uid: string): void {
    const owner = this.cluster.byUid(uid);
    if (owner) {
      // Still there (e.g. waiting in foreground deletion): re-examine it.
      const m = owner.obj.metadata;
      const storage = this.storageOf(owner);
      if (storage) this.examine(storage, `${m.namespace ?? ''}/${m.name}`);
      return;
    }
    for (const d of this.cluster.dependentsOf(uid)) {
      const s = this.stored(d.storage, d.key);
      if (s) this.collectIfDangling(s, d.storage);
    }
  }

  private storageOf(s: Stored): string | undefined {
    const d = this.cluster.registry.forKind(s.obj.apiVersion ?? '', s.obj.kind ?? '');
    return d?.storage;
  }

  // Go: garbagecollector attemptToDeleteItem — all owners absent: delete; some absent: drop the dangling refs.
  private collectIfDangling(s: Stored, storage: string): void {
    const meta = s.obj.metadata;
    const refs = meta.ownerReferences ?? [];
    if (refs.length === 0) return;
    const absent = refs.filter((r) => !this.cluster.byUid(r.uid));
    if (absent.length === 0) return;
    const desc = this.descOf(storage);
    if (!desc) return;
    const scope = scopeFor(this.cluster, desc, meta.namespace ?? '');
    if (absent.length === refs.length) {
      // Dependents of an owner deleted in foreground go in foreground too.
      this.tryDelete(scope, meta.name!, { propagationPolicy: 'Background', preconditions: { uid: meta.uid } });
      return;
    }
    const gone = new Set(absent.map((r) => r.uid));
    mutate(scope, meta.name!, (o) => {
      o.metadata.ownerReferences = (o.metadata.ownerReferences ?? []).filter((r) => !gone.has(r.uid));
    }, this.gc);
  }

  // Go: garbagecollector orphanDependents — remove the owner reference, then the orphan finalizer.
  private orphanDependents(owner: Stored, storage: string): void {
    const uid = owner.obj.metadata.uid!;
    for (const d of this.cluster.dependentsOf(uid)) {
      const s = this.stored(d.storage, d.key);
      const desc = this.descOf(d.storage);
      if (!s || !desc) continue;
      mutate(scopeFor(this.cluster, desc, s.obj.metadata.namespace ?? ''), s.obj.metadata.name!, (o) => {
        o.metadata.ownerReferences = (o.metadata.ownerReferences ?? []).filter((r) => r.uid !== uid);
        if (o.metadata.ownerReferences.length === 0) delete o.metadata.ownerReferences;
      }, this.gc);
    }
    this.dropFinalizer(owner, storage, ORPHAN);
  }

  // Go: garbagecollector processDeletingDependentsItem — delete dependents, wait for the blocking ones.
  private deleteDependentsInForeground(owner: Stored, storage: string): void {
    const uid = owner.obj.metadata.uid!;
    let blocking = 0;
    for (const d of this.cluster.dependentsOf(uid)) {
      const s = this.stored(d.storage, d.key);
      const desc = this.descOf(d.storage);
      if (!s || !desc) continue;
      const ref = (s.obj.metadata.ownerReferences ?? []).find((r) => r.uid === uid);
      if (ref?.blockOwnerDeletion) blocking++;
      if (!s.obj.metadata.deletionTimestamp) {
        this.tryDelete(scopeFor(this.cluster, desc, s.obj.metadata.namespace ?? ''), s.obj.metadata.name!, { propagationPolicy: 'Foreground', preconditions: { uid: s.obj.metadata.uid } });
      }
    }
    if (blocking === 0) this.dropFinalizer(owner, storage, FOREGROUND);
  }

  private dropFinalizer(s: Stored, storage: string, finalizer: string): void {
    const desc = this.descOf(storage);
    if (!desc) return;
    mutate(scopeFor(this.cluster, desc, s.obj.metadata.namespace ?? ''), s.obj.metadata.name!, (o) => {
      const fin = o.metadata.finalizers ?? [];
      if (!fin.includes(finalizer)) return false;
      o.metadata.finalizers = fin.filter((f) => f !== finalizer);
    }, this.gc);
  }

  private tryDelete(scope: ReturnType<typeof scopeFor>, name: string, opts: Parameters<typeof remove>[2]): void {
    try {
      remove(scope, name, opts);
    } catch (e) {
      // Already gone, or replaced by an object with another uid: nothing to collect.
      if (isStatusError(e, 'NotFound') || isStatusError(e, 'Conflict')) return;
      throw e;
    }
  }

  // Go: namespace deletion — delete every namespaced object, then drop the "kubernetes" spec finalizer.
  private syncNamespace(name: string): void {
    const ns = this.stored(NAMESPACES, `/${name}`);
    if (!ns || !ns.obj.metadata.deletionTimestamp) return;
    let remaining = 0;
    const prefix = `${name}/`;
    for (const desc of this.cluster.registry.all()) {
      if (!desc.namespaced || desc.storage !== `${desc.group}/${desc.plural}`) continue;
      const table = this.cluster.tables.get(desc.storage);
      if (!table) continue;
      for (const [key, s] of [...table.objects]) {
        if (!key.startsWith(prefix)) continue;
        remaining++;
        if (!s.obj.metadata.deletionTimestamp) this.tryDelete(scopeFor(this.cluster, desc, name), s.obj.metadata.name!, { propagationPolicy: 'Background' });
      }
    }
    if (remaining > 0 && this.anyLeft(prefix)) {
      this.reportRemaining(name, prefix);
      return;
    }
    const nsDesc = this.descOf(NAMESPACES)!;
    mutate(scopeFor(this.cluster, nsDesc, '', 'finalize'), name, (o) => {
      const spec = (o.spec ?? {}) as { finalizers?: string[] };
      if (!(spec.finalizers ?? []).includes('kubernetes')) return false;
      o.spec = { ...spec, finalizers: (spec.finalizers ?? []).filter((f) => f !== 'kubernetes') };
    }, this.nsController);
  }

  // Go: namespace deletion's status conditions — what is left and which finalizers hold it.
  private reportRemaining(name: string, prefix: string): void {
    const counts: string[] = [];
    const finalizers = new Map<string, number>();
    for (const [storage, table] of this.cluster.tables) {
      if (storage === NAMESPACES) continue;
      let n = 0;
      for (const [key, s] of table.objects) {
        if (!key.startsWith(prefix)) continue;
        n++;
        for (const f of s.obj.metadata.finalizers ?? []) finalizers.set(f, (finalizers.get(f) ?? 0) + 1);
      }
      const desc = this.descOf(storage);
      if (n > 0 && desc) counts.push(`${desc.plural}.${desc.group} has ${n} resource instances`);
    }
    const held = [...finalizers].sort(([a], [b]) => (a < b ? -1 : 1)).map(([f, n]) => `${f} in ${n} resource instances`);
    const now = new Date().toISOString().replace(/\.\d{3}Z$/, 'Z');
    const conditions = [
      { type: 'NamespaceDeletionDiscoveryFailure', status: 'False', reason: 'ResourcesDiscovered', message: 'All resources successfully discovered' },
      { type: 'NamespaceDeletionGroupVersionParsingFailure', status: 'False', reason: 'ParsedGroupVersions', message: 'All legacy kube types successfully parsed' },
      { type: 'NamespaceDeletionContentFailure', status: 'False', reason: 'ContentDeleted', message: 'All content successfully deleted, may be waiting on finalization' },
      { type: 'NamespaceContentRemaining', status: 'True', reason: 'SomeResourcesRemain', message: `Some resources are remaining: ${counts.sort().join(', ')}` },
      held.length > 0
        ? { type: 'NamespaceFinalizersRemaining', status: 'True', reason: 'SomeFinalizersRemain', message: `Some content in the namespace has finalizers remaining: ${held.join(', ')}` }
        : { type: 'NamespaceFinalizersRemaining', status: 'False', reason: 'ContentHasNoFinalizers', message: 'All content-preserving finalizers finished' },
    ];
    const nsDesc = this.descOf(NAMESPACES)!;
    mutate(scopeFor(this.cluster, nsDesc, '', 'status'), name, (o) => {
      const status = (o.status ?? {}) as { conditions?: { type: string; status: string; message: string; lastTransitionTime?: string }[] };
      const old = new Map((status.conditions ?? []).map((c) => [c.type, c]));
      const next = conditions.map((c) => {
        const prev = old.get(c.type);
        return { ...c, lastTransitionTime: prev && prev.status === c.status ? prev.lastTransitionTime : now };
      });
      if (JSON.stringify(next) === JSON.stringify(status.conditions ?? [])) return false;
      o.status = { ...status, conditions: next };
    }, this.nsController);
  }

  private anyLeft(prefix: string): boolean {
    for (const [storage, table] of this.cluster.tables) {
      if (storage === NAMESPACES) continue;
      for (const key of table.objects.keys()) if (key.startsWith(prefix)) return true;
    }
    return false;
  }

  // Go: pkg/controller/serviceaccount — every namespace gets a "default" ServiceAccount.
  private ensureDefaultServiceAccount(namespace: string): void {
    const ns = this.stored(NAMESPACES, `/${namespace}`);
    if (!ns || ns.obj.metadata.deletionTimestamp) return;
    if (this.stored('/serviceaccounts', `${namespace}/default`)) return;
    const desc = this.descOf('/serviceaccounts');
    if (!desc) return;
    create(scopeFor(this.cluster, desc, namespace), { apiVersion: 'v1', kind: 'ServiceAccount', metadata: { name: 'default', namespace } }, this.saController);
  }

  // Go: apiextensions finalizer controller — delete all instances, then release the CRD.
  private syncCrd(name: string): void {
    const crd = this.stored(CRD_STORAGE, `/${name}`);
    if (!crd || !crd.obj.metadata.deletionTimestamp) return;
    const desc = cleanupTarget(this.cluster, crd.obj as KubeObject);
    let left = 0;
    if (desc && desc.crd === name) {
      const table = this.cluster.tables.get(desc.storage);
      for (const s of [...(table?.objects.values() ?? [])]) {
        left++;
        if (!s.obj.metadata.deletionTimestamp) this.tryDelete(scopeFor(this.cluster, desc, s.obj.metadata.namespace ?? ''), s.obj.metadata.name!, { propagationPolicy: 'Background' });
      }
      left = table?.objects.size ?? 0;
    }
    if (left > 0) return;
    const crdDesc = this.descOf(CRD_STORAGE)!;
    mutate(scopeFor(this.cluster, crdDesc, ''), name, (o) => {
      const fin = o.metadata.finalizers ?? [];
      if (!fin.includes(CRD_CLEANUP_FINALIZER)) return false;
      o.metadata.finalizers = fin.filter((f) => f !== CRD_CLEANUP_FINALIZER);
    }, this.crdController);
  }
}
