import { strict as assert } from 'node:assert';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { generateBuiltinTypes } from './builtin-types.gen.js';

const file = join(import.meta.dirname, 'builtin-types.generated.ts');

test('builtin-types.generated.ts matches the installed @kubernetes/client-node metadata', () => {
  const want = generateBuiltinTypes();
  if (process.env.UPDATE_GOLDEN === '1') writeFileSync(file, want);
  assert.ok(readFileSync(file, 'utf8') === want, 'stale: run UPDATE_GOLDEN=1 npm test -- builtin-types');
});
