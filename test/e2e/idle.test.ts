// Idle means idle: with every demo's objects applied and settled on one embedded environment (what a user has after
// trying the demos with `ripple up`), the control plane sends no requests at all to the API server — no polling,
// no reconnect loops — until something changes. Watches stay open (their renewals come every 5–10 minutes).
import { strict as assert } from 'node:assert';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import { serveChartRepo } from '../../src/charts/index.js';
import { DEMOS, demoCharts, loadSeedDocs, runDemo } from '../../src/demos/index.js';
import { MGMT, startEmbedded, startNarrator, type ClusterSpec } from '../../src/manager/index.js';

const QUIET_WINDOW_MS = 3000;

for (const names of [['loadbalancer'], ['helm'], Object.keys(DEMOS)]) {
  test(`a settled ripple up with ${names.length === 1 ? `the ${names[0]} demo` : 'every demo'} applied sends no requests`, { timeout: 180_000 }, () => settledSendsNothing(names));
}

async function settledSendsNothing(names: string[]): Promise<void> {
  const demos = names.map((n) => DEMOS[n]!);
  const dir = mkdtempSync(join(tmpdir(), 'ripple-idle-'));
  const clusters = new Map<string, ClusterSpec>();
  for (const d of demos) for (const c of d.clusters) clusters.set(c.name, { name: c.name, labels: { ...clusters.get(c.name)?.labels, ...c.labels } });
  const loadBalancers = demos.flatMap((d) => d.loadBalancers ?? []);
  const env = await startEmbedded({ dataDir: dir, port: 0, clusters: [...clusters.values()], loadBalancers });
  // ripple up narrates from informers of its own (they once waited for a kind in a reconnect loop).
  const narrator = startNarrator({ informers: env.manager.informers, registry: env.manager.registry, write: () => {} });
  // The chart repository ripple up serves for demos that ship charts (helm).
  const charts = await serveChartRepo({ list: () => demos.flatMap(demoCharts) });
  try {
    const seeds = loadSeedDocs();
    for (const demo of demos) {
      // As `ripple up --demo NAME` leaves it: the setup and the steps a user explores from.
      const report = await runDemo(demo, { client: env.client, mgmt: MGMT }, { once: false, write: () => {}, seeds, timeoutMs: 30_000, vars: { chartRepo: charts.url } });
      assert.ok(report.ok, `demo ${demo.name}: ${report.failure?.what}: ${report.failure?.detail}`);
    }
    // Settled: wait until a whole window passes without a request (bounded: a busy loop never settles).
    let last = (await env.server.requestCounts()).total;
    for (let i = 0; i < 20; i++) {
      await new Promise((r) => setTimeout(r, 1000));
      const now = (await env.server.requestCounts()).total;
      if (now === last) break;
      last = now;
    }
    // The case that once looped: informers waiting for a kind a managed cluster does not serve (the narrator follows
    // every deployed kind, ClusterProfile included, in each cluster).
    const states: string[] = [];
    for (const e of env.manager.registry.all()) for (const i of (await env.manager.registry.informers(e.key)).informers()) states.push(`${e.ref.name}:${i.key.kind}:${i.state}`);
    if (names.includes('loadbalancer')) assert.ok(states.some((s) => s.endsWith(':waiting-for-kind')), `expected an informer waiting for a kind: ${states.join(' ')}`);
    const before = await env.server.requestCounts();
    await new Promise((r) => setTimeout(r, QUIET_WINDOW_MS));
    const after = await env.server.requestCounts();
    const busy = Object.entries(after.byCluster)
      .map(([c, n]) => [c, n - (before.byCluster[c] ?? 0)] as const)
      .filter(([, n]) => n > 0);
    assert.deepEqual(busy, [], `requests while idle, by cluster: ${JSON.stringify(busy)}`);
    assert.equal(after.total - before.total, 0);
  } finally {
    await narrator.stop();
    await env.stop();
    await charts.stop();
    rmSync(dir, { recursive: true, force: true });
  }
}
