// apps/v1 workloads (Deployment, ReplicaSet, StatefulSet, DaemonSet, ControllerRevision) and core's ReplicationController
// and PodTemplate: defaulting, selector checks, /scale.
// Go: kubernetes/pkg/apis/apps/v1/defaults.go, pkg/apis/apps/validation, pkg/registry/apps/deployment/strategy.go
import type { FieldError } from '../schema/index.js';
import type { KindHooks } from '../resource.js';
import { ageColumn, asArray, asRecord, column, formatLabelSelector, formatMap, nameColumn } from '../printers.js';
import { forbidden, goLabelSelector, goStringMap as goMap, immutable, invalid, nonNegative, oneOf, required, restartPolicyIn, selectorMatchesTemplate } from './checks.js';
import { labelSelectorFromMatch, SelectorError } from '../selectors.js';
import { goQuote, GoRepr } from '../status.js';
import { deepEqual, isPlainObject, type KubeObject } from '../types.js';
import { defaultPodSpec, validatePodSpec } from './core.js';
import { defineBuiltin } from './define.js';

// Go's %#v of a map[string]string.
function goStringMap(m: Record<string, unknown>): GoRepr {
  const keys = Object.keys(m).sort();
  return new GoRepr(`map[string]string{${keys.map((k) => `${goQuote(k)}:${goQuote(String(m[k]))}`).join(', ')}}`);
}

function defaultTemplate(spec: Record<string, unknown>): void {
  if (!isPlainObject(spec.template)) return;
  const t = { ...spec.template };
  t.metadata = { creationTimestamp: null, ...asRecord(t.metadata) };
  if (isPlainObject(t.spec)) t.spec = defaultPodSpec(t.spec);
  spec.template = t;
}

// Go: ValidateDeploymentSpec / ValidateReplicaSetSpec — selector present, non-empty, matching the template labels.
function validateWorkload(obj: KubeObject, kind: string): FieldError[] {
  const errs: FieldError[] = [];
  const spec = asRecord(obj.spec);
  const sel = spec.selector;
  if (!isPlainObject(sel)) {
    errs.push({ type: 'FieldValueRequired', field: 'spec.selector', detail: '' });
  } else if (Object.keys(asRecord(sel.matchLabels)).length === 0 && asArray(sel.matchExpressions).length === 0) {
    errs.push({ type: 'FieldValueInvalid', field: 'spec.selector', badValue: sel, detail: `empty selector is invalid for ${kind}` });
  } else {
    const labels = asRecord(asRecord(asRecord(spec.template).metadata).labels) as Record<string, string>;
    try {
      if (!labelSelectorFromMatch(sel as never).matches(labels)) {
        errs.push({ type: 'FieldValueInvalid', field: 'spec.template.metadata.labels', badValue: goStringMap(labels), detail: '`selector` does not match template `labels`' });
      }
    } catch (e) {
      if (!(e instanceof SelectorError)) throw e;
      errs.push({ type: 'FieldValueInvalid', field: 'spec.selector', badValue: sel, detail: e.message });
    }
  }
  if (spec.replicas !== undefined && (typeof spec.replicas !== 'number' || spec.replicas < 0)) {
    errs.push({ type: 'FieldValueInvalid', field: 'spec.replicas', badValue: spec.replicas, detail: 'must be greater than or equal to 0' });
  }
  if (!isPlainObject(spec.template)) errs.push({ type: 'FieldValueRequired', field: 'spec.template', detail: '' });
  else errs.push(...validatePodSpec(asRecord(spec.template).spec, 'spec.template.spec'));
  return errs;
}

function workloadHooks(kind: string, defaults: (spec: Record<string, unknown>) => void): KindHooks {
  return {
    default(obj) {
      if (!isPlainObject(obj.spec)) return;
      const spec = { ...obj.spec };
      defaults(spec);
      defaultTemplate(spec);
      obj.spec = spec;
    },
    prepareForCreate(obj) {
      obj.status = {};
    },
    prepareForUpdate(obj, old) {
      obj.status = old.status;
    },
    validate: (obj) => validateWorkload(obj, kind),
    validateUpdate(obj, old) {
      const errs = validateWorkload(obj, kind);
      const sel = asRecord(obj.spec).selector;
      const oldSel = asRecord(old.spec).selector;
      if (!deepEqual(sel, oldSel)) errs.push({ type: 'FieldValueInvalid', field: 'spec.selector', badValue: goLabelSelector(sel), detail: 'field is immutable' });
      return errs;
    },
  };
}

const containersOf = (o: KubeObject) => asArray(asRecord(asRecord(asRecord(o.spec).template).spec).containers).map(asRecord);

// What apps/v1 workloads share: scope, the "all" category, status and /scale on spec.replicas, generation.
const WORKLOAD = {
  group: 'apps',
  version: 'v1',
  namespaced: true,
  categories: ['all'],
  status: true,
  scale: { specReplicasPath: '.spec.replicas', statusReplicasPath: '.status.replicas', labelSelectorPath: '.status.selector' },
  tracksGeneration: true,
} as const;

/** deploymentDescriptor: apps/v1 Deployment with defaults, status and /scale. */
export const deploymentDescriptor = defineBuiltin({
  ...WORKLOAD,
  categories: [...WORKLOAD.categories],
  kind: 'Deployment',
  plural: 'deployments',
  shortNames: ['deploy'],
  columns: [
    nameColumn,
    column('Ready', 'string', (o) => `${asRecord(o.status).readyReplicas ?? 0}/${asRecord(o.spec).replicas ?? 0}`, { description: 'Number of the pod with ready state' }),
    column('Up-to-date', 'integer', (o) => asRecord(o.status).updatedReplicas ?? 0, { description: 'Total number of non-terminated pods targeted by this deployment that have the desired template spec.' }),
    column('Available', 'integer', (o) => asRecord(o.status).availableReplicas ?? 0, { description: 'Total number of available pods (ready for at least minReadySeconds) targeted by this deployment.' }),
    ageColumn,
    column('Containers', 'string', (o) => containersOf(o).map((c) => String(c.name)).join(','), { priority: 1, description: 'Names of each container in the template.' }),
    column('Images', 'string', (o) => containersOf(o).map((c) => String(c.image)).join(','), { priority: 1, description: 'Images referenced by each container in the template.' }),
    column('Selector', 'string', (o) => formatLabelSelector(asRecord(o.spec).selector), { priority: 1, description: 'Label selector for pods.' }),
  ],
  hooks: workloadHooks('deployment', (spec) => {
    spec.replicas ??= 1;
    const strategy = { ...asRecord(spec.strategy) };
    strategy.type ??= 'RollingUpdate';
    if (strategy.type === 'RollingUpdate') strategy.rollingUpdate = { maxUnavailable: '25%', maxSurge: '25%', ...asRecord(strategy.rollingUpdate) };
    spec.strategy = strategy;
    spec.revisionHistoryLimit ??= 10;
    spec.progressDeadlineSeconds ??= 600;
  }),
});

/** replicaSetDescriptor: apps/v1 ReplicaSet (served so kubectl describe deployment can list them). */
export const replicaSetDescriptor = defineBuiltin({
  ...WORKLOAD,
  categories: [...WORKLOAD.categories],
  kind: 'ReplicaSet',
  plural: 'replicasets',
  shortNames: ['rs'],
  columns: [
    nameColumn,
    column('Desired', 'integer', (o) => asRecord(o.spec).replicas ?? 0),
    column('Current', 'integer', (o) => asRecord(o.status).replicas ?? 0),
    column('Ready', 'integer', (o) => asRecord(o.status).readyReplicas ?? 0),
    ageColumn,
  ],
  hooks: workloadHooks('replicaset', (spec) => {
    spec.replicas ??= 1;
  }),
});

// ---------------------------------------------------------------- StatefulSet, DaemonSet, ControllerRevision,
// ReplicationController, PodTemplate (defaults from kinds/defaults.ts, the generated type tree)

const imagesOf = (o: KubeObject) => containersOf(o).map((c) => String(c.image)).join(',');
const namesOf = (o: KubeObject) => containersOf(o).map((c) => String(c.name)).join(',');
const containersColumn = column('Containers', 'string', namesOf, { priority: 1, description: 'Names of each container in the template.' });
const imagesColumn = column('Images', 'string', imagesOf, { priority: 1, description: 'Images referenced by each container in the template.' });
const num = (v: unknown) => (typeof v === 'number' ? v : 0);

// What a controller-managed kind with a pod template shares: status reset on create, kept on update, generation.
function controllerHooks(initialStatus: () => Record<string, unknown>, validate: (obj: KubeObject) => FieldError[], validateUpdate: (obj: KubeObject, old: KubeObject) => FieldError[]): KindHooks {
  return {
    prepareForCreate(obj) {
      obj.status = initialStatus();
    },
    prepareForUpdate(obj, old) {
      obj.status = old.status;
    },
    validate,
    validateUpdate: (obj, old) => [...validate(obj), ...validateUpdate(obj, old)],
  };
}

// Go: ValidateStatefulSetSpec
function validateStatefulSet(obj: KubeObject): FieldError[] {
  const spec = asRecord(obj.spec);
  const errs: FieldError[] = [];
  oneOf(errs, 'spec.podManagementPolicy', spec.podManagementPolicy, ['OrderedReady', 'Parallel']);
  oneOf(errs, 'spec.updateStrategy.type', asRecord(spec.updateStrategy).type, ['OnDelete', 'RollingUpdate']);
  nonNegative(errs, 'spec.replicas', spec.replicas);
  nonNegative(errs, 'spec.minReadySeconds', spec.minReadySeconds);
  nonNegative(errs, 'spec.updateStrategy.rollingUpdate.partition', asRecord(asRecord(spec.updateStrategy).rollingUpdate).partition);
  const retention = asRecord(spec.persistentVolumeClaimRetentionPolicy);
  oneOf(errs, 'spec.persistentVolumeClaimRetentionPolicy.whenDeleted', retention.whenDeleted, ['Retain', 'Delete']);
  oneOf(errs, 'spec.persistentVolumeClaimRetentionPolicy.whenScaled', retention.whenScaled, ['Retain', 'Delete']);
  errs.push(...selectorMatchesTemplate(spec, 'statefulset'));
  if (!isPlainObject(spec.template)) errs.push(required('spec.template'));
  else {
    const podSpec = asRecord(spec.template).spec;
    errs.push(...validatePodSpec(podSpec, 'spec.template.spec'));
    restartPolicyIn(errs, 'spec.template.spec', podSpec, ['Always']);
    if (asRecord(podSpec).activeDeadlineSeconds !== undefined) errs.push(forbidden('spec.template.spec.activeDeadlineSeconds', 'activeDeadlineSeconds in StatefulSet is not Supported'));
  }
  return errs;
}

const STS_MUTABLE = ['replicas', 'ordinals', 'template', 'updateStrategy', 'persistentVolumeClaimRetentionPolicy', 'minReadySeconds'];

// Go: ValidateStatefulSetUpdate — only the listed spec fields may change.
function validateStatefulSetUpdate(obj: KubeObject, old: KubeObject): FieldError[] {
  const strip = (s: unknown) => Object.fromEntries(Object.entries(asRecord(s)).filter(([k]) => !STS_MUTABLE.includes(k)));
  if (deepEqual(strip(obj.spec), strip(old.spec))) return [];
  return [forbidden('spec', "updates to statefulset spec for fields other than 'replicas', 'ordinals', 'template', 'updateStrategy', 'persistentVolumeClaimRetentionPolicy' and 'minReadySeconds' are forbidden")];
}

/** statefulSetDescriptor: apps/v1 StatefulSet with status and /scale. */
export const statefulSetDescriptor = defineBuiltin({
  ...WORKLOAD,
  categories: [...WORKLOAD.categories],
  kind: 'StatefulSet',
  plural: 'statefulsets',
  shortNames: ['sts'],
  goDefaults: true,
  columns: [
    nameColumn,
    column('Ready', 'string', (o) => `${num(asRecord(o.status).readyReplicas)}/${num(asRecord(o.spec).replicas)}`, { description: 'Number of the pod with ready state' }),
    ageColumn,
    containersColumn,
    imagesColumn,
  ],
  hooks: controllerHooks(() => ({ replicas: 0, availableReplicas: 0 }), validateStatefulSet, validateStatefulSetUpdate),
});

// Go: ValidateDaemonSetSpec
function validateDaemonSet(obj: KubeObject): FieldError[] {
  const spec = asRecord(obj.spec);
  const errs: FieldError[] = [];
  errs.push(...selectorMatchesTemplate(spec, 'daemonset'));
  const strategy = asRecord(spec.updateStrategy);
  oneOf(errs, 'spec.updateStrategy.type', strategy.type, ['OnDelete', 'RollingUpdate']);
  nonNegative(errs, 'spec.minReadySeconds', spec.minReadySeconds);
  if (!isPlainObject(spec.template)) errs.push(required('spec.template'));
  else {
    const podSpec = asRecord(spec.template).spec;
    errs.push(...validatePodSpec(podSpec, 'spec.template.spec'));
    restartPolicyIn(errs, 'spec.template.spec', podSpec, ['Always']);
    if (asRecord(podSpec).activeDeadlineSeconds !== undefined) errs.push(forbidden('spec.template.spec.activeDeadlineSeconds', 'activeDeadlineSeconds in DaemonSet is not Supported'));
  }
  return errs;
}

const selectorImmutable = (obj: KubeObject, old: KubeObject): FieldError[] => {
  const sel = asRecord(obj.spec).selector;
  return deepEqual(sel ?? null, asRecord(old.spec).selector ?? null) ? [] : [invalid('spec.selector', goLabelSelector(sel), 'field is immutable')];
};

/** daemonSetDescriptor: apps/v1 DaemonSet with status. */
export const daemonSetDescriptor = defineBuiltin({
  ...WORKLOAD,
  categories: [...WORKLOAD.categories],
  kind: 'DaemonSet',
  plural: 'daemonsets',
  shortNames: ['ds'],
  scale: undefined,
  goDefaults: true,
  columns: [
    nameColumn,
    column('Desired', 'integer', (o) => num(asRecord(o.status).desiredNumberScheduled)),
    column('Current', 'integer', (o) => num(asRecord(o.status).currentNumberScheduled)),
    column('Ready', 'integer', (o) => num(asRecord(o.status).numberReady)),
    column('Up-to-date', 'integer', (o) => num(asRecord(o.status).updatedNumberScheduled)),
    column('Available', 'integer', (o) => num(asRecord(o.status).numberAvailable)),
    column('Node Selector', 'string', (o) => formatMap(asRecord(asRecord(asRecord(o.spec).template).spec).nodeSelector)),
    ageColumn,
    containersColumn,
    imagesColumn,
    column('Selector', 'string', (o) => formatLabelSelector(asRecord(o.spec).selector), { priority: 1 }),
  ],
  hooks: controllerHooks(() => ({ currentNumberScheduled: 0, numberMisscheduled: 0, desiredNumberScheduled: 0, numberReady: 0 }), validateDaemonSet, selectorImmutable),
});

// Go: printControllerRevision — the controller as "<kind>.<group>/<name>".
function revisionController(o: KubeObject): string {
  const ref = (o.metadata?.ownerReferences ?? []).find((r) => r?.controller === true);
  if (!ref) return '<none>';
  const group = String(ref.apiVersion ?? '').includes('/') ? String(ref.apiVersion).split('/')[0] : '';
  return `${String(ref.kind).toLowerCase()}${group ? `.${group}` : ''}/${ref.name}`;
}

/** controllerRevisionDescriptor: apps/v1 ControllerRevision (immutable data, revision >= 0). */
export const controllerRevisionDescriptor = defineBuiltin({
  group: 'apps',
  version: 'v1',
  kind: 'ControllerRevision',
  plural: 'controllerrevisions',
  namespaced: true,
  columns: [nameColumn, column('Controller', 'string', revisionController), column('Revision', 'string', (o) => String(o.revision ?? 0)), ageColumn],
  hooks: {
    validate(obj) {
      const errs: FieldError[] = [];
      nonNegative(errs, 'revision', obj.revision);
      return errs;
    },
    validateUpdate(obj, old) {
      const errs: FieldError[] = [];
      nonNegative(errs, 'revision', obj.revision);
      immutable(errs, 'data', obj.data, old.data);
      return errs;
    },
  },
});

// Go: ValidateReplicationControllerSpec — the selector is a plain map that must match the template's labels.
function validateReplicationController(obj: KubeObject): FieldError[] {
  const spec = asRecord(obj.spec);
  const errs: FieldError[] = [];
  nonNegative(errs, 'spec.replicas', spec.replicas);
  nonNegative(errs, 'spec.minReadySeconds', spec.minReadySeconds);
  const selector = asRecord(spec.selector);
  if (Object.keys(selector).length === 0) errs.push(required('spec.selector'));
  if (!isPlainObject(spec.template)) {
    errs.push(required('spec.template'));
    return errs;
  }
  const labels = asRecord(asRecord(asRecord(spec.template).metadata).labels);
  if (Object.keys(selector).length > 0 && !Object.entries(selector).every(([k, v]) => labels[k] === v)) {
    errs.push(invalid('spec.template.metadata.labels', goMap(labels), '`selector` does not match template `labels`'));
  }
  const podSpec = asRecord(spec.template).spec;
  errs.push(...validatePodSpec(podSpec, 'spec.template.spec'));
  restartPolicyIn(errs, 'spec.template.spec', podSpec, ['Always']);
  return errs;
}

/** replicationControllerDescriptor: core/v1 ReplicationController with status and /scale. */
export const replicationControllerDescriptor = defineBuiltin({
  ...WORKLOAD,
  categories: [...WORKLOAD.categories],
  group: '',
  kind: 'ReplicationController',
  plural: 'replicationcontrollers',
  shortNames: ['rc'],
  fieldNames: ['status.replicas'],
  goDefaults: true,
  columns: [
    nameColumn,
    column('Desired', 'integer', (o) => num(asRecord(o.spec).replicas)),
    column('Current', 'integer', (o) => num(asRecord(o.status).replicas)),
    column('Ready', 'integer', (o) => num(asRecord(o.status).readyReplicas)),
    ageColumn,
    containersColumn,
    imagesColumn,
    column('Selector', 'string', (o) => formatMap(asRecord(o.spec).selector), { priority: 1 }),
  ],
  hooks: {
    ...controllerHooks(() => ({ replicas: 0 }), validateReplicationController, () => []),
    fields: (o) => ({ 'status.replicas': String(num(asRecord(o.status).replicas)) }),
  },
});

/** podTemplateDescriptor: core/v1 PodTemplate. */
export const podTemplateDescriptor = defineBuiltin({
  group: '',
  version: 'v1',
  kind: 'PodTemplate',
  plural: 'podtemplates',
  namespaced: true,
  goDefaults: true,
  columns: [
    nameColumn,
    column('Containers', 'string', (o) => asArray(asRecord(asRecord(o.template).spec).containers).map((c) => String(asRecord(c).name)).join(','), { description: 'Names of each container in the template.' }),
    column('Images', 'string', (o) => asArray(asRecord(asRecord(o.template).spec).containers).map((c) => String(asRecord(c).image)).join(','), { description: 'Images referenced by each container in the template.' }),
    column('Pod Labels', 'string', (o) => formatMap(asRecord(asRecord(o.template).metadata).labels), { description: 'The labels for the pod template.' }),
  ],
  hooks: {
    validate: (obj) => validatePodSpec(asRecord(obj.template).spec, 'template.spec'),
  },
});
