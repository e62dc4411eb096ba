// sources: the management-side inputs of the agent — EventTriggers (and old EventBasedAddOns) and EventSources read
// from informers and normalised once per resourceVersion — plus a small helper that resolves when an informer has
// listed or its kind is known not to be served.
import { normalize, type EventSource, type EventTrigger } from '../api/index.js';
import { isKindNotInstalled, type InformerFactory, type InformerView, type KubeObject, type Subscription } from '../kube/index.js';
import type { TriggerView } from './needs.js';

/** EVENT_SOURCE is the apiVersion/kind EventSources are read and written with. */
export const EVENT_SOURCE = { apiVersion: 'lib.projectsveltos.io/v1beta1', kind: 'EventSource' } as const;
/** EVENT_TRIGGER is the apiVersion/kind of EventTriggers. */
export const EVENT_TRIGGER = { apiVersion: 'lib.projectsveltos.io/v1beta1', kind: 'EventTrigger' } as const;
/** EVENT_BASED_ADDON is the pre-2024 name of EventTrigger, still served (v1alpha1 only). */
export const EVENT_BASED_ADDON = { apiVersion: 'lib.projectsveltos.io/v1alpha1', kind: 'EventBasedAddOn' } as const;

/**
 * listedOrAbsent resolves once the informer has listed, or at once when discovery says its kind is not served
 * (an absent kind lists nothing; the informer keeps waiting for its CRD and delivers adds when it appears).
 */
export async function listedOrAbsent(factory: InformerFactory, informer: InformerView<unknown>, opts: { timeoutMs?: number; signal?: AbortSignal } = {}): Promise<void> {
  if (informer.hasSynced()) return;
  const absent = factory.client.resource({ apiVersion: informer.key.apiVersion, kind: informer.key.kind }).then(
    () => new Promise<void>(() => {}),
    (err) => {
      if (isKindNotInstalled(err)) return;
      return new Promise<void>(() => {});
    },
  );
  await Promise.race([informer.waitForSync(opts), absent]);
}

interface Normalized<T> {
  rv: string | undefined;
  value: T | undefined;
  problem?: string;
}

/** NormalizedCache normalises objects of an informer once per resourceVersion. */
export class NormalizedCache<T> {
  private readonly cache = new Map<string, Normalized<T>>();

  constructor(private readonly sub: Subscription<KubeObject>) {}

  /** get returns the normalised object (undefined when missing or invalid; problem() says why). */
  get(key: string): T | undefined {
    return this.entry(key)?.value;
  }

  /** problem returns why an object could not be normalised. */
  problem(key: string): string | undefined {
    return this.entry(key)?.problem;
  }

  /** raw returns the stored object. */
  raw(key: string): KubeObject | undefined {
    return this.sub.informer.cache.getByKey(key);
  }

  /** keys lists the cached object keys. */
  keys(): string[] {
    return this.sub.informer.cache.keys();
  }

  private entry(key: string): Normalized<T> | undefined {
    const obj = this.sub.informer.cache.getByKey(key);
    if (!obj) {
      this.cache.delete(key);
      return undefined;
    }
    const rv = obj.metadata.resourceVersion;
    const cur = this.cache.get(key);
    if (cur && cur.rv === rv && rv !== undefined) return cur;
    const r = normalize(obj);
    const n: Normalized<T> = r.ok ? { rv, value: r.object as unknown as T } : { rv, value: undefined, problem: r.issues.map((i) => `${i.path}: ${i.message}`).join('; ') };
    this.cache.set(key, n);
    return n;
  }
}

/** triggerViewOf reduces a normalised EventTrigger (from kind EventTrigger or EventBasedAddOn) to what the agent needs. */
export function triggerViewOf(t: EventTrigger, raw: KubeObject): TriggerView {
  const v: TriggerView = {
    kind: raw.kind ?? 'EventTrigger',
    apiVersion: raw.apiVersion ?? EVENT_TRIGGER.apiVersion,
    name: raw.metadata.name,
    eventSourceName: t.spec.eventSourceName ?? '',
    sourceClusterSelector: t.spec.sourceClusterSelector,
  };
  if (raw.metadata.uid) v.uid = raw.metadata.uid;
  if (Array.isArray(t.spec.clusterSetRefs)) v.clusterSetRefs = t.spec.clusterSetRefs;
  return v;
}

/** isDeleting says whether an object carries a deletionTimestamp. */
export function isDeleting(o: { metadata?: { deletionTimestamp?: unknown } } | undefined): boolean {
  return Boolean(o?.metadata?.deletionTimestamp);
}

