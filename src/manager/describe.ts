// describe.ts: short human descriptions of objects for the narrator — identity (`Service test/svc-a`) and, per kind,
// the one detail a reader wants to see (a load-balancer address, an Ingress's paths). A table keyed by kind; kinds
// without an entry are named only.
import type { KubeObject } from '../kube/index.js';

type Obj = KubeObject & Record<string, unknown>;
type Describer = (o: Obj) => string | undefined;

const rec = (v: unknown): Record<string, unknown> => (v && typeof v === 'object' && !Array.isArray(v) ? (v as Record<string, unknown>) : {});
const arr = (v: unknown): unknown[] => (Array.isArray(v) ? v : []);
const str = (v: unknown): string => (typeof v === 'string' || typeof v === 'number' ? String(v) : '');

/** loadBalancerAddresses lists a Service's status.loadBalancer.ingress IPs / host names. */
export function loadBalancerAddresses(o: KubeObject): string[] {
  return arr(rec(rec(rec(o).status).loadBalancer).ingress)
    .map((i) => str(rec(i).ip) || str(rec(i).hostname))
    .filter(Boolean);
}

function selectorText(sel: unknown): string {
  const entries = Object.entries(rec(rec(sel).matchLabels ?? sel));
  return entries.length === 0 ? '{}' : entries.map(([k, v]) => `${k}=${str(v)}`).join(',');
}

// Per-kind details (keyed by kind; the groups involved have one kind of each name).
const DESCRIBERS: Record<string, Describer> = {
  Service: (o) => {
    const spec = rec(o.spec);
    const ports = arr(spec.ports).map((p) => str(rec(p).port)).filter(Boolean);
    const lb = loadBalancerAddresses(o);
    const parts = [str(spec.type) || 'ClusterIP', ports.length > 0 ? `port ${ports.join(',')}` : ''];
    if (lb.length > 0) parts.push(`load-balancer address ${lb.join(', ')}`);
    return parts.filter(Boolean).join(', ');
  },
  Endpoints: (o) => {
    const targets = arr(o.subsets).flatMap((s) => {
      const ips = arr(rec(s).addresses).map((a) => str(rec(a).ip));
      const ports = arr(rec(s).ports).map((p) => str(rec(p).port));
      return ips.flatMap((ip) => (ports.length > 0 ? ports.map((p) => `${ip}:${p}`) : [ip]));
    });
    return targets.length > 0 ? `→ ${targets.join(', ')}` : 'no addresses';
  },
  NetworkPolicy: (o) => {
    const spec = rec(o.spec);
    const ports = arr(spec.ingress).flatMap((r) => arr(rec(r).ports).map((p) => str(rec(p).port)));
    return `pods ${selectorText(spec.podSelector)}${ports.length > 0 ? `, ingress on port ${ports.join(',')}` : ''}`;
  },
  Ingress: (o) => {
    const paths = arr(rec(o.spec).rules).flatMap((r) =>
      arr(rec(rec(r).http).paths).map((p) => {
        const svc = rec(rec(rec(p).backend).service);
        return `${str(rec(p).path)} → ${str(svc.name)}:${str(rec(svc.port).number) || str(rec(svc.port).name)}`;
      }),
    );
    return paths.length > 0 ? `paths ${paths.join(', ')}` : 'no paths';
  },
  HTTPRoute: (o) => {
    const rules = arr(rec(o.spec).rules).map((r) => {
      const path = str(rec(rec(arr(rec(r).matches)[0]).path).value);
      const backends = arr(rec(r).backendRefs).map((b) => `${str(rec(b).name)}:${str(rec(b).port)}`);
      return `${path || '/'} → ${backends.join(',')}`;
    });
    return rules.join(', ');
  },
  ClusterProfile: (o) => {
    const spec = rec(o.spec);
    const refs = arr(spec.clusterRefs).map((r) => `${str(rec(r).namespace)}/${str(rec(r).name)}`);
    const sel = spec.clusterSelector;
    const target = refs.length > 0 ? `for cluster ${refs.join(', ')}` : sel ? `for clusters ${selectorText(sel)}` : 'for no cluster';
    return `${target}, ${arr(spec.policyRefs).length} policyRef(s)`;
  },
  ConfigMap: (o) => `keys ${Object.keys(rec(o.data)).join(', ') || '(none)'}`,
};

/** objectName is `Kind namespace/name` (or `Kind name` for cluster-scoped objects). */
export function objectName(o: { kind?: string; metadata?: { namespace?: string; name?: string } } | { kind?: string; namespace?: string; name?: string }): string {
  const meta = 'metadata' in o && o.metadata ? o.metadata : (o as { namespace?: string; name?: string });
  return `${o.kind ?? 'object'} ${meta.namespace ? `${meta.namespace}/` : ''}${meta.name ?? ''}`;
}

/** detailOf is the kind's one-line detail of an object ('' for kinds without a describer). */
export function detailOf(o: KubeObject): string {
  // Describers read through total accessors (rec/arr/str): an unexpected shape only loses the detail.
  return DESCRIBERS[o.kind]?.(o as Obj) ?? '';
}

/** describe is `Kind namespace/name (detail)`. */
export function describe(o: KubeObject): string {
  const d = detailOf(o);
  return d ? `${objectName(o)} (${d})` : objectName(o);
}
