import { strict as assert } from 'node:assert';
import { test } from 'node:test';
import { builtinSchema } from './builtin.js';
import { builtinDecodeError } from './go-decode.js';

const dep = builtinSchema('apps', 'v1', 'Deployment')!;
const secret = builtinSchema('', 'v1', 'Secret')!;
const svc = builtinSchema('', 'v1', 'Service')!;
const pod = builtinSchema('', 'v1', 'Pod')!;

test('builtinDecodeError: Go decoder messages with struct, field path and Go type', () => {
  assert.equal(builtinDecodeError(dep, { spec: { replicas: 'two' } }), 'json: cannot unmarshal string into Go struct field DeploymentSpec.spec.replicas of type int32');
  assert.equal(builtinDecodeError(dep, { spec: { replicas: 1.5 } }), 'json: cannot unmarshal number 1.5 into Go struct field DeploymentSpec.spec.replicas of type int32');
  assert.equal(
    builtinDecodeError(dep, { spec: { template: { spec: { containers: { name: 'a' } } } } }),
    'json: cannot unmarshal object into Go struct field PodSpec.spec.template.spec.containers of type []v1.Container',
  );
  assert.equal(
    builtinDecodeError(dep, { spec: { template: { spec: { containers: [{ name: 'a', image: 7 }] } } } }),
    'json: cannot unmarshal number into Go struct field Container.spec.template.spec.containers.image of type string',
  );
  assert.equal(builtinDecodeError(dep, { metadata: { labels: { a: 1 } } }), 'json: cannot unmarshal number into Go struct field ObjectMeta.metadata.labels of type string');
  assert.equal(builtinDecodeError(dep, { spec: 'x' }), 'json: cannot unmarshal string into Go struct field Deployment.spec of type v1.DeploymentSpec');
  assert.equal(builtinDecodeError(dep, { spec: { replicas: 2, paused: 'no' } }), 'json: cannot unmarshal string into Go struct field DeploymentSpec.spec.paused of type bool');
  assert.equal(builtinDecodeError(dep, { spec: { replicas: 2, template: { spec: { containers: [{ name: 'a', image: 'b' }] } } }, status: {} }), undefined);
});

test('builtinDecodeError: int-or-string, quantities, base64', () => {
  assert.equal(builtinDecodeError(svc, { spec: { ports: [{ port: 80, targetPort: true }] } }), 'json: cannot unmarshal bool into Go value of type int32');
  assert.equal(builtinDecodeError(svc, { spec: { ports: [{ port: 80, targetPort: 'http' }] } }), undefined);
  assert.equal(
    builtinDecodeError(pod, { spec: { containers: [{ name: 'a', resources: { limits: { cpu: 'lots' } } }] } }),
    "quantities must match the regular expression '^([+-]?[0-9.]+)([eEinumkKMGTP]*[-+]?[0-9]*)$'",
  );
  assert.equal(builtinDecodeError(pod, { spec: { containers: [{ name: 'a', resources: { limits: { cpu: '500m', memory: 1024 } } }] } }), undefined);
  assert.equal(builtinDecodeError(secret, { data: { a: 'aGVsbG8=' } }), undefined);
  assert.equal(builtinDecodeError(secret, { data: { a: 'hello!' } }), 'illegal base64 data at input byte 5');
  assert.equal(builtinDecodeError(secret, { data: { a: 'abc' } }), 'illegal base64 data at input byte 0');
  assert.equal(builtinDecodeError(secret, { data: { a: 'abcde' } }), 'illegal base64 data at input byte 4');
  assert.equal(builtinDecodeError(secret, { data: { a: 'ab=c' } }), 'illegal base64 data at input byte 2');
  assert.equal(builtinDecodeError(secret, { data: { a: 'aGVs\nbG8=' } }), undefined);
  assert.equal(builtinDecodeError(secret, { stringData: { a: 'not base64 at all' } }), undefined);
});
