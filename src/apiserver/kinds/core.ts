// Core (v1) kinds other than Service: Namespace, ConfigMap, Secret, Endpoints, Pod, ServiceAccount, Event.
// Go: kubernetes/pkg/registry/core/<kind>/strategy.go, pkg/apis/core/validation/validation.go, pkg/printers
import type { FieldError } from '../schema/index.js';
import { DecodeError, goJsonType, requireStringMap, type KindHooks, type ResourceDescriptor } from '../resource.js';
import { ageColumn, asArray, asRecord, column, nameColumn, sinceTimestamp } from '../printers.js';
import { isDNS1123Label } from '../validation.js';
import { deepEqual, isPlainObject, type KubeObject } from '../types.js';
import { conflict, forbidden } from '../status.js';
import { bindingAction, evictionAction } from './actions.js';
import { defineBuiltin } from './define.js';
import { tokenIssuerOf } from '../auth/lookup.js';
import { tokenAction } from '../auth/tokens.js';

/** MAX_SECRET_SIZE is core's MaxSecretSize (1 MiB), the limit of ConfigMap and Secret payloads. */
export const MAX_SECRET_SIZE = 1024 * 1024;

const configMapKeyFmt = '[-._a-zA-Z0-9]+';
const configMapKeyRe = /^[-._a-zA-Z0-9]+$/;

/** isConfigMapKey returns the problems of a ConfigMap/Secret data key. Go: validation.IsConfigMapKey */
export function isConfigMapKey(value: string): string[] {
  const errs: string[] = [];
  if (value.length > 253) errs.push('must be no more than 253 characters');
  if (!configMapKeyRe.test(value)) {
    errs.push(
      `a valid config key must consist of alphanumeric characters, '-', '_' or '.' (e.g. 'key.name',  or 'KEY_NAME',  or 'key-name', regex used for validation is '${configMapKeyFmt}')`,
    );
  }
  if (value === '.') errs.push("must not be '.'");
  else if (value === '..') errs.push("must not be '..'");
  else if (value.startsWith('..')) errs.push("must not start with '..'");
  return errs;
}

const immutableMsg = 'field is immutable when `immutable` is set';

// ---------------------------------------------------------------- Namespace

/** IMMORTAL_NAMESPACES cannot be deleted (kube's NamespaceLifecycle admission). */
export const IMMORTAL_NAMESPACES = ['default', 'kube-system', 'kube-public'];

/** namespaceDescriptor: cluster-scoped, DNS-1123 label names, phase Active/Terminating, spec.finalizers. */
export const namespaceDescriptor = defineBuiltin({
  group: '',
  version: 'v1',
  kind: 'Namespace',
  plural: 'namespaces',
  namespaced: false,
  shortNames: ['ns'],
  // Go: the namespace REST storage has no DeleteCollection.
  verbs: ['create', 'delete', 'get', 'list', 'patch', 'update', 'watch'],
  status: true,
  nameRule: 'dns1123Label',
  fieldNames: ['status.phase'],
  columns: [nameColumn, column('Status', 'string', (o) => asRecord(o.status).phase ?? '', { description: 'The status of the namespace' }), ageColumn],
  hooks: {
    default(obj) {
      // Go: SetDefaults_Namespace — the immutable kubernetes.io/metadata.name label.
      const name = obj.metadata?.name;
      if (name) obj.metadata!.labels = { ...(obj.metadata!.labels ?? {}), 'kubernetes.io/metadata.name': name };
    },
    prepareForCreate(obj) {
      obj.status = { phase: 'Active' };
      const spec = asRecord(obj.spec);
      const finalizers = asArray(spec.finalizers).filter((f): f is string => typeof f === 'string');
      if (!finalizers.includes('kubernetes')) finalizers.push('kubernetes');
      obj.spec = { ...spec, finalizers };
    },
    prepareForUpdate(obj, old) {
      obj.spec = old.spec;
      obj.status = old.status;
    },
    validateDelete(obj) {
      // Go: plugin/pkg/admission/namespace/lifecycle — immortal namespaces.
      const name = obj.metadata?.name ?? '';
      if (IMMORTAL_NAMESPACES.includes(name)) throw forbidden({ group: '', resource: 'namespaces' }, name, 'this namespace may not be deleted');
    },
    beginDelete(obj) {
      obj.status = { ...asRecord(obj.status), phase: 'Terminating' };
    },
    deleteAgain(obj) {
      // Go: pkg/registry/core/namespace/storage — a second delete of a terminating namespace is a conflict.
      if (asArray(asRecord(obj.spec).finalizers).length > 0) {
        throw conflict(
          { group: '', resource: 'namespaces' },
          obj.metadata?.name ?? '',
          'The system is ensuring all content is removed from this namespace.  Upon completion, this namespace will automatically be purged by the system.',
        );
      }
    },
    blocksDeletion: (obj) => asArray(asRecord(obj.spec).finalizers).length > 0,
    fields: (o) => ({ 'status.phase': String(asRecord(o.status).phase ?? '') }),
  },
});

// ---------------------------------------------------------------- ConfigMap

function validateDataKeys(obj: KubeObject, dataField: string, otherField: string, errs: FieldError[]): number {
  let size = 0;
  const data = asRecord(obj[dataField]);
  const other = asRecord(obj[otherField]);
  for (const [k, v] of Object.entries(data)) {
    for (const m of isConfigMapKey(k)) errs.push({ type: 'FieldValueInvalid', field: `${dataField}[${k}]`, badValue: k, detail: m });
    if (k in other) errs.push({ type: 'FieldValueInvalid', field: `${dataField}[${k}]`, badValue: k, detail: `duplicate of key present in ${otherField}` });
    size += typeof v === 'string' ? Buffer.byteLength(v) : 0;
  }
  return size;
}

/** configMapDescriptor: data/binaryData keys, 1 MiB total, immutable. */
export const configMapDescriptor = defineBuiltin({
  group: '',
  version: 'v1',
  kind: 'ConfigMap',
  plural: 'configmaps',
  namespaced: true,
  shortNames: ['cm'],
  columns: [nameColumn, column('Data', 'integer', (o) => Object.keys(asRecord(o.data)).length + Object.keys(asRecord(o.binaryData)).length), ageColumn],
  hooks: {
    decode(obj) {
      requireStringMap(obj, 'data', 'ConfigMap');
      requireStringMap(obj, 'binaryData', 'ConfigMap');
      for (const [, v] of Object.entries(asRecord(obj.binaryData))) checkBase64(v as string);
      if (obj.immutable !== undefined && obj.immutable !== null && typeof obj.immutable !== 'boolean') {
        throw new DecodeError(`json: cannot unmarshal ${goJsonType(obj.immutable)} into Go struct field ConfigMap.immutable of type bool`);
      }
      return obj;
    },
    validate(obj) {
      const errs: FieldError[] = [];
      let size = validateDataKeys(obj, 'data', 'binaryData', errs);
      size += validateDataKeys(obj, 'binaryData', 'data', errs);
      if (size > MAX_SECRET_SIZE) errs.push({ type: 'FieldValueTooLong', field: '[]', detail: `must have at most ${MAX_SECRET_SIZE} bytes` });
      return errs;
    },
    validateUpdate(obj, old) {
      const errs: FieldError[] = [];
      if (old.immutable === true) {
        if (obj.immutable !== true) errs.push({ type: 'FieldValueForbidden', field: 'immutable', detail: immutableMsg });
        if (!deepEqual(obj.data ?? {}, old.data ?? {})) errs.push({ type: 'FieldValueForbidden', field: 'data', detail: immutableMsg });
        if (!deepEqual(obj.binaryData ?? {}, old.binaryData ?? {})) errs.push({ type: 'FieldValueForbidden', field: 'binaryData', detail: immutableMsg });
      }
      return errs;
    },
  },
});

// ---------------------------------------------------------------- Secret

// Go's encoding/base64 StdEncoding.DecodeString error: "illegal base64 data at input byte N".
function checkBase64(s: string): void {
  const clean = s.replace(/[\r\n]/g, '');
  for (let i = 0; i < clean.length; i++) {
    const c = clean[i];
    if (!/[A-Za-z0-9+/=]/.test(c)) throw new DecodeError(`illegal base64 data at input byte ${i}`);
    if (c === '=') {
      const rest = clean.slice(i);
      if (!/^={1,2}$/.test(rest) || clean.length % 4 !== 0) throw new DecodeError(`illegal base64 data at input byte ${i}`);
      break;
    }
  }
  if (clean.length % 4 !== 0) throw new DecodeError(`illegal base64 data at input byte ${clean.length - (clean.length % 4)}`);
}

/** base64Bytes is the decoded length of a base64 string. */
function base64Bytes(s: string): number {
  return Buffer.from(s, 'base64').length;
}

const SECRET_TYPES_REQUIRED_KEYS: Record<string, string[]> = {
  'kubernetes.io/dockercfg': ['.dockercfg'],
  'kubernetes.io/dockerconfigjson': ['.dockerconfigjson'],
  'kubernetes.io/ssh-auth': ['ssh-privatekey'],
  'kubernetes.io/tls': ['tls.crt', 'tls.key'],
};

/** secretDescriptor: base64 data, stringData folded into data, typed secrets, immutable. */
export const secretDescriptor = defineBuiltin({
  group: '',
  version: 'v1',
  kind: 'Secret',
  plural: 'secrets',
  namespaced: true,
  fieldNames: ['type'],
  columns: [
    nameColumn,
    column('Type', 'string', (o) => o.type ?? ''),
    column('Data', 'integer', (o) => Object.keys(asRecord(o.data)).length),
    ageColumn,
  ],
  hooks: {
    decode(obj) {
      requireStringMap(obj, 'data', 'Secret');
      requireStringMap(obj, 'stringData', 'Secret');
      for (const v of Object.values(asRecord(obj.data))) checkBase64(v as string);
      // Go: core v1 conversion — stringData is write-only and overwrites data keys.
      if (isPlainObject(obj.stringData)) {
        const data: Record<string, string> = { ...(asRecord(obj.data) as Record<string, string>) };
        for (const [k, v] of Object.entries(obj.stringData)) data[k] = Buffer.from(String(v), 'utf8').toString('base64');
        obj.data = data;
      }
      delete obj.stringData;
      return obj;
    },
    default(obj) {
      if (!obj.type) obj.type = 'Opaque';
    },
    validate(obj) {
      const errs: FieldError[] = [];
      let size = 0;
      const data = asRecord(obj.data) as Record<string, string>;
      for (const [k, v] of Object.entries(data)) {
        for (const m of isConfigMapKey(k)) errs.push({ type: 'FieldValueInvalid', field: `data[${k}]`, badValue: k, detail: m });
        size += base64Bytes(v);
      }
      if (size > MAX_SECRET_SIZE) errs.push({ type: 'FieldValueTooLong', field: 'data', detail: `must have at most ${MAX_SECRET_SIZE} bytes` });
      const type = String(obj.type ?? 'Opaque');
      if (type === 'kubernetes.io/service-account-token') {
        if (!obj.metadata?.annotations?.['kubernetes.io/service-account.name']) {
          errs.push({ type: 'FieldValueRequired', field: 'metadata.annotations[kubernetes.io/service-account.name]', detail: '' });
        }
      }
      for (const key of SECRET_TYPES_REQUIRED_KEYS[type] ?? []) {
        if (!(key in data)) errs.push({ type: 'FieldValueRequired', field: `data[${key}]`, detail: '' });
      }
      if (type === 'kubernetes.io/dockerconfigjson' && data['.dockerconfigjson']) {
        try {
          JSON.parse(Buffer.from(data['.dockerconfigjson'], 'base64').toString('utf8'));
        } catch (e) {
          errs.push({ type: 'FieldValueInvalid', field: 'data[.dockerconfigjson]', badValue: '<secret contents redacted>', detail: (e as Error).message });
        }
      }
      if (type === 'kubernetes.io/basic-auth' && !('username' in data) && !('password' in data)) {
        errs.push({ type: 'FieldValueRequired', field: 'data[username]', detail: '' });
      }
      return errs;
    },
    validateUpdate(obj, old) {
      const errs: FieldError[] = [];
      if ((obj.type ?? 'Opaque') !== (old.type ?? 'Opaque')) errs.push({ type: 'FieldValueInvalid', field: 'type', badValue: obj.type, detail: 'field is immutable' });
      if (old.immutable === true) {
        if (obj.immutable !== true) errs.push({ type: 'FieldValueForbidden', field: 'immutable', detail: immutableMsg });
        if (!deepEqual(obj.data ?? {}, old.data ?? {})) errs.push({ type: 'FieldValueForbidden', field: 'data', detail: immutableMsg });
      }
      return errs;
    },
    fields: (o) => ({ type: String(o.type ?? '') }),
  },
});

// ---------------------------------------------------------------- Endpoints

function formatEndpoints(o: KubeObject): string {
  const out: string[] = [];
  let more = 0;
  for (const subset of asArray(o.subsets)) {
    const s = asRecord(subset);
    const ports = asArray(s.ports).map((p) => asRecord(p).port);
    for (const a of asArray(s.addresses)) {
      const ip = String(asRecord(a).ip ?? '');
      const targets = ports.length === 0 ? [ip] : ports.map((p) => `${ip}:${p}`);
      for (const t of targets) {
        if (out.length < 3) out.push(t);
        else more++;
      }
    }
  }
  if (out.length === 0) return '<none>';
  return more > 0 ? `${out.join(',')} + ${more} more...` : out.join(',');
}

/** endpointsDescriptor: legacy Endpoints, create-on-update allowed. */
export const endpointsDescriptor = defineBuiltin({
  group: '',
  version: 'v1',
  kind: 'Endpoints',
  plural: 'endpoints',
  namespaced: true,
  shortNames: ['ep'],
  allowCreateOnUpdate: true,
  columns: [nameColumn, column('Endpoints', 'string', formatEndpoints), ageColumn],
  hooks: {
    // Go: SetDefaults_EndpointPort — a port without a protocol is TCP.
    default(obj) {
      if (!Array.isArray(obj.subsets)) return;
      obj.subsets = obj.subsets.map((s) => {
        if (!isPlainObject(s) || !Array.isArray(s.ports)) return s;
        return { ...s, ports: s.ports.map((p) => (isPlainObject(p) && !p.protocol ? { ...p, protocol: 'TCP' } : p)) };
      });
    },
  },
});

// ---------------------------------------------------------------- Pod

function defaultContainers(list: unknown): unknown {
  if (!Array.isArray(list)) return list;
  return list.map((c) => {
    if (!isPlainObject(c)) return c;
    const out: Record<string, unknown> = { ...c };
    const image = typeof out.image === 'string' ? out.image : '';
    if (!out.imagePullPolicy) {
      const tag = image.includes('@') ? 'digest' : (image.split('/').pop() ?? '').split(':')[1];
      out.imagePullPolicy = tag === undefined || tag === 'latest' ? 'Always' : 'IfNotPresent';
    }
    if (!out.terminationMessagePath) out.terminationMessagePath = '/dev/termination-log';
    if (!out.terminationMessagePolicy) out.terminationMessagePolicy = 'File';
    if (!out.resources) out.resources = {};
    if (Array.isArray(out.ports)) out.ports = out.ports.map((p) => (isPlainObject(p) && !p.protocol ? { ...p, protocol: 'TCP' } : p));
    return out;
  });
}

/** defaultPodSpec fills a PodSpec's defaults (SetDefaults_PodSpec and the service account admission). */
export function defaultPodSpec(spec: Record<string, unknown>): Record<string, unknown> {
  const s = { ...spec };
  s.containers = defaultContainers(s.containers);
  if (s.initContainers) s.initContainers = defaultContainers(s.initContainers);
  s.restartPolicy ??= 'Always';
  s.terminationGracePeriodSeconds ??= 30;
  s.dnsPolicy ??= 'ClusterFirst';
  s.securityContext ??= {};
  s.schedulerName ??= 'default-scheduler';
  return s;
}

function validateContainers(spec: Record<string, unknown>, path: string): FieldError[] {
  const errs: FieldError[] = [];
  const containers = spec.containers;
  if (!Array.isArray(containers) || containers.length === 0) {
    errs.push({ type: 'FieldValueRequired', field: `${path}.containers`, detail: '' });
    return errs;
  }
  const names = new Set<string>();
  containers.forEach((c, i) => {
    const cc = asRecord(c);
    const name = typeof cc.name === 'string' ? cc.name : '';
    const p = `${path}.containers[${i}]`;
    if (!name) errs.push({ type: 'FieldValueRequired', field: `${p}.name`, detail: '' });
    else {
      for (const m of isDNS1123Label(name)) errs.push({ type: 'FieldValueInvalid', field: `${p}.name`, badValue: name, detail: m });
      if (names.has(name)) errs.push({ type: 'FieldValueDuplicate', field: `${p}.name`, badValue: name, detail: '' });
      names.add(name);
    }
    if (!cc.image || (typeof cc.image === 'string' && cc.image.trim() === '')) errs.push({ type: 'FieldValueRequired', field: `${p}.image`, detail: '' });
  });
  return errs;
}

/** validatePodTemplateSpec checks the containers of a pod spec at path (used by Pod and Deployment). */
export function validatePodSpec(spec: unknown, path: string): FieldError[] {
  return validateContainers(asRecord(spec), path);
}

function podReady(o: KubeObject): string {
  const containers = asArray(asRecord(o.spec).containers);
  const statuses = asArray(asRecord(o.status).containerStatuses);
  const ready = statuses.filter((s) => asRecord(s).ready === true).length;
  return `${ready}/${containers.length}`;
}

function podRestarts(o: KubeObject): number {
  return asArray(asRecord(o.status).containerStatuses).reduce<number>((n, s) => n + Number(asRecord(s).restartCount ?? 0), 0);
}

function podStatusReason(o: KubeObject): string {
  if (o.metadata?.deletionTimestamp) return 'Terminating';
  const st = asRecord(o.status);
  return String(st.reason ?? st.phase ?? '');
}

const POD_UPDATABLE =
  'pod updates may not change fields other than `spec.containers[*].image`,`spec.initContainers[*].image`,`spec.activeDeadlineSeconds`,`spec.tolerations` (only additions to existing tolerations),`spec.terminationGracePeriodSeconds` (allow it to be set to 1 if it was previously negative)';

// Blanks the mutable fields of a pod spec so the rest can be compared. Go: ValidatePodUpdate
function podSpecSkeleton(spec: unknown): unknown {
  const s = { ...asRecord(spec) };
  const blankImages = (l: unknown) => (Array.isArray(l) ? l.map((c) => ({ ...asRecord(c), image: '' })) : l);
  s.containers = blankImages(s.containers);
  if (s.initContainers) s.initContainers = blankImages(s.initContainers);
  delete s.activeDeadlineSeconds;
  delete s.tolerations;
  delete s.terminationGracePeriodSeconds;
  return s;
}

/** podDescriptor: Pending status on create, spec mostly immutable, deleted immediately (no kubelet here). */
export const podDescriptor = defineBuiltin({
  group: '',
  version: 'v1',
  kind: 'Pod',
  plural: 'pods',
  namespaced: true,
  shortNames: ['po'],
  categories: ['all'],
  status: true,
  actions: [bindingAction, evictionAction],
  returnDeletedObject: true,
  fieldNames: ['spec.nodeName', 'spec.restartPolicy', 'spec.schedulerName', 'spec.serviceAccountName', 'spec.hostNetwork', 'status.phase', 'status.podIP', 'status.nominatedNodeName'],
  columns: [
    nameColumn,
    column('Ready', 'string', podReady, { description: 'The aggregate readiness state of this pod for accepting traffic.' }),
    column('Status', 'string', podStatusReason, { description: 'The aggregate status of the containers in this pod.' }),
    column('Restarts', 'string', (o) => String(podRestarts(o)), { description: 'The number of times the containers in this pod have been restarted and when the last container in this pod has restarted.' }),
    ageColumn,
    column('IP', 'string', (o) => asRecord(o.status).podIP ?? '<none>', { priority: 1, description: 'IP address assigned to the pod' }),
    column('Node', 'string', (o) => asRecord(o.spec).nodeName ?? '<none>', { priority: 1, description: 'Name of the node assigned to the pod' }),
  ],
  hooks: {
    default(obj) {
      if (isPlainObject(obj.spec)) {
        const spec = defaultPodSpec(obj.spec);
        // Go: the ServiceAccount admission plugin.
        spec.serviceAccountName ??= 'default';
        spec.serviceAccount ??= spec.serviceAccountName;
        spec.enableServiceLinks ??= true;
        spec.priority ??= 0;
        spec.preemptionPolicy ??= 'PreemptLowerPriority';
        obj.spec = spec;
      }
    },
    prepareForCreate(obj) {
      const containers = asArray(asRecord(obj.spec).containers);
      const hasResources = containers.some((c) => Object.keys(asRecord(asRecord(c).resources)).length > 0);
      obj.status = { phase: 'Pending', qosClass: hasResources ? 'Burstable' : 'BestEffort' };
    },
    prepareForUpdate(obj, old) {
      obj.status = old.status;
    },
    validate(obj) {
      return validatePodSpec(obj.spec, 'spec');
    },
    validateUpdate(obj, old, ctx) {
      const errs = validatePodSpec(obj.spec, 'spec');
      // The binding subresource assigns a node to an unscheduled pod; no other write may.
      const binding = ctx.subresource === 'binding' && !asRecord(old.spec).nodeName;
      const spec = binding ? { ...asRecord(obj.spec), nodeName: asRecord(old.spec).nodeName } : obj.spec;
      if (!deepEqual(podSpecSkeleton(spec), podSpecSkeleton(old.spec))) errs.push({ type: 'FieldValueForbidden', field: 'spec', detail: POD_UPDATABLE });
      return errs;
    },
    fields(o) {
      const spec = asRecord(o.spec);
      const st = asRecord(o.status);
      return {
        'spec.nodeName': String(spec.nodeName ?? ''),
        'spec.restartPolicy': String(spec.restartPolicy ?? ''),
        'spec.schedulerName': String(spec.schedulerName ?? ''),
        'spec.serviceAccountName': String(spec.serviceAccountName ?? ''),
        'spec.hostNetwork': String(spec.hostNetwork === true),
        'status.phase': String(st.phase ?? ''),
        'status.podIP': String(st.podIP ?? ''),
        'status.nominatedNodeName': String(st.nominatedNodeName ?? ''),
      };
    },
  },
});

// ---------------------------------------------------------------- ServiceAccount

/** serviceAccountDescriptor: plain, one created per namespace ("default"). */
export const serviceAccountDescriptor = defineBuiltin({
  group: '',
  version: 'v1',
  kind: 'ServiceAccount',
  plural: 'serviceaccounts',
  namespaced: true,
  shortNames: ['sa'],
  actions: [tokenAction(tokenIssuerOf)],
  columns: [nameColumn, column('Secrets', 'string', (o) => String(asArray(o.secrets).length)), ageColumn],
});

// ---------------------------------------------------------------- Event (core/v1)

function eventLastSeen(o: KubeObject, now: number): string {
  const series = asRecord(o.series);
  if (series.lastObservedTime) return sinceTimestamp(series.lastObservedTime, now);
  return sinceTimestamp(o.lastTimestamp ?? o.eventTime ?? o.metadata?.creationTimestamp, now);
}

const EVENT_FIELDS = [
  'involvedObject.kind',
  'involvedObject.namespace',
  'involvedObject.name',
  'involvedObject.uid',
  'involvedObject.apiVersion',
  'involvedObject.resourceVersion',
  'involvedObject.fieldPath',
  'reason',
  'reportingComponent',
  'source',
  'type',
];

// Go: pkg/registry/core/event/strategy.go ToSelectableFields
function eventFields(o: KubeObject): Record<string, string> {
  const io = asRecord(o.involvedObject);
  const src = asRecord(o.source);
  return {
    'involvedObject.kind': String(io.kind ?? ''),
    'involvedObject.namespace': String(io.namespace ?? ''),
    'involvedObject.name': String(io.name ?? ''),
    'involvedObject.uid': String(io.uid ?? ''),
    'involvedObject.apiVersion': String(io.apiVersion ?? ''),
    'involvedObject.resourceVersion': String(io.resourceVersion ?? ''),
    'involvedObject.fieldPath': String(io.fieldPath ?? ''),
    reason: String(o.reason ?? ''),
    reportingComponent: String(o.reportingComponent ?? ''),
    source: String(src.component ?? ''),
    type: String(o.type ?? ''),
  };
}

const eventHooks: KindHooks = {
  validate(obj) {
    const errs: FieldError[] = [];
    const io = asRecord(obj.involvedObject);
    const ns = obj.metadata?.namespace ?? '';
    if (typeof io.namespace === 'string' && io.namespace !== '' && io.namespace !== ns) {
      errs.push({ type: 'FieldValueInvalid', field: 'involvedObject.namespace', badValue: io.namespace, detail: 'does not match event.namespace' });
    }
    return errs;
  },
  fields: eventFields,
};

/** eventDescriptor: core/v1 Event with the involvedObject field selectors kubectl describe uses. */
export const eventDescriptor = defineBuiltin({
  group: '',
  version: 'v1',
  kind: 'Event',
  plural: 'events',
  namespaced: true,
  shortNames: ['ev'],
  allowCreateOnUpdate: true,
  storage: '/events',
  fieldNames: EVENT_FIELDS,
  columns: [
    column('Last Seen', 'string', eventLastSeen),
    column('Type', 'string', (o) => o.type ?? ''),
    column('Reason', 'string', (o) => o.reason ?? ''),
    column('Object', 'string', (o) => {
      const io = asRecord(o.involvedObject);
      return `${String(io.kind ?? '').toLowerCase()}/${String(io.name ?? '')}`;
    }),
    column('Subobject', 'string', (o) => asRecord(o.involvedObject).fieldPath ?? '', { priority: 1 }),
    column('Source', 'string', (o) => {
      const s = asRecord(o.source);
      return s.host ? `${s.component}, ${s.host}` : String(s.component ?? o.reportingComponent ?? '');
    }, { priority: 1 }),
    column('Message', 'string', (o) => String(o.message ?? '').trim()),
    column('First Seen', 'string', (o, now) => sinceTimestamp(o.firstTimestamp ?? o.eventTime, now), { priority: 1 }),
    column('Count', 'string', (o) => String(o.count ?? asRecord(o.series).count ?? 1), { priority: 1 }),
    column('Name', 'string', (o) => o.metadata?.name ?? '', { priority: 1 }),
  ],
  hooks: eventHooks,
});

// ---------------------------------------------------------------- Event (events.k8s.io/v1)

// Go: k8s.io/kubernetes/pkg/apis/events/v1/conversion.go — the events.k8s.io shape over core's storage.
function coreToEventsV1(obj: KubeObject): KubeObject {
  const { apiVersion: _a, kind: _k, metadata, involvedObject, related, message, reportingComponent, source, firstTimestamp, lastTimestamp, count, ...rest } = obj;
  const out: KubeObject = { apiVersion: 'events.k8s.io/v1', kind: 'Event', metadata };
  if (rest.eventTime !== undefined) out.eventTime = rest.eventTime;
  else out.eventTime = null;
  if (rest.series !== undefined) out.series = rest.series;
  if (rest.reportingInstance !== undefined) out.reportingInstance = rest.reportingInstance;
  if (reportingComponent !== undefined) out.reportingController = reportingComponent;
  if (rest.action !== undefined) out.action = rest.action;
  if (rest.reason !== undefined) out.reason = rest.reason;
  if (involvedObject !== undefined) out.regarding = involvedObject;
  if (related !== undefined) out.related = related;
  if (message !== undefined) out.note = message;
  if (rest.type !== undefined) out.type = rest.type;
  if (source !== undefined) out.deprecatedSource = source;
  if (firstTimestamp !== undefined) out.deprecatedFirstTimestamp = firstTimestamp;
  if (lastTimestamp !== undefined) out.deprecatedLastTimestamp = lastTimestamp;
  if (count !== undefined) out.deprecatedCount = count;
  return out;
}

function eventsV1ToCore(obj: KubeObject): KubeObject {
  const {
    apiVersion: _a,
    kind: _k,
    metadata,
    regarding,
    related,
    note,
    reportingController,
    deprecatedSource,
    deprecatedFirstTimestamp,
    deprecatedLastTimestamp,
    deprecatedCount,
    ...rest
  } = obj;
  const out: KubeObject = { apiVersion: 'v1', kind: 'Event', metadata };
  if (regarding !== undefined) out.involvedObject = regarding;
  else out.involvedObject = {};
  if (rest.reason !== undefined) out.reason = rest.reason;
  if (note !== undefined) out.message = note;
  if (deprecatedSource !== undefined) out.source = deprecatedSource;
  if (deprecatedFirstTimestamp !== undefined) out.firstTimestamp = deprecatedFirstTimestamp;
  if (deprecatedLastTimestamp !== undefined) out.lastTimestamp = deprecatedLastTimestamp;
  if (deprecatedCount !== undefined) out.count = deprecatedCount;
  if (rest.type !== undefined) out.type = rest.type;
  if (rest.eventTime !== undefined) out.eventTime = rest.eventTime;
  if (rest.series !== undefined) out.series = rest.series;
  if (rest.action !== undefined) out.action = rest.action;
  if (related !== undefined) out.related = related;
  if (reportingController !== undefined) out.reportingComponent = reportingController;
  if (rest.reportingInstance !== undefined) out.reportingInstance = rest.reportingInstance;
  return out;
}

/** eventsV1Descriptor: events.k8s.io/v1 Event, stored as core Events and converted on the way in and out. */
export const eventsV1Descriptor: ResourceDescriptor = defineBuiltin({
  group: 'events.k8s.io',
  version: 'v1',
  kind: 'Event',
  plural: 'events',
  namespaced: true,
  shortNames: ['ev'],
  allowCreateOnUpdate: true,
  storage: '/events',
  fieldNames: EVENT_FIELDS,
  columns: [nameColumn, ageColumn],
  fromStorage: (obj) => coreToEventsV1(obj),
  toStorage: (obj) => eventsV1ToCore(obj),
  hooks: {
    ...eventHooks,
    validate(obj) {
      // Go: ValidateEventCreate for events.k8s.io/v1 — the new API requires the reporting fields. The hooks see the
      // stored (core) shape, so the paths name the events.k8s.io fields.
      const errs: FieldError[] = [];
      if (!obj.eventTime) errs.push({ type: 'FieldValueRequired', field: 'eventTime', detail: '' });
      if (!obj.reportingComponent) errs.push({ type: 'FieldValueRequired', field: 'reportingController', detail: '' });
      if (!obj.reportingInstance) errs.push({ type: 'FieldValueRequired', field: 'reportingInstance', detail: '' });
      if (!obj.action) errs.push({ type: 'FieldValueRequired', field: 'action', detail: '' });
      if (!obj.reason) errs.push({ type: 'FieldValueRequired', field: 'reason', detail: '' });
      if (obj.type !== 'Normal' && obj.type !== 'Warning') errs.push({ type: 'FieldValueInvalid', field: 'type', badValue: obj.type ?? '', detail: 'has invalid value' });
      return errs;
    },
  },
});
