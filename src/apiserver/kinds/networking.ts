// networking.k8s.io/v1 NetworkPolicy and Ingress, discovery.k8s.io/v1 EndpointSlice, coordination.k8s.io/v1 Lease.
// Go: kubernetes/pkg/registry/networking, pkg/registry/discovery/endpointslice, pkg/registry/coordination/lease
import type { FieldError } from '../schema/index.js';
import { ageColumn, asArray, asRecord, column, formatLabelSelector, formatList, nameColumn } from '../printers.js';
import { deepEqual, type KubeObject } from '../types.js';
import { defineBuiltin } from './define.js';

// Go: SetDefaults_NetworkPolicyPort / SetDefaults_EndpointPort — a port without a protocol is TCP.
function defaultPortProtocols(ports: unknown, extra: Record<string, unknown> = {}): unknown {
  if (!Array.isArray(ports)) return ports;
  return ports.map((p) => {
    if (!p || typeof p !== 'object' || Array.isArray(p)) return p;
    const out: Record<string, unknown> = { ...p };
    out.protocol ??= 'TCP';
    for (const [k, v] of Object.entries(extra)) out[k] ??= v;
    return out;
  });
}

/** networkPolicyDescriptor: networking.k8s.io/v1 NetworkPolicy. */
export const networkPolicyDescriptor = defineBuiltin({
  group: 'networking.k8s.io',
  version: 'v1',
  kind: 'NetworkPolicy',
  plural: 'networkpolicies',
  namespaced: true,
  shortNames: ['netpol'],
  tracksGeneration: true,
  columns: [nameColumn, column('Pod-Selector', 'string', (o) => formatLabelSelector(asRecord(o.spec).podSelector), { description: 'Pod selector of the NetworkPolicy' }), ageColumn],
  hooks: {
    default(obj) {
      const spec = { ...asRecord(obj.spec) };
      spec.podSelector ??= {};
      for (const dir of ['ingress', 'egress'] as const) {
        if (Array.isArray(spec[dir])) spec[dir] = spec[dir].map((r) => (r && typeof r === 'object' && !Array.isArray(r) ? { ...r, ...('ports' in r ? { ports: defaultPortProtocols(r.ports) } : {}) } : r));
      }
      if (!spec.policyTypes) {
        const types = ['Ingress'];
        if (asArray(spec.egress).length > 0) types.push('Egress');
        spec.policyTypes = types;
      }
      obj.spec = spec;
    },
  },
});

function ingressHosts(o: KubeObject): string {
  const hosts = asArray(asRecord(o.spec).rules).map((r) => String(asRecord(r).host ?? '*') || '*');
  return formatList(hosts.length > 0 ? hosts : ['*'], 4, '*');
}

function ingressAddress(o: KubeObject): string {
  const ing = asArray(asRecord(asRecord(o.status).loadBalancer).ingress).map((i) => String(asRecord(i).ip ?? asRecord(i).hostname ?? ''));
  return ing.join(',');
}

/** ingressDescriptor: networking.k8s.io/v1 Ingress with a status subresource. */
export const ingressDescriptor = defineBuiltin({
  group: 'networking.k8s.io',
  version: 'v1',
  kind: 'Ingress',
  plural: 'ingresses',
  namespaced: true,
  shortNames: ['ing'],
  status: true,
  tracksGeneration: true,
  columns: [
    nameColumn,
    column('Class', 'string', (o) => asRecord(o.spec).ingressClassName ?? '<none>', { description: 'The name of the IngressClass resource that should be used for this Ingress.' }),
    column('Hosts', 'string', ingressHosts, { description: 'Hosts that incoming requests are matched against before the ingress rule' }),
    column('Address', 'string', ingressAddress, { description: 'Address is a list containing ingress points for the load-balancer' }),
    column('Ports', 'string', (o) => (asArray(asRecord(o.spec).tls).length > 0 ? '80, 443' : '80'), { description: 'Ports of TLS configurations that open' }),
    ageColumn,
  ],
  hooks: {
    prepareForCreate(obj) {
      obj.status = {};
    },
    prepareForUpdate(obj, old) {
      obj.status = old.status;
    },
    validate(obj) {
      const errs: FieldError[] = [];
      const spec = asRecord(obj.spec);
      if (asArray(spec.rules).length === 0 && !spec.defaultBackend) {
        errs.push({ type: 'FieldValueInvalid', field: 'spec', badValue: '[]', detail: 'either `defaultBackend` or `rules` must be specified' });
      }
      return errs;
    },
  },
});

/** ingressClassDescriptor: networking.k8s.io/v1 IngressClass (cluster-scoped). */
export const ingressClassDescriptor = defineBuiltin({
  group: 'networking.k8s.io',
  version: 'v1',
  kind: 'IngressClass',
  plural: 'ingressclasses',
  namespaced: false,
  tracksGeneration: true,
  columns: [nameColumn, column('Controller', 'string', (o) => asRecord(o.spec).controller ?? ''), ageColumn],
});

const ADDRESS_TYPES = ['IPv4', 'IPv6', 'FQDN'];

/** endpointSliceDescriptor: discovery.k8s.io/v1 EndpointSlice (addressType required and immutable). */
export const endpointSliceDescriptor = defineBuiltin({
  group: 'discovery.k8s.io',
  version: 'v1',
  kind: 'EndpointSlice',
  plural: 'endpointslices',
  namespaced: true,
  tracksGeneration: true,
  columns: [
    nameColumn,
    column('AddressType', 'string', (o) => o.addressType ?? ''),
    column('Ports', 'string', (o) => formatList(asArray(o.ports).map((p) => String(asRecord(p).port ?? '')), 3, '<unset>')),
    column('Endpoints', 'string', (o) => formatList(asArray(o.endpoints).flatMap((e) => asArray(asRecord(e).addresses).map(String)), 3, '<unset>')),
    ageColumn,
  ],
  hooks: {
    default(obj) {
      if ('ports' in obj) obj.ports = defaultPortProtocols(obj.ports, { name: '' });
    },
    validate(obj) {
      const errs: FieldError[] = [];
      if (!obj.addressType) errs.push({ type: 'FieldValueRequired', field: 'addressType', detail: '' });
      else if (!ADDRESS_TYPES.includes(String(obj.addressType))) {
        errs.push({ type: 'FieldValueNotSupported', field: 'addressType', badValue: obj.addressType, detail: `supported values: ${ADDRESS_TYPES.map((t) => `"${t}"`).join(', ')}` });
      }
      return errs;
    },
    validateUpdate(obj, old) {
      return deepEqual(obj.addressType, old.addressType) ? [] : [{ type: 'FieldValueInvalid', field: 'addressType', badValue: obj.addressType, detail: 'field is immutable' }];
    },
  },
});

/** leaseDescriptor: coordination.k8s.io/v1 Lease (leader election). */
export const leaseDescriptor = defineBuiltin({
  group: 'coordination.k8s.io',
  version: 'v1',
  kind: 'Lease',
  plural: 'leases',
  namespaced: true,
  allowCreateOnUpdate: true,
  columns: [nameColumn, column('Holder', 'string', (o) => asRecord(o.spec).holderIdentity ?? '<unknown>', { description: 'Name of the Lease holder' }), ageColumn],
});
