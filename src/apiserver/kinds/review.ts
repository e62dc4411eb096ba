// Review resources (create-only, never stored): access reviews for `kubectl auth can-i`, the rules review, and
// SelfSubjectReview / TokenReview for `kubectl auth whoami`. The embedded server does not authorize: every valid
// token of a cluster acts as its administrator, and the reviews say so.
// Go: kubernetes/pkg/registry/authorization/*, pkg/registry/authentication/*
import type { HookContext, KindHooks } from '../resource.js';
import { asRecord } from '../printers.js';
import type { KubeObject } from '../types.js';
import { defineBuiltin } from './define.js';

const ALLOWED = { allowed: true, reason: 'the embedded Ripple API server gives every valid cluster token full access' };
/** ADMIN_USER is who a cluster's token authenticates as. */
const adminUser = (ctx: HookContext) => ({ username: `ripple:${ctx.cluster.name}:admin`, groups: ['system:masters', 'system:authenticated'] });

// A review answers with the object it was sent, status filled in, and metadata as kube returns it.
function reviewed(obj: KubeObject, status: Record<string, unknown>): KubeObject {
  return { ...obj, metadata: { ...(obj.metadata ?? {}), creationTimestamp: null }, status };
}

const accessReview: KindHooks = { review: (obj) => reviewed(obj, ALLOWED) };

const create = ['create'];

/** reviewDescriptors are the authorization.k8s.io and authentication.k8s.io review kinds. */
export const reviewDescriptors = [
  defineBuiltin({ group: 'authorization.k8s.io', version: 'v1', kind: 'SelfSubjectAccessReview', plural: 'selfsubjectaccessreviews', namespaced: false, verbs: create, hooks: accessReview }),
  defineBuiltin({ group: 'authorization.k8s.io', version: 'v1', kind: 'SubjectAccessReview', plural: 'subjectaccessreviews', namespaced: false, verbs: create, hooks: accessReview }),
  defineBuiltin({ group: 'authorization.k8s.io', version: 'v1', kind: 'LocalSubjectAccessReview', plural: 'localsubjectaccessreviews', namespaced: true, verbs: create, hooks: accessReview }),
  defineBuiltin({
    group: 'authorization.k8s.io',
    version: 'v1',
    kind: 'SelfSubjectRulesReview',
    plural: 'selfsubjectrulesreviews',
    namespaced: false,
    verbs: create,
    hooks: {
      review: (obj) =>
        reviewed(obj, {
          resourceRules: [{ verbs: ['*'], apiGroups: ['*'], resources: ['*'] }],
          nonResourceRules: [{ verbs: ['*'], nonResourceURLs: ['*'] }],
          incomplete: false,
        }),
    },
  }),
  defineBuiltin({
    group: 'authentication.k8s.io',
    version: 'v1',
    kind: 'SelfSubjectReview',
    plural: 'selfsubjectreviews',
    namespaced: false,
    verbs: create,
    hooks: { review: (obj, ctx) => reviewed(obj, { userInfo: adminUser(ctx) }) },
  }),
  defineBuiltin({
    group: 'authentication.k8s.io',
    version: 'v1',
    kind: 'TokenReview',
    plural: 'tokenreviews',
    namespaced: false,
    verbs: create,
    hooks: {
      review: (obj, ctx) => {
        const token = asRecord(obj.spec).token;
        return reviewed(obj, token === ctx.cluster.token ? { authenticated: true, user: adminUser(ctx) } : { authenticated: false, error: 'invalid bearer token' });
      },
    },
  }),
];
