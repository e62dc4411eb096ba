// labels: labelFilters and metav1.LabelSelector as Kubernetes label requirements, evaluated in memory.
// Go: sveltoscluster-manager controllers/cluster_checks.go calculateLabelSelector (Equal → k=v, Different → k!=v,
// Has → k, DoesNotHave → !k; the selector ANDed) and apimachinery labels.Requirement.Matches / LabelSelectorAsSelector.
import type { LabelFilterInput, LabelSelectorInput } from './types.js';

/** LabelRequirement is one compiled requirement (apimachinery selection.Operator subset). */
export type LabelRequirement =
  | { op: 'in'; key: string; values: ReadonlySet<string> }
  | { op: 'notin'; key: string; values: ReadonlySet<string> }
  | { op: 'exists'; key: string }
  | { op: 'doesnotexist'; key: string };

/** LabelProblem is a filter or selector entry that Kubernetes would reject. */
export interface LabelProblem {
  field: string;
  message: string;
}

const NAME = /^([A-Za-z0-9]([-A-Za-z0-9_.]{0,61}[A-Za-z0-9])?)$/;
const DNS1123_SUBDOMAIN = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$/;
const VALUE = /^(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?$/;

/** validateLabelKey is apimachinery's IsQualifiedName: [prefix/]name; undefined when valid. */
export function validateLabelKey(key: string): string | undefined {
  const parts = key.split('/');
  if (parts.length > 2) return `invalid label key "${key}": at most one "/"`;
  const name = parts[parts.length - 1];
  if (name.length === 0 || name.length > 63 || !NAME.test(name)) {
    return `invalid label key "${key}": name part must be 1-63 characters of [A-Za-z0-9-_.], starting and ending alphanumeric`;
  }
  if (parts.length === 2) {
    const prefix = parts[0];
    if (prefix.length === 0 || prefix.length > 253 || !DNS1123_SUBDOMAIN.test(prefix)) {
      return `invalid label key "${key}": prefix must be a DNS subdomain`;
    }
  }
  return undefined;
}

/** validateLabelValue is apimachinery's IsValidLabelValue; undefined when valid. */
export function validateLabelValue(value: string): string | undefined {
  if (value.length > 63 || !VALUE.test(value)) {
    return `invalid label value "${value}": at most 63 characters of [A-Za-z0-9-_.], starting and ending alphanumeric`;
  }
  return undefined;
}

/** compileLabelFilters turns labelFilters (ANDed) into requirements, reporting entries Kubernetes would reject. */
export function compileLabelFilters(filters: readonly LabelFilterInput[] | undefined, base: string): { requirements: LabelRequirement[]; problems: LabelProblem[] } {
  const requirements: LabelRequirement[] = [];
  const problems: LabelProblem[] = [];
  (filters ?? []).forEach((f, i) => {
    const field = `${base}.labelFilters[${i}]`;
    const keyProblem = typeof f?.key === 'string' ? validateLabelKey(f.key) : 'key is required';
    if (keyProblem) return problems.push({ field: `${field}.key`, message: keyProblem });
    const value = f.value ?? '';
    switch (f.operation) {
      case 'Equal':
      case 'Different': {
        const valueProblem = validateLabelValue(value);
        if (valueProblem) return problems.push({ field: `${field}.value`, message: valueProblem });
        requirements.push({ op: f.operation === 'Equal' ? 'in' : 'notin', key: f.key, values: new Set([value]) });
        return;
      }
      case 'Has':
        requirements.push({ op: 'exists', key: f.key });
        return;
      case 'DoesNotHave':
        requirements.push({ op: 'doesnotexist', key: f.key });
        return;
      default:
        problems.push({ field: `${field}.operation`, message: `unknown operation "${String(f.operation)}" (want Equal, Different, Has or DoesNotHave)` });
    }
  });
  return { requirements, problems };
}

/** compileLabelSelector is LabelSelectorAsSelector: matchLabels as equality, matchExpressions as set requirements. */
export function compileLabelSelector(sel: LabelSelectorInput | undefined, base: string): { requirements: LabelRequirement[]; problems: LabelProblem[] } {
  const requirements: LabelRequirement[] = [];
  const problems: LabelProblem[] = [];
  if (!sel) return { requirements, problems };
  for (const [key, value] of Object.entries(sel.matchLabels ?? {})) {
    const p = validateLabelKey(key) ?? validateLabelValue(String(value));
    if (p) problems.push({ field: `${base}.selector.matchLabels`, message: p });
    else requirements.push({ op: 'in', key, values: new Set([String(value)]) });
  }
  (sel.matchExpressions ?? []).forEach((e, i) => {
    const field = `${base}.selector.matchExpressions[${i}]`;
    const keyProblem = typeof e?.key === 'string' ? validateLabelKey(e.key) : 'key is required';
    if (keyProblem) return problems.push({ field: `${field}.key`, message: keyProblem });
    const values = e.values ?? [];
    switch (e.operator) {
      case 'In':
      case 'NotIn': {
        if (values.length === 0) return problems.push({ field: `${field}.values`, message: `operator ${e.operator} needs at least one value` });
        const bad = values.map((v) => validateLabelValue(String(v))).find((p) => p !== undefined);
        if (bad) return problems.push({ field: `${field}.values`, message: bad });
        requirements.push({ op: e.operator === 'In' ? 'in' : 'notin', key: e.key, values: new Set(values.map(String)) });
        return;
      }
      case 'Exists':
      case 'DoesNotExist':
        if (values.length > 0) return problems.push({ field: `${field}.values`, message: `operator ${e.operator} takes no values` });
        requirements.push({ op: e.operator === 'Exists' ? 'exists' : 'doesnotexist', key: e.key });
        return;
      default:
        problems.push({ field: `${field}.operator`, message: `unknown operator "${String(e.operator)}" (want In, NotIn, Exists or DoesNotExist)` });
    }
  });
  return { requirements, problems };
}

/** matchesLabels is labels.Selector.Matches: every requirement holds (k!=v and NotIn also hold when k is absent). */
export function matchesLabels(requirements: readonly LabelRequirement[], labels: Readonly<Record<string, unknown>> | undefined): boolean {
  for (const r of requirements) {
    const has = labels !== undefined && Object.hasOwn(labels, r.key) && labels[r.key] !== null && labels[r.key] !== undefined;
    switch (r.op) {
      case 'in':
        if (!has || !r.values.has(String(labels![r.key]))) return false;
        break;
      case 'notin':
        if (has && r.values.has(String(labels![r.key]))) return false;
        break;
      case 'exists':
        if (!has) return false;
        break;
      case 'doesnotexist':
        if (has) return false;
        break;
    }
  }
  return true;
}
