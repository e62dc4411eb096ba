// Allocators for Service clusterIPs, nodePorts and load-balancer addresses. State lives in memory and is rebuilt from
// the stored objects at startup (like kube's repair controllers), so a restart never hands out a value twice.
import type { Allocator } from './resource.js';

/** ipToNumber parses a dotted IPv4 address (undefined when malformed). */
export function ipToNumber(ip: string): number | undefined {
  const m = /^(\d{1,3})\.(\d{1,3})\.(\d{1,3})\.(\d{1,3})$/.exec(ip);
  if (!m) return undefined;
  const parts = m.slice(1).map(Number);
  if (parts.some((p) => p > 255)) return undefined;
  return ((parts[0] << 24) >>> 0) + (parts[1] << 16) + (parts[2] << 8) + parts[3];
}

/** numberToIp renders a 32-bit number as a dotted IPv4 address. */
export function numberToIp(n: number): string {
  return [(n >>> 24) & 255, (n >>> 16) & 255, (n >>> 8) & 255, n & 255].join('.');
}

/** IpRange is an inclusive range of IPv4 addresses. */
export interface IpRange {
  first: number;
  last: number;
}

/** parseIpRanges reads pool entries: CIDRs ("192.0.2.0/24"), ranges ("10.0.0.5-10.0.0.9") and single addresses. */
export function parseIpRanges(entries: string[], { skipNetworkAndBroadcast = true } = {}): IpRange[] {
  return entries.map((e) => {
    const entry = e.trim();
    const dash = entry.indexOf('-');
    if (dash > 0) {
      const a = ipToNumber(entry.slice(0, dash).trim());
      const b = ipToNumber(entry.slice(dash + 1).trim());
      if (a === undefined || b === undefined || b < a) throw new Error(`invalid address range ${JSON.stringify(e)}`);
      return { first: a, last: b };
    }
    const slash = entry.indexOf('/');
    if (slash > 0) {
      const base = ipToNumber(entry.slice(0, slash));
      const bits = Number(entry.slice(slash + 1));
      if (base === undefined || !Number.isInteger(bits) || bits < 8 || bits > 32) throw new Error(`invalid CIDR ${JSON.stringify(e)}`);
      const size = 2 ** (32 - bits);
      const first = base - (base % size);
      const last = first + size - 1;
      if (skipNetworkAndBroadcast && size > 2) return { first: first + 1, last: last - 1 };
      return { first, last };
    }
    const one = ipToNumber(entry);
    if (one === undefined) throw new Error(`invalid address ${JSON.stringify(e)}`);
    return { first: one, last: one };
  });
}

/** RangeAllocator hands out numbers from ranges; values are rendered by `format` and parsed by `parse`. */
export class RangeAllocator implements Allocator {
  private readonly held = new Map<number, string>();
  private readonly size: number;
  constructor(
    private readonly ranges: IpRange[],
    readonly range: string,
    private readonly format: (n: number) => string,
    private readonly parse: (s: string) => number | undefined,
    /** preferUpper: start random allocation in the upper part of the range (kube keeps the lower part for static IPs). */
    private readonly random: () => number = Math.random,
  ) {
    this.size = ranges.reduce((n, r) => n + (r.last - r.first + 1), 0);
  }

  private contains(n: number): boolean {
    return this.ranges.some((r) => n >= r.first && n <= r.last);
  }

  private nth(i: number): number {
    for (const r of this.ranges) {
      const len = r.last - r.first + 1;
      if (i < len) return r.first + i;
      i -= len;
    }
    throw new Error('index out of range');
  }

  /** used is the number of values currently held. */
  get used(): number {
    return this.held.size;
  }

  allocateNext(owner: string): string | undefined {
    if (this.held.size >= this.size) return undefined;
    // Random probing first (cheap while the range is sparse), then a linear scan from a random start.
    for (let tries = 0; tries < 32; tries++) {
      const n = this.nth(Math.floor(this.random() * this.size));
      if (!this.held.has(n)) {
        this.held.set(n, owner);
        return this.format(n);
      }
    }
    const start = Math.floor(this.random() * this.size);
    for (let k = 0; k < this.size; k++) {
      const n = this.nth((start + k) % this.size);
      if (!this.held.has(n)) {
        this.held.set(n, owner);
        return this.format(n);
      }
    }
    return undefined;
  }

  /** allocateFirst takes the lowest free value (deterministic; used for load-balancer pools). */
  allocateFirst(owner: string): string | undefined {
    for (let i = 0; i < this.size; i++) {
      const n = this.nth(i);
      if (!this.held.has(n)) {
        this.held.set(n, owner);
        return this.format(n);
      }
    }
    return undefined;
  }

  allocateSpecific(value: string, owner: string): 'ok' | 'taken' | 'outOfRange' {
    const n = this.parse(value);
    if (n === undefined || !this.contains(n)) return 'outOfRange';
    const h = this.held.get(n);
    if (h !== undefined && h !== owner) return 'taken';
    this.held.set(n, owner);
    return 'ok';
  }

  release(value: string, owner: string): void {
    const n = this.parse(value);
    if (n !== undefined && this.held.get(n) === owner) this.held.delete(n);
  }

  holder(value: string): string | undefined {
    const n = this.parse(value);
    return n === undefined ? undefined : this.held.get(n);
  }
}

/** newServiceIPAllocator allocates clusterIPs from a CIDR (default 10.96.0.0/12, like kubeadm and kind). */
export function newServiceIPAllocator(cidr = '10.96.0.0/12'): RangeAllocator {
  return new RangeAllocator(parseIpRanges([cidr]), cidr, numberToIp, ipToNumber);
}

/** newNodePortAllocator allocates node ports from 30000-32767 (kube's default --service-node-port-range). */
export function newNodePortAllocator(first = 30000, last = 32767): RangeAllocator {
  const parse = (s: string) => (/^\d+$/.test(s) ? Number(s) : undefined);
  return new RangeAllocator([{ first, last }], `${first}-${last}`, String, parse);
}

/** newPoolAllocator allocates load-balancer addresses from pool entries (CIDRs, ranges, single IPs), lowest first. */
export function newPoolAllocator(pool: string[]): RangeAllocator {
  return new RangeAllocator(parseIpRanges(pool, { skipNetworkAndBroadcast: true }), pool.join(','), numberToIp, ipToNumber);
}
