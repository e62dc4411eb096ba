// WorkQueue semantics: dedup, one worker per key, re-queue of keys added while processing, delays keep the earliest
// deadline, per-key exponential backoff, coalescing, shutdown with drain.
import { strict as assert } from 'node:assert';
import { test } from 'node:test';
import { Backoff, ExponentialRateLimiter, WorkQueue } from './index.js';

test('add dedups keys that are waiting; get hands them out in order', async () => {
  const q = new WorkQueue();
  q.add('a');
  q.add('b');
  q.add('a');
  assert.equal(q.length, 2);
  assert.equal(await q.get(), 'a');
  assert.equal(await q.get(), 'b');
  q.done('a');
  q.done('b');
  assert.equal(q.length, 0);
});

test('a key added while processing is held back and re-queued once when done', async () => {
  const q = new WorkQueue();
  q.add('k');
  const k = await q.get();
  q.add('k');
  q.add('k');
  assert.equal(q.length, 0, 'never handed to a second worker while the first holds it');
  q.done(k!);
  assert.equal(q.length, 1);
  assert.equal(await q.get(), 'k');
  q.done('k');
  assert.equal(q.length, 0);
});

test('waiting getters are woken by add; shutDown releases them with undefined', async () => {
  const q = new WorkQueue();
  const p1 = q.get();
  const p2 = q.get();
  q.add('x');
  assert.equal(await p1, 'x');
  q.shutDown();
  assert.equal(await p2, undefined);
  q.add('y');
  assert.equal(q.length, 0, 'adds after shutdown are ignored');
});

test('addAfter keeps the earliest deadline and delivers once', async () => {
  const q = new WorkQueue();
  q.addAfter('d', 5000);
  q.addAfter('d', 20);
  q.addAfter('d', 10_000);
  assert.equal(q.delayedCount, 1);
  assert.equal(await q.get(), 'd');
  q.done('d');
  assert.equal(q.delayedCount, 0);
  q.shutDown();
});

test('per-key exponential backoff: 5 ms doubling to the cap; forget resets', () => {
  const rl = new ExponentialRateLimiter(5, 100);
  assert.deepEqual([1, 2, 3, 4, 5, 6].map(() => rl.when('a')), [5, 10, 20, 40, 80, 100]);
  assert.equal(rl.when('b'), 5, 'keys back off independently');
  assert.equal(rl.retries('a'), 6);
  rl.forget('a');
  assert.equal(rl.retries('a'), 0);
  assert.equal(rl.when('a'), 5);
  const huge = new ExponentialRateLimiter(5, 1000);
  for (let i = 0; i < 2000; i++) huge.when('x');
  assert.equal(huge.when('x'), 1000, 'the cap holds even when 2^n overflows');
});

test('addRateLimited delays by the limiter and counts requeues', async () => {
  const q = new WorkQueue({ rateLimiter: new ExponentialRateLimiter(1, 10) });
  q.addRateLimited('r');
  q.addRateLimited('r');
  assert.equal(q.numRequeues('r'), 2);
  assert.equal(await q.get(), 'r');
  q.done('r');
  q.forget('r');
  assert.equal(q.numRequeues('r'), 0);
  q.shutDown();
});

test('coalescing: a burst becomes one item; a quiet key is ready next turn, a recent one waits for its window', async () => {
  const q = new WorkQueue({ coalesceMs: 200 });
  for (let i = 0; i < 50; i++) q.add('burst');
  assert.equal(q.length, 0, 'adds of this turn merge: nothing is ready before the turn ends');
  assert.equal(q.delayedCount, 1);
  await new Promise((r) => setImmediate(r));
  assert.equal(q.length, 1, 'a key with no recent reconcile pays no window');
  assert.equal(await q.get(), 'burst');
  // Added again while a worker holds it, and again after: throttled to one more item, after the window.
  q.add('burst');
  q.done('burst');
  q.add('burst');
  await new Promise((r) => setImmediate(r));
  assert.equal(q.length, 0, 'handed out less than a window ago: waits');
  assert.equal(q.delayedCount, 1);
  assert.equal(await q.get(), 'burst');
  q.done('burst');
  assert.equal(q.length + q.delayedCount, 0);
  q.add('other');
  await new Promise((r) => setImmediate(r));
  assert.equal(q.length, 1, 'other keys are not throttled by this one');
  q.shutDown();
});

test('coalescing: an add is due next turn even while the key waits for a later delayed add', async () => {
  // The add-on deployer delays a profile's status roll-up (addAfter); the profile's deletion, added meanwhile, was
  // held back until that roll-up's timer fired.
  const q = new WorkQueue({ coalesceMs: 10 });
  q.addAfter('p', 60_000);
  q.add('p');
  await new Promise((r) => setImmediate(r));
  assert.equal(q.length, 1, 'the add wins over the later deadline');
  assert.equal(q.delayedCount, 0, 'the delayed add is not kept beside it');
  assert.equal(await q.get(), 'p');
  q.done('p');
  // A next-turn add already pending is not scheduled twice.
  q.add('r');
  q.add('r');
  assert.equal(q.delayedCount, 1);
  // A failed key's backoff is not cut short by an add (its own status write, say).
  q.addRateLimited('f');
  q.add('f');
  await new Promise((r) => setImmediate(r));
  assert.equal(q.length, 1, "only 'r' is ready");
  assert.equal(await q.get(), 'r');
  assert.equal(q.delayedCount, 1, "'f' still waits for its backoff");
  q.shutDown();
});

test('shutDownWithDrain waits for keys being processed', async () => {
  const q = new WorkQueue();
  q.add('slow');
  const k = await q.get();
  let drained = false;
  const p = q.shutDownWithDrain().then(() => (drained = true));
  await new Promise((r) => setImmediate(r));
  assert.equal(drained, false);
  q.done(k!);
  await p;
  assert.equal(drained, true);
});

test('Backoff grows by factor up to the cap with bounded jitter, and resets', () => {
  const b = new Backoff({ initialMs: 100, maxMs: 1000, factor: 2, jitter: 0 });
  assert.deepEqual([1, 2, 3, 4, 5, 6].map(() => b.next()), [100, 200, 400, 800, 1000, 1000]);
  b.reset();
  assert.equal(b.next(), 100);
  const lo = new Backoff({ initialMs: 100, jitter: 0.5, random: () => 0 });
  const hi = new Backoff({ initialMs: 100, jitter: 0.5, random: () => 0.999999 });
  assert.equal(lo.next(), 50);
  assert.equal(hi.next(), 100);
});
