// deploy/grafana/ripple.json: every PromQL expression of the dashboard reads metrics Ripple exports, with labels those
// metrics have. The exported set is taken from the registries the components register (the same functions the
// manager calls) plus Node's default metrics (prefix ripple_), and cross-checked against the metric names in src/.
import { strict as assert } from 'node:assert';
import { readFileSync, readdirSync, statSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { test } from 'node:test';
import { addonMetrics } from '../../src/addons/index.js';
import { agentMetrics } from '../../src/agent/index.js';
import { eventMetrics } from '../../src/events/index.js';
import { Controller } from '../../src/kube/index.js';
import { createMetricsRegistry } from '../../src/obs/index.js';

const root = resolve(import.meta.dirname, '..', '..');
const dashboard = JSON.parse(readFileSync(join(root, 'deploy', 'grafana', 'ripple.json'), 'utf8')) as {
  uid: string;
  panels: { type: string; title: string; targets?: { expr: string }[] }[];
  templating: { list: { name: string; query?: unknown; definition?: string }[] };
};
/** Labels Prometheus adds to every scraped series. */
const TARGET_LABELS = ['job', 'instance'];

/** exported maps every series name Ripple's manager exposes to the label names it may carry. */
async function exported(): Promise<Map<string, Set<string>>> {
  const registry = createMetricsRegistry({ defaults: true });
  addonMetrics(registry);
  agentMetrics(registry);
  eventMetrics(registry);
  new Controller({ name: 'dashboard-test', reconcile: async () => {}, metrics: registry });
  const out = new Map<string, Set<string>>();
  for (const m of registry.getMetricsAsArray() as unknown as { name: string; type: string; labelNames?: string[] }[]) {
    const labels = new Set([...(m.labelNames ?? []), ...TARGET_LABELS]);
    const series = m.type === 'histogram' ? ['_bucket', '_sum', '_count'].map((s) => m.name + s) : m.type === 'summary' ? [m.name, m.name + '_sum', m.name + '_count'] : [m.name];
    for (const s of series) out.set(s, s.endsWith('_bucket') ? new Set([...labels, 'le']) : m.type === 'summary' && s === m.name ? new Set([...labels, 'quantile']) : labels);
  }
  // Default metrics register their own label names on collection; read them from a scrape.
  for (const line of (await registry.metrics()).split('\n')) {
    const m = /^([a-zA-Z_:][a-zA-Z0-9_:]*)\{([^}]*)\}/.exec(line);
    if (!m || !out.has(m[1])) continue;
    for (const l of m[2].matchAll(/([a-zA-Z_][a-zA-Z0-9_]*)="/g)) out.get(m[1])!.add(l[1]);
  }
  return out;
}

function sources(dir: string): string[] {
  return readdirSync(dir).flatMap((f) => {
    const p = join(dir, f);
    return statSync(p).isDirectory() ? sources(p) : p.endsWith('.ts') && !/\.(test|bench)\.ts$/.test(p) ? [p] : [];
  });
}

test('the registries used here hold every metric the sources define (so the check below sees them all)', async () => {
  const names = new Set<string>();
  for (const f of sources(join(root, 'src'))) for (const m of readFileSync(f, 'utf8').matchAll(/\bname: '((?:ripple|projectsveltos)_[a-z0-9_]+)'/g)) names.add(m[1]);
  const have = await exported();
  // ripple_event_to_addon_seconds belongs to the web dashboard's model (only with --ui-port): not on the dashboard.
  const missing = [...names].filter((n) => !have.has(n) && !have.has(n + '_bucket') && n !== 'ripple_event_to_addon_seconds');
  assert.deepEqual(missing, [], 'metrics defined in src/ but not registered by the functions this test calls');
});

test('every PromQL expression of the Grafana dashboard references exported metrics and their labels', async () => {
  const have = await exported();
  const exprs = dashboard.panels.flatMap((p) => (p.targets ?? []).map((t) => ({ panel: p.title, expr: t.expr })));
  exprs.push(...dashboard.templating.list.filter((v) => v.definition).map((v) => ({ panel: `variable ${v.name}`, expr: v.definition! })));
  assert.ok(exprs.length >= 20, `only ${exprs.length} expressions`);
  const used = new Set<string>();
  for (const { panel, expr } of exprs) {
    const metrics = [...expr.matchAll(/\b((?:ripple|projectsveltos)_[a-zA-Z0-9_]+)/g)].map((m) => m[1]);
    assert.ok(metrics.length > 0, `${panel}: ${expr} reads no Ripple metric`);
    for (const m of metrics) {
      assert.ok(have.has(m), `${panel}: ${m} is not exported by Ripple`);
      used.add(m);
    }
    // Labels in selectors, by/without clauses and label_values(): each must exist on every metric of the expression.
    const labels = [
      ...[...expr.matchAll(/\{([^}]*)\}/g)].flatMap((m) => [...m[1].matchAll(/([a-zA-Z_][a-zA-Z0-9_]*)\s*(=~|!~|!=|=)/g)].map((l) => l[1])),
      ...[...expr.matchAll(/\b(?:by|without)\s*\(([^)]*)\)/g)].flatMap((m) => m[1].split(',').map((s) => s.trim()).filter(Boolean)),
      ...[...expr.matchAll(/label_values\([^,]+,\s*([a-zA-Z_]+)\)/g)].map((m) => m[1]),
    ];
    for (const l of labels) for (const m of metrics) assert.ok(have.get(m)!.has(l), `${panel}: ${m} has no label ${l} (${[...have.get(m)!].join(', ')})`);
  }
  // The dashboard covers each area Ripple reports on.
  for (const prefix of ['ripple_addons_', 'ripple_agent_', 'ripple_events_', 'projectsveltos_', 'ripple_reconcile_', 'ripple_workqueue_', 'ripple_process_']) {
    assert.ok([...used].some((m) => m.startsWith(prefix)), `no panel reads ${prefix}*`);
  }
});

test('the dashboard is importable: unique panel ids, a uid, a Prometheus datasource variable', () => {
  const ids = dashboard.panels.map((p) => (p as unknown as { id: number }).id);
  assert.equal(new Set(ids).size, ids.length);
  assert.equal(dashboard.uid, 'ripple-overview');
  assert.ok(dashboard.templating.list.some((v) => v.name === 'datasource'));
});
