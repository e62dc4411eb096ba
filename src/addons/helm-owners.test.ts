// helm-owners.test.ts: who manages a Helm release several profiles list (Sveltos' chart manager rules).
import { strict as assert } from 'node:assert';
import { test } from 'node:test';
import { claimantsOf, conflictMessage, decideManager, type ReleaseClaimant } from './helm-owners.js';
import type { ClusterSummary } from '../api/index.js';

const c = (summary: string, tier: number, managing = false): ReleaseClaimant => ({ summary, profile: `ClusterProfile/${summary}`, tier, managing });

test('the lowest tier manages; a tie keeps the current manager; without one the asker wins among equals', () => {
  assert.equal(decideManager([c('a', 100), c('b', 50)], undefined, 'a')?.summary, 'b');
  assert.equal(decideManager([c('a', 100, true), c('b', 100)], undefined, 'b')?.summary, 'a', 'status says a manages it');
  assert.equal(decideManager([c('a', 100), c('b', 100)], 'a', 'b')?.summary, 'a', 'remembered manager keeps it');
  assert.equal(decideManager([c('a', 100), c('b', 100)], undefined, 'b')?.summary, 'b', 'first to ask');
  assert.equal(decideManager([c('a', 100), c('b', 100)], undefined, 'z')?.summary, 'a', 'a bystander: first by key');
  assert.equal(decideManager([c('a', 100, true), c('b', 10)], 'a', 'a')?.summary, 'b', 'a strictly lower tier takes over');
  assert.equal(decideManager([c('b', 100)], 'gone', 'b')?.summary, 'b', 'the manager went away');
  assert.equal(decideManager([], undefined, 'a'), undefined);
});

test('conflictMessage names the release, the manager with its tier, and what to do', () => {
  const m = conflictMessage('web', 'web', c('ns/x', 10), c('ns/y', 100));
  assert.match(m, /^cannot manage chart web\/web\. ClusterSummary ns\/x \(ClusterProfile\/ns\/x, tier 10\) managing it; this profile's tier is 100/);
});

test('claimantsOf: deleted and DryRun ClusterSummaries do not claim; the default tier is 100', () => {
  const cs = (name: string, spec: Record<string, unknown>, extra: Record<string, unknown> = {}) =>
    ({ metadata: { namespace: 'c', name, ...extra }, spec: { clusterProfileSpec: { helmCharts: [{ releaseName: 'web', releaseNamespace: 'web' }], ...spec } }, status: { helmReleaseSummaries: [{ releaseName: 'web', releaseNamespace: 'web', status: 'Managing' }] } }) as unknown as ClusterSummary;
  const out = claimantsOf([cs('a', {}), cs('b', { tier: 5 }), cs('d', { syncMode: 'DryRun' }), cs('e', {}, { deletionTimestamp: '2026-01-01T00:00:00Z' })], 'web', 'web', (x) => x.metadata.name!);
  assert.deepEqual(out.map((c) => [c.summary, c.tier, c.managing]), [['c/a', 100, true], ['c/b', 5, true]]);
  assert.deepEqual(claimantsOf([cs('a', {})], 'web', 'other', () => ''), []);
});
