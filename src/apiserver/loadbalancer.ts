// The load-balancer simulator (like MetalLB in layer-2 mode): per virtual cluster, Services of type LoadBalancer
// get status.loadBalancer.ingress[].ip from a pool; addresses are released when the Service goes away or changes type.
import { newPoolAllocator, type RangeAllocator } from './allocator.js';
import type { Cluster, Logger } from './cluster.js';
import { asArray, asRecord } from './printers.js';
import { internalWrite, mutate, scopeFor } from './registry.js';
import type { KubeObject, Stored } from './types.js';
import type { ChangeEvent } from './watch.js';

/** DEFAULT_LB_POOL is the TEST-NET ranges (RFC 5737), which never route anywhere. */
export const DEFAULT_LB_POOL = ['192.0.2.0/24', '198.51.100.0/24', '203.0.113.0/24'];

const SERVICES = '/services';
const MANAGER = 'ripple-loadbalancer';
/** The annotations MetalLB reads to request specific addresses. */
const IP_ANNOTATIONS = ['metallb.universe.tf/loadBalancerIPs', 'metallb.io/loadBalancerIPs'];

const ownerOf = (o: KubeObject) => `${o.metadata?.namespace}/${o.metadata?.name}`;
const isLoadBalancer = (o: KubeObject | undefined) => !!o && asRecord(o.spec).type === 'LoadBalancer' && !asRecord(o.spec).loadBalancerClass;
const ingressIPs = (o: KubeObject | undefined) =>
  asArray(asRecord(asRecord(o?.status).loadBalancer).ingress)
    .map((i) => asRecord(i).ip)
    .filter((ip): ip is string => typeof ip === 'string');

/** LoadBalancer assigns pool addresses to one cluster's LoadBalancer Services. */
export class LoadBalancer {
  private readonly pool: RangeAllocator;
  private pending = new Set<string>();
  private scheduled: NodeJS.Immediate | undefined;
  private stopped = false;

  constructor(
    private readonly cluster: Cluster,
    readonly addresses: string[],
    private readonly logger: Logger,
  ) {
    this.pool = newPoolAllocator(addresses);
    cluster.setAllocator('loadBalancer', this.pool);
    // Addresses already in Service status (from before a restart) stay with their Services.
    for (const s of cluster.table(SERVICES).objects.values()) {
      if (!isLoadBalancer(s.obj)) continue;
      for (const ip of ingressIPs(s.obj)) this.pool.allocateSpecific(ip, ownerOf(s.obj));
    }
    cluster.hub.listen((ev) => this.observe(ev));
    for (const [key, s] of cluster.table(SERVICES).objects) if (isLoadBalancer(s.obj)) this.enqueue(key);
  }

  /** stop ends the simulator (the pool stays with the cluster until it is replaced). */
  stop(): void {
    this.stopped = true;
    if (this.scheduled) clearImmediate(this.scheduled);
  }

  private observe(ev: ChangeEvent): void {
    if (ev.storage !== SERVICES) return;
    if (ev.type === 'DELETED') {
      const freed = ingressIPs(ev.prev!.obj);
      for (const ip of freed) this.pool.release(ip, ownerOf(ev.prev!.obj));
      // Services waiting for an address may get the one just freed.
      if (freed.length > 0) this.enqueueWaiting();
      return;
    }
    const m = ev.cur!.obj.metadata;
    this.enqueue(`${m.namespace}/${m.name}`);
  }

  private enqueueWaiting(): void {
    for (const [key, s] of this.cluster.table(SERVICES).objects) if (isLoadBalancer(s.obj) && ingressIPs(s.obj).length === 0) this.enqueue(key);
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
      if (this.stopped) return;
      const s = this.cluster.tables.get(SERVICES)?.objects.get(key);
      if (!s) continue;
      try {
        this.sync(s);
      } catch (e) {
        this.logger.warn({ err: e instanceof Error ? e.message : String(e), service: key }, 'load balancer sync failed');
      }
    }
  }

  private sync(s: Stored): void {
    const svc = s.obj;
    const owner = ownerOf(svc);
    const current = ingressIPs(svc);
    if (!isLoadBalancer(svc) || svc.metadata.deletionTimestamp) {
      if (current.length === 0) return;
      for (const ip of current) this.pool.release(ip, owner);
      this.writeIngress(svc, []);
      this.enqueueWaiting();
      return;
    }
    if (current.length > 0 && current.every((ip) => this.pool.holder(ip) === owner)) return;
    const requested = this.requested(svc);
    let ip: string | undefined;
    for (const r of requested) {
      if (this.pool.allocateSpecific(r, owner) === 'ok') {
        ip = r;
        break;
      }
    }
    if (!ip && requested.length === 0) ip = current.find((c) => this.pool.allocateSpecific(c, owner) === 'ok') ?? this.pool.allocateFirst(owner);
    if (!ip) {
      this.logger.warn({ service: owner, pool: this.addresses }, requested.length ? 'requested load-balancer address unavailable' : 'load-balancer pool exhausted');
      return;
    }
    this.writeIngress(svc, [ip]);
  }

  private requested(svc: KubeObject): string[] {
    const out: string[] = [];
    const spec = asRecord(svc.spec);
    if (typeof spec.loadBalancerIP === 'string' && spec.loadBalancerIP) out.push(spec.loadBalancerIP);
    for (const a of IP_ANNOTATIONS) {
      const v = svc.metadata?.annotations?.[a];
      if (v) out.push(...v.split(',').map((x) => x.trim()).filter(Boolean));
    }
    return out;
  }

  private writeIngress(svc: KubeObject, ips: string[]): void {
    const desc = this.cluster.registry.forStorage(SERVICES)!;
    mutate(scopeFor(this.cluster, desc, svc.metadata?.namespace ?? '', 'status'), svc.metadata!.name!, (o) => {
      const status = asRecord(o.status);
      o.status = { ...status, loadBalancer: ips.length > 0 ? { ingress: ips.map((ip) => ({ ip, ipMode: 'VIP' })) } : {} };
    }, internalWrite(MANAGER));
  }
}
