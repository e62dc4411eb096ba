// Escalation prevention: creating or updating a Role/ClusterRole needs every permission it grants (or the escalate
// verb on it); creating or updating a binding needs the referenced role's permissions (or the bind verb on it).
// system:masters may do anything. Go: pkg/registry/rbac/{role,clusterrole,rolebinding,clusterrolebinding}/policybased,
// pkg/registry/rbac/escalation_check.go, pkg/registry/rbac/validation/rule.go ConfirmNoEscalation
import { asRecord } from '../printers.js';
import { deepEqual, type KubeObject } from '../types.js';
import { forbiddenStatus } from './attributes.js';
import { MASTERS, rulesOf, type RBACAuthorizer } from './rbac.js';
import { compactRules, compactString, covers, goQuoteList, type PolicyRule, type UserInfo } from './rules.js';

const RBAC = 'rbac.authorization.k8s.io';
const FULL_AUTHORITY: PolicyRule[] = [
  { verbs: ['*'], apiGroups: ['*'], resources: ['*'] },
  { verbs: ['*'], nonResourceURLs: ['*'] },
];

/** escalationMessage says which of `rules` the user does not hold in the namespace, or undefined when it holds all. */
export function escalationMessage(authz: RBACAuthorizer, user: UserInfo, namespace: string, rules: PolicyRule[]): string | undefined {
  const owner = authz.rulesFor(user, namespace);
  const { covered, missing } = covers(owner.rules, rules);
  if (covered) return undefined;
  const descriptions = [...new Set(compactRules(missing).map(compactString))].sort();
  let msg = `user ${JSON.stringify(user.username)} (groups=${goQuoteList(user.groups)}) is attempting to grant RBAC permissions not currently held:\n${descriptions.join('\n')}`;
  if (owner.errors.length > 0) msg += `; resolution errors: [${owner.errors.join(' ')}]`;
  return msg;
}

function allowedVerb(authz: RBACAuthorizer, user: UserInfo, verb: string, resource: string, name: string, namespace: string): boolean {
  return authz.authorize({ user, verb, resourceRequest: true, apiGroup: RBAC, apiVersion: 'v1', resource, subresource: '', name, namespace, path: '' }).allowed;
}

/** guardRoleWrite refuses a Role/ClusterRole write that grants more than its author holds. */
export function guardRoleWrite(authz: RBACAuthorizer | undefined, plural: 'roles' | 'clusterroles', obj: KubeObject, old: KubeObject | undefined, user: UserInfo | undefined): void {
  if (!authz || !user || user.groups.includes(MASTERS)) return;
  const name = obj.metadata?.name ?? '';
  const namespace = plural === 'roles' ? (obj.metadata?.namespace ?? '') : '';
  const rules = rulesOf(obj);
  if (old && deepEqual(rulesOf(old), rules) && deepEqual(old.aggregationRule, obj.aggregationRule)) return;
  if (allowedVerb(authz, user, 'escalate', plural, name, namespace)) return;
  const msg = escalationMessage(authz, user, namespace, rules);
  if (msg) throw forbiddenStatus(RBAC, plural, name, msg);
  if (plural === 'clusterroles' && obj.aggregationRule && escalationMessage(authz, user, '', FULL_AUTHORITY)) {
    throw forbiddenStatus(RBAC, plural, name, 'must have cluster-admin privileges to use the aggregationRule');
  }
}

/** guardBindingWrite refuses a binding to a role whose permissions the author does not hold (without bind on it). */
export function guardBindingWrite(authz: RBACAuthorizer | undefined, plural: 'rolebindings' | 'clusterrolebindings', obj: KubeObject, old: KubeObject | undefined, user: UserInfo | undefined): void {
  if (!authz || !user || user.groups.includes(MASTERS)) return;
  if (old && deepEqual(old.subjects, obj.subjects) && deepEqual(old.roleRef, obj.roleRef)) return;
  const name = obj.metadata?.name ?? '';
  const namespace = plural === 'rolebindings' ? (obj.metadata?.namespace ?? '') : '';
  const ref = asRecord(obj.roleRef);
  const kind = String(ref.kind ?? '');
  const roleName = String(ref.name ?? '');
  const roleResource = kind === 'Role' ? 'roles' : 'clusterroles';
  if (allowedVerb(authz, user, 'bind', roleResource, roleName, namespace)) return;
  const rules = authz.roleRules(kind, roleName, namespace);
  if (typeof rules === 'string') throw forbiddenStatus(RBAC, plural, name, `${roleResource}.${RBAC} ${JSON.stringify(roleName)} not found`);
  const msg = escalationMessage(authz, user, namespace, rules);
  if (msg) throw forbiddenStatus(RBAC, plural, name, msg);
}
