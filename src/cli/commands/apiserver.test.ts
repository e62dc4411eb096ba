import { strict as assert } from 'node:assert';
import { test } from 'node:test';
import { runCli } from '../../../test/support/run-cli.js';

test('ripple apiserver --help documents the flags', async () => {
  const r = await runCli(['apiserver', '--help']);
  assert.equal(r.code, 0);
  assert.match(r.stdout, /^Usage: ripple apiserver --data-dir DIR \[--port P\] \[--cluster NAME\]\.\.\. \[--load-balancer NAME\[=POOL\]\]\.\.\./);
  for (const flag of ['--data-dir', '--port', '--cluster', '--load-balancer', '--durability', '--log-level']) assert.ok(r.stdout.includes(flag), flag);
});

test('ripple apiserver rejects bad command lines with exit code 2 and says what to fix', async () => {
  const cases: [string[], RegExp][] = [
    [['apiserver'], /--data-dir is required/],
    [['apiserver', '--data-dir', '/tmp/x', '--port', 'http'], /--port must be a port number, not "http"/],
    [['apiserver', '--data-dir', '/tmp/x', '--cluster', 'Not_Valid'], /invalid cluster name "Not_Valid": a lowercase RFC 1123 label/],
    [['apiserver', '--data-dir', '/tmp/x', '--durability', 'maybe'], /--durability must be "process" or "power"/],
    [['apiserver', '--data-dir', '/tmp/x', '--bogus'], /unknown flag --bogus/],
  ];
  for (const [args, message] of cases) {
    const r = await runCli(args);
    assert.equal(r.code, 2, args.join(' '));
    assert.match(r.stderr, message);
    assert.doesNotMatch(r.stderr, /\n\s+at /, 'no stack trace');
  }
});
