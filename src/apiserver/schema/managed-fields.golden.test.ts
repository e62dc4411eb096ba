// Golden baselines of managedFields through multi-step scenarios (testdata/apiserver/schema/managed-fields):
// each step's outcome (object, conflicts) is rendered to <case>.expected.yaml. Regenerate with UPDATE_GOLDEN=1
// after checking the change against kube's behaviour.
import { strict as assert } from 'node:assert';
import { readFileSync, readdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { parse, stringify } from 'yaml';
import { builtinSchema } from './builtin.js';
import { applyMergePatch } from './merge-patch.js';
import { serverSideApply, trackUpdate } from './managed-fields.js';

const dir = join(import.meta.dirname, '..', '..', '..', 'testdata', 'apiserver', 'schema', 'managed-fields');

interface Step {
  op: 'apply' | 'update' | 'create';
  manager: string;
  now: string;
  force?: boolean;
  object?: Record<string, unknown>;
  patch?: Record<string, unknown>;
}

function run(spec: { group: string; version: string; kind: string; steps: Step[] }): unknown[] {
  const schema = builtinSchema(spec.group, spec.version, spec.kind)!;
  const apiVersion = spec.group ? `${spec.group}/${spec.version}` : spec.version;
  let live: Record<string, any> | undefined;
  const out: unknown[] = [];
  for (const step of spec.steps) {
    if (step.op === 'apply') {
      const r = serverSideApply(live, step.object!, { manager: step.manager, force: step.force ?? false, schema, apiVersion, now: step.now });
      if (!r.ok) {
        out.push({ step: `${step.op} by ${step.manager}`, conflict: r.message });
        continue;
      }
      live = r.object as Record<string, any>;
    } else {
      const next = step.op === 'create' ? step.object! : (applyMergePatch(live!, step.patch) as Record<string, unknown>);
      live = trackUpdate(live, next, { manager: step.manager, schema, apiVersion, now: step.now }) as Record<string, any>;
    }
    live = { ...live, metadata: { ...live.metadata, uid: 'uid-1' } };
    out.push({ step: `${step.op} by ${step.manager}`, object: live });
  }
  return out;
}

for (const file of readdirSync(dir).filter((f) => f.endsWith('.yaml') && !f.endsWith('.expected.yaml'))) {
  test(`managedFields golden: ${file}`, () => {
    // Steps may share unchanged values (managedFields entries keep their FieldsV1): render each in full, no aliases.
    const got = stringify(run(parse(readFileSync(join(dir, file), 'utf8'))), { lineWidth: 0, aliasDuplicateObjects: false });
    const expectedFile = join(dir, file.replace(/\.yaml$/, '.expected.yaml'));
    if (process.env.UPDATE_GOLDEN === '1') writeFileSync(expectedFile, got);
    assert.equal(got, readFileSync(expectedFile, 'utf8'));
  });
}
