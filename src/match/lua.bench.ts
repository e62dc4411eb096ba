// lua bench: EventSource evaluations per second on a realistic 3 KB Service (the anchor fixture, managedFields
// included), through the full matcher path (compileEventSource + matchObject → Lua).
//  - single: one seed script, a new object version per evaluation (resourceVersion bumped, so nothing converted for
//    a previous evaluation can be reused);
//  - tenPerVersion: 10 EventSources (the seed scripts and variants) evaluated on each object version;
//  - cel: the same object through an evaluateCEL rule;
//  - labels: labelFilters ANDed with a selector, no script (the label matcher alone).
// Anchors (gopher-lua as Sveltos runs it, same machine): new LState per evaluation 3,904/s, reused LState 16,246/s.
import { readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { createLuaRuntime } from '../lua/index.js';
import { compileEventSource, type CompiledEventSource, type EventSourceInput, type KubeObject } from './index.js';

const ANCHOR = { goperLuaNewStatePerEval: 3904, gopherLuaReusedState: 16246 };
const root = resolve(import.meta.dirname, '..', '..');

function fixture(): KubeObject {
  for (const p of [join(root, '..', 'shared', 'anchors', 'service.json'), '/work/shared/anchors/service.json', join(root, 'testdata', 'bench', 'service.json')]) {
    try {
      return JSON.parse(readFileSync(p, 'utf8')) as KubeObject;
    } catch {
      // try the next location of the fixture
    }
  }
  throw new Error('bench fixture service.json not found');
}

const SEED_SCRIPTS: Record<string, string> = {
  https: `function evaluate()
  hs = {}
  hs.matching = false
  if obj.spec.ports ~= nil then
    for _,p in pairs(obj.spec.ports) do
      if p.port == 443 or p.port == 8443 then
        hs.matching = true
      end
    end
  end
  return hs
end`,
  labels: `function evaluate()
  hs = {}
  hs.matching = false
  hs.message = ""
  if obj.metadata.labels ~= nil then
    for key, value in pairs(obj.metadata.labels) do
      if key == "sveltos" then
        if value == "fv" then
          hs.matching = true
        end
      end
    end
  end
  return hs
end`,
  lbClass: `function evaluate()
  hs = {}
  hs.matching = false
  if obj.metadata.labels["lb.buttah.cloud/class"] ~= nil then
    hs.matching = true
    return hs
  end
  return hs
end`,
  lbIngress: `function evaluate()
  hs = {}
  hs.matching = false
  hs.message = ""
  if obj.status.loadBalancer.ingress ~= nil then
    hs.matching = true
  end
  return hs
end`,
  port80: `function evaluate()
  hs = {}
  hs.matching = false
  if obj.spec.ports ~= nil then
    for _,p in pairs(obj.spec.ports) do
      if p.port == 80 then
        hs.matching = true
      end
    end
  end
  return hs
end`,
};

function es(name: string, evaluate: string): EventSourceInput {
  return { metadata: { name }, spec: { resourceSelectors: [{ group: '', version: 'v1', kind: 'Service', evaluate }] } };
}

function percentile(sorted: number[], p: number): number {
  return sorted[Math.min(sorted.length - 1, Math.floor(sorted.length * p))];
}

function measure(n: number, step: (i: number) => void): { opsPerSec: number; p50us: number; p99us: number } {
  for (let i = 0; i < Math.min(2000, n); i++) step(i); // warm-up
  const times = new Float64Array(n);
  const t0 = performance.now();
  for (let i = 0; i < n; i++) {
    const s = performance.now();
    step(i);
    times[i] = performance.now() - s;
  }
  const total = performance.now() - t0;
  const sorted = Array.from(times).sort((a, b) => a - b);
  return { opsPerSec: Math.round(n / (total / 1000)), p50us: +(percentile(sorted, 0.5) * 1000).toFixed(1), p99us: +(percentile(sorted, 0.99) * 1000).toFixed(1) };
}

/** bench measures Lua EventSource evaluation throughput; see the file comment. */
export async function bench(): Promise<Record<string, unknown>> {
  const runtime = await createLuaRuntime();
  const svc = fixture();
  const meta = svc.metadata as Record<string, unknown>;
  const single: Record<string, unknown> = {};
  for (const [name, script] of Object.entries(SEED_SCRIPTS)) {
    const c = compileEventSource(es(name, script), runtime);
    let failures = 0;
    const m = measure(30_000, (i) => {
      meta.resourceVersion = String(i);
      if (c.matchObject(svc, 0).diagnostics.length > 0) failures++;
    });
    single[name] = { ...m, failures, vsGopherNewState: +(m.opsPerSec / ANCHOR.goperLuaNewStatePerEval).toFixed(1), vsGopherReused: +(m.opsPerSec / ANCHOR.gopherLuaReusedState).toFixed(1) };
  }
  // Ten EventSources on each object version: the five seed scripts plus variants with other ports/labels.
  const ten: CompiledEventSource[] = [];
  Object.entries(SEED_SCRIPTS).forEach(([name, s]) => {
    ten.push(compileEventSource(es(name, s), runtime));
    ten.push(compileEventSource(es(`${name}-variant`, s.replace('443', '9443').replace('"fv"', '"prod"').replace('lb.buttah.cloud/class', 'app.kubernetes.io/name')), runtime));
  });
  let failures = 0;
  const perVersion = measure(5_000, (i) => {
    meta.resourceVersion = `v${i}`;
    for (const c of ten) if (c.matchObject(svc, 0).diagnostics.length > 0) failures++;
  });
  const tenPerVersion = {
    eventSources: ten.length,
    objectVersionsPerSec: perVersion.opsPerSec,
    evaluationsPerSec: perVersion.opsPerSec * ten.length,
    p50usPerVersion: perVersion.p50us,
    p99usPerVersion: perVersion.p99us,
    failures,
    vsGopherNewState: +((perVersion.opsPerSec * ten.length) / ANCHOR.goperLuaNewStatePerEval).toFixed(1),
    vsGopherReused: +((perVersion.opsPerSec * ten.length) / ANCHOR.gopherLuaReusedState).toFixed(1),
  };
  const cel = compileEventSource(
    { metadata: { name: 'cel' }, spec: { resourceSelectors: [{ group: '', version: 'v1', kind: 'Service', evaluateCEL: [{ name: 'https', rule: 'resource.spec.ports.exists(p, p.port == 443 || p.port == 8443)' }] }] } },
    runtime,
  );
  const celFresh = measure(30_000, () => {
    const obj = { ...svc, metadata: { ...meta } }; // a new object identity per version: the CEL conversion cache cannot help
    cel.matchObject(obj, 0);
  });
  // Label conditions only (labelFilters ANDed with a selector, no script): the cost of the label matcher itself.
  const labelled = { ...svc, metadata: { ...meta, labels: { ...((meta.labels as Record<string, string>) ?? {}), sveltos: 'fv', env: 'prod', tier: 'web' } } };
  const labelsOnly = compileEventSource(
    {
      metadata: { name: 'labels' },
      spec: {
        resourceSelectors: [
          {
            group: '',
            version: 'v1',
            kind: 'Service',
            labelFilters: [
              { key: 'sveltos', operation: 'Equal', value: 'fv' },
              { key: 'deprecated', operation: 'DoesNotHave' },
            ],
            selector: { matchLabels: { env: 'prod' }, matchExpressions: [{ key: 'tier', operator: 'In', values: ['web', 'api'] }] },
          },
        ],
      },
    },
    runtime,
  );
  let labelMisses = 0;
  const labelSelection = measure(200_000, () => {
    if (!labelsOnly.matchObject(labelled, 0).matched) labelMisses++;
  });
  const stats = runtime.stats();
  runtime.close();
  return {
    fixtureBytes: JSON.stringify(svc).length,
    target: 40_000,
    anchors: ANCHOR,
    singleScriptNewVersionEachEval: single,
    tenEventSourcesPerObjectVersion: tenPerVersion,
    celRuleNewObjectEachEval: celFresh,
    labelFiltersAndSelectorOnly: { ...labelSelection, misses: labelMisses },
    luaHeapBytesAfter: stats.memoryUsed,
  };
}
