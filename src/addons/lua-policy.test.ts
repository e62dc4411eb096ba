// projectsveltos.io/lua policies against the embedded API server: the documented example (a Secret of the management
// cluster, read through templateResourceRefs and getResource, replicated by Lua into the managed cluster), the Lua
// helpers (json, strings), and bad Lua or a wrong result failing only that profile (status + Event).
import { strict as assert } from 'node:assert';
import { after, before, describe, test } from 'node:test';
import { eventually } from '../../test/support/eventually.js';
import type { KubeObject } from '../kube/index.js';
import { startAddonTestEnv, type AddonTestEnv } from '../../test/support/addon-env.js';

const CP = { apiVersion: 'config.projectsveltos.io/v1beta1', kind: 'ClusterProfile' } as const;
const CS = { apiVersion: 'config.projectsveltos.io/v1beta1', kind: 'ClusterSummary' } as const;
const CM = { apiVersion: 'v1', kind: 'ConfigMap' } as const;
type Obj = KubeObject & { data?: Record<string, string>; status?: Record<string, unknown>; reason?: string; message?: string };
type Feature = { featureID: string; status?: string; failureMessage?: string; failureReason?: string };
const feature = (o: Obj | undefined) => ((o?.status?.featureSummaries ?? []) as Feature[]).find((f) => f.featureID === 'Resources');

// The example of Sveltos' Lua documentation.
const COPY_SECRET = `function evaluate()
  local secret = getResource(resources, "ExternalSecret")
  local hs = {}
  local result = [[
apiVersion: v1
kind: Secret
metadata:
  name: ]] .. secret.metadata.name .. [[

  namespace: ]] .. secret.metadata.namespace .. [[

data:
]]
  for k, v in pairs(secret.data) do
    result = result .. "  " .. k .. ": " .. v .. "\\n"
  end
  hs.resources = result
  return hs
end`;

describe('Lua policies', () => {
  let env: AddonTestEnv;
  before(async () => {
    env = await startAddonTestEnv({ clusters: [{ name: 'l1', labels: { env: 'lua' } }] });
  });
  after(async () => env?.stop());
  const put = (o: object) => env.mgmt.apply(o as KubeObject, { fieldManager: 'test', force: true });
  const cs = (name: string) => env.mgmt.getIfExists<Obj>({ ...CS, namespace: 'l1', name });

  test('the documented example: a management Secret replicated through templateResourceRefs', async () => {
    await put({ apiVersion: 'v1', kind: 'Secret', metadata: { name: 'imported-secret', namespace: 'default' }, data: { user: Buffer.from('admin').toString('base64'), pass: Buffer.from('s3cret').toString('base64') } });
    await put({ ...CM, metadata: { name: 'lua', namespace: 'default', annotations: { 'projectsveltos.io/lua': 'ok' } }, data: { 'lua.yaml': COPY_SECRET } });
    await put({
      ...CP,
      metadata: { name: 'deploy-resources' },
      spec: {
        clusterSelector: { matchLabels: { env: 'lua' } },
        templateResourceRefs: [{ resource: { apiVersion: 'v1', kind: 'Secret', name: 'imported-secret', namespace: 'default' }, identifier: 'ExternalSecret' }],
        policyRefs: [{ kind: 'ConfigMap', name: 'lua', namespace: 'default' }],
      },
    });
    const s = await eventually(() => env.clusters.l1.getIfExists<Obj>({ apiVersion: 'v1', kind: 'Secret', namespace: 'default', name: 'imported-secret' }), Boolean, { message: 'Secret replicated by Lua' });
    assert.equal(Buffer.from(s!.data!.pass, 'base64').toString(), 's3cret');
    assert.equal(s!.metadata.annotations!['projectsveltos.io/reference-name'], 'lua');
    await eventually(() => cs('deploy-resources-sveltos-l1'), (o) => feature(o)?.status === 'Provisioned');
    // A change of the management Secret re-runs the Lua.
    await put({ apiVersion: 'v1', kind: 'Secret', metadata: { name: 'imported-secret', namespace: 'default' }, data: { user: Buffer.from('admin').toString('base64'), pass: Buffer.from('n3w').toString('base64') } });
    await eventually(() => env.clusters.l1.getIfExists<Obj>({ apiVersion: 'v1', kind: 'Secret', namespace: 'default', name: 'imported-secret' }), (o) => Buffer.from(o?.data?.pass ?? '', 'base64').toString() === 'n3w', { message: 'updated' });
  });

  test('helpers: json and strings modules; several documents in one result', async () => {
    const code = `local json = require("json")
local strings = require("strings")
function evaluate()
  local names = {"alpha", "beta"}
  local out = {}
  for _, n in ipairs(names) do
    table.insert(out, "apiVersion: v1\\nkind: ConfigMap\\nmetadata:\\n  name: " .. strings.ToUpper(n):lower() .. "\\n  namespace: lua\\ndata:\\n  doc: '" .. json.encode({name = n}) .. "'\\n")
  end
  return {resources = table.concat(out, "---\\n")}
end`;
    await put({ ...CM, metadata: { name: 'lua-multi', namespace: 'default', annotations: { 'projectsveltos.io/lua': 'ok' } }, data: { 'code.lua': code } });
    await put({ ...CP, metadata: { name: 'lua-multi' }, spec: { clusterSelector: { matchLabels: { env: 'lua' } }, policyRefs: [{ kind: 'ConfigMap', name: 'lua-multi', namespace: 'default' }] } });
    const b = await eventually(() => env.clusters.l1.getIfExists<Obj>({ ...CM, namespace: 'lua', name: 'beta' }), Boolean, { message: 'second document deployed' });
    assert.equal(b!.data!.doc, '{"name":"beta"}');
    assert.ok(await env.clusters.l1.getIfExists({ ...CM, namespace: 'lua', name: 'alpha' }));
  });

  test('bad Lua and a wrong result fail only their profile, in status and Events', async () => {
    await put({ ...CM, metadata: { name: 'lua-bad', namespace: 'default', annotations: { 'projectsveltos.io/lua': 'ok' } }, data: { 'a.lua': 'function evaluate( return' } });
    await put({ ...CM, metadata: { name: 'lua-wrong', namespace: 'default', annotations: { 'projectsveltos.io/lua': 'ok' } }, data: { 'a.lua': 'function evaluate() return {resources = {1, 2}} end' } });
    await put({ ...CM, metadata: { name: 'lua-err', namespace: 'default', annotations: { 'projectsveltos.io/lua': 'ok' } }, data: { 'a.lua': 'function evaluate() return getResource(resources, "missing").metadata end' } });
    for (const n of ['lua-bad', 'lua-wrong', 'lua-err']) await put({ ...CP, metadata: { name: n }, spec: { clusterSelector: { matchLabels: { env: 'lua' } }, policyRefs: [{ kind: 'ConfigMap', name: n, namespace: 'default' }] } });
    const bad = await eventually(() => cs('lua-bad-sveltos-l1'), (o) => feature(o)?.failureReason === 'LuaError', { message: 'syntax error reported' });
    assert.equal(feature(bad)!.status, 'FailedNonRetriable');
    assert.match(feature(bad)!.failureMessage!, /^ConfigMap default\/lua-bad key a\.lua \(Lua policy\): invalid Lua: /);
    const wrong = await eventually(() => cs('lua-wrong-sveltos-l1'), (o) => feature(o)?.failureReason === 'LuaError', { message: 'wrong result reported' });
    assert.match(feature(wrong)!.failureMessage!, /must be YAML text/);
    const err = await eventually(() => cs('lua-err-sveltos-l1'), (o) => feature(o)?.failureReason === 'LuaError', { message: 'runtime error reported' });
    assert.match(feature(err)!.failureMessage!, /Lua evaluate failed: /);
    await env.recorder.flush();
    const ev = (await env.mgmt.list<Obj & { involvedObject: { name: string } }>({ apiVersion: 'v1', kind: 'Event' }, { namespace: 'l1' })).items.filter((e) => e.involvedObject.name === 'lua-bad-sveltos-l1');
    assert.ok(ev.some((e) => e.reason === 'LuaError'), JSON.stringify(ev.map((e) => e.reason)));
    // The other profiles on this cluster stay Provisioned.
    assert.equal(feature(await cs('lua-multi-sveltos-l1'))?.status, 'Provisioned');
  });
});
