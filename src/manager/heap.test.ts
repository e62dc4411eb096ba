import { strict as assert } from 'node:assert';
import { execFileSync } from 'node:child_process';
import { test } from 'node:test';
import { currentGrowingPercent, growingPercentFor, heapGrowth, HEADROOM_MIB, limitHeapGrowth, MAX_GROWING_PERCENT, MIN_GROWING_PERCENT } from './heap.js';

test('the heap growth: adaptive by default, the option, RIPPLE_HEAP_GROWING_PERCENT, and a clear error for a bad value', () => {
  const saved = process.env.RIPPLE_HEAP_GROWING_PERCENT;
  try {
    delete process.env.RIPPLE_HEAP_GROWING_PERCENT;
    assert.equal(heapGrowth(), 'adaptive');
    assert.equal(heapGrowth(40), 40);
    process.env.RIPPLE_HEAP_GROWING_PERCENT = '0';
    assert.equal(heapGrowth(40), 0);
    process.env.RIPPLE_HEAP_GROWING_PERCENT = 'lots';
    assert.throws(() => heapGrowth(), /RIPPLE_HEAP_GROWING_PERCENT=lots: want an integer percentage 0-1000/);
  } finally {
    if (saved === undefined) delete process.env.RIPPLE_HEAP_GROWING_PERCENT;
    else process.env.RIPPLE_HEAP_GROWING_PERCENT = saved;
  }
});

test('adaptive growth allows about HEADROOM_MIB of garbage, between 25% and 100% of the live heap', () => {
  const MiB = 2 ** 20;
  assert.equal(HEADROOM_MIB, 64);
  assert.equal(growingPercentFor(32 * MiB), MAX_GROWING_PERCENT, 'a small heap: capped at 100%');
  assert.equal(growingPercentFor(128 * MiB), 50);
  assert.equal(growingPercentFor(200 * MiB), 32);
  assert.equal(growingPercentFor(256 * MiB), 25);
  assert.equal(growingPercentFor(1024 * MiB), MIN_GROWING_PERCENT, 'a large heap: at least 25%');
  assert.equal(growingPercentFor(0), MAX_GROWING_PERCENT);
});

test('adaptive growth follows the live heap after each full collection; a fixed value stops following it', () => {
  // In a child process: the flag is process-wide.
  const script = `
    import { limitHeapGrowth, currentGrowingPercent } from ${JSON.stringify(new URL('./heap.ts', import.meta.url).href)};
    import { setFlagsFromString } from 'node:v8';
    import { runInNewContext } from 'node:vm';
    setFlagsFromString('--expose-gc');
    const gc = runInNewContext('gc');
    limitHeapGrowth('adaptive');
    const small = currentGrowingPercent();
    const live = [];
    for (let i = 0; i < 400_000; i++) live.push({ i, s: 'x'.repeat(500) + i });
    gc();
    await new Promise((r) => setTimeout(r, 50));
    const large = currentGrowingPercent();
    limitHeapGrowth(40);
    live.length = 0;
    gc();
    await new Promise((r) => setTimeout(r, 50));
    console.log(JSON.stringify({ small, large, fixed: currentGrowingPercent() }));
  `;
  const out = execFileSync(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', script], { encoding: 'utf8' });
  const r = JSON.parse(out.trim().split('\n').pop()!) as { small: number; large: number; fixed: number };
  assert.equal(r.small, MAX_GROWING_PERCENT, 'a fresh heap gets the most room');
  assert.ok(r.large >= MIN_GROWING_PERCENT && r.large < 50, `~200 MB live after a full collection: 25-50%, got ${r.large}%`);
  assert.equal(r.fixed, 40, 'a fixed value is kept after later collections');
  assert.equal(currentGrowingPercent(), 0, 'nothing set in this process');
});

test('the growing percent set at run time by the main thread (as limitHeapGrowth does, re-read by V8 as it sizes the heap) keeps a worker thread\'s garbage-heavy heap closer to its live size', () => {
  // Same workload twice in fresh processes: 100 MB live, garbage churned through it on a worker thread; the largest
  // heap the worker reached with V8's heuristics and with the limit set by the parent thread at run time.
  const script = `
    const { Worker } = require('node:worker_threads');
    const v8 = require('node:v8');
    if (process.argv[1] === 'limit') v8.setFlagsFromString('--heap-growing-percent=25');
    const w = new Worker(\`
      const { parentPort } = require('node:worker_threads');
      const live = [];
      for (let i = 0; i < 100000; i++) live.push('x'.repeat(1000) + i);
      let peak = 0;
      for (let r = 0; r < 200; r++) {
        for (let i = 0; i < 5000; i++) live[(r * 5000 + i) % live.length] = 'z'.repeat(1000) + r + ':' + i;
        peak = Math.max(peak, process.memoryUsage().heapTotal);
      }
      parentPort.postMessage(peak);
    \`, { eval: true });
    w.on('message', (peak) => { console.log(peak); process.exit(0); });
  `;
  const peak = (mode: string) => Number(execFileSync(process.execPath, ['-e', script, mode], { encoding: 'utf8' }).trim());
  const free = peak('free');
  const limited = peak('limit');
  assert.ok(limited < free, `limited ${limited} >= free ${free}`);
});
