// world.ts: the clusters of an offline preview as plain object stores — what the management cluster and each
// managed cluster hold (given objects, then what the preview generated and deployed), so that later steps read what
// earlier ones wrote, exactly as the controllers would read it from the API server.
import { splitApiVersion } from '../api/index.js';
import type { KubeObject } from '../kube/index.js';
import { KindScopes } from './scopes.js';

/**
 * Provenance says where an object of a simulated cluster came from: given (`input`), given as the live state of
 * what the preview deploys (`live`: its fields survive the preview's apply), a sample resource, or written by the
 * preview.
 */
export type Provenance = 'input' | 'live' | 'resource' | 'generated' | 'deployed';

/** StoredObject is an object of a simulated cluster with where it came from. */
export interface StoredObject {
  object: KubeObject;
  from: Provenance;
}

const NAMESPACES_THAT_EXIST = ['default', 'kube-system', 'kube-public', 'kube-node-lease'];

/** objectId keys an object by group, kind, namespace and name (the version does not matter, as in the API). */
export function objectId(apiVersion: string, kind: string, namespace: string | undefined, name: string): string {
  return `${splitApiVersion(apiVersion).group}|${kind}|${namespace ?? ''}|${name}`;
}

/** SimCluster is one simulated cluster: its objects by identity and the scopes of the kinds it serves. */
export class SimCluster {
  private readonly objects = new Map<string, StoredObject>();
  readonly scopes = new KindScopes();
  private readonly extraNamespaces: Set<string>;

  /** display is how messages name the cluster (`mgmt` for the management cluster, else `namespace/name`). */
  constructor(
    readonly display: string,
    namespaces: readonly string[] = [],
  ) {
    this.extraNamespaces = new Set([...NAMESPACES_THAT_EXIST, ...namespaces]);
  }

  /** put stores an object (replacing one of the same identity) and learns the scope a CRD defines. */
  put(object: KubeObject, from: Provenance): void {
    this.objects.set(objectId(object.apiVersion, object.kind, object.metadata.namespace, object.metadata.name), { object, from });
    this.scopes.learn(object);
  }

  /**
   * apply merges a deployed object into what is stored, as an apply of those fields would: top-level fields sent
   * replace, labels and annotations merge, fields not sent (a status the cluster wrote) stay.
   */
  apply(object: KubeObject): void {
    const stored = this.getStored(object.apiVersion, object.kind, object.metadata.namespace, object.metadata.name);
    const cur = stored?.object;
    if (!cur) return this.put(object, 'deployed');
    const merged: KubeObject = {
      ...cur,
      ...object,
      metadata: {
        ...cur.metadata,
        ...object.metadata,
        labels: { ...cur.metadata.labels, ...object.metadata.labels },
        annotations: { ...cur.metadata.annotations, ...object.metadata.annotations },
      },
    };
    this.put(merged, stored.from === 'live' ? 'live' : 'deployed');
  }

  /** getStored returns an object by identity (cluster-scoped objects: namespace undefined). */
  getStored(apiVersion: string, kind: string, namespace: string | undefined, name: string): StoredObject | undefined {
    return this.objects.get(objectId(apiVersion, kind, namespace, name));
  }

  /** get returns an object by identity. */
  get(apiVersion: string, kind: string, namespace: string | undefined, name: string): KubeObject | undefined {
    return this.getStored(apiVersion, kind, namespace, name)?.object;
  }

  /** list returns every stored object, in insertion order. */
  list(): StoredObject[] {
    return [...this.objects.values()];
  }

  /** namespaces returns the namespaces that exist: the usual ones, Namespace objects, and every object's namespace. */
  namespaces(): Set<string> {
    const out = new Set(this.extraNamespaces);
    for (const { object } of this.objects.values()) {
      if (object.metadata.namespace) out.add(object.metadata.namespace);
      if (object.kind === 'Namespace' && object.apiVersion === 'v1') out.add(object.metadata.name);
    }
    return out;
  }
}
