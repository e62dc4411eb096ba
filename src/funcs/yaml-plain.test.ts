// Plain scalars the yaml package would read as floats but go-yaml (yaml.v2, behind sigs.k8s.io/yaml) reads as
// strings: a cluster named e1 once made an add-on "invalid YAML: json: unsupported value: NaN".
import { strict as assert } from 'node:assert';
import { test } from 'node:test';
import { parseYamlSigs } from './yaml.js';

test('plain e1, E5 and ._5 are strings, as yaml.v2 reads them; real floats stay numbers', () => {
  assert.deepEqual({ ...(parseYamlSigs('cluster: e1\nb: E5\nc: ._5\nd: 1e3\ne: .5\nf: -2.5e-3\n') as object) }, { cluster: 'e1', b: 'E5', c: '._5', d: 1000, e: 0.5, f: -0.0025 });
});
