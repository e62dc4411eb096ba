// HorizontalPodAutoscaler v2 <-> v1 conversion keeps what v1 cannot express in kube's round-trip annotations.
import { strict as assert } from 'node:assert';
import { test } from 'node:test';
import type { KubeObject } from '../types.js';
import { hpaDescriptor } from './autoscaling.js';

const v2: KubeObject = {
  apiVersion: 'autoscaling/v2',
  kind: 'HorizontalPodAutoscaler',
  metadata: { name: 'web', namespace: 'default', annotations: { keep: 'me' } },
  spec: {
    scaleTargetRef: { apiVersion: 'apps/v1', kind: 'Deployment', name: 'web' },
    minReplicas: 1,
    maxReplicas: 5,
    metrics: [
      { type: 'Resource', resource: { name: 'memory', target: { type: 'AverageValue', averageValue: '500Mi' } } },
      { type: 'Resource', resource: { name: 'cpu', target: { type: 'Utilization', averageUtilization: 60 } } },
      { type: 'Pods', pods: { metric: { name: 'rps' }, target: { type: 'AverageValue', averageValue: '10' } } },
      { type: 'External', external: { metric: { name: 'queue', selector: { matchLabels: { q: 'jobs' } } }, target: { type: 'Value', value: '30' } } },
    ],
    behavior: { scaleDown: { stabilizationWindowSeconds: 300, selectPolicy: 'Max', policies: [{ type: 'Percent', value: 100, periodSeconds: 15 }] } },
  },
  status: {
    currentReplicas: 2,
    desiredReplicas: 2,
    currentMetrics: [{ type: 'Resource', resource: { name: 'cpu', current: { averageUtilization: 42, averageValue: '120m' } } }],
    conditions: [{ type: 'AbleToScale', status: 'True', lastTransitionTime: '2026-01-01T00:00:00Z', reason: 'ReadyForNewScale', message: 'ok' }],
  },
};

test('v2 read as v1: CPU in the v1 fields, everything else in the autoscaling.alpha.kubernetes.io annotations', () => {
  const v1 = hpaDescriptor.fromStorage(structuredClone(v2), 'v1');
  const spec = v1.spec as Record<string, unknown>;
  assert.equal(spec.targetCPUUtilizationPercentage, 60);
  assert.equal(spec.metrics, undefined);
  const a = v1.metadata!.annotations as Record<string, string>;
  assert.equal(a.keep, 'me');
  assert.equal(
    a['autoscaling.alpha.kubernetes.io/metrics'],
    '[{"type":"Resource","resource":{"name":"memory","targetAverageValue":"500Mi"}},{"type":"Pods","pods":{"metricName":"rps","targetAverageValue":"10"}},{"type":"External","external":{"metricName":"queue","metricSelector":{"matchLabels":{"q":"jobs"}},"targetValue":"30"}}]',
  );
  assert.equal(a['autoscaling.alpha.kubernetes.io/current-metrics'], '[{"type":"Resource","resource":{"name":"cpu","currentAverageUtilization":42,"currentAverageValue":"120m"}}]');
  assert.equal(a['autoscaling.alpha.kubernetes.io/behavior'], '{"ScaleUp":null,"ScaleDown":{"StabilizationWindowSeconds":300,"SelectPolicy":"Max","Policies":[{"Type":"Percent","Value":100,"PeriodSeconds":15}]}}');
  assert.equal(a['autoscaling.alpha.kubernetes.io/conditions'], '[{"type":"AbleToScale","status":"True","lastTransitionTime":"2026-01-01T00:00:00Z","reason":"ReadyForNewScale","message":"ok"}]');
  assert.equal((v1.status as Record<string, unknown>).currentCPUUtilizationPercentage, 42);
});

test('v1 written back converts to the same v2 object (CPU metric last, as kube orders it), annotations dropped', () => {
  const v1 = hpaDescriptor.fromStorage(structuredClone(v2), 'v1');
  const back = hpaDescriptor.toStorage(v1, 'v1');
  assert.deepEqual(back.metadata!.annotations, { keep: 'me' });
  const metrics = (back.spec as { metrics: { type: string; resource?: { name: string } }[] }).metrics;
  assert.deepEqual(metrics.map((m) => `${m.type}/${m.resource?.name ?? ''}`), ['Resource/memory', 'Pods/', 'External/', 'Resource/cpu']);
  assert.deepEqual(metrics[0], v2.spec && (v2.spec as { metrics: unknown[] }).metrics[0]);
  assert.deepEqual(metrics[3], { type: 'Resource', resource: { name: 'cpu', target: { type: 'Utilization', averageUtilization: 60 } } });
  assert.deepEqual((back.spec as Record<string, unknown>).behavior, (v2.spec as Record<string, unknown>).behavior);
  assert.deepEqual((back.status as Record<string, unknown>).conditions, (v2.status as Record<string, unknown>).conditions);
  assert.deepEqual((back.status as Record<string, unknown>).currentMetrics, [{ type: 'Resource', resource: { name: 'cpu', current: { averageValue: '120m', averageUtilization: 42 } } }]);
});

test('a v1 HPA without a target gets v1\'s implicit 80% CPU', () => {
  const v1: KubeObject = { apiVersion: 'autoscaling/v1', kind: 'HorizontalPodAutoscaler', metadata: { name: 'x' }, spec: { scaleTargetRef: { kind: 'Deployment', name: 'x' }, maxReplicas: 3 } };
  const out = hpaDescriptor.toStorage(v1, 'v1');
  assert.deepEqual((out.spec as Record<string, unknown>).metrics, [{ type: 'Resource', resource: { name: 'cpu', target: { type: 'Utilization', averageUtilization: 80 } } }]);
});
