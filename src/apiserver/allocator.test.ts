import { strict as assert } from 'node:assert';
import { test } from 'node:test';
import { ipToNumber, newNodePortAllocator, newPoolAllocator, newServiceIPAllocator, numberToIp, parseIpRanges } from './allocator.js';

test('IP parsing and ranges', () => {
  assert.equal(numberToIp(ipToNumber('10.96.0.1')!), '10.96.0.1');
  assert.equal(ipToNumber('300.1.1.1'), undefined);
  assert.deepEqual(parseIpRanges(['192.0.2.0/30']).map((r) => [numberToIp(r.first), numberToIp(r.last)]), [['192.0.2.1', '192.0.2.2']]);
  assert.deepEqual(parseIpRanges(['1.1.1.1', '10.0.0.5-10.0.0.6']).map((r) => r.last - r.first), [0, 1]);
  assert.throws(() => parseIpRanges(['nope']), /invalid address "nope"/);
});

test('service IPs: specific, taken, out of range, release', () => {
  const a = newServiceIPAllocator();
  assert.equal(a.allocateSpecific('10.96.0.1', 'default/kubernetes'), 'ok');
  assert.equal(a.allocateSpecific('10.96.0.1', 'ns/other'), 'taken');
  assert.equal(a.allocateSpecific('10.96.0.1', 'default/kubernetes'), 'ok', 'idempotent for the holder');
  assert.equal(a.allocateSpecific('192.168.0.1', 'ns/x'), 'outOfRange');
  const ip = a.allocateNext('ns/y')!;
  assert.ok(ipToNumber(ip)! > ipToNumber('10.96.0.0')! && ipToNumber(ip)! < ipToNumber('10.112.0.0')!);
  assert.equal(a.holder(ip), 'ns/y');
  a.release(ip, 'ns/other');
  assert.equal(a.holder(ip), 'ns/y', 'only the holder releases');
  a.release(ip, 'ns/y');
  assert.equal(a.holder(ip), undefined);
});

test('node ports and pools run out', () => {
  const ports = newNodePortAllocator(30000, 30002);
  const got = [ports.allocateNext('a'), ports.allocateNext('b'), ports.allocateNext('c')];
  assert.deepEqual([...got].sort(), ['30000', '30001', '30002']);
  assert.equal(ports.allocateNext('d'), undefined);
  const pool = newPoolAllocator(['1.1.1.1', '203.0.113.0/30']);
  assert.deepEqual([pool.allocateFirst('a'), pool.allocateFirst('b'), pool.allocateFirst('c'), pool.allocateFirst('d')], ['1.1.1.1', '203.0.113.1', '203.0.113.2', undefined]);
});
