// api bench: throughput of what controllers do on every object they read (validate + normalize) and of label
// selector matching (done per cluster per trigger). No anchor exists for these; numbers are for regressions.
import { matchesLabelSelector, normalize, parseLabelSelector, validate } from './index.js';

const oldTrigger = {
  apiVersion: 'lib.projectsveltos.io/v1alpha1',
  kind: 'EventTrigger',
  metadata: { name: 'service-policy' },
  spec: {
    sourceClusterSelector: 'env=production',
    destinationClusterSelector: 'dep=eng',
    eventSourceName: 'load-balancer-service',
    oneForEvent: true,
    policyRefs: [{ name: 'service-policy', namespace: 'default', kind: 'ConfigMap' }],
  },
};
const eventSource = {
  apiVersion: 'lib.projectsveltos.io/v1beta1',
  kind: 'EventSource',
  metadata: { name: 'loadbalancer-class-handler' },
  spec: {
    collectResources: true,
    resourceSelectors: [{ group: '', version: 'v1', kind: 'Service', evaluate: 'function evaluate() return {matching=true} end' }],
  },
};

function measure(fn: () => unknown, seconds = 0.4): { opsPerSec: number; p50us: number; p99us: number } {
  const batch = 200;
  const samples: number[] = [];
  const end = performance.now() + seconds * 1000;
  let ops = 0;
  const t0 = performance.now();
  while (performance.now() < end) {
    const s = performance.now();
    for (let i = 0; i < batch; i++) fn();
    samples.push(((performance.now() - s) * 1000) / batch);
    ops += batch;
  }
  const total = (performance.now() - t0) / 1000;
  samples.sort((a, b) => a - b);
  const q = (p: number) => Number(samples[Math.min(samples.length - 1, Math.floor(p * samples.length))].toFixed(2));
  return { opsPerSec: Math.round(ops / total), p50us: q(0.5), p99us: q(0.99) };
}

/** bench measures validate/normalize and label-selector throughput. */
export async function bench(): Promise<Record<string, unknown>> {
  const selector = parseLabelSelector('env in (prod,staging),tier!=db,!deprecated');
  if (!selector.ok) throw new Error(selector.error);
  const labels = { env: 'prod', tier: 'web', region: 'eu' };
  return {
    'validate EventSource v1beta1': measure(() => validate(eventSource)),
    'normalize EventSource v1beta1': measure(() => normalize(eventSource)),
    'normalize EventTrigger v1alpha1 (string selectors)': measure(() => normalize(oldTrigger)),
    'parseLabelSelector': measure(() => parseLabelSelector('env in (prod,staging),tier!=db,!deprecated')),
    'matchesLabelSelector': measure(() => matchesLabelSelector(selector.selector, labels)),
  };
}
