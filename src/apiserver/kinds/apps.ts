// apps/v1 Deployment (and ReplicaSet, which kubectl describe deployment lists): defaulting, selector checks, /scale.
// Go: kubernetes/pkg/apis/apps/v1/defaults.go, pkg/apis/apps/validation, pkg/registry/apps/deployment/strategy.go
import type { FieldError } from '../schema/index.js';
import type { KindHooks } from '../resource.js';
import { ageColumn, asArray, asRecord, column, formatLabelSelector, nameColumn } from '../printers.js';
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
      if (!deepEqual(sel, oldSel)) errs.push({ type: 'FieldValueInvalid', field: 'spec.selector', badValue: sel ?? null, detail: 'field is immutable' });
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
