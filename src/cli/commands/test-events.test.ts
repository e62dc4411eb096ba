// `ripple test events` reads EventSources through src/api's normalize(): every served shape converts, invalid objects
// are reported with the API's own issue texts, and scripts can use the sprig module.
import { strict as assert } from 'node:assert';
import { mkdtempSync, mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import { runCli } from '../../../test/support/run-cli.js';

const svc = (name: string, labels: Record<string, string>) =>
  `apiVersion: v1\nkind: Service\nmetadata:\n  name: ${name}\n  namespace: default\n  labels:\n${Object.entries(labels)
    .map(([k, v]) => `    ${k}: ${v}\n`)
    .join('')}spec:\n  ports:\n  - port: 80\n`;

test('ripple test events normalises EventSources with src/api and reports invalid ones with its issues', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'ripple-events-api-'));
  try {
    // v1alpha1 flat spec with the docs' labelsFilters spelling: normalize() folds it into resourceSelectors.
    mkdirSync(join(dir, 'flat'));
    writeFileSync(
      join(dir, 'flat', 'eventsource.yaml'),
      'apiVersion: lib.projectsveltos.io/v1alpha1\nkind: EventSource\nmetadata:\n  name: flat\nspec:\n  group: ""\n  version: v1\n  kind: Service\n  labelsFilters:\n  - key: sveltos\n    operation: Equal\n    value: fv\n',
    );
    writeFileSync(join(dir, 'flat', 'matching.yaml'), svc('a', { sveltos: 'fv' }));
    writeFileSync(join(dir, 'flat', 'non-matching.yaml'), svc('b', { sveltos: 'prod' }));
    // A resource selector without kind: the API rejects it, and the row says where.
    mkdirSync(join(dir, 'nokind'));
    writeFileSync(
      join(dir, 'nokind', 'eventsource.yaml'),
      'apiVersion: lib.projectsveltos.io/v1beta1\nkind: EventSource\nmetadata:\n  name: nokind\nspec:\n  resourceSelectors:\n  - group: ""\n    version: v1\n',
    );
    writeFileSync(join(dir, 'nokind', 'matching.yaml'), svc('c', {}));
    // A Lua script using the sprig module (backed by src/funcs).
    mkdirSync(join(dir, 'sprig'));
    writeFileSync(
      join(dir, 'sprig', 'eventsource.yaml'),
      'apiVersion: lib.projectsveltos.io/v1beta1\nkind: EventSource\nmetadata:\n  name: sprig\nspec:\n  resourceSelectors:\n  - group: ""\n    version: v1\n    kind: Service\n    evaluate: |\n      local sprig = require("sprig")\n      function evaluate()\n        local ok, err = sprig.regexMatch("^web-[0-9]+$", obj.metadata.name)\n        return {matching = ok == true, message = err}\n      end\n',
    );
    writeFileSync(join(dir, 'sprig', 'matching.yaml'), svc('web-1', {}));
    writeFileSync(join(dir, 'sprig', 'non-matching.yaml'), svc('api-1', {}));
    const r = await runCli(['test', 'events', dir, '-o', 'json']);
    const out = JSON.parse(r.stdout) as { cases: number; failed: number; rows: { case: string; subject: string; ok: boolean; got: string; message: string }[] };
    assert.equal(out.cases, 3);
    const rows = (c: string) => out.rows.filter((row) => row.case === c);
    assert.deepEqual(rows('flat').map((row) => [row.subject, row.ok]), [['Service default/a', true], ['Service default/b', true]]);
    assert.deepEqual(rows('sprig').map((row) => [row.subject, row.ok]), [['Service default/web-1', true], ['Service default/api-1', true]]);
    const bad = rows('nokind');
    assert.equal(bad.length, 1);
    assert.deepEqual([bad[0].subject, bad[0].ok, bad[0].got], ['eventsource.yaml', false, 'error']);
    assert.equal(bad[0].message, 'invalid EventSource: spec.resourceSelectors[0].kind: Required value');
    assert.equal(out.failed, 1);
    assert.equal(r.code, 1);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
