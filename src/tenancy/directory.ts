// TenantDirectory resolves the tenant of an object from its labels with the RoleRequests of the management cluster at
// hand (a bare `admin-name` label — what the seed's Kyverno policy stamps — names its namespace through them).
// Shared by the deployer, the event manager and the agent.
import { LIB_GROUP } from '../api/index.js';
import type { InformerFactory, KubeObject, Subscription } from '../kube/index.js';
import { tenantOf, type RoleRequestLike, type TenantResolution } from '../api/index.js';

/** TenantDirectory watches RoleRequests (one shared informer) and resolves tenant labels. */
export class TenantDirectory {
  private sub: Subscription<KubeObject> | undefined;

  constructor(informers: InformerFactory) {
    this.sub = informers.subscribe<KubeObject>({ apiVersion: `${LIB_GROUP}/v1beta1`, kind: 'RoleRequest' });
  }

  /** resolve reads the tenant of an object from its labels. */
  resolve = (labels: Readonly<Record<string, string>> | undefined): TenantResolution => {
    return tenantOf(labels, (this.sub?.informer.cache.list() ?? []) as unknown as RoleRequestLike[]);
  };

  async close(): Promise<void> {
    const s = this.sub;
    this.sub = undefined;
    await s?.unsubscribe();
  }
}
