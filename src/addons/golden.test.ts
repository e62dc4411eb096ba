// golden.test.ts: the deploy-stage template rendering and Sveltos' policy hash, pinned against Go. Each case in
// testdata/addons/*.jsonl is run through the deployer's own code (PolicyRenderer with the addon-controller data and
// function map; policyHash) and must give what /work/shared/oracles/bin/gotemplate-oracle gave in the matching
// *.expected.jsonl. The hash cases ask the oracle for `sha256:{{ toJson . | sha256sum }}`, which is exactly
// libsveltos' ComputePolicyHash (encoding/json of the decoded object, keys sorted, HTML characters escaped).
// UPDATE_GOLDEN=1 regenerates the expected files from the oracle (skipped with a message when it is absent).
import { strict as assert } from 'node:assert';
import { spawnSync } from 'node:child_process';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { test } from 'node:test';
import type { KubeObject } from '../kube/index.js';
import { PolicyRenderer } from './render.js';
import { policyHash } from './stamp.js';

const dir = resolve(import.meta.dirname, '..', '..', 'testdata', 'addons');
const ORACLE = process.env.GOTEMPLATE_ORACLE ?? '/work/shared/oracles/bin/gotemplate-oracle';

interface Case {
  id: string;
  name?: string;
  template: string;
  data: { Cluster?: unknown; MgmtResources?: Record<string, unknown> } & Record<string, unknown>;
}
interface Expected {
  id: string;
  output?: string;
  error?: string;
}

const lines = (f: string) =>
  readFileSync(join(dir, f), 'utf8')
    .split('\n')
    .filter((l) => l.trim() !== '');

for (const f of ['render', 'hash']) {
  if (process.env.UPDATE_GOLDEN === '1') {
    if (!existsSync(ORACLE)) console.log(`UPDATE_GOLDEN=1: oracle ${ORACLE} not found; ${f}.expected.jsonl left as it is`);
    else {
      const r = spawnSync(ORACLE, [], { input: readFileSync(join(dir, `${f}.jsonl`)), encoding: 'utf8', env: {} });
      assert.equal(r.status, 0, `oracle failed on ${f}.jsonl: ${r.stderr}`);
      writeFileSync(join(dir, `${f}.expected.jsonl`), r.stdout);
    }
  }
}

const renderer = new PolicyRenderer({ clock: { now: () => Date.UTC(2024, 5, 1) } });

test('golden addons/render.jsonl: deploy-stage templates render as addon-controller renders them', () => {
  const cases = lines('render.jsonl').map((l) => JSON.parse(l) as Case);
  const expected = lines('render.expected.jsonl').map((l) => JSON.parse(l) as Expected);
  assert.equal(expected.length, cases.length, 'one expected answer per case (UPDATE_GOLDEN=1)');
  const failures: string[] = [];
  cases.forEach((c, i) => {
    const want = expected[i];
    assert.equal(want.id, c.id);
    const data = renderer.dataFor({ cluster: c.data.Cluster, mgmtResources: c.data.MgmtResources ?? {} });
    const got = renderer.render(c.name ?? c.id, c.template, data);
    const gotPair = got.ok ? { output: got.text } : { error: got.message };
    const wantPair = want.output !== undefined ? { output: want.output } : { error: want.error };
    if (JSON.stringify(gotPair) !== JSON.stringify(wantPair)) failures.push(`${c.id}:\n  want ${JSON.stringify(wantPair)}\n  got  ${JSON.stringify(gotPair)}`);
  });
  assert.deepEqual(failures, [], failures.join('\n'));
  assert.ok(cases.length >= 15);
});

test('golden addons/hash.jsonl: policyHash is libsveltos ComputePolicyHash', () => {
  const cases = lines('hash.jsonl').map((l) => JSON.parse(l) as Case);
  const expected = lines('hash.expected.jsonl').map((l) => JSON.parse(l) as Expected);
  assert.equal(expected.length, cases.length);
  cases.forEach((c, i) => assert.equal(policyHash(c.data as unknown as KubeObject), expected[i].output, c.id));
  // The hash annotation itself is left out, so stamping (which adds it) does not change the hash.
  const withHash = { ...(cases[0].data as unknown as KubeObject) };
  withHash.metadata = { ...withHash.metadata, annotations: { ...withHash.metadata.annotations, 'projectsveltos.io/hash': 'sha256:old' } };
  assert.equal(policyHash(withHash), expected[0].output);
});
