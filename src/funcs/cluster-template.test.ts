import { strict as assert } from 'node:assert';
import { test } from 'node:test';
import { decodeJSON, TemplateError } from '../gotemplate/index.js';
import { renderClusterTemplate } from './index.js';

const cluster = decodeJSON(
  JSON.stringify({ metadata: { name: 'prod-1', namespace: 'fleet', labels: { env: 'prod' }, annotations: { zone: "eu'1" } } }),
  { numbers: 'int64' },
);
const data = { Cluster: cluster, ClusterNamespace: 'fleet', ClusterName: 'prod-1' };
const opts = { clock: { now: () => 0 } };

test('renderClusterTemplate renders with cluster data', () => {
  assert.equal(renderClusterTemplate('n', 'es-{{ index .Cluster.metadata.labels "env" }}', data, opts), 'es-prod');
  assert.equal(renderClusterTemplate('n', '{{ .ClusterName }}-{{ .ClusterNamespace }}', data, opts), 'prod-1-fleet');
  assert.equal(renderClusterTemplate('n', 'plain', data, opts), 'plain');
});

test('renderClusterTemplate: an empty text is the cluster namespace (libsveltos)', () => {
  assert.equal(renderClusterTemplate('n', '', data, opts), 'fleet');
});

test('renderClusterTemplate escapes like html/template and fails on a missing key', () => {
  assert.equal(renderClusterTemplate('n', '{{ .Cluster.metadata.annotations.zone }}', data, opts), 'eu&#39;1');
  assert.throws(() => renderClusterTemplate('n', '{{ .Cluster.metadata.nope }}', data, opts), (e: unknown) => {
    return e instanceof TemplateError && /map has no entry for key "nope"/.test(e.message);
  });
});
