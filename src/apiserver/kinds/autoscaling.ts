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

// Go: pkg/apis/autoscaling/v1/conversion.go. v1 has only targetCPUUtilizationPercentage; every other metric, the
// current metrics, the conditions and the behavior travel in round-trip annotations (v1's MetricSpec/MetricStatus
// shapes, which are v2beta1's), so a v1 client that reads and writes back an HPA loses nothing.
const METRICS_ANNOTATION = 'autoscaling.alpha.kubernetes.io/metrics';
const CURRENT_METRICS_ANNOTATION = 'autoscaling.alpha.kubernetes.io/current-metrics';
const CONDITIONS_ANNOTATION = 'autoscaling.alpha.kubernetes.io/conditions';
const BEHAVIOR_ANNOTATION = 'autoscaling.alpha.kubernetes.io/behavior';
const ROUND_TRIP = [METRICS_ANNOTATION, CURRENT_METRICS_ANNOTATION, CONDITIONS_ANNOTATION, BEHAVIOR_ANNOTATION];

type Rec = Record<string, unknown>;

// Builds an object with Go's field order, leaving out what is undefined.
function ordered(entries: [string, unknown][]): Rec {
  const out: Rec = {};
  for (const [k, v] of entries) if (v !== undefined) out[k] = v;
  return out;
}

function dropRoundTrip(metadata: unknown): Rec | undefined {
  if (metadata === undefined) return undefined;
  const m = { ...asRecord(metadata) };
  if (m.annotations === undefined) return m;
  const a = { ...asRecord(m.annotations) };
  for (const k of ROUND_TRIP) delete a[k];
  if (Object.keys(a).length === 0) delete m.annotations;
  else m.annotations = a;
  return m;
}

const isCpuUtilization = (m: Rec) => m.type === 'Resource' && asRecord(m.resource).name === 'cpu' && asRecord(asRecord(m.resource).target).averageUtilization !== undefined;

// Go: Convert_autoscaling_MetricSpec_To_v1_MetricSpec
function specToV1(m: Rec): Rec {
  const t = (x: unknown) => asRecord(asRecord(x).target);
  const metric = (x: unknown) => asRecord(asRecord(x).metric);
  switch (m.type) {
    case 'Object': {
      const o = asRecord(m.object);
      return ordered([['type', m.type], ['object', ordered([['target', o.describedObject], ['metricName', metric(o).name], ['targetValue', t(o).value ?? '0'], ['selector', metric(o).selector], ['averageValue', t(o).averageValue]])]]);
    }
    case 'Pods': {
      const o = asRecord(m.pods);
      return ordered([['type', m.type], ['pods', ordered([['metricName', metric(o).name], ['targetAverageValue', t(o).averageValue ?? '0'], ['selector', metric(o).selector]])]]);
    }
    case 'Resource': {
      const o = asRecord(m.resource);
      return ordered([['type', m.type], ['resource', ordered([['name', o.name], ['targetAverageUtilization', t(o).averageUtilization], ['targetAverageValue', t(o).averageValue]])]]);
    }
    case 'ContainerResource': {
      const o = asRecord(m.containerResource);
      return ordered([['type', m.type], ['containerResource', ordered([['name', o.name], ['targetAverageUtilization', t(o).averageUtilization], ['targetAverageValue', t(o).averageValue], ['container', o.container]])]]);
    }
    case 'External': {
      const o = asRecord(m.external);
      return ordered([['type', m.type], ['external', ordered([['metricName', metric(o).name], ['metricSelector', metric(o).selector], ['targetValue', t(o).value], ['targetAverageValue', t(o).averageValue]])]]);
    }
    default:
      return ordered([['type', m.type]]);
  }
}

// Go: Convert_v1_MetricSpec_To_autoscaling_MetricSpec
function specFromV1(m: Rec): Rec {
  const metric = (name: unknown, selector: unknown) => ordered([['name', name], ['selector', selector]]);
  switch (m.type) {
    case 'Object': {
      const o = asRecord(m.object);
      const target = o.averageValue !== undefined ? ordered([['type', 'AverageValue'], ['averageValue', o.averageValue]]) : ordered([['type', 'Value'], ['value', o.targetValue]]);
      return { type: m.type, object: ordered([['describedObject', o.target], ['metric', metric(o.metricName, o.selector)], ['target', target]]) };
    }
    case 'Pods': {
      const o = asRecord(m.pods);
      return { type: m.type, pods: { metric: metric(o.metricName, o.selector), target: { type: 'AverageValue', averageValue: o.targetAverageValue } } };
    }
    case 'Resource':
    case 'ContainerResource': {
      const key = m.type === 'Resource' ? 'resource' : 'containerResource';
      const o = asRecord(m[key]);
      const target = o.targetAverageUtilization !== undefined ? { type: 'Utilization', averageUtilization: o.targetAverageUtilization } : { type: 'AverageValue', averageValue: o.targetAverageValue };
      return { type: m.type, [key]: ordered([['name', o.name], ['target', target], ['container', o.container]]) };
    }
    case 'External': {
      const o = asRecord(m.external);
      const target = o.targetAverageValue !== undefined ? { type: 'AverageValue', averageValue: o.targetAverageValue } : { type: 'Value', value: o.targetValue };
      return { type: m.type, external: { metric: metric(o.metricName, o.metricSelector), target } };
    }
    default:
      return { type: m.type };
  }
}

// Go: Convert_autoscaling_MetricStatus_To_v1_MetricStatus
function statusToV1(m: Rec): Rec {
  const c = (x: unknown) => asRecord(asRecord(x).current);
  const metric = (x: unknown) => asRecord(asRecord(x).metric);
  switch (m.type) {
    case 'Object': {
      const o = asRecord(m.object);
      return ordered([['type', m.type], ['object', ordered([['target', o.describedObject], ['metricName', metric(o).name], ['currentValue', c(o).value ?? '0'], ['selector', metric(o).selector], ['averageValue', c(o).averageValue]])]]);
    }
    case 'Pods': {
      const o = asRecord(m.pods);
      return ordered([['type', m.type], ['pods', ordered([['metricName', metric(o).name], ['currentAverageValue', c(o).averageValue ?? '0'], ['selector', metric(o).selector]])]]);
    }
    case 'Resource': {
      const o = asRecord(m.resource);
      return ordered([['type', m.type], ['resource', ordered([['name', o.name], ['currentAverageUtilization', c(o).averageUtilization], ['currentAverageValue', c(o).averageValue ?? '0']])]]);
    }
    case 'ContainerResource': {
      const o = asRecord(m.containerResource);
      return ordered([['type', m.type], ['containerResource', ordered([['name', o.name], ['currentAverageUtilization', c(o).averageUtilization], ['currentAverageValue', c(o).averageValue ?? '0'], ['container', o.container]])]]);
    }
    case 'External': {
      const o = asRecord(m.external);
      return ordered([['type', m.type], ['external', ordered([['metricName', metric(o).name], ['metricSelector', metric(o).selector], ['currentValue', c(o).value ?? '0'], ['currentAverageValue', c(o).averageValue]])]]);
    }
    default:
      return ordered([['type', m.type]]);
  }
}

// Go: Convert_v1_MetricStatus_To_autoscaling_MetricStatus
function statusFromV1(m: Rec): Rec {
  const metric = (name: unknown, selector: unknown) => ordered([['name', name], ['selector', selector]]);
  switch (m.type) {
    case 'Object': {
      const o = asRecord(m.object);
      return { type: m.type, object: ordered([['metric', metric(o.metricName, o.selector)], ['current', ordered([['value', o.currentValue], ['averageValue', o.averageValue]])], ['describedObject', o.target]]) };
    }
    case 'Pods': {
      const o = asRecord(m.pods);
      return { type: m.type, pods: { metric: metric(o.metricName, o.selector), current: { averageValue: o.currentAverageValue } } };
    }
    case 'Resource':
    case 'ContainerResource': {
      const key = m.type === 'Resource' ? 'resource' : 'containerResource';
      const o = asRecord(m[key]);
      return { type: m.type, [key]: ordered([['name', o.name], ['current', ordered([['averageValue', o.currentAverageValue], ['averageUtilization', o.currentAverageUtilization]])], ['container', o.container]]) };
    }
    case 'External': {
      const o = asRecord(m.external);
      return { type: m.type, external: { metric: metric(o.metricName, o.metricSelector), current: ordered([['value', o.currentValue], ['averageValue', o.currentAverageValue]]) } };
    }
    default:
      return { type: m.type };
  }
}

// The behavior annotation is Go's JSON of the internal type (no json tags: capitalised field names, nil as null).
function behaviorToAnnotation(b: Rec): string {
  const rules = (r: unknown) =>
    r === undefined
      ? null
      : {
          StabilizationWindowSeconds: asRecord(r).stabilizationWindowSeconds ?? null,
          SelectPolicy: asRecord(r).selectPolicy ?? null,
          Policies: asArray(asRecord(r).policies).length ? asArray(asRecord(r).policies).map((p) => ({ Type: asRecord(p).type, Value: asRecord(p).value, PeriodSeconds: asRecord(p).periodSeconds })) : null,
        };
  return JSON.stringify({ ScaleUp: rules(b.scaleUp), ScaleDown: rules(b.scaleDown) });
}

function behaviorFromAnnotation(text: string): Rec | undefined {
  let raw: Rec;
  try {
    raw = asRecord(JSON.parse(text));
  } catch {
    return undefined;
  }
  const rules = (r: unknown): Rec | undefined => {
    if (r === null || r === undefined) return undefined;
    const x = asRecord(r);
    return ordered([
      ['stabilizationWindowSeconds', x.StabilizationWindowSeconds ?? undefined],
      ['selectPolicy', x.SelectPolicy ?? undefined],
      ['policies', Array.isArray(x.Policies) ? x.Policies.map((p) => ({ type: asRecord(p).Type, value: asRecord(p).Value, periodSeconds: asRecord(p).PeriodSeconds })) : undefined],
    ]);
  };
  const out = ordered([['scaleUp', rules(raw.ScaleUp)], ['scaleDown', rules(raw.ScaleDown)]]);
  return Object.keys(out).length > 0 ? out : undefined;
}

function parseList(text: unknown): Rec[] | undefined {
  if (typeof text !== 'string') return undefined;
  try {
    const v = JSON.parse(text) as unknown;
    return Array.isArray(v) ? v.map(asRecord) : undefined;
  } catch {
    return undefined;
  }
}

// Go: Convert_v1_HorizontalPodAutoscaler_To_autoscaling_HorizontalPodAutoscaler
function v1ToV2(obj: KubeObject): KubeObject {
  const { apiVersion: _a, kind: _k, metadata, spec, status, ...rest } = obj;
  const annotations = asRecord(asRecord(metadata).annotations);
  const out: KubeObject = { apiVersion: 'autoscaling/v2', kind: KIND, metadata: dropRoundTrip(metadata) as KubeObject['metadata'], ...rest };
  if (metadata === undefined) delete out.metadata;
  if (spec !== undefined) {
    const { targetCPUUtilizationPercentage, ...specRest } = asRecord(spec);
    const v2: Rec = { ...specRest };
    const metrics: Rec[] = (parseList(annotations[METRICS_ANNOTATION]) ?? []).map(specFromV1);
    if (typeof targetCPUUtilizationPercentage === 'number') {
      metrics.push({ type: 'Resource', resource: { name: 'cpu', target: { type: 'Utilization', averageUtilization: targetCPUUtilizationPercentage } } });
    }
    // Go: v1's implicit default (80% CPU) is applied here, where the full set of metrics is known.
    v2.metrics = metrics.length > 0 ? metrics : [{ type: 'Resource', resource: { name: 'cpu', target: { type: 'Utilization', averageUtilization: 80 } } }];
    const behavior = typeof annotations[BEHAVIOR_ANNOTATION] === 'string' ? behaviorFromAnnotation(annotations[BEHAVIOR_ANNOTATION] as string) : undefined;
    if (behavior) v2.behavior = behavior;
    out.spec = v2;
  }
  if (status !== undefined || annotations[CURRENT_METRICS_ANNOTATION] !== undefined || annotations[CONDITIONS_ANNOTATION] !== undefined) {
    const { currentCPUUtilizationPercentage, ...st } = asRecord(status);
    const v2: Rec = { ...st };
    const current = parseList(annotations[CURRENT_METRICS_ANNOTATION]);
    if (current) v2.currentMetrics = current.map(statusFromV1);
    else if (typeof currentCPUUtilizationPercentage === 'number') {
      v2.currentMetrics = [{ type: 'Resource', resource: { name: 'cpu', current: { averageUtilization: currentCPUUtilizationPercentage } } }];
    }
    const conditions = parseList(annotations[CONDITIONS_ANNOTATION]);
    if (conditions) v2.conditions = conditions.map((c) => ordered([['type', c.type], ['status', c.status], ['lastTransitionTime', c.lastTransitionTime], ['reason', c.reason], ['message', c.message]]));
    out.status = v2;
  }
  return out;
}

// Go: Convert_autoscaling_HorizontalPodAutoscaler_To_v1_HorizontalPodAutoscaler
function v2ToV1(obj: KubeObject): KubeObject {
  const { apiVersion: _a, kind: _k, metadata, spec, status, ...rest } = obj;
  const meta = dropRoundTrip(metadata);
  const added: Record<string, string> = {};
  const out: KubeObject = { apiVersion: 'autoscaling/v1', kind: KIND, ...rest };
  if (spec !== undefined) {
    const { metrics, behavior, ...s } = asRecord(spec);
    const v1: Rec = { ...s };
    const all = asArray(metrics).map(asRecord);
    const cpu = all.find(isCpuUtilization);
    if (cpu) v1.targetCPUUtilizationPercentage = asRecord(asRecord(cpu.resource).target).averageUtilization;
    const others = all.filter((m) => !isCpuUtilization(m)).map(specToV1);
    if (others.length > 0) added[METRICS_ANNOTATION] = JSON.stringify(others);
    if (behavior !== undefined && behavior !== null) added[BEHAVIOR_ANNOTATION] = behaviorToAnnotation(asRecord(behavior));
    out.spec = v1;
  }
  if (status !== undefined) {
    const { currentMetrics, conditions, ...st } = asRecord(status);
    const v1: Rec = { ...st };
    const current = asArray(currentMetrics).map(asRecord);
    const cpu = current.find((m) => m.type === 'Resource' && asRecord(m.resource).name === 'cpu');
    const util = asRecord(asRecord(cpu?.resource).current).averageUtilization;
    if (typeof util === 'number') v1.currentCPUUtilizationPercentage = util;
    // Go: all current metrics are saved, the CPU one included (its raw value is not in v1's field).
    if (current.length > 0) added[CURRENT_METRICS_ANNOTATION] = JSON.stringify(current.map(statusToV1));
    const conds = asArray(conditions).map(asRecord);
    if (conds.length > 0) added[CONDITIONS_ANNOTATION] = JSON.stringify(conds.map((c) => ordered([['type', c.type], ['status', c.status], ['lastTransitionTime', c.lastTransitionTime], ['reason', c.reason], ['message', c.message]])));
    out.status = v1;
  }
  if (meta !== undefined || Object.keys(added).length > 0) {
    const m = { ...(meta ?? {}) };
    if (Object.keys(added).length > 0) m.annotations = { ...asRecord(m.annotations), ...added };
    out.metadata = m as KubeObject['metadata'];
  }
  // Keep metadata first, as the stored object has it.
  const { apiVersion, kind, metadata: md, ...tail } = out;
  return { apiVersion, kind, ...(md !== undefined ? { metadata: md } : {}), ...tail } as KubeObject;
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
