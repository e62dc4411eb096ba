// autoscaling HorizontalPodAutoscaler: served as v2 (preferred, stored) and v1 (converted), with kube's defaults,
// spec validation and the kubectl get columns.
// Go: pkg/registry/autoscaling/horizontalpodautoscaler, pkg/apis/autoscaling/{v1,v2}/{defaults,conversion}.go,
// pkg/apis/autoscaling/validation, pkg/printers (printHorizontalPodAutoscaler)
import { builtinSchema, type FieldError } from '../schema/index.js';
import { withApiVersion, type ResourceDescriptor } from '../resource.js';
import { ageColumn, asArray, asRecord, column, nameColumn } from '../printers.js';
import type { KubeObject } from '../types.js';
import { invalid, required } from './checks.js';
import { defineBuiltin } from './define.js';

const GROUP = 'autoscaling';
const KIND = 'HorizontalPodAutoscaler';

// Go: v1 conversion — targetCPUUtilizationPercentage is the cpu Utilization metric of v2.
function v1ToV2(obj: KubeObject): KubeObject {
  const { apiVersion: _a, kind: _k, metadata, spec, status, ...rest } = obj;
  const s = asRecord(spec);
  const { targetCPUUtilizationPercentage, ...specRest } = s;
  const out: KubeObject = { apiVersion: 'autoscaling/v2', kind: KIND, metadata, ...rest };
  if (spec !== undefined) {
    const v2: Record<string, unknown> = { ...specRest };
    if (typeof targetCPUUtilizationPercentage === 'number') {
      v2.metrics = [{ type: 'Resource', resource: { name: 'cpu', target: { type: 'Utilization', averageUtilization: targetCPUUtilizationPercentage } } }];
    }
    out.spec = v2;
  }
  if (status !== undefined) {
    const { currentCPUUtilizationPercentage, ...st } = asRecord(status);
    const v2: Record<string, unknown> = { ...st };
    if (typeof currentCPUUtilizationPercentage === 'number') {
      v2.currentMetrics = [{ type: 'Resource', resource: { name: 'cpu', current: { averageUtilization: currentCPUUtilizationPercentage } } }];
    }
    out.status = v2;
  }
  return out;
}

const cpuMetric = (metrics: unknown) =>
  asArray(metrics)
    .map(asRecord)
    .find((m) => m.type === 'Resource' && asRecord(m.resource).name === 'cpu');

function v2ToV1(obj: KubeObject): KubeObject {
  const { apiVersion: _a, kind: _k, metadata, spec, status, ...rest } = obj;
  const out: KubeObject = { apiVersion: 'autoscaling/v1', kind: KIND, metadata, ...rest };
  if (spec !== undefined) {
    const { metrics, behavior: _b, ...s } = asRecord(spec);
    const v1: Record<string, unknown> = { ...s };
    const target = asRecord(asRecord(cpuMetric(metrics)?.resource).target);
    if (target.type === 'Utilization' && typeof target.averageUtilization === 'number') v1.targetCPUUtilizationPercentage = target.averageUtilization;
    out.spec = v1;
  }
  if (status !== undefined) {
    const { currentMetrics, conditions: _c, ...st } = asRecord(status);
    const v1: Record<string, unknown> = { ...st };
    const current = asRecord(asRecord(cpuMetric(currentMetrics)?.resource).current);
    if (typeof current.averageUtilization === 'number') v1.currentCPUUtilizationPercentage = current.averageUtilization;
    out.status = v1;
  }
  return out;
}

// Go: validateHorizontalPodAutoscalerSpec (without the HPAScaleToZero feature gate, off by default).
function validateHPA(obj: KubeObject): FieldError[] {
  const errs: FieldError[] = [];
  const spec = asRecord(obj.spec);
  const min = spec.minReplicas;
  if (typeof min === 'number' && min < 1) errs.push(invalid('spec.minReplicas', min, 'must be greater than or equal to 1'));
  const max = spec.maxReplicas;
  if (typeof max !== 'number' || max < 1) errs.push(invalid('spec.maxReplicas', max ?? 0, 'must be greater than or equal to 1'));
  else if (typeof min === 'number' && max < min) errs.push(invalid('spec.maxReplicas', max, 'must be greater than or equal to `minReplicas`'));
  const ref = asRecord(spec.scaleTargetRef);
  if (!ref.kind) errs.push(required('spec.scaleTargetRef.kind'));
  if (!ref.name) errs.push(required('spec.scaleTargetRef.name'));
  asArray(spec.metrics).forEach((m, i) => {
    const type = asRecord(m).type;
    if (!type) errs.push(required(`spec.metrics[${i}].type`, 'must specify a metric source type'));
    else if (!['Object', 'Pods', 'Resource', 'ContainerResource', 'External'].includes(String(type))) {
      errs.push({ type: 'FieldValueNotSupported', field: `spec.metrics[${i}].type`, badValue: type, detail: 'supported values: "ContainerResource", "External", "Object", "Pods", "Resource"' });
    }
  });
  return errs;
}

// Go: printHorizontalPodAutoscaler / formatHPAMetrics — "cpu: 50%/80%", "<unknown>" before the first measurement.
function hpaTargets(o: KubeObject): string {
  const specs = asArray(asRecord(o.spec).metrics).map(asRecord);
  if (specs.length === 0) return '<none>';
  const current = asArray(asRecord(o.status).currentMetrics).map(asRecord);
  const parts = specs.map((m, i) => {
    const cur = current[i];
    switch (m.type) {
      case 'Resource':
      case 'ContainerResource': {
        const src = asRecord(m.type === 'Resource' ? m.resource : m.containerResource);
        const t = asRecord(src.target);
        const c = asRecord(asRecord(cur?.[m.type === 'Resource' ? 'resource' : 'containerResource']).current);
        if (t.averageUtilization !== undefined) return `${src.name}: ${c.averageUtilization !== undefined ? `${c.averageUtilization}%` : '<unknown>'}/${t.averageUtilization}%`;
        return `${src.name}: ${c.averageValue ?? '<unknown>'}/${t.averageValue ?? t.value}`;
      }
      default: {
        // Pods, Object and External metrics: the simulated cluster has no metrics server, so the value is unknown.
        const key = String(m.type).charAt(0).toLowerCase() + String(m.type).slice(1);
        const t = asRecord(asRecord(m[key]).target);
        return t.averageValue !== undefined && m.type !== 'Pods' ? `<unknown>/${t.averageValue} (avg)` : `<unknown>/${t.averageValue ?? t.value}`;
      }
    }
  });
  return parts.length > 2 ? `${parts.slice(0, 2).join(', ')} + ${parts.length - 2} more...` : parts.join(', ');
}

const v2 = defineBuiltin({
  group: GROUP,
  version: 'v2',
  kind: KIND,
  plural: 'horizontalpodautoscalers',
  namespaced: true,
  shortNames: ['hpa'],
  categories: ['all'],
  status: true,
  goDefaults: true,
  columns: [
    nameColumn,
    column('Reference', 'string', (o) => {
      const ref = asRecord(asRecord(o.spec).scaleTargetRef);
      return `${ref.kind}/${ref.name}`;
    }),
    column('Targets', 'string', hpaTargets),
    column('MinPods', 'string', (o) => String(asRecord(o.spec).minReplicas ?? '<unset>')),
    column('MaxPods', 'string', (o) => String(asRecord(o.spec).maxReplicas ?? 0)),
    column('Replicas', 'string', (o) => String(asRecord(o.status).currentReplicas ?? 0)),
    ageColumn,
  ],
  hooks: {
    prepareForCreate(obj) {
      obj.status = { desiredReplicas: 0 };
    },
    prepareForUpdate(obj, old) {
      obj.status = old.status;
    },
    validate: validateHPA,
    validateUpdate: validateHPA,
  },
});

/** hpaDescriptor: autoscaling HorizontalPodAutoscaler, v2 preferred and stored, v1 converted. */
export const hpaDescriptor: ResourceDescriptor = {
  ...v2,
  versions: ['v2', 'v1'],
  schema: (version) => builtinSchema(GROUP, version, KIND),
  fromStorage: (obj, version) => (version === 'v1' ? v2ToV1(obj) : withApiVersion(obj, 'autoscaling/v2', KIND)),
  toStorage: (obj, version) => (version === 'v1' ? v1ToV2(obj) : withApiVersion(obj, 'autoscaling/v2', KIND)),
};
