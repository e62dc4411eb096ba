// Robustness: malformed schemas, objects and patches (seeded random JSON) never crash the schema component;
// failures are PatchErrors or field errors.
import { strict as assert } from 'node:assert';
import { test } from 'node:test';
import { validateCRD, compileSchema, applyStrategicMergePatch, applyMergePatch, applyJsonPatch, serverSideApply, trackUpdate, builtinSchema, builtinDecodeError, isPatchError, openAPIV3GroupVersion, openAPIV2 } from './index.js';

test('random malformed input never throws anything but PatchError', () => {
  let seed = 7; const rnd = () => (seed = (seed * 1103515245 + 12345) % 2147483648) / 2147483648;
  const atoms = [null, true, 0, -1, 1.5, '', 'x', 'object', 'array', 'string', 'integer', [], {}, 'map', 'set', 'atomic', 'merge', 'name'];
  const keys = ['type', 'properties', 'items', 'additionalProperties', 'x-kubernetes-list-type', 'x-kubernetes-list-map-keys', 'x-kubernetes-preserve-unknown-fields', 'x-kubernetes-int-or-string', 'x-kubernetes-embedded-resource', 'default', 'enum', 'required', 'anyOf', 'allOf', 'not', 'pattern', 'metadata', 'spec', 'name', 'versions', 'schema', 'openAPIV3Schema', 'group', 'names', 'plural', 'kind', 'scope', 'x-kubernetes-patch-merge-key', 'x-kubernetes-patch-strategy', 'containers', '$patch', '$retainKeys', 'data', 'apiVersion', 'managedFields', 'fieldsV1', 'f:spec', 'k:{"name":"a"}', 'template', 'replicas', 'selector', 'ports', 'image', 'env', '$setElementOrder/containers', '$deleteFromPrimitiveList/finalizers', 'finalizers'];
  function gen(d: number): unknown { const r = rnd(); if (d > 5 || r < 0.3) return atoms[Math.floor(rnd() * atoms.length)]; if (r < 0.5) return Array.from({ length: Math.floor(rnd() * 3) }, () => gen(d + 1)); const o: any = {}; for (let i = 0; i < Math.floor(rnd() * 5); i++) o[keys[Math.floor(rnd() * keys.length)]] = gen(d + 1); return o; }
  const dep = builtinSchema('apps', 'v1', 'Deployment')!;
  let crashes = 0;
  const obj = (x: any) => (x && typeof x === 'object' && !Array.isArray(x) ? x : {});
  for (let i = 0; i < 1000; i++) {
    const a = gen(0) as any, b = gen(0) as any;
    const tryIt = (name: string, f: () => unknown) => { try { f(); } catch (e) { if (!isPatchError(e)) { crashes++; if (crashes === 1) assert.fail(`${name}: ${String(e)} for ${JSON.stringify(a)} / ${JSON.stringify(b)}`); } } };
    tryIt('validateCRD', () => validateCRD(a, rnd() < 0.3 ? b : undefined));
    tryIt('compile', () => { const c = compileSchema(obj(a)); const o = obj(b); c.validate(o, rnd() < 0.5 ? obj(gen(0)) : undefined); c.applyDefaults(o); c.prune(o); c.unknownFields(o); });
    tryIt('smp', () => applyStrategicMergePatch(obj(a), b, dep));
    tryIt('smp-crd', () => applyStrategicMergePatch(obj(b), a, obj(gen(0))));
    tryIt('merge', () => applyMergePatch(obj(a), b));
    tryIt('json', () => applyJsonPatch(obj(a), b));
    tryIt('ssa', () => serverSideApply(rnd() < 0.5 ? undefined : { apiVersion: 'apps/v1', ...obj(a) }, { apiVersion: 'apps/v1', ...obj(b) }, { manager: 'm', force: rnd() < 0.5, schema: rnd() < 0.5 ? dep : obj(gen(0)), apiVersion: 'apps/v1', now: '2024-01-01T00:00:00Z' }));
    tryIt('track', () => trackUpdate(rnd() < 0.5 ? undefined : obj(a), obj(b), { manager: 'm', schema: rnd() < 0.5 ? dep : obj(gen(0)), apiVersion: 'apps/v1', now: '2024-01-01T00:00:00Z' }));
    tryIt('decode', () => builtinDecodeError(dep, b));
    tryIt('openapi', () => { const rs = [{ group: 'x.io', version: 'v1', kind: 'K', plural: 'ks', namespaced: true, verbs: ['get', 'patch'], subresources: ['status'], schema: obj(a) }]; JSON.stringify(openAPIV3GroupVersion(rs as any, 'x.io/v1')); JSON.stringify(openAPIV2(rs as any)); });
  }
  assert.equal(crashes, 0);
});
