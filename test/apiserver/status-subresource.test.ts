// A status write of a custom resource: defaults and pruning of status as before, the rest of the object unchanged
// (the API server decodes only the status part of the patched object).
import { strict as assert } from 'node:assert';
import { after, before, test } from 'node:test';
import { KubeClient, type KubeObject } from '../../src/kube/index.js';
import { startTestApiServer, type TestApiServer } from '../support/apiserver.js';

let srv: TestApiServer;
let c: KubeClient;
const W = { apiVersion: 'x.ripple.dev/v1', kind: 'Widget' } as const;

before(async () => {
  srv = await startTestApiServer({ clusters: ['st'] });
  c = new KubeClient(await srv.kubeConfig('st'));
  await c.create({
    apiVersion: 'apiextensions.k8s.io/v1',
    kind: 'CustomResourceDefinition',
    metadata: { name: 'widgets.x.ripple.dev' },
    spec: {
      group: 'x.ripple.dev',
      scope: 'Namespaced',
      names: { kind: 'Widget', plural: 'widgets', singular: 'widget', listKind: 'WidgetList' },
      versions: [
        {
          name: 'v1',
          served: true,
          storage: true,
          subresources: { status: {} },
          schema: {
            openAPIV3Schema: {
              type: 'object',
              properties: {
                spec: { type: 'object', properties: { size: { type: 'string', default: 'small' }, blob: { type: 'string', format: 'byte' } } },
                status: { type: 'object', properties: { phase: { type: 'string' }, level: { type: 'integer', default: 1 } } },
              },
            },
          },
        },
      ],
    },
  } as unknown as KubeObject);
  for (let i = 0; ; i++) {
    try {
      await c.list(W, { namespace: 'default' });
      break;
    } catch (e) {
      if (i > 50) throw e;
      await new Promise((r) => setTimeout(r, 100));
    }
  }
});

after(async () => {
  c.close();
  await srv.stop();
});

test('status apply on a custom resource: status defaulted and pruned, spec, generation and spec ownership unchanged', async () => {
  const blob = Buffer.from('z'.repeat(20_000)).toString('base64');
  const created = await c.apply<KubeObject & { spec: Record<string, unknown> }>({ ...W, metadata: { namespace: 'default', name: 'w1' }, spec: { blob } } as KubeObject, { fieldManager: 'writer', force: true });
  assert.deepEqual(created.spec, { blob, size: 'small' });
  const gen = created.metadata.generation;
  const out = await c.apply<KubeObject & { spec: unknown; status: unknown }>({ ...W, metadata: { namespace: 'default', name: 'w1' }, status: { phase: 'Ready' } } as KubeObject, {
    fieldManager: 'reporter',
    force: true,
    subresource: 'status',
  });
  assert.deepEqual(out.status, { phase: 'Ready', level: 1 });
  assert.deepEqual(out.spec, { blob, size: 'small' });
  assert.equal(out.metadata.generation, gen);
  const mf = (out.metadata.managedFields ?? []) as { manager: string; subresource?: string; fieldsV1?: Record<string, unknown> }[];
  const writer = mf.find((m) => m.manager === 'writer');
  const reporter = mf.find((m) => m.manager === 'reporter');
  assert.equal(mf.length, 2);
  assert.equal(writer?.subresource ?? '', '');
  assert.equal(reporter?.subresource, 'status');
  assert.deepEqual(Object.keys(reporter?.fieldsV1 ?? {}), ['f:status']);
  assert.ok('f:spec' in (writer?.fieldsV1 ?? {}));
  // A merge patch of status: unknown fields pruned, the rest unchanged.
  const merged = await c.patch<KubeObject & { spec: unknown; status: unknown }>({ ...W, namespace: 'default', name: 'w1' }, 'merge', { status: { phase: 'Done', extra: 'x' } }, { subresource: 'status' });
  assert.deepEqual(merged.status, { phase: 'Done', level: 1 });
  assert.deepEqual(merged.spec, { blob, size: 'small' });
  assert.equal(merged.metadata.generation, gen);
  // Strict field validation still sees an unknown field a /status merge patch carries outside status.
  await assert.rejects(
    c.patch({ ...W, namespace: 'default', name: 'w1' }, 'merge', { spec: { bogus: 1 }, status: { phase: 'Again' } }, { subresource: 'status', fieldValidation: 'Strict' }),
    /unknown field "spec.bogus"/,
  );
  const got = await c.get<KubeObject & { spec: unknown; status: unknown }>({ ...W, namespace: 'default', name: 'w1' });
  assert.deepEqual([got.spec, got.status], [merged.spec, merged.status]);
});
