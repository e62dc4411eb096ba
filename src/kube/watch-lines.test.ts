import { test } from 'node:test';
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { LARGE_LINE_BYTES, WatchLineDecoder, specSpan } from './watch-lines.js';

const big = (n: number) => randomBytes(n).toString('base64');

function report(rv: number, phase: string, blob: string, extra: Record<string, unknown> = {}) {
  return {
    apiVersion: 'lib.projectsveltos.io/v1beta1',
    kind: 'EventReport',
    metadata: { name: 'r', namespace: 'ns', resourceVersion: String(rv), annotations: { note: 'a "spec": {"x":1} in a string' } },
    spec: { eventSourceName: 'es', matchingResources: [{ kind: 'Service', name: 'a\\"b' }], resources: blob, ...extra },
    status: { phase },
  };
}

const line = (type: string, object: unknown, pretty = false) => Buffer.from((pretty ? JSON.stringify({ type, object }, null, 1).replace(/\n/g, ' ') : JSON.stringify({ type, object })) + '\n');

// Everything the decoder returns, pushed in chunks of every given size.
function decodeAll(buf: Buffer, chunk: number, d = new WatchLineDecoder()) {
  const out: unknown[] = [];
  for (let i = 0; i < buf.length; i += chunk) d.push(buf.subarray(i, i + chunk), (ev) => (out.push(ev), true));
  return { out, d };
}

test('watch lines: every event parses to what JSON.parse gives, over any chunking, with the unchanged spec reused', () => {
  const blob = big(60_000);
  const events = [
    { type: 'ADDED', object: report(1, 'WaitingForDelivery', blob) },
    { type: 'MODIFIED', object: report(2, 'Processed', blob) },
    { type: 'MODIFIED', object: report(3, 'WaitingForDelivery', blob.slice(0, -4) + 'AAAA') },
    { type: 'MODIFIED', object: report(4, 'Processed', blob.slice(0, -4) + 'AAAA') },
    { type: 'BOOKMARK', object: { kind: 'EventReport', metadata: { resourceVersion: '5' } } },
    { type: 'MODIFIED', object: { kind: 'ConfigMap', metadata: { name: 'small' }, data: { 'é': 'ü€😀' } } },
    // An older spec comes back: still remembered.
    { type: 'MODIFIED', object: report(6, 'Processed', blob) },
  ];
  const bytes = Buffer.concat(events.map((e) => line(e.type, e.object)));
  for (const chunk of [1, 7, 1000, 65536, bytes.length]) {
    const { out, d } = decodeAll(bytes, chunk);
    assert.deepEqual(out, events, `chunk ${chunk}`);
    assert.deepEqual(d.stats, { reused: 3, parsedApart: 2, parsedWhole: 0 }, `chunk ${chunk}`);
    const objs = out.map((e) => (e as { object: { spec?: unknown } }).object);
    assert.equal(objs[1]!.spec, objs[0]!.spec, 'the status-only version shares its spec');
    assert.equal(objs[6]!.spec, objs[0]!.spec);
    assert.notEqual(objs[2]!.spec, objs[0]!.spec);
  }
});

test('watch lines: a spec that only looks the same, or a line shaped otherwise, is parsed whole', () => {
  const blob = big(60_000);
  const d = new WatchLineDecoder();
  const first = report(1, 'P', blob);
  const cases: unknown[] = [
    first,
    // Same spec bytes but a later duplicate "spec" member wins in JSON.parse.
    '{"type":"MODIFIED","object":{"kind":"EventReport","spec":' + JSON.stringify(first.spec) + ',"spec":{"other":true}}}',
    // Same spec bytes inside a different member; the top-level spec differs.
    { kind: 'EventReport', metadata: {}, status: { copy: first.spec }, spec: { n: 1, pad: big(30_000) } },
    // Whitespace around tokens, as a pretty-printing server sends.
    { ...report(2, 'Q', blob), spec: first.spec },
    // The first spec again, compact.
    report(3, 'R', blob),
  ];
  const bytes = Buffer.concat(cases.map((c, i) => (typeof c === 'string' ? Buffer.from(c + '\n') : line('MODIFIED', c, i === 3))));
  const { out } = decodeAll(bytes, 4096, d);
  assert.deepEqual(
    out.map((e) => (e as { object: unknown }).object),
    cases.map((c) => (typeof c === 'string' ? JSON.parse(c).object : c)),
  );
  assert.deepEqual(d.stats, { reused: 1, parsedApart: 3, parsedWhole: 1 }, 'the repeated key is parsed whole; only the compact copy of the first spec is reused');
});

test('watch lines: specSpan finds the top-level spec only', () => {
  const obj = { type: 'MODIFIED', object: { metadata: { labels: { spec: 'x' }, annotations: { a: '"spec":{}' } }, data: { spec: 1 }, spec: { a: [1, { b: '\\' }] }, status: {} } };
  const b = Buffer.from(JSON.stringify(obj));
  const span = specSpan(b);
  assert.ok(span);
  assert.deepEqual(JSON.parse(b.toString('utf8', span[0], span[1])), obj.object.spec);
  assert.equal(specSpan(Buffer.from('{"type":"DELETED","object":{"metadata":{}}}')), undefined);
  assert.equal(specSpan(Buffer.from('{"type":"DELETED","object":{"spec":{"a":"unterminated')), undefined);
  assert.ok(LARGE_LINE_BYTES > 1000);
});

test('watch lines: a line that is not JSON throws with its start', () => {
  const d = new WatchLineDecoder();
  assert.throws(() => d.push(Buffer.from('{"type":"ADDED",\n'), () => true), (e: Error & { lineStart?: string }) => e instanceof SyntaxError && e.lineStart === '{"type":"ADDED",');
  const large = Buffer.from('{"type":"MODIFIED","object":{"spec":{"x":"' + 'a'.repeat(LARGE_LINE_BYTES) + '"},"status":}}\n');
  assert.throws(() => new WatchLineDecoder().push(large, () => true), SyntaxError);
});

test('watch lines: onLine returning false stops the chunk', () => {
  const d = new WatchLineDecoder();
  const seen: string[] = [];
  d.push(Buffer.from('{"type":"A"}\n{"type":"B"}\n'), (ev) => (seen.push(ev.type!), false));
  assert.deepEqual(seen, ['A']);
});
