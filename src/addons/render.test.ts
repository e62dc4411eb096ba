// The deploy-stage renderer runs every template under gotemplate's render budget, timed with the deployer's clock:
// a runaway template fails alone with a budget error (it lands in the feature's failureMessage), never the process.
import { strict as assert } from 'node:assert';
import { test } from 'node:test';
import { PolicyRenderer } from './render.js';

test('a deploy-time template over its time budget fails with a budget error; a normal one renders', () => {
  let t = 0;
  // Every clock read advances a second: the 10 s budget runs out after a few thousand steps.
  const renderer = new PolicyRenderer({ clock: { now: () => (t += 1000) } });
  const data = renderer.dataFor({ cluster: { metadata: { name: 'c1' } }, mgmtResources: {} });
  const slow = renderer.render('slow', '{{ range until 50000 }}.{{ end }}', data);
  assert.equal(slow.ok, false);
  assert.match(slow.ok ? '' : slow.message, /render budget exceeded: running longer than 10000 ms/);
  const fine = renderer.render('fine', 'name: {{ .Cluster.metadata.name }}', data);
  assert.deepEqual(fine, { ok: true, text: 'name: c1' });
});

test('without a clock the step budget still stops a runaway template', () => {
  const renderer = new PolicyRenderer({});
  const data = renderer.dataFor({ cluster: {}, mgmtResources: {} });
  const r = renderer.render('loop', '{{ range until 100000 }}{{ range until 100 }}{{ end }}{{ end }}', data);
  assert.equal(r.ok, false);
  assert.match(r.ok ? '' : r.message, /render budget exceeded: more than 1000000 steps/);
});
