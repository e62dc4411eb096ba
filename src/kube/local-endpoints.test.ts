import { strict as assert } from 'node:assert';
import { statSync } from 'node:fs';
import { createServer } from 'node:net';
import { test } from 'node:test';
import { startTestApiServer } from '../../test/support/apiserver.js';
import { createKubeClient, isUnreachable, localEndpoint, registerLocalEndpoint } from './index.js';

/** freePort returns a loopback port nothing listens on (bound, then released). */
async function freePort(): Promise<number> {
  const s = createServer();
  await new Promise<void>((r) => s.listen(0, '127.0.0.1', () => r()));
  const port = (s.address() as { port: number }).port;
  await new Promise<void>((r) => s.close(() => r()));
  return port;
}

test('a registered local endpoint carries requests and watches over the server Unix socket, with the same credentials', async () => {
  const api = await startTestApiServer();
  try {
    const socketPath = api.server.socketPath;
    assert.ok(socketPath, 'the server serves a Unix socket in its data directory');
    assert.equal(statSync(socketPath).mode & 0o777, 0o600);
    // A kubeconfig naming a port nothing listens on: only the socket can answer it.
    const port = await freePort();
    const yaml = api.server.kubeconfigYaml('test').replace(/https:\/\/127\.0\.0\.1:\d+/, `https://127.0.0.1:${port}`);
    const unregister = registerLocalEndpoint(`https://127.0.0.1:${port}`, socketPath);
    assert.equal(localEndpoint(`https://127.0.0.1:${port}/clusters/test`), socketPath);
    assert.equal(localEndpoint(`https://127.0.0.1:${port + 1}/clusters/test`), undefined);
    const client = createKubeClient({ yaml }, { name: 'local' });
    const seen: string[] = [];
    const w = await client.watch({ apiVersion: 'v1', kind: 'ConfigMap' }, { namespace: 'default', labelSelector: 'via=socket' }, (e) => {
      if (e.type !== 'BOOKMARK') seen.push(`${e.type}:${e.object.metadata.name}`);
    });
    await client.create({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'over-socket', namespace: 'default', labels: { via: 'socket' } }, data: { k: 'v' } });
    const got = await client.get({ apiVersion: 'v1', kind: 'ConfigMap', namespace: 'default', name: 'over-socket' });
    assert.deepEqual(got?.data, { k: 'v' });
    for (let i = 0; i < 200 && seen.length === 0; i++) await new Promise((r) => setTimeout(r, 10));
    assert.deepEqual(seen, ['ADDED:over-socket']);
    w.stop();
    client.close();

    // Wrong credentials are refused there as over TCP.
    const stranger = createKubeClient({ yaml: yaml.replace(/token: "[^"]+"/, 'token: "not-a-token"') }, { name: 'stranger' });
    await assert.rejects(stranger.get({ apiVersion: 'v1', kind: 'ConfigMap', namespace: 'default', name: 'over-socket' }), (e: Error & { code?: number }) => e.code === 401);
    stranger.close();

    // Unregistered: the same kubeconfig goes to TCP again, where nothing listens.
    unregister();
    assert.equal(localEndpoint(`https://127.0.0.1:${port}`), undefined);
    const tcp = createKubeClient({ yaml }, { name: 'tcp' });
    await assert.rejects(tcp.get({ apiVersion: 'v1', kind: 'ConfigMap', namespace: 'default', name: 'over-socket' }), (e: unknown) => isUnreachable(e));
    tcp.close();
  } finally {
    await api.stop();
  }
});
