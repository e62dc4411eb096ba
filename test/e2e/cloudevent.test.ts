// End to end, `ripple up --demo cloudevent` with Debian's nats-server: with --once a CloudEvent from NATS creates the
// add-on and a Delete CloudEvent withdraws it; exploring on the same data directory, the printed
// `ripple publish-cloudevent` command (a separate process) creates another add-on seen through kubectl, an unreachable
// NATS URL written into the agent's Secret with kubectl shows in the EventTrigger's status and as an Event on the
// EventSource while the other demo objects keep working, and fixing the Secret reconnects. Without nats-server the
// demo says what to install.
import { strict as assert } from 'node:assert';
import { spawn } from 'node:child_process';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { natsMissing } from '../support/nats.js';
import { kubectlFor, startRipple, startRippleUp, tempDataDir, until } from './ripple-up.js';

const skip = natsMissing();
const BIN = join(import.meta.dirname, '..', '..', 'bin', 'ripple.js');

function runCli(args: string[]): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    const c = spawn(process.execPath, [BIN, ...args], { stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    c.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
    c.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
    c.once('exit', (code) => resolve({ code, stdout, stderr }));
  });
}

describe('ripple up --demo cloudevent', { skip }, () => {
  let data: ReturnType<typeof tempDataDir>;
  before(() => {
    data = tempDataDir();
  });
  after(() => data.remove());

  test('--once: a CloudEvent from NATS creates the add-on, a Delete CloudEvent withdraws it', { timeout: 180_000 }, async () => {
    const run = startRippleUp(data.dir, ['--demo', 'cloudevent', '--once']);
    assert.deepEqual(await run.exited, { code: 0, signal: null }, run.stdout() + run.stderr());
    const out = run.stdout();
    assert.match(out, /NATS {9}nats:\/\/127\.0\.0\.1:\d+ \(nats-server, JetStream stream ORDERS/);
    assert.match(out, /demo cloudevent: PASSED — 2 step\(s\), 5 outcome\(s\) checked in /);
    assert.match(out, /✓\s+\d+(\.\d+)? m?s\s+ConfigMap default\/order-order-7 deployed to cluster orders, rendered from the CloudEvent/);
    assert.match(out, /✓\s+\d+(\.\d+)? m?s\s+the EventReport’s spec\.cloudEvents cleared once processed/);
    assert.match(out, /✓\s+\d+(\.\d+)? m?s\s+ConfigMap default\/order-order-7 removed from cluster orders/);
    assert.match(out, /\(ripple publish-cloudevent --server nats:\/\/127\.0\.0\.1:\d+ --jetstream --subject orders\.eu --type com\.example\.order\.created --source shop\/eu --ce-subject order-7 --data '\{"replicas":2\}'\)/);
  });

  test('exploring: the printed publish command works from another process; an unreachable NATS is visible and isolated', { timeout: 240_000 }, async () => {
    const up = startRippleUp(data.dir, ['--demo', 'cloudevent', '--no-ui']);
    try {
      const [, url] = await up.waitFor(/NATS {9}(nats:\/\/127\.0\.0\.1:\d+)/, { timeoutMs: 60_000 });
      await up.waitFor(/Ripple is running/, { timeoutMs: 90_000 });
      assert.match(up.stdout(), /your turn/);
      assert.ok(up.stdout().includes(`ripple publish-cloudevent --server ${url} --jetstream --subject orders.eu --type com.example.order.created`), up.stdout());
      const k = kubectlFor(up.kubeconfig, data.dir);

      // The agent is subscribed once the EventSource's report carries no failure.
      await until(
        'agent subscribed',
        () => k.run(['--context', 'mgmt', '-n', 'orders', 'get', 'eventreport', 'sveltos--order-events--orders', '-o', 'json']),
        (r) => r.code === 0 && !(JSON.parse(r.stdout) as { metadata: { annotations?: Record<string, string> } }).metadata.annotations?.['agent.ripple.dev/evaluation-failure'],
        60_000,
      );
      const pub = await runCli(['publish-cloudevent', '--server', url, '--subject', 'orders.eu', '--type', 'com.example.order.created', '--source', 'shop/eu', '--ce-subject', 'order-8', '--data', '{"replicas": 3}', '--binary']);
      assert.equal(pub.code, 0, pub.stderr);
      assert.match(pub.stdout, /published CloudEvent .* \(type com\.example\.order\.created, source shop\/eu, subject order-8\) on orders\.eu/);
      const cm = await until('order-order-8 deployed', () => k.run(['--context', 'orders', '-n', 'default', 'get', 'configmap', 'order-order-8', '-o', 'json']), (r) => r.code === 0, 60_000);
      assert.equal((JSON.parse(cm.stdout) as { data: Record<string, string> }).data.replicas, '3');

      // An unreachable NATS URL in the agent's Secret: the EventTrigger's status and an Event on the EventSource say so.
      const secret = (u: string) =>
        JSON.stringify({ apiVersion: 'v1', kind: 'Secret', metadata: { name: 'sveltos-nats', namespace: 'projectsveltos' }, stringData: { 'sveltos-nats': JSON.stringify({ jetstream: { configuration: { url: u, subjects: ['ORDERS'] } } }) } });
      await k.ok(['--context', 'orders', 'apply', '-f', '-'], secret('nats://127.0.0.1:1'));
      await until(
        'EventTrigger status names the unreachable server',
        () => k.json<{ status?: { clusterInfo?: { status?: string; failureMessage?: string }[] } }>(['--context', 'mgmt', 'get', 'eventtrigger', 'order-addon']),
        (t) => t.status?.clusterInfo?.[0]?.status === 'Failed' && /JetStream nats:\/\/127\.0\.0\.1:1: .*unreachable/.test(t.status.clusterInfo[0].failureMessage ?? ''),
        60_000,
      );
      await until(
        'EvaluationFailed Event on the EventSource',
        () => k.run(['--context', 'mgmt', 'get', 'events', '-A', '--field-selector', 'involvedObject.kind=EventSource,involvedObject.name=order-events', '-o', 'json']),
        (r) => r.code === 0 && /EvaluationFailed/.test(r.stdout) && /unreachable/.test(r.stdout),
        30_000,
      );
      // The deployed add-on stays: an unreachable broker is no evidence that anything went away.
      assert.equal((await k.run(['--context', 'orders', '-n', 'default', 'get', 'configmap', 'order-order-8'])).code, 0);

      await k.ok(['--context', 'orders', 'apply', '-f', '-'], secret(url));
      await until(
        'EventTrigger Provisioned again',
        () => k.json<{ status?: { clusterInfo?: { status?: string }[] } }>(['--context', 'mgmt', 'get', 'eventtrigger', 'order-addon']),
        (t) => t.status?.clusterInfo?.[0]?.status === 'Provisioned',
        60_000,
      );
      const del = await runCli(['publish-cloudevent', '--server', url, '--subject', 'orders.eu', '--type', 'com.example.order.deleted', '--source', 'shop/eu', '--ce-subject', 'order-8']);
      assert.equal(del.code, 0, del.stderr);
      await until('order-order-8 withdrawn', () => k.run(['--context', 'orders', '-n', 'default', 'get', 'configmap', 'order-order-8']), (r) => r.code !== 0 && /NotFound|not found/.test(r.stderr), 60_000);
    } finally {
      assert.deepEqual(await up.stop('SIGTERM'), { code: 0, signal: null });
    }
  });

  test('without nats-server the demo says what to install; publish-cloudevent explains an unreachable server', { timeout: 60_000 }, async () => {
    const other = tempDataDir();
    const saved = process.env.RIPPLE_NATS_BIN;
    process.env.RIPPLE_NATS_BIN = '/nonexistent/nats-server';
    try {
      const run = startRipple(other.dir, ['up', '--data-dir', other.dir, '--demo', 'cloudevent', '--once']);
      const exit = await run.exited;
      assert.equal(exit.code, 4, run.stdout() + run.stderr());
      assert.match(run.stderr(), /demo cloudevent receives CloudEvents over NATS: nats-server is not installed: install it \(Debian\/Ubuntu: apt-get install nats-server/);
    } finally {
      if (saved === undefined) delete process.env.RIPPLE_NATS_BIN;
      else process.env.RIPPLE_NATS_BIN = saved;
      other.remove();
    }
    const r = await runCli(['publish-cloudevent', '--server', 'nats://127.0.0.1:1', '--subject', 'a', '--type', 't', '--source', 's']);
    assert.equal(r.code, 4);
    assert.match(r.stderr, /cannot publish to nats:\/\/127\.0\.0\.1:1: .*check --server/);
    const u = await runCli(['publish-cloudevent', '--subject', 'a']);
    assert.equal(u.code, 2);
    assert.match(u.stderr, /missing --type, --source/);
  });
});
