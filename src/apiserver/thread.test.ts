import { strict as assert } from 'node:assert';
import { execFile } from 'node:child_process';
import { chmodSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import { promisify } from 'node:util';
import { createKubeClient } from '../kube/index.js';
import { startApiServerThread, threadCpuMs } from './index.js';

const run = promisify(execFile);

function recordingLogger() {
  const records: { level: string; obj: object; msg?: string }[] = [];
  const at = (level: string) => (obj: object, msg?: string) => void records.push({ level, obj, msg });
  return { records, logger: { info: at('info'), warn: at('warn'), error: at('error'), debug: at('debug') } };
}

test('the API server on a worker thread serves kubectl and clients, adds clusters and keeps acknowledged writes across a restart', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'ripple-thread-'));
  try {
    const { records, logger } = recordingLogger();
    let server = await startApiServerThread({ dataDir: dir, clusters: ['mgmt'], simulators: ['rootca'], logger });
    assert.deepEqual(server.clusters(), ['mgmt']);
    assert.match(server.url, /^https:\/\/127\.0\.0\.1:\d+$/);
    const edge = await server.addCluster('edge');
    assert.deepEqual(server.clusters().sort(), ['edge', 'mgmt']);
    assert.equal(server.cluster('edge').token, edge.token);
    assert.throws(() => server.cluster('nope'), /no cluster named "nope"/);
    // The kubeconfig written by the worker and the one mirrored here agree.
    assert.equal(readFileSync(server.kubeconfigPath, 'utf8'), server.kubeconfigYaml());

    // A client through the mirrored kubeconfig, and kubectl through the file.
    const client = createKubeClient({ yaml: server.kubeconfigYaml('edge') }, { name: 'edge' });
    await client.create({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'kept', namespace: 'default' }, data: { k: 'v' } });
    client.close();
    const kc = await run('kubectl', ['--kubeconfig', server.kubeconfigPath, '--context', 'edge', 'get', 'configmap', 'kept', '-o', 'jsonpath={.data.k}']);
    assert.equal(kc.stdout, 'v');
    const counts = await server.requestCounts();
    assert.ok((counts.byCluster.edge ?? 0) >= 2, JSON.stringify(counts));
    await server.enableLoadBalancer('edge', ['10.0.0.1']);
    await assert.rejects(server.enableLoadBalancer('nope'), /no cluster named "nope"/);
    await server.stop();
    await server.stop(); // idempotent

    // Restart on the same directory: both clusters and the object are back, served by a new thread.
    server = await startApiServerThread({ dataDir: dir, logger });
    assert.deepEqual(server.clusters().sort(), ['edge', 'mgmt']);
    const again = createKubeClient({ yaml: server.kubeconfigYaml('edge') }, { name: 'edge' });
    const cm = await again.get({ apiVersion: 'v1', kind: 'ConfigMap', namespace: 'default', name: 'kept' });
    assert.deepEqual(cm?.data, { k: 'v' });
    again.close();
    await server.stop();
    assert.ok(records.every((r) => ['info', 'warn', 'error', 'debug'].includes(r.level)));
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test('a worker-thread API server that cannot start rejects with the cause, and log records reach the caller', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'ripple-thread-'));
  const busy = createServer();
  await new Promise<void>((r) => busy.listen(0, '127.0.0.1', () => r()));
  try {
    const port = (busy.address() as { port: number }).port;
    await assert.rejects(startApiServerThread({ dataDir: dir, port }), (err: Error & { code?: string }) => err.code === 'EADDRINUSE');
    // A data directory with loose permissions: the worker's warning is forwarded to the caller's logger.
    const loose = join(dir, 'loose');
    const { records, logger } = recordingLogger();
    mkdirSync(loose, { mode: 0o777 });
    chmodSync(loose, 0o777);
    writeFileSync(join(loose, 'state.db'), '');
    chmodSync(join(loose, 'state.db'), 0o666);
    const server = await startApiServerThread({ dataDir: loose, logger });
    await server.stop();
    assert.ok(records.some((r) => r.level === 'warn' && JSON.stringify(r.obj).includes(loose)), JSON.stringify(records));
  } finally {
    busy.close();
    rmSync(dir, { recursive: true, force: true });
  }
});

test("the worker thread reports its own heap (live after a collection) and the re-parses of cold objects", async () => {
  const dir = mkdtempSync(join(tmpdir(), 'ripple-thread-mem-'));
  try {
    const server = await startApiServerThread({ dataDir: dir, clusters: ['mgmt'] });
    try {
      assert.ok(server.threadMemory, 'a server on its own thread reads its heap there');
      const m = await server.threadMemory(true);
      assert.ok(m.heapUsed > 0 && m.heapUsed <= m.heapTotal && m.heapTotal <= m.heapLimit, JSON.stringify(m));
      assert.deepEqual(Object.keys(m.reparses ?? {}).sort(), ['chars', 'count', 'ms']);
      // Its CPU time is its own: the worker's counter moves with work done there, not with this thread's.
      if (process.platform === 'linux') {
        assert.ok(server.threadCpuMs);
        const before = await server.threadCpuMs();
        const mainBefore = threadCpuMs()!;
        const spin = performance.now();
        while (performance.now() - spin < 200);
        const mainSpun = threadCpuMs()! - mainBefore;
        const workerMeanwhile = (await server.threadCpuMs())! - before!;
        assert.ok(workerMeanwhile < mainSpun, `the worker (${workerMeanwhile} ms) did not count this thread's spin (${mainSpun} ms)`);
        const client = createKubeClient({ yaml: server.kubeconfigYaml('mgmt') }, { name: 'mgmt' });
        try {
          const busy0 = (await server.threadCpuMs())!;
          for (let i = 0; i < 200; i++) await client.create({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: `cm-${i}`, namespace: 'default' }, data: { i: String(i) } });
          assert.ok((await server.threadCpuMs())! > busy0, 'the worker counted the writes it served');
        } finally {
          client.close();
        }
      }
    } finally {
      await server.stop();
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
