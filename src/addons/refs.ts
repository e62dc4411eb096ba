// refs.ts: which ClusterSummaries read which management-cluster objects (referenced ConfigMaps/Secrets and
// templateResourceRefs objects), so a change of one of them re-queues exactly those ClusterSummaries; and the
// on-demand informers for templateResourceRefs kinds. ignoreStatusChanges / watchFields decide which updates count.
// Go: addon-controller controllers/clustersummary_watchers.go, templateresourcedef_utils.go
import type { InformerFactory, KubeObject, Subscription } from '../kube/index.js';

/** RefFilter says which changes of a referenced object matter (templateResourceRefs options). */
export interface RefFilter {
  ignoreStatusChanges?: boolean;
  watchFields?: readonly string[];
}

/** refKey keys a management-cluster object by group, kind, namespace and name. */
export function refKey(apiVersion: string, kind: string, namespace: string | undefined, name: string): string {
  const slash = apiVersion.indexOf('/');
  const group = slash < 0 ? '' : apiVersion.slice(0, slash);
  return `${group}|${kind}|${namespace ?? ''}|${name}`;
}

/** fieldAt reads a dot-separated path (`status.loadBalancer`) from an object. */
export function fieldAt(o: unknown, path: string): unknown {
  let cur = o;
  for (const p of path.split('.')) {
    if (cur === null || typeof cur !== 'object' || Array.isArray(cur)) return undefined;
    cur = (cur as Record<string, unknown>)[p];
  }
  return cur;
}

/**
 * fingerprint is the part of a referenced object that counts for a filter: the listed watchFields; else everything
 * but status (ignoreStatusChanges); else everything. Volatile metadata (resourceVersion, managedFields) never counts.
 */
export function fingerprint(o: KubeObject | undefined, f: RefFilter | undefined): unknown {
  if (!o) return null;
  if (f?.watchFields && f.watchFields.length > 0) return f.watchFields.map((p) => fieldAt(o, p) ?? null);
  const { resourceVersion: _rv, managedFields: _mf, ...metadata } = o.metadata;
  if (f?.ignoreStatusChanges) {
    const { status: _s, ...rest } = o;
    return { ...rest, metadata };
  }
  return { ...o, metadata };
}

/** relevantChange reports whether an update of a referenced object matters to a reader with this filter. */
export function relevantChange(oldObj: KubeObject, newObj: KubeObject, f: RefFilter | undefined): boolean {
  if (!f || (!f.ignoreStatusChanges && !(f.watchFields && f.watchFields.length > 0))) return true;
  return JSON.stringify(fingerprint(oldObj, f)) !== JSON.stringify(fingerprint(newObj, f));
}

/** RefEntry is one reference a ClusterSummary holds. */
export interface RefEntry {
  key: string;
  filter?: RefFilter;
}

/** ReferenceIndex maps referenced objects to the ClusterSummaries that read them (and back). */
export class ReferenceIndex {
  private readonly byRef = new Map<string, Map<string, RefFilter | undefined>>();
  private readonly bySummary = new Map<string, RefEntry[]>();

  /** set replaces the references of a ClusterSummary. */
  set(summary: string, refs: readonly RefEntry[]): void {
    this.forget(summary);
    this.bySummary.set(summary, [...refs]);
    for (const r of refs) {
      let m = this.byRef.get(r.key);
      if (!m) this.byRef.set(r.key, (m = new Map()));
      m.set(summary, r.filter);
    }
  }

  /** forget drops every reference of a ClusterSummary. */
  forget(summary: string): void {
    for (const r of this.bySummary.get(summary) ?? []) {
      const m = this.byRef.get(r.key);
      m?.delete(summary);
      if (m?.size === 0) this.byRef.delete(r.key);
    }
    this.bySummary.delete(summary);
  }

  /** readers returns the ClusterSummaries reading an object, with their filters. */
  readers(key: string): ReadonlyMap<string, RefFilter | undefined> {
    return this.byRef.get(key) ?? new Map();
  }

  /** affected returns the ClusterSummaries a change of the object matters to (all of them for adds and deletes). */
  affected(key: string, oldObj: KubeObject | undefined, newObj: KubeObject | undefined): string[] {
    const out: string[] = [];
    for (const [summary, filter] of this.readers(key)) {
      if (!oldObj || !newObj || relevantChange(oldObj, newObj, filter)) out.push(summary);
    }
    return out;
  }
}

/**
 * KindWatcher keeps one management-cluster informer per kind named by some templateResourceRefs (all namespaces),
 * started on first use and stopped when no ClusterSummary references the kind any more. Changes are mapped through
 * the ReferenceIndex to the ClusterSummaries to re-queue.
 */
export class KindWatcher {
  private readonly subs = new Map<string, { sub: Subscription<KubeObject>; users: Set<string> }>();
  private readonly usage = new Map<string, Set<string>>();

  constructor(
    private readonly informers: InformerFactory,
    private readonly index: ReferenceIndex,
    private readonly enqueue: (summary: string) => void,
  ) {}

  /** use records the kinds a ClusterSummary reads and returns their informers (started if new). */
  use(summary: string, kinds: readonly { apiVersion: string; kind: string }[]): Map<string, Subscription<KubeObject>['informer']> {
    const wanted = new Set(kinds.map((k) => `${k.apiVersion}|${k.kind}`));
    for (const old of this.usage.get(summary) ?? []) if (!wanted.has(old)) this.release(summary, old);
    this.usage.set(summary, wanted);
    const out = new Map<string, Subscription<KubeObject>['informer']>();
    for (const gk of wanted) {
      let s = this.subs.get(gk);
      if (!s) {
        const [apiVersion, kind] = gk.split('|');
        const onChange = (o: KubeObject | undefined, n: KubeObject | undefined) => {
          const obj = (n ?? o)!;
          for (const cs of this.index.affected(refKey(obj.apiVersion ?? apiVersion, obj.kind ?? kind, obj.metadata.namespace, obj.metadata.name), o, n)) this.enqueue(cs);
        };
        const sub = this.informers.subscribe<KubeObject>(
          { apiVersion, kind },
          // Initial adds count too: a kind installed after its readers looked for it is listed, not watched, first.
          { onAdd: (o) => onChange(undefined, o), onUpdate: (o, n) => onChange(o, n), onDelete: (o) => onChange(o, undefined) },
        );
        s = { sub, users: new Set() };
        this.subs.set(gk, s);
      }
      s.users.add(summary);
      out.set(gk, s.sub.informer);
    }
    return out;
  }

  /** forget releases every kind a ClusterSummary used. */
  forget(summary: string): void {
    for (const gk of this.usage.get(summary) ?? []) this.release(summary, gk);
    this.usage.delete(summary);
  }

  private release(summary: string, gk: string): void {
    const s = this.subs.get(gk);
    if (!s) return;
    s.users.delete(summary);
    if (s.users.size === 0) {
      this.subs.delete(gk);
      void s.sub.unsubscribe();
    }
  }

  /** stop ends every informer. */
  async stop(): Promise<void> {
    const all = [...this.subs.values()];
    this.subs.clear();
    this.usage.clear();
    await Promise.all(all.map((s) => s.sub.unsubscribe()));
  }
}
