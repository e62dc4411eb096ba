// report-normalize.test.ts: normalizeReport gives what normalizeAs gives, version after version, while checking only
// the entries that changed; an invalid entry or field still makes the report invalid.
import { strict as assert } from 'node:assert';
import { test } from 'node:test';
import { normalizeAs } from '../api/index.js';
import { buildManagementReport, encodeEventReportResources, objectReferenceOf } from '../agent/index.js';
import type { KubeObject } from '../kube/index.js';
import { normalizeReport, type ReportEntries } from './report-normalize.js';

const svc = (name: string, port = 80) => ({ apiVersion: 'v1', kind: 'Service', metadata: { namespace: 'a', name }, spec: { ports: [{ port }] } });
function report(services: ReturnType<typeof svc>[], edit?: (r: Record<string, any>) => void): KubeObject {
  const r = buildManagementReport({ clusterNamespace: 'ns', clusterName: 'c', clusterType: 'Sveltos' }, {
    eventSourceName: 'es',
    matchingResources: services.map((s) => objectReferenceOf(s)),
    resources: encodeEventReportResources(services),
  }) as unknown as Record<string, any>;
  r.metadata.uid = 'u1';
  r.metadata.resourceVersion = '7';
  // Read back from the API: fresh objects every time, as a watch delivers them.
  const out = JSON.parse(JSON.stringify(r));
  edit?.(out);
  return out as KubeObject;
}
const full = (raw: KubeObject) => {
  const n = normalizeAs('EventReport', raw);
  return n.ok ? n.object : undefined;
};

test('version after version, normalizeReport equals normalizeAs; unchanged entries keep their normalised objects', () => {
  let last: ReportEntries | undefined;
  const services = Array.from({ length: 20 }, (_, i) => svc(`s${i}`));
  const versions: [string, KubeObject][] = [
    ['first', report(services)],
    ['same', report(services)],
    ['one changed', report(services.map((s, i) => (i === 5 ? svc('s5b') : s)))],
    ['one inserted', report([svc('new'), ...services])],
    ['one removed', report(services.slice(1))],
    ['an unknown field in an entry (pruned)', report(services, (r) => (r.spec.matchingResources[3].bogus = 'x'))],
    ['an optional field set', report(services, (r) => (r.spec.matchingResources[4].uid = 'abc'))],
    ['empty list', report([])],
    ['no list', report([], (r) => delete r.spec.matchingResources)],
    ['back to all', report(services)],
  ];
  for (const [what, raw] of versions) {
    const n = normalizeReport(raw, last);
    assert.ok(n, what);
    assert.deepEqual(n.report, full(raw), what);
    if (what === 'same' && last) for (let i = 0; i < last.normalized.length; i++) assert.equal(n.report.spec.matchingResources![i], last.normalized[i], 'reused');
    last = n.entries ?? last;
  }
});

test('an invalid entry or field makes the report invalid, whatever was read before; the blob is checked where it is decoded', () => {
  const services = Array.from({ length: 5 }, (_, i) => svc(`s${i}`));
  const good = normalizeReport(report(services), undefined)!;
  const badEntry = report(services, (r) => (r.spec.matchingResources[2].name = 5));
  assert.equal(full(badEntry), undefined);
  assert.equal(normalizeReport(badEntry, good.entries), undefined);
  const badSpec = report(services, (r) => (r.spec.clusterName = 5));
  assert.equal(full(badSpec), undefined);
  assert.equal(normalizeReport(badSpec, good.entries), undefined);
  // Not base64: normalizeAs refuses it here already; normalizeReport leaves it to decodeBlob (report.test.ts).
  const badBlob = report(services, (r) => (r.spec.resources = '!!!!'));
  assert.equal(full(badBlob), undefined);
  assert.equal(normalizeReport(badBlob, good.entries)?.report.spec.resources, '!!!!');
});
