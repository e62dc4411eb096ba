// The RBAC authorizer of one virtual cluster: bindings indexed by subject, the rules a (user, groups, namespace) holds
// cached until an RBAC object changes (the cluster's write listener invalidates them in the same tick, so a binding
// takes effect with the write that creates it), and system:masters short-circuited as kube-apiserver's privileged
// group authorizer does. Go: plugin/pkg/auth/authorizer/rbac/rbac.go, pkg/registry/rbac/validation/rule.go
import type { Cluster } from '../cluster.js';
import { asArray, asRecord } from '../printers.js';
import type { KubeObject, Stored } from '../types.js';
import { normalizeRule, ruleAllows, type Attributes, type PolicyRule, type UserInfo } from './rules.js';

const RBAC = 'rbac.authorization.k8s.io';
/** Storage keys of the four RBAC kinds. */
export const ROLES = `${RBAC}/roles`;
export const CLUSTER_ROLES = `${RBAC}/clusterroles`;
export const ROLE_BINDINGS = `${RBAC}/rolebindings`;
export const CLUSTER_ROLE_BINDINGS = `${RBAC}/clusterrolebindings`;
const RBAC_STORAGE = new Set([ROLES, CLUSTER_ROLES, ROLE_BINDINGS, CLUSTER_ROLE_BINDINGS]);

/** MASTERS is the group every request of which is allowed (kube's privileged group). */
export const MASTERS = 'system:masters';
const SA_PREFIX = 'system:serviceaccount:';
/** Cached rule sets kept at most (a flood of distinct identities clears the cache rather than growing it). */
const MAX_CACHE = 10_000;

/** Decision is an authorizer's answer; reason says why (RBAC resolution errors on a denial). */
export interface Decision {
  allowed: boolean;
  reason: string;
}

/** ResolvedRules are the rules a user holds in a namespace ("" for cluster scope) and the resolution errors met. */
export interface ResolvedRules {
  rules: PolicyRule[];
  /** sources[i] describes the binding rules[i] comes from, as kube's allow reasons name it. */
  sources: string[];
  errors: string[];
}

interface Binding {
  namespace: string;
  roleKind: string;
  roleName: string;
  /** e.g. RoleBinding "b/ns" of ClusterRole "edit" to ServiceAccount "sa/ns" (Go: roleBindingDescriber). */
  describe: string;
}

/** RBACAuthorizer decides requests of one cluster from its Roles, ClusterRoles and bindings. */
export class RBACAuthorizer {
  private index: Map<string, Binding[]> | undefined;
  private readonly cache = new Map<string, ResolvedRules>();
  /** The cache key prefix of a user object (token authentication hands out the same object for the same token). */
  private readonly userKeys = new WeakMap<UserInfo, string>();

  constructor(private readonly cluster: Cluster) {
    cluster.onWrite((storage) => {
      if (!RBAC_STORAGE.has(storage)) return;
      if (storage === ROLE_BINDINGS || storage === CLUSTER_ROLE_BINDINGS) this.index = undefined;
      this.cache.clear();
    });
  }

  /** authorize decides one request. */
  authorize(a: Attributes): Decision {
    if (a.user.groups.includes(MASTERS)) return { allowed: true, reason: '' };
    const resolved = this.rulesFor(a.user, a.namespace);
    const { rules } = resolved;
    for (let i = 0; i < rules.length; i++) if (ruleAllows(a, rules[i])) return { allowed: true, reason: `RBAC: allowed by ${resolved.sources[i]}` };
    return { allowed: false, reason: resolved.errors.length > 0 ? `RBAC: ${aggregate(resolved.errors)}` : '' };
  }

  /** rulesFor lists the rules the user holds in the namespace: cluster-wide bindings, then the namespace's. */
  rulesFor(user: UserInfo, namespace: string): ResolvedRules {
    let prefix = this.userKeys.get(user);
    if (prefix === undefined) this.userKeys.set(user, (prefix = `${user.username}\u0000${user.groups.join('\u0000')}\u0000`));
    const key = prefix + namespace;
    let r = this.cache.get(key);
    if (r) return r;
    r = this.resolve(user, namespace);
    if (this.cache.size >= MAX_CACHE) this.cache.clear();
    this.cache.set(key, r);
    return r;
  }

  /** roleRules resolves a roleRef (of a binding in `namespace`) to its rules, or a not-found error message. */
  roleRules(kind: string, name: string, namespace: string): PolicyRule[] | string {
    const s = kind === 'ClusterRole' ? this.cluster.get(CLUSTER_ROLES, undefined, name) : this.cluster.get(ROLES, namespace, name);
    if (!s) return kind === 'ClusterRole' ? `clusterrole.rbac.authorization.k8s.io ${JSON.stringify(name)} not found` : `role.rbac.authorization.k8s.io ${JSON.stringify(name)} not found`;
    // A stored object never changes (a write stores a new one): its parsed rules are kept with it.
    let rules = parsed.get(s);
    if (!rules) parsed.set(s, (rules = rulesOf(s)));
    return rules;
  }

  private resolve(user: UserInfo, namespace: string): ResolvedRules {
    const index = this.bindingIndex();
    const rules: PolicyRule[] = [];
    const sources: string[] = [];
    const errors: string[] = [];
    const seen = new Set<Binding>();
    const keys = [`U:${user.username}`, ...user.groups.map((g) => `G:${g}`)];
    const add = (b: Binding) => {
      const got = this.roleRules(b.roleKind, b.roleName, b.namespace);
      if (typeof got === 'string') errors.push(got);
      else for (const r of got) rules.push(r), sources.push(b.describe);
    };
    // Cluster role bindings first, as kube visits them.
    for (const k of keys) for (const b of index.get(k) ?? []) if (b.namespace === '' && !seen.has(b)) (seen.add(b), add(b));
    if (namespace) for (const k of keys) for (const b of index.get(k) ?? []) if (b.namespace === namespace && !seen.has(b)) (seen.add(b), add(b));
    return { rules, sources, errors };
  }

  private bindingIndex(): Map<string, Binding[]> {
    if (this.index) return this.index;
    const index = new Map<string, Binding[]>();
    const addTo = (key: string, b: Binding) => {
      let list = index.get(key);
      if (!list) index.set(key, (list = []));
      list.push(b);
    };
    for (const storage of [CLUSTER_ROLE_BINDINGS, ROLE_BINDINGS]) {
      for (const s of this.cluster.table(storage).objects.values()) {
        const ns = s.obj.metadata.namespace ?? '';
        const ref = asRecord(s.obj.roleRef);
        const roleKind = String(ref.kind ?? '');
        const roleName = String(ref.name ?? '');
        const what = storage === ROLE_BINDINGS ? `RoleBinding ${JSON.stringify(`${s.obj.metadata.name}/${ns}`)}` : `ClusterRoleBinding ${JSON.stringify(s.obj.metadata.name)}`;
        const binding = (subject: string): Binding => ({ namespace: ns, roleKind, roleName, describe: `${what} of ${roleKind} ${JSON.stringify(roleName)} to ${subject}` });
        for (const raw of asArray(s.obj.subjects)) {
          const sub = asRecord(raw);
          const name = String(sub.name ?? '');
          switch (sub.kind) {
            case 'User':
              addTo(`U:${name}`, binding(`User ${JSON.stringify(name)}`));
              break;
            case 'Group':
              addTo(`G:${name}`, binding(`Group ${JSON.stringify(name)}`));
              break;
            case 'ServiceAccount': {
              // Go: appliesToUser — the subject's namespace defaults to the binding's.
              const saNs = typeof sub.namespace === 'string' && sub.namespace ? sub.namespace : ns;
              if (saNs) addTo(`U:${SA_PREFIX}${saNs}:${name}`, binding(`ServiceAccount ${JSON.stringify(`${name}/${saNs}`)}`));
              break;
            }
          }
        }
      }
    }
    this.index = index;
    return index;
  }
}

const parsed = new WeakMap<Stored, PolicyRule[]>();

/** rulesOf reads the rules of a stored Role or ClusterRole. */
export function rulesOf(s: Stored | KubeObject): PolicyRule[] {
  const obj = 'obj' in s && s.obj ? (s as Stored).obj : (s as KubeObject);
  return asArray(obj.rules).map(normalizeRule);
}

// Go: utilerrors.NewAggregate(...).Error() — one error as is, several as [a, b].
function aggregate(errors: string[]): string {
  const uniq = [...new Set(errors)];
  return uniq.length === 1 ? uniq[0] : `[${uniq.join(', ')}]`;
}
