// rbac.authorization.k8s.io/v1: Role, ClusterRole, RoleBinding, ClusterRoleBinding. Stored and validated like
// kube-apiserver (path-segment names, rule shape, immutable roleRef); writes that would grant more than their author
// holds are refused (auth/escalation.ts).
// Go: kubernetes/pkg/apis/rbac/validation/validation.go, pkg/printers/internalversion/printers.go
import type { FieldError } from '../schema/index.js';
import type { KindHooks } from '../resource.js';
import { ageColumn, asArray, asRecord, column, createdAtColumn, formatList, nameColumn } from '../printers.js';
import { goQuote, GoRepr } from '../status.js';
import { isValidPathSegmentName } from '../validation.js';
import { labelSelectorFromMatch, SelectorError } from '../selectors.js';
import type { KubeObject } from '../types.js';
import { defineBuiltin } from './define.js';
import { guardBindingWrite, guardRoleWrite } from '../auth/escalation.js';
import { authorizerOf } from '../auth/lookup.js';

const RBAC_GROUP = 'rbac.authorization.k8s.io';

// Go: ValidatePolicyRule
function validateRules(obj: KubeObject, namespaced: boolean): FieldError[] {
  const errs: FieldError[] = [];
  asArray(obj.rules).forEach((r, i) => {
    const rule = asRecord(r);
    const path = `rules[${i}]`;
    if (asArray(rule.verbs).length === 0) errs.push({ type: 'FieldValueRequired', field: `${path}.verbs`, detail: 'verbs must contain at least one value' });
    const urls = asArray(rule.nonResourceURLs);
    if (urls.length > 0) {
      if (namespaced) errs.push({ type: 'FieldValueInvalid', field: `${path}.nonResourceURLs`, badValue: urls, detail: 'namespaced rules cannot apply to non-resource URLs' });
      if (asArray(rule.apiGroups).length > 0 || asArray(rule.resources).length > 0 || asArray(rule.resourceNames).length > 0) {
        errs.push({ type: 'FieldValueInvalid', field: `${path}.nonResourceURLs`, badValue: urls, detail: 'rules cannot apply to both regular resources and non-resource URLs' });
      }
      return;
    }
    if (asArray(rule.apiGroups).length === 0) errs.push({ type: 'FieldValueRequired', field: `${path}.apiGroups`, detail: 'resource rules must supply at least one api group' });
    if (asArray(rule.resources).length === 0) errs.push({ type: 'FieldValueRequired', field: `${path}.resources`, detail: 'resource rules must supply at least one resource' });
  });
  return errs;
}

// Go: ValidateClusterRole — an aggregationRule needs at least one valid selector.
function validateAggregation(obj: KubeObject): FieldError[] {
  if (obj.aggregationRule === undefined || obj.aggregationRule === null) return [];
  const selectors = asArray(asRecord(obj.aggregationRule).clusterRoleSelectors);
  if (selectors.length === 0) return [{ type: 'FieldValueRequired', field: 'aggregationRule.clusterRoleSelectors', detail: 'at least one clusterRoleSelector required if aggregationRule is non-nil' }];
  const errs: FieldError[] = [];
  selectors.forEach((s, i) => {
    try {
      labelSelectorFromMatch(asRecord(s) as never);
    } catch (e) {
      if (!(e instanceof SelectorError)) throw e;
      errs.push({ type: 'FieldValueInvalid', field: `aggregationRule.clusterRoleSelectors[${i}]`, badValue: s, detail: 'invalid label selector.' });
    }
  });
  return errs;
}

const roleRefRepr = (ref: Record<string, unknown>) =>
  new GoRepr(`rbac.RoleRef{APIGroup:${goQuote(String(ref.apiGroup ?? ''))}, Kind:${goQuote(String(ref.kind ?? ''))}, Name:${goQuote(String(ref.name ?? ''))}}`);

// Go: ValidateRoleBinding / ValidateClusterRoleBinding
function validateBinding(obj: KubeObject, cluster: boolean): FieldError[] {
  const errs: FieldError[] = [];
  const ref = asRecord(obj.roleRef);
  if (ref.apiGroup && ref.apiGroup !== RBAC_GROUP) {
    errs.push({ type: 'FieldValueNotSupported', field: 'roleRef.apiGroup', badValue: ref.apiGroup, detail: `supported values: "${RBAC_GROUP}"` });
  }
  const kinds = cluster ? ['ClusterRole'] : ['Role', 'ClusterRole'];
  if (!kinds.includes(String(ref.kind ?? ''))) {
    errs.push({ type: 'FieldValueNotSupported', field: 'roleRef.kind', badValue: ref.kind ?? '', detail: `supported values: ${kinds.map((k) => `"${k}"`).join(', ')}` });
  }
  if (!ref.name) errs.push({ type: 'FieldValueRequired', field: 'roleRef.name', detail: '' });
  else for (const m of isValidPathSegmentName(String(ref.name))) errs.push({ type: 'FieldValueInvalid', field: 'roleRef.name', badValue: ref.name, detail: m });
  asArray(obj.subjects).forEach((s, i) => {
    const sub = asRecord(s);
    const path = `subjects[${i}]`;
    if (!sub.name) errs.push({ type: 'FieldValueRequired', field: `${path}.name`, detail: '' });
    switch (sub.kind) {
      case 'ServiceAccount':
        if (sub.apiGroup) errs.push({ type: 'FieldValueNotSupported', field: `${path}.apiGroup`, badValue: sub.apiGroup, detail: 'supported values: ""' });
        if (cluster && !sub.namespace) errs.push({ type: 'FieldValueRequired', field: `${path}.namespace`, detail: '' });
        break;
      case 'User':
      case 'Group':
        if (sub.apiGroup !== RBAC_GROUP) errs.push({ type: 'FieldValueNotSupported', field: `${path}.apiGroup`, badValue: sub.apiGroup ?? '', detail: `supported values: "${RBAC_GROUP}"` });
        break;
      default:
        errs.push({ type: 'FieldValueNotSupported', field: `${path}.kind`, badValue: sub.kind ?? '', detail: 'supported values: "ServiceAccount", "User", "Group"' });
    }
  });
  return errs;
}

function bindingHooks(cluster: boolean): KindHooks {
  return {
    authorizeWrite: (obj, old, ctx) => guardBindingWrite(authorizerOf(ctx.cluster), cluster ? 'clusterrolebindings' : 'rolebindings', obj, old, ctx.user),
    validate: (obj) => validateBinding(obj, cluster),
    validateUpdate(obj, old) {
      const errs = validateBinding(obj, cluster);
      const a = asRecord(obj.roleRef);
      const b = asRecord(old.roleRef);
      if (a.apiGroup !== b.apiGroup || a.kind !== b.kind || a.name !== b.name) errs.push({ type: 'FieldValueInvalid', field: 'roleRef', badValue: roleRefRepr(a), detail: 'cannot change roleRef' });
      return errs;
    },
  };
}

const subjectsOf = (o: KubeObject, kind: string) =>
  asArray(o.subjects)
    .map(asRecord)
    .filter((s) => s.kind === kind)
    .map((s) => (kind === 'ServiceAccount' ? `${s.namespace ?? ''}/${s.name}` : String(s.name)));
const bindingColumns = [
  nameColumn,
  column('Role', 'string', (o) => `${asRecord(o.roleRef).kind}/${asRecord(o.roleRef).name}`, { description: 'Role of the binding' }),
  ageColumn,
  column('Users', 'string', (o) => formatList(subjectsOf(o, 'User'), 1e9, ''), { priority: 1, description: 'Users in the binding' }),
  column('Groups', 'string', (o) => formatList(subjectsOf(o, 'Group'), 1e9, ''), { priority: 1, description: 'Groups in the binding' }),
  column('ServiceAccounts', 'string', (o) => formatList(subjectsOf(o, 'ServiceAccount'), 1e9, ''), { priority: 1, description: 'ServiceAccounts in the binding' }),
];

/** roleDescriptor: namespaced RBAC Role. */
export const roleDescriptor = defineBuiltin({
  group: RBAC_GROUP,
  version: 'v1',
  kind: 'Role',
  plural: 'roles',
  namespaced: true,
  nameRule: 'pathSegment',
  allowCreateOnUpdate: true,
  columns: [nameColumn, createdAtColumn],
  hooks: {
    authorizeWrite: (o, old, ctx) => guardRoleWrite(authorizerOf(ctx.cluster), 'roles', o, old, ctx.user),
    validate: (o) => validateRules(o, true),
    validateUpdate: (o) => validateRules(o, true),
  },
});

/** clusterRoleDescriptor: cluster-scoped RBAC ClusterRole. */
export const clusterRoleDescriptor = defineBuiltin({
  group: RBAC_GROUP,
  version: 'v1',
  kind: 'ClusterRole',
  plural: 'clusterroles',
  namespaced: false,
  nameRule: 'pathSegment',
  allowCreateOnUpdate: true,
  columns: [nameColumn, createdAtColumn],
  hooks: {
    authorizeWrite: (o, old, ctx) => guardRoleWrite(authorizerOf(ctx.cluster), 'clusterroles', o, old, ctx.user),
    validate: (o) => [...validateRules(o, false), ...validateAggregation(o)],
    validateUpdate: (o) => [...validateRules(o, false), ...validateAggregation(o)],
  },
});

/** roleBindingDescriptor: namespaced RBAC RoleBinding with an immutable roleRef. */
export const roleBindingDescriptor = defineBuiltin({
  group: RBAC_GROUP,
  version: 'v1',
  kind: 'RoleBinding',
  plural: 'rolebindings',
  namespaced: true,
  nameRule: 'pathSegment',
  allowCreateOnUpdate: true,
  columns: bindingColumns,
  hooks: bindingHooks(false),
});

/** clusterRoleBindingDescriptor: cluster-scoped RBAC ClusterRoleBinding with an immutable roleRef. */
export const clusterRoleBindingDescriptor = defineBuiltin({
  group: RBAC_GROUP,
  version: 'v1',
  kind: 'ClusterRoleBinding',
  plural: 'clusterrolebindings',
  namespaced: false,
  nameRule: 'pathSegment',
  allowCreateOnUpdate: true,
  columns: bindingColumns,
  hooks: bindingHooks(true),
});
