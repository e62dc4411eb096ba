// Node-level core kinds: Node, Binding (pods/binding's create-only twin) and ComponentStatus (read-only, deprecated).
// Go: pkg/registry/core/{node,pod/storage (BindingREST),componentstatus}, pkg/printers (printNode)
import type { FieldError } from '../schema/index.js';
import { ageColumn, asArray, asRecord, column, nameColumn } from '../printers.js';
import { internalWrite, mutate, scopeFor } from '../registry.js';
import { conflict, invalid as invalidStatus, notFound } from '../status.js';
import type { KubeObject } from '../types.js';
import { invalid, required } from './checks.js';
import { defineBuiltin } from './define.js';

// Go: printNode — Ready / NotReady / Unknown, plus SchedulingDisabled for cordoned nodes.
function nodeStatus(o: KubeObject): string {
  const ready = asArray(asRecord(o.status).conditions).map(asRecord).find((c) => c.type === 'Ready');
  const parts = [!ready ? 'Unknown' : ready.status === 'True' ? 'Ready' : ready.status === 'False' ? 'NotReady' : 'Unknown'];
  if (asRecord(o.spec).unschedulable === true) parts.push('SchedulingDisabled');
  return parts.join(',');
}

// Go: findNodeRoles — node-role.kubernetes.io/<role> labels and kubernetes.io/role.
function nodeRoles(o: KubeObject): string {
  const roles = new Set<string>();
  for (const [k, v] of Object.entries(o.metadata?.labels ?? {})) {
    if (k.startsWith('node-role.kubernetes.io/')) roles.add(k.slice('node-role.kubernetes.io/'.length));
    else if (k === 'kubernetes.io/role' && v) roles.add(v);
  }
  return roles.size > 0 ? [...roles].sort().join(',') : '<none>';
}

const address = (o: KubeObject, type: string) => String(asArray(asRecord(o.status).addresses).map(asRecord).find((a) => a.type === type)?.address ?? '<none>');
const nodeInfo = (o: KubeObject, k: string) => String(asRecord(asRecord(o.status).nodeInfo)[k] ?? '');

/** nodeDescriptor: core/v1 Node (cluster-scoped) with status. */
export const nodeDescriptor = defineBuiltin({
  group: '',
  version: 'v1',
  kind: 'Node',
  plural: 'nodes',
  namespaced: false,
  shortNames: ['no'],
  status: true,
  goDefaults: true,
  fieldNames: ['spec.unschedulable'],
  columns: [
    nameColumn,
    column('Status', 'string', nodeStatus, { description: 'The status of the node' }),
    column('Roles', 'string', nodeRoles, { description: 'The roles of the node' }),
    ageColumn,
    column('Version', 'string', (o) => nodeInfo(o, 'kubeletVersion')),
    column('Internal-IP', 'string', (o) => address(o, 'InternalIP'), { priority: 1 }),
    column('External-IP', 'string', (o) => address(o, 'ExternalIP'), { priority: 1 }),
    column('OS-Image', 'string', (o) => nodeInfo(o, 'osImage') || '<unknown>', { priority: 1 }),
    column('Kernel-Version', 'string', (o) => nodeInfo(o, 'kernelVersion') || '<unknown>', { priority: 1 }),
    column('Container-Runtime', 'string', (o) => nodeInfo(o, 'containerRuntimeVersion') || '<unknown>', { priority: 1 }),
  ],
  hooks: {
    prepareForUpdate(obj, old) {
      obj.status = old.status;
    },
    validateUpdate(obj, old) {
      const errs: FieldError[] = [];
      const cur = asRecord(obj.spec);
      const prev = asRecord(old.spec);
      // Go: ValidateNodeUpdate — podCIDR(s) and providerID may be set once, never changed.
      if (prev.podCIDR && cur.podCIDR !== prev.podCIDR) errs.push({ type: 'FieldValueForbidden', field: 'spec.podCIDR', detail: 'node updates may not change podCIDR except from "" to valid' });
      if (prev.providerID && cur.providerID !== prev.providerID) errs.push({ type: 'FieldValueForbidden', field: 'spec.providerID', detail: 'node updates may not change providerID except from "" to valid' });
      return errs;
    },
    fields: (o) => ({ 'spec.unschedulable': String(asRecord(o.spec).unschedulable === true) }),
  },
});

/** bindingDescriptor: core/v1 Binding — binds a pod to a node (sets spec.nodeName); nothing is stored. */
export const bindingDescriptor = defineBuiltin({
  group: '',
  version: 'v1',
  kind: 'Binding',
  plural: 'bindings',
  namespaced: true,
  verbs: ['create'],
  hooks: {
    validate(obj) {
      const errs: FieldError[] = [];
      const target = asRecord(obj.target);
      if (!target.name) errs.push(required('target.name'));
      if (target.kind && target.kind !== 'Node') errs.push(invalid('target.kind', target.kind, 'must be empty or Node'));
      return errs;
    },
    // Go: BindingREST.Create → assignPod: the pod must exist and not be bound yet.
    review(obj, ctx) {
      const errs = bindingDescriptor.hooks.validate!(obj, ctx);
      if (errs.length > 0) throw invalidStatus({ group: '', kind: 'Binding' }, obj.metadata?.name ?? '', errs);
      const ns = obj.metadata?.namespace ?? '';
      const name = obj.metadata?.name ?? '';
      const node = String(asRecord(obj.target).name);
      const podDesc = ctx.cluster.registry.lookup('', 'v1', 'pods');
      const pod = ctx.cluster.get('/pods', ns, name);
      if (!podDesc || !pod) throw notFound({ group: '', resource: 'pods' }, name);
      const bound = asRecord(pod.obj.spec).nodeName;
      if (bound) throw conflict({ group: '', resource: 'pods/binding' }, name, `pod ${name} is already assigned to node "${String(bound)}"`);
      if (!ctx.dryRun) {
        mutate(scopeFor(ctx.cluster, podDesc, ns, 'binding'), name, (p) => {
          p.spec = { ...asRecord(p.spec), nodeName: node };
        }, internalWrite('kube-scheduler'));
      }
      return obj;
    },
  },
});

/** componentStatusDescriptor: core/v1 ComponentStatus — read-only; the embedded server has no separate components. */
export const componentStatusDescriptor = defineBuiltin({
  group: '',
  version: 'v1',
  kind: 'ComponentStatus',
  plural: 'componentstatuses',
  namespaced: false,
  shortNames: ['cs'],
  verbs: ['get', 'list'],
  columns: [
    nameColumn,
    column('Status', 'string', (o) => (asArray(o.conditions).some((c) => asRecord(c).status === 'True') ? 'Healthy' : 'Unhealthy')),
    column('Message', 'string', (o) => asArray(o.conditions).map((c) => String(asRecord(c).message ?? '')).join(',')),
    column('Error', 'string', (o) => asArray(o.conditions).map((c) => String(asRecord(c).error ?? '')).join(',')),
  ],
});
