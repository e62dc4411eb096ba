// debounce.test.ts: the opt-in Sveltos-compatible withdrawal debounce (annotation
// eventtrigger.ripple.dev/withdraw-after-empty-reports: N) on the embedded API server, with a manual clock so the
// observations are counted exactly: outputs survive N-1 empty observations and go at the N-th; an invalid value is
// refused in status and as a Warning Event; without the annotation an empty report withdraws at once.
import { strict as assert } from 'node:assert';
import { after, before, describe, test } from 'node:test';
import type { KubeObject } from '../kube/index.js';
import { eventually } from '../../test/support/eventually.js';
import { startHarness, type Harness } from './harness.js';
import { RippleAnnotations } from './naming.js';

const CP = { apiVersion: 'config.projectsveltos.io/v1beta1', kind: 'ClusterProfile' } as const;
const ET = { apiVersion: 'lib.projectsveltos.io/v1beta1', kind: 'EventTrigger' } as const;
const C = { namespace: 'deb', name: 'd1' };
const svc = (name: string): KubeObject => ({ apiVersion: 'v1', kind: 'Service', metadata: { namespace: 'x', name } });

describe('withdrawal debounce (withdraw-after-empty-reports)', () => {
  let h: Harness;
  let now = 1_000_000;
  const profiles = async (t: string) => (await h.mgmt.list<KubeObject>(CP, { labelSelector: `eventtrigger.lib.projectsveltos.io/eventtriggername=${t}` })).items;
  const events = async (name: string, reason: string) =>
    (await h.mgmt.list<KubeObject & { reason?: string; message?: string; involvedObject?: { name?: string } }>({ apiVersion: 'v1', kind: 'Event' })).items.filter(
      (e) => e.involvedObject?.name === name && e.reason === reason,
    );

  before(async () => {
    h = await startHarness({ clusters: [{ ...C, labels: { env: 'deb' } }] });
    await h.startManager({ clock: { now: () => now }, emptyReportIntervalMs: 200 });
  });
  after(async () => h.stop());

  test('N=3: two empty observations keep the outputs, the third withdraws them', async () => {
    await h.apply({
      ...ET,
      metadata: { name: 'debounced', annotations: { [RippleAnnotations.withdrawAfterEmptyReports]: '3' } },
      spec: { sourceClusterSelector: { matchLabels: { env: 'deb' } }, eventSourceName: 'svc', oneForEvent: true },
    } as KubeObject);
    await h.putReport(C, 'svc', [svc('one')]);
    const [p] = await eventually(() => profiles('debounced'), (l) => l.length === 1, { message: 'generated' });
    await h.putReport(C, 'svc', []);
    await eventually(() => events('debounced', 'WithdrawalDebounced'), (l) => l.some((e) => /observation 1 of 3/.test(e.message ?? '')), { message: 'first observation' });
    assert.equal((await profiles('debounced'))[0]?.metadata.uid, p.metadata.uid, 'kept after one empty observation');
    now += 200;
    await eventually(() => events('debounced', 'WithdrawalDebounced'), (l) => l.some((e) => /observation 2 of 3/.test(e.message ?? '')), { message: 'second observation' });
    assert.equal((await profiles('debounced'))[0]?.metadata.uid, p.metadata.uid, 'kept after two empty observations');
    now += 200;
    await eventually(() => profiles('debounced'), (l) => l.length === 0, { message: 'withdrawn at the third' });
  });

  test('a non-empty report resets the count', async () => {
    await h.apply({
      ...ET,
      metadata: { name: 'reset', annotations: { [RippleAnnotations.withdrawAfterEmptyReports]: '2' } },
      spec: { sourceClusterSelector: { matchLabels: { env: 'deb' } }, eventSourceName: 'rs', oneForEvent: true },
    } as KubeObject);
    await h.putReport(C, 'rs', [svc('a')]);
    await eventually(() => profiles('reset'), (l) => l.length === 1, { message: 'generated' });
    await h.putReport(C, 'rs', []);
    await eventually(() => events('reset', 'WithdrawalDebounced'), (l) => l.length === 1, { message: 'first observation' });
    // Back before the second observation, then empty again: counting starts over (observation 1 again).
    await h.putReport(C, 'rs', [svc('a')]);
    await eventually(() => h.mgmt.get<KubeObject & { status?: { phase?: string } }>({ apiVersion: 'lib.projectsveltos.io/v1beta1', kind: 'EventReport', namespace: C.namespace, name: 'sveltos--rs--d1' }), (r) => r.status?.phase === 'Processed', { message: 'non-empty processed' });
    await h.putReport(C, 'rs', []);
    await eventually(() => events('reset', 'WithdrawalDebounced'), (l) => (l[0] as { count?: number }).count === 2, { message: 'observation 1 recorded again' });
    assert.equal((await profiles('reset')).length, 1);
    now += 200;
    await eventually(() => profiles('reset'), (l) => l.length === 0, { message: 'withdrawn at the second' });
  });

  test('an invalid count is refused visibly; without the annotation an empty report withdraws at once', async () => {
    await h.apply({
      ...ET,
      metadata: { name: 'bad-count', annotations: { [RippleAnnotations.withdrawAfterEmptyReports]: 'three' } },
      spec: { sourceClusterSelector: { matchLabels: { env: 'deb' } }, eventSourceName: 'bc', oneForEvent: true },
    } as KubeObject);
    await h.putReport(C, 'bc', [svc('b')]);
    await eventually(
      async () => (await h.mgmt.get<KubeObject & { status?: { clusterInfo?: { status?: string; failureMessage?: string }[] } }>({ ...ET, name: 'bad-count' })).status?.clusterInfo?.[0],
      (ci) => ci?.status === 'Failed' && /"three" is not a count/.test(ci.failureMessage ?? ''),
      { message: 'status names the bad annotation' },
    );
    await eventually(() => events('bad-count', 'InvalidSpec'), (l) => l.length > 0, { message: 'Warning Event' });
    await h.apply({ ...ET, metadata: { name: 'plain' }, spec: { sourceClusterSelector: { matchLabels: { env: 'deb' } }, eventSourceName: 'pl', oneForEvent: true } } as KubeObject);
    await h.putReport(C, 'pl', [svc('c')]);
    await eventually(() => profiles('plain'), (l) => l.length === 1, { message: 'generated' });
    await h.putReport(C, 'pl', []);
    await eventually(() => profiles('plain'), (l) => l.length === 0, { message: 'withdrawn at the first empty report' });
    assert.equal((await events('plain', 'WithdrawalDebounced')).length, 0);
  });
});
