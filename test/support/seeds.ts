// seeds: loads the seed documents copied into testdata/seeds/ and returns their recovered blocks and objects.
// Demos and end-to-end tests use seedObjects() to apply exactly what the product documents show.
import { readFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { recoverSeedBlocks, recoverSeedObjects, type RecoveredBlock, type SeedDocument, type SeedObject } from '../../src/api/index.js';

/** SEEDS_DIR is where the verbatim copies of the seed documents live. */
export const SEEDS_DIR = join(import.meta.dirname, '..', '..', 'testdata', 'seeds');

/** loadSeedDocuments reads every seed document (NNN_*.txt) in name order. */
export function loadSeedDocuments(dir = SEEDS_DIR): SeedDocument[] {
  return readdirSync(dir)
    .filter((f) => /^\d{3}_.*\.txt$/.test(f))
    .sort()
    .map((name) => ({ name, text: readFileSync(join(dir, name), 'utf8') }));
}

/** seedBlocks returns every YAML block of every seed with its recovery outcome. */
export function seedBlocks(dir = SEEDS_DIR): RecoveredBlock[] {
  return recoverSeedBlocks(loadSeedDocuments(dir));
}

/** seedObjects returns `{ seed, index, doc, role, object }` for every recovered object (role: input/output/fragment). */
export function seedObjects(dir = SEEDS_DIR): SeedObject[] {
  return recoverSeedObjects(loadSeedDocuments(dir));
}
