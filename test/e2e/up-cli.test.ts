// End to end, the CLI around a running `ripple up`: its metrics endpoint (--metrics-port), the data-directory lock
// against a second `ripple up`, and `ripple get clusters -w` printing changes made with kubectl as they happen.
import { strict as assert } from 'node:assert';
import { createServer } from 'node:net';
import { after, before, test } from 'node:test';
import { kubectlFor, startRipple, startRippleUp, tempDataDir, type RippleUp } from './ripple-up.js';

let data: ReturnType<typeof tempDataDir>;
let up: RippleUp;
let metricsPort: number;

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const s = createServer();
    s.once('error', reject);
    s.listen(0, '127.0.0.1', () => {
      const a = s.address();
      s.close(() => resolve(typeof a === 'object' && a ? a.port : 0));
    });
  });
}

before(async () => {
  data = tempDataDir();
  metricsPort = await freePort();
  up = startRippleUp(data.dir, ['--cluster', 'edge', '--metrics-port', String(metricsPort)]);
  await up.waitFor(/Ripple is running/, { timeoutMs: 90_000 });
});
after(async () => {
  await up?.stop('SIGTERM');
  data.remove();
});

test('ripple up --metrics-port serves the control plane metrics', async () => {
  assert.match(up.stdout(), new RegExp(`metrics +http://127\\.0\\.0\\.1:${metricsPort}/metrics`));
  const res = await fetch(`http://127.0.0.1:${metricsPort}/metrics`);
  assert.equal(res.status, 200);
  assert.match(await res.text(), /^# HELP ripple_/m);
});

test('a second ripple up on the same data directory exits 4 naming the running one', async () => {
  const second = startRippleUp(data.dir, []);
  assert.deepEqual(await second.exited, { code: 4, signal: null });
  assert.match(second.stderr(), /data directory .* is in use by ripple up \(pid \d+, since /);
  assert.equal(second.stdout(), '');
});

test('ripple get clusters -w prints the table, then each change as it happens', { timeout: 60_000 }, async () => {
  const watch = startRipple(data.dir, ['get', 'clusters', '-w', '--kubeconfig', up.kubeconfig, '--context', 'mgmt']);
  try {
    await watch.waitFor(/^NAMESPACE +NAME +READY .*\nedge +edge +true .*\nmgmt +mgmt +true .*\n/m);
    const initial = watch.stdout().length;
    await kubectlFor(up.kubeconfig, data.dir).ok(['--context', 'mgmt', '-n', 'edge', 'label', 'sveltoscluster', 'edge', 'tier=gold']);
    const line = await watch.waitFor(/^edge +edge +true .*tier=gold.*$/m, { from: initial });
    assert.doesNotMatch(line[0], /NAMESPACE/, 'a line, not the table again');
    assert.doesNotMatch(watch.stdout().slice(initial), /^mgmt /m, 'unchanged rows are not printed again:\n' + watch.stdout());
  } finally {
    assert.deepEqual(await watch.stop('SIGTERM'), { code: 0, signal: null }, watch.stderr());
  }
});
