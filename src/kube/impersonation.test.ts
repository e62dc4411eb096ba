// Impersonation: a client built by impersonating() sends kube's Impersonate-* headers with the same credentials;
// the original client keeps sending none.
import { strict as assert } from 'node:assert';
import { createServer, type IncomingHttpHeaders } from 'node:http';
import { test } from 'node:test';
import { createKubeClient } from './index.js';

test('impersonating() sends Impersonate-User, one Impersonate-Group per group and Impersonate-Uid', async () => {
  const seen: IncomingHttpHeaders[] = [];
  const rawGroups: string[][] = [];
  const srv = createServer((req, res) => {
    seen.push(req.headers);
    const groups: string[] = [];
    for (let i = 0; i < req.rawHeaders.length; i += 2) if (req.rawHeaders[i]!.toLowerCase() === 'impersonate-group') groups.push(req.rawHeaders[i + 1]!);
    rawGroups.push(groups);
    res.setHeader('Content-Type', 'application/json');
    res.end(JSON.stringify({ kind: 'ConfigMap', apiVersion: 'v1', metadata: { name: 'x', namespace: 'd' } }));
  });
  await new Promise<void>((r) => srv.listen(0, '127.0.0.1', r));
  const port = (srv.address() as { port: number }).port;
  const yaml = `apiVersion: v1
kind: Config
clusters: [{name: c, cluster: {server: "http://127.0.0.1:${port}"}}]
users: [{name: u, user: {token: secret-token}}]
contexts: [{name: c, context: {cluster: c, user: u}}]
current-context: c
`;
  const admin = createKubeClient({ yaml });
  const tenant = admin.impersonating({ user: 'system:serviceaccount:tenants:eng', groups: ['system:serviceaccounts', 'system:authenticated'], uid: 'u-1' });
  try {
    await tenant.request({ method: 'GET', path: '/api/v1/namespaces/d/configmaps/x' });
    await admin.request({ method: 'GET', path: '/api/v1/namespaces/d/configmaps/x' });
    assert.equal(seen[0]!.authorization, 'Bearer secret-token');
    assert.equal(seen[0]!['impersonate-user'], 'system:serviceaccount:tenants:eng');
    assert.equal(seen[0]!['impersonate-uid'], 'u-1');
    assert.deepEqual(rawGroups[0], ['system:serviceaccounts', 'system:authenticated']);
    assert.equal(seen[1]!.authorization, 'Bearer secret-token');
    assert.equal(seen[1]!['impersonate-user'], undefined, 'the original client is not affected');
    assert.deepEqual(tenant.impersonation?.user, 'system:serviceaccount:tenants:eng');
    assert.equal(admin.impersonation, undefined);
  } finally {
    tenant.close();
    admin.close();
    await new Promise<void>((r) => srv.close(() => r()));
  }
});
