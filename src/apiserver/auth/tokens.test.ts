// ServiceAccount tokens over HTTP against a real server: TokenRequest validation, expiry, audiences, bound objects,
// revocation, survival across a restart (the signing key is in state.db), and worthlessness on another cluster.
import { strict as assert } from 'node:assert';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, test } from 'node:test';
import { startApiServer, type ApiServer, type ClusterInfo } from '../server.js';

const dir = mkdtempSync(join(tmpdir(), 'ripple-tokens-'));
let server: ApiServer | undefined;
after(async () => {
  await server?.stop();
  rmSync(dir, { recursive: true, force: true });
});

async function call(c: ClusterInfo, token: string, method: string, path: string, body?: object): Promise<{ status: number; json: Record<string, any> }> {
  const r = await fetch(c.httpServer + path, { method, headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' }, body: body && JSON.stringify(body) });
  const text = await r.text();
  return { status: r.status, json: text ? (JSON.parse(text) as Record<string, any>) : {} };
}

const whoami = (c: ClusterInfo, token: string) => call(c, token, 'POST', '/apis/authentication.k8s.io/v1/selfsubjectreviews', { apiVersion: 'authentication.k8s.io/v1', kind: 'SelfSubjectReview' });
const tokenFor = async (c: ClusterInfo, sa: string, spec: object = {}) => call(c, c.token, 'POST', `/api/v1/namespaces/default/serviceaccounts/${sa}/token`, { apiVersion: 'authentication.k8s.io/v1', kind: 'TokenRequest', spec });

test('TokenRequest: validation, audience binding, bound objects, revocation, restart, other clusters', async () => {
  server = await startApiServer({ dataDir: dir, clusters: ['one', 'two'], plainHttp: true });
  let one = server.cluster('one');
  const two = server.cluster('two');
  for (const c of [one, two]) assert.equal((await call(c, c.token, 'POST', '/api/v1/namespaces/default/serviceaccounts', { apiVersion: 'v1', kind: 'ServiceAccount', metadata: { name: 'app' } })).status, 201);

  const short = await tokenFor(one, 'app', { expirationSeconds: 60 });
  assert.equal(short.status, 422);
  assert.equal(short.json.message, 'TokenRequest.authentication.k8s.io "app" is invalid: spec.expirationSeconds: Invalid value: 60: may not specify a duration less than 10 minutes');
  assert.equal((await tokenFor(one, 'ghost')).status, 404);

  const r = await tokenFor(one, 'app', { expirationSeconds: 3600 });
  assert.equal(r.status, 201);
  assert.deepEqual(r.json.spec.audiences, ['https://kubernetes.default.svc.cluster.local']);
  const token = r.json.status.token as string;
  const claims = JSON.parse(Buffer.from(token.split('.')[1], 'base64url').toString());
  assert.equal(claims.sub, 'system:serviceaccount:default:app');
  assert.equal(claims.exp - claims.iat, 3600);
  assert.equal(Date.parse(r.json.status.expirationTimestamp) / 1000, claims.exp);
  assert.equal((await whoami(one, token)).json.status.userInfo.username, 'system:serviceaccount:default:app');

  // Another cluster: its own key, so the token is nobody there even with a same-named account.
  assert.equal((await whoami(two, token)).status, 401);
  // A tampered payload does not verify.
  const forged = [token.split('.')[0], Buffer.from(JSON.stringify({ ...claims, sub: 'x' })).toString('base64url'), token.split('.')[2]].join('.');
  assert.equal((await whoami(one, forged)).status, 401);

  // Bound to a Secret: deleting the Secret revokes it.
  const secret = await call(one, one.token, 'POST', '/api/v1/namespaces/default/secrets', { apiVersion: 'v1', kind: 'Secret', metadata: { name: 'anchor' } });
  const bound = await tokenFor(one, 'app', { boundObjectRef: { kind: 'Secret', apiVersion: 'v1', name: 'anchor', uid: secret.json.metadata.uid } });
  assert.equal(bound.status, 201);
  assert.equal((await whoami(one, bound.json.status.token)).status, 201);
  const wrongUid = await tokenFor(one, 'app', { boundObjectRef: { kind: 'Secret', apiVersion: 'v1', name: 'anchor', uid: 'nope' } });
  assert.equal(wrongUid.status, 409);
  await call(one, one.token, 'DELETE', '/api/v1/namespaces/default/secrets/anchor');
  assert.equal((await whoami(one, bound.json.status.token)).status, 401);

  // A restart keeps tokens valid.
  await server.stop();
  server = await startApiServer({ dataDir: dir, plainHttp: true });
  one = server.cluster('one');
  assert.equal((await whoami(one, token)).json.status.userInfo.username, 'system:serviceaccount:default:app');

  // A token review with another audience accepts only tokens issued for it.
  const aud = (await tokenFor(one, 'app', { audiences: ['vault'] })).json.status.token as string;
  assert.equal((await whoami(one, aud)).status, 401, 'not for the API server');
  const review = (t: string, audiences?: string[]) => call(one, one.token, 'POST', '/apis/authentication.k8s.io/v1/tokenreviews', { apiVersion: 'authentication.k8s.io/v1', kind: 'TokenReview', spec: { token: t, audiences } });
  assert.equal((await review(aud, ['vault'])).json.status.authenticated, true);
  assert.equal((await review(aud)).json.status.authenticated, undefined);
  assert.equal((await review(token, ['vault'])).json.status.authenticated, undefined);

  // Deleting the ServiceAccount revokes every token it had.
  await call(one, one.token, 'DELETE', '/api/v1/namespaces/default/serviceaccounts/app');
  assert.equal((await whoami(one, token)).status, 401);
});
