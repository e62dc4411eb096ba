// The pure core of validateHealths: selection by namespace and labelFilters, Lua `evaluate` over `obj` with Sveltos'
// {healthy, message} result, evaluateCEL rules, and failures (bad Lua, runtime errors, wrong results, unsupported
// checks) as errors rather than verdicts.
import { strict as assert } from 'node:assert';
import { after, before, describe, test } from 'node:test';
import { createLuaRuntime, type LuaRuntime } from '../lua/index.js';
import type { ValidateHealth } from '../api/index.js';
import type { KubeObject } from '../kube/index.js';
import { checksFor, combine, decodeHealthStatus, evaluateCheck, selectObjects } from './health.js';

const deploy = (name: string, ns: string, replicas: number, available: number | undefined, labels: Record<string, string> = {}): KubeObject =>
  ({ apiVersion: 'apps/v1', kind: 'Deployment', metadata: { name, namespace: ns, labels }, spec: { replicas }, status: available === undefined ? {} : { availableReplicas: available } }) as KubeObject;

const LUA = `function evaluate()
  local hs = {healthy = false, message = "available replicas not matching requested replicas"}
  if obj.status and obj.status.availableReplicas ~= nil and obj.status.availableReplicas == obj.spec.replicas then
    hs.healthy = true
  end
  return hs
end`;

const check = (extra: Partial<ValidateHealth>): ValidateHealth => ({ jobCheck: undefined, name: 'deployment-health', featureID: 'Resources', group: 'apps', version: 'v1', kind: 'Deployment', ...extra });

describe('validateHealths core', () => {
  let lua: LuaRuntime;
  before(async () => {
    lua = await createLuaRuntime();
  });
  after(() => lua.close());

  test('checksFor picks the checks of one feature', () => {
    const spec = { validateHealths: [check({}), check({ name: 'h', featureID: 'Helm' })] };
    assert.deepEqual(checksFor(spec, 'Helm').map((c) => c.name), ['h']);
    assert.deepEqual(checksFor(spec, 'Resources').map((c) => c.name), ['deployment-health']);
    assert.deepEqual(checksFor({}, 'Resources'), []);
  });

  test('selection: namespace and labelFilters (Equal, Different, Has, DoesNotHave)', () => {
    const objs = [deploy('b', 'x', 1, 1, { app: 'web', tier: 'fe' }), deploy('a', 'x', 1, 1, { app: 'db' }), deploy('c', 'y', 1, 1, { app: 'web' })];
    assert.deepEqual(selectObjects(check({ namespace: 'x' }), objs).map((o) => o.metadata.name), ['a', 'b']);
    assert.deepEqual(selectObjects(check({ labelFilters: [{ key: 'app', operation: 'Equal', value: 'web' }] }), objs).map((o) => o.metadata.name), ['b', 'c']);
    assert.deepEqual(selectObjects(check({ labelFilters: [{ key: 'app', operation: 'Different', value: 'web' }] }), objs).map((o) => o.metadata.name), ['a']);
    assert.deepEqual(selectObjects(check({ labelFilters: [{ key: 'tier', operation: 'Has' }] }), objs).map((o) => o.metadata.name), ['b']);
    assert.deepEqual(selectObjects(check({ labelFilters: [{ key: 'tier', operation: 'DoesNotHave' }] }), objs).map((o) => o.metadata.name), ['a', 'c']);
  });

  test('Lua: healthy only when every selected object is; the message names the object', () => {
    const c = check({ script: LUA });
    assert.deepEqual(evaluateCheck(c, [deploy('web', 'x', 2, 2)], lua), { state: 'healthy' });
    const v = evaluateCheck(c, [deploy('web', 'x', 2, 2), deploy('zz', 'x', 2, 1)], lua);
    assert.deepEqual(v, { state: 'unhealthy', check: 'deployment-health', message: 'validateHealths deployment-health: Deployment x/zz is not healthy: available replicas not matching requested replicas' });
    assert.deepEqual(evaluateCheck(c, [], lua), { state: 'healthy' }, 'nothing selected passes, as in Sveltos');
  });

  test('CEL: the first true rule makes the object healthy; a rule that does not compile is an error', () => {
    const c = check({ evaluateCEL: [{ name: 'ready', rule: 'has(resource.status.availableReplicas) && resource.status.availableReplicas == resource.spec.replicas' }] });
    assert.equal(evaluateCheck(c, [deploy('w', 'x', 3, 3)], lua).state, 'healthy');
    const v = evaluateCheck(c, [deploy('w', 'x', 3, undefined)], lua);
    assert.equal(v.state, 'unhealthy');
    assert.match((v as { message: string }).message, /Deployment x\/w is not healthy: no evaluateCEL rule is true/);
    const bad = evaluateCheck(check({ evaluateCEL: [{ name: 'broken', rule: 'resource.status.(' }] }), [deploy('w', 'x', 1, 1)], lua);
    assert.equal(bad.state, 'error');
    assert.match((bad as { message: string }).message, /evaluateCEL rule broken/);
  });

  test('bad Lua: a syntax error, a runtime error and a wrong result are errors, not verdicts', () => {
    const syntax = evaluateCheck(check({ script: 'function evaluate( return' }), [deploy('w', 'x', 1, 1)], lua);
    assert.equal(syntax.state, 'error');
    assert.match((syntax as { message: string }).message, /invalid Lua script/);
    const runtime = evaluateCheck(check({ script: 'function evaluate() return obj.nope.deeper end' }), [deploy('w', 'x', 1, 1)], lua);
    assert.equal(runtime.state, 'error');
    assert.match((runtime as { message: string }).message, /Lua script failed on Deployment x\/w/);
    const wrong = evaluateCheck(check({ script: 'function evaluate() return {healthy = "yes"} end' }), [deploy('w', 'x', 1, 1)], lua);
    assert.equal(wrong.state, 'error');
    assert.match((wrong as { message: string }).message, /healthy of type bool/);
  });

  test('unsupported or incomplete checks are refused, not skipped', () => {
    const job = evaluateCheck(check({ jobCheck: { jobRef: { kind: 'ConfigMap', name: 'j', namespace: 'd' } } }), [], lua);
    assert.equal(job.state, 'error');
    assert.match((job as { message: string }).message, /jobCheck is not supported/);
    assert.equal(evaluateCheck(check({ kind: undefined }), [], lua).state, 'error');
  });

  test('decodeHealthStatus and combine', () => {
    assert.deepEqual(decodeHealthStatus({ healthy: true }), { healthy: true, message: '' });
    assert.deepEqual(decodeHealthStatus({ Healthy: true, Message: 'm' }), { healthy: true, message: 'm' });
    assert.ok('error' in decodeHealthStatus([]));
    assert.deepEqual(combine([{ state: 'healthy' }, { state: 'unhealthy', check: 'a', message: 'm' }]).state, 'unhealthy');
    assert.deepEqual(combine([{ state: 'unhealthy', check: 'a', message: 'm' }, { state: 'error', check: 'b', message: 'e', nonRetriable: true }]).state, 'error');
  });
});
