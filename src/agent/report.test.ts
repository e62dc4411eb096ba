// report.test.ts: the EventReport content encoding. Go JSON output is pinned against the gotemplate oracle (sprig
// toJson = json.Marshal, the same encoder unstructured.MarshalJSON uses) in testdata/agent/go-json*.jsonl;
// UPDATE_GOLDEN=1 regenerates the expected file from the oracle.
import { strict as assert } from 'node:assert';
import { spawnSync } from 'node:child_process';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { test } from 'node:test';
import { goJSONMarshal } from './go-json.js';
import {
  EVALUATION_FAILURE_ANNOTATION,
  buildManagedReport,
  buildManagementReport,
  contentFromManagedReport,
  sameContent,
  decodeEventReportResources,
  encodeEventReportResources,
  objectReferenceOf,
  splitEventReportResources,
} from './report.js';

const root = resolve(import.meta.dirname, '..', '..');
const dir = join(root, 'testdata', 'agent');
const ORACLE = process.env.GOTEMPLATE_ORACLE ?? '/work/shared/oracles/bin/gotemplate-oracle';

if (process.env.UPDATE_GOLDEN === '1') {
  if (!existsSync(ORACLE)) console.log(`UPDATE_GOLDEN=1: oracle ${ORACLE} not found; go-json.expected.jsonl left as it is`);
  else {
    const r = spawnSync(ORACLE, [], { input: readFileSync(join(dir, 'go-json.jsonl')), encoding: 'utf8', env: {} });
    assert.equal(r.status, 0, r.stderr);
    writeFileSync(join(dir, 'go-json.expected.jsonl'), r.stdout);
  }
}

const lines = (f: string) => readFileSync(join(dir, f), 'utf8').split('\n').filter((l) => l.trim() !== '');

test('Go JSON encoding matches encoding/json (oracle goldens)', () => {
  const cases = lines('go-json.jsonl').map((l) => JSON.parse(l) as { id: string; data: unknown });
  const expected = lines('go-json.expected.jsonl').map((l) => JSON.parse(l) as { id: string; output?: string; error?: string });
  assert.equal(expected.length, cases.length, 'run with UPDATE_GOLDEN=1 to regenerate');
  assert.ok(cases.length >= 7);
  for (const [i, c] of cases.entries()) {
    assert.equal(expected[i].id, c.id);
    assert.equal(expected[i].error, undefined, `${c.id}: oracle error ${expected[i].error}`);
    assert.equal(goJSONMarshal(c.data), expected[i].output, c.id);
  }
});

const svc = (name: string, ns = 'default', extra: Record<string, unknown> = {}) => ({
  apiVersion: 'v1',
  kind: 'Service',
  metadata: { name, namespace: ns, labels: { app: name } },
  spec: { ports: [{ port: 443 }] },
  ...extra,
});

test('resources are encoded like marshalSliceOfUnstructured: JSON + "\\n" + "---" per object, base64', () => {
  assert.equal(encodeEventReportResources([]), undefined, 'no match, no blob');
  const b64 = encodeEventReportResources([svc('a'), svc('b', 'eng')])!;
  const text = Buffer.from(b64, 'base64').toString('utf8');
  assert.equal(
    text,
    '{"apiVersion":"v1","kind":"Service","metadata":{"labels":{"app":"a"},"name":"a","namespace":"default"},"spec":{"ports":[{"port":443}]}}\n---' +
      '{"apiVersion":"v1","kind":"Service","metadata":{"labels":{"app":"b"},"name":"b","namespace":"eng"},"spec":{"ports":[{"port":443}]}}\n---',
  );
  assert.deepEqual(splitEventReportResources(b64).length, 2);
  assert.deepEqual(decodeEventReportResources(b64), [svc('a'), svc('b', 'eng')]);
});

test('decode accepts YAML documents and reports the document that does not parse', () => {
  const yaml = Buffer.from('---\napiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: x\n---\napiVersion: v1\nkind: Secret\nmetadata:\n  name: y\n').toString('base64');
  assert.deepEqual(
    decodeEventReportResources(yaml).map((o) => o.kind),
    ['ConfigMap', 'Secret'],
  );
  const bad = Buffer.from('{"a":1}\n---{"b":\n---').toString('base64');
  assert.throws(() => decodeEventReportResources(bad), /document 1/);
  assert.deepEqual(decodeEventReportResources(undefined), []);
  assert.deepEqual(decodeEventReportResources(''), []);
});

test('a string holding "---" and newlines does not split a document', () => {
  // A blob in Sveltos' format with a string that contains "---" and a newline escape: neither splits it.
  const obj = svc('tricky', 'default', { data: { text: 'a\n---b', more: '---' } });
  const b64 = encodeEventReportResources([obj])!;
  assert.deepEqual(decodeEventReportResources(b64), [obj]);
});

test('management and managed copies carry Sveltos names, labels and fields', () => {
  const content = { eventSourceName: 'sveltos-service', matchingResources: [objectReferenceOf(svc('a'))], resources: encodeEventReportResources([svc('a')]) };
  const mgmt = buildManagementReport({ clusterNamespace: 'fleet', clusterName: 'edge-1', clusterType: 'Capi' }, content);
  assert.equal(mgmt.metadata.name, 'capi--sveltos-service--edge-1');
  assert.equal(mgmt.metadata.namespace, 'fleet');
  assert.deepEqual(mgmt.metadata.labels, {
    'projectsveltos.io/eventsource-name': 'sveltos-service',
    'eventreport.projectsveltos.io/cluster-name': 'edge-1',
    'eventreport.projectsveltos.io/cluster-type': 'capi',
  });
  assert.deepEqual(mgmt.spec, {
    clusterNamespace: 'fleet',
    clusterName: 'edge-1',
    clusterType: 'Capi',
    eventSourceName: 'sveltos-service',
    matchingResources: [{ apiVersion: 'v1', kind: 'Service', namespace: 'default', name: 'a' }],
    resources: content.resources,
  });
  assert.equal(mgmt.metadata.annotations, undefined);
  const managed = buildManagedReport({ ...content, failureMessage: 'boom' });
  assert.equal(managed.metadata.name, 'sveltos-service');
  assert.equal(managed.metadata.namespace, 'projectsveltos');
  assert.deepEqual(managed.metadata.labels, { 'projectsveltos.io/eventsource-name': 'sveltos-service' });
  assert.equal(managed.spec.clusterName, '');
  assert.deepEqual(managed.status, { failureMessage: 'boom' });
  const back = contentFromManagedReport(managed);
  assert.ok(sameContent(back, { ...content, failureMessage: 'boom' }));
  const failed = buildManagementReport({ clusterNamespace: 'fleet', clusterName: 'edge-1', clusterType: 'Sveltos' }, back);
  assert.equal(failed.metadata.name, 'sveltos--sveltos-service--edge-1');
  assert.deepEqual(failed.metadata.annotations, { [EVALUATION_FAILURE_ANNOTATION]: 'boom' });
});

test('objectReferenceOf omits empty fields (cluster-scoped objects have no namespace)', () => {
  assert.deepEqual(objectReferenceOf({ apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'eng' } }), { apiVersion: 'v1', kind: 'Namespace', name: 'eng' });
});

test('sameContent: equal contents in different objects are the same; any field that differs is not', () => {
  const ref = (name: string) => ({ apiVersion: 'v1', kind: 'Service', namespace: 'default', name });
  const base = { eventSourceName: 'es', matchingResources: [ref('a'), ref('b')], resources: 'QUJD', failureMessage: 'x' };
  const copy = JSON.parse(JSON.stringify(base)) as typeof base;
  assert.ok(sameContent(base, copy));
  assert.ok(sameContent({ eventSourceName: 'es', matchingResources: [] }, { eventSourceName: 'es', matchingResources: [] }));
  const differing = [
    { ...copy, eventSourceName: 'other' },
    { ...copy, resources: 'QUJE' },
    { ...copy, resources: undefined },
    { ...copy, failureMessage: undefined },
    { ...copy, matchingResources: [ref('a')] },
    { ...copy, matchingResources: [ref('a'), ref('c')] },
    { ...copy, matchingResources: [ref('b'), ref('a')] },
    { ...copy, matchingResources: [ref('a'), { kind: 'Service', namespace: 'default', name: 'b' }] },
    { ...copy, matchingResources: [ref('a'), { ...ref('b'), apiVersion: 'v2' }] },
  ];
  for (const d of differing) {
    assert.equal(sameContent(base, d), false, JSON.stringify(d));
    assert.equal(sameContent(d, base), false, JSON.stringify(d));
  }
});
