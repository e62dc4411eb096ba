// RoleRequest controller (Sveltos' access-manager, §9): for each RoleRequest, in every managed cluster matching
// spec.clusterSelector, the tenant's ServiceAccount `projectsveltos/<saNamespace>--<saName>`, the Roles/ClusterRoles
// of spec.roleRefs and their bindings to it (plan.ts); removed when the RoleRequest goes (finalizer) or a cluster
// stops matching. Status: matchingClusters, clusterInfo[] (hash / status / failureMessage per cluster) and
// failureMessage; a Warning Event per new failure. read -> pure plan -> execute -> status.
import type { Registry } from 'prom-client';
import { LIB_GROUP, normalize, type RoleRequest, type RoleRequestStatus } from '../api/index.js';
import { refKey, type ClusterEntry, type ClusterRegistry } from '../clusters/index.js';
import {
  Controller,
  errorMessage,
  isAlreadyExists,
  isConflict,
  isKindNotInstalled,
  isNotFound,
  type EventRecorder,
  type InformerFactory,
  type KubeClient,
  type KubeObject,
  type ReconcileResult,
  type Subscription,
} from '../kube/index.js';
import { silentLogger, type Logger } from '../obs/index.js';
import { managedServiceAccount, type Tenant } from '../api/index.js';
import { foreignOwner, OWNED_KINDS, parseRoles, planCluster, ROLE_REQUEST_LABEL, staleObjects, type ClusterPlan, type RoleSource } from './plan.js';

/** ROLE_REQUEST_FINALIZER holds a RoleRequest until its objects are gone from every cluster. */
export const ROLE_REQUEST_FINALIZER = 'rolerequestfinalizer.projectsveltos.io';
/** ACCESS_FIELD_MANAGER owns what RoleRequests write into managed clusters. */
export const ACCESS_FIELD_MANAGER = 'ripple-access-manager';
const ROLE_REQUEST = { apiVersion: `${LIB_GROUP}/v1beta1`, kind: 'RoleRequest' };
const TEMPLATE_ANNOTATION = 'projectsveltos.io/template';

/** RoleRequestControllerOptions configures the controller. */
export interface RoleRequestControllerOptions {
  informers: InformerFactory;
  registry: ClusterRegistry;
  recorder?: EventRecorder;
  logger?: Logger;
  metrics?: Registry;
  workers?: number;
}

/** The cached shape (an index signature, as the informer caches hold objects). */
type RoleRequestObject = KubeObject & Partial<Pick<RoleRequest, 'spec' | 'status'>>;

type ClusterInfo = NonNullable<RoleRequestStatus['clusterInfo']>[number];

/** clusterRefOut is a cluster as written to RoleRequest status. */
function clusterRefOut(e: { ref: { apiVersion: string; kind: string; namespace: string; name: string } }) {
  return { apiVersion: e.ref.apiVersion, kind: e.ref.kind, namespace: e.ref.namespace, name: e.ref.name };
}

/** RoleRequestController reconciles RoleRequests; see the file comment. */
export class RoleRequestController {
  private readonly controller: Controller;
  private readonly log: Logger;
  private rrs: Subscription<RoleRequestObject> | undefined;
  private cms: Subscription<KubeObject> | undefined;
  private secrets: Subscription<KubeObject> | undefined;
  private removeListener: (() => void) | undefined;
  /** `name@generation` of RoleRequests already told that expirationSeconds has no effect. */
  private readonly warned = new Set<string>();

  constructor(private readonly o: RoleRequestControllerOptions) {
    this.log = (o.logger ?? silentLogger()).child({ component: 'rolerequest' });
    this.controller = new Controller({ name: 'rolerequest', workers: o.workers ?? 2, logger: o.logger, metrics: o.metrics, reconcile: (key) => this.reconcile(key) });
  }

  start(): void {
    if (this.rrs) return;
    this.rrs = this.o.informers.subscribe<RoleRequestObject>(ROLE_REQUEST);
    this.cms = this.o.informers.subscribe({ apiVersion: 'v1', kind: 'ConfigMap' });
    this.secrets = this.o.informers.subscribe({ apiVersion: 'v1', kind: 'Secret' });
    this.controller.watch(this.rrs.informer, (o) => o.metadata.name);
    // A changed roleRef re-queues the RoleRequests naming it (RoleRequests are few: scan them).
    const onRef = (kind: string) => (o: KubeObject) => this.referencing(kind, o);
    this.controller.watch(this.cms.informer, onRef('ConfigMap'));
    this.controller.watch(this.secrets.informer, onRef('Secret'));
    this.removeListener = this.o.registry.onChange((e) => {
      if (e.kind !== 'cluster') return;
      for (const r of this.rrs?.informer.cache.list() ?? []) this.controller.enqueue(r.metadata.name);
    });
    this.controller.start();
  }

  async stop(): Promise<void> {
    this.removeListener?.();
    await this.controller.stop();
    for (const s of [this.rrs, this.cms, this.secrets]) await s?.unsubscribe();
    this.rrs = this.cms = this.secrets = undefined;
  }

  private referencing(kind: string, o: KubeObject): string[] {
    const out: string[] = [];
    for (const r of this.rrs?.informer.cache.list() ?? []) {
      if ((r.spec?.roleRefs ?? []).some((ref) => ref.kind === kind && ref.name === o.metadata.name && (ref.namespace === '' || ref.namespace === o.metadata.namespace))) out.push(r.metadata.name);
    }
    return out;
  }

  private event(rr: RoleRequest, type: 'Normal' | 'Warning', reason: string, message: string): void {
    this.o.recorder?.event({ apiVersion: ROLE_REQUEST.apiVersion, kind: 'RoleRequest', metadata: { name: rr.metadata.name, uid: rr.metadata.uid } }, type, reason, message);
  }

  private async reconcile(name: string): Promise<ReconcileResult | void> {
    const raw = this.rrs?.informer.cache.get(undefined, name);
    if (!raw) return;
    const n = normalize(raw);
    const rr = (n.ok ? n.object : raw) as RoleRequest;
    const tenant: Tenant = { namespace: rr.spec?.serviceAccountNamespace ?? '', name: rr.spec?.serviceAccountName ?? '' };
    const mgmt = this.o.registry.mgmt;
    if (rr.metadata.deletionTimestamp) return this.finalize(rr, tenant);
    if (!(rr.metadata.finalizers ?? []).includes(ROLE_REQUEST_FINALIZER)) {
      await mgmt.patch({ ...ROLE_REQUEST, name }, 'merge', { metadata: { finalizers: [...(rr.metadata.finalizers ?? []), ROLE_REQUEST_FINALIZER], resourceVersion: rr.metadata.resourceVersion } });
      return; // the update re-queues us
    }
    const prev = rr.status ?? {};
    const gen = `${name}@${rr.metadata.generation ?? 0}`;
    if (rr.spec?.expirationSeconds !== undefined && !this.warned.has(gen)) {
      this.warned.add(gen);
      this.event(rr, 'Warning', 'NotSupported', 'spec.expirationSeconds has no effect in Ripple: no token is minted per RoleRequest, Ripple acts for the tenant by impersonation (remove the field)');
    }
    if (!tenant.name || !tenant.namespace) {
      return this.writeStatus(rr, { matchingClusters: [], clusterInfo: [], failureMessage: 'spec.serviceAccountName and spec.serviceAccountNamespace are required' });
    }
    // Clusters: every shard's matching, only this shard's written.
    const matching = this.o.registry.matching({ clusterSelector: rr.spec.clusterSelector ?? null }, { includePaused: true });
    const infos: ClusterInfo[] = [];
    const failures: string[] = [];
    let retry = false;
    for (const entry of matching) {
      const info = await this.deployTo(rr, tenant, entry, prev.clusterInfo?.find((c) => refKey(c.cluster) === entry.key));
      if (info.failureMessage) {
        failures.push(`cluster ${entry.ref.namespace}/${entry.ref.name}: ${info.failureMessage}`);
        if (info.status === 'Failed') retry = true;
      }
      infos.push(info);
    }
    // Clusters that matched before and no longer do: take the grant back.
    const now = new Set(matching.map((e) => e.key));
    for (const c of prev.matchingClusters ?? []) {
      const key = refKey(c);
      if (!key || now.has(key)) continue;
      const entry = this.o.registry.get(key);
      if (!entry) continue; // unregistered: nothing reachable to clean
      try {
        await this.withdrawFrom(rr, tenant, entry);
        this.event(rr, 'Normal', 'RolesWithdrawn', `cluster ${entry.ref.namespace}/${entry.ref.name} no longer matches: the roles and ServiceAccount ${managedServiceAccount(tenant).name} were removed`);
      } catch (err) {
        failures.push(`cluster ${c.namespace}/${c.name}: cannot remove the roles: ${errorMessage(err)}`);
        retry = true;
        infos.push({ cluster: c, hash: '', status: 'Removing', failureMessage: errorMessage(err) });
      }
    }
    const status: RoleRequestStatus = { matchingClusters: matching.map(clusterRefOut), clusterInfo: infos, ...(failures.length > 0 ? { failureMessage: failures.join('; ') } : {}) };
    for (const f of failures) if (!(prev.failureMessage ?? '').includes(f)) this.event(rr, 'Warning', 'RoleRequestFailed', f);
    await this.writeStatus(rr, status);
    return retry ? { requeue: true } : undefined;
  }

  /** sources reads the roleRefs for one cluster (empty namespace = the cluster's namespace). */
  private sources(rr: RoleRequest, entry: ClusterEntry): { ok: true; sources: RoleSource[] } | { ok: false; message: string } {
    const out: RoleSource[] = [];
    for (const ref of rr.spec.roleRefs ?? []) {
      const ns = ref.namespace || entry.ref.namespace;
      const sub = ref.kind === 'Secret' ? this.secrets : this.cms;
      const obj = sub?.informer.cache.get(ns, ref.name) as (KubeObject & { data?: Record<string, string> }) | undefined;
      if (!obj) return { ok: false, message: `roleRefs: ${ref.kind} ${ns}/${ref.name} not found` };
      if (obj.metadata.annotations?.[TEMPLATE_ANNOTATION] !== undefined) {
        return { ok: false, message: `roleRefs: ${ref.kind} ${ns}/${ref.name} is a template (annotation ${TEMPLATE_ANNOTATION}); Ripple does not render roleRefs templates: write the roles plainly` };
      }
      const data: Record<string, string> = {};
      for (const [k, v] of Object.entries(obj.data ?? {})) data[k] = ref.kind === 'Secret' ? Buffer.from(v, 'base64').toString('utf8') : v;
      out.push({ kind: ref.kind, namespace: ns, name: ref.name, data });
    }
    return { ok: true, sources: out };
  }

  /** deployTo brings one cluster in line with the RoleRequest; never throws (the failure is in the result). */
  private async deployTo(rr: RoleRequest, tenant: Tenant, entry: ClusterEntry, prev: ClusterInfo | undefined): Promise<ClusterInfo> {
    const cluster = clusterRefOut(entry);
    const src = this.sources(rr, entry);
    if (!src.ok) return { cluster, hash: prev?.hash ?? '', status: 'FailedNonRetriable', failureMessage: src.message };
    const parsed = parseRoles(src.sources);
    if (!parsed.ok) return { cluster, hash: prev?.hash ?? '', status: 'FailedNonRetriable', failureMessage: parsed.message };
    const plan = planCluster(rr.metadata.name, tenant, parsed.roles);
    // Quiet path: same plan already Provisioned here.
    if (prev?.hash === plan.hash && prev.status === 'Provisioned') return prev;
    if (entry.paused) return { cluster, hash: prev?.hash ?? '', status: 'Provisioning', failureMessage: 'cluster is paused' };
    try {
      const client = await this.o.registry.client(entry.key);
      const conflict = await this.execute(rr.metadata.name, client, plan);
      if (conflict) return { cluster, hash: prev?.hash ?? '', status: 'FailedNonRetriable', failureMessage: conflict };
      this.event(rr, 'Normal', 'RolesDeployed', `cluster ${entry.ref.namespace}/${entry.ref.name}: ServiceAccount ${plan.serviceAccount.metadata.namespace}/${plan.serviceAccount.metadata.name} with ${plan.objects.length} roles and bindings`);
      return { cluster, hash: plan.hash, status: 'Provisioned' };
    } catch (err) {
      this.log.warn({ cluster: entry.key, err: errorMessage(err) }, 'cannot deploy RoleRequest');
      return { cluster, hash: prev?.hash ?? '', status: 'Failed', failureMessage: errorMessage(err) };
    }
  }

  /** execute writes the plan into a cluster; returns a conflict message instead of overwriting someone else's object. */
  private async execute(roleRequest: string, client: KubeClient, plan: ClusterPlan): Promise<string | undefined> {
    for (const o of plan.objects) {
      const cur = await client.getIfExists<KubeObject>({ apiVersion: o.apiVersion, kind: o.kind, namespace: o.metadata.namespace, name: o.metadata.name });
      const owner = foreignOwner(roleRequest, cur);
      if (owner) {
        return `${o.kind} ${o.metadata.namespace ? `${o.metadata.namespace}/` : ''}${o.metadata.name} already exists ${owner === 'unlabelled' ? 'and was not created by a RoleRequest' : `and belongs to RoleRequest ${owner}`}: rename the role in the roleRefs`;
      }
    }
    for (const ns of plan.namespaces) {
      try {
        await client.create({ apiVersion: 'v1', kind: 'Namespace', metadata: { name: ns } });
      } catch (err) {
        if (!isAlreadyExists(err)) throw err;
      }
    }
    await client.apply(plan.serviceAccount, { fieldManager: ACCESS_FIELD_MANAGER, force: true });
    for (const o of plan.objects) await client.apply(o, { fieldManager: ACCESS_FIELD_MANAGER, force: true });
    for (const o of staleObjects(roleRequest, await this.owned(client, roleRequest), plan)) await this.remove(client, o);
    return undefined;
  }

  /** owned lists what this RoleRequest created in a cluster. */
  private async owned(client: KubeClient, roleRequest: string): Promise<KubeObject[]> {
    const out: KubeObject[] = [];
    for (const gvk of OWNED_KINDS) {
      try {
        out.push(...(await client.list<KubeObject>(gvk, { labelSelector: `${ROLE_REQUEST_LABEL}=${roleRequest}` })).items.map((o) => ({ ...o, apiVersion: gvk.apiVersion, kind: gvk.kind })));
      } catch (err) {
        if (!isKindNotInstalled(err)) throw err;
      }
    }
    return out;
  }

  private async remove(client: KubeClient, o: KubeObject): Promise<void> {
    try {
      await client.delete({ apiVersion: o.apiVersion, kind: o.kind, namespace: o.metadata.namespace, name: o.metadata.name });
    } catch (err) {
      if (!isNotFound(err)) throw err;
    }
  }

  /** withdrawFrom removes this RoleRequest's objects from a cluster, and the ServiceAccount unless another grant keeps it. */
  private async withdrawFrom(rr: RoleRequest, tenant: Tenant, entry: ClusterEntry): Promise<void> {
    const client = await this.o.registry.client(entry.key);
    const mine = await this.owned(client, rr.metadata.name);
    // Bindings first: the permission goes before the role does.
    for (const o of [...mine].sort((a, b) => Number(b.kind.endsWith('Binding')) - Number(a.kind.endsWith('Binding')))) await this.remove(client, o);
    const others = (this.rrs?.informer.cache.list() ?? []).filter(
      (r) =>
        r.metadata.name !== rr.metadata.name &&
        !r.metadata.deletionTimestamp &&
        r.spec?.serviceAccountName === tenant.name &&
        r.spec?.serviceAccountNamespace === tenant.namespace &&
        this.o.registry.matching({ clusterSelector: r.spec.clusterSelector ?? null }, { includePaused: true }).some((e) => e.key === entry.key),
    );
    if (others.length === 0 && tenant.name && tenant.namespace) {
      const sa = managedServiceAccount(tenant);
      await this.remove(client, { apiVersion: 'v1', kind: 'ServiceAccount', metadata: sa });
    }
  }

  /** finalize withdraws from every cluster the RoleRequest reached, then lets it go. */
  private async finalize(rr: RoleRequest, tenant: Tenant): Promise<ReconcileResult | void> {
    if (!(rr.metadata.finalizers ?? []).includes(ROLE_REQUEST_FINALIZER)) return;
    const keys = new Set<string>();
    for (const c of rr.status?.matchingClusters ?? []) {
      const k = refKey(c);
      if (k) keys.add(k);
    }
    for (const e of this.o.registry.matching({ clusterSelector: rr.spec?.clusterSelector ?? null }, { includePaused: true })) keys.add(e.key);
    for (const key of keys) {
      const entry = this.o.registry.get(key);
      if (!entry) continue;
      if (entry.paused) return { requeueAfter: 30_000 };
      try {
        await this.withdrawFrom(rr, tenant, entry);
      } catch (err) {
        const message = `cannot remove the roles of RoleRequest ${rr.metadata.name} from cluster ${entry.ref.namespace}/${entry.ref.name}: ${errorMessage(err)}`;
        this.event(rr, 'Warning', 'RoleRequestFailed', message);
        await this.writeStatus(rr, { ...(rr.status ?? {}), failureMessage: message }).catch(() => undefined);
        return { requeue: true };
      }
    }
    try {
      await this.o.registry.mgmt.patch({ ...ROLE_REQUEST, name: rr.metadata.name }, 'merge', {
        metadata: { finalizers: (rr.metadata.finalizers ?? []).filter((f) => f !== ROLE_REQUEST_FINALIZER), resourceVersion: rr.metadata.resourceVersion },
      });
    } catch (err) {
      if (isNotFound(err)) return;
      if (isConflict(err)) return { requeue: true };
      throw err;
    }
  }

  private async writeStatus(rr: RoleRequest, status: RoleRequestStatus): Promise<void> {
    if (JSON.stringify(rr.status ?? {}) === JSON.stringify(status)) return;
    try {
      await this.o.registry.mgmt.patch({ ...ROLE_REQUEST, name: rr.metadata.name }, 'merge', { status: { matchingClusters: null, clusterInfo: null, failureMessage: null, ...status } }, { subresource: 'status' });
    } catch (err) {
      if (!isNotFound(err)) throw err;
    }
  }
}
