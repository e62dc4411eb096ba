// Policy-like built-ins: policy/v1 PodDisruptionBudget, scheduling PriorityClass, node RuntimeClass, core
// ResourceQuota and LimitRange, flowcontrol FlowSchema and PriorityLevelConfiguration.
// Go: pkg/apis/{policy,scheduling,node,flowcontrol}/validation, pkg/apis/core/validation (quota, limit range),
// pkg/printers/internalversion/printers.go
import { OMIT_VALUE, type FieldError } from '../schema/index.js';
import { ageColumn, asArray, asRecord, column, createdAtColumn, nameColumn } from '../printers.js';
import { isPlainObject, type KubeObject } from '../types.js';
import { isDNS1123Label } from '../validation.js';
import { forbidden, immutable, intOrPercent, invalid, labelSelectorErrors, oneOf, required } from './checks.js';
import { defineBuiltin } from './define.js';

// ---------------------------------------------------------------- PodDisruptionBudget

// Go: ValidatePodDisruptionBudgetSpec
function validatePDB(obj: KubeObject): FieldError[] {
  const errs: FieldError[] = [];
  const spec = asRecord(obj.spec);
  if (spec.minAvailable != null && spec.maxUnavailable != null) {
    errs.push(invalid('spec', OMIT_VALUE, 'minAvailable and maxUnavailable cannot be both set'));
  }
  intOrPercent(errs, 'spec.minAvailable', spec.minAvailable);
  intOrPercent(errs, 'spec.maxUnavailable', spec.maxUnavailable);
  errs.push(...labelSelectorErrors(spec.selector, 'spec.selector'));
  oneOf(errs, 'spec.unhealthyPodEvictionPolicy', spec.unhealthyPodEvictionPolicy, ['AlwaysAllow', 'IfHealthyBudget']);
  return errs;
}

const intOrStr = (v: unknown) => (v === undefined || v === null ? 'N/A' : String(v));

/** pdbDescriptor: policy/v1 PodDisruptionBudget with status. */
export const pdbDescriptor = defineBuiltin({
  group: 'policy',
  version: 'v1',
  kind: 'PodDisruptionBudget',
  plural: 'poddisruptionbudgets',
  namespaced: true,
  shortNames: ['pdb'],
  status: true,
  tracksGeneration: true,
  goDefaults: true,
  columns: [
    nameColumn,
    column('Min Available', 'string', (o) => intOrStr(asRecord(o.spec).minAvailable), { description: 'The minimum number of pods that must be available.' }),
    column('Max Unavailable', 'string', (o) => intOrStr(asRecord(o.spec).maxUnavailable), { description: 'The maximum number of pods that may be unavailable.' }),
    column('Allowed Disruptions', 'integer', (o) => Number(asRecord(o.status).disruptionsAllowed ?? 0), { description: 'Calculated number of pods that may be disrupted at this time.' }),
    ageColumn,
  ],
  hooks: {
    prepareForCreate(obj) {
      // The status struct's counters are not omitempty: a fresh PDB shows them as zeros.
      obj.status = { disruptionsAllowed: 0, currentHealthy: 0, desiredHealthy: 0, expectedPods: 0 };
    },
    prepareForUpdate(obj, old) {
      obj.status = old.status;
    },
    validate: validatePDB,
    validateUpdate: validatePDB,
  },
});

// ---------------------------------------------------------------- PriorityClass

/** HIGHEST_USER_PRIORITY is scheduling.HighestUserDefinablePriority. */
const HIGHEST_USER_PRIORITY = 1_000_000_000;
const SYSTEM_PRIORITY_CLASSES = new Map([
  ['system-node-critical', 2_000_001_000],
  ['system-cluster-critical', 2_000_000_000],
]);

// Go: ValidatePriorityClass
function validatePriorityClass(obj: KubeObject): FieldError[] {
  const errs: FieldError[] = [];
  const name = obj.metadata?.name ?? '';
  const value = typeof obj.value === 'number' ? obj.value : 0;
  if (name.startsWith('system-')) {
    const known = SYSTEM_PRIORITY_CLASSES.get(name);
    if (known === undefined) errs.push(forbidden('metadata.name', "priority class names with 'system-' prefix are reserved for system use only"));
    else if (known !== value) errs.push(forbidden('value', `value of ${name} PriorityClass must be ${known}`));
  } else if (value > HIGHEST_USER_PRIORITY) {
    errs.push(forbidden('value', `maximum allowed value of a user defined priority is ${HIGHEST_USER_PRIORITY}`));
  }
  oneOf(errs, 'preemptionPolicy', obj.preemptionPolicy, ['Never', 'PreemptLowerPriority']);
  return errs;
}

/** priorityClassDescriptor: scheduling.k8s.io/v1 PriorityClass. */
export const priorityClassDescriptor = defineBuiltin({
  group: 'scheduling.k8s.io',
  version: 'v1',
  kind: 'PriorityClass',
  plural: 'priorityclasses',
  namespaced: false,
  shortNames: ['pc'],
  goDefaults: true,
  columns: [
    nameColumn,
    column('Value', 'integer', (o) => Number(o.value ?? 0)),
    column('Global-Default', 'boolean', (o) => o.globalDefault === true),
    ageColumn,
    column('PreemptionPolicy', 'string', (o) => String(o.preemptionPolicy ?? '')),
  ],
  hooks: {
    validate: validatePriorityClass,
    validateUpdate(obj, old) {
      const errs = validatePriorityClass(obj);
      if ((obj.value ?? 0) !== (old.value ?? 0)) errs.push(forbidden('value', 'may not be changed in an update.'));
      immutable(errs, 'preemptionPolicy', obj.preemptionPolicy, old.preemptionPolicy);
      return errs;
    },
  },
});

// ---------------------------------------------------------------- RuntimeClass

/** runtimeClassDescriptor: node.k8s.io/v1 RuntimeClass (handler is a DNS label and immutable). */
export const runtimeClassDescriptor = defineBuiltin({
  group: 'node.k8s.io',
  version: 'v1',
  kind: 'RuntimeClass',
  plural: 'runtimeclasses',
  namespaced: false,
  columns: [nameColumn, column('Handler', 'string', (o) => String(o.handler ?? '')), ageColumn],
  hooks: {
    validate(obj) {
      const errs: FieldError[] = [];
      const handler = obj.handler;
      if (typeof handler !== 'string' || handler === '') errs.push(required('handler'));
      else for (const m of isDNS1123Label(handler)) errs.push(invalid('handler', handler, m));
      return errs;
    },
    validateUpdate(obj, old) {
      const errs: FieldError[] = [];
      immutable(errs, 'handler', obj.handler, old.handler);
      return errs;
    },
  },
});

// ---------------------------------------------------------------- ResourceQuota, LimitRange

// Go: printResourceQuota — "requests.cpu: 0/1" for request-ish resources, "limits.cpu: 0/2" for limits.
function quotaColumn(limits: boolean) {
  return (o: KubeObject): string => {
    const hard = asRecord(asRecord(o.status).hard);
    const hardSpec = Object.keys(hard).length > 0 ? hard : asRecord(asRecord(o.spec).hard);
    const used = asRecord(asRecord(o.status).used);
    return Object.keys(hardSpec)
      .sort()
      .filter((k) => k.startsWith('limits.') === limits)
      .map((k) => `${k}: ${String(used[k] ?? 0)}/${String(hardSpec[k])}`)
      .join(', ');
  };
}

/** resourceQuotaDescriptor: core/v1 ResourceQuota with status. */
export const resourceQuotaDescriptor = defineBuiltin({
  group: '',
  version: 'v1',
  kind: 'ResourceQuota',
  plural: 'resourcequotas',
  namespaced: true,
  shortNames: ['quota'],
  status: true,
  goDefaults: true,
  columns: [nameColumn, ageColumn, column('Request', 'string', quotaColumn(false)), column('Limit', 'string', quotaColumn(true))],
  hooks: {
    prepareForCreate(obj) {
      obj.status = {};
    },
    prepareForUpdate(obj, old) {
      obj.status = old.status;
    },
    validate(obj) {
      const errs: FieldError[] = [];
      for (const scope of asArray(asRecord(obj.spec).scopes)) {
        oneOf(errs, 'spec.scopes', scope, ['BestEffort', 'CrossNamespacePodAffinity', 'NotBestEffort', 'NotTerminating', 'PriorityClass', 'Terminating', 'VolumeAttributesClass']);
      }
      return errs;
    },
  },
});

/** limitRangeDescriptor: core/v1 LimitRange (kube has no printer for it: NAME and CREATED AT). */
export const limitRangeDescriptor = defineBuiltin({
  group: '',
  version: 'v1',
  kind: 'LimitRange',
  plural: 'limitranges',
  namespaced: true,
  shortNames: ['limits'],
  goDefaults: true,
  columns: [nameColumn, createdAtColumn],
  hooks: {
    validate(obj) {
      const errs: FieldError[] = [];
      asArray(asRecord(obj.spec).limits).forEach((l, i) => {
        const type = asRecord(l).type;
        if (!type) errs.push(required(`spec.limits[${i}].type`));
        else oneOf(errs, `spec.limits[${i}].type`, type, ['Container', 'PersistentVolumeClaim', 'Pod']);
      });
      return errs;
    },
  },
});

// ---------------------------------------------------------------- flowcontrol.apiserver.k8s.io

function validateFlowSchema(obj: KubeObject): FieldError[] {
  const errs: FieldError[] = [];
  const spec = asRecord(obj.spec);
  if (!asRecord(spec.priorityLevelConfiguration).name) errs.push(required('spec.priorityLevelConfiguration.name', 'must reference a priority level'));
  const mp = spec.matchingPrecedence;
  if (typeof mp === 'number' && (mp <= 0 || mp > 10000)) errs.push(invalid('spec.matchingPrecedence', mp, 'must be between 1 and 10000, inclusive'));
  const dm = asRecord(spec.distinguisherMethod).type;
  if (isPlainObject(spec.distinguisherMethod)) oneOf(errs, 'spec.distinguisherMethod.type', dm, ['ByNamespace', 'ByUser']);
  return errs;
}

/** flowSchemaDescriptor: flowcontrol.apiserver.k8s.io/v1 FlowSchema. */
export const flowSchemaDescriptor = defineBuiltin({
  group: 'flowcontrol.apiserver.k8s.io',
  version: 'v1',
  kind: 'FlowSchema',
  plural: 'flowschemas',
  namespaced: false,
  status: true,
  tracksGeneration: true,
  goDefaults: true,
  columns: [
    nameColumn,
    column('PriorityLevel', 'string', (o) => String(asRecord(asRecord(o.spec).priorityLevelConfiguration).name ?? '')),
    column('MatchingPrecedence', 'string', (o) => String(asRecord(o.spec).matchingPrecedence ?? '')),
    column('DistinguisherMethod', 'string', (o) => String(asRecord(asRecord(o.spec).distinguisherMethod).type ?? '<none>')),
    ageColumn,
    column('MissingPL', 'string', (o) => {
      const c = asArray(asRecord(o.status).conditions).map(asRecord).find((x) => x.type === 'Dangling');
      return c ? String(c.status) : '?';
    }),
  ],
  hooks: {
    prepareForCreate(obj) {
      obj.status = {};
    },
    prepareForUpdate(obj, old) {
      obj.status = old.status;
    },
    validate: validateFlowSchema,
    validateUpdate: validateFlowSchema,
  },
});

function validatePriorityLevel(obj: KubeObject): FieldError[] {
  const errs: FieldError[] = [];
  const spec = asRecord(obj.spec);
  if (!spec.type) errs.push(required('spec.type', 'must be one of Exempt, Limited'));
  else oneOf(errs, 'spec.type', spec.type, ['Exempt', 'Limited']);
  if (spec.type === 'Limited' && !isPlainObject(spec.limited)) errs.push(required('spec.limited', 'must not be empty when type is Limited'));
  if (spec.type === 'Exempt' && spec.limited !== undefined) errs.push(forbidden('spec.limited', 'must be nil if the type is not Limited'));
  return errs;
}

/** priorityLevelDescriptor: flowcontrol.apiserver.k8s.io/v1 PriorityLevelConfiguration. */
export const priorityLevelDescriptor = defineBuiltin({
  group: 'flowcontrol.apiserver.k8s.io',
  version: 'v1',
  kind: 'PriorityLevelConfiguration',
  plural: 'prioritylevelconfigurations',
  namespaced: false,
  status: true,
  tracksGeneration: true,
  goDefaults: true,
  columns: [
    nameColumn,
    column('Type', 'string', (o) => String(asRecord(o.spec).type ?? '')),
    column('NominalConcurrencyShares', 'string', (o) => String(asRecord(asRecord(o.spec).limited).nominalConcurrencyShares ?? '<none>')),
    column('Queues', 'string', (o) => String(asRecord(asRecord(asRecord(asRecord(o.spec).limited).limitResponse).queuing).queues ?? '<none>')),
    column('HandSize', 'string', (o) => String(asRecord(asRecord(asRecord(asRecord(o.spec).limited).limitResponse).queuing).handSize ?? '<none>')),
    column('QueueLengthLimit', 'string', (o) => String(asRecord(asRecord(asRecord(asRecord(o.spec).limited).limitResponse).queuing).queueLengthLimit ?? '<none>')),
    ageColumn,
  ],
  hooks: {
    prepareForCreate(obj) {
      obj.status = {};
    },
    prepareForUpdate(obj, old) {
      obj.status = old.status;
    },
    validate: validatePriorityLevel,
    validateUpdate: validatePriorityLevel,
  },
});
