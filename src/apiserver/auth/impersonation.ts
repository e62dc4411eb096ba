// Impersonation: Impersonate-User, -Group, -Uid and -Extra-* headers make a request act as another identity when the
// requester may `impersonate` each part (users or serviceaccounts, groups, uids, userextras/KEY), as kube-apiserver's
// impersonation filter does; system:authenticated is added unless the groups already say (un)authenticated.
// Go: k8s.io/apiserver pkg/endpoints/filters/impersonation.go
import type { IncomingMessage } from 'node:http';
import { isValidPathSegmentName } from '../validation.js';
import { StatusError, type Status } from '../status.js';
import { forbiddenError } from './attributes.js';
import type { RBACAuthorizer } from './rbac.js';
import type { Attributes, UserInfo } from './rules.js';

const SA_PREFIX = 'system:serviceaccount:';
const EXTRA_PREFIX = 'impersonate-extra-';

function headerValues(req: IncomingMessage, name: string): string[] {
  const v = req.headers[name];
  if (v === undefined) return [];
  return (Array.isArray(v) ? v : [v]).flatMap((x) => (name === 'impersonate-user' || name === 'impersonate-uid' ? [x] : x.split(',').map((s) => s.trim()))).filter((x) => x !== '');
}

function internalError(message: string): StatusError {
  return new StatusError({ kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Failure', message: `Internal error occurred: ${message}`, reason: 'InternalError', details: { causes: [{ message }] }, code: 500 } as unknown as Status);
}

/** hasImpersonation tells whether a request carries impersonation headers (cheap: checked on every request). */
export function hasImpersonation(req: IncomingMessage): boolean {
  for (const k in req.headers) if (k.startsWith('impersonate-')) return true;
  return false;
}

/** impersonate returns the identity the request acts as, checking the requester may impersonate every part of it. */
export function impersonate(req: IncomingMessage, requester: UserInfo, authz: RBACAuthorizer | undefined): UserInfo {
  const users = headerValues(req, 'impersonate-user');
  const groups = headerValues(req, 'impersonate-group');
  const uids = headerValues(req, 'impersonate-uid');
  const extra: Record<string, string[]> = {};
  for (const k in req.headers) {
    if (!k.startsWith(EXTRA_PREFIX)) continue;
    let key = k.slice(EXTRA_PREFIX.length);
    try {
      key = decodeURIComponent(key);
    } catch {
      // Go: unescapeExtraKey keeps a key it cannot unescape as it is.
    }
    extra[key] = headerValues(req, k);
  }
  const others = [...groups.map((g) => `groups=${g}`), ...uids.map((u) => `uid=${u}`), ...Object.keys(extra).map((k) => `extra=${k}`)];
  if (users.length === 0) {
    if (others.length > 0) throw internalError(`requested [${others.join(' ')}] without impersonating a user`);
    return requester;
  }
  if (users.length > 1) throw internalError('only one Impersonate-User header may be given');
  const username = users[0];
  const check = (a: Omit<Attributes, 'user' | 'verb' | 'resourceRequest' | 'apiVersion' | 'path'>) => {
    const attrs: Attributes = { user: requester, verb: 'impersonate', resourceRequest: true, apiVersion: '', path: '', ...a };
    const d = authz ? authz.authorize(attrs) : { allowed: requester.groups.includes('system:masters'), reason: '' };
    if (!d.allowed) throw forbiddenError(attrs, d.reason);
  };
  let resultGroups = [...groups];
  if (username.startsWith(SA_PREFIX)) {
    const [namespace, name] = username.slice(SA_PREFIX.length).split(':');
    if (!namespace || !name || isValidPathSegmentName(name).length > 0) throw internalError(`invalid service account username ${JSON.stringify(username)}`);
    check({ apiGroup: '', resource: 'serviceaccounts', subresource: '', name, namespace });
    if (groups.length === 0) resultGroups = ['system:serviceaccounts', `system:serviceaccounts:${namespace}`];
  } else {
    check({ apiGroup: '', resource: 'users', subresource: '', name: username, namespace: '' });
  }
  for (const g of groups) check({ apiGroup: '', resource: 'groups', subresource: '', name: g, namespace: '' });
  for (const u of uids) check({ apiGroup: 'authentication.k8s.io', resource: 'uids', subresource: '', name: u, namespace: '' });
  for (const [k, values] of Object.entries(extra)) for (const v of values) check({ apiGroup: 'authentication.k8s.io', resource: 'userextras', subresource: k, name: v, namespace: '' });
  if (username !== 'system:anonymous') {
    if (!resultGroups.some((g) => g === 'system:authenticated' || g === 'system:unauthenticated')) resultGroups.push('system:authenticated');
  } else if (!resultGroups.includes('system:unauthenticated')) resultGroups.push('system:unauthenticated');
  const out: UserInfo = { username, groups: resultGroups };
  if (uids.length > 0) out.uid = uids[0];
  if (Object.keys(extra).length > 0) out.extra = extra;
  return out;
}
