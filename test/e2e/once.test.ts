// End to end, `ripple up --demo NAME --once`: the verdict is the exit code — 0 with a report of every step and its
// latency when every expected outcome happens; 1 naming the expectation that failed and the state of the event path
// (here: the source cluster was paused with kubectl between two runs on the same data directory); 2 for a bad
// command line.
import { strict as assert } from 'node:assert';
import { after, before, test } from 'node:test';
import { kubectlFor, startRippleUp, tempDataDir } from './ripple-up.js';

let data: ReturnType<typeof tempDataDir>;
before(() => {
  data = tempDataDir();
});
after(() => data.remove());

test('--once passes, then fails with the cause once the source cluster is paused', { timeout: 120_000 }, async () => {
  const pass = startRippleUp(data.dir, ['--demo', 'loadbalancer', '--once']);
  assert.deepEqual(await pass.exited, { code: 0, signal: null }, pass.stdout() + pass.stderr());
  const report = pass.stdout();
  assert.match(report, /demo loadbalancer: PASSED — 2 step\(s\), 9 outcome\(s\) checked in /);
  assert.match(report, /✓ step 1: create Service test\/svc-a in cluster-a — 5 outcome\(s\), the last after [\d.]+ m?s/);
  assert.match(report, /✓\s+[\d.]+ m?s\s+svc-a in cluster-a carries the upstream address in its status/);

  // Pause cluster-a (spec.paused, as with Sveltos) while Ripple runs on the same data directory, then stop.
  const up = startRippleUp(data.dir, []);
  await up.waitFor(/Ripple is running/);
  await kubectlFor(up.kubeconfig, data.dir).ok(['--context', 'mgmt', '-n', 'cluster-a', 'patch', 'sveltoscluster', 'cluster-a', '--type', 'merge', '-p', '{"spec":{"paused":true}}']);
  assert.deepEqual(await up.stop('SIGTERM'), { code: 0, signal: null });

  const fail = startRippleUp(data.dir, ['--demo', 'loadbalancer', '--once', '--timeout', '2']);
  assert.deepEqual(await fail.exited, { code: 1, signal: null }, fail.stdout() + fail.stderr());
  const out = fail.stdout();
  assert.match(out, /demo loadbalancer: FAILED/);
  assert.match(out, /Expected: loadbalancer-class-handler generated a ClusterProfile for svc-a \(cluster cluster-a\)\nObserved: not within 2 s/);
  assert.match(out, /SveltosCluster cluster-a\/cluster-a: ready=true PAUSED/);
});

test('bad command lines exit 2 and say what to do', async () => {
  const unknown = startRippleUp(data.dir, ['--demo', 'nope']);
  assert.deepEqual(await unknown.exited, { code: 2, signal: null });
  assert.match(unknown.stderr(), /nope/);
  assert.match(unknown.stderr(), /loadbalancer/, 'lists the demos');
  const once = startRippleUp(data.dir, ['--once']);
  assert.deepEqual(await once.exited, { code: 2, signal: null });
  assert.match(once.stderr(), /--once.*--demo/);
});
