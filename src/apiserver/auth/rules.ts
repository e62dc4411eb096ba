// RBAC policy rules, pure: whether a rule allows a request, and whether one set of rules covers another (the
// escalation check), with the compact rendering kube uses in its messages.
// Go: plugin/pkg/auth/authorizer/rbac/rbac.go (RuleAllows), pkg/registry/rbac/validation/policy_comparator.go (Covers),
// pkg/apis/rbac/v1/helpers.go (CompactString), pkg/registry/rbac/validation/policy_compact.go (CompactRules)

/** PolicyRule is rbac/v1 PolicyRule. */
export interface PolicyRule {
  verbs: string[];
  apiGroups?: string[];
  resources?: string[];
  resourceNames?: string[];
  nonResourceURLs?: string[];
}

/** UserInfo is an authenticated identity (user.Info). */
export interface UserInfo {
  username: string;
  uid?: string;
  groups: string[];
  extra?: Record<string, string[]>;
}

/** Attributes are what an authorizer decides on (authorizer.Attributes). */
export interface Attributes {
  user: UserInfo;
  verb: string;
  /** A resource request (under /api/VERSION/… or /apis/GROUP/VERSION/…); otherwise a non-resource path. */
  resourceRequest: boolean;
  apiGroup: string;
  apiVersion: string;
  resource: string;
  subresource: string;
  name: string;
  namespace: string;
  /** The request path below the cluster prefix (non-resource requests). */
  path: string;
}

const has = (set: readonly string[] | undefined, v: string) => set !== undefined && set.includes(v);

/** verbMatches: the rule lists the verb or `*`. */
export function verbMatches(rule: PolicyRule, verb: string): boolean {
  for (const v of rule.verbs) if (v === '*' || v === verb) return true;
  return false;
}

function apiGroupMatches(rule: PolicyRule, group: string): boolean {
  for (const g of rule.apiGroups ?? []) if (g === '*' || g === group) return true;
  return false;
}

// Go: ResourceMatches — "*", the exact "resource" or "resource/subresource", or "*/subresource".
function resourceMatches(rule: PolicyRule, combined: string, subresource: string): boolean {
  for (const r of rule.resources ?? []) {
    if (r === '*' || r === combined) return true;
    if (subresource && r.length === subresource.length + 2 && r.startsWith('*/') && r.endsWith(subresource)) return true;
  }
  return false;
}

function resourceNameMatches(rule: PolicyRule, name: string): boolean {
  const names = rule.resourceNames;
  if (!names || names.length === 0) return true;
  return names.includes(name);
}

/** nonResourceURLMatches: `*`, the exact path, or a prefix ending in `*`. */
export function nonResourceURLMatches(ruleURL: string, path: string): boolean {
  if (ruleURL === '*' || ruleURL === path) return true;
  return ruleURL.endsWith('*') && path.startsWith(ruleURL.slice(0, -1));
}

/** ruleAllows tells whether one rule grants the request. Go: rbac.RuleAllows */
export function ruleAllows(a: Attributes, rule: PolicyRule): boolean {
  if (!verbMatches(rule, a.verb)) return false;
  if (a.resourceRequest) {
    const combined = a.subresource ? `${a.resource}/${a.subresource}` : a.resource;
    return apiGroupMatches(rule, a.apiGroup) && resourceMatches(rule, combined, a.subresource) && resourceNameMatches(rule, a.name);
  }
  for (const u of rule.nonResourceURLs ?? []) if (nonResourceURLMatches(u, a.path)) return true;
  return false;
}

/** normalizeRule reads a rule from stored JSON (absent lists become empty). */
export function normalizeRule(raw: unknown): PolicyRule {
  const r = (raw ?? {}) as Record<string, unknown>;
  const list = (v: unknown) => (Array.isArray(v) ? v.filter((x): x is string => typeof x === 'string') : undefined);
  const out: PolicyRule = { verbs: list(r.verbs) ?? [] };
  const g = list(r.apiGroups);
  const res = list(r.resources);
  const names = list(r.resourceNames);
  const urls = list(r.nonResourceURLs);
  if (g && g.length) out.apiGroups = g;
  if (res && res.length) out.resources = res;
  if (names && names.length) out.resourceNames = names;
  if (urls && urls.length) out.nonResourceURLs = urls;
  return out;
}

// ------------------------------------------------------------------------------ covers (escalation)

// Go: BreakdownRule — one verb, one group, one resource, at most one name (or one URL) per rule.
function breakdown(rule: PolicyRule): PolicyRule[] {
  const out: PolicyRule[] = [];
  for (const group of rule.apiGroups ?? []) {
    for (const resource of rule.resources ?? []) {
      for (const verb of rule.verbs) {
        if ((rule.resourceNames ?? []).length > 0) for (const n of rule.resourceNames!) out.push({ apiGroups: [group], resources: [resource], verbs: [verb], resourceNames: [n] });
        else out.push({ apiGroups: [group], resources: [resource], verbs: [verb] });
      }
    }
  }
  for (const url of rule.nonResourceURLs ?? []) for (const verb of rule.verbs) out.push({ nonResourceURLs: [url], verbs: [verb] });
  return out;
}

const hasAll = (set: readonly string[] | undefined, want: readonly string[] | undefined) => (want ?? []).every((w) => has(set, w));

function resourceCoversAll(set: string[] | undefined, covers: string[] | undefined): boolean {
  if (has(set, '*') || hasAll(set, covers)) return true;
  for (const path of covers ?? []) {
    if (has(set, path)) continue;
    const i = path.indexOf('/');
    if (i < 0) return false;
    if (!has(set, `*/${path.slice(i + 1)}`)) return false;
  }
  return true;
}

function nonResourceURLsCoversAll(set: string[] | undefined, covers: string[] | undefined): boolean {
  return (covers ?? []).every((path) => (set ?? []).some((owner) => owner === path || (owner.endsWith('*') && path.startsWith(owner.replace(/\*+$/, '')))));
}

function ruleCovers(owner: PolicyRule, sub: PolicyRule): boolean {
  const verbs = has(owner.verbs, '*') || hasAll(owner.verbs, sub.verbs);
  const groups = has(owner.apiGroups, '*') || hasAll(owner.apiGroups, sub.apiGroups);
  const resources = resourceCoversAll(owner.resources, sub.resources);
  const urls = nonResourceURLsCoversAll(owner.nonResourceURLs, sub.nonResourceURLs);
  const ownerNames = owner.resourceNames ?? [];
  const names = (sub.resourceNames ?? []).length === 0 ? ownerNames.length === 0 : ownerNames.length === 0 || hasAll(ownerNames, sub.resourceNames);
  return verbs && groups && resources && names && urls;
}

/** covers tells whether the owner's rules include every permission of `rules`; returns the simple rules missing. */
export function covers(owner: readonly PolicyRule[], rules: readonly PolicyRule[]): { covered: boolean; missing: PolicyRule[] } {
  const missing: PolicyRule[] = [];
  for (const r of rules) for (const simple of breakdown(r)) if (!owner.some((o) => ruleCovers(o, simple))) missing.push(simple);
  return { covered: missing.length === 0, missing };
}

/** compactRules merges simple rules that differ only by verb. Go: CompactRules */
export function compactRules(rules: readonly PolicyRule[]): PolicyRule[] {
  const out: PolicyRule[] = [];
  const simple = new Map<string, PolicyRule>();
  for (const r of rules) {
    const isSimple = (r.resourceNames ?? []).length <= 1 && (r.nonResourceURLs ?? []).length === 0 && (r.apiGroups ?? []).length === 1 && (r.resources ?? []).length === 1;
    if (!isSimple) {
      out.push(r);
      continue;
    }
    const key = JSON.stringify([r.apiGroups![0], r.resources![0], r.resourceNames?.[0] ?? null]);
    const cur = simple.get(key);
    if (cur) cur.verbs.push(...r.verbs);
    else simple.set(key, { ...r, verbs: [...r.verbs] });
  }
  return [...out, ...simple.values()];
}

/** goQuoteList renders a []string as Go's %q does: ["a" "b"]. */
export function goQuoteList(list: readonly string[]): string {
  return `[${list.map((s) => JSON.stringify(s)).join(' ')}]`;
}

/** compactString renders a rule as kube's messages do: {APIGroups:[""], Resources:["pods"], Verbs:["get"]}. */
export function compactString(r: PolicyRule): string {
  const parts: string[] = [];
  if ((r.apiGroups ?? []).length > 0) parts.push(`APIGroups:${goQuoteList(r.apiGroups!)}`);
  if ((r.resources ?? []).length > 0) parts.push(`Resources:${goQuoteList(r.resources!)}`);
  if ((r.nonResourceURLs ?? []).length > 0) parts.push(`NonResourceURLs:${goQuoteList(r.nonResourceURLs!)}`);
  if ((r.resourceNames ?? []).length > 0) parts.push(`ResourceNames:${goQuoteList(r.resourceNames!)}`);
  if (r.verbs.length > 0) parts.push(`Verbs:${goQuoteList(r.verbs)}`);
  return `{${parts.join(', ')}}`;
}
