import { strict as assert } from 'node:assert';
import { execFileSync } from 'node:child_process';
import { test } from 'node:test';
import { DEFAULT_HEAP_GROWING_PERCENT, heapGrowingPercent } from './heap.js';

test('the heap growing percent: default, option, RIPPLE_HEAP_GROWING_PERCENT, and a clear error for a bad value', () => {
  const saved = process.env.RIPPLE_HEAP_GROWING_PERCENT;
  try {
    delete process.env.RIPPLE_HEAP_GROWING_PERCENT;
    assert.equal(heapGrowingPercent(), DEFAULT_HEAP_GROWING_PERCENT);
    assert.equal(heapGrowingPercent(40), 40);
    process.env.RIPPLE_HEAP_GROWING_PERCENT = '0';
    assert.equal(heapGrowingPercent(40), 0);
    process.env.RIPPLE_HEAP_GROWING_PERCENT = 'lots';
    assert.throws(() => heapGrowingPercent(), /RIPPLE_HEAP_GROWING_PERCENT=lots: want an integer percentage 0-1000/);
  } finally {
    if (saved === undefined) delete process.env.RIPPLE_HEAP_GROWING_PERCENT;
    else process.env.RIPPLE_HEAP_GROWING_PERCENT = saved;
  }
});

test('the growing percent set at run time by the main thread (as limitHeapGrowth does) keeps a worker thread\'s garbage-heavy heap closer to its live size', () => {
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
