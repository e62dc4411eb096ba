// Validating admission policies: every ValidatingAdmissionPolicyBinding whose policy matches a create or update has the
// policy's CEL validations evaluated on the object (object, oldObject, request, params, namespaceObject, variables);
// a false validation denies the request (Deny), adds a warning (Warn) or is ignored (Audit). Policies are compiled
// once per resourceVersion; a policy with paramKind is evaluated once per parameter object its binding's paramRef
// selects. Not evaluated: the authorizer variable. Admission webhooks: webhooks.ts.
// Go: k8s.io/apiserver/pkg/admission/plugin/policy/validating
import { Environment, type ParseResult } from '@marcbachmann/cel-js';
import type { Cluster } from './cluster.js';
import { asArray, asRecord } from './printers.js';
import type { ResourceDescriptor } from './resource.js';
import { labelSelectorFromMatch, SelectorError } from './selectors.js';
import { forbidden, StatusError } from './status.js';
import { tenantLabelDecision } from '../api/index.js';
import { isPlainObject, type KubeObject } from './types.js';

const POLICIES = 'admissionregistration.k8s.io/validatingadmissionpolicies';
const BINDINGS = 'admissionregistration.k8s.io/validatingadmissionpolicybindings';
const VARIABLES = ['object', 'oldObject', 'request', 'params', 'namespaceObject', 'variables'];

let env: Environment | undefined;
function celEnv(): Environment {
  if (!env) {
    env = new Environment({ homogeneousAggregateLiterals: false });
    for (const v of VARIABLES) env.registerVariable(v, 'dyn');
  }
  return env;
}

const programs = new Map<string, ParseResult | Error>();
function compile(expr: string): ParseResult | Error {
  let p = programs.get(expr);
  if (!p) {
    try {
      p = celEnv().parse(expr);
    } catch (e) {
      p = e instanceof Error ? e : new Error(String(e));
    }
    if (programs.size > 10_000) programs.clear();
    programs.set(expr, p);
  }
  return p;
}

// CEL integers are int64: integral JSON numbers become BigInt (as cel-go sees the typed object).
export function toCel(v: unknown): unknown {
  if (typeof v === 'number') return Number.isInteger(v) && Number.isSafeInteger(v) ? BigInt(v) : v;
  if (v === null || typeof v !== 'object') return v;
  if (Array.isArray(v)) return v.map(toCel);
  const out: Record<string, unknown> = {};
  for (const k in v as Record<string, unknown>) out[k] = toCel((v as Record<string, unknown>)[k]);
  return out;
}

/** AdmissionRequest is what one write looks like to admission. */
export interface AdmissionRequest {
  operation: 'CREATE' | 'UPDATE';
  desc: ResourceDescriptor;
  version: string;
  subresource?: string;
  namespace: string;
  name: string;
  /** The object and the previous one, in the request's version. */
  object: KubeObject;
  oldObject?: KubeObject;
  dryRun: boolean;
  username: string;
  /** Groups of the requester (default: the admin's, system:masters and system:authenticated). */
  groups?: string[];
  warnings: string[];
}

function listMatches(list: unknown, value: string): boolean {
  const l = asArray(list).map(String);
  return l.includes('*') || l.includes(value);
}

// Go: matching.Matcher — a rule names operations, groups, versions, resources (with "/subresource"), and a scope.
export function ruleMatches(rule: Record<string, unknown>, r: Pick<AdmissionRequest, 'operation' | 'desc' | 'version' | 'subresource'> | { operation: string; desc: ResourceDescriptor; version: string; subresource?: string }): boolean {
  const resource = r.subresource ? `${r.desc.plural}/${r.subresource}` : r.desc.plural;
  const resources = asArray(rule.resources).map(String);
  const resourceOk = resources.some((x) => x === '*' || x === resource || (x === '*/*' && !!r.subresource) || (r.subresource && x === `${r.desc.plural}/*`) || (r.subresource && x === `*/${r.subresource}`));
  const scope = rule.scope ?? '*';
  const scopeOk = scope === '*' || (scope === 'Namespaced') === r.desc.namespaced;
  return listMatches(rule.operations, r.operation) && listMatches(rule.apiGroups, r.desc.group) && listMatches(rule.apiVersions, r.version) && resourceOk && scopeOk;
}

export function selects(selector: unknown, labels: Record<string, string>): boolean {
  if (!isPlainObject(selector)) return true;
  try {
    return labelSelectorFromMatch(selector as never).matches(labels);
  } catch (e) {
    if (e instanceof SelectorError) return false;
    throw e;
  }
}

function matchResources(match: unknown, r: AdmissionRequest, nsLabels: Record<string, string> | undefined): boolean {
  if (!isPlainObject(match)) return true;
  const rules = asArray(match.resourceRules).map(asRecord);
  if (rules.length > 0 && !rules.some((x) => ruleMatches(x, r))) return false;
  if (asArray(match.excludeResourceRules).map(asRecord).some((x) => ruleMatches(x, r))) return false;
  if (nsLabels && !selects(match.namespaceSelector, nsLabels)) return false;
  return selects(match.objectSelector, (r.object.metadata?.labels ?? {}) as Record<string, string>);
}

export function evaluateCel(expr: string, vars: Record<string, unknown>): unknown {
  const p = compile(expr);
  if (p instanceof Error) throw p;
  return p(vars);
}

function deny(kind: string, name: string, message: string, reason: string): StatusError {
  const code = reason === 'Forbidden' ? 403 : reason === 'Unauthorized' ? 401 : reason === 'RequestEntityTooLarge' ? 413 : 422;
  const statusReason = code === 422 ? 'Invalid' : reason;
  const text = code === 422 ? `${kind} "${name}" is invalid: : ${message}` : message;
  return new StatusError({
    kind: 'Status',
    apiVersion: 'v1',
    metadata: {},
    status: 'Failure',
    message: text,
    reason: statusReason,
    details: { name, kind, causes: [{ message }] },
    code,
  } as never);
}

/** paramsOf resolves a binding's paramRef to the parameter objects (in the paramKind's version). Go: policy/generic
 * policy_dispatcher CollectParams */
function paramsOf(cluster: Cluster, paramKind: Record<string, unknown>, ref: Record<string, unknown>, r: AdmissionRequest): KubeObject[] {
  const apiVersion = String(paramKind.apiVersion ?? '');
  const kind = String(paramKind.kind ?? '');
  const desc = cluster.registry.forKind(apiVersion, kind);
  if (!desc) throw new Error(`failed to configure policy: failed to find resource referenced by paramKind: '${apiVersion}, Kind=${kind}'`);
  const version = apiVersion.includes('/') ? apiVersion.slice(apiVersion.indexOf('/') + 1) : apiVersion;
  let namespace: string | undefined;
  if (desc.namespaced) {
    namespace = typeof ref.namespace === 'string' && ref.namespace !== '' ? ref.namespace : r.namespace;
    if (!namespace) throw new Error('failed to configure binding: cannot use namespaced paramRef in policy binding that matches cluster-scoped resources');
  }
  const out = (objs: KubeObject[]) => objs.map((o) => desc.fromStorage(o, version));
  if (typeof ref.name === 'string' && ref.name !== '') {
    const got = cluster.get(desc.storage, namespace, ref.name)?.obj;
    return got && !got.metadata?.deletionTimestamp ? out([got]) : [];
  }
  const table = cluster.tables.get(desc.storage);
  const matches: KubeObject[] = [];
  for (const s of table?.objects.values() ?? []) {
    if (namespace !== undefined && s.obj.metadata.namespace !== namespace) continue;
    if (!isPlainObject(ref.selector)) continue;
    if (selects(ref.selector, (s.obj.metadata.labels ?? {}) as Record<string, string>)) matches.push(s.obj);
  }
  return out(matches);
}

/** admitByPolicies evaluates the cluster's bound ValidatingAdmissionPolicies on a write; throws the denial. */
export function admitByPolicies(cluster: Cluster, r: AdmissionRequest): void {
  const bindings = cluster.tables.get(BINDINGS);
  if (!bindings || bindings.objects.size === 0) return;
  // Policies do not govern their own kind (kube's admission skips its configuration objects).
  if (r.desc.group === 'admissionregistration.k8s.io') return;
  const nsObj = r.desc.namespaced ? cluster.get('/namespaces', undefined, r.namespace)?.obj : r.desc.plural === 'namespaces' ? r.object : undefined;
  const nsLabels = r.desc.namespaced || r.desc.plural === 'namespaces' ? ((nsObj?.metadata?.labels ?? {}) as Record<string, string>) : undefined;
  const qualified = r.desc.group ? `${r.desc.plural}.${r.desc.group}` : r.desc.plural;
  for (const b of bindings.objects.values()) {
    const bspec = asRecord(b.obj.spec);
    const policy = cluster.get(POLICIES, undefined, String(bspec.policyName ?? ''))?.obj;
    if (!policy) continue;
    const pspec = asRecord(policy.spec);
    if (!matchResources(pspec.matchConstraints, r, nsLabels) || !matchResources(bspec.matchResources, r, nsLabels)) continue;
    const vars: Record<string, unknown> = {
      object: toCel(r.object),
      oldObject: r.oldObject ? toCel(r.oldObject) : null,
      request: toCel({
        operation: r.operation,
        name: r.name,
        namespace: r.namespace,
        kind: { group: r.desc.group, version: r.version, kind: r.desc.kind },
        resource: { group: r.desc.group, version: r.version, resource: r.desc.plural },
        subResource: r.subresource ?? '',
        userInfo: { username: r.username, groups: r.groups ?? ['system:masters', 'system:authenticated'] },
        dryRun: r.dryRun,
      }),
      params: null,
      namespaceObject: nsObj ? toCel(nsObj) : null,
      variables: {},
    };
    const failurePolicy = pspec.failurePolicy ?? 'Fail';
    const actions = asArray(bspec.validationActions).map(String);
    const policyName = policy.metadata?.name;
    const bindingName = b.obj.metadata.name;
    const fail = (message: string, reason = 'Invalid') => {
      const full = `ValidatingAdmissionPolicy '${policyName}' with binding '${bindingName}' denied request: ${message}`;
      if (actions.includes('Warn')) r.warnings.push(`Validation failed for ValidatingAdmissionPolicy '${policyName}' with binding '${bindingName}': ${message}`);
      if (actions.includes('Deny')) throw deny(qualified, r.name, full, reason);
    };
    let paramSets: (KubeObject | null)[] = [null];
    try {
      if (pspec.paramKind !== undefined && pspec.paramKind !== null) {
        const found = paramsOf(cluster, asRecord(pspec.paramKind), asRecord(bspec.paramRef), r);
        if (found.length === 0) {
          if (asRecord(bspec.paramRef).parameterNotFoundAction === 'Deny') fail('failed to configure binding: no params found for policy binding with `Deny` parameterNotFoundAction');
          continue;
        }
        paramSets = found;
      }
    } catch (e) {
      if (e instanceof StatusError) throw e;
      if (failurePolicy === 'Fail') fail(e instanceof Error ? e.message : String(e));
      continue;
    }
    // Go: a binding with params is evaluated once per param object; any failing set denies.
    for (const params of paramSets) {
      vars.params = params ? toCel(params) : null;
      try {
        const conditionsHold = asArray(pspec.matchConditions).every((c) => evaluateCel(String(asRecord(c).expression ?? ''), vars) === true);
        if (!conditionsHold) continue;
        const variables: Record<string, unknown> = {};
        vars.variables = variables;
        for (const v of asArray(pspec.variables).map(asRecord)) variables[String(v.name)] = evaluateCel(String(v.expression ?? ''), vars);
        for (const v of asArray(pspec.validations).map(asRecord)) {
          const expression = String(v.expression ?? '');
          if (evaluateCel(expression, vars) === true) continue;
          let message = typeof v.message === 'string' && v.message !== '' ? v.message : `failed expression: ${expression}`;
          if (typeof v.messageExpression === 'string') {
            const m = evaluateCel(v.messageExpression, vars);
            if (typeof m === 'string' && m.trim() !== '') message = m;
          }
          fail(message, typeof v.reason === 'string' ? v.reason : 'Invalid');
        }
      } catch (e) {
        if (e instanceof StatusError) throw e;
        // Go: an expression that errors is a failure governed by failurePolicy.
        if (failurePolicy === 'Fail') fail(`expression error: ${e instanceof Error ? e.message.split('\n')[0] : String(e)}`);
      }
    }
  }
}

/**
 * stampTenantLabels is the mutating admission step of Sveltos multi-tenancy: a ServiceAccount writing an EventSource,
 * EventTrigger, EventBasedAddOn, ClusterProfile or Profile gets the tenant labels set from its identity, and a write
 * naming another tenant is refused (src/api/tenant-labels.ts decides). Runs before validation, like kube's mutating
 * admission.
 */
export function stampTenantLabels(desc: ResourceDescriptor, obj: KubeObject, old: KubeObject | undefined, username: string | undefined): void {
  obj.metadata ??= {} as NonNullable<KubeObject['metadata']>;
  const meta = obj.metadata!;
  const d = tenantLabelDecision(username, desc.group, desc.kind, meta.labels as Record<string, string> | undefined, old ? ((old.metadata?.labels ?? {}) as Record<string, string>) : undefined);
  if (d.action === 'deny') throw forbidden({ group: desc.group, resource: desc.plural }, meta.name ?? '', d.message);
  if (d.action === 'set') meta.labels = { ...((meta.labels as Record<string, string> | undefined) ?? {}), ...d.labels };
}
