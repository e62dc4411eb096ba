// seeds.ts: the seed documents' YAML examples as the demos apply them — each YAML document of each recovered block,
// with its role (input/output) and its text exactly as the seed shows it (comments kept; recovered only where
// rendering or copy-paste broke it, see src/api/doc-yaml.ts).
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { parseAllDocuments } from 'yaml';
import { recoverSeedBlocks, type SeedDocument, type SeedRole } from '../api/index.js';
import type { KubeObject } from '../kube/index.js';

/** SEEDS_DIR is where the verbatim copies of the seed documents live (testdata/seeds in the repository). */
export const SEEDS_DIR = findAbove(import.meta.dirname, 'testdata/seeds', '../../testdata/seeds');

/**
 * findAbove returns the nearest directory `rel` (a path from the repository root) above `from`: this module lives in
 * src/demos/ in the sources, but in a chunk somewhere under dist/ in the compiled build, so a fixed number of `..`
 * would only be right for one of them. Nothing found: `fallback` relative to `from`.
 */
export function findAbove(from: string, rel: string, fallback: string): string {
  for (let dir = from; ; ) {
    const candidate = join(dir, rel);
    if (existsSync(candidate)) return candidate;
    const up = dirname(dir);
    if (up === dir) return join(from, fallback);
    dir = up;
  }
}

/** SeedDoc is one YAML document of a seed example. */
export interface SeedDoc {
  /** Seed number, `000`…`004`. */
  seed: string;
  /** 1-based block index within the seed (as src/api's SEED_BLOCKS numbers them). */
  block: number;
  /** 0-based document index within the block. */
  doc: number;
  role: SeedRole;
  /** The seed document's file name. */
  document: string;
  object: KubeObject;
  /** The document's YAML text (with its comments). */
  text: string;
}

/** SeedError says a demo refers to a seed example that is not there (a broken catalog or a missing testdata dir). */
export class SeedError extends Error {
  override readonly name = 'SeedError';
}

/** loadSeedDocs reads and recovers every YAML document of every seed in dir. */
export function loadSeedDocs(dir = SEEDS_DIR): SeedDoc[] {
  let files: string[];
  try {
    files = readdirSync(dir).filter((f) => /^\d{3}_.*\.txt$/.test(f)).sort();
  } catch (err) {
    throw new SeedError(`cannot read the seed documents in ${dir} (run ripple from its repository checkout): ${(err as Error).message}`, { cause: err });
  }
  const docs: SeedDocument[] = files.map((name) => ({ name, text: readFileSync(join(dir, name), 'utf8') }));
  const out: SeedDoc[] = [];
  for (const b of recoverSeedBlocks(docs)) {
    if (!b.recovery.ok) continue;
    // Same document numbering as src/api's recoverSeedObjects: empty documents do not count.
    const parsed = parseAllDocuments(b.recovery.text).filter((d) => {
      const v = d.toJS() as unknown;
      return v !== null && v !== undefined;
    });
    parsed.forEach((d, i) => {
      const object = d.toJS() as KubeObject;
      if (!object || typeof object !== 'object' || Array.isArray(object)) return;
      out.push({ seed: b.seed, block: b.block.index, doc: i, role: b.note?.roles[i] ?? 'input', document: b.document, object, text: d.toString().replace(/^---\n/, '') });
    });
  }
  return out;
}

/** SeedRef names seed documents: a block, optionally one document of it. */
export interface SeedRef {
  seed: string;
  block: number;
  /** Only this document of the block (default: every input document of the block). */
  doc?: number;
}

/** seedRefText is `seed 000 block 6` (`… document 2` when one document is meant). */
export function seedRefText(r: SeedRef): string {
  return `seed ${r.seed} block ${r.block}${r.doc === undefined ? '' : ` document ${r.doc + 1}`}`;
}

/** pickSeed returns the documents a SeedRef names (inputs only unless role is given); throws SeedError when none. */
export function pickSeed(all: readonly SeedDoc[], ref: SeedRef, role: SeedRole = 'input'): SeedDoc[] {
  const found = all.filter((d) => d.seed === ref.seed && d.block === ref.block && (ref.doc === undefined ? d.role === role : d.doc === ref.doc));
  if (found.length === 0) throw new SeedError(`${seedRefText(ref)} has no ${ref.doc === undefined ? `${role} ` : ''}document`);
  return found.map((d) => ({ ...d, object: structuredClone(d.object) }));
}
