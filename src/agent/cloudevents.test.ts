import { strict as assert } from 'node:assert';
import { test } from 'node:test';
import {
  compileCriteria,
  compileRE2,
  decodeCloudEvent,
  firstSubscription,
  matchesCriteria,
  parseNatsSettings,
  subjectMatches,
  subjectProblem,
  type CloudEvent,
} from './cloudevents.js';

const enc = (s: string) => new TextEncoder().encode(s);

test('NATS subject wildcards: * is one token, > one or more trailing tokens, literal tokens compare exactly', () => {
  const cases: [string, string, boolean][] = [
    ['orders.created', 'orders.created', true],
    ['orders.created', 'orders.deleted', false],
    ['orders.*', 'orders.created', true],
    ['orders.*', 'orders', false],
    ['orders.*', 'orders.eu.created', false],
    ['orders.>', 'orders.created', true],
    ['orders.>', 'orders.eu.created', true],
    ['orders.>', 'orders', false],
    ['*.created', 'orders.created', true],
    ['*.*.created', 'orders.created', false],
    ['>', 'anything.at.all', true],
    ['orders.*.created', 'orders.eu.created', true],
    ['orders.*.created', 'orders.eu.deleted', false],
    ['ord*', 'ord*', true],
  ];
  for (const [p, s, want] of cases) assert.equal(subjectMatches(p, s), want, `${p} vs ${s}`);
  assert.equal(firstSubscription(['orders.eu.*', 'orders.>'], 'orders.eu.created'), 0);
  assert.equal(firstSubscription(['orders.eu.*', 'orders.>'], 'orders.us.created'), 1);
  assert.equal(firstSubscription(['orders.eu.*'], 'billing.x'), -1);
});

test('subject syntax: empty tokens, partial wildcards and > not last are refused', () => {
  assert.equal(subjectProblem('a.b.>', true), '');
  assert.equal(subjectProblem('a.*.c', true), '');
  assert.match(subjectProblem('a..b', true), /empty token/);
  assert.match(subjectProblem('a.>.b', true), /last token/);
  assert.match(subjectProblem('a.b*', true), /whole token/);
  assert.match(subjectProblem('a b', true), /whitespace/);
  assert.match(subjectProblem('a.*', false), /not allowed/);
});

test('Secret sveltos-nats: both sections, authorization kinds, bad input named', () => {
  const s = parseNatsSettings(
    JSON.stringify({
      nats: { configuration: { url: 'nats://127.0.0.1:4222', subjects: ['orders.*'], authorization: { user: { user: 'u', password: 'p' } } } },
      jetstream: { configuration: { url: 'nats://127.0.0.1:4222', subjects: ['ORDERS'], authorization: { token: 't' } } },
    }),
  );
  assert.deepEqual(s.nats, { url: 'nats://127.0.0.1:4222', subjects: ['orders.*'], authorization: { user: { user: 'u', password: 'p' } } });
  assert.deepEqual(s.jetstream?.authorization, { token: 't' });
  assert.throws(() => parseNatsSettings('{'), /not valid JSON/);
  assert.throws(() => parseNatsSettings('{}'), /neither "nats" nor "jetstream"/);
  assert.throws(() => parseNatsSettings(JSON.stringify({ nats: { configuration: { subjects: ['a'] } } })), /nats\.configuration\.url/);
  assert.throws(() => parseNatsSettings(JSON.stringify({ nats: { configuration: { url: 'nats://x', subjects: ['a..b'] } } })), /empty token/);
  assert.throws(() => parseNatsSettings(JSON.stringify({ jetstream: { configuration: { url: 'nats://x', subjects: ['a.b'] } } })), /stream name/);
  assert.throws(() => parseNatsSettings(JSON.stringify({ nats: { configuration: { url: 'nats://x', authorization: { user: { user: 'u' } } } } })), /authorization\.user/);
  assert.throws(() => parseNatsSettings(JSON.stringify({ natz: {} })), /unknown field "natz"/);
});

test('structured mode: the JSON envelope, attributes in SDK order, data kept as JSON', () => {
  const r = decodeCloudEvent({
    subject: 'orders.created',
    data: enc(JSON.stringify({ data: { replicas: 2 }, type: 'com.example.order', source: 'shop/eu', id: '1', specversion: '1.0', subject: 'order-7', datacontenttype: 'application/json', tenant: 'a' })),
  });
  assert.ok(r.ok);
  assert.equal(r.mode, 'structured');
  assert.deepEqual(Object.keys(r.event), ['specversion', 'id', 'source', 'type', 'datacontenttype', 'subject', 'tenant', 'data']);
  assert.deepEqual(r.event.data, { replicas: 2 });
});

test('binary mode: ce- headers are the attributes, content-type is datacontenttype, the body is the data', () => {
  const headers = new Map([
    ['ce-specversion', '1.0'],
    ['ce-id', '42'],
    ['ce-source', 'shop/eu'],
    ['ce-type', 'com.example.order'],
    ['ce-subject', 'order-7'],
    ['content-type', 'application/json; charset=utf-8'],
  ]);
  const r = decodeCloudEvent({ subject: 'orders.created', headers, data: enc('{"replicas":3}') });
  assert.ok(r.ok);
  assert.equal(r.mode, 'binary');
  assert.deepEqual(r.event, { specversion: '1.0', id: '42', source: 'shop/eu', type: 'com.example.order', datacontenttype: 'application/json; charset=utf-8', subject: 'order-7', data: { replicas: 3 } });
  const bad = decodeCloudEvent({ subject: 'o', headers, data: enc('not json') });
  assert.ok(!bad.ok && /body is not JSON/.test(bad.reason));
});

test('refused: not a CloudEvent, missing attributes, non-JSON datacontenttype (as sveltos-agent)', () => {
  const no = (data: string, re: RegExp) => {
    const r = decodeCloudEvent({ subject: 's', data: enc(data) });
    assert.ok(!r.ok, data);
    assert.match(r.reason, re);
  };
  no('hello', /not a CloudEvent/);
  no('[1]', /not a JSON object/);
  no(JSON.stringify({ specversion: '1.0', id: '1', type: 't', datacontenttype: 'application/json' }), /required attribute source/);
  no(JSON.stringify({ specversion: '1.0', id: '1', source: 's', type: 't' }), /datacontenttype \(absent\)/);
  no(JSON.stringify({ specversion: '1.0', id: '1', source: 's', type: 't', datacontenttype: 'text/plain' }), /text\/plain/);
  no(JSON.stringify({ specversion: '0.3', id: '1', source: 's', type: 't', datacontenttype: 'application/json' }), /specversion 0.3/);
});

test('RE2 regexes: unanchored, leading flags, named groups; lookaround and backreferences refused like Go', () => {
  assert.ok(compileRE2('created').test('order.created.eu'));
  assert.ok(compileRE2('^order\\.').test('order.x'));
  assert.ok(compileRE2('(?i)ORDER').test('order'));
  assert.ok(compileRE2('(?P<kind>created|deleted)$').test('x.deleted'));
  assert.ok(compileRE2('abc\\z').test('xabc'));
  assert.throws(() => compileRE2('a(?=b)'), /lookaround/);
  assert.throws(() => compileRE2('(a)\\1'), /backreferences/);
  assert.throws(() => compileRE2('a(?i)b'), /only at the start/);
  assert.throws(() => compileRE2('('), /./);
});

test('messagingMatchCriteria: any criteria, all its regexes; empty criteria matches every event; none matches none', () => {
  const ev: CloudEvent = { specversion: '1.0', id: '1', source: 'shop/eu', type: 'com.example.order.created', subject: 'order-7' };
  const c = compileCriteria([
    { subject: '^orders\\.', cloudEventType: 'created$', cloudEventSource: 'eu' },
    { cloudEventSubject: '^invoice-' },
  ]);
  assert.ok(matchesCriteria(c, 'orders.eu', ev));
  assert.ok(!matchesCriteria(c, 'billing.eu', ev), 'subject regex of the first criteria fails, second criteria does not match');
  assert.ok(matchesCriteria(c, 'billing.eu', { ...ev, subject: 'invoice-3' }));
  assert.ok(!matchesCriteria(c, 'orders.eu', { ...ev, type: 'com.example.order.deleted' }));
  assert.ok(!matchesCriteria(c, 'orders.eu', { ...ev, subject: undefined, source: 'shop/us' }));
  assert.ok(matchesCriteria(compileCriteria([{}]), 'any', ev));
  assert.ok(!matchesCriteria(compileCriteria([]), 'any', ev));
  assert.throws(() => compileCriteria([{}, { cloudEventType: '(' }]), /spec\.messagingMatchCriteria\[1\]\.cloudEventType: invalid regular expression/);
});
