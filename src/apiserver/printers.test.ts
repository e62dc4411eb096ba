import { strict as assert } from 'node:assert';
import { test } from 'node:test';
import { humanDuration } from './printers.js';

test('humanDuration follows duration.HumanDuration', () => {
  const s = 1000;
  const cases: [number, string][] = [
    [-3 * s, '<invalid>'],
    [-1 * s, '0s'],
    [0, '0s'],
    [119 * s, '119s'],
    [120 * s, '2m'],
    [125 * s, '2m5s'],
    [10 * 60 * s, '10m'],
    [3 * 3600 * s, '3h'],
    [3 * 3600 * s + 60 * s, '3h1m'],
    [10 * 3600 * s, '10h'],
    [49 * 3600 * s, '2d1h'],
    [30 * 86400 * s, '30d'],
    [(2 * 365 + 3) * 86400 * s, '2y3d'],
    [9 * 365 * 86400 * s, '9y'],
  ];
  for (const [ms, want] of cases) assert.equal(humanDuration(ms), want, `${ms} ms`);
});
