// manager.test.ts: `ripple manager` command-line checks for leader election and the shard controller — help, and
// every inconsistent combination rejected with exit code 2 before anything is contacted.
import { strict as assert } from 'node:assert';
import { test } from 'node:test';
import { runCli } from '../../../test/support/run-cli.js';

test('ripple manager --help documents the Lease per shard, the fencing exit code and the shard controller', async () => {
  const r = await runCli(['manager', '--help']);
  assert.equal(r.code, 0);
  assert.match(r.stdout, /ripple-manager-shard-KEY/);
  assert.match(r.stdout, /--leader-elect-id NAME/);
  assert.match(r.stdout, /1 lost leadership/);
  assert.match(r.stdout, /--shard-controller/);
});

test('ripple manager rejects inconsistent leader-election and shard-controller flags', async () => {
  const cases: [string[], RegExp][] = [
    [['--leader-elect-id', 'x'], /--leader-elect-id needs --leader-elect/],
    [['--leader-elect', '--leader-elect-lease-duration', '5s', '--leader-elect-renew-deadline', '5s'], /renew-deadline must be less than/],
    [['--leader-elect', '--leader-elect-retry-period', '10s'], /retry-period must be less than/],
    [['--leader-elect', '--leader-elect-lease-duration', 'soon'], /positive duration/],
    [['--leader-elect', '--leader-elect-id', 'Not_DNS'], /DNS subdomain/],
    [['--shard-image', 'x'], /--shard-image needs --shard-controller/],
    [['--shard-controller'], /needs --shard-image/],
    [['--shard-controller', '--shard-image', 'x', '--shard-key', 'a'], /takes no --shard-key/],
    [['--shard-controller', '--shard-image', 'x', '--shard-replicas', '-1'], /--shard-replicas/],
    [['--deploy-agent', '--agent-mode', 'collect'], /--deploy-agent needs --agent-image/],
    [['--agent-image', 'x', '--agent-mode', 'collect'], /--agent-image needs --deploy-agent/],
  ];
  for (const [args, re] of cases) {
    const r = await runCli(['manager', ...args]);
    assert.equal(r.code, 2, `${args.join(' ')}: ${r.stderr}`);
    assert.match(r.stderr, re, args.join(' '));
  }
});

test('ripple manager with $KUBECONFIG naming a missing file exits 3 with the file named (no stack trace)', async () => {
  const saved = process.env.KUBECONFIG;
  process.env.KUBECONFIG = '/nonexistent/ripple-kubeconfig';
  try {
    const r = await runCli(['manager']);
    assert.equal(r.code, 3, r.stderr);
    assert.match(r.stderr, /cannot read the kubeconfig \(\$KUBECONFIG=\/nonexistent\/ripple-kubeconfig\).*pass --kubeconfig FILE/);
  } finally {
    if (saved === undefined) delete process.env.KUBECONFIG;
    else process.env.KUBECONFIG = saved;
  }
});
