// Review resources (create-only, never stored): access reviews for `kubectl auth can-i` (decided by the cluster's
// RBAC authorizer, system:masters always allowed), the rules review for `can-i --list`, and SelfSubjectReview /
// TokenReview for `kubectl auth whoami` and token checks.
// Go: kubernetes/pkg/registry/authorization/*, pkg/registry/authentication/*, pkg/apis/authorization/validation
import type { HookContext, KindHooks } from '../resource.js';
import { asArray, asRecord } from '../printers.js';
import { invalid } from '../status.js';
import type { KubeObject } from '../types.js';
import { defineBuiltin } from './define.js';
import { clusterAuthOf } from '../auth/lookup.js';
import { adminUser } from '../auth/cluster-auth.js';
import type { Attributes, UserInfo } from '../auth/rules.js';

// A review answers with the object it was sent, status filled in, and metadata as kube returns it.
function reviewed(obj: KubeObject, status: Record<string, unknown>): KubeObject {
  return { ...obj, metadata: { ...(obj.metadata ?? {}), creationTimestamp: null }, status };
}

const requester = (ctx: HookContext): UserInfo => ctx.user ?? adminUser(ctx.cluster.name);

function userInfoJson(u: UserInfo): Record<string, unknown> {
  const out: Record<string, unknown> = { username: u.username };
  if (u.uid) out.uid = u.uid;
  out.groups = u.groups;
  if (u.extra) out.extra = u.extra;
  return out;
}

// Go: ValidateSubjectAccessReviewSpec — exactly one of resourceAttributes or nonResourceAttributes.
function attributesOf(obj: KubeObject, kind: string, user: UserInfo): Attributes {
  const spec = asRecord(obj.spec);
  const ra = spec.resourceAttributes ? asRecord(spec.resourceAttributes) : undefined;
  const nra = spec.nonResourceAttributes ? asRecord(spec.nonResourceAttributes) : undefined;
  if ((ra && nra) || (!ra && !nra)) {
    throw invalid({ group: 'authorization.k8s.io', kind }, '', [{ type: 'FieldValueInvalid', field: 'spec.resourceAttributes', badValue: spec.resourceAttributes ?? null, detail: 'exactly one of nonResourceAttributes or resourceAttributes must be specified' }]);
  }
  if (nra) return { user, verb: String(nra.verb ?? ''), resourceRequest: false, apiGroup: '', apiVersion: '', resource: '', subresource: '', name: '', namespace: '', path: String(nra.path ?? '') };
  const s = (k: string) => String(ra![k] ?? '');
  return { user, verb: s('verb'), resourceRequest: true, apiGroup: s('group'), apiVersion: s('version'), resource: s('resource'), subresource: s('subresource'), name: s('name'), namespace: s('namespace'), path: '' };
}

function decide(ctx: HookContext, a: Attributes): Record<string, unknown> {
  const authz = clusterAuthOf(ctx.cluster)?.authorizer;
  const d = authz ? authz.authorize(a) : { allowed: true, reason: '' };
  const status: Record<string, unknown> = { allowed: d.allowed };
  if (d.reason) status.reason = d.reason;
  return status;
}

function subjectOf(obj: KubeObject, kind: string): UserInfo {
  const spec = asRecord(obj.spec);
  const user = String(spec.user ?? '');
  const groups = asArray(spec.groups).map(String);
  if (!user && groups.length === 0) throw invalid({ group: 'authorization.k8s.io', kind }, '', [{ type: 'FieldValueInvalid', field: 'spec.user', badValue: '', detail: 'at least one of user or group must be specified' }]);
  const u: UserInfo = { username: user, groups };
  if (spec.uid) u.uid = String(spec.uid);
  if (spec.extra) u.extra = spec.extra as Record<string, string[]>;
  return u;
}

const selfAccessReview: KindHooks = { review: (obj, ctx) => reviewed(obj, decide(ctx, attributesOf(obj, 'SelfSubjectAccessReview', requester(ctx)))) };
const subjectAccessReview: KindHooks = { review: (obj, ctx) => reviewed(obj, decide(ctx, attributesOf(obj, 'SubjectAccessReview', subjectOf(obj, 'SubjectAccessReview')))) };
const localSubjectAccessReview: KindHooks = {
  review(obj, ctx) {
    const a = attributesOf(obj, 'LocalSubjectAccessReview', subjectOf(obj, 'LocalSubjectAccessReview'));
    const ns = obj.metadata?.namespace ?? '';
    if (!a.resourceRequest) throw invalid({ group: 'authorization.k8s.io', kind: 'LocalSubjectAccessReview' }, '', [{ type: 'FieldValueInvalid', field: 'spec.nonResourceAttributes', badValue: asRecord(obj.spec).nonResourceAttributes, detail: 'disallowed on this kind of request' }]);
    if (a.namespace !== ns) throw invalid({ group: 'authorization.k8s.io', kind: 'LocalSubjectAccessReview' }, '', [{ type: 'FieldValueInvalid', field: 'spec.resourceAttributes.namespace', badValue: a.namespace, detail: 'must match metadata.namespace' }]);
    return reviewed(obj, decide(ctx, a));
  },
};

// Go: SelfSubjectRulesREST — the rules of the requester in the namespace, split into resource and non-resource rules.
function rulesReview(obj: KubeObject, ctx: HookContext): KubeObject {
  const ns = String(asRecord(obj.spec).namespace ?? '');
  const authz = clusterAuthOf(ctx.cluster)?.authorizer;
  if (!authz) return reviewed(obj, { resourceRules: [{ verbs: ['*'], apiGroups: ['*'], resources: ['*'] }], nonResourceRules: [{ verbs: ['*'], nonResourceURLs: ['*'] }], incomplete: false });
  const { rules, errors } = authz.rulesFor(requester(ctx), ns);
  const resourceRules = [];
  const nonResourceRules = [];
  for (const r of rules) {
    if ((r.nonResourceURLs ?? []).length > 0) nonResourceRules.push({ verbs: r.verbs, nonResourceURLs: r.nonResourceURLs });
    else {
      const rr: Record<string, unknown> = { verbs: r.verbs };
      if (r.apiGroups) rr.apiGroups = r.apiGroups;
      if (r.resources) rr.resources = r.resources;
      if (r.resourceNames) rr.resourceNames = r.resourceNames;
      resourceRules.push(rr);
    }
  }
  const status: Record<string, unknown> = { resourceRules, nonResourceRules, incomplete: errors.length > 0 };
  if (errors.length > 0) status.evaluationError = errors.length === 1 ? errors[0] : `[${errors.join(', ')}]`;
  return reviewed(obj, status);
}

// Go: TokenReview REST — the token is checked for spec.audiences (default: the API server's).
function tokenReview(obj: KubeObject, ctx: HookContext): KubeObject {
  const spec = asRecord(obj.spec);
  const token = typeof spec.token === 'string' ? spec.token : '';
  if (!token) throw invalid({ group: 'authentication.k8s.io', kind: 'TokenReview' }, '', [{ type: 'FieldValueRequired', field: 'spec.token', detail: '' }]);
  const audiences = asArray(spec.audiences).map(String);
  const auth = clusterAuthOf(ctx.cluster);
  const r = auth?.authenticateToken(token, audiences);
  if (!r) return reviewed(obj, { user: {}, error: '[invalid bearer token, token lookup failed]' });
  return reviewed(obj, { authenticated: true, user: userInfoJson(r.user), audiences: r.audiences });
}

const create = ['create'];

/** reviewDescriptors are the authorization.k8s.io and authentication.k8s.io review kinds. */
export const reviewDescriptors = [
  defineBuiltin({ group: 'authorization.k8s.io', version: 'v1', kind: 'SelfSubjectAccessReview', plural: 'selfsubjectaccessreviews', namespaced: false, verbs: create, hooks: selfAccessReview }),
  defineBuiltin({ group: 'authorization.k8s.io', version: 'v1', kind: 'SubjectAccessReview', plural: 'subjectaccessreviews', namespaced: false, verbs: create, hooks: subjectAccessReview }),
  defineBuiltin({ group: 'authorization.k8s.io', version: 'v1', kind: 'LocalSubjectAccessReview', plural: 'localsubjectaccessreviews', namespaced: true, verbs: create, hooks: localSubjectAccessReview }),
  defineBuiltin({ group: 'authorization.k8s.io', version: 'v1', kind: 'SelfSubjectRulesReview', plural: 'selfsubjectrulesreviews', namespaced: false, verbs: create, hooks: { review: rulesReview } }),
  defineBuiltin({
    group: 'authentication.k8s.io',
    version: 'v1',
    kind: 'SelfSubjectReview',
    plural: 'selfsubjectreviews',
    namespaced: false,
    verbs: create,
    hooks: { review: (obj, ctx) => reviewed(obj, { userInfo: userInfoJson(requester(ctx)) }) },
  }),
  defineBuiltin({ group: 'authentication.k8s.io', version: 'v1', kind: 'TokenReview', plural: 'tokenreviews', namespaced: false, verbs: create, hooks: { review: tokenReview } }),
];
