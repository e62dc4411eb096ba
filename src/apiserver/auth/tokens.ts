// ServiceAccount tokens of one virtual cluster: ES256 JWTs signed with the cluster's own key (kept in state.db, so
// tokens survive restarts and a token of one cluster is worthless on every other), issued by the TokenRequest API
// (audience- and expiry-bound, optionally bound to a Pod, Secret or Node) or as legacy token Secrets, and checked on
// every request against what exists now: a deleted ServiceAccount (or bound object) takes its tokens with it.
// Go: pkg/serviceaccount/jwt.go, claims.go, legacy.go; pkg/registry/core/serviceaccount/storage/token.go
import { createPrivateKey, createPublicKey, generateKeyPairSync, randomUUID, sign, verify, createHash, type KeyObject } from 'node:crypto';
import type { Cluster } from '../cluster.js';
import { asArray, asRecord } from '../printers.js';
import type { ActionContext, SubresourceAction } from '../resource.js';
import { conflict, invalid, notFound } from '../status.js';
import type { Store } from '../store.js';
import type { UserInfo } from './rules.js';

/** API_AUDIENCE is the audience the API server accepts (kubeadm's and kind's default, the issuer too). */
export const API_AUDIENCE = 'https://kubernetes.default.svc.cluster.local';
const ISSUER = API_AUDIENCE;
const LEGACY_ISSUER = 'kubernetes/serviceaccount';
const SA_PREFIX = 'system:serviceaccount:';
/** Signature checks remembered (the per-request existence checks still run every time). */
const MAX_VERIFIED = 10_000;

/** serviceAccountUser is who a ServiceAccount authenticates as. */
export function serviceAccountUser(namespace: string, name: string, uid?: string, extra?: Record<string, string[]>): UserInfo {
  const u: UserInfo = { username: `${SA_PREFIX}${namespace}:${name}`, groups: ['system:serviceaccounts', `system:serviceaccounts:${namespace}`, 'system:authenticated'] };
  if (uid) u.uid = uid;
  if (extra && Object.keys(extra).length > 0) u.extra = extra;
  return u;
}

const b64url = (b: Buffer | string) => Buffer.from(b).toString('base64url');

type Claims = Record<string, unknown>;

/** Known is an authenticated token's result and the objects (storage, namespace, name, uid) that must still exist. */
interface Known {
  result: TokenResult;
  exp: number;
  nbf: number;
  deps: [string, string | undefined, string, string][];
  /** A legacy Secret token: checked in full on every use. */
  legacy?: boolean;
}

/** TokenResult is an authenticated token's user and the audiences it was issued for. */
export interface TokenResult {
  user: UserInfo;
  audiences: string[];
}

/** ServiceAccountTokens signs and checks the ServiceAccount tokens of one cluster. */
export class ServiceAccountTokenIssuer {
  private readonly privateKey: KeyObject;
  private readonly publicKey: KeyObject;
  private readonly kid: string;
  private readonly header: string;
  private readonly verified = new Map<string, Claims>();
  /** Authenticated tokens: the result and what it depends on, re-checked (cheaply) on every use. */
  private readonly known = new Map<string, Known>();

  constructor(
    private readonly cluster: Cluster,
    store: Store,
  ) {
    const metaKey = `sa-signing-key/${cluster.name}`;
    let pem = store.getMeta(metaKey);
    if (!pem) {
      pem = generateKeyPairSync('ec', { namedCurve: 'P-256' }).privateKey.export({ type: 'pkcs8', format: 'pem' }).toString();
      store.setMeta(metaKey, pem);
    }
    this.privateKey = createPrivateKey(pem);
    this.publicKey = createPublicKey(this.privateKey);
    this.kid = b64url(createHash('sha256').update(this.publicKey.export({ type: 'spki', format: 'der' })).digest());
    this.header = b64url(JSON.stringify({ alg: 'ES256', kid: this.kid }));
  }

  /** sign makes a JWT of the claims. */
  sign(claims: Claims): string {
    const input = `${this.header}.${b64url(JSON.stringify(claims))}`;
    const sig = sign('sha256', Buffer.from(input), { key: this.privateKey, dsaEncoding: 'ieee-p1363' });
    return `${input}.${b64url(sig)}`;
  }

  // The claims of a token this cluster signed, or undefined.
  private claimsOf(token: string): Claims | undefined {
    const hit = this.verified.get(token);
    if (hit) return hit;
    const parts = token.split('.');
    if (parts.length !== 3) return undefined;
    let claims: Claims;
    try {
      const header = JSON.parse(Buffer.from(parts[0], 'base64url').toString('utf8')) as Claims;
      if (header.alg !== 'ES256') return undefined;
      if (!verify('sha256', Buffer.from(`${parts[0]}.${parts[1]}`), { key: this.publicKey, dsaEncoding: 'ieee-p1363' }, Buffer.from(parts[2], 'base64url'))) return undefined;
      claims = JSON.parse(Buffer.from(parts[1], 'base64url').toString('utf8')) as Claims;
    } catch {
      return undefined;
    }
    if (this.verified.size >= MAX_VERIFIED) this.verified.clear();
    this.verified.set(token, claims);
    return claims;
  }

  /** authenticate checks a bearer token (any audience); undefined when it is not a valid token of this cluster now. */
  authenticate(token: string, nowSeconds = Math.floor(Date.now() / 1000)): TokenResult | undefined {
    if (token.length > 16_384 || token.indexOf('.') < 0) return undefined;
    const k = this.known.get(token);
    if (k) {
      if (nowSeconds >= k.exp || nowSeconds < k.nbf || !k.deps.every(([storage, ns, name, uid]) => this.alive(storage, ns, name, uid))) {
        this.known.delete(token);
        return undefined;
      }
      return k.result;
    }
    const r = this.check(token, nowSeconds);
    if (r && !r.legacy) {
      if (this.known.size >= MAX_VERIFIED) this.known.clear();
      this.known.set(token, r);
    }
    return r?.result;
  }

  private alive(storage: string, namespace: string | undefined, name: string, uid: string): boolean {
    const s = this.cluster.get(storage, namespace, name);
    return !!s && s.obj.metadata.uid === uid && !s.obj.metadata.deletionTimestamp;
  }

  private check(token: string, nowSeconds: number): Known | undefined {
    const c = this.claimsOf(token);
    if (!c) return undefined;
    if (c.iss === LEGACY_ISSUER) return this.legacy(token, c);
    if (c.iss !== ISSUER) return undefined;
    if (typeof c.exp !== 'number' || nowSeconds >= c.exp) return undefined;
    const nbf = typeof c.nbf === 'number' ? c.nbf : 0;
    if (nowSeconds < nbf) return undefined;
    const k = asRecord(c['kubernetes.io']);
    const namespace = String(k.namespace ?? '');
    const sa = asRecord(k.serviceaccount);
    const deps: Known['deps'] = [['/serviceaccounts', namespace, String(sa.name ?? ''), String(sa.uid ?? '')]];
    const extra: Record<string, string[]> = {};
    for (const [kind, storage, ns] of [['pod', '/pods', namespace], ['secret', '/secrets', namespace], ['node', '/nodes', undefined]] as const) {
      const ref = k[kind];
      if (!ref) continue;
      const r = asRecord(ref);
      deps.push([storage, ns, String(r.name ?? ''), String(r.uid ?? '')]);
      if (kind !== 'secret') {
        extra[`authentication.kubernetes.io/${kind}-name`] = [String(r.name)];
        extra[`authentication.kubernetes.io/${kind}-uid`] = [String(r.uid)];
      }
    }
    if (!deps.every(([storage, ns, name, uid]) => this.alive(storage, ns, name, uid))) return undefined;
    if (typeof c.jti === 'string') extra['authentication.kubernetes.io/credential-id'] = [`JTI=${c.jti}`];
    return { result: { user: serviceAccountUser(namespace, String(sa.name), String(sa.uid), extra), audiences: asArray(c.aud).map(String) }, exp: c.exp, nbf, deps };
  }

  // Go: legacy.go — the Secret must still exist and hold this very token, and the ServiceAccount its uid.
  private legacy(token: string, c: Claims): Known | undefined {
    const namespace = String(c['kubernetes.io/serviceaccount/namespace'] ?? '');
    const secretName = String(c['kubernetes.io/serviceaccount/secret.name'] ?? '');
    const saName = String(c['kubernetes.io/serviceaccount/service-account.name'] ?? '');
    const saUid = String(c['kubernetes.io/serviceaccount/service-account.uid'] ?? '');
    const secret = this.cluster.get('/secrets', namespace, secretName);
    if (!secret || secret.obj.metadata.deletionTimestamp) return undefined;
    const stored = asRecord(secret.obj.data).token;
    if (typeof stored !== 'string' || Buffer.from(stored, 'base64').toString('utf8') !== token) return undefined;
    if (!this.alive('/serviceaccounts', namespace, saName, saUid)) return undefined;
    // Not remembered (legacy): the Secret must hold this very token at every use, which its uid cannot vouch for.
    return { legacy: true, result: { user: serviceAccountUser(namespace, saName, saUid), audiences: [API_AUDIENCE] }, exp: Number.MAX_SAFE_INTEGER, nbf: 0, deps: [['/secrets', namespace, secretName, String(secret.obj.metadata.uid ?? '')], ['/serviceaccounts', namespace, saName, saUid]] };
  }

  /** legacyToken is the long-lived token a kubernetes.io/service-account-token Secret gets. */
  legacyToken(namespace: string, secretName: string, saName: string, saUid: string): string {
    return this.sign({
      iss: LEGACY_ISSUER,
      'kubernetes.io/serviceaccount/namespace': namespace,
      'kubernetes.io/serviceaccount/secret.name': secretName,
      'kubernetes.io/serviceaccount/service-account.name': saName,
      'kubernetes.io/serviceaccount/service-account.uid': saUid,
      sub: `${SA_PREFIX}${namespace}:${saName}`,
    });
  }

  /** request answers a TokenRequest for a ServiceAccount. Go: TokenREST.Create */
  request(ctx: ActionContext): { code: number; obj: object } {
    const account = this.cluster.get('/serviceaccounts', ctx.namespace, ctx.name);
    if (!account) throw notFound({ group: '', resource: 'serviceaccounts' }, ctx.name);
    const body = asRecord(ctx.body);
    const spec = asRecord(body.spec);
    const expirationSeconds = spec.expirationSeconds === undefined || spec.expirationSeconds === null ? 3600 : Number(spec.expirationSeconds);
    const errs = [];
    if (!Number.isInteger(expirationSeconds) || expirationSeconds < 600) errs.push({ type: 'FieldValueInvalid' as const, field: 'spec.expirationSeconds', badValue: spec.expirationSeconds, detail: 'may not specify a duration less than 10 minutes' });
    else if (expirationSeconds > 2 ** 32) errs.push({ type: 'FieldValueTooLong' as const, field: 'spec.expirationSeconds', badValue: spec.expirationSeconds, detail: 'may not specify a duration larger than 2^32 seconds' });
    const audiences = asArray(spec.audiences).map(String);
    const ref = spec.boundObjectRef ? asRecord(spec.boundObjectRef) : undefined;
    const refKinds: Record<string, [string, boolean]> = { Pod: ['/pods', true], Secret: ['/secrets', true], Node: ['/nodes', false] };
    if (ref && !refKinds[String(ref.kind)]) errs.push({ type: 'FieldValueNotSupported' as const, field: 'spec.boundObjectRef.kind', badValue: ref.kind ?? '', detail: 'supported values: "Node", "Pod", "Secret"' });
    if (errs.length > 0) throw invalid({ group: 'authentication.k8s.io', kind: 'TokenRequest' }, ctx.name, errs);
    const now = Math.floor(Date.now() / 1000);
    const k: Claims = { namespace: ctx.namespace, serviceaccount: { name: ctx.name, uid: account.obj.metadata.uid } };
    let boundRef: Claims | undefined;
    if (ref) {
      const [storage, namespaced] = refKinds[String(ref.kind)];
      const name = String(ref.name ?? '');
      const obj = this.cluster.get(storage, namespaced ? ctx.namespace : undefined, name);
      const plural = storage.slice(1);
      if (!obj) throw notFound({ group: '', resource: plural }, name);
      if (ref.uid && ref.uid !== obj.obj.metadata.uid) {
        throw conflict({ group: '', resource: plural }, name, `the UID in the bound object reference (${String(ref.uid)}) does not match the UID in record. The object might have been deleted and then recreated`);
      }
      k[String(ref.kind).toLowerCase()] = { name, uid: obj.obj.metadata.uid };
      boundRef = { kind: ref.kind, apiVersion: ref.apiVersion ?? 'v1', name, uid: obj.obj.metadata.uid };
    }
    const jti = randomUUID();
    const exp = now + expirationSeconds;
    const aud = audiences.length > 0 ? audiences : [API_AUDIENCE];
    const token = this.sign({ aud, exp, iat: now, iss: ISSUER, jti, 'kubernetes.io': k, nbf: now, sub: `${SA_PREFIX}${ctx.namespace}:${ctx.name}` });
    const created = new Date(now * 1000).toISOString().replace(/\.\d{3}Z$/, 'Z');
    return {
      code: 201,
      obj: {
        kind: 'TokenRequest',
        apiVersion: 'authentication.k8s.io/v1',
        metadata: { name: ctx.name, namespace: ctx.namespace, creationTimestamp: created },
        spec: { audiences: aud, expirationSeconds, boundObjectRef: boundRef ?? null },
        status: { token, expirationTimestamp: new Date(exp * 1000).toISOString().replace(/\.\d{3}Z$/, 'Z') },
      },
    };
  }
}

/** tokenAction is serviceaccounts/token (TokenRequest); the cluster's issuer is found through `issuerOf`. */
export function tokenAction(issuerOf: (cluster: Cluster) => ServiceAccountTokenIssuer | undefined): SubresourceAction {
  return {
    name: 'token',
    verbs: ['create'],
    kind: { group: 'authentication.k8s.io', version: 'v1', kind: 'TokenRequest' },
    run(ctx) {
      const issuer = issuerOf(ctx.cluster);
      if (!issuer) throw notFound({ group: '', resource: 'serviceaccounts' }, ctx.name);
      return issuer.request(ctx);
    },
  };
}
