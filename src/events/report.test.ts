// report.test.ts: the EventReport `resources` encoding (shared with the agent), the events a report yields, and
// which parsed templates read event data.
import { strict as assert } from 'node:assert';
import { test } from 'node:test';
import { Buffer } from 'node:buffer';
import type { EventReport } from '../api/index.js';
import { eventFuncMap } from '../funcs/index.js';
import { parseCached } from '../gotemplate/index.js';
import { seedObjects } from '../../test/support/seeds.js';
import { EventError } from './errors.js';
import { reportEvents } from './report-events.js';
import { encodeEventReportResources } from '../agent/index.js';
import { decodeBlob, decodeResourcesForTemplates } from './report-resources.js';
import { eventDataFields } from './template-uses.js';

const report = (spec: Partial<EventReport['spec']>): EventReport =>
  ({
    apiVersion: 'lib.projectsveltos.io/v1beta1',
    kind: 'EventReport',
    metadata: { name: 'sveltos--es--c', namespace: 'ns' },
    spec: { clusterName: 'c', clusterNamespace: 'ns', clusterType: 'Sveltos', eventSourceName: 'es', ...spec },
  }) as EventReport;

const svc = (ns: string, name: string, port = 80) => ({ apiVersion: 'v1', kind: 'Service', metadata: { namespace: ns, name }, spec: { ports: [{ port }] } });

test("the agent's encoding decodes for templates with int64 integers and float64 others", () => {
  const b64 = encodeEventReportResources([{ kind: 'Service', apiVersion: 'v1', metadata: { name: 'a' }, spec: { ports: [{ port: 443 }], w: 1.5 } }]);
  const [o] = decodeResourcesForTemplates(b64);
  const spec = o.spec as { ports: { port: unknown }[]; w: unknown };
  assert.equal(spec.ports[0].port, 443n);
  assert.equal(spec.w, 1.5);
  assert.deepEqual(decodeResourcesForTemplates(undefined), []);
});

test('the EventReport of seed 003/004 decodes to the Service it shows', () => {
  const er = seedObjects().find((s) => s.seed === '004' && (s.object as { kind?: string }).kind === 'EventReport')!.object as unknown as EventReport;
  const [svcObj] = decodeResourcesForTemplates(er.spec.resources);
  const meta = svcObj.metadata as Record<string, unknown>;
  assert.equal(meta.name, 'my-service');
  assert.equal((svcObj.spec as { ports: { port: unknown }[] }).ports[0].port, 80n);
  const r = reportEvents(er, true);
  assert.deepEqual(r.events.map((e) => e.id), ['resource:/Service/default/my-service']);
});

test('hand-written YAML documents decode too; a document that cannot be read is a clear InvalidReport', () => {
  const yaml = Buffer.from('---\nkind: Service\nspec:\n  port: 80\n---\n{"kind":"B"}\n').toString('base64');
  const docs = decodeResourcesForTemplates(yaml);
  assert.deepEqual(docs.map((d) => d.kind), ['Service', 'B']);
  assert.equal((docs[0].spec as { port: unknown }).port, 80n);
  const bad = Buffer.from('{"a":1}\n---{"b": nope}\n---').toString('base64');
  assert.throws(() => decodeResourcesForTemplates(bad), (e: unknown) => e instanceof EventError && e.code === 'InvalidReport' && /document 2/.test(e.message));
});

test("a report's next version decodes only the documents that changed; the result equals a full decode", () => {
  const first = reportEvents(report({ resources: encodeEventReportResources([svc('a', 'x'), svc('a', 'y')]) }), true);
  const nextReport = report({ resources: encodeEventReportResources([svc('a', 'x'), svc('a', 'y', 8080)]) });
  const next = reportEvents(nextReport, true, first.documents);
  assert.deepEqual(next, reportEvents(nextReport, true));
  // x did not change: its decoded value is the one decoded before; y changed: decoded anew, with the new port.
  assert.equal(next.events[0].resource, first.events[0].resource);
  assert.notEqual(next.events[1].resource, first.events[1].resource);
  assert.equal(((next.events[1].resource!.spec as { ports: { port: unknown }[] }).ports[0]).port, 8080n);
  assert.deepEqual(next.documents!.texts.length, 2);
  // A document that no longer parses is still refused, whatever was decoded before.
  const bad = { ...nextReport, spec: { ...nextReport.spec, resources: Buffer.from('{"b": nope}\n---').toString('base64') } };
  assert.throws(() => reportEvents(bad, true, next.documents), (e: unknown) => e instanceof EventError && e.code === 'InvalidReport');
});

test('oneForEvent true: one event per collected resource, identity includes group and kind, duplicates once', () => {
  const dep = { apiVersion: 'apps/v1', kind: 'Deployment', metadata: { namespace: 'a', name: 'x' } };
  const r = reportEvents(report({ resources: encodeEventReportResources([svc('a', 'x'), dep, svc('a', 'x')]) }), true);
  assert.deepEqual(r.events.map((e) => e.id), ['resource:/Service/a/x', 'resource:apps/Deployment/a/x']);
  assert.equal(r.matching, 3);
});

test('oneForEvent true without collected resources: one event per matchingResources entry, .Resource unset', () => {
  const r = reportEvents(report({ matchingResources: [{ apiVersion: 'v1', kind: 'Service', namespace: 'a', name: 'x' }] }), true);
  assert.equal(r.events.length, 1);
  assert.equal(r.events[0].resource, undefined);
  assert.deepEqual(r.events[0].ref, { apiVersion: 'v1', kind: 'Service', namespace: 'a', name: 'x' });
});

test('oneForEvent false: one event for everything; nothing matching: no event', () => {
  const r = reportEvents(report({ resources: encodeEventReportResources([svc('a', 'x'), svc('a', 'y')]) }), false);
  assert.equal(r.events.length, 1);
  assert.equal(r.events[0].id, 'all');
  assert.equal(r.events[0].resources?.length, 2);
  assert.deepEqual(reportEvents(report({ matchingResources: [] }), false).events, []);
});

test('CloudEvents: one event per (source, subject); a later one with the same identity supersedes the earlier', () => {
  const ce = (subject: string, type: string) => Buffer.from(JSON.stringify({ specversion: '1.0', id: type, source: 'my/src', subject, type })).toString('base64');
  const r = reportEvents(report({ cloudEvents: [ce('s1', 'create'), ce('s2', 'create'), ce('s1', 'delete')] }), true);
  assert.deepEqual(r.events.map((e) => [e.id, e.cloudEvent?.type]), [
    ['cloudevent:my/src/s2', 'create'],
    ['cloudevent:my/src/s1', 'delete'],
  ]);
});

const fields = (text: string) => eventDataFields(parseCached('t', text, { funcs: eventFuncMap({}), missingKey: 'error' }));

test('event data is detected from the parse tree, relative to the root dot', () => {
  assert.deepEqual(fields('name: {{ .Resource.metadata.name }}'), ['.Resource']);
  assert.deepEqual(fields('{{ range .Resources }}{{ .metadata.name }}{{ end }}'), ['.Resources']);
  assert.deepEqual(fields('{{ $.MatchingResource.Name }} {{ (.).CloudEvent.subject }}'), ['.CloudEvent', '.MatchingResource']);
  assert.deepEqual(fields('{{ with .Cluster }}{{ .Resource }}{{ else }}{{ .MatchingResources }}{{ end }}'), ['.MatchingResources'], 'inside with, dot is .Cluster');
  assert.deepEqual(fields('{{ define "x" }}{{ .Resources }}{{ end }}{{ template "x" . }}'), ['.Resources']);
  assert.deepEqual(fields('{{ (index .Resource.status.loadBalancer.ingress 0).ip }}'), ['.Resource']);
});

test('comments, quoted text and deploy-stage templates are not event data', () => {
  assert.deepEqual(fields('{{/* .Resource */}} "{{ "{{ .Resource }}" }}"'), []);
  assert.deepEqual(fields('{{ get (getResource "UpstreamLB").metadata.annotations `x` }} {{ .Cluster.metadata.name }}'), []);
  assert.deepEqual(fields('{{ range $p := .Cluster.spec.x }}{{ $p.Resource }}{{ end }}'), []);
});

test('spec.resources must be standard padded base64, as the schema says (format byte); the check rides on the decode', () => {
  // The schema's own check (src/api isBase64): standard alphabet, padding, whitespace tolerated.
  const RE = /^(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?$/;
  const schemaOK = (v: string) => RE.test(v.replace(/\s+/g, ''));
  const decodes = (v: string) => {
    try {
      decodeBlob(v);
      return true;
    } catch (e) {
      assert.ok(e instanceof EventError && e.code === 'InvalidReport');
      return false;
    }
  };
  const alphabet = ['A', 'b', '9', '+', '/', '=', '-', '_', ' ', '\n', '.', '{', 'é'];
  let n = 0;
  for (let i = 0; i < 30_000; i++) {
    let v = '';
    const len = 1 + Math.floor(Math.random() * 12);
    for (let k = 0; k < len; k++) v += alphabet[Math.floor(Math.random() * alphabet.length)];
    assert.equal(decodes(v), schemaOK(v), JSON.stringify(v));
    if (schemaOK(v)) n++;
  }
  assert.ok(n > 100, 'the random strings include valid ones');
  const blob = encodeEventReportResources([svc('a', 'x')])!;
  assert.equal(decodeBlob(blob), Buffer.from(blob, 'base64').toString('utf8'));
  assert.ok(decodes(blob.replace(/(.{8})/g, '$1\n')), 'line-wrapped base64 is accepted');
  assert.ok(!decodes('ab-_') && !decodes('ab_='), 'the URL-safe alphabet (which Node decodes) is not base64 here');
  assert.throws(() => reportEvents(report({ resources: `${blob.slice(0, -4)}!!!!` }), true), (e: unknown) => e instanceof EventError && /not base64/.test(e.message));
});
