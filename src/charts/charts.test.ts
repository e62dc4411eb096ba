// Pure parts of the chart sources: version choice like Helm, index parsing, URL resolution, archives, OCI
// references, auth challenges, push config and annotations, credentials from Secrets.
import { strict as assert } from 'node:assert';
import { test } from 'node:test';
import { tgz } from '../../test/support/tgz.js';
import {
  chartConfigJSON,
  chartNameInRepository,
  credentialsFromSecret,
  findIndexEntry,
  indexURL,
  isChartSourceError,
  ociAnnotations,
  ociChartRef,
  parseChallenge,
  parseOciReference,
  parseRepoIndex,
  readChartYaml,
  readTgz,
  resolveReferenceURL,
  selectVersion,
} from './index.js';

const VERSIONS = ['2.0.0-rc.1', '1.10.0', '1.2.3', '1.2.0', '1.1.9', '0.9.0', 'not-semver'];
const pick = (req: string) => selectVersion(VERSIONS, req, (v) => v);

test('versions are chosen like Helm: exact first, then the highest that satisfies the constraint', () => {
  assert.equal(pick(''), '1.10.0'); // latest stable: the prerelease is skipped
  assert.equal(pick('1.2.0'), '1.2.0');
  assert.equal(pick('>=1.2 <2'), '1.10.0');
  assert.equal(pick('~1.2'), '1.2.3');
  assert.equal(pick('^1.1'), '1.10.0');
  assert.equal(pick('^0.9'), '0.9.0');
  assert.equal(pick('1.2.x'), '1.2.3');
  assert.equal(pick('>=2.0.0-0'), '2.0.0-rc.1'); // a prerelease in the constraint admits prereleases
  assert.equal(pick('>=2'), undefined);
  assert.equal(pick('<1.2 || >=1.10'), '1.10.0');
  // Helm parses the request as a constraint before looking for an exact match (index.go Get).
  assert.throws(() => pick('not-semver'), /improper constraint: not-semver/);
  assert.throws(() => pick('>>1'), /improper constraint/);
});

const INDEX = `apiVersion: v1
entries:
  web:
  - name: web
    version: 1.2.0
    urls: [charts/web-1.2.0.tgz]
    digest: ${'a'.repeat(64)}
  - name: web
    version: 1.10.0
    urls: [https://cdn.example.com/web-1.10.0.tgz]
  - name: web
    version: 2.0.0-beta.1
    urls: [web-2.0.0-beta.1.tgz]
  - bad-entry
  empty: []
generated: "2026-01-01T00:00:00Z"
`;

test('parseRepoIndex sorts versions highest first and findIndexEntry names chart, version and repository in errors', () => {
  const idx = parseRepoIndex(INDEX, 'repo');
  assert.deepEqual(idx.entries.get('web')!.map((e) => e.version), ['2.0.0-beta.1', '1.10.0', '1.2.0']);
  assert.equal(findIndexEntry(idx, 'web', '', 'http://r').version, '1.10.0');
  assert.equal(findIndexEntry(idx, 'web', '~1.2', 'http://r').digest, 'a'.repeat(64));
  assert.throws(
    () => findIndexEntry(idx, 'nope', '', 'http://r'),
    (e: unknown) => isChartSourceError(e, 'ChartNotFound') && /chart "nope" not found in http:\/\/r repository \(it has: empty, web\)/.test(e.message),
  );
  assert.throws(
    () => findIndexEntry(idx, 'web', '>=3', 'http://r'),
    (e: unknown) => isChartSourceError(e, 'VersionNotFound') && /chart "web" version ">=3" not found in http:\/\/r repository \(available: 2.0.0-beta.1, 1.10.0, 1.2.0\)/.test(e.message),
  );
  assert.throws(() => findIndexEntry(idx, 'empty', '', 'r'), (e: unknown) => isChartSourceError(e, 'ChartNotFound'));
  const json = parseRepoIndex(JSON.stringify({ apiVersion: 'v1', entries: { web: [{ name: 'web', version: '0.1.0', urls: ['w.tgz'] }, { name: 'web', version: '0.3.0', urls: ['w3.tgz'] }] } }), 'repo');
  assert.equal(findIndexEntry(json, 'web', '', 'r').urls[0], 'w3.tgz');
  assert.throws(() => parseRepoIndex('entries: {}\n', 'repo'), /no apiVersion/);
  assert.throws(() => parseRepoIndex('', 'repo'), /empty/);
  assert.throws(() => parseRepoIndex('a: [', 'repo'), (e: unknown) => isChartSourceError(e, 'BadChart'));
});

test('chart URLs resolve against the repository like Helm’s ResolveReferenceURL', () => {
  assert.equal(resolveReferenceURL('https://h/charts', 'web-1.0.0.tgz'), 'https://h/charts/web-1.0.0.tgz');
  assert.equal(resolveReferenceURL('https://h/charts/', 'sub/web.tgz'), 'https://h/charts/sub/web.tgz');
  assert.equal(resolveReferenceURL('https://h/charts', '/abs/web.tgz'), 'https://h/abs/web.tgz');
  assert.equal(resolveReferenceURL('https://h/charts?token=x', 'web.tgz'), 'https://h/charts/web.tgz?token=x');
  assert.equal(resolveReferenceURL('https://h/charts', 'https://cdn/web.tgz'), 'https://cdn/web.tgz');
  assert.equal(indexURL('https://h/charts/'), 'https://h/charts/index.yaml');
  assert.equal(chartNameInRepository('kyverno/kyverno', 'kyverno'), 'kyverno');
  assert.equal(chartNameInRepository('kyverno', 'kyverno'), 'kyverno');
});

test('chart archives: ustar prefix, GNU long names, PAX paths; bad archives are BadChart', () => {
  const long = `web/templates/${'d'.repeat(90)}/${'f'.repeat(60)}.yaml`;
  for (const gnuLongNames of [false, true]) {
    const files = readTgz(tgz({ 'web/Chart.yaml': 'name: web\nversion: 1.0.0\n', [long]: 'x' }, { gnuLongNames }), 'a');
    assert.deepEqual(files.map((f) => f.name), ['web/Chart.yaml', long]);
  }
  assert.deepEqual(readChartYaml(tgz({ 'web/Chart.yaml': 'name: web\nversion: 1.0.0\n' }), 'a').version, '1.0.0');
  assert.throws(() => readChartYaml(Buffer.from('<html>oops</html>'), 'web'), (e: unknown) => isChartSourceError(e, 'BadChart') && /web is not a gzip archive/.test(e.message));
  assert.throws(() => readChartYaml(tgz({ 'web/values.yaml': '' }), 'web'), /no Chart.yaml/);
  assert.throws(() => readChartYaml(tgz({ 'web/Chart.yaml': 'name: web\nversion: 1.0\n' }), 'web'), /no version/);
  assert.throws(() => readChartYaml(tgz({ 'web/sub/Chart.yaml': 'name: web\nversion: "1"\n' }), 'web'), /no Chart.yaml/);
});

test('OCI references and WWW-Authenticate challenges', () => {
  assert.deepEqual(parseOciReference('oci://localhost:5000/charts/web'), { registry: 'localhost:5000', repository: 'charts/web', tag: undefined });
  assert.deepEqual(parseOciReference('oci://r.io/a/web:1.0.0+build.1'), { registry: 'r.io', repository: 'a/web', tag: '1.0.0_build.1' });
  assert.throws(() => parseOciReference('oci://r.io/Upper/web'), /lowercase/);
  assert.throws(() => parseOciReference('oci://r.io'), /want oci:\/\/HOST\/PATH/);
  assert.deepEqual(parseChallenge('Bearer realm="https://auth.io/token",service="registry.io",scope="repository:a/b:pull,push"'), {
    scheme: 'bearer',
    params: { realm: 'https://auth.io/token', service: 'registry.io', scope: 'repository:a/b:pull,push' },
  });
  assert.equal(parseChallenge('Basic realm=x').scheme, 'basic');
  assert.equal(ociChartRef({ repositoryURL: 'oci://r.io/charts', repositoryName: 'x', chartName: 'oci://r.io/charts/web' }), 'oci://r.io/charts/web');
  assert.equal(ociChartRef({ repositoryURL: 'oci://r.io/charts/', repositoryName: 'x', chartName: 'x/web' }), 'oci://r.io/charts/web');
  assert.equal(ociChartRef({ repositoryURL: 'https://r.io/charts', repositoryName: 'x', chartName: 'x/web' }), undefined);
});

test('push config is chart.Metadata JSON in Go’s field order; annotations follow generateOCIAnnotations', () => {
  const y = {
    type: 'application',
    version: '1.0.0',
    name: 'web',
    description: 'A <web> & chart',
    unknownField: 'dropped',
    maintainers: [{ name: 'Ann', email: 'a@x' }, { name: 'Bob' }],
    sources: ['https://src/1', 'https://src/2'],
    annotations: { z: '1', 'org.opencontainers.image.title': 'spoof', a: '2' },
    dependencies: [{ name: 'db', repository: 'https://r', version: '1.x', enabled: false }],
  };
  assert.equal(
    chartConfigJSON(y),
    '{"name":"web","sources":["https://src/1","https://src/2"],"version":"1.0.0","description":"A \\u003cweb\\u003e \\u0026 chart",' +
      '"maintainers":[{"name":"Ann","email":"a@x"},{"name":"Bob"}],"apiVersion":"v1","annotations":{"a":"2","org.opencontainers.image.title":"spoof","z":"1"},' +
      '"dependencies":[{"name":"db","version":"1.x","repository":"https://r"}],"type":"application"}',
  );
  assert.deepEqual(ociAnnotations(y, '2026-11-25T10:00:00Z'), {
    'org.opencontainers.image.description': 'A <web> & chart',
    'org.opencontainers.image.title': 'web',
    'org.opencontainers.image.version': '1.0.0',
    'org.opencontainers.image.created': '2026-11-25T10:00:00Z',
    'org.opencontainers.image.source': 'https://src/1',
    'org.opencontainers.image.authors': 'Ann (a@x), Bob',
    z: '1',
    a: '2',
  });
});

test('credentialsFromSecret reads username/password or a dockerconfigjson entry, like Sveltos', () => {
  assert.deepEqual(credentialsFromSecret('r.io', { name: 's', data: { username: 'u', password: 'p' } }), { username: 'u', password: 'p' });
  assert.equal(credentialsFromSecret('r.io', { name: 's', data: {} }), undefined);
  assert.throws(() => credentialsFromSecret('r.io', { name: 's', data: { username: 'u' } }), /required fields 'username' and 'password'/);
  const docker = JSON.stringify({ auths: { 'https://r.io': { auth: Buffer.from('du:dp').toString('base64') }, 'other.io': { username: 'o', password: 'q' } } });
  const secret = { name: 'd', type: 'kubernetes.io/dockerconfigjson', data: { '.dockerconfigjson': docker } };
  assert.deepEqual(credentialsFromSecret('r.io', secret), { username: 'du', password: 'dp' });
  assert.deepEqual(credentialsFromSecret('other.io', secret), { username: 'o', password: 'q' });
  assert.throws(() => credentialsFromSecret('none.io', secret), /no auth config for 'none.io'/);
});
