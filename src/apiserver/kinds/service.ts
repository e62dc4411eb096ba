// Service: defaulting, validation, clusterIP and nodePort allocation, and the kubectl columns.
// Go: kubernetes/pkg/registry/core/service/strategy.go, storage/alloc.go, pkg/apis/core/validation ValidateService
import type { FieldError } from '../schema/index.js';
import type { HookContext, KindHooks } from '../resource.js';
import { ageColumn, asArray, asRecord, column, formatMap, nameColumn } from '../printers.js';
import { goStringSlice, invalid } from '../status.js';
import { isPlainObject, type KubeObject } from '../types.js';
import { isDNS1123Label } from '../validation.js';
import { defineBuiltin } from './define.js';

const SERVICE_TYPES = ['ClusterIP', 'ExternalName', 'LoadBalancer', 'NodePort'];
const PROTOCOLS = ['SCTP', 'TCP', 'UDP'];

type Port = Record<string, unknown>;
const ports = (spec: Record<string, unknown>): Port[] => asArray(spec.ports).map(asRecord);
const usesNodePorts = (spec: Record<string, unknown>) =>
  spec.type === 'NodePort' || (spec.type === 'LoadBalancer' && spec.allocateLoadBalancerNodePorts !== false);
const ownerOf = (obj: KubeObject) => `${obj.metadata?.namespace}/${obj.metadata?.name}`;

// Go: SetDefaults_Service
function defaultService(obj: KubeObject): void {
  if (!isPlainObject(obj.spec)) return;
  const spec = { ...obj.spec };
  spec.type ??= 'ClusterIP';
  spec.sessionAffinity ??= 'None';
  if (spec.type !== 'ExternalName') spec.internalTrafficPolicy ??= 'Cluster';
  if (spec.type === 'NodePort' || spec.type === 'LoadBalancer') spec.externalTrafficPolicy ??= 'Cluster';
  if (spec.type === 'LoadBalancer') spec.allocateLoadBalancerNodePorts ??= true;
  if (Array.isArray(spec.ports)) {
    spec.ports = spec.ports.map((p) => {
      if (!isPlainObject(p)) return p;
      const q = { ...p };
      q.protocol ??= 'TCP';
      if (q.targetPort === undefined || q.targetPort === 0 || q.targetPort === '') q.targetPort = q.port;
      return q;
    });
  }
  if (spec.clusterIP && !spec.clusterIPs) spec.clusterIPs = [spec.clusterIP];
  if (!spec.clusterIP && Array.isArray(spec.clusterIPs) && spec.clusterIPs.length > 0) spec.clusterIP = spec.clusterIPs[0];
  obj.spec = spec;
}

function validateService(obj: KubeObject): FieldError[] {
  const errs: FieldError[] = [];
  const spec = asRecord(obj.spec);
  const type = String(spec.type ?? 'ClusterIP');
  if (!SERVICE_TYPES.includes(type)) {
    errs.push({ type: 'FieldValueNotSupported', field: 'spec.type', badValue: type, detail: `supported values: ${SERVICE_TYPES.map((t) => `"${t}"`).join(', ')}` });
  }
  const headless = spec.clusterIP === 'None';
  const list = ports(spec);
  if (type === 'ExternalName') {
    if (!spec.externalName) errs.push({ type: 'FieldValueRequired', field: 'spec.externalName', detail: '' });
  } else if (list.length === 0 && !headless) {
    errs.push({ type: 'FieldValueRequired', field: 'spec.ports', detail: '' });
  }
  const names = new Set<string>();
  const seen = new Set<string>();
  list.forEach((p, i) => {
    const path = `spec.ports[${i}]`;
    const name = typeof p.name === 'string' ? p.name : '';
    if (list.length > 1 && !name) errs.push({ type: 'FieldValueRequired', field: `${path}.name`, detail: '' });
    if (name) {
      for (const m of isDNS1123Label(name)) errs.push({ type: 'FieldValueInvalid', field: `${path}.name`, badValue: name, detail: m });
      if (names.has(name)) errs.push({ type: 'FieldValueDuplicate', field: `${path}.name`, badValue: name, detail: '' });
      names.add(name);
    }
    const port = p.port;
    if (typeof port !== 'number' || !Number.isInteger(port) || port < 1 || port > 65535) {
      errs.push({ type: 'FieldValueInvalid', field: `${path}.port`, badValue: port ?? 0, detail: 'must be between 1 and 65535, inclusive' });
    }
    const proto = String(p.protocol ?? 'TCP');
    if (!PROTOCOLS.includes(proto)) {
      errs.push({ type: 'FieldValueNotSupported', field: `${path}.protocol`, badValue: proto, detail: `supported values: ${PROTOCOLS.map((t) => `"${t}"`).join(', ')}` });
    }
    const key = `${port}/${proto}`;
    if (seen.has(key)) errs.push({ type: 'FieldValueDuplicate', field: path, badValue: { port, protocol: proto }, detail: '' });
    seen.add(key);
    const tp = p.targetPort;
    if (typeof tp === 'number' && (tp < 1 || tp > 65535)) {
      errs.push({ type: 'FieldValueInvalid', field: `${path}.targetPort`, badValue: tp, detail: 'must be between 1 and 65535, inclusive' });
    }
    if (p.nodePort !== undefined && p.nodePort !== 0 && type === 'ClusterIP') {
      errs.push({ type: 'FieldValueForbidden', field: `${path}.nodePort`, detail: "may not be used when `type` is 'ClusterIP'" });
    }
  });
  const ip = spec.clusterIP;
  if (typeof ip === 'string' && ip !== '' && ip !== 'None' && !/^\d{1,3}(\.\d{1,3}){3}$/.test(ip)) {
    errs.push({ type: 'FieldValueInvalid', field: 'spec.clusterIPs[0]', badValue: ip, detail: 'must be a valid IP address, (e.g. 10.9.8.7 or 2001:db8::ffff)' });
  }
  if (type === 'ExternalName' && ip && ip !== '') {
    errs.push({ type: 'FieldValueForbidden', field: 'spec.clusterIPs', detail: 'may not be set for ExternalName services' });
  }
  return errs;
}

// Go: patchAllocatedValues — an update that omits allocated values keeps them (kubectl apply relies on this).
function keepAllocated(obj: KubeObject, old: KubeObject): void {
  const spec = asRecord(obj.spec);
  const oldSpec = asRecord(old.spec);
  if (!isPlainObject(obj.spec)) return;
  const next = { ...spec };
  const oldIP = oldSpec.clusterIP;
  if (next.type !== 'ExternalName' && oldSpec.type !== 'ExternalName' && oldIP && (next.clusterIP === undefined || next.clusterIP === '')) {
    next.clusterIP = oldIP;
    next.clusterIPs = oldSpec.clusterIPs ?? [oldIP];
  }
  if (usesNodePorts(next) && usesNodePorts(oldSpec)) {
    const oldPorts = ports(oldSpec);
    next.ports = ports(next).map((p) => {
      if (p.nodePort) return p;
      const match = oldPorts.find((o) => o.port === p.port && (o.protocol ?? 'TCP') === (p.protocol ?? 'TCP')) ?? oldPorts.find((o) => o.name && o.name === p.name);
      return match?.nodePort ? { ...p, nodePort: match.nodePort } : p;
    });
  }
  if (next.healthCheckNodePort === undefined && oldSpec.healthCheckNodePort) next.healthCheckNodePort = oldSpec.healthCheckNodePort;
  if (next.ipFamilies === undefined && oldSpec.ipFamilies && next.clusterIP === oldSpec.clusterIP) next.ipFamilies = oldSpec.ipFamilies;
  if (next.ipFamilyPolicy === undefined && oldSpec.ipFamilyPolicy && next.clusterIP === oldSpec.clusterIP) next.ipFamilyPolicy = oldSpec.ipFamilyPolicy;
  obj.spec = next;
}

function heldNodePorts(spec: Record<string, unknown>): string[] {
  const out = ports(spec)
    .map((p) => p.nodePort)
    .filter((n) => typeof n === 'number' && n > 0)
    .map(String);
  if (typeof spec.healthCheckNodePort === 'number' && spec.healthCheckNodePort > 0) out.push(String(spec.healthCheckNodePort));
  return out;
}

/** allocateService claims the clusterIP and nodePorts a Service needs and fills them in. Go: storage/alloc.go */
function allocateService(obj: KubeObject, old: KubeObject | undefined, ctx: HookContext): () => void {
  const undo: (() => void)[] = [];
  const rollback = () => {
    for (let i = undo.length - 1; i >= 0; i--) undo[i]();
  };
  const owner = ownerOf(obj);
  const name = obj.metadata?.name ?? '';
  const spec = { ...asRecord(obj.spec) };
  const oldSpec = old ? asRecord(old.spec) : {};
  const ips = ctx.cluster.allocator('serviceIPs');
  const nodePorts = ctx.cluster.allocator('nodePorts');
  try {
    // clusterIP
    if (spec.type === 'ExternalName') {
      delete spec.clusterIP;
      delete spec.clusterIPs;
      delete spec.ipFamilies;
      delete spec.ipFamilyPolicy;
    } else if (spec.clusterIP === 'None') {
      spec.clusterIPs = ['None'];
      spec.ipFamilies ??= ['IPv4'];
      spec.ipFamilyPolicy ??= 'SingleStack';
    } else {
      const requested = typeof spec.clusterIP === 'string' && spec.clusterIP !== '' ? spec.clusterIP : undefined;
      if (requested && requested !== oldSpec.clusterIP) {
        const r = ips.allocateSpecific(requested, owner);
        if (r !== 'ok') {
          const why = r === 'taken' ? 'provided IP is already allocated' : `the provided IP (${requested}) is not in the valid range. The range of valid IPs is ${ips.range}`;
          throw invalid({ group: '', kind: 'Service' }, name, [
            { type: 'FieldValueInvalid', field: 'spec.clusterIPs', badValue: goStringSlice([requested]), detail: `failed to allocate IP ${requested}: ${why}` },
          ]);
        }
        undo.push(() => ips.release(requested, owner));
      } else if (!requested) {
        const ip = ips.allocateNext(owner);
        if (!ip) throw invalid({ group: '', kind: 'Service' }, name, [{ type: 'FieldValueInvalid', field: 'spec.clusterIPs', badValue: goStringSlice([]), detail: 'failed to allocate IP: range is full' }]);
        undo.push(() => ips.release(ip, owner));
        spec.clusterIP = ip;
      }
      spec.clusterIPs = [spec.clusterIP];
      spec.ipFamilies ??= ['IPv4'];
      spec.ipFamilyPolicy ??= 'SingleStack';
    }
    // nodePorts
    const want = usesNodePorts(spec);
    const newPorts = ports(spec).map((p) => ({ ...p }));
    const before = new Set(old && usesNodePorts(oldSpec) ? heldNodePorts(oldSpec) : []);
    if (want) {
      newPorts.forEach((p, i) => {
        if (typeof p.nodePort === 'number' && p.nodePort > 0) {
          const v = String(p.nodePort);
          if (before.has(v)) return;
          const r = nodePorts.allocateSpecific(v, owner);
          if (r !== 'ok') {
            const why = r === 'taken' ? 'provided port is already allocated' : `provided port is not in the valid range. The range of valid ports is ${nodePorts.range}`;
            throw invalid({ group: '', kind: 'Service' }, name, [{ type: 'FieldValueInvalid', field: `spec.ports[${i}].nodePort`, badValue: p.nodePort, detail: why }]);
          }
          undo.push(() => nodePorts.release(v, owner));
        } else {
          const v = nodePorts.allocateNext(owner);
          if (!v) throw invalid({ group: '', kind: 'Service' }, name, [{ type: 'FieldValueInvalid', field: `spec.ports[${i}].nodePort`, badValue: 0, detail: 'range is full' }]);
          undo.push(() => nodePorts.release(v, owner));
          p.nodePort = Number(v);
        }
      });
      if (spec.type === 'LoadBalancer' && spec.externalTrafficPolicy === 'Local' && !spec.healthCheckNodePort) {
        const v = nodePorts.allocateNext(owner);
        if (v) {
          undo.push(() => nodePorts.release(v, owner));
          spec.healthCheckNodePort = Number(v);
        }
      }
    } else {
      for (const p of newPorts) delete p.nodePort;
      delete spec.healthCheckNodePort;
    }
    if (Array.isArray(spec.ports)) spec.ports = newPorts;
    // What the old object held and the new one does not is released, with an undo that claims it back.
    const kept = new Set([spec.clusterIP, ...(want ? heldNodePorts(spec) : [])].filter(Boolean).map(String));
    if (old) {
      const oldIP = oldSpec.clusterIP;
      if (typeof oldIP === 'string' && oldIP && oldIP !== 'None' && !kept.has(oldIP)) {
        ips.release(oldIP, owner);
        undo.push(() => void ips.allocateSpecific(oldIP, owner));
      }
      for (const v of before) {
        if (!kept.has(v)) {
          nodePorts.release(v, owner);
          undo.push(() => void nodePorts.allocateSpecific(v, owner));
        }
      }
    }
    obj.spec = spec;
    return rollback;
  } catch (e) {
    rollback();
    throw e;
  }
}

function releaseService(obj: KubeObject, ctx: HookContext): void {
  const spec = asRecord(obj.spec);
  const owner = ownerOf(obj);
  if (typeof spec.clusterIP === 'string' && spec.clusterIP !== 'None') ctx.cluster.allocator('serviceIPs').release(spec.clusterIP, owner);
  for (const v of heldNodePorts(spec)) ctx.cluster.allocator('nodePorts').release(v, owner);
}

function servicePorts(o: KubeObject): string {
  const list = ports(asRecord(o.spec));
  if (list.length === 0) return '<none>';
  return list.map((p) => (p.nodePort ? `${p.port}:${p.nodePort}/${p.protocol ?? 'TCP'}` : `${p.port}/${p.protocol ?? 'TCP'}`)).join(',');
}

function externalIP(o: KubeObject): string {
  const spec = asRecord(o.spec);
  switch (spec.type) {
    case 'ClusterIP':
    case 'NodePort':
    case undefined: {
      const ext = asArray(spec.externalIPs).map(String);
      return ext.length > 0 ? ext.join(',') : '<none>';
    }
    case 'LoadBalancer': {
      const ingress = asArray(asRecord(asRecord(o.status).loadBalancer).ingress).map((i) => String(asRecord(i).ip ?? asRecord(i).hostname ?? ''));
      const all = [...ingress, ...asArray(spec.externalIPs).map(String)];
      return all.length > 0 ? all.join(',') : '<pending>';
    }
    case 'ExternalName':
      return String(spec.externalName ?? '');
    default:
      return '<unknown>';
  }
}

const serviceHooks: KindHooks = {
  default: defaultService,
  prepareForCreate(obj) {
    obj.status = { loadBalancer: {} };
  },
  prepareForUpdate(obj, old) {
    obj.status = old.status;
    keepAllocated(obj, old);
  },
  validate: validateService,
  validateUpdate(obj, old) {
    const errs = validateService(obj);
    const spec = asRecord(obj.spec);
    const oldSpec = asRecord(old.spec);
    const oldIP = oldSpec.clusterIP;
    if (oldIP && spec.type !== 'ExternalName' && oldSpec.type !== 'ExternalName' && spec.clusterIP && spec.clusterIP !== oldIP) {
      errs.push({ type: 'FieldValueInvalid', field: 'spec.clusterIPs[0]', badValue: goStringSlice(asArray(spec.clusterIPs).map(String)), detail: 'may not change once set' });
    }
    return errs;
  },
  allocate: allocateService,
  release: releaseService,
};

/** serviceDescriptor: the core Service with clusterIP/nodePort allocation. */
export const serviceDescriptor = defineBuiltin({
  group: '',
  version: 'v1',
  kind: 'Service',
  plural: 'services',
  namespaced: true,
  shortNames: ['svc'],
  categories: ['all'],
  status: true,
  nameRule: 'dns1035Label',
  columns: [
    nameColumn,
    column('Type', 'string', (o) => asRecord(o.spec).type ?? 'ClusterIP', { description: 'The type of the service' }),
    column('Cluster-IP', 'string', (o) => asRecord(o.spec).clusterIP ?? '<none>', { description: 'The cluster IP of the service' }),
    column('External-IP', 'string', externalIP, { description: 'The external IPs of the service' }),
    column('Port(s)', 'string', servicePorts, { description: 'The ports of the service' }),
    ageColumn,
    column('Selector', 'string', (o) => formatMap(asRecord(o.spec).selector), { priority: 1, description: 'The selector of the service' }),
  ],
  hooks: serviceHooks,
});
