import { strict as assert } from 'node:assert';
import { test } from 'node:test';
import { decodeProtobufObject, ProtobufError } from './decode.js';

// A minimal protobuf writer for the test inputs.
const varint = (n: number | bigint): number[] => {
  let v = BigInt.asUintN(64, BigInt(n));
  const out: number[] = [];
  do {
    let b = Number(v & 0x7fn);
    v >>= 7n;
    if (v > 0n) b |= 0x80;
    out.push(b);
  } while (v > 0n);
  return out;
};
const field = (num: number, wire: number) => varint((num << 3) | wire);
const bytes = (num: number, b: Buffer | number[]) => [...field(num, 2), ...varint(b.length), ...b];
const str = (num: number, s: string) => bytes(num, Buffer.from(s));
const int = (num: number, n: number) => [...field(num, 0), ...varint(n)];
const entry = (num: number, k: string, v: number[]) => bytes(num, [...str(1, k), ...v]);

function envelope(apiVersion: string, kind: string, raw: number[]): Buffer {
  const unknown = [...bytes(1, [...str(1, apiVersion), ...str(2, kind)]), ...bytes(2, raw)];
  return Buffer.from([0x6b, 0x38, 0x73, 0x00, ...unknown]);
}

test('a ConfigMap as kubectl create configmap sends it', () => {
  // metadata{name, namespace, creationTimestamp (zero)}, data{a: 1}, binaryData{b: bytes}
  const meta = [...str(1, 'gen'), ...str(2, ''), ...str(3, 'ns'), ...bytes(8, [])];
  const raw = [...bytes(1, meta), ...entry(2, 'a', str(2, '1')), ...entry(3, 'b', bytes(2, [1, 2, 3]))];
  assert.deepEqual(decodeProtobufObject(envelope('v1', 'ConfigMap', raw)), {
    apiVersion: 'v1',
    kind: 'ConfigMap',
    metadata: { name: 'gen', namespace: 'ns', creationTimestamp: null },
    data: { a: '1' },
    binaryData: { b: 'AQID' },
  });
});

test('Deployment: pointers keep zero, omitempty scalars drop, IntOrString and inline fields', () => {
  const container = [...str(1, 'app'), ...str(2, 'nginx'), ...bytes(6, [...int(3, 80), ...str(4, 'TCP')])];
  const podSpec = [...bytes(2, container), ...str(3, 'Always')];
  const template = [...bytes(1, []), ...bytes(2, podSpec)];
  const strategy = [...str(1, 'RollingUpdate'), ...bytes(2, [...bytes(1, [...int(1, 1), ...str(3, '25%')]), ...bytes(2, [...int(1, 0), ...int(2, 2)])])];
  const spec = [...int(1, 0), ...bytes(3, template), ...bytes(4, strategy), ...int(5, 0)];
  const d = decodeProtobufObject(envelope('apps/v1', 'Deployment', [...bytes(1, str(1, 'web')), ...bytes(2, spec)])) as { spec: Record<string, unknown> };
  assert.equal(d.spec.replicas, 0, 'replicas is a pointer: an explicit 0 stays');
  assert.equal('minReadySeconds' in d.spec, false, 'omitempty zero is dropped');
  assert.deepEqual(d.spec.strategy, { type: 'RollingUpdate', rollingUpdate: { maxUnavailable: '25%', maxSurge: 2 } });
  assert.deepEqual((d.spec.template as { spec: unknown }).spec, { containers: [{ name: 'app', image: 'nginx', ports: [{ containerPort: 80, protocol: 'TCP' }] }], restartPolicy: 'Always' });
});

test('times and negative numbers', () => {
  const meta = [...str(1, 'x'), ...bytes(9, [...int(1, 1700000000)]), ...int(10, -1)];
  const o = decodeProtobufObject(envelope('v1', 'Namespace', bytes(1, meta))) as { metadata: Record<string, unknown> };
  assert.equal(o.metadata.deletionTimestamp, '2023-11-14T22:13:20Z');
  assert.equal(o.metadata.deletionGracePeriodSeconds, -1);
});

test('not an envelope, or an unknown kind', () => {
  assert.throws(() => decodeProtobufObject(Buffer.from('{}')), ProtobufError);
  assert.throws(() => decodeProtobufObject(envelope('resource.k8s.io/v1beta1', 'ResourceClaim', [])), /no kind "ResourceClaim" is registered for version "resource\.k8s\.io\/v1beta1"/);
});
