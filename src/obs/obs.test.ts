import { strict as assert } from 'node:assert';
import { PassThrough } from 'node:stream';
import { test } from 'node:test';
import { Counter } from 'prom-client';
import { createLogger, createMetricsRegistry, EVENT_LOOP_SAMPLE_MS, serveMetrics } from './index.js';

test('createLogger writes JSON lines with level and message', async () => {
  const out = new PassThrough();
  let text = '';
  out.on('data', (c) => (text += c));
  const log = createLogger({ destination: out, name: 't' });
  log.info({ cluster: 'a' }, 'hello');
  await new Promise((r) => setImmediate(r));
  const line = JSON.parse(text.trim().split('\n')[0]);
  assert.equal(line.msg, 'hello');
  assert.equal(line.cluster, 'a');
  assert.equal(line.level, 30);
});

test('createLogger never writes a token, authorization header or kubeconfig', async () => {
  const out = new PassThrough();
  let text = '';
  out.on('data', (c) => (text += c));
  const log = createLogger({ destination: out, name: 't' });
  log.info({ token: 'SECRET1', cluster: { name: 'a', token: 'SECRET2' }, req: { headers: { authorization: 'Bearer SECRET3' } }, kubeconfig: 'SECRET4' }, 'x');
  await new Promise((r) => setImmediate(r));
  assert.doesNotMatch(text, /SECRET/);
  assert.match(text, /"cluster":\{"name":"a","token":"\[REDACTED\]"\}/);
});

test('serveMetrics exposes the registry on /metrics', async () => {
  const registry = createMetricsRegistry();
  const c = new Counter({ name: 'ripple_test_total', help: 'test counter', registers: [registry] });
  c.inc(3);
  const server = await serveMetrics(registry, 0);
  try {
    const addr = server.address();
    assert.ok(addr && typeof addr === 'object');
    const body = await (await fetch(`http://127.0.0.1:${addr.port}/metrics`)).text();
    assert.match(body, /ripple_test_total 3/);
    assert.equal((await fetch(`http://127.0.0.1:${addr.port}/nope`)).status, 404);
  } finally {
    server.close();
  }
});

test('default process metrics sample the event loop once a second, not every 10 ms (an idle process stays asleep)', async () => {
  const perf = (await import('node:perf_hooks')).default as unknown as { monitorEventLoopDelay: (o?: { resolution?: number }) => unknown };
  const orig = perf.monitorEventLoopDelay;
  const resolutions: (number | undefined)[] = [];
  perf.monitorEventLoopDelay = (o) => {
    resolutions.push(o?.resolution);
    return orig.call(perf, o);
  };
  try {
    createMetricsRegistry({ defaults: true });
  } finally {
    perf.monitorEventLoopDelay = orig;
  }
  assert.deepEqual(resolutions, [EVENT_LOOP_SAMPLE_MS]);
  assert.ok(EVENT_LOOP_SAMPLE_MS >= 1000);
});
