// gen-sveltos-crd-paths: distils Sveltos' published CRDs into testdata/api/sveltos-crd-paths.json — for every kind
// Ripple serves: names, scope, status subresource, printer columns and every property path with its type,
// required list, enum, default and format. The CRD tests compare Ripple's generated CRDs against this file, so CI
// needs no copy of the Sveltos manifests (which stay out of the repository).
// Usage: node --import tsx scripts/gen-sveltos-crd-paths.ts [DIR_WITH_SVELTOS_CRDS]   (default /work/shared/reference/sveltos-crds)
import { readFileSync, readdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { parse } from 'yaml';
import { KINDS, schemaPaths, type JsonSchema } from '../src/api/index.js';

const dir = process.argv[2] ?? '/work/shared/reference/sveltos-crds';
const out = join(import.meta.dirname, '..', 'testdata', 'api', 'sveltos-crd-paths.json');

interface CrdDoc {
  metadata: { name: string };
  spec: {
    group: string;
    scope: string;
    names: { kind: string; listKind: string; plural: string; singular: string; shortNames?: string[]; categories?: string[] };
    versions: { name: string; served: boolean; storage: boolean; subresources?: { status?: unknown }; additionalPrinterColumns?: { name: string; jsonPath: string; type: string }[]; schema: { openAPIV3Schema: JsonSchema } }[];
  };
}

const files = readdirSync(dir).filter((f) => f.endsWith('.yaml')).sort();
const kinds: Record<string, unknown> = {};
for (const f of files) {
  const crd = parse(readFileSync(join(dir, f), 'utf8')) as CrdDoc;
  const kind = crd.spec.names.kind;
  if (!KINDS.some((k) => k.kind === kind && k.group === crd.spec.group)) continue; // a kind Ripple does not serve
  const v = crd.spec.versions.find((x) => x.storage);
  if (!v) throw new Error(`${f}: no storage version`);
  const paths: Record<string, unknown> = {};
  for (const [p, info] of schemaPaths(v.schema.openAPIV3Schema)) paths[p] = info;
  kinds[kind] = {
    crd: crd.metadata.name,
    group: crd.spec.group,
    scope: crd.spec.scope,
    names: crd.spec.names,
    version: v.name,
    status: v.subresources?.status !== undefined,
    printerColumns: (v.additionalPrinterColumns ?? []).map((c) => ({ name: c.name, jsonPath: c.jsonPath, type: c.type })),
    paths,
  };
}

// One path per line keeps diffs of this file readable when Sveltos' API changes.
const lines: string[] = ['{', `  "source": "Sveltos CRDs (libsveltos, event-manager, addon-controller; see /work/shared/reference/sveltos-crds/README.md), distilled by scripts/gen-sveltos-crd-paths.ts",`, '  "kinds": {'];
const kindNames = Object.keys(kinds).sort();
kindNames.forEach((k, i) => {
  const { paths, ...rest } = kinds[k] as { paths: Record<string, unknown> };
  const head = JSON.stringify(rest).slice(0, -1);
  lines.push(`    ${JSON.stringify(k)}: ${head}, "paths": {`);
  const entries = Object.entries(paths);
  entries.forEach(([p, info], j) => lines.push(`      ${JSON.stringify(p)}: ${JSON.stringify(info)}${j < entries.length - 1 ? ',' : ''}`));
  lines.push(`    }}${i < kindNames.length - 1 ? ',' : ''}`);
});
lines.push('  }', '}', '');
writeFileSync(out, lines.join('\n'));
console.log(`wrote ${out}: ${kindNames.length} kinds (${kindNames.join(', ')})`);
