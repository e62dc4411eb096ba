// Release records in Helm v3.17's storage format. No `helm` binary or Go toolchain exists here, so the JSON layout
// is pinned to Helm's source (field names, order, omitempty, null for nil — cited in release.ts) and everything
// else is tested by round trips and by decoding records built the way Helm builds them.
import { strict as assert } from 'node:assert';
import { test } from 'node:test';
import { gzipSync, gunzipSync } from 'node:zlib';
import {
  decodeRelease,
  deployedRelease,
  encodeRelease,
  formatHelmTime,
  goJSONString,
  lastRelease,
  marshalRelease,
  newRelease,
  nextRevision,
  pendingOperation,
  planHistoryPruning,
  releaseFromSecret,
  releaseSecret,
  releaseSecretName,
  ReleaseFormatError,
  unmarshalRelease,
  validateReleaseName,
  type Release,
  type ReleaseStatus,
} from './release.js';

function sample(): Release {
  const r = newRelease('web', 'apps', 2);
  r.info = {
    firstDeployed: '2026-11-25T10:00:00.5Z',
    lastDeployed: '2026-11-25T11:00:00Z',
    deleted: '',
    description: 'Upgrade complete',
    status: 'deployed',
    notes: 'Visit <http://web> & enjoy',
  };
  r.chart = {
    metadata: { name: 'web', version: '1.2.3', apiVersion: 'v2', appVersion: '4.5', type: 'application', annotations: { zeta: '1', alpha: '2' } },
    lock: null,
    templates: [{ name: 'templates/cm.yaml', data: new TextEncoder().encode('kind: ConfigMap\n') }],
    values: { replicas: 1, image: { tag: 'v1', repo: 'nginx' } },
    schema: null,
    files: [],
  };
  r.config = { replicas: 3 };
  r.manifest = '---\n# Source: web/templates/cm.yaml\nkind: ConfigMap\n';
  r.hooks = [
    {
      name: 'web-migrate',
      kind: 'Job',
      path: 'web/templates/job.yaml',
      manifest: 'kind: Job',
      events: ['pre-install', 'pre-upgrade'],
      lastRun: { startedAt: '2026-11-25T11:00:00Z', completedAt: '2026-11-25T11:00:01Z', phase: 'Succeeded' },
      weight: -5,
      deletePolicies: ['before-hook-creation'],
    },
  ];
  r.labels = { team: 'a' };
  return r;
}

test('marshalRelease writes Helm’s field names, order, omitempty and nulls', () => {
  // Field order: release.go 22-43 (name, info, chart, config, manifest, hooks, version, namespace); info.go 25-40;
  // chart.go 35-56 (no omitempty: lock and schema are null); metadata.go 48-84 (annotations map keys sorted);
  // hook.go 63-89 (last_run always written). Labels are `json:"-"`.
  const expected =
    '{"name":"web","info":{"first_deployed":"2026-11-25T10:00:00.5Z","last_deployed":"2026-11-25T11:00:00Z","deleted":"",' +
    '"description":"Upgrade complete","status":"deployed","notes":"Visit \\u003chttp://web\\u003e \\u0026 enjoy"},' +
    '"chart":{"metadata":{"name":"web","version":"1.2.3","apiVersion":"v2","appVersion":"4.5","annotations":{"alpha":"2","zeta":"1"},"type":"application"},' +
    '"lock":null,"templates":[{"name":"templates/cm.yaml","data":"a2luZDogQ29uZmlnTWFwCg=="}],' +
    '"values":{"image":{"repo":"nginx","tag":"v1"},"replicas":1},"schema":null,"files":[]},' +
    '"config":{"replicas":3},"manifest":"---\\n# Source: web/templates/cm.yaml\\nkind: ConfigMap\\n",' +
    '"hooks":[{"name":"web-migrate","kind":"Job","path":"web/templates/job.yaml","manifest":"kind: Job",' +
    '"events":["pre-install","pre-upgrade"],"last_run":{"started_at":"2026-11-25T11:00:00Z","completed_at":"2026-11-25T11:00:01Z","phase":"Succeeded"},' +
    '"weight":-5,"delete_policies":["before-hook-creation"]}],"version":2,"namespace":"apps"}';
  assert.equal(marshalRelease(sample()), expected);
});

test('empty fields are omitted exactly where Go omits them', () => {
  const r = newRelease('x', 'default', 1);
  r.info!.status = 'pending-install';
  r.hooks = [{ name: 'h', kind: '', path: '', manifest: '', events: [], lastRun: { startedAt: '', completedAt: '', phase: '' }, weight: 0, deletePolicies: [] }];
  assert.equal(
    marshalRelease(r),
    '{"name":"x","info":{"first_deployed":"","last_deployed":"","deleted":"","status":"pending-install"},' +
      '"hooks":[{"name":"h","last_run":{"started_at":"","completed_at":"","phase":""}}],"version":1,"namespace":"default"}',
  );
});

test('goJSONString escapes like Go’s encoding/json', () => {
  assert.equal(goJSONString('a<b>&c'), '"a\\u003cb\\u003e\\u0026c"');
  assert.equal(goJSONString('\b\f\n\r\t\u0001\u001f'), '"\\b\\f\\n\\r\\t\\u0001\\u001f"');
  assert.equal(goJSONString('\u2028\u2029é😀'), '"\\u2028\\u2029é😀"');
  // Go's appendString writes invalid UTF-8 (a lone surrogate here) as the escape \ufffd (encode.go: RuneError, size 1).
  assert.equal(goJSONString('\ud800'), '"\\ufffd"');
});

test('map keys sort by UTF-8 bytes, numbers print as Go float64', () => {
  const r = newRelease('x', 'd', 1);
  r.config = { b: 1e21, a: 1e-7, '😀': 0.5, '\uff21': 2, Z: -0, big: 12345678901234567890n };
  // U+FF21 (ef bc a1) sorts before U+1F600 (f0 9f 98 80) in UTF-8, though not in UTF-16.
  assert.match(marshalRelease(r), /"config":\{"Z":-0,"a":1e-7,"b":1e\+21,"big":12345678901234567000,"Ａ":2,"😀":0.5\}/);
});

test('encodeRelease/decodeRelease round-trip and decodeRelease reads what Helm writes', () => {
  const r = sample();
  const enc = encodeRelease(r);
  const gz = Buffer.from(enc, 'base64');
  assert.deepEqual([...gz.subarray(0, 3)], [0x1f, 0x8b, 0x08]);
  assert.equal(gunzipSync(gz).toString(), marshalRelease(r));
  const back = decodeRelease(enc);
  assert.equal(marshalRelease(back), marshalRelease(r));
  assert.deepEqual(back.chart!.templates![0].data, r.chart!.templates![0].data);

  // A record as Go writes it: gzip from another implementation, Helm's JSON text.
  const text = marshalRelease(r);
  assert.equal(marshalRelease(decodeRelease(gzipSync(text, { level: 1 }).toString('base64'))), text);
  // Records from before Helm compressed them: base64 of the bare JSON (util.go 65-79).
  assert.equal(decodeRelease(Buffer.from(text).toString('base64')).name, 'web');
});

test('decodeRelease rejects corrupt data with a clear error', () => {
  assert.throws(() => decodeRelease('not base64!'), ReleaseFormatError);
  const corrupt = Buffer.from([0x1f, 0x8b, 0x08, 0, 1, 2, 3, 4, 5]).toString('base64');
  assert.throws(() => decodeRelease(corrupt), /corrupt gzip/);
  assert.throws(() => decodeRelease(Buffer.from('{"version":"2"}').toString('base64')), /Release.version of type int/);
  assert.throws(() => decodeRelease(Buffer.from('[1]').toString('base64')), /not an object/);
});

test('unmarshalRelease tolerates missing fields and keeps unknown statuses visible as unknown', () => {
  const r = unmarshalRelease('{"name":"a","info":{"status":"exploded"},"version":3}');
  assert.equal(r.info!.status, 'unknown');
  assert.equal(r.chart, null);
  assert.deepEqual(r.config, {});
  assert.equal(r.version, 3);
});

test('releaseSecret is the Secret Helm’s driver writes; releaseFromSecret reads it back', () => {
  const r = sample();
  const created = releaseSecret(r, { op: 'create', nowUnix: 1764064800.7 });
  assert.equal(created.metadata.name, 'sh.helm.release.v1.web.v2');
  assert.equal(created.metadata.namespace, 'apps');
  assert.equal(created.type, 'helm.sh/release.v1');
  assert.deepEqual(created.metadata.labels, { createdAt: '1764064800', team: 'a', name: 'web', owner: 'helm', status: 'deployed', version: '2' });
  // data.release is base64 (the API's encoding of []byte) of Helm's own base64(gzip(json)).
  const inner = Buffer.from(created.data.release, 'base64').toString('utf8');
  assert.match(inner, /^H4sI/); // base64 of 1f 8b 08
  assert.equal(gunzipSync(Buffer.from(inner, 'base64')).toString(), marshalRelease(r));

  const updated = releaseSecret({ ...r, info: { ...r.info!, status: 'superseded' }, labels: { team: 'a', status: 'x' } }, { op: 'update', nowUnix: 5 });
  assert.deepEqual(updated.metadata.labels, { modifiedAt: '5', team: 'a', status: 'superseded', name: 'web', owner: 'helm', version: '2' });

  const read = releaseFromSecret({ metadata: { name: created.metadata.name, labels: created.metadata.labels }, data: created.data });
  assert.deepEqual(read.labels, { team: 'a' });
  assert.equal(marshalRelease(read), marshalRelease(r));
  assert.throws(() => releaseFromSecret({ metadata: { name: 's' }, data: {} }), /Secret s has no data.release/);
  assert.throws(() => releaseFromSecret({ metadata: { name: 's' }, data: { release: Buffer.from('zz').toString('base64') } }), /get: failed to decode data "s"/);
});

function history(...entries: [number, ReleaseStatus][]): Release[] {
  return entries.map(([v, s]) => {
    const r = newRelease('web', 'apps', v);
    r.info!.status = s;
    return r;
  });
}

test('history helpers answer like Helm’s storage', () => {
  const h = history([3, 'failed'], [1, 'superseded'], [2, 'deployed']);
  assert.equal(lastRelease(h)!.version, 3);
  assert.equal(deployedRelease(h)!.version, 2);
  assert.equal(nextRevision(h), 4);
  assert.equal(nextRevision([]), 1);
  assert.equal(pendingOperation(h), undefined);
  assert.equal(pendingOperation(history([1, 'deployed'], [2, 'pending-upgrade']))!.version, 2);
  // Concurrent writers can leave two deployed records: the newest wins.
  assert.equal(deployedRelease(history([1, 'deployed'], [2, 'deployed']))!.version, 2);
  assert.equal(releaseSecretName('a.b', 10), 'sh.helm.release.v1.a.b.v10');
});

test('planHistoryPruning makes room for one more record and never prunes the deployed one', () => {
  const h = history([1, 'superseded'], [2, 'superseded'], [3, 'deployed'], [4, 'failed'], [5, 'failed']);
  assert.deepEqual(planHistoryPruning(h, 0), []);
  assert.deepEqual(planHistoryPruning(h, 10), []);
  assert.deepEqual(planHistoryPruning(h, 6), []);
  assert.deepEqual(planHistoryPruning(h, 5), [1]);
  assert.deepEqual(planHistoryPruning(h, 3), [1, 2, 4]);
  // maxHistory 1: everything but the deployed revision goes, leaving 1 + the new one (Helm's behaviour).
  assert.deepEqual(planHistoryPruning(h, 1), [1, 2, 4, 5]);
  // Without a deployed revision the oldest go first.
  assert.deepEqual(planHistoryPruning(history([1, 'failed'], [2, 'failed'], [3, 'failed']), 2), [1, 2]);
});

test('validateReleaseName follows chartutil.ValidateReleaseName', () => {
  assert.equal(validateReleaseName('my-app.v2'), undefined);
  assert.match(validateReleaseName('My_App')!, /invalid release name/);
  assert.match(validateReleaseName('a'.repeat(54))!, /53 characters/);
  assert.equal(validateReleaseName('a'.repeat(53)), undefined);
  assert.equal(validateReleaseName(''), 'no name provided');
});

test('formatHelmTime writes Go’s RFC 3339 with trimmed fraction', () => {
  assert.equal(formatHelmTime(new Date('2026-11-25T10:00:00.000Z')), '2026-11-25T10:00:00Z');
  assert.equal(formatHelmTime(new Date('2026-11-25T10:00:00.120Z')), '2026-11-25T10:00:00.12Z');
  assert.equal(formatHelmTime(new Date('2026-11-25T10:00:00Z'), 123456789), '2026-11-25T10:00:00.123456789Z');
});
